"""`lp.precision` and `lp.recall` as Polars expressions, with their denominators."""

from __future__ import annotations

import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.validation import check_k, check_option
from lodestar_polars._core.ir import (
    precision_at,
    ratio_or_zero,
)
from lodestar_polars._metrics.expr import (
    Metric,
)
from lodestar_polars._metrics.ir.ranked import _n_relevant, _ranked
from lodestar_polars.typing import IntoExprColumn

DENOMINATORS = ("relevant", "min_k")
PRECISION_DENOMINATORS = ("k", "retrieved")


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
