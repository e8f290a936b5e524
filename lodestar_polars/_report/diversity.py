"""The report's intra-list diversity (issue 21): ``intra_list_diversity@k`` with ``feature=``.

``feature`` is a column of ``scores`` (or an expression computed into one): an item's category
(a string, integer, Boolean or categorical value, compared by equality) or its embedding (a list
or array of floats of one length, cosine distance ``1 - cos``). It is an item's attribute: every
candidate row of an item must carry the same value, and none may be null. The popularity floor
re-ranks the same candidate rows (by their items' training popularity), so every item any block
serves is a candidate of ``scores`` and has its feature there; a training item absent from
``scores`` is never served and needs none.

``intra_list_diversity@k`` is :func:`lodestar_polars.intra_list_diversity` of each served list's
top ``k`` (the lists carrying a graded truth, each once), averaged over those lists, ties at the
cut as its expectation over their orderings: a row of the block at the cut is in with chance
``q = s / c``, a pair of its rows with ``s (s - 1) / (c (c - 1))``. NumPy over the graded arrays,
no Python per list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from lodestar_polars._core.beyond import _sum_of_squared_counts
from lodestar_polars.exceptions import InvalidParameterError

if TYPE_CHECKING:
    from lodestar_polars._report.ranking_report.common import FloatArray, Graded, IntArray

CALLER = "ranking_report"
ILD_SUM, ILD_SERVED = "__lp_ild_sum", "__lp_ild_served"  # the parts path's scalar sums
_RULE = "one category or embedding per item"
_FEAT = "__lp_feature"  # the feature's column in the (item, feature) pairs


@dataclass(frozen=True)
class Features:
    """Per candidate row (the graded order): a category code, or a unit embedding."""

    codes: IntArray | None = None
    unit: FloatArray | None = None


def _is_embedding(dtype: pl.DataType) -> bool:
    return isinstance(dtype, (pl.List, pl.Array)) and dtype.inner.is_numeric()


def _show(value: Any) -> str:
    return repr(value.to_list() if isinstance(value, pl.Series) else value)


def check_feature_column(scores: pl.DataFrame | pl.LazyFrame, feature: str) -> None:
    """Before any grading: ``feature`` names a column of ``scores``, of a dtype it can be."""
    schema = scores.collect_schema() if isinstance(scores, pl.LazyFrame) else scores.schema
    if feature not in schema:
        msg = (
            f"The 'feature' parameter of {CALLER} names no column of scores: {feature!r} (its "
            f"columns: {list(schema)})."
        )
        raise ValueError(msg)
    _check_dtype(schema[feature], feature)


def _check_dtype(dtype: pl.DataType, feature: str) -> None:
    is_category = dtype.is_numeric() or dtype in (pl.String, pl.Boolean, pl.Categorical)
    if isinstance(dtype, pl.Enum):
        is_category = True
    if not (is_category or _is_embedding(dtype)):
        msg = (
            f"The 'feature' parameter of {CALLER} must name a column of an item's category (a "
            f"string, integer or Boolean) or its embedding (a list or array of floats); "
            f"column {feature!r} is {dtype}."
        )
        raise InvalidParameterError(msg)
    if dtype.is_float():
        msg = (
            f"The 'feature' parameter of {CALLER}: column {feature!r} is {dtype}; a category "
            f"is a string, integer or Boolean, an embedding a list or array of floats."
        )
        raise InvalidParameterError(msg)


def check_features(pairs: pl.DataFrame, item: str, feature: str) -> None:
    """Refuse what ``feature`` cannot be: ``pairs`` (:func:`feature_pairs`) its values per item.

    The first offending item in sort order is named, so every path names the same one.
    """
    dtype = pairs.schema[_FEAT]
    _check_dtype(dtype, feature)
    nulls = pairs.filter(pl.col(_FEAT).is_null())
    if nulls.height:
        bad = nulls[item].sort()[0]
        msg = (
            f"{CALLER}: feature {feature!r} is null for item {bad!r}; every candidate needs "
            f"its item's category or embedding."
        )
        raise ValueError(msg)
    if _is_embedding(dtype):
        _check_embeddings(pairs, item, feature)
    distinct = pairs.unique()
    twice = distinct.filter(pl.col(item).is_duplicated())
    if twice.height:
        bad = twice[item].sort()[0]
        values = twice.filter(pl.col(item) == bad)[_FEAT]
        shown = sorted((_show(v) for v in values), key=str)[:2]
        msg = (
            f"{CALLER}: feature {feature!r} must be {_RULE}; item {bad!r} has two: "
            f"{shown[0]} and {shown[1]}."
        )
        raise ValueError(msg)


def _check_embeddings(pairs: pl.DataFrame, item: str, feature: str) -> None:
    f = pl.col(_FEAT)
    values = (
        f.list.eval(pl.element().cast(pl.Float64))
        if isinstance(pairs.schema[_FEAT], pl.List)
        else f.arr.to_list().list.eval(pl.element().cast(pl.Float64))
    )
    frame = pairs.select(
        item,
        values.list.len().alias("n"),
        values.list.eval(~pl.element().is_finite().fill_null(False)).list.any().alias("bad"),
        values.list.eval(pl.element().pow(2)).list.sum().alias("norm"),
    ).sort(item)
    lengths = frame["n"].unique().sort()
    if lengths.len() > 1:
        first = frame.filter(pl.col("n") == lengths[0])[item][0]
        other = frame.filter(pl.col("n") == lengths[1])[item][0]
        msg = (
            f"{CALLER}: feature {feature!r} must be embeddings of one length; item {first!r} "
            f"has {lengths[0]} values and item {other!r} {lengths[1]}."
        )
        raise ValueError(msg)
    bad = frame.filter(pl.col("bad"))
    if bad.height:
        msg = (
            f"{CALLER}: feature {feature!r} of item {bad[item][0]!r} holds NaN, infinity or "
            f"null; cosine distance needs finite embeddings."
        )
        raise ValueError(msg)
    zero = frame.filter(pl.col("norm") == 0.0)
    if zero.height:
        msg = (
            f"{CALLER}: feature {feature!r} of item {zero[item][0]!r} is the zero vector; "
            f"cosine distance needs embeddings of nonzero norm."
        )
        raise ValueError(msg)


def feature_pairs(frame: pl.DataFrame, item: str, feature: str) -> pl.DataFrame:
    """The distinct (``item``, ``feature``) pairs of ``frame`` (what a part keeps for the check)."""
    return frame.select(item, pl.col(feature).alias(_FEAT)).unique()


def features_of(column: pl.Series) -> Features:
    """Per row of the graded base frame: its category code or its unit embedding."""
    if _is_embedding(column.dtype):
        if isinstance(column.dtype, pl.Array):
            column = column.arr.to_list()
        flat = column.list.eval(pl.element().cast(pl.Float64)).explode().to_numpy()
        dim = int(flat.size // max(column.len(), 1)) if column.len() else 0
        vectors = np.asarray(flat, dtype=np.float64).reshape(column.len(), dim)
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        return Features(unit=unit)
    codes = column.rank("dense").cast(pl.Int64).to_numpy()
    return Features(codes=np.asarray(codes, dtype=np.int64))


def _per_list_sums(list_id: IntArray, values: FloatArray, n_lists: int) -> FloatArray:
    """Per list, the sums of ``values``' rows (one column per dimension)."""
    out = np.zeros((n_lists, values.shape[1]), dtype=np.float64)
    for j in range(values.shape[1]):  # one pass per dimension, not per list
        out[:, j] = np.bincount(list_id, weights=values[:, j], minlength=n_lists)
    return out


def ild_per_list(g: Graded, top: FloatArray, features: Features, k: int) -> FloatArray:
    """Per list id: ``lp.intra_list_diversity`` of its top ``k`` (``top``: each row's chance)."""
    n_lists = g.weight.size
    list_id = g.list_id
    length = np.bincount(list_id, minlength=n_lists).astype(np.float64)
    m = np.minimum(float(k), length)
    full, part = top == 1.0, (top > 0.0) & (top < 1.0)
    n_full = np.bincount(list_id[full], minlength=n_lists).astype(np.float64)
    n_part = np.bincount(list_id[part], minlength=n_lists).astype(np.float64)
    q = np.zeros(n_lists, dtype=np.float64)
    q[list_id[part]] = top[part]  # one value per block at the cut: s / c
    with np.errstate(invalid="ignore", divide="ignore"):
        pair = np.where(n_part > 1, q * (q * n_part - 1.0) / (n_part - 1.0), 0.0)
    if features.codes is not None:
        codes = features.codes
        a2 = _sum_of_squared_counts(list_id, codes, full, n_lists)
        b2 = _sum_of_squared_counts(list_id, codes, part, n_lists)
        u2 = _sum_of_squared_counts(list_id, codes, full | part, n_lists)
        similar = (a2 - n_full) / 2.0 + q * (u2 - a2 - b2) / 2.0 + pair * (b2 - n_part) / 2.0
    else:
        unit = features.unit
        assert unit is not None
        s_a = _per_list_sums(list_id, np.where(full[:, None], unit, 0.0), n_lists)
        s_b = _per_list_sums(list_id, np.where(part[:, None], unit, 0.0), n_lists)
        similar = (
            (np.einsum("ij,ij->i", s_a, s_a) - n_full) / 2.0
            + q * np.einsum("ij,ij->i", s_a, s_b)
            + pair * (np.einsum("ij,ij->i", s_b, s_b) - n_part) / 2.0
        )
    pairs = m * (m - 1.0) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = np.where(m >= 2.0, 1.0 - similar / pairs, 0.0)
    return out


def ild_sums(g: Graded, top: FloatArray, features: Features, k: int) -> tuple[float, int]:
    """The served lists' ILD sum and their count (they add over parts of whole lists)."""
    served = g.weight > 0
    return float(ild_per_list(g, top, features, k)[served].sum()), int(np.count_nonzero(served))


def ild_from_sums(total: float, n_served: int) -> dict[str, float | None]:
    """``intra_list_diversity@{k}`` (its registry key) from :func:`ild_sums`."""
    return {"intra_list_diversity@{k}": total / n_served if n_served else None}


def ild_family(g: Graded, top: FloatArray, features: Features, k: int) -> dict[str, float | None]:
    """``intra_list_diversity@{k}`` of one ranking (registry key, unformatted)."""
    return ild_from_sums(*ild_sums(g, top, features, k))


def memory_features(base: pl.DataFrame, item: str, feature: str) -> Features:
    """The whole-frame path's features: ``base``'s column, checked, per candidate row."""
    check_features(feature_pairs(base, item, feature), item, feature)
    return features_of(base[feature])


def check_merged_features(merged: Any, item: str, feature: str | None) -> None:
    """The parts path's check of every part's (item, feature) pairs, as the whole path's."""
    if feature is not None and merged.features:
        check_features(pl.concat(merged.features).unique(), item, feature)
