"""The NumPy core's segment arithmetic: running sums, orders, one-width shortcuts, the ideal DCG."""

from __future__ import annotations

import numpy as np
import pytest

from lodestar_polars._core.dcg import ideal_dcg_segments
from lodestar_polars._core.ranking import Ranking, rank_segments, runs_descend, segment_order
from lodestar_polars._core.segments import segment_running_sum


def _reference(values: np.ndarray, length: np.ndarray) -> np.ndarray:
    """``np.cumsum`` of each segment alone."""
    start = np.concatenate(([0], np.cumsum(length)[:-1]))
    parts = [np.cumsum(values[s : s + n]) for s, n in zip(start, length, strict=True)]
    return np.concatenate([*parts, np.zeros(0)])


def test_a_segment_is_not_summed_against_the_ones_before() -> None:
    """A running total over the whole array minus its value at the segment's start
    would give 0.1 + 0.2 to within 1e15's rounding (0.25 or 0.375, not 0.3).
    """
    values = np.array([1e15, 3e15, 0.1, 0.2])
    got = segment_running_sum(values, np.array([0, 2]), np.array([2, 2]))
    assert got.tolist() == [1e15, 4e15, 0.1, 0.1 + 0.2]


@pytest.mark.parametrize("kind", ["float", "integer"])
@pytest.mark.parametrize("seed", range(5))
def test_equals_the_cumsum_of_each_segment(kind: str, seed: int) -> None:
    """Lengths 0 to 70 (several length classes, empty segments), floats of mixed
    magnitude or small integers (the exact one-pass path): bit for bit.
    """
    rng = np.random.default_rng(seed)
    length = rng.integers(0, 70, size=40)
    n = int(length.sum())
    if kind == "float":
        values = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 16, size=n)
    else:
        values = rng.integers(-3, 4, size=n).astype(np.float64)
    start = np.concatenate(([0], np.cumsum(length)[:-1]))
    assert np.array_equal(segment_running_sum(values, start, length), _reference(values, length))


def test_through_sum_counts_rows_scoring_at_least_as_high() -> None:
    """Ranking.through_sum with float weights: per row, the weights of its segment's
    rows scoring at least its score (its tie block included).
    """
    score = np.array([0.5, 0.9, 0.5, 0.1, 0.3, 0.3])
    weight = np.array([0.25, 1e15, 0.5, 2.0, 0.1, 0.2])
    ranking = rank_segments(score, np.array([4, 2]))
    got = ranking.through_sum(ranking.take(weight))
    # ranked: segment 0 = 0.9, 0.5 (row 2), 0.5 (row 0), 0.1; segment 1 = 0.3, 0.3
    assert got.tolist() == [
        1e15,
        1e15 + 0.5 + 0.25,
        1e15 + 0.5 + 0.25,
        1e15 + 0.5 + 0.25 + 2.0,
        0.1 + 0.2,
        0.1 + 0.2,
    ]


def _lexsort_order(score: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Ranking order the plain way: segment, then score descending, then later row first."""
    segment = np.repeat(np.arange(length.size), length)
    return np.lexsort((-np.arange(score.size), -score, segment))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("lengths", ["equal", "nearly equal", "ragged"])
def test_segment_order_equals_the_lexsort(seed: int, lengths: str) -> None:
    rng = np.random.default_rng(seed)
    n_segments = 200
    length = {
        "equal": np.full(n_segments, 7),  # one matrix, no padding
        "nearly equal": rng.integers(5, 9, n_segments),  # one padded matrix (under 2x)
        "ragged": np.append(rng.integers(0, 40, n_segments - 1), 400),  # a matrix per class
    }[lengths]
    # heavy ties, signed zeros: every rule of the order at once
    pool = np.array([-1e300, -1.5, -0.0, 0.0, 0.25, 0.25, 3.0, 1e300])
    score = rng.choice(pool, int(length.sum()))
    got = segment_order(score, length, break_ties=True)
    np.testing.assert_array_equal(got, _lexsort_order(score, length))
    # without the tie break: the same scores in each position, ties in any order
    loose = segment_order(score, length, break_ties=False)
    np.testing.assert_array_equal(score[loose], score[_lexsort_order(score, length)])
    np.testing.assert_array_equal(np.sort(loose), np.arange(score.size))


def test_segment_order_hand_example() -> None:
    # segment 0: scores 0.2, 0.9, 0.2 -> 0.9 (row 1), then the tie, later row first (2, 0)
    # segment 1: 0.5, 0.7 -> row 4, row 3; segment 2: one row
    score = np.array([0.2, 0.9, 0.2, 0.5, 0.7, 0.1])
    length = np.array([3, 2, 1])
    assert segment_order(score, length).tolist() == [1, 2, 0, 4, 3, 5]


@pytest.mark.parametrize("odd", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("length", [[2, 2], [1, 3]])
def test_segment_order_with_a_non_finite_score_takes_the_lexsort(
    odd: float, length: list[int]
) -> None:
    score = np.array([0.2, odd, 0.9, 0.1])
    lengths = np.array(length)
    assert segment_order(score, lengths).tolist() == _lexsort_order(score, lengths).tolist()


# Segments of one width: the Ranking's shortcuts equal its general formulas.


def _generic(ranking: Ranking) -> Ranking:
    """The same ranking with the one-width shortcuts off (``width`` read as None)."""
    plain = Ranking(ranking.order, ranking.start, ranking.length, ranking._new_block)
    plain.__dict__["width"] = None
    return plain


@pytest.mark.parametrize("width", [1, 2, 7, 33])
@pytest.mark.parametrize("scores", ["tied", "continuous"])
def test_one_width_shortcuts_equal_the_general_formulas(width: int, scores: str) -> None:
    rng = np.random.default_rng(width)
    n_segments = 50
    n = n_segments * width
    score = rng.integers(0, 4, n) / 2.0 if scores == "tied" else rng.random(n)
    length = np.full(n_segments, width)
    ranking = rank_segments(score, length)
    assert ranking.width == width
    plain = _generic(ranking)
    assert plain.width is None
    values = rng.standard_normal(score.size)
    table = np.arange(width + 1) / 3.0
    assert np.array_equal(ranking.position, plain.position)
    assert np.array_equal(ranking.block_above, plain.block_above)
    assert np.array_equal(ranking._segment_first_block, plain._segment_first_block)
    assert np.array_equal(ranking.segment_sum(values), plain.segment_sum(values))
    assert np.array_equal(ranking.by_position(table), table[plain.position])


def test_width_is_none_for_unequal_or_empty_segments() -> None:
    assert rank_segments(np.arange(5.0), np.array([2, 3])).width is None
    assert rank_segments(np.arange(4.0), np.array([2, 0, 2])).width is None
    assert rank_segments(np.arange(4.0), np.array([4])).width == 4


# The ideal DCG: each segment's gains in the best order.


def _ideal_reference(gain: np.ndarray, length: np.ndarray, k: int | None) -> np.ndarray:
    """Each segment's gains sorted descending, times the discounts, cut at k."""
    start = np.concatenate(([0], np.cumsum(length)[:-1]))
    out = []
    for s, n in zip(start, length, strict=True):
        best = np.sort(gain[s : s + n])[::-1][: n if k is None else k]
        out.append(float(np.sum(best / np.log2(np.arange(best.size) + 2.0))))
    return np.array(out)


@pytest.mark.parametrize("k", [None, 1, 3, 50])
@pytest.mark.parametrize(
    "values", [[0, 1, 2, 3], [-1, 0, 2], [-2, -1], [1], [0], [0.5, 0.25, 4]], ids=str
)
def test_ideal_dcg_counts_each_gain_value(values: list[float], k: int | None) -> None:
    """Few gain values (counted, the smallest not): negative, zero, one value only."""
    rng = np.random.default_rng(len(values))
    length = rng.integers(1, 9, 60)
    gain = rng.choice(np.array(values, dtype=np.float64), int(length.sum()))
    got = ideal_dcg_segments(gain, length, k=k)
    np.testing.assert_allclose(got, _ideal_reference(gain, length, k), rtol=1e-14, atol=1e-14)


# A log ranked within each segment already.


def test_runs_descend() -> None:
    length = np.array([3, 2])
    assert runs_descend(np.array([3.0, 2.0, 1.0, 9.0, 8.0]), length)  # up only between segments
    assert not runs_descend(np.array([3.0, 2.0, 2.5, 9.0, 8.0]), length)
    assert runs_descend(np.array([3.0, 2.0, 2.0, 9.0, 9.0]), length)  # ties may fall
    assert not runs_descend(np.array([3.0, 2.0, 2.0, 9.0, 8.0]), length, strict=True)
    assert runs_descend(np.array([3.0, 2.0, 1.0, 9.0, 8.0]), length, strict=True)
    assert not runs_descend(np.array([3.0, np.nan, 1.0, 9.0, 8.0]), length)
    assert runs_descend(np.array([5], dtype=np.int64), np.array([1]))
    assert runs_descend(np.array([], dtype=np.float64), np.array([], dtype=np.int64))


def test_runs_descend_looks_past_the_leading_rows() -> None:
    """A rise after the first 4096 rows (looked at first) is still found."""
    score = -np.arange(10_000, dtype=np.float64)
    length = np.array([10_000])
    assert runs_descend(score, length)
    score[9_000] = 0.0
    assert not runs_descend(score, length)
