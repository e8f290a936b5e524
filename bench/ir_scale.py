"""MAP@100 and recall@1000 on a 1e7-row run: the IR family's paths against the floor.

A run of ``--queries`` queries x ``--docs`` documents (default 10,000 x 1,000 =
1e7 rows, scores with ties, graded relevance, a few relevant documents per
query), timed on this machine, best of ``--reps``:

* the floor: Polars sorting the frame by (query, score descending);
* ``lp.evaluate`` with the names ``map@100`` and ``recall@1000`` (rows are the
  whole truth, ties averaged);
* ``group_by(query).agg`` of ``lp.average_precision_at_k(k=100)`` and
  ``lp.recall(k=1000)``, averaged ties and trec_eval's tie order;
* ``lp.trec.evaluate`` with ``map_cut.100`` and ``recall.1000`` from the same
  run and its qrels (trec_eval's rules, judged denominators);
* pytrec_eval on the same run (``--pytrec``; its dicts are built apart and
  not timed), for scale.

Usage: ``python bench/ir_scale.py [--queries 10000] [--docs 1000] [--pytrec]``.
The printed table goes into docs/performance.md by hand.
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


def best(fn: Callable[[], Any], reps: int) -> float:
    times = []
    for _ in range(reps):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--pytrec", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(11)
    n = args.queries * args.docs
    run = pl.DataFrame(
        {
            "qid": np.repeat(np.arange(args.queries), args.docs).astype(str),
            "docno": np.tile(np.arange(args.docs), args.queries).astype(str),
            "score": rng.integers(0, 200, n) / 8.0,  # ties
            "rel": rng.choice([0, 1, 2], size=n, p=[0.98, 0.015, 0.005]),
        }
    ).sample(fraction=1.0, shuffle=True, seed=3)
    qrels = run.filter(pl.col("rel") > 0).select("qid", "docno", "rel")
    rows: list[tuple[str, float]] = []
    floor = best(lambda: run.sort(["qid", "score"], descending=[False, True]), args.reps)
    rows.append(("floor: sort by (qid, score desc)", floor))
    rows.append(
        (
            'lp.evaluate(["map@100", "recall@1000"])',
            best(
                lambda: lp.evaluate(
                    run, ["map@100", "recall@1000"], by="qid", y_true="rel", y_score="score"
                ),
                args.reps,
            ),
        )
    )
    rows.append(
        (
            "agg: average_precision_at_k(k=100), recall(k=1000), ties averaged",
            best(
                lambda: run.group_by("qid").agg(
                    lp.average_precision_at_k("rel", "score", k=100),
                    lp.recall("rel", "score", k=1000),
                ),
                args.reps,
            ),
        )
    )
    rows.append(
        (
            'agg: the same, ties="trec_eval" (item="docno")',
            best(
                lambda: run.group_by("qid").agg(
                    lp.average_precision_at_k(
                        "rel", "score", k=100, ties="trec_eval", item="docno"
                    ),
                    lp.recall("rel", "score", k=1000, ties="trec_eval", item="docno"),
                ),
                args.reps,
            ),
        )
    )
    rows.append(
        (
            'lp.trec.evaluate(qrels, run, ["map_cut.100", "recall.1000"])',
            best(
                lambda: lp.trec.evaluate(
                    qrels, run.select("qid", "docno", "score"), ["map_cut.100", "recall.1000"]
                ),
                args.reps,
            ),
        )
    )
    if args.pytrec:
        import pytrec_eval

        t0 = time.perf_counter()
        run_dict: dict[str, dict[str, float]] = {}
        for q, d, s in run.select("qid", "docno", "score").iter_rows():
            run_dict.setdefault(q, {})[d] = s
        qrel_dict: dict[str, dict[str, int]] = {}
        for q, d, r in qrels.iter_rows():
            qrel_dict.setdefault(q, {})[d] = r
        evaluator = pytrec_eval.RelevanceEvaluator(qrel_dict, {"map_cut.100", "recall.1000"})
        build = time.perf_counter() - t0
        rows.append(
            (
                f"pytrec_eval (dicts and evaluator built apart: {build:.1f} s)",
                best(lambda: evaluator.evaluate(run_dict), 1),
            )
        )
    print(f"{n:,} rows, {args.queries:,} queries x {args.docs:,} documents")
    print("| path | seconds | x floor |\n|---|---|---|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.2f} | {seconds / floor:.1f}x |")


if __name__ == "__main__":
    main()
