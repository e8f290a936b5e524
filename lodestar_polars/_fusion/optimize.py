"""lp.optimize_fusion: ranx's weight and parameter search on training queries."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, Literal, overload

import numpy as np
import polars as pl

from lodestar_polars._base.validation import (
    check_bool,
    check_column,
    check_columns,
    check_frame,
    check_real,
    select_roles,
)
from lodestar_polars._fusion.fusion import _fused, _ordered
from lodestar_polars._fusion.inputs import (
    _LEN,
    _P,
    _POS,
    _R,
    WEIGHTED,
    _check_method,
    _check_norm,
    _Input,
    _prepared,
)
from lodestar_polars._fusion.learned import LEARNED, train
from lodestar_polars._fusion.segmented import N_SEGMENTS, probfuse_train
from lodestar_polars.exceptions import InvalidParameterError

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


@overload
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
    report: Literal[False] = False,
) -> dict[str, Any]: ...


@overload
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
    report: Literal[True],
) -> tuple[dict[str, Any], pl.DataFrame]: ...


@overload
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
    report: bool,
) -> dict[str, Any] | tuple[dict[str, Any], pl.DataFrame]: ...


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
    report: bool = False,
) -> dict[str, Any] | tuple[dict[str, Any], pl.DataFrame]:
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
        relevance per position) or ``"mapfuse"`` (each run's MAP), ``metric`` unused, or
        ``"probfuse"`` (each run's probability per segment, the number of segments
        searched over 1..100 for the best ``metric``; ``step`` unused), ``"segfuse"``
        (ranx's ten fixed segments), ``"slidefuse"`` (posfuse's probabilities and the
        window ``w``, searched over 1..100) or ``"bayesfuse"`` (log-odds per position).
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
    report : bool, default False
        Also return ranx's optimization report (``return_optimization_report=True``):
        every configuration tried, in ranx's order, with its ``metric``, as a
        :class:`polars.DataFrame`: one Float64 column per run (named by the run) holding
        its weight, or the parameter (``k``, ``phi``, ``sigma``, ``gamma``; ``n_segments``
        for probfuse, ``w`` for slidefuse), then a Float64 column named ``metric``. Not for
        posfuse, mapfuse, segfuse or bayesfuse, which ranx trains without a search.

    Returns
    -------
    dict
        The best parameter as ranx returns it: ``{"weights": {run: weight, ...}}``,
        or ``{"k": 60}``, ``{"phi": ...}``, ``{"sigma": ...}``, ``{"gamma": ...}``;
        for the learned methods ``{"probs": {run: [p0, p1, ...]}}`` (posfuse, probfuse, segfuse;
        slidefuse adds ``"w"``), ``{"log_odds": {run: [...]}}`` (bayesfuse) or
        ``{"map_scores": {run: map}}``. Pass it on: ``lp.fuse(runs, method=..., **best)``.
        Ties of the metric go to the last configuration tried, as in ranx
        (``score >= best_score``).
        With ``report=True``, the tuple ``(best, report)``.

    Raises
    ------
    InvalidParameterError
        A method with nothing to search, an unknown ``norm`` or ``metric``, a ``step``
        that is not positive, a role that is not a column, ``report`` not a bool or
        asked of a method without a search, a run named as the report's metric column.

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
    want_report = check_bool(report, "report", caller)
    if want_report and name in LEARNED and name not in _SEARCHED:
        msg = (
            f"The 'report' parameter of {caller}: {name!r} is trained without a search, so "
            f"there is no report (ranx has none either); report=True takes one of "
            f"{sorted(WEIGHTED | set(_GRIDS) | _SEARCHED)}. Got method={method!r}."
        )
        raise InvalidParameterError(msg)
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
    slide: dict[str, Any] | None = None
    if name == "slidefuse":
        slide = train(
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
    elif name in LEARNED and name != "probfuse":
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
    rows: pl.DataFrame | None = None
    trials: list[Any]
    if name == "probfuse":
        label, trials = "probs", list(N_SEGMENTS)
        rows = (
            prepared.join(per_query.lazy().select(keys), on=keys, how="semi")
            .join(judged.lazy().select(*keys, data.item, rel), on=[*keys, data.item], how="left")
            .collect()
        )
    elif slide is not None:
        label, trials = "w", list(range(1, 101))
    elif name in WEIGHTED:
        label = "weights"
        trials = _weight_trials(0.1 if step is None else float(step), len(data.runs))
    else:
        label, trials = _param_trials(name, step)
    if name in WEIGHTED and want_report:
        _check_report_names(data.runs, metric, caller)
    trials = list(dict.fromkeys(trials))  # ranx's report is a dict: a repeated trial once
    tried: list[float] = []
    best: Any = None
    best_score = 0.0
    trial: Any
    for trial in trials:
        weights = list(trial) if name in WEIGHTED else None
        params = {} if name in WEIGHTED or rows is not None else {label: trial}
        learned = None
        if slide is not None:
            learned = [list(slide["probs"][r]) for r in data.runs]
        elif rows is not None:
            learned = probfuse_train(
                rows,
                keys=keys,
                n_runs=len(data.runs),
                n_queries=n_queries,
                n_segments=trial,
                hit=(pl.col(rel).fill_null(0) > 0).cast(pl.Float64),
                cols=(_R, _POS, _LEN),
            )
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
                learned=learned,
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
        tried.append(score)
        if score >= best_score:
            best_score, best = score, (trial if learned is None or slide else learned)
    found: dict[str, Any]
    if rows is not None:
        found = {"probs": dict(zip(data.runs, best, strict=True))}
    elif slide is not None:
        found = {"probs": slide["probs"], "w": int(best)}
    elif name in WEIGHTED:
        found = {"weights": dict(zip(data.runs, best, strict=True))}
    else:
        found = {label: int(best) if name == "rrf" else best}
    if not want_report:
        return found
    return found, _report_frame(name, trials, tried, runs=data.runs, metric=metric, label=label)


#: the learned methods whose training searches a parameter, and so have a report in ranx
_SEARCHED = {"probfuse", "slidefuse"}


def _check_report_names(runs: Sequence[object], metric: str, caller: str) -> None:
    """The report's columns, one per run and the metric's, need distinct names."""
    names = [str(r) for r in runs]
    if len(set(names)) != len(names) or metric in names:
        msg = (
            f"The 'report' parameter of {caller}: the report has a column per run and one "
            f"named {metric!r} (the metric), so their names must be distinct. Got runs "
            f"{names}."
        )
        raise InvalidParameterError(msg)


def _report_frame(
    method: str,
    trials: Sequence[Any],
    scores: Sequence[float],
    *,
    runs: Sequence[object],
    metric: str,
    label: str,
) -> pl.DataFrame:
    """ranx's optimization report as a frame: a row per configuration, in the order tried."""
    columns: dict[str, pl.Series] = {}
    if method in WEIGHTED:
        for j, r in enumerate(runs):
            columns[str(r)] = pl.Series(str(r), [float(t[j]) for t in trials], pl.Float64)
    else:
        param = "n_segments" if method == "probfuse" else label
        integer = method in {"rrf", "probfuse", "slidefuse"}
        columns[param] = pl.Series(
            param,
            [int(t) if integer else float(t) for t in trials],
            pl.Int64 if integer else pl.Float64,
        )
    columns[metric] = pl.Series(metric, list(scores), pl.Float64)
    return pl.DataFrame(list(columns.values()))


__all__ = ["optimize_fusion"]
