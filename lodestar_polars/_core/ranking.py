"""Rank as a count, for flat arrays cut into contiguous segments.

A *segment* is one query's documents or one sample's labels: rows
``start[i] : start[i] + length[i]`` of the flat arrays.  Within a segment the
rows are put in ranking order, score descending, equal scores with the later
row first (the order ``ignore_ties=True`` and ``top_k_accuracy`` use).  For
every row we record

* ``above``: how many rows of its segment score strictly higher;
* ``through``: how many score at least as high (``rankdata(-s, "max")``);
* ``position``: its 0-based place in the ranking order;

and for every tie block (the rows of a segment sharing a score) its first
row, size and ``above``, for formulas summed block by block (DCG).  Each is
computed when first read.  The Polars layer derives the per-row quantities
with ``Expr.rank``.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from lodestar_polars._core.segments import (
    segment_ids,
    segment_positions,
    segment_running_sum,
    segment_starts,
    segment_sum,
)
from lodestar_polars._core.threads import argsort_rows


class Ranking:
    """Rows of flat segmented arrays, in ranking order (see module docstring).

    Only ``order``, ``start`` and ``length`` are made up front; every per-row
    array is computed the first time it is read, so a metric pays only for
    what it reads (at 1e7 rows each is a pass over 80 MB).
    """

    def __init__(
        self, order: np.ndarray | None, start: np.ndarray, length: np.ndarray, new_block: np.ndarray
    ) -> None:
        self.order = order
        """Permutation putting an input array in ranking order; None when the
        input was in ranking order already (``presorted``).  Use :meth:`take`."""
        self.start = start
        """First ranked row of each segment."""
        self.length = length
        """Number of rows of each segment."""
        self._new_block = new_block
        """True where a ranked row starts a tie block (or a segment)."""

    @cached_property
    def width(self) -> int | None:
        """The common length of the segments when all have one (>= 1), else None.

        Equal lengths are common (a run of the top 1000 per query, a top-k
        list per user): the flat arrays are then a matrix, one row per
        segment, and per-row arrays are built from one row repeated.
        """
        n = self._new_block.size
        if not self.length.size or n % self.length.size:
            return None
        width = n // self.length.size
        return width if width and bool(np.all(self.length == width)) else None

    @cached_property
    def segment(self) -> np.ndarray:
        """Segment index of each ranked row."""
        return segment_ids(self.length)

    @cached_property
    def segment_start(self) -> np.ndarray:
        """Flat index of the first ranked row of each row's segment."""
        return np.repeat(self.start, self.length)

    @cached_property
    def position(self) -> np.ndarray:
        """0-based position in the ranking order (int64)."""
        if self.width is not None:
            return np.tile(np.arange(self.width, dtype=np.int64), self.length.size)
        return np.arange(self._new_block.size) - self.segment_start

    @cached_property
    def no_ties(self) -> bool:
        """True when every tie block is one row (no two rows of a segment share a score)."""
        return bool(self._new_block.all())

    @cached_property
    def block_start(self) -> np.ndarray:
        """Flat index of the first ranked row of each row's tie block."""
        if self.no_ties:  # every row a block of its own
            return np.arange(self._new_block.size)
        return np.repeat(self.block_first, self.block_size)

    @cached_property
    def block_end(self) -> np.ndarray:
        """Flat index one past the last ranked row of each row's tie block."""
        n = self._new_block.size
        if self.no_ties:  # every row a block of its own
            return np.arange(1, n + 1)
        return np.repeat(self.block_first + self.block_size, self.block_size)

    @cached_property
    def above(self) -> np.ndarray:
        """Rows of the same segment scoring strictly higher (int64)."""
        return self.block_start - self.segment_start

    @cached_property
    def through(self) -> np.ndarray:
        """Rows of the same segment scoring at least as high (int64)."""
        return self.block_end - self.segment_start

    def block_bounds(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``block_start`` and ``block_end`` of the ranked ``rows`` only.

        For a few rows: a binary search among the blocks instead of two
        arrays over every row.
        """
        if self.no_ties:
            return rows, rows + 1
        block = np.searchsorted(self.block_first, rows, side="right") - 1
        first = self.block_first[block]
        return first, first + self.block_size[block]

    @cached_property
    def block_first(self) -> np.ndarray:
        """Flat index of the first ranked row of each tie block (blocks in ranked order)."""
        return np.flatnonzero(self._new_block)

    @cached_property
    def _segment_first_block(self) -> np.ndarray:
        """Index (among the blocks) of each segment's first block."""
        if self.width is not None:  # the blocks with no row of their segment above
            return np.flatnonzero(self.block_above == 0)
        starts_segment = np.zeros(self._new_block.size, dtype=bool)
        starts_segment[self.start[self.length > 0]] = True
        return np.flatnonzero(starts_segment[self.block_first])

    @cached_property
    def block_size(self) -> np.ndarray:
        """Rows of each tie block."""
        return np.diff(self.block_first, append=self._new_block.size)

    @cached_property
    def block_above(self) -> np.ndarray:
        """Rows of each tie block's segment ranked above the block."""
        if self.width is not None:  # segments of one width: the block's column
            return self.block_first % self.width
        blocks_per_segment = np.diff(self._segment_first_block, append=self.block_first.size)
        nonempty = self.start[self.length > 0]
        return self.block_first - np.repeat(nonempty, blocks_per_segment)

    def block_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum ranked-order ``values`` per tie block."""
        return np.add.reduceat(values, self.block_first) if values.size else values

    def segment_sum_of_blocks(self, block_values: np.ndarray) -> np.ndarray:
        """Sum per-block values per segment (0 for an empty segment)."""
        out = np.zeros(self.length.size, dtype=np.float64)
        if block_values.size:
            out[self.length > 0] = np.add.reduceat(block_values, self._segment_first_block)
        return out

    def take(self, values: ArrayLike, dtype: DTypeLike | None = None) -> np.ndarray:
        """An input-order array, in ranking order."""
        array = np.asarray(values, dtype=dtype)
        return array if self.order is None else array[self.order]

    def segment_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum ranked-order ``values`` per segment."""
        if self.width is not None:  # no empty segment to mask: the same sums
            return np.add.reduceat(np.asarray(values, dtype=np.float64), self.start)
        return segment_sum(values, self.start, self.length)

    def by_position(self, table: np.ndarray) -> np.ndarray:
        """``table[position]`` of every ranked row (``table`` covers the longest segment)."""
        if self.width is not None:  # one row of the table, repeated: no gather
            return np.tile(table[: self.width], self.length.size)
        return table[self.position]

    def through_sum(self, values: np.ndarray) -> np.ndarray:
        """Per ranked row: the sum of ``values`` over the rows scoring at least as high."""
        running = segment_running_sum(values, self.start, self.length)
        return running if self.no_ties else running[self.block_end - 1]


def rank_segments(
    score: np.ndarray, length: np.ndarray, *, presorted: bool = False, break_ties: bool = True
) -> Ranking:
    """Rank ``score`` (flat, finite) within segments of ``length`` rows (each >= 1).

    The scores are ranked in their own dtype: an integer score is never cast
    to float64, where integers above 2**53 would merge into ties.

    With ``presorted=True`` the rows are taken to be in ranking order already
    (each segment sorted by score descending, equal scores later input row
    first, as a frame sort by ``(group, score, row index)`` descending gives),
    and no sort is made: ``order`` is the identity.  With ``break_ties=False``
    equal scores keep no particular order (a cheaper sort), for callers that
    read only ``above``/``through`` or rank values by themselves.
    """
    # no copy to turn -0.0 into 0.0: sorts and == treat them as equal already
    score = _as_scores(score)
    length = np.asarray(length, dtype=np.int64)
    n = score.size
    start = segment_starts(length)
    if presorted:
        order = None
        ranked = score
    else:
        order = segment_order(score, length, break_ties=break_ties)
        ranked = score[order]
    new_block = np.empty(n, dtype=bool)
    if n:
        new_block[0] = True
        np.not_equal(ranked[1:], ranked[:-1], out=new_block[1:])
        new_block[start[length > 0]] = True
    return Ranking(order, start, length, new_block)


_LOOK_FIRST = 4096  # rows looked at before the whole array: most unranked logs fail there


def runs_descend(score: np.ndarray, length: np.ndarray, *, strict: bool = False) -> bool:
    """True when each segment's scores are in ranking order already (non-increasing).

    With ``strict``, strictly decreasing: no two rows of a segment tie.  NaN
    compares false, so a segment holding one is not in order.  A log ranked
    within each query (a TREC run, a top-k list) then needs no sort.  The
    leading rows are looked at first, so an unranked log costs little.
    """
    score = np.asarray(score)
    length = np.asarray(length, dtype=np.int64)
    if score.size < 2:
        return True
    start = segment_starts(length)
    for end in (min(score.size, _LOOK_FIRST), score.size):
        head = score[:end]
        falls = np.less(head[1:], head[:-1]) if strict else np.less_equal(head[1:], head[:-1])
        # a segment's first row may be higher than the row before it
        firsts = start[(start > 0) & (start < end)]
        falls[firsts - 1] = True
        if not falls.all():
            return False
    return True


_PADDED_WASTE = 2  # a padded matrix at most this many times the rows: sorted row by row


def one_padded_matrix(length: np.ndarray) -> bool:
    """True when padding every segment to the longest at most doubles the rows."""
    length = np.asarray(length, dtype=np.int64)
    total = int(length.sum())
    return total > 0 and length.size * int(np.max(length)) <= _PADDED_WASTE * total


def segment_order(score: np.ndarray, length: np.ndarray, *, break_ties: bool = True) -> np.ndarray:
    """The permutation putting each segment of ``score`` in ranking order.

    Segments stay contiguous and in order; within each, score descending, and
    with ``break_ties`` equal scores later row first (otherwise in no
    particular order).  Finite float scores are sorted as the rows of padded
    matrices, one row per segment (:func:`_padded_order`): all segments in one
    matrix when that at most doubles the rows, else one matrix per class of
    lengths within a factor of two of each other.  That costs about half the
    ``lexsort`` with the segment as primary key that orders anything else.
    """
    score = _as_scores(score)
    length = np.asarray(length, dtype=np.int64)
    if score.dtype.kind == "f" and score.size and np.isfinite(score).all():
        if one_padded_matrix(length):
            return _padded_order(score, length, break_ties=break_ties)
        return _classed_order(score, length, break_ties=break_ties)
    # segments stay contiguous and in order in ranking order: every sort
    # has the segment as its primary key
    segment = segment_ids(length)
    if break_ties:
        return np.lexsort((-np.arange(score.size), descending_key(score), segment))
    return np.lexsort((descending_key(score), segment))


def _classed_order(score: np.ndarray, length: np.ndarray, *, break_ties: bool) -> np.ndarray:
    """:func:`_padded_order` of ragged segments, one matrix per class of lengths.

    Class ``c`` holds the segments of ``2**(c-1) < length <= 2**c`` rows, so
    padding at most doubles a class.  Each segment keeps its own slots in the
    ranking order (segments stay contiguous and in order), so a class's rows
    are ordered among themselves and written back to the same slots.
    """
    start = segment_starts(length)
    order = np.empty(score.size, dtype=np.int64)
    nonempty = length > 0
    width_class = np.ceil(np.log2(np.maximum(length, 1))).astype(np.int64)
    for c in np.unique(width_class[nonempty]):
        segments = np.flatnonzero((width_class == c) & nonempty)
        seg_length = length[segments]
        # the class's rows, segment after segment, as indices into score
        offset = start[segments] - segment_starts(seg_length)
        rows = np.repeat(offset, seg_length) + np.arange(int(seg_length.sum()))
        order[rows] = rows[_padded_order(score[rows], seg_length, break_ties=break_ties)]
    return order


def _padded_order(score: np.ndarray, length: np.ndarray, *, break_ties: bool) -> np.ndarray:
    """:func:`segment_order` of finite float scores, one matrix row per segment.

    Each segment's keys ``-score`` fill a row, the padding ``+inf`` after them
    (finite keys: :func:`segment_order` gives any other to the ``lexsort``); an
    empty segment is a row of padding.  With
    ``break_ties`` each row is laid out back to front and sorted stably: among
    equal keys the later row of the segment comes first.  Segments of one
    length need no padding: the scores themselves are the matrix.  The rows are
    sorted in threads (:func:`argsort_rows`).
    """
    longest = int(np.max(length))
    start = segment_starts(length)
    if bool(np.all(length == longest)):
        # no padding: the scores are the matrix, sorted ascending (stably with
        # break_ties: earlier row first among equals) and read back to front,
        # which is score descending with the later row first among equals
        ascending = argsort_rows(
            score.reshape(length.size, longest), kind="stable" if break_ties else None
        )
        return (ascending[:, ::-1] + start[:, None]).ravel()
    _, segment, column = segment_positions(length)
    if break_ties:
        column = length[segment] - 1 - column  # back to front
    flat_keys = np.full(length.size * longest, np.inf)
    flat_keys[segment * longest + column] = -score
    keys = flat_keys.reshape(length.size, longest)
    within = argsort_rows(keys, kind="stable" if break_ties else None)
    if break_ties:
        within = length[:, None] - 1 - within
    within += start[:, None]
    # row i's first length[i] sorted entries are its segment's rows, the padding after them
    return within[np.arange(longest) < length[:, None]]


def _as_scores(score: ArrayLike) -> np.ndarray:
    """Scores as an array that ranks as the values do: integers kept, anything else float64."""
    array = np.asarray(score)
    if array.dtype.kind in "iu":
        return array
    return np.asarray(array, dtype=np.float64)


def descending_key(score: np.ndarray) -> np.ndarray:
    """A key whose ascending order is ``score``'s descending order, in ``score``'s dtype.

    ``-score`` for floats; for integers the bitwise complement ``~score``
    (``-score - 1`` for signed, ``MAX - score`` for unsigned), which reverses
    the order without the overflow of negating the smallest int64 or any uint64.
    """
    if score.dtype.kind in "iu":
        return np.invert(score)
    return -score
