"""The ``lodestar-polars`` command: evaluate a long-format eval log.

``lodestar-polars [FILE]`` reads a Parquet or CSV file with one row per
(query, document), computes the requested metrics per query, and prints each
metric's mean and the weakest queries.  Without a file it evaluates the small
example log bundled with the package.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TextIO

import polars as pl

from lodestar_polars._evaluate import Progress, evaluate, mean_of_groups, metric_names
from lodestar_polars.exceptions import InvalidParameterError, RefusedGroupError

DEFAULT_METRICS = ("ndcg@10", "dcg@10", "rr@10")
EXAMPLE = "example_eval.csv"


def example_path() -> Path:
    """Path of the example eval log bundled with the package."""
    return Path(str(resources.files("lodestar_polars") / "data" / EXAMPLE))


def scan(path: Path) -> pl.LazyFrame:
    """A lazy scan of a Parquet or CSV file, chosen by its suffix."""
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        return pl.scan_parquet(path)
    if suffix in (".csv", ".tsv", ".txt"):
        return pl.scan_csv(path, separator="\t" if suffix == ".tsv" else ",")
    msg = f"cannot read {str(path)!r}: expected a .parquet, .csv or .tsv file"
    raise ValueError(msg)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lodestar-polars",
        description=(
            "Evaluate a long-format eval log (one row per query and document) and print "
            "each metric's mean and the weakest queries. Without FILE, evaluates the "
            "example log bundled with the package."
        ),
    )
    parser.add_argument("file", nargs="?", type=Path, help="a .parquet, .csv or .tsv file")
    parser.add_argument("--by", default="query", help="group column(s), comma separated")
    parser.add_argument("--y-true", default="relevance", help="relevance column")
    parser.add_argument("--y-score", default="score", help="score column")
    parser.add_argument("--weight", default=None, help="per-group weight column")
    parser.add_argument(
        "-m",
        "--metric",
        action="append",
        dest="metrics",
        help=f"metric name, repeatable (default: {' '.join(DEFAULT_METRICS)}); "
        f"names: {', '.join(metric_names())}, with @k for a cutoff",
    )
    parser.add_argument(
        "--weakest", type=int, default=5, help="how many of the weakest queries to show"
    )
    parser.add_argument(
        "--per-query", type=Path, default=None, help="also write per-query values (.csv/.parquet)"
    )
    parser.add_argument(
        "--no-strict",
        action="store_true",
        help="score refused queries as null instead of stopping with an error",
    )
    return parser


class ProgressLine:
    """Prints one updating line (parts, rows, rate, time left) to a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.start = time.perf_counter()

    def __call__(self, p: Progress) -> None:
        """Redraw the line for ``p``; close it when the last part is done."""
        elapsed = time.perf_counter() - self.start
        rate = p.rows_done / elapsed if elapsed > 0 else 0.0
        left = elapsed / p.parts_done * (p.parts_total - p.parts_done)
        self.stream.write(
            f"\rpart {p.parts_done}/{p.parts_total}  {p.rows_done:,} rows  "
            f"{rate:,.0f} rows/s  ~{left:.0f} s left "
        )
        if p.parts_done == p.parts_total:
            self.stream.write("\n")
        self.stream.flush()


def _weakest(per_query: pl.DataFrame, metric: str, keys: list[str], n: int) -> pl.DataFrame:
    return per_query.sort(metric, *keys, nulls_last=True).head(n)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the command with ``argv``; return the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["trec"]:  # `lodestar-polars trec QRELS RUN ...`: trec_eval's command
        from lodestar_polars._trec_cli import run as run_trec

        return run_trec(argv[1:])
    if argv[:1] == ["report"]:  # `lodestar-polars report SCORES ...`: the ranking report
        from lodestar_polars._report_cli import run as run_report

        return run_report(argv[1:])
    args = _parser().parse_args(argv)
    path = args.file if args.file is not None else example_path()
    keys = [k.strip() for k in args.by.split(",") if k.strip()]
    metrics = args.metrics or list(DEFAULT_METRICS)
    try:
        per_query = evaluate(
            scan(path),
            metrics,
            by=keys,
            y_true=args.y_true,
            y_score=args.y_score,
            weight=args.weight,
            strict=not args.no_strict,
            progress=ProgressLine(sys.stderr) if sys.stderr.isatty() else None,
        ).collect()
    except (InvalidParameterError, RefusedGroupError, ValueError, pl.exceptions.PolarsError) as exc:
        message = str(exc).replace("pass strict=False", "pass --no-strict")
        print(f"lodestar-polars: error: {message}", file=sys.stderr)
        return 2
    try:
        means = mean_of_groups(per_query, metrics, args.weight)
    except ZeroDivisionError as exc:
        print(f"lodestar-polars: error: {exc}", file=sys.stderr)
        return 2
    means = means.transpose(include_header=True, header_name="metric", column_names=["mean"])
    source = "bundled example" if args.file is None else str(path)
    print(f"{source}: {per_query.height} queries")
    with pl.Config(tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True, tbl_rows=50):
        print(means)
        print(f"weakest {min(args.weakest, per_query.height)} queries by {metrics[0]}:")
        print(_weakest(per_query, metrics[0], keys, args.weakest))
    if args.per_query is not None:
        if args.per_query.suffix.lower() in (".parquet", ".pq"):
            per_query.write_parquet(args.per_query)
        else:
            per_query.write_csv(args.per_query)
    return 0


def main() -> None:
    """Entry point of the ``lodestar-polars`` script."""
    raise SystemExit(run())
