"""The IR family as Polars expressions: precision, recall, hit rate, R-precision, AP@k.

Each takes ``ties``, the rule for equal scores:

``"average"`` (default)
    the expectation over every ordering of each tie group, in closed form
    (scikit-learn's rule for DCG): a relevant row in a tie group of ``c`` rows
    at positions ``[a, a + c)`` is in the top ``k`` with chance
    ``clip(k - a, 0, c) / c``; the first relevant row is in the top ``k``
    unless the ``m = k - a`` tied rows that make the cut are all irrelevant,
    with chance ``C(c - r, m) / C(c, m)``.
``"trec_eval"``
    score descending, then item (document id) descending (``item=``, compared
    as text, byte-wise), trec_eval's order.
``"input"``
    score descending, equal scores in row order (the earlier row first).

``n_relevant=`` gives the number of relevant documents of a group when the
rows are not the whole truth (a run joined with qrels: the judged relevant
documents the run missed count in recall and R-precision, as in trec_eval).
Without it, the rows given are the whole truth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.messages import python_text
from lodestar_polars._base.validation import check_k, check_option, check_real
from lodestar_polars._core._ops import exp
from lodestar_polars._core.ir import (
    average_precision_term,
    expected_average_precision_term,
    expected_hits_in_block,
    hit_term,
    log_miss_term,
    precision_at,
    ratio_or_zero,
)
from lodestar_polars._metrics.expr import (
    MAX_ROWS,
    Check,
    Fields,
    Metric,
    as_float,
    as_score,
    input_checks,
    let,
    over_rows,
    ranks_as_counts,
    row_index,
)
from lodestar_polars._metrics.ties import Ties, tie_rule
from lodestar_polars.typing import IntoExprColumn

DENOMINATORS = ("relevant", "min_k")
PRECISION_DENOMINATORS = ("k", "retrieved")


@dataclass(frozen=True)
class _Ranked:
    """The pieces every IR expression shares: relevance, score and the tie rule.

    Polars does no common-subexpression elimination inside ``group_by().agg()``:
    an expression referenced at two places of a tree is evaluated twice there
    (a rank, a sort, a group scalar broadcast back to rows).  So the methods
    below feed the row formulas of ``_core.ir`` with arguments built so that
    each costly node (rank, sort, int_range, cum_sum, filtered aggregate) is
    evaluated as few times as possible (docs/decisions/0008).
    """

    relevant: pl.Expr
    score: pl.Expr
    ties: Ties
    checks: tuple[Check, ...]

    def in_order(self) -> pl.Expr:
        """Relevance flags (Float64) in ranking order (``ties`` ``"trec_eval"`` or ``"input"``)."""
        return self.ties.order(self.relevant.cast(pl.Float64))

    def hits(self, k: int | pl.Expr | None) -> pl.Expr:
        """(Expected) relevant rows in the top ``k``; ``None``: all relevant rows."""
        if k is None:
            return self.relevant.cast(pl.Float64).sum()
        if not self.ties.averaged:
            if isinstance(k, int):
                return self.in_order().head(min(k, MAX_ROWS)).sum()
            return hit_term(self.in_order(), row_index(), k).cast(pl.Float64).sum()
        flags = self.relevant.cast(pl.Float64)
        if not isinstance(k, int):
            # k an expression of the group (R-precision's): 3 ranks evaluated
            above, through = ranks_as_counts(self.score)
            a = above.cast(pl.Float64)
            return expected_hits_in_block(flags, through.cast(pl.Float64) - a, a, k).sum()

        def terms(rows: Fields) -> pl.Expr:
            above, through = ranks_as_counts(rows["score"])
            # each rank computed once though read twice (no CSE inside agg)
            return let(
                {"flag": rows["flag"], "a": above.cast(pl.Float64), "t": through},
                lambda f: expected_hits_in_block(f["flag"], f["t"] - f["a"], f["a"], k),
            )

        return over_rows({"flag": flags, "score": self.score}, terms).list.sum()

    def any_hit(self, k: int) -> pl.Expr:
        """(Chance of) at least one relevant row in the top ``k``."""
        if not self.ties.averaged:
            return (self.hits(k) > 0).cast(pl.Float64)
        # The best-scored relevant rows' tie block: ``above`` rows score higher, it
        # holds ``block`` rows, ``r`` of them relevant.  Each of those three reads
        # ``best`` (a group scalar compared with every row), so each is named once.
        best = pl.when(self.relevant).then(self.score).max()
        above = (self.score > best).sum().cast(pl.Float64)
        block = (self.score == best).sum().cast(pl.Float64)
        r = (self.relevant & (self.score == best)).sum().cast(pl.Float64)
        # Draws past the block's irrelevant rows are certain hits (ln 0 = -inf at
        # j = block - r), so capping the draws at the group's length rather than at
        # ``block`` gives the same sum; no relevant row: null ``best``, guarded below.
        made = (pl.lit(float(k)) - above).clip(0.0, pl.len().cast(pl.Float64))
        offset = pl.int_range(0, made.cast(pl.Int64), dtype=pl.Int64).cast(pl.Float64)
        log_miss = log_miss_term(r, block, offset).sum()
        return pl.when(self.relevant.any()).then(1.0 - exp(log_miss)).otherwise(0.0)

    def average_precision_numerator(self, k: int | None) -> pl.Expr:
        """(Expected) sum of the precision at each relevant row in the top ``k``."""
        if not self.ties.averaged:
            flags = self.in_order()
            return average_precision_term(flags, flags.cum_sum(), row_index(), k).sum()

        # expected_average_precision_term per position: any bijection of a block's
        # rows onto its positions gives the same sum, so the ordinal rank serves as
        # position.  The relevant rows above each row's tie block (R) and through
        # it (R + r) are counted by binary searches of its score among the
        # relevant scores (sorted descending: negating them would wrap an
        # unsigned score), not gathered from a running sum at the ranks.  Each
        # rank and search is computed once (let).
        def terms(rows: Fields) -> pl.Expr:
            score = rows["score"]
            above, through = ranks_as_counts(score)
            relevant_scores = score.filter(rows["relevant"]).sort(descending=True)

            def searched(side: Literal["left", "right"]) -> pl.Expr:
                found = relevant_scores.search_sorted(score, side=side, descending=True)
                return found.cast(pl.Float64)

            values = {
                "a": above.cast(pl.Float64),
                "t": through.cast(pl.Float64),
                "position": score.rank("ordinal", descending=True).cast(pl.Float64) - 1.0,
                "higher": searched("left"),
                "upto": searched("right"),
            }
            return let(
                values,
                lambda f: expected_average_precision_term(
                    f["upto"] - f["higher"], f["t"] - f["a"], f["a"], f["higher"], f["position"], k
                ),
            )

        return over_rows({"relevant": self.relevant, "score": self.score}, terms).list.sum()


def _ranked(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    ties: str,
    item: IntoExprColumn | None,
    relevance_level: float | None,
    caller: str,
) -> _Ranked:
    level = check_real(relevance_level, "relevance_level", caller)
    gain, score = as_float(y_true), as_score(y_score)
    relevant = gain > 0 if level is None else gain >= level
    rule, doc_checks = tie_rule(score, ties=ties, item=item, caller=caller)
    return _Ranked(relevant, score, rule, (*input_checks(gain, score), *doc_checks))


def _n_relevant(
    ranked: _Ranked, n_relevant: IntoExprColumn | None
) -> tuple[pl.Expr, tuple[Check, ...]]:
    """The denominator: ``n_relevant`` (one value per group) or the group's relevant rows."""
    own = ranked.relevant.cast(pl.Float64).sum()
    if n_relevant is None:
        return own, ()
    n = as_float(n_relevant)
    not_whole = n.is_infinite() | (n != n.floor()) | (n < 0)
    checks = (
        Check(
            n.is_null().any() | n.is_nan().any(), pl.lit("Input n_relevant contains null or NaN.")
        ),
        Check.any_row(
            not_whole,
            pl.format(
                "n_relevant must be a whole number of relevant documents (0, 1, 2, ...). "
                "Got {} instead.",
                python_text(n.filter(not_whole).first()),
            ),
        ),
        Check(n.n_unique() > 1, pl.lit("n_relevant must hold one value per group.")),
        Check(
            n.first() < own,
            pl.format(
                "n_relevant ({}) is below the relevant rows of the group ({}).", n.first(), own
            ),
        ),
    )
    return n.first(), checks


def precision_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None = None,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    denominator: str = "k",
    name: str = "precision",
) -> Metric:
    """The :class:`Metric` behind :func:`precision`."""
    k = check_k(k, "precision")
    check_option(denominator, "denominator", "precision", PRECISION_DENOMINATORS)
    r = _ranked(
        y_true,
        y_score,
        ties=ties,
        item=item,
        relevance_level=relevance_level,
        caller="precision",
    )
    # a Series literal, not a scalar one: Polars divides a group aggregate by a scalar
    # float literal as a product with its reciprocal (3 / 10 -> 0.30000000000000004)
    if k is None:
        over = pl.len().cast(pl.Float64)
    elif denominator == "retrieved":  # LensKit's: a list shorter than k over its length
        over = pl.len().clip(upper_bound=k).cast(pl.Float64)
    else:
        over = pl.lit(pl.Series([float(k)])).first()
    return Metric(name, precision_at(r.hits(k), over), r.checks)


def recall_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None = None,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    n_relevant: IntoExprColumn | None = None,
    denominator: str = "relevant",
    name: str = "recall",
) -> Metric:
    """The :class:`Metric` behind :func:`recall`."""
    k = check_k(k, "recall")
    check_option(denominator, "denominator", "recall", DENOMINATORS)
    r = _ranked(
        y_true, y_score, ties=ties, item=item, relevance_level=relevance_level, caller="recall"
    )
    n, checks = _n_relevant(r, n_relevant)
    if denominator == "min_k" and k is not None:  # LensKit's: min(relevant, k)
        n = n.clip(upper_bound=float(k))
    return Metric(name, ratio_or_zero(r.hits(k), n), (*r.checks, *checks))


def hit_rate_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    name: str = "hit_rate",
) -> Metric:
    """The :class:`Metric` behind :func:`hit_rate`."""
    k = check_k(k, "hit_rate", allow_none=False)  # type: ignore[assignment]
    r = _ranked(
        y_true,
        y_score,
        ties=ties,
        item=item,
        relevance_level=relevance_level,
        caller="hit_rate",
    )
    return Metric(name, r.any_hit(k), r.checks)


def r_precision_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    n_relevant: IntoExprColumn | None = None,
    name: str = "r_precision",
) -> Metric:
    """The :class:`Metric` behind :func:`r_precision`."""
    r = _ranked(
        y_true,
        y_score,
        ties=ties,
        item=item,
        relevance_level=relevance_level,
        caller="r_precision",
    )
    n, checks = _n_relevant(r, n_relevant)
    return Metric(name, ratio_or_zero(r.hits(n), n), (*r.checks, *checks))


def average_precision_at_k_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None,
    denominator: str = "relevant",
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    n_relevant: IntoExprColumn | None = None,
    name: str = "average_precision_at_k",
) -> Metric:
    """The :class:`Metric` behind :func:`average_precision_at_k`."""
    caller = "average_precision_at_k"
    k = check_k(k, caller)
    check_option(denominator, "denominator", caller, DENOMINATORS)
    r = _ranked(
        y_true, y_score, ties=ties, item=item, relevance_level=relevance_level, caller=caller
    )
    n, checks = _n_relevant(r, n_relevant)
    if denominator == "min_k" and k is not None:
        n = n.clip(upper_bound=float(k))
    value = ratio_or_zero(r.average_precision_numerator(k), n)
    return Metric(name, value, (*r.checks, *checks))


@renamed(doc_id="item")
def average_precision_at_k(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None,
    denominator: str = "relevant",
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    n_relevant: IntoExprColumn | None = None,
) -> pl.Expr:
    r"""Average precision cut at ``k`` of one group (trec_eval's ``map_cut.k``, ranx's ``map@k``).

    .. math:: \mathrm{AP@k} = \frac{1}{D} \sum_{i < k} \mathrm{rel}_{(i)} \,
              \frac{|\{\text{relevant rows among the first } i + 1\}|}{i + 1}

    the precision at each relevant row ranked in the top ``k``, summed, over a
    denominator ``D``: every relevant document (``denominator='relevant'``,
    trec_eval, ranx, ir_measures) or that capped at ``k``
    (``denominator='min_k'``, Spark's and the recommender libraries' MAP@k,
    which can reach 1 when there are more relevant documents than ``k``).

    Parameters
    ----------
    y_true, y_score, item, relevance_level
        As in :func:`precision`: a row is relevant when ``y_true > 0`` (or at
        least ``relevance_level``); graded relevance is read as relevant or not.
    k : int or None
        The cutoff, required (write ``k=None`` for the whole group: trec_eval's
        ``map`` over the rows).
    denominator : {'relevant', 'min_k'}, default='relevant'
        ``D``: the number of relevant documents, or ``min(that, k)``.
    ties : {'average', 'trec_eval', 'input'}, default='average'
        ``'average'``: the expectation over every ordering of each tie group,
        exact and in closed form (see Notes); ``'trec_eval'``: ``item``
        descending; ``'input'``: row order.
    n_relevant : column name or expression, default=None
        The number of relevant documents of the group (one value per group),
        when the rows are not the whole truth; default: the group's relevant rows.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``average_precision_at_k``, in [0, 1]; 0
        for a group with nothing relevant.

    Raises
    ------
    InvalidParameterError
        A ``k`` below 1, an unknown ``denominator`` or ``ties``,
        ``ties='trec_eval'`` without ``item``.

    See Also
    --------
    average_precision : scikit-learn's ``average_precision_score`` (binary, no cutoff).
    lodestar_polars.trec.evaluate : trec_eval's ``map`` and ``map_cut.k`` from files.

    Notes
    -----
    With ``ties='average'``, a position ``p`` inside a tie group of ``c`` rows
    at positions ``[a, a + c)`` holding ``r`` relevant rows, with ``R``
    relevant rows above the group, contributes in expectation
    ``r / c * (R + 1 + (p - a) * (r - 1) / (c - 1)) / (p + 1)``: it holds a
    relevant row with chance ``r / c``, and the ``p - a`` tied rows before it
    then hold ``(r - 1) / (c - 1)`` relevant rows each on average.  Without
    ties, and with a binary ``y_true``, ``k=None`` gives scikit-learn's
    ``average_precision_score``; on tied scores scikit-learn instead counts a
    whole tie group at once (:func:`average_precision`).

    Refused (null) as :func:`recall`.

    Examples
    --------
    The three arrangements of one slate of ten, three relevant:

    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> slates = {"top": "1110000000", "middle": "0001110000", "bottom": "0000000111"}
    >>> df = pl.DataFrame(
    ...     {
    ...         "slate": [name for name in slates for _ in range(10)],
    ...         "rel": [int(c) for s in slates.values() for c in s],
    ...         "score": [10.0 - i for _ in slates for i in range(10)],
    ...     }
    ... )
    >>> df.group_by("slate", maintain_order=True).agg(
    ...     ap=lp.average_precision_at_k("rel", "score", k=10),
    ...     ap_at_5=lp.average_precision_at_k("rel", "score", k=5),
    ...     ap_at_2_min_k=lp.average_precision_at_k("rel", "score", k=2, denominator="min_k"),
    ... )
    shape: (3, 4)
    ┌────────┬──────────┬──────────┬───────────────┐
    │ slate  ┆ ap       ┆ ap_at_5  ┆ ap_at_2_min_k │
    │ ---    ┆ ---      ┆ ---      ┆ ---           │
    │ str    ┆ f64      ┆ f64      ┆ f64           │
    ╞════════╪══════════╪══════════╪═══════════════╡
    │ top    ┆ 1.0      ┆ 1.0      ┆ 1.0           │
    │ middle ┆ 0.383333 ┆ 0.216667 ┆ 0.0           │
    │ bottom ┆ 0.215741 ┆ 0.0      ┆ 0.0           │
    └────────┴──────────┴──────────┴───────────────┘

    Two tied rows, one relevant, ranked first: AP is 1 or 1/2, so 3/4 on average.

    >>> tie = pl.DataFrame({"rel": [0, 1], "score": [1.0, 1.0], "doc": ["a", "b"]})
    >>> tie.select(
    ...     average=lp.average_precision_at_k("rel", "score", k=None),
    ...     trec_eval=lp.average_precision_at_k(
    ...         "rel", "score", k=None, ties="trec_eval", item="doc"
    ...     ),
    ...     input=lp.average_precision_at_k("rel", "score", k=None, ties="input"),
    ... )
    shape: (1, 3)
    ┌─────────┬───────────┬───────┐
    │ average ┆ trec_eval ┆ input │
    │ ---     ┆ ---       ┆ ---   │
    │ f64     ┆ f64       ┆ f64   │
    ╞═════════╪═══════════╪═══════╡
    │ 0.75    ┆ 1.0       ┆ 0.5   │
    └─────────┴───────────┴───────┘
    """
    return average_precision_at_k_metric(
        y_true,
        y_score,
        k=k,
        denominator=denominator,
        ties=ties,
        item=item,
        relevance_level=relevance_level,
        n_relevant=n_relevant,
    ).expr()


@renamed(doc_id="item")
def precision(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None = None,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    denominator: str = "k",
) -> pl.Expr:
    r"""Precision at ``k`` of one group: relevant rows in the top ``k``, over ``k``.

    .. math:: \mathrm{P@k} = \frac{|\{\text{relevant rows ranked in the top } k\}|}{k}

    Parameters
    ----------
    y_true
        Relevance of each row; relevant when above 0 (or at least
        ``relevance_level``).
    y_score
        Scores the ranking was made from.
    k : int, default=None
        The cutoff.  The denominator is ``k`` even when the group has fewer
        rows (trec_eval's ``P.k``, ranx's, Spark's).  ``None``: the whole group,
        over its row count.
    ties : {'average', 'trec_eval', 'input'}, default='average'
        Equal scores: ``'average'`` is the expectation over their orderings
        (a tie straddling ``k`` contributes ``r * (k - a) / c`` relevant rows),
        ``'trec_eval'`` ranks them by ``item`` descending, ``'input'`` in
        row order.
    item : column name or expression, default=None
        The id of the ranked item (a document), compared as text; needed by
        ``ties='trec_eval'``.  Called ``doc_id`` before 0.2.0 (the old name
        warns until 0.3.0).
    relevance_level : float, default=None
        A row is relevant when ``y_true >= relevance_level`` (trec_eval ``-l``).
    denominator : {'k', 'retrieved'}, default='k'
        ``'k'``: over ``k`` always (trec_eval, ranx, RecTools).  ``'retrieved'``:
        over the rows in the top ``k``, ``min(k, rows)``, so a list shorter
        than ``k`` is over its own length (LensKit's ``Precision``).

    Returns
    -------
    polars.Expr
        A Float64 expression named ``precision``, one value per group, in [0, 1].

    Raises
    ------
    InvalidParameterError
        A ``k`` below 1, an unknown ``ties``, ``ties='trec_eval'`` without ``item``,
        a ``denominator`` other than ``'k'`` or ``'retrieved'``.

    See Also
    --------
    recall, hit_rate, r_precision
    lodestar_polars.trec.evaluate : trec_eval's ``P.k`` from a run and its qrels.

    Notes
    -----
    Precision does not see the order inside the top ``k``.  A group is
    refused (null) when empty, or with a null, NaN or infinite value, or
    (``ties='trec_eval'``) a repeated or null ``item``.

    Examples
    --------
    Three arrangements of one slate of ten, three relevant: the same P@10.

    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> from lodestar_polars._metrics.ir import precision
    >>> slates = {"top": "1110000000", "middle": "0001110000", "bottom": "0000000111"}
    >>> df = pl.DataFrame(
    ...     {
    ...         "slate": [name for name in slates for _ in range(10)],
    ...         "rel": [int(c) for s in slates.values() for c in s],
    ...         "score": [10.0 - i for _ in slates for i in range(10)],
    ...     }
    ... )
    >>> df.group_by("slate", maintain_order=True).agg(p10=precision("rel", "score", k=10))
    shape: (3, 2)
    ┌────────┬─────┐
    │ slate  ┆ p10 │
    │ ---    ┆ --- │
    │ str    ┆ f64 │
    ╞════════╪═════╡
    │ top    ┆ 0.3 │
    │ middle ┆ 0.3 │
    │ bottom ┆ 0.3 │
    └────────┴─────┘

    A tie straddling the cutoff: two of four tied rows make the top 2, one of
    the four is relevant, so half a relevant row is expected there.

    >>> tie = pl.DataFrame({"rel": [0, 1, 0, 0], "score": [1.0] * 4, "doc": list("abcd")})
    >>> tie.select(
    ...     average=precision("rel", "score", k=2),
    ...     trec_eval=precision("rel", "score", k=2, ties="trec_eval", item="doc"),
    ...     input=precision("rel", "score", k=2, ties="input"),
    ... )
    shape: (1, 3)
    ┌─────────┬───────────┬───────┐
    │ average ┆ trec_eval ┆ input │
    │ ---     ┆ ---       ┆ ---   │
    │ f64     ┆ f64       ┆ f64   │
    ╞═════════╪═══════════╪═══════╡
    │ 0.25    ┆ 0.0       ┆ 0.5   │
    └─────────┴───────────┴───────┘

    A list of three, one relevant, at ``k=5``: over ``k``, or over the three
    retrieved (LensKit):

    >>> short = pl.DataFrame({"rel": [1, 0, 0], "score": [3.0, 2.0, 1.0]})
    >>> short.select(
    ...     over_k=precision("rel", "score", k=5),
    ...     retrieved=precision("rel", "score", k=5, denominator="retrieved"),
    ... )
    shape: (1, 2)
    ┌────────┬───────────┐
    │ over_k ┆ retrieved │
    │ ---    ┆ ---       │
    │ f64    ┆ f64       │
    ╞════════╪═══════════╡
    │ 0.2    ┆ 0.333333  │
    └────────┴───────────┘
    """
    return precision_metric(
        y_true,
        y_score,
        k=k,
        ties=ties,
        item=item,
        relevance_level=relevance_level,
        denominator=denominator,
    ).expr()


@renamed(doc_id="item")
def recall(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None = None,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    n_relevant: IntoExprColumn | None = None,
    denominator: str = "relevant",
) -> pl.Expr:
    r"""Recall at ``k`` of one group: relevant rows in the top ``k``, over all relevant.

    .. math:: \mathrm{R@k} = \frac{|\{\text{relevant rows in the top } k\}|}{n_{relevant}}

    Parameters
    ----------
    y_true, y_score, ties, item, relevance_level
        As in :func:`precision`.
    k : int, default=None
        The cutoff; ``None``: the whole group.
    n_relevant : column name or expression, default=None
        The number of relevant documents of the group, one value per group
        (the judged relevant count from qrels: relevant documents not in the
        rows then count, as in trec_eval).  Default: the group's relevant rows.
    denominator : {'relevant', 'min_k'}, default='relevant'
        ``'relevant'``: over the relevant count (trec_eval, ranx, RecTools).
        ``'min_k'``: over ``min(relevant, k)``, so a perfect top ``k`` scores 1
        when more than ``k`` are relevant (LensKit's ``Recall``).

    Returns
    -------
    polars.Expr
        A Float64 expression named ``recall``; 0 for a group with nothing relevant.

    See Also
    --------
    precision, hit_rate
    lodestar_polars.trec.evaluate : trec_eval's ``recall.k`` from files.

    Notes
    -----
    Refused (null) as :func:`precision`, and when ``n_relevant`` is null,
    varies within the group, or is below the group's relevant rows.  A
    ``denominator`` other than ``'relevant'`` or ``'min_k'`` raises
    :class:`InvalidParameterError`.

    Examples
    --------
    >>> import polars as pl
    >>> from lodestar_polars._metrics.ir import recall
    >>> df = pl.DataFrame(
    ...     {"q": [1, 1, 1], "rel": [1, 0, 1], "score": [0.9, 0.8, 0.1], "judged": [4, 4, 4]}
    ... )
    >>> df.group_by("q").agg(
    ...     rows=recall("rel", "score", k=2),
    ...     qrels=recall("rel", "score", k=2, n_relevant="judged"),
    ... )
    shape: (1, 3)
    ┌─────┬──────┬───────┐
    │ q   ┆ rows ┆ qrels │
    │ --- ┆ ---  ┆ ---   │
    │ i64 ┆ f64  ┆ f64   │
    ╞═════╪══════╪═══════╡
    │ 1   ┆ 0.5  ┆ 0.25  │
    └─────┴──────┴───────┘

    LensKit's recall, over ``min(4, 2)``:

    >>> df.group_by("q").agg(
    ...     lenskit=recall("rel", "score", k=2, n_relevant="judged", denominator="min_k")
    ... )
    shape: (1, 2)
    ┌─────┬─────────┐
    │ q   ┆ lenskit │
    │ --- ┆ ---     │
    │ i64 ┆ f64     │
    ╞═════╪═════════╡
    │ 1   ┆ 0.5     │
    └─────┴─────────┘
    """
    return recall_metric(
        y_true,
        y_score,
        k=k,
        ties=ties,
        item=item,
        relevance_level=relevance_level,
        n_relevant=n_relevant,
        denominator=denominator,
    ).expr()


@renamed(doc_id="item")
def hit_rate(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
) -> pl.Expr:
    r"""Hit rate (trec_eval's success) at ``k``: 1 when a relevant row is in the top ``k``.

    Parameters
    ----------
    y_true, y_score, ties, item, relevance_level
        As in :func:`precision`.
    k : int
        The cutoff.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``hit_rate``: 0 or 1, or with
        ``ties='average'`` the chance of a hit, in [0, 1].  Its mean is the
        hit rate of the groups.

    See Also
    --------
    precision, recall
    lodestar_polars.trec.evaluate : trec_eval's ``success.k``.

    Notes
    -----
    With ``ties='average'``: when the first tie group holding a relevant row
    occupies positions ``[a, a + c)`` with ``r`` relevant rows and straddles
    ``k``, ``m = k - a`` of its rows make the cut and the chance of a hit is
    ``1 - C(c - r, m) / C(c, m)``.

    Examples
    --------
    >>> import polars as pl
    >>> from lodestar_polars._metrics.ir import hit_rate
    >>> df = pl.DataFrame({"rel": [0, 0, 1, 0], "score": [2.0, 1.0, 1.0, 1.0]})
    >>> df.select(hit_rate("rel", "score", k=2))
    shape: (1, 1)
    ┌──────────┐
    │ hit_rate │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.333333 │
    └──────────┘
    """
    return hit_rate_metric(
        y_true, y_score, k=k, ties=ties, item=item, relevance_level=relevance_level
    ).expr()


@renamed(doc_id="item")
def r_precision(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    n_relevant: IntoExprColumn | None = None,
) -> pl.Expr:
    r"""R-precision of one group: precision at ``R``, the number of relevant documents.

    .. math:: \mathrm{R\text{-}prec} = \mathrm{P@R} = \frac{|\{\text{relevant in the top } R\}|}{R}

    Parameters
    ----------
    y_true, y_score, ties, item, relevance_level
        As in :func:`precision`.
    n_relevant : column name or expression, default=None
        ``R`` from the judgments (one value per group); default: the group's
        relevant rows.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``r_precision``; 0 with nothing relevant.

    See Also
    --------
    precision, recall
    lodestar_polars.trec.evaluate : trec_eval's ``Rprec``.

    Examples
    --------
    >>> import polars as pl
    >>> from lodestar_polars._metrics.ir import r_precision
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 0], "score": [0.9, 0.8, 0.7, 0.1]})
    >>> df.select(r_precision("rel", "score"))
    shape: (1, 1)
    ┌─────────────┐
    │ r_precision │
    │ ---         │
    │ f64         │
    ╞═════════════╡
    │ 0.5         │
    └─────────────┘
    """
    return r_precision_metric(
        y_true,
        y_score,
        ties=ties,
        item=item,
        relevance_level=relevance_level,
        n_relevant=n_relevant,
    ).expr()


__all__ = [
    "DENOMINATORS",
    "average_precision_at_k",
    "hit_rate",
    "precision",
    "r_precision",
    "recall",
]
