"""ranx's learned fusions (posfuse, mapfuse): training and fusion against ranx 0.3.21.

corpus/generate_fusion.py froze ranx's ``optimize_fusion`` (the training) and ``fuse`` with
what it learned, on the ``uniform`` dataset and its qrels, under four normalisations;
one small example by hand below.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp

DATA = Path(__file__).resolve().parents[1] / "corpus" / "data" / "fusion.json"


@cache
def _corpus() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DATA.read_text())
    return loaded


def _frame(dataset: str) -> pl.DataFrame:
    rows = _corpus()["datasets"][dataset]
    return pl.DataFrame(rows, schema=["run", "query", "doc", "score"], orient="row")


LEARNED = _corpus()["learned"]
ROLES: dict[str, Any] = {"by": "query", "item": "doc", "y_score": "score"}


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("case", LEARNED, ids=[f"{c['method']}-{c['norm']}" for c in LEARNED])
def test_training_and_fusion_equal_ranx(case: dict[str, Any]) -> None:
    qrels = pl.DataFrame(_corpus()["qrels"], schema=["query", "doc", "rel"], orient="row")
    runs = _frame(case["dataset"])
    trained = lp.optimize_fusion(
        qrels, runs, method=case["method"], norm=case["norm"], y_true="rel", **ROLES
    )
    want_all = dict(case["trained"])
    if "w" in want_all:  # slidefuse: the window searched, and posfuse's probabilities
        assert trained.pop("w") == want_all.pop("w")
    [(key, want)] = want_all.items()
    assert list(trained) == [key]
    assert trained[key].keys() == want.keys()
    for run, value in want.items():
        got = trained[key][run]
        if key in ("probs", "log_odds"):
            assert len(got) == len(value), run
            assert all(_close(g, v) for g, v in zip(got, value, strict=True)), run
        else:
            assert _close(got, value), run
    if "w" in case["trained"]:
        trained["w"] = case["trained"]["w"]
    fused = lp.fuse(runs, method=case["method"], norm=case["norm"], **trained, **ROLES)
    expected = {(q, d): s for q, d, s in case["expected"]}
    got_rows = {(q, d): s for q, d, s in fused.rows()}
    assert got_rows.keys() == expected.keys()
    for k, v in expected.items():
        assert _close(got_rows[k], v), (k, got_rows[k], v)


RUNS = pl.DataFrame(
    {
        "run": ["a"] * 3 + ["b"] * 3 + ["a", "b"],
        "query": ["q1"] * 6 + ["q2", "q2"],
        "doc": ["d1", "d2", "d3", "d3", "d2", "d1", "d1", "d2"],
        "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0, 1.0, 1.0],
    }
)
QRELS = pl.DataFrame({"query": ["q1", "q2"], "doc": ["d3", "d1"], "rel": [1, 2]})


def test_posfuse_by_hand() -> None:
    # run a: q1 d1 d2 d3 (d3 relevant: hits 0 0 1), q2 d1 (relevant: hit 1)
    #   position 0: (0 + 1) / 2 lists; position 1: 0 / 1; position 2: 1 / 1
    # run b: q1 d3 d2 d1 (hits 1 0 0), q2 d2 (hit 0): position 0: (1 + 0) / 2, 1: 0, 2: 0
    trained = lp.optimize_fusion(QRELS, RUNS, method="posfuse", y_true="rel", **ROLES)
    assert trained == {"probs": {"a": [0.5, 0.0, 1.0], "b": [0.5, 0.0, 0.0]}}
    # fused: each document's probability at its position in each run, summed
    fused = lp.fuse(RUNS, method="posfuse", **trained, **ROLES)
    got = {(q, d): s for q, d, s in fused.rows()}
    assert got == {
        ("q1", "d1"): 0.5 + 0.0,
        ("q1", "d2"): 0.0 + 0.0,
        ("q1", "d3"): 1.0 + 0.5,
        ("q2", "d1"): 0.5,
        ("q2", "d2"): 0.5,
    }
    # ranx's own form, NumPy arrays, is taken too
    arrays = {run: np.asarray(p) for run, p in trained["probs"].items()}
    again = lp.fuse(RUNS, method="posfuse", probs=arrays, **ROLES)
    assert again.equals(fused)
    # a position past the learned ones scores 0
    short = lp.fuse(RUNS, method="posfuse", probs={"a": [0.5], "b": [0.25]}, **ROLES)
    got = {(q, d): s for q, d, s in short.rows()}
    assert got[("q1", "d3")] == 0.0 + 0.25
    assert got[("q1", "d1")] == 0.5 + 0.0


def test_mapfuse_by_hand() -> None:
    # run a: q1 AP 1/3 (d3 at rank 3), q2 AP 1 -> MAP (1/3 + 1) / 2
    # run b: q1 AP 1 (d3 at rank 1), q2 AP 0 (d1 not retrieved) -> MAP 1/2
    trained = lp.optimize_fusion(QRELS, RUNS, method="mapfuse", y_true="rel", **ROLES)
    map_a, map_b = (1 / 3 + 1) / 2, 0.5
    assert _close(trained["map_scores"]["a"], map_a)
    assert _close(trained["map_scores"]["b"], map_b)
    # fused: MAP / (position + 1), summed over the runs holding the document
    fused = lp.fuse(RUNS, method="mapfuse", map_scores={"a": map_a, "b": map_b}, **ROLES)
    got = {(q, d): s for q, d, s in fused.rows()}
    want = {
        ("q1", "d1"): map_a / 1 + map_b / 3,
        ("q1", "d2"): map_a / 2 + map_b / 2,
        ("q1", "d3"): map_a / 3 + map_b / 1,
        ("q2", "d1"): map_a / 1,
        ("q2", "d2"): map_b / 1,
    }
    assert got.keys() == want.keys()
    assert all(_close(got[k], v) for k, v in want.items())


def test_probfuse_by_hand() -> None:
    # n segments of ceil(L / n) documents; a segment's probability: the mean over the
    # queries of qrels of its share of relevant documents (a segment past the end adds 0)
    # n >= 3: every segment one document (L <= 3): run a hits q1 0 0 1, q2 1 -> [1/2, 0, 1/2];
    # run b hits q1 1 0 0, q2 0 -> [1/2, 0, 0]; the fused lists rank d3 then d1 on q1 and
    # d1 first on q2 (0.5 each, a's d1 seen first): MRR 1 for every n >= 3, and ranx's
    # rule keeps the last n tried, 100
    trained = lp.optimize_fusion(
        QRELS, RUNS, method="probfuse", metric="mrr", y_true="rel", **ROLES
    )
    assert trained == {"probs": {"a": [0.5, 0.0, 0.5] + [0.0] * 97, "b": [0.5] + [0.0] * 99}}
    fused = lp.fuse(RUNS, method="probfuse", **trained, **ROLES)
    got = {(q, d): s for q, d, s in fused.rows()}
    # each document probs[k] / (k + 1), k its segment (its position here)
    assert got == {
        ("q1", "d1"): 0.5 / 1 + 0.0 / 3,
        ("q1", "d2"): 0.0 / 2 + 0.0 / 2,
        ("q1", "d3"): 0.5 / 3 + 0.5 / 1,
        ("q2", "d1"): 0.5,
        ("q2", "d2"): 0.5,
    }
    # two segments: q1's lists (L = 3) in segments of 2, 1; q2's (L = 1) in one of 1
    # run a: q1 segment 0 hits 0 0 (0), segment 1 hit 1 (1); q2 segment 0 hit 1 -> [1/2, 1/2]
    # run b: q1 segment 0 hits 1 0 (1/2), segment 1 hit 0; q2 segment 0 hit 0 -> [1/4, 0]
    probs = {"a": [0.5, 0.5], "b": [0.25, 0.0]}
    fused = lp.fuse(RUNS, method="probfuse", probs=probs, **ROLES)
    got = {(q, d): s for q, d, s in fused.rows()}
    assert got == {
        ("q1", "d1"): 0.5 / 1 + 0.0 / 2,
        ("q1", "d2"): 0.5 / 1 + 0.25 / 1,
        ("q1", "d3"): 0.5 / 2 + 0.25 / 1,
        ("q2", "d1"): 0.5 / 1,
        ("q2", "d2"): 0.25 / 1,
    }
    assert list(fused["doc"]) == ["d2", "d1", "d3", "d1", "d2"]


def test_segfuse_by_hand() -> None:
    # ranx's segments: positions 0-4, 5-14, 15-34, ... (10 of them); a segment's
    # probability: the mean over the queries of qrels of its relevant documents over the
    # segment's full size (5, 10, 20, ...). Here every list is within the first segment:
    # run a: q1 1 hit, q2 1 hit -> (1/5 + 1/5) / 2; run b: q1 1 hit, q2 0 -> (1/5 + 0) / 2
    trained = lp.optimize_fusion(QRELS, RUNS, method="segfuse", norm=None, y_true="rel", **ROLES)
    assert trained == {"probs": {"a": [0.2] + [0.0] * 9, "b": [0.1] + [0.0] * 9}}
    # fused: each document P[segment] * (score + 1), summed over the runs (scores raw here)
    fused = lp.fuse(RUNS, method="segfuse", norm=None, **trained, **ROLES)
    got = {(q, d): s for q, d, s in fused.rows()}
    want = {
        ("q1", "d1"): 0.2 * (3 + 1) + 0.1 * (1 + 1),
        ("q1", "d2"): 0.2 * (2 + 1) + 0.1 * (2 + 1),
        ("q1", "d3"): 0.2 * (1 + 1) + 0.1 * (3 + 1),
        ("q2", "d1"): 0.2 * (1 + 1),
        ("q2", "d2"): 0.1 * (1 + 1),
    }
    assert got.keys() == want.keys()
    assert all(_close(got[k], v) for k, v in want.items())
    # a list of 7: positions 5 and 6 in the second segment (size 10)
    long = pl.DataFrame(
        {
            "run": ["a"] * 7 + ["b"],
            "query": ["q1"] * 8,
            "doc": [f"e{i}" for i in range(7)] + ["e0"],
            "score": [7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 1.0],
        }
    )
    qrels = pl.DataFrame({"query": ["q1"], "doc": ["e6"], "rel": [1]})
    trained = lp.optimize_fusion(qrels, long, method="segfuse", norm=None, y_true="rel", **ROLES)
    assert trained == {"probs": {"a": [0.0, 1 / 10] + [0.0] * 8, "b": [0.0] * 10}}
    probs = {"a": [0.5, 0.25], "b": [1.0]}
    fused = lp.fuse(long, method="segfuse", norm=None, probs=probs, **ROLES)
    by_doc = {d: s for _, d, s in fused.rows()}
    assert by_doc == {
        "e0": 0.5 * (7 + 1) + 1.0 * (1 + 1),
        "e1": 0.5 * 7,
        "e2": 0.5 * 6,
        "e3": 0.5 * 5,
        "e4": 0.5 * 4,
        "e5": 0.25 * 3,
        "e6": 0.25 * 2,
    }


def test_slidefuse_by_hand() -> None:
    # trained: posfuse's probabilities (a [1/2, 0, 1], b [1/2, 0, 0]) and the window w
    # searched over 1..100. w = 1 on q1 (lists of 3): a scores the means of positions
    # 0-1, 0-2, 1-2: 1/4, 1/2, 1/2; b: 1/4, 1/6, 0 -> d3 3/4 first; q2 (one document):
    # d1 and d2 1/2 each, a's d1 seen first: MRR 1. For w >= 2 each window is the whole
    # list: every q1 document 1/2 + 1/6, d1 first by first appearance: MRR (1/3 + 1) / 2
    trained = lp.optimize_fusion(
        QRELS, RUNS, method="slidefuse", metric="mrr", y_true="rel", **ROLES
    )
    assert trained == {"probs": {"a": [0.5, 0.0, 1.0], "b": [0.5, 0.0, 0.0]}, "w": 1}
    fused = lp.fuse(RUNS, method="slidefuse", **trained, **ROLES)
    got = {(q, d): s for q, d, s in fused.rows()}
    want = {
        ("q1", "d1"): (0.5 + 0.0) / 2 + (0.0 + 0.0) / 2,
        ("q1", "d2"): (0.5 + 0.0 + 1.0) / 3 + (0.5 + 0.0 + 0.0) / 3,
        ("q1", "d3"): (0.0 + 1.0) / 2 + (0.5 + 0.0) / 2,
        ("q2", "d1"): 0.5,
        ("q2", "d2"): 0.5,
    }
    assert got.keys() == want.keys()
    assert all(_close(got[k], v) for k, v in want.items())
    # w = 0: each position alone, posfuse; a window past the learned positions adds 0
    again = lp.fuse(RUNS, method="slidefuse", probs=trained["probs"], w=0, **ROLES)
    posfuse = lp.fuse(RUNS, method="posfuse", probs=trained["probs"], **ROLES)
    assert again.equals(posfuse)
    short = lp.fuse(RUNS, method="slidefuse", probs={"a": [0.5], "b": [0.25]}, w=1, **ROLES)
    got = {(q, d): s for q, d, s in short.rows()}
    assert got[("q1", "d2")] == 0.5 / 3 + 0.25 / 3


def test_bayesfuse_by_hand() -> None:
    # ranx's cut-offs 0, 5, 10, 15, 20, 30, 100, 200, 500, 1000: a segment's precision is
    # its relevant documents over its full size, averaged over the queries of qrels; a 0 is
    # floored to 0.001; the log-odds log(P / (1 - P)) fill the segment's positions.
    # run a: q1 1 hit, q2 1 hit in 0-4 -> P = (1/5 + 1/5) / 2; run b: (1/5 + 0) / 2
    trained = lp.optimize_fusion(QRELS, RUNS, method="bayesfuse", y_true="rel", **ROLES)
    floor = math.log(0.001 / 0.999)
    want_a = [math.log(0.2 / 0.8)] * 5 + [floor] * 995
    want_b = [math.log(0.1 / 0.9)] * 5 + [floor] * 995
    assert list(trained) == ["log_odds"]
    for got_odds, want_odds in zip(trained["log_odds"].values(), [want_a, want_b], strict=True):
        assert len(got_odds) == 1000
        assert all(_close(g, v) for g, v in zip(got_odds, want_odds, strict=True))
    # fused: the sum of each run's log-odds at the document's position; a run that misses
    # the document adds the floor's log-odds
    fused = lp.fuse(RUNS, method="bayesfuse", **trained, **ROLES)
    got = {(q, d): s for q, d, s in fused.rows()}
    both = math.log(0.2 / 0.8) + math.log(0.1 / 0.9)
    want = {
        ("q1", "d1"): both,
        ("q1", "d2"): both,
        ("q1", "d3"): both,
        ("q2", "d1"): math.log(0.2 / 0.8) + floor,
        ("q2", "d2"): floor + math.log(0.1 / 0.9),
    }
    assert got.keys() == want.keys()
    assert all(_close(got[k], v) for k, v in want.items())
