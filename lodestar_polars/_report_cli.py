"""``lodestar-polars report SCORES``: the recommendation ranking report from the command line.

Reads a long score file (one row per (list, item)), runs :func:`lodestar_polars.ranking_report`,
prints the families, the floor and the verdicts, and writes the payload as JSON (``--json``) and
as one static HTML page (``--html``).  Errors are one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import polars as pl

from lodestar_polars.exceptions import InvalidParameterError, RefusedGroupError

PROG = "lodestar-polars report"
OBJECTIVES = ("accuracy", "balanced", "coverage")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Grade a recommender's scores (a .parquet, .csv or .tsv file with one row per list "
            "and candidate item): accuracy (micro) and coverage (macro) families per objective, "
            "the popularity floor, and a bootstrap verdict on the lift over it."
        ),
    )
    parser.add_argument("scores", type=Path, help="the scores file: list column(s), item, score")
    parser.add_argument("--by", default="user", help="list column(s), comma separated (user)")
    parser.add_argument("--item", default="item", help="item column (item)")
    parser.add_argument("--score", default="score", help="score column (score)")
    parser.add_argument(
        "--truth",
        type=Path,
        default=None,
        metavar="FILE",
        help="a file of realised (list, item) pairs; without it, --truth-column of SCORES",
    )
    parser.add_argument(
        "--truth-column", default="clicked", help="Boolean or 0/1 truth column (clicked)"
    )
    parser.add_argument(
        "--train",
        type=Path,
        default=None,
        metavar="FILE",
        help="training interactions (an item column): base rates and the popularity floor",
    )
    parser.add_argument(
        "--groups", default=None, metavar="COL", help="the bootstrap's cluster unit (the entity)"
    )
    parser.add_argument("-k", type=int, default=10, help="the cutoff (10)")
    parser.add_argument(
        "--objective",
        action="append",
        dest="objectives",
        choices=OBJECTIVES,
        help="objective, repeatable (default: accuracy coverage)",
    )
    parser.add_argument(
        "--popularity-discount",
        type=float,
        default=None,
        metavar="ALPHA",
        help="the primary objective's alpha, in [0, 1]",
    )
    parser.add_argument(
        "--state",
        type=Path,
        default=None,
        metavar="FILE",
        help="a saved ComparabilityState (.json/.parquet) for the objectives' transforms",
    )
    parser.add_argument("--n-resamples", type=int, default=1000, help="bootstrap resamples (1000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (0)")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT", help="write the payload")
    parser.add_argument(
        "--html", type=Path, default=None, metavar="OUT", help="write the static HTML page"
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    return parser


def _scan(path: Path, what: str) -> pl.LazyFrame:
    if not path.exists():
        msg = f"{what} file {str(path)!r} does not exist"
        raise ValueError(msg)
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        return pl.scan_parquet(path)
    if suffix in (".csv", ".tsv", ".txt"):
        return pl.scan_csv(path, separator="\t" if suffix == ".tsv" else ",")
    msg = f"cannot read {str(path)!r}: expected a .parquet, .csv or .tsv file"
    raise ValueError(msg)


class _Progress:
    """Stage lines on stderr, with the elapsed time."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        self.start = time.perf_counter()

    def __call__(self, text: str) -> None:
        if self.stream is not None:
            elapsed = time.perf_counter() - self.start
            self.stream.write(f"[{elapsed:6.1f} s] {text}\n")
            self.stream.flush()


def _family_frame(payload: Mapping[str, Any], family: str) -> pl.DataFrame:
    columns: dict[str, Any] = {}
    for name, block in payload["objectives"].items():
        columns[name] = block[family]
    for name, block in payload["baselines"].items():
        columns[name] = block[family]
    metrics = list(next(iter(columns.values())))
    data: dict[str, list[Any]] = {family: metrics}
    for name, values in columns.items():
        data[name] = [values.get(m) for m in metrics]
    return pl.DataFrame(data, strict=False)


def _print(payload: Mapping[str, Any], source: str, out: TextIO) -> None:
    alphas = payload["objective_alpha"]
    shown = ", ".join(
        f"{n} (alpha {'percentile' if a is None else f'{a:g}'})" for n, a in alphas.items()
    )
    out.write(
        f"{source}: {payload['n_lists']:,} graded lists ({payload['n_dropped']:,} dropped, "
        f"{payload['n_unseen_truth']:,} unseen truth), {payload['n_items']:,} items, "
        f"k={payload['k']}; objectives: {shown}\n"
    )
    primary = payload["primary_score"]
    out.write(f"primary score: {primary['metric']} = {primary['value']:.4f}\n")
    with pl.Config(
        tbl_hide_dataframe_shape=True,
        tbl_hide_column_data_types=True,
        tbl_rows=50,
        float_precision=4,
    ):
        out.write(f"{_family_frame(payload, 'micro')}\n{_family_frame(payload, 'macro')}\n")
    if not payload["baselines"]:
        out.write("no baseline: pass --train FILE for the popularity floor\n")
    unc = payload["uncertainty"]
    if unc is None:
        out.write("no intervals: fewer than two bootstrap units\n")
        return
    out.write(
        f"model ({unc['objective']}), {unc['n_resamples']} resamples over {unc['n_units']:,} "
        f"{unc['unit']} units, {100 * unc['confidence_level']:g} % intervals:\n"
    )
    for metric, entry in unc["model"].items():
        out.write(
            f"  {metric:<10} {entry['estimate']:.4f} [{entry['ci_low']:.4f}, "
            f"{entry['ci_high']:.4f}]\n"
        )
    for name, part in unc["baselines"].items():
        out.write(f"model - {name}:\n")
        for metric, entry in part["difference"].items():
            out.write(
                f"  {metric:<10} {entry['estimate']:+.4f} [{entry['ci_low']:+.4f}, "
                f"{entry['ci_high']:+.4f}]  {entry['verdict']}\n"
            )


def _report(args: argparse.Namespace, progress: _Progress) -> dict[str, Any]:
    from lodestar_polars._comparability import ComparabilityState
    from lodestar_polars._report import ranking_report

    keys = [k.strip() for k in args.by.split(",") if k.strip()]
    scores = _scan(args.scores, "scores")
    truth: Any = args.truth_column
    if args.truth is not None:
        truth = _scan(args.truth, "truth")
    train = None if args.train is None else _scan(args.train, "train")
    state = None if args.state is None else ComparabilityState.load(args.state)
    objectives = tuple(dict.fromkeys(args.objectives or ("accuracy", "coverage")))
    progress(
        f"grading {args.scores} ({', '.join(objectives)}; {args.n_resamples} bootstrap resamples)"
    )
    payload: dict[str, Any] = ranking_report(
        scores,
        by=keys,
        item=args.item,
        score=args.score,
        truth=truth,
        k=args.k,
        objectives=objectives,
        train=train,
        groups=args.groups,
        n_resamples=args.n_resamples,
        seed=args.seed,
        popularity_discount=args.popularity_discount,
        state=state,
    )
    progress(f"graded {payload['n_lists']:,} lists")
    return payload


def run(argv: Sequence[str] | None = None) -> int:
    """Run ``lodestar-polars report`` with ``argv`` (the arguments after ``report``)."""
    args = _parser().parse_args(sys.argv[2:] if argv is None else list(argv))
    progress = _Progress(None if args.quiet else sys.stderr)
    try:
        payload = _report(args, progress)
        if args.json is not None:
            args.json.write_text(json.dumps(payload, indent=2, allow_nan=False) + "\n")
            progress(f"wrote {args.json}")
        if args.html is not None:
            from lodestar_polars._report_html import report_html

            progress(f"drawing {args.html}")
            report_html(payload, args.html, title=f"Ranking report: {args.scores.name}")
            progress(f"wrote {args.html}")
    except (
        InvalidParameterError,
        RefusedGroupError,
        ValueError,
        TypeError,
        ImportError,
        OSError,
        pl.exceptions.PolarsError,
    ) as exc:
        lines = str(exc).strip().splitlines() or [type(exc).__name__]
        print(f"{PROG}: error: {lines[0]}", file=sys.stderr)
        return 2
    _print(payload, str(args.scores), sys.stdout)
    return 0
