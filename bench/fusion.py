"""``lp.fuse`` against ``ranx.fuse`` on identical runs, with a plain-Polars floor.

``--runs`` runs of ``--queries`` queries x ``--docs`` documents each (default
3 x 10,000 x 100 = 3e6 rows; each run draws its documents of a query from a pool
of ``1.5 * docs``, so the runs overlap but not fully), timed on this machine, best of
``--reps``:

* the floor: RRF written by hand in Polars (an ordinal rank over (query, run), then
  ``group_by(query, doc).agg(sum(1 / (60 + rank)))`` and the sort of the fused run),
  what fusing costs at all;
* ``lp.fuse`` on the long frame, per method (``rrf``, ``sum`` after min-max, ``mnz``
  after min-max, ``bordafuse``), the result collected as a sorted frame;
* ``ranx.fuse`` on ``ranx.Run`` objects built beforehand (numba warm: each method is
  called once on a small run first), and, stated apart, the cost of building those
  ``Run`` objects from a pandas frame (``Run.from_df``), which a user of ranx pays
  once per set of runs;
* Condorcet apart (``--condorcet-docs``, on ``--condorcet-queries`` queries), because
  its pairwise majority is quadratic in a query's documents for both tools.

Every fused run is checked against ranx's (same documents, scores to 1e-9) before
its time is printed. Usage: ``python bench/fusion.py [--queries 2000] [--docs 100]
[--runs 3]``; the printed tables go into docs/performance.md ("Rank fusion") by hand.
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

METHODS = [("rrf", None), ("sum", "min-max"), ("mnz", "min-max"), ("bordafuse", None)]


def best(fn: Callable[[], Any], reps: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(reps):
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
        gc.enable()
    return min(times), out


def make_runs(n_runs: int, queries: int, docs: int, seed: int = 7) -> pl.DataFrame:
    """One long frame (run, query, doc, score), rows shuffled."""
    rng = np.random.default_rng(seed)
    pool = int(docs * 1.5)
    parts = []
    for r in range(n_runs):
        chosen = np.argsort(rng.random((queries, pool)), axis=1)[:, :docs]
        parts.append(
            pl.DataFrame(
                {
                    "run": f"r{r}",
                    "query": np.repeat(np.arange(queries), docs),
                    "doc": chosen.ravel(),
                    "score": rng.random(queries * docs),
                }
            )
        )
    frame = pl.concat(parts).with_columns(
        pl.format("q{}", "query").alias("query"), pl.format("d{}", "doc").alias("doc")
    )
    return frame.sample(fraction=1.0, shuffle=True, seed=seed)


def floor_rrf(frame: pl.DataFrame) -> pl.DataFrame:
    """RRF (k=60) by hand: what any Polars fusion pays."""
    rank = pl.col("score").rank("ordinal", descending=True).over("query", "run")
    return (
        frame.with_columns((1.0 / (60.0 + rank)).alias("rrf"))
        .group_by("query", "doc")
        .agg(pl.col("rrf").sum().alias("score"))
        .sort(["query", "score"], descending=[False, True])
    )


def ranx_runs(frame: pl.DataFrame) -> list[Any]:
    from ranx import Run

    pdf = frame.to_pandas()
    return [
        Run.from_df(
            pdf[pdf["run"] == name].drop(columns="run"),
            q_id_col="query",
            doc_id_col="doc",
            score_col="score",
            name=name,
        )
        for name in sorted(frame["run"].unique())
    ]


def check(got: pl.DataFrame, ranx_run: Any, label: str) -> None:
    want = pl.DataFrame(
        [(q, d, s) for q, docs in ranx_run.to_dict().items() for d, s in docs.items()],
        schema=["query", "doc", "want"],
        orient="row",
    )
    joined = got.join(want, on=["query", "doc"], how="full", coalesce=True)
    assert joined.height == got.height == want.height, label
    err = (joined["score"] - joined["want"]).abs().max()
    assert err is not None, label
    assert float(err) <= 1e-9 * max(1.0, float(joined["want"].abs().max())), (label, err)


def fuse_lp(frame: pl.DataFrame, method: str, norm: str | None) -> pl.DataFrame:
    out: pl.DataFrame = lp.fuse(
        frame, method=method, norm=norm, by="query", item="doc", y_score="score"
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--condorcet-queries", type=int, default=200)
    parser.add_argument("--condorcet-docs", default="10,20,40,80")
    parser.add_argument("--condorcet-only", action="store_true", help="skip the first table")
    args = parser.parse_args()
    import ranx

    frame = make_runs(args.runs, args.queries, args.docs)
    print(f"{args.runs} runs x {args.queries} queries x {args.docs} docs = {frame.height} rows")
    # numba warm-up: every method once on a tiny set of runs
    tiny = ranx_runs(make_runs(args.runs, 3, 5, seed=1))
    for method, norm in [*METHODS, ("condorcet", None)]:
        ranx.fuse(tiny, norm=norm, method=method)
    if args.condorcet_only:
        condorcet(args, ranx)
        return
    t_build, runs = best(lambda: ranx_runs(frame), 1)
    t_floor, _ = best(lambda: floor_rrf(frame), args.reps)
    print(f"\nranx Run construction (Run.from_df, {args.runs} runs): {t_build:.2f} s")
    print(f"floor (RRF by hand in Polars): {t_floor:.2f} s\n")
    print("| method | floor | lp.fuse | ranx.fuse | ranx + Run build | ranx / lp.fuse |")
    print("|---|---|---|---|---|---|")
    for method, norm in METHODS:
        t_lp, got = best(lambda m=method, n=norm: fuse_lp(frame, m, n), args.reps)
        t_rx, want = best(lambda m=method, n=norm: ranx.fuse(runs, norm=n, method=m), args.reps)
        check(got, want, method)
        label = method if norm is None else f"{method} ({norm})"
        print(
            f"| {label} | {t_floor:.2f} s | {t_lp:.2f} s | {t_rx:.2f} s | "
            f"{t_rx + t_build:.2f} s | {t_rx / t_lp:.1f}x |"
        )
    condorcet(args, ranx)


def condorcet(args: argparse.Namespace, ranx: Any) -> None:
    print(f"\nCondorcet, {args.runs} runs x {args.condorcet_queries} queries:\n")
    print("| docs per run | rows | lp.fuse | ranx.fuse | ranx / lp.fuse |")
    print("|---|---|---|---|---|")
    for docs in [int(d) for d in args.condorcet_docs.split(",")]:
        small = make_runs(args.runs, args.condorcet_queries, docs, seed=docs)
        t_lp, _ = best(lambda s=small: fuse_lp(s, "condorcet", None), args.reps)
        small_runs = ranx_runs(small)
        t_rx, _ = best(lambda r=small_runs: ranx.fuse(r, norm=None, method="condorcet"), args.reps)
        print(f"| {docs} | {small.height} | {t_lp:.2f} s | {t_rx:.2f} s | {t_rx / t_lp:.1f}x |")


if __name__ == "__main__":
    main()
