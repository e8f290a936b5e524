"""Reciprocal rank, and its exact expectation over the orderings of a tie.

The first relevant document can only sit in the first tie group (in score
order) that holds a relevant document.  Say that group occupies positions
``above .. above + c - 1`` and holds ``r`` relevant rows.  Ordering the group
uniformly at random, the first relevant row lands at offset ``j`` with
probability ``C(c-1-j, r-1) / C(c, r)``, which is built as a product: the
chance ``S_j`` that offsets ``0..j-1`` are all irrelevant,
``S_j = prod_{i<j} (1 - r / (c - i))``, times the chance ``r / (c - j)`` that
offset ``j`` is relevant.  The expected reciprocal rank is
``sum_j P_j / (above + j + 1)``, each term cut at ``k``.  ``ignore_ties`` is
the same formula with ``c = r = 1`` at the first relevant row's position.

The Polars layer sums the same terms in two other forms that need no
cumulative log-survival: the Horner recurrence of :func:`expected_from_offset`
(offset ``j`` is relevant, or the expectation moves on to ``j + 1``), and
running products of consecutive term ratios (:func:`first_term`, then
:func:`term_ratio`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lodestar_polars._core._ops import exp, log1p
from lodestar_polars._core.discount import reciprocal_discount
from lodestar_polars._core.ranking import rank_segments
from lodestar_polars._core.segments import segment_positions, segment_running_sum


def log_survival_step(offset: Any, block: Any, relevant: Any) -> Any:
    """``ln(1 - r / (c - i))``: the log-chance that offset ``i`` is irrelevant."""
    return log1p(-relevant / (block - offset))


def first_relevant_probability(offset: Any, block: Any, relevant: Any, log_survival: Any) -> Any:
    """Chance the first relevant row sits at ``offset`` (``log_survival`` = ln S_offset)."""
    return relevant / (block - offset) * exp(log_survival)


def expected_reciprocal_rank(probability: Any, above: Any, offset: Any, k: int | None) -> Any:
    """One offset's term: its probability times the reciprocal of its rank, cut at ``k``."""
    return probability * reciprocal_discount(above + offset, k)


def reciprocal_rank_segments(
    relevant: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    *,
    k: int | None,
    ignore_ties: bool,
    presorted: bool = False,
) -> np.ndarray:
    """Reciprocal rank of the first relevant row of each segment; 0 when none."""
    ranking = rank_segments(score, length, presorted=presorted)
    rel = ranking.take(relevant, bool)
    out = np.zeros(ranking.length.size, dtype=np.float64)
    if not rel.any():
        return out
    # csum[i]: relevant rows among the first i ranked rows.  Rows are in ranking
    # order, so a segment's first relevant row is the row where csum first
    # passes its value at the segment's start (csum is sorted: a binary search)
    csum = np.zeros(rel.size + 1, dtype=np.int64)
    np.cumsum(rel, out=csum[1:])
    start = ranking.start
    before = csum[start]
    segs = np.flatnonzero(csum[start + ranking.length] > before)
    first_rows = np.searchsorted(csum, before[segs] + 1) - 1
    segment_start = start[segs]
    if ignore_ties:
        out[segs] = expected_reciprocal_rank(1.0, first_rows - segment_start, 0.0, k)
        return out
    b0, b1 = ranking.block_bounds(first_rows)
    c = (b1 - b0).astype(np.float64)
    r = (csum[b1] - csum[b0]).astype(np.float64)
    above = (b0 - segment_start).astype(np.float64)  # ranking.above of these rows only
    # offsets 0 .. c - r of each such block, flattened
    n_off = (c - r + 1).astype(np.int64)
    off_start, owner, position = segment_positions(n_off)
    offset = position.astype(np.float64)
    co, ro = c[owner], r[owner]
    with np.errstate(divide="ignore"):
        step = log_survival_step(offset, co, ro)
    # ln S_j: the steps of offsets 0 .. j-1 of the same block (an exclusive running sum)
    through = segment_running_sum(np.where(offset < co - ro, step, 0.0), off_start, n_off)
    log_surv = np.zeros_like(through)
    log_surv[1:] = through[:-1]
    log_surv[off_start] = 0.0
    prob = first_relevant_probability(offset, co, ro, log_surv)
    terms = expected_reciprocal_rank(prob, above[owner], offset, k)
    out[segs] = np.add.reduceat(terms, off_start)
    return out


def first_term(above: Any, block: Any, relevant: Any) -> Any:
    """Offset 0's term: the chance ``r / c`` its row is relevant times ``1 / (above + 1)``."""
    return relevant / (block * (above + 1.0))


def term_ratio(offset: Any, above: Any, block: Any, relevant: Any) -> Any:
    """The term at ``offset >= 1`` over the term at ``offset - 1`` (no cut at ``k``).

    ``P_j / P_{j-1} = (c - r + 1 - j) / (c - j)`` and ``w_j / w_{j-1} =
    (above + j) / (above + j + 1)``, so the terms are the running products of
    these ratios after :func:`first_term`.  The ratio is 0 at ``j = c - r + 1``,
    the first offset the first relevant row cannot reach.
    """
    return (
        (block - relevant + 1.0 - offset)
        * (above + offset)
        / ((block - offset) * (above + offset + 1.0))
    )


def expected_from_offset(later: Any, offset: Any, above: Any, block: Any, relevant: Any) -> Any:
    """Horner step: the expected reciprocal rank given offsets ``0..j-1`` were all irrelevant.

    ``T_j = (r / (above + j + 1) + (c - r - j) * T_{j+1}) / (c - j)``: offset ``j`` is
    relevant with chance ``r / (c - j)``, otherwise the first relevant row is
    further down (``later`` = ``T_{j+1}``).  ``T_0`` is the expected reciprocal
    rank; a cut at ``k`` makes ``T_j = 0`` for ``above + j >= k``.
    """
    return (relevant / (above + offset + 1.0) + (block - relevant - offset) * later) / (
        block - offset
    )
