"""``lp.fuse`` by hand: one small example per family of methods, the arithmetic written out.

Two runs of one query (the example of docs/fusion.md):

    bm25:  d1 3.0, d2 2.0, d3 1.0   (positions 0, 1, 2)
    dense: d2 0.9, d4 0.5           (positions 0, 1)

The query's documents are d1..d4 (N = 4), R = 2 runs. After min-max, bm25 gives
d1 (3-1)/2 = 1, d2 (2-1)/2 = 0.5, d3 0; dense gives d2 (0.9-0.5)/0.4 = 1, d4 0.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl
import pytest

import lodestar_polars as lp

RUNS = pl.DataFrame(
    {
        "run": ["bm25"] * 3 + ["dense"] * 2,
        "query": ["q1"] * 5,
        "doc": ["d1", "d2", "d3", "d2", "d4"],
        "score": [3.0, 2.0, 1.0, 0.9, 0.5],
    }
)
W = {"bm25": 0.3, "dense": 0.7}


def _fuse(runs: pl.DataFrame = RUNS, **kw: Any) -> dict[str, float]:
    out = lp.fuse(runs, by="query", item="doc", y_score="score", **kw)
    return dict(zip(out["doc"], out["score"], strict=True))


def _same(got: dict[str, float], want: dict[str, float]) -> None:
    assert got.keys() == want.keys()
    for doc, value in want.items():
        assert math.isclose(got[doc], value, rel_tol=1e-12, abs_tol=1e-12), (doc, got[doc], value)


# ---------------------------------------------------------------------------
# the score-based (Comb) family, after min-max


def test_comb_family_after_min_max() -> None:
    # d1 is in bm25 only (1), d2 in both (0.5, 1), d3 in bm25 (0), d4 in dense (0)
    _same(_fuse(method="sum"), {"d1": 1.0, "d2": 0.5 + 1.0, "d3": 0.0, "d4": 0.0})
    # mnz: m * sum, m the number of runs holding the document
    _same(_fuse(method="mnz"), {"d1": 1 * 1.0, "d2": 2 * 1.5, "d3": 0.0, "d4": 0.0})
    # anz: sum / m
    _same(_fuse(method="anz"), {"d1": 1.0, "d2": 1.5 / 2, "d3": 0.0, "d4": 0.0})
    # gmnz: m ** gamma * sum
    _same(
        _fuse(method="gmnz", gamma=0.5),
        {"d1": 1.0, "d2": math.sqrt(2) * 1.5, "d3": 0.0, "d4": 0.0},
    )
    # min: a run that lacks the document counts 1e9; max: -1e9 (ranx's stand-ins)
    _same(_fuse(method="min"), {"d1": min(1.0, 1e9), "d2": 0.5, "d3": 0.0, "d4": 0.0})
    _same(_fuse(method="max"), {"d1": max(1.0, -1e9), "d2": 1.0, "d3": 0.0, "d4": 0.0})
    # med: the median of the present scores
    _same(_fuse(method="med"), {"d1": 1.0, "d2": (0.5 + 1.0) / 2, "d3": 0.0, "d4": 0.0})


def test_the_fused_order_breaks_ties_by_first_appearance() -> None:
    out = lp.fuse(RUNS, method="sum", by="query", item="doc", y_score="score")
    # d3 and d4 both score 0: d3 comes first (bm25 is the first run)
    assert out["doc"].to_list() == ["d2", "d1", "d3", "d4"]


# ---------------------------------------------------------------------------
# the normalisations, each under "sum"


def test_normalisations() -> None:
    # max: s / max s. bm25: 3/3, 2/3, 1/3; dense: 0.9/0.9, 0.5/0.9
    _same(
        _fuse(method="sum", norm="max"),
        {"d1": 1.0, "d2": 2 / 3 + 1.0, "d3": 1 / 3, "d4": 0.5 / 0.9},
    )
    # sum: (s - min) / (total - n * min). bm25: (s - 1) / (6 - 3); dense: (s - 0.5) / (1.4 - 1)
    dense_d2 = (0.9 - 0.5) / ((0.9 + 0.5) - 2 * 0.5)
    _same(
        _fuse(method="sum", norm="sum"),
        {"d1": 2 / 3, "d2": 1 / 3 + dense_d2, "d3": 0.0, "d4": 0.0},
    )
    # zmuv: (s - mean) / population std. bm25: mean 2, std sqrt(2/3); dense: mean 0.7, std 0.2
    std = math.sqrt(2 / 3)
    dense_std = math.sqrt(((0.9 - 0.7) ** 2 + (0.5 - 0.7) ** 2) / 2)
    _same(
        _fuse(method="sum", norm="zmuv"),
        {
            "d1": 1 / std,
            "d2": 0.0 + (0.9 - (0.9 + 0.5) / 2) / dense_std,
            "d3": -1 / std,
            "d4": (0.5 - (0.9 + 0.5) / 2) / dense_std,
        },
    )
    # rank: 1 - p / n. bm25: 1, 2/3, 1/3; dense: 1, 1/2
    _same(
        _fuse(method="sum", norm="rank"),
        {"d1": 1.0, "d2": 1 - 1 / 3 + 1.0, "d3": 1 - 2 / 3, "d4": 0.5},
    )
    # borda: present 1 - p / N (N = 4), missing 1/2 - (n - 1) / (2N)
    # bm25 (n = 3): d1 1, d2 0.75, d3 0.5, d4 missing 0.5 - 2/8 = 0.25
    # dense (n = 2): d2 1, d4 0.75, d1 and d3 missing 0.5 - 1/8 = 0.375
    _same(
        _fuse(method="sum", norm="borda"),
        {"d1": 1.0 + 0.375, "d2": 0.75 + 1.0, "d3": 0.5 + 0.375, "d4": 0.25 + 0.75},
    )
    # raw scores
    _same(_fuse(method="sum", norm=None), {"d1": 3.0, "d2": 2.0 + 0.9, "d3": 1.0, "d4": 0.5})


def test_min_max_inverted_reverses_scores_and_positions() -> None:
    # (max - s) / (max - min). bm25: d1 0, d2 0.5, d3 1; dense: d2 0, d4 1
    _same(
        _fuse(method="sum", norm="min-max-inverted"),
        {"d1": 0.0, "d2": 0.5 + 0.0, "d3": 1.0, "d4": 1.0},
    )
    # each run re-ranked by it: bm25 d3 0, d2 1, d1 2; dense d4 0, d2 1
    _same(
        _fuse(method="rrf", norm="min-max-inverted"),
        {"d1": 1 / 63, "d2": 1 / 62 + 1 / 62, "d3": 1 / 61, "d4": 1 / 61},
    )


# ---------------------------------------------------------------------------
# the position-based family: positions bm25 d1 0, d2 1, d3 2; dense d2 0, d4 1


def test_positional_family() -> None:
    # rrf: sum of 1 / (k + p + 1)
    _same(
        _fuse(method="rrf", norm=None),
        {"d1": 1 / 61, "d2": 1 / 62 + 1 / 61, "d3": 1 / 63, "d4": 1 / 62},
    )
    _same(
        _fuse(method="rrf", norm=None, k=10),
        {"d1": 1 / 11, "d2": 1 / 12 + 1 / 11, "d3": 1 / 13, "d4": 1 / 12},
    )
    # isr: m * sum of 1 / (p + 1)^2
    isr = {"d1": 1 * 1.0, "d2": 2 * (1 / 4 + 1.0), "d3": 1 * (1 / 9), "d4": 1 * (1 / 4)}
    _same(_fuse(method="isr", norm=None), isr)
    # log_isr: ln(m) * the same sum (ln 1 = 0)
    _same(
        _fuse(method="log_isr", norm=None),
        {"d1": 0.0, "d2": math.log(2) * 1.25, "d3": 0.0, "d4": 0.0},
    )
    # logn_isr: ln(m + sigma) * the same sum
    _same(
        _fuse(method="logn_isr", norm=None, sigma=0.5),
        {
            "d1": math.log(1.5) * 1.0,
            "d2": math.log(2.5) * 1.25,
            "d3": math.log(1.5) / 9,
            "d4": math.log(1.5) / 4,
        },
    )
    # rbc: sum of (1 - phi) phi^p
    _same(
        _fuse(method="rbc", norm=None, phi=0.5),
        {"d1": 0.5, "d2": 0.5 * 0.5 + 0.5, "d3": 0.5 * 0.25, "d4": 0.5 * 0.5},
    )


# ---------------------------------------------------------------------------
# the weighted family, after min-max, weights bm25 0.3, dense 0.7


def test_weighted_family() -> None:
    # wsum: sum of w_r * s_r
    wsum = {"d1": 0.3 * 1.0, "d2": 0.3 * 0.5 + 0.7 * 1.0, "d3": 0.0, "d4": 0.0}
    _same(_fuse(method="wsum", weights=W), wsum)
    # wmnz: sum of s * sum of the weights of the runs holding the document
    _same(
        _fuse(method="wmnz", weights=W),
        {"d1": 1.0 * 0.3, "d2": 1.5 * (0.3 + 0.7), "d3": 0.0, "d4": 0.0},
    )
    # mixed: sqrt(m) * sum of w_r * s_r
    _same(
        _fuse(method="mixed", weights=W),
        {"d1": 1.0 * wsum["d1"], "d2": math.sqrt(2) * wsum["d2"], "d3": 0.0, "d4": 0.0},
    )


# ---------------------------------------------------------------------------
# Borda: b = N - p if present, else (N - n + 1) / 2


def test_borda_family() -> None:
    # bm25 (n = 3): d1 4, d2 3, d3 2, d4 (4 - 3 + 1) / 2 = 1
    # dense (n = 2): d2 4, d4 3, d1 and d3 (4 - 2 + 1) / 2 = 1.5
    bm25 = {"d1": 4.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}
    dense = {"d1": 1.5, "d2": 4.0, "d3": 1.5, "d4": 3.0}
    _same(_fuse(method="bordafuse", norm=None), {d: bm25[d] + dense[d] for d in bm25})
    _same(
        _fuse(method="w_bordafuse", norm=None, weights=W),
        {d: 0.3 * bm25[d] + 0.7 * dense[d] for d in bm25},
    )


# ---------------------------------------------------------------------------
# Condorcet: x before y when the runs ranking x above y hold at least half the votes

THREE = pl.DataFrame(
    {
        "run": ["r1"] * 3 + ["r2"] * 3 + ["r3"] * 3,
        "query": ["q1"] * 9,
        "doc": ["a", "b", "c", "b", "a", "c", "a", "c", "b"],
        "score": [3.0, 2.0, 1.0] * 3,
    }
)


def test_condorcet_family() -> None:
    # a vs b: r1 a, r2 b, r3 a -> a (2 of 3); a vs c: a (3 of 3); b vs c: r1 b, r2 b, r3 c -> b
    # order a, b, c: scores N - i = 3, 2, 1
    _same(_fuse(THREE, method="condorcet", norm=None), {"a": 3.0, "b": 2.0, "c": 1.0})
    # weights r1 0.1, r2 0.8, r3 0.1: a vs b: a 0.2, b 0.8 -> b; b vs c: b 0.9 -> b; a vs c -> a
    # order b, a, c
    weights = {"r1": 0.1, "r2": 0.8, "r3": 0.1}
    _same(
        _fuse(THREE, method="w_condorcet", norm=None, weights=weights),
        {"b": 3.0, "a": 2.0, "c": 1.0},
    )


@pytest.mark.parametrize("kind", ["eager", "lazy"])
def test_a_mapping_of_runs_and_a_lazy_frame(kind: str) -> None:
    lazy = kind == "lazy"
    # the same fusion from a mapping of run name to frame; lazy in, lazy out
    parts = {
        name: (part.drop("run").lazy() if lazy else part.drop("run"))
        for (name,), part in RUNS.group_by("run", maintain_order=True)
    }
    out = lp.fuse(parts, method="rrf", norm=None, by="query", item="doc", y_score="score")
    assert isinstance(out, pl.LazyFrame) is lazy
    frame = out.collect() if isinstance(out, pl.LazyFrame) else out
    _same(
        dict(zip(frame["doc"], frame["score"], strict=True)),
        {"d1": 1 / 61, "d2": 1 / 62 + 1 / 61, "d3": 1 / 63, "d4": 1 / 62},
    )
