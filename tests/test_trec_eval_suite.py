"""trec_eval's own test suite, run through ``lodestar-polars trec``.

The files in ``tests/data/trec_eval/`` are trec_eval 10.0's ``test/`` folder
(NIST's data and expected outputs; see its README.md and LICENSE.md).  Each
expected output is compared line by line, text for text (name padding,
query order, 4 decimals), restricted to the measures offered here:

``runid``, ``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``, ``map``,
``Rprec``, ``recip_rank``, ``P_k``, ``recall_k``, ``ndcg`` (also with custom
gains, ``ndcg_1=3,2=9,4=4.5``), ``ndcg_cut_k``, ``map_cut_k``, ``success_k``.

Not offered, so left out of the comparison: ``gm_map``, ``bpref``,
``gm_bpref``, ``iprec_at_recall_*``, ``relstring``, ``infAP``,
``Rprec_mult_*``, ``utility``, ``11pt_avg``, ``binG``, ``G``, ``ndcg_rel``,
``Rndcg``, ``relative_P_*``, ``set_P``, ``set_recall``, ``set_map``,
``set_F``, ``set_relative_P``, ``num_nonrel_judged_ret``, ``unj_*``,
``rbp``, ``rbp_resid``.  The commands are trec_eval's with the options of
those measures dropped (``-mrelstring.20``, ``-miprec_at_recall...``,
``-m Rprec_mult...``, ``-mutility...``, ``-m 11pt_avg...``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lodestar_polars.cli import run

DATA = Path(__file__).parent / "data" / "trec_eval"

OFFERED = re.compile(
    r"^(runid|num_q|num_ret|num_rel|num_rel_ret|map|Rprec|recip_rank|P_\d+|recall_\d+|ndcg"
    r"|ndcg_cut_\d+|map_cut_\d+|success_\d+|ndcg_\d+=\S*)\s"
)

# expected file -> trec_eval's command line (after `trec_eval`), offered measures only
COMMANDS = {
    "out.test": "qrels.test results.test",
    "out.test.a": "-m all_trec qrels.test results.test",
    "out.test.aq": "-m all_trec -q qrels.test results.test",
    "out.test.aqc": "-m all_trec -q -c qrels.test results.trunc",
    "out.test.aqcM": "-m all_trec -q -c -M100 qrels.test results.trunc",
    "out.test.aql": "-m all_trec -q -l2 qrels.rel_level results.test",
    "out.test.meas_params": (
        "-q -m P.5,7,3 -m recall.20,2000 -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 "
        "-msuccess.2,5,20 qrels.test results.test"
    ),
}


def _args(command: str) -> list[str]:
    return [str(DATA / word) if (DATA / word).is_file() else word for word in command.split()]


@pytest.mark.parametrize("expected_file", list(COMMANDS))
def test_every_offered_line_matches(expected_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    expected = [
        line for line in (DATA / expected_file).read_text().splitlines() if OFFERED.match(line)
    ]
    assert expected, "the file has lines of offered measures"
    assert run(["trec", *_args(COMMANDS[expected_file])]) == 0
    got = capsys.readouterr().out.splitlines()
    assert got == expected


def test_every_measure_offered_is_checked() -> None:
    """Each offered measure appears in some expected file, per query and in `all`."""
    seen: set[str] = set()
    for name in COMMANDS:
        for line in (DATA / name).read_text().splitlines():
            if OFFERED.match(line):
                seen.add(re.sub(r"_\d+$", "", line.split()[0]).split("_1=")[0])
    assert seen >= {
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "Rprec",
        "recip_rank",
        "P",
        "recall",
        "ndcg",
        "ndcg_cut",
        "map_cut",
        "success",
    }
