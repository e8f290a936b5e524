"""The newer rows of bench/run.py: ERR, RBP, Judged, beyond accuracy, budgets, off-policy.

Each row times one lodestar_polars call on a generated frame against the suite's floor
(Polars sorting the frame by group then score, the cost of ranking at all) and, in the
same run, a peer: ir_measures (``ERR@10`` through its gdeval provider, ``Judged@10``),
ranx (``rbp.8``, warm: its first call, numba compiling or loading the kernel, is not
timed), or, where no peer is installed (RecTools for the beyond-accuracy measures, obp for
the off-policy estimators), a NumPy floor: the same formula on dense arrays, the least a
vectorised tool must do. Every peer's number is checked against lodestar_polars' (the
mean over groups, or each estimate), and the row says *agrees* or *DIFFERS*. Nothing
here asserts a time.

    python bench/run.py --newer-only --quick    # these rows alone, tiny sizes
    python bench/run.py --newer-only --newer-scale 0.2
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import data as gen
import numpy as np
import polars as pl

Timer = Callable[[Callable[[], Any], int, float], tuple[float, Any]]
REL_TOL = 1e-9


@dataclass
class Row:
    """One newer row: the call, its frame, its time over the floor, the peer's."""

    part: str
    label: str
    rows: int
    groups: int
    floor: float
    seconds: float
    peer: str = ""
    peer_seconds: float | None = None
    peer_build: float | None = None
    status: str = "n/a"
    note: str = ""


def _agree(row: Row, ours: float, theirs: float, *, tol: float = REL_TOL) -> None:
    """Mark the row agrees (relative ``tol``; absolute where ``tol`` is gdeval's print)."""
    scale = 1.0 if tol > REL_TOL else max(abs(ours), abs(theirs), 1e-300)
    if abs(ours - theirs) <= tol * scale:
        row.status = "agrees"
    else:
        row.status = "DIFFERS"
        row.note = f"{theirs!r} vs lodestar_polars {ours!r}"


def _agg(frame: pl.DataFrame, group: str, expr: Callable[[], pl.Expr]) -> pl.DataFrame:
    return frame.group_by(group).agg(expr().alias("v"))


def _floor(frame: pl.DataFrame, group: str, timer: Timer, reps: int, budget: float) -> float:
    seconds, _ = timer(lambda: frame.sort([group, "score"], descending=[False, True]), reps, budget)
    return seconds


# --------------------------------------------------------------------------- IR user models


def ir_rows(scale: float, timer: Timer, reps: int, budget: float, *, ranx: bool) -> list[Row]:
    """ERR@10 (ir_measures' gdeval), RBP(p=0.8) (ranx), Judged@10 (ir_measures)."""
    import lodestar_polars as lp

    n_queries = max(50, int(50_000 * scale))
    frame = gen.rectangular(n_queries, 20, seed=7)
    rng = np.random.default_rng(8)
    judged = rng.random(frame.height) < 0.8
    frame = frame.with_columns(jrel=pl.when(pl.Series(judged)).then("rel").otherwise(-1))
    floor = _floor(frame, "query", timer, reps, budget)
    out = []
    cases: list[tuple[str, Callable[[], pl.Expr], str]] = [
        ("ERR@10", lambda: lp.err("rel", "score", k=10, item="doc"), "err"),
        ("RBP(p=0.8)", lambda: lp.rbp("rel", "score", p=0.8), "rbp"),
        ("Judged@10", lambda: lp.judged("jrel", "score", k=10), "judged"),
    ]
    for label, expr, ours_name in cases:
        seconds, agg = timer(partial(_agg, frame, "query", expr), reps, budget)
        row = Row("ir", label, frame.height, n_queries, floor, seconds)
        ours = float(agg["v"].mean())
        try:
            if ours_name != "rbp":
                _ir_measures(row, frame, ours_name, ours, timer, reps, budget)
            elif ranx:
                _ranx_rbp(row, frame, ours, timer, reps, budget)
            else:
                row.note = "ranx skipped (--no-ranx)"
        except ImportError as e:
            row.note = f"peer not installed ({e.name})"
        except Exception as e:  # noqa: BLE001
            row.status = f"fails: {type(e).__name__}: {str(e).splitlines()[0][:80]}"
        out.append(row)
    return out


def _ir_measures(
    row: Row, frame: pl.DataFrame, name: str, ours: float, timer: Timer, reps: int, budget: float
) -> None:
    import ir_measures

    t0 = time.perf_counter()
    q, d = (frame[c].cast(pl.String).to_list() for c in ("query", "doc"))
    s = frame["score"].to_list()
    run = [ir_measures.ScoredDoc(*x) for x in zip(q, d, s, strict=True)]
    rel_col = "jrel" if name == "judged" else "rel"
    rels = frame[rel_col].to_list()
    qrels = [ir_measures.Qrel(a, b, r) for a, b, r in zip(q, d, rels, strict=True) if r >= 0]
    row.peer_build = time.perf_counter() - t0
    measure = ir_measures.ERR @ 10 if name == "err" else ir_measures.Judged @ 10
    row.peer = "ir_measures " + ("(gdeval)" if name == "err" else "(judged)")
    seconds, values = timer(
        lambda: [m.value for m in ir_measures.iter_calc([measure], qrels, run)], 1, budget
    )
    row.peer_seconds = seconds
    # gdeval prints 5 decimals: its mean is within 5e-6 of the exact one
    _agree(row, ours, float(np.mean(values)), tol=5e-6 if name == "err" else REL_TOL)


def _ranx_rbp(
    row: Row, frame: pl.DataFrame, ours: float, timer: Timer, reps: int, budget: float
) -> None:
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    os.environ.setdefault("NUMBA_CACHE_DIR", str(cache / "lodestar_polars_bench" / "numba-full"))
    warnings.simplefilter("ignore")
    from ranx import Qrels, Run, evaluate  # type: ignore[import-untyped]

    t0 = time.perf_counter()
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for qq, dd, rel, score in frame.select("query", "doc", "rel", "score").iter_rows():
        run.setdefault(str(qq), {})[str(dd)] = score
        if rel > 0:
            qrels.setdefault(str(qq), {})[str(dd)] = rel
    q, r = Qrels.from_dict(qrels), Run.from_dict(run)
    row.peer_build = time.perf_counter() - t0
    row.peer = "ranx warm (`rbp.8`)"

    def call() -> Any:
        return evaluate(q, r, "rbp.8", save_results_in_run=False)

    call()  # compile or load the kernel: not timed
    row.peer_seconds, mean = timer(call, reps, budget)
    _agree(row, ours, float(mean))


# --------------------------------------------------------------------------- beyond accuracy


def beyond_rows(scale: float, timer: Timer, reps: int, budget: float) -> list[Row]:
    """Novelty, ARP, ILD (category, cosine), serendipity, personalisation; NumPy floors."""
    import lodestar_polars as lp

    n_users, k, n_items, dim = max(100, int(100_000 * scale)), 10, 5_000, 16
    rng = np.random.default_rng(9)
    # each user's 10 distinct items (a Zipf-ish catalogue), scores 10..1 in a shuffled frame
    weights = 1.0 / np.arange(1, n_items + 1) ** 0.8
    weights /= weights.sum()
    items = np.stack([rng.choice(n_items, size=k, replace=False, p=weights) for _ in range(64)])
    items = items[rng.integers(0, 64, n_users)]  # 64 distinct lists, reused: overlaps
    items = (items + rng.integers(0, 3, (n_users, 1))) % n_items
    pop = np.maximum(weights * 50.0, 1e-6)
    pop /= pop.max()
    genre = rng.integers(0, 12, n_items)
    emb = rng.standard_normal((n_items, dim))
    hit = (rng.random((n_users, k)) < 0.2).astype(np.int64)
    pop_rank = np.empty(n_items, dtype=np.int64)
    pop_rank[np.argsort(-pop, kind="stable")] = np.arange(1, n_items + 1)
    user = np.repeat(np.arange(n_users), k)
    pos = np.tile(np.arange(1, k + 1), n_users)
    flat = items.ravel()
    order = rng.permutation(user.size)
    frame = pl.DataFrame(
        {
            "user": user[order],
            "item": flat[order],
            "score": (k + 1 - pos[order]).astype(np.float64),
            "p": pop[flat][order],
            "genre": genre[flat][order],
            "v": pl.Series(emb[flat][order]).cast(pl.List(pl.Float64)),
            "hit": hit.ravel()[order],
            "pop_rank": pop_rank[flat][order],
        }
    )
    floor = _floor(frame, "user", timer, reps, budget)
    unit = emb / np.linalg.norm(emb, axis=1, keepdims=True)

    def ild_cat() -> Any:
        g = genre[items]
        same = (g[:, :, None] == g[:, None, :]).sum(axis=(1, 2)) - k
        return 1.0 - same / (k * (k - 1))

    def ild_cos() -> Any:
        s = unit[items].sum(axis=1)
        return 1.0 - ((s * s).sum(axis=1) - k) / (k * (k - 1))

    def personal() -> float:
        counts = np.bincount(items.ravel(), minlength=n_items).astype(np.float64) / np.sqrt(k)
        pairs = ((counts**2).sum() - n_users) / 2  # each user's own square: k * (1/k)
        return float(1.0 - pairs / (n_users * (n_users - 1) / 2))

    positions = np.arange(1, k + 1)
    cases: list[tuple[str, Callable[[], pl.Expr] | None, Callable[[], Any]]] = [
        (
            "novelty@10",
            lambda: lp.novelty("score", popularity="p", k=10),
            lambda: (-np.log2(pop[items])).mean(axis=1),
        ),
        (
            "ARP@10",
            lambda: lp.average_recommended_popularity("score", popularity="p", k=10),
            lambda: pop[items].mean(axis=1),
        ),
        ("ILD@10, category", lambda: lp.intra_list_diversity("score", feature="genre"), ild_cat),
        (
            "ILD@10, cosine (dim 16)",
            lambda: lp.intra_list_diversity("score", feature="v", dim=dim),
            ild_cos,
        ),
        (
            "serendipity@10",
            lambda: lp.serendipity(
                "hit", "score", popularity_rank="pop_rank", n_items=n_items, k=10
            ),
            lambda: (hit * np.maximum(pop_rank[items] - positions, 0) / n_items).mean(axis=1),
        ),
        ("personalisation@10", None, personal),
    ]
    out = []
    for label, expr, floor_np in cases:
        if expr is None:
            seconds, value = timer(
                lambda: lp.personalisation(frame, by="user", item="item", y_score="score", k=10),
                reps,
                budget,
            )
            ours = float(value)
        else:
            seconds, agg = timer(partial(_agg, frame, "user", expr), reps, budget)
            ours = float(agg["v"].mean())
        row = Row("beyond", label, frame.height, n_users, floor, seconds, peer="NumPy floor")
        row.peer_seconds, theirs = timer(floor_np, reps, budget)
        _agree(row, ours, float(np.mean(theirs)))
        row.note = row.note or "dense (users x 10) arrays, items already in rank order"
        out.append(row)
    return out


# --------------------------------------------------------------------------- budget, off-policy


def budget_rows(scale: float, timer: Timer, reps: int, budget: float) -> list[Row]:
    """``lp.budget_curve`` and ``lp.recall_at_budget`` on two sources; a NumPy floor."""
    import lodestar_polars as lp

    n_queries, depth, n_items = max(50, int(10_000 * scale)), 50, 2_000
    rng = np.random.default_rng(10)
    parts, ranks = [], {}
    for source in ["ann", "bm25"]:
        lists = np.argsort(rng.random((n_queries, n_items)), axis=1)[:, :depth]
        ranks[source] = lists
        parts.append(
            pl.DataFrame(
                {
                    "query": np.repeat(np.arange(n_queries), depth),
                    "source": source,
                    "item": lists.ravel(),
                    "score": np.tile(np.arange(depth, 0, -1), n_queries).astype(np.float64),
                }
            )
        )
    frame = pl.concat(parts).sample(fraction=1.0, shuffle=True, seed=11)
    relevant = np.sort(np.argsort(rng.random((n_queries, n_items)), axis=1)[:, :20], axis=1)
    rel_frame = pl.DataFrame(
        {"query": np.repeat(np.arange(n_queries), 20), "item": relevant.ravel()}
    )
    cost = {"ann": lambda kk: 2.0 + 0.01 * kk, "bm25": lambda kk: 0.5 + 0.05 * kk}
    floor = _floor(frame, "query", timer, reps, budget)
    kwargs: dict[str, Any] = dict(
        by="query", item="item", source="source", y_score="score", relevant=rel_frame, cost=cost
    )

    def numpy_curve() -> np.ndarray:
        out = []
        for source in ["ann", "bm25"]:
            lists = ranks[source]
            hit = (lists[:, :, None] == relevant[:, None, :]).any(axis=2)
            out.append((np.cumsum(hit, axis=1) / 20.0).mean(axis=0))
        return np.concatenate(out)

    out = []
    seconds, curve = timer(lambda: lp.budget_curve(frame, **kwargs), reps, budget)
    row = Row("budget", "budget_curve, 2 sources x K 1..50", frame.height, n_queries, floor,
              seconds, peer="NumPy floor")  # fmt: skip
    row.peer_seconds, theirs = timer(numpy_curve, reps, budget)
    ours = curve.sort("source", "k")["recall_macro"].to_numpy()
    _agree(row, float(np.abs(ours).sum()), float(np.abs(theirs).sum()))
    if row.status == "agrees" and not np.allclose(ours, theirs, rtol=REL_TOL, atol=0):
        row.status, row.note = "DIFFERS", "a point of the curve differs"
    row.note = row.note or "recall@K per source, every K (broadcast membership, cumsum)"
    out.append(row)
    budgets = [1.0, 2.5, 3.0, 4.0]
    seconds, chosen = timer(
        lambda: lp.recall_at_budget(frame, budget=budgets, mix_ks=[5, 10, 20, 50], **kwargs),
        reps,
        budget,
    )
    row = Row("budget", "recall_at_budget, 4 budgets, mixes on K in {5,10,20,50}",
              frame.height, n_queries, floor, seconds)  # fmt: skip
    row.note = f"best recall_macro at budget 4: {chosen['recall_macro'][-1]:.6f}; no peer"
    out.append(row)
    return out


def off_policy_rows(scale: float, timer: Timer, reps: int, budget: float) -> list[Row]:
    """``lp.off_policy``: IPS, SNIPS, DM, DR, SNDR point estimates; a NumPy floor."""
    import lodestar_polars as lp

    n = max(1_000, int(1_000_000 * scale))
    rng = np.random.default_rng(12)
    p_log = rng.uniform(0.05, 1.0, n)
    p_new = rng.uniform(0.0, 1.0, n)
    click = (rng.random(n) < 0.3).astype(np.int64)
    q_hat = rng.uniform(0.0, 1.0, n)
    v_hat = rng.uniform(0.0, 1.0, n)
    frame = pl.DataFrame({"click": click, "p_log": p_log, "p_new": p_new, "q": q_hat, "v": v_hat})

    def numpy_floor() -> np.ndarray:
        w = p_new / p_log
        wr, resid = w * click, w * (click - q_hat)
        return np.array(
            [
                wr.mean(),
                wr.sum() / w.sum(),
                v_hat.mean(),
                (v_hat + resid).mean(),
                v_hat.mean() + resid.sum() / w.sum(),
            ]
        )

    floor, _ = timer(lambda: frame.sort("p_log"), reps, budget)
    seconds, est = timer(
        lambda: lp.off_policy(
            frame, y_true="click", propensity="p_log", target="p_new", reward_model="q",
            reward_model_target="v", n_resamples=None,
        ),
        reps,
        budget,
    )  # fmt: skip
    row = Row("off_policy", "off_policy, 5 estimators, no interval", n, n, floor, seconds,
              peer="NumPy floor")  # fmt: skip
    row.peer_seconds, theirs = timer(numpy_floor, reps, budget)
    ours = est.sort(pl.col("estimator").replace_strict(
        ["ips", "snips", "dm", "dr", "sndr"], [0, 1, 2, 3, 4]
    ))["estimate"].to_numpy()  # fmt: skip
    worst = int(np.argmax(np.abs(ours - theirs) / np.maximum(np.abs(theirs), 1e-300)))
    _agree(row, float(ours[worst]), float(theirs[worst]))
    row.note = row.note or "floor: `df.sort(propensity)`; NumPy: the five sums"
    out = [row]
    resamples = 200
    seconds, _ = timer(
        lambda: lp.off_policy(
            frame, y_true="click", propensity="p_log", target="p_new",
            estimators=["ips", "snips"], n_resamples=resamples,
        ),
        1,
        budget,
    )  # fmt: skip
    row = Row("off_policy", f"off_policy, IPS + SNIPS, {resamples}-resample bootstrap", n, n,
              floor, seconds)  # fmt: skip
    row.note = "the bootstrap's cost; no peer (obp not installed)"
    out.append(row)
    return out


# --------------------------------------------------------------------------- all, and the table


def bench_newer(scale: float, timer: Timer, reps: int, budget: float, *, ranx: bool) -> list[Row]:
    """Every newer row, at ``scale`` (1.0: about 1M rows a frame)."""
    rows: list[Row] = []
    parts: list[tuple[str, Callable[[], list[Row]]]] = [
        ("ERR, RBP, Judged", lambda: ir_rows(scale, timer, reps, budget, ranx=ranx)),
        ("beyond accuracy", lambda: beyond_rows(scale, timer, reps, budget)),
        ("budgets", lambda: budget_rows(scale, timer, reps, budget)),
        ("off-policy", lambda: off_policy_rows(scale, timer, reps, budget)),
    ]
    for name, part in parts:
        t0 = time.perf_counter()
        got = part()
        print(f"  {name}: {len(got)} rows in {time.perf_counter() - t0:.1f} s", flush=True)
        rows += got
    return rows


def _s(x: float | None) -> str:
    return "n/a" if x is None else (f"{x * 1e3:.1f} ms" if x < 1 else f"{x:.2f} s")


def render_newer(rows: list[Row]) -> list[str]:
    """The newer rows as a Markdown table: time / floor (seconds), the peer likewise."""
    lines = [
        "| part | call | rows | lodestar_polars | peer | peer time | check | peer build | note |",
        "|---|---|---:|---:|---|---:|---|---:|---|",
    ]
    for r in rows:
        ours = f"{r.seconds / r.floor:.2f}× ({_s(r.seconds)})"
        theirs = (
            "n/a"
            if r.peer_seconds is None
            else f"{r.peer_seconds / r.floor:.2f}× ({_s(r.peer_seconds)})"
        )
        lines.append(
            f"| {r.part} | {r.label} | {r.rows:,} | {ours} | {r.peer or 'none'} | {theirs} | "
            f"{r.status} | {_s(r.peer_build)} | {r.note} |"
        )
    return lines
