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

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from lodestar_polars._base.validation import (
    check_column,
    check_columns,
    check_frame,
    check_int,
    check_option,
    check_real,
    give_back,
    names_of,
    select_roles,
)
from lodestar_polars._fusion.condorcet import condorcet_wins
from lodestar_polars._fusion.learned import LEARNED, check_learned, fused_learned, train
from lodestar_polars._report.serving import check_one_row_per_item, check_score_dtype
from lodestar_polars.exceptions import InvalidParameterError

METHODS = (
    "min",
    "max",
    "med",
    "sum",
    "anz",
    "mnz",
    "gmnz",
    "isr",
    "log_isr",
    "logn_isr",
    "rrf",
    "rbc",
    "wsum",
    "wmnz",
    "mixed",
    "bordafuse",
    "w_bordafuse",
    "condorcet",
    "w_condorcet",
    "posfuse",
    "mapfuse",
)
"""ranx's names of the fusion methods implemented here (its ``fusion_switch``)."""

NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda")
"""ranx's names of the normalisations implemented here (its ``norm_switch``)."""

WEIGHTED = frozenset({"wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet"})
"""The methods that read one weight per run."""

#: the methods that read each document's position in a run, not its score
POSITIONAL = frozenset(
    {"isr", "log_isr", "logn_isr", "rrf", "rbc", "bordafuse", "w_bordafuse"}
    | {"condorcet", "w_condorcet", "posfuse", "mapfuse"}
)

#: each method's own parameter and its default (None: required, as in ranx)
PARAMETERS: dict[str, tuple[str, float | None]] = {
    "rrf": ("k", 60),
    "rbc": ("phi", None),
    "logn_isr": ("sigma", 0.01),
    "gmnz": ("gamma", None),
}

#: ranx's floor of a normaliser's denominator, and its stand-ins for a missing score
_FLOOR = 1e-9
_MISSING_MIN = 1e9
_MISSING_MAX = -1e9

_P = "__lp_fuse_"
_R, _S, _POS, _LEN, _W, _N, _FIRST = (f"{_P}{n}" for n in ("r", "s", "pos", "len", "w", "n", "1st"))


# ---------------------------------------------------------------------------
# options


def _check_method(method: object, caller: str) -> str:
    return check_option(method, "method", caller, METHODS)


def _check_norm(norm: object, method: str, caller: str) -> str | None:
    if norm is None:
        return None
    value = check_option(norm, "norm", caller, NORMS)
    if value == "borda" and method in POSITIONAL:
        msg = (
            f"The 'norm' parameter of {caller} cannot be 'borda' with method={method!r}: "
            "that method reads each document's position in a run, and after borda's "
            "normalisation ranx orders a run by a Python set's iteration order (not "
            "reproducible). Got norm='borda' instead."
        )
        raise InvalidParameterError(msg)
    return value


def _check_parameters(method: str, given: Mapping[str, object], caller: str) -> dict[str, float]:
    """The method's own parameter (``k``, ``phi``, ``sigma`` or ``gamma``), checked."""
    own = PARAMETERS.get(method)
    out: dict[str, float] = {}
    for name, value in given.items():
        if value is None:
            continue
        if own is None or own[0] != name:
            which = [m for m, (p, _) in PARAMETERS.items() if p == name]
            msg = (
                f"The {name!r} parameter of {caller} applies to method={which[0]!r} only. "
                f"Got {name}={value!r} with method={method!r}."
            )
            raise InvalidParameterError(msg)
    if own is None:
        return out
    name, default = own
    value = given.get(name)
    if value is None:
        if default is None:
            msg = (
                f"The {name!r} parameter of {caller} is required with method={method!r} "
                f"(ranx has no default for it). Got None."
            )
            raise InvalidParameterError(msg)
        value = default
    if name == "k":
        out[name] = float(check_int(value, "k", caller, allow_none=False, low=0))  # type: ignore[arg-type]
    elif name == "sigma":
        sigma = check_real(value, "sigma", caller, allow_none=False)
        assert sigma is not None
        if not 0.0 <= sigma <= 1.0:  # ranx: assert 0.0 <= sigma <= 1.0
            msg = f"The 'sigma' parameter of {caller} must be in [0, 1]. Got {value!r} instead."
            raise InvalidParameterError(msg)
        out[name] = sigma
    else:
        real = check_real(value, name, caller, allow_none=False)
        assert real is not None
        out[name] = real
    return out


def _check_weights(
    weights: object, method: str, runs: Sequence[object], caller: str
) -> list[float] | None:
    """One finite weight per run, in the runs' order, or None for an unweighted method."""
    if weights is None:
        if method in WEIGHTED:
            msg = (
                f"The 'weights' parameter of {caller} is required with method={method!r}: "
                "a mapping of each run's name to its weight. Got None."
            )
            raise InvalidParameterError(msg)
        return None
    if not isinstance(weights, Mapping):
        msg = (
            f"The 'weights' parameter of {caller} must be a mapping of run name to weight "
            f"or None. Got {weights!r} instead."
        )
        raise InvalidParameterError(msg)
    if method not in WEIGHTED:
        msg = (
            f"The 'weights' parameter of {caller} applies to the weighted methods only "
            f"({sorted(WEIGHTED)}). Got weights with method={method!r}."
        )
        raise InvalidParameterError(msg)
    for value in weights.values():
        check_real(value, "weights", caller, allow_none=False)
    missing = [r for r in runs if r not in weights]
    extra = [r for r in weights if r not in runs]
    if missing or extra:
        msg = (
            f"The 'weights' parameter of {caller} must give one weight to each run and name "
            f"no other: runs without a weight {missing!r}, names that are not runs {extra!r}."
        )
        raise InvalidParameterError(msg)
    return [float(weights[r]) for r in runs]


class _Input:
    """The runs as one long frame: key columns, item, a Float64 score, the run's index."""

    def __init__(
        self,
        runs: object,
        *,
        by: object,
        item: object,
        y_score: object,
        run: object,
        caller: str,
    ) -> None:
        by_exprs = check_columns(by, "by", caller)
        item_expr = check_column(item, "item", caller)
        score_expr = check_column(y_score, "y_score", caller)
        run_expr = check_column(run, "run", caller)
        assert item_expr is not None
        assert score_expr is not None
        assert run_expr is not None
        self.keys: list[str] = names_of(by_exprs)
        [self.item, self.score, self.run] = names_of([item_expr, score_expr, run_expr])
        if len({*self.keys, self.item, self.score, self.run}) != len(self.keys) + 3:
            msg = (
                f"{caller}: the 'by', 'item', 'y_score' and 'run' columns must be distinct. "
                f"Got by={self.keys}, item={self.item!r}, y_score={self.score!r}, "
                f"run={self.run!r}."
            )
            raise InvalidParameterError(msg)
        roles = {"by": by_exprs, "item": [item_expr], "y_score": [score_expr]}
        if isinstance(runs, Mapping):
            if len(runs) == 0:
                msg = f"The 'runs' parameter of {caller} must hold at least one run. Got {{}}."
                raise InvalidParameterError(msg)
            parts = []
            lazy = False
            for name, frame in runs.items():
                source, was_lazy = check_frame(frame, f"runs[{name!r}]", caller)
                lazy = lazy or was_lazy
                schema = select_roles(source, roles, f"runs[{name!r}]", caller)
                check_score_dtype(schema, self.score, caller)
                parts.append(
                    source.select(*by_exprs, item_expr, score_expr.cast(pl.Float64)).with_columns(
                        pl.lit(name).alias(self.run)
                    )
                )
            self.frame = pl.concat(parts, how="vertical_relaxed")
            self.lazy = lazy
        else:
            source, self.lazy = check_frame(runs, "runs", caller)
            schema = select_roles(source, {**roles, "run": [run_expr]}, "runs", caller)
            check_score_dtype(schema, self.score, caller)
            self.frame = source.select(*by_exprs, item_expr, score_expr.cast(pl.Float64), run_expr)
        # one read of the columns: the runs in order of first appearance, whether a score
        # is null or NaN, and whether a (query, run, document) may repeat (fewer distinct
        # hashes than rows; only then the exact check below, which also names the row)
        row_key = pl.struct(*self.keys, self.run, self.item).hash()
        facts = self.frame.select(
            pl.col(self.run).unique(maintain_order=True).implode().alias("runs"),
            (pl.col(self.score).is_null() | pl.col(self.score).is_nan()).sum().alias("bad"),
            (pl.len() - row_key.n_unique()).alias("repeats"),
        ).collect()
        self.runs: list[object] = facts["runs"][0].to_list()
        if facts["bad"][0]:
            bad = (
                self.frame.filter(pl.col(self.score).is_null() | pl.col(self.score).is_nan())
                .head(1)
                .collect()
                .row(0, named=True)
            )
            where = {k: bad[k] for k in (*self.keys, self.run)}
            msg = f"{caller}: a score is null or NaN ({where}); every score must be a number."
            raise ValueError(msg)
        if None in self.runs:
            msg = f"{caller}: the run column {self.run!r} holds a null; every row needs a run."
            raise ValueError(msg)
        if facts["repeats"][0]:
            check_one_row_per_item(self.frame, [*self.keys, self.run], self.item, caller, "runs")


# ---------------------------------------------------------------------------
# the steps, as expressions


def _prepared(data: _Input, norm: str | None) -> pl.LazyFrame:
    """The long frame with the run's index, the score, the 0-based position and run length.

    The position is ranx's: the order of ``argsort(-score)``, equal scores in row order
    (what ranx's sort does on lists of up to 15 documents; past that its order of a tie
    is unspecified). After ``norm="min-max-inverted"`` ranx sorts each run again by the
    inverted score, so there the position is the order of the score ascending (equal
    scores still in row order: the second sort keeps the first's order of a tie).
    """
    per_run = [*data.keys, _R]
    index = pl.col(data.run).replace_strict(
        data.runs, list(range(len(data.runs))), return_dtype=pl.UInt32
    )
    return (
        data.frame.with_columns(index.alias(_R))
        .select(*data.keys, data.item, pl.col(data.score).alias(_S), _R)
        .with_columns(
            (pl.col(_S).rank("ordinal", descending=norm != "min-max-inverted").over(per_run) - 1)
            .cast(pl.Int64)
            .alias(_POS),
            pl.len().over(per_run).cast(pl.Int64).alias(_LEN),
        )
    )


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
        return fused_learned(
            frame, keys=keys, item=item, method=method, learned=learned, cols=(_R, _POS, _S, _FIRST)
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
        total = (pl.col(_W) * points if method == "w_bordafuse" else points).sum()
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
        value = s.sum()
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
        value = s.sum() / count
    elif method in ("mnz", "isr"):
        value = s.sum() * count
    elif method == "gmnz":
        value = s.sum() * count.pow(params["gamma"])
    elif method == "log_isr":
        value = s.sum() * count.log()
    elif method == "logn_isr":
        value = s.sum() * (count + params["sigma"]).log()
    elif method == "wsum":
        value = (w * s).sum()
    elif method == "wmnz":
        value = s.sum() * w.sum()
    else:
        assert method == "mixed"
        value = (s * w).sum() * count.sqrt()
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
        ``"posfuse"`` and ``"mapfuse"`` (docs/fusion.md).
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
    map_scores : mapping of run name to float, optional
        MAPFuse's learned MAP per run, required by ``method="mapfuse"``: what
        ``lp.optimize_fusion(qrels, runs, method="mapfuse")`` returns.

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
    params = _check_parameters(name, {"k": k, "phi": phi, "sigma": sigma, "gamma": gamma}, caller)
    if weights is not None and not isinstance(weights, Mapping):
        _check_weights(weights, name, [], caller)
    data = _Input(runs, by=by, item=item, y_score=y_score, run=run, caller=caller)
    run_weights = _check_weights(weights, name, data.runs, caller)
    learned = check_learned(name, {"probs": probs, "map_scores": map_scores}, data.runs, caller)
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


#: ranx's search grids per method: (parameter, first, last, default step)
_GRIDS: dict[str, tuple[str, float, float, float]] = {
    "rrf": ("k", 10, 100, 10),
    "rbc": ("phi", 0.01, 1.0, 0.01),
    "logn_isr": ("sigma", 0.01, 1.0, 0.01),
    "gmnz": ("gamma", 0.01, 1.0, 0.01),
}


def _weight_trials(step: float, n_runs: int) -> list[tuple[float, ...]]:
    """ranx's ``get_trial_configs``: weights on a grid of ``step`` whose Python sum is 1.0.

    The sum is Python's, left to right, compared with ``== 1.0``: as in ranx, a
    combination whose floating-point sum is not exactly 1.0 (0.1 + 0.2 + 0.7) is
    not tried.
    """
    digits = str(step)[::-1].find(".")
    grid = [round(float(x), digits) for x in np.arange(0, 1 + step, step)]
    return [seq for seq in itertools.product(*[grid] * n_runs) if sum(seq) == 1.0]


def _param_trials(method: str, step: float | None) -> tuple[str, list[float]]:
    name, low, high, default = _GRIDS[method]
    size = default if step is None else step
    if method == "rrf":
        return name, [float(v) for v in range(int(low), int(high) + 1, int(size))]
    digits = str(size)[::-1].find(".")
    return name, [round(float(x), digits) for x in np.arange(low, high + size, size)]


def optimize_fusion(
    qrels: Any,
    runs: Any,
    *,
    method: str,
    norm: str | None = "min-max",
    metric: str = "ndcg",
    by: str | pl.Expr | Sequence[str | pl.Expr],
    item: str | pl.Expr,
    y_score: str | pl.Expr,
    y_true: str | pl.Expr,
    run: str | pl.Expr = "run",
    step: float | None = None,
) -> dict[str, Any]:
    r"""Search a fusion's weights (or its parameter) on training queries, as ranx does.

    Parameters
    ----------
    qrels : polars.DataFrame, polars.LazyFrame or Arrow data
        The judgments of the training queries: ``by`` columns, ``item`` and ``y_true``
        (a relevance; 0 or below is not relevant).
    runs : polars.DataFrame, polars.LazyFrame, Arrow data, or a mapping of them
        The runs, as :func:`fuse` takes them.
    method : str
        A method with something to search: ``"wsum"``, ``"wmnz"``, ``"mixed"``,
        ``"w_bordafuse"``, ``"w_condorcet"`` (the weights), ``"rrf"`` (``k``),
        ``"rbc"`` (``phi``), ``"logn_isr"`` (``sigma``) or ``"gmnz"`` (``gamma``); or a
        learned method, trained on ``qrels``: ``"posfuse"`` (each run's probability of
        relevance per position) or ``"mapfuse"`` (each run's MAP), ``metric`` unused.
    norm : str or None, default "min-max"
        As in :func:`fuse`.
    metric : str, default "ndcg"
        The metric maximised, a ranx name :func:`lodestar_polars.evaluate` reads
        (``"ndcg@10"``, ``"map@100"``, ``"mrr"``, ...), averaged over the queries of
        ``qrels``, with ranx's rules: the fused order with equal scores in order of
        first appearance, the relevant count and NDCG's ideal from ``qrels``.
    by, item, y_score, run
        As in :func:`fuse`; ``by`` and ``item`` name the same columns in ``qrels``.
    y_true : str or polars.Expr
        The relevance column of ``qrels``.
    step : float, optional
        The grid's step: for the weights each run's weight runs over
        ``0, step, ..., 1`` and the weights must sum to 1 (ranx's default 0.1);
        ``k`` runs over 10..100 (default step 10), ``phi``, ``sigma``, ``gamma`` over
        0.01..1.0 (default step 0.01).

    Returns
    -------
    dict
        The best parameter as ranx returns it: ``{"weights": {run: weight, ...}}``,
        or ``{"k": 60}``, ``{"phi": ...}``, ``{"sigma": ...}``, ``{"gamma": ...}``;
        for the learned methods ``{"probs": {run: [p0, p1, ...]}}`` or
        ``{"map_scores": {run: map}}``. Pass it on: ``lp.fuse(runs, method=..., **best)``.
        Ties of the metric go to the last configuration tried, as in ranx
        (``score >= best_score``).

    Raises
    ------
    InvalidParameterError
        A method with nothing to search, an unknown ``norm`` or ``metric``, a ``step``
        that is not positive, a role that is not a column.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> runs = pl.DataFrame(
    ...     {
    ...         "run": ["a"] * 3 + ["b"] * 3,
    ...         "query": ["q1"] * 6,
    ...         "doc": ["d1", "d2", "d3", "d3", "d2", "d1"],
    ...         "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0],
    ...     }
    ... )
    >>> qrels = pl.DataFrame({"query": ["q1"], "doc": ["d3"], "rel": [1]})
    >>> lp.optimize_fusion(
    ...     qrels, runs, method="wsum", metric="mrr", by="query", item="doc",
    ...     y_score="score", y_true="rel",
    ... )
    {'weights': {'a': 0.4, 'b': 0.6}}

    After min-max, d3 scores ``w_b`` and d1 ``w_a``: d3 is first whenever ``w_b > 0.5``;
    of those trials, ranx's rule keeps the last one tried, (0.4, 0.6).
    """
    from lodestar_polars._evaluate.evaluate import evaluate
    from lodestar_polars._registry import resolve, unknown_metric_message

    caller = "optimize_fusion"
    name = _check_method(method, caller)
    if name not in WEIGHTED and name not in _GRIDS and name not in LEARNED:
        msg = (
            f"The 'method' parameter of {caller} must be a method with weights or a parameter "
            f"to search, or a learned one, one of {sorted(WEIGHTED | set(_GRIDS) | set(LEARNED))}. "
            f"Got {method!r} instead."
        )
        raise InvalidParameterError(msg)
    norm_name = _check_norm(norm, name, caller)
    resolved = resolve(metric) if isinstance(metric, str) else None
    if resolved is None:
        msg = f"The 'metric' parameter of {caller}: {unknown_metric_message(metric)}"
        raise InvalidParameterError(msg)
    judged_roles: dict[str, str] = {}
    if step is not None:
        value = check_real(step, "step", caller, allow_none=False)
        assert value is not None
        if value <= 0 or (name == "rrf" and value != int(value)):
            rule = "a positive int" if name == "rrf" else "a positive real number"
            msg = f"The 'step' parameter of {caller} must be {rule}. Got {step!r} instead."
            raise InvalidParameterError(msg)
    truth = check_column(y_true, "y_true", caller)
    assert truth is not None
    data = _Input(runs, by=by, item=item, y_score=y_score, run=run, caller=caller)
    judged_source, _ = check_frame(qrels, "qrels", caller)
    key_exprs = check_columns(by, "by", caller)
    item_expr = check_column(item, "item", caller)
    assert item_expr is not None
    select_roles(
        judged_source, {"by": key_exprs, "item": [item_expr], "y_true": [truth]}, "qrels", caller
    )
    keys, rel = data.keys, f"{_P}rel"
    judged = judged_source.select(*key_exprs, item_expr, truth.alias(rel)).collect()
    per_query = judged.group_by(keys).agg(
        (pl.col(rel) > 0).sum().alias(f"{_P}nrel"), pl.col(rel).alias(f"{_P}judged")
    )
    n_queries = per_query.height
    if resolved.spec.judged:
        judged_roles["n_relevant"] = f"{_P}nrel"
    if resolved.spec.judged_ideal:
        judged_roles["judged"] = f"{_P}judged"
    prepared = _prepared(data, norm_name).collect().lazy()
    if name in LEARNED:
        return train(
            prepared.collect(),
            method=name,
            keys=keys,
            item=data.item,
            runs=data.runs,
            judged=judged,
            rel=rel,
            per_query=per_query,
            cols=(_R, _POS),
        )
    if name in WEIGHTED:
        label = "weights"
        trials: list[Any] = _weight_trials(0.1 if step is None else float(step), len(data.runs))
    else:
        label, trials = _param_trials(name, step)
    best: Any = None
    best_score = 0.0
    for trial in trials:
        weights = list(trial) if name in WEIGHTED else None
        params = {} if name in WEIGHTED else {label: trial}
        fused = _ordered(
            _fused(
                prepared,
                keys=keys,
                item=data.item,
                method=name,
                norm=norm_name,
                n_runs=len(data.runs),
                weights=weights,
                params=params,
            ),
            keys,
            data.item,
            data.score,
        ).collect()
        frame = (
            fused.join(judged, on=[*keys, data.item], how="left", maintain_order="left")
            .with_columns(pl.col(rel).fill_null(0))
            .join(per_query, on=keys, how="inner", maintain_order="left")
        )
        scores = evaluate(  # type: ignore[call-overload]
            frame,
            [metric],
            by=keys,
            y_true=rel,
            y_score=data.score,
            ties="input",
            strict=False,
            **judged_roles,
        )
        score = float(scores[metric].fill_null(0.0).sum()) / n_queries if n_queries else 0.0
        if score >= best_score:
            best_score, best = score, trial
    if name in WEIGHTED:
        return {"weights": dict(zip(data.runs, best, strict=True))}
    value = int(best) if name == "rrf" else best
    return {label: value}


__all__ = ["fuse", "optimize_fusion"]
