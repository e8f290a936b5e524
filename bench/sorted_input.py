#!/usr/bin/env python
"""Query-sorted against shuffled rows: ``lp.evaluate``'s time over the sort floor on each.

    python bench/sorted_input.py             # 1M-2M rows per shape, about 2 minutes
    python bench/sorted_input.py --scale 0.1

For each ranking shape of ``bench/run.py`` (small, small with heavy ties, long, Zipf
lengths) the same generated rows are timed twice: shuffled, and ordered by query
(``data.query_sorted``: no sorted flag, as read back from Parquet).  Each cell is
``lp.evaluate`` over the floor of that layout, ``df.sort(["query", "score"],
descending=[False, True])``, both best of ``--reps``; the next column repeats it for
``group_by().agg(lp.ndcg(k=10))``, and the last for Polars' own cheapest aggregation,
``group_by().agg(pl.col("score").sum())``: how the layout moves any group-by against the
floor, whatever its expressions; then ``group_by().agg(pl.col("rel").sort_by("score"))``,
Polars ordering each group's rows, which a ranking metric's expression needs in some form
(its seconds per million rows).  The results are printed as a Markdown table
(docs/performance.md, "Query-sorted input", quotes one run).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import data as gen  # noqa: E402
import polars as pl  # noqa: E402
from run import best_of  # noqa: E402

import lodestar_polars as lp  # noqa: E402

METRICS = [("NDCG@10", "ndcg@10", "rel"), ("MRR@10", "rr@10", "binrel"), ("AP", "ap", "binrel")]


def best(fn: Callable[[], Any], reps: int) -> float:
    """``bench/run.py``'s best-of timing, with no budget to cut it short."""
    return best_of(fn, reps, budget=float("inf"))[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the query counts")
    parser.add_argument("--reps", type=int, default=5, help="best of N calls")
    args = parser.parse_args()
    sc = args.scale
    shapes = {
        "small (200k x 10)": gen.rectangular(max(2, int(200_000 * sc)), 10, seed=1),
        "small, heavy ties": gen.rectangular(max(2, int(200_000 * sc)), 10, ties=True, seed=1),
        "long (5k x 200)": gen.rectangular(max(2, int(5_000 * sc)), 200, seed=2),
        "Zipf lengths": gen.zipf(max(1_000, int(1_000_000 * sc)), seed=3),
    }
    print(
        "| shape | rows | floor, shuffled / sorted | "
        + " | ".join(f"{label}, shuffled / sorted" for label, _, _ in METRICS)
        + " | agg NDCG@10, shuffled / sorted | agg sum (Polars alone), shuffled / sorted"
        + " | agg sort_by (Polars alone), ms per 1M rows, shuffled / sorted |"
    )
    print("|---" * (6 + len(METRICS)) + "|")
    for name, shuffled in shapes.items():
        layouts = {"shuffled": shuffled, "sorted": gen.query_sorted(shuffled)}
        floors = {
            k: best(lambda df=df: df.sort(["query", "score"], descending=[False, True]), args.reps)
            for k, df in layouts.items()
        }
        cells = []
        for _, metric, y in METRICS:
            ratios = [
                best(
                    lambda df=df, m=metric, y=y: lp.evaluate(
                        df, [m], by="query", y_true=y, y_score="score"
                    ),
                    args.reps,
                )
                / floors[k]
                for k, df in layouts.items()
            ]
            cells.append(" / ".join(f"{r:.2f}×" for r in ratios))
        agg = [
            best(lambda df=df: df.group_by("query").agg(lp.ndcg("rel", "score", k=10)), args.reps)
            / floors[k]
            for k, df in layouts.items()
        ]
        cells.append(" / ".join(f"{r:.2f}×" for r in agg))
        plain = [
            best(lambda df=df: df.group_by("query").agg(pl.col("score").sum()), args.reps)
            / floors[k]
            for k, df in layouts.items()
        ]
        cells.append(" / ".join(f"{r:.2f}×" for r in plain))
        sort_by = [
            best(lambda df=df: df.group_by("query").agg(pl.col("rel").sort_by("score")), args.reps)
            / df.height
            * 1e9
            for df in layouts.values()
        ]
        cells.append(" / ".join(f"{ms:.0f}" for ms in sort_by))
        floor_cell = f"{floors['shuffled']:.3f} s / {floors['sorted']:.3f} s"
        print(f"| {name} | {shuffled.height:,} | {floor_cell} | " + " | ".join(cells) + " |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
