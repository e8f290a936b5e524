"""Local Spark ``spark.ranking_report`` against single-machine ``lp.ranking_report``.

A log of ``--lists`` lists of ``--items`` candidates each (every list scores the whole
catalogue, scores from 8 values, one click per list, entities of 10 lists), written to Parquet
under ``bench/data/`` (not committed).  Then, in this process: a ``local[2]`` session (start-up
timed apart), ``spark.ranking_report`` over ``spark.read.parquet(path)``, and
``lp.ranking_report`` over ``pl.scan_parquet(path)``; their seconds, whether the payloads agree
(the primary micro family and ``uncertainty`` exactly, the rest to 1e-12), and the size of what
reaches the driver: the pickled partial terms of each partition and of their combination.

Usage::

    python bench/spark_report.py --lists 100000 --items 10

The numbers it prints go into docs/spark.md by hand.
"""

from __future__ import annotations

import argparse
import math
import os
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import lodestar_polars as lp
import lodestar_polars.spark as lps
from lodestar_polars._report import parts as _report_parts


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)
    return bool(a == b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lists", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=10)
    parser.add_argument("--partitions", type=int, default=4)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n = args.lists * args.items
    lists = np.repeat(np.arange(args.lists), args.items)
    items = np.tile(np.arange(args.items), args.lists)
    truth = np.repeat(rng.integers(0, args.items, args.lists), args.items)
    log = pl.DataFrame(
        {
            "user": lists,
            "entity": lists // 10,
            "item": items,
            "score": rng.integers(0, 8, n) / 7.0,
            "clicked": items == truth,
        }
    )
    path = Path(__file__).parent / "data" / f"report_{args.lists}x{args.items}.parquet"
    path.parent.mkdir(exist_ok=True)
    log.write_parquet(path)
    train = pl.DataFrame({"item": rng.zipf(1.5, 50_000) % args.items})
    options: dict[str, Any] = {
        "by": "user",
        "item": "item",
        "y_true": "clicked",
        "y_score": "score",
        "objectives": ("accuracy",),
        "groups": "entity",
        "train": train,
        "n_resamples": 1000,
    }
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    start = time.perf_counter()
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    print(f"rows {n:,}; Spark start-up {time.perf_counter() - start:.1f} s")
    sdf = spark.read.parquet(str(path))
    start = time.perf_counter()
    on_spark = lps.ranking_report(sdf, num_partitions=args.partitions, **options)
    seconds = time.perf_counter() - start
    print(f"spark.ranking_report, {args.partitions} partitions: {seconds:.1f} s")
    start = time.perf_counter()
    local = lp.ranking_report(pl.scan_parquet(path), **options)
    print(f"lp.ranking_report (scan, whole): {time.perf_counter() - start:.1f} s")
    primary = local["objectives"]["accuracy"]["micro"]
    exact = on_spark["objectives"]["accuracy"]["micro"] == primary and (
        on_spark["uncertainty"] == local["uncertainty"]
    )
    print(f"primary micro and uncertainty bit for bit: {exact}; all to 1e-12: "
          f"{_close(dict(on_spark), dict(local))}")  # fmt: skip
    # what reaches the driver: each partition's partial, and the combined one
    table = _report_parts.popularity_table("item", pl.Int64, train, None)
    context = _report_parts.PartContext(
        keys=["user"], item="item", score="score", truth="clicked", groups="entity", mp="each",
        kk=10, names=["accuracy"], primary="accuracy", block_alpha={"accuracy": 0.0},
        transforms={"shrinkage": False, "shrinkage_strength": None, "percentile": False},
        state=None, table=table, shrink=False, strength=None, percentile=False,
    )  # fmt: skip
    numbered = log.with_row_index(_report_parts._GROW)
    partials = []
    for bucket in range(args.partitions):
        merged = _report_parts._Merged()
        part = numbered.filter(pl.col("user") % args.partitions == bucket)
        _report_parts.take_part(merged, part, context)
        partials.append(merged)
    sizes = [len(pickle.dumps(p, protocol=pickle.HIGHEST_PROTOCOL)) for p in partials]
    combined = partials[0]
    for p in partials[1:]:
        combined = _report_parts.combine(combined, p, "item")
    total = len(pickle.dumps(combined, protocol=pickle.HIGHEST_PROTOCOL))
    print(
        f"partial per partition {np.mean(sizes) / 1e6:.2f} MB; combined (the driver's) "
        f"{total / 1e6:.2f} MB for {local['n_lists']:,} graded lists: "
        f"{total / local['n_lists']:.0f} B a list"
    )
    spark.stop()


if __name__ == "__main__":
    main()
