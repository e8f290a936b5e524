"""The NumPy core's segmented running sum: each segment summed on its own."""

from __future__ import annotations

import numpy as np
import pytest

from lodestar_polars._core.ranking import rank_segments
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
