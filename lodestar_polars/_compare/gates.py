"""Release gates for the command line: rules that make ``trec`` and ``report`` exit 1.

A CI job runs ``lodestar-polars trec QRELS BASE NEW --compare --fail-if-worse map`` (or
``lodestar-polars report SCORES --train TRAIN --fail-if-worse primary``) and reads the exit
status: 0 when every rule holds, 1 when one fails (each failed rule one line on stderr,
naming the flag, the run and by how much), 2 for an error (bad input, a rule that cannot be
checked). The report is printed either way.

- ``--fail-if-worse METRIC``: a significant loss on ``METRIC``. In ``trec --compare``: a
  run significantly worse than the baseline (the first run), in the metric's direction,
  after the comparison's correction; in ``report``: the bootstrap verdict
  ``baseline_ahead`` (the popularity floor ahead, the interval of model minus floor wholly
  below zero). ``primary`` names the primary metric (the first ``-m`` measure compared;
  the report's ``primary_score``). A metric whose direction the registry does not know is
  refused: "worse" would be a guess.
- ``--fail-below METRIC=VALUE`` / ``--fail-above METRIC=VALUE``: a threshold on a run's
  mean (``trec``: each run but the baseline with ``--compare``, the run without it;
  ``report``: the model's value in the primary objective). ``--fail-below`` on a metric
  whose direction is "lower" (a loss), or ``--fail-above`` on a "higher" one, is refused:
  the rule would fail on improvement.

Directions come from :func:`lodestar_polars._registry.direction` only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from lodestar_polars._registry import Direction, direction

WORSE = "--fail-if-worse"
BELOW = "--fail-below"
ABOVE = "--fail-above"
PRIMARY = "primary"


class GateError(ValueError):
    """A rule that cannot be checked (exit status 2, as any other error)."""


@dataclass(frozen=True)
class Gate:
    """One rule as written on the command line."""

    flag: str
    metric: str
    threshold: float | None = None

    @property
    def text(self) -> str:
        """The rule as the user wrote it: ``--fail-below ndcg_cut.10=0.45``."""
        if self.threshold is None:
            return f"{self.flag} {self.metric}"
        return f"{self.flag} {self.metric}={self.threshold:g}"


def add_arguments(parser: object) -> None:
    """The three gate flags, on an ``argparse.ArgumentParser``."""
    add = parser.add_argument  # type: ignore[attr-defined]
    add(
        WORSE,
        dest="fail_if_worse",
        action="append",
        metavar="METRIC",
        help="exit 1 when the baseline is significantly ahead on METRIC ('primary': the "
        "primary metric); repeatable",
    )
    add(
        BELOW,
        dest="fail_below",
        action="append",
        metavar="METRIC=VALUE",
        help="exit 1 when a run's METRIC is below VALUE (a higher-is-better metric); repeatable",
    )
    add(
        ABOVE,
        dest="fail_above",
        action="append",
        metavar="METRIC=VALUE",
        help="exit 1 when a run's METRIC is above VALUE (a lower-is-better metric); repeatable",
    )


def parse(
    worse: Sequence[str] | None, below: Sequence[str] | None, above: Sequence[str] | None
) -> list[Gate]:
    """The rules of the three flags, in that order; a malformed threshold is refused."""
    gates = [Gate(WORSE, m.strip()) for m in worse or ()]
    for flag, values in ((BELOW, below), (ABOVE, above)):
        for raw in values or ():
            metric, sep, number = raw.rpartition("=")
            try:
                value = float(number)
            except ValueError:
                value = math.nan
            if not sep or not metric.strip() or not math.isfinite(value):
                msg = (
                    f"{flag} {raw!r}: expected METRIC=VALUE with a finite number "
                    "(e.g. ndcg_cut.10=0.45)"
                )
                raise GateError(msg)
            gates.append(Gate(flag, metric.strip(), value))
    return gates


def way_of(gate: Gate, label: str) -> Direction | None:
    """The metric's direction, checked against the rule that uses it."""
    way = direction(label)
    if gate.flag == WORSE and way is None:
        msg = (
            f"{gate.text}: whether higher or lower {label!r} is better is not known to the "
            "metric registry, so 'worse' is not defined; use --fail-below or --fail-above "
            "with a value"
        )
        raise GateError(msg)
    if gate.flag == BELOW and way == "lower":
        msg = (
            f"{gate.text}: lower {label!r} is better, so this rule would fail on improvement; "
            f"use {ABOVE} {gate.metric}={gate.threshold:g}"
        )
        raise GateError(msg)
    if gate.flag == ABOVE and way == "higher":
        msg = (
            f"{gate.text}: higher {label!r} is better, so this rule would fail on improvement; "
            f"use {BELOW} {gate.metric}={gate.threshold:g}"
        )
        raise GateError(msg)
    return way


def threshold_failure(gate: Gate, run: str, label: str, value: float) -> str | None:
    """The failure sentence of a ``--fail-below`` / ``--fail-above`` rule, or None."""
    limit = gate.threshold
    assert limit is not None
    if gate.flag == BELOW and value < limit:
        return f"{gate.text}: {run} has {label} = {value:.4f}, {limit - value:.4f} below {limit:g}"
    if gate.flag == ABOVE and value > limit:
        return f"{gate.text}: {run} has {label} = {value:.4f}, {value - limit:.4f} above {limit:g}"
    return None


def report_failures(prog: str, failures: Sequence[str], gates: Sequence[Gate]) -> int:
    """Print the verdict of the gates on stderr; the exit status (1 on any failure)."""
    import sys

    if not gates:
        return 0
    for line in failures:
        print(f"{prog}: gate failed: {line}", file=sys.stderr)
    if failures:
        return 1
    print(f"{prog}: gates passed: {', '.join(g.text for g in gates)}", file=sys.stderr)
    return 0
