"""Hypothesis properties of lp.compare on random per-query values of 2 to 4 runs.

The references are independent of lodestar_polars:

* Student: ``scipy.stats.ttest_rel`` and its ``confidence_interval``;
* Fisher (exact, up to 8 queries here): every sign pattern enumerated by a Python loop,
  the sums taken with ``math.fsum``, the ties counted by the rule docs/compare.md states
  (two means within ``256 * eps * mean(|run| + |baseline|)`` are equal);
* bootstrap: the resamples drawn as compare draws them (``default_rng(seed).integers``),
  each resample's mean by a Python sum, the percentile interval interpolated by hand;
* the "better" marks: the direction each column name has (``ndcg@10`` higher, ``brier``
  lower, ``latency`` unknown unless named) and the adjusted p-value.

Values are drawn from a grid (``k / 1000``: exact decimal ties, as real metrics have) or
from [0, 1] (no ties), so both sides of the tie rule come up.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lodestar_polars as lp

scipy_stats = pytest.importorskip("scipy.stats")

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
EPS = float(np.finfo(np.float64).eps)
TIE_ULPS = 256.0  # docs/compare.md, "Ties and rounding"

_GRID = st.integers(0, 1000).map(lambda k: k / 1000)
_REAL = st.floats(0.0, 1.0, allow_nan=False, allow_subnormal=False)


@st.composite
def _runs(draw: st.DrawFn, max_queries: int = 12) -> dict[str, list[float]]:
    """2 to 4 runs' values over the same 2..max_queries queries."""
    k = draw(st.integers(2, 4))
    n = draw(st.integers(2, max_queries))
    values = draw(st.sampled_from([_GRID, _REAL]))
    return {f"r{i}": draw(st.lists(values, min_size=n, max_size=n)) for i in range(k)}


def _frame(runs: dict[str, list[float]], metric: str = "m") -> pl.DataFrame:
    return pl.concat(
        pl.DataFrame({"run": name, "query": list(range(len(v))), metric: v})
        for name, v in runs.items()
    )


def _p_of(result: lp.Comparison, run: str, other: str) -> float:
    row = result.pairs.filter((pl.col("run") == run) & (pl.col("other") == other))
    return float(row["p_value"][0])


# --------------------------------------------------------------------------------- Student


@SETTINGS
@given(runs=_runs(max_queries=30), alpha=st.sampled_from([0.05, 0.1, 0.01]))
def test_student_is_ttest_rel(runs: dict[str, list[float]], alpha: float) -> None:
    result = lp.compare(_frame(runs), baseline="r0", test="student", alpha=alpha, correction=None)
    base = np.array(runs["r0"])
    for name, values in runs.items():
        if name == "r0":
            continue
        run = np.array(values)
        d = run - base
        row = result.table.filter(pl.col("run") == name).row(0, named=True)
        if np.all(d == 0):  # scipy: NaN; compare: p = 1, the interval [0, 0]
            assert (row["p_value"], row["ci_low"], row["ci_high"]) == (1.0, 0.0, 0.0)
            continue
        if np.std(d, ddof=1) <= 1e-9 * np.abs(d).max():
            continue  # a constant difference but for rounding: t is rounding noise
        ref = scipy_stats.ttest_rel(run, base)
        ci = ref.confidence_interval(confidence_level=1 - alpha)
        assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-10, abs=1e-300)
        assert row["ci_low"] == pytest.approx(ci.low, rel=1e-10, abs=1e-14)
        assert row["ci_high"] == pytest.approx(ci.high, rel=1e-10, abs=1e-14)
        assert row["significant"] == (ref.pvalue <= alpha)


# ---------------------------------------------------------------------------------- Fisher


def _fisher_by_enumeration(run: list[float], base: list[float]) -> float:
    """Every sign pattern, one by one; ties by the documented rule."""
    n = len(run)
    d = [r - b for r, b in zip(run, base, strict=True)]
    observed = math.fsum(d) / n
    tol = TIE_ULPS * EPS * math.fsum(abs(r) + abs(b) for r, b in zip(run, base, strict=True)) / n
    less = greater = 0
    for signs in itertools.product((1.0, -1.0), repeat=n):
        null = math.fsum(s * x for s, x in zip(signs, d, strict=True)) / n
        less += null <= observed + tol
        greater += null >= observed - tol
    patterns: int = 2**n  # typeshed types int ** int as Any (a negative power is a float)
    return min(1.0, 2.0 * min(less, greater) / patterns)


@SETTINGS
@given(runs=_runs(max_queries=8))
def test_fisher_exact_is_the_enumeration(runs: dict[str, list[float]]) -> None:
    result = lp.compare(_frame(runs), baseline="r0", test="fisher", correction=None)
    for a, b in itertools.combinations(runs, 2):
        expected = _fisher_by_enumeration(runs[a], runs[b])
        assert _p_of(result, a, b) == pytest.approx(expected, rel=1e-12)
        assert _p_of(result, b, a) == pytest.approx(expected, rel=1e-12)


@SETTINGS
@given(
    n=st.integers(2, 6),
    a=st.integers(1, 9),
    base=st.lists(st.integers(1000, 9000), min_size=6, max_size=6),
    signs=st.lists(st.sampled_from([1, -1]), min_size=6, max_size=6),
)
def test_fisher_ties_of_equal_decimal_differences(
    n: int, a: int, base: list[int], signs: list[int]
) -> None:
    """Differences of +-a/10^4 between values near 0.5: sign patterns tie in decimal.

    The exact p-value of d_i = s_i a: the share of the 2^n sums of +-a at or beyond the
    observed one, counted on integers (no rounding at all).
    """
    b = [x / 10**4 for x in base[:n]]
    r = [(x + s * a) / 10**4 for x, s in zip(base[:n], signs[:n], strict=True)]
    observed = sum(signs[:n])
    sums = [sum(p) for p in itertools.product((1, -1), repeat=n)]
    less = sum(s <= observed for s in sums)
    greater = sum(s >= observed for s in sums)
    expected = min(1.0, 2.0 * min(less, greater) / 2**n)
    result = lp.compare(_frame({"b": b, "r": r}), baseline="b", test="fisher")
    assert _p_of(result, "r", "b") == expected


# ------------------------------------------------------------------------------- bootstrap


def _percentile(sorted_values: list[float], q: float) -> float:
    """The linear-interpolation percentile (numpy's default, scipy's percentile interval)."""
    h = (len(sorted_values) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])


@SETTINGS
@given(
    runs=_runs(max_queries=15),
    seed=st.integers(0, 2**32 - 1),
    n_resamples=st.integers(1, 300),
    alpha=st.sampled_from([0.05, 0.2]),
)
def test_bootstrap_is_the_percentile_interval_of_its_resamples(
    runs: dict[str, list[float]], seed: int, n_resamples: int, alpha: float
) -> None:
    result = lp.compare(
        _frame(runs), baseline="r0", test="bootstrap", seed=seed, n_resamples=n_resamples,
        alpha=alpha,
    )  # fmt: skip
    n = len(runs["r0"])
    indices = np.random.default_rng(seed).integers(0, n, (n_resamples, n)).tolist()
    base = runs["r0"]
    for name, run in runs.items():
        if name == "r0":
            continue
        d = [r - b for r, b in zip(run, base, strict=True)]
        means = sorted(math.fsum(d[i] for i in row) / n for row in indices)
        observed = math.fsum(d) / n
        tol = TIE_ULPS * EPS * math.fsum(abs(r) + abs(b) for r, b in zip(run, base, strict=True))
        tol /= n
        far = sum(abs(m - observed) >= abs(observed) - tol for m in means)
        row = result.table.filter(pl.col("run") == name).row(0, named=True)
        assert row["ci_low"] == pytest.approx(_percentile(means, alpha / 2), rel=1e-12, abs=1e-15)
        assert row["ci_high"] == pytest.approx(
            _percentile(means, 1 - alpha / 2), rel=1e-12, abs=1e-15
        )
        assert row["p_value"] == pytest.approx(min(1.0, (far + 1) / (n_resamples + 1)), rel=1e-12)


# --------------------------------------------------------------------------------- better


@SETTINGS
@given(
    runs=_runs(max_queries=12),
    shifts=st.lists(st.floats(-0.5, 0.5), min_size=4, max_size=4),
    test=st.sampled_from(["student", "fisher"]),
    name_latency=st.sampled_from([None, "higher", "lower"]),
)
def test_better_follows_the_direction(
    runs: dict[str, list[float]], shifts: list[float], test: str, name_latency: str | None
) -> None:
    """A run is better only where it is significantly ahead in the metric's direction."""
    frames = []
    for (name, values), shift in zip(runs.items(), shifts, strict=False):
        v = np.array(values) + shift  # runs apart by a shift: significance comes up often
        frames.append(
            pl.DataFrame(
                {"run": name, "query": list(range(len(v))), "ndcg@10": v, "brier": v, "latency": v}
            )
        )
    options = {} if name_latency is None else {f"{name_latency}_is_better": ["latency"]}
    result = lp.compare(pl.concat(frames), baseline="r0", test=test, **options)  # type: ignore[arg-type]
    way = {"ndcg@10": "higher", "brier": "lower", "latency": name_latency}
    assert result.directions == way
    for row in result.pairs.iter_rows(named=True):
        direction = way[row["metric"]]
        if direction is None:
            assert row["better"] is None
            continue
        ahead = row["difference"] > 0 if direction == "higher" else row["difference"] < 0
        assert row["better"] == (row["p_adjusted"] <= 0.05 and ahead)
    # the report: a superscript exactly where .pairs says better
    labels = dict(zip(runs, "abcd", strict=False))
    superscript = dict(zip("abcd", "ᵃᵇᶜᵈ", strict=True))
    lines = result.to_markdown().splitlines()
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    for line in lines[2 : 2 + len(runs)]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        for metric, cell in zip(header[2:], cells[2:], strict=True):
            beaten = result.pairs.filter(
                (pl.col("run") == cells[1]) & (pl.col("metric") == metric) & pl.col("better")
            )["other"].to_list()
            marks = "".join(superscript[letter] for letter in sorted(labels[o] for o in beaten))
            assert cell.endswith(marks)
            assert not any(c in superscript.values() for c in cell.removesuffix(marks))
