#!/usr/bin/env python
"""lodestar_polars benchmark suite: one command, every tool on the same generated frames.

    python bench/run.py            # default sizes, ~10 minutes on 2 cores
    python bench/run.py --quick    # tiny sizes, one repetition, under a minute

See bench/README.md for what is timed, how, and what the flags do.  The results go to
the generated section of docs/performance.md (between ``<!-- bench:start -->`` and
``<!-- bench:end -->``) and to docs/performance_rows.png.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import data as gen  # noqa: E402
import newer  # noqa: E402

START, END = "<!-- bench:start -->", "<!-- bench:end -->"
REL_TOL = 1e-9
CACHE_HOME = (
    Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "lodestar_polars_bench"
)

TOOLS = [
    "floor",
    "agg",
    "evaluate",
    "by hand",
    "sklearn",
    "pytrec_eval",
    "ranx warm",
    "ranx cold",
    "polars-ds",
]
PEERS = ["by hand", "sklearn", "pytrec_eval", "ranx warm", "ranx cold", "polars-ds"]
TIE_RULE_TOOLS = ("by hand", "pytrec_eval", "ranx warm", "ranx cold")  # break ties, not average


def ndcg_by_hand(rel: str, score: str, k: int) -> pl.Expr:
    """NDCG@k as a Polars user writes it by hand, for ``group_by().agg()``: no tie averaging.

    The rows sorted by score, the first ``k`` relevances times log2 discounts, over
    the same for the relevances sorted by themselves; equal scores are ranked in
    whatever order the sort leaves them, there are no checks, and a group with
    nothing relevant divides 0 by 0.
    """
    discount = 1.0 / (pl.int_range(pl.len().clip(upper_bound=k)) + 2).log(2)
    dcg = (pl.col(rel).sort_by(score, descending=True).head(k) * discount).sum()
    ideal = (pl.col(rel).sort(descending=True).head(k) * discount).sum()
    return dcg / ideal


# --------------------------------------------------------------------------- timing


def best_of(fn: Callable[[], Any], reps: int, budget: float) -> tuple[float, Any]:
    """Best wall time of up to ``reps`` calls (fewer once ``budget`` seconds are spent).

    As ``timeit`` does, garbage is collected before each call and the collector is
    off during it.  Returns (seconds, the last call's result).
    """
    times: list[float] = []
    result = None
    for _ in range(max(1, reps)):
        result = None
        gc.collect()
        gc.disable()
        try:
            t0 = time.perf_counter()
            result = fn()
            times.append(time.perf_counter() - t0)
        finally:
            gc.enable()
        if sum(times) > budget:
            break
    return min(times), result


def log(msg: str) -> None:
    """Print a line at once."""
    print(msg, flush=True)


def close(a: float, b: float) -> bool:
    """Equal within the relative tolerance ``REL_TOL``."""
    return abs(a - b) <= REL_TOL * max(abs(a), abs(b), 1e-300)


# --------------------------------------------------------------------------- peers' structures


def nested_dicts(frame: pl.DataFrame, group: str, item: str, value: str) -> dict:
    """``{group: {item: value}}`` with string ids, as pytrec_eval and ranx take them."""
    grouped = (
        frame.select(pl.col(group).cast(pl.String), pl.col(item).cast(pl.String), pl.col(value))
        .group_by(group)
        .agg(pl.col(item), pl.col(value))
    )
    return {g: dict(zip(items, values, strict=True)) for g, items, values in grouped.iter_rows()}


# --------------------------------------------------------------------------- ranx worker
# ranx runs in a subprocess per shape, so that "cold" is a first call in a fresh
# process whose numba cache holds ranx's structure builders but none of its metric
# kernels.  The worker prints one JSON line.


def ranx_worker(args: argparse.Namespace) -> None:
    """The ranx subprocess: build Qrels/Run for each frame, time each metric, print JSON."""
    warnings.simplefilter("ignore")
    from ranx import Qrels, Run, evaluate

    if args.ranx_worker == "warmup":
        qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 2, "d3": 1}}
        run = {"q1": {"d1": 0.5, "d2": 0.2}, "q2": {"d1": 0.1, "d3": 0.9}}
        q, r = Qrels.from_dict(qrels), Run.from_dict(run)
        q.to_typed_list(), r.to_typed_list()
        print(json.dumps({"ok": True}))
        return
    results = {}
    for path in args.ranx_worker.split(","):
        out: dict[str, Any] = {}
        frame = pl.read_parquet(path)
        t0 = time.perf_counter()
        qrels = nested_dicts(frame, "query", "doc", "rel")
        run = nested_dicts(frame, "query", "doc", "score")
        t1 = time.perf_counter()
        q, r = Qrels.from_dict(qrels), Run.from_dict(run)
        q.to_typed_list(), r.to_typed_list()  # compiles (or loads) the conversion once
        t2 = time.perf_counter()
        out["build_dicts"] = t1 - t0
        out["build"] = t2 - t1
        del qrels, run, frame
        for metric in args.ranx_metrics.split(","):
            call = lambda m=metric, q=q, r=r: evaluate(q, r, m, save_results_in_run=False)  # noqa: E731
            if args.ranx_cold:
                gc.collect()
                t0 = time.perf_counter()
                call()
                out[f"{metric} cold"] = time.perf_counter() - t0
            else:
                call()  # load the metric's kernels from the cache before timing "warm"
            seconds, mean = best_of(call, args.reps, args.budget)
            out[f"{metric} warm"] = seconds
            out[f"{metric} mean"] = float(mean)
        results[path] = out
    print(json.dumps(results))


def run_ranx(paths: list[str], metrics: list[str], cfg: Config) -> dict[str, Any]:
    """Time ranx on the frames at ``paths`` in one fresh subprocess.

    With ``cfg.ranx_cold`` the subprocess starts from a copy of the builders-only numba
    cache, so each metric's first call compiles its kernels; call it once per frame
    then.  Returns the worker's JSON, ``{path: {...}}``, or ``{"error": ...}``.
    """
    with tempfile.TemporaryDirectory(prefix="lodestar_bench_numba_") as tmp:
        env = dict(os.environ)
        if cfg.ranx_cold:
            cache = Path(tmp) / "numba"
            shutil.copytree(cfg.ranx_builder_cache, cache)
        else:
            cache = CACHE_HOME / "numba-full"
            cache.mkdir(parents=True, exist_ok=True)
        env["NUMBA_CACHE_DIR"] = str(cache)
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--ranx-worker",
            ",".join(paths),
            "--ranx-metrics",
            ",".join(metrics),
            "--reps",
            str(cfg.reps),
            "--budget",
            str(cfg.budget),
            *(["--ranx-cold"] if cfg.ranx_cold else []),
        ]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:]
        return {"error": tail[0] if tail else f"exit {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def prepare_ranx_builder_cache() -> Path:
    """A numba cache holding ranx's Qrels/Run builders only (compiled once, kept)."""
    cache = CACHE_HOME / "numba-builders"
    cache.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--ranx-worker", "warmup"]
    subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return cache


# --------------------------------------------------------------------------- shapes and metrics


@dataclass
class Config:
    """What to run and how often."""

    scale: float
    reps: int
    budget: float
    sklearn_budget: float
    ranx: bool
    ranx_cold: bool
    pytrec: bool
    ranx_builder_cache: Path | None = None
    metrics: tuple[str, ...] = ()  # only these metric keys (empty: all)


@dataclass
class Shape:
    """A generated frame and how to describe it."""

    key: str
    title: str
    kind: str  # "ranking" or "labels"
    make: Callable[[float], pl.DataFrame]
    rectangular: bool
    ties: bool


SHAPES: dict[str, Shape] = {
    s.key: s
    for s in [
        Shape(
            "small",
            "many small queries: 200k queries x 10 docs, continuous scores",
            "ranking",
            lambda sc: gen.rectangular(max(2, int(200_000 * sc)), 10, seed=1),
            True,
            False,
        ),
        Shape(
            "small_sorted",
            "many small queries, query-sorted rows: `small`, rows ordered by query",
            "ranking",
            lambda sc: gen.query_sorted(gen.rectangular(max(2, int(200_000 * sc)), 10, seed=1)),
            True,
            False,
        ),
        Shape(
            "small_ties",
            "many small queries, heavy ties: 200k queries x 10 docs, scores from 5 values",
            "ranking",
            lambda sc: gen.rectangular(max(2, int(200_000 * sc)), 10, ties=True, seed=1),
            True,
            True,
        ),
        Shape(
            "long",
            "long queries: 5k queries x 200 docs, continuous scores",
            "ranking",
            lambda sc: gen.rectangular(max(2, int(5_000 * sc)), 200, seed=2),
            True,
            False,
        ),
        Shape(
            "long_sorted",
            "long queries, query-sorted rows: `long`, rows ordered by query",
            "ranking",
            lambda sc: gen.query_sorted(gen.rectangular(max(2, int(5_000 * sc)), 200, seed=2)),
            True,
            False,
        ),
        Shape(
            "long_ties",
            "long queries, heavy ties: 5k queries x 200 docs, scores from 5 values",
            "ranking",
            lambda sc: gen.rectangular(max(2, int(5_000 * sc)), 200, ties=True, seed=2),
            True,
            True,
        ),
        Shape(
            "zipf",
            "skewed lengths: Zipf(1.5) docs per query (2..5000), ~1M rows, continuous scores",
            "ranking",
            lambda sc: gen.zipf(max(1_000, int(1_000_000 * sc)), seed=3),
            False,
            False,
        ),
        Shape(
            "labels",
            "multilabel: 100k samples x 50 labels (several true; one true class for top-k)",
            "labels",
            lambda sc: gen.labels(max(2, int(100_000 * sc)), 50, seed=4),
            True,
            False,
        ),
    ]
}
DEFAULT_SHAPES = [
    "small",
    "small_sorted",
    "small_ties",
    "long",
    "long_sorted",
    "long_ties",
    "zipf",
    "labels",
]


@dataclass
class Metric:
    """One metric: lodestar_polars' expression and name, and each peer's way to it."""

    key: str
    label: str
    y: str
    expr: Callable[[], pl.Expr]
    eval_name: str
    sklearn: Callable[[dict[str, np.ndarray]], float] | None = None
    pytrec: str | None = None  # measure, result key
    pytrec_key: str | None = None
    pytrec_ref: Callable[[], pl.Expr] | None = None  # lp's own number for pytrec's measure
    ranx: str | None = None
    pds: bool = False
    by_hand: Callable[[], pl.Expr] | None = None  # the same metric in plain Polars expressions


def ranking_metrics() -> list[Metric]:
    """NDCG@10, MRR@10 and AP, with their peers."""
    from sklearn.metrics import average_precision_score, ndcg_score

    import lodestar_polars as lp

    return [
        Metric(
            "ndcg@10",
            "NDCG@10",
            "rel",
            lambda: lp.ndcg("rel", "score", k=10),
            "ndcg@10",
            sklearn=lambda m: ndcg_score(m["rel"], m["score"], k=10),
            pytrec="ndcg_cut.10",
            pytrec_key="ndcg_cut_10",
            ranx="ndcg@10",
            pds=True,
            by_hand=lambda: ndcg_by_hand("rel", "score", 10),
        ),
        Metric(
            "mrr@10",
            "MRR@10",
            "rel",
            lambda: lp.reciprocal_rank("rel", "score", k=10),
            "rr@10",
            pytrec="recip_rank",
            pytrec_key="recip_rank",
            pytrec_ref=lambda: lp.reciprocal_rank("rel", "score"),
            ranx="mrr@10",
        ),
        Metric(
            "ap",
            "AP",
            "binrel",
            lambda: lp.average_precision("binrel", "score"),
            "ap",
            sklearn=lambda m: average_precision_score(m["binrel"], m["score"], average="samples"),
            pytrec="map",
            pytrec_key="map",
            ranx="map",
        ),
    ]


def label_metrics() -> list[Metric]:
    """Coverage error, LRAP, label ranking loss and top-5 accuracy, with scikit-learn."""
    from sklearn.metrics import (
        coverage_error,
        label_ranking_average_precision_score,
        label_ranking_loss,
        top_k_accuracy_score,
    )

    import lodestar_polars as lp

    def top5(m: dict[str, np.ndarray]) -> float:
        n_labels = m["score"].shape[1]
        return top_k_accuracy_score(
            m["onehot"].argmax(axis=1), m["score"], k=5, labels=np.arange(n_labels)
        )

    return [
        Metric(
            "coverage",
            "coverage error",
            "truth",
            lambda: lp.coverage_error("truth", "score"),
            "coverage_error",
            sklearn=lambda m: coverage_error(m["truth"], m["score"]),
        ),
        Metric(
            "lrap",
            "LRAP",
            "truth",
            lambda: lp.label_ranking_average_precision("truth", "score"),
            "lrap",
            sklearn=lambda m: label_ranking_average_precision_score(m["truth"], m["score"]),
        ),
        Metric(
            "lrl",
            "label ranking loss",
            "truth",
            lambda: lp.label_ranking_loss("truth", "score"),
            "label_ranking_loss",
            sklearn=lambda m: label_ranking_loss(m["truth"], m["score"]),
        ),
        Metric(
            "top5",
            "top-5 accuracy",
            "onehot",
            lambda: lp.top_k_accuracy("onehot", "score", k=5),
            "top_k_accuracy@5",
            sklearn=top5,
        ),
    ]


# --------------------------------------------------------------------------- one shape


@dataclass
class Cell:
    """One tool's time and number for one (shape, metric)."""

    seconds: float | None = None
    mean: float | None = None
    status: str = "n/a"  # agrees / differs (tie rule) / DIFFERS / n/a / fails: ...
    note: str = ""
    approx: bool = False  # extrapolated from a subset
    build: float | None = None  # seconds to build the tool's structures from the frame


@dataclass
class ShapeResult:
    """Every cell of one shape, and the peers' build times."""

    shape: Shape
    rows: int
    groups: int
    floor: float
    cells: dict[str, dict[str, Cell]] = field(default_factory=dict)  # metric -> tool -> cell
    labels: dict[str, str] = field(default_factory=dict)
    builds: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    pytrec_refs: dict[str, pl.DataFrame] = field(default_factory=dict)


def judge(cell: Cell, ref: float, tool: str, *, ties: bool) -> None:
    """Mark ``cell`` agrees / differs (tie rule) / DIFFERS against lodestar_polars' mean."""
    if cell.mean is None:
        return
    if close(cell.mean, ref):
        cell.status = "agrees"
    elif ties and tool in TIE_RULE_TOOLS:
        cell.status = "differs (tie rule)"
    else:
        cell.status = "DIFFERS"
        cell.note = f"{cell.mean!r} vs lodestar_polars {ref!r}"


def run_sklearn(
    fn: Callable[[dict[str, np.ndarray]], float],
    mats: dict[str, np.ndarray],
    cfg: Config,
) -> tuple[float, float, int]:
    """Time scikit-learn on all rows, or on the leading rows scaled linearly.

    The leading rows are used when the whole matrix would take more than
    ``cfg.sklearn_budget`` seconds (its ranking metrics loop over rows in Python, so the
    time is linear in rows).  Returns (seconds for all rows, the mean over the rows run,
    rows run).
    """
    n = next(iter(mats.values())).shape[0]
    probe = min(n, 500)
    t0 = time.perf_counter()
    fn({k: v[:probe] for k, v in mats.items()})
    estimate = (time.perf_counter() - t0) * n / probe
    m = n if estimate <= cfg.sklearn_budget else max(probe, int(n * cfg.sklearn_budget / estimate))
    sub = mats if m == n else {k: v[:m] for k, v in mats.items()}
    seconds, mean = best_of(lambda: fn(sub), cfg.reps, cfg.budget)
    return seconds * n / m, float(mean), m


def bench_shape(shape: Shape, cfg: Config) -> tuple[ShapeResult, pl.DataFrame]:
    """Time the floor, lodestar_polars, scikit-learn, polars-ds, pytrec_eval on one shape."""
    import lodestar_polars as lp

    kind_ranking = shape.kind == "ranking"
    group, item = ("query", "doc") if kind_ranking else ("sample", "label")
    metrics = ranking_metrics() if kind_ranking else label_metrics()
    if cfg.metrics:
        metrics = [m for m in metrics if m.key in cfg.metrics]
    t0 = time.perf_counter()
    frame = shape.make(cfg.scale)
    n_groups = frame[group].n_unique()
    log(
        f"\n== {shape.key}: {frame.height:,} rows, {n_groups:,} groups "
        f"(generated in {time.perf_counter() - t0:.1f} s)"
    )

    floor, _ = best_of(
        lambda: frame.sort([group, "score"], descending=[False, True]), cfg.reps, cfg.budget
    )
    log(f"  floor (sort by {group}, score desc): {floor:.3f} s")
    res = ShapeResult(shape, frame.height, n_groups, floor)

    mats = None
    if shape.rectangular:
        t0 = time.perf_counter()
        cols = ["rel", "binrel", "score"] if kind_ranking else ["truth", "onehot", "score"]
        mats = gen.dense(frame, group, item, cols)
        res.builds["sklearn dense matrices"] = time.perf_counter() - t0

    for m in metrics:
        res.labels[m.key] = m.label
        cells: dict[str, Cell] = {t: Cell() for t in TOOLS[1:]}
        res.cells[m.key] = cells
        secs, agg = best_of(
            lambda m=m: frame.group_by(group).agg(m.expr().alias("v")), cfg.reps, cfg.budget
        )
        values = agg.sort(group)["v"]
        ref = float(values.mean())
        cells["agg"] = Cell(secs, ref, "reference")
        secs, ev = best_of(
            lambda m=m: lp.evaluate(frame, [m.eval_name], by=group, y_true=m.y, y_score="score"),
            cfg.reps,
            cfg.budget,
        )
        cells["evaluate"] = Cell(secs, float(ev[m.eval_name].mean()))
        judge(cells["evaluate"], ref, "evaluate", ties=shape.ties)
        log(
            f"  {m.label}: agg {cells['agg'].seconds:.3f} s, evaluate {secs:.3f} s "
            f"[{cells['evaluate'].status}], mean {ref:.12g}"
        )

        if m.by_hand is not None:
            secs, out = best_of(
                lambda m=m: frame.group_by(group).agg(m.by_hand().alias("v")),
                cfg.reps,
                cfg.budget,
            )
            cell = Cell(secs, float(out["v"].mean()))
            judge(cell, ref, "by hand", ties=shape.ties)
            cells["by hand"] = cell
            log(f"  {m.label}: by hand {secs:.3f} s [{cell.status}]")
        else:
            cells["by hand"].note = "no hand-written expression timed"

        if m.sklearn is not None and mats is not None:
            try:
                secs, mean, used = run_sklearn(m.sklearn, mats, cfg)
                cell = Cell(secs, mean, approx=used < n_groups)
                cell.build = res.builds["sklearn dense matrices"]
                sub_ref = ref if used == n_groups else float(values[:used].mean())
                judge(cell, sub_ref, "sklearn", ties=shape.ties)
                if cell.approx:
                    cell.note = (cell.note + "; " if cell.note else "") + (
                        f"timed on the first {used:,} of {n_groups:,} rows, scaled linearly"
                    )
                cells["sklearn"] = cell
                log(
                    f"  {m.label}: sklearn {secs:.3f} s{' (extrapolated)' if cell.approx else ''}"
                    f" [{cell.status}]"
                )
            except Exception as e:  # noqa: BLE001
                cells["sklearn"] = Cell(status=f"fails: {type(e).__name__}: {e}")
        elif m.sklearn is not None:
            cells["sklearn"].note = "ragged: no dense matrix"
        else:
            cells["sklearn"].note = "no scikit-learn function"

        if m.pds:
            try:
                import polars_ds as pds

                secs, out = best_of(
                    lambda: frame.group_by(group).agg(
                        pds.query_ndcg_score("rel", "score", k=10).alias("v")
                    ),
                    cfg.reps,
                    cfg.budget,
                )
                cell = Cell(secs, float(out["v"].mean()))
                judge(cell, ref, "polars-ds", ties=shape.ties)
                cells["polars-ds"] = cell
            except Exception as e:  # noqa: BLE001
                msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
                cells["polars-ds"] = Cell(status=f"fails: {type(e).__name__}: {msg}")
            log(f"  {m.label}: polars-ds {cells['polars-ds'].status}")
        if m.pytrec is not None:
            # per-group reference for pytrec_eval (without the cutoff it lacks, for MRR)
            res.pytrec_refs[m.key] = (
                agg.select(group, "v")
                if m.pytrec_ref is None
                else frame.group_by(group).agg(m.pytrec_ref().alias("v"))
            )

    if kind_ranking and cfg.pytrec:
        bench_pytrec(frame, metrics, res, cfg)
    res.pytrec_refs.clear()
    return res, frame


def bench_pytrec(frame: pl.DataFrame, metrics: list[Metric], res: ShapeResult, cfg: Config) -> None:
    """Time pytrec_eval on a ranking shape, one evaluator per measure."""
    import pytrec_eval

    t0 = time.perf_counter()
    qrels = nested_dicts(frame, "query", "doc", "rel")
    run = nested_dicts(frame, "query", "doc", "score")
    dicts = res.builds["pytrec_eval dicts"] = time.perf_counter() - t0
    build = 0.0
    f32_tied = None
    for m in metrics:
        cells = res.cells[m.key]
        if m.pytrec is None:
            continue
        t0 = time.perf_counter()
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {m.pytrec})
        own = time.perf_counter() - t0
        build += own
        secs, out = best_of(lambda ev=evaluator: ev.evaluate(run), cfg.reps, cfg.budget)
        got = pl.DataFrame(
            {"query": [int(q) for q in out], "pt": [v[m.pytrec_key] for v in out.values()]},
            schema={"query": frame.schema["query"], "pt": pl.Float64},
        )
        both = res.pytrec_refs[m.key].join(got, on="query", how="left")
        cell = Cell(secs, float(both["pt"].mean()), build=dicts + own)
        judge(cell, float(both["v"].mean()), "pytrec_eval", ties=res.shape.ties)
        notes = []
        if m.pytrec_ref is not None:
            notes.append("recip_rank has no cutoff: compared with lp.reciprocal_rank without k")
        if cell.status == "DIFFERS" and f32_tied is None:
            # trec_eval keeps scores as C floats: scores distinct in Float64 can tie in
            # Float32, and it breaks those ties by document id
            f32_tied = frame.group_by("query").agg(
                (pl.col("score").n_unique() > pl.col("score").cast(pl.Float32).n_unique()).alias(
                    "f32"
                )
            )
        if cell.status == "DIFFERS" and f32_tied["f32"].any():
            rest = both.join(f32_tied, on="query").filter(~pl.col("f32"))
            if close(float(rest["pt"].mean()), float(rest["v"].mean())):
                n = int(f32_tied["f32"].sum())
                cell.status = "differs (tie rule)"
                notes = [
                    *notes[:1],
                    (
                        f"pytrec_eval keeps scores as float32: {n} of {f32_tied.height:,} queries "
                        "hold scores that differ in float64 but tie in float32 (it breaks those "
                        "ties by document id); on the other queries it agrees "
                        f"(mean {rest['pt'].mean()!r})"
                    ),
                ]
        if cell.note and cell.status == "DIFFERS":
            notes.append(cell.note)
        elif cell.status == "differs (tie rule)":
            notes.append(f"all queries: {cell.mean!r} vs lodestar_polars {both['v'].mean()!r}")
        cell.note = "; ".join(notes)
        cells["pytrec_eval"] = cell
        log(f"  {m.label}: pytrec_eval {secs:.3f} s [{cell.status}]")
    res.builds["pytrec_eval RelevanceEvaluator"] = build


def fill_ranx(res: ShapeResult, metrics: list[Metric], out: dict[str, Any]) -> None:
    """Put the ranx worker's output for one shape into its cells."""
    if "error" in out:
        for m in metrics:
            if m.ranx:
                res.cells[m.key]["ranx warm"] = Cell(status=f"fails: {out['error']}")
        log(f"  {res.shape.key}: ranx fails: {out['error']}")
        return
    res.builds["ranx dicts"] = out["build_dicts"]
    res.builds["ranx Qrels+Run"] = out["build"]
    for m in metrics:
        if not m.ranx:
            continue
        cells = res.cells[m.key]
        ref = cells["agg"].mean
        built = out["build_dicts"] + out["build"]
        warm = Cell(out[f"{m.ranx} warm"], out[f"{m.ranx} mean"], build=built)
        judge(warm, ref, "ranx warm", ties=res.shape.ties)
        cells["ranx warm"] = warm
        if f"{m.ranx} cold" in out:
            cold = Cell(
                out[f"{m.ranx} cold"], out[f"{m.ranx} mean"], warm.status, warm.note, build=built
            )
            cells["ranx cold"] = cold
        else:
            cells["ranx cold"] = Cell(note="not measured (--quick or --no-ranx-cold)")
        cold_s = cells["ranx cold"].seconds
        log(
            f"  {res.shape.key} {m.label}: ranx warm {warm.seconds:.3f} s, cold "
            f"{'-' if cold_s is None else f'{cold_s:.3f} s'} [{warm.status}]"
        )


def bench_ranx(pending: list[tuple[ShapeResult, pl.DataFrame]], cfg: Config) -> None:
    """Time ranx on every ranking shape.

    One subprocess per shape when timing cold calls (each must compile afresh), else one
    for all.
    """
    if not pending:
        return
    metrics = [m for m in ranking_metrics() if not cfg.metrics or m.key in cfg.metrics]
    names = [m.ranx for m in metrics if m.ranx]
    log("\n== ranx" + (" (a fresh process per shape, cold then warm)" if cfg.ranx_cold else ""))
    with tempfile.TemporaryDirectory(prefix="lodestar_bench_") as tmp:
        paths = []
        for res, frame in pending:
            path = str(Path(tmp) / f"{res.shape.key}.parquet")
            frame.select("query", "doc", "rel", "score").write_parquet(path)
            paths.append(path)
        batches = [[p] for p in paths] if cfg.ranx_cold else [paths]
        outs: dict[str, Any] = {}
        for batch in batches:
            t0 = time.perf_counter()
            out = run_ranx(batch, names, cfg)
            log(f"  ranx process: {time.perf_counter() - t0:.1f} s")
            for p in batch:
                outs[p] = out if "error" in out else out[p]
        for (res, _), path in zip(pending, paths, strict=True):
            fill_ranx(res, metrics, outs[path])


# --------------------------------------------------------------------------- scaling


def bench_scaling(cfg: Config, max_rows: float, *, quick: bool) -> dict[str, list]:
    """Floor, agg and evaluate for NDCG@10 as rows grow, then as queries grow at fixed rows."""
    import lodestar_polars as lp

    def time_three(frame: pl.DataFrame) -> dict[str, float]:
        out = {}
        out["floor"], _ = best_of(
            lambda: frame.sort(["query", "score"], descending=[False, True]), cfg.reps, cfg.budget
        )
        out["agg"], _ = best_of(
            lambda: frame.group_by("query").agg(lp.ndcg("rel", "score", k=10)), cfg.reps, cfg.budget
        )
        out["evaluate"], _ = best_of(
            lambda: lp.evaluate(frame, ["ndcg@10"], by="query", y_true="rel", y_score="score"),
            cfg.reps,
            cfg.budget,
        )
        return out

    lo = 1e4 if quick else 1e5
    steps = [lo * 10 ** (i / 2) for i in range(0, 13)]
    rows_list = [int(round(r)) for r in steps if r <= max_rows * 1.0001]
    series: dict[str, list] = {"rows": [], "floor": [], "agg": [], "evaluate": []}
    log("\n== scaling: NDCG@10, 10 docs per query, scores from 5 values")
    for rows in rows_list:
        frame = gen.rectangular(rows // 10, 10, ties=True, seed=5).select("query", "rel", "score")
        t = time_three(frame)
        series["rows"].append(frame.height)
        for k in ("floor", "agg", "evaluate"):
            series[k].append(t[k])
        log(f"  {frame.height:>11,} rows: " + ", ".join(f"{k} {v:.3f} s" for k, v in t.items()))
        del frame
    fixed = int(1e5 if quick else 1e6)
    qseries: dict[str, list] = {
        "queries": [],
        "rows": fixed,
        "floor": [],
        "agg": [],
        "evaluate": [],
    }
    log(f"\n== fixed {fixed:,} rows, growing number of queries: NDCG@10")
    for nq in [10**e for e in range(1, 7) if 10**e <= fixed // 10]:
        frame = gen.rectangular(nq, fixed // nq, ties=True, seed=6).select("query", "rel", "score")
        t = time_three(frame)
        qseries["queries"].append(nq)
        for k in ("floor", "agg", "evaluate"):
            qseries[k].append(t[k])
        log(
            f"  {nq:>9,} queries x {fixed // nq:,} docs: "
            + ", ".join(f"{k} {v:.3f} s" for k, v in t.items())
        )
    return {"rows": series, "queries": qseries}


def plot_scaling(scaling: dict[str, Any], path: Path, machine: str) -> None:
    """The time-per-row plot of :func:`bench_scaling`'s series."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    styles = {"floor": "k--", "agg": "C0-o", "evaluate": "C1-s"}
    names = {
        "floor": "floor: df.sort(query, score desc)",
        "agg": "group_by(query).agg(lp.ndcg(k=10))",
        "evaluate": 'lp.evaluate(["ndcg@10"])',
    }
    s = scaling["rows"]
    for k in ("floor", "agg", "evaluate"):
        axes[0].plot(
            s["rows"],
            [t / r * 1e9 for t, r in zip(s[k], s["rows"], strict=True)],
            styles[k],
            label=names[k],
        )
    axes[0].set_xscale("log")
    axes[0].set_yscale("log")
    axes[0].set_xlabel("rows (10 docs per query)")
    axes[0].set_ylabel("ns per row (best of N)")
    axes[0].set_title("growing rows")
    q = scaling["queries"]
    for k in ("floor", "agg", "evaluate"):
        axes[1].plot(q["queries"], [t / q["rows"] * 1e9 for t in q[k]], styles[k], label=names[k])
    axes[1].set_xscale("log")
    axes[1].set_yscale("log")
    axes[1].set_xlabel(f"queries (fixed {q['rows']:,} rows)")
    axes[1].set_title("fixed rows, growing number of queries")
    from matplotlib.ticker import LogFormatter

    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
        ax.yaxis.set_major_formatter(LogFormatter(labelOnlyBase=False))
        ax.yaxis.set_minor_formatter(LogFormatter(labelOnlyBase=False, minor_thresholds=(2, 0.5)))
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=3, fontsize=8)
    fig.suptitle(f"lodestar_polars, time per row; {machine}", fontsize=9)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --------------------------------------------------------------------------- report


def versions() -> dict[str, str]:
    """Versions of the libraries that matter here."""
    out = {"python": platform.python_version()}
    for dist in [
        "lodestar-polars",
        "polars",
        "numpy",
        "scikit-learn",
        "scipy",
        "pytrec-eval-terrier",
        "ranx",
        "numba",
        "polars-ds",
        "matplotlib",
        "psutil",
    ]:
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out


def machine() -> dict[str, str]:
    """CPU model, cores, memory, OS, Polars threads, commit."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        model = platform.processor() or model
    mem = "?"
    try:
        import psutil

        mem = f"{psutil.virtual_memory().total / 2**30:.0f} GiB"
    except ImportError:
        pass
    commit = "?"
    try:
        commit = subprocess.run(
            ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return {
        "cpu": model,
        "cores": str(os.cpu_count()),
        "memory": mem,
        "os": f"{platform.system()} {platform.release()}",
        "polars threads": str(pl.thread_pool_size()),
        "commit": commit,
    }


def fmt_s(s: float | None) -> str:
    """Seconds, 3 significant digits."""
    if s is None:
        return "-"
    return f"{s:.3g}" if s < 100 else f"{s:.0f}"


def fmt_x(x: float) -> str:
    """A ratio, 2 significant digits below 10."""
    return f"{x:.2g}×" if x < 10 else f"{x:.0f}×"


def cell_text(c: Cell, floor: float) -> str:
    """A table cell: ratio to the floor (seconds)."""
    if c.seconds is None:
        if c.status.startswith("fails"):
            return "fails"
        return "n/a"
    mark = "~" if c.approx else ""
    return f"{mark}{fmt_x(c.seconds / floor)} ({mark}{fmt_s(c.seconds)} s)"


LIMITS = (("agg", 5.0), ("evaluate", 3.0))  # at most this many times the floor
NEEDS = (("sklearn", 10.0), ("ranx warm", 3.0), ("pytrec_eval", 3.0))  # at least this speedup
TARGET_SHAPES = ("small_ties", "long_ties")  # the speed issue's targets: NDCG@10, tied scores
TARGET_METRIC = "ndcg@10"


def speedup(peer: Cell, ours: Cell, *, from_frame: bool) -> float | None:
    """Peer time over ours; ``from_frame`` adds the peer's structures built from the frame."""
    if peer.seconds is None or ours.seconds is None:
        return None
    extra = (peer.build or 0.0) if from_frame else 0.0
    return (peer.seconds + extra) / ours.seconds


def targets(res: ShapeResult) -> list[str]:
    """Every cell of this shape outside the issue's targets that misses a rule, one sentence each.

    A peer's speedup is judged from the frame (its structures built from it counted), as
    the issue's targets are; the speedup tables show it with the structures built apart too.
    """
    misses = []
    for key, cells in res.cells.items():
        if key == TARGET_METRIC and res.shape.key in TARGET_SHAPES:
            continue  # in the targets table
        label = res.labels[key]
        for lp_tool, limit in LIMITS:
            t = cells[lp_tool].seconds
            if t is not None and t / res.floor > limit:
                misses.append(
                    f"{label}: {lp_tool} is {fmt_x(t / res.floor)} the floor (target ≤ {limit:g}×)"
                )
        for peer, need in NEEDS:
            p = cells.get(peer)
            if p is None or p.seconds is None:
                continue
            for lp_tool in ("agg", "evaluate"):
                whole = speedup(p, cells[lp_tool], from_frame=True)
                if whole is not None and whole < need:
                    misses.append(
                        f"{label}: {lp_tool}'s speedup over {peer} from the frame is "
                        f"{fmt_x(whole)} (target ≥ {need:g}×)"
                    )
    return misses


def issue_targets(results: list[ShapeResult], scaling: dict | None) -> list[str]:
    """The speed issue's targets (NDCG@10, tied scores, 1e6-1e7 rows) as a table."""
    shapes = [r for r in results if r.shape.key in TARGET_SHAPES and TARGET_METRIC in r.cells]
    big = None
    if scaling is not None and scaling["rows"]["rows"]:
        s = scaling["rows"]
        big = (s["rows"][-1], s["floor"][-1], s["agg"][-1], s["evaluate"][-1])
    heads = [f"{r.shape.key} ({r.rows:,} rows)" for r in shapes]
    if big is not None:
        heads.append(f"scaling series ({big[0]:,} rows)")
    lines = [
        "| target | " + " | ".join(heads) + " | status |",
        "|---" * (len(heads) + 2) + "|",
    ]

    def row(name: str, values: list[float | None], ok: Callable[[float], bool] | None) -> None:
        shown = [fmt_x(v) if v is not None else "n/a" for v in values]
        known = [v for v in values if v is not None]
        if ok is None:
            status = "(for reference)"
        elif not known:
            status = "n/a"
        else:
            status = "met" if all(ok(v) for v in known) else "**missed**"
        lines.append(f"| {name} | " + " | ".join(shown) + f" | {status} |")

    for lp_tool, limit in LIMITS:
        values: list[float | None] = [
            (r.cells[TARGET_METRIC][lp_tool].seconds or float("nan")) / r.floor for r in shapes
        ]
        if big is not None:
            values.append((big[2] if lp_tool == "agg" else big[3]) / big[1])
        row(f"{lp_tool} ≤ {limit:g}× the floor", values, lambda v, m=limit: v <= m)
    for peer, need in NEEDS:
        for lp_tool in ("agg", "evaluate"):
            for from_frame in (True, False):
                values = []
                for r in shapes:
                    cells = r.cells[TARGET_METRIC]
                    p = cells.get(peer)
                    values.append(
                        None if p is None else speedup(p, cells[lp_tool], from_frame=from_frame)
                    )
                if big is not None:
                    values.append(None)
                how = "from the frame" if from_frame else "its structures built apart"
                row(
                    f"{lp_tool} ≥ {need:g}× faster than {peer}, {how}",
                    values,
                    (lambda v, m=need: v >= m) if from_frame else None,
                )
    if scaling is not None and scaling["queries"]["queries"]:
        q = scaling["queries"]
        spread = {t: max(q[t]) / min(q[t]) for t in ("floor", "agg", "evaluate")}
        lines += [
            "",
            f"Time per row as the queries grow at a fixed {q['rows']:,} rows "
            f"({q['queries'][0]:,} to {q['queries'][-1]:,} queries), slowest over fastest: "
            + ", ".join(f"{t} {fmt_x(v)}" for t, v in spread.items())
            + " (the table at the end of this section).",
        ]
    return lines


def render(
    results: list[ShapeResult],
    scaling: dict | None,
    command: str,
    today: str,
    cfg: Config,
    mach: dict,
    vers: dict,
    elapsed: float,
    newer_rows: list[newer.Row] | None = None,
) -> str:
    """The generated markdown section, markers included."""
    lines = [
        START,
        "",
        f"_Generated by `{command}` on {today} in {elapsed / 60:.1f} minutes; "
        "do not edit between the markers, rerun the command._",
        "",
        f"**Machine** (the absolute seconds below are this machine's): {mach['cpu']}, "
        f"{mach['cores']} cores, {mach['memory']} RAM, {mach['os']}, Polars thread pool "
        f"{mach['polars threads']}; lodestar_polars at `{mach['commit']}`. The machine is shared, "
        "so read the ratios, not the seconds.",
        "",
        "**Versions**: " + ", ".join(f"{k} {v}" for k, v in vers.items()) + ".",
        "",
        f"**Method**: each cell is the best of up to {cfg.reps} calls (fewer once "
        f"{cfg.budget:g} s are spent), garbage collected before and off during each call. "
        "Cells read *time / floor (seconds)*, where the floor is Polars sorting the frame by "
        'group then score, `df.sort(["query", "score"], descending=[False, True])`. Every tool '
        "gets the same generated frame (rows in random order, except `small_sorted` and "
        "`long_sorted`: ordered by query); *by hand* is NDCG@10 as a Polars user writes it "
        "without tie averaging or checks, `sort_by(score).head(10)` times log2 discounts over "
        "the same for the relevances sorted by themselves (`bench/run.py: ndcg_by_hand`); the "
        "peers' structures (dense "
        "matrices, pytrec_eval's dicts and evaluator, ranx's Qrels and Run) are built from it "
        "and timed apart (listed under each table), not in the cells. "
        "`agg` is `df.group_by(group).agg(lp.<metric>(...))`, `evaluate` is "
        "`lp.evaluate(df, [name], by=group, ...)`, both returning one value per group. "
        "scikit-learn is timed on the dense (groups × items) matrix; where a full run would "
        f"exceed {cfg.sklearn_budget:g} s it is timed on the leading rows and scaled linearly "
        "(its ranking metrics loop over rows in Python), marked `~`. "
        + (
            "ranx runs in a fresh subprocess per shape: *cold* is the first call of that "
            "metric, numba compiling its kernels (the cache holds only ranx's Qrels/Run "
            "builders), *warm* the best later call; "
            if cfg.ranx_cold
            else "ranx runs in one subprocess from a warm numba cache (cold not measured); "
        )
        + "ranx is called as `evaluate(qrels, run, metric, save_results_in_run=False)`. "
        "pytrec_eval's `recip_rank` has no cutoff, so its MRR cell is MRR without cutoff, "
        "checked against `lp.reciprocal_rank` without `k`. Every number is checked against "
        f"lodestar_polars' mean (relative tolerance {REL_TOL:g}): *agrees*, *differs (tie rule)* "
        "(by hand, pytrec_eval and ranx on tied scores: by hand breaks ties in the sort's "
        "order, the others by document id, scikit-learn "
        "and lodestar_polars average over them; pytrec_eval also ties scores that are equal "
        "as float32, and is then checked on the queries without such ties), or *DIFFERS*.",
        "",
    ]
    all_misses = []
    for res in results:
        lines += [
            f"### {res.shape.title}",
            "",
            f"{res.rows:,} rows, {res.groups:,} groups; floor {fmt_s(res.floor)} s.",
            "",
        ]
        tools = [
            t
            for t in TOOLS[1:]
            if any(c[t].seconds is not None or c[t].status != "n/a" for c in res.cells.values())
        ]
        lines.append("| metric | floor | " + " | ".join(tools) + " |")
        lines.append("|---" * (len(tools) + 2) + "|")
        for key, cells in res.cells.items():
            row = [res.labels[key], f"1× ({fmt_s(res.floor)} s)"]
            row += [cell_text(cells[t], res.floor) for t in tools]
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
        peers = [p for p in PEERS if p in tools]
        if peers:
            lines.append(
                "lodestar_polars' speedup over each peer (peer time / our time), agg · evaluate; "
                "in brackets, counting the peer's structures built from the same frame:"
            )
            lines.append("")
            lines.append("| metric | " + " | ".join(peers) + " |")
            lines.append("|---" * (len(peers) + 1) + "|")
            for key, cells in res.cells.items():
                row = [res.labels[key]]
                for p in peers:
                    c = cells[p]
                    if c.seconds is None:
                        row.append("fails" if c.status.startswith("fails") else "n/a")
                        continue
                    a = c.seconds / cells["agg"].seconds
                    e = c.seconds / cells["evaluate"].seconds
                    mark = "~" if c.approx else ""
                    text = f"{mark}{fmt_x(a)} · {mark}{fmt_x(e)}"
                    if c.build:
                        a = speedup(c, cells["agg"], from_frame=True)
                        e = speedup(c, cells["evaluate"], from_frame=True)
                        text += f" (from the frame {mark}{fmt_x(a)} · {mark}{fmt_x(e)})"
                    row.append(text)
                lines.append("| " + " | ".join(row) + " |")
            lines.append("")
        lines.append("Agreement with lodestar_polars' mean:")
        lines.append("")
        agree_tools = ["evaluate"] + [t for t in tools if t in PEERS and t != "ranx cold"]
        lines.append("| metric | mean (lodestar_polars) | " + " | ".join(agree_tools) + " |")
        lines.append("|---" * (len(agree_tools) + 2) + "|")
        notes = []
        for key, cells in res.cells.items():
            row = [res.labels[key], f"{cells['agg'].mean:.10g}"]
            for t in agree_tools:
                c = cells[t]
                status = c.status
                if status.startswith("fails"):
                    notes.append(f"{t}: {status}")
                    status = "fails"
                row.append(status)
                if c.note and c.seconds is not None:
                    notes.append(f"{res.labels[key]}, {t}: {c.note}")
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
        for note in dict.fromkeys(notes):
            lines.append(f"- {note}")
        if res.builds:
            lines.append(
                "- structures, built apart from the timings: "
                + ", ".join(f"{k} {fmt_s(v)} s" for k, v in res.builds.items())
                + "."
            )
        lines.append("")
        all_misses += [f"{res.shape.key}: {m}" for m in targets(res)]
    lines += [
        "### Targets",
        "",
        "The speed issue's targets are for NDCG@10 on tied scores at 1e6–1e7 rows: agg ≤ 5× "
        "the floor, evaluate ≤ 3× the floor, both ≥ 10× faster than scikit-learn and ≥ 3× "
        "faster than ranx (warm) and pytrec_eval measured from the same Polars frame (their "
        "structures built from it counted; the ratio with the structures built apart is shown "
        "too):",
        "",
        *issue_targets(results, scaling),
        "",
        "The same rules applied to every other cell of the tables above (beyond the issue's "
        "targets), where a cell misses one:",
        "",
    ]
    if all_misses:
        lines += [f"- {m}" for m in all_misses]
    else:
        lines.append("None.")
    lines.append("")
    if scaling is not None:
        s, q = scaling["rows"], scaling["queries"]
        lines += [
            "### Time per row as the frame grows",
            "",
            "![time per row](performance_rows.png)",
            "",
            "NDCG@10, 10 docs per query, scores from 5 values (heavy ties), nanoseconds per row:",
            "",
            "| rows | floor | agg | evaluate | agg / floor | evaluate / floor |",
            "|---|---|---|---|---|---|",
        ]
        for i, rows in enumerate(s["rows"]):
            f, a, e = s["floor"][i], s["agg"][i], s["evaluate"][i]
            lines.append(
                f"| {rows:,} | {f / rows * 1e9:.0f} | {a / rows * 1e9:.0f} | "
                f"{e / rows * 1e9:.0f} | {fmt_x(a / f)} | {fmt_x(e / f)} |"
            )
        lines += [
            "",
            f"Fixed {q['rows']:,} rows, growing number of queries, nanoseconds per row:",
            "",
            "| queries | docs per query | floor | agg | evaluate | agg / floor "
            "| evaluate / floor |",
            "|---|---|---|---|---|---|---|",
        ]
        for i, nq in enumerate(q["queries"]):
            f, a, e = q["floor"][i], q["agg"][i], q["evaluate"][i]
            r = q["rows"]
            lines.append(
                f"| {nq:,} | {r // nq:,} | {f / r * 1e9:.0f} | {a / r * 1e9:.0f} | "
                f"{e / r * 1e9:.0f} | {fmt_x(a / f)} | {fmt_x(e / f)} |"
            )
        lines.append("")
    if newer_rows:
        lines += [
            "### The newer metrics, budgets and off-policy estimators",
            "",
            "`bench/newer.py`: each call's time over the floor (Polars sorting its frame by "
            "group then score; for the off-policy log, by the propensity), and the peer's in "
            "the same run: ir_measures (ERR@10 through gdeval, which prints 5 decimals: "
            "checked to 5e-6; Judged@10), ranx warm (`rbp.8`), or a NumPy floor (the "
            "formula on dense arrays) where no peer is installed (RecTools, obp). The "
            "peers' structures are built apart (*peer build*).",
            "",
            *newer.render_newer(newer_rows),
            "",
        ]
    lines.append(END)
    return "\n".join(lines)


INTRO = """# Performance

How fast lodestar_polars is against the floor (Polars sorting the frame) and against
scikit-learn, pytrec_eval, ranx and polars-ds, on identical generated data. Everything
between the markers below is written by `python bench/run.py` (see
[bench/README.md](../bench/README.md)); rerun it rather than editing the numbers.

"""


def write_doc(path: Path, section: str) -> None:
    """Replace the generated section of ``path`` (create the page if absent)."""
    if path.exists():
        text = path.read_text()
        if START in text and END in text:
            head, rest = text.split(START, 1)
            _, tail = rest.split(END, 1)
            text = head + section + tail
        else:
            text = text.rstrip("\n") + "\n\n" + section + "\n"
    else:
        text = INTRO + section + "\n"
    path.write_text(text)


# --------------------------------------------------------------------------- main


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--quick",
        action="store_true",
        help="tiny sizes (--scale 0.01), one repetition, rows up to 1e5, ranx warm only",
    )
    p.add_argument(
        "--scale",
        type=float,
        default=None,
        help="multiply every shape's number of queries/samples (default 1; 0.01 with --quick)",
    )
    p.add_argument(
        "--reps", type=int, default=None, help="best of N calls (default 3; 1 with --quick)"
    )
    p.add_argument(
        "--budget",
        type=float,
        default=6.0,
        help="stop repeating a call once this many seconds are spent on it (default 6)",
    )
    p.add_argument(
        "--sklearn-budget",
        type=float,
        default=15.0,
        help="seconds above which scikit-learn runs on leading rows, scaled (default 15)",
    )
    p.add_argument(
        "--shapes",
        default=",".join(DEFAULT_SHAPES),
        help=f"comma-separated among {list(SHAPES)} (default all)",
    )
    p.add_argument(
        "--max-rows",
        type=float,
        default=None,
        help="largest frame of the scaling plot (default 1e7; 1e5 with --quick; 1e8 is possible)",
    )
    p.add_argument(
        "--metrics",
        default="",
        help="comma-separated metric keys to time, e.g. ndcg@10 (default all)",
    )
    p.add_argument("--no-scaling", action="store_true", help="skip the scaling series and plot")
    p.add_argument("--no-ranx", action="store_true", help="skip ranx")
    p.add_argument("--no-ranx-cold", action="store_true", help="skip ranx's cold (compiling) call")
    p.add_argument("--no-pytrec", action="store_true", help="skip pytrec_eval")
    p.add_argument("--no-newer", action="store_true", help="skip the newer rows (bench/newer.py)")
    p.add_argument(
        "--newer-only",
        action="store_true",
        help="time only the newer rows (bench/newer.py) and print them; writes no page",
    )
    p.add_argument(
        "--newer-scale",
        type=float,
        default=None,
        help="the newer rows' scale (1: about 1M rows a frame; default --scale)",
    )
    p.add_argument(
        "--doc",
        default=str(ROOT / "docs" / "performance.md"),
        help="markdown file whose generated section is rewritten",
    )
    p.add_argument("--no-write", action="store_true", help="print only; write no file")
    p.add_argument("--json", default=None, help="also write the raw results to this JSON file")
    p.add_argument(
        "--render-only",
        default=None,
        metavar="JSON",
        help="rewrite the page and plot from a --json file, timing nothing",
    )
    # internal: the ranx subprocess
    p.add_argument("--ranx-worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--ranx-metrics", default="", help=argparse.SUPPRESS)
    p.add_argument("--ranx-cold", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.command_line = "python bench/run.py" + "".join(
        f" {a}" for a in (argv if argv is not None else sys.argv[1:])
    )
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the suite (or the ranx worker, or a re-render)."""
    args = parse(argv)
    if args.ranx_worker:
        args.reps = args.reps or 3
        ranx_worker(args)
        return 0
    if args.render_only:
        return render_only(args)
    start = time.perf_counter()
    quick = args.quick
    if args.newer_only:
        return newer_only(args)
    cfg = Config(
        scale=args.scale if args.scale is not None else (0.01 if quick else 1.0),
        reps=args.reps if args.reps is not None else (1 if quick else 3),
        budget=args.budget,
        sklearn_budget=args.sklearn_budget,
        ranx=not args.no_ranx,
        ranx_cold=not (args.no_ranx_cold or quick),
        pytrec=not args.no_pytrec,
        metrics=tuple(m.strip() for m in args.metrics.split(",") if m.strip()),
    )
    max_rows = args.max_rows if args.max_rows is not None else (1e5 if quick else 1e7)
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    unknown = [s for s in shapes if s not in SHAPES]
    if unknown:
        sys.exit(f"unknown shape(s) {unknown}; choose among {list(SHAPES)}")
    mach, vers = machine(), versions()
    log(f"machine: {mach}\nversions: {vers}\nconfig: {cfg}")
    warnings.simplefilter("ignore")  # scikit-learn's and numba's warnings are not results
    if cfg.ranx and cfg.ranx_cold:
        t0 = time.perf_counter()
        try:
            cfg.ranx_builder_cache = prepare_ranx_builder_cache()
            log(f"ranx builder cache ready in {time.perf_counter() - t0:.1f} s")
        except subprocess.CalledProcessError as e:
            log(f"ranx unavailable: {e.stderr.strip().splitlines()[-1:]}")
            cfg.ranx = False
    results, pending = [], []
    for key in shapes:
        try:
            res, frame = bench_shape(SHAPES[key], cfg)
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            log(f"shape {key} failed; continuing")
            continue
        results.append(res)
        if cfg.ranx and res.shape.kind == "ranking":
            pending.append((res, frame))
        del frame
        gc.collect()
    bench_ranx(pending, cfg)
    del pending
    gc.collect()
    scaling = None
    if not args.no_scaling:
        scaling = bench_scaling(cfg, max_rows, quick=quick)
    newer_rows = None
    if not args.no_newer:
        scale = args.newer_scale if args.newer_scale is not None else cfg.scale
        log(f"\n== newer rows (bench/newer.py), scale {scale:g}")
        newer_rows = newer.bench_newer(scale, best_of, cfg.reps, cfg.budget, ranx=cfg.ranx)
    elapsed = time.perf_counter() - start
    today = _dt.date.today().isoformat()
    section = render(
        results, scaling, args.command_line, today, cfg, mach, vers, elapsed, newer_rows
    )
    log("\n" + section)
    if args.json:
        raw = {
            "command": args.command_line,
            "date": today,
            "elapsed": elapsed,
            "machine": mach,
            "versions": vers,
            "config": {k: str(v) for k, v in vars(cfg).items()},
            "shapes": [
                {
                    "key": r.shape.key,
                    "rows": r.rows,
                    "groups": r.groups,
                    "floor": r.floor,
                    "builds": r.builds,
                    "cells": {m: {t: vars(c) for t, c in cs.items()} for m, cs in r.cells.items()},
                }
                for r in results
            ],
            "scaling": scaling,
            "newer": [vars(r) for r in newer_rows or []],
        }
        Path(args.json).write_text(json.dumps(raw, indent=1))
    if not args.no_write:
        write_outputs(Path(args.doc), section, scaling, mach)
    log(f"total {elapsed:.0f} s")
    return 0


def write_outputs(doc: Path, section: str, scaling: dict | None, mach: dict) -> None:
    """Write the page's generated section and the plot."""
    doc.parent.mkdir(parents=True, exist_ok=True)
    write_doc(doc, section)
    log(f"wrote {doc}")
    if scaling is not None:
        png = doc.parent / "performance_rows.png"
        plot_scaling(scaling, png, f"{mach['cpu']}, {mach['cores']} cores")
        log(f"wrote {png}")


def newer_only(args: argparse.Namespace) -> int:
    """Time the newer rows alone and print their table (the page is not rewritten)."""
    warnings.simplefilter("ignore")
    quick = args.quick
    scale = args.newer_scale if args.newer_scale is not None else args.scale
    scale = scale if scale is not None else (0.01 if quick else 1.0)
    reps = args.reps if args.reps is not None else (1 if quick else 3)
    start = time.perf_counter()
    log(f"machine: {machine()}\nversions: {versions()}\nnewer rows, scale {scale:g}")
    rows = newer.bench_newer(scale, best_of, reps, args.budget, ranx=not args.no_ranx)
    log("\n" + "\n".join(newer.render_newer(rows)))
    if args.json:
        Path(args.json).write_text(json.dumps([vars(r) for r in rows], indent=1))
    log(f"total {time.perf_counter() - start:.0f} s")
    return 0


def render_only(args: argparse.Namespace) -> int:
    """Rewrite the page and plot from a ``--json`` file, without timing anything."""
    raw = json.loads(Path(args.render_only).read_text())
    c = raw["config"]
    cfg = Config(
        scale=float(c["scale"]),
        reps=int(c["reps"]),
        budget=float(c["budget"]),
        sklearn_budget=float(c["sklearn_budget"]),
        ranx=c["ranx"] == "True",
        ranx_cold=c["ranx_cold"] == "True",
        pytrec=c["pytrec"] == "True",
    )
    labels = {m.key: m.label for m in [*ranking_metrics(), *label_metrics()]}
    results = []
    for r in raw["shapes"]:
        res = ShapeResult(SHAPES[r["key"]], r["rows"], r["groups"], r["floor"], builds=r["builds"])
        for key, cells in r["cells"].items():
            res.labels[key] = labels[key]
            res.cells[key] = {t: Cell() for t in TOOLS[1:]}  # a tool an older run lacks: n/a
            res.cells[key].update({t: Cell(**v) for t, v in cells.items()})
        results.append(res)
    date = (
        raw.get("date")
        or _dt.date.fromtimestamp(Path(args.render_only).stat().st_mtime).isoformat()
    )
    section = render(
        results,
        raw.get("scaling"),
        raw.get("command", "python bench/run.py"),
        date,
        cfg,
        raw["machine"],
        raw["versions"],
        raw.get("elapsed", float("nan")),
        [newer.Row(**r) for r in raw.get("newer", [])],
    )
    if args.no_write:
        log(section)
    else:
        write_outputs(Path(args.doc), section, raw.get("scaling"), raw["machine"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
