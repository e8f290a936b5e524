"""The bootstrap's resamples, once: draws of unit positions and their count matrices.

Both bootstraps of the package resample units with replacement from
``numpy.random.default_rng(seed)`` as ``scipy.stats.bootstrap`` does,
``rng.integers(0, n_units, (rows, n_units))`` block after block, and turn each block into
a count matrix (how often each unit is drawn in each resample), so that every resampled
statistic of a block is one matrix product:

- the ranking report (:func:`lodestar_polars._report.ranking_report.bootstrap_means`): counts
  times the units' sums over counts times their sizes (a ratio of sums, clustered by entity);
- :func:`lodestar_polars.compare`'s paired bootstrap: counts times the paired
  differences, over the number of queries.

The two callers draw the same stream for the same seed and block size (blocks of at most
``2**24`` draws, :func:`block_rows`); each keeps its own generator and passes it (or the
index blocks it drew) here.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

#: Draws (units x resamples) in one block: a float64 count matrix of 128 MiB at most.
BLOCK = 1 << 24


def block_rows(n_units: int, block: int = BLOCK) -> int:
    """Resamples per block: ``block // n_units``, at least 1."""
    return max(1, block // max(n_units, 1))


def draw_indices(
    n_units: int, n_resamples: int, rng: np.random.Generator, rows: int
) -> Iterator[npt.NDArray[np.int64]]:
    """Blocks of resamples: ``rng.integers(0, n_units, (m, n_units))``, ``m <= rows``.

    ``n_resamples`` rows in all, ``rows`` per block but the last: scipy's stream with
    ``batch=rows``.
    """
    for start in range(0, n_resamples, rows):
        yield rng.integers(0, n_units, (min(rows, n_resamples - start), n_units))


def counts_of(indices: npt.NDArray[np.integer], n_units: int) -> npt.NDArray[np.float64]:
    """A block of drawn positions (m, draws) as float64 counts (m, n_units).

    Row ``r``'s count of unit ``u`` is how many times ``u`` is among row ``r``'s draws:
    one ``bincount`` over the block, each row offset by ``r * n_units``.
    """
    m = indices.shape[0]
    flat = (indices + (np.arange(m, dtype=np.int64) * n_units)[:, None]).ravel()
    counts = np.bincount(flat, minlength=m * n_units).reshape(m, n_units)
    return counts.astype(np.float64)


def resample_counts(
    n_units: int, n_resamples: int, rng: np.random.Generator, rows: int
) -> Iterator[npt.NDArray[np.float64]]:
    """:func:`draw_indices` as count matrices, block after block."""
    for indices in draw_indices(n_units, n_resamples, rng, rows):
        yield counts_of(indices, n_units)
