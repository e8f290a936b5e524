#!/usr/bin/env python
"""``group_by().agg(lp.ndcg(k=10))`` against NDCG@10 written by hand, interleaved in one process.

    python bench/expr_vs_hand.py                 # 1M rows per shape, 7 rounds, one thread
    python bench/expr_vs_hand.py --threads 2 --parts

Each round times every expression once on every frame, one after the other, so a
load change on a shared machine hits them alike; each cell is the median over the
rounds of the per-round ratio to the by-hand expression (CPU time and wall time).
``--parts`` adds the pieces of ``lp.ndcg`` alone (its rules, the tie-averaged DCG,
the ideal DCG) and Polars' bare ``agg(sum)``.  The plan's per-group operations are
counted from ``explain()``.  Prints Markdown (docs/performance.md, "The expression
path against NDCG@10 written by hand").
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))


def main() -> None:
    """Parse the flags, set the thread count before Polars loads, time, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e6, help="rows per frame")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1, help="POLARS_MAX_THREADS")
    parser.add_argument("--parts", action="store_true", help="time lp.ndcg's pieces too")
    args = parser.parse_args()
    os.environ["POLARS_MAX_THREADS"] = str(args.threads)
    run(int(args.rows), args.rounds, parts=args.parts)


def expressions(*, parts: bool) -> dict[str, Callable[[], object]]:
    """The by-hand expression first, then ``lp.ndcg`` and (``parts``) its pieces."""
    import polars as pl
    from run import ndcg_by_hand

    import lodestar_polars as lp
    from lodestar_polars._metrics import dcg as dcg_module
    from lodestar_polars._metrics.dcg import ideal, terms
    from lodestar_polars._metrics.expr import as_score

    out: dict[str, Callable[[], object]] = {
        "by hand": lambda: ndcg_by_hand("rel", "score", 10),
        "lp.ndcg": lambda: lp.ndcg("rel", "score", k=10),
    }
    if parts:
        metric = dcg_module.ndcg_metric("rel", "score", k=10)
        gain, _ = terms._gain("rel", "linear", "ndcg")
        score = as_score("score")
        out["rules"] = metric.refused
        out["tie-averaged DCG"] = lambda: terms.tie_averaged_dcg(gain, score, k=10, log_base=2.0)
        out["rows' DCG (before)"] = lambda: terms._over_group(
            gain, score, lambda _: terms._tie_averaged_dcg(2.0, 10)
        )
        out["ideal DCG"] = lambda: ideal._group_ideal_dcg(gain, k=10)
        out["agg(sum)"] = lambda: pl.col("rel").sum()
    return out


OPERATIONS = (
    "sort",
    "search_sorted",
    "filter",
    "rank",
    "implode",
    "int_range",
    "list.eval",
    "replace_strict",
)


def plan_counts(expr: object) -> str:
    """How often each per-group operation appears in the plan of ``expr``."""
    import polars as pl

    frame = pl.DataFrame({"query": [1], "rel": [1], "score": [1.0]}).lazy()
    plan = frame.group_by("query").agg(expr).explain()  # type: ignore[arg-type]
    counts = {op: len(re.findall(re.escape(op) + r"\(", plan)) for op in OPERATIONS}
    counts["sort"] = len(re.findall(r"\.sort(_by)?\(", plan))
    return ", ".join(f"{op} {n}" for op, n in counts.items() if n)


def run(rows: int, rounds: int, *, parts: bool) -> None:
    """Time every expression on every frame, ``rounds`` interleaved rounds; print the table."""
    import data as gen
    import polars as pl

    frames = {
        ("10-row queries", "shuffled"): gen.rectangular(rows // 10, 10, seed=1),
        ("200-row queries", "shuffled"): gen.rectangular(rows // 200, 200, seed=2),
    }
    for shape in ("10-row queries", "200-row queries"):
        frames[(shape, "query-sorted")] = gen.query_sorted(frames[(shape, "shuffled")])
    exprs = expressions(parts=parts)
    times: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    for _ in range(rounds):
        for key, frame in frames.items():
            for name, make in exprs.items():
                gc.collect()
                cpu, wall = time.process_time(), time.perf_counter()
                frame.group_by("query").agg(make())
                cell = times.setdefault((*key, name), [])
                cell.append((time.process_time() - cpu, time.perf_counter() - wall))
    threads = pl.thread_pool_size()
    print(f"{rows:,} rows per frame, {rounds} interleaved rounds, {threads} thread(s)")
    print("median over rounds of (expression / by hand): CPU time / wall time\n")
    names = [n for n in exprs if n != "by hand"]
    print("| shape | layout | by hand | " + " | ".join(names) + " |")
    print("|---|---|---" + "|---" * len(names) + "|")
    for shape, layout in frames:
        hand = times[(shape, layout, "by hand")]
        cells = [f"{statistics.median(w for _, w in hand):.3f} s"]
        for name in names:
            own = times[(shape, layout, name)]
            cpu = statistics.median(a[0] / b[0] for a, b in zip(own, hand, strict=True))
            wall = statistics.median(a[1] / b[1] for a, b in zip(own, hand, strict=True))
            cells.append(f"{cpu:.2f}× / {wall:.2f}×")
        print(f"| {shape} | {layout} | " + " | ".join(cells) + " |")
    tiny = pl.DataFrame({"query": [1, 1], "rel": [1, 0], "score": [0.3, 0.2]})
    print("\nfixed cost of a call (a 2-row frame, best of 20, the expression built each time):")
    for name, make in exprs.items():
        best = min(_timed(lambda make=make: tiny.group_by("query").agg(make())) for _ in range(20))
        print(f"- {name}: {1000 * best:.2f} ms")
    print("\nper-group operations in each plan:")
    for name, make in exprs.items():
        print(f"- {name}: {plan_counts(make())}")


def _timed(call: Callable[[], object]) -> float:
    """Wall seconds of one call."""
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
