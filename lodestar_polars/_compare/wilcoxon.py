"""Wilcoxon's signed-rank test in NumPy, vectorised over comparisons (``scipy.stats.wilcoxon``).

``scipy.stats.wilcoxon(x, y)`` with its defaults (``zero_method="wilcox"``,
``correction=False``, ``alternative="two-sided"``, ``method="auto"``), as scipy 1.17
computes it (``scipy/stats/_wilcoxon.py``), for every column of a matrix of paired
differences at once:

- zeros are dropped (``"wilcox"``); the others are ranked by ``|d|``, ties averaged; the
  statistic is ``r_plus``, the sum of the ranks of the positive differences;
- ``method="auto"`` picks, per column of ``n`` differences (zeros included):
  ``n > 50``: the normal approximation; otherwise, no ties and no zeros: the exact null
  distribution; ties or zeros and ``n <= 13``: the exact permutation distribution (every
  one of the ``2**n`` sign patterns, scipy's ``PermutationMethod()``, deterministic there);
  ties or zeros and ``13 < n <= 50``: the normal approximation;
- the normal approximation: ``z = (r_plus - m (m + 1) / 4) / se`` over the ``m`` non-zero
  differences, ``se**2 = (m (m + 1) (2m + 1) - sum(t**3 - t) / 2) / 24`` (``t`` the sizes
  of the tie groups), no continuity correction, ``p = 2 * Phi(-|z|) = erfc(|z| / sqrt 2)``;
- exact: ``p = 2 * min(P(R <= r_plus), P(R >= r_plus))``, capped at 1, from the counts of
  the subsets of ``{1, ..., n}`` by their sum (integers, so the p-value is the exact ratio
  rounded once; scipy sums float probabilities and may differ in the last bits);
- permutation: ``2 * min(#(null <= r_plus), #(null >= r_plus)) / 2**n``, capped at 1.

One rule differs from scipy's: a column of zeros only (two identical runs) gets p = 1,
where scipy gives NaN (as :func:`lodestar_polars.compare`'s other tests do).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import numpy.typing as npt

from lodestar_polars._core.threads import map_parts, thread_count

Array = npt.NDArray[np.float64]

#: ``method="auto"``'s limits in scipy 1.17: above ``EXACT_MAX`` differences the normal
#: approximation; with ties or zeros, the permutation distribution up to ``PERMUTATION_MAX``.
EXACT_MAX = 50
PERMUTATION_MAX = 13
_EPS = float(np.finfo(np.float64).eps)
_SQRT_HALF = math.sqrt(0.5)
#: Differences per comparison from which the comparisons are ranked in threads.
_THREADED = 1 << 14


def signed_ranks(row: Array) -> tuple[float, int, float]:
    """One comparison's differences: ``r_plus``, the non-zero count, the tie correction.

    The non-zero ``|d|`` are ranked, ties averaged: the average rank of a value ``v`` among
    the sorted ``|d|`` is ``(left + right + 1) / 2``, ``left`` and ``right`` where ``v``'s
    tie group starts and ends (``searchsorted``). ``r_plus`` sums it over the positive
    differences (halves and integers, exact in float64, as scipy's sum is); the tie
    correction is ``sum(t**3 - t)`` over the tie groups. Two sorts of the row (all of it,
    and its positive part, so the searches run in order) and no gather.
    """
    v = row[row != 0.0]
    m = v.size
    if m == 0:
        return 0.0, 0, 0.0
    s = np.sort(np.abs(v))
    positive = np.sort(v[v > 0.0])
    left = np.searchsorted(s, positive, side="left")
    right = np.searchsorted(s, positive, side="right")
    r_plus = 0.5 * float(np.sum(left + right + 1, dtype=np.int64))
    first = np.empty(m, dtype=bool)
    first[0] = True
    np.not_equal(s[1:], s[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    if starts.size == m:  # no ties
        return r_plus, m, 0.0
    sizes = np.diff(np.append(starts, m)).astype(np.float64)
    return r_plus, m, float(np.sum(sizes**3 - sizes))


def _ranks(row: Array) -> Array:
    """The ranks of ``|d|`` among the non-zero differences (ties averaged), 0 for a zero."""
    out = np.zeros(row.size)
    nonzero = row != 0.0
    v = np.abs(row[nonzero])
    below = np.searchsorted(np.sort(v), v, side="left")
    upto = np.searchsorted(np.sort(v), v, side="right")
    out[nonzero] = 0.5 * (below + upto + 1)
    return out


@functools.lru_cache(maxsize=64)
def _subset_sums(n: int) -> npt.NDArray[np.int64]:
    """How many subsets of ``{1, ..., n}`` sum to each ``k = 0 .. n (n + 1) / 2``."""
    c = np.ones(1, dtype=np.int64)
    for i in range(1, n + 1):
        nxt = np.zeros(c.size + i, dtype=np.int64)
        nxt[: c.size] += c
        nxt[i:] += c
        c = nxt
    return c


def _exact(r_plus: Array, n: int) -> Array:
    """Exact two-sided p-values of integer ``r_plus`` over ``n`` untied non-zero ranks."""
    counts = _subset_sums(n)
    below = np.cumsum(counts)  # #(R <= k)
    above = below[-1] - np.concatenate(([0], below[:-1]))  # #(R >= k)
    k = np.rint(r_plus).astype(np.int64)
    both = 2 * np.minimum(below[k], above[k])
    out: Array = np.minimum(both.astype(np.float64) / float(2**n), 1.0)
    return out


def _permutation(ranks: Array, r_plus: Array) -> Array:
    """Two-sided p over all ``2**n`` sign patterns of each row's ranks (scipy's exact rule)."""
    c, n = ranks.shape
    patterns = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    null = patterns.astype(np.float64) @ ranks.T  # (2**n, c): r_plus of each pattern
    gamma = np.abs(100.0 * _EPS * r_plus)  # scipy's tolerance; ranks are halves: exact
    less = np.count_nonzero(null <= r_plus + gamma, axis=0)
    greater = np.count_nonzero(null >= r_plus - gamma, axis=0)
    out: Array = np.minimum(2.0 * np.minimum(less, greater) / 2**n, 1.0)
    return out


def normal_two_sided(z: Array) -> Array:
    """``2 * Phi(-|z|)``, scipy's two-sided normal p-value, as ``erfc(|z| / sqrt 2)``."""
    flat = np.abs(np.asarray(z, dtype=np.float64)).ravel()
    out = np.array([math.erfc(v * _SQRT_HALF) for v in flat.tolist()], dtype=np.float64)
    return np.minimum(out.reshape(np.shape(z)), 1.0)


def wilcoxon(d: Array) -> Array:
    """Two-sided p-value of Wilcoxon's signed-rank test on each column of ``d`` (n, k).

    ``scipy.stats.wilcoxon(run, baseline).pvalue`` with scipy's defaults, column by
    column; a column of zeros only gets 1. Two sorts per column (a loop over the
    comparisons, not the queries, in Polars' threads for long columns: each column's
    numbers its own); the p-values are computed for all columns at once.
    """
    rows = np.ascontiguousarray(np.asarray(d, dtype=np.float64).T)
    k, n = rows.shape
    if k > 1 and n >= _THREADED and thread_count() > 1:  # NumPy's sorts release the GIL
        stats = map_parts(lambda i: signed_ranks(rows[i]), k)
    else:
        stats = [signed_ranks(row) for row in rows]
    r_plus = np.array([s[0] for s in stats], dtype=np.float64)
    count = np.array([s[1] for s in stats], dtype=np.int64)
    tie = np.array([s[2] for s in stats], dtype=np.float64)
    p = np.ones(k)
    some = count > 0
    untied = (count == n) & (tie == 0.0) & (n <= EXACT_MAX)
    if untied.any():
        p[untied] = _exact(r_plus[untied], n)
    rest = some & ~untied
    if n <= PERMUTATION_MAX and rest.any():
        ranks = np.stack([_ranks(row) for row in rows[rest]])
        p[rest] = _permutation(ranks, r_plus[rest])
    elif rest.any():
        m = count[rest].astype(np.float64)
        mean = m * (m + 1.0) * 0.25
        se = np.sqrt((m * (m + 1.0) * (2.0 * m + 1.0) - tie[rest] / 2.0) / 24.0)
        p[rest] = normal_two_sided((r_plus[rest] - mean) / se)
    return p
