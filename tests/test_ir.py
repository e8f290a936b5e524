"""The IR expressions (precision, recall, hit rate, R-precision) and the textbook tables."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
import lodestar_polars.trec as trec
from lodestar_polars._core.ir import exponential_gain
from lodestar_polars._metrics.ir import (
    average_precision_at_k,
    hit_rate,
    precision,
    r_precision,
    recall,
)

DATA = Path(__file__).parent / "data" / "trec_eval"
SLATES = {"top": "1110000000", "middle": "0001110000", "bottom": "0000000111"}


def _slates(slates: dict[str, list[int]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "query": [name for name, rels in slates.items() for _ in rels],
            "rel": [r for rels in slates.values() for r in rels],
            "score": [float(len(rels) - i) for rels in slates.values() for i in range(len(rels))],
        }
    )


def _per_group(df: pl.DataFrame, **exprs: pl.Expr) -> dict[str, list[float]]:
    out = df.group_by("query", maintain_order=True).agg(**exprs)
    return {name: out[name].to_list() for name in exprs}


# --------------------------------------------------------------------------- textbook tables
def test_three_arrangements_of_one_slate() -> None:
    df = _slates({name: [int(c) for c in s] for name, s in SLATES.items()})
    got = _per_group(
        df,
        p10=precision("rel", "score", k=10),
        r10=recall("rel", "score", k=10),
        rr=lp.reciprocal_rank("rel", "score"),
        ap=lp.average_precision("rel", "score"),
        ndcg=lp.ndcg("rel", "score"),
    )
    assert [round(v, 3) for v in got["p10"]] == [0.300, 0.300, 0.300]
    assert got["r10"] == [1.0, 1.0, 1.0]
    assert [round(v, 3) for v in got["rr"]] == [1.000, 0.250, 0.125]
    assert [round(v, 3) for v in got["ap"]] == [1.000, 0.383, 0.216]
    assert [round(v, 4) for v in got["ndcg"]] == [1.0000, 0.5508, 0.4250]


def test_three_arrangements_average_precision_at_k() -> None:
    """AP over all relevant (trec_eval's map, map_cut.10): 1.000 / 0.383 / 0.216."""
    df = _slates({name: [int(c) for c in s] for name, s in SLATES.items()})
    got = _per_group(
        df,
        whole=average_precision_at_k("rel", "score", k=None),
        at_10=average_precision_at_k("rel", "score", k=10),
        at_5=average_precision_at_k("rel", "score", k=5),
        at_2_min_k=average_precision_at_k("rel", "score", k=2, denominator="min_k"),
        at_2=average_precision_at_k("rel", "score", k=2),
        at_10_min_k=average_precision_at_k("rel", "score", k=10, denominator="min_k"),
    )
    assert [round(v, 3) for v in got["whole"]] == [1.000, 0.383, 0.216]
    assert got["at_10"] == got["whole"] == got["at_10_min_k"]
    assert got["at_5"] == pytest.approx([1.0, (1 / 4 + 2 / 5) / 3, 0.0], rel=1e-15)
    # two relevant in the top 2: over min(3, 2) = 2 it is 1; over all 3 it is 2/3
    assert got["at_2_min_k"] == pytest.approx([1.0, 0.0, 0.0])
    assert got["at_2"] == pytest.approx([2 / 3, 0.0, 0.0])


def test_three_arrangements_through_trec_eval() -> None:
    df = _slates({name: [int(c) for c in s] for name, s in SLATES.items()})
    run = df.select(qid="query", docno=pl.format("d{}", pl.int_range(pl.len())), score="score")
    qrels = run.with_columns(rel=df["rel"]).drop("score")
    got = trec.evaluate(
        qrels, run, ["P.10", "recip_rank", "map", "ndcg"], per_query=True, wide=True
    )
    got = got.filter(pl.col("qid") != "all").sort(pl.col("qid").replace({"top": 0, "middle": 1}))
    assert [round(v, 3) for v in got["P_10"]] == [0.300] * 3
    assert [round(v, 3) for v in got["recip_rank"]] == [1.000, 0.250, 0.125]
    assert [round(v, 3) for v in got["map"]] == [1.000, 0.383, 0.216]
    assert [round(v, 4) for v in got["ndcg"]] == [1.0000, 0.5508, 0.4250]


def test_linear_and_exponential_gain() -> None:
    df = _slates({"good": [3, 0, 0, 1, 1], "bad": [1, 1, 0, 0, 3]})
    got = _per_group(
        df,
        linear=lp.ndcg("rel", "score"),
        exponential=lp.ndcg(exponential_gain(pl.col("rel")), "score"),
    )
    assert [round(v, 4) for v in got["linear"]] == [0.9241, 0.6758]
    assert [round(v, 4) for v in got["exponential"]] == [0.9615, 0.5336]
    assert round(got["linear"][0] - got["linear"][1], 4) == 0.2484
    assert round(got["exponential"][0] - got["exponential"][1], 4) == 0.4278


def test_adjacent_swap_costs_more_at_the_top() -> None:
    # one relevant item at position p (1-based), p = 1..10
    slates = {str(p): [int(i == p - 1) for i in range(10)] for p in range(1, 11)}
    ndcg = _per_group(_slates(slates), v=lp.ndcg("rel", "score"))["v"]
    swaps = {(1, 2): 0.3691, (2, 3): 0.1309, (3, 4): 0.0693, (9, 10): 0.0120}
    for (a, b), delta in swaps.items():
        assert round(ndcg[a - 1] - ndcg[b - 1], 4) == delta
    assert [round(ndcg[p - 1], 4) for p in (1, 2, 3, 9, 10)] == [1.0, 0.6309, 0.5, 0.3010, 0.2891]


# --------------------------------------------------------------------------- ties
def _brute_average(
    rel: list[int], score: list[float], metric: Callable[..., pl.Expr], **options: Any
) -> float:
    """Mean of the ``ties='input'`` value over every ordering of the rows (one group each)."""
    perms = list(itertools.permutations(range(len(rel))))
    df = pl.DataFrame(
        {
            "g": np.repeat(np.arange(len(perms)), len(rel)),
            "rel": [rel[i] for perm in perms for i in perm],
            "score": [score[i] for perm in perms for i in perm],
        }
    )
    values = df.group_by("g").agg(metric("rel", "score", ties="input", **options).alias("v"))
    return float(cast(float, values["v"].mean()))


@pytest.mark.parametrize("seed", range(12))
def test_average_ties_are_the_mean_over_orderings(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    rel = rng.choice([0, 0, 1, 2], size=n).tolist()
    score = rng.choice([0.0, 1.0, 2.0], size=n).astype(float).tolist()
    k = int(rng.integers(1, n + 2))
    df = pl.DataFrame({"rel": rel, "score": score})
    cases: list[tuple[Callable[..., pl.Expr], dict[str, Any]]] = [
        (precision, {"k": k}),
        (recall, {"k": k}),
        (hit_rate, {"k": k}),
        (r_precision, {}),
        (recall, {"k": k, "relevance_level": 2}),
        (average_precision_at_k, {"k": k}),
        (average_precision_at_k, {"k": None}),
        (average_precision_at_k, {"k": k, "denominator": "min_k"}),
        (average_precision_at_k, {"k": k, "relevance_level": 2}),
    ]
    for metric, options in cases:
        got = df.select(metric("rel", "score", **options)).item()
        expected = _brute_average(rel, score, metric, **options)
        assert math.isclose(got, expected, rel_tol=1e-12, abs_tol=1e-12), (metric, options)


def test_hit_rate_when_the_cut_takes_more_rows_than_the_tie_has_misses() -> None:
    """Three of four tied rows relevant, k=2 or 4: a hit is certain (was NaN past c - r)."""
    df = pl.DataFrame({"query": [1] * 4, "rel": [1, 1, 1, 0], "score": [1.0] * 4})
    got = df.select(
        k1=hit_rate("rel", "score", k=1),
        k2=hit_rate("rel", "score", k=2),
        k4=hit_rate("rel", "score", k=4),
    ).row(0)
    assert got == pytest.approx((0.75, 1.0, 1.0), rel=1e-15)
    out = lp.evaluate(
        df, ["hit_rate@1", "hit_rate@2", "hit_rate@4"], by="query", y_true="rel", y_score="score"
    )
    assert out.row(0)[1:] == pytest.approx((0.75, 1.0, 1.0), rel=1e-15)


def test_tie_policies_differ_as_stated() -> None:
    df = pl.DataFrame({"rel": [1, 0, 0], "score": [1.0, 1.0, 1.0], "doc": ["a", "b", "c"]})
    # trec_eval: c, b, a (doc id descending); input: a, b, c; average: 1/3 each position
    got = df.select(
        avg=hit_rate("rel", "score", k=1),
        trec=hit_rate("rel", "score", k=1, ties="trec_eval", item="doc"),
        inp=hit_rate("rel", "score", k=1, ties="input"),
    ).row(0)
    assert got == pytest.approx((1 / 3, 0.0, 1.0))


@pytest.mark.parametrize("seed", range(4))
def test_ties_by_enumeration_on_larger_blocks(seed: int) -> None:
    """7 rows in 2 score levels (big tie blocks): the closed form equals the mean."""
    rng = np.random.default_rng(100 + seed)
    n = 7
    rel = rng.choice([0, 1, 1, 3], size=n).tolist()
    score = rng.choice([0.0, 1.0], size=n).astype(float).tolist()
    df = pl.DataFrame({"rel": rel, "score": score})
    for k in (1, 3, 5, None):
        for denominator in ("relevant", "min_k"):
            options: dict[str, Any] = {"k": k, "denominator": denominator}
            got = df.select(average_precision_at_k("rel", "score", **options)).item()
            expected = _brute_average(rel, score, average_precision_at_k, **options)
            assert math.isclose(got, expected, rel_tol=1e-12, abs_tol=1e-12), options
    for k in (1, 3, 5):
        got = df.select(hit_rate("rel", "score", k=k)).item()
        expected = _brute_average(rel, score, hit_rate, k=k)
        assert math.isclose(got, expected, rel_tol=1e-12, abs_tol=1e-12), ("hit_rate", k)


def test_average_precision_at_k_without_ties_is_scikit_learns() -> None:
    """Binary, untied, k=None: scikit-learn's average_precision_score (lp.average_precision)."""
    rng = np.random.default_rng(5)
    n = 400
    df = pl.DataFrame(
        {
            "query": rng.integers(0, 30, n),
            "rel": (rng.random(n) < 0.3).astype(np.int64),
            "score": rng.permutation(n).astype(float),
        }
    )
    out = df.group_by("query").agg(
        ours=average_precision_at_k("rel", "score", k=None),
        sklearn=lp.average_precision("rel", "score"),
    )
    assert out["ours"].to_list() == pytest.approx(out["sklearn"].to_list(), rel=1e-12)


# --------------------------------------------------------------------------- trec_eval
def test_joined_with_qrels_and_n_relevant_is_trec_eval() -> None:
    """A run joined with its qrels, ties='trec_eval' and n_relevant: trec_eval's numbers."""
    run = trec.read_run(DATA / "results.test")
    qrels = trec.read_qrels(DATA / "qrels.test")
    judged = qrels.group_by("qid").agg(judged=(pl.col("rel") >= 1).sum())
    long = (
        run.join(qrels.select("qid", "docno", "rel"), on=["qid", "docno"], how="left")
        .with_columns(pl.col("rel").fill_null(0))
        .join(judged, on="qid")
        .collect()
    )
    opts: dict[str, Any] = {"ties": "trec_eval", "item": "docno"}
    ours = (
        long.group_by("qid")
        .agg(
            P_10=precision("rel", "score", k=10, **opts),
            recall_100=recall("rel", "score", k=100, n_relevant="judged", **opts),
            success_5=hit_rate("rel", "score", k=5, **opts),
            Rprec=r_precision("rel", "score", n_relevant="judged", **opts),
            rows_only=recall("rel", "score", k=100, **opts),
            map=average_precision_at_k("rel", "score", k=None, n_relevant="judged", **opts),
            map_cut_10=average_precision_at_k("rel", "score", k=10, n_relevant="judged", **opts),
            map_cut_100=average_precision_at_k("rel", "score", k=100, n_relevant="judged", **opts),
        )
        .sort("qid")
    )
    expected = trec.evaluate(
        DATA / "qrels.test",
        DATA / "results.test",
        ["P.10", "recall.100", "success.5", "Rprec", "map", "map_cut.10,100"],
        per_query=True,
        wide=True,
    ).filter(pl.col("qid") != "all")
    for name in ("P_10", "recall_100", "success_5", "Rprec", "map", "map_cut_10", "map_cut_100"):
        assert ours[name].to_list() == pytest.approx(expected[name].to_list(), rel=1e-12)
    # without n_relevant the rows are the whole truth: a different (larger) recall
    assert (ours["rows_only"] >= ours["recall_100"]).all()
    assert (ours["rows_only"] > ours["recall_100"]).any()


# --------------------------------------------------------------------------- paths, refusals
@pytest.mark.parametrize(
    ("metric", "options"),
    [
        (precision, {"k": 2}),
        (precision, {}),
        (recall, {"k": 2}),
        (hit_rate, {"k": 1}),
        (r_precision, {}),
        (precision, {"k": 2, "ties": "input"}),
        (average_precision_at_k, {"k": 2}),
        (average_precision_at_k, {"k": None, "denominator": "min_k"}),
        (average_precision_at_k, {"k": 3, "ties": "input"}),
    ],
)
def test_every_path_agrees(paths, metric, options) -> None:  # type: ignore[no-untyped-def]
    frame = paths.long_frame(
        [[1, 0, 0, 1], [0, 0], [2, 0, 1], [1]],
        [[0.5, 0.5, 0.2, 0.1], [1.0, 1.0], [0.3, 0.3, 0.3], [0.0]],
    )
    runs = {
        path: paths.run_path(path, frame, metric, **options)
        for path in ("group_by", "lazy", "streaming", "over", "select")
    }
    first = runs["group_by"]
    for path, values in runs.items():
        assert values == pytest.approx(first, rel=1e-12), path


def test_refused_groups_and_bad_options() -> None:
    df = pl.DataFrame(
        {
            "q": [1, 1, 2, 2],
            "rel": [1, 0, 1, 1],
            "score": [1.0, float("nan"), 1.0, 0.5],
            "n": [5, 5, 1, 1],
            "doc": ["a", "a", "a", "b"],
        }
    )
    out = df.group_by("q", maintain_order=True).agg(
        r=recall("rel", "score", n_relevant="n"),
        p=precision("rel", "score", k=1, ties="trec_eval", item="doc"),
    )
    assert out["r"].to_list() == [None, None]  # NaN score; n_relevant below the relevant rows
    assert out["p"].to_list() == [None, 1.0]  # group 1: doc 'a' twice (and a NaN)
    with pytest.raises(lp.InvalidParameterError, match="needs `item=`"):
        precision("rel", "score", ties="trec_eval")
    with pytest.raises(lp.InvalidParameterError, match="The 'ties' parameter of recall"):
        recall("rel", "score", ties="random")
    with pytest.raises(lp.InvalidParameterError, match="The 'k' parameter of hit_rate"):
        hit_rate("rel", "score", k=0)
    msg = (
        "The 'denominator' parameter of average_precision_at_k must be one of "
        "['min_k', 'relevant']. Got 'k' instead."
    )
    with pytest.raises(lp.InvalidParameterError, match=f"^{re.escape(msg)}$"):
        average_precision_at_k("rel", "score", k=3, denominator="k")
    with pytest.raises(TypeError, match="k"):
        average_precision_at_k("rel", "score")  # type: ignore[call-arg]
    with pytest.raises(lp.InvalidParameterError, match="needs `item=`"):
        average_precision_at_k("rel", "score", k=3, ties="trec_eval")


# --------------------------------------------------------------------------- lp.evaluate
def _ragged_tied(seed: int) -> pl.DataFrame:
    """Ragged groups (1 to 14 rows), graded relevance, heavy ties, shuffled rows."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 15, 60)
    n = int(lengths.sum())
    return pl.DataFrame(
        {
            "query": rng.permutation(np.repeat(np.arange(lengths.size), lengths)),
            "rel": rng.choice([0, 0, 0, 1, 2], size=n),
            "score": rng.integers(0, 4, n) / 4.0,
        }
    )


#: evaluate name -> the expression it stands for
_EVALUATE_IR = {
    "precision": precision("rel", "score"),
    "precision@3": precision("rel", "score", k=3),
    "recall": recall("rel", "score"),
    "recall@4": recall("rel", "score", k=4),
    "hit_rate@1": hit_rate("rel", "score", k=1),
    "hit_rate@3": hit_rate("rel", "score", k=3),
    "hit_rate@20": hit_rate("rel", "score", k=20),
    "r_precision": r_precision("rel", "score"),
    "average_precision_at_k": average_precision_at_k("rel", "score", k=None),
    "average_precision_at_k@3": average_precision_at_k("rel", "score", k=3),
}


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("lazy", [False, True])
def test_evaluate_equals_the_expressions(seed: int, lazy: bool) -> None:  # noqa: FBT001
    """lp.evaluate's NumPy cores give the expressions' numbers (ties averaged, rows = truth)."""
    df = _ragged_tied(seed)
    if lazy:
        got = lp.evaluate(
            df.lazy(), list(_EVALUATE_IR), by="query", y_true="rel", y_score="score"
        ).collect()
    else:
        got = lp.evaluate(df, list(_EVALUATE_IR), by="query", y_true="rel", y_score="score")
    expected = (
        df.group_by("query").agg(e.alias(name) for name, e in _EVALUATE_IR.items()).sort("query")
    )
    assert got["query"].to_list() == expected["query"].to_list()
    for name in _EVALUATE_IR:
        assert got[name].to_list() == pytest.approx(
            expected[name].to_list(), rel=1e-12, abs=1e-12
        ), name


#: a name as trec_eval, ranx or ir_measures writes it -> the expression it stands for
_FOREIGN_NAMES = {
    # trec_eval
    "ndcg_cut.10": lp.ndcg("rel", "score", k=10),
    "ndcg": lp.ndcg("rel", "score"),
    "P.10": precision("rel", "score", k=10),
    "P_5": precision("rel", "score", k=5),
    "recall.100": recall("rel", "score", k=100),
    "map": average_precision_at_k("rel", "score", k=None),
    "map_cut.100": average_precision_at_k("rel", "score", k=100),
    "map_cut.3": average_precision_at_k("rel", "score", k=3),
    "recip_rank": lp.reciprocal_rank("rel", "score"),
    "Rprec": r_precision("rel", "score"),
    "success.5": hit_rate("rel", "score", k=5),
    # ranx
    "ndcg@10": lp.ndcg("rel", "score", k=10),
    "map@100": average_precision_at_k("rel", "score", k=100),
    "mrr@10": lp.reciprocal_rank("rel", "score", k=10),
    "precision@10": precision("rel", "score", k=10),
    "recall@100": recall("rel", "score", k=100),
    "hit_rate@10": hit_rate("rel", "score", k=10),
    "r-precision": r_precision("rel", "score"),
    "dcg@10": lp.dcg("rel", "score", k=10),
    "ndcg_burges@10": lp.ndcg("rel", "score", k=10, gain="exponential"),
    # ir_measures
    "nDCG@10": lp.ndcg("rel", "score", k=10),
    "AP@100": average_precision_at_k("rel", "score", k=100),
    "AP": average_precision_at_k("rel", "score", k=None),
    "RR@10": lp.reciprocal_rank("rel", "score", k=10),
    "P@10": precision("rel", "score", k=10),
    "R@100": recall("rel", "score", k=100),
    "Success@10": hit_rate("rel", "score", k=10),
}


def test_evaluate_reads_trec_eval_ranx_and_ir_measures_names() -> None:
    """Each foreign name is one metric with its options; the column keeps the spelling."""
    df = _ragged_tied(11).filter(pl.len().over("query") > 1)  # NDCG refuses one row
    got = lp.evaluate(df, list(_FOREIGN_NAMES), by="query", y_true="rel", y_score="score")
    assert got.columns == ["query", *_FOREIGN_NAMES]
    expected = (
        df.group_by("query").agg(e.alias(name) for name, e in _FOREIGN_NAMES.items()).sort("query")
    )
    for name in _FOREIGN_NAMES:
        assert got[name].to_list() == pytest.approx(
            expected[name].to_list(), rel=1e-12, abs=1e-12
        ), name


@pytest.mark.parametrize(
    ("name", "msg"),
    [
        ("hits@10", "metric 'hits@10': ranx's 'hits' is the number of relevant rows"),
        ("hit_rate", "metric 'hit_rate': hit_rate needs a cutoff, write it as 'hit_rate@10'"),
        ("success", "metric 'success': success needs a cutoff"),
        ("ndcg_cut", "metric 'ndcg_cut': ndcg_cut needs a cutoff, write it as 'ndcg_cut.10'"),
        ("map_cut", "metric 'map_cut': map_cut needs a cutoff"),
        ("Rprec@3", "metric 'Rprec@3': r_precision takes no cutoff"),
        ("ap@3", "metric 'ap@3': average_precision takes no cutoff, write it without '@3' (AP"),
        ("ndcg.10", "unknown metric 'ndcg.10'"),
        ("rr.10", "unknown metric 'rr.10'"),
        ("P.", "unknown metric 'P.'"),
        ("P@0", "The 'k' parameter of precision must be"),
    ],
)
def test_evaluate_bad_foreign_names(name: str, msg: str) -> None:
    """Bad separators, missing or extra cutoffs, and ranx's count 'hits' are refused."""
    df = _ragged_tied(0)
    with pytest.raises(lp.InvalidParameterError, match=f"^{re.escape(msg)}"):
        lp.evaluate(df, [name], by="query", y_true="rel", y_score="score")


def test_evaluate_ap_is_scikit_learns_and_map_is_the_ir_one() -> None:
    """'ap' stays scikit-learn's (a tie counted at once); 'map'/'AP' average the orderings."""
    df = pl.DataFrame({"query": [1, 1, 1], "rel": [0, 1, 0], "score": [1.0, 1.0, 0.0]})
    got = lp.evaluate(df, ["ap", "map", "AP"], by="query", y_true="rel", y_score="score")
    assert got.row(0) == (1, 0.5, 0.75, 0.75)
