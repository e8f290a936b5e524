"""ERR@k, RBP (and its residual) and Judged@k: live references, hand arithmetic, ties, refusals.

References, run live on random graded queries without tied scores (some ranked rows
unjudged: absent from the qrels, -1 in the long frame; some judged rows not ranked):

* ir_measures 0.4.3's ``ERR@k`` (its gdeval provider, a Perl script printing five
  decimals: compared to 5e-6) and ``Judged@k`` (exact, 1e-12);
* ranx 0.3.21's ``rbp.95`` / ``rbp.8`` (graded gains, exact, 1e-12).

Frozen (corpus/rbp_ir_measures.json, made by corpus/rbp_ir_measures.py in a venv of its
own), on 30 random graded queries with tied scores, unjudged and -1 rows: ir_measures
0.4.3's ``RBP(p=...)`` and ``RBP(p=...)@k`` through trectools 0.0.50 (graded) and
``RBP(rel=..., p=...)`` through cwl_eval 1.0.12 (binary), to 1e-12; the one difference
(trectools' ties across its cutoff) is shown and reproduced exactly.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._registry import direction, resolve

N_QUERIES = 30


def _queries(seed: int = 5) -> tuple[pl.DataFrame, list[tuple[str, str, int]]]:
    """A long frame (run left-joined with qrels, unjudged -1) and the qrels as triples."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list[Any]] = {"q": [], "doc": [], "rel": [], "score": []}
    qrels: list[tuple[str, str, int]] = []
    for q in range(1, N_QUERIES + 1):
        n = int(rng.integers(1, 26))
        scores = rng.permutation(n) + rng.random(n) * 0.5  # distinct: no ties
        for i in range(n):
            doc = f"d{i}"
            judged = rng.random() < 0.8
            grade = int(rng.integers(0, 5)) if judged else -1
            rows["q"].append(str(q))
            rows["doc"].append(doc)
            rows["rel"].append(grade)
            rows["score"].append(float(scores[i]))
            if judged:
                qrels.append((str(q), doc, grade))
        # judged documents not ranked: one relevant (gdeval scores a topic with one), one not
        qrels += [(str(q), "unranked_rel", 2), (str(q), "unranked_non", 0)]
    return pl.DataFrame(rows), qrels


def _ir_measures(
    measures: list[Any], frame: pl.DataFrame, qrels: list[tuple[str, str, int]]
) -> dict[tuple[str, str], float]:
    ir_measures = pytest.importorskip("ir_measures")
    run = [ir_measures.ScoredDoc(q, d, s) for q, d, s in frame.select("q", "doc", "score").rows()]
    judged = [ir_measures.Qrel(q, d, r) for q, d, r in qrels]
    out: dict[tuple[str, str], float] = {}
    for metric in ir_measures.iter_calc(measures, judged, run):
        out[(str(metric.measure), metric.query_id)] = metric.value
    return out


def _by_query(frame: pl.DataFrame, column: str) -> dict[str, float]:
    return dict(zip(frame["q"].to_list(), frame[column].to_list(), strict=True))


@pytest.mark.parametrize("k", [1, 5, 10, 20])
def test_err_is_ir_measures_gdeval(k: int) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    frame, qrels = _queries()
    want = _ir_measures([ir_measures.ERR @ k], frame, qrels)
    name = f"ERR@{k}"
    got = lp.evaluate(frame, [name], by="q", y_true="rel", y_score="score", ties="input")
    expr = frame.group_by("q").agg(lp.err("rel", "score", k=k, ties="trec_eval", item="doc"))
    assert len(want) == N_QUERIES
    for q, value in _by_query(got, name).items():
        assert value == pytest.approx(want[(name, q)], abs=5e-6), q  # gdeval's %.5f
    got_map, expr_map = _by_query(got, name), _by_query(expr, "err")
    for q, value in expr_map.items():
        assert value == pytest.approx(got_map[q], rel=1e-12, abs=1e-15), q


@pytest.mark.parametrize("k", [1, 3, 10, 30])
def test_judged_is_ir_measures(k: int) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    frame, qrels = _queries()
    want = _ir_measures([ir_measures.Judged @ k], frame, qrels)
    name = f"Judged@{k}"
    got = lp.evaluate(frame, [name, f"judged@{k}"], by="q", y_true="rel", y_score="score")
    expr = frame.group_by("q").agg(lp.judged("rel", "score", k=k))
    assert len(want) == N_QUERIES
    for q, value in _by_query(got, name).items():
        assert value == pytest.approx(want[(name, q)], rel=1e-12, abs=0), q
    assert got[name].to_list() == got[f"judged@{k}"].to_list()
    for q, value in _by_query(expr, "judged").items():
        assert value == pytest.approx(want[(name, q)], rel=1e-12, abs=0), q


@pytest.mark.filterwarnings("ignore::Warning")  # numba's compile-time casts inside ranx
@pytest.mark.parametrize(("written", "p"), [("rbp.95", 0.95), ("rbp.8", 0.8), ("rbp.5", 0.5)])
def test_rbp_is_ranx(written: str, p: float) -> None:
    ranx = pytest.importorskip("ranx")
    frame, qrels = _queries()
    qrels_dict: dict[str, dict[str, int]] = {}
    for q, d, r in qrels:
        if r > 0:
            qrels_dict.setdefault(q, {})[d] = r
    run_dict: dict[str, dict[str, float]] = {}
    for q, d, s in frame.select("q", "doc", "score").rows():
        run_dict.setdefault(q, {})[d] = s
    run = ranx.Run(run_dict)
    ranx.evaluate(ranx.Qrels(qrels_dict), run, written, return_mean=False)
    want = {q: float(v) for q, v in run.scores[written].items()}
    spelled = [written, f"rbp(p={p})", f"RBP(p={p})"]
    got = lp.evaluate(frame, spelled, by="q", y_true="rel", y_score="score")
    expr = frame.group_by("q").agg(lp.rbp("rel", "score", p=p))
    for column in spelled:
        for q, value in _by_query(got, column).items():
            assert value == pytest.approx(want[q], rel=1e-12, abs=1e-15), (column, q)
    for q, value in _by_query(expr, "rbp").items():
        assert value == pytest.approx(want[q], rel=1e-12, abs=1e-15), q


# ---- ir_measures' RBP: trectools (graded) and cwl_eval (binary), frozen ---------------------

IR_MEASURES_RBP = json.loads(
    (Path(__file__).parents[1] / "corpus" / "rbp_ir_measures.json").read_text(encoding="utf-8")
)


def _rbp_frame() -> pl.DataFrame:
    """The corpus' runs in input order, left-joined with their qrels (unjudged: -1)."""
    rows = []
    for query in IR_MEASURES_RBP["queries"]:
        grades = {doc: rel for doc, rel in query["qrels"]}
        for position, (doc, score) in enumerate(query["run"]):
            rows.append((query["qid"], doc, score, grades.get(doc, -1), position))
    return pl.DataFrame(rows, schema=["q", "doc", "score", "rel", "position"], orient="row")


def _rbp_per_query(frame: pl.DataFrame, expr: pl.Expr) -> list[float]:
    got = _by_query(frame.group_by("q").agg(expr.alias("rbp")), "rbp")
    return [got[query["qid"]] for query in IR_MEASURES_RBP["queries"]]


def _straddles(frame: pl.DataFrame, k: int) -> set[str]:
    """Queries with a tie across rank k: the k-th and (k+1)-th scores are equal."""
    ranked = frame.sort(["q", "score"], descending=[False, True])
    kth = ranked.group_by("q", maintain_order=True).agg(
        pl.col("score").get(k - 1, null_on_oob=True).alias("at"),
        pl.col("score").get(k, null_on_oob=True).alias("after"),
    )
    return set(kth.filter(pl.col("at") == pl.col("after"))["q"])


def _entries(provider: str) -> list[dict[str, Any]]:
    return [e for e in IR_MEASURES_RBP["values"] if e["provider"] == provider]


@pytest.mark.parametrize("entry", _entries("cwl_eval"), ids=lambda e: e["measure"])
def test_rbp_is_ir_measures_cwl_eval(entry: dict[str, Any]) -> None:
    """``RBP(rel=l, p=p)``: binary gains at the level, the input order among ties."""
    frame = _rbp_frame()
    got = _rbp_per_query(frame, lp.rbp(pl.col("rel") >= entry["rel"], "score", p=entry["p"],
                                       ties="input"))  # fmt: skip
    assert got == pytest.approx(entry["values"], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("entry", _entries("trectools"), ids=lambda e: e["measure"])
def test_rbp_is_ir_measures_trectools(entry: dict[str, Any]) -> None:
    """``RBP(p=p)@k``: graded gains, ties averaged; equal to lp.rbp unless a tie crosses k.

    trectools cuts first (the first k rows by score, equal scores in input order) and
    averages a tie over its rows above the cut only, so a tie across rank k gives the
    rows that the input order put above the cut all its weight.  ``lp.rbp``'s
    ``ties="average"`` spreads the weight of the tie's ranks above k over all its rows
    (the expectation over every order of the tie, not one input order's).  Cutting the
    frame to trectools' top k first, then ``lp.rbp`` without a cutoff, is trectools'.
    """
    frame = _rbp_frame()
    p, k = entry["p"], entry["k"]
    want = dict(zip([q["qid"] for q in IR_MEASURES_RBP["queries"]], entry["values"], strict=True))
    got = dict(zip(want, _rbp_per_query(frame, lp.rbp("rel", "score", p=p, k=k)), strict=True))
    crossing = set() if k is None else _straddles(frame, k)
    for q in want:
        if q not in crossing:
            assert got[q] == pytest.approx(want[q], rel=1e-12, abs=1e-15), q
    if k is not None:  # the difference is real, and only there
        assert crossing
        assert any(got[q] != pytest.approx(want[q], rel=1e-12, abs=1e-15) for q in crossing)
        top = (
            frame.sort(["q", "score", "position"], descending=[False, True, False])
            .group_by("q", maintain_order=True)
            .head(k)
        )
        cut_first = _rbp_per_query(top, lp.rbp("rel", "score", p=p))
        assert cut_first == pytest.approx(entry["values"], rel=1e-12, abs=1e-15)


def test_rbp_corpus_covers_ties_unjudged_and_levels() -> None:
    frame = _rbp_frame()
    assert frame["q"].n_unique() == 30
    assert (frame["rel"] == -1).any()  # unjudged (absent) and judged -1 rows
    tied = frame.group_by("q").agg(pl.col("score").is_duplicated().any())["score"]
    assert 10 < tied.sum() < 30  # queries with ties, and without
    assert {e["rel"] for e in _entries("cwl_eval")} == {1, 2}
    assert {e["k"] for e in _entries("trectools")} == {None, 3, 10}


# ---- hand arithmetic ------------------------------------------------------------------------


def test_err_by_hand() -> None:
    """Grades 3, 0, 1, 2 at ranks 1..4: R = 7/16, 0, 1/16, 3/16 (gdeval's 2^4)."""
    frame = pl.DataFrame({"rel": [3, 0, 1, 2], "s": [4.0, 3.0, 2.0, 1.0]})
    r = [7 / 16, 0.0, 1 / 16, 3 / 16]
    at3 = r[0] + (1 - r[0]) * r[1] / 2 + (1 - r[0]) * (1 - r[1]) * r[2] / 3
    at4 = at3 + (1 - r[0]) * (1 - r[1]) * (1 - r[2]) * r[3] / 4
    out = frame.select(
        a=lp.err("rel", "s", k=3, ties="input"),
        b=lp.err("rel", "s", ties="input"),
        c=lp.err("rel", "s", k=3, max_grade=3, ties="input"),
    ).row(0)
    r3 = [7 / 8, 0.0, 1 / 8]
    at3_g3 = r3[0] + (1 - r3[0]) * (1 - r3[1]) * r3[2] / 3
    assert out == pytest.approx((at3, at4, at3_g3), rel=1e-12)
    got = lp.evaluate(
        frame.with_columns(q=pl.lit(1)),
        ["err@3", "err(max_grade=3)@3"],
        by="q",
        y_true="rel",
        y_score="s",
        ties="input",
    ).row(0)
    assert got[1:] == pytest.approx((at3, at3_g3), rel=1e-12)


def test_rbp_by_hand_ties_averaged_and_residual() -> None:
    """p = 1/2; a tie block at positions 1, 2 shares their mean weight (1/4 + 1/8) / 2."""
    frame = pl.DataFrame({"rel": [1, 1, 0], "s": [0.9, 0.5, 0.5]})
    assert frame.select(lp.rbp("rel", "s", p=0.5)).item() == pytest.approx(
        0.5 + 1 * (0.25 + 0.125) / 2, rel=1e-12
    )
    unjudged = pl.DataFrame({"rel": [1, -1, 0], "s": [0.9, 0.5, 0.5]})
    out = unjudged.select(
        rbp2=lp.rbp("rel", "s", p=0.5, k=2),
        res2=lp.rbp("rel", "s", p=0.5, k=2, residual=True),
        res=lp.rbp("rel", "s", p=0.5, residual=True),
        res_in=lp.rbp("rel", "s", p=0.5, residual=True, ties="input"),
    ).row(0)
    # the unjudged row sits at position 1 or 2 with equal chances: cut at 2, only position 1
    # (weight 1/4) counts, so 1/8 on average, plus the tail past the cut 0.5^2
    # whole list: (1/4 + 1/8) / 2 + 0.5^3; row order: position 1, 1/4 + 0.5^3
    assert out == pytest.approx((0.5, 0.125 + 0.25, 0.1875 + 0.125, 0.25 + 0.125), rel=1e-12)
    got = lp.evaluate(
        unjudged.with_columns(q=pl.lit(1)), ["rbp(p=0.5)@2"], by="q", y_true="rel", y_score="s"
    )
    assert got["rbp(p=0.5)@2"][0] == pytest.approx(0.5, rel=1e-12)


def test_judged_by_hand_with_a_tie_at_the_cut() -> None:
    """One judged row of a two-row tie at the cut k=2: 1 + 1/2 judged rows, over 2."""
    frame = pl.DataFrame({"q": [1] * 3, "rel": [1, -1, 0], "s": [0.9, 0.5, 0.5]})
    assert frame.select(lp.judged("rel", "s", k=2)).item() == pytest.approx(0.75, rel=1e-12)
    got = lp.evaluate(frame, ["judged@2", "Judged@10"], by="q", y_true="rel", y_score="s")
    assert got.row(0)[1:] == pytest.approx((0.75, 2 / 3), rel=1e-12)
    first = lp.evaluate(frame, ["judged@2"], by="q", y_true="rel", y_score="s", ties="input")
    assert first["judged@2"][0] == 0.5  # row order: the unjudged row is second


# ---- names, options and refusals -------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "metric", "k", "options"),
    [
        ("rbp", "rbp", None, {}),
        ("rbp.95", "rbp", None, {"p": 0.95}),
        ("rbp.5", "rbp", None, {"p": 0.5}),
        ("rbp(p=0.9)", "rbp", None, {"p": 0.9}),
        ("RBP(p=0.9)@10", "rbp", 10, {"p": 0.9}),
        ("rbp( p = 0.25 )@3", "rbp", 3, {"p": 0.25}),
        ("ERR@10", "err", 10, {}),
        ("err(max_grade=3)@5", "err", 5, {"max_grade": 3.0}),
        ("Judged@10", "judged", 10, {}),
        ("judged", "judged", None, {}),
    ],
)
def test_names_carry_options(
    written: str, metric: str, k: int | None, options: dict[str, Any]
) -> None:
    found = resolve(written)
    assert found is not None
    assert (found.spec.name, found.k, dict(found.options)) == (metric, k, options)
    assert direction(written) == "higher"


@pytest.mark.parametrize(
    ("written", "sentence"),
    [
        ("rbp(p=1)", "metric 'rbp(p=1)': The 'p' parameter of rbp must be a float in the range"),
        ("rbp(p=x)", "The 'p' parameter of rbp must be a float in the range (0.0, 1.0). Got 'x'"),
        ("rbp(q=0.5)", "rbp has no option 'q' in its name; its options: 'p'"),
        ("ndcg(p=0.5)@10", "ndcg has no option 'p' in its name; it takes none"),
        ("rbp(p)", "'p' is not an option written as name=value"),
        ("rbp(p=0.5,p=0.6)", "the option 'p' is written twice"),
        ("err(max_grade=0)@5", "The 'max_grade' parameter of err must be a real number above 0"),
    ],
)
def test_a_bad_option_in_a_name_is_refused_by_name(written: str, sentence: str) -> None:
    frame = pl.DataFrame({"q": [1, 1], "rel": [1, 0], "s": [0.9, 0.1]})
    with pytest.raises(
        lp.InvalidParameterError, match=sentence.replace("(", r"\(").replace(")", r"\)")
    ):
        lp.evaluate(frame, [written], by="q", y_true="rel", y_score="s", ties="input")


def test_err_refuses_averaged_ties() -> None:
    frame = pl.DataFrame({"q": [1, 1], "rel": [1, 0], "s": [0.9, 0.1]})
    with pytest.raises(lp.InvalidParameterError, match="err has no closed form for ties averaged"):
        lp.err("rel", "s", ties="average")
    with pytest.raises(lp.InvalidParameterError, match="evaluate it with ties='trec_eval'"):
        lp.evaluate(frame, ["err@10"], by="q", y_true="rel", y_score="s")


def test_err_refuses_a_grade_above_max_grade() -> None:
    frame = pl.DataFrame({"q": [1, 1, 2], "rel": [5, 0, 1], "s": [0.9, 0.1, 0.5]})
    out = lp.evaluate(
        frame, ["err@10"], by="q", y_true="rel", y_score="s", ties="input", strict=False
    )
    assert out["err@10"].to_list()[0] is None
    assert out["err@10"].to_list()[1] == pytest.approx(1 / 16, rel=1e-12)
    with pytest.raises(ValueError, match=r"err's grades must be at most max_grade=4\.0"):
        lp.evaluate(frame, ["err@10"], by="q", y_true="rel", y_score="s", ties="input")


@pytest.mark.parametrize(
    ("call", "sentence"),
    [
        (lambda: lp.rbp("r", "s", p=0.0), "The 'p' parameter of rbp must be a float in the range"),
        (lambda: lp.rbp("r", "s", p=True), "The 'p' parameter of rbp must be a float"),
        (lambda: lp.rbp("r", "s", residual=1), "The 'residual' parameter of rbp must be a bool"),  # type: ignore[arg-type]
        (lambda: lp.rbp("r", "s", k=0), "The 'k' parameter of rbp"),
        (lambda: lp.judged("r", "s", k=0), "The 'k' parameter of judged"),
        (lambda: lp.err("r", "s", max_grade=math.inf), "The 'max_grade' parameter of err"),
        (lambda: lp.err("r", "s"), r"err\(ties='trec_eval'\) needs `item=`"),
    ],
)
def test_expression_refusals(call: Any, sentence: str) -> None:
    with pytest.raises(lp.InvalidParameterError, match=sentence):
        call()


def test_residual_bounds_binary_rbp_over_completions() -> None:
    """With binary gains, any judgment of the unjudged rows lands RBP in [RBP, RBP + residual]."""
    frame = pl.DataFrame({"rel": [1, -1, 0, -1, 1], "s": [5.0, 4.0, 3.0, 2.0, 1.0]})
    low, residual = frame.select(
        lp.rbp("rel", "s", p=0.7, k=4), lp.rbp("rel", "s", p=0.7, k=4, residual=True).alias("r")
    ).row(0)
    best = pl.DataFrame({"rel": [1, 1, 0, 1, 1], "s": [5.0, 4.0, 3.0, 2.0, 1.0]})
    # the best completion: both unjudged rows relevant, and every rank past the cut too
    high = best.select(lp.rbp("rel", "s", p=0.7, k=4)).item() + 0.7**4
    assert low + residual == pytest.approx(high, rel=1e-12)


# ---- every path ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metric", "options", "expected"),
    [
        # g0: gains 1 at positions 0 and 3; g1: a tie of gains 2 and 0 at positions 0, 1
        (lp.rbp, {}, [0.2 * (1 + 0.8**3), 2 * (1 - 0.8**2) / 2]),
        (lp.rbp, {"p": 0.5, "k": 1}, [0.5, 2 * (1 - 0.5) / 2]),
        # unjudged at position 1 of 4 (g0), at position 2 of 3 (g1), plus the tails
        (lp.rbp, {"residual": True}, [0.2 * 0.8 + 0.8**4, 0.2 * 0.8**2 + 0.8**3]),
        (lp.judged, {"k": 2}, [0.5, 1.0]),
        (lp.judged, {}, [0.75, 2 / 3]),
        # R = 1/16 at ranks 1 and 4 (g0); 3/16 at rank 1 (g1, the tie in row order)
        (lp.err, {"ties": "input"}, [1 / 16 + (15 / 16) * (1 / 16) / 4, 3 / 16]),
        (lp.err, {"k": 3, "ties": "input"}, [1 / 16, 3 / 16]),
    ],
)
def test_every_path(
    paths: Any, metric: Any, options: dict[str, Any], expected: list[float]
) -> None:
    frame = paths.long_frame([[1, -1, 0, 1], [2, 0, -1]], [[0.9, 0.7, 0.5, 0.1], [0.5, 0.5, 0.2]])
    paths.assert_paths(frame, metric, expected, **options)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ties", ["average", "trec_eval"])
def test_two_stage_split_groups_equal_whole_groups(seed: int, ties: str) -> None:
    """Cut at k, each reads the top k rows alone (top_k_only): split groups give the same values."""
    from lodestar_polars._evaluate import two_stage

    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 2000))
    frame = pl.DataFrame(
        {
            "q": rng.integers(0, 4, n),
            "rel": rng.integers(-1, 5, n),
            "score": rng.integers(0, int(rng.integers(2, 100)), n).astype(np.float64),
            "doc": [f"d{i}" for i in rng.permutation(n)],
        }
    )
    metrics = ["rbp(p=0.7)@5", "judged@4", "Judged@30"]
    if ties == "trec_eval":
        metrics.append("err@6")
    kw: dict[str, Any] = {"by": ["q"], "y_true": "rel", "y_score": "score", "ties": ties}
    kw["item"] = "doc" if ties == "trec_eval" else None
    assert two_stage.refusal(metrics, ties=ties) is None  # type: ignore[arg-type]
    expected = lp.evaluate(frame, metrics, **kw)
    chunk = pl.Series(rng.integers(0, 5, frame.height))
    kept = pl.concat(
        two_stage.reduce_chunk(frame.filter(chunk == c), metrics, **kw) for c in range(5)
    )
    got = two_stage.evaluate_reduced(kept, metrics, **kw)
    for name in metrics:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-12, atol=0, err_msg=name)
