"""Hand cases for the metric expressions, written as arithmetic.

Every value goes through every path of the ``paths`` fixture (eager, lazy and
streaming ``group_by``, ``.over``, ``select`` on each group alone, and
``lp.evaluate`` where the options have an evaluate name).  Then: option
validation at build time, the groups each metric refuses (null, and named by
``lp.evaluate(strict=True)``), and ``lp.evaluate``'s own errors.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from math import inf, log, log2, nan
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars import InvalidParameterError, RefusedGroupError


def d(position: int) -> float:
    """The base-2 discount of a 0-based position."""
    return 1 / log2(position + 2)


# the seed rows
REL_3210 = [3, 2, 1, 0]
TIED_4 = [0.5] * 4
IDEAL_3210 = 3 * d(0) + 2 * d(1) + 1 * d(2)
TIED_DCG_3210 = (3 + 2 + 1 + 0) / 4 * (d(0) + d(1) + d(2) + d(3))
REVERSED_DCG_3210 = 0 * d(0) + 1 * d(1) + 2 * d(2) + 3 * d(3)  # later row first
# scikit-learn's docstring rows
TR = [10, 0, 0, 1, 5]
TR_SCORE = [0.1, 0.2, 0.3, 4, 70]
TR_TIED = [1, 0, 0, 0, 1]

CASES = [
    # ---------------------------------------------------------------- dcg
    pytest.param(lp.dcg, {}, [REL_3210], [TIED_4], [TIED_DCG_3210], id="dcg-seed-tied"),
    pytest.param(
        lp.dcg,
        {"ignore_ties": True},
        [REL_3210],
        [TIED_4],
        [REVERSED_DCG_3210],
        id="dcg-seed-tied-ignore_ties",
    ),
    pytest.param(lp.dcg, {}, [REL_3210], [[4, 3, 2, 1]], [IDEAL_3210], id="dcg-perfect"),
    pytest.param(lp.dcg, {"k": 4}, [REL_3210], [[4, 3, 2, 1]], [IDEAL_3210], id="dcg-k-is-n"),
    pytest.param(lp.dcg, {"k": 10}, [REL_3210], [[4, 3, 2, 1]], [IDEAL_3210], id="dcg-k-past-end"),
    pytest.param(
        lp.dcg, {"k": 10}, [REL_3210], [TIED_4], [TIED_DCG_3210], id="dcg-k-past-end-tied"
    ),
    pytest.param(
        lp.dcg,
        {"k": 2},
        [REL_3210],
        [[1, 0.5, 0.5, 0]],
        [3 * d(0) + (2 + 1) / 2 * d(1)],
        id="dcg-k-straddles-tie",
    ),
    pytest.param(
        lp.dcg,
        {"k": 2},
        [[1, 2, 3, 4]],
        [[0.5, 0.5, 0.5, 1]],
        [4 * d(0) + (1 + 2 + 3) / 3 * d(1)],
        id="dcg-k-straddles-tie-of-3",
    ),
    pytest.param(lp.dcg, {"k": 1}, [REL_3210], [TIED_4], [6 / 4 * d(0)], id="dcg-k1-all-tied"),
    pytest.param(
        lp.dcg,
        {"log_base": 10},
        [REL_3210],
        [[4, 3, 2, 1]],
        [3 / (log(2) / log(10)) + 2 / (log(3) / log(10)) + 1 / (log(4) / log(10))],
        id="dcg-log_base-10",
    ),
    pytest.param(
        lp.dcg,
        {"log_base": 0.5},
        [REL_3210],
        [[4, 3, 2, 1]],
        [-IDEAL_3210],
        id="dcg-log_base-half-negative",
    ),
    pytest.param(
        lp.dcg, {"log_base": 1}, [REL_3210], [[4, 3, 2, 1]], [0.0], id="dcg-log_base-1-zero"
    ),
    pytest.param(
        lp.dcg, {"log_base": True}, [REL_3210], [[4, 3, 2, 1]], [0.0], id="dcg-log_base-true"
    ),
    pytest.param(lp.dcg, {"k": True}, [REL_3210], [[4, 3, 2, 1]], [3.0], id="dcg-k-true"),
    pytest.param(
        lp.dcg,
        {"k": np.int64(2)},
        [REL_3210],
        [[4, 3, 2, 1]],
        [3 + 2 * d(1)],
        id="dcg-k-numpy-int",
    ),
    pytest.param(lp.dcg, {}, [[-1, 2]], [[1, 2]], [2 * d(0) - 1 * d(1)], id="dcg-negative-gain"),
    pytest.param(
        lp.dcg, {}, [[True, False, True]], [[0.3, 0.2, 0.1]], [d(0) + d(2)], id="dcg-bool-gain"
    ),
    pytest.param(
        lp.dcg,
        {},
        [[0.5, 1.5]],
        [[0, -0.0]],
        [(0.5 + 1.5) / 2 * (d(0) + d(1))],
        id="dcg-minus-zero-ties-zero",
    ),
    pytest.param(
        lp.dcg,
        {},
        [TR, TR],
        [TR_SCORE, TR_TIED],
        [
            5 * d(0) + 1 * d(1) + 10 * d(4),
            (10 + 5) / 2 * (d(0) + d(1)) + 1 / 3 * (d(2) + d(3) + d(4)),
        ],
        id="dcg-docstring",
    ),
    pytest.param(lp.dcg, {"k": 2}, [TR], [TR_SCORE], [5 * d(0) + 1 * d(1)], id="dcg-docstring-k2"),
    pytest.param(lp.dcg, {"k": 1}, [TR], [TR_TIED], [7.5], id="dcg-docstring-tied-k1"),
    pytest.param(
        lp.dcg,
        {"k": 1, "ignore_ties": True},
        [TR],
        [TR_TIED],
        [5.0],
        id="dcg-docstring-tied-k1-ignore_ties-later-row-first",
    ),
    pytest.param(
        lp.dcg,
        {},
        [[0, 0, 0], [1, 2], [4, 0]],
        [[0.3, 0.2, 0.1], [1, 2], [0.5, 0.1]],
        [0.0, 2 + d(1), 4.0],
        id="dcg-three-groups",
    ),
    # ---------------------------------------------------------------- ndcg
    pytest.param(
        lp.ndcg, {}, [REL_3210], [TIED_4], [TIED_DCG_3210 / IDEAL_3210], id="ndcg-seed-tied"
    ),
    pytest.param(
        lp.ndcg,
        {"ignore_ties": True},
        [REL_3210],
        [TIED_4],
        [REVERSED_DCG_3210 / IDEAL_3210],
        id="ndcg-seed-tied-ignore_ties",
    ),
    pytest.param(lp.ndcg, {}, [REL_3210], [[4, 3, 2, 1]], [1.0], id="ndcg-perfect"),
    pytest.param(
        lp.ndcg,
        {"k": 2},
        [REL_3210],
        [[1, 0.5, 0.5, 0]],
        [(3 + 1.5 * d(1)) / (3 + 2 * d(1))],
        id="ndcg-k-straddles-tie",
    ),
    pytest.param(
        lp.ndcg, {"k": 1}, [[1, 3, 2]], [[0.9, 0.1, 0.5]], [1 / 3], id="ndcg-k1-top-over-best"
    ),
    pytest.param(
        lp.ndcg,
        {"k": 9},
        [REL_3210],
        [TIED_4],
        [TIED_DCG_3210 / IDEAL_3210],
        id="ndcg-k-past-end",
    ),
    pytest.param(
        lp.ndcg,
        {},
        [[0, 0], [1, 0]],
        [[0.2, 0.1], [0.1, 0.2]],
        [0.0, d(1)],
        id="ndcg-all-irrelevant-group-is-zero",
    ),
    pytest.param(
        lp.ndcg, {}, [[-0.0, 1.0]], [[0.1, 0.9]], [1.0], id="ndcg-minus-zero-is-not-negative"
    ),
    pytest.param(
        lp.ndcg,
        {"ignore_ties": True},
        [[0, 0, 0]],
        [[0.5, 0.5, 0.1]],
        [0.0],
        id="ndcg-all-irrelevant-ignore_ties",
    ),
    pytest.param(
        lp.ndcg,
        {},
        [TR],
        [TR_SCORE],
        [(5 + d(1) + 10 * d(4)) / (10 + 5 * d(1) + d(2))],
        id="ndcg-docstring",
    ),
    # ---------------------------------------------------------------- reciprocal_rank
    pytest.param(lp.reciprocal_rank, {}, [[0, 1, 0]], [[0.9, 0.8, 0.1]], [1 / 2], id="rr-untied"),
    pytest.param(
        lp.reciprocal_rank,
        {},
        [[1, 0, 0]],
        [[0.5, 0.5, 0.2]],
        [(1 + 1 / 2) / 2],
        id="rr-tie-expectation",
    ),
    pytest.param(
        lp.reciprocal_rank,
        {"ignore_ties": True},
        [[1, 0, 0]],
        [[0.5, 0.5, 0.2]],
        [1 / 2],
        id="rr-tie-ignore_ties-later-row-first",
    ),
    pytest.param(
        lp.reciprocal_rank,
        {},
        [REL_3210],
        [TIED_4],
        [3 / 4 * 1 + 1 / 4 * 1 / 2],
        id="rr-seed-tied",
    ),
    pytest.param(
        lp.reciprocal_rank,
        {"k": 2},
        [[0, 1, 0]],
        [[0.9, 0.5, 0.5]],
        [1 / 2 * 1 / 2],
        id="rr-k-cuts-tie-group",
    ),
    pytest.param(
        lp.reciprocal_rank, {"k": 1}, [[0, 1, 0]], [[0.9, 0.5, 0.5]], [0.0], id="rr-k-before-tie"
    ),
    pytest.param(
        # a block of 4 (positions 2..5) holding 2 relevant rows: first one at offset j
        # with chance C(3-j, 1)/C(4, 2)
        lp.reciprocal_rank,
        {},
        [[0, 1, 1, 0, 0]],
        [[0.9, 0.5, 0.5, 0.5, 0.5]],
        [3 / 6 * 1 / 2 + 2 / 6 * 1 / 3 + 1 / 6 * 1 / 4],
        id="rr-block-of-4-with-2-relevant",
    ),
    pytest.param(
        lp.reciprocal_rank,
        {"k": 3},
        [[0, 1, 1, 0, 0]],
        [[0.9, 0.5, 0.5, 0.5, 0.5]],
        [3 / 6 * 1 / 2 + 2 / 6 * 1 / 3],
        id="rr-block-of-4-cut-at-3",
    ),
    pytest.param(
        lp.reciprocal_rank,
        {"k": 100},
        [[0, 1, 0]],
        [[0.9, 0.8, 0.1]],
        [1 / 2],
        id="rr-k-past-end",
    ),
    pytest.param(
        lp.reciprocal_rank, {}, [[0, 0, 0]], [[0.9, 0.8, 0.1]], [0.0], id="rr-nothing-relevant"
    ),
    pytest.param(
        lp.reciprocal_rank, {}, [[-1, 2]], [[0.9, 0.1]], [1 / 2], id="rr-negative-not-relevant"
    ),
    pytest.param(
        lp.reciprocal_rank, {}, [[1], [0]], [[0.3], [0.3]], [1.0, 0.0], id="rr-single-row"
    ),
    pytest.param(
        lp.reciprocal_rank,
        {},
        [[0, 1, 0, 0], [0, 0, 0, 1]],
        [[0.5, 0.5, 0.5, 0.5], [4, 3, 2, 1]],
        [(1 + 1 / 2 + 1 / 3 + 1 / 4) / 4, 1 / 4],
        id="rr-two-groups",
    ),
    # ---------------------------------------------------------------- top_k_accuracy
    pytest.param(
        lp.top_k_accuracy,
        {"k": 1},
        [[0, 0, 1], [0, 1, 0], [1, 0, 0]],
        [[0.5] * 3] * 3,
        [1.0, 0.0, 0.0],
        id="topk-tie-k1-last-class-wins",
    ),
    pytest.param(
        lp.top_k_accuracy,
        {"k": 2},
        [[0, 0, 1], [0, 1, 0], [1, 0, 0]],
        [[0.5] * 3] * 3,
        [1.0, 1.0, 0.0],
        id="topk-tie-k2",
    ),
    pytest.param(
        lp.top_k_accuracy,
        {},
        [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1]],
        [[0.5, 0.2, 0.2], [0.3, 0.4, 0.2], [0.2, 0.4, 0.3], [0.7, 0.2, 0.1]],
        [1.0, 1.0, 1.0, 0.0],
        id="topk-docstring-default-k2",
    ),
    pytest.param(
        lp.top_k_accuracy,
        {"k": 5},
        [[1, 0, 0]],
        [[0.1, 0.5, 0.9]],
        [1.0],
        id="topk-k-past-end",
    ),
    pytest.param(
        lp.top_k_accuracy, {"k": 1}, [[True, False]], [[0.9, 0.1]], [1.0], id="topk-bool-truth"
    ),
    # ---------------------------------------------------------------- average_precision
    pytest.param(
        lp.average_precision,
        {},
        [[0, 0, 1, 1]],
        [[0.1, 0.4, 0.35, 0.8]],
        [1 / 2 * 1 + 1 / 2 * 2 / 3],
        id="ap-docstring",
    ),
    pytest.param(lp.average_precision, {}, [[0, 1]], [[0.5, 0.5]], [1 / 2], id="ap-all-tied"),
    pytest.param(
        lp.average_precision, {}, [[0, 1, 1]], [[0.5] * 3], [2 / 3], id="ap-all-tied-prevalence"
    ),
    pytest.param(
        lp.average_precision,
        {},
        [[1, 0, 1]],
        [[0.5, 0.5, 0.1]],
        [1 / 2 * 1 / 2 + 1 / 2 * 2 / 3],
        id="ap-tie-is-one-step",
    ),
    pytest.param(
        lp.average_precision,
        {},
        [[0, 0, 0], [1, 1], [1]],
        [[0.3, 0.2, 0.1], [0.1, 0.2], [0.5]],
        [0.0, 1.0, 1.0],
        id="ap-no-positive-all-positive-single",
    ),
    # ---------------------------------------------------------------- coverage_error
    pytest.param(
        lp.coverage_error,
        {},
        [[1, 0, 0], [0, 0, 1]],
        [[0.75, 0.5, 1], [1, 0.2, 0.1]],
        [2.0, 3.0],
        id="coverage-seed-2.5",
    ),
    pytest.param(
        lp.coverage_error,
        {},
        [[0, 0, 0], [1, 0, 0]],
        [[0.7, 0.2, 0.1]] * 2,
        [0.0, 1.0],
        id="coverage-seed-0.5",
    ),
    pytest.param(
        lp.coverage_error,
        {},
        [[1, 1, 1], [1, 0, 0], [0, 1]],
        [[0.1, 0.2, 0.3], [0.5] * 3, [0.5] * 2],
        [3.0, 3.0, 2.0],
        id="coverage-all-relevant-and-ties",
    ),
    # ---------------------------------------------------------------- label_ranking_loss
    pytest.param(
        lp.label_ranking_loss,
        {},
        [[1, 0, 0], [0, 0, 1]],
        [[0.75, 0.5, 1], [1, 0.2, 0.1]],
        [1 / 2, 2 / 2],
        id="lrl-docstring",
    ),
    pytest.param(
        lp.label_ranking_loss,
        {},
        [[1, 0, 0], [1, 1, 0, 0]],
        [[0.5] * 3, [0.2] * 4],
        [1.0, 1.0],
        id="lrl-all-tied-is-one",
    ),
    pytest.param(
        lp.label_ranking_loss,
        {},
        [[1, 0, 1, 0]],
        [[0.5, 0.5, 0.9, 0.1]],
        [1 / 4],
        id="lrl-tie-counts-as-misordered",
    ),
    pytest.param(
        lp.label_ranking_loss,
        {},
        [[1, 1], [0, 0, 0]],
        [[0.1, 0.2], [0.3, 0.2, 0.1]],
        [0.0, 0.0],
        id="lrl-all-or-none-relevant",
    ),
    # ---------------------------------------------------------------- lrap
    pytest.param(
        lp.label_ranking_average_precision,
        {},
        [[1, 0, 0], [0, 0, 1]],
        [[0.75, 0.5, 1], [1, 0.2, 0.1]],
        [1 / 2, 1 / 3],
        id="lrap-docstring",
    ),
    pytest.param(
        lp.label_ranking_average_precision,
        {},
        [[1, 0, 0], [1, 1, 0]],
        [[0.5] * 3] * 2,
        [1 / 3, 2 / 3],
        id="lrap-ties-pessimistic",
    ),
    pytest.param(
        lp.label_ranking_average_precision,
        {},
        [[0, 0], [1, 1], [1]],
        [[0.1, 0.2], [0.1, 0.2], [0.4]],
        [1.0, 1.0, 1.0],
        id="lrap-none-or-all-relevant-is-one",
    ),
]


@pytest.mark.parametrize(("metric", "options", "rows_true", "rows_score", "expected"), CASES)
def test_hand_case(
    paths: Any,
    metric: Any,
    options: dict[str, Any],
    rows_true: list[list[Any]],
    rows_score: list[list[Any]],
    expected: list[float],
) -> None:
    """Each hand case gives its arithmetic value on every path."""
    frame = paths.long_frame(rows_true, rows_score)
    paths.assert_paths(frame, metric, expected, **options)


# scikit-learn's own numbers for the seed rows (shared/reference/sklearn-semantics.md, S1-S15)
SEEDS = [
    pytest.param(lp.dcg, {}, [REL_3210], [TIED_4], [3.8424094674672755], id="S1"),
    pytest.param(
        lp.dcg, {"ignore_ties": True}, [REL_3210], [TIED_4], [2.9229594277916364], id="S2"
    ),
    pytest.param(lp.ndcg, {}, [REL_3210], [TIED_4], [0.8069136566720543], id="S3"),
    pytest.param(
        lp.ndcg, {"ignore_ties": True}, [REL_3210], [TIED_4], [0.6138273133441086], id="S4"
    ),
    pytest.param(lp.dcg, {}, [REL_3210], [[4, 3, 2, 1]], [4.761859507142915], id="S5"),
    pytest.param(lp.dcg, {}, [[7, 3, 1, 0]], [[4, 3, 2, 1]], [9.392789260714371], id="S6"),
    pytest.param(
        lp.average_precision,
        {},
        [[0, 0, 1, 1]],
        [[0.1, 0.4, 0.35, 0.8]],
        [0.8333333333333333],
        id="S9",
    ),
    pytest.param(lp.average_precision, {}, [[0, 1]], [[0.5, 0.5]], [0.5], id="S11"),
    pytest.param(lp.label_ranking_average_precision, {}, [[0, 1]], [[0.5, 0.5]], [0.5], id="S14"),
    pytest.param(lp.label_ranking_loss, {}, [[0, 1, 1]], [[0.3] * 3], [1.0], id="S15"),
]


@pytest.mark.parametrize(("metric", "options", "rows_true", "rows_score", "expected"), SEEDS)
def test_seed_numbers(
    paths: Any,
    metric: Any,
    options: dict[str, Any],
    rows_true: list[list[Any]],
    rows_score: list[list[Any]],
    expected: list[float],
) -> None:
    """scikit-learn's printed numbers for the seed rows, on every path."""
    paths.assert_paths(paths.long_frame(rows_true, rows_score), metric, expected, **options)


@pytest.mark.parametrize(
    ("rows_true", "rows_score", "expected"),
    [
        pytest.param([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]], 2.5, id="S7"),
        pytest.param([[0, 0, 0], [1, 0, 0]], [[0.7, 0.2, 0.1]] * 2, 0.5, id="S8"),
    ],
)
def test_seed_coverage_means(
    paths: Any, rows_true: list[list[int]], rows_score: list[list[float]], expected: float
) -> None:
    """The seed's coverage means (2.5 and 0.5) through ``lp.evaluate(mean=True)``."""
    frame = paths.long_frame(rows_true, rows_score)
    out = lp.evaluate(
        frame, ["coverage_error"], by="query", y_true="y_true", y_score="y_score", mean=True
    )
    assert out.item() == expected


def test_expressions_take_expressions(paths: Any) -> None:
    """Columns may be given as expressions, and the output keeps the metric's name."""
    frame = paths.long_frame([REL_3210], [TIED_4]).with_columns(pl.col("y_score") * 2)
    out = frame.group_by("query").agg(
        lp.dcg(pl.col("y_true") * 1, pl.col("y_score") - 1),
        lp.ndcg(pl.col("y_true"), "y_score"),
    )
    assert out.columns == ["query", "dcg", "ndcg"]
    assert out.row(0) == pytest.approx((0, TIED_DCG_3210, TIED_DCG_3210 / IDEAL_3210), rel=1e-12)


@pytest.mark.parametrize("metric", [lp.dcg, lp.ndcg, lp.reciprocal_rank, lp.top_k_accuracy])
def test_numeric_dtypes_agree(paths: Any, metric: Any) -> None:
    """Relevance and scores of any numeric dtype give the same value as Float64."""
    base = paths.long_frame([[1, 0, 0], [0, 0, 1]], [[3, 1, 2], [2, 2, 1]])
    want = paths.run_path("group_by", base, metric)
    for t_dtype, s_dtype in [(pl.Int8, pl.Int32), (pl.UInt16, pl.Float32), (pl.Boolean, pl.UInt8)]:
        cast = base.with_columns(pl.col("y_true").cast(t_dtype), pl.col("y_score").cast(s_dtype))
        paths.assert_paths(cast, metric, want)


# --------------------------------------------------------------------------- option validation

K_RULE = "an int in the range [1, inf) or None"
K_RULE_TOPK = "an int in the range [1, inf)"
LOG_BASE_RULE = "a float in the range (0.0, inf)"
BOOL_RULE = "an instance of 'bool' or an instance of 'numpy.bool'"

OPTION_ERRORS: list[tuple[Any, dict[str, Any], str]] = [
    (lp.dcg, {"k": 0}, f"The 'k' parameter of dcg must be {K_RULE}. Got 0 instead."),
    (lp.dcg, {"k": -1}, f"The 'k' parameter of dcg must be {K_RULE}. Got -1 instead."),
    (lp.dcg, {"k": 2.0}, f"The 'k' parameter of dcg must be {K_RULE}. Got 2.0 instead."),
    (lp.dcg, {"k": "3"}, f"The 'k' parameter of dcg must be {K_RULE}. Got '3' instead."),
    (lp.dcg, {"k": False}, f"The 'k' parameter of dcg must be {K_RULE}. Got False instead."),
    (lp.ndcg, {"k": 0}, f"The 'k' parameter of ndcg must be {K_RULE}. Got 0 instead."),
    (lp.ndcg, {"k": 2.0}, f"The 'k' parameter of ndcg must be {K_RULE}. Got 2.0 instead."),
    (
        lp.reciprocal_rank,
        {"k": 0},
        f"The 'k' parameter of reciprocal_rank must be {K_RULE}. Got 0 instead.",
    ),
    (
        lp.reciprocal_rank,
        {"k": 1.5},
        f"The 'k' parameter of reciprocal_rank must be {K_RULE}. Got 1.5 instead.",
    ),
    (
        lp.top_k_accuracy,
        {"k": 0},
        f"The 'k' parameter of top_k_accuracy must be {K_RULE_TOPK}. Got 0 instead.",
    ),
    (
        lp.top_k_accuracy,
        {"k": 2.0},
        f"The 'k' parameter of top_k_accuracy must be {K_RULE_TOPK}. Got 2.0 instead.",
    ),
    (
        lp.top_k_accuracy,
        {"k": None},
        f"The 'k' parameter of top_k_accuracy must be {K_RULE_TOPK}. Got None instead.",
    ),
    *(
        (
            lp.dcg,
            {"log_base": value},
            f"The 'log_base' parameter of dcg must be {LOG_BASE_RULE}. Got {text} instead.",
        )
        for value, text in [
            (0, "0"),
            (-1, "-1"),
            (0.0, "0.0"),
            (nan, "nan"),
            (inf, "inf"),
            (-inf, "-inf"),
            (None, "None"),
            ("2", "'2'"),
        ]
    ),
    *(
        (
            metric,
            {"ignore_ties": value},
            f"The 'ignore_ties' parameter of {metric.__name__} must be {BOOL_RULE}. "
            f"Got {value!r} instead.",
        )
        for metric in (lp.dcg, lp.ndcg, lp.reciprocal_rank)
        for value in (1, 0, "yes", None)
    ),
]


@pytest.mark.parametrize(
    ("metric", "options", "msg"),
    [
        pytest.param(m, o, msg, id=f"{m.__name__}-{'-'.join(f'{k}={v!r}' for k, v in o.items())}")
        for m, o, msg in OPTION_ERRORS
    ],
)
def test_option_errors_at_build_time(metric: Any, options: dict[str, Any], msg: str) -> None:
    """Bad options fail when the expression is built, before any frame is seen."""
    with pytest.raises(InvalidParameterError, match=f"^{re.escape(msg)}$"):
        metric("y_true", "y_score", **options)


@pytest.mark.parametrize(
    ("metric", "options"),
    [
        (lp.dcg, {"k": True, "log_base": True, "ignore_ties": np.bool_(True)}),
        (lp.dcg, {"k": np.int32(3), "log_base": np.float64(10.0)}),
        (lp.ndcg, {"k": np.uint8(1), "ignore_ties": np.False_}),
        (lp.reciprocal_rank, {"k": 10**12}),
        (lp.top_k_accuracy, {"k": np.int64(1)}),
    ],
)
def test_options_accepted(metric: Any, options: dict[str, Any]) -> None:
    """scikit-learn's accepted forms: bool as int, numpy ints and floats, numpy bools."""
    assert isinstance(metric("y_true", "y_score", **options), pl.Expr)


def test_invalid_parameter_error_is_value_and_type_error() -> None:
    """Like scikit-learn's, the error is both a ValueError and a TypeError."""
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InvalidParameterError, TypeError)
    with pytest.raises(ValueError, match="'k' parameter"):
        lp.ndcg("a", "b", k=0)
    with pytest.raises(TypeError, match="'k' parameter"):
        lp.ndcg("a", "b", k=0)


def test_column_argument_must_be_name_or_expression() -> None:
    """A column is a name or an expression; anything else is a TypeError."""
    with pytest.raises(
        TypeError, match=re.escape("expected a column name or a Polars expression, got 3")
    ):
        lp.dcg(3, "y_score")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "build",
    [
        lambda m: lp.ndcg(pl.col("y_true").filter(m), pl.col("y_score").filter(m), k=3),
        lambda m: lp.dcg("y_true", pl.col("y_score").head(2)),
        lambda m: lp.expected_calibration_error(pl.col("y_true").drop_nulls(), "y_score"),
        lambda m: lp.brier_score(pl.col("y_true").filter(m), "y_score"),
        lambda m: lp.roc_auc("y_true", pl.col("y_score").slice(1)),
    ],
)
def test_an_input_that_changes_the_rows_is_refused(build: Callable[[pl.Expr], Any]) -> None:
    """A filtered or sliced input would be read against the group's row count: refused, built."""
    with pytest.raises(InvalidParameterError, match="one value per row of the group"):
        build(pl.col("y_score") < 0.5)


def test_inputs_that_keep_the_rows_or_broadcast_are_taken() -> None:
    """Arithmetic, comparisons with an aggregate, and literals keep one value per row."""
    frame = pl.DataFrame({"q": [1, 1, 1], "y": [1.0, 0.0, 2.0], "s": [0.3, 0.1, 0.2]})
    out = frame.group_by("q").agg(
        lp.ndcg(pl.col("y") * 2, pl.lit(0.0), k=2).alias("tied"),
        lp.ndcg(pl.col("y") >= pl.col("y").max(), "s").alias("best"),
    )
    # all tied at 0.0: the mean gain (2 + 0 + 4) / 3 at both positions, over the ideal 4, 2
    assert out["tied"].item() == pytest.approx((2 * d(0) + 2 * d(1)) / (4 * d(0) + 2 * d(1)))
    assert out["best"].item() == pytest.approx(d(1) / d(0))  # the relevant row is second
    # a constant probability is that probability on every row: one bin, |2/3 - 1/2|
    labels = pl.DataFrame({"q": [1, 1, 1], "y": [1, 0, 1]})
    for strategy in ("uniform", "quantile"):
        ece = lp.expected_calibration_error("y", pl.lit(0.5), strategy=strategy)
        got = labels.group_by("q").agg(ece)["expected_calibration_error"].item()
        assert got == pytest.approx(2 / 3 - 1 / 2, rel=1e-15), strategy


# --------------------------------------------------------------------------- refused groups

NON_FINITE = "Input {} contains infinity or a value too large for dtype('float64')."
ONE_DOC = "Computing NDCG is only meaningful when there is more than 1 document. Got 1 instead."
NEGATIVE = "ndcg_score should not be used on negative y_true values."
BINARY = "{} needs a binary y_true (bool, or 0 and 1). Got {} instead."
ONE_TRUE = "top_k_accuracy needs exactly one true row per group (the true class). Got {} instead."

#: a good group of each metric, and its value: relevance [1, 0], scores [0.9, 0.1]
GOOD: dict[Callable[..., pl.Expr], float] = {
    lp.dcg: 1.0,
    lp.ndcg: 1.0,
    lp.reciprocal_rank: 1.0,
    lp.top_k_accuracy: 1.0,
    lp.average_precision: 1.0,
    lp.coverage_error: 1.0,
    lp.label_ranking_loss: 0.0,
    lp.label_ranking_average_precision: 1.0,
}
BINARY_NAMES = {
    lp.top_k_accuracy: "top_k_accuracy",
    lp.average_precision: "average_precision",
    lp.coverage_error: "coverage_error",
    lp.label_ranking_loss: "label_ranking_loss",
    lp.label_ranking_average_precision: "label_ranking_average_precision",
}


def _refusals() -> list[Any]:
    out = []

    def add(metric: Any, y_true: list[Any], y_score: list[Any], msg: str, tag: str) -> None:
        out.append(pytest.param(metric, y_true, y_score, msg, id=f"{metric.__name__}-{tag}"))

    for metric in GOOD:
        add(metric, [None, 1], [0.9, 0.1], "Input y_true contains null.", "null-y_true")
        add(metric, [nan, 1], [0.9, 0.1], "Input y_true contains NaN.", "nan-y_true")
        add(metric, [1, inf], [0.9, 0.1], NON_FINITE.format("y_true"), "inf-y_true")
        add(metric, [1, -inf], [0.9, 0.1], NON_FINITE.format("y_true"), "minus-inf-y_true")
        add(metric, [1, 0], [0.9, None], "Input y_score contains null.", "null-y_score")
        add(metric, [1, 0], [nan, 0.1], "Input y_score contains NaN.", "nan-y_score")
        add(metric, [1, 0], [inf, 0.1], NON_FINITE.format("y_score"), "inf-y_score")
        add(metric, [1, 0], [0.9, -inf], NON_FINITE.format("y_score"), "minus-inf-y_score")
    for metric in (lp.dcg, lp.ndcg):
        add(metric, [1], [0.5], ONE_DOC, "one-document")
    add(lp.ndcg, [-1, 2], [0.9, 0.1], NEGATIVE, "negative-relevance")
    add(lp.ndcg, [-0.5, 0], [0.9, 0.1], NEGATIVE, "negative-fraction")
    add(lp.ndcg, [-1], [0.9], NEGATIVE, "negative-before-one-document")
    add(lp.top_k_accuracy, [0, 0, 0], [0.9, 0.5, 0.1], ONE_TRUE.format(0), "no-true-row")
    add(lp.top_k_accuracy, [1, 1, 0], [0.9, 0.5, 0.1], ONE_TRUE.format(2), "two-true-rows")
    for metric, name in BINARY_NAMES.items():
        add(metric, [2, 0], [0.9, 0.1], BINARY.format(name, "2.0"), "non-binary-2")
        add(metric, [1, -1], [0.9, 0.1], BINARY.format(name, "-1.0"), "non-binary-minus-1")
        add(metric, [0.5, 1], [0.9, 0.1], BINARY.format(name, "0.5"), "non-binary-half")
    return out


REFUSALS = _refusals()


@pytest.mark.parametrize(("metric", "bad_true", "bad_score", "msg"), REFUSALS)
def test_refused_group_is_null_and_neighbours_keep_their_value(
    paths: Any, metric: Any, bad_true: list[Any], bad_score: list[Any], msg: str
) -> None:
    """A refused group is null on every path; the good groups around it keep their value."""
    good = GOOD[metric]
    frame = paths.long_frame([[1, 0], bad_true, [1, 0]], [[0.9, 0.1], bad_score, [0.9, 0.1]])
    paths.assert_paths(frame, metric, [good, None, good])


@pytest.mark.parametrize(("metric", "bad_true", "bad_score", "msg"), REFUSALS)
@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_strict_evaluate_names_group_metric_and_sentence(
    paths: Any,
    metric: Any,
    bad_true: list[Any],
    bad_score: list[Any],
    msg: str,
    lazy: bool,  # noqa: FBT001
) -> None:
    """``strict=True`` raises naming the metric, the group key and the whole sentence."""
    frame = paths.long_frame([[1, 0], bad_true], [[0.9, 0.1], bad_score], queries=[7, 42])
    name = paths.evaluate_name(metric, {})
    expected = (
        f"metric {name!r} refused 1 group(s):\n"
        f"  query=42: {msg}\n"
        "(pass strict=False to get null for these groups instead)"
    )
    source = frame.lazy() if lazy else frame

    def run() -> pl.DataFrame:
        out = lp.evaluate(source, [name], by="query", y_true="y_true", y_score="y_score")
        return out.collect() if isinstance(out, pl.LazyFrame) else out

    with pytest.raises(RefusedGroupError, match=f"^{re.escape(expected)}$"):
        run()


def test_strict_evaluate_lists_five_groups_then_counts_the_rest(paths: Any) -> None:
    """Five refused groups are listed, the rest counted."""
    frame = paths.long_frame([[1]] * 8, [[0.5]] * 8, queries=list(range(10, 18)))
    lines = "".join(f"  query={q}: {ONE_DOC}\n" for q in range(10, 15))
    expected = (
        "metric 'ndcg@3' refused 8 group(s):\n"
        + lines
        + "  ... and 3 more\n(pass strict=False to get null for these groups instead)"
    )
    with pytest.raises(RefusedGroupError, match=f"^{re.escape(expected)}$"):
        lp.evaluate(frame, ["ndcg@3"], by="query", y_true="y_true", y_score="y_score")


def test_strict_evaluate_names_every_key_of_a_composite_group() -> None:
    """A group of several key columns is named by all of them."""
    frame = pl.DataFrame(
        {"user": ["u", "u", "v"], "day": [1, 1, 2], "rel": [1, 0, 1], "score": [0.1, 0.2, 0.3]}
    )
    expected = (
        "metric 'dcg' refused 1 group(s):\n"
        f"  user='v', day=2: {ONE_DOC}\n"
        "(pass strict=False to get null for these groups instead)"
    )
    with pytest.raises(RefusedGroupError, match=f"^{re.escape(expected)}$"):
        lp.evaluate(frame, ["dcg"], by=["user", "day"], y_true="rel", y_score="score")


def test_refused_group_error_is_a_value_error() -> None:
    """RefusedGroupError is caught by ``except ValueError``."""
    assert issubclass(RefusedGroupError, ValueError)


def test_empty_frame_is_one_refused_group() -> None:
    """``select`` on an empty frame is one group, refused: null."""
    empty = pl.DataFrame(schema={"y_true": pl.Float64, "y_score": pl.Float64})
    for metric in GOOD:
        assert empty.select(metric("y_true", "y_score")).item() is None


def test_first_broken_rule_is_reported(paths: Any) -> None:
    """A group breaking several rules is refused for the first: null before NaN before inf."""
    frame = paths.long_frame([[1, None, nan]], [[inf, 0.1, 0.2]], queries=[3])
    with pytest.raises(RefusedGroupError, match=re.escape("query=3: Input y_true contains null.")):
        lp.evaluate(frame, ["rr"], by="query", y_true="y_true", y_score="y_score")


# --------------------------------------------------------------------------- non-numeric columns


@pytest.mark.parametrize("metric", list(GOOD))
@pytest.mark.parametrize("column", ["rel", "score"])
def test_string_column_fails_naming_it(metric: Any, column: str) -> None:
    """A string column fails when the query is planned, naming the column."""
    frame = pl.DataFrame({"q": [1, 1], "rel": [1, 0], "score": [0.9, 0.1]}).with_columns(
        pl.col(column).cast(pl.String)
    )
    expr = metric("rel", "score")
    with pytest.raises(pl.exceptions.PolarsError, match=f"column '{column}'"):
        frame.group_by("q").agg(expr)
    with pytest.raises(pl.exceptions.PolarsError, match=f"column '{column}'"):
        frame.lazy().select(expr).collect()
    role = {"rel": "y_true", "score": "y_score"}[column]
    msg = f"`{role}` column '{column}' must be numeric or boolean, found dtype String"
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        lp.evaluate(frame, ["dcg"], by="q", y_true="rel", y_score="score")


# --------------------------------------------------------------------------- lp.evaluate itself


def _log() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "query": ["q1", "q1", "q1", "q2", "q2", "q2"],
            "rel": [3, 0, 1, 0, 0, 2],
            "score": [0.9, 0.8, 0.1, 0.7, 0.7, 0.3],
            "w": [1.0, 1.0, 1.0, 3.0, 3.0, 3.0],
        }
    )


def test_evaluate_lazy_returns_lazy_and_matches_eager() -> None:
    """A LazyFrame gives a LazyFrame with the eager result's schema and values."""
    kwargs: dict[str, Any] = {"by": "query", "y_true": "rel", "y_score": "score", "weight": "w"}
    names = ["ndcg@2", "rr", "dcg", "mrr@1"]
    out = lp.evaluate(_log().lazy(), names, **kwargs)
    assert isinstance(out, pl.LazyFrame)
    eager = lp.evaluate(_log(), names, **kwargs)
    assert isinstance(eager, pl.DataFrame)
    assert out.collect_schema() == eager.schema
    assert out.collect().equals(eager)
    assert eager.columns == ["query", "w", *names]
    assert eager["rr"].to_list() == [1.0, 1 / 3]
    assert eager["mrr@1"].to_list() == [1.0, 0.0]
    means = lp.evaluate(_log().lazy(), names, mean=True, **kwargs)
    assert isinstance(means, pl.LazyFrame)
    assert means.collect()["rr"].item() == pytest.approx((1 * 1.0 + 3 * (1 / 3)) / 4, rel=1e-15)


def test_evaluate_lazy_raises_at_collect_not_before() -> None:
    """On a LazyFrame a refused group raises when the result is collected."""
    bad = _log().with_columns(pl.col("rel") * 2)  # AP needs a binary y_true
    lazy = lp.evaluate(bad.lazy(), ["ap"], by="query", y_true="rel", y_score="score")
    assert isinstance(lazy, pl.LazyFrame)
    with pytest.raises(RefusedGroupError, match=re.escape("metric 'ap' refused 2 group(s)")):
        lazy.collect()


def test_evaluate_strict_false_gives_null() -> None:
    """``strict=False`` gives null for the refused groups."""
    out = lp.evaluate(_log(), ["ap", "rr"], by="query", y_true="rel", y_score="score", strict=False)
    assert out["ap"].to_list() == [None, None]
    assert out["rr"].to_list() == [1.0, 1 / 3]


def test_evaluate_mean_leaves_out_refused_groups() -> None:
    """``mean=True`` averages the scored groups only."""
    frame = pl.DataFrame(
        {"query": [1, 1, 2, 3, 3], "rel": [1, 0, 1, 0, 1], "score": [0.9, 0.1, 0.5, 0.9, 0.1]}
    )
    out = lp.evaluate(
        frame, ["ndcg"], by="query", y_true="rel", y_score="score", strict=False, mean=True
    )
    assert out["ndcg"].item() == pytest.approx((1.0 + d(1)) / 2, rel=1e-12)


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_evaluate_weight_varying_within_a_group_raises(lazy: bool) -> None:  # noqa: FBT001
    """The weight is per group: one that varies inside a group raises."""
    frame = _log().with_columns(w=pl.Series([1.0, 1.0, 1.0, 3.0, 2.0, 3.0]))
    msg = (
        "`weight` column 'w' must hold one non-null value per group; group query='q2' "
        "has several, or a null"
    )

    def run() -> pl.DataFrame:
        source = frame.lazy() if lazy else frame
        out = lp.evaluate(source, ["rr"], by="query", y_true="rel", y_score="score", weight="w")
        return out.collect() if isinstance(out, pl.LazyFrame) else out

    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        run()


def test_evaluate_null_weight_raises() -> None:
    """A null weight is not a weight: it raises rather than dropping its group from the mean."""
    frame = _log().with_columns(
        w=pl.when(pl.col("query") == "q1").then(None).otherwise(1.0).cast(pl.Float64)
    )
    with pytest.raises(ValueError, match=r"group query='q1' has several, or a null$"):
        lp.evaluate(frame, ["rr"], by="query", y_true="rel", y_score="score", weight="w", mean=True)


def test_evaluate_weights_summing_to_zero_raise() -> None:
    """Weights summing to zero raise scikit-learn's ZeroDivisionError."""
    frame = _log().with_columns(w=pl.when(pl.col("query") == "q1").then(1.0).otherwise(-1.0))
    msg = "metric 'rr': Weights sum to zero, can't be normalized"
    with pytest.raises(ZeroDivisionError, match=f"^{re.escape(msg)}$"):
        lp.evaluate(frame, ["rr"], by="query", y_true="rel", y_score="score", weight="w", mean=True)


@pytest.mark.parametrize(
    ("name", "msg"),
    [
        (
            "foo",
            "unknown metric 'foo': expected a name among ['AP', 'AvgRecPopularity', 'Bpref', "
            "'ERR', 'IPrec', 'IntraListDiversity', 'Judged', 'MeanInvUserFreq', 'P', 'R', "
            "'RBP', 'RR', 'Rprec', 'Serendipity', 'Success', 'ap', 'arp', 'auc', "
            "'average_precision', 'average_precision_at_k', "
            "'average_precision_score', 'average_recommended_popularity', 'bpref', 'brier', "
            "'brier_score', 'brier_score_loss', "
            "'coverage_error', 'dcg', 'dcg_burges', 'dcg_score', 'ece', 'ece_quantile', 'err', "
            "'expected_calibration_error', 'expected_calibration_error_quantile', "
            "'hit_rate', 'ild', 'infAP', 'inferred_average_precision', 'interpolated_precision', "
            "'intra_list_diversity', 'iprec_at_recall', 'judged', "
            "'label_ranking_average_precision', "
            "'label_ranking_average_precision_score', 'label_ranking_loss', 'log_loss', 'lrap', "
            "'map', 'map_cut', 'mrr', 'nDCG', 'ndcg', 'ndcg_burges', 'ndcg_cut', 'ndcg_score', "
            "'novelty', 'precision', 'r-precision', 'r_precision', 'rbp', 'recall', "
            "'recip_rank', 'reciprocal_rank', 'roc_auc', 'roc_auc_score', 'rr', 'serendipity', "
            "'success', 'top_k_accuracy', 'top_k_accuracy_score'], optionally followed by @k "
            "for a cutoff (e.g. 'ndcg@10'), or a trec_eval name with its cutoff after a dot "
            "(e.g. 'P.10', 'ndcg_cut.10')",
        ),
        ("ndcg@", "unknown metric 'ndcg@'"),
        ("ndcg@2.5", "unknown metric 'ndcg@2.5'"),
        ("ndcg@-1", "unknown metric 'ndcg@-1'"),
        ("@3", "unknown metric '@3'"),
        ("ap@3", "metric 'ap@3': average_precision takes no cutoff, write it without '@3'"),
        ("lrap@1", "metric 'lrap@1': label_ranking_average_precision takes no cutoff"),
        (
            "ndcg@0",
            "The 'k' parameter of ndcg must be an int in the range [1, inf) or None. "
            "Got 0 instead.",
        ),
    ],
)
def test_evaluate_bad_metric_names(name: str, msg: str) -> None:
    """Unknown names, bad cutoffs and cutoffs on metrics without one raise."""
    with pytest.raises(InvalidParameterError, match=f"^{re.escape(msg)}"):
        lp.evaluate(_log(), [name], by="query", y_true="rel", y_score="score")


@pytest.mark.parametrize(
    ("kwargs", "error", "msg"),
    [
        (
            {"by": "nope"},
            ValueError,
            "`by[0]` column 'nope' is not in the frame (columns: ['query', 'rel', 'score', 'w'])",
        ),
        ({"y_true": "nope"}, ValueError, "`y_true` column 'nope' is not in the frame"),
        ({"weight": "nope"}, ValueError, "`weight` column 'nope' is not in the frame"),
        ({"by": []}, ValueError, "`by` must name at least one column"),
        ({"metrics": []}, ValueError, "`metrics` must name at least one metric"),
        ({"metrics": ["rr", "rr"]}, ValueError, "`metrics` names a metric twice: ['rr', 'rr']"),
    ],
)
def test_evaluate_argument_errors(kwargs: dict[str, Any], error: type, msg: str) -> None:
    """Missing columns, empty ``by``/``metrics`` and repeated metrics raise."""
    call = {"metrics": ["rr"], "by": "query", "y_true": "rel", "y_score": "score", **kwargs}
    metrics = call.pop("metrics")
    with pytest.raises(error, match=f"^{re.escape(msg)}"):
        lp.evaluate(_log(), metrics, **call)


def test_evaluate_rejects_non_frames() -> None:
    """Only a polars DataFrame or LazyFrame (or Arrow data) is evaluated."""
    msg = (
        "`frame` must be a polars DataFrame or LazyFrame, or a pyarrow Table, RecordBatch, "
        "RecordBatchReader or Dataset, got dict"
    )
    with pytest.raises(TypeError, match=f"^{re.escape(msg)}$"):
        lp.evaluate({"a": [1]}, ["rr"], by="a", y_true="a", y_score="a")  # type: ignore[call-overload]


def test_evaluate_aliases_and_single_name() -> None:
    """Aliases give the canonical metric; a single name may be a plain string."""
    frame = _log()
    for alias, canonical in [
        ("rr", "reciprocal_rank"),
        ("mrr", "reciprocal_rank"),
        ("recip_rank", "reciprocal_rank"),
    ]:
        a = lp.evaluate(frame, [alias], by="query", y_true="rel", y_score="score", strict=False)
        b = lp.evaluate(frame, [canonical], by="query", y_true="rel", y_score="score", strict=False)
        assert a[alias].to_list() == b[canonical].to_list()
    single = lp.evaluate(frame, "rr", by="query", y_true="rel", y_score="score")
    assert single.columns == ["query", "rr"]


# The DCG reads only the rows scoring at least the k-th highest score, and the ideal adds
# its first k sorted gains term by term when k <= 32: cases at those edges.
STRADDLE_REL = [1, 4, 0, 2, 0, 9]
STRADDLE_SCORE = [5, 3, 3, 3, 3, 1]  # a block of four at positions 1-4, cut at k = 2
FORTY_REL = [i % 4 for i in range(40)]
FORTY_SCORE = [float(i) for i in range(40)]  # ranked in reverse row order


def _ndcg_forty(k: int) -> float:
    """NDCG@k of the forty rows, by hand: the rows in reverse order over the gains sorted."""
    dcg = sum(FORTY_REL[39 - p] * d(p) for p in range(k))
    ideal = sum(g * d(p) for p, g in enumerate(sorted(FORTY_REL, reverse=True)[:k]))
    return dcg / ideal


TOP_K_CASES = [
    pytest.param(
        lp.dcg,
        {"k": 2},
        [STRADDLE_REL],
        [STRADDLE_SCORE],
        [1 * d(0) + (4 + 0 + 2 + 0) / 4 * d(1)],
        id="dcg-tie-block-past-k",
    ),
    pytest.param(
        lp.ndcg,
        {"k": 2},
        [STRADDLE_REL],
        [STRADDLE_SCORE],
        [(1 * d(0) + (4 + 0 + 2 + 0) / 4 * d(1)) / (9 * d(0) + 4 * d(1))],
        id="ndcg-tie-block-past-k",
    ),
    pytest.param(
        lp.ndcg,
        {"k": 1},
        [STRADDLE_REL],
        [[3, 3, 3, 3, 3, 3]],
        [(1 + 4 + 0 + 2 + 0 + 9) / 6 * d(0) / (9 * d(0))],
        id="ndcg-all-tied-k-1",
    ),
    pytest.param(
        lp.ndcg,
        {"k": 5},
        [[0, 2, 1]],
        [[0.1, 0.3, 0.2]],
        [1.0],
        id="ndcg-group-shorter-than-k",
    ),
    pytest.param(lp.ndcg, {"k": 32}, [FORTY_REL], [FORTY_SCORE], [_ndcg_forty(32)], id="k-32"),
    pytest.param(lp.ndcg, {"k": 33}, [FORTY_REL], [FORTY_SCORE], [_ndcg_forty(33)], id="k-33"),
    pytest.param(lp.ndcg, {"k": 40}, [FORTY_REL], [FORTY_SCORE], [_ndcg_forty(40)], id="k-40"),
]


@pytest.mark.parametrize(("metric", "options", "rows_true", "rows_score", "expected"), TOP_K_CASES)
def test_top_k_rows_hand_case(
    paths: Any,
    metric: Any,
    options: dict[str, Any],
    rows_true: list[list[Any]],
    rows_score: list[list[Any]],
    expected: list[float],
) -> None:
    """Tie blocks across k, groups shorter than k, k on both sides of 32: the arithmetic value."""
    frame = paths.long_frame(rows_true, rows_score)
    paths.assert_paths(frame, metric, expected, **options)


@pytest.mark.parametrize("k", [1, 3, 10, 32, 33, None])
def test_long_tied_groups_match_scikit_learn(k: int | None) -> None:
    """Groups of 150-300 rows with heavy ties: dcg_score and ndcg_score per group, to 1e-12."""
    from sklearn.metrics import dcg_score, ndcg_score

    rng = np.random.default_rng(7)
    lengths = rng.integers(150, 300, 12)
    rel = [rng.integers(0, 4, n).astype(float) for n in lengths]
    score = [rng.integers(0, 6, n).astype(float) for n in lengths]
    frame = pl.DataFrame(
        {
            "query": np.repeat(np.arange(lengths.size), lengths),
            "rel": np.concatenate(rel),
            "score": np.concatenate(score),
        }
    ).sample(fraction=1.0, shuffle=True, seed=3)
    out = frame.group_by("query").agg(
        lp.ndcg("rel", "score", k=k), lp.dcg("rel", "score", k=k, log_base=3)
    )
    got = dict(zip(out["query"], zip(out["ndcg"], out["dcg"], strict=True), strict=True))
    for q in range(lengths.size):
        rows = frame.filter(pl.col("query") == q)
        t, s = rows["rel"].to_numpy()[None, :], rows["score"].to_numpy()[None, :]
        want = (ndcg_score(t, s, k=k), dcg_score(t, s, k=k, log_base=3))
        assert got[q] == pytest.approx(want, rel=1e-12, abs=1e-12), (q, got[q], want)


def test_tie_pattern_weights_by_hand() -> None:
    """k = 3: each pattern's weights are the mean discounts of its blocks, by hand."""
    from lodestar_polars._core.dcg import tie_pattern_weights

    weights, last_above = tie_pattern_weights(3, 2.0)
    d0, d1, d2 = d(0), d(1), d(2)
    # key = bit 0 (row 1 ties row 0) + 2 * bit 1 (row 2 ties row 1) + 4 * (last block continues)
    expected = {
        0: [d0, d1, d2],
        1: [(d0 + d1) / 2, (d0 + d1) / 2, d2],
        2: [d0, (d1 + d2) / 2, (d1 + d2) / 2],
        3: [(d0 + d1 + d2) / 3] * 3,
        4: [d0, d1, 0.0],  # the last block (row 2) goes on past k: read from the group
        5: [(d0 + d1) / 2, (d0 + d1) / 2, 0.0],
        6: [d0, 0.0, 0.0],
        7: [0.0, 0.0, 0.0],
    }
    for key, want in expected.items():
        assert list(weights[:, key]) == pytest.approx(want, rel=1e-15), key
    starts = {0: 2, 1: 2, 2: 1, 3: 0}  # the last block's first row
    table = [0.0, d0, d0 + d1]
    for key in range(8):
        assert last_above[key] == pytest.approx(table[starts[key % 4]], rel=1e-15)


@pytest.mark.parametrize("k", list(range(1, 12)))
def test_tie_patterns_match_scikit_learn(k: int) -> None:
    """Groups of 1-14 rows (and some of 40) scored from 3 values: every k up to 11, to 1e-12.

    The top k rows' tie pattern is read from a table up to k = 10 and by the
    row path beyond; tie blocks end before, at and past row k, groups are
    shorter than k, k and k + 1 rows long.
    """
    from sklearn.metrics import dcg_score, ndcg_score

    rng = np.random.default_rng(k)
    lengths = np.concatenate([np.arange(1, 15), rng.integers(1, 15, 40), [40, 40]])
    frame = pl.DataFrame(
        {
            "query": np.repeat(np.arange(lengths.size), lengths),
            "rel": rng.integers(0, 4, lengths.sum()).astype(float),
            "score": rng.integers(0, 3, lengths.sum()).astype(float),
        }
    ).sample(fraction=1.0, shuffle=True, seed=k)
    out = frame.group_by("query").agg(
        lp.ndcg("rel", "score", k=k),
        lp.dcg("rel", "score", k=k, log_base=3),
        lp.dcg("rel", "score", k=k, discount="lenskit").alias("lenskit"),
        _row_path_dcg(k, "lenskit").alias("lenskit_rows"),
    )
    # LensKit's discount against the rows' path (each row's share from its ranks)
    kept = out.drop_nulls("lenskit")  # one-row groups refused
    assert kept["lenskit"].to_list() == pytest.approx(kept["lenskit_rows"].to_list(), rel=1e-12)
    got = {r["query"]: r for r in out.iter_rows(named=True)}
    for q in range(lengths.size):
        rows = frame.filter(pl.col("query") == q)
        t, s = rows["rel"].to_numpy()[None, :], rows["score"].to_numpy()[None, :]
        if lengths[q] == 1:  # refused, as scikit-learn refuses one document
            assert got[q]["dcg"] is None
            assert got[q]["ndcg"] is None
            continue
        assert got[q]["dcg"] == pytest.approx(dcg_score(t, s, k=k, log_base=3), rel=1e-12)
        assert got[q]["ndcg"] == pytest.approx(ndcg_score(t, s, k=k), rel=1e-12, abs=1e-12)
    want = lp.evaluate(
        frame, [f"ndcg@{k}"], by="query", y_true="rel", y_score="score", strict=False
    )
    both = out.join(want.rename({f"ndcg@{k}": "core"}), on="query").drop_nulls("ndcg")
    assert both.height == (lengths > 1).sum()
    assert both["ndcg"].to_list() == pytest.approx(both["core"].to_list(), rel=1e-12, abs=1e-12)


def _row_path_dcg(k: int, discount: Any) -> pl.Expr:
    """The tie-averaged DCG@k of the rows' path (each row's share from its counts), unchecked."""
    from lodestar_polars._metrics.dcg import terms
    from lodestar_polars._metrics.expr import as_float, as_score

    gain, score = as_float("rel"), as_score("score")
    return terms._over_group(gain, score, lambda _: terms._tie_averaged_dcg(2.0, k, discount))


def test_tie_patterns_of_integer_scores_at_the_int64_ends() -> None:
    """The last block's rows are those at a difference of 0: int64 scores far apart never wrap."""
    big = 2**62
    frame = pl.DataFrame(
        {
            "query": [0] * 6,
            "rel": [3.0, 1.0, 2.0, 0.0, 1.0, 2.0],
            "score": [big, -big, -big, -big, big - 1, -big],
        }
    )
    got = frame.select(lp.dcg("rel", "score", k=2)).item()
    # rows by score: 3 (big), 1 (big - 1), then four tied at -big (gains 1, 2, 0, 2) past k
    assert got == pytest.approx(3 * d(0) + 1 * d(1), rel=1e-15)
    got = frame.select(lp.dcg("rel", "score", k=3)).item()
    assert got == pytest.approx(3 * d(0) + 1 * d(1) + (1 + 2 + 0 + 2) / 4 * d(2), rel=1e-15)
