"""``lp.trec``: TREC files, trec_eval's measures, and parity with pytrec_eval."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import lodestar_polars.trec as trec
from lodestar_polars.cli import run as cli_run

DATA = Path(__file__).parent / "data" / "trec_eval"

MEASURES = [
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "map_cut.1,3,5,10",
    "Rprec",
    "recip_rank",
    "P.1,3,5,10,50",
    "recall.1,3,10,50",
    "success.1,3,5",
    "ndcg",
    "ndcg_cut.1,3,10,50",
]


# --------------------------------------------------------------------------- files
def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_read_run_schema_whitespace_blank_lines_and_extra_fields(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "run.txt",
        "q-1 Q0 d1 1 2.5 tag\n\n  q-1\tQ0\t d2   2\t-1e-3 tag more junk\r\n007 Q0 d1 1 3 t2\n",
    )
    got = trec.read_run(path).collect()
    expected = pl.DataFrame(
        {
            "qid": ["q-1", "q-1", "007"],
            "docno": ["d1", "d2", "d1"],
            "rank": [1, 2, 1],
            "score": [2.5, -0.001, 3.0],
            "tag": ["tag", "tag", "t2"],
        }
    )
    assert_frame_equal(got, expected)
    assert isinstance(trec.read_run(path), pl.LazyFrame)


def test_read_qrels_schema(tmp_path: Path) -> None:
    path = _write(tmp_path, "qrels.txt", "1 0 a 2\n1 0 b -1\n\n2 x a 0\n")
    expected = pl.DataFrame(
        {
            "qid": ["1", "1", "2"],
            "iter": ["0", "0", "x"],
            "docno": ["a", "b", "a"],
            "rel": [2, -1, 0],
        }
    )
    assert_frame_equal(trec.read_qrels(path).collect(), expected)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "1 Q0 a 1 0.5 t\n1 Q0 b 2 0.4\n",
            ":2: malformed run line '1 Q0 b 2 0.4': "
            "expected 6 fields `qid Q0 docno rank score tag`",
        ),
        ("1 Q0 a one 0.5 t\n", ":1: rank 'one' is not an integer"),
        ("1 Q0 a 1 high t\n", ":1: score 'high' is not a finite number"),
        ("1 Q0 a 1 nan t\n", ":1: score 'nan' is not a finite number"),
        (
            "1 Q0 a 1 0.5 t\n2 Q0 a 1 0.5 t\n\n1 Q0 a 3 0.1 t\n",
            ":4: document 'a' is listed twice for query '1' (first on line 1)",
        ),
    ],
)
def test_read_run_errors_name_the_line(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, "run.txt", text)
    with pytest.raises(ValueError, match="^") as info:
        trec.read_run(path).collect()
    assert str(info.value) == f"{path}{message}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "1 0 a 1\n1 0 b\n",
            ":2: malformed qrels line '1 0 b': expected 4 fields `qid iter docno rel`",
        ),
        (
            "1 0 a 1 extra\n",
            ":1: malformed qrels line '1 0 a 1 extra': expected 4 fields `qid iter docno rel`",
        ),
        ("1 0 a 0.5\n", ":1: relevance '0.5' is not an integer"),
        (
            "1 0 a 1\n1 1 a 0\n",
            ":2: document 'a' is listed twice for query '1' (first on line 1)",
        ),
    ],
)
def test_read_qrels_errors_name_the_line(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, "qrels.txt", text)
    with pytest.raises(ValueError, match="^") as info:
        trec.read_qrels(path).collect()
    assert str(info.value) == f"{path}{message}"


def test_write_run_round_trip(tmp_path: Path) -> None:
    frame = pl.DataFrame(
        {
            "qid": [2, 2, 2, 10, 10],
            "docno": ["x", "y", "z", "x", "w"],
            "score": [0.1 + 0.2, 1e-300, 0.3, -5.0, 7.25],
        }
    )
    path = tmp_path / "run.txt"
    trec.write_run(frame, path, tag="sys1")
    back = trec.read_run(path).collect()
    # queries in id order (as text), documents by score then docno descending
    assert back["qid"].to_list() == ["10", "10", "2", "2", "2"]
    assert back["docno"].to_list() == ["w", "x", "x", "z", "y"]
    assert back["rank"].to_list() == [1, 2, 1, 2, 3]
    assert back["score"].to_list() == [7.25, -5.0, 0.1 + 0.2, 0.3, 1e-300]
    assert set(back["tag"]) == {"sys1"}
    trec.write_run(frame.with_columns(tag=pl.lit("t")), path, max_docs=1)
    assert path.read_text().splitlines() == ["10 Q0 w 1 7.25 t", "2 Q0 x 1 0.30000000000000004 t"]


def test_write_run_refuses_what_the_format_cannot_hold(tmp_path: Path) -> None:
    bad = pl.DataFrame({"qid": ["a b"], "docno": ["d"], "score": [1.0]})
    with pytest.raises(ValueError, match="qid 'a b' is empty or holds whitespace"):
        trec.write_run(bad, tmp_path / "r.txt")
    with pytest.raises(ValueError, match="no 'score' column"):
        trec.write_run(bad.drop("score"), tmp_path / "r.txt")
    twice = pl.DataFrame({"qid": ["a", "a"], "docno": ["d", "d"], "score": [1.0, 2.0]})
    with pytest.raises(ValueError, match="lists document 'd' twice for query 'a'"):
        trec.write_run(twice, tmp_path / "r.txt")


# --------------------------------------------------------------------------- semantics
Run = dict[str, dict[str, float]]  # query -> document -> score, as pytrec_eval takes it
Qrels = dict[str, dict[str, int]]  # query -> document -> relevance


def _frames(run: Run, qrels: Qrels) -> tuple[pl.DataFrame, pl.DataFrame]:
    r = pl.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        schema={"qid": pl.String, "docno": pl.String, "score": pl.Float64},
        orient="row",
    )
    j = pl.DataFrame(
        [(q, d, v) for q, docs in qrels.items() for d, v in docs.items()],
        schema={"qid": pl.String, "docno": pl.String, "rel": pl.Int64},
        orient="row",
    )
    return r, j


def _values(result: pl.DataFrame) -> dict[tuple[str, str], float]:
    return {(q, m): v for q, m, v in result.iter_rows()}


def test_trec_eval_rules_by_hand() -> None:
    run, qrels = _frames(
        {"q": {"u": 9.0, "a": 1.0, "b": 1.0, "n": 0.5}},
        {"q": {"u": -1, "a": 1, "b": 0, "z": 2}},
    )
    got = _values(
        trec.evaluate(qrels, run, ["P.1,2,10", "recip_rank", "recall.10", "map", "Rprec"])
    )
    # u is judged -1 (unjudged): not relevant. a and b tie: b ranks first (docno descending)
    assert got[("all", "P_1")] == 0.0
    assert got[("all", "P_2")] == 0.0
    assert got[("all", "P_10")] == 0.1  # divided by 10 though only 4 retrieved
    assert got[("all", "recip_rank")] == 1 / 3
    assert got[("all", "recall_10")] == 0.5  # z is relevant and not retrieved
    assert got[("all", "map")] == (1 / 3) / 2
    assert got[("all", "Rprec")] == 0.0  # R = 2: top 2 are u and b


def test_query_set_rules_and_complete() -> None:
    run, qrels = _frames(
        {"judged": {"a": 1.0}, "unjudged": {"a": 1.0}},
        {"judged": {"a": 1}, "missing": {"a": 1}, "nothing_relevant": {"b": 0}},
    )
    run = pl.concat(
        [run, pl.DataFrame({"qid": ["nothing_relevant"], "docno": ["x"], "score": [0.0]})]
    )
    per_q = trec.evaluate(qrels, run, ["num_q", "map"], per_query=True)
    assert per_q.filter(pl.col("measure") == "map")["qid"].to_list() == [
        "judged",
        "nothing_relevant",
        "all",
    ]
    assert _values(per_q)[("all", "num_q")] == 2
    assert _values(per_q)[("all", "map")] == 0.5
    full = _values(trec.evaluate(qrels, run, ["num_q", "map", "num_rel"], complete=True))
    assert full[("all", "num_q")] == 3
    assert full[("all", "map")] == pytest.approx(1 / 3)
    assert full[("all", "num_rel")] == 2


def test_max_docs_cuts_the_run_not_the_ideal() -> None:
    run, qrels = _frames({"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"q": {"a": 1, "c": 3}})
    cut = _values(trec.evaluate(qrels, run, ["ndcg", "num_ret", "ndcg_cut.2"], max_docs=2))
    ideal = 3 + 1 / np.log2(3)
    assert cut[("all", "ndcg")] == pytest.approx(1 / ideal)
    assert cut[("all", "ndcg_cut_2")] == pytest.approx(1 / ideal)
    assert cut[("all", "num_ret")] == 2


def test_custom_gains_and_relevance_level() -> None:
    run, qrels = _frames({"q": {"a": 3.0, "b": 2.0}}, {"q": {"a": 1, "b": 2}})
    got = _values(trec.evaluate(qrels, run, ["ndcg.1=3,2=9", "ndcg", "P.1"], relevance_level=2))
    d1 = 1 / np.log2(3)
    assert got[("all", "ndcg_1=3,2=9")] == pytest.approx((3 + 9 * d1) / (9 + 3 * d1))
    assert got[("all", "ndcg")] == pytest.approx((1 + 2 * d1) / (2 + d1))  # -l is ignored
    assert got[("all", "P_1")] == 0.0


def test_aliases_keep_their_names() -> None:
    run, qrels = _frames({"q": {"a": 3.0, "b": 2.0}}, {"q": {"b": 1}})
    names = [
        "ndcg@2",
        "nDCG@2",
        "map@100",
        "AP@100",
        "mrr@1",
        "RR@10",
        "P@1",
        "precision@2",
        "recall@1",
        "R@2",
        "hit_rate@1",
        "Success@2",
        "r-precision",
        "Rprec",
        "ndcg_cut_2",
    ]
    got = _values(trec.evaluate(qrels, run, names))
    assert got[("all", "ndcg@2")] == got[("all", "nDCG@2")] == got[("all", "ndcg_cut_2")]
    assert got[("all", "mrr@1")] == 0.0
    assert got[("all", "RR@10")] == 0.5
    assert got[("all", "Success@2")] == got[("all", "R@2")] == 1.0
    assert got[("all", "hit_rate@1")] == 0.0
    assert got[("all", "precision@2")] == got[("all", "map@100")] == got[("all", "AP@100")] == 0.5
    assert got[("all", "r-precision")] == got[("all", "Rprec")] == 0.0


def test_parse_measures_defaults_and_errors() -> None:
    labels = [m.label for m in trec.parse_measures(["official"])]
    assert labels[:9] == [
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
    ]
    assert labels[9:20] == [f"iprec_at_recall_{i / 10:3.2f}" for i in range(11)]
    assert labels[20:] == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert [m.label for m in trec.parse_measures("success")] == [
        "success_1",
        "success_5",
        "success_10",
    ]
    with pytest.raises(ValueError, match=r"unknown measure 'yaap' \(trec_eval's yet another AP"):
        trec.parse_measures(["yaap"])
    with pytest.raises(ValueError, match="cutoff '0' is not a number >= 1"):
        trec.parse_measures(["P.0"])
    with pytest.raises(ValueError, match="a cutoff is given twice"):
        trec.parse_measures(["P.5,5"])
    with pytest.raises(ValueError, match="map takes no parameters"):
        trec.parse_measures(["map.5"])


def test_evaluate_input_errors(tmp_path: Path) -> None:
    run, qrels = _frames({"q": {"a": 1.0}}, {"q": {"a": 1}})
    with pytest.raises(ValueError, match="lists document 'a' twice for query 'q'"):
        trec.evaluate(qrels, pl.concat([run, run]), "map")
    with pytest.raises(ValueError, match="no query of the run has judgments"):
        trec.evaluate(qrels, run.with_columns(qid=pl.lit("other")), "map")
    with pytest.raises(ValueError, match="`run` has no 'score' column"):
        trec.evaluate(qrels, run.drop("score"), "map")
    with pytest.raises(ValueError, match="is not a finite number"):
        trec.evaluate(qrels, run.with_columns(score=pl.lit(float("nan"))), "map")
    with pytest.raises(ValueError, match="`relevance_level` must be an int >= 0"):
        trec.evaluate(qrels, run, "map", relevance_level=-1)
    with pytest.raises(ValueError, match="`max_docs` must be an int >= 1"):
        trec.evaluate(qrels, run, "map", max_docs=0)
    path = _write(tmp_path, "run.txt", "q Q0 a 1 x t\n")
    with pytest.raises(ValueError, match="run.txt:1: score 'x' is not a finite number"):
        trec.evaluate(qrels, path, "map")


def test_files_and_frames_agree() -> None:
    from_files = trec.evaluate(
        DATA / "qrels.test", DATA / "results.test", "all_trec", per_query=True
    )
    run = trec.read_run(DATA / "results.test").collect().sample(fraction=1.0, shuffle=True, seed=1)
    qrels = trec.read_qrels(DATA / "qrels.test")
    assert_frame_equal(trec.evaluate(qrels, run, "all_trec", per_query=True), from_files)


def test_cli_formats_and_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = ["trec", str(DATA / "qrels.test"), str(DATA / "results.test"), "-m", "map", "-q"]
    assert cli_run([*args, "--format", "csv"]) == 0
    csv = capsys.readouterr().out.splitlines()
    assert csv[0] == "qid,measure,value"
    assert csv[-1].startswith("all,map,0.1785")
    assert cli_run([*args, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[-1]["qid"] == "all"
    assert round(rows[-1]["value"], 4) == 0.1785
    assert (
        cli_run(["trec", str(DATA / "qrels.test"), str(DATA / "results.test"), "-m", "yaap"]) == 2
    )
    assert "lodestar-polars trec: error: unknown measure 'yaap'" in capsys.readouterr().err
    bad = _write(tmp_path, "run.txt", "301 Q0 a\n")
    assert cli_run(["trec", str(DATA / "qrels.test"), str(bad)]) == 2
    assert f"{bad}:1: malformed run line" in capsys.readouterr().err


# --------------------------------------------------------------------------- pytrec_eval
def _generated(seed: int, scores: np.ndarray) -> tuple[Run, Qrels]:
    """A run with heavy ties and its qrels.

    Graded, unjudged (-1 and absent), unretrieved relevant, run-only and
    qrels-only queries, queries with nothing relevant.
    """
    rng = np.random.default_rng(seed)
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in range(25):
        qid = f"q{q}" if q % 3 else str(q)  # mixed id forms
        pool = [f"d{rng.integers(0, 10 ** rng.integers(1, 4))}-{i}" for i in range(40)]
        if q % 7 != 1:  # q % 7 == 1: a judged query missing from the run
            n = int(rng.integers(1, 30))
            docs = rng.choice(pool, size=n, replace=False)
            run[qid] = {str(d): float(rng.choice(scores)) for d in docs}
        if q % 7 != 2:  # q % 7 == 2: a run query without judgments
            n = int(rng.integers(1, 35))
            docs = rng.choice(pool, size=n, replace=False)
            levels = [-1, 0, 0, 1, 1, 2, 3] if q % 5 else [0, -1]
            qrels[qid] = {str(d): int(rng.choice(levels)) for d in docs}
    return run, qrels


def _pytrec(run: Run, qrels: Qrels, level: int) -> dict[tuple[str, str], float]:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES), relevance_level=level)
    out = evaluator.evaluate(run)
    return {(q, m): v for q, values in out.items() for m, v in values.items()}


def _ours(run: Run, qrels: Qrels, level: int, *, float32: bool) -> dict[tuple[str, str], float]:
    r, j = _frames(run, qrels)
    result = trec.evaluate(
        j, r, MEASURES, per_query=True, relevance_level=level, float32_scores=float32
    )
    return _values(result.filter(pl.col("qid") != "all"))


def _assert_same(ours: dict[tuple[str, str], float], theirs: dict[tuple[str, str], float]) -> None:
    assert ours.keys() == theirs.keys()
    wrong = {
        key: (ours[key], theirs[key])
        for key in theirs
        if abs(ours[key] - theirs[key]) > 1e-12 * max(1.0, abs(theirs[key]))
    }
    assert not wrong, f"{len(wrong)} values differ, e.g. {list(wrong.items())[:5]}"


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", [1, 2])
def test_pytrec_eval_parity_float32_exact_scores(seed: int, level: int) -> None:
    """Scores exact in float32: trec_eval 9 (pytrec_eval) and 10 agree, ties and all."""
    run, qrels = _generated(seed, np.array([0.0, 0.25, 0.5, 0.75, 1.0, -2.0]))
    theirs = _pytrec(run, qrels, level)
    _assert_same(_ours(run, qrels, level, float32=False), theirs)


@pytest.mark.parametrize("seed", range(3))
def test_pytrec_eval_parity_needs_float32_scores(seed: int) -> None:
    """Scores that differ as doubles but tie as float32: ``float32_scores=True`` is pytrec_eval."""
    near = np.array([0.3, 0.1 + 0.2, 1.0, 1.0 + 1e-9, 1.0 + 2e-9, 0.5])
    run, qrels = _generated(100 + seed, near)
    theirs = _pytrec(run, qrels, 1)
    _assert_same(_ours(run, qrels, 1, float32=True), theirs)
    doubles = _ours(run, qrels, 1, float32=False)
    assert any(abs(doubles[key] - theirs[key]) > 1e-9 for key in theirs)
