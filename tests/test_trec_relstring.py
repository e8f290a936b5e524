"""trec_eval's ``relstring``: text per query, in ``lp.trec.evaluate`` and the ``trec`` command.

References: trec_eval 10.0's expected outputs (``tests/data/trec_eval/``: ``out.test.aq``,
``.aqc``, ``.aqcM``, ``.aql`` hold its lines; tests/test_trec_all.py and
tests/test_trec_eval_suite.py compare them whole), and its ``m_relstring.c``'s rules,
written out here by hand: a character per ranked document of the first N (10, or
``relstring.N``), ``0``-``9`` the judged relevance, ``>`` above 9, ``-`` not in the qrels,
``.`` judged below 0; the measure name ``relstring`` (or ``relstring_N``), the text quoted.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._core.ir import Judged
from lodestar_polars._core.trec_text import judged_relstring
from lodestar_polars.cli import run as cli_run

DATA = Path(__file__).parent / "data" / "trec_eval"

# q1 ranks a (12), b (not judged), c (-1), d (0), e (3), f (9), g (-7); q2 ranks nothing
# judged; q3 is judged only (no ranked document)
RUN = pl.DataFrame(
    {
        "qid": ["q1"] * 7 + ["q2"] * 2,
        "docno": ["a", "b", "c", "d", "e", "f", "g", "x", "y"],
        "score": [7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 2.0, 1.0],
    }
)
QRELS = pl.DataFrame(
    {
        "qid": ["q1"] * 6 + ["q2", "q3"],
        "docno": ["a", "c", "d", "e", "f", "g", "z", "a"],
        "rel": [12, -1, 0, 3, 9, -7, 1, 1],
    }
)


def _strings(frame: pl.DataFrame) -> dict[tuple[str, str], str]:
    rows = frame.filter(pl.col("text").is_not_null())
    return {(q, m): t for q, m, t in rows.select("qid", "measure", "text").iter_rows()}


def test_characters_by_hand() -> None:
    got = lp.trec.evaluate(QRELS, RUN, ["relstring", "relstring.3"], per_query=True, complete=True)
    assert _strings(got) == {
        ("q1", "relstring"): ">-.039.",  # a b c d e f g
        ("q1", "relstring_3"): ">-.",
        ("q2", "relstring"): "--",
        ("q2", "relstring_3"): "--",
        ("q3", "relstring"): "",  # -c: judged, not ranked
        ("q3", "relstring_3"): "",
    }
    # no `all` row, and value is null on the text rows
    assert got.filter(pl.col("qid") == "all").is_empty()
    assert got["value"].null_count() == got.height
    assert got.schema == pl.Schema(
        {"qid": pl.String, "measure": pl.String, "value": pl.Float64, "text": pl.String}
    )


def test_trec_eval_s_length_rule_and_options() -> None:
    """``(long)`` of the number (20.7 is 20; below 0 is 0), ``-M`` first, ``-l`` changes nothing."""
    got = lp.trec.evaluate(QRELS, RUN, ["relstring.2.7", "relstring.-1"], per_query=True)
    assert _strings(got) == {
        ("q1", "relstring_2.7"): ">-",
        ("q1", "relstring_-1"): "",
        ("q2", "relstring_2.7"): "--",
        ("q2", "relstring_-1"): "",
    }
    cut = lp.trec.evaluate(QRELS, RUN, "relstring", per_query=True, max_docs=4)
    assert _strings(cut)[("q1", "relstring")] == ">-.0"
    level = lp.trec.evaluate(QRELS, RUN, "relstring", per_query=True, relevance_level=5)
    assert _strings(level)[("q1", "relstring")] == ">-.039."


def test_the_frames_with_and_without_text() -> None:
    # without a text measure: the three columns, as before
    plain = lp.trec.evaluate(QRELS, RUN, ["P.2"], per_query=True)
    assert plain.columns == ["qid", "measure", "value"]
    # all rows only: the text column is there (the measures decide the schema), relstring not
    summary = lp.trec.evaluate(QRELS, RUN, ["P.2", "relstring"])
    assert summary.rows() == [("all", "P_2", 0.25, None)]
    mixed = lp.trec.evaluate(QRELS, RUN, ["P.2", "relstring"], per_query=True)
    assert mixed.rows() == [
        ("q1", "P_2", 0.5, None),
        ("q1", "relstring", None, ">-.039."),
        ("q2", "P_2", 0.0, None),
        ("q2", "relstring", None, "--"),
        ("all", "P_2", 0.25, None),
    ]
    wide = lp.trec.evaluate(QRELS, RUN, ["P.2", "relstring"], per_query=True, wide=True)
    assert wide.schema == pl.Schema({"qid": pl.String, "P_2": pl.Float64, "relstring": pl.String})
    assert wide.rows() == [("q1", 0.5, ">-.039."), ("q2", 0.0, "--"), ("all", 0.25, None)]
    assert lp.trec.evaluate(QRELS, RUN, "relstring", wide=True).rows() == [("all", None)]


def test_the_core_has_no_loop_and_handles_empty_queries() -> None:
    data = Judged(
        relevance=np.array([1, -1, 10, -2, 0], dtype=np.int64),
        length=np.array([0, 3, 0, 2], dtype=np.int64),
        n_relevant=np.zeros(4, dtype=np.int64),
        ideal_relevance=np.array([], dtype=np.int64),
        ideal_length=np.zeros(4, dtype=np.int64),
    )
    assert judged_relstring(data, (10.0,), None).tolist() == ["", "1->", "", ".0"]
    assert judged_relstring(data, (1.0,), None).tolist() == ["", "1", "", "."]
    assert judged_relstring(data, (0.0,), None).tolist() == ["", "", "", ""]


def test_the_command_prints_trec_eval_s_lines(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["trec", str(DATA / "qrels.rel_level"), str(DATA / "results.test")]
    assert cli_run([*args, "-m", "relstring.20", "-q", "-l2"]) == 0
    expected = [
        line
        for line in (DATA / "out.test.aql").read_text().splitlines()
        if line.startswith("relstring")
    ]
    assert capsys.readouterr().out.splitlines() == expected
    assert len(expected) == 3
    # without -q, trec_eval prints no relstring line (it has no `all` line)
    assert cli_run([*args, "-m", "relstring"]) == 0
    assert capsys.readouterr().out == ""
    assert cli_run([*args, "-m", "relstring", "-m", "P.5", "-q", "--format", "csv"]) == 0
    csv = capsys.readouterr().out.splitlines()
    assert csv[0] == "qid,measure,value,text"
    assert csv[1:3] == ["301,P_5,0.0,", "301,relstring,,0000011000"]
    assert cli_run([*args, "-m", "relstring", "-q", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0] == {"qid": "301", "measure": "relstring", "value": None, "text": "0000011000"}


def test_compare_and_gates_leave_text_out(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["trec", str(DATA / "qrels.test"), str(DATA / "results.test")]
    assert cli_run([*args, "-m", "relstring", "--fail-below", "relstring=0.5"]) == 2
    assert (
        "--fail-below relstring=0.5: 'relstring' is text; text is not gated or compared"
        in capsys.readouterr().err
    )
    run = str(tmp_path / "other.test")
    Path(run).write_text((DATA / "results.test").read_text())
    assert cli_run([*args, run, "--compare", "-m", "relstring", "-m", "map"]) == 0
    out = capsys.readouterr().out
    assert "map" in out
    assert "relstring" not in out
    assert cli_run([*args, run, "--compare", "-m", "relstring"]) == 2
    assert "no measure to compare" in capsys.readouterr().err


def test_sets_give_way_to_parameters_as_trec_eval() -> None:
    labels = [m.label for m in lp.trec.parse_measures(["all_trec", "relstring.20"])]
    assert "relstring_20" in labels
    assert "relstring" not in labels
    both = [m.label for m in lp.trec.parse_measures(["relstring", "relstring.20"])]
    assert both == ["relstring", "relstring_20"]
    # the bare name after the set (or before) is still the set's: replaced too
    labels = [m.label for m in lp.trec.parse_measures(["relstring.20", "official"])]
    assert labels.count("relstring_20") == 1
    assert "relstring" not in labels
    with pytest.raises(ValueError, match="relstring takes 1 value, got 2"):
        lp.trec.parse_measures(["relstring.10,20"])
    with pytest.raises(ValueError, match="parameter 'x' is not a number written in digits"):
        lp.trec.parse_measures(["relstring.x"])


def test_lp_compare_reads_a_frame_with_text() -> None:
    """lp.compare leaves relstring's rows out (no number to compare) and compares the rest."""
    qrels, measures = DATA / "qrels.test", ["map", "relstring"]
    a = lp.trec.evaluate(qrels, DATA / "results.test", measures, per_query=True)
    b = lp.trec.evaluate(qrels, DATA / "results.trunc", measures, per_query=True, complete=True)
    result = lp.compare({"a": a, "b": b}, baseline="a")
    assert result.table["metric"].to_list() == ["map", "map"]
    numbers = {
        name: frame.drop("text").filter(pl.col("measure") == "map")
        for name, frame in (("a", a), ("b", b))
    }
    assert result.table.equals(lp.compare(numbers, baseline="a").table)
