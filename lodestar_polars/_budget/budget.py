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
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import polars as pl

from lodestar_polars._base.validation import (
    check_option,
    give_back,
)
from lodestar_polars._budget.inputs import (
    Cost,
    FloatArray,
    IntArray,
    _budgets,
    _check_cost,
    _check_roles,
    _cost_at,
    _costs,
    _ks,
    _rank,
    _Ranked,
)
from lodestar_polars.exceptions import InvalidParameterError

Average = Literal["macro", "micro"]
Combine = Literal["sum", "max"]

#: combinations of a mix search at most (the histogram and the costs are this big)
MAX_COMBINATIONS = 10_000_000
_AVERAGES = ("macro", "micro")
_COMBINES = ("max", "sum")


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
