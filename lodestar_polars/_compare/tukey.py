"""Tukey's HSD test in NumPy: the studentized range distribution, ``scipy.stats.tukey_hsd``.

ranx's ``stat_test="tukey"`` is ``scipy.stats.tukey_hsd(*scores)`` over every run's
per-query scores of one metric (``ranx/statistical_tests/tukey_hsd_test.py``): the runs as
the groups of a one-way analysis of variance (the queries are *not* paired), the pooled
variance ``mse = sum_r var_r (n - 1) / (k n - k)`` (``ddof=1``), the standard error
``sqrt(mse / n)`` (every run has the same ``n`` queries), the statistic
``q = |mean_i - mean_j| / sqrt(mse / n)`` and the p-value ``P(Q >= q)`` of the studentized
range ``Q`` of ``k`` means on ``df = k n - k`` degrees of freedom, family-wise over the
``k (k - 1) / 2`` pairs by construction. The interval is scipy's
``confidence_interval(1 - alpha)``: ``mean_i - mean_j ± ppf(1 - alpha) * sqrt(mse / n)``.

The distribution (scipy's ``studentized_range``, a double integral there, ``nquad`` to
``epsabs=1e-11, epsrel=1e-12``; from ``df >= 100_000`` its ``df = inf`` single integral):

- ``P(R >= w)`` for the range ``R`` of ``k`` standard normals is
  ``k ∫ phi(z) {Phi(z)^(k-1) - (Phi(z) - Phi(z - w))^(k-1)} dz``, the difference of
  powers written as ``Phi(z - w) * sum_j a^j (a - b)^(k-2-j)`` (``a = Phi(z)``,
  ``b = Phi(z - w)``) so that a tail probability keeps its relative precision, on
  16-point Gauss-Legendre panels of width 1 from ``z = -12`` to ``w / 2 + 12``;
- ``P(Q >= q) = ∫ f(s) P(R >= q s) ds`` with ``f`` the density of ``chi_df / sqrt(df)``,
  by 128-point Gauss-Legendre over the interval where ``f`` is above ``e^-44`` of its
  maximum, and from ``df >= 100_000`` the ``df = inf`` limit ``P(R >= q)``, as scipy.

``Phi`` is ``math.erfc`` on each node (a loop over quadrature nodes, not over queries).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]

#: scipy's switch to the ``df = inf`` integral.
ASYMPTOTIC_DF = 100_000
_Z_LOW = -12.0
_PANEL_NODES, _PANEL_WEIGHTS = np.polynomial.legendre.leggauss(16)
_S_NODES, _S_WEIGHTS = np.polynomial.legendre.leggauss(128)
_SQRT_HALF = math.sqrt(0.5)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_ERFC = np.frompyfunc(math.erfc, 1, 1)


def _upper(x: Array) -> Array:
    """``1 - Phi(x)``, the normal upper tail, to full relative precision."""
    return np.asarray(_ERFC(x * _SQRT_HALF), dtype=np.float64) * 0.5


def _both_tails(x: Array) -> tuple[Array, Array]:
    """``(Phi(x), 1 - Phi(x))``, the smaller of the two from ``erfc`` (full precision)."""
    small = _upper(np.abs(x))
    neg = x < 0.0
    return np.where(neg, small, 1.0 - small), np.where(neg, 1.0 - small, small)


def _panels(high: float) -> tuple[Array, Array]:
    """Gauss-Legendre nodes and weights on unit panels covering ``[-12, high]``."""
    n_panels = max(1, math.ceil(high - _Z_LOW))
    left = _Z_LOW + np.arange(n_panels, dtype=np.float64)
    z = (left[:, None] + 0.5 * (_PANEL_NODES + 1.0)).ravel()
    w = np.tile(0.5 * _PANEL_WEIGHTS, n_panels)
    return z, w


def range_sf(w: npt.ArrayLike, k: int) -> Array:
    """``P(R >= w)``: the range of ``k`` independent standard normals, elementwise."""
    wa = np.atleast_1d(np.asarray(w, dtype=np.float64))
    out = np.ones(wa.shape)
    pos = wa > 0.0
    if not pos.any():
        return out
    z, weight = _panels(float(wa[pos].max()) / 2.0 + 12.0)
    density = np.exp(-0.5 * z * z - _LOG_SQRT_2PI)
    a, a_upper = _both_tails(z)
    shifted = z[None, :] - wa[pos][:, None]
    b, b_upper = _both_tails(shifted)
    # a - b = Phi(z) - Phi(z - w): from the upper tails where both are near 1.
    gap = np.where(shifted > 0.0, b_upper - a_upper, a - b)
    total = np.zeros_like(gap)
    for j in range(k - 1):  # sum_j a^j (a - b)^(k - 2 - j)
        total += a**j * gap ** (k - 2 - j)
    tail = b * total
    out[pos] = np.minimum(k * (tail * density * weight).sum(axis=1), 1.0)
    return out


def _log_chi_density(s: Array, df: float) -> Array:
    """``log f(s)``, ``f`` the density of ``chi_df / sqrt(df)``."""
    half = 0.5 * df
    log_c = half * math.log(df) - math.lgamma(half) - (half - 1.0) * math.log(2.0)
    with np.errstate(divide="ignore"):
        return log_c + (df - 1.0) * np.log(s) - half * s * s


@functools.lru_cache(maxsize=64)
def _s_range(df: float) -> tuple[float, float]:
    """Where ``f`` is above ``e^-44`` of its maximum (``[0, high]`` for ``df <= 1``)."""
    mode = math.sqrt((df - 1.0) / df) if df > 1.0 else 0.0
    peak = float(_log_chi_density(np.array([max(mode, 1e-300)]), df)[0]) if mode > 0 else None

    def below(s: float) -> bool:
        value = float(_log_chi_density(np.array([s]), df)[0])
        top = peak if peak is not None else float(_log_chi_density(np.array([1e-300]), df)[0])
        return value < top - 44.0

    def solve(lo: float, hi: float, *, rising: bool) -> float:
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if below(mid) == rising:
                lo = mid
            else:
                hi = mid
        return 0.5 * (lo + hi)

    high = max(mode, 1.0)
    while not below(high):
        high *= 2.0
    upper = solve(max(mode, 1e-300), high, rising=False)
    lower = 0.0 if mode == 0.0 or not below(1e-300) else solve(1e-300, mode, rising=True)
    return lower, upper


def studentized_range_sf(q: npt.ArrayLike, k: int, df: float) -> Array:
    """``P(Q >= q)``: ``scipy.stats.studentized_range.sf(q, k, df)``, elementwise."""
    qa = np.atleast_1d(np.asarray(q, dtype=np.float64))
    if df >= ASYMPTOTIC_DF:
        return range_sf(qa, k)
    lower, upper = _s_range(float(df))
    s = lower + (upper - lower) * 0.5 * (_S_NODES + 1.0)
    ws = 0.5 * (upper - lower) * _S_WEIGHTS * np.exp(_log_chi_density(s, float(df)))
    inner = range_sf((qa[:, None] * s[None, :]).ravel(), k).reshape(qa.size, s.size)
    return np.minimum(np.maximum(inner @ ws, 0.0), 1.0)


@functools.lru_cache(maxsize=64)
def studentized_range_isf(alpha: float, k: int, df: float) -> float:
    """The ``q`` with ``P(Q >= q) = alpha``: ``studentized_range.ppf(1 - alpha, k, df)``."""

    def f(x: float) -> float:
        return float(studentized_range_sf(x, k, df)[0]) - alpha

    lo, hi = 0.0, 1.0
    while f(hi) > 0.0:
        lo, hi = hi, 2.0 * hi
    f_lo, f_hi = f(lo) if lo > 0 else 1.0 - alpha, f(hi)
    x = hi
    for _ in range(200):  # Illinois regula falsi, kept in the bracket
        x = hi - f_hi * (hi - lo) / (f_hi - f_lo)
        fx = f(x)
        if fx == 0.0 or hi - lo <= 4.0 * np.finfo(np.float64).eps * hi:
            return x
        if (fx > 0.0) == (f_lo > 0.0):
            lo, f_lo = x, fx
            f_hi *= 0.5
        else:
            hi, f_hi = x, fx
            f_lo *= 0.5
        if abs(hi - lo) <= 1e-15 * x:
            break
    return x


def tukey_hsd(
    values: Array, pairs: list[tuple[int, int]], alpha: float
) -> tuple[Array, Array, Array, Array]:
    """Tukey's HSD per pair ``(i, j)`` of runs and metric: difference, p, interval.

    ``values`` is (runs, metrics, queries); each result is (pairs, metrics), the
    difference ``mean_i - mean_j``. Identical means get p = 1; a pooled variance of 0
    with different means gets p = 0.
    """
    k, n_metrics, n = values.shape
    means = values.mean(axis=2)  # (runs, metrics)
    variances = values.var(axis=2, ddof=1)
    df = float(k * n - k)
    mse = (variances * (n - 1)).sum(axis=0) / df  # (metrics,)
    se = np.sqrt(mse / n)
    diff = np.stack([means[i] - means[j] for i, j in pairs])  # (pairs, metrics)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(se > 0.0, np.abs(diff) / se, np.where(diff == 0.0, 0.0, np.inf))
    p = np.ones(q.shape)
    finite = np.isfinite(q) & (q > 0.0)
    p[np.isinf(q)] = 0.0
    if finite.any():
        p[finite] = studentized_range_sf(q[finite], k, df)
    half = studentized_range_isf(float(alpha), k, df) * se
    return diff, p, diff - half, diff + half
