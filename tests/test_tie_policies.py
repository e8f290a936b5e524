"""``ties=`` on dcg, ndcg and reciprocal_rank: averaged, trec_eval's or input order (issue 4)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import lodestar_polars as lp

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"


def _tied() -> pl.DataFrame:
    # one query, every score equal: only the tie rule orders the rows
    return pl.DataFrame({"q": [1, 1, 1], "rel": [3, 0, 1], "s": [0.5] * 3, "doc": ["a", "b", "c"]})


def test_dcg_and_ndcg_under_each_tie_rule() -> None:
    """Each rule's DCG and NDCG, written out."""
    out = (
        _tied()
        .group_by("q")
        .agg(
            trec=lp.dcg("rel", "s", ties="trec_eval", item="doc"),
            input=lp.dcg("rel", "s", ties="input"),
            average=lp.dcg("rel", "s"),
            ndcg_trec=lp.ndcg("rel", "s", ties="trec_eval", item="doc"),
            ndcg_input_k1=lp.ndcg("rel", "s", ties="input", k=1),
        )
    )
    ideal = 3 + 1 / math.log2(3)
    # trec_eval: doc id descending, c b a -> gains 1, 0, 3
    assert out["trec"].item() == pytest.approx(1 + 0 + 3 / math.log2(4), rel=1e-12)
    # input: a b c -> gains 3, 0, 1
    assert out["input"].item() == pytest.approx(3 + 0 + 1 / math.log2(4), rel=1e-12)
    # average: the mean gain 4/3 at every position
    assert out["average"].item() == pytest.approx(
        4 / 3 * (1 + 1 / math.log2(3) + 1 / math.log2(4)), rel=1e-12
    )
    assert out["ndcg_trec"].item() == pytest.approx(2.5 / ideal, rel=1e-12)
    assert out["ndcg_input_k1"].item() == pytest.approx(3 / 3, rel=1e-12)


def test_reciprocal_rank_under_each_tie_rule() -> None:
    """Each rule's reciprocal rank, written out."""
    df = _tied().with_columns(rel=pl.Series([0, 1, 1]))
    out = df.group_by("q").agg(
        trec=lp.reciprocal_rank("rel", "s", ties="trec_eval", item="doc"),
        input=lp.reciprocal_rank("rel", "s", ties="input"),
        input_k1=lp.reciprocal_rank("rel", "s", ties="input", k=1),
        average=lp.reciprocal_rank("rel", "s"),
    )
    assert out["trec"].item() == 1.0  # c first
    assert out["input"].item() == 1 / 2  # a (irrelevant), then b
    assert out["input_k1"].item() == 0.0
    # first relevant at rank 1 with chance 2/3, at rank 2 with chance 1/3
    assert out["average"].item() == pytest.approx(2 / 3 + 1 / 3 * 1 / 2, rel=1e-12)


def test_untied_scores_give_the_same_number_under_every_rule() -> None:
    """Without ties the rules agree."""
    df = pl.DataFrame(
        {"q": [1] * 5, "rel": [2, 0, 1, 3, 0], "s": [0.1, 0.9, 0.3, 0.5, 0.7], "doc": list("abcde")}
    )
    for metric in (lp.dcg, lp.ndcg, lp.reciprocal_rank):
        values = {
            ties: df.select(metric("rel", "s", ties=ties, item="doc")).item()
            for ties in ("average", "trec_eval", "input")
        }
        assert values["trec_eval"] == pytest.approx(values["average"], rel=1e-12)
        assert values["input"] == pytest.approx(values["average"], rel=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "msg"),
    [
        (
            {"ties": "trec_eval"},
            "ndcg(ties='trec_eval') needs `item=`: trec_eval breaks ties by document id",
        ),
        (
            {"ties": "input", "ignore_ties": True},
            "ndcg: ignore_ties=True is a tie rule of its own (equal scores, the later row "
            "first) and cannot be combined with ties='input'",
        ),
        (
            {"ties": "random"},
            "The 'ties' parameter of ndcg must be one of ['average', 'input', 'trec_eval']. "
            "Got 'random' instead.",
        ),
    ],
)
def test_tie_rule_errors(kwargs: dict[str, object], msg: str) -> None:
    """Bad tie options fail when the expression is built."""
    with pytest.raises(lp.InvalidParameterError, match=re.escape(msg)):
        lp.ndcg("rel", "s", **kwargs)  # type: ignore[arg-type]


def test_repeated_item_refuses_the_group() -> None:
    """A repeated document id refuses its group only."""
    df = pl.DataFrame(
        {"q": [1, 1, 2, 2], "rel": [1, 0, 1, 0], "s": [0.5] * 4, "doc": ["a", "a", "a", "b"]}
    )
    out = df.group_by("q", maintain_order=True).agg(
        v=lp.dcg("rel", "s", ties="trec_eval", item="doc")
    )
    # group 2: b (irrelevant) first, then a (relevant) at position 2
    assert out["v"][0] is None
    assert out["v"][1] == pytest.approx(1 / math.log2(3), rel=1e-12)


def test_reciprocal_rank_trec_order_equals_trec_eval_recip_rank() -> None:
    """On trec_eval's own run and qrels: a run joined with its judgments (unjudged = 0)."""
    run = lp.trec.read_run(DATA / "results.test").collect()
    qrels = lp.trec.read_qrels(DATA / "qrels.test").collect()
    joined = run.join(qrels.select("qid", "docno", "rel"), on=["qid", "docno"], how="left")
    joined = joined.with_columns(pl.col("rel").fill_null(0))
    ours = (
        joined.group_by("qid")
        .agg(value=lp.reciprocal_rank("rel", "score", ties="trec_eval", item="docno"))
        .sort("qid")
    )
    theirs = (
        lp.trec.evaluate(DATA / "qrels.test", DATA / "results.test", ["recip_rank"], per_query=True)
        .filter(pl.col("qid") != "all")
        .select("qid", "value")
        .sort("qid")
    )
    assert_frame_equal(ours.filter(pl.col("qid").is_in(theirs["qid"].implode())), theirs)


#: every expression that takes the tie-break id, with trec_eval's value on ``_TRAILING``
#: written by hand: equal scores, so the order is the ids descending, d c b a, and the
#: relevant rows (a, d) sit at positions 1 and 4
_TRAILING = pl.DataFrame({"rel": [1, 0, 0, 1], "s": [0.5] * 4, "doc": ["a", "b", "c", "d"]})
_BY_ITEM: dict[str, tuple[Any, float]] = {
    "dcg": (lambda **kw: lp.dcg("rel", "s", **kw), 1 + 1 / math.log2(5)),
    "ndcg": (
        lambda **kw: lp.ndcg("rel", "s", **kw),
        (1 + 1 / math.log2(5)) / (1 + 1 / math.log2(3)),
    ),
    "reciprocal_rank": (lambda **kw: lp.reciprocal_rank("rel", "s", **kw), 1.0),
    "precision": (lambda **kw: lp.precision("rel", "s", k=2, **kw), 1 / 2),
    "recall": (lambda **kw: lp.recall("rel", "s", k=2, **kw), 1 / 2),
    "hit_rate": (lambda **kw: lp.hit_rate("rel", "s", k=1, **kw), 1.0),
    "r_precision": (lambda **kw: lp.r_precision("rel", "s", **kw), 1 / 2),
    "average_precision_at_k": (
        lambda **kw: lp.average_precision_at_k("rel", "s", k=None, **kw),
        (1 / 1 + 2 / 4) / 2,
    ),
}


@pytest.mark.parametrize("name", sorted(_BY_ITEM))
def test_doc_id_is_the_old_name_of_item(name: str) -> None:
    """``item=`` breaks trec_eval's ties; ``doc_id=``, its old name, warns and gives the same."""
    expression, by_hand = _BY_ITEM[name]
    new = _TRAILING.select(expression(ties="trec_eval", item="doc")).item()
    warning = f"{name}: the parameter `doc_id` is renamed `item`"
    with pytest.warns(FutureWarning, match=re.escape(warning)):
        old = _TRAILING.select(expression(ties="trec_eval", doc_id="doc")).item()
    assert new == pytest.approx(by_hand, rel=1e-12)
    assert old == new
    with pytest.raises(lp.InvalidParameterError, match="pass `item` only"):
        expression(ties="trec_eval", item="doc", doc_id="doc")
