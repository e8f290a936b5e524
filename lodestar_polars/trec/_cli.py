"""``lodestar-polars trec QRELS RUN``: trec_eval's command, on ``lp.trec.evaluate``.

The options are trec_eval's (``-m``, ``-q``, ``-c``, ``-l``, ``-M``) and the
default output is trec_eval's: ``measure<TAB>qid<TAB>value``, the measure
name padded to 22 characters, values to 4 decimals (counts as integers),
per-query lines (with ``-q``) before the ``all`` lines.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from lodestar_polars._compare import gates as _gates
from lodestar_polars._registry import TREC_MEASURES
from lodestar_polars.trec import MEASURES, evaluate, parse_measures
from lodestar_polars.trec._files import first_non_utf8, input_file

# measures of trec_eval's default set ("official") that lodestar_polars does not compute
NOT_OFFERED = tuple(m.name for m in TREC_MEASURES.values() if m.official and not m.offered)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lodestar-polars trec",
        description=(
            "Score a TREC run against its judgments as trec_eval 10.0 does. "
            f"Measures: {', '.join(MEASURES)}; 'official' (the default) and 'all_trec'; "
            "cutoffs as P.5,10; ndcg gains as ndcg.1=3,2=9; recall levels as "
            "iprec_at_recall..25,.5; values as utility.2,-1,0,0; ranx / ir_measures names "
            "such as ndcg@10 are read too."
        ),
    )
    parser.add_argument("qrels", type=Path, help="judgments: qid iter docno rel")
    parser.add_argument(
        "run",
        type=Path,
        nargs="+",
        help="run: qid Q0 docno rank score tag (several with --compare)",
    )
    parser.add_argument(
        "-m", dest="measures", action="append", metavar="MEASURE", help="measure, repeatable"
    )
    parser.add_argument("-q", dest="per_query", action="store_true", help="per-query values too")
    parser.add_argument(
        "-c", dest="complete", action="store_true", help="score judged queries missing from the run"
    )
    parser.add_argument(
        "-l", dest="level", type=int, default=1, metavar="N", help="relevance level (default 1)"
    )
    parser.add_argument(
        "-M", dest="max_docs", type=int, default=None, metavar="N", help="documents per query"
    )
    parser.add_argument(
        "--float32-scores",
        action="store_true",
        help="round scores to float32 before ranking (trec_eval 9, pytrec_eval)",
    )
    parser.add_argument(
        "--format", choices=("trec", "csv", "json"), default="trec", help="output format"
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="compare the runs, the first as the baseline: paired tests, a ranx-style table",
    )
    parser.add_argument(
        "--test",
        choices=("student", "fisher", "bootstrap", "wilcoxon", "tukey"),
        default="student",
        help="with --compare: the paired test (default student)",
    )
    parser.add_argument(
        "--alpha", type=float, default=0.05, help="with --compare: significance level (0.05)"
    )
    _gates.add_arguments(parser)
    return parser


def _gates_of(args: argparse.Namespace, names: list[str]) -> list[tuple[_gates.Gate, str]]:
    """The release rules, each with the measure label it reads; checked before any work.

    A rule's measure must be one of the ``-m`` measures (``primary``: the first compared);
    ``--fail-if-worse`` needs ``--compare``.
    """
    gates = _gates.parse(args.fail_if_worse, args.fail_below, args.fail_above)
    if not gates:
        return []
    parsed = parse_measures(names)
    labels = [m.label for m in parsed if not m.measure.is_count and not m.measure.is_text]
    out = []
    for gate in gates:
        if gate.flag == _gates.WORSE and not args.compare:
            msg = f"{gate.text} needs --compare: a baseline run to be worse than"
            raise _gates.GateError(msg)
        if gate.metric == _gates.PRIMARY:
            if not labels:
                msg = f"{gate.text}: no measure to gate (the counts num_q, num_ret, ... are not)"
                raise _gates.GateError(msg)
            label = labels[0]
        else:
            try:
                label = parse_measures([gate.metric])[0].label
            except ValueError as exc:
                msg = f"{gate.text}: {exc}"
                raise _gates.GateError(msg) from None
            if label not in labels and parse_measures([gate.metric])[0].measure.is_count:
                msg = f"{gate.text}: {label!r} is a count; counts are not gated or compared"
                raise _gates.GateError(msg)
            if label not in labels and parse_measures([gate.metric])[0].measure.is_text:
                msg = f"{gate.text}: {label!r} is text; text is not gated or compared"
                raise _gates.GateError(msg)
            if label not in labels:
                msg = (
                    f"{gate.text}: {label!r} is not among the measures given with -m "
                    f"({', '.join(labels) or 'none but counts'}); add -m {gate.metric}"
                )
                raise _gates.GateError(msg)
        _gates.way_of(gate, label)
        out.append((gate, label))
    return out


def _compare_failures(result: object, rules: list[tuple[_gates.Gate, str]]) -> list[str]:
    """Each failed rule of ``--compare``, one sentence: the rule, the run, by how much."""
    from lodestar_polars._compare.comparison import Comparison

    assert isinstance(result, Comparison)
    base = result.baseline
    mean = {(r, m): v for r, m, v in result.table.select("run", "metric", "mean").iter_rows()}
    runs = [r for r in result.table["run"].unique(maintain_order=True) if r != base]
    out = []
    for gate, label in rules:
        for run in runs:
            if gate.flag != _gates.WORSE:
                line = _gates.threshold_failure(gate, f"run {run!r}", label, mean[(run, label)])
                if line is not None:
                    out.append(line)
                continue
            row = result.pairs.filter(
                (pl.col("run") == base) & (pl.col("other") == run) & (pl.col("metric") == label)
            ).row(0, named=True)
            if row["better"]:
                corr = "no correction" if result.correction is None else result.correction
                out.append(
                    f"{gate.text}: the baseline {base!r} is significantly ahead of {run!r} on "
                    f"{label}: {mean[(run, label)]:.4f} against {mean[(base, label)]:.4f} "
                    f"({-row['difference']:+.4f}; p = {row['p_adjusted']:.3g} after "
                    f"{corr}, {result.test} test, alpha {result.alpha:g})"
                )
    return out


def _blank(path: Path) -> bool:
    """Whether a run file has no line to score: empty, or blank lines only.

    Reads up to the first line that is not blank, so a run of any size costs one line.
    """
    with input_file(path, "run").open("rb") as handle:
        return all(not line.strip() for line in handle)


def _score_run(args: argparse.Namespace, path: Path, names: list[str]) -> pl.DataFrame:
    """One run of ``--compare`` scored per query; a run that cannot be is named by its path."""
    if not args.complete and _blank(path):
        msg = (
            f"run file {str(path)!r} is empty: it has no line `qid Q0 docno rank score tag` "
            "to compare (with -c, as trec_eval -c, each judged query of an empty run scores 0)."
        )
        raise ValueError(msg)
    try:
        return evaluate(
            qrels=args.qrels,
            run=path,
            measures=names,
            per_query=True,
            complete=args.complete,
            relevance_level=args.level,
            max_docs=args.max_docs,
            float32_scores=args.float32_scores,
        )
    except ValueError as exc:
        if str(exc).startswith("no query to evaluate: no query of the run"):
            msg = f"run file {str(path)!r}: {exc}"
            raise ValueError(msg) from None
        raise


def _compare(args: argparse.Namespace, names: list[str]) -> int:
    """``--compare``: every run scored per query, then ``lp.compare`` against the first."""
    from lodestar_polars._compare.compare import compare

    paths: list[Path] = args.run
    labels = [p.name for p in paths]
    if len(set(labels)) < len(labels):
        labels = [str(p) for p in paths]
    try:
        rules = _gates_of(args, names)
        if len(set(labels)) < len(labels):
            msg = f"--compare: a run file is given twice ({labels})."
            raise ValueError(msg)
        parsed = parse_measures(names)
        per_query = {
            label: _score_run(args, path, names).select("qid", "measure", "value")
            for label, path in zip(labels, paths, strict=True)
        }
        # counts (num_ret, num_rel, ...) are not compared; the means of the measures are, and
        # the geometric means (gm_map, gm_bpref: no per-query value, so no paired test) are not
        # nor is text (relstring)
        measures = [
            m.label
            for m in parsed
            if not m.measure.is_count and not m.measure.is_text and m.measure.per_query
        ]
        if not measures:
            msg = "--compare: no measure to compare (the counts num_q, num_ret, ... are not)."
            raise ValueError(msg)
        result = compare(per_query, baseline=labels[0], metrics=measures, test=args.test,
                         alpha=args.alpha)  # fmt: skip
    except (ValueError, OSError, pl.exceptions.PolarsError) as exc:
        print(f"lodestar-polars trec: error: {exc}", file=sys.stderr)
        return 2
    if args.format == "csv":
        sys.stdout.write(result.table.write_csv())
    elif args.format == "json":
        sys.stdout.write(result.table.write_json() + "\n")
    else:
        sys.stdout.write(result.to_markdown() + "\n")
    failures = _compare_failures(result, rules)
    return _gates.report_failures("lodestar-polars trec", failures, [g for g, _ in rules])


def _runid(path: Path) -> str:
    """The tag of the run's first line, as trec_eval prints it.

    Read as the run is read: a missing file or a directory is refused by
    name, a byte that is not UTF-8 by ``file:line``.
    """
    with input_file(path, "run").open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                fields = raw.decode("utf-8").split()
            except UnicodeDecodeError:
                where = first_non_utf8(path) or f"{path}:{number}: not UTF-8 text"
                raise ValueError(where) from None
            if fields:
                return fields[5] if len(fields) > 5 else ""
    return ""


def _value(value: float | None, text: str | None, *, count: bool) -> str:
    """A value as trec_eval prints it: a count as an integer, text quoted, else 4 decimals."""
    if value is None:  # relstring: m_relstring.c's '%s'
        return f"'{text}'"
    return str(round(value)) if count else f"{value:.4f}"


def run(argv: Sequence[str]) -> int:
    """Run ``lodestar-polars trec`` with ``argv`` (after ``trec``); return the exit status."""
    # intermixed: the runs may follow the options too (QRELS RUN --compare RUN2)
    args = _parser().parse_intermixed_args(argv)
    names = args.measures or ["official"]
    wants_runid = any(n in ("official", "all_trec", "runid") for n in names)
    names = [n for n in names if n != "runid"]
    if args.compare:
        return _compare(args, names)
    if len(args.run) > 1:
        print(
            f"lodestar-polars trec: error: {len(args.run)} runs given; several runs are "
            "compared with --compare",
            file=sys.stderr,
        )
        return 2
    args.run = args.run[0]
    try:
        rules = _gates_of(args, names)
        parsed = parse_measures(names) if names else []
        result = (
            evaluate(
                args.qrels,
                args.run,
                names,
                per_query=args.per_query,
                complete=args.complete,
                relevance_level=args.level,
                max_docs=args.max_docs,
                float32_scores=args.float32_scores,
            )
            if names
            else pl.DataFrame(schema={"qid": pl.String, "measure": pl.String, "value": pl.Float64})
        )
        runid = _runid(args.run) if wants_runid else ""
    except (ValueError, OSError, pl.exceptions.PolarsError) as exc:
        print(f"lodestar-polars trec: error: {exc}", file=sys.stderr)
        return 2
    if not args.measures and NOT_OFFERED:  # after the work: an error stays the only line
        print(
            "lodestar-polars trec: note: trec_eval's default set also prints "
            f"{', '.join(NOT_OFFERED)}, which are not offered here",
            file=sys.stderr,
        )
    if "text" not in result.columns:
        result = result.with_columns(text=pl.lit(None, dtype=pl.String))
    summary = result.filter(pl.col("qid") == "all")
    means = {measure: value for _, measure, value, _ in summary.iter_rows()}
    failures = [
        line
        for gate, label in rules
        if (line := _gates.threshold_failure(gate, f"run {args.run.name!r}", label, means[label]))
    ]
    status = _gates.report_failures
    # csv and json: the frame lp.trec.evaluate returns (a text column where text is asked)
    written = result if any(m.measure.is_text for m in parsed) else result.drop("text")
    if args.format == "csv":
        sys.stdout.write(written.write_csv())
        return status("lodestar-polars trec", failures, [g for g, _ in rules])
    if args.format == "json":
        sys.stdout.write(written.write_json() + "\n")
        return status("lodestar-polars trec", failures, [g for g, _ in rules])
    counts = {m.label: m.measure.is_count for m in parsed}  # printed as integers
    per_query = result.filter(pl.col("qid") != "all")
    out = [
        f"{measure:<22}\t{qid}\t{_value(value, text, count=counts[measure])}"
        for qid, measure, value, text in per_query.iter_rows()
    ]
    if wants_runid:
        out.append(f"{'runid':<22}\tall\t{runid}")
    out += [
        f"{measure:<22}\t{qid}\t{_value(value, text, count=counts[measure])}"
        for qid, measure, value, text in summary.iter_rows()
    ]
    sys.stdout.write("".join(f"{line}\n" for line in out))
    return status("lodestar-polars trec", failures, [g for g, _ in rules])
