"""The comparability state's quantiles: the matrix sort against the two stable sorts.

``_by_item_then_value`` sorts each item's rows as the rows of a matrix when every item present
has as many rows; otherwise (and with -0.0, whose order among equal zeros could show) it
takes a stable sort by value, then by item. Both must give the same values in the same order,
bit for bit, and so the same quantiles.
"""

from __future__ import annotations

import numpy as np
import pytest

from lodestar_polars._report.comparability_quantiles import _by_item_then_value, _quantiles


def _two_stable_sorts(item_id: np.ndarray, values: np.ndarray) -> np.ndarray:
    by_value = np.argsort(values, kind="stable")
    return values[by_value[np.argsort(item_id[by_value], kind="stable")]]


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("n_items", [1, 5, 70_000])  # 70,000: ids past uint16
def test_every_item_as_many_rows(n_items: int) -> None:
    rng = np.random.default_rng(n_items)
    per = 7
    item_id = rng.permutation(np.repeat(np.arange(n_items, dtype=np.int64), per))
    values = rng.integers(-8, 8, item_id.size) / 4.0  # ties (the zeros all +0.0)
    counts = np.bincount(item_id, minlength=n_items)
    assert _same_bits(
        _by_item_then_value(item_id, values, counts), _two_stable_sorts(item_id, values)
    )


def test_items_with_no_rows_are_skipped() -> None:
    item_id = np.array([4, 0, 4, 0, 2, 2], dtype=np.int64)  # items 1 and 3: no row
    values = np.array([0.5, 0.25, 0.125, 1.0, 3.0, -1.0])
    counts = np.bincount(item_id, minlength=6)
    got = _by_item_then_value(item_id, values, counts)
    # item 0: 0.25, 1.0; item 2: -1.0, 3.0; item 4: 0.125, 0.5
    assert got.tolist() == [0.25, 1.0, -1.0, 3.0, 0.125, 0.5]


def test_ragged_items_take_the_stable_sorts() -> None:
    rng = np.random.default_rng(1)
    item_id = rng.integers(0, 9, 500)
    values = rng.integers(0, 5, 500) / 2.0
    counts = np.bincount(item_id, minlength=9)
    assert _same_bits(
        _by_item_then_value(item_id, values, counts), _two_stable_sorts(item_id, values)
    )


def test_negative_zero_keeps_the_input_order_of_equal_zeros() -> None:
    # -0.0 == 0.0: the stable sorts keep their input order, which a matrix sort may not
    item_id = np.array([0, 0, 0, 1, 1, 1], dtype=np.int64)
    values = np.array([0.0, -0.0, 1.0, -0.0, 0.0, 0.0])
    counts = np.bincount(item_id, minlength=2)
    got = _by_item_then_value(item_id, values, counts)
    assert _same_bits(got, _two_stable_sorts(item_id, values))
    assert np.signbit(got).tolist() == [False, True, False, True, False, False]


def test_quantiles_equal_numpy_per_item() -> None:
    rng = np.random.default_rng(5)
    item_id = np.repeat(np.arange(6, dtype=np.int64), 40)
    values = rng.integers(0, 30, item_id.size) / 3.0
    levels = np.linspace(0.0, 1.0, 11)
    got = _quantiles(item_id, values, 6, levels)
    for i in range(6):
        want = np.quantile(values[item_id == i], levels, method="linear")
        assert _same_bits(got[i], want)
