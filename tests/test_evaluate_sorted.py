"""lp.evaluate on query-sorted input (issue 12: sorted input).

A frame whose groups are contiguous runs of rows is grouped by run number
instead of by hashing its keys (``_evaluate.frame._contiguous_runs``).  Every test
here checks both that the run path was taken (or not) and that it gives the
hash path's numbers bit for bit: the hash path is the reference, itself
checked against scikit-learn and trec_eval elsewhere.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import lodestar_polars as lp
from lodestar_polars._core.ranking import one_padded_matrix
from lodestar_polars._evaluate import frame as _frame
from lodestar_polars._metrics.ties import TieRule
from lodestar_polars.exceptions import RefusedGroupError

METRICS = ["ndcg@5", "dcg", "rr@3", "precision@2", "recall@4", "top_k_accuracy@2"]


def _log(seed: int, n_groups: int = 300) -> pl.DataFrame:
    """Ragged groups in random row order, heavy ties, a few refused groups."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 12, n_groups)  # some groups of one row: refused by ndcg
    query = np.repeat(np.arange(n_groups), lengths)
    n = query.size
    frame = pl.DataFrame(
        {
            "query": query,
            "relevance": rng.choice(4, n, p=[0.6, 0.2, 0.1, 0.1]),
            "score": rng.integers(0, 4, n) / 4.0,  # heavy ties
            "w": (query % 3 + 1).astype(np.float64),
        }
    ).with_columns(
        text=pl.format("q{}", pl.col("query")),
        part=(pl.col("query") % 7).cast(pl.Int32),
        day=pl.date(2026, 1, 1) + pl.duration(days=pl.col("query") % 5),
    )
    return frame.sample(fraction=1.0, shuffle=True, seed=seed)


def _both_paths(
    frame: pl.DataFrame, by: list[str], metrics: list[str] = METRICS, **kwargs: Any
) -> tuple[pl.DataFrame, ...]:
    """The query-sorted frame's result on the run path, then on the hash path.

    The same frame both times: metrics that break ties by row order
    (``top_k_accuracy``, ``ties="input"``) depend on the rows' order, so a
    shuffled frame is not the reference, the same rows hashed are.
    """
    ordered = frame.sort(by, nulls_last=False, maintain_order=True)
    # as read from a file: no sorted flag, so only the run detection can find the runs
    ordered = pl.DataFrame({name: ordered[name].to_list() for name in ordered.columns}).cast(
        {name: dtype for name, dtype in ordered.schema.items()}
    )
    assert _frame._contiguous_runs(ordered, by) is not None
    assert _frame._contiguous_runs(frame, by) is None  # the shuffled frame: hashed
    args: dict[str, Any] = dict(by=by, y_true="relevance", y_score="score", strict=False, **kwargs)
    on_runs = lp.evaluate(ordered, metrics, **args)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_frame, "_contiguous_runs", lambda frame, keys: None)
        hashed = lp.evaluate(ordered, metrics, **args)
    return on_runs, hashed


@pytest.mark.parametrize(
    "by", [["query"], ["text"], ["part", "text"], ["day", "query"]], ids="+".join
)
def test_runs_equal_hashing(by: list[str]) -> None:
    on_runs, hashed = _both_paths(_log(seed=len(by)), by)
    assert_frame_equal(on_runs, hashed, check_exact=True)
    assert on_runs["ndcg@5"].null_count() > 0  # groups of one row: refused, null on both


@pytest.mark.parametrize("ties", ["average", "trec_eval", "input"])
def test_runs_equal_hashing_every_tie_rule(ties: str) -> None:
    frame = _log(seed=11).with_columns(doc=pl.int_range(pl.len()).cast(pl.String))
    extra = {"item": "doc"} if ties == "trec_eval" else {}
    tie_rule_metrics = ["ndcg@5", "dcg", "rr@3", "precision@2", "recall@4", "map@4"]
    on_runs, hashed = _both_paths(frame, ["query"], tie_rule_metrics, ties=ties, **extra)
    assert_frame_equal(on_runs, hashed, check_exact=True)


@pytest.mark.parametrize("layout", ["about one length", "ragged"])
def test_both_orders_on_runs(layout: str) -> None:
    """Runs of about one length are ordered by NumPy (a padded matrix), ragged runs
    by Polars' sort per group: both give the hash path's numbers.
    """
    frame = _log(seed=21)
    if layout == "ragged":  # one long query: padding every run to it would cost 10x
        rng = np.random.default_rng(21)
        frame = pl.concat(
            [
                frame,
                pl.DataFrame(
                    {
                        "query": np.full(3_000, 10_000),
                        "relevance": rng.choice(4, 3_000),
                        "score": rng.integers(0, 50, 3_000) / 8.0,
                        "w": np.ones(3_000),
                    }
                ).with_columns(
                    text=pl.format("q{}", pl.col("query")),
                    part=(pl.col("query") % 7).cast(pl.Int32),
                    day=pl.date(2026, 1, 1),
                ),
            ],
            how="diagonal_relaxed",
        )
    runs = _frame._contiguous_runs(frame.sort("query", maintain_order=True), ["query"])
    assert runs is not None
    assert one_padded_matrix(runs.length) == (layout == "about one length")
    on_runs, hashed = _both_paths(frame, ["query"])
    assert_frame_equal(on_runs, hashed, check_exact=True)


def test_runs_weighted_mean_equals_hashing() -> None:
    on_runs, hashed = _both_paths(_log(seed=4), ["query"], weight="w", mean=True)
    assert_frame_equal(on_runs, hashed, check_exact=True)


def test_null_keys_form_one_run() -> None:
    frame = _log(seed=5).with_columns(
        query=pl.when(pl.col("query") < 20).then(None).otherwise(pl.col("query"))
    )
    on_runs, hashed = _both_paths(frame, ["query"])
    assert_frame_equal(on_runs, hashed, check_exact=True)
    assert on_runs["query"][0] is None  # the null group first, as the hash path sorts it


def test_a_group_in_two_runs_takes_the_hash_path() -> None:
    # group 1 comes back after group 2: the runs are not the groups
    frame = pl.DataFrame(
        {
            "query": [1, 1, 2, 2, 1, 1],
            "relevance": [1, 0, 0, 1, 0, 1],
            "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4],
        }
    )
    assert _frame._contiguous_runs(frame, ["query"]) is None
    out = lp.evaluate(frame, ["rr", "ap"], by="query", y_true="relevance", y_score="score")
    # query 1 ranked: 0.9 (rel), 0.8, 0.5, 0.4 (rel): RR = 1, AP = (1/1 + 2/4) / 2
    # query 2 ranked: 0.7, 0.6 (rel): RR = 1/2, AP = 1/2
    assert out.to_dict(as_series=False) == {
        "query": [1, 2],
        "rr": [1.0, 0.5],
        "ap": [0.75, 0.5],
    }


def test_hand_example_on_runs() -> None:
    # rows grouped, keys not in order (q2 before q1): contiguous runs all the same
    frame = pl.DataFrame(
        {
            "query": ["q2", "q2", "q2", "q1", "q1"],
            "relevance": [0, 2, 1, 1, 0],
            "score": [0.5, 0.5, 0.1, 0.3, 0.7],
        }
    )
    assert _frame._contiguous_runs(frame, ["query"]) is not None
    out = lp.evaluate(frame, ["dcg", "rr"], by="query", y_true="relevance", y_score="score")
    # q1 ranked: 0.7 (rel 0), 0.3 (rel 1): DCG = 1/log2(3); RR = 1/2
    # q2: 0.5 tie of gains 0 and 2 over positions 1-2, mean gain 1 times
    #     (1/log2(2) + 1/log2(3)); then 0.1 (rel 1) at position 3: 1/log2(4)
    q1 = 1 / math.log2(3)
    q2 = (0 + 2) / 2 * (1 / math.log2(2) + 1 / math.log2(3)) + 1 / math.log2(4)
    assert out["query"].to_list() == ["q1", "q2"]  # sorted by key, as on the hash path
    assert out["dcg"].to_list() == pytest.approx([q1, q2], rel=1e-15)
    # ties averaged: q2's first relevant row sits at position 1 or 2, RR 1/1 or 1/2
    assert out["rr"].to_list() == pytest.approx([0.5, 0.75], rel=1e-15)


def test_refusal_on_runs_names_the_group() -> None:
    frame = pl.DataFrame(
        {
            "query": [1, 1, 2, 2, 3, 3],
            "relevance": [1, 0, 1, 0, 1, 0],
            "score": [0.3, 0.2, None, 0.1, 0.5, 0.4],
        }
    )
    assert _frame._contiguous_runs(frame, ["query"]) is not None
    with pytest.raises(RefusedGroupError, match=r"query=2: Input y_score contains null\."):
        lp.evaluate(frame, ["ndcg"], by="query", y_true="relevance", y_score="score")


@pytest.mark.parametrize(
    ("keys", "why"),
    [
        (pl.Series("query", [0.5, 0.5, 1.5, 1.5]), "float keys: the hash group-by's NaN rules"),
        (pl.Series("query", [1, 2, 3, 4]), "runs of one row"),
        (pl.Series("query", [[1], [1], [2], [2]]), "nested keys"),
    ],
)
def test_layouts_left_to_the_hash_group_by(keys: pl.Series, why: str) -> None:
    frame = pl.DataFrame({"query": keys, "relevance": [1, 0, 0, 1], "score": [0.4, 0.3, 0.2, 0.1]})
    assert _frame._contiguous_runs(frame, ["query"]) is None, why


def test_datetime_and_categorical_keys() -> None:
    base = _log(seed=8)
    frame = base.with_columns(
        at=pl.datetime(2026, 1, 1) + pl.duration(hours=pl.col("query")),
        cat=pl.col("text").cast(pl.Categorical),
    )
    for by in (["at"], ["cat"]):
        on_runs, hashed = _both_paths(frame, by)
        assert_frame_equal(on_runs, hashed, check_exact=True)
    assert dt.datetime(2026, 1, 1) in _both_paths(frame, ["at"])[0]["at"].to_list()


def _rectangular(seed: int, width: int = 8, n_groups: int = 200) -> pl.DataFrame:
    """Every group of ``width`` rows (a top-k list per query), heavy ties, shuffled."""
    rng = np.random.default_rng(seed)
    query = np.repeat(np.arange(n_groups), width)
    return pl.DataFrame(
        {
            "query": query,
            "relevance": rng.choice(4, query.size, p=[0.6, 0.2, 0.1, 0.1]),
            "score": rng.integers(0, 4, query.size) / 4.0,
            "w": (query % 3 + 1).astype(np.float64),
        }
    ).sample(fraction=1.0, shuffle=True, seed=seed)


@pytest.mark.parametrize("width", [2, 8, 40])
def test_groups_of_one_length_equal_hashing(width: int) -> None:
    """One length per group: the core's one-width shortcuts give the hash path's numbers."""
    metrics = [*METRICS, "ap", "lrap", "label_ranking_loss", "coverage_error", "ndcg"]
    frame = _rectangular(seed=width, width=width).with_columns(
        relevance=(pl.col("relevance") > 1).cast(pl.Int64)  # binary, for AP and the rest
    )
    on_runs, hashed = _both_paths(frame, ["query"], metrics)
    assert_frame_equal(on_runs, hashed, check_exact=True)


def _ranked(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` ranked within each query (score descending), as a TREC run is: no flag."""
    ranked = frame.sort(["query", "score"], descending=[False, True], maintain_order=True)
    return pl.DataFrame({name: ranked[name].to_numpy() for name in ranked.columns})


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("shape", ["ragged", "one length"])
def test_a_ranked_log_takes_no_sort(ties: TieRule, shape: str) -> None:
    """Scores already descending in every run: no sort, and the hash path's numbers."""
    frame = _ranked(_log(seed=31) if shape == "ragged" else _rectangular(seed=31))
    metrics = ["ndcg@5", "dcg", "rr@3", "precision@2", "recall@4", "map@4"]
    sorts: list[int] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_frame, "segment_order", lambda *a, **k: sorts.append(1))
        on_runs = lp.evaluate(
            frame, metrics, by="query", y_true="relevance", y_score="score", strict=False, ties=ties
        )
    assert not sorts
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_frame, "_contiguous_runs", lambda frame, keys: None)
        hashed = lp.evaluate(
            frame, metrics, by="query", y_true="relevance", y_score="score", strict=False, ties=ties
        )
    assert_frame_equal(on_runs, hashed, check_exact=True)


def test_a_ranked_log_with_ties_is_sorted_where_row_order_is_read() -> None:
    """top_k_accuracy breaks ties later row first: a ranked log with ties is sorted again."""
    frame = _ranked(_rectangular(seed=32)).with_columns(
        # one true row per group, as top_k_accuracy takes: the group's first row
        relevance=(pl.int_range(pl.len()).over("query") == 0).cast(pl.Int64)
    )
    assert frame.group_by("query").agg(pl.col("score").n_unique() < pl.len()).to_series(1).any()
    metrics = ["top_k_accuracy@2", "ndcg@3"]
    on_runs = lp.evaluate(frame, metrics, by="query", y_true="relevance", y_score="score")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_frame, "_contiguous_runs", lambda frame, keys: None)
        hashed = lp.evaluate(frame, metrics, by="query", y_true="relevance", y_score="score")
    assert_frame_equal(on_runs, hashed, check_exact=True)
    # ndcg alone does not read row order: the same ranked log needs no sort
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_frame, "segment_order", lambda *a, **k: pytest.fail("sorted"))
        alone = lp.evaluate(frame, ["ndcg@3"], by="query", y_true="relevance", y_score="score")
    assert_frame_equal(alone, on_runs.select("query", "ndcg@3"), check_exact=True)


def test_a_ranked_log_with_a_refused_group_is_sorted_as_before() -> None:
    """A refused group (NaN score) leaves the ranked shortcut: the rules' order and nulls."""
    frame = _ranked(_rectangular(seed=33)).with_columns(
        score=pl.when(pl.col("query") == 5).then(float("nan")).otherwise(pl.col("score"))
    )
    on_runs = lp.evaluate(
        frame, ["ndcg@3", "rr"], by="query", y_true="relevance", y_score="score", strict=False
    )
    assert on_runs.filter(pl.col("query") == 5).select(pl.all().exclude("query")).row(0) == (
        None,
        None,
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_frame, "_contiguous_runs", lambda frame, keys: None)
        hashed = lp.evaluate(
            frame, ["ndcg@3", "rr"], by="query", y_true="relevance", y_score="score", strict=False
        )
    assert_frame_equal(on_runs, hashed, check_exact=True)


def test_hand_example_ranked_log() -> None:
    # q1 ranked: 0.9 (rel 0), 0.8 (rel 2), 0.8 (rel 1): ties averaged in NDCG and RR
    frame = pl.DataFrame(
        {
            "query": [1, 1, 1, 2, 2],
            "relevance": [0, 2, 1, 1, 0],
            "score": [0.9, 0.8, 0.8, 0.5, 0.4],
        }
    )
    out = lp.evaluate(frame, ["dcg", "rr"], by="query", y_true="relevance", y_score="score")
    # DCG q1: 0 / log2(2) + (2 + 1) / 2 * (1 / log2(3) + 1 / log2(4)); q2: 1 / log2(2)
    # RR q1: the tie holds both relevant rows, the first relevant row is at rank 2; q2: 1
    assert out["dcg"].to_list() == pytest.approx([1.5 * (1 / math.log2(3) + 0.5), 1.0], rel=1e-15)
    assert out["rr"].to_list() == [0.5, 1.0]
