"""Local Spark (``lodestar_polars.spark.evaluate``) against single-machine ``lp.evaluate``.

Writes a Parquet eval log under ``bench/data/`` (not committed): ``--rows`` rows,
queries of 10 documents on average, scores with ties; with ``--skew`` one query
of ``--skew`` rows is added next to them.  Then, each in a fresh subprocess:

``polars``
    ``lp.evaluate`` on ``pl.scan_parquet(path)`` (a LazyFrame), collected;
    seconds and peak RSS (``getrusage``).
``spark``
    a ``local[N]`` Spark session (start-up timed apart), then
    ``lodestar_polars.spark.evaluate`` over ``spark.read.parquet(path)``
    written to Spark's ``noop`` sink (every row evaluated, nothing kept);
    seconds, and the peak RSS of the whole process tree (driver, JVM, Python
    workers), sampled from ``/proc`` every 0.1 s.
``one_task``, ``no_count``, ``two_stage``
    with ``--skew``: the @k metrics (``ndcg@10``, ``rr@10``, ``dcg@10``) with
    the huge query scored whole in one task (routed, after a count of rows per
    group; or ``no_count``, ``large_group_rows=math.inf``, no routing and no
    count), then scored in two stages (``large_group_rows``, ``docs/spark.md``),
    each in its own process:
    seconds and the peak RSS of the process tree; then the largest difference
    between their values.
``per-group``
    the same Spark job shaped the other way, one Python call per group
    (``groupBy(by).applyInArrow``, each call one ``lp.evaluate`` on one
    query), against one Polars call per partition (``mapInArrow``), on the
    first ``--per-group-rows`` rows: the ratio of the two.

Usage::

    python bench/spark.py --rows 1e6
    python bench/spark.py --rows 1e6 --skew 5e6 --skip-per-group
    python bench/spark.py --rows 1e6 --skew 5e6 --split-only
    python bench/spark.py --rows 1e6 --skew 1e8 --split-only --split-modes two_stage

The numbers it prints go into docs/performance.md by hand.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

DATA = Path(__file__).resolve().parent / "data"
METRICS = ["ndcg@10", "rr@10", "dcg"]
KWARGS: dict[str, Any] = {
    "by": "query",
    "y_true": "relevance",
    "y_score": "score",
    "strict": False,
}


def write_log(path: Path, rows: int, skew: int, seed: int = 7) -> None:
    """``rows`` rows in queries of ~10, shuffled; plus one query of ``skew`` rows."""
    rng = np.random.default_rng(seed)
    n_queries = max(1, rows // 10)
    schema = pa.schema([("query", pa.int64()), ("score", pa.float64()), ("relevance", pa.int8())])
    with pq.ParquetWriter(path, schema) as writer:
        for n, big in [(rows, False), (skew, True)]:
            done = 0
            while done < n:
                m = min(5_000_000, n - done)
                query = np.full(m, -1) if big else rng.integers(0, n_queries, m)
                table = pa.table(
                    {
                        "query": query.astype(np.int64),
                        "score": rng.integers(0, 20, m) / 4.0,
                        "relevance": rng.integers(0, 4, m).astype(np.int8),
                    },
                    schema=schema,
                )
                writer.write_table(table, row_group_size=1_000_000)
                done += m


def _tree_rss() -> tuple[int, int]:
    """Bytes resident in this process and its descendants, and in the largest Python one.

    Read from Linux ``/proc``; a descendant running Python is a Spark Python worker.
    """
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(entry), int(fields[1])
        children.setdefault(ppid, []).append(pid)
        rss[pid] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, worker, stack = 0, 0, [os.getpid()]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        if pid != os.getpid():
            try:
                with open(f"/proc/{pid}/comm") as f:
                    if f.read().startswith("python"):
                        worker = max(worker, rss.get(pid, 0))
            except OSError:
                pass
        stack.extend(children.get(pid, []))
    return total, worker


class PeakTreeRss:
    """Sample the process tree's RSS in a thread.

    ``peak`` is the largest total seen, ``worker_peak`` the largest of one Python worker.
    """

    def __init__(self) -> None:
        self.peak = 0
        self.worker_peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            total, worker = _tree_rss()
            self.peak = max(self.peak, total)
            self.worker_peak = max(self.worker_peak, worker)
            time.sleep(0.1)

    def __enter__(self) -> PeakTreeRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def run_polars(path: Path) -> dict[str, float]:
    """Single machine: lp.evaluate on a LazyFrame over the Parquet file."""
    import polars as pl

    import lodestar_polars as lp

    start = time.perf_counter()
    result = lp.evaluate(pl.scan_parquet(path), METRICS, **KWARGS).collect()
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"seconds": seconds, "peak_rss_gb": peak / 1e9, "groups": result.height}


def _session(cores: int) -> Any:
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master(f"local[{cores}]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def run_spark(path: Path, cores: int, num_partitions: int | None) -> dict[str, float]:
    """Local Spark: start-up apart, then the evaluation written to the noop sink."""
    import lodestar_polars.spark as lps

    with PeakTreeRss() as rss:
        start = time.perf_counter()
        spark = _session(cores)
        startup = time.perf_counter() - start
        sdf = spark.read.parquet(str(path))
        start = time.perf_counter()
        result = lps.evaluate(sdf, METRICS, num_partitions=num_partitions, **KWARGS)
        result.write.format("noop").mode("overwrite").save()
        seconds = time.perf_counter() - start
        partitions = result.rdd.getNumPartitions()
    spark.stop()
    return {
        "startup_s": startup,
        "seconds": seconds,
        "peak_tree_rss_gb": rss.peak / 1e9,
        "partitions": partitions,
    }


CUT = ["ndcg@10", "rr@10", "dcg@10"]
"""Metrics a group can be split for (each cut at k)."""


def run_split(path: Path, cores: int, skew: int, mode: str) -> dict[str, float]:
    """The huge query whole in one task (``one_task``, ``no_count``) or in two stages."""
    import polars as pl

    import lodestar_polars.spark as lps

    # one_task: routed (a count of rows per group) but never split; no_count:
    # math.inf, the routing and its count off; two_stage: the huge query split
    limit = {"one_task": 2**62, "no_count": math.inf}.get(mode, max(1, skew // 2))
    with PeakTreeRss() as rss:
        spark = _session(cores)
        sdf = spark.read.parquet(str(path))
        start = time.perf_counter()
        result = lps.evaluate(sdf, CUT, large_group_rows=limit, **KWARGS).persist()
        result.write.format("noop").mode("overwrite").save()
        seconds = time.perf_counter() - start
        values = pl.from_arrow(result.toArrow())
    spark.stop()
    assert isinstance(values, pl.DataFrame)
    values.sort("query").write_parquet(path.with_suffix(f".{mode}.parquet"))
    return {
        "mode": mode,
        "seconds": seconds,
        "peak_tree_rss_gb": rss.peak / 1e9,
        "peak_python_worker_rss_gb": rss.worker_peak / 1e9,
    }


def split_difference(path: Path) -> float:
    """The largest difference between the one-task and the two-stage values."""
    import polars as pl

    whole = pl.read_parquet(path.with_suffix(".one_task.parquet"))
    split = pl.read_parquet(path.with_suffix(".two_stage.parquet"))
    assert whole["query"].equals(split["query"])
    return max(float((whole[m] - split[m]).abs().max() or 0.0) for m in CUT)


def run_per_group(path: Path, cores: int, rows: int) -> dict[str, float]:
    """One Python call per group (applyInArrow) against one per partition (mapInArrow)."""
    import polars as pl
    from pyspark.sql.types import DoubleType, LongType, StructField, StructType

    import lodestar_polars as lp
    import lodestar_polars.spark as lps

    spark = _session(cores)
    sdf = spark.read.parquet(str(path)).limit(rows).cache()
    sdf.count()
    schema = StructType(
        [StructField("query", LongType())] + [StructField(m, DoubleType()) for m in METRICS]
    )

    def one_group(table: pa.Table) -> pa.Table:
        frame = pl.from_arrow(table)
        assert isinstance(frame, pl.DataFrame)
        return lp.evaluate(frame, METRICS, **KWARGS).to_arrow()

    timings = {}
    for name, job in [
        ("per_partition_s", lambda: lps.evaluate(sdf, METRICS, num_partitions=cores, **KWARGS)),
        ("per_group_s", lambda: sdf.groupBy("query").applyInArrow(one_group, schema)),
    ]:
        start = time.perf_counter()
        job().write.format("noop").mode("overwrite").save()
        timings[name] = time.perf_counter() - start
    spark.stop()
    timings["ratio"] = timings["per_group_s"] / timings["per_partition_s"]
    timings["rows"] = rows
    return timings


def main() -> None:
    """Write the log, run each measurement in a fresh subprocess, print JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e6)
    parser.add_argument("--skew", type=float, default=0, help="rows of one extra huge query")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--num-partitions", type=int, default=None)
    parser.add_argument("--per-group-rows", type=float, default=1e5)
    parser.add_argument("--skip-per-group", action="store_true")
    parser.add_argument("--split-only", action="store_true", help="only the split step")
    parser.add_argument(
        "--split-modes",
        default="one_task,two_stage",
        help="with --split-only: among one_task, no_count (large_group_rows=math.inf), two_stage",
    )
    parser.add_argument("--only", help=argparse.SUPPRESS)
    parser.add_argument("--path", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only:
        path = Path(args.path)
        if args.only == "polars":
            out = run_polars(path)
        elif args.only == "spark":
            out = run_spark(path, args.cores, args.num_partitions)
        elif args.only in ("one_task", "no_count", "two_stage"):
            out = run_split(path, args.cores, int(args.skew), args.only)
        else:
            out = run_per_group(path, args.cores, int(args.per_group_rows))
        print(json.dumps(out))
        return
    DATA.mkdir(exist_ok=True)
    rows, skew = int(args.rows), int(args.skew)
    path = DATA / f"spark_{rows}_{skew}.parquet"
    if not path.exists():
        write_log(path, rows, skew)
    steps = ["polars", "spark"] + ([] if args.skip_per_group else ["per-group"])
    steps += ["one_task", "two_stage"] if skew else []
    if args.split_only:
        steps = args.split_modes.split(",")
    for step in steps:
        command = [sys.executable, __file__, "--only", step, "--path", str(path)]
        command += ["--cores", str(args.cores), "--per-group-rows", str(args.per_group_rows)]
        command += ["--skew", str(skew)]
        if args.num_partitions:
            command += ["--num-partitions", str(args.num_partitions)]
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        print(json.dumps({"step": step, "rows": rows, "skew": skew, **result}), flush=True)
    if {"one_task", "two_stage"} <= set(steps):
        print(json.dumps({"step": "split", "max_abs_difference": split_difference(path)}))


if __name__ == "__main__":
    main()
