"""The paired tests of ``lp.compare`` on a matrix of paired differences, one column per comparison.

Student's t-test (:func:`student`), Fisher's randomization test, exact (:func:`fisher_exact`) or
on random sign patterns (:func:`fisher_monte_carlo`), the paired bootstrap (:func:`bootstrap`),
the corrections (:func:`adjust`), and :func:`run_tests`, which runs the chosen test on every
(pair of runs, metric) at once, with the wins, ties and losses of each pair (:func:`win_tie_loss`).
Vectorised over the comparisons and, for the resampling tests, over blocks of resamples.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal, TypeVar

import numpy as np
import numpy.typing as npt

from lodestar_polars._compare.stats import t_two_sided_p, t_two_sided_quantile
from lodestar_polars._compare.tukey import tukey_hsd
from lodestar_polars._compare.wilcoxon import wilcoxon
from lodestar_polars._core import bootstrap as _bootstrap
from lodestar_polars._evaluate.evaluate import Progress

Test = Literal["student", "fisher", "bootstrap", "wilcoxon", "tukey"]
Correction = Literal["holm", "bonferroni"]

#: The Fisher test enumerates every sign pattern up to this many queries (2**20 patterns).
EXACT_MAX = 20
#: Elements of one block of resamples (a float64 matrix of 128 MiB at most).
_BLOCK = _bootstrap.BLOCK
#: Null values within this many ulps of the data's magnitude of the observed one are ties.
TIE_ULPS = 256.0
_EPS = float(np.finfo(np.float64).eps)

Array = npt.NDArray[np.float64]
_Block = TypeVar("_Block", bound=np.ndarray[Any, Any])


def student(d: Array, alpha: float) -> tuple[Array, Array, Array]:
    """Paired t-test on each column of ``d``: (p-value, ci_low, ci_high).

    A column of zeros (two identical runs) gets p = 1 and the interval [0, 0], where
    scipy gives NaN; a constant non-zero column gets p = 0 and a zero-width interval.
    """
    mean, se = _mean_se(d)
    return _student_test(mean, se, d.shape[0], alpha)


def _mean_se(d: Array) -> tuple[Array, Array]:
    """Each column's mean and standard error (``ddof=1``), summed pairwise down columns."""
    d = np.asfortranarray(d)  # pairwise sums down each column (see compare)
    return d.mean(axis=0), d.std(axis=0, ddof=1) / math.sqrt(d.shape[0])


def _student_test(mean: Array, se: Array, n: int, alpha: float) -> tuple[Array, Array, Array]:
    """:func:`student` from each column's mean and standard error over ``n`` queries."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, mean / se, np.where(mean == 0, 0.0, np.copysign(np.inf, mean)))
    p = t_two_sided_p(t, n - 1.0)
    half = t_two_sided_quantile(alpha, n - 1.0) * se
    return p, mean - half, mean + half


def _sign_sums_exact(d: Array) -> Iterator[Array]:
    """For blocks of columns of ``d``: the sums over all ``2**n`` sign patterns."""
    n, k = d.shape
    width = max(1, _BLOCK >> n)
    for start in range(0, k, width):
        block = d[:, start : start + width]
        sums = np.zeros((1, block.shape[1]))
        for row in block:  # n <= EXACT_MAX doublings, not one step per pattern
            sums = np.concatenate((sums + row, sums - row))
        yield sums


def tolerance(d: Array, magnitude: Array | None = None) -> Array:
    """How far a resampled mean may sit from the observed one and still tie with it.

    ``TIE_ULPS * eps * magnitude`` per column, ``magnitude`` the mean of
    ``|run_i| + |baseline_i|`` over the queries (by default ``mean(|d_i|)``, the
    differences alone). Each ``d_i = run_i - baseline_i`` carries a rounding error up to
    ``eps * (|run_i| + |baseline_i|)``, so two sign patterns that are equal in exact
    arithmetic can differ by about ``eps * magnitude`` in their means, however small the
    ``d_i`` themselves are; 256 ulps of it leave room for the sums' own rounding.
    scipy's ``gamma`` (100 ulps of the observed statistic) misses such ties when the
    differences are small next to the values (docs/compare.md).
    """
    if magnitude is None:
        magnitude = np.abs(d).mean(axis=0)
    return TIE_ULPS * _EPS * np.asarray(magnitude, dtype=np.float64)


def fisher_exact(d: Array, magnitude: Array | None = None) -> Array:
    """Exact two-sided randomization p-value of the mean of each column of ``d``.

    scipy's rule: ``min(1, 2 * min(P(null <= obs), P(null >= obs)))`` over all ``2**n``
    sign patterns, null values within :func:`tolerance` of the observed one counted as
    equal (on both sides).
    """
    n, k = d.shape
    observed = d.mean(axis=0)
    gamma = tolerance(d, magnitude)
    p = np.empty(k)
    start = 0
    for sums in _sign_sums_exact(d):
        width = sums.shape[1]
        obs, tol = observed[start : start + width], gamma[start : start + width]
        null = sums / n
        less = np.count_nonzero(null <= obs + tol, axis=0)
        greater = np.count_nonzero(null >= obs - tol, axis=0)
        p[start : start + width] = np.minimum(2.0 * np.minimum(less, greater) / sums.shape[0], 1.0)
        start += width
    return p


def _random_flips(n: int, n_resamples: int, rng: np.random.Generator) -> Iterator[Array]:
    """Blocks of random 0/1 flip indicators, shape (rows, n), from random bytes."""
    rows = max(1, _BLOCK // n)
    width = (n + 7) // 8
    for start in range(0, n_resamples, rows):
        m = min(rows, n_resamples - start)
        raw = np.frombuffer(rng.bytes(m * width), dtype=np.uint8).reshape(m, width)
        yield np.unpackbits(raw, axis=1, count=n).astype(np.float64)


def fisher_monte_carlo(d: Array, flips: Iterable[Array], magnitude: Array | None = None) -> Array:
    """Monte Carlo two-sided randomization p-value from blocks of 0/1 flip indicators.

    scipy's Monte Carlo rule: the observed pattern counts once more,
    ``(count + 1) / (n_resamples + 1)`` on each side; ties within :func:`tolerance`.
    """
    n = d.shape[0]
    observed = d.mean(axis=0)
    gamma = tolerance(d, magnitude)
    total = d.sum(axis=0)
    less = np.zeros(d.shape[1])
    greater = np.zeros(d.shape[1])
    count = 0
    for block in flips:
        null = (total - 2.0 * (block @ d)) / n  # flipping query i subtracts 2 d_i
        less += np.count_nonzero(null <= observed + gamma, axis=0)
        greater += np.count_nonzero(null >= observed - gamma, axis=0)
        count += block.shape[0]
    return np.minimum(2.0 * np.minimum(less + 1, greater + 1) / (count + 1), 1.0)


def _random_indices(
    n: int, n_resamples: int, rng: np.random.Generator
) -> Iterator[npt.NDArray[np.int64]]:
    """The bootstrap's draws, blocks of :data:`_BLOCK` at most (the shared kernel's)."""
    return _bootstrap.draw_indices(n, n_resamples, rng, _bootstrap.block_rows(n, _BLOCK))


def _ticking(
    blocks: Iterator[_Block], n: int, n_resamples: int, progress: Callable[[Progress], None] | None
) -> Iterator[_Block]:
    """``blocks`` of resamples, with a :class:`Progress` to ``progress`` as each is used.

    A block is used when the next is asked for (or the blocks end): the progress after
    block ``i`` counts the resamples of blocks ``1..i``.
    """
    if progress is None:
        yield from blocks
        return
    total = -(-n_resamples // max(1, _BLOCK // n))
    done = drawn = 0
    for block in blocks:
        yield block
        done += 1
        drawn += block.shape[0]
        progress(Progress(done, total, drawn, 0))


def bootstrap(
    d: Array,
    indices: Iterable[npt.NDArray[np.integer]],
    alpha: float,
    magnitude: Array | None = None,
) -> tuple[Array, Array, Array]:
    """Paired bootstrap of the mean of each column of ``d``: (p-value, ci_low, ci_high).

    ``indices`` are blocks of resamples, each row ``n`` query positions drawn with
    replacement (scipy draws ``rng.integers(0, n, (n_resamples, n))``). Each row becomes
    counts, and the resampled means of every column are one matrix product. A centred
    resampled mean as far from 0 as the observed one but for :func:`tolerance` counts as
    far.
    """
    n = d.shape[0]
    means = [_bootstrap.counts_of(block, n) @ d / n for block in indices]
    boot = np.concatenate(means)
    observed = d.mean(axis=0)
    low, high = np.quantile(boot, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    gamma = tolerance(d, magnitude)
    far = np.count_nonzero(np.abs(boot - observed) >= np.abs(observed) - gamma, axis=0)
    p = np.minimum((far + 1.0) / (boot.shape[0] + 1.0), 1.0)
    return p, low, high


def adjust(p: Array, correction: Correction | None) -> Array:
    """Family-wise adjusted p-values (Holm step-down or Bonferroni), capped at 1."""
    m = p.size
    if correction is None or m == 0:
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(p * m, 1.0)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate(p[order] * (m - np.arange(m)))
    out = np.empty(m)
    out[order] = np.minimum(stepped, 1.0)
    return out


def run_tests(
    values: Array,
    order: list[int],
    pairs: list[tuple[int, int]],
    *,
    test: Test,
    alpha: float,
    n_resamples: int,
    seed: int | None,
    progress: Callable[[Progress], None] | None = None,
) -> tuple[Array, Array, Array, Array]:
    """Each pair (i, j) of ``order``'s runs and metric: mean of run i minus run j, p, interval.

    ``values`` is (runs, metrics, queries); each result is (pairs, metrics).
    """
    _, n_metrics, n = values.shape
    # d[:, p * n_metrics + m] is pair p's differences on metric m, column-major: each
    # comparison's differences contiguous, so NumPy's column sums are pairwise (error
    # ~log2(n) eps). Row-major sums down axis 0 are sequential (~n eps): at 1e5 queries that
    # put the t statistic 1e-12 off and tail p-values (t ~ 30) 1e-11 off. Student's test
    # needs each column's mean and spread only: one pair's block at a time, in cache.
    every = test in ("fisher", "bootstrap", "wilcoxon")  # the tests that need each d_i
    d_rows = np.empty((len(pairs) * n_metrics if every else n_metrics, n))
    mean_d, se_d = np.empty(len(pairs) * n_metrics), np.empty(len(pairs) * n_metrics)
    for at, (i, j) in enumerate(pairs):
        cols = slice(at * n_metrics, (at + 1) * n_metrics)
        block = d_rows[cols] if every else d_rows
        np.subtract(values[order[i]], values[order[j]], out=block)
        mean_d[cols], se_d[cols] = _mean_se(block.T)
    p, low, high = _student_test(mean_d, se_d, n, alpha)
    if test == "wilcoxon":
        p = wilcoxon(d_rows.T)
    elif test == "tukey":
        _, p2, low2, high2 = tukey_hsd(values[order], pairs, alpha)
        p, low, high = p2.reshape(-1), low2.reshape(-1), high2.reshape(-1)
    elif every:
        d = d_rows.T
        # The size of the values each difference comes from, mean(|run_i| + |baseline_i|):
        # the scale of the rounding in d, and so of the resampling tests' tie tolerance
        # (summed down the queries in the order that has always been used for it).
        by_query = np.ascontiguousarray(values[order].transpose(0, 2, 1))
        size = np.abs(by_query).mean(axis=1)  # (runs, metrics)
        magnitude = np.stack([size[i] + size[j] for i, j in pairs]).reshape(-1)
        rng = np.random.default_rng(seed)
        if test == "fisher" and n <= EXACT_MAX:
            p = fisher_exact(d, magnitude)
        elif test == "fisher":
            flips = _ticking(_random_flips(n, n_resamples, rng), n, n_resamples, progress)
            p = fisher_monte_carlo(d, flips, magnitude)
        else:
            draws = _ticking(_random_indices(n, n_resamples, rng), n, n_resamples, progress)
            p, low, high = bootstrap(d, draws, alpha, magnitude)
    shape = (len(pairs), n_metrics)
    return mean_d.reshape(shape), p.reshape(shape), low.reshape(shape), high.reshape(shape)


def win_tie_loss(
    values: Array, order: list[int], pairs: list[tuple[int, int]]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Per pair ``(i, j)`` of ``order``'s runs and metric: queries where i is above, equal, below.

    Exact comparisons of the values (``run_i == other_i``, not within a tolerance);
    each result is (pairs, metrics).
    """
    above, equal, below = [], [], []
    for i, j in pairs:
        a, b = values[order[i]], values[order[j]]
        above.append(np.count_nonzero(a > b, axis=1))
        equal.append(np.count_nonzero(a == b, axis=1))
        below.append(np.count_nonzero(a < b, axis=1))
    shape = (len(pairs), values.shape[1])
    return tuple(np.array(x, dtype=np.int64).reshape(shape) for x in (above, equal, below))  # type: ignore[return-value]
