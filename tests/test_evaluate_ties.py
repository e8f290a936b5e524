"""``lp.evaluate(ties=, item=, n_relevant=)``: the tie rules and judged denominators (issue 9).

With ``ties="trec_eval"``, ``item`` and the judged ``n_relevant``, the IR family
through ``lp.evaluate`` gives trec_eval's numbers on trec_eval's own test run
(through ``lp.trec.evaluate``, which reproduces trec_eval line for line), and
every tie rule gives the expressions' numbers.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp

DATA = Path(__file__).parent / "data" / "trec_eval"


def _random_log(seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n_q, n_d = 30, 8
    rel = rng.integers(0, 3, n_q * n_d)
    return pl.DataFrame(
        {
            "q": np.repeat(np.arange(n_q), n_d),
            "doc": [f"d{i % 11}" for i in range(n_q * n_d)],
            "rel": rel,
            "s": rng.integers(0, 3, n_q * n_d).astype(np.float64),  # heavy ties
        }
    ).with_columns(n=(pl.col("rel") > 0).sum().over("q") + pl.col("q") % 3)


#: evaluate name -> the expression with the same options
EXPRESSIONS: dict[str, Any] = {
    "ndcg@3": lambda kw: lp.ndcg("rel", "s", k=3, **kw),
    "dcg": lambda kw: lp.dcg("rel", "s", **kw),
    "rr@5": lambda kw: lp.reciprocal_rank("rel", "s", k=5, **kw),
    "P@3": lambda kw: lp.precision("rel", "s", k=3, **kw),
    "recall@3": lambda kw: lp.recall("rel", "s", k=3, n_relevant="n", **kw),
    "hit_rate@2": lambda kw: lp.hit_rate("rel", "s", k=2, **kw),
    "Rprec": lambda kw: lp.r_precision("rel", "s", n_relevant="n", **kw),
    "map": lambda kw: lp.average_precision_at_k("rel", "s", k=None, n_relevant="n", **kw),
    "map@4": lambda kw: lp.average_precision_at_k("rel", "s", k=4, n_relevant="n", **kw),
    "ndcg_burges@4": lambda kw: lp.ndcg("rel", "s", k=4, gain="exponential", **kw),
}


@pytest.mark.parametrize("ties", ["average", "input", "trec_eval"])
@pytest.mark.parametrize("seed", [0, 1])
def test_every_tie_rule_equals_the_expressions(ties: str, seed: int) -> None:
    log = _random_log(seed)
    kw: dict[str, Any] = {"ties": ties}  # the expressions' and lp.evaluate's keywords
    if ties == "trec_eval":
        kw["item"] = "doc"
        log = log.unique(["q", "doc"], keep="first", maintain_order=True)
    names = list(EXPRESSIONS)
    got = lp.evaluate(log, names, by="q", y_true="rel", y_score="s", n_relevant="n", **kw)
    want = log.group_by("q").agg(EXPRESSIONS[n](kw).alias(n) for n in names).sort("q")
    for name in names:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-12, atol=1e-15, err_msg=name)


TREC_MEASURES = {
    "map": "map",
    "map_cut.100": "map_cut_100",
    "P.10": "P_10",
    "recall.100": "recall_100",
    "Rprec": "Rprec",
    "recip_rank": "recip_rank",
    "success.10": "success_10",
}


def test_trec_eval_numbers_on_trec_eval_s_test_run() -> None:
    """A run joined with its qrels, evaluated as a long frame, gives trec_eval's values."""
    run = lp.trec.read_run(DATA / "results.test").collect()
    qrels = lp.trec.read_qrels(DATA / "qrels.test").collect()
    judged = qrels.group_by("qid").agg(n=(pl.col("rel") >= 1).sum())
    log = (
        run.join(qrels.select("qid", "docno", "rel"), on=["qid", "docno"], how="left")
        .with_columns(pl.col("rel").fill_null(0).clip(lower_bound=0))
        .join(judged, on="qid", how="left")
        .with_columns(pl.col("n").fill_null(0))
    )
    got = lp.evaluate(
        log,
        list(TREC_MEASURES),
        by="qid",
        y_true="rel",
        y_score="score",
        ties="trec_eval",
        item="docno",
        n_relevant="n",
    )
    want = (
        lp.trec.evaluate(
            run=DATA / "results.test",
            qrels=DATA / "qrels.test",
            measures=list(TREC_MEASURES),
            per_query=True,
        )
        .pivot("measure", index="qid", values="value")
        .join(got.select("qid"), on="qid", how="semi")
        .sort("qid")
    )
    assert got["qid"].to_list() == want["qid"].to_list()
    for name, label in TREC_MEASURES.items():
        np.testing.assert_allclose(got[name], want[label], rtol=1e-12, atol=1e-15, err_msg=name)


@pytest.mark.parametrize(
    ("options", "metrics", "msg"),
    [
        ({"ties": "trec_eval"}, ["rr"], "evaluate(ties='trec_eval') needs `item=`"),
        (
            {"ties": "nope"},
            ["rr"],
            "The 'ties' parameter of evaluate must be one of ['average', 'input', 'trec_eval']. "
            "Got 'nope' instead.",
        ),
        ({"ties": "input"}, ["lrap"], "metric 'lrap': label_ranking_average_precision has no tie"),
        ({"n_relevant": "n"}, ["ndcg"], "`n_relevant` is read by ['recall', 'r_precision', "),
    ],
)
def test_refusals(options: dict[str, Any], metrics: list[str], msg: str) -> None:
    with pytest.raises(lp.InvalidParameterError, match=re.escape(msg)):
        lp.evaluate(_random_log(0), metrics, by="q", y_true="rel", y_score="s", **options)


def test_item_breaks_ties_and_its_old_name_doc_id_warns() -> None:
    """``item`` is trec_eval's tie-break: "b" before "a" on equal scores (ids descending).

    By hand: the relevant "a" ranks second, so RR = 1/2 and P@1 = 0; with the ids
    swapped the relevant row ranks first, RR = 1, P@1 = 1.  ``doc_id``, the old name,
    warns (naming ``item``) and gives the same frame.
    """
    log = pl.DataFrame({"q": [1, 1], "doc": ["a", "b"], "rel": [1, 0], "s": [0.5, 0.5]})
    kw: dict[str, Any] = {"by": "q", "y_true": "rel", "y_score": "s", "ties": "trec_eval"}
    got = lp.evaluate(log, ["rr", "P@1"], item="doc", **kw)
    assert got.row(0) == (1, 0.5, 0.0)
    swapped = log.with_columns(doc=pl.Series(["b", "a"]))
    assert lp.evaluate(swapped, ["rr", "P@1"], item=pl.col("doc"), **kw).row(0) == (1, 1.0, 1.0)
    with pytest.warns(FutureWarning, match="the parameter `doc_id` is renamed `item`"):
        old = lp.evaluate(log, ["rr", "P@1"], doc_id="doc", **kw)  # type: ignore[call-overload]
    assert old.equals(got)


def test_judged_rules_refuse_groups() -> None:
    """An n_relevant below the relevant rows, or not whole, refuses its group with the sentence."""
    log = pl.DataFrame(
        {
            "q": [1, 1, 2, 2],
            "rel": [1, 1, 1, 0],
            "s": [0.2, 0.1, 0.3, 0.1],
            "n": [1.0, 1.0, 1.5, 1.5],
        }
    )
    with pytest.raises(lp.RefusedGroupError) as info:
        lp.evaluate(log, ["recall@1"], by="q", y_true="rel", y_score="s", n_relevant="n")
    text = str(info.value)
    assert "q=1: n_relevant (1.0) is below the relevant rows of the group (2.0)." in text
    assert "q=2: n_relevant must be a whole number of relevant documents" in text


def _joined_log() -> pl.DataFrame:
    """trec_eval's test run joined with its qrels, with each query's judged relevances as a list."""
    run = lp.trec.read_run(DATA / "results.test").collect()
    qrels = lp.trec.read_qrels(DATA / "qrels.test").collect()
    judged = qrels.group_by("qid").agg(judged=pl.col("rel"), n=(pl.col("rel") >= 1).sum())
    return (
        run.join(qrels.select("qid", "docno", "rel"), on=["qid", "docno"], how="left")
        .with_columns(pl.col("rel").fill_null(0).clip(lower_bound=0))
        .join(judged, on="qid", how="inner")
    )


def _trec(measures: list[str], qids: pl.Series) -> pl.DataFrame:
    out = lp.trec.evaluate(
        run=DATA / "results.test", qrels=DATA / "qrels.test", measures=measures, per_query=True
    )
    return (
        out.pivot("measure", index="qid", values="value")
        .filter(pl.col("qid").is_in(qids.implode()))
        .sort("qid")
    )


def test_judged_ideal_gives_trec_eval_s_ndcg() -> None:
    """With the judged relevances as ideal, NDCG is trec_eval's ndcg and ndcg_cut."""
    log = _joined_log()
    exprs = log.group_by("qid").agg(
        cut=lp.ndcg("rel", "score", k=10, ties="trec_eval", item="docno", judged="judged"),
        full=lp.ndcg("rel", "score", ties="trec_eval", item="docno", judged="judged"),
    )
    exprs = exprs.sort("qid")
    got = lp.evaluate(
        log,
        ["ndcg_cut.10", "nDCG"],
        by="qid",
        y_true="rel",
        y_score="score",
        ties="trec_eval",
        item="docno",
        judged="judged",
    ).sort("qid")
    want = _trec(["ndcg_cut.10", "ndcg"], got["qid"])
    np.testing.assert_allclose(exprs["cut"], want["ndcg_cut_10"], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(exprs["full"], want["ndcg"], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got["ndcg_cut.10"], want["ndcg_cut_10"], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got["nDCG"], want["ndcg"], rtol=1e-12, atol=1e-15)


def test_judged_ideal_by_hand() -> None:
    """Two judged relevant documents, one retrieved at rank 2: DCG 1/log2(3), ideal 1 + that."""
    log = pl.DataFrame(
        {"q": ["a", "a"], "rel": [0, 1], "s": [0.9, 0.1], "judged": [[1, 1, 0], [1, 1, 0]]}
    )
    d = 1 / np.log2(3)
    expr = log.group_by("q").agg(lp.ndcg("rel", "s", judged="judged"))["ndcg"].item()
    ev = lp.evaluate(log, ["ndcg"], by="q", y_true="rel", y_score="s", judged="judged")
    assert expr == pytest.approx(d / (1 + d), rel=1e-15)
    assert ev["ndcg"].item() == pytest.approx(d / (1 + d), rel=1e-15)


@pytest.mark.parametrize(
    ("judged", "reason"),
    [
        ([None, None], "Input judged contains null."),
        ([[1, 0], [1, 1]], "judged must hold one list per group."),
        ([[1.0, float("nan")], [1.0, float("nan")]], "judged relevances must be finite numbers"),
    ],
    ids=["null", "varies", "nan"],
)
def test_judged_refuses_a_group(judged: list[Any], reason: str) -> None:
    log = pl.DataFrame(
        {"q": ["a", "a"], "rel": [0, 1], "s": [0.9, 0.1], "judged": judged},
        schema_overrides={"judged": pl.List(pl.Float64)},
    )
    assert log.group_by("q").agg(lp.ndcg("rel", "s", judged="judged"))["ndcg"].to_list() == [None]
    with pytest.raises(lp.RefusedGroupError, match=re.escape(f"q='a': {reason}")):
        lp.evaluate(log, ["ndcg"], by="q", y_true="rel", y_score="s", judged="judged")


def test_judged_needs_a_list_and_a_metric_that_reads_it() -> None:
    log = pl.DataFrame({"q": ["a", "a"], "rel": [0, 1], "s": [0.9, 0.1], "judged": [1, 1]})
    with pytest.raises(ValueError, match="`judged` column 'judged' must hold a list of relevances"):
        lp.evaluate(log, ["ndcg"], by="q", y_true="rel", y_score="s", judged="judged")
    lists = log.with_columns(judged=pl.lit([1, 1]))
    with pytest.raises(lp.InvalidParameterError, match=re.escape("`judged` is read by ['ndcg'")):
        lp.evaluate(lists, ["rr"], by="q", y_true="rel", y_score="s", judged="judged")
