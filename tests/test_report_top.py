"""The report's chance to be served without a sort: ``_top_rectangular`` against the sort.

``block_terms`` needs, of each list's ranking, every candidate's chance to be in the top k,
``clip(k - b, 0, t) / t`` with ``b`` the candidates above and ``t`` its tie block, and ``b``
and ``t`` of the graded rows. On a (lists x length) matrix it counts them against each list's
k-th largest value instead of sorting each list (``_rank_bounds_rectangular``). These tests
hold it to the sort's integers and floats, bit for bit, on ties, every cut, integer scores
at the ends of their range, and the cases that go back to the sort.
"""

from __future__ import annotations

import numpy as np
import pytest

from lodestar_polars._report.ranking_report.families import (
    _rank_bounds_rectangular,
    _top_rectangular,
)


def _by_sort(scores: np.ndarray, rows: np.ndarray, k: int) -> tuple[np.ndarray, ...]:
    b, t = _rank_bounds_rectangular(scores)
    longest = int((b + t).max())
    p = np.clip(min(k, longest) - b, 0, t) / t
    return p, b[rows], t[rows]


def _check(scores: np.ndarray, rows: np.ndarray, k: int) -> None:
    got = _top_rectangular(scores, rows, k)
    assert got is not None
    want = _by_sort(scores, rows, k)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype
        assert np.array_equal(a, b)


@pytest.mark.parametrize("k", [1, 2, 3, 5, 10, 11, 40, 10**20])
@pytest.mark.parametrize("values", [2, 7, 1000])
def test_float_scores_with_ties_equal_the_sort(k: int, values: int) -> None:
    rng = np.random.default_rng(k % 97 + values)
    scores = rng.integers(0, values, (300, 12)) / 4.0
    rows = rng.integers(0, scores.size, 300)
    _check(scores, rows, k)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_integer_scores_at_the_ends_of_their_range(dtype: type) -> None:
    info = np.iinfo(dtype)
    pool: np.ndarray = np.array([info.min, info.min + 1, 0, 1, info.max - 1, info.max], dtype=dtype)
    rng = np.random.default_rng(3)
    scores = pool[rng.integers(0, pool.size, (200, 9))]
    rows = rng.integers(0, scores.size, 150)
    for k in (1, 4, 9, 50):
        _check(scores, rows, k)


def test_hand_worked_list() -> None:
    # one list: 5, 3, 3, 3, 1 (as given: 3, 5, 1, 3, 3); k = 2: 5 is in for sure (p = 1),
    # the three 3s share the one seat left (p = 1/3 each), 1 is out (p = 0)
    scores = np.array([[3.0, 5.0, 1.0, 3.0, 3.0]])
    got = _top_rectangular(scores, np.array([0, 1, 2]), 2)
    assert got is not None
    p, gb, gt = got
    assert p.tolist() == [1 / 3, 1.0, 0.0, 1 / 3, 1 / 3]
    assert gb.tolist() == [1, 0, 4]  # candidates above: the 5; none; all four
    assert gt.tolist() == [3, 1, 1]  # its tie block: the three 3s; alone; alone


def test_many_graded_rows_go_back_to_the_sort() -> None:
    scores = np.zeros((4, 3))
    rows = np.arange(scores.size).repeat(5)  # 5 graded rows per cell: more than the bound
    assert _top_rectangular(scores, rows, 2) is None
