r"""Recall against a latency budget: candidate sources compared at an equal cost, not an equal K.

Seed 003, section 2, "Problem 2": the first stage's K is an engineering decision, and sources
cost different amounts (a static top from memory almost nothing, an ANN index milliseconds, a
neural source more). So recall is read against the cost of returning K candidates: each
source's recall at every K, the Pareto front of recall against cost, and the best source (or
mix of sources) a budget buys.

Definitions (every public function here uses them):

- A source's list for a query is its candidates ranked by ``y_score`` descending, ties broken
  by ``item`` ascending (the list :func:`lodestar_polars.top_k` serves: a list cut at K takes
  a side in a tie, it is not averaged), or by a given ``rank`` (1 first; the ranks need not
  run 1..n, so a frame may hold only the relevant items at their ranks in the full lists).
- The relevant items of a query are its rows of ``relevant`` (with ``y_true > 0`` where ``relevant``
  has the ``y_true`` column), or, without ``relevant``, the distinct items of the query with
  ``y_true > 0`` in any source's list. A query with no relevant item is left out (its recall
  is undefined, as :func:`lodestar_polars.recall` gives null); a query a source does not list
  counts for that source with recall 0.
- ``recall_macro`` at K is the mean over queries of each query's recall at K (the mean of
  :func:`lodestar_polars.recall` over queries); ``recall_micro`` pools the queries: the
  relevant items found in the top K of every query over all relevant items.
- The cost of K candidates of a source: a table of ``(k, cost)`` rows, linearly interpolated
  between its rows (a K outside the table's range has no cost and no point on the curve), or
  a callable given the NumPy array of every K and returning their costs. Taking nothing from a
  source costs 0.
- A mix takes the top ``k_s`` of each source ``s`` (``k_s = 0``: the source is not called) and
  recalls what the union of those lists holds; its cost is the sum of the sources' costs
  (``combine="sum"``: called one after another, or sharing one machine) or their maximum
  (``combine="max"``: called in parallel). The search is over every combination of ``k_s`` on
  the grid ``mix_ks`` (0 added), each source at the grid's values its cost covers, computed at
  once from a histogram of where each relevant item enters each source's grid (no loop over
  combinations or queries).
"""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import polars as pl

from lodestar_polars._base.validation import (
    check_column,
    check_columns,
    check_frame,
    check_option,
    give_back,
    names_of,
    select_roles,
)
from lodestar_polars.exceptions import InvalidParameterError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Cost = pl.DataFrame | Mapping[int, float] | Callable[[IntArray], npt.ArrayLike]
Average = Literal["macro", "micro"]
Combine = Literal["sum", "max"]

#: combinations of a mix search at most (the histogram and the costs are this big)
MAX_COMBINATIONS = 10_000_000
_AVERAGES = ("macro", "micro")
_COMBINES = ("max", "sum")
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


def _curve_arrays(ranked: _Ranked, costs: list[Any], caller: str) -> pl.DataFrame:
    frames = []
    total = float(ranked.n_pairs)
    for j, name in enumerate(ranked.names):
        n = int(ranked.length[j])
        k = np.arange(1, n + 1, dtype=np.int64)
        c = _cost_at(costs[j], ranked.sources[j], k, caller)
        r = ranked.ranks[:, j]
        listed = r > 0
        micro = np.cumsum(np.bincount(r[listed], minlength=n + 1)[1:]) / total
        macro = (
            np.cumsum(np.bincount(r[listed], weights=ranked.weight[listed], minlength=n + 1)[1:])
            / ranked.n_queries
        )
        keep = ~np.isnan(c)
        frames.append(
            pl.DataFrame(
                {
                    "source": [name] * int(keep.sum()),
                    "k": k[keep],
                    "cost": c[keep],
                    "recall_macro": macro[keep],
                    "recall_micro": micro[keep],
                },
                schema={
                    "source": pl.String,
                    "k": pl.Int64,
                    "cost": pl.Float64,
                    "recall_macro": pl.Float64,
                    "recall_micro": pl.Float64,
                },
            )
        )
    curve = pl.concat(frames)
    if curve.height == 0:
        msg = f"{caller}: no K of any source has a cost (the cost tables miss every list's K)."
        raise ValueError(msg)
    return curve


def pareto_mask(cost: FloatArray, recall: FloatArray) -> npt.NDArray[np.bool_]:
    """Points no other point dominates (cost <= and recall >=, one of them strictly).

    Of points equal in both, the first in input order is kept.

    >>> pareto_mask(np.array([1.0, 2.0, 2.0, 3.0]), np.array([0.5, 0.4, 0.7, 0.7])).tolist()
    [True, False, True, False]
    """
    order = np.lexsort((np.arange(cost.size), -recall, cost))
    r = recall[order]
    before = np.concatenate([[-np.inf], np.maximum.accumulate(r)[:-1]])
    out = np.zeros(cost.size, dtype=bool)
    out[order] = r > before
    return out


def budget_curve(
    frame: Any,
    *,
    by: Any,
    item: Any,
    source: Any,
    cost: Mapping[Any, Cost],
    y_score: Any = None,
    rank: Any = None,
    relevant: Any = None,
    y_true: Any = None,
    average: Average = "macro",
) -> Any:
    r"""Each source's recall at every K against the cost of K candidates, with the Pareto front.

    Parameters
    ----------
    frame : DataFrame or LazyFrame
        A long frame of candidates: one row per (query, source, item), the query's key
        ``by``, the candidate ``item``, the ``source`` that returned it, and its ``y_score``
        (or ``rank``, 1 first).
    by, item, source : str or Expr
        The query key (one or several columns), the candidate and the source.
    cost : mapping
        Each source's cost of K candidates: a frame of ``(k, cost)`` rows or a mapping
        ``{k: cost}`` (linear between its rows; a K outside its range is left off the
        curve), or a callable taking the NumPy array of every K and returning their costs.
    y_score, rank : str or Expr, optional
        Exactly one: the score ranking each list (descending, ties by ``item``
        ascending, as :func:`lodestar_polars.top_k`), or the rank (an int, 1 first;
        the K-th candidate is the one of rank K, so the frame may list only some items).
    relevant : DataFrame or LazyFrame, optional
        The relevant ``(by, item)`` rows (with ``y_true`` > 0 where it has that column).
        Without it, the relevant items are the frame's rows with ``y_true`` > 0.
    y_true : str or Expr, optional
        The relevance column (of ``relevant``, or of the frame when ``relevant`` is None).
    average : {"macro", "micro"}, default="macro"
        Which recall the Pareto front reads: the mean over queries of each query's recall
        (``"macro"``), or the relevant items found over all relevant items (``"micro"``).

    Returns
    -------
    DataFrame or LazyFrame
        One row per (source, K): ``source`` (a string), ``k``, ``cost``, ``recall_macro``,
        ``recall_micro``, and ``pareto``: whether the point is on the front of every
        source's points (no point costs as little or less and recalls as much or more).
        A LazyFrame in gives a LazyFrame out.

    Notes
    -----
    With :math:`R_q` the relevant items of query :math:`q`, :math:`L_{s,q}(K)` the top
    :math:`K` of source :math:`s` and :math:`Q` the queries with a relevant item:

    .. math::

        \mathrm{recall}_{\mathrm{macro}}(s, K) = \frac{1}{|Q|}\sum_{q \in Q}
        \frac{|R_q \cap L_{s,q}(K)|}{|R_q|}, \qquad
        \mathrm{recall}_{\mathrm{micro}}(s, K) = \frac{\sum_q |R_q \cap L_{s,q}(K)|}
        {\sum_q |R_q|}.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> cands = pl.DataFrame(
    ...     {
    ...         "user": [1, 1, 1, 1, 2, 2, 2, 2],
    ...         "source": ["pop", "pop", "ann", "ann"] * 2,
    ...         "item": ["a", "b", "c", "a", "a", "b", "d", "c"],
    ...         "score": [0.9, 0.8, 0.7, 0.6, 0.9, 0.8, 0.7, 0.6],
    ...     }
    ... )
    >>> relevant = pl.DataFrame({"user": [1, 1, 2], "item": ["a", "c", "d"]})
    >>> cost = {"pop": {1: 0.1, 2: 0.2}, "ann": lambda k: 1.0 + k}
    >>> lp.budget_curve(
    ...     cands, by="user", item="item", source="source", y_score="score",
    ...     relevant=relevant, cost=cost,
    ... )
    shape: (4, 6)
    ┌────────┬─────┬──────┬──────────────┬──────────────┬────────┐
    │ source ┆ k   ┆ cost ┆ recall_macro ┆ recall_micro ┆ pareto │
    │ ---    ┆ --- ┆ ---  ┆ ---          ┆ ---          ┆ ---    │
    │ str    ┆ i64 ┆ f64  ┆ f64          ┆ f64          ┆ bool   │
    ╞════════╪═════╪══════╪══════════════╪══════════════╪════════╡
    │ ann    ┆ 1   ┆ 2.0  ┆ 0.75         ┆ 0.666667     ┆ true   │
    │ ann    ┆ 2   ┆ 3.0  ┆ 1.0          ┆ 1.0          ┆ true   │
    │ pop    ┆ 1   ┆ 0.1  ┆ 0.25         ┆ 0.333333     ┆ true   │
    │ pop    ┆ 2   ┆ 0.2  ┆ 0.25         ┆ 0.333333     ┆ false  │
    └────────┴─────┴──────┴──────────────┴──────────────┴────────┘
    """
    caller = "budget_curve"
    roles = _check_roles(
        frame, by=by, item=item, source=source, y_score=y_score, rank=rank,
        relevant=relevant, y_true=y_true, caller=caller,
    )  # fmt: skip
    cost = _check_cost(cost, caller)
    average = check_option(average, "average", caller, _AVERAGES)  # type: ignore[assignment]
    ranked = _rank(roles, caller)
    curve = _curve_arrays(ranked, _costs(ranked, cost, caller), caller)
    mask = pareto_mask(curve["cost"].to_numpy(), curve[f"recall_{average}"].to_numpy())
    curve = curve.with_columns(pareto=pl.Series(mask))
    return give_back(curve.lazy(), lazy=roles["was_lazy"])


def _mix_candidates(
    ranked: _Ranked, costs: list[Any], grid: list[int], combine: str, caller: str
) -> tuple[IntArray, FloatArray, FloatArray, FloatArray]:
    """Every combination of per-source K on the grid: (ks, cost, recall_macro, recall_micro)."""
    m = len(ranked.sources)
    grids: list[IntArray] = []
    grid_costs: list[FloatArray] = []
    for j in range(m):
        g = np.asarray(grid, dtype=np.int64)
        c = _cost_at(costs[j], ranked.sources[j], g, caller)
        keep = ~np.isnan(c)
        grids.append(np.concatenate([[0], g[keep]]))
        grid_costs.append(np.concatenate([[0.0], c[keep]]))
    shape = tuple(g.size for g in grids)
    if math.prod(s + 1 for s in shape) > MAX_COMBINATIONS:
        msg = (
            f"The 'mix_ks' parameter of {caller}: {math.prod(shape):,} combinations of "
            f"{m} sources on a grid of {len(grid)} K is more than {MAX_COMBINATIONS:,}; "
            "give a coarser grid."
        )
        raise InvalidParameterError(msg)
    # where each relevant pair enters each source's grid: the first grid index j with
    # grid[j] >= rank (never: the grid's size, also for an item the source does not list)
    enter = np.empty((ranked.n_pairs, m), dtype=np.int64)
    for j in range(m):
        r = ranked.ranks[:, j]
        e = np.searchsorted(grids[j], r, side="left")
        e[r == 0] = grids[j].size
        enter[:, j] = e
    hist_shape = tuple(s + 1 for s in shape)
    flat = np.ravel_multi_index(tuple(enter.T), hist_shape)
    size = math.prod(hist_shape)
    out = []
    for weights in (ranked.weight, None):
        h = np.bincount(flat, weights=weights, minlength=size).astype(np.float64)
        h = h.reshape(hist_shape)
        for axis in range(m):  # suffix sums: the pairs with enter >= j on every axis
            h = np.flip(np.cumsum(np.flip(h, axis), axis=axis), axis)
        # a pair is missed by (j_1..j_m) when enter_s > j_s for every s
        missed = h[tuple(slice(1, None) for _ in range(m))]
        total = h[(0,) * m]
        out.append((total - missed).ravel())
    macro = out[0] / ranked.n_queries
    micro = out[1] / ranked.n_pairs
    combo = np.stack([g.ravel() for g in np.meshgrid(*grids, indexing="ij")], axis=1).astype(
        np.int64
    )
    cs = np.meshgrid(*grid_costs, indexing="ij")
    cost = np.sum(cs, axis=0) if combine == "sum" else np.max(cs, axis=0)
    return combo, cost.ravel(), macro, micro


def recall_at_budget(
    frame: Any,
    *,
    budget: float | Sequence[float],
    by: Any,
    item: Any,
    source: Any,
    cost: Mapping[Any, Cost],
    y_score: Any = None,
    rank: Any = None,
    relevant: Any = None,
    y_true: Any = None,
    average: Average = "macro",
    mix_ks: Sequence[int] | None = None,
    combine: Combine = "sum",
) -> Any:
    r"""The best source, or mix of sources, each budget buys: the most recall at a cost <= it.

    The candidates are every source at every K of :func:`budget_curve` (one source alone)
    and, with ``mix_ks``, every mix on that grid: the top ``k_s`` of each source ``s``
    (0: not called), whose recall is the union's and whose cost the sum (``combine="sum"``)
    or the maximum (``"max"``) of the sources' costs. Of candidates of equal recall, the
    cheaper wins, then the one with fewer sources, then the earlier in the sources' order.

    Parameters
    ----------
    frame, by, item, source, cost, y_score, rank, relevant, y_true
        As :func:`budget_curve`.
    budget : float or sequence of floats
        The budgets (in the unit of the costs), each >= 0.
    average : {"macro", "micro"}, default="macro"
        The recall maximised (see :func:`budget_curve`); both are reported.
    mix_ks : sequence of int, optional
        The grid of K a mix takes from each source (0 is added); each source is tried at
        the grid's values its cost covers. None: single sources only.
    combine : {"sum", "max"}, default="sum"
        A mix's cost: the sum of its sources' costs (called in turn, or on one machine) or
        their maximum (called in parallel).

    Returns
    -------
    DataFrame or LazyFrame
        One row per budget, in the order given: ``budget``, ``choice`` (``"ann@40"``,
        ``"ann@40 + pop@10"``; null when nothing fits the budget: recall 0), ``k`` (a
        struct: the K taken from each source, 0 for none), ``cost``, ``recall_macro``,
        ``recall_micro``. A LazyFrame in gives a LazyFrame out.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> cands = pl.DataFrame(
    ...     {
    ...         "user": [1, 1, 1, 1, 2, 2, 2, 2],
    ...         "source": ["pop", "pop", "ann", "ann"] * 2,
    ...         "item": ["a", "b", "c", "a", "a", "b", "d", "c"],
    ...         "score": [0.9, 0.8, 0.7, 0.6, 0.9, 0.8, 0.7, 0.6],
    ...     }
    ... )
    >>> relevant = pl.DataFrame({"user": [1, 1, 2], "item": ["a", "c", "d"]})
    >>> cost = {"pop": {1: 0.1, 2: 0.2}, "ann": lambda k: 1.0 + k}
    >>> lp.recall_at_budget(
    ...     cands, budget=[1.0, 2.0, 2.1], by="user", item="item", source="source",
    ...     y_score="score", relevant=relevant, cost=cost, mix_ks=[1, 2],
    ... ).select("budget", "choice", "cost", "recall_macro")
    shape: (3, 4)
    ┌────────┬───────────────┬──────┬──────────────┐
    │ budget ┆ choice        ┆ cost ┆ recall_macro │
    │ ---    ┆ ---           ┆ ---  ┆ ---          │
    │ f64    ┆ str           ┆ f64  ┆ f64          │
    ╞════════╪═══════════════╪══════╪══════════════╡
    │ 1.0    ┆ pop@1         ┆ 0.1  ┆ 0.25         │
    │ 2.0    ┆ ann@1         ┆ 2.0  ┆ 0.75         │
    │ 2.1    ┆ ann@1 + pop@1 ┆ 2.1  ┆ 1.0          │
    └────────┴───────────────┴──────┴──────────────┘
    """
    caller = "recall_at_budget"
    roles = _check_roles(
        frame, by=by, item=item, source=source, y_score=y_score, rank=rank,
        relevant=relevant, y_true=y_true, caller=caller,
    )  # fmt: skip
    budgets = _budgets(budget, caller)
    cost = _check_cost(cost, caller)
    average = check_option(average, "average", caller, _AVERAGES)  # type: ignore[assignment]
    grid = _ks(mix_ks, "mix_ks", caller)
    combine = check_option(combine, "combine", caller, _COMBINES)  # type: ignore[assignment]
    ranked = _rank(roles, caller)
    costs = _costs(ranked, cost, caller)
    curve = _curve_arrays(ranked, costs, caller)
    m = len(ranked.sources)
    index = {name: j for j, name in enumerate(ranked.names)}
    single = np.zeros((curve.height, m), dtype=np.int64)
    single[np.arange(curve.height), [index[s] for s in curve["source"].to_list()]] = curve[
        "k"
    ].to_numpy()
    parts = [
        (np.zeros((1, m), dtype=np.int64), np.zeros(1), np.zeros(1), np.zeros(1)),
        (
            single,
            curve["cost"].to_numpy(),
            curve["recall_macro"].to_numpy(),
            curve["recall_micro"].to_numpy(),
        ),
    ]
    if grid is not None:
        parts.append(_mix_candidates(ranked, costs, grid, combine, caller))
    ks = np.concatenate([p[0] for p in parts])
    cst = np.concatenate([p[1] for p in parts])
    macro = np.concatenate([p[2] for p in parts])
    micro = np.concatenate([p[3] for p in parts])
    target = macro if average == "macro" else micro
    used = np.count_nonzero(ks, axis=1)
    order = np.lexsort((np.arange(cst.size), used, -target, cst))
    best_value = np.maximum.accumulate(target[order])
    new = np.concatenate([[True], target[order][1:] > best_value[:-1]])
    leader = np.maximum.accumulate(np.where(new, np.arange(order.size), 0))
    sorted_cost = cst[order]
    at = np.searchsorted(sorted_cost, np.asarray(budgets), side="right") - 1  # >= 0: cost 0 first
    pick = order[leader[at]]
    choice = []
    for row in ks[pick]:
        taken = [f"{ranked.names[j]}@{int(row[j])}" for j in range(m) if row[j] > 0]
        choice.append(" + ".join(taken) if taken else None)
    out = pl.DataFrame(
        {
            "budget": budgets,
            "choice": pl.Series(choice, dtype=pl.String),
            "k": pl.DataFrame(
                {name: ks[pick, j] for j, name in enumerate(ranked.names)}
            ).to_struct(),
            "cost": cst[pick],
            "recall_macro": macro[pick],
            "recall_micro": micro[pick],
        }
    )
    return give_back(out.lazy(), lazy=roles["was_lazy"])


__all__ = ["budget_curve", "pareto_mask", "recall_at_budget"]
