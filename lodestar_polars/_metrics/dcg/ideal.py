"""NDCG's denominator: the ideal DCG of a group, of its rows or of its judged documents."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import polars as pl

from lodestar_polars._core.discount import (
    Discount,
    cumulative_discount_table,
    cut_discount,
)
from lodestar_polars._core.ir import exponential_gain
from lodestar_polars._metrics.expr import (
    Check,
    discount_at,
    parse_into_expr,
    row_index,
)
from lodestar_polars.typing import IntoExprColumn


def _ideal_dcg(gain: pl.Expr, *, k: int | None, discount: Discount = "log") -> pl.Expr:
    return (gain.sort(descending=True) * discount_at(2.0, k, discount)(row_index())).sum()


def _slots_ideal(k: int, discount: Discount) -> pl.Expr:
    """``denominator="k"``: the DCG of ``k`` rows of gain 1, one constant (RecTools' ideal).

    A Series literal, not a scalar one: Polars divides a group aggregate by a
    scalar float literal as a product with its reciprocal.
    """
    with np.errstate(divide="ignore"):
        ideal = float(cumulative_discount_table(k, 2.0, k, discount)[k])
    return pl.lit(pl.Series([ideal])).first()


_UNROLLED_K = 32  # the largest k whose ideal DCG is a sum written out term by term
_SORTED = "__lodestar_sorted"


def _group_ideal_dcg(gain: pl.Expr, *, k: int, discount: Discount = "log") -> pl.Expr:
    """:func:`_ideal_dcg` of the group's gains, one value per group, for ``k <= _UNROLLED_K``.

    The gains are sorted as one list per group (a list sort costs a fraction
    of a sort inside ``list.eval``, :func:`best_gains`), and its first ``k``
    entries, read by index, are added by :func:`ideal_of_best_gains`.
    """
    total = ideal_of_best_gains(entry(pl.field(_SORTED)), k=k, discount=discount)
    ranked = pl.struct(best_gains(gain.implode()).alias(_SORTED))
    return ranked.struct.with_fields(total.alias(_TOTAL)).struct.field(_TOTAL)


def best_gains(gains: pl.Expr) -> pl.Expr:
    """Each list of ``gains`` sorted from the largest (its entries read by :func:`entry`)."""
    return gains.list.sort(descending=True)


def entry(lists: pl.Expr) -> Callable[[int], pl.Expr]:
    """Entry ``i`` of each list, null past its end (a list read by index, not as struct fields).

    Reading entries by index is cheaper than ``list.to_struct``: a struct of
    ``k`` fields is a dtype Polars copies each time a field of it is resolved
    (docs/performance.md, "Fourth round").
    """
    return lambda i: lists.list.get(i, null_on_oob=True)


def ideal_of_best_gains(
    at: Callable[[int], pl.Expr], *, k: int, discount: Discount = "log"
) -> pl.Expr:
    """:func:`_ideal_dcg` of the first ``k`` of :func:`best_gains` (``at(i)`` reads entry ``i``).

    The terms are weighted and added one after the other: the terms and the
    order of :func:`_ideal_dcg`'s sum, without its zero terms past ``k`` (a
    group shorter than ``k`` has null entries, 0).
    """
    with np.errstate(divide="ignore"):  # discount_at's table, entry for entry
        table = cut_discount(np.arange(k + 1, dtype=np.float64), 2.0, k, discount)
    total = at(0).fill_null(0.0) * float(table[0])
    for i in range(1, k):
        total = total + at(i).fill_null(0.0) * float(table[i])
    return total


_TOTAL = "__lodestar_total"


def _judged_ideal(
    judged: IntoExprColumn, gain: str, k: int | None, discount: Discount = "log"
) -> tuple[pl.Expr, tuple[Check, ...]]:
    """The ideal DCG of a group's judged relevances (a list per group), and its rules.

    trec_eval's ideal: every judged document of the query, retrieved or not,
    its positive gains in the best order, cut at ``k`` (:func:`_ideal_dcg` of
    them).  The list is the same on every row of the group.
    """
    lists = parse_into_expr(judged)
    relevance = pl.element().cast(pl.Float64)
    g = exponential_gain(relevance) if gain == "exponential" else relevance
    # only positive gains count (an unjudged -1, or a negative gain, adds 0)
    positive = g.clip(lower_bound=0.0)
    ideal = lists.first().list.eval(_ideal_dcg(positive, k=k, discount=discount)).list.first()
    bad = lists.first().list.eval(~relevance.is_finite() | relevance.is_null()).list.any()
    checks = (
        Check(lists.first().is_null(), pl.lit("Input judged contains null.")),
        Check(lists.n_unique() > 1, pl.lit("judged must hold one list per group.")),
        Check(
            bad.fill_null(False),
            pl.lit("judged relevances must be finite numbers (no null, NaN or infinity)."),
        ),
    )
    return ideal, checks
