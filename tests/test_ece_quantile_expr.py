"""ECE with quantile bins as an expression (issue 20, "the slow corners").

The expression sorts each group's rows by probability once and reads the
edges, bins and sums from the sorted lists
(``_metrics.calibration.expressions._ece_quantile``).  Checked here on
random groups of 1..300 rows (continuous probabilities, ties on a grid of
tenths, and thirds, whose values fall exactly on the quantile edges):

* against the NumPy core of ``lp.evaluate(..., ["ece_quantile@n"])`` to
  1e-12 relative (1e-15 absolute near 0);
* against a copy of the previous formulation (every bin's filter re-reading
  the edges from ``prob.sort()``): the same bins, so the same value up to the
  last bits of the sums (that form's group sums are Polars' ``agg`` kernel,
  and its ``sum_horizontal`` did not always add the bins in one order);
* bit for bit the same on every path: eager and lazy ``group_by``, the
  streaming engine, ``over``, ``select`` on one group, and a second run.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._core.calibration import (
    calibration_gap,
    expected_calibration_error_segments,
    lerp,
    percentile_position,
    quantile_levels,
)

NAME = "expected_calibration_error"


def _groups(seed: int, n_groups: int) -> tuple[pl.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    length = rng.integers(1, 301, n_groups)
    kind = np.repeat(rng.integers(0, 3, n_groups), length)
    n = int(length.sum())
    prob = np.where(
        kind == 0,
        rng.random(n),
        np.where(kind == 1, rng.integers(0, 11, n) / 10, rng.integers(0, 4, n) / 3),
    )
    frame = pl.DataFrame(
        {
            "g": np.repeat(np.arange(n_groups), length),
            "y": rng.integers(0, 2, n),
            "p": prob,
        }
    )
    return frame, length


def _previous_formulation(n_bins: int) -> pl.Expr:
    """The expression before issue 20 (no refusal rules: the frames here have none)."""
    truth, prob = pl.col("y").cast(pl.Float64), pl.col("p")
    ranked, n = prob.sort(), pl.len().cast(pl.Float64)
    edges = []
    for level in quantile_levels(n_bins):
        previous, following, t = percentile_position(n, float(level))
        a = ranked.gather(previous.cast(pl.Int64)).first()
        b = ranked.gather(following.cast(pl.Int64)).first()
        edges.append(lerp(a, b, t))
    gaps = []
    for lower, upper in zip([None, *edges], [*edges, None], strict=True):
        inside = pl.lit(value=True)
        if lower is not None:
            inside = inside & (prob > lower)
        if upper is not None:
            inside = inside & (prob <= upper)
        count = inside.sum().cast(pl.Float64)
        prob_true = truth.filter(inside).sum() / count
        prob_pred = prob.filter(inside).sum() / count
        gaps.append(
            pl.when(count > 0).then(calibration_gap(count, n, prob_true, prob_pred)).otherwise(0.0)
        )
    return pl.sum_horizontal(gaps).alias(NAME)


def _ece(n_bins: int) -> pl.Expr:
    return lp.expected_calibration_error("y", "p", n_bins=n_bins, strategy="quantile")


def _by_group(frame: pl.DataFrame, expr: pl.Expr) -> np.ndarray:
    return frame.group_by("g", maintain_order=True).agg(expr)[NAME].to_numpy()


def _assert_close(actual: np.ndarray, expected: np.ndarray) -> None:
    wrong = np.abs(actual - expected) > 1e-12 * np.abs(expected) + 1e-15
    assert not wrong.any(), (np.flatnonzero(wrong)[:5], actual[wrong][:5], expected[wrong][:5])


@pytest.mark.parametrize("n_bins", [1, 2, 3, 10, 15])
def test_equals_the_numpy_core(n_bins: int) -> None:
    frame, length = _groups(seed=n_bins, n_groups=2000)
    got = _by_group(frame, _ece(n_bins))
    core = expected_calibration_error_segments(
        frame["y"].to_numpy(), frame["p"].to_numpy(), length, n_bins=n_bins, strategy="quantile"
    )
    _assert_close(got, core)
    by_evaluate = lp.evaluate(frame, [f"ece_quantile@{n_bins}"], by="g", y_true="y", y_score="p")
    _assert_close(got, by_evaluate.sort("g")[f"ece_quantile@{n_bins}"].to_numpy())


@pytest.mark.parametrize("n_bins", [1, 2, 3, 10, 15])
def test_equals_the_previous_formulation(n_bins: int) -> None:
    frame, _ = _groups(seed=100 + n_bins, n_groups=150)
    _assert_close(_by_group(frame, _ece(n_bins)), _by_group(frame, _previous_formulation(n_bins)))


@pytest.mark.parametrize("n_bins", [1, 3, 10])
def test_every_path_gives_the_same_bits(n_bins: int) -> None:
    frame, _ = _groups(seed=200 + n_bins, n_groups=300)
    expr = _ece(n_bins)
    eager = _by_group(frame, expr)
    lazy = frame.lazy().group_by("g", maintain_order=True).agg(expr)
    over = frame.select("g", expr.over("g")).group_by("g", maintain_order=True).agg(pl.first(NAME))
    one = [part.select(expr).item() for part in frame.partition_by("g", maintain_order=True)[:40]]
    assert np.array_equal(_by_group(frame, expr), eager)
    assert np.array_equal(lazy.collect()[NAME].to_numpy(), eager)
    assert np.array_equal(lazy.collect(engine="streaming")[NAME].to_numpy(), eager)
    assert np.array_equal(over[NAME].to_numpy(), eager)
    assert np.array_equal(np.array(one), eager[:40])


def test_values_on_the_edges_by_hand() -> None:
    """Rows 0.0, 0.1, ..., 1.0: a median edge on a row, and edges a hair below rows."""
    frame = pl.DataFrame({"y": [0] * 5 + [1] * 6, "p": [i / 10 for i in range(11)]})
    # 2 bins: the edge is the row 0.5 itself, which falls in the lower bin (p <= edge)
    expected = 6 / 11 * abs(1 / 6 - 1.5 / 6) + 5 / 11 * abs(1.0 - 4.0 / 5)
    assert frame.select(_ece(2)).item() == pytest.approx(expected, rel=1e-14)
    # 3 bins on the first ten rows: NumPy's percentile puts the edges 2 ulps below
    # 0.3 and 0.6 (the virtual index 9 * (1/3) is 2.9999999999999996), so those
    # two rows go up: bins {0, .1, .2}, {.3, .4, .5}, {.6, .7, .8, .9}
    ten = frame.head(10)
    expected = 0.3 * abs(0.0 - 0.1) + 0.3 * abs(1 / 3 - 0.4) + 0.4 * abs(1.0 - 0.75)
    assert ten.select(_ece(3)).item() == pytest.approx(expected, rel=1e-14)


def test_refused_groups_stay_refused() -> None:
    frame = pl.DataFrame(
        {
            "g": [0, 0, 1, 1, 2, 2, 3, 3],
            "y": [0.0, 1.0, 0.0, 2.0, 1.0, 0.0, 1.0, 0.0],
            "p": [0.2, 0.8, 0.2, 0.8, 0.2, None, 0.2, 1.5],
        }
    )
    got = frame.group_by("g", maintain_order=True).agg(_ece(10))[NAME].to_list()
    assert got[0] == pytest.approx(0.2, rel=1e-15)
    assert got[1:] == [None, None, None]
