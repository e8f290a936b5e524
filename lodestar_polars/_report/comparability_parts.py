"""The report's comparability state fitted from a large ``LazyFrame`` without holding it (issue 20).

:func:`fit_lazy_in_parts` gives the state ``fit_comparability`` gives on the whole log (bit for
bit: the same table, levels, ``n_lists`` and ``n_dropped``), never holding the log:

1. the counts, from streaming aggregations of the scan (whatever its row order), none of them by
   list over every row: the catalogue (the items of every row), the graded lists (the lists of
   the positive rows), per item its positives and candidates over the rows of a graded list
   (integer counts, exact in any order), and the lists without a positive counted from the
   other rows when there are any; with ``multi_positive="first"`` each list's first positive in
   the input's order (its row number's minimum);
2. only when ``quantiles`` is asked for (the report's ``percentile=True``): in parts of whole
   items (partitioned once by a hash of the item into temporary Arrow IPC files,
   :func:`lodestar_polars._evaluate.partition.hashed_parts`), each item's score quantiles from
   all of its rows, in the input's order, so that the stable sort of ``fit_comparability``'s
   quantiles sees the same values in the same order. Without them the state holds no levels and
   empty quantile lists: the popularity discount and shrinkage read only the counts.

An item's quantiles need every one of its scores (an exact quantile does not merge from
per-part summaries), so the second pass holds at most one part of whole items. A log with a
null or a non-finite score, or a bad dtype, is fitted whole, so that the refusal is
``fit_comparability``'s own sentence. An item twice in a list is not looked for here: the
report's grading refuses it in its own words before any block reads the state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl

from lodestar_polars._evaluate.parted import _release_freed_memory
from lodestar_polars._evaluate.partition import hashed_parts
from lodestar_polars._report.comparability_checks import _check_item_dtype, _check_score_dtype
from lodestar_polars._report.comparability_quantiles import _quantiles, item_ids, values_order_free
from lodestar_polars._report.comparability_state import ComparabilityState, _table_schema

FIT = "fit_comparability"
_ROWNO = "__lp_fit_row"
_BAD = "__lp_fit_bad"


def _counts(
    typed: pl.LazyFrame, keys: list[str], item: str, score: str, truth: str, mp: str
) -> tuple[int, int, pl.DataFrame] | None:
    """(lists, graded lists, per-item counts over the catalogue); None on a problem.

    No aggregation here is by list over every row: on a shuffled log a streaming group-by of
    a million lists held 0.9 GB (1e8 rows), where one by item held 0.25 GB.  The
    graded lists are the lists of the positive rows (a few a list); the counts are then those of
    the rows in a graded list; only when some rows are left out (a list with no positive) are
    the lists counted, from those rows.
    """
    flag = pl.col(truth).cast(pl.Boolean)
    streaming: Any = {"engine": "streaming"}
    plain = typed.drop(_ROWNO)
    bad = pl.any_horizontal(
        *(pl.col(k).is_null() for k in keys), pl.col(score).is_null(),
        ~pl.col(score).is_finite(), pl.col(truth).is_null(),
    ).any()  # fmt: skip
    # one row per item, over every list: the catalogue, the rows, and the problems
    counts = [pl.len().cast(pl.Int64).alias("n_rows"), bad.alias(_BAD)]
    positive_lists = plain.filter(flag).select(keys).unique()
    # collects one after the other, not one collect_all: that caches the scan they share
    # (0.9 GB at 1e8 rows)
    graded = positive_lists.collect(**streaming)
    if len(keys) == 1:
        # a hash set of the graded keys (a semi join takes twice the time), and the counts
        # over the graded lists in the same pass as the catalogue's: every positive row is in
        # a graded list, a candidate is a row of one
        in_graded = pl.col(keys[0]).is_in(graded[keys[0]].implode())
        rest = plain.filter(~in_graded)
        per_item = (
            plain.group_by(item)
            .agg(
                *counts,
                flag.sum().cast(pl.Int64).alias("n_positive"),
                in_graded.sum().cast(pl.Int64).alias("n_candidate"),
            )
            .collect(**streaming)
        )
    else:  # several keys: a struct's is_in is slower than the join
        per_item = plain.group_by(item).agg(*counts).collect(**streaming)
    if per_item[item].null_count() or per_item[_BAD].any():
        return None
    n_rows = int(per_item["n_rows"].sum())
    if n_rows == 0:
        return None
    if len(keys) == 1:
        counted = per_item.select(item, "n_positive", "n_candidate")
    else:
        kept = plain.join(graded.lazy(), on=keys, how="semi")
        rest = plain.join(graded.lazy(), on=keys, how="anti")
        counted = (
            kept.group_by(item)
            .agg(
                flag.sum().cast(pl.Int64).alias("n_positive"),
                pl.len().cast(pl.Int64).alias("n_candidate"),
            )
            .collect(**streaming)
        )
    n_graded = graded.height
    n_all = n_graded
    if int(counted["n_candidate"].sum()) < n_rows:  # lists with no positive: count them
        n_all += rest.select(keys).unique().select(pl.len()).collect(**streaming).item()
    per_item = per_item.select(item).join(counted, on=item, how="left")
    if mp == "first":  # each graded list's first positive, in input order
        first = (
            typed.filter(flag)
            .group_by(keys)
            .agg(pl.col(item).sort_by(_ROWNO).first())
            .group_by(item)
            .agg(pl.len().cast(pl.Int64).alias("n_positive"))
        )
        per_item = per_item.drop("n_positive").join(first.collect(**streaming), on=item, how="left")
    per_item = per_item.sort(item).fill_null(0).select(item, "n_positive", "n_candidate")
    return n_all, n_graded, per_item


def _item_quantiles(part: pl.DataFrame, item: str, score: str, levels: Any) -> pl.DataFrame:
    """One part of whole items, in input order: each item's quantiles, as the whole fit's."""
    # the input's order matters only to equal zeros of two signs (or a NaN): else left as read
    df = part if values_order_free(part[score].to_numpy()) else part.sort(_ROWNO)
    item_id, catalogue = item_ids(df[item])
    quants = _quantiles(item_id, df[score].to_numpy(), catalogue.len(), levels)
    return pl.DataFrame(
        {item: catalogue, "quantiles": pl.Series(quants.tolist(), dtype=pl.List(pl.Float64))}
    )


def _all_quantiles(
    typed: pl.LazyFrame, item: str, score: str, levels: Any, n_parts: int, temp_dir: str | None
) -> pl.Series:
    """Each item's quantiles, sorted by item, from parts of whole items."""
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
    return pl.concat(quantiles).sort(item)["quantiles"]


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
    temp_dir: str | None,
    whole: Callable[[], ComparabilityState],
    n_quantiles: int = 100,
    quantiles: bool = True,
) -> ComparabilityState:
    """The report's comparability state of ``lazy``, never held whole (``whole()`` on a problem).

    ``quantiles=False``: no score quantiles (no levels, empty lists), for a report that ranks
    by no percentile; the counts are the same.
    """
    schema = lazy.collect_schema()
    try:
        item_dtype = _check_item_dtype(schema, item, FIT)
        _check_score_dtype(schema, score, FIT)
    except ValueError:
        return whole()
    typed = lazy.select(
        *keys, pl.col(item).cast(item_dtype), pl.col(score).cast(pl.Float64), pl.col(truth)
    ).with_row_index(_ROWNO)
    counted = _counts(typed, keys, item, score, truth, mp)
    if counted is None or counted[0] == 0:
        return whole()
    n_all, n_graded, per_item = counted
    catalogue = per_item[item]
    if quantiles:
        levels = np.linspace(0.0, 1.0, int(n_quantiles) + 1)
        n_parts = max(1, -(-total // part_rows))
        quants = _all_quantiles(typed, item, score, levels, n_parts, temp_dir)
    else:
        levels = np.zeros(0)
        quants = pl.Series([[]] * catalogue.len(), dtype=pl.List(pl.Float64))
    n_pos = per_item["n_positive"].to_numpy()
    n_cand = per_item["n_candidate"].to_numpy()
    rate = np.divide(n_pos, n_cand, out=np.zeros(n_pos.size), where=n_cand > 0)
    table = pl.DataFrame(
        {
            "item": catalogue,
            "n_positive": per_item["n_positive"],
            "n_candidate": per_item["n_candidate"],
            "base_rate": rate,
            "quantiles": quants,
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
