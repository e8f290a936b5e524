"""trec_eval's other measures (``-m all_trec`` whole), against trec_eval 10.0 and pytrec_eval.

References
----------
* trec_eval 10.0's own expected outputs (``tests/data/trec_eval/``, NIST's; the
  commands in its README.md): every line of every measure offered, per query
  and ``all``, text for text; the lines left out are named here.
* pytrec_eval (trec_eval 9's code) on random runs with ties, unjudged documents
  (absent, and judged -1: "in the pool, unjudged", which infAP counts), judged
  queries with nothing relevant, two relevance levels: every measure it has, per
  query, to 1e-12.  trec_eval 9 counted a recall level's relevant documents as
  ``(long)(level R + 0.9)``, 10.0 as ``lround(level R)`` (its m_iprec_at_recall.c
  says so): ``iprec_at_recall`` and ``11pt_avg`` are compared with 9's rounding
  put in, and the two roundings are shown to differ.
* hand arithmetic, written out, for each formula and the geometric mean.
* ir_measures (``Bpref``, ``infAP``, ``IPrec@r``) for the expressions' names in
  ``lp.evaluate``; and ``lp.trec.evaluate`` itself for the expressions on the
  run joined with its qrels (bpref's averaged ties against every ordering).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
import lodestar_polars._core.trec_more as trec_more
from lodestar_polars._registry import TREC_MEASURES
from lodestar_polars.cli import run as cli_run

DATA = Path(__file__).parent / "data" / "trec_eval"

NEW = [
    "gm_map",
    "bpref",
    "iprec_at_recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg_rel",
    "Rndcg",
    "relative_P",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
]
"""The measures of issue 21, each offered now."""

LEFT_OUT: set[str] = set()
"""What ``trec_eval -m all_trec`` prints that is not offered here: nothing (``relstring``,
text, is offered since issue 21's leftovers)."""

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
"""trec_eval's commands (its README), as they are."""


def _measure(label: str) -> str:
    name = label.strip()
    if name in TREC_MEASURES or name == "runid":
        return name
    base = name
    for measure in sorted(TREC_MEASURES, key=len, reverse=True):
        if name.startswith(measure + "_"):
            base = measure
            break
    return base


def _command(key: str) -> list[str]:
    return [str(DATA / w) if (DATA / w).is_file() else w for w in COMMANDS[key].split()]


def test_every_new_measure_is_offered() -> None:
    assert set(NEW) <= set(lp.trec.MEASURES)
    missing = {m.name for m in TREC_MEASURES.values() if m.all_trec and not m.offered}
    assert missing <= LEFT_OUT


@pytest.mark.parametrize("expected_file", list(COMMANDS))
def test_trec_eval_s_files_line_for_line(
    expected_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every line trec_eval 10.0 printed, in its order, but those of the measures left out."""
    lines = (DATA / expected_file).read_text().splitlines()
    left_out = [line for line in lines if _measure(line.split("\t")[0]) not in lp.trec.MEASURES]
    left_out = [line for line in left_out if not line.startswith("runid")]
    assert {_measure(line.split("\t")[0]) for line in left_out} <= LEFT_OUT
    assert cli_run(["trec", *_command(expected_file)]) == 0
    got = capsys.readouterr().out.splitlines()
    assert got == [line for line in lines if line not in left_out]
    # the new measures are there, per query (where they have rows) and in `all`
    printed = {(_measure(line.split("\t")[0]), line.split("\t")[1]) for line in got}
    if expected_file != "out.test.meas_params":
        wanted = {"gm_map", "bpref", "iprec_at_recall"}
        if expected_file != "out.test":
            wanted = set(NEW)
        assert {m for m, qid in printed if qid == "all"} >= wanted
        if "-q" in COMMANDS[expected_file]:
            per_query = {m for m, qid in printed if qid != "all"}
            assert per_query >= wanted - {"gm_map", "gm_bpref"}
            assert not per_query & {"gm_map", "gm_bpref"}  # all only, as trec_eval


def test_all_trec_prints_trec_eval_s_lines_with_nothing_else(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``-m all_trec``: 99 lines in trec_eval's file, and here (relstring has no ``all`` line)."""
    assert cli_run(["trec", *_command("out.test.a")]) == 0
    got = capsys.readouterr().out.splitlines()
    expected = (DATA / "out.test.a").read_text().splitlines()
    assert [line for line in expected if line in got] == got
    assert len(expected) - len(got) == sum(
        _measure(line.split("\t")[0]) in LEFT_OUT for line in expected
    )


# --------------------------------------------------------------------------- pytrec_eval
Run = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]


def _generated(seed: int) -> tuple[Run, Qrels]:
    """Heavy ties, graded and unjudged (-1 and absent) documents, relevant ones not retrieved."""
    rng = np.random.default_rng(seed)
    scores = np.array([0.0, 0.25, 0.5, 0.75, 1.0, -2.0])  # exact in float32: 9 and 10 agree
    run: Run = {}
    qrels: Qrels = {}
    for q in range(25):
        qid = f"q{q}"
        pool = [f"d{rng.integers(0, 10 ** rng.integers(1, 4))}-{i}" for i in range(40)]
        docs = rng.choice(pool, size=int(rng.integers(1, 30)), replace=False)
        run[qid] = {str(d): float(rng.choice(scores)) for d in docs}
        judged = rng.choice(pool, size=int(rng.integers(1, 35)), replace=False)
        levels = [-1, 0, 0, 1, 1, 2, 3] if q % 5 else [0, -1]
        qrels[qid] = {str(d): int(rng.choice(levels)) for d in judged}
    return run, qrels


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


def _pytrec(run: Run, qrels: Qrels, measures: set[str], level: int) -> dict[tuple[str, str], float]:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level)
    return {(q, m): v for q, vs in evaluator.evaluate(run).items() for m, v in vs.items()}


def _ours(run: Run, qrels: Qrels, measures: list[str], level: int) -> dict[tuple[str, str], float]:
    r, j = _frames(run, qrels)
    out = lp.trec.evaluate(j, r, measures, per_query=True, relevance_level=level)
    return {(q, m): v for q, m, v in out.filter(pl.col("qid") != "all").iter_rows()}


def _differing(
    ours: dict[tuple[str, str], float], theirs: dict[tuple[str, str], float]
) -> dict[tuple[str, str], tuple[float, float]]:
    return {
        key: (ours[key], value)
        for key, value in theirs.items()
        if abs(ours[key] - value) > 1e-12 * max(1.0, abs(value))
    }


PER_QUERY = [m for m in NEW if m not in ("gm_map", "gm_bpref", "iprec_at_recall", "11pt_avg")]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("level", [1, 2])
def test_pytrec_eval_parity_per_query(seed: int, level: int) -> None:
    run, qrels = _generated(seed)
    theirs = _pytrec(run, qrels, set(PER_QUERY), level)
    ours = _ours(run, qrels, PER_QUERY, level)
    assert ours.keys() == theirs.keys()
    assert len({m for _, m in theirs}) >= len(PER_QUERY)
    wrong = _differing(ours, theirs)
    assert not wrong, f"{len(wrong)} values differ, e.g. {list(wrong.items())[:5]}"


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("level", [1, 2])
def test_pytrec_eval_parity_interpolated_with_trec_eval_9_s_rounding(
    seed: int, level: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """iprec_at_recall and 11pt_avg: pytrec_eval's numbers once 9's ``(long)(x + 0.9)`` is used."""
    run, qrels = _generated(seed)
    measures = ["iprec_at_recall", "11pt_avg"]
    theirs = _pytrec(run, qrels, set(measures), level)
    tenth = _ours(run, qrels, measures, level)

    def ninth(x: np.ndarray) -> np.ndarray:
        return np.floor(np.asarray(x, dtype=np.float64) + 0.9).astype(np.int64)

    monkeypatch.setattr(trec_more, "lround", ninth)
    ours = _ours(run, qrels, measures, level)
    assert ours.keys() == theirs.keys()
    wrong = _differing(ours, theirs)
    assert not wrong, f"{len(wrong)} values differ, e.g. {list(wrong.items())[:5]}"
    assert _differing(tenth, theirs)  # 10.0's rounding gives other numbers on these runs


@pytest.mark.parametrize("seed", range(3))
def test_geometric_means_of_pytrec_eval_s_values(seed: int) -> None:
    """``all`` of gm_map and gm_bpref: exp of the mean log of each query's AP / bpref, >= 1e-5."""
    run, qrels = _generated(seed)
    theirs = _pytrec(run, qrels, {"map", "bpref"}, 1)
    r, j = _frames(run, qrels)
    out = lp.trec.evaluate(j, r, ["gm_map", "gm_bpref", "map"], per_query=True)
    total = {m: v for q, m, v in out.iter_rows() if q == "all"}
    assert set(out.filter(pl.col("qid") != "all")["measure"]) == {"map"}  # gm_*: `all` only
    for gm, base in (("gm_map", "map"), ("gm_bpref", "bpref")):
        values = [v for (_, m), v in theirs.items() if m == base]
        assert any(v == 0.0 for v in values)  # the floor is used
        expected = math.exp(sum(math.log(max(v, 1e-5)) for v in values) / len(values))
        assert total[gm] == pytest.approx(expected, rel=1e-12, abs=0)


# --------------------------------------------------------------------------- by hand
def _by_hand(measures: list[str], *, complete: bool = False) -> dict[tuple[str, str], float]:
    """One query: ``a`` (1), ``u`` (-1: in the pool, unjudged), ``x`` (not judged), ``b`` (0),
    ``d`` (1), ranked in that order; ``e`` (0) judged, not retrieved.  R = 2, N = 2.
    """
    run = pl.DataFrame(
        {"qid": ["q"] * 5, "docno": ["a", "u", "x", "b", "d"], "score": [5.0, 4.0, 3.0, 2.0, 1.0]}
    )
    qrels = pl.DataFrame(
        {
            "qid": ["q"] * 5 + ["m", "m"],
            "docno": ["a", "u", "b", "d", "e", "a", "b"],
            "rel": [1, -1, 0, 1, 0, 1, 0],
        }
    )
    out = lp.trec.evaluate(qrels, run, measures, per_query=True, complete=complete)
    return {(q, m): v for q, m, v in out.iter_rows()}


def test_formulas_by_hand() -> None:
    got = _by_hand(
        [
            "bpref",
            "infAP",
            "binG",
            "set_P",
            "set_recall",
            "set_map",
            "set_relative_P",
            "set_F",
            "set_F.0.5",
            "utility",
            "utility.2,-1,3,1",
            "num_nonrel_judged_ret",
            "Rprec_mult.0.2,1,2",
            "relative_P.1,5",
            "iprec_at_recall",
            "11pt_avg",
        ]
    )
    q = {m: v for (qid, m), v in got.items() if qid == "q"}
    # bpref: a has no judged irrelevant above it (1); d has b above: 1 - min(1, 2) / min(2, 2)
    assert q["bpref"] == (1 + 0.5) / 2
    # infAP: a at rank 1 (1); d at j = 4 with r = 1, n = 1 (b), u = 1 (u) above it:
    # 1/5 + 4/5 * (1 + 1 + 1)/4 * (1 + eps)/(1 + 1 + 2 eps) = 0.2 + 0.6 * 0.5
    assert q["infAP"] == pytest.approx((1 + 0.5) / 2, rel=1e-15)
    # binG: 1 / log2(2 + irrelevant above): a 1/log2(2), d 1/log2(5) (u, x, b above)
    assert q["binG"] == pytest.approx((1 + 1 / math.log2(5)) / 2, rel=1e-15)
    # set measures: ret 5, rel 2, rel_ret 2
    assert (q["set_P"], q["set_recall"], q["set_map"], q["set_relative_P"]) == (0.4, 1.0, 0.4, 1.0)
    assert q["set_F"] == pytest.approx(2 * 0.4 * 1.0 / (0.4 + 1.0), rel=1e-15)
    assert q["set_F_0.5"] == pytest.approx(1.5 * 0.4 * 1.0 / (0.5 * 0.4 + 1.0), rel=1e-15)
    assert q["utility"] == 2 - 3
    assert q["utility_2,-1,3,1"] == 2 * 2 - 1 * 3 + 3 * 0 + 1 * (2 - 5 - 2)
    assert q["num_nonrel_judged_ret"] == 1  # b; u (judged -1) and x are not judged
    # Rprec_mult: (long)(m R + 0.9) documents: 1, 2 and 4 -> P@1, P@2, P@4
    assert (q["Rprec_mult_0.20"], q["Rprec_mult_1.00"], q["Rprec_mult_2.00"]) == (1.0, 0.5, 0.25)
    assert (q["relative_P_1"], q["relative_P_5"]) == (1.0, 1.0)  # over min(k, R)
    # interpolated precision: precisions 1, 1/2, 1/3, 1/4, 2/5 by rank; lround(level R)
    # relevant documents: 0 (levels 0 .. 0.2: the best precision, 1), 1 (0.3 .. 0.7: from
    # a down, 1), 2 (0.8 .. 1: from d down, 0.4)
    iprec = [q[f"iprec_at_recall_{i / 10:3.2f}"] for i in range(11)]
    assert iprec == [1.0] * 8 + [0.4] * 3
    assert q["11pt_avg"] == pytest.approx((8 + 3 * 0.4) / 11, rel=1e-15)
    # m is judged but not in the run: skipped (complete=False)
    assert ("m", "bpref") not in got


def test_complete_scores_a_missing_query_and_the_floor_enters_the_geometric_mean() -> None:
    got = _by_hand(["map", "gm_map", "utility.1,-1,2,0", "num_nonrel_judged_ret"], complete=True)
    assert got[("m", "map")] == 0.0
    assert got[("all", "map")] == 0.5 * (got[("q", "map")] + 0.0)
    assert got[("all", "gm_map")] == pytest.approx(
        math.exp((math.log(got[("q", "map")]) + math.log(1e-5)) / 2), rel=1e-12
    )
    # an empty ranking still counts its missed relevant document (trec_eval's -c computes it)
    assert got[("m", "utility_1,-1,2,0")] == 2 * 1
    assert got[("all", "num_nonrel_judged_ret")] == 1  # a sum


def test_lround_rounds_halves_away_from_zero() -> None:
    assert trec_more.lround(np.array([0.5, 1.5, 2.5, 2.4999999, 0.0])).tolist() == [1, 2, 3, 2, 0]


def test_gmean_floors_at_trec_eval_s_min() -> None:
    assert trec_more.gmean(np.array([0.5, 0.0])) == pytest.approx(
        math.exp((math.log(0.5) + math.log(1e-5)) / 2), rel=1e-15
    )


@pytest.mark.parametrize(
    ("measure", "message"),
    [
        ("utility.1,2,3", "utility takes 4 values, got 3"),
        ("set_F.1,2", "set_F takes 1 value, got 2"),
        ("11pt_avg..5,.25", "11pt_avg's levels must increase"),
        ("iprec_at_recall..5,.50", "a level is given twice"),
        ("Rprec_mult.x", "parameter 'x' is not a number written in digits"),
        ("bpref.5", "bpref takes no parameters"),
    ],
)
def test_parameters_refused(measure: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        lp.trec.parse_measures(measure)


def test_printed_names_are_trec_eval_s() -> None:
    labels = [m.label for m in lp.trec.parse_measures(["Rprec_mult.5.0,0.2", "iprec_at_recall"])]
    assert labels[:3] == ["iprec_at_recall_0.00", "iprec_at_recall_0.10", "iprec_at_recall_0.20"]
    assert labels[-2:] == ["Rprec_mult_0.20", "Rprec_mult_5.00"]
    assert [m.label for m in lp.trec.parse_measures(["11pt_avg..25,.5", "utility", "set_F"])] == [
        "utility",
        "11pt_avg_.25,.5",
        "set_F",
    ]


# --------------------------------------------------------------------------- expressions
def _long(qrels_file: str, level: int) -> pl.DataFrame:
    """trec_eval's test run joined with its qrels, as the expressions read it.

    Not in the qrels: -1; judged below 0 ("in the pool, unjudged"): -2; the judged
    relevant count and every judged relevance per query alongside.
    """
    qrels = lp.trec.read_qrels(DATA / qrels_file).select("qid", "docno", "rel").collect()
    run = lp.trec.read_run(DATA / "results.test").select("qid", "docno", "score").collect()
    per_query = qrels.group_by("qid").agg(
        n_rel=(pl.col("rel") >= level).sum(), judged=pl.col("rel").filter(pl.col("rel") >= 0)
    )
    rel = pl.col("rel")
    return (
        run.join(qrels, on=["qid", "docno"], how="left")
        .with_columns(
            pl.when(rel.is_null()).then(-1).when(rel < 0).then(-2).otherwise(rel).alias("rel")
        )
        .join(per_query, on="qid")
    )


LEVELS = [i / 10 for i in range(11)]


@pytest.mark.parametrize(("qrels_file", "level"), [("qrels.test", 1), ("qrels.rel_level", 2)])
def test_expressions_are_lp_trec_s_numbers(qrels_file: str, level: int) -> None:
    """bpref, infAP, iprec_at_recall per query: the expressions give lp.trec's (trec_eval's)."""
    frame = _long(qrels_file, level)
    common: dict[str, Any] = {
        "ties": "trec_eval",
        "item": "docno",
        "relevance_level": level,
        "n_relevant": "n_rel",
    }
    got = (
        frame.group_by("qid")
        .agg(
            bpref=lp.bpref("rel", "score", judged="judged", **common),
            infAP=lp.inferred_average_precision("rel", "score", **common),
            **{
                f"iprec_at_recall_{r:3.2f}": lp.interpolated_precision(
                    "rel", "score", recall=r, **common
                )
                for r in LEVELS
            },
        )
        .sort("qid")
    )
    qrels = lp.trec.read_qrels(DATA / qrels_file)
    run = lp.trec.read_run(DATA / "results.test")
    want = lp.trec.evaluate(
        qrels,
        run,
        ["bpref", "infAP", "iprec_at_recall"],
        per_query=True,
        wide=True,
        relevance_level=level,
    ).filter(pl.col("qid") != "all")
    assert got["qid"].to_list() == want["qid"].to_list()
    for name in got.columns[1:]:
        np.testing.assert_allclose(got[name].to_numpy(), want[name].to_numpy(), rtol=1e-12)


def test_evaluate_names_are_the_expressions() -> None:
    frame = _long("qrels.test", 1)
    names = ["bpref", "Bpref", "infAP", "iprec_at_recall@0.5", "IPrec@0.5", "iprec_at_recall.0.2"]
    got = lp.evaluate(
        frame,
        names,
        by="qid",
        y_true="rel",
        y_score="score",
        ties="trec_eval",
        item="docno",
        n_relevant="n_rel",
        judged="judged",
    ).sort("qid")
    common: dict[str, Any] = {"ties": "trec_eval", "item": "docno", "n_relevant": "n_rel"}
    want = (
        frame.group_by("qid")
        .agg(
            bpref=lp.bpref("rel", "score", judged="judged", **common),
            infap=lp.inferred_average_precision("rel", "score", **common),
            half=lp.interpolated_precision("rel", "score", recall=0.5, **common),
            fifth=lp.interpolated_precision("rel", "score", recall=0.2, **common),
        )
        .sort("qid")
    )
    for name, column in [
        ("bpref", "bpref"),
        ("Bpref", "bpref"),
        ("infAP", "infap"),
        ("iprec_at_recall@0.5", "half"),
        ("IPrec@0.5", "half"),
        ("iprec_at_recall.0.2", "fifth"),
    ]:
        np.testing.assert_allclose(got[name].to_numpy(), want[column].to_numpy(), rtol=1e-12)
    assert lp.trec.parse_measures("IPrec@0.5")[0].values == (0.5,)


def _orderings(n: int, scores: list[float]) -> list[tuple[int, ...]]:
    """Every order of ``n`` rows with the scores non-increasing: each tie ordering once."""
    from itertools import permutations

    return [
        p
        for p in permutations(range(n))
        if all(scores[p[i]] >= scores[p[i + 1]] for i in range(n - 1))
    ]


@pytest.mark.parametrize("seed", range(8))
def test_bpref_averaged_ties_are_the_mean_over_orderings(seed: int) -> None:
    """ties='average' is the mean of bpref over every ordering of the tie groups (brute force)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 7))
    rel = [int(v) for v in rng.choice([-1, 0, 0, 1, 1, 2], n)]
    scores = [float(v) for v in rng.choice([0.1, 0.5, 0.9], n)]
    judged_relevant = sum(v > 0 for v in rel) + 1  # one relevant document not retrieved
    frame = pl.DataFrame({"q": [1] * n, "rel": rel, "score": scores, "nrel": [judged_relevant] * n})
    orders = _orderings(n, scores)
    each = [
        frame[list(order)].select(lp.bpref("rel", "score", ties="input", n_relevant="nrel")).item()
        for order in orders
    ]
    averaged = frame.select(lp.bpref("rel", "score", n_relevant="nrel")).item()
    assert averaged == pytest.approx(sum(each) / len(each), rel=1e-12, abs=1e-15)
    evaluated = lp.evaluate(
        frame, ["bpref"], by="q", y_true="rel", y_score="score", n_relevant="nrel"
    )["bpref"].item()
    assert evaluated == pytest.approx(averaged, rel=1e-12, abs=1e-15)


def test_infap_and_interpolated_precision_refuse_averaged_ties() -> None:
    frame = pl.DataFrame({"q": [1, 1], "rel": [1, 0], "score": [1.0, 1.0], "doc": ["a", "b"]})
    with pytest.raises(lp.InvalidParameterError, match="has no closed form for ties averaged"):
        lp.inferred_average_precision("rel", "score", ties="average")
    with pytest.raises(lp.InvalidParameterError, match="has no closed form for ties averaged"):
        lp.interpolated_precision("rel", "score", recall=0.5, ties="average")
    with pytest.raises(
        lp.InvalidParameterError, match="ties='trec_eval' \\(and item=\\) or ties='input'"
    ):
        lp.evaluate(frame, ["infAP"], by="q", y_true="rel", y_score="score")
    with pytest.raises(lp.InvalidParameterError, match="needs `item=`"):
        lp.inferred_average_precision("rel", "score")
    with pytest.raises(lp.InvalidParameterError, match=r"recall level in \[0, 1\]. Got 1.5"):
        lp.interpolated_precision("rel", "score", recall=1.5)
    with pytest.raises(lp.InvalidParameterError, match="write it as 'IPrec@0.5'"):
        lp.evaluate(frame, ["IPrec"], by="q", y_true="rel", y_score="score", ties="input")
    # ties='input' ranks the tie in row order: a (relevant) first
    got = frame.group_by("q").agg(
        lp.inferred_average_precision("rel", "score", ties="input"),
        lp.interpolated_precision("rel", "score", recall=1.0, ties="input"),
    )
    assert got.row(0) == (1, 1.0, 1.0)


def test_ir_measures_names_and_numbers() -> None:
    """ir_measures' ``Bpref``, ``infAP``, ``IPrec@r`` (its pytrec_eval provider), per query.

    At the recall levels 0.5 and 1, trec_eval 9's ``(long)(x + 0.9)`` and 10's
    ``lround(x)`` reach the same relevant document (``x`` is a whole or a half).
    """
    ir_measures = pytest.importorskip("ir_measures")
    frame = _long("qrels.test", 1)
    qrels = lp.trec.read_qrels(DATA / "qrels.test").collect()
    run = lp.trec.read_run(DATA / "results.test").collect()
    names = ["Bpref", "infAP", "IPrec@0.5", "IPrec@1.0"]
    theirs = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.iter_calc(
            [ir_measures.parse_measure(n) for n in names],
            [ir_measures.Qrel(q, d, r) for q, _, d, r in qrels.iter_rows()],
            [ir_measures.ScoredDoc(q, d, s) for q, d, _, s, _ in run.iter_rows()],
        )
    }
    ours = lp.evaluate(
        frame,
        ["Bpref", "infAP", "IPrec@0.5", "IPrec@1.0"],
        by="qid",
        y_true="rel",
        y_score="score",
        ties="trec_eval",
        item="docno",
        n_relevant="n_rel",
        judged="judged",
    )
    checked = 0
    for row in ours.iter_rows(named=True):
        for name in names:
            key = (row["qid"], name)
            assert row[name] == pytest.approx(theirs[key], rel=1e-12, abs=1e-15), key
            checked += 1
    assert checked == 3 * len(names)


def test_compare_leaves_out_the_geometric_means(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--compare`` on the default set: gm_map has no per-query value to test: left out."""
    other = tmp_path / "other.txt"
    other.write_text((DATA / "results.test").read_text())
    command = ["trec", str(DATA / "qrels.test"), str(DATA / "results.test"), str(other)]
    assert cli_run([*command, "--compare"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert "| map |" in header
    assert "| bpref |" in header
    assert "gm_map" not in header


def test_evaluate_on_no_rows() -> None:
    """An empty frame (an empty Spark partition): no group, no error."""
    empty = pl.DataFrame(schema={"q": pl.String, "rel": pl.Int64, "score": pl.Float64})
    names = ["bpref", "infAP", "iprec_at_recall@0.5"]
    out = lp.evaluate(empty, names, by="q", y_true="rel", y_score="score", ties="input")
    assert out.columns == ["q", *names]
    assert out.height == 0
