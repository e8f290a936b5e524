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

Student's test, the comparison with ranx that matters (ranx's own default is Fisher's),
is timed best of ``--reps`` (default 15) in one loop that alternates the two tools, so
both see the same machine; ``lp.compare``'s first call (which also pays for the t
quantile) is printed beside it, with the frame's rows shuffled (each run sorted on the query) and
the runs given as a mapping. The line ``lp.compare / ranx, Student: 0.45x`` is the ratio
of the two best times. The resampling tests are timed once each (``--tests`` picks).

Usage: ``python bench/compare.py [--queries 100000] [--resamples 10000] [--tests student]``.
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


def _both(
    result: Any, ranx_result: Any, names: list[str], metrics: list[str]
) -> list[tuple[float, float]]:
    """Each pair of runs and metric: lp.compare's p-value and ranx's."""
    p = {
        (a, b, mt): v
        for a, b, mt, v in result.pairs.select("run", "other", "metric", "p_value").iter_rows()
    }
    return [
        (p[(a, b, mt)], ranx_result[frozenset([a, b])][mt]["p_value"])
        for i, a in enumerate(names)
        for b in names[i + 1 :]
        for mt in metrics
    ]


def _wilcoxon_rows(
    args: Any,
    frame: pl.DataFrame,
    names: list[str],
    scores: Any,
    values: dict[str, np.ndarray],
    run_lp: Callable[..., Any],
    rows: list[tuple[str, float, str]],
) -> None:
    """Wilcoxon: lp.compare against scipy's wilcoxon over every pair (ranx has none).

    And against ranx's own fastest test (Student's) on the same arrays; the p-values checked.
    """
    from scipy.stats import wilcoxon

    reps = max(1, min(args.reps, 5))

    def scipy_all() -> dict[tuple[str, str], np.ndarray]:
        return {
            (a, b): wilcoxon(values[b], values[a], axis=0).pvalue
            for i, a in enumerate(names)
            for b in names[i + 1 :]
        }

    t_lp, result = best(lambda: run_lp(frame, "wilcoxon"), reps)
    t_scipy, ref = best(scipy_all, 1)
    rows.append((f'`lp.compare(test="wilcoxon")`, best of {reps}', t_lp, ""))
    rows.append(("`scipy.stats.wilcoxon` over every pair (all metrics at once)", t_scipy, ""))
    p = {
        (a, b, mt): v
        for a, b, mt, v in result.pairs.select("run", "other", "metric", "p_value").iter_rows()
    }
    worst = max(
        abs(p[(a, b, f"metric{j}")] - v) / max(v, 1e-300)
        for (a, b), pv in ref.items()
        for j, v in enumerate(pv)
    )
    print(f"Wilcoxon p-values, largest relative difference to scipy: {worst:.1e}")
    print(f"lp.compare wilcoxon / scipy wilcoxon per pair: {t_lp / t_scipy:.2f}x")
    if not args.no_ranx:
        from ranx.statistical_tests import compute_statistical_significance

        t_ranx, _ = best(
            lambda: compute_statistical_significance(names, scores, "student", 0, 0.05), reps
        )
        rows.append((f'ranx `compare`\'s tests, `stat_test="student"`, best of {reps}', t_ranx, ""))
        print(f"lp.compare wilcoxon / ranx student: {t_lp / t_ranx:.2f}x")


def _tukey_rows(
    args: Any,
    frame: pl.DataFrame,
    names: list[str],
    metrics: list[str],
    scores: Any,
    run_lp: Callable[..., Any],
    rows: list[tuple[str, float, str]],
) -> None:
    """Tukey's HSD: lp.compare against ranx's stat_test="tukey" (scipy's tukey_hsd)."""
    reps = max(1, min(args.reps, 5))
    t_lp, result = best(lambda: run_lp(frame, "tukey"), reps)
    rows.append((f'`lp.compare(test="tukey")`, best of {reps}', t_lp, ""))
    if args.no_ranx:
        return
    from ranx.statistical_tests import compute_statistical_significance

    t_ranx, ref = best(
        lambda: compute_statistical_significance(names, scores, "tukey", max_p=0.05), 1
    )
    rows.append(('ranx `compare`\'s tests, `stat_test="tukey"`', t_ranx, ""))
    worst = max(abs(ours - theirs) for ours, theirs in _both(result, ref, names, metrics))
    print(f"Tukey p-values, largest absolute difference to ranx: {worst:.1e}")
    print(f"lp.compare tukey / ranx tukey: {t_lp / t_ranx:.2f}x")


def main() -> None:
    """Time, check, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--metrics", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--ranx-permutations", type=int, default=100)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--tests", default="student,fisher,bootstrap")
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

    t_floor, _ = best(floor, 1)
    rows.append(("floor: the random bits of the sign flips (`rng.bytes`)", t_floor, ""))
    tests = args.tests.split(",")
    results: dict[str, Any] = {}
    scores = {name: {mt: np.ascontiguousarray(v[:, j]) for j, mt in enumerate(metrics)}
              for name, v in values.items()}  # fmt: skip

    def run_lp(data: Any, test: str = "student") -> Any:
        return lp.compare(data, baseline="run0", test=test, n_resamples=r, correction=None)

    if "student" in tests:
        shuffled = frame.sample(fraction=1.0, shuffle=True, seed=1)
        mapping = {name: frame.filter(pl.col("run") == name).drop("run") for name in names}
        start = time.perf_counter()
        results["student"] = run_lp(frame)
        first = time.perf_counter() - start
        timed: dict[str, list[float]] = {}
        calls: list[tuple[str, Callable[[], Any]]] = [
            ("lp", lambda: run_lp(frame)),
            ("lp shuffled", lambda: run_lp(shuffled)),
            ("lp mapping", lambda: run_lp(mapping)),
        ]
        if not args.no_ranx:
            from ranx.statistical_tests import compute_statistical_significance

            calls.append(
                (
                    "ranx",
                    lambda: compute_statistical_significance(names, scores, "student", 0, 0.05),
                )
            )
        for _ in range(args.reps):  # alternate the tools: both see the same machine
            for label, call in calls:
                t, _ = best(call, 1)
                timed.setdefault(label, []).append(t)
        rows.append(('`lp.compare(test="student")`, first call', first, ""))
        rows.append((f'`lp.compare(test="student")`, best of {args.reps}', min(timed["lp"]), ""))
        rows.append(
            ('`lp.compare(test="student")`, rows shuffled (each run sorted on the query)',
             min(timed["lp shuffled"]), "")
        )  # fmt: skip
        rows.append(
            ('`lp.compare(test="student")`, a mapping run -> frame', min(timed["lp mapping"]), "")
        )
        if "ranx" in timed:
            rows.append(
                (f'ranx `compare`\'s tests, `stat_test="student"`, best of {args.reps}',
                 min(timed["ranx"]), "")
            )  # fmt: skip
            ratio = min(timed["lp"]) / min(timed["ranx"])
            print(f"lp.compare / ranx, Student: {ratio:.2f}x (best of {args.reps} each)")
    for test in ("fisher", "bootstrap"):
        if test in tests:
            t, results[test] = best(lambda test=test: run_lp(frame, test), 1)
            rows.append((f'`lp.compare(test="{test}")`', t, ""))
    if not args.no_ranx:
        from ranx.statistical_tests import compute_statistical_significance

    if "wilcoxon" in tests:
        _wilcoxon_rows(args, frame, names, scores, values, run_lp, rows)
    if "tukey" in tests:
        _tukey_rows(args, frame, names, metrics, scores, run_lp, rows)
    if not args.no_ranx and "fisher" in tests:
        tiny = {name: {mt: s[mt][:50] for mt in metrics} for name, s in scores.items()}
        compute_statistical_significance(names, tiny, "fisher", 10)  # numba compile, untimed
        p = args.ranx_permutations
        t, ranx_fisher = best(
            lambda: compute_statistical_significance(names, scores, "fisher", p, 0.05), 1
        )
        rows.append(
            (f'ranx `compare`\'s tests, `stat_test="fisher"` ({p} permutations x {r // p})',
             t * r / p, "~")
        )  # fmt: skip
    # Same numbers: Student to 1e-12, Fisher within Monte Carlo error of ranx's permutations.
    if not args.no_ranx and "student" in tests:
        ranx_student = compute_statistical_significance(names, scores, "student", 0, 0.05)
        worst, tiny_p = 0.0, 0
        for ours, theirs in _both(results["student"], ranx_student, names, metrics):
            if theirs > 1e-290:  # below, subnormal: fewer digits to compare
                worst = max(worst, abs(ours - theirs) / theirs)
            else:
                tiny_p += 1
        print(
            f"Student p-values, largest relative difference to ranx: {worst:.1e} "
            f"({tiny_p} p-values below 1e-290 not compared)"
        )
    if not args.no_ranx and "fisher" in tests:
        both = _both(results["fisher"], ranx_fisher, names, metrics)
        worst = max(abs(ours - theirs) for ours, theirs in both)
        print(f"Fisher p-values, largest absolute difference to ranx ({p} perms): {worst:.3f}")
    print()
    print("| call | seconds | x floor |")
    print("|---|---|---|")
    for label, t, mark in rows:
        print(f"| {label} | {mark}{t:.3f} | {mark}{t / t_floor:.2f}x |")


if __name__ == "__main__":
    main()
