"""Reciprocal rank as a Polars expression, with the exact expectation over ties."""

from __future__ import annotations

import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.validation import check_bool, check_k
from lodestar_polars._core.reciprocal_rank import (
    expected_from_offset,
    expected_reciprocal_rank,
    first_term,
    term_ratio,
)
from lodestar_polars._metrics.expr import Metric, as_float, as_score, input_checks
from lodestar_polars._metrics.ties import later_row_first, tie_rule
from lodestar_polars.typing import IntoExprColumn

# Inside ``group_by().agg()`` Polars evaluates an expression tree as written:
# a subexpression used twice is computed twice (there is no common-subexpression
# elimination there), and broadcasting a per-group value back to the rows costs
# about as much as a sort.  So the tied expectation is built from passes that
# are each used once:
#
# 1. one broadcast of the best relevant score, from which one sum counts the
#    rows above that score, the rows tied with it and the relevant ones among
#    those, packed as the digits of one UInt128 ``key`` (base ``_RADIX``);
# 2. arithmetic on that per-group key only: a ``struct`` holding the key lets
#    ``with_fields`` read its digits as often as needed at the cost of one
#    evaluation.  With a small ``k`` the expectation is the Horner recurrence
#    of :func:`expected_from_offset` unrolled over the ``k`` offsets; otherwise
#    the offsets are a list per group (list arithmetic with a per-group value
#    is cheap, unlike a broadcast to the rows) whose terms are running
#    products of :func:`term_ratio`, each element carrying the key.

# a Polars group has fewer than 2**32 rows (u32 row indices), so each count is
# one digit, and key * _RADIX + offset (four digits) fits a UInt128
_RADIX = 2**32
_UNROLL = 32  # largest k whose Horner recurrence is unrolled (past it the list costs less)


def _block_key(relevant: pl.Expr, score: pl.Expr) -> pl.Expr:
    """``above * R**2 + block * R + hits`` of the tie group holding the first relevant row.

    ``best`` is the best score of a relevant row; ``(score >= best) + (score >
    best)`` is the comparison with it, 0, 1 or 2 (a difference's sign would wrap
    an unsigned score, and round a 64-bit one), and ``+ 3`` marks a relevant
    row, so one table lookup gives each row's digits.  A group with no relevant
    row has a null ``best`` and gets key 0.
    """
    best = pl.when(relevant).then(score).max()
    side = (
        (score >= best).cast(pl.Float64)
        + (score > best).cast(pl.Float64)
        + 3.0 * relevant.cast(pl.Float64)
    )
    digits = {1.0: _RADIX, 2.0: _RADIX**2, 4.0: _RADIX + 1, 5.0: _RADIX**2}
    values = pl.Series(list(digits.values()), dtype=pl.UInt128)
    return side.replace_strict(list(digits), values, default=0, return_dtype=pl.UInt128).sum()


def _unrolled(k: int) -> pl.Expr:
    """The expectation from the fields ``above``, ``block``, ``hits``: Horner over k offsets."""
    above, block, hits = pl.field("above"), pl.field("block"), pl.field("hits")
    later: pl.Expr = pl.lit(0.0)
    for j in reversed(range(k)):
        # offset j exists (j <= block - hits) and is not cut (above + j < k)
        reached = (block - hits >= j) & (above < k - j)
        step = expected_from_offset(later, float(j), above, block, hits)
        later = pl.when(reached).then(step).otherwise(0.0)
    return pl.when(hits > 0).then(later).otherwise(0.0)


def _offset_terms(k: int | None) -> pl.Expr:
    """Each offset's term over the previous one, for list elements ``key * R + offset``.

    The digits are read once into a struct (``list.eval`` has no common
    subexpressions either).  Offsets the first relevant row cannot reach (past
    ``block - hits``, or cut at ``k``) and groups with no relevant row get 0,
    which zeroes the running products from there on.
    """
    v = pl.field("v")
    digits = pl.struct(v=pl.element()).struct.with_fields(
        offset=(v % _RADIX).cast(pl.Float64),
        hits=((v // _RADIX) % _RADIX).cast(pl.Float64),
        block=((v // _RADIX**2) % _RADIX).cast(pl.Float64),
        above=(v // _RADIX**3).cast(pl.Float64),
    )
    offset, hits, block, above = (pl.field(f) for f in ("offset", "hits", "block", "above"))
    live = (offset <= block - hits) & (hits > 0)
    if k is not None:
        live = live & (above + offset < k)
    ratio = (
        pl.when(~live)
        .then(0.0)
        .when(offset == 0)
        .then(first_term(above, block, hits))
        .otherwise(term_ratio(offset, above, block, hits))
    )
    return digits.struct.with_fields(ratio=ratio).struct.field("ratio")


def _expected_value(relevant: pl.Expr, score: pl.Expr, k: int | None) -> pl.Expr:
    """Expected reciprocal rank over the orderings of the ties (``ties='average'``)."""
    key = _block_key(relevant, score)
    if k is not None and k <= _UNROLL:
        counts = pl.struct(key=key).struct.with_fields(
            above=(pl.field("key") // _RADIX**2).cast(pl.Float64),
            block=((pl.field("key") // _RADIX) % _RADIX).cast(pl.Float64),
            hits=(pl.field("key") % _RADIX).cast(pl.Float64),
        )
        return counts.struct.with_fields(value=_unrolled(k)).struct.field("value")
    # offsets 0 .. n-1 cover the reachable ones, 0 .. block - hits (and < k)
    n = score.len() if k is None else score.len().clip(upper_bound=min(k, _RADIX - 1))
    offsets = pl.int_ranges(0, n, dtype=pl.UInt128) + key * pl.lit(_RADIX, dtype=pl.UInt128)
    terms = offsets.list.eval(_offset_terms(k)).list.eval(pl.element().cum_prod())
    return terms.list.sum().abs()  # the sum is >= 0, but an empty list sums to -0.0


def _at_position(first: pl.Expr, relevant: pl.Expr, k: int | None) -> pl.Expr:
    """Reciprocal rank of a first relevant row at 0-based position ``first``; 0 when none.

    ``first`` (a sort and an ``arg_max``) sits in a struct so that the cut at
    ``k`` reads it twice for the price of one evaluation.
    """
    counts = pl.struct(first=first.cast(pl.Float64), any=relevant.any())
    value = expected_reciprocal_rank(1.0, pl.field("first"), 0.0, k)
    return counts.struct.with_fields(
        value=pl.when(pl.field("any")).then(value).otherwise(0.0)
    ).struct.field("value")


def reciprocal_rank_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None = None,
    ignore_ties: bool = False,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    name: str = "reciprocal_rank",
) -> Metric:
    """The :class:`Metric` behind :func:`reciprocal_rank`."""
    k = check_k(k, "reciprocal_rank")
    ignore_ties = check_bool(ignore_ties, "ignore_ties", "reciprocal_rank")
    gain, score = as_float(y_true), as_score(y_score)
    rule, doc_checks = tie_rule(
        score, ties=ties, item=item, ignore_ties=ignore_ties, caller="reciprocal_rank"
    )
    relevant = gain > 0
    if ignore_ties or not rule.averaged:
        # the first relevant row's 0-based position in the rule's order
        flags = relevant.cast(pl.Float64)
        ordered = later_row_first(flags, score) if ignore_ties else rule.order(flags)
        value = _at_position(ordered.arg_max(), relevant, k)
    else:
        value = _expected_value(relevant, score, k)
    return Metric(name, value, (*input_checks(gain, score), *doc_checks))


@renamed(doc_id="item")
def reciprocal_rank(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None = None,
    ignore_ties: bool = False,
    ties: str = "average",
    item: IntoExprColumn | None = None,
) -> pl.Expr:
    r"""Reciprocal rank of the first relevant row of one group; its mean is MRR.

    .. math:: \mathrm{RR@k} = \frac{1}{\mathrm{rank}}\ \text{if rank} \le k
              \text{ else } 0

    where ``rank`` is the 1-based position, by descending ``y_score``, of the
    first row with ``y_true > 0`` (or True).  A group with nothing relevant
    scores 0.

    Parameters
    ----------
    y_true
        Relevance of each row; a row is relevant when it is above 0 (or True).
    y_score
        Scores the ranking was made from.
    k : int, default=None
        A first relevant row below position ``k`` scores 0.
    ignore_ties : bool, default=False
        Rank equal scores with the later row first instead of averaging.
    ties : {'average', 'trec_eval', 'input'}, default='average'
        How equal scores are ordered: ``'average'``, the exact expectation
        over the orderings of the tie (below); ``'trec_eval'``, by ``item``
        descending, as trec_eval; ``'input'``, in row order.  Cannot be
        combined with ``ignore_ties=True``.
    item : str or polars.Expr, default=None
        The id of the ranked item (a document), needed by
        ``ties='trec_eval'``.  Called ``doc_id`` before 0.2.0 (the old name
        warns until 0.3.0).

    Returns
    -------
    polars.Expr
        A Float64 expression named ``reciprocal_rank``, one value per group, in [0, 1].

    Raises
    ------
    InvalidParameterError
        ``k`` below 1 or not an int, or a non-bool ``ignore_ties``.

    See Also
    --------
    lodestar_polars.arrays.reciprocal_rank_score : the same on dense arrays.
    ndcg : position-discounted gain of every relevant row, not only the first.

    Notes
    -----
    scikit-learn has no reciprocal rank; this one follows the same tie rule
    as its NDCG.  With ties, the value is the exact expectation over the
    orderings of the tied group that holds the first relevant rows: if that
    group occupies positions ``a+1 .. a+c`` and holds ``r`` relevant rows, the
    first relevant one sits at ``a+1+j`` with probability
    ``C(c-1-j, r-1) / C(c, r)``; the expectation of ``1/(a+1+j)`` (0 past
    ``k``) is summed in closed form.  On untied scores with exactly one
    relevant row it equals scikit-learn's
    ``label_ranking_average_precision_score``.

    A group is refused, and gets null, when it is empty or has a null, NaN or
    infinite value.  A single row is fine.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {
    ...         "query": [1, 1, 1, 2, 2, 2],
    ...         "rel": [0, 1, 0, 1, 0, 0],
    ...         "score": [0.9, 0.8, 0.1, 0.5, 0.5, 0.2],
    ...     }
    ... )
    >>> df.group_by("query", maintain_order=True).agg(rr=lp.reciprocal_rank("rel", "score"))
    shape: (2, 2)
    ┌───────┬──────┐
    │ query ┆ rr   │
    │ ---   ┆ ---  │
    │ i64   ┆ f64  │
    ╞═══════╪══════╡
    │ 1     ┆ 0.5  │
    │ 2     ┆ 0.75 │
    └───────┴──────┘

    Query 2's relevant row is tied for first with another: at rank 1 or 2
    with equal chance, so ``(1 + 1/2) / 2 = 0.75``.
    """
    return reciprocal_rank_metric(
        y_true, y_score, k=k, ignore_ties=ignore_ties, ties=ties, item=item
    ).expr()
