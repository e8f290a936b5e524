"""trec_eval's own test suite, run through ``lodestar-polars trec``.

The files in ``tests/data/trec_eval/`` are trec_eval 10.0's ``test/`` folder
(NIST's data and expected outputs; see its README.md and LICENSE.md).  Each
expected output is compared line by line, text for text (name padding,
query order, 4 decimals), restricted to the measures offered here: a line is
kept when its measure (the name before its parameters, ``P`` of ``P_10``,
``iprec_at_recall`` of ``iprec_at_recall_0.10``, ``utility`` of
``utility_2,-1,0,0``) is in ``lp.trec.MEASURES``, or is ``runid``.

Every measure that trec_eval prints in these files is offered (``relstring``, text,
included: ``relstring_20`` of ``-mrelstring.20``), so no line is left out; the
commands are trec_eval's, as they are.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import lodestar_polars as lp
from lodestar_polars.cli import run

DATA = Path(__file__).parent / "data" / "trec_eval"

_NAME = re.compile(r"^(?P<base>.+?)_(?P<params>[-.0-9][-0-9.,=]*)$")


def measure_of(label: str) -> str:
    """trec_eval's measure of a printed name: ``P_10`` -> ``P``, ``11pt_avg`` -> itself."""
    if label in lp.trec.MEASURES or label == "runid":
        return label
    match = _NAME.match(label)
    return match["base"] if match else label


def offered(line: str) -> bool:
    """Whether an expected line's measure is computed here (``runid`` is the command's)."""
    name = measure_of(line.split("\t")[0].strip())
    return name == "runid" or name in lp.trec.MEASURES


# expected file -> trec_eval's command line (after `trec_eval`), offered measures only
COMMANDS = {
    "out.test": "qrels.test results.test",
    "out.test.a": "-m all_trec qrels.test results.test",
    "out.test.aq": "-m all_trec -q qrels.test results.test",
    "out.test.aqc": "-m all_trec -q -c qrels.test results.trunc",
    "out.test.aqcM": "-m all_trec -q -c -M100 qrels.test results.trunc",
    "out.test.aql": "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test",
    "out.test.meas_params": (
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test"
    ),
}


def _args(command: str) -> list[str]:
    return [str(DATA / word) if (DATA / word).is_file() else word for word in command.split()]


@pytest.mark.parametrize("expected_file", list(COMMANDS))
def test_every_offered_line_matches(expected_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    expected = [line for line in (DATA / expected_file).read_text().splitlines() if offered(line)]
    assert expected, "the file has lines of offered measures"
    assert run(["trec", *_args(COMMANDS[expected_file])]) == 0
    got = capsys.readouterr().out.splitlines()
    assert got == expected


def test_every_measure_offered_is_checked() -> None:
    """Each offered measure appears in some expected file."""
    seen: set[str] = set()
    for name in COMMANDS:
        for line in (DATA / name).read_text().splitlines():
            if offered(line):
                seen.add(measure_of(line.split("\t")[0].strip()))
    assert seen >= {"runid", *lp.trec.MEASURES}
