"""Evaluate an eval log larger than memory: peak RSS and rows per second.

Writes a Parquet log of ``--rows`` rows (query, doc, score, relevance; 10
documents per query on average, scores with ties) under ``bench/data/`` (not
committed), sorted by query or shuffled, then runs ``lp.evaluate`` on a
``LazyFrame`` scanning it, in a fresh subprocess whose peak RSS is read from
``getrusage``.  Usage::

    python bench/out_of_core.py --rows 1e8            # both orders
    python bench/out_of_core.py --rows 1e6 --check    # also compare with the in-memory path

The numbers it prints go into docs/performance.md by hand.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

DATA = Path(__file__).resolve().parent / "data"
METRICS = ["ndcg@10", "rr@10", "dcg"]
CHUNK = 5_000_000


def write_log(path: Path, rows: int, *, shuffled: bool, seed: int = 7) -> None:
    """Write ``rows`` rows in chunks (bounded memory); queries hold ~10 rows each."""
    rng = np.random.default_rng(seed)
    n_queries = max(1, rows // 10)
    schema = pa.schema(
        [
            ("query", pa.int64()),
            ("doc", pa.int32()),
            ("score", pa.float64()),
            ("relevance", pa.int8()),
        ]
    )
    with pq.ParquetWriter(path, schema) as writer:
        done = 0
        while done < rows:
            n = min(CHUNK, rows - done)
            if shuffled:
                query = rng.integers(0, n_queries, n)
            else:
                query = (np.arange(done, done + n) // 10).astype(np.int64)
            table = pa.table(
                {
                    "query": query,
                    "doc": rng.integers(0, 1_000_000, n).astype(np.int32),
                    "score": rng.integers(0, 20, n) / 4.0,
                    "relevance": rng.integers(0, 4, n).astype(np.int8),
                },
                schema=schema,
            )
            writer.write_table(table, row_group_size=1_000_000)
            done += n


def measure(path: Path, batch_rows: int | None) -> dict[str, float]:
    """Run lp.evaluate on a scan of ``path`` (in this process); time and peak RSS."""
    import polars as pl

    import lodestar_polars as lp

    start = time.perf_counter()
    per_query = lp.evaluate(
        pl.scan_parquet(path),
        METRICS,
        by="query",
        y_true="relevance",
        y_score="score",
        strict=False,
        batch_rows=batch_rows,
    ).collect()
    seconds = time.perf_counter() - start
    rows = pl.scan_parquet(path).select(pl.len()).collect().item()
    means = per_query.select(pl.col(m).mean() for m in METRICS).row(0, named=True)
    return {
        "rows": rows,
        "queries": per_query.height,
        "seconds": seconds,
        "rows_per_second": rows / seconds,
        "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
        **means,
    }


def _status_bytes(field: str) -> int:
    """A field of /proc/self/status (VmRSS, VmHWM), in bytes (Linux)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(field)


def measure_in_memory(rows: int, *, shuffled: bool) -> dict[str, float]:
    """lp.evaluate(ndcg@10) on an in-memory frame: how much it raises the process's peak RSS.

    The frame (Int64 query, Float64 score, Int8 relevance; 10 rows a query) is
    built first; then the peak is reset (``/proc/self/clear_refs``) and the
    rise of the peak over the resident size before the call is reported.
    """
    import polars as pl

    import lodestar_polars as lp

    rng = np.random.default_rng(7)
    query = rng.integers(0, rows // 10, rows) if shuffled else np.arange(rows) // 10
    frame = pl.DataFrame(
        {
            "query": query.astype(np.int64),
            "score": rng.integers(0, 20, rows) / 4.0,
            "relevance": rng.integers(0, 4, rows).astype(np.int8),
        }
    )
    del query
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")  # reset the peak (VmHWM) to the resident size
    before = _status_bytes("VmRSS")
    start = time.perf_counter()
    out = lp.evaluate(
        frame, ["ndcg@10"], by="query", y_true="relevance", y_score="score", strict=False
    )
    seconds = time.perf_counter() - start
    rise = _status_bytes("VmHWM") - before
    columns = frame.estimated_size()
    return {
        "rows": rows,
        "columns_gb": columns / 1e9,
        "seconds": seconds,
        "peak_rise_gb": rise / 1e9,
        "rise_over_columns": rise / columns,
        "ndcg@10": out["ndcg@10"].mean(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e8)
    parser.add_argument("--batch-rows", type=int, default=None)
    parser.add_argument("--check", action="store_true", help="compare with the in-memory path")
    parser.add_argument(
        "--in-memory",
        action="store_true",
        help="measure the peak rise of lp.evaluate on an in-memory frame of --rows rows instead",
    )
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument(
        "--measure-in-memory", choices=["sorted", "shuffled"], help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.measure_in_memory:
        shuffled = args.measure_in_memory == "shuffled"
        print(json.dumps(measure_in_memory(int(args.rows), shuffled=shuffled)))
        return
    if args.in_memory:
        for order in ("sorted", "shuffled"):
            cmd = [sys.executable, __file__, "--rows", str(args.rows), "--measure-in-memory", order]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            print(order, out.strip(), flush=True)
        return
    if args.measure:
        print(json.dumps(measure(args.measure, args.batch_rows)))
        return
    DATA.mkdir(exist_ok=True)
    rows = int(args.rows)
    for order in ("sorted", "shuffled"):
        path = DATA / f"log_{rows}_{order}.parquet"
        if not path.exists():
            t0 = time.perf_counter()
            write_log(path, rows, shuffled=order == "shuffled")
            print(f"wrote {path.name} in {time.perf_counter() - t0:.1f}s", flush=True)
        cmd = [sys.executable, __file__, "--measure", str(path)]
        if args.batch_rows:
            cmd += ["--batch-rows", str(args.batch_rows)]
        result = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        print(order, json.dumps(result), flush=True)
        if args.check:
            import polars as pl

            import lodestar_polars as lp

            eager = (
                lp.evaluate(
                    pl.read_parquet(path),
                    METRICS,
                    by="query",
                    y_true="relevance",
                    y_score="score",
                    strict=False,
                )
                .select(pl.col(m).mean() for m in METRICS)
                .row(0, named=True)
            )
            same = all(
                abs(eager[m] - result[m]) <= 1e-12 * max(1.0, abs(eager[m])) for m in METRICS
            )
            print(f"  in-memory means {eager} -> {'same' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
