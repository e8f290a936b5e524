"""Rank fusion: several runs of one set of queries fused into one run, as ranx fuses them.

``lp.fuse`` and ``lp.optimize_fusion`` take the runs as one long frame with a run
column (or a mapping of run name to frame) and give the fused run as a frame of
the input's ``by``, ``item`` and ``y_score`` columns. Every step is a native Polars
expression over the long frame: the normalisation a window over (query, run), the
positions an ordinal rank over (query, run), the fusion a ``group_by`` over
(query, document); Condorcet's pairwise majority a NumPy kernel over blocks of queries. The
definitions are ranx 0.3.21's (``ranx/fusion/*.py``, ``ranx/normalization/*.py``,
``ranx/fusion_optimization/*.py``); docs/fusion.md writes each one out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from lodestar_polars._base.validation import (
    give_back,
)
from lodestar_polars._fusion.condorcet import condorcet_wins
from lodestar_polars._fusion.inputs import (
    _FIRST,
    _FLOOR,
    _LEN,
    _MISSING_MAX,
    _MISSING_MIN,
    _N,
    _POS,
    _R,
    _S,
    _W,
    _check_method,
    _check_norm,
    _check_parameters,
    _check_weights,
    _Input,
    _prepared,
    run_sum,
)
from lodestar_polars._fusion.learned import LEARNED, check_learned, fused_learned

# ---------------------------------------------------------------------------
# the steps, as expressions


def _normalised(frame: pl.LazyFrame, norm: str | None, keys: list[str]) -> pl.Expr:
    """The score after ranx's normalisation ``norm`` (not borda's: see :func:`_grid`)."""
    per_run = [*keys, _R]
    s = pl.col(_S)
    if norm is None:
        return s
    if norm == "rank":
        return 1.0 - pl.col(_POS).cast(pl.Float64) / pl.col(_LEN).cast(pl.Float64)
    low, high = s.min().over(per_run), s.max().over(per_run)
    if norm == "min-max":
        return (s - low) / pl.max_horizontal(high - low, pl.lit(_FLOOR))
    if norm == "min-max-inverted":
        return (high - s) / pl.max_horizontal(high - low, pl.lit(_FLOOR))
    if norm == "max":
        return s / pl.max_horizontal(high, pl.lit(_FLOOR))
    if norm == "sum":
        total = s.sum().over(per_run)
        return (s - low) / pl.max_horizontal(total - low * pl.col(_LEN), pl.lit(_FLOOR))
    assert norm == "zmuv"
    mean = s.sum().over(per_run) / pl.col(_LEN)
    std = ((s - mean) ** 2).sum().over(per_run) / pl.col(_LEN)
    return (s - mean) / pl.max_horizontal(std.sqrt(), pl.lit(_FLOOR))


def _candidates(frame: pl.LazyFrame, keys: list[str], item: str) -> pl.LazyFrame:
    """Each query's documents (the union of the runs'), their count, their first appearance."""
    first = (pl.col(_R).cast(pl.UInt64) * 2**32 + pl.col(_POS).cast(pl.UInt64)).min()
    return (
        frame.group_by([*keys, item])
        .agg(first.alias(_FIRST))
        .with_columns(pl.len().over(keys).cast(pl.Int64).alias(_N))
    )


def _grid(frame: pl.LazyFrame, keys: list[str], item: str, n_runs: int) -> pl.LazyFrame:
    """Every (query, document, run): the run's position of it (null when missing), lengths."""
    runs = pl.LazyFrame({_R: pl.Series(range(n_runs), dtype=pl.UInt32)})
    lengths = frame.group_by([*keys, _R]).agg(pl.len().cast(pl.Int64).alias(_LEN))
    return (
        _candidates(frame, keys, item)
        .join(runs, how="cross")
        .join(frame.drop(_LEN), on=[*keys, item, _R], how="left")
        .join(lengths, on=[*keys, _R], how="left")
        .with_columns(pl.col(_LEN).fill_null(0))
    )


def _with_weights(frame: pl.LazyFrame, weights: list[float] | None) -> pl.LazyFrame:
    if weights is None:
        return frame.with_columns(pl.lit(1.0).alias(_W))
    return frame.with_columns(
        pl.col(_R)
        .replace_strict(list(range(len(weights))), weights, return_dtype=pl.Float64)
        .alias(_W)
    )


def _sum(x: pl.Expr, n_runs: int) -> pl.Expr:
    return run_sum(x, _R, n_runs)


def _fused(
    frame: pl.LazyFrame,
    *,
    keys: list[str],
    item: str,
    method: str,
    norm: str | None,
    n_runs: int,
    weights: list[float] | None,
    params: Mapping[str, float],
    learned: list[Any] | None = None,
) -> pl.LazyFrame:
    """(keys..., item, fused score, first appearance) from the prepared long frame."""
    if method in LEARNED:
        assert learned is not None
        if method == "segfuse":
            frame = frame.with_columns(_normalised(frame, norm, keys).alias(_S))
        return fused_learned(
            frame,
            keys=keys,
            item=item,
            method=method,
            learned=learned,
            cols=(_R, _POS, _S, _FIRST, _LEN),
            w=int(params.get("w", 0)),
        )
    if method in ("condorcet", "w_condorcet"):
        return _condorcet(frame, keys=keys, item=item, n_runs=n_runs, weights=weights)
    pos = pl.col(_POS).cast(pl.Float64)
    if method in ("bordafuse", "w_bordafuse"):
        grid = _with_weights(_grid(frame, keys, item, n_runs), weights)
        n = pl.col(_N).cast(pl.Float64)
        points = (
            pl.when(pl.col(_POS).is_not_null())
            .then(n - pos)
            .otherwise((n - pl.col(_LEN).cast(pl.Float64) + 1.0) / 2.0)
        )
        total = _sum(pl.col(_W) * points if method == "w_bordafuse" else points, n_runs)
        return grid.group_by([*keys, item]).agg(total.alias(_S), pl.col(_FIRST).first())
    first = (pl.col(_R).cast(pl.UInt64) * 2**32 + pl.col(_POS).cast(pl.UInt64)).min()
    if norm == "borda":
        grid = _grid(frame, keys, item, n_runs)
        n = pl.col(_N).cast(pl.Float64)
        present = pl.col(_POS).is_not_null()
        borda = (
            pl.when(present)
            .then(1.0 - pos / n)
            .otherwise(0.5 - (pl.col(_LEN).cast(pl.Float64) - 1.0) / (2.0 * n))
        )
        frame = _with_weights(grid.with_columns(borda.alias(_S)), weights)
        first = pl.col(_FIRST).first()
    else:
        frame = _with_weights(frame.with_columns(_normalised(frame, norm, keys).alias(_S)), weights)
    s, w, count = pl.col(_S), pl.col(_W), pl.len().cast(pl.Float64)
    if method == "isr" or method == "log_isr" or method == "logn_isr":
        s = 1.0 / (pos + 1.0) ** 2
    elif method == "rrf":
        s = 1.0 / (params["k"] + pos + 1.0)
    elif method == "rbc":
        phi = params["phi"]
        s = (1.0 - phi) * pl.lit(phi, dtype=pl.Float64).pow(pl.col(_POS))
    value: pl.Expr
    if method in ("sum", "rrf", "rbc"):
        value = _sum(s, n_runs)
    elif method == "min":
        low = s.min()
        value = pl.when(pl.len() < n_runs).then(pl.min_horizontal(low, _MISSING_MIN)).otherwise(low)
    elif method == "max":
        high = s.max()
        value = (
            pl.when(pl.len() < n_runs).then(pl.max_horizontal(high, _MISSING_MAX)).otherwise(high)
        )
    elif method == "med":
        value = s.median()
    elif method == "anz":
        value = _sum(s, n_runs) / count
    elif method in ("mnz", "isr"):
        value = _sum(s, n_runs) * count
    elif method == "gmnz":
        value = _sum(s, n_runs) * count.pow(params["gamma"])
    elif method == "log_isr":
        value = _sum(s, n_runs) * count.log()
    elif method == "logn_isr":
        value = _sum(s, n_runs) * (count + params["sigma"]).log()
    elif method == "wsum":
        value = _sum(w * s, n_runs)
    elif method == "wmnz":
        value = _sum(s, n_runs) * _sum(w, n_runs)
    else:
        assert method == "mixed"
        value = _sum(s * w, n_runs) * count.sqrt()
    return frame.group_by([*keys, item]).agg(value.alias(_S), first.alias(_FIRST))


def _condorcet(
    frame: pl.LazyFrame,
    *,
    keys: list[str],
    item: str,
    n_runs: int,
    weights: list[float] | None,
) -> pl.LazyFrame:
    """Condorcet fusion: each document's score is ``N - i``, ``i`` its place in the order.

    ranx sorts the candidates with the comparator "x before y when the runs ranking
    x above y (a missing document is below every present one) hold at least half of
    the votes" (weights in the weighted form). Where that relation is a strict total
    order (no tie of votes, no cycle), the order is that of the number of documents
    each one beats, which is counted here from every ordered pair of a query's
    candidates (``N**2 * R`` comparisons per query, by the NumPy kernel of
    :mod:`lodestar_polars._fusion.condorcet` over dense blocks of queries; the
    frame is collected for it, so a ``LazyFrame``'s Condorcet fusion is computed
    when ``fuse`` is called).
    Where the relation has a tie or a cycle, ranx's order follows Python's set order
    of the document ids and is not reproducible; here the documents that beat as many
    others are ordered by first appearance (run order, then position).
    """
    cand = _candidates(frame, keys, item).collect()
    present = frame.select(*keys, item, _R, _POS).collect()
    counted = condorcet_wins(
        cand,
        present,
        keys=keys,
        item=item,
        run=_R,
        pos=_POS,
        first=_FIRST,
        weights=[1.0] * n_runs if weights is None else weights,
    )
    ranked = (
        counted.lazy()
        .sort([*keys, "wins", _FIRST], descending=[False] * len(keys) + [True, False])
        .with_columns((pl.col(_N) - pl.int_range(pl.len()).over(keys)).cast(pl.Float64).alias(_S))
    )
    return ranked.select(*keys, item, _S, _FIRST)


def _ordered(fused: pl.LazyFrame, keys: list[str], item: str, score: str) -> pl.LazyFrame:
    """The fused run, by query, score descending, equal scores by first appearance."""
    return fused.sort(
        [*keys, _S, _FIRST], descending=[False] * len(keys) + [True, False], nulls_last=True
    ).select(*keys, item, pl.col(_S).alias(score))


# ---------------------------------------------------------------------------
# the public functions


def fuse(
    runs: Any,
    *,
    method: str,
    norm: str | None = "min-max",
    weights: Mapping[Any, float] | None = None,
    by: str | pl.Expr | Sequence[str | pl.Expr],
    item: str | pl.Expr,
    y_score: str | pl.Expr,
    run: str | pl.Expr = "run",
    k: int | None = None,
    phi: float | None = None,
    sigma: float | None = None,
    gamma: float | None = None,
    probs: Mapping[Any, Sequence[float] | np.ndarray[Any, Any]] | None = None,
    map_scores: Mapping[Any, float] | None = None,
    w: int | None = None,
    log_odds: Mapping[Any, Sequence[float] | np.ndarray[Any, Any]] | None = None,
) -> Any:
    r"""Fuse several runs of the same queries into one run, with ranx's methods.

    Parameters
    ----------
    runs : polars.DataFrame, polars.LazyFrame, Arrow data, or a mapping of them
        One long frame, one row per (query, run, document), with a ``run`` column
        naming the run; or a mapping of run name to a frame of (query, document,
        score) rows. A ``LazyFrame`` (or a mapping holding one) gives a ``LazyFrame``.
    method : str
        ranx's name of the fusion: ``"min"``, ``"max"``, ``"med"``, ``"sum"``,
        ``"anz"``, ``"mnz"``, ``"gmnz"``, ``"isr"``, ``"log_isr"``, ``"logn_isr"``,
        ``"rrf"``, ``"rbc"``, ``"wsum"``, ``"wmnz"``, ``"mixed"``, ``"bordafuse"``,
        ``"w_bordafuse"``, ``"condorcet"``, ``"w_condorcet"``, or the learned
        ``"posfuse"``, ``"mapfuse"``, ``"probfuse"``, ``"segfuse"``, ``"slidefuse"``,
        ``"bayesfuse"`` (docs/fusion.md).
    norm : str or None, default "min-max"
        The normalisation of each run's scores per query before the fusion, ranx's
        default: ``"min-max"``, ``"min-max-inverted"`` (lower scores are better:
        ``(max - s) / (max - min)``, and each run re-ranked by it, as ranx does),
        ``"max"``, ``"sum"``, ``"zmuv"``, ``"rank"``, ``"borda"``, or None for the raw
        scores. The position-based methods (isr, rrf, rbc, borda, condorcet) read
        positions, which only two normalisations change: min-max-inverted reverses
        them (as in ranx), borda's is refused with them.
    weights : mapping of run name to float, optional
        One weight per run: required by (and only by) ``wsum``, ``wmnz``, ``mixed``,
        ``w_bordafuse`` and ``w_condorcet``.
    by : str, polars.Expr or sequence of them
        The query key column(s).
    item : str or polars.Expr
        The document column.
    y_score : str or polars.Expr
        The score column; higher is better (cast to Float64, as ranx stores scores).
    run : str or polars.Expr, default "run"
        The column naming each row's run, in a long frame (unused with a mapping).
    k : int, optional
        RRF's constant, ``method="rrf"`` only (ranx's default 60).
    phi : float, optional
        RBC's persistence, required by ``method="rbc"``.
    sigma : float, optional
        LogN_ISR's constant in [0, 1], ``method="logn_isr"`` only (default 0.01).
    gamma : float, optional
        CombGMNZ's exponent, required by ``method="gmnz"``.
    probs : mapping of run name to a list of floats, optional
        PosFuse's learned probabilities per position, required by ``method="posfuse"``:
        what ``lp.optimize_fusion(qrels, runs, method="posfuse")`` returns.
        ProbFuse's and SegFuse's learned probabilities per segment too, required by
        ``method="probfuse"`` (the number of segments their count) and ``"segfuse"``.
    map_scores : mapping of run name to float, optional
        MAPFuse's learned MAP per run, required by ``method="mapfuse"``: what
        ``lp.optimize_fusion(qrels, runs, method="mapfuse")`` returns.
    w : int, optional
        SlideFuse's window (required by ``method="slidefuse"``, with ``probs``): a
        document scores the mean of ``probs`` over the positions within ``w`` of its own.
    log_odds : mapping of run name to a list of floats, optional
        BayesFuse's learned log-odds per position, required by ``method="bayesfuse"``.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        The fused run: the ``by`` columns, ``item`` and ``y_score`` (Float64), one
        row per (query, document) of any run, sorted by query, then score
        descending, equal scores in order of first appearance (run order, then
        position in the run).

    Raises
    ------
    InvalidParameterError
        An unknown ``method`` or ``norm``; ``norm="borda"`` with a position-based
        method; ``weights`` missing for a weighted method, given to another, or not one
        finite weight per run; ``k``, ``phi``, ``sigma``, ``gamma`` given to another
        method, missing where required, or out of range; a role that is not a column.
    ValueError
        A non-numeric score column, a null or NaN score, a null run, or a document
        twice in one run's list for a query.

    Notes
    -----
    A document's position in a run is the order of its score, equal scores in row
    order: ranx's order on lists of up to 15 documents (numba's sort is an insertion
    sort there); on longer lists ranx's order of equal scores is unspecified. A query
    that a run lacks counts as an empty list of that run (ranx refuses runs whose
    queries differ). The checks read the run, score, key and item columns when
    ``fuse`` is called, a ``LazyFrame``'s too; the fusion itself stays lazy.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> runs = pl.DataFrame(
    ...     {
    ...         "run": ["bm25"] * 3 + ["dense"] * 2,
    ...         "query": ["q1"] * 5,
    ...         "doc": ["d1", "d2", "d3", "d2", "d4"],
    ...         "score": [3.0, 2.0, 1.0, 0.9, 0.5],
    ...     }
    ... )
    >>> lp.fuse(runs, method="rrf", by="query", item="doc", y_score="score")
    shape: (4, 3)
    ┌───────┬─────┬──────────┐
    │ query ┆ doc ┆ score    │
    │ ---   ┆ --- ┆ ---      │
    │ str   ┆ str ┆ f64      │
    ╞═══════╪═════╪══════════╡
    │ q1    ┆ d2  ┆ 0.032522 │
    │ q1    ┆ d1  ┆ 0.016393 │
    │ q1    ┆ d4  ┆ 0.016129 │
    │ q1    ┆ d3  ┆ 0.015873 │
    └───────┴─────┴──────────┘
    """
    caller = "fuse"
    name = _check_method(method, caller)
    norm_name = _check_norm(norm, name, caller)
    params = _check_parameters(
        name, {"k": k, "phi": phi, "sigma": sigma, "gamma": gamma, "w": w}, caller
    )
    if weights is not None and not isinstance(weights, Mapping):
        _check_weights(weights, name, [], caller)
    data = _Input(runs, by=by, item=item, y_score=y_score, run=run, caller=caller)
    run_weights = _check_weights(weights, name, data.runs, caller)
    learned = check_learned(
        name, {"probs": probs, "map_scores": map_scores, "log_odds": log_odds}, data.runs, caller
    )
    fused = _fused(
        _prepared(data, norm_name),
        keys=data.keys,
        item=data.item,
        method=name,
        norm=norm_name,
        n_runs=len(data.runs),
        weights=run_weights,
        params=params,
        learned=learned,
    )
    return give_back(_ordered(fused, data.keys, data.item, data.score), lazy=data.lazy)


__all__ = ["fuse"]
