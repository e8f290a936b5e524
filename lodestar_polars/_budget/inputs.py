"""The budget functions' inputs: the cost of K candidates, the ranked lists and their checks."""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from lodestar_polars._base.validation import (
    check_column,
    check_columns,
    check_frame,
    names_of,
    select_roles,
)
from lodestar_polars.exceptions import InvalidParameterError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Cost = pl.DataFrame | Mapping[int, float] | Callable[[IntArray], npt.ArrayLike]
_QUERY = "__lp_query__"
_SOURCE = "__lp_source__"
_RANK = "__lp_rank__"


@dataclass(frozen=True)
class _Ranked:
    """Every relevant (query, item) pair and its rank in each source (0: not listed)."""

    sources: list[Any]  # the source values, sorted
    names: list[str]  # their names (str) in the result
    ranks: IntArray  # (pairs, sources) rank, 0 where the source does not list the item
    weight: FloatArray  # (pairs,) 1 / the query's relevant items: macro weights
    n_queries: int
    n_pairs: int
    length: IntArray  # (sources,) the longest list of each source


def _ks(value: object, name: str, caller: str) -> list[int] | None:
    if value is None:
        return None
    items = list(value) if isinstance(value, Sequence) and not isinstance(value, str) else None
    if (
        not items
        or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in items)
        or min(operator.index(v) for v in items) < 1
    ):
        msg = (
            f"The {name!r} parameter of {caller} must be a non-empty sequence of ints in the "
            f"range [1, inf), or None. Got {value!r} instead."
        )
        raise InvalidParameterError(msg)
    return sorted({operator.index(v) for v in items})


def _budgets(value: object, caller: str) -> list[float]:
    items = (
        [value]
        if isinstance(value, numbers.Real)
        else list(value)
        if isinstance(value, Sequence) and not isinstance(value, str)
        else []
    )
    if not items or not all(
        isinstance(v, numbers.Real)
        and not isinstance(v, (bool, np.bool_))
        and math.isfinite(float(v))
        and float(v) >= 0
        for v in items
    ):
        msg = (
            f"The 'budget' parameter of {caller} must be a finite real number >= 0 or a "
            f"non-empty sequence of them. Got {value!r} instead."
        )
        raise InvalidParameterError(msg)
    return [float(v) for v in items]


def _check_cost(cost: object, caller: str) -> Mapping[Any, Any]:
    if not isinstance(cost, Mapping) or not cost:
        msg = (
            f"The 'cost' parameter of {caller} must be a non-empty mapping of each source to "
            "its cost: a frame of (k, cost) rows, a mapping {k: cost}, or a callable of the "
            f"array of K. Got {cost!r} instead."
        )
        raise InvalidParameterError(msg)
    for key, value in cost.items():
        if not (isinstance(value, (pl.DataFrame, Mapping)) or callable(value)):
            msg = (
                f"The 'cost' parameter of {caller}: the cost of source {key!r} must be a frame "
                "of (k, cost) rows, a mapping {k: cost} or a callable of the array of K. "
                f"Got {value!r} instead."
            )
            raise InvalidParameterError(msg)
    return cost


def _cost_table(value: pl.DataFrame | Mapping[Any, Any], key: object, caller: str) -> Any:
    """A cost table as (k ascending, cost) arrays, refusing what is not one."""
    if isinstance(value, pl.DataFrame):
        if "k" not in value.columns or "cost" not in value.columns:
            msg = (
                f"The 'cost' parameter of {caller}: the table of source {key!r} must have "
                f"columns 'k' and 'cost' (its columns: {value.columns})."
            )
            raise InvalidParameterError(msg)
        ks_list = value["k"].to_list()
        costs_list = value["cost"].to_list()
    else:
        ks_list, costs_list = list(value.keys()), list(value.values())
    ok_k = all(
        isinstance(k, numbers.Integral) and not isinstance(k, bool) and operator.index(k) >= 1
        for k in ks_list
    )
    ok_c = all(
        isinstance(c, numbers.Real)
        and not isinstance(c, bool)
        and math.isfinite(float(c))
        and float(c) >= 0
        for c in costs_list
    )
    if not ks_list or not ok_k or not ok_c or len(set(ks_list)) != len(ks_list):
        msg = (
            f"The 'cost' parameter of {caller}: the table of source {key!r} must hold distinct "
            "ints k >= 1 and finite costs >= 0, one row at least. "
            f"Got k={ks_list!r}, cost={costs_list!r}."
        )
        raise InvalidParameterError(msg)
    order = np.argsort(np.asarray(ks_list, dtype=np.int64))
    return (
        np.asarray(ks_list, dtype=np.int64)[order],
        np.asarray(costs_list, dtype=np.float64)[order],
    )


def _cost_at(value: Any, key: object, k: IntArray, caller: str) -> FloatArray:
    """The cost of each K of ``k`` for one source: NaN where the table does not reach."""
    if isinstance(value, (pl.DataFrame, Mapping)):
        tk, tc = _cost_table(value, key, caller)
        out = np.interp(k.astype(np.float64), tk.astype(np.float64), tc)
        out[(k < tk[0]) | (k > tk[-1])] = np.nan
        return np.asarray(out, dtype=np.float64)
    got = np.asarray(value(k.copy()), dtype=np.float64)
    if got.shape != k.shape or not np.all(np.isfinite(got)) or np.any(got < 0):
        msg = (
            f"The 'cost' parameter of {caller}: the callable of source {key!r} must return an "
            f"array of {k.size} finite costs >= 0, one per K; got shape {got.shape}"
            + ("" if got.shape != k.shape else f" with values {got[:5].tolist()}...")
            + "."
        )
        raise InvalidParameterError(msg)
    return got


def _check_roles(
    frame: object,
    *,
    by: object,
    item: object,
    source: object,
    y_score: object,
    rank: object,
    relevant: object,
    y_true: object,
    caller: str,
) -> dict[str, Any]:
    lazy, was_lazy = check_frame(frame, "frame", caller)
    keys = check_columns(by, "by", caller)
    item_e = check_column(item, "item", caller)
    source_e = check_column(source, "source", caller)
    score_e = check_column(y_score, "y_score", caller, allow_none=True)
    rank_e = check_column(rank, "rank", caller, allow_none=True)
    true_e = check_column(y_true, "y_true", caller, allow_none=True)
    if (score_e is None) == (rank_e is None):
        msg = (
            f"{caller} ranks each list by y_score or by rank: give exactly one of them. "
            f"Got y_score={y_score!r}, rank={rank!r}."
        )
        raise InvalidParameterError(msg)
    relevant_lazy = None
    if relevant is not None:
        relevant_lazy, _ = check_frame(relevant, "relevant", caller)
    elif true_e is None:
        msg = (
            f"{caller} needs the relevant items: give relevant= (a frame of the relevant "
            "(by, item) rows) or y_true= (a column of the frame, > 0 for a relevant item). "
            "Got neither."
        )
        raise InvalidParameterError(msg)
    assert item_e is not None
    assert source_e is not None
    return {
        "lazy": lazy,
        "was_lazy": was_lazy,
        "keys": keys,
        "item": item_e,
        "source": source_e,
        "order": score_e if score_e is not None else rank_e,
        "by_rank": rank_e is not None,
        "y_true": true_e,
        "relevant": relevant_lazy,
    }


def _first(frame: pl.DataFrame) -> str:
    return repr(frame.head(1).to_dicts()[0]) if frame.height else ""


def _rank(roles: dict[str, Any], caller: str) -> _Ranked:
    """Read the frame once: each relevant pair's rank in each source (vectorized)."""
    keys: list[pl.Expr] = roles["keys"]
    key_names = names_of(keys)
    item_name = names_of([roles["item"]])[0]
    parts = {"by": keys, "item": [roles["item"]], "source": [roles["source"]]}
    parts["rank" if roles["by_rank"] else "y_score"] = [roles["order"]]
    if roles["y_true"] is not None and roles["relevant"] is None:
        parts["y_true"] = [roles["y_true"]]
    select_roles(roles["lazy"], parts, "the frame", caller)
    exprs = [
        *keys,
        roles["item"],
        roles["source"].alias(_SOURCE),
        roles["order"].alias(_RANK),
        *([roles["y_true"].alias("__lp_true__")] if "y_true" in parts else []),
    ]
    df = roles["lazy"].select(exprs).collect()
    group = [*key_names, _SOURCE]
    dup = df.filter(pl.struct([*group, item_name]).is_duplicated())
    if dup.height:
        msg = (
            f"{caller}: an item is listed twice by one source for one query, e.g. "
            f"{_first(dup.select(*group, item_name))}; a candidate list holds an item once."
        )
        raise ValueError(msg)
    if df[_RANK].null_count() or (df[_RANK].dtype.is_float() and df[_RANK].is_nan().any()):
        what = "rank" if roles["by_rank"] else "y_score"
        bad = df.filter(pl.col(_RANK).is_null() | pl.col(_RANK).cast(pl.Float64).is_nan())
        msg = f"{caller}: the {what} column holds a null or NaN, e.g. {_first(bad)}."
        raise ValueError(msg)
    if roles["by_rank"]:
        if not df[_RANK].dtype.is_integer():
            msg = (
                f"{caller}: the rank column must hold integers (1 first); "
                f"its type is {df[_RANK].dtype}."
            )
            raise ValueError(msg)
        bad = df.filter(pl.col(_RANK) < 1)
        if bad.height:
            msg = f"{caller}: a rank must be >= 1 (1 first), e.g. {_first(bad)}."
            raise ValueError(msg)
        dup = df.filter(pl.struct([*group, _RANK]).is_duplicated())
        if dup.height:
            msg = f"{caller}: two items of one list share a rank, e.g. {_first(dup)}."
            raise ValueError(msg)
        # a list's ranks need not be 1..n: the K-th candidate is the one of rank K
    else:
        if not df[_RANK].dtype.is_numeric():
            msg = f"{caller}: y_score must be numeric; its type is {df[_RANK].dtype}."
            raise ValueError(msg)
        df = df.sort([*group, _RANK, item_name], descending=[False] * len(group) + [True, False])
        df = df.with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(group).alias(_RANK))
    # the relevant pairs
    if roles["relevant"] is not None:
        tschema = roles["relevant"].collect_schema()
        missing = [c for c in [*key_names, item_name] if c not in tschema]
        if missing:
            msg = (
                f"The 'relevant' parameter of {caller} must have the by and item columns "
                f"{[*key_names, item_name]}; it lacks {missing} (its columns: {tschema.names()})."
            )
            raise InvalidParameterError(msg)
        true_name = None if roles["y_true"] is None else names_of([roles["y_true"]])[0]
        t = roles["relevant"]
        if true_name is not None and true_name in tschema:
            t = t.filter(pl.col(true_name) > 0)
        rel = t.select(*key_names, item_name).unique().collect()
    else:
        rel = df.filter(pl.col("__lp_true__") > 0).select(*key_names, item_name).unique()
    if rel.height == 0:
        msg = f"{caller}: no query has a relevant item, so recall is undefined everywhere."
        raise ValueError(msg)
    rel = rel.sort(key_names + [item_name]).with_columns(
        (pl.len().over(key_names)).cast(pl.Float64).alias("__lp_nrel__"),
        pl.struct(key_names).rank("dense").cast(pl.Int64).alias(_QUERY),
    )
    sources = sorted(df[_SOURCE].unique().to_list(), key=lambda v: (str(type(v)), v))
    src_index = pl.DataFrame({_SOURCE: sources, "__lp_s__": np.arange(len(sources))})
    src_index = src_index.with_columns(pl.col(_SOURCE).cast(df[_SOURCE].dtype))
    joined = (
        rel.with_row_index("__lp_pair__")
        .join(
            df.select(*key_names, item_name, _SOURCE, _RANK),
            on=[*key_names, item_name],
            how="inner",
        )
        .join(src_index, on=_SOURCE)
    )
    ranks = np.zeros((rel.height, len(sources)), dtype=np.int64)
    ranks[joined["__lp_pair__"].to_numpy().astype(np.int64), joined["__lp_s__"].to_numpy()] = (
        joined[_RANK].to_numpy().astype(np.int64)
    )
    length = (
        (
            df.group_by(_SOURCE)
            .agg(pl.col(_RANK).max())
            .join(src_index, on=_SOURCE)
            .sort("__lp_s__")
        )[_RANK]
        .to_numpy()
        .astype(np.int64)
    )
    return _Ranked(
        sources=sources,
        names=[str(s) for s in sources],
        ranks=ranks,
        weight=1.0 / rel["__lp_nrel__"].to_numpy(),
        n_queries=int(rel[_QUERY].n_unique()),
        n_pairs=rel.height,
        length=length,
    )


def _costs(ranked: _Ranked, cost: Mapping[Any, Any], caller: str) -> list[Any]:
    missing = [s for s in ranked.sources if s not in cost]
    extra = [k for k in cost if k not in ranked.sources]
    if missing or extra:
        msg = (
            f"The 'cost' parameter of {caller} must give the cost of every source and only "
            f"of them (the sources: {ranked.sources}); "
            + (f"it lacks {missing}" if missing else f"it names {extra}, not a source")
            + "."
        )
        raise InvalidParameterError(msg)
    return [cost[s] for s in ranked.sources]
