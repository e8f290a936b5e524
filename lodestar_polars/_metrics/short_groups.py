"""The tie-averaged DCG of a short group, written out position by position (no per-group sort).

Inside ``group_by().agg()`` every per-group operation (a sort, a binary search,
a filter) costs about a microsecond per group whatever the group's length, and
on groups of ten rows that overhead is the whole cost (docs/performance.md, "The
expression path against NDCG@10 written by hand").  A group of at most
:data:`SHORT_ROWS` rows is imploded once and its rows become the fields of a
struct (``list.to_struct``, null past the group's end); the counts each row's
share needs, ``above`` (rows scoring strictly higher) and ``through`` (rows
scoring at least as high), are then sums of comparisons between those fields,
flat operations over one row per group, and the shares are added in row order
as :func:`~lodestar_polars._metrics.expr.tie_averaged_terms` adds them: the
same terms, the same order, the same bits (a row past ``k`` shares exactly 0,
and adding 0 changes no sum).  A longer group gets its value from the
``list.eval`` path (:func:`split_by_length`), which on the short groups runs
over null lists and costs next to nothing.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from lodestar_polars._core.dcg import tie_averaged_gain
from lodestar_polars._metrics.expr import cumulative_discount_at

SHORT_ROWS = 10
"""The longest group whose DCG is written out (its comparisons grow as the square)."""

_P = "__lodestar_"


def short_tie_averaged_dcg(
    gain: pl.Expr, score: pl.Expr, log_base: float, k: int, n: int = SHORT_ROWS
) -> pl.Expr:
    """Tie-averaged DCG@k of the group's first ``n`` rows (its value where it has no more).

    ``k`` must have a table of cumulative discounts (``k <= 4096``).  Row
    ``i``'s share is ``tie_averaged_gain(gain_i, C[above_i], C[through_i],
    above_i, through_i)`` with ``above_i`` the rows scoring higher and
    ``through_i = rows - below_i`` (``below_i`` the rows scoring lower), the
    terms of :func:`~lodestar_polars._metrics.expr.tie_averaged_terms`, added
    in row order.  Each comparison ``score_i > score_j`` is made once, as a
    field, and read twice (``j`` is below ``i``, ``i`` is above ``j``).
    """
    rows = pl.struct(gain.alias("g"), score.alias("s"))
    names = [f"{_P}r{i}" for i in range(n)]
    # the first n rows (a slice of each group, cheap); a longer group's value is discarded
    fields = rows.head(n).implode().list.to_struct(fields=names)

    def score_of(i: int) -> pl.Expr:
        return pl.field(names[i]).struct.field("s")

    def count(flags: list[pl.Expr]) -> pl.Expr:
        return pl.sum_horizontal(flags).cast(pl.Int64)

    # one stage of fields, the two counts of each row; a null score (past the
    # group's end) compares as null, which the sums skip
    others = [[j for j in range(n) if j != i] for i in range(n)]
    length = count([score_of(i).is_not_null() for i in range(n)])
    counted = fields.struct.with_fields(
        [count([score_of(j) > score_of(i) for j in others[i]]).alias(f"{_P}a{i}") for i in range(n)]
        + [
            (length - count([score_of(i) > score_of(j) for j in others[i]])).alias(f"{_P}t{i}")
            for i in range(n)
        ]
    )
    cum = cumulative_discount_at(log_base, k)
    total: pl.Expr | None = None
    for i in range(n):
        a, t = pl.field(f"{_P}a{i}"), pl.field(f"{_P}t{i}")
        g = pl.field(names[i]).struct.field("g")
        share = tie_averaged_gain(g, cum(a), cum(t), a, t).fill_null(0.0)
        total = share if total is None else total + share
    assert total is not None
    return counted.struct.with_fields(total.alias(f"{_P}total")).struct.field(f"{_P}total")


def split_by_length(short: pl.Expr, long: Callable[[pl.Expr], pl.Expr], rows: pl.Expr) -> pl.Expr:
    """``short`` for a group of at most :data:`SHORT_ROWS` rows, else ``long`` of its ``rows``.

    ``long`` gets the group's rows imploded, null for a short group, so that the
    ``list.eval`` it runs costs nothing there.
    """
    longer = pl.when(pl.len() > SHORT_ROWS).then(rows.implode())
    return pl.when(pl.len() <= SHORT_ROWS).then(short).otherwise(long(longer))
