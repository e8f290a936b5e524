"""Student's t distribution with NumPy only: the regularized incomplete beta function.

scipy is not a runtime dependency, so the two numbers :func:`lodestar_polars.compare`
needs from the t distribution, a two-sided p-value and a two-sided quantile, are computed
here. The regularized incomplete beta function is evaluated by its continued fraction
(modified Lentz, as in Numerical Recipes' ``betacf``, in ``np.longdouble``), vectorised
over ``x``, with the
symmetry ``I_x(a, b) = 1 - I_{1-x}(b, a)`` on the side where the fraction converges
fast. The tests hold both against scipy to 1e-12 relative.

Accuracy notes (measured against scipy in ``tests/test_compare.py``):

- ``log B(a, 1/2)`` for large ``a`` (``a = (n - 1) / 2``, ``n`` the number of queries) is
  ``lgamma(a) + lgamma(1/2) - lgamma(a + 1/2)``: two numbers near ``a log a`` whose
  difference is small. At ``a = 5e4`` that subtraction alone loses ~5e-11 relative in the
  p-value, so for ``a >= 30`` the difference ``lgamma(a + 1/2) - lgamma(a)`` comes from
  Stirling's series instead (truncation error below 1e-16 there).
- ``x = df / (df + t^2)`` and ``1 - x`` are passed apart, with their logarithms from
  ``log1p``, so neither a p-value near 0 nor one near 1 cancels.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import numpy.typing as npt

_EPS = float(np.finfo(np.float64).eps)
_EPS_LONG = np.finfo(np.longdouble).eps
_TINY = 1e-300

Array = npt.NDArray[np.float64]


def _lgamma_half_ratio(a: float) -> float:
    """``log(Gamma(a + 1/2) / Gamma(a))``, accurate for large ``a`` too."""
    if a < 30.0:
        return math.lgamma(a + 0.5) - math.lgamma(a)

    # Stirling: lgamma(z) = (z - 1/2) log z - z + log(2 pi) / 2 + sum B_2k / (2k (2k-1) z^(2k-1))
    def series(z: float) -> float:
        z2 = z * z
        return (1.0 / 12.0 - (1.0 / 360.0 - (1.0 / 1260.0 - (1.0 / 1680.0) / z2) / z2) / z2) / z

    # (a) log(a + 1/2) - (a - 1/2) log a - 1/2 = a log1p(1/(2a)) + log(a)/2 - 1/2
    return a * math.log1p(0.5 / a) + 0.5 * math.log(a) - 0.5 + series(a + 0.5) - series(a)


def log_beta(a: float, b: float) -> float:
    """``log B(a, b)``; the ``b = 1/2`` case (the t distribution's) is kept accurate."""
    if b == 0.5:
        return math.lgamma(0.5) - _lgamma_half_ratio(a)
    if a == 0.5:
        return math.lgamma(0.5) - _lgamma_half_ratio(b)
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def _continued_fraction(a_: float, b_: float, x_: Array) -> Array:
    """The continued fraction of ``I_x(a, b)`` (Lentz), elementwise over ``x``.

    Evaluated in ``np.longdouble``: for large ``a`` near ``x = a / (a + b)`` the fraction
    needs thousands of terms and, in float64, stalls ~3e-12 from its limit (measured at
    ``a = 5e4``, ``b = 1/2``, against mpmath); x86's 80-bit extended precision brings that
    under 1e-14. Where ``longdouble`` is float64 (Windows, ARM macOS) the float64 figure holds.

    Each element stops at its own first term within ``eps`` of 1 (``longdouble``'s), so its
    value is the one it gets alone, whatever else is evaluated with it; the loop ends when
    the last one stops. (Waiting for every element to be within ``eps`` on the same term
    ran most batches to the last term: past convergence, each term is 1 only within a few
    ``eps`` of rounding, rarely all at once.)
    """
    a, b = np.longdouble(a_), np.longdouble(b_)
    x = x_.astype(np.longdouble)
    qab, qap, qam = a + b, a + 1, a - 1
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = np.where(np.abs(d) < _TINY, _TINY, d)
    d = 1.0 / d
    h = d.copy()
    max_iter = 1000 + int(20.0 * math.sqrt(max(a_, b_)))
    # The terms' coefficients, all at once (integers exact in longdouble): term m is
    # m (b - m) x / ((a - 1 + 2m)(a + 2m)), then -(a + m)(a + b + m) x / ((a + 2m)(a + 1 + 2m)).
    m = np.arange(1, max_iter, dtype=np.longdouble)
    m2 = 2 * m
    num_odd, den_odd = m * (b - m), (qam + m2) * (a + m2)
    num_even, den_even = -(a + m) * (qab + m), (a + m2) * (qap + m2)
    if x.size == 1:  # the quantile's Newton steps: NumPy scalars, the same operations
        one = _continued_fraction_one(x[0], qab, qap, (num_odd, den_odd, num_even, den_even))
        return np.full(x.shape, one, dtype=np.float64)
    out = np.empty_like(x)
    todo = np.arange(x.size)  # the elements still being evaluated
    for i in range(max_iter - 1):
        aa = num_odd[i] * x / den_odd[i]
        d = 1.0 + aa * d
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1.0 / d
        h *= d * c
        aa = num_even[i] * x / den_even[i]
        d = 1.0 + aa * d
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1.0 / d
        delta = d * c
        h *= delta
        done = np.abs(delta - 1) <= _EPS_LONG
        if done.any():
            out[todo[done]] = h[done]
            if done.all():
                return out.astype(np.float64)
            keep = ~done
            todo, x, c, d, h = todo[keep], x[keep], c[keep], d[keep], h[keep]
    out[todo] = h
    return out.astype(np.float64)


def _continued_fraction_one(
    x: np.longdouble,
    qab: np.longdouble,
    qap: np.longdouble,
    terms: tuple[npt.NDArray[np.longdouble], ...],
) -> float:
    """:func:`_continued_fraction` of one ``x``, operation for operation on NumPy scalars.

    The same ``longdouble`` operations in the same order, so the same value to the bit
    (``tests/test_compare.py`` holds a batch against its elements one at a time); a
    one-element array costs ~1 us of overhead per operation, a scalar a fraction of it.
    """
    num_odd, den_odd, num_even, den_even = terms
    tiny = np.longdouble(_TINY)
    c = np.longdouble(1.0)
    d = 1.0 - qab * x / qap
    if abs(d) < _TINY:
        d = tiny
    d = 1.0 / d
    h = d
    for i in range(num_odd.size):
        aa = num_odd[i] * x / den_odd[i]
        d = 1.0 + aa * d
        if abs(d) < _TINY:
            d = tiny
        c = 1.0 + aa / c
        if abs(c) < _TINY:
            c = tiny
        d = 1.0 / d
        h *= d * c
        aa = num_even[i] * x / den_even[i]
        d = 1.0 + aa * d
        if abs(d) < _TINY:
            d = tiny
        c = 1.0 + aa / c
        if abs(c) < _TINY:
            c = tiny
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) <= _EPS_LONG:
            break
    return float(h)


def betainc(
    a: float,
    b: float,
    x: npt.ArrayLike,
    *,
    y: npt.ArrayLike | None = None,
    log_x: npt.ArrayLike | None = None,
    log_y: npt.ArrayLike | None = None,
) -> Array:
    """Regularized incomplete beta ``I_x(a, b)`` for ``a, b > 0`` and ``0 <= x <= 1``.

    ``y`` (``1 - x``) and the logarithms may be given when the caller knows them more
    accurately than ``1 - x`` and ``log(x)`` would be.
    """
    xa = np.asarray(x, dtype=np.float64)
    ya = 1.0 - xa if y is None else np.asarray(y, dtype=np.float64)
    with np.errstate(divide="ignore"):
        lx = np.log(xa) if log_x is None else np.asarray(log_x, dtype=np.float64)
        ly = np.log(ya) if log_y is None else np.asarray(log_y, dtype=np.float64)
    xa, ya, lx, ly = np.broadcast_arrays(xa, ya, lx, ly)
    out = np.empty(xa.shape, dtype=np.float64)
    zero, one = xa <= 0.0, ya <= 0.0
    out[zero] = 0.0
    out[one] = 1.0
    inner = ~(zero | one)
    front = np.exp(a * lx[inner] + b * ly[inner] - log_beta(a, b))
    direct = xa[inner] < (a + 1.0) / (a + b + 2.0)
    values = np.empty(front.shape, dtype=np.float64)
    xs, ys = xa[inner], ya[inner]
    if np.any(direct):
        values[direct] = front[direct] * _continued_fraction(a, b, xs[direct]) / a
    if np.any(~direct):
        flip = ~direct
        values[flip] = 1.0 - front[flip] * _continued_fraction(b, a, ys[flip]) / b
    out[inner] = values
    return out


def t_two_sided_p(t: npt.ArrayLike, df: float) -> Array:
    """Two-sided p-value ``P(|T| >= |t|)`` of Student's t with ``df`` degrees of freedom.

    ``2 * scipy.stats.t.sf(abs(t), df)``; ``t = ±inf`` gives 0 and ``t = 0`` gives 1.
    """
    ta = np.abs(np.asarray(t, dtype=np.float64))
    out = np.ones(ta.shape, dtype=np.float64)
    inf = np.isinf(ta)
    out[inf] = 0.0
    fin = ~inf & (ta > 0.0)
    t2 = ta[fin] ** 2
    # x = df / (df + t^2), 1 - x = t^2 / (df + t^2)
    x = df / (df + t2)
    y = t2 / (df + t2)
    log_x = -np.log1p(t2 / df)
    log_y = np.log(t2) - np.log(df + t2)
    out[fin] = betainc(0.5 * df, 0.5, x, y=y, log_x=log_x, log_y=log_y)
    return out


def t_pdf(t: float, df: float) -> float:
    """Density of Student's t at ``t``."""
    log_norm = _lgamma_half_ratio(0.5 * df) - 0.5 * math.log(df * math.pi)
    return math.exp(log_norm - 0.5 * (df + 1.0) * math.log1p(t * t / df))


@functools.lru_cache(maxsize=64)
def t_two_sided_quantile(alpha: float, df: float) -> float:
    """The ``t > 0`` with ``P(|T| >= t) = alpha``: ``scipy.stats.t.ppf(1 - alpha / 2, df)``.

    Remembered for the last 64 ``(alpha, df)``: a function of them alone, and its Newton
    steps cost ~15 ms at 1e5 degrees of freedom (each a continued fraction near the
    point where it converges slowest), as much as the rest of a Student comparison.
    """
    lo, hi = 0.0, 1.0
    while float(t_two_sided_p(hi, df)[()]) > alpha:
        lo, hi = hi, 2.0 * hi
    t = 0.5 * (lo + hi)
    # Newton on p(t) - alpha (p falls with slope -2 pdf), kept inside [lo, hi] by bisection.
    for _ in range(200):
        p = float(t_two_sided_p(t, df)[()])
        if p > alpha:
            lo = t
        else:
            hi = t
        step = (p - alpha) / (2.0 * t_pdf(t, df))
        new = t + step
        if not lo < new < hi:
            new = 0.5 * (lo + hi)
        if abs(new - t) <= 4.0 * _EPS * new or hi - lo <= 4.0 * _EPS * hi:
            return new
        t = new
    return t
