"""The report's comparability state fitted from a large ``LazyFrame`` in parts (issue 20).

:func:`fit_lazy_in_parts` gives the state ``fit_comparability`` gives on the whole log (bit for
bit: the same table, levels, ``n_lists`` and ``n_dropped``), reading it twice and never whole:

1. in parts of whole lists (:func:`lodestar_polars._report.parts.lazy_parts`, the report's own
   reading): per list whether it holds a positive, per item its positives and candidates over
   the graded lists (integer counts, added exactly), the catalogue;
2. in parts of whole items (partitioned once by a hash of the item into temporary Arrow
   IPC files, :func:`lodestar_polars._evaluate.partition.hashed_parts`): each item's score
   quantiles from all of its rows, in the input's order, so that the stable sort of
   ``fit_comparability``'s quantiles sees the same values in the same order.

An item's quantiles need every one of its scores (an exact quantile does not merge from
per-part summaries), so the second pass holds at most one part of whole items. A log with a
problem (a null, a non-finite score, an item twice in a list, a bad dtype) is fitted whole, so
that the refusal is ``fit_comparability``'s own sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl

from lodestar_polars._evaluate.parted import _release_freed_memory
from lodestar_polars._evaluate.partition import Layout, hashed_parts
from lodestar_polars._report.comparability_checks import _check_item_dtype, _check_score_dtype
from lodestar_polars._report.comparability_quantiles import _quantiles, item_ids, values_order_free
from lodestar_polars._report.comparability_state import ComparabilityState, _table_schema

FIT = "fit_comparability"
_ROWNO = "__lp_fit_row"
_FLAG = "__lp_fit_truth"


class _Problem(Exception):
    """A part holds what ``fit_comparability`` refuses: fit the log whole for its sentence."""


def _flag(truth: str, mp: str, keys: list[str]) -> pl.Expr:
    """The truth flag the report's fit reads (``_fit_lazy``'s): the first positive with 'first'."""
    flag = pl.col(truth).cast(pl.Boolean)
    if mp == "first":  # the first positive of each list, in input order
        flag = flag & (flag.cast(pl.Int64).cum_sum().over(keys) == 1)
    return flag.alias(_FLAG)


def _list_terms(
    part: pl.DataFrame, keys: list[str], item: str, score: str, flag: pl.Expr, *, first: bool
) -> tuple[int, int, pl.DataFrame, pl.Series]:
    """One part of whole lists: (lists, graded lists, per-item counts, its items).

    ``first``: the flag reads the input's order (``multi_positive="first"``), so the part,
    whose rows a hashed layout may have reordered, is put back in it.
    """
    df = (part.sort(_ROWNO) if first else part).select(*keys, item, score, flag)
    nulls = df.select(pl.any_horizontal(pl.all().is_null().any())).item()
    if nulls or not df[score].is_finite().all():
        raise _Problem
    per_list = df.group_by(keys).agg(
        pl.len().alias("__lp_n"),
        pl.col(item).n_unique().alias("__lp_u"),
        pl.col(_FLAG).any().alias("__lp_graded"),
    )
    if per_list.filter(pl.col("__lp_n") != pl.col("__lp_u")).height:  # an item twice
        raise _Problem
    graded = per_list.filter(pl.col("__lp_graded")).select(keys)
    # every list graded (the usual log): no join to keep their rows
    graded_rows = df if graded.height == per_list.height else df.join(graded, on=keys, how="semi")
    counts = graded_rows.group_by(item).agg(
        pl.col(_FLAG).sum().cast(pl.Int64).alias("n_positive"),
        pl.len().cast(pl.Int64).alias("n_candidate"),
    )
    return per_list.height, graded.height, counts, df[item].unique()


def _item_quantiles(part: pl.DataFrame, item: str, score: str, levels: Any) -> pl.DataFrame:
    """One part of whole items, in input order: each item's quantiles, as the whole fit's."""
    # the input's order matters only to equal zeros of two signs (or a NaN): else left as read
    df = part if values_order_free(part[score].to_numpy()) else part.sort(_ROWNO)
    item_id, catalogue = item_ids(df[item])
    quants = _quantiles(item_id, df[score].to_numpy(), catalogue.len(), levels)
    return pl.DataFrame(
        {item: catalogue, "quantiles": pl.Series(quants.tolist(), dtype=pl.List(pl.Float64))}
    )


def fit_lazy_in_parts(
    lazy: pl.LazyFrame,
    keys: list[str],
    item: str,
    score: str,
    truth: str,
    mp: str,
    *,
    total: int,
    part_rows: int,
    layout: Layout,
    temp_dir: str | None,
    whole: Callable[[], ComparabilityState],
    n_quantiles: int = 100,
) -> ComparabilityState:
    """The report's comparability state of ``lazy``, read in parts (``whole()`` on a problem)."""
    from lodestar_polars._report.parts import lazy_parts

    schema = lazy.collect_schema()
    try:
        item_dtype = _check_item_dtype(schema, item, FIT)
        _check_score_dtype(schema, score, FIT)
    except ValueError:
        return whole()
    typed = lazy.select(
        *keys, pl.col(item).cast(item_dtype), pl.col(score).cast(pl.Float64), pl.col(truth)
    ).with_row_index(_ROWNO)
    flag = _flag(truth, mp, keys)
    n_all = n_graded = 0
    counts: list[pl.DataFrame] = []
    items: list[pl.Series] = []
    try:
        for part, restart in lazy_parts(typed, keys, total, part_rows, layout, temp_dir):
            if restart:
                n_all = n_graded = 0
                counts, items = [], []
                continue
            assert part is not None
            if part.height:
                lists, graded, per_item, seen = _list_terms(
                    part, keys, item, score, flag, first=mp == "first"
                )
                n_all, n_graded = n_all + lists, n_graded + graded
                counts.append(per_item)
                items.append(seen)
            del part
            _release_freed_memory()
    except _Problem:
        return whole()
    if not items:
        return whole()
    catalogue = pl.concat(items).unique().sort()
    per_item = (
        pl.DataFrame({item: catalogue})
        .join(
            pl.concat(counts).group_by(item).agg(pl.col("n_positive", "n_candidate").sum()),
            on=item,
            how="left",
        )
        .sort(item)
        .fill_null(0)
    )
    levels = np.linspace(0.0, 1.0, int(n_quantiles) + 1)
    n_parts = max(1, -(-total // part_rows))
    quantiles: list[pl.DataFrame] = []
    by_item = typed.select(_ROWNO, item, score)
    if n_parts == 1:
        quantiles.append(_item_quantiles(by_item.collect(), item, score, levels))
    else:
        hashed = hashed_parts(by_item, [item], n_parts, temp_dir)
        try:
            for part in hashed:
                if part.height:
                    quantiles.append(_item_quantiles(part, item, score, levels))
                del part
                _release_freed_memory()
        finally:
            hashed.close()
    quants = pl.concat(quantiles).sort(item)
    n_pos = per_item["n_positive"].to_numpy()
    n_cand = per_item["n_candidate"].to_numpy()
    rate = np.divide(n_pos, n_cand, out=np.zeros(n_pos.size), where=n_cand > 0)
    table = pl.DataFrame(
        {
            "item": catalogue,
            "n_positive": per_item["n_positive"],
            "n_candidate": per_item["n_candidate"],
            "base_rate": rate,
            "quantiles": quants["quantiles"],
        },
        schema=_table_schema(item_dtype),
    )
    return ComparabilityState(
        table,
        quantile_levels=levels.tolist(),
        item_column=item,
        n_lists=n_graded,
        n_dropped=n_all - n_graded,
    )
