"""``lodestar-polars report SCORES``: the recommendation ranking report from the command line.

Reads a long score file (one row per (list, item)), runs :func:`lodestar_polars.ranking_report`,
prints the families, the floor and the verdicts, and writes the payload as JSON (``--json``) and
as one static HTML page (``--html``).  Errors are one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import polars as pl

from lodestar_polars._base.deprecation import REMOVED_IN, RENAMED_IN
from lodestar_polars._base.progress import ProgressBar
from lodestar_polars._compare import gates as _gates
from lodestar_polars.exceptions import InvalidParameterError, RefusedGroupError

if TYPE_CHECKING:
    from lodestar_polars._report.ranking_report import RankingReport

PROG = "lodestar-polars report"
OBJECTIVES = ("accuracy", "balanced", "coverage")
A_AHEAD = "--fail-if-a-ahead"  # issue 21: model A (--y-score) against model B (--y-score-b)
B_AHEAD = "--fail-if-b-ahead"


class _OldSpelling(argparse.Action):
    """A flag's old spelling: sets the new flag's value and says on stderr that it is renamed.

    Hidden from ``--help`` (which shows the documented spelling only); removed in 0.3.0, as
    the library's old parameter names are (lodestar_polars._base.deprecation).
    """

    def __init__(self, option_strings: Sequence[str], dest: str, *, new: str, **kw: Any) -> None:
        super().__init__(option_strings, dest, **kw)
        self.new = new

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)
        print(
            f"{PROG}: warning: {option_string} is renamed {self.new} (lodestar_polars "
            f"{RENAMED_IN}); {option_string} will be removed in {REMOVED_IN}",
            file=sys.stderr,
        )


def _old_spelling(parser: argparse.ArgumentParser, old: str, new: str, dest: str) -> None:
    parser.add_argument(
        old, dest=dest, action=_OldSpelling, new=new, default=argparse.SUPPRESS,
        help=argparse.SUPPRESS,
    )  # fmt: skip


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Grade a recommender's scores (a .parquet, .csv or .tsv file with one row per list "
            "and candidate item): accuracy (micro) and coverage (macro) families per objective, "
            "the popularity floor, and a bootstrap verdict on the lift over it."
        ),
    )
    parser.add_argument(
        "scores", type=Path, help="the scores file: the by column(s), item, y_score (and y_true)"
    )
    parser.add_argument(
        "--by",
        default="user",
        metavar="COLS",
        help="the group key naming each list: column(s), comma separated (user)",
    )
    parser.add_argument(
        "--item", default="item", metavar="COL", help="the id of the ranked item (item)"
    )
    parser.add_argument(
        "--y-score", default="score", metavar="COL", help="the score column, y_score (score)"
    )
    _old_spelling(parser, "--score", "--y-score", "y_score")
    parser.add_argument(
        "--truth",
        type=Path,
        default=None,
        metavar="FILE",
        help="a file of realised (list, item) pairs, y_true as a frame; without it, --y-true",
    )
    parser.add_argument(
        "--y-true",
        default="clicked",
        metavar="COL",
        help="the Boolean or 0/1 y_true column of SCORES (clicked)",
    )
    _old_spelling(parser, "--truth-column", "--y-true", "y_true")
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
        "--percentile",
        action="store_true",
        help="rank every block by each score's percentile within its item (needs no sign)",
    )
    parser.add_argument(
        "--shrinkage-strength",
        type=float,
        default=None,
        metavar="M",
        help="empirical-Bayes shrinkage toward the base rates at strength M (scores in [0, 1])",
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
    parser.add_argument(
        "--value",
        default=None,
        metavar="COL",
        help="an item's price or margin (a column of SCORES): the value family",
    )
    parser.add_argument(
        "--feature",
        default=None,
        metavar="COL",
        help="an item's category or embedding (a column of SCORES): intra_list_diversity@k",
    )
    parser.add_argument(
        "--y-score-b",
        default=None,
        metavar="COL",
        help="model B's scores (a column of SCORES): B against A, with the paired bootstrap",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    _gates.add_arguments(parser)
    for flag, who in ((A_AHEAD, "A (--y-score)"), (B_AHEAD, "B (--y-score-b)")):
        parser.add_argument(
            flag,
            action="append",
            nargs="?",
            const=_gates.PRIMARY,
            default=None,
            metavar="METRIC",
            help=f"release gate: exit 1 when model {who} is ahead on METRIC (primary)",
        )
    return parser


def _gates_of(args: argparse.Namespace) -> list[tuple[_gates.Gate, str]]:
    """The release rules with the report key each reads; checked before any work.

    A key is one the report writes at ``-k`` (``primary``: the primary score, ndcg@k);
    ``--fail-if-worse`` reads the bootstrap's model-minus-floor interval, so it needs the
    floor (``--train``) and a metric with an interval (the accuracy family).
    """
    from lodestar_polars._registry import report_metrics
    from lodestar_polars._report.ranking_report import macro_keys, micro_keys
    from lodestar_polars._report.value import value_keys

    gates = _gates.parse(args.fail_if_worse, args.fail_below, args.fail_above)
    micro = [name for name, _, _ in micro_keys(args.k)]
    keys = micro + macro_keys(args.k) + (value_keys(args.k) if args.value else [])
    if args.train is not None:  # novelty@k, ARP@k, serendipity@k, personalisation@k
        keys += [m.name(args.k) for m in report_metrics(args.k, "macro") if m.needs == "train"]
    keys += [f"intra_list_diversity@{args.k}"] if args.feature else []
    out = []
    for flag in (A_AHEAD, B_AHEAD):
        for metric in getattr(args, flag[2:].replace("-", "_")) or ():
            gate = _gates.Gate(flag, metric)
            key = f"ndcg@{args.k}" if metric == _gates.PRIMARY else metric
            if args.y_score_b is None:
                msg = f"{gate.text} compares model A with model B: pass --y-score-b COL"
                raise _gates.GateError(msg)
            if key not in micro:
                msg = (
                    f"{gate.text}: the intervals of B minus A are on {', '.join(micro)}; "
                    f"{key!r} has none"
                )
                raise _gates.GateError(msg)
            out.append((gate, key))
    for gate in gates:
        key = f"ndcg@{args.k}" if gate.metric == _gates.PRIMARY else gate.metric
        if gate.flag == _gates.WORSE:
            if args.train is None:
                msg = f"{gate.text} needs the popularity floor to be worse than: pass --train FILE"
                raise _gates.GateError(msg)
            if key not in micro:
                msg = (
                    f"{gate.text}: the report's intervals (model minus the floor) are on "
                    f"{', '.join(micro)}; {key!r} has none"
                )
                raise _gates.GateError(msg)
        elif key not in keys:
            msg = (
                f"{gate.text}: the report has no metric {key!r} at -k {args.k} ({', '.join(keys)})"
            )
            raise _gates.GateError(msg)
        _gates.way_of(gate, key)
        out.append((gate, key))
    return out


def _gate_failures(payload: Mapping[str, Any], rules: list[tuple[_gates.Gate, str]]) -> list[str]:
    """Each failed rule, one sentence: the rule, the model's value or interval, by how much."""
    from lodestar_polars._registry import direction

    objective = payload["primary_objective"]
    block = payload["objectives"][objective]
    values = {**block["micro"], **block["macro"], **block.get("value", {})}
    out = []
    for gate, key in rules:
        if gate.flag in (A_AHEAD, B_AHEAD):
            out.extend(_versus_failure(payload, gate, key))
            continue
        if gate.flag != _gates.WORSE:
            value = values.get(key)
            if value is None:
                out.append(f"{gate.text}: the model has no {key} value ({objective})")
                continue
            line = _gates.threshold_failure(gate, f"the model ({objective})", key, float(value))
            if line is not None:
                out.append(line)
            continue
        unc = payload.get("uncertainty")
        floors = {} if unc is None else unc["baselines"]
        if unc is None or not floors:
            out.append(f"{gate.text}: no interval to decide on (fewer than two bootstrap units)")
            continue
        for name, part in floors.items():
            entry = part["difference"][key]
            lo, hi = entry["ci_low"], entry["ci_high"]
            behind = hi < 0.0 if direction(key) == "higher" else lo > 0.0
            if behind:
                level = 100 * unc["confidence_level"]
                out.append(
                    f"{gate.text}: the {name} floor is ahead of the model on {key}: model minus "
                    f"floor {entry['estimate']:+.4f}, {level:g} % interval [{lo:+.4f}, {hi:+.4f}] "
                    "wholly on the floor's side"
                )
    return out


def _versus_failure(payload: Mapping[str, Any], gate: _gates.Gate, key: str) -> list[str]:
    """``--fail-if-a-ahead`` / ``--fail-if-b-ahead``: the rule, B − A and its interval."""
    versus = payload["versus"]
    entry = versus["difference"]["micro"][key]
    ahead = "a_ahead" if gate.flag == A_AHEAD else "b_ahead"
    if entry["ci_low"] is None:
        return [f"{gate.text}: no interval to decide on (fewer than two bootstrap units)"]
    if entry["verdict"] != ahead:
        return []
    level = 100 * versus["confidence_level"]
    who = "A" if ahead == "a_ahead" else "B"
    return [
        f"{gate.text}: model {who} is ahead on {key} ({versus['objective']}): B minus A "
        f"{entry['estimate']:+.4f}, {level:g} % interval [{entry['ci_low']:+.4f}, "
        f"{entry['ci_high']:+.4f}] wholly on {who}'s side"
    ]


def _print_versus(payload: Mapping[str, Any], fixed: list[str], out: TextIO) -> None:
    """Model B's families and B − A, with the intervals and verdicts (issue 21)."""
    versus = payload.get("versus")
    if not versus:
        return
    out.write(versus["decision"]["sentence"] + "\n")
    out.write(
        f"B minus A ({versus['objective']}; B: {versus['y_score_b']}), {versus['n_resamples']} "
        f"resamples over {versus['n_units']:,} {versus['unit']} units:\n"
    )
    for family, part in versus["difference"].items():
        for metric, entry in part.items():
            b = versus["model_b"][family].get(metric)
            if entry["estimate"] is None:
                out.write(f"  {metric:<16} null\n")
            elif entry["ci_low"] is None or metric in fixed:
                out.write(f"  {metric:<16} {entry['estimate']:+.4f}  (B {b:.4f}, no interval)\n")
            else:
                out.write(
                    f"  {metric:<16} {entry['estimate']:+.4f} [{entry['ci_low']:+.4f}, "
                    f"{entry['ci_high']:+.4f}]  {entry['verdict']}  (B {b:.4f})\n"
                )


def _scan(path: Path, what: str, *, whole_file_schema: bool = False) -> pl.LazyFrame:
    """A lazy scan of ``path``, read once here for its header and first row.

    An empty file, a header with no rows, or a file Polars cannot parse is one sentence naming
    the file (Polars' own "empty CSV" names none).  ``whole_file_schema``: a CSV's column types
    from the whole file, not its first rows.
    """
    if not path.exists():
        msg = f"{what} file {str(path)!r} does not exist"
        raise ValueError(msg)
    if path.is_dir():
        msg = f"{what} file {str(path)!r} is a directory"
        raise ValueError(msg)
    suffix = path.suffix.lower()
    if suffix not in (".parquet", ".pq", ".csv", ".tsv", ".txt"):
        msg = f"cannot read {str(path)!r}: expected a .parquet, .csv or .tsv file"
        raise ValueError(msg)
    if path.stat().st_size == 0:
        msg = f"{what} file {str(path)!r} is empty"
        raise ValueError(msg)
    from lodestar_polars.cli import scan, unreadable

    try:
        lazy = scan(path, whole_file_schema=whole_file_schema)
        first = lazy.head(1).collect()
    except pl.exceptions.PolarsError as exc:
        if whole_file_schema or not str(exc).startswith("could not parse"):
            raise unreadable(path, exc) from None
        return _scan(path, what, whole_file_schema=True)
    if first.height == 0:
        msg = f"{what} file {str(path)!r} has no rows (its columns: {first.columns})"
        raise ValueError(msg)
    return lazy


def _output(path: Path | None, option: str) -> None:
    """Refuse, before any work, an output file that cannot be written."""
    if path is None:
        return
    folder = path.parent if str(path.parent) else Path()
    if path.is_dir():
        msg = f"{option} {str(path)!r} is a directory"
        raise ValueError(msg)
    if not folder.is_dir():
        msg = f"{option} {str(path)!r}: no such directory {str(folder)!r}"
        raise ValueError(msg)


class _Progress:
    """Stage lines on stderr, with the elapsed time."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        self.start = time.perf_counter()

    def bar(self) -> ProgressBar | None:
        """The rows-graded line while the report grades, when stderr is a terminal (not -q)."""
        if self.stream is None or not self.stream.isatty():
            return None
        return ProgressBar(stream=self.stream, notebook=False, step="step")

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


CLI_FLOOR_HINT = "pass --train FILE for the popularity floor"
CLI_WORDS = (
    # the library's advice in the command's own options
    ('objectives=("accuracy",)', "--objective accuracy"),
    ("percentile=True", "--percentile"),
    ("popularity_discount", "--popularity-discount"),
    ("shrinkage_strength", "--shrinkage-strength"),
)


def _cli_words(text: str) -> str:
    for library, option in CLI_WORDS:
        text = text.replace(library, option)
    return text


def _print(payload: Mapping[str, Any], source: str, out: TextIO) -> None:
    from lodestar_polars._report.ranking_report import decision_of

    # the decision first: model against the floor on the primary metric, interval, verdict
    out.write(decision_of(payload, floor_hint=CLI_FLOOR_HINT)["sentence"] + "\n")
    for note in payload.get("notes") or ():
        out.write(f"note: {note}\n")
    fixed = list(payload.get("by_construction") or ())
    alphas = payload["objective_alpha"]
    shown = ", ".join(
        f"{n} ({'percentile' if a is None else f'alpha {a:g}'})" for n, a in alphas.items()
    )
    out.write(
        f"{source}: {payload['n_lists']:,} graded list{'' if payload['n_lists'] == 1 else 's'} "
        f"({payload['n_dropped']:,} dropped, "
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
        if "value_rule" in payload:
            out.write(f"{_family_frame(payload, 'value')}\n")
    if fixed:
        out.write(f"by construction (see the note): {', '.join(fixed)}\n")
    _print_versus(payload, fixed, out)
    unc = payload["uncertainty"]
    if unc is None:
        out.write("no intervals: fewer than two bootstrap units\n")
        return
    out.write(
        f"model ({unc['objective']}), {unc['n_resamples']} resamples over {unc['n_units']:,} "
        f"{unc['unit']} units, {100 * unc['confidence_level']:g} % intervals:\n"
    )
    for metric, entry in unc["model"].items():
        if metric in fixed:
            out.write(f"  {metric:<10} {entry['estimate']:.4f}  by construction, no interval\n")
            continue
        out.write(
            f"  {metric:<10} {entry['estimate']:.4f} [{entry['ci_low']:.4f}, "
            f"{entry['ci_high']:.4f}]\n"
        )
    for name, part in unc["baselines"].items():
        out.write(f"model - {name}:\n")
        for metric, entry in part["difference"].items():
            if metric in fixed:
                out.write(f"  {metric:<10} {entry['estimate']:+.4f}  by construction\n")
                continue
            out.write(
                f"  {metric:<10} {entry['estimate']:+.4f} [{entry['ci_low']:+.4f}, "
                f"{entry['ci_high']:+.4f}]  {entry['verdict']}\n"
            )


def _report(args: argparse.Namespace, progress: _Progress) -> RankingReport:
    from lodestar_polars._report.comparability_state import ComparabilityState

    _output(args.json, "--json")
    _output(args.html, "--html")
    keys = [k.strip() for k in args.by.split(",") if k.strip()]
    state = None if args.state is None else ComparabilityState.load(args.state)
    objectives = tuple(dict.fromkeys(args.objectives or ("accuracy", "coverage")))
    inputs = [p for p in (args.scores, args.truth, args.train) if p is not None]

    def grade(whole_file_schema: bool) -> RankingReport:  # noqa: FBT001
        scores = _scan(args.scores, "scores", whole_file_schema=whole_file_schema)
        truth: Any = args.y_true
        if args.truth is not None:
            truth = _scan(args.truth, "truth", whole_file_schema=whole_file_schema)
        train = None
        if args.train is not None:
            train = _scan(args.train, "train", whole_file_schema=whole_file_schema)
        bar = progress.bar()
        try:
            return _ranking_report(args, keys, scores, truth, train, state, bar)
        finally:
            if bar is not None:
                bar.close()  # the line ended, before a stage line or an error

    progress(
        f"grading {args.scores} ({', '.join(objectives)}; {args.n_resamples} bootstrap resamples)"
    )
    try:
        try:
            payload = grade(whole_file_schema=False)
        except pl.exceptions.ComputeError as exc:
            if not str(exc).startswith("could not parse"):
                raise
            # a CSV column typed by its first rows (integers) holds another type further down
            payload = grade(whole_file_schema=True)
    except pl.exceptions.PolarsError as exc:
        first = next((ln for ln in str(exc).splitlines() if ln.strip()), type(exc).__name__)
        msg = f"while reading {', '.join(map(str, inputs))}: {first}"
        raise ValueError(msg) from None
    progress(f"graded {payload['n_lists']:,} lists")
    return payload


def _ranking_report(
    args: argparse.Namespace,
    keys: list[str],
    scores: Any,
    truth: Any,
    train: Any,
    state: Any,
    bar: ProgressBar | None = None,
) -> RankingReport:
    from lodestar_polars._report.ranking_report import ranking_report

    objectives = tuple(dict.fromkeys(args.objectives or ("accuracy", "coverage")))
    return ranking_report(
        scores,
        by=keys,
        item=args.item,
        y_true=truth,
        y_score=args.y_score,
        k=args.k,
        objectives=objectives,
        train=train,
        groups=args.groups,
        n_resamples=args.n_resamples,
        seed=args.seed,
        popularity_discount=args.popularity_discount,
        percentile=args.percentile,
        shrinkage_strength=args.shrinkage_strength,
        state=state,
        progress=bar,
        value=args.value,
        y_score_b=args.y_score_b,
        feature=args.feature,
    )


def run(argv: Sequence[str] | None = None) -> int:
    """Run ``lodestar-polars report`` with ``argv`` (the arguments after ``report``)."""
    args = _parser().parse_args(sys.argv[2:] if argv is None else list(argv))
    progress = _Progress(None if args.quiet else sys.stderr)
    try:
        rules = _gates_of(args)
        payload = _report(args, progress)
        if args.json is not None:
            payload.to_json(args.json)  # the payload as the library returns it
            progress(f"wrote {args.json}")
        if args.html is not None:
            from lodestar_polars._report.ranking_report import RankingReport, decision_of

            progress(f"drawing {args.html}")
            # the page's decision in the command's words (--train FILE, not train=)
            page = RankingReport(payload)
            page["decision"] = decision_of(payload, floor_hint=CLI_FLOOR_HINT)
            page.to_html(args.html, title=f"Ranking report: {args.scores.name}")
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
        print(f"{PROG}: error: {_cli_words(lines[0])}", file=sys.stderr)
        return 2
    _print(payload, str(args.scores), sys.stdout)
    return _gates.report_failures(PROG, _gate_failures(payload, rules), [g for g, _ in rules])
