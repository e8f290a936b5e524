"""Rank as a count, for flat arrays cut into contiguous segments.

A *segment* is one query's documents or one sample's labels: rows
``start[i] : start[i] + length[i]`` of the flat arrays.  Within a segment the
rows are put in ranking order, score descending, equal scores with the later
row first (the order ``ignore_ties=True`` and ``top_k_accuracy`` use).  For
every row we record

* ``above``: how many rows of its segment score strictly higher;
* ``through``: how many score at least as high (``rankdata(-s, "max")``);
* ``position``: its 0-based place in the ranking order.

The Polars layer derives the same three quantities with ``Expr.rank``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, DTypeLike


@dataclass(frozen=True)
class Ranking:
    """Rows of flat segmented arrays, in ranking order (see module docstring)."""

    order: np.ndarray | None
    """Permutation putting an input array in ranking order; None when the
    input was in ranking order already (``presorted``).  Use :meth:`take`."""
    segment: np.ndarray
    """Segment index of each ranked row."""
    start: np.ndarray
    """First ranked row of each segment."""
    length: np.ndarray
    """Number of rows of each segment."""
    above: np.ndarray
    """Rows of the same segment scoring strictly higher (int64)."""
    through: np.ndarray
    """Rows of the same segment scoring at least as high (int64)."""
    position: np.ndarray
    """0-based position in the ranking order (int64)."""
    block_start: np.ndarray
    """Flat index of the first ranked row of each row's tie block."""
    block_end: np.ndarray
    """Flat index one past the last ranked row of each row's tie block."""

    def take(self, values: ArrayLike, dtype: DTypeLike = None) -> np.ndarray:
        """An input-order array, in ranking order."""
        array = np.asarray(values, dtype=dtype)
        return array if self.order is None else array[self.order]

    def segment_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum ranked-order ``values`` per segment."""
        return np.add.reduceat(values, self.start) if values.size else values

    def through_sum(self, values: np.ndarray) -> np.ndarray:
        """Per ranked row: the sum of ``values`` over the rows scoring at least as high."""
        csum = np.concatenate(([0.0], np.cumsum(values, dtype=np.float64)))
        return csum[self.block_end] - csum[self.start[self.segment]]


def rank_segments(
    score: np.ndarray, length: np.ndarray, *, presorted: bool = False, break_ties: bool = True
) -> Ranking:
    """Rank ``score`` (flat, float64, finite) within segments of ``length`` rows (each >= 1).

    With ``presorted=True`` the rows are taken to be in ranking order already
    (each segment sorted by score descending, equal scores later input row
    first, as a frame sort by ``(group, score, row index)`` descending gives),
    and no sort is made: ``order`` is the identity.  With ``break_ties=False``
    equal scores keep no particular order (a cheaper sort), for callers that
    read only ``above``/``through`` or rank values by themselves.
    """
    score = np.asarray(score, dtype=np.float64) + 0.0  # -0.0 == 0.0
    length = np.asarray(length, dtype=np.int64)
    n = score.size
    start = np.zeros(length.size, dtype=np.int64)
    np.cumsum(length[:-1], out=start[1:])
    # segments stay contiguous and in order in ranking order: every sort below
    # has the segment as its primary key
    segment = np.repeat(np.arange(length.size), length)
    index = np.arange(n)
    if presorted:
        order = None
        ranked = score
    else:
        if break_ties:
            order = np.lexsort((-index, -score, segment))
        else:
            order = np.lexsort((-score, segment))
        ranked = score[order]
    new_block = np.empty(n, dtype=bool)
    if n:
        new_block[0] = True
        np.not_equal(ranked[1:], ranked[:-1], out=new_block[1:])
        new_block[start[length > 0]] = True
    # each row's tie block: the last block start at or before it, and the first
    # block start after it (running max / min, no gathers)
    block_start = np.maximum.accumulate(np.where(new_block, index, 0))
    next_start = np.full(n, n, dtype=np.int64)
    if n > 1:
        np.copyto(next_start[:-1], index[1:], where=new_block[1:])
    block_end = np.minimum.accumulate(next_start[::-1])[::-1]
    seg_start = np.repeat(start, length)
    return Ranking(
        order=order,
        segment=segment,
        start=start,
        length=length,
        above=block_start - seg_start,
        through=block_end - seg_start,
        position=index - seg_start,
        block_start=block_start,
        block_end=block_end,
    )
