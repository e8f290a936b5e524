"""Flat arrays cut into contiguous segments: the one home of the segment arithmetic.

A *segment* is one query's documents or one sample's labels: rows
``start[i] : start[i] + length[i]`` of the flat arrays, segments laid end to end.
"""

from __future__ import annotations

import numpy as np


def segment_starts(length: np.ndarray) -> np.ndarray:
    """First flat row of each segment of ``length`` rows (int64)."""
    length = np.asarray(length, dtype=np.int64)
    start = np.zeros(length.size, dtype=np.int64)
    np.cumsum(length[:-1], out=start[1:])
    return start


def segment_sum(values: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Sum flat ``values`` over contiguous segments; an empty segment sums to 0."""
    out = np.zeros(length.size, dtype=np.float64)
    nonempty = length > 0
    if values.size:
        out[nonempty] = np.add.reduceat(np.asarray(values, dtype=np.float64), start[nonempty])
    return out


def segment_ids(length: np.ndarray) -> np.ndarray:
    """Segment index of each flat row of segments of ``length`` rows."""
    return np.repeat(np.arange(np.size(length)), length)


def segment_positions(length: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(start, segment, position)`` of flat rows cut into segments of ``length`` rows."""
    length = np.asarray(length, dtype=np.int64)
    start = segment_starts(length)
    segment = segment_ids(length)
    position = np.arange(segment.size, dtype=np.int64) - start[segment]
    return start, segment, position


def segment_cumsum(values: np.ndarray, start: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """Inclusive running sum of integer ``values`` restarting at each segment."""
    total = np.cumsum(values, dtype=np.int64)
    before = np.concatenate(([0], total))[start]
    return total - before[segment]


def segment_running_sum(values: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Inclusive running sums of float ``values`` that restart at each segment.

    Each segment is summed on its own: a running sum over the whole array
    minus its value at the segment's start would lose the digits of every
    segment to the magnitude of the total (1.6e-11 relative error at 1e7 rows
    for the reciprocal-rank expectation).  Segments of similar length (the same
    power of two) are laid out as the rows of a zero-padded matrix and summed
    along its rows: one pass per length class, at most twice the data in memory.
    Integer values (counts, 0/1 flags) take one global running sum, exact for them;
    boolean flags count in integers, with no check.
    """
    values = np.asarray(values)
    start = np.asarray(start, dtype=np.int64)
    length = np.asarray(length, dtype=np.int64)
    if values.dtype == np.bool_:
        counts = np.concatenate(([0], np.cumsum(values, dtype=np.int64)))
        return (counts[1:] - np.repeat(counts[start], length)).astype(np.float64)
    values = np.asarray(values, dtype=np.float64)
    start = np.asarray(start, dtype=np.int64)
    length = np.asarray(length, dtype=np.int64)
    if np.array_equal(values, np.trunc(values)) and np.abs(values).sum() < 2.0**53:
        # integers summing below 2**53: every running sum is exact, so one
        # running sum over the whole array minus its value before each segment is too
        total = np.concatenate(([0.0], np.cumsum(values)))
        return total[1:] - np.repeat(total[start], length)
    out = np.zeros(values.size, dtype=np.float64)
    nonempty = length > 0
    if not nonempty.any():
        return out
    start, length = start[nonempty], length[nonempty]
    _, exponent = np.frexp(length.astype(np.float64))  # length < 2 ** exponent
    for e in np.unique(exponent):
        chosen = exponent == e
        width = int(length[chosen].max())
        column = np.arange(width)
        index = start[chosen, None] + column
        inside = column < length[chosen, None]
        matrix = np.where(inside, values[np.where(inside, index, 0)], 0.0)
        np.cumsum(matrix, axis=1, out=matrix)
        out[index[inside]] = matrix[inside]
    return out
