"""lp.compare: parity with scipy's paired tests, the NumPy t distribution, bad input (issue 11)."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._compare import paired as _paired
from lodestar_polars._compare import stats as _stats
from lodestar_polars._compare.paired import Correction
from lodestar_polars.cli import run as cli_main

scipy_stats = pytest.importorskip("scipy.stats")
scipy_special = pytest.importorskip("scipy.special")


def _runs(n: int, k: int = 3, seed: int = 0, *, grid: bool = False) -> dict[str, np.ndarray]:
    """Per-query values of ``k`` runs, correlated as real runs are; ``grid``: ties (P@10-like)."""
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    out = {}
    for i in range(k):
        v = np.clip(base + rng.normal(0.03 * i, 0.15, n), 0, 1)
        out[f"run{i}"] = np.round(v * 10) / 10 if grid else v
    return out


def _frame(values: dict[str, np.ndarray], metric: str = "ndcg@10") -> pl.DataFrame:
    n = len(next(iter(values.values())))
    return pl.concat(
        pl.DataFrame({"run": name, "query": [f"q{i}" for i in range(n)], metric: v})
        for name, v in values.items()
    )


def _row(result: lp.Comparison, run: str, metric: str = "ndcg@10") -> dict[str, Any]:
    return result.table.filter((pl.col("run") == run) & (pl.col("metric") == metric)).row(
        0, named=True
    )


# ---- the t distribution, NumPy only ------------------------------------------------------


@pytest.mark.parametrize("a", [0.5, 1.0, 2.5, 7.0, 30.0, 31.5, 100.0, 1000.0])
@pytest.mark.parametrize("b", [0.5, 1.0, 3.0, 10.0])
def test_betainc_equals_scipy(a: float, b: float) -> None:
    """Betainc equals scipy."""
    rng = np.random.default_rng(int(a * 10 + b))
    x = np.concatenate([rng.random(40), a / (a + b) + rng.normal(0, 0.01, 20), [0.0, 1.0]])
    x = np.clip(x, 0, 1)
    expected = scipy_special.betainc(a, b, x)
    keep = expected > 1e-200  # below, both underflow differently
    np.testing.assert_allclose(_stats.betainc(a, b, x)[keep], expected[keep], rtol=1e-12, atol=0)


@pytest.mark.parametrize("df", [1, 2, 3, 4, 9, 19, 29, 59, 60, 61, 99, 999, 9999, 99999])
def test_t_two_sided_p_and_quantile_equal_scipy(df: int) -> None:
    """T two sided p and quantile equal scipy."""
    t = np.array([0.0, 0.05, 0.3, 0.7, 1.0, 1.5, 1.96, 2.0, 2.5, 3.0, 4.0, 6.0, 10.0, np.inf])
    expected = 2 * scipy_stats.t.sf(t, df)
    # Measured on x86-64 (the continued fraction in 80-bit long double): <= 6e-13 up to
    # df = 99999. In float64 alone it stalls ~4e-12 from its limit at df = 99999.
    rtol = 1e-12 if np.finfo(np.longdouble).eps < 1e-18 or df < 10**4 else 5e-12
    np.testing.assert_allclose(_stats.t_two_sided_p(-t, df), expected, rtol=rtol, atol=0)
    for alpha in (0.2, 0.1, 0.05, 0.01, 0.001):
        q = _stats.t_two_sided_quantile(alpha, df)
        assert q == pytest.approx(scipy_stats.t.ppf(1 - alpha / 2, df), rel=1e-12)


@pytest.mark.parametrize("df", [29.0, 2999.0, 99999.0])
def test_t_p_value_does_not_depend_on_what_else_is_evaluated(df: float) -> None:
    """Each p-value of a batch is the one it gets alone, to the bit, and scipy's."""
    rng = np.random.default_rng(int(df))
    t = np.concatenate([rng.normal(0, 3, 20), rng.normal(0, 12, 10), [0.0, 1.96]])
    batch = _stats.t_two_sided_p(t, df)
    alone = np.array([_stats.t_two_sided_p(v, df)[()] for v in t])
    np.testing.assert_array_equal(batch, alone)
    np.testing.assert_array_equal(_stats.t_two_sided_p(t[::-1], df), alone[::-1])
    # Between the grid points of the test above, df = 99999 reaches 1.8e-12 (t near 2.2),
    # as it did before each element stopped on its own.
    rtol = 1e-12 if df < 10**4 else 5e-12
    np.testing.assert_allclose(batch, 2 * scipy_stats.t.sf(np.abs(t), df), rtol=rtol, atol=0)


def test_t_cauchy_closed_form() -> None:
    """T cauchy closed form."""
    # df = 1 is the Cauchy distribution: P(|T| >= t) = 1 - 2 atan(t) / pi, exactly.
    t = np.array([1e-8, 1e-3, 0.5, 1.0, 7.0, 1e4])
    # (for t > 1 as 2 atan(1/t) / pi, which does not cancel)
    expected = np.where(t > 1, 2 * np.arctan(1 / t) / np.pi, 1 - 2 * np.arctan(t) / np.pi)
    np.testing.assert_allclose(_stats.t_two_sided_p(t, 1.0), expected, rtol=1e-13)
    assert _stats.t_two_sided_quantile(1e-6, 1.0) == pytest.approx(
        1 / np.tan(np.pi / 2 * 1e-6), rel=1e-12
    )


# ---- Student -----------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 7, 50, 400])
@pytest.mark.parametrize("alpha", [0.05, 0.01])
def test_student_equals_ttest_rel(n: int, alpha: float) -> None:
    """Student equals ttest rel."""
    values = _runs(n, k=3, seed=n)
    result = lp.compare(_frame(values), baseline="run0", test="student", alpha=alpha)
    for name in ("run1", "run2"):
        ref = scipy_stats.ttest_rel(values[name], values["run0"])
        ci = ref.confidence_interval(confidence_level=1 - alpha)
        row = _row(result, name)
        assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
        assert row["ci_low"] == pytest.approx(ci.low, rel=1e-12)
        assert row["ci_high"] == pytest.approx(ci.high, rel=1e-12)
        assert row["difference"] == pytest.approx(np.mean(values[name] - values["run0"]), rel=1e-14)
        assert row["mean"] == pytest.approx(np.mean(values[name]), rel=1e-14)


def test_student_identical_and_constant_differences() -> None:
    """Student identical and constant differences."""
    x = np.array([0.125, 0.5, 0.875, 0.25])  # dyadic: x + 0.25 - x is exactly 0.25
    frame = _frame({"a": x, "same": x.copy(), "shifted": x + 0.25})
    result = lp.compare(frame, baseline="a")
    same, shifted = _row(result, "same"), _row(result, "shifted")
    # scipy gives NaN for all-zero differences; here p = 1 and a zero-width interval.
    assert (same["p_value"], same["ci_low"], same["ci_high"]) == (1.0, 0.0, 0.0)
    assert same["significant"] is False
    assert shifted["p_value"] == 0.0
    assert shifted["ci_low"] == pytest.approx(0.25)
    assert shifted["ci_high"] == pytest.approx(0.25)


# ---- Fisher randomization ----------------------------------------------------------------


def _scipy_fisher(x: np.ndarray, y: np.ndarray, **kw: object) -> float:
    res = scipy_stats.permutation_test(
        (x, y),
        lambda a, b, axis: np.mean(a - b, axis=axis),
        permutation_type="samples",
        vectorized=True,
        alternative="two-sided",
        **kw,
    )
    return float(res.pvalue)


@pytest.mark.parametrize("n", [2, 5, 9, 12, 14])
@pytest.mark.parametrize("grid", [False, True])
def test_fisher_exact_equals_permutation_test(n: int, *, grid: bool) -> None:
    """Fisher exact equals permutation test."""
    values = _runs(n, k=3, seed=100 + n, grid=grid)
    result = lp.compare(_frame(values), baseline="run0", test="fisher")
    for name in ("run1", "run2"):
        expected = _scipy_fisher(values[name], values["run0"], n_resamples=np.inf)
        assert _row(result, name)["p_value"] == pytest.approx(expected, rel=1e-12)


def test_fisher_exact_by_hand() -> None:
    """Fisher exact by hand."""
    # d = (0.1, 0.2, 0.3): of the 8 sign patterns, |sum| >= 0.6 for (+++) and (---): p = 2/8.
    d = np.array([[0.1], [0.2], [0.3]])
    assert _paired.fisher_exact(d)[0] == 0.25
    # d = (1, -1): sums 0, 2, -2, 0; observed 0, so every pattern is as extreme: p = 1.
    assert _paired.fisher_exact(np.array([[1.0], [-1.0]]))[0] == 1.0


def test_fisher_exact_at_the_limit() -> None:
    """N = 20, 2**20 patterns enumerated (the largest exact case).

    Ten differences are 0, so each pattern of the other ten repeats 1024 times and the
    p-value is scipy's over those ten (scipy itself takes 17 s on 20 queries).
    """
    values = _runs(10, k=2, seed=7)
    d = np.concatenate([values["run1"] - values["run0"], np.zeros(10)])[:, None]
    expected = _scipy_fisher(values["run1"], values["run0"], n_resamples=np.inf)
    assert _paired.fisher_exact(d)[0] == pytest.approx(expected, rel=1e-12)


# Differences of 0.0002 between values near 0.5: equal in decimal, not in binary. The
# sign patterns whose sums are equal in exact decimal arithmetic differ by ~1e-16.
_TIE_BASE = np.array([0.5741, 0.5664, 0.4631, 0.3333])
_TIE_RUN = np.array([0.5743, 0.5662, 0.4629, 0.3331])


@pytest.mark.parametrize("shift", [0.0, 1000.0])
def test_fisher_ties_within_rounding_of_the_values(shift: float) -> None:
    """d = (a, -a, -a), a = 0.0002: p = 1 exactly, whatever rounding did to the d_i.

    The 8 sign sums are -3a, -a (3 times), +a (3 times), +3a; the observed is -a, so 4 are
    at or below it and 7 at or above: p = 2 * 4 / 8 = 1. scipy's permutation_test gives
    0.75 (its tolerance, 100 ulps of the observed mean, misses two of the ties).
    """
    base, run = _TIE_BASE[:3] + shift, _TIE_RUN[:3] + shift
    frame = _frame({"base": base, "run": run})
    result = lp.compare(frame, baseline="base", test="fisher")
    assert _row(result, "run")["p_value"] == 1.0
    if shift == 0.0:
        assert _scipy_fisher(run, base, n_resamples=np.inf) == pytest.approx(0.75)
    # the rounding is real: without the values' magnitude, the differences alone miss ties
    assert _paired.fisher_exact((run - base)[:, None])[0] < 1.0


def test_fisher_monte_carlo_ties_within_rounding() -> None:
    """The Monte Carlo branch counts the same ties.

    d = (a, -a, -a); flipping queries (1, 2) or (1, 3) gives -a, a tie with the observed
    sum; flipping (2, 3) gives +3a. Flips [(1,2), (1,3), (2,3) x 4]: 2 at or below the
    observed, 6 at or above; scipy's Monte Carlo rule: 2 * min(2 + 1, 6 + 1) / (6 + 1).
    """
    base, run = _TIE_BASE[:3], _TIE_RUN[:3]
    d = (run - base)[:, None]
    magnitude = np.array([np.mean(np.abs(run) + np.abs(base))])
    flips = np.array([[1, 1, 0], [1, 0, 1], *[[0, 1, 1]] * 4], dtype=np.float64)
    assert _paired.fisher_monte_carlo(d, [flips], magnitude)[0] == pytest.approx(6 / 7)
    assert _paired.fisher_monte_carlo(d, [flips])[0] < 6 / 7  # the rounding is real


def test_bootstrap_p_value_ties_within_rounding() -> None:
    """The bootstrap p-value counts a resampled mean at exactly |observed| from it as far.

    d = (a, -a, -a, -a), observed -a/2. A resample with c copies of query 1 has mean
    (c/2 - 1) a: c = 0 (-a) and c = 2 (0) are at exactly a/2 from the observed (ties,
    far), c = 1 is the observed itself (not far), c = 3 is far. p = (3 + 1) / (4 + 1).
    """
    d = (_TIE_RUN - _TIE_BASE)[:, None]
    magnitude = np.array([np.mean(np.abs(_TIE_RUN) + np.abs(_TIE_BASE))])
    idx = np.array([[0, 1, 2, 3], [0, 0, 1, 2], [1, 2, 3, 1], [0, 0, 0, 1]])
    assert _paired.bootstrap(d, [idx], 0.5, magnitude)[0][0] == pytest.approx(4 / 5)
    assert _paired.bootstrap(d, [idx], 0.5)[0][0] < 4 / 5  # the rounding is real


def test_fisher_monte_carlo_given_flips_by_hand() -> None:
    """Fisher monte carlo given flips by hand."""
    # d = (0.5, 0.25, 0.25), observed mean 1/3. Flip patterns give the means
    # 1/3, 0, 0, -1/3, 1/6: one at least 1/3, five at most 1/3;
    # scipy's Monte Carlo rule: 2 * min(5 + 1, 1 + 1) / (5 + 1) = 2/3.
    d = np.array([[0.5], [0.25], [0.25]])
    flips = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 1], [1, 1, 1], [0, 1, 0]], dtype=np.float64)
    assert _paired.fisher_monte_carlo(d, [flips[:2], flips[2:]])[0] == pytest.approx(2 / 3)


def test_fisher_monte_carlo_near_permutation_test() -> None:
    """Fisher monte carlo near permutation test."""
    values = _runs(60, k=2, seed=3)
    values["run1"] = values["run0"] + np.random.default_rng(4).normal(0.02, 0.1, 60)
    ours = _row(lp.compare(_frame(values), baseline="run0", test="fisher", seed=1), "run1")
    expected = _scipy_fisher(values["run1"], values["run0"], n_resamples=9999, rng=5)
    # both are Monte Carlo estimates over 10^4 patterns: within 4 standard errors
    se = np.sqrt(expected * (1 - expected) / 9999)
    assert abs(ours["p_value"] - expected) < 4 * se + 1e-4
    again = _row(lp.compare(_frame(values), baseline="run0", test="fisher", seed=1), "run1")
    assert again["p_value"] == ours["p_value"]  # seeded


# ---- bootstrap ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [5, 40])
@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_bootstrap_equals_scipy_on_the_same_resamples(n: int, alpha: float) -> None:
    """Bootstrap equals scipy on the same resamples."""
    values = _runs(n, k=2, seed=n)
    d = values["run1"] - values["run0"]
    indices = np.random.default_rng(11).integers(0, n, (999, n))
    _, low, high = _paired.bootstrap(d[:, None], [indices[:500], indices[500:]], alpha)
    ref = scipy_stats.bootstrap(
        (d,),
        np.mean,
        n_resamples=999,
        method="percentile",
        confidence_level=1 - alpha,
        rng=np.random.default_rng(11),
    )
    assert low[0] == pytest.approx(ref.confidence_interval.low, rel=1e-12)
    assert high[0] == pytest.approx(ref.confidence_interval.high, rel=1e-12)


def test_bootstrap_through_compare_equals_scipy() -> None:
    """Bootstrap through compare equals scipy."""
    # compare draws its resamples as scipy does: the same seed gives the same interval.
    values = _runs(30, k=2, seed=8)
    result = lp.compare(_frame(values), baseline="run0", test="bootstrap", n_resamples=2000, seed=3)
    ref = scipy_stats.bootstrap(
        (values["run1"] - values["run0"],),
        np.mean,
        n_resamples=2000,
        method="percentile",
        rng=np.random.default_rng(3),
    )
    row = _row(result, "run1")
    assert row["ci_low"] == pytest.approx(ref.confidence_interval.low, rel=1e-12)
    assert row["ci_high"] == pytest.approx(ref.confidence_interval.high, rel=1e-12)


def test_bootstrap_p_value_by_hand() -> None:
    """Bootstrap p value by hand."""
    # d = (1, 0), observed mean 0.5; resamples (0,0)->1, (1,1)->0, (0,1)->0.5, (1,0)->0.5.
    # |mean* - 0.5| >= 0.5 for the first two: p = (2 + 1) / (4 + 1).
    d = np.array([[1.0], [0.0]])
    idx = np.array([[0, 0], [1, 1], [0, 1], [1, 0]])
    p, low, high = _paired.bootstrap(d, [idx], 0.5)
    assert p[0] == pytest.approx(3 / 5)
    assert low[0] == pytest.approx(np.quantile([1, 0, 0.5, 0.5], 0.25))


# ---- corrections and the output frame ----------------------------------------------------


def test_holm_and_bonferroni_by_hand() -> None:
    """Holm and bonferroni by hand."""
    p = np.array([0.01, 0.04, 0.03])
    np.testing.assert_allclose(_paired.adjust(p, "bonferroni"), [0.03, 0.12, 0.09])
    # Holm: sorted 0.01*3, 0.03*2, 0.04*1 -> 0.03, 0.06, max(0.06, 0.04) = 0.06
    np.testing.assert_allclose(_paired.adjust(p, "holm"), [0.03, 0.06, 0.06])
    np.testing.assert_allclose(_paired.adjust(p, None), p)


def test_table_shape_and_correction() -> None:
    """Table shape and correction."""
    values = _runs(25, k=4, seed=2)
    frame = _frame(values).with_columns(pl.col("ndcg@10").alias("p@5"))
    result = lp.compare(frame, baseline="run2", metrics=["ndcg@10", "p@5"], correction="bonferroni")
    table = result.table
    assert table.columns == [
        "run", "metric", "mean", "difference", "ci_low", "ci_high", "p_value", "significant"
    ]  # fmt: skip
    assert table.height == 8
    assert table["run"].to_list()[:2] == ["run2", "run2"]  # the baseline first
    others = table.filter(pl.col("run") != "run2", pl.col("metric") == "p@5")
    raw = [scipy_stats.ttest_rel(values[r], values["run2"]).pvalue for r in others["run"].to_list()]
    np.testing.assert_allclose(others["p_value"].to_numpy(), raw, rtol=1e-12)
    expected = [min(p * 3, 1.0) <= 0.05 for p in raw]
    assert others["significant"].to_list() == expected


def test_trec_long_and_mapping_inputs_agree() -> None:
    """Trec long and mapping inputs agree."""
    values = _runs(12, k=2, seed=5)
    mapping = {
        name: pl.DataFrame(
            {
                "qid": [f"q{i}" for i in range(12)] + ["all"],
                "measure": "map",
                "value": [*v, float(np.mean(v))],
            }
        )
        for name, v in values.items()
    }
    long = lp.compare(mapping, baseline="run0")
    wide = lp.compare(_frame(values, "map"), baseline="run0")
    assert long.table.equals(wide.table)


def test_several_query_columns_and_lazy_frames() -> None:
    """Queries keyed by (user, query), runs given as LazyFrames: the same numbers."""
    values = _runs(8, k=2, seed=6)
    mapping = {
        name: pl.LazyFrame(
            {"user": ["u1", "u2"] * 4, "query": [i // 2 for i in range(8)], "ndcg": v}
        )
        for name, v in values.items()
    }
    result = lp.compare(mapping, baseline="run0", by=["user", "query"])
    ref = scipy_stats.ttest_rel(values["run1"], values["run0"])
    assert _row(result, "run1", "ndcg")["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)


def test_by_takes_expressions() -> None:
    """``by`` as expressions: the query key made from other columns, scipy's numbers."""
    values = _runs(10, k=2, seed=11)
    frame = pl.concat(
        pl.DataFrame({"run": name, "qnum": list(range(10)), "ndcg": v})
        for name, v in values.items()
    )
    result = lp.compare(frame, baseline="run0", by=pl.col("qnum").cast(pl.String).alias("query"))
    ref = scipy_stats.ttest_rel(values["run1"], values["run0"])
    assert _row(result, "run1", "ndcg")["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
    assert result.n_queries == 10
    # a coarser key, not a query: two queries per key, so each run lists each key twice
    coarse = pl.col("qnum") // 2
    # the first run in row order is named, with its first keys in row order (every time)
    expected = r"^run 'run0' lists 5 query\(ies\) more than once \(e\.g\. 0, 1, 2, \.\.\.\)\.$"
    with pytest.raises(ValueError, match=expected):
        lp.compare(frame, baseline="run0", by=coarse)
    with pytest.raises(ValueError, match=r"the `by` column\(s\) \['nope'\] are not in"):
        lp.compare(frame, baseline="run0", by=pl.col("nope") + 1)
    # an expression Polars cannot run on the frame: refused as an option, Polars' reason kept
    with pytest.raises(lp.InvalidParameterError, match=r"^compare: a `by` expression cannot be"):
        lp.compare(frame, baseline="run0", by=pl.col("qnum").str.len_bytes())


def test_the_old_name_query_warns() -> None:
    """``query=`` (the old name of ``by``) warns, naming ``by``, and gives the same result."""
    values = _runs(8, k=2, seed=6)
    frame = _frame(values)
    with pytest.warns(FutureWarning, match="the parameter `query` is renamed `by`"):
        old = lp.compare(frame, baseline="run0", query="query")  # type: ignore[call-arg]
    assert old.table.equals(lp.compare(frame, baseline="run0", by="query").table)


def test_other_runs_row_order_changes_no_number() -> None:
    """Runs listing the baseline's queries in another order: the same numbers, to the bit.

    Each run's values are aligned to the baseline's query order, so whether a run's rows
    come in that order (read as they stand) or shuffled (joined on the query) changes
    nothing; the p-values are scipy's.
    """
    values = _runs(40, k=3, seed=8)
    ordered = _frame(values)
    base = ordered.filter(pl.col("run") == "run0")
    others = ordered.filter(pl.col("run") != "run0").sample(fraction=1.0, shuffle=True, seed=2)
    others = others.sort("run", maintain_order=True)  # the runs in the same order
    a = lp.compare(ordered, baseline="run0", correction=None)
    b = lp.compare(pl.concat([base, others]), baseline="run0", correction=None)
    assert a.table.equals(b.table)
    assert a.pairs.equals(b.pairs)
    for r in ("run1", "run2"):
        ref = scipy_stats.ttest_rel(values[r], values["run0"])
        assert _row(b, r)["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)


def test_runs_in_another_order_with_two_query_columns() -> None:
    """Queries keyed by (user, query), one run's rows reversed and one's shuffled: scipy's."""
    values = _runs(12, k=3, seed=9)
    keys = {"user": [f"u{i % 3}" for i in range(12)], "query": [i // 3 for i in range(12)]}
    frames = {name: pl.DataFrame({**keys, "ndcg": v}) for name, v in values.items()}
    frames["run1"] = frames["run1"].reverse()
    frames["run2"] = frames["run2"].sample(fraction=1.0, shuffle=True, seed=4)
    result = lp.compare(frames, baseline="run0", by=["user", "query"], correction=None)
    for r in ("run1", "run2"):
        ref = scipy_stats.ttest_rel(values[r], values["run0"])
        assert _row(result, r, "ndcg")["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
        low, high = ref.confidence_interval()
        assert _row(result, r, "ndcg")["ci_low"] == pytest.approx(low, rel=1e-12)
        assert _row(result, r, "ndcg")["ci_high"] == pytest.approx(high, rel=1e-12)


def test_report_superscripts() -> None:
    """Report superscripts."""
    n = 12
    rng = np.random.default_rng(0)
    base = rng.random(n)
    values = {"weak": base, "mid": base + 0.1 + rng.normal(0, 0.01, n), "strong": base + 0.3}
    result = lp.compare(_frame(values), baseline="weak", test="student")
    md = result.to_markdown(digits=3)
    lines = md.splitlines()
    assert lines[0] == "| # | run | ndcg@10 |"
    assert lines[2] == f"| a | weak | {np.mean(base):.3f} |"
    assert lines[3] == f"| b | mid | {np.mean(values['mid']):.3f}ᵃ |"
    assert lines[4] == f"| c | strong | {np.mean(values['strong']):.3f}ᵃᵇ |"
    tex = result.to_latex(digits=3)
    # strong has the highest mean: bold (the table has carried the best in bold since
    # to_latex got its caption; the superscripts are unchanged).
    assert f"c & strong & \\textbf{{{np.mean(values['strong']):.3f}}}$^{{ab}}$ \\\\" in tex


def test_print_shows_the_report_and_repr_says_what_it_is(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """print(comparison) is the Markdown report (as ranx's Report prints its table)."""
    n = 12
    rng = np.random.default_rng(0)
    base = rng.random(n)
    values = {"weak": base, "strong": base + 0.3}
    result = lp.compare(_frame(values), baseline="weak")
    print(result)
    printed = capsys.readouterr().out
    report = result.to_markdown()
    assert printed == report + "\n"
    assert str(result) == report
    assert result._repr_markdown_() == report
    assert printed.splitlines()[3] == f"| b | strong | {np.mean(base) + 0.3:.4f}ᵃ |"
    assert repr(result).splitlines() == [
        "<lp.Comparison of 2 runs against 'weak' over 12 queries; the numbers in .table and "
        ".pairs>",
        *report.splitlines(),
    ]


@pytest.mark.parametrize(
    ("n", "kwargs", "test_words"),
    [
        (12, {"test": "student"}, "Paired t-test"),
        (12, {"test": "fisher"}, "Fisher's randomization (sign-flip) test, exact over all "
         "$2^{12}$ sign patterns"),
        (30, {"test": "fisher", "n_resamples": 2000}, "Fisher's randomization (sign-flip) "
         "test, 2,000 random sign patterns"),
        (12, {"test": "bootstrap", "n_resamples": 999}, "Paired bootstrap test, 999 resamples"),
    ],
)  # fmt: skip
@pytest.mark.parametrize(
    ("correction", "corr_words"),
    [
        ("holm", "Holm-corrected over the pairs of runs per metric"),
        ("bonferroni", "Bonferroni-corrected over the pairs of runs per metric"),
        (None, "no correction"),
    ],
)
def test_latex_caption_names_the_test_correction_and_alpha(
    n: int, kwargs: dict[str, Any], test_words: str, correction: Correction | None, corr_words: str
) -> None:
    """to_latex's caption: the test (and its resamples), the correction, alpha, the queries."""
    result = lp.compare(
        _frame(_runs(n, k=2, seed=3)), baseline="run0", correction=correction, alpha=0.1,
        **kwargs,
    )  # fmt: skip
    lines = result.to_latex().splitlines()
    assert lines[:2] == [r"\begin{table}[ht]", r"\centering"]
    assert lines[2] == (
        rf"\caption{{{test_words}, two-sided, {corr_words}, $\alpha = 0.1$; {n} queries. "
        "Superscripts mark runs significantly better than the run of that letter; the best "
        "mean of each metric, in its direction, is in bold.}"
    )
    assert lines[3] == r"\begin{tabular}{llr}"
    assert lines[-2:] == [r"\end{tabular}", r"\end{table}"]


def test_latex_caption_options_and_bare_tabular() -> None:
    """caption=str writes that caption, label a label, caption=False the bare tabular."""
    result = lp.compare(_frame(_runs(10, k=2, seed=4)), baseline="run0")
    bare = result.to_latex(caption=False)
    assert bare.splitlines()[0] == r"\begin{tabular}{llr}"
    assert bare.splitlines()[-1] == r"\end{tabular}"
    mine = result.to_latex(caption=r"My runs, $n = 10$.", label="tab:mine")
    assert mine.splitlines()[:5] == [
        r"\begin{table}[ht]",
        r"\centering",
        r"\caption{My runs, $n = 10$.}",
        r"\label{tab:mine}",
        bare.splitlines()[0],
    ]
    assert mine.splitlines()[4:-1] == bare.splitlines()


def test_latex_bold_is_the_best_in_each_metrics_direction() -> None:
    """Bold: the highest NDCG, the lowest log loss, each run printing the best, none unknown."""
    q = [f"q{i}" for i in range(4)]
    ndcg = {"a": [0.2, 0.4, 0.1, 0.5], "b": [0.5, 0.6, 0.4, 0.7], "c": [0.5, 0.6, 0.4, 0.7]}
    loss = {"a": [0.3, 0.2, 0.4, 0.1], "b": [0.6, 0.5, 0.9, 0.8], "c": [0.5, 0.5, 0.5, 0.5]}
    wait = {"a": [1.0, 2.0, 3.0, 4.0], "b": [9.0, 9.0, 9.0, 9.0], "c": [2.0, 2.0, 2.0, 2.0]}
    frame = pl.concat(
        pl.DataFrame({"run": r, "query": q, "ndcg@10": ndcg[r], "log_loss": loss[r],
                      "latency": wait[r]})
        for r in "abc"
    )  # fmt: skip
    result = lp.compare(frame, baseline="a", correction=None)
    assert result.directions == {"ndcg@10": "higher", "log_loss": "lower", "latency": None}
    rows = {
        line.split(" & ")[1]: [cell.split("$^")[0] for cell in line[:-3].split(" & ")[2:]]
        for line in result.to_latex().splitlines()
        if line[:4] in ("a & ", "b & ", "c & ")
    }
    # means by hand: ndcg a 0.3, b = c 0.55; log_loss a 0.25, b 0.7, c 0.5; latency 2.5, 9, 2
    assert rows == {
        "a": ["0.3000", r"\textbf{0.2500}", "2.5000"],
        "b": [r"\textbf{0.5500}", "0.7000", "9.0000"],
        "c": [r"\textbf{0.5500}", "0.5000", "2.0000"],
    }


def test_lower_is_better_reverses_the_superscripts() -> None:
    """Lower is better reverses the superscripts."""
    x = np.linspace(0.1, 0.9, 10)
    frame = _frame({"a": x, "b": x + 0.2}, metric="label_ranking_loss")
    md = lp.compare(frame, baseline="a").to_markdown()
    assert "| a | a | 0.5000ᵇ |" in md


@pytest.mark.parametrize("column", ["brier", "brier_score", "brier_score_loss", "log_loss"])
def test_a_higher_loss_is_not_better(column: str) -> None:
    """A run with a higher Brier score (log loss) is worse, and significantly so here.

    The per-query values are lp.evaluate's, checked against scikit-learn's
    brier_score_loss / log_loss; the run with the larger loss must get no superscript.
    """
    sk = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(12)
    n_q, n_rows = 12, 30
    truth = rng.integers(0, 2, (n_q, n_rows))
    sharp = np.clip(np.where(truth == 1, 0.8, 0.2) + rng.normal(0, 0.05, truth.shape), 0.01, 0.99)
    vague = np.clip(0.5 + 0.1 * (sharp - 0.5), 0.01, 0.99)  # same order, far from the truth
    runs = {}
    for name, prob in (("sharp", sharp), ("vague", vague)):
        log = pl.DataFrame(
            {"query": np.repeat(np.arange(n_q), n_rows), "y": truth.ravel(), "p": prob.ravel()}
        )
        runs[name] = lp.evaluate(log, [column], by="query", y_true="y", y_score="p").sort("query")
    score = sk.log_loss if column == "log_loss" else sk.brier_score_loss
    for name, prob in (("sharp", sharp), ("vague", vague)):
        expected = [score(truth[q], prob[q]) for q in range(n_q)]
        np.testing.assert_allclose(runs[name][column].to_numpy(), expected, rtol=1e-12)
    result = lp.compare(runs, baseline="vague")
    assert _row(result, "sharp", column)["difference"] < 0  # sharp: the lower loss
    assert _row(result, "sharp", column)["significant"] is True
    better = {(r, o): b for r, o, b in result.pairs.select("run", "other", "better").iter_rows()}
    assert better == {("vague", "sharp"): False, ("sharp", "vague"): True}
    assert result.directions == {column: "lower"}
    md = result.to_markdown().splitlines()
    assert md[2].startswith("| a | vague | ")
    assert md[2].endswith(" |")
    assert "ᵇ" not in md[2]
    assert md[3].endswith("ᵃ |")


def test_lower_is_better_names_exact_columns() -> None:
    """lower_is_better=['recall@100'] reverses recall@100 and not recall@1000."""
    x = np.linspace(0.1, 0.7, 10)
    frame = pl.concat(
        pl.DataFrame(
            {"run": r, "query": [f"q{i}" for i in range(10)], "recall@100": v, "recall@1000": v}
        )  # fmt: skip
        for r, v in (("a", x), ("b", x + 0.2))
    )
    result = lp.compare(frame, baseline="a", lower_is_better=["recall@100"])
    assert result.directions == {"recall@100": "lower", "recall@1000": "higher"}
    better = result.pairs.filter(pl.col("run") == "b").select("metric", "better").rows()
    assert dict(better) == {"recall@100": False, "recall@1000": True}
    assert "| b | b | 0.6000 | 0.6000ᵃ |" in result.to_markdown()
    assert "| a | a | 0.4000ᵇ | 0.4000 |" in result.to_markdown()


def test_unknown_direction_gets_no_better_mark() -> None:
    """A column the registry does not know: compared, but no run is called better on it."""
    x = np.linspace(0.1, 0.7, 10)
    frame = pl.concat(
        pl.DataFrame(
            {"run": r, "query": [f"q{i}" for i in range(10)], "latency": v, "my_error": v}
        )  # fmt: skip
        for r, v in (("a", x), ("b", x + 0.2))
    )
    result = lp.compare(frame, baseline="a")
    assert result.directions == {"latency": None, "my_error": None}
    assert result.pairs["better"].null_count() == result.pairs.height
    assert _row(result, "b", "latency")["significant"] is True  # the test still runs
    md = result.to_markdown()
    assert "ᵃ" not in md
    assert "ᵇ" not in md
    assert md.splitlines()[-1] == (
        "No superscripts on 'latency', 'my_error': whether higher or lower is better is not "
        "known (name it in compare's higher_is_better= or lower_is_better=)."
    )
    tex = result.to_latex()
    assert "$^" not in tex
    assert (
        r"\multicolumn{4}{l}{\footnotesize No superscripts on 'latency', 'my\_error': whether"
        in tex
    )
    named = lp.compare(frame, baseline="a", higher_is_better="my_error", lower_is_better="latency")
    assert named.directions == {"latency": "lower", "my_error": "higher"}
    md = named.to_markdown()
    assert "| a | a | 0.4000ᵇ | 0.4000 |" in md
    assert "| b | b | 0.6000 | 0.6000ᵃ |" in md
    assert "No superscripts" not in md
    assert "multicolumn" not in named.to_latex()


@pytest.mark.parametrize(
    ("kwargs", "msg"),
    [
        (
            {"lower_is_better": ["ndcg@10"], "higher_is_better": ("ndcg@10",)},
            "The 'lower_is_better' and 'higher_is_better' parameters of compare both name "
            "'ndcg@10': a metric improves one way.",
        ),
        (
            {"lower_is_better": ["ndcg"]},
            "The 'lower_is_better' parameter of compare names 'ndcg', which is not a compared "
            "metric (the metrics are ['ndcg@10']; names match exactly).",
        ),
        (
            {"higher_is_better": ["ndcg@1"]},
            "The 'higher_is_better' parameter of compare names 'ndcg@1', which is not a "
            "compared metric",
        ),
        (
            {"higher_is_better": [1]},
            "The 'higher_is_better' parameter of compare must be a str or a sequence of str "
            "(metric column names). Got [1] instead.",
        ),
    ],
)
def test_direction_options_refused(kwargs: dict[str, object], msg: str) -> None:
    with pytest.raises(lp.InvalidParameterError, match=re.escape(msg)):
        lp.compare(_bad(), baseline="a", **kwargs)  # type: ignore[arg-type]


def test_missing_intersect() -> None:
    """Missing intersect."""
    values = _runs(10, k=2, seed=9)
    frame = _frame(values).filter(~((pl.col("run") == "run1") & (pl.col("query") == "q3")))
    result = lp.compare(frame, baseline="run0", missing="intersect")
    keep = np.arange(10) != 3
    ref = scipy_stats.ttest_rel(values["run1"][keep], values["run0"][keep])
    assert _row(result, "run1")["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
    assert result.n_queries == 9


# ---- bad input: one sentence each --------------------------------------------------------


def _bad() -> pl.DataFrame:
    return _frame({"a": np.array([0.1, 0.2, 0.3]), "b": np.array([0.3, 0.2, 0.5])})


@pytest.mark.parametrize(
    ("make", "kwargs", "msg"),
    [
        (
            lambda: _bad().filter(~((pl.col("run") == "b") & (pl.col("query") == "q1"))),
            {},
            "run 'b' lacks 1 of the 3 queries of the baseline 'a' ('q1'): paired tests need "
            "the same queries in every run. Score the missing queries (0 for a query a run did "
            "not answer: trec_eval -c, lp.trec.evaluate(complete=True)), or pass "
            "missing='intersect' to compare on the queries every run has.",
        ),
        (
            lambda: pl.concat([_bad(), pl.DataFrame({"run": "b", "query": "q9", "ndcg@10": 0.1})]),
            {},
            "run 'b' has 1 queries that the baseline 'a' lacks ('q9'): paired tests need",
        ),
        (
            lambda: {
                "a": pl.DataFrame({"query": ["q1", "q2"], "ndcg": [0.1, 0.2], "map": [0.1, 0.2]}),
                "b": pl.DataFrame({"query": ["q1", "q2"], "ndcg": [0.1, 0.2]}),
            },
            {},
            "run 'b' has no metric 'map': every run needs every metric (its columns are "
            "['query', 'ndcg']).",
        ),
        (
            lambda: _bad().head(1).vstack(_bad().slice(3, 1)),
            {},
            "compare needs at least 2 queries scored by every run; got 1.",
        ),
        (
            lambda: _bad().with_columns(
                pl.when(pl.col("query") == "q2")
                .then(float("nan"))
                .otherwise(pl.col("ndcg@10"))
                .alias("ndcg@10")
            ),
            {},
            "run 'a' has 1 NaN value(s) of 'ndcg@10' (queries 'q2'): a finite per-query value "
            "is needed for every query (score those queries, or drop them from every run).",
        ),
        (_bad, {"baseline": "c"}, "baseline 'c' is not one of the runs ['a', 'b']."),
        (
            _bad,
            {"test": "kruskal"},
            "The 'test' parameter of compare must be one of ['bootstrap', 'fisher', 'student', "
            "'tukey', 'wilcoxon']. Got 'kruskal' instead.",
        ),
        (
            _bad,
            {"correction": "bh"},
            "The 'correction' parameter of compare must be one of ['bonferroni', 'holm'] or "
            "None. Got 'bh' instead.",
        ),
        (
            _bad,
            {"alpha": 1.5},
            "The 'alpha' parameter of compare must be a float in the range (0, 1). Got 1.5 "
            "instead.",
        ),
        (
            _bad,
            {"n_resamples": 0},
            "The 'n_resamples' parameter of compare must be an int in the range [1, inf). "
            "Got 0 instead.",
        ),
        (
            lambda: _bad().rename({"run": "system"}),
            {},
            "per_query has no run column 'run' (columns ['system', 'query', 'ndcg@10']); pass "
            "run= naming it, or a mapping run name -> per-query frame.",
        ),
        (
            lambda: pl.concat([_bad(), _bad().head(1)]),
            {},
            "run 'a' lists 1 query(ies) more than once (e.g. 'q0').",
        ),
        (
            _bad,
            {"metrics": ["ndcg@10", "ndcg@10"]},
            "metrics: each metric once; got ['ndcg@10', 'ndcg@10'].",
        ),
        (
            lambda: {
                "a": _bad().filter(pl.col("run") == "a"),
                "b": _bad().filter(pl.col("run") == "b"),
            },
            {"metrics": ["ndcg@10", "ndcg@10"]},
            "metrics: each metric once; got ['ndcg@10', 'ndcg@10'].",
        ),
        (
            lambda: _bad().filter(pl.col("run") == "a"),
            {},
            "compare needs at least 2 runs; got ['a'].",
        ),
        (_bad, {"metrics": ["mrr"]}, "per_query has no metric column 'mrr'"),
    ],
)
def test_bad_input(make: object, kwargs: dict[str, object], msg: str) -> None:
    """Bad input."""
    options: dict[str, object] = {"baseline": "a", **kwargs}
    with pytest.raises(ValueError, match=re.escape(msg)):
        lp.compare(make(), **options)  # type: ignore[operator, arg-type]


@pytest.mark.parametrize("test", ["student", "fisher", "bootstrap"])
@pytest.mark.parametrize(
    ("values", "kinds", "queries"),
    [
        ([np.inf, 0.2, 0.5], "infinite", "'q0'"),
        ([0.3, -np.inf, 0.5], "infinite", "'q1'"),
        ([np.inf, None, -np.inf], "null or infinite", "'q0', 'q1', 'q2'"),
        ([np.nan, np.inf, 0.5], "NaN or infinite", "'q0', 'q1'"),
    ],
)
def test_non_finite_values_refused(
    test: str, values: list[float | None], kinds: str, queries: str
) -> None:
    """+inf and -inf are refused as null and NaN are, naming the run, metric and queries."""
    frame = pl.concat(
        [
            _bad().filter(pl.col("run") == "a"),
            pl.DataFrame(
                {"run": "b", "query": ["q0", "q1", "q2"], "ndcg@10": values},
                schema={"run": pl.String, "query": pl.String, "ndcg@10": pl.Float64},
            ),
        ]
    )
    count = len(queries.split(", "))
    msg = (
        f"run 'b' has {count} {kinds} value(s) of 'ndcg@10' (queries {queries}): a finite "
        "per-query value is needed for every query (score those queries, or drop them from "
        "every run)."
    )
    with pytest.raises(ValueError, match=re.escape(msg)):
        lp.compare(frame, baseline="a", test=test)  # type: ignore[arg-type]
    long = {
        name: pl.DataFrame(
            {"qid": ["q0", "q1", "q2"], "measure": "map", "value": v},
            schema={"qid": pl.String, "measure": pl.String, "value": pl.Float64},
        )
        for name, v in (("a", [0.1, 0.2, 0.3]), ("b", values))
    }
    with pytest.raises(ValueError, match=re.escape(msg.replace("ndcg@10", "map"))):
        lp.compare(long, baseline="a", test=test)  # type: ignore[arg-type]


_OPTION_ERRORS = [
    (
        {"seed": -1},
        "The 'seed' parameter of compare must be an int in the range [0, inf) or None. "
        "Got -1 instead.",
    ),
    (
        {"seed": 1.5},
        "The 'seed' parameter of compare must be an int in the range [0, inf) or None. "
        "Got 1.5 instead.",
    ),
    (
        {"seed": "0"},
        "The 'seed' parameter of compare must be an int in the range [0, inf) or None. "
        "Got '0' instead.",
    ),
    (
        {"n_resamples": 10.0},
        "The 'n_resamples' parameter of compare must be an int in the range [1, inf). "
        "Got 10.0 instead.",
    ),
    (
        {"alpha": True},
        "The 'alpha' parameter of compare must be a float in the range (0, 1). Got True instead.",
    ),
    (
        {"alpha": float("nan")},
        "The 'alpha' parameter of compare must be a float in the range (0, 1). Got nan instead.",
    ),
    (
        {"missing": "drop"},
        "The 'missing' parameter of compare must be one of ['intersect', 'raise']. "
        "Got 'drop' instead.",
    ),
    (
        {"baseline": 1},
        "The 'baseline' parameter of compare must be a str (a run name or column). Got 1 instead.",
    ),
    (
        {"run": None},
        "The 'run' parameter of compare must be a str (a run name or column). Got None instead.",
    ),
    (
        {"metrics": 3},
        "The 'metrics' parameter of compare must be a str or a sequence of str (metric column "
        "names). Got 3 instead.",
    ),
    (
        {"by": ["query", 2]},
        "The 'by' parameter of compare must be a column name or a polars expression, or a "
        "non-empty sequence of them. Got ['query', 2] instead.",
    ),
]


@pytest.mark.parametrize("test", ["student", "fisher", "bootstrap"])
@pytest.mark.parametrize(("kwargs", "msg"), _OPTION_ERRORS)
def test_options_refused_for_every_test(test: str, kwargs: dict[str, object], msg: str) -> None:
    """A bad option is refused before any data is read, whatever the test, in one sentence."""
    options: dict[str, object] = {"baseline": "a", "test": test, **kwargs}
    with pytest.raises(lp.InvalidParameterError, match=f"^{re.escape(msg)}$"):
        lp.compare(_bad(), **options)  # type: ignore[arg-type]
    # before the data: the same sentence with a frame compare would refuse
    with pytest.raises(lp.InvalidParameterError, match=f"^{re.escape(msg)}$"):
        lp.compare(_bad().head(1), **options)  # type: ignore[arg-type]


def test_option_errors_are_invalid_parameter_errors_data_errors_are_not() -> None:
    with pytest.raises(lp.InvalidParameterError):
        lp.compare(_bad(), baseline="a", test="kruskal")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="baseline 'c' is not one of the runs") as info:
        lp.compare(_bad(), baseline="c")
    assert not isinstance(info.value, lp.InvalidParameterError)


def test_seed_zero_and_none_accepted() -> None:
    """seed=0 (and a NumPy integer) reproduce; None draws fresh resamples."""
    frame = _frame(_runs(30, k=2, seed=1))
    a = lp.compare(frame, baseline="run0", test="bootstrap", seed=0, n_resamples=200)
    # a NumPy integer is taken at run time, though the signature says int
    seed = np.int64(0)
    b = lp.compare(frame, baseline="run0", test="bootstrap", seed=seed, n_resamples=200)  # type: ignore[arg-type]
    assert a.table.equals(b.table)
    fresh = lp.compare(frame, baseline="run0", test="bootstrap", seed=None, n_resamples=200)
    assert fresh.table["difference"].equals(a.table["difference"])
    assert 0 < fresh.table["p_value"][1] <= 1


# ---- the command line --------------------------------------------------------------------

TREC = Path(__file__).resolve().parent / "data" / "trec_eval"


def _reversed_run(path: Path) -> Path:
    """The results.test run with every score negated: a much worse run on the same queries."""
    lines = (TREC / "results.test").read_text().splitlines()
    out = []
    for line in lines:
        f = line.split()
        out.append(" ".join([*f[:4], str(-float(f[4])), *f[5:]]))
    path.write_text("\n".join(out) + "\n")
    return path


def test_cli_compare_prints_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`lodestar-polars trec QRELS RUN1 RUN2 -m ... --compare` prints lp.compare's table."""
    worse = _reversed_run(tmp_path / "reversed.test")
    qrels, best = TREC / "qrels.test", TREC / "results.test"
    argv = ["trec", str(qrels), str(best), str(worse), "-m", "map", "-m", "P.10", "-m", "num_ret"]
    assert cli_main([*argv, "--compare", "--test", "fisher"]) == 0
    per_query = {
        name: lp.trec.evaluate(qrels=qrels, run=path, measures=["map", "P.10"], per_query=True)
        for name, path in (("results.test", best), ("reversed.test", worse))
    }
    expected = lp.compare(per_query, baseline="results.test", test="fisher")
    assert capsys.readouterr().out == expected.to_markdown() + "\n"
    # several runs without --compare: refused, not silently the first
    assert cli_main(argv) == 2
    assert "2 runs given; several runs are compared with --compare" in capsys.readouterr().err


def test_cli_compare_refuses_runs_with_different_queries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run that lacks a query is named on stderr, exit status 2."""
    lines = (TREC / "results.test").read_text().splitlines()
    short = tmp_path / "short.test"
    short.write_text("\n".join(line for line in lines if not line.startswith("301")) + "\n")
    qrels, best = TREC / "qrels.test", TREC / "results.test"
    assert cli_main(["trec", str(qrels), str(best), str(short), "-m", "map", "--compare"]) == 2
    err = capsys.readouterr().err
    assert "run 'short.test' lacks 1 of the 3 queries of the baseline 'results.test' ('301')" in err


@pytest.mark.parametrize("content", ["", "\n  \n"], ids=["empty", "blank-lines"])
@pytest.mark.parametrize("where", ["second", "first", "after-the-options"])
def test_cli_compare_names_an_empty_run_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, where: str
) -> None:
    """An empty run file is named by its path, whichever place it takes."""
    empty = tmp_path / "empty.test"
    empty.write_text(content)
    qrels, best = str(TREC / "qrels.test"), str(TREC / "results.test")
    argv = {
        "second": [qrels, best, str(empty), "-m", "map", "--compare"],
        "first": [qrels, str(empty), best, "-m", "map", "--compare"],
        "after-the-options": [qrels, best, "-m", "map", "--compare", str(empty)],
    }[where]
    assert cli_main(["trec", *argv]) == 2
    assert capsys.readouterr().err == (
        f"lodestar-polars trec: error: run file {str(empty)!r} is empty: it has no line "
        "`qid Q0 docno rank score tag` to compare (with -c, as trec_eval -c, each judged "
        "query of an empty run scores 0).\n"
    )


def test_cli_compare_empty_run_with_c_scores_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With -c an empty run is trec_eval -c's: every judged query scores 0."""
    empty = tmp_path / "empty.test"
    empty.write_text("")
    qrels, best = TREC / "qrels.test", TREC / "results.test"
    argv = ["trec", str(qrels), str(best), str(empty), "-m", "map", "-c", "--compare"]
    assert cli_main([*argv, "--format", "csv"]) == 0
    table = pl.read_csv(io.StringIO(capsys.readouterr().out))
    per_query = lp.trec.evaluate(qrels=qrels, run=best, measures="map", per_query=True)
    values = per_query.filter(pl.col("qid") != "all")["value"].to_numpy()
    row = table.filter(pl.col("run") == "empty.test").row(0, named=True)
    assert row["mean"] == 0.0
    assert row["difference"] == pytest.approx(-values.mean(), rel=1e-12)
    assert row["p_value"] == pytest.approx(
        scipy_stats.ttest_rel(np.zeros_like(values), values).pvalue, rel=1e-12
    )


def test_cli_compare_names_a_run_without_judged_queries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.test"
    other.write_text("999 Q0 d1 1 0.5 t\n")
    qrels, best = TREC / "qrels.test", TREC / "results.test"
    assert cli_main(["trec", str(qrels), str(best), str(other), "-m", "map", "--compare"]) == 2
    assert capsys.readouterr().err == (
        f"lodestar-polars trec: error: run file {str(other)!r}: no query to evaluate: no query "
        "of the run has judgments\n"
    )
