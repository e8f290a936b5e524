"""Evaluate an eval log larger than memory: time and peak RSS, with DuckDB in the same run.

Writes a Parquet log of ``--rows`` rows (query, doc, score, relevance; 10
documents per query on average, scores with ties) under ``bench/data/`` (not
committed), sorted by query and shuffled, then, each in a fresh subprocess
whose peak RSS is its ``VmHWM`` (``/proc/self/status``: the peak of that
process alone; ``getrusage``'s ``ru_maxrss`` keeps the parent's at the fork):

* ``lp.evaluate`` on a ``LazyFrame`` scanning it (``--metrics``, default
  NDCG@10; exact, ties averaged; read once: streamed when sorted,
  partitioned into temporary files when shuffled);
* DuckDB (the ``bench`` extra), NDCG@10 in SQL over the same file: a window
  ``row_number`` by score and one by relevance per query (ties broken
  arbitrarily), both returning one row per query as a Polars frame.

Usage::

    python bench/out_of_core.py --rows 1e7             # both orders, both tools
    python bench/out_of_core.py --rows 1e6 --check     # also compare with the in-memory path
    python bench/out_of_core.py --rows 2e7 --in-memory # peak rise of a DataFrame call

It prints a Markdown table; the numbers go into docs/performance.md by hand.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

DATA = Path(__file__).resolve().parent / "data"
METRICS = ["ndcg@10"]
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


def measure(
    path: Path, batch_rows: int | None, metrics: list[str], layout: str
) -> dict[str, float]:
    """Run lp.evaluate on a scan of ``path`` (in this process); time and peak RSS."""
    import polars as pl

    import lodestar_polars as lp

    # layout= only when asked for, so that older commits can be measured too
    options = {} if layout == "auto" else {"layout": layout}
    cpu = _cpu_seconds()
    start = time.perf_counter()
    per_query = lp.evaluate(
        pl.scan_parquet(path),
        metrics,
        by="query",
        y_true="relevance",
        y_score="score",
        strict=False,
        batch_rows=batch_rows,
        **options,  # type: ignore[arg-type]
    ).collect()
    seconds = time.perf_counter() - start
    cpu = _cpu_seconds() - cpu
    rows = pl.scan_parquet(path).select(pl.len()).collect().item()
    means = per_query.select(pl.col(m).mean() for m in metrics).row(0, named=True)
    return {
        "rows": rows,
        "queries": per_query.height,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "rows_per_second": rows / seconds,
        "peak_rss_gb": _status_bytes("VmHWM") / 2**30,
        **means,
    }


DUCKDB_NDCG = """
WITH ranked AS (
    SELECT query, relevance,
        row_number() OVER (PARTITION BY query ORDER BY score DESC) AS r,
        row_number() OVER (PARTITION BY query ORDER BY relevance DESC) AS ir
    FROM read_parquet('{path}')
)
SELECT query,
    sum(CASE WHEN r <= 10 THEN relevance / log2(r + 1) ELSE 0 END)
    / nullif(sum(CASE WHEN ir <= 10 THEN relevance / log2(ir + 1) ELSE 0 END), 0)
    AS "ndcg@10"
FROM ranked
GROUP BY query
"""


def measure_duckdb(path: Path) -> dict[str, float]:
    """NDCG@10 per query in DuckDB SQL over ``path`` (in this process); time and peak RSS.

    Ties broken arbitrarily (``row_number``), a query with no relevant row
    null; the per-query frame comes back as Polars, as lp.evaluate's does.
    """
    import duckdb

    cpu = _cpu_seconds()
    start = time.perf_counter()
    per_query = duckdb.connect().sql(DUCKDB_NDCG.format(path=path)).pl()
    seconds = time.perf_counter() - start
    cpu = _cpu_seconds() - cpu
    rows = int(duckdb.sql(f"SELECT count(*) FROM read_parquet('{path}')").fetchall()[0][0])
    return {
        "rows": rows,
        "queries": per_query.height,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "rows_per_second": rows / seconds,
        "peak_rss_gb": _status_bytes("VmHWM") / 2**30,
        "ndcg@10": per_query["ndcg@10"].mean(),
    }


def _cpu_seconds() -> float:
    """The CPU time of the process so far, user and system, every thread (``getrusage``).

    Over the wall time it is the cores a tool kept busy: on the shuffled 1e8-row log both
    tools spent about the same CPU time while one kept a core idle (docs/performance.md).
    """
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


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
    parser.add_argument("--metrics", default=",".join(METRICS), help="lp.evaluate's metrics")
    parser.add_argument("--layout", default="auto", help="lp.evaluate's layout= option")
    parser.add_argument("--tools", default="lp,duckdb", help="among lp, duckdb")
    parser.add_argument("--orders", default="sorted,shuffled", help="among sorted, shuffled")
    parser.add_argument(
        "--repeat", type=int, default=1, help="run the tools this many times, alternating"
    )
    parser.add_argument("--check", action="store_true", help="compare with the in-memory path")
    parser.add_argument(
        "--in-memory",
        action="store_true",
        help="measure the peak rise of lp.evaluate on an in-memory frame of --rows rows instead",
    )
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--measure-duckdb", type=Path, help=argparse.SUPPRESS)
    parser.add_argument(
        "--measure-in-memory", choices=["sorted", "shuffled"], help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    metrics = args.metrics.split(",")
    if args.measure_in_memory:
        shuffled = args.measure_in_memory == "shuffled"
        print(json.dumps(measure_in_memory(int(args.rows), shuffled=shuffled)))
        return
    if args.measure:
        print(json.dumps(measure(args.measure, args.batch_rows, metrics, args.layout)))
        return
    if args.measure_duckdb:
        print(json.dumps(measure_duckdb(args.measure_duckdb)))
        return
    if args.in_memory:
        for order in ("sorted", "shuffled"):
            cmd = [sys.executable, __file__, "--rows", str(args.rows), "--measure-in-memory", order]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            print(order, out.strip(), flush=True)
        return
    DATA.mkdir(exist_ok=True)
    rows = int(args.rows)
    table = [
        "| log | tool | seconds | CPU seconds (cores) | rows per second | peak RSS "
        "| mean NDCG@10 |",
        "|---|---|---|---|---|---|---|",
    ]
    for order in args.orders.split(","):
        path = DATA / f"log_{rows}_{order}.parquet"
        if not path.exists():
            t0 = time.perf_counter()
            write_log(path, rows, shuffled=order == "shuffled")
            print(f"wrote {path.name} in {time.perf_counter() - t0:.1f}s", flush=True)
        for tool in [tool for _ in range(args.repeat) for tool in args.tools.split(",")]:
            if tool == "lp":
                cmd = [sys.executable, __file__, "--measure", str(path), "--metrics", args.metrics]
                cmd += ["--layout", args.layout]
                if args.batch_rows:
                    cmd += ["--batch-rows", str(args.batch_rows)]
                name = f"lp.evaluate({metrics})"
            else:
                cmd = [sys.executable, __file__, "--measure-duckdb", str(path)]
                name = "DuckDB SQL (row_number)"
            run = subprocess.run(cmd, check=True, capture_output=True, text=True)
            result = json.loads(run.stdout)
            print(order, tool, json.dumps(result), flush=True)
            cores = result["cpu_seconds"] / result["seconds"]
            table.append(
                f"| {order} | {name} | {result['seconds']:.1f} | "
                f"{result['cpu_seconds']:.1f} ({cores:.2f}) | "
                f"{result['rows_per_second']:,.0f} | {result['peak_rss_gb']:.2f} GB | "
                f"{result.get('ndcg@10', float('nan')):.10f} |"
            )
        if args.check:
            import polars as pl

            import lodestar_polars as lp

            eager = lp.evaluate(
                pl.read_parquet(path),
                metrics,
                by="query",
                y_true="relevance",
                y_score="score",
                strict=False,
            )
            lazy = lp.evaluate(
                pl.scan_parquet(path),
                metrics,
                by="query",
                y_true="relevance",
                y_score="score",
                strict=False,
                batch_rows=args.batch_rows,
                layout=args.layout,
            ).collect()
            same = eager.equals(lazy)
            print(f"  per-query values, lazy against in memory: {'same' if same else 'DIFFERENT'}")
    print("\n".join(table))


if __name__ == "__main__":
    main()
