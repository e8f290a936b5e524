"""The ``lodestar-polars`` command: evaluate a long-format eval log.

``lodestar-polars [FILE]`` reads a Parquet or CSV file with one row per
(query, document), computes the requested metrics per query, and prints each
metric's mean and the weakest queries.  Without a file it evaluates the small
example log bundled with the package.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TextIO

import polars as pl

from lodestar_polars._evaluate.evaluate import Progress, evaluate, mean_of_groups, metric_names
from lodestar_polars.trec._files import first_non_utf8, input_file

DEFAULT_METRICS = ("ndcg@10", "dcg@10", "rr@10")

INPUT_FLAGS = {
    "popularity": "--popularity COL",
    "feature": "--feature COL",
    "popularity_rank": "--popularity-rank COL",
    "n_items": "--n-items N",
}
"""The flag of each ``lp.evaluate`` input role (``_evaluate.inputs.WHAT``), as errors name it."""

EXAMPLE = "example_eval.csv"


def example_path() -> Path:
    """Path of the example eval log bundled with the package."""
    return Path(str(resources.files("lodestar_polars") / "data" / EXAMPLE))


def scan(path: Path, *, whole_file_schema: bool = False) -> pl.LazyFrame:
    """A lazy scan of a Parquet or CSV file, chosen by its suffix; the path is read literally.

    A CSV's column types are inferred from its first rows (Polars' default),
    or from the whole file with ``whole_file_schema=True``: for a file whose
    scores are integers for a while and then not, which the first inference
    refuses.
    """
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        return pl.scan_parquet(input_file(path, "log"), glob=False)
    if suffix in (".csv", ".tsv", ".txt"):
        separator = "\t" if suffix == ".tsv" else ","
        return pl.scan_csv(
            input_file(path, "log"),
            separator=separator,
            glob=False,
            infer_schema_length=None if whole_file_schema else 100,
        )
    msg = f"cannot read {str(path)!r}: expected a .parquet, .csv or .tsv file"
    raise ValueError(msg)


def _kind(path: Path) -> str | None:
    """``"Parquet"`` or ``"CSV"`` by the suffix of ``path``; None for another suffix."""
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        return "Parquet"
    if suffix in (".csv", ".tsv", ".txt"):
        return "CSV"
    return None


def unreadable(path: Path, exc: Exception) -> ValueError:
    """The error of a file Polars could not read, as one line naming the file.

    A byte that is not UTF-8 is named by line and column (Polars says "invalid
    utf-8 sequence" and no more); any other Polars message keeps its first line
    (its hints, such as "Consider setting 'truncate_ragged_lines=True'", are
    about Polars' options, not the command's).
    """
    if "utf" in str(exc).lower() and path.is_file():
        where = first_non_utf8(path)
        if where is not None:
            return ValueError(where)
    first = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
    return ValueError(
        f"{path}: not a {_kind(path) or 'data'} file lodestar-polars can read: {first}"
    )


def output_file(path: Path, option: str) -> Path:
    """``path`` as a file to write: its folder exists and is writable, it is not a folder."""
    folder = path.parent if str(path.parent) else Path()
    if path.is_dir():
        msg = f"{option} {path}: is a directory"
        raise ValueError(msg)
    if _kind(path) is None:
        msg = f"{option} {path}: expected a .parquet, .csv or .tsv file"
        raise ValueError(msg)
    if not folder.is_dir():
        msg = f"{option} {path}: no such directory {str(folder)!r}"
        raise ValueError(msg)
    if not os.access(folder, os.W_OK):
        msg = f"{option} {path}: the directory {str(folder)!r} is not writable"
        raise ValueError(msg)
    return path


COMMANDS = {
    "evaluate": "evaluate a long-format eval log (the default command: `lodestar-polars FILE`)",
    "trec": "score a TREC run against its judgments as trec_eval does: `trec QRELS RUN -m ...`",
    "report": "the recommendation ranking report of a scores log: `report SCORES --truth ...`",
}


def _parser() -> argparse.ArgumentParser:
    """The top-level parser: its help lists every command; each command parses its own options."""
    parser = argparse.ArgumentParser(
        prog="lodestar-polars",
        description=(
            "Ranking metrics over eval logs. Without a command, `evaluate`: "
            "`lodestar-polars [FILE] [options]` (see `lodestar-polars evaluate --help`)."
        ),
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name, summary in COMMANDS.items():
        commands.add_parser(name, help=summary, add_help=False)
    return parser


def _evaluate_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lodestar-polars evaluate",
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
    inputs = parser.add_argument_group(
        "beyond-accuracy inputs",
        "columns (and the catalogue's size) the beyond-accuracy metrics read: "
        "novelty and arp read --popularity, ild --feature, serendipity --popularity-rank "
        "and --n-items (docs/beyond-accuracy.md)",
    )
    inputs.add_argument(
        "--popularity",
        metavar="COL",
        default=None,
        help="each row's item popularity in training (novelty: a share of users, in (0, 1]; arp)",
    )
    inputs.add_argument(
        "--feature",
        metavar="COL",
        default=None,
        help="each row's item category, or embedding (a list column: write ild(dim=D)@k)",
    )
    inputs.add_argument(
        "--popularity-rank",
        metavar="COL",
        default=None,
        help="each row's item dense popularity rank in training, 1 the most popular (serendipity)",
    )
    inputs.add_argument(
        "--n-items", metavar="N", type=int, default=None, help="the catalogue's size (serendipity)"
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


def _weakest_title(per_query: pl.DataFrame, metric: str, n: int) -> str:
    """The heading of the weakest queries, saying how many tie at the weakest value."""
    values = per_query.get_column(metric).drop_nulls()
    title = f"weakest {min(n, per_query.height)} queries by {metric}"
    if values.is_empty():
        return title + ":"
    lowest = float(values.min())  # type: ignore[arg-type]  # a Float64 metric column
    tied = int((values == lowest).sum())
    if tied > 1:
        title += f" ({tied} queries tie at the weakest value, {lowest:g}; ties listed by key)"
    return title + ":"


def run(argv: Sequence[str] | None = None) -> int:
    """Run the command with ``argv``; return the exit status.

    Every error a user can cause (a missing or unreadable file, a bad column
    or metric name, a refused query) is one line on stderr and status 2, never
    a traceback.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] in (["-h"], ["--help"]):
        _parser().print_help()
        return 0
    if argv[:1] == ["trec"]:  # `lodestar-polars trec QRELS RUN ...`: trec_eval's command
        from lodestar_polars.trec._cli import run as run_trec

        return run_trec(argv[1:])
    if argv[:1] == ["report"]:  # `lodestar-polars report SCORES ...`: the ranking report
        from lodestar_polars._report.cli import run as run_report

        return run_report(argv[1:])
    if argv[:1] == ["evaluate"]:
        argv = argv[1:]
    args = _evaluate_parser().parse_args(argv)
    try:
        return _run(args)
    except BrokenPipeError:
        raise  # the reader went away: main() ends quietly
    except (ValueError, OSError, pl.exceptions.PolarsError) as exc:
        print(f"lodestar-polars: error: {_in_flags(str(exc))}", file=sys.stderr)
        return 2


def _in_flags(message: str) -> str:
    """``lp.evaluate``'s sentence with the command's flags for its keywords.

    ``pass strict=False`` becomes ``pass --no-strict``; an input role's
    ``give it as evaluate(popularity=...)`` becomes ``pass --popularity COL``,
    and the `` `popularity` is read by ...`` of an input no metric reads names
    the flag.
    """
    message = message.replace("pass strict=False", "pass --no-strict")
    for role, flag in INPUT_FLAGS.items():
        message = message.replace(f"give it as evaluate({role}=...)", f"pass {flag}")
        if message.startswith(f"`{role}` is read by "):
            message = flag.split()[0] + message[len(role) + 2 :]
    return message


def _run(args: argparse.Namespace) -> int:
    path = args.file if args.file is not None else example_path()
    if args.weakest < 0:
        msg = f"--weakest must be an int >= 0, got {args.weakest}"
        raise ValueError(msg)
    if args.n_items is not None and args.n_items < 1:
        msg = f"--n-items must be an int >= 1, got {args.n_items}"
        raise ValueError(msg)
    if args.per_query is not None:
        output_file(args.per_query, "--per-query")
    keys = [k.strip() for k in args.by.split(",") if k.strip()]
    metrics = args.metrics or list(DEFAULT_METRICS)

    def per_query_values(lf: pl.LazyFrame) -> pl.DataFrame:
        columns = lf.collect_schema().names()  # a CSV's header, a Parquet footer: readable?
        if lf.head(1).collect().height == 0:  # else a header alone reads as String columns
            msg = f"{path}: has no rows (its columns: {columns})"
            raise ValueError(msg)
        return evaluate(
            lf,
            metrics,
            by=keys,
            y_true=args.y_true,
            y_score=args.y_score,
            weight=args.weight,
            popularity=args.popularity,
            feature=args.feature,
            popularity_rank=args.popularity_rank,
            n_items=args.n_items,
            strict=not args.no_strict,
            progress=ProgressLine(sys.stderr) if sys.stderr.isatty() else None,
        ).collect()

    try:
        try:
            per_query = per_query_values(scan(path))
        except pl.exceptions.ComputeError as exc:
            if not str(exc).startswith("could not parse"):
                raise
            # a column typed by its first rows (integers) holds another type further down
            per_query = per_query_values(scan(path, whole_file_schema=True))
    except pl.exceptions.PolarsError as exc:
        raise unreadable(path, exc) from None
    try:
        means = mean_of_groups(per_query, metrics, args.weight)
    except ZeroDivisionError as exc:
        raise ValueError(str(exc)) from None
    means = means.transpose(include_header=True, header_name="metric", column_names=["mean"])
    source = "bundled example" if args.file is None else str(path)
    print(f"{source}: {per_query.height} queries")
    with pl.Config(tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True, tbl_rows=50):
        print(means)
        print(_weakest_title(per_query, metrics[0], args.weakest))
        print(_weakest(per_query, metrics[0], keys, args.weakest))
    if args.per_query is not None:
        if args.per_query.suffix.lower() in (".parquet", ".pq"):
            per_query.write_parquet(args.per_query)
        else:
            separator = "\t" if args.per_query.suffix.lower() == ".tsv" else ","
            per_query.write_csv(args.per_query, separator=separator)
    return 0


def main() -> None:
    """Entry point of the ``lodestar-polars`` script.

    A reader that stops early (``lodestar-polars ... | head -1``) closes the
    pipe: the rest of the output is dropped quietly, as Python's documentation
    recommends, with status 1 (no traceback).  Ctrl-C ends with one line and
    status 130.
    """
    try:
        status = run()
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        status = 1
    except KeyboardInterrupt:
        print("lodestar-polars: interrupted", file=sys.stderr)
        status = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C
    raise SystemExit(status)
