#!/usr/bin/env python
"""``group_by("g").agg(lp.expected_calibration_error(...))``: quantile bins against uniform bins.

    python bench/ece_quantile_expr.py                   # 1e4 groups of 100 and of 20 rows
    python bench/ece_quantile_expr.py --rows 100 --rounds 5

The frame of issue 20: ``g`` repeated ``rows`` times for 10,000 groups, ``y`` random
0/1, ``p`` uniform on [0, 1).  Each round times both strategies, one after the
other, so a load change on a shared machine hits them alike; prints the minimum and
the median over the rounds (wall time) and the ratio of the minima.  Prints
Markdown (docs/performance.md, "Quantile-bin ECE in a group-by").
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import lodestar_polars as lp  # noqa: E402


def frame(rows: int, groups: int = 10_000, seed: int = 0) -> pl.DataFrame:
    """Issue 20's frame: ``groups`` groups of ``rows`` rows."""
    rng = np.random.default_rng(seed)
    n = groups * rows
    return pl.DataFrame(
        {"g": np.repeat(np.arange(groups), rows), "y": rng.integers(0, 2, n), "p": rng.random(n)}
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100, 20])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print("| rows per group | uniform min / median | quantile min / median | quantile / uniform |")
    print("|---|---|---|---|")
    for rows in args.rows:
        df = frame(rows)
        times: dict[str, list[float]] = {"uniform": [], "quantile": []}
        for _ in range(args.rounds):
            for strategy, spent in times.items():
                expr = lp.expected_calibration_error("y", "p", strategy=strategy)  # type: ignore[arg-type]
                start = time.perf_counter()
                df.group_by("g").agg(expr)
                spent.append(time.perf_counter() - start)
        u, q = times["uniform"], times["quantile"]
        print(
            f"| {rows} | {min(u):.3f} s / {statistics.median(u):.3f} s "
            f"| {min(q):.3f} s / {statistics.median(q):.3f} s | {min(q) / min(u):.2f}x |"
        )


if __name__ == "__main__":
    main()
