"""`lp.dcg` and `lp.ndcg` as Polars expressions, and their `Metric` builders."""

from __future__ import annotations

import math
from functools import partial

import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.messages import NDCG_NEGATIVE, NDCG_ONE_DOCUMENT
from lodestar_polars._base.validation import check_bool, check_k, check_log_base, check_option
from lodestar_polars._core.dcg import normalized
from lodestar_polars._core.discount import (
    DISCOUNTS,
    Discount,
)
from lodestar_polars._metrics.dcg.ideal import (
    _UNROLLED_K,
    _ideal_dcg,
    _judged_ideal,
    _slots_ideal,
)
from lodestar_polars._metrics.dcg.terms import (
    _checks,
    _dcg_value,
    _gain,
    _over_group,
    _tie_averaged_dcg,
    tie_averaged_ndcg,
)
from lodestar_polars._metrics.expr import (
    Check,
    Metric,
    as_score,
)
from lodestar_polars._metrics.ties import tie_rule
from lodestar_polars.exceptions import InvalidParameterError
from lodestar_polars.typing import IntoExprColumn

NDCG_DENOMINATORS = ("ideal", "k")


def _document_count_check() -> Check:
    return Check(
        pl.len() < 2,
        pl.format(
            NDCG_ONE_DOCUMENT,
            pl.len(),
        ),
    )


def dcg_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None = None,
    log_base: float = 2,
    ignore_ties: bool = False,
    gain: str = "linear",
    ties: str = "average",
    item: IntoExprColumn | None = None,
    discount: str = "log",
    name: str = "dcg",
) -> Metric:
    """The :class:`Metric` behind :func:`dcg`."""
    k = check_k(k, "dcg")
    log_base = check_log_base(log_base, "dcg")
    ignore_ties = check_bool(ignore_ties, "ignore_ties", "dcg")
    kind: Discount = check_option(discount, "discount", "dcg", DISCOUNTS)  # type: ignore[assignment]
    (g, gain_checks), score = _gain(y_true, gain, "dcg"), as_score(y_score)
    rule, doc_checks = tie_rule(score, ties=ties, item=item, ignore_ties=ignore_ties, caller="dcg")
    value = _dcg_value(
        g, score, k=k, log_base=log_base, ignore_ties=ignore_ties, ties=rule, discount=kind
    )
    return Metric(name, value, (*_checks(gain_checks, score), *doc_checks, _document_count_check()))


def ndcg_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None = None,
    ignore_ties: bool = False,
    gain: str = "linear",
    ties: str = "average",
    item: IntoExprColumn | None = None,
    judged: IntoExprColumn | None = None,
    discount: str = "log",
    denominator: str = "ideal",
    name: str = "ndcg",
) -> Metric:
    """The :class:`Metric` behind :func:`ndcg`."""
    k = check_k(k, "ndcg")
    ignore_ties = check_bool(ignore_ties, "ignore_ties", "ndcg")
    d: Discount = check_option(discount, "discount", "ndcg", DISCOUNTS)  # type: ignore[assignment]
    _check_denominator(denominator, k, judged)
    (g, gain_checks), score = _gain(y_true, gain, "ndcg"), as_score(y_score)
    rule, doc_checks = tie_rule(score, ties=ties, item=item, ignore_ties=ignore_ties, caller="ndcg")
    ranked = partial(_dcg_value, g, score, log_base=2.0, ignore_ties=ignore_ties, ties=rule)
    judged_checks: tuple[Check, ...] = ()
    if judged is not None or (denominator == "k" and k is not None):
        if judged is not None:
            ideal, judged_checks = _judged_ideal(judged, gain, k, d)
        else:
            ideal = _slots_ideal(k, d)  # type: ignore[arg-type]  # k checked above
        dcg = ranked(k=k, discount=d)
        value = normalized(dcg, ideal)
    elif rule.averaged and not ignore_ties and k is not None and k <= _UNROLLED_K:
        # the DCG from the top k rows, the ideal from the gains sorted as a list
        value = tie_averaged_ndcg(g, score, k=k, discount=d)
    elif rule.averaged and not ignore_ties:
        # DCG and ideal in one list.eval over the group's rows (one implode for both)
        value = _over_group(
            g,
            score,
            lambda rows: normalized(
                _tie_averaged_dcg(2.0, k, d), _ideal_dcg(rows["gain"], k=k, discount=d)
            ),
        )
    else:
        dcg = ranked(k=k, discount=d)
        value = normalized(dcg, _ideal_dcg(g, k=k, discount=d))
    negative = Check.every_row_within(g, 0.0, math.inf, "both", pl.lit(NDCG_NEGATIVE))
    checks = (
        *_checks(gain_checks, score),
        *doc_checks,
        *judged_checks,
        negative,
        # scikit-learn's rule: one row is its own ideal (NDCG 1 whatever the ranking);
        # an ideal from judged= or from k slots makes a one-row list a real score
        *((_document_count_check(),) if judged is None and denominator == "ideal" else ()),
    )
    return Metric(name, value, checks)


def _check_denominator(denominator: object, k: int | None, judged: object) -> None:
    """``denominator``: ``"ideal"``, or ``"k"`` with a ``k`` and without ``judged``."""
    check_option(denominator, "denominator", "ndcg", NDCG_DENOMINATORS)
    if denominator != "k":
        return
    if k is None:
        msg = "ndcg(denominator='k') needs `k=`: the ideal DCG is that of k rows of gain 1"
        raise InvalidParameterError(msg)
    if judged is not None:
        msg = (
            "ndcg: denominator='k' (the ideal DCG of k rows of gain 1) and judged= "
            "(the ideal DCG of the judged relevances) cannot be combined"
        )
        raise InvalidParameterError(msg)


@renamed(doc_id="item")
def dcg(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None = None,
    log_base: float = 2,
    ignore_ties: bool = False,
    gain: str = "linear",
    ties: str = "average",
    item: IntoExprColumn | None = None,
    discount: str = "log",
) -> pl.Expr:
    r"""Discounted cumulative gain of one group: scikit-learn's ``dcg_score`` per query.

    .. math:: \mathrm{DCG@k} = \sum_{i < k} \frac{\mathrm{rel}_{(i)}}{\log_b(i + 2)}

    where ``rel_(i)`` is the relevance at 0-based position ``i`` of the ranking
    by descending ``y_score``.  Gains are linear (the relevance itself) unless
    ``gain='exponential'``, which puts ``2 ** rel - 1`` in its place.

    Parameters
    ----------
    y_true
        Relevance of each row (document), a column name or an expression.
        Numeric or boolean; negative values are accepted, as scikit-learn does.
    y_score
        Scores the ranking was made from, a column name or an expression.
    k : int, default=None
        Only the first ``k`` positions count.  ``None``, or a ``k`` past the
        group's length, scores the whole group.
    log_base : float, default=2
        Base of the logarithmic discount, in (0, inf).
    ignore_ties : bool, default=False
        Rank equal scores in a fixed order (the later row first) instead of
        averaging over their orderings.  Faster; correct only when the scores
        have no ties.
    gain : {'linear', 'exponential'}, default='linear'
        ``'linear'``: the gain is the relevance (scikit-learn, trec_eval);
        ``'exponential'``: ``2 ** relevance - 1`` (Burges et al., ranx's
        ``dcg_burges``), applied to ``y_true`` before anything else.
    ties : {'average', 'trec_eval', 'input'}, default='average'
        How equal scores are ordered.  ``'average'``: over every ordering of
        the tie, in closed form (scikit-learn).  ``'trec_eval'``: by
        ``item`` descending (byte-wise on its text), as trec_eval breaks
        ties.  ``'input'``: in row order, earlier row first.  Cannot be
        combined with ``ignore_ties=True`` (scikit-learn's own rule: the later
        row first).
    item : str or polars.Expr, default=None
        The id of the ranked item (a document), needed by
        ``ties='trec_eval'``; a group with a repeated or null id is refused.
        Called ``doc_id`` before 0.2.0 (the old name warns until 0.3.0).
    discount : {'log', 'lenskit'}, default='log'
        ``'log'``: ``1 / log_b(rank + 1)`` for the 1-based rank (scikit-learn,
        trec_eval, ranx, RecTools).  ``'lenskit'``: ``1 / log_b(max(rank, 2))``,
        LensKit's ``LogRankWeight`` (Järvelin and Kekäläinen's original): the
        first two ranks weigh the same (docs/coming-from-lenskit.md).

    Returns
    -------
    polars.Expr
        A Float64 expression named ``dcg``, one value per group: a
        ``group_by(...).agg(...)`` group, the whole frame in ``select``, or a
        window in ``.over(...)``.

    Raises
    ------
    InvalidParameterError
        ``k`` below 1 or not an int, ``log_base`` outside (0, inf) (zero,
        negative, NaN, inf), a non-bool ``ignore_ties``: scikit-learn's sentence;
        a ``gain`` other than ``'linear'`` or ``'exponential'``, a ``discount``
        other than ``'log'`` or ``'lenskit'``.

    See Also
    --------
    ndcg : DCG divided by the best DCG the group could score, in [0, 1].
    lodestar_polars.arrays.dcg_score : the same on dense arrays.

    Notes
    -----
    Ties are averaged as scikit-learn averages them: a tie group contributes
    the mean of its gains times the sum of the discounts of the positions it
    occupies (cut at ``k``), the expectation over every ordering of the tie.

    A group is refused, and gets null, when it has fewer than 2 rows, or a
    null, NaN or infinite ``y_true`` or ``y_score``; :func:`evaluate` with
    ``strict=True`` names such groups.

    Examples
    --------
    The seed example: four documents, all scored equally.

    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {"query": [1, 1, 1, 1], "rel": [3, 2, 1, 0], "score": [0.5, 0.5, 0.5, 0.5]}
    ... )
    >>> df.group_by("query").agg(
    ...     averaged=lp.dcg("rel", "score"),
    ...     ordered=lp.dcg("rel", "score", ignore_ties=True),
    ... )
    shape: (1, 3)
    ┌───────┬──────────┬──────────┐
    │ query ┆ averaged ┆ ordered  │
    │ ---   ┆ ---      ┆ ---      │
    │ i64   ┆ f64      ┆ f64      │
    ╞═══════╪══════════╪══════════╡
    │ 1     ┆ 3.842409 ┆ 2.922959 │
    └───────┴──────────┴──────────┘

    scikit-learn's docstring example, as two queries of a long frame:

    >>> df = pl.DataFrame(
    ...     {
    ...         "query": ["a"] * 5 + ["b"] * 5,
    ...         "rel": [10, 0, 0, 1, 5] * 2,
    ...         "score": [0.1, 0.2, 0.3, 4, 70, 1, 0, 0, 0, 1],
    ...     }
    ... )
    >>> df.group_by("query", maintain_order=True).agg(
    ...     dcg=lp.dcg("rel", "score"), dcg_at_1=lp.dcg("rel", "score", k=1)
    ... )
    shape: (2, 3)
    ┌───────┬──────────┬──────────┐
    │ query ┆ dcg      ┆ dcg_at_1 │
    │ ---   ┆ ---      ┆ ---      │
    │ str   ┆ f64      ┆ f64      │
    ╞═══════╪══════════╪══════════╡
    │ a     ┆ 9.499458 ┆ 5.0      │
    │ b     ┆ 12.67115 ┆ 7.5      │
    └───────┴──────────┴──────────┘

    Exponential gains, ``2 ** rel - 1``, on a perfect ranking:

    >>> perfect = pl.DataFrame({"rel": [3, 2, 1, 0], "score": [4.0, 3.0, 2.0, 1.0]})
    >>> perfect.select(
    ...     linear=lp.dcg("rel", "score"), exponential=lp.dcg("rel", "score", gain="exponential")
    ... )
    shape: (1, 2)
    ┌─────────┬─────────────┐
    │ linear  ┆ exponential │
    │ ---     ┆ ---         │
    │ f64     ┆ f64         │
    ╞═════════╪═════════════╡
    │ 4.76186 ┆ 9.392789    │
    └─────────┴─────────────┘

    LensKit's discount, ``1 / log2(max(rank, 2))``: the second row weighs 1 too,
    ``3 + 2 + 1 / log2(3)``:

    >>> perfect.select(lenskit=lp.dcg("rel", "score", discount="lenskit"))
    shape: (1, 1)
    ┌─────────┐
    │ lenskit │
    │ ---     │
    │ f64     │
    ╞═════════╡
    │ 5.63093 │
    └─────────┘
    """
    return dcg_metric(
        y_true,
        y_score,
        k=k,
        log_base=log_base,
        ignore_ties=ignore_ties,
        gain=gain,
        ties=ties,
        item=item,
        discount=discount,
    ).expr()


@renamed(doc_id="item")
def ndcg(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None = None,
    ignore_ties: bool = False,
    gain: str = "linear",
    ties: str = "average",
    item: IntoExprColumn | None = None,
    judged: IntoExprColumn | None = None,
    discount: str = "log",
    denominator: str = "ideal",
) -> pl.Expr:
    r"""Normalized DCG of one group: scikit-learn's ``ndcg_score`` per query.

    .. math:: \mathrm{NDCG@k} = \frac{\mathrm{DCG@k}(y_{true}, y_{score})}
              {\mathrm{DCG@k}(y_{true}, y_{true})}

    The denominator is the DCG of the group's own relevances in the best
    order, with the same ``k``; the discount is base 2 (it cancels in the ratio).

    Parameters
    ----------
    y_true
        Relevance of each row, a column name or an expression; must not be negative.
    y_score
        Scores the ranking was made from.
    k : int, default=None
        Only the first ``k`` positions count; ``None`` or a ``k`` past the
        group's length scores the whole group.
    ignore_ties : bool, default=False
        Rank equal scores with the later row first instead of averaging over
        their orderings.
    gain : {'linear', 'exponential'}, default='linear'
        ``'linear'``: the gain is the relevance (scikit-learn, trec_eval);
        ``'exponential'``: ``2 ** relevance - 1`` in both the DCG and its
        ideal (Burges et al., ranx's ``ndcg_burges``).  The exponential gain
        widens the gap between a ranking that puts its best row first and
        one that does not.
    ties : {'average', 'trec_eval', 'input'}, default='average'
        How equal scores are ordered in the DCG (the ideal needs no rule).
        ``'average'``: over every ordering of the tie, in closed form
        (scikit-learn).  ``'trec_eval'``: by
        ``item`` descending (byte-wise on its text), as trec_eval breaks
        ties.  ``'input'``: in row order, earlier row first.  Cannot be
        combined with ``ignore_ties=True`` (scikit-learn's own rule: the later
        row first).
    item : str or polars.Expr, default=None
        The id of the ranked item (a document), needed by
        ``ties='trec_eval'``; a group with a repeated or null id is refused.
        Called ``doc_id`` before 0.2.0 (the old name warns until 0.3.0).
    judged : str or polars.Expr, default=None
        A list column, the same list on every row of a group: the relevance
        of every judged document of the query, retrieved or not (a run joined
        with its qrels).  The ideal DCG is then theirs, as trec_eval's and
        ir_measures' is, instead of the group's own rows'.  LensKit's ideal
        is this one (docs/coming-from-lenskit.md).
    discount : {'log', 'lenskit'}, default='log'
        The discount of the DCG and of its ideal: ``'log'``,
        ``1 / log2(rank + 1)``, or ``'lenskit'``, ``1 / log2(max(rank, 2))``
        (see :func:`dcg`).
    denominator : {'ideal', 'k'}, default='ideal'
        ``'ideal'``: the DCG of the group's own gains (or of ``judged``) in the
        best order, cut at ``k``.  ``'k'``: the DCG of ``k`` rows of gain 1,
        the same constant for every group whatever its relevant rows
        (RecTools' ``NDCG``, its default ``divide_by_achievable=False``); it
        needs ``k`` and cannot be combined with ``judged``.  With graded gains
        above 1 the value can exceed 1.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``ndcg``, one value per group, in [0, 1].

    Raises
    ------
    InvalidParameterError
        ``k`` below 1 or not an int, a non-bool ``ignore_ties``, a ``gain``
        other than ``'linear'`` or ``'exponential'``, a ``discount`` other than
        ``'log'`` or ``'lenskit'``, a ``denominator`` other than ``'ideal'``
        or ``'k'``, ``denominator='k'`` without ``k`` or with ``judged``.

    See Also
    --------
    dcg : the unnormalised gain, with a choice of log base.
    lodestar_polars.arrays.ndcg_score : the same on dense arrays.

    Notes
    -----
    A group with nothing relevant (every relevance 0) scores 0.0, and counts
    in a mean, as in scikit-learn.  Ties are averaged (see :func:`dcg`).  A
    group is refused, and gets null, when it has a negative relevance, fewer
    than 2 rows (unless ``judged`` or ``denominator='k'`` gives the ideal), or a
    null, NaN or infinite value.  The value is not clipped:
    like scikit-learn, a perfect ranking can give 0.9999999999999999.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {
    ...         "query": ["a"] * 5 + ["b"] * 4,
    ...         "rel": [10, 0, 0, 1, 5, 3, 2, 1, 0],
    ...         "score": [0.1, 0.2, 0.3, 4, 70, 0.5, 0.5, 0.5, 0.5],
    ...     }
    ... )
    >>> df.group_by("query", maintain_order=True).agg(ndcg=lp.ndcg("rel", "score"))
    shape: (2, 2)
    ┌───────┬──────────┐
    │ query ┆ ndcg     │
    │ ---   ┆ ---      │
    │ str   ┆ f64      │
    ╞═══════╪══════════╡
    │ a     ┆ 0.695694 │
    │ b     ┆ 0.806914 │
    └───────┴──────────┘

    The same metric as a window, next to each row:

    >>> df.with_columns(ndcg_at_2=lp.ndcg("rel", "score", k=2).over("query")).head(3)
    shape: (3, 4)
    ┌───────┬─────┬───────┬───────────┐
    │ query ┆ rel ┆ score ┆ ndcg_at_2 │
    │ ---   ┆ --- ┆ ---   ┆ ---       │
    │ str   ┆ i64 ┆ f64   ┆ f64       │
    ╞═══════╪═════╪═══════╪═══════════╡
    │ a     ┆ 10  ┆ 0.1   ┆ 0.428056  │
    │ a     ┆ 0   ┆ 0.2   ┆ 0.428056  │
    │ a     ┆ 0   ┆ 0.3   ┆ 0.428056  │
    └───────┴─────┴───────┴───────────┘

    Linear against exponential gain on two rankings of the labels 3, 1, 1, 0, 0:

    >>> two = pl.DataFrame(
    ...     {
    ...         "ranking": ["good"] * 5 + ["bad"] * 5,
    ...         "rel": [3, 0, 0, 1, 1, 1, 1, 0, 0, 3],
    ...         "score": [5.0, 4.0, 3.0, 2.0, 1.0] * 2,
    ...     }
    ... )
    >>> two.group_by("ranking", maintain_order=True).agg(
    ...     linear=lp.ndcg("rel", "score"), exponential=lp.ndcg("rel", "score", gain="exponential")
    ... )
    shape: (2, 3)
    ┌─────────┬──────────┬─────────────┐
    │ ranking ┆ linear   ┆ exponential │
    │ ---     ┆ ---      ┆ ---         │
    │ str     ┆ f64      ┆ f64         │
    ╞═════════╪══════════╪═════════════╡
    │ good    ┆ 0.924133 ┆ 0.961456    │
    │ bad     ┆ 0.675753 ┆ 0.533629    │
    └─────────┴──────────┴─────────────┘

    RecTools' ideal, three slots of gain 1 whatever the group holds: one
    relevant row ranked first scores ``1 / (1 + 1 / log2(3) + 1 / 2)``:

    >>> one = pl.DataFrame({"rel": [1, 0, 0, 0], "score": [4.0, 3.0, 2.0, 1.0]})
    >>> one.select(
    ...     ideal=lp.ndcg("rel", "score", k=3),
    ...     slots=lp.ndcg("rel", "score", k=3, denominator="k"),
    ... )
    shape: (1, 2)
    ┌───────┬──────────┐
    │ ideal ┆ slots    │
    │ ---   ┆ ---      │
    │ f64   ┆ f64      │
    ╞═══════╪══════════╡
    │ 1.0   ┆ 0.469279 │
    └───────┴──────────┘
    """
    return ndcg_metric(
        y_true,
        y_score,
        k=k,
        ignore_ties=ignore_ties,
        gain=gain,
        ties=ties,
        item=item,
        judged=judged,
        discount=discount,
        denominator=denominator,
    ).expr()
