"""lp.compare's Wilcoxon and Tukey tests, wins/ties/losses, the shared bootstrap (issues 19, 21).

References: ``scipy.stats.wilcoxon`` (its defaults: zero_method="wilcox", correction=False,
method="auto"), ``scipy.stats.tukey_hsd`` and ``scipy.stats.studentized_range`` (ranx's
Tukey test is ``tukey_hsd``: checked through ranx's own ``compute_statistical_significance``
too), Student's t for the two-run studentized range (an identity), and hand counts.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._compare import paired as _paired
from lodestar_polars._compare import tukey as _tukey
from lodestar_polars._compare import wilcoxon as _wilcoxon
from lodestar_polars._core import bootstrap as kernel

scipy_stats = pytest.importorskip("scipy.stats")

Array = npt.NDArray[np.float64]


def _scipy_wilcoxon(d: Array) -> float:
    with warnings.catch_warnings():  # scipy warns on zeros and ties in the exact regime
        warnings.simplefilter("ignore")
        return float(scipy_stats.wilcoxon(d).pvalue)


def _regime(d: Array) -> str:
    """Which of scipy 1.17's method="auto" branches a sample takes."""
    nonzero = np.abs(d[d != 0])
    ties = np.unique(nonzero).size < nonzero.size
    if d.size > 50:
        return "normal"
    if not ties and nonzero.size == d.size:
        return "exact"
    return "permutation" if d.size <= 13 else "normal"


def _sample(rng: np.random.Generator, case: int) -> Array:
    """A sample of paired differences; ties and zeros at 11 to 13 become 10.

    scipy's permutation test takes ~1 s at n = 13: the boundary test has a few.
    """
    n = int(rng.integers(2, 11) if case % 3 == 0 else rng.integers(2, 90))
    kind = case % 5
    if kind in (1, 2, 3) and 10 < n <= 13:
        n = 10
    if kind == 0:  # continuous: no ties, no zeros
        return rng.standard_normal(n)
    if kind == 1:  # a few levels: many ties and zeros (P@10-like differences)
        return rng.integers(-3, 4, n).astype(np.float64) / 10
    if kind == 2:  # rounded: some ties
        return np.round(rng.standard_normal(n), 1)
    if kind == 3:  # continuous with zeros
        d = rng.standard_normal(n)
        d[rng.random(n) < 0.3] = 0.0
        return d
    return np.round(rng.standard_normal(n) + 0.8, 2)  # shifted: small p-values


# ---- Wilcoxon against scipy ---------------------------------------------------------------


def test_wilcoxon_matches_scipy_in_every_regime() -> None:
    """800 random samples over the exact, permutation and normal regimes, scipy's p-values.

    Within 1e-12 relative, or 1e-15 absolute: scipy's exact p-value sums float
    probabilities (1 - a sum near 1 on one side), ours divides an integer count by 2**n,
    so the two may differ by an ulp of 1 on a p-value near 2**-50.
    """
    rng = np.random.default_rng(2026)
    seen: dict[str, int] = {"exact": 0, "permutation": 0, "normal": 0}
    for case in range(800):
        d = _sample(rng, case)
        if not np.any(d):
            continue
        seen[_regime(d)] += 1
        got = _wilcoxon.wilcoxon(d[:, None])[0]
        assert got == pytest.approx(_scipy_wilcoxon(d), rel=1e-12, abs=1e-15), (case, d)
    assert min(seen.values()) >= 120, seen  # every regime well covered


@pytest.mark.parametrize("n", [13, 14, 50, 51])
def test_wilcoxon_at_the_regime_boundaries(n: int) -> None:
    """At n = 13/14 (permutation/normal with ties) and 50/51 (exact/normal): scipy's numbers."""
    rng = np.random.default_rng(n)
    for _ in range(3 if n == 13 else 30):
        for d in (rng.standard_normal(n), np.round(rng.standard_normal(n), 1)):
            got = _wilcoxon.wilcoxon(d[:, None])[0]
            assert got == pytest.approx(_scipy_wilcoxon(d), rel=1e-12, abs=1e-15)


def test_wilcoxon_by_hand() -> None:
    """Three positive differences: r_plus 6 of at most 6, P(R >= 6) = 1/8, p = 2/8.

    With a zero (dropped, "wilcox") and a tie the permutation regime: d = (0, 1, -1, 2),
    non-zero ranks 1.5, 1.5, 3; r_plus = 4.5; of the 16 sign patterns (the zero's two signs
    alike) the r_plus values are 0, 1.5, 1.5, 3, 3, 4.5, 4.5, 6, each twice: 10 of 16 are
    <= 4.5 and 6 are >= 4.5, p = 2 * 6/16 = 0.75.
    """
    assert _wilcoxon.wilcoxon(np.array([[1.0], [2.0], [3.0]]))[0] == 0.25
    assert _wilcoxon.wilcoxon(np.array([[0.0], [1.0], [-1.0], [2.0]]))[0] == 0.75
    assert _scipy_wilcoxon(np.array([0.0, 1.0, -1.0, 2.0])) == 0.75


def test_wilcoxon_identical_runs_get_one_where_scipy_gives_nan() -> None:
    """All zeros: scipy's permutation regime (n <= 13) gives 1, its normal regime NaN; we 1."""
    for n in (5, 13):
        assert _wilcoxon.wilcoxon(np.zeros((n, 1)))[0] == 1.0 == _scipy_wilcoxon(np.zeros(n))
    for n in (14, 30, 80):
        assert _wilcoxon.wilcoxon(np.zeros((n, 1)))[0] == 1.0
        assert np.isnan(_scipy_wilcoxon(np.zeros(n)))


def test_wilcoxon_columns_at_once_equal_each_alone() -> None:
    """Vectorised over comparisons: every column's p-value bit for bit its own."""
    rng = np.random.default_rng(7)
    for n in (9, 40, 300):
        columns = [
            rng.standard_normal(n),  # exact (n <= 50) or normal
            np.round(rng.standard_normal(n), 1),  # ties: permutation or normal
            np.where(rng.random(n) < 0.4, 0.0, rng.standard_normal(n)),  # zeros
            np.zeros(n),  # identical runs
        ]
        d = np.stack(columns, axis=1)
        together = _wilcoxon.wilcoxon(d)
        alone = [_wilcoxon.wilcoxon(d[:, [c]])[0] for c in range(d.shape[1])]
        np.testing.assert_array_equal(together, alone)


def test_compare_wilcoxon_is_scipys_for_every_pair() -> None:
    """lp.compare(test="wilcoxon"): each pair's p-value scipy's, the interval Student's."""
    rng = np.random.default_rng(3)
    for n in (10, 45, 200):
        base = rng.random(n)
        values = {f"r{i}": np.clip(base + rng.normal(0.04 * i, 0.1, n), 0, 1) for i in range(4)}
        values["r3"] = np.round(values["r3"], 1)  # ties
        frame = pl.concat(
            pl.DataFrame({"run": r, "query": [f"q{j}" for j in range(n)], "ndcg@10": v})
            for r, v in values.items()
        )
        result = lp.compare(frame, baseline="r0", test="wilcoxon")
        student = lp.compare(frame, baseline="r0", test="student")
        assert result.n_resamples is None
        for row in result.pairs.iter_rows(named=True):
            ref = _scipy_wilcoxon(values[row["run"]] - values[row["other"]])
            assert row["p_value"] == pytest.approx(ref, rel=1e-12, abs=1e-15)
        for col in ("difference", "ci_low", "ci_high"):
            ours, theirs = result.table[col].to_numpy(), student.table[col].to_numpy()
            np.testing.assert_array_equal(ours, theirs)


# ---- the studentized range and Tukey's HSD ------------------------------------------------


def test_two_run_studentized_range_is_students_t() -> None:
    """k = 2: Q / sqrt(2) is |T| on the same degrees of freedom, an exact identity."""
    q = np.array([0.1, 0.7, 1.5, 3.0, 5.0, 8.0, 12.0])
    for df in (1.0, 3.0, 12.0, 200.0, 5000.0, 99_999.0):
        expected = 2 * scipy_stats.t.sf(q / np.sqrt(2), df)
        got = _tukey.studentized_range_sf(q, 2, df)
        np.testing.assert_allclose(got, expected, rtol=1e-11, atol=0)
    expected = 2 * scipy_stats.norm.sf(q / np.sqrt(2))  # df >= 1e5: scipy's df = inf limit
    np.testing.assert_allclose(_tukey.studentized_range_sf(q, 2, 2e5), expected, rtol=1e-12)


@pytest.mark.parametrize("k", [3, 4, 6, 10])
def test_studentized_range_matches_scipy(k: int) -> None:
    """Within 1e-10 absolute of scipy, whose sf is 1 - cdf with cdf integrated to epsabs=1e-11.

    At df = 99,999 (scipy's last double integral) scipy's cdf is ~7e-11 high, the same
    offset at every q (so at q = 9, p ~ 1e-9, it is 5 % of the p-value): the k = 2 identity
    above holds ours to 1e-11 relative there, and doubling our nodes moves ours by < 1e-15.
    """
    q = np.array([0.05, 0.5, 1.0, 2.0, 3.0, 4.5, 6.0, 9.0])
    for df in (2.0, 7.0, 40.0, 1000.0, 99_999.0, 100_000.0, 1e6):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = scipy_stats.studentized_range.sf(q, k, df)
        got = _tukey.studentized_range_sf(q, k, df)
        np.testing.assert_allclose(got, expected, atol=1e-10 if df == 99_999.0 else 2e-12)


def test_studentized_range_quantile_matches_scipy() -> None:
    for k, df, alpha in ((3, 10.0, 0.05), (5, 400.0, 0.01), (4, 2e5, 0.1), (2, 5.0, 0.05)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = scipy_stats.studentized_range.ppf(1 - alpha, k, df)
        got = _tukey.studentized_range_isf(alpha, k, df)
        assert got == pytest.approx(expected, rel=1e-9)
        assert _tukey.studentized_range_sf(got, k, df)[0] == pytest.approx(alpha, rel=1e-11)


def _tukey_frame(n: int, k: int, seed: int) -> tuple[dict[str, Array], pl.DataFrame]:
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    values = {f"r{i}": np.clip(base + rng.normal(0.02 * i, 0.2, n), 0, 1) for i in range(k)}
    frame = pl.concat(
        pl.DataFrame({"run": r, "query": [f"q{j}" for j in range(n)], "map": v})
        for r, v in values.items()
    )
    return values, frame


@pytest.mark.parametrize(("n", "k"), [(6, 3), (25, 4), (400, 5), (30_000, 4)])
def test_tukey_matches_scipy_tukey_hsd(n: int, k: int) -> None:
    """p-values (2e-11 absolute: scipy's integration) and the 1 - alpha interval."""
    values, frame = _tukey_frame(n, k, seed=n)
    result = lp.compare(frame, baseline="r0", test="tukey", alpha=0.1)
    names = list(values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = scipy_stats.tukey_hsd(*values.values())
        ci = ref.confidence_interval(0.9)
    for row in result.pairs.iter_rows(named=True):
        i, j = names.index(row["run"]), names.index(row["other"])
        assert row["p_value"] == pytest.approx(ref.pvalue[i, j], abs=2e-11)
        assert row["p_adjusted"] == row["p_value"]  # family-wise already: no correction
    for row in result.table.filter(pl.col("run") != "r0").iter_rows(named=True):
        i = names.index(row["run"])
        assert row["difference"] == pytest.approx(ref.statistic[i, 0], rel=1e-12)
        assert row["ci_low"] == pytest.approx(ci.low[i, 0], rel=1e-9, abs=1e-12)
        assert row["ci_high"] == pytest.approx(ci.high[i, 0], rel=1e-9, abs=1e-12)
        assert row["significant"] == (row["p_value"] <= 0.1)
    assert result.correction is None


def test_tukey_matches_ranx() -> None:
    """ranx's own Tukey step (compute_statistical_significance), p-values and verdicts."""
    ranx_tests = pytest.importorskip("ranx.statistical_tests")
    values, frame = _tukey_frame(300, 4, seed=11)
    names = list(values)
    scores = {name: {"map": values[name]} for name in names}
    ref = ranx_tests.compute_statistical_significance(names, scores, stat_test="tukey", max_p=0.05)
    result = lp.compare(frame, baseline="r0", test="tukey")
    for row in result.pairs.iter_rows(named=True):
        theirs = ref[frozenset([row["run"], row["other"]])]["map"]
        assert row["p_value"] == pytest.approx(theirs["p_value"], abs=2e-11)
        assert (row["p_adjusted"] <= 0.05) == theirs["significant"]


def test_tukey_identical_runs_and_zero_variance() -> None:
    """Equal means: p = 1; different means with no spread at all: p = 0."""
    q = [f"q{i}" for i in range(4)]
    runs = ["a"] * 4 + ["b"] * 4
    same = pl.DataFrame({"run": runs, "query": q * 2, "map": [0.1, 0.2, 0.3, 0.4] * 2})
    assert lp.compare(same, baseline="a", test="tukey").pairs["p_value"].to_list() == [1.0, 1.0]
    flat = pl.DataFrame({"run": runs, "query": q * 2, "map": [0.2] * 4 + [0.5] * 4})
    assert lp.compare(flat, baseline="a", test="tukey").pairs["p_value"].to_list() == [0.0, 0.0]


def test_tukey_report_says_family_wise() -> None:
    _, frame = _tukey_frame(20, 3, seed=1)
    result = lp.compare(frame, baseline="r0", test="tukey")
    assert result.to_markdown().splitlines()[-1] == (
        "Superscripts: significantly better than the runs with those letters (tukey test, "
        "two-sided, alpha=0.05, family-wise by Tukey's studentized range over the pairs of runs "
        "per metric; 20 queries)."
    )
    assert (
        result.to_latex()
        .splitlines()[2]
        .startswith(
            r"\caption{Tukey's HSD test, two-sided, family-wise over the pairs of runs per metric "
            r"(the studentized range), $\alpha = 0.05$; 20 queries."
        )
    )
    wilcoxon = lp.compare(frame, baseline="r0", test="wilcoxon")
    assert (
        wilcoxon.to_latex()
        .splitlines()[2]
        .startswith(r"\caption{Wilcoxon signed-rank test, two-sided, Holm-corrected")
    )


# ---- wins, ties and losses ----------------------------------------------------------------


def _wtl_frame() -> pl.DataFrame:
    """Three runs, five queries; counts written out below."""
    q = [f"q{i}" for i in range(5)]
    return pl.DataFrame(
        {
            "run": ["base"] * 5 + ["new"] * 5 + ["other"] * 5,
            "query": q * 3,
            # new vs base: above on q0 q1 q3, equal on q2, below on q4 -> 3/1/1
            # other vs base: above on q0, equal on q1 q2, below on q3 q4 -> 1/2/2
            "ndcg@10": [0.5, 0.4, 0.3, 0.2, 0.6,
                        0.6, 0.5, 0.3, 0.3, 0.1,
                        0.7, 0.4, 0.3, 0.1, 0.5],
            # a loss (lower is better): new vs base above on q0 q1, equal q2 q3, below q4
            # -> wins (lower) 1, ties 2, losses 2
            "log_loss": [0.2, 0.2, 0.5, 0.4, 0.9,
                         0.3, 0.4, 0.5, 0.4, 0.1,
                         0.2, 0.2, 0.5, 0.4, 0.9],
            "latency": [1.0, 2.0, 3.0, 4.0, 5.0,
                        2.0, 2.0, 2.0, 2.0, 2.0,
                        1.0, 2.0, 3.0, 4.0, 5.0],
        }
    )  # fmt: skip


def _counts(result: lp.Comparison, run: str, other: str, metric: str) -> tuple[Any, ...]:
    row = result.pairs.filter(
        (pl.col("run") == run) & (pl.col("other") == other) & (pl.col("metric") == metric)
    ).row(0, named=True)
    return row["wins"], row["ties"], row["losses"]


def test_win_tie_loss_by_hand() -> None:
    result = lp.compare(_wtl_frame(), baseline="base", correction=None)
    assert _counts(result, "new", "base", "ndcg@10") == (3, 1, 1)
    assert _counts(result, "base", "new", "ndcg@10") == (1, 1, 3)
    assert _counts(result, "other", "base", "ndcg@10") == (1, 2, 2)
    assert _counts(result, "new", "other", "ndcg@10") == (2, 1, 2)  # q1 q3 / q2 / q0 q4
    assert _counts(result, "new", "base", "log_loss") == (1, 2, 2)  # lower wins
    assert _counts(result, "other", "base", "log_loss") == (0, 5, 0)  # identical
    assert _counts(result, "new", "base", "latency") == (None, 1, None)  # unknown direction
    assert result.pairs.schema["wins"] == pl.Int64


def test_win_tie_loss_in_the_report() -> None:
    result = lp.compare(_wtl_frame(), baseline="base", correction=None)
    lines = result.to_markdown().splitlines()
    at = lines.index(
        "Wins/ties/losses against base (queries where the run is better, equal, worse in the "
        "metric's direction):"
    )
    assert lines[at + 2 : at + 6] == [
        "| run | ndcg@10 | log_loss | latency |",
        "|---|---:|---:|---:|",
        "| new | 3/1/1 | 1/2/2 | –/1/– |",
        "| other | 1/2/2 | 0/5/0 | –/5/– |",
    ]
    assert "Wins/ties/losses" not in result.to_markdown(win_tie_loss=False)
    assert str(result) == result.to_markdown()
    tex = result.to_latex(caption=False).splitlines()
    assert tex[-6:] == [
        r"\midrule",
        r" & new: W/T/L vs.\ base & 3/1/1 & 1/2/2 & –/1/– \\",
        r" & other: W/T/L vs.\ base & 1/2/2 & 0/5/0 & –/5/– \\",
        r"\bottomrule",
        r"\multicolumn{5}{l}{\footnotesize No superscripts on 'latency': whether higher or lower "
        r"is better is not known (name it in compare's higher\_is\_better= or "
        r"lower\_is\_better=).} \\",
        r"\end{tabular}",
    ]
    assert "W/T/L" not in result.to_latex(win_tie_loss=False)


# ---- one bootstrap kernel -------------------------------------------------------------------


def test_bootstrap_kernel_is_the_stream_both_callers_draw() -> None:
    """The kernel's blocks are rng.integers(0, n, (rows, n)) as counts; both callers use it."""
    from lodestar_polars._report.ranking_report import bootstrap_batch, resample_counts

    n, total, seed = 37, 1000, 9
    rows = kernel.block_rows(n, 64 * n)  # 64 resamples a block
    blocks = list(kernel.draw_indices(n, total, np.random.default_rng(seed), rows))
    assert [b.shape[0] for b in blocks] == [64] * 15 + [40]
    whole = np.random.default_rng(seed).integers(0, n, (total, n))
    np.testing.assert_array_equal(np.concatenate(blocks), whole)  # scipy's stream
    counts = kernel.counts_of(whole, n)
    expected = np.stack([np.bincount(r, minlength=n) for r in whole]).astype(np.float64)
    np.testing.assert_array_equal(counts, expected)
    # the report's resamples: the kernel's counts, in the report's blocks
    report = np.concatenate(list(resample_counts(n, total, seed, bootstrap_batch(n, total))))
    np.testing.assert_array_equal(report, expected)
    # compare's bootstrap: the kernel's draws (its _BLOCK), counts times the differences
    d = np.random.default_rng(1).standard_normal((n, 2))
    draws = list(_paired._random_indices(n, total, np.random.default_rng(seed)))
    np.testing.assert_array_equal(np.concatenate(draws), whole)
    p, low, high = _paired.bootstrap(d, draws, 0.1)
    means = expected @ d / n
    np.testing.assert_array_equal(low, np.quantile(means, 0.05, axis=0))
    np.testing.assert_array_equal(high, np.quantile(means, 0.95, axis=0))
    assert p.shape == (2,)
