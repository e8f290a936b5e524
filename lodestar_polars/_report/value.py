"""The report's value family (issue 21): what the ranking is worth in an item's price or margin.

``value=`` names a column of ``scores`` (or an expression) holding each candidate's value. A
graded list's truth with value ``v`` and its rank uniform on ``[b + 1, b + t]`` (ties as
expectations, as every family of the report) contributes, to its served list:

- ``v · P(R <= k)`` to the value captured in the top k (its ``hit@k`` term times ``v``),
- ``v · E[1/log2(R + 1) · 1{R <= k}]`` to the list's DCG with the value as the gain (its
  ``ndcg@k`` term, one relevant item, times ``v``),
- ``v`` to the list's realised value.

Per served list: ``value@k`` is the captured value, ``value_share@k`` the captured over the
realised value, ``value_ndcg@k`` the DCG over the ideal DCG (the list's realised values sorted
descending on ranks ``1..k``): ``lp.ndcg`` with the value of the positives as ``y_true`` (averaged
ties). Each is averaged over the served lists (``value_share`` and ``value_ndcg`` over those with a
positive realised value). A truth that is not a candidate has no value row: it adds 0. No
interval (seed 004: value metrics carry none). All NumPy over graded lists, no Python per list.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from lodestar_polars._registry import report_metrics
from lodestar_polars.exceptions import InvalidParameterError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

CALLER = "ranking_report"
_ROWNO = "__lp_value_row"


def value_keys(k: int) -> list[str]:
    """The value family's keys at cutoff ``k``, in payload order (from the registry)."""
    return [m.name(k) for m in report_metrics(k, "value")]


def check_value_column(
    lazy: pl.LazyFrame, value: str, keys: list[str], item: str, row: str | None = None
) -> None:
    """Refuse a value column that is not numeric, or holds a null, a non-finite or a negative.

    The first offending row (in input order, counted from 0; ``row``: a column numbering the
    rows, a Spark partition's) is named with its list and item.
    """
    dtype = lazy.collect_schema()[value]
    if not dtype.is_numeric():
        msg = (
            f"The 'value' parameter of {CALLER} must name a numeric column of scores (an "
            f"item's price or margin). Got column {value!r} of dtype {dtype} instead."
        )
        raise InvalidParameterError(msg)
    col = pl.col(value)
    numbered = (
        lazy.select(*keys, item, value).with_row_index(_ROWNO)
        if row is None
        else lazy.select(*keys, item, value, pl.col(row).alias(_ROWNO)).sort(_ROWNO)
    )
    bad = (
        numbered.filter(col.is_null() | ~col.cast(pl.Float64).is_finite() | (col < 0))
        .head(1)
        .collect(engine="streaming")
    )
    if bad.height:
        first = bad.row(0, named=True)
        got = first[value]
        rule = "null" if got is None else "not finite" if not np.isfinite(got) else "negative"
        where = first[keys[0]] if len(keys) == 1 else {k: first[k] for k in keys}
        msg = (
            f"The 'value' parameter of {CALLER} must name a column of finite, non-negative "
            f"values (an item's price or margin); column {value!r} is {rule} in row "
            f"{first[_ROWNO]} (list {where!r}, item {first[item]!r}): {got!r}."
        )
        raise InvalidParameterError(msg)


def truth_values(value_per_row: FloatArray, g_row: IntArray) -> FloatArray:
    """Per graded list: its truth's value (0 for a truth that is not a candidate)."""
    seen = g_row >= 0
    return np.where(seen, value_per_row[np.where(seen, g_row, 0)], 0.0)


def value_family(
    served: IntArray, value: FloatArray, hit_k: FloatArray, ndcg_k: FloatArray, k: int
) -> tuple[dict[str, float | None], dict[str, int]]:
    """The value family from per graded list arrays: served list, truth value, hit@k, ndcg@k.

    ``served`` labels each graded list's served list (any integers; equal labels, one list).
    Returns the family (payload order) and the counts (served lists, with a realised value).
    """
    _, inv = np.unique(served, return_inverse=True)
    inv = inv.astype(np.int64).ravel()
    n = int(inv.max()) + 1 if inv.size else 0
    captured = np.bincount(inv, weights=value * hit_k, minlength=n)
    realised = np.bincount(inv, weights=value, minlength=n)
    dcg = np.bincount(inv, weights=value * ndcg_k, minlength=n)
    # ideal DCG: each list's realised values, descending, on ranks 1..k
    order = np.lexsort((-value, inv))
    ids = inv[order]
    pos = np.arange(ids.size, dtype=np.int64)
    start = np.maximum.accumulate(np.where(np.r_[True, ids[1:] != ids[:-1]], pos, 0))
    rank = pos - start + 1  # 1-based rank in the ideal order
    cut = min(k, int(rank.max()) if rank.size else 1)
    gain = np.where(rank <= cut, value[order] / np.log2(rank + 1.0), 0.0)
    ideal = np.bincount(ids, weights=gain, minlength=n)
    has = realised > 0
    family: dict[str, Any] = {
        "value@{k}": float(captured.mean()) if n else None,
        "value_share@{k}": float(np.mean(captured[has] / realised[has])) if has.any() else None,
        "value_ndcg@{k}": float(np.mean(dcg[has] / ideal[has])) if has.any() else None,
    }
    out = {m.name(k): family[m.key] for m in report_metrics(k, "value")}
    return out, {"n_lists": n, "n_lists_with_value": int(np.count_nonzero(has))}


def value_note(column: str, counts: dict[str, int]) -> str | None:
    """A note when some served lists hold no realised value (left out of share and NDCG)."""
    without = counts["n_lists"] - counts["n_lists_with_value"]
    if without <= 0:
        return None
    return (
        f"value_share and value_ndcg leave out {without} of {counts['n_lists']} list(s) whose "
        f"realised positives hold no {column!r} value (0, or a truth that is no candidate)."
    )
