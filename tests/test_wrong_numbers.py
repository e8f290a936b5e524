"""Regressions for the wrong numbers of issue 8, and their siblings.

Each test failed before its fix:

1. a count of wrongly ordered pairs summed as UInt32 wrapped past 2**32
   (``label_ranking_loss`` on a group of 65,536 positives and 65,537 negatives);
2. integer scores were cast to Float64 before ranking, so scores above 2**53
   merged into ties (epoch nanoseconds as scores);
3. a relevance of -inf under the exponential gain was read as the finite gain
   ``2 ** -inf - 1 = -1`` and scored;
4. a huge ``k`` built a table of ``k`` discounts (gigabytes at 1e8, a NumPy
   MemoryError at 1e18, Polars' "Maximum allowed size exceeded" at 2**70) or
   failed to convert to a Polars length.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._core.ranking import rank_segments

# ----------------------------------------------------------------- 1. counts past 2**32

N_POS, N_NEG = 65_536, 65_537  # N_POS * N_NEG = 4,295,032,832 > 2**32


@pytest.fixture(scope="module")
def wide_group() -> pl.DataFrame:
    """One sample: 65,536 relevant labels scored 0.0, 65,537 irrelevant ones scored 1.0."""
    return pl.DataFrame(
        {
            "q": [1] * (N_POS + N_NEG),
            "t": [1] * N_POS + [0] * N_NEG,
            "s": [0.0] * N_POS + [1.0] * N_NEG,
        }
    )


# every relevant label is below every irrelevant one: every pair is misordered,
# the worst relevant label is read last, and above each relevant label sit all
# the irrelevant labels and every relevant one (they tie)
WIDE_EXPECTED: dict[str, float] = {
    "label_ranking_loss": 1.0,  # (N_POS * N_NEG) / (N_POS * N_NEG)
    "coverage_error": float(N_POS + N_NEG),
    "label_ranking_average_precision": N_POS / (N_POS + N_NEG),
    "average_precision": N_POS / (N_POS + N_NEG),
}


@pytest.mark.parametrize("name", sorted(WIDE_EXPECTED))
@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_pair_counts_past_2_32_do_not_wrap(
    wide_group: pl.DataFrame, name: str, engine: Any
) -> None:
    metric = getattr(lp, name)
    out = wide_group.lazy().group_by("q").agg(metric("t", "s")).collect(engine=engine)
    assert out[name].item() == pytest.approx(WIDE_EXPECTED[name], rel=1e-12)


def test_pair_counts_past_2_32_evaluate(wide_group: pl.DataFrame) -> None:
    names = {
        "label_ranking_loss": "label_ranking_loss",
        "coverage_error": "coverage_error",
        "lrap": "label_ranking_average_precision",
        "ap": "average_precision",
    }
    out = lp.evaluate(wide_group, list(names), by="q", y_true="t", y_score="s")
    for name, metric in names.items():
        assert out[name].item() == pytest.approx(WIDE_EXPECTED[metric], rel=1e-12), name


# ----------------------------------------------------------------- 2. integer scores

TWO_53 = 2**53

#: (dtype, two scores: the irrelevant row's, then the relevant row's, one apart)
INTEGER_SCORES = [
    (pl.Int64, [TWO_53, TWO_53 + 1]),
    (pl.UInt64, [TWO_53, TWO_53 + 1]),
    (pl.UInt64, [2**64 - 2, 2**64 - 1]),
    (pl.Int64, [-(2**63), -(2**63) + 1]),
    (pl.Int64, [2**63 - 2, 2**63 - 1]),
]

#: every metric ranks the relevant row first: each value is the perfect one
PERFECT: dict[str, Callable[[], pl.Expr]] = {
    "ndcg": lambda: lp.ndcg("t", "s"),
    "dcg": lambda: lp.dcg("t", "s"),
    "dcg_ignore_ties": lambda: lp.dcg("t", "s", ignore_ties=True),
    "ndcg_trec": lambda: lp.ndcg("t", "s", ties="trec_eval", item="doc"),
    "reciprocal_rank": lambda: lp.reciprocal_rank("t", "s"),
    "rr_k1": lambda: lp.reciprocal_rank("t", "s", k=1),
    "rr_k40": lambda: lp.reciprocal_rank("t", "s", k=40),
    "rr_ignore_ties": lambda: lp.reciprocal_rank("t", "s", ignore_ties=True),
    "top_k_accuracy": lambda: lp.top_k_accuracy("t", "s", k=1),
    "average_precision": lambda: lp.average_precision("t", "s"),
    "coverage_error": lambda: lp.coverage_error("t", "s"),
    "label_ranking_average_precision": lambda: lp.label_ranking_average_precision("t", "s"),
    "precision": lambda: lp.precision("t", "s", k=1),
    "precision_input": lambda: lp.precision("t", "s", k=1, ties="input"),
    "recall": lambda: lp.recall("t", "s", k=1),
    "hit_rate": lambda: lp.hit_rate("t", "s", k=1),
    "r_precision": lambda: lp.r_precision("t", "s"),
    "map": lambda: lp.average_precision_at_k("t", "s", k=None),
    "map_at_1": lambda: lp.average_precision_at_k("t", "s", k=1),
}
# coverage error's perfect value is the number of relevant labels, 1 here
PERFECT_VALUE = {"coverage_error": 1.0}


def _integer_frame(dtype: pl.DataType, scores: list[int]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "q": [1, 1],
            "doc": ["a", "b"],
            "t": [0, 1],
            "s": pl.Series(scores, dtype=dtype),
        }
    )


@pytest.mark.parametrize(("dtype", "scores"), INTEGER_SCORES, ids=str)
@pytest.mark.parametrize("name", sorted(PERFECT))
def test_integer_scores_rank_in_their_own_dtype(
    dtype: pl.DataType, scores: list[int], name: str
) -> None:
    frame = _integer_frame(dtype, scores)
    expected = PERFECT_VALUE.get(name, 1.0)
    for engine in ("in-memory", "streaming"):
        out = frame.lazy().group_by("q").agg(PERFECT[name]().alias("v")).collect(engine=engine)
        assert out["v"].item() == expected, (engine, out)


@pytest.mark.parametrize(("dtype", "scores"), INTEGER_SCORES, ids=str)
def test_integer_scores_label_ranking_loss(dtype: pl.DataType, scores: list[int]) -> None:
    out = _integer_frame(dtype, scores).group_by("q").agg(lp.label_ranking_loss("t", "s"))
    assert out["label_ranking_loss"].item() == 0.0


@pytest.mark.parametrize(("dtype", "scores"), INTEGER_SCORES, ids=str)
@pytest.mark.parametrize("lazy", [False, True])
def test_integer_scores_evaluate(dtype: pl.DataType, scores: list[int], *, lazy: bool) -> None:
    names = [
        "ndcg",
        "dcg",
        "rr",
        "top_k_accuracy@1",
        "ap",
        "lrap",
        "P@1",
        "recall@1",
        "hit_rate@1",
        "map",
    ]
    names += ["coverage_error", "label_ranking_loss", "r_precision", "ndcg_burges", "map@1"]
    frame = _integer_frame(dtype, scores)
    out = lp.evaluate(frame.lazy() if lazy else frame, names, by="q", y_true="t", y_score="s")
    row = (out.collect() if isinstance(out, pl.LazyFrame) else out).row(0, named=True)
    expected = {n: 1.0 for n in names} | {"label_ranking_loss": 0.0}
    assert {n: row[n] for n in names} == expected


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int8, np.uint8])
def test_core_ranks_integers_without_a_float_cast(dtype: type) -> None:
    info = np.iinfo(dtype)
    score: np.ndarray = np.array(
        [info.min, info.max, info.max - 1, info.min + 1, info.max], dtype=dtype
    )
    ranking = rank_segments(score, np.array([5]))
    # descending: max, max (the later row first), max - 1, min + 1, min
    assert ranking.order is not None
    assert ranking.order.tolist() == [4, 1, 2, 3, 0]
    assert ranking.take(score).tolist() == sorted(score.tolist(), reverse=True)
    assert ranking.above.tolist() == [0, 0, 2, 3, 4]


# ----------------------------------------------------------------- 3. infinite relevance

NON_FINITE = [float("-inf"), float("inf"), float("nan"), None]


@pytest.mark.parametrize("relevance", NON_FINITE, ids=str)
@pytest.mark.parametrize("gain", ["linear", "exponential"])
@pytest.mark.parametrize("metric", [lp.dcg, lp.ndcg], ids=["dcg", "ndcg"])
def test_non_finite_relevance_is_refused_under_every_gain(
    relevance: float | None, gain: str, metric: Callable[..., pl.Expr]
) -> None:
    frame = pl.DataFrame(
        {"q": [1, 1, 2, 2], "t": [relevance, 1.0, 2.0, 0.0], "s": [1.0, 0.0, 1.0, 0.0]},
        schema={"q": pl.Int64, "t": pl.Float64, "s": pl.Float64},
    )
    out = frame.group_by("q", maintain_order=True).agg(metric("t", "s", gain=gain).alias("v"))
    # the second group, [2, 0] ranked perfectly: DCG 2 / log2(2) = 2 (linear) or
    # (2**2 - 1) / log2(2) = 3 (exponential); NDCG 1
    expected = 1.0 if metric is lp.ndcg else (3.0 if gain == "exponential" else 2.0)
    assert out["v"].to_list() == [None, expected]


@pytest.mark.parametrize(
    ("relevance", "reason"),
    [
        (
            float("-inf"),
            "Input y_true contains infinity or a value too large for dtype('float64').",
        ),
        (float("inf"), "Input y_true contains infinity or a value too large for dtype('float64')."),
        (float("nan"), "Input y_true contains NaN."),
    ],
    ids=["-inf", "inf", "nan"],
)
@pytest.mark.parametrize("name", ["dcg", "ndcg", "dcg_burges", "ndcg_burges"])
def test_non_finite_relevance_evaluate_names_the_reason(
    relevance: float, reason: str, name: str
) -> None:
    frame = pl.DataFrame({"q": [1, 1], "t": [relevance, 1.0], "s": [1.0, 0.0]})
    with pytest.raises(lp.RefusedGroupError) as info:
        lp.evaluate(frame, [name], by="q", y_true="t", y_score="s")
    assert f"q=1: {reason}" in str(info.value)
    assert "negative" not in str(info.value)
    out = lp.evaluate(frame, [name], by="q", y_true="t", y_score="s", strict=False)
    assert out[name].to_list() == [None]


# ----------------------------------------------------------------- 4. huge k

HUGE_K = [10**8, 10**18, 2**70, np.int64(10**18), np.uint64(2**64 - 1)]

#: expressions whose value at any k past the longest group is their value at that length
AT_K: dict[str, Callable[[Any], pl.Expr]] = {
    "ndcg": lambda k: lp.ndcg("t", "s", k=k),
    "dcg": lambda k: lp.dcg("t", "s", k=k),
    "dcg_ignore_ties": lambda k: lp.dcg("t", "s", k=k, ignore_ties=True),
    "ndcg_exponential": lambda k: lp.ndcg("t", "s", k=k, gain="exponential"),
    "reciprocal_rank": lambda k: lp.reciprocal_rank("t", "s", k=k),
    "rr_ignore_ties": lambda k: lp.reciprocal_rank("t", "s", k=k, ignore_ties=True),
    "recall": lambda k: lp.recall("t", "s", k=k),
    "hit_rate": lambda k: lp.hit_rate("t", "s", k=k),
    "hit_rate_input": lambda k: lp.hit_rate("t", "s", k=k, ties="input"),
    "map": lambda k: lp.average_precision_at_k("t", "s", k=k),
    "map_min_k": lambda k: lp.average_precision_at_k("t", "s", k=k, denominator="min_k"),
    "top_k": lambda k: lp.top_k_accuracy(pl.col("t") == 3, "s", k=k),
}

SMALL = pl.DataFrame({"q": [1, 1, 1, 2, 2], "t": [3, 0, 1, 0, 3], "s": [0.9, 0.8, 0.8, 0.1, 0.3]})


@pytest.mark.parametrize("k", HUGE_K, ids=str)
@pytest.mark.parametrize("name", sorted(AT_K))
def test_huge_k_scores_the_whole_group(name: str, k: Any) -> None:
    whole = SMALL.group_by("q", maintain_order=True).agg(AT_K[name](3).alias("v"))
    huge = SMALL.group_by("q", maintain_order=True).agg(AT_K[name](k).alias("v"))
    # a small k reads its discounts from a NumPy table, a huge one computes them in
    # Polars: the same formula, the last bit may differ (it does on Polars 2.0.0)
    assert huge["v"].to_list() == pytest.approx(whole["v"].to_list(), rel=1e-12)


@pytest.mark.parametrize("k", HUGE_K, ids=str)
@pytest.mark.parametrize("ties", ["average", "input"])
def test_huge_k_precision_divides_by_k(k: Any, ties: str) -> None:
    """P@k counts the relevant rows among all of a group's rows and divides by k itself."""
    out = SMALL.group_by("q", maintain_order=True).agg(lp.precision("t", "s", k=k, ties=ties))
    assert out["precision"].to_list() == [2 / float(k), 1 / float(k)]


@pytest.mark.parametrize("k", [10**8, 10**18, 2**70], ids=str)
@pytest.mark.parametrize(
    "name", ["ndcg", "dcg", "rr", "map", "recall", "hit_rate", "top_k_accuracy"]
)
def test_huge_k_evaluate(name: str, k: int) -> None:
    frame = SMALL.with_columns(pl.col("t").cast(pl.Float64))
    if name == "top_k_accuracy":
        frame = frame.with_columns((pl.col("t") == 3).cast(pl.Float64))
    whole = lp.evaluate(frame, [f"{name}@3"], by="q", y_true="t", y_score="s")
    huge = lp.evaluate(frame, [f"{name}@{k}"], by="q", y_true="t", y_score="s")
    assert huge[f"{name}@{k}"].to_list() == whole[f"{name}@3"].to_list()
