"""lp.compare against ranx's compare, on the same per-query values.

``--runs`` runs x ``--queries`` queries x ``--metrics`` metrics of per-query values
(default 5 x 100,000 x 3, correlated across runs as real runs are), then, best of
``--reps`` wall time on this machine:

* the floor: drawing the random bits of ``--resamples`` sign-flip patterns of all queries
  (``rng.bytes``), the least any Monte Carlo randomization test over them must do;
* ``lp.compare`` with ``test="student"``, ``"fisher"`` (``--resamples`` patterns) and
  ``"bootstrap"`` (``--resamples`` resamples); every pair of runs and every metric;
* ranx's statistical step of ``ranx.compare`` (``compute_statistical_significance``, the
  call ``compare`` makes once the per-query scores exist) on the same arrays, Student and
  Fisher. ranx's Fisher loop permutes each query's pair in Python-compiled code, so it is
  timed with ``--ranx-permutations`` permutations and scaled linearly to ``--resamples``
  (marked ``~``); its cost is linear in the permutations (one loop iteration each).

Both tools' Student p-values are checked equal (to 1e-12) and their Fisher p-values
within Monte Carlo error. The printed table goes into docs/performance.md by hand.

Usage: ``python bench/compare.py [--queries 100000] [--resamples 10000]``.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl

import lodestar_polars as lp


def best(fn: Callable[[], Any], reps: int) -> tuple[float, Any]:
    """Best-of-``reps`` wall time of ``fn`` and its last result."""
    times, out = [], None
    for _ in range(reps):
        gc.collect()
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def main() -> None:
    """Time, check, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--metrics", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--ranx-permutations", type=int, default=100)
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--no-ranx", action="store_true")
    args = parser.parse_args()
    n, k, m, r = args.queries, args.runs, args.metrics, args.resamples
    rng = np.random.default_rng(0)
    names = [f"run{i}" for i in range(k)]
    metrics = [f"metric{j}" for j in range(m)]
    base = rng.beta(2, 3, (n, m))
    values = {
        name: np.clip(base + rng.normal(0.005 * i, 0.1, (n, m)), 0, 1)
        for i, name in enumerate(names)
    }
    frame = pl.concat(
        pl.DataFrame({"run": name, "query": np.arange(n), **dict(zip(metrics, v.T, strict=True))})
        for name, v in values.items()
    )
    print(f"{k} runs x {n:,} queries x {m} metrics, {r:,} resamples")
    rows: list[tuple[str, float, str]] = []

    def floor() -> None:
        g = np.random.default_rng(1)
        block = max(1, (1 << 24) // n)
        for start in range(0, r, block):
            g.bytes(min(block, r - start) * ((n + 7) // 8))

    t_floor, _ = best(floor, args.reps)
    rows.append(("floor: the random bits of the sign flips (`rng.bytes`)", t_floor, ""))
    results = {}
    for test in ("student", "fisher", "bootstrap"):
        t, res = best(
            lambda test=test: lp.compare(
                frame, baseline="run0", test=test, n_resamples=r, correction=None
            ),
            args.reps,
        )
        results[test] = res
        rows.append((f'`lp.compare(test="{test}")`', t, ""))
    if not args.no_ranx:
        from ranx.statistical_tests import compute_statistical_significance

        scores = {name: {mt: np.ascontiguousarray(v[:, j]) for j, mt in enumerate(metrics)}
                  for name, v in values.items()}  # fmt: skip
        tiny = {name: {mt: s[mt][:50] for mt in metrics} for name, s in scores.items()}
        compute_statistical_significance(names, tiny, "fisher", 10)  # numba compile, untimed
        t, ranx_student = best(
            lambda: compute_statistical_significance(names, scores, "student", max_p=0.05),
            args.reps,
        )
        rows.append(('ranx `compare`\'s tests, `stat_test="student"`', t, ""))
        p = args.ranx_permutations
        t, ranx_fisher = best(
            lambda: compute_statistical_significance(names, scores, "fisher", p, 0.05), args.reps
        )
        rows.append(
            (f'ranx `compare`\'s tests, `stat_test="fisher"` ({p} permutations x {r // p})',
             t * r / p, "~")
        )  # fmt: skip
        # Same numbers: Student exactly, Fisher within Monte Carlo error of ranx's p permutations.
        pairs = results["student"].pairs
        worst_student, worst_fisher, tiny_p = 0.0, 0.0, 0
        for a in names:
            for b in names:
                if a >= b:
                    continue
                for mt in metrics:
                    sel = pairs.filter(
                        (pl.col("run") == a) & (pl.col("other") == b) & (pl.col("metric") == mt)
                    )
                    ours = sel["p_value"][0]
                    theirs = ranx_student[frozenset([a, b])][mt]["p_value"]
                    if theirs > 1e-290:  # below, subnormal: fewer digits to compare
                        worst_student = max(worst_student, abs(ours - theirs) / theirs)
                    else:
                        tiny_p += 1
                    f_ours = results["fisher"].pairs.filter(
                        (pl.col("run") == a) & (pl.col("other") == b) & (pl.col("metric") == mt)
                    )["p_value"][0]
                    f_theirs = ranx_fisher[frozenset([a, b])][mt]["p_value"]
                    worst_fisher = max(worst_fisher, abs(f_ours - f_theirs))
        print(
            f"Student p-values, largest relative difference to ranx: {worst_student:.1e} "
            f"({tiny_p} p-values below 1e-290 not compared)"
        )
        print(
            f"Fisher p-values, largest absolute difference to ranx ({p} perms): {worst_fisher:.3f}"
        )
    print()
    print("| call | seconds | x floor |")
    print("|---|---|---|")
    for label, t, mark in rows:
        print(f"| {label} | {mark}{t:.2f} | {mark}{t / t_floor:.1f}x |")


if __name__ == "__main__":
    main()
