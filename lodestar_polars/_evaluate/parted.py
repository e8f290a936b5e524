"""Frames evaluated in parts of whole groups: a large in-memory frame, a ``LazyFrame`` read once.

A frame of more than ``_PART_ROWS`` rows is evaluated in parts of whole groups
(:func:`_evaluate_parted`); a ``LazyFrame`` is read once, in parts of whole groups
(:func:`_evaluate_lazy`: streamed when its groups are contiguous runs, partitioned into
temporary files by a hash of the keys otherwise, :mod:`lodestar_polars._evaluate.partition`),
so that memory stays bounded. ``lp.Progress`` is what each part reports; the refusals of all
the parts are reported at the end in one sentence (:func:`_raise_refusals`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from polars.io.plugins import register_io_source

from lodestar_polars._core.threads import map_parts
from lodestar_polars._evaluate.frame import (
    _contiguous_runs,
    _describe,
    _evaluate_frame,
    _refusal_report,
)
from lodestar_polars._evaluate.partition import (
    Layout,
    NotGroupedError,
    grouped_parts,
    hashed_parts,
    read_ahead,
    sample_is_grouped,
)
from lodestar_polars._evaluate.roles import _RUN_KEY_TYPES, _SHOWN, _Parsed, _Roles
from lodestar_polars.exceptions import RefusedGroupError

if TYPE_CHECKING:
    pass

_PART_ROWS = 1 << 21
"""Rows of an in-memory frame evaluated at once (:func:`_evaluate_parted`)."""

_SLICE_ROWS = 1 << 18
"""Rows of a shuffled log's sorted part evaluated at once, while the next part is sorted.

Each slice's NumPy core then runs on one thread (:func:`lodestar_polars._core.threads.parts`
gives a thread at least ``1 << 18`` rows), beside the sort on the other: on the 1e8-row
shuffled log 15.7-15.9 s against 16.0-16.4 s in slices of ``_PART_ROWS``, in less CPU time
(26.7-26.9 s against 28.4-29.0 s).  A sorted log, evaluated with no sort beside it, is faster
in slices of ``_PART_ROWS`` (7.2-7.6 s against 8.4 s), and keeps them.
"""


def _evaluate_parted(
    frame: pl.DataFrame,
    parsed: list[_Parsed],
    roles: _Roles,
    *,
    strict: bool,
    part_rows: int | None = None,
) -> pl.DataFrame:
    """:func:`_evaluate_frame` of a frame, in parts of whole groups of about ``part_rows`` rows.

    The ranked arrays and the cores' temporaries of the whole-frame path are
    several times the columns it reads (about 4x); evaluated in parts, they
    are those of one part.  A frame laid out in runs (sorted by the keys, say)
    is cut at run boundaries, without a copy; any other is cut by a hash of
    the keys, one part copied out at a time.  A group's value reads only its
    own rows, so the values are those of one call, bit for bit; the refusals
    are reported over the whole frame, as one call reports them.
    """
    sliced = part_rows is not None
    part_rows = _PART_ROWS if part_rows is None else part_rows
    if frame.height <= part_rows:
        return _evaluate_frame(frame, parsed, roles, strict=strict)
    keys = roles.keys
    if sliced:  # small slices of a sorted part, each evaluated in a thread of its own
        slices = list(_frame_parts(frame, keys, part_rows))
        pieces = map_parts(
            lambda i: _evaluate_frame(slices[i], parsed, roles, strict=False), len(slices)
        )
    else:
        pieces = [
            _evaluate_frame(part, parsed, roles, strict=False)
            for part in _frame_parts(frame, keys, part_rows)
        ]
    result = pl.concat(pieces, how="vertical", rechunk=True).sort(keys)
    if strict:
        report = _refusal_report(frame, result, parsed, keys)
        if report is not None:
            raise RefusedGroupError(report)
    return result


def _frame_parts(frame: pl.DataFrame, keys: list[str], part_rows: int) -> Iterator[pl.DataFrame]:
    """An in-memory frame in parts of whole groups of about ``part_rows`` rows each."""
    runs = _contiguous_runs(frame, keys)
    if runs is not None:
        # every group one run: slices cut at the first run end past each multiple of part_rows
        ends = np.cumsum(runs.length)
        del runs
        targets = np.arange(part_rows, frame.height, part_rows)
        past = ends[np.searchsorted(ends, targets)]
        cuts = np.unique(np.concatenate([[0], past, [frame.height]]))
        for start, stop in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
            yield frame.slice(start, stop - start)
        return
    n_parts = -(-frame.height // part_rows)
    bucket = _bucket_of_rows(frame, keys, n_parts)
    # the next part copied out and sorted on one thread while this one is evaluated (see
    # _grouped and read_ahead): 2e7 shuffled rows 2.9 s against 3.5-3.6 s, for one part more
    # held (the peak's rise 0.54 GB against 0.46-0.51 GB)
    yield from read_ahead(
        iter(range(n_parts)),
        lambda i: _grouped(frame.filter(bucket == i), keys, multithreaded=False),
    )


def _grouped(part: pl.DataFrame, keys: list[str], *, multithreaded: bool = True) -> pl.DataFrame:
    """A part sorted by its keys (stably: each group's rows keep their order), when that helps.

    A part laid out in runs is cut into slices instead of hashed
    (:func:`_contiguous_runs`): a stable sort and that path cost about 0.6x the
    hash group-by's sort per group on 10-row queries.  Float keys are left to
    the hash group-by (its NaN and -0.0 rules are its own).

    ``multithreaded=False`` where the sort runs beside an evaluation that keeps
    every core busy (:func:`~lodestar_polars._evaluate.partition.read_ahead`):
    Polars' sort on one thread does the same work in about two thirds of the
    CPU time (5e6 rows: 0.36 s against 0.53 s), and there the CPU is the bound.
    """
    for key in keys:
        dtype = part.schema[key]
        if not (dtype.is_integer() or dtype.is_temporal() or isinstance(dtype, _RUN_KEY_TYPES)):
            return part
    return part.sort(keys, maintain_order=True, multithreaded=multithreaded)


def _bucket(keys: list[str], n_parts: int) -> pl.Expr:
    """Each row's part: a hash of its keys, modulo the parts (the same for every row of a group)."""
    return (pl.struct(keys).hash(seed=0) % n_parts).cast(pl.UInt32)


def _bucket_of_rows(frame: pl.DataFrame, keys: list[str], n_parts: int) -> pl.Series:
    """:func:`_bucket` of every row, computed a slice at a time (the 64-bit hashes stay small)."""
    step = 1 << 21
    pieces = [
        frame.slice(start, step).select(_bucket(keys, n_parts)).to_series()
        for start in range(0, frame.height, step)
    ]
    return pl.concat(pieces, rechunk=True)


@dataclass(frozen=True)
class Progress:
    """Where a batched :func:`evaluate` stands, passed to its ``progress`` callback.

    :func:`lodestar_polars.ranking_report` and :func:`lodestar_polars.compare` pass one
    to theirs too: a part or a step of the report (``groups_in_part``: the lists graded
    in it), a block of resamples (``rows_done``: the resamples drawn).
    """

    parts_done: int
    """Parts of the input evaluated so far."""
    parts_total: int
    """Parts the input is read in (streamed in runs: an estimate until the last part)."""
    rows_done: int
    """Input rows evaluated so far."""
    groups_in_part: int
    """Groups in the part just evaluated."""


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (macOS, musl, Windows)."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
    except (OSError, TypeError):  # no C library to load (Windows: CDLL(None) is a TypeError)
        return None
    return getattr(libc, "malloc_trim", None)


def _release_freed_memory() -> None:
    """Hand the C heap's freed pages back to the OS after a part (glibc only; else nothing).

    The parts of a ``LazyFrame`` are evaluated on Polars' worker threads (its
    engine pulls the IO source from them), and glibc gives each thread a heap
    arena of its own: the NumPy arrays a part frees stay in that thread's
    arena, so peak RSS grew with every thread that evaluated a part (2.4 GB on
    the 1e8-row log; 1.1 GB when trimmed after each part).
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _evaluate_lazy(
    source: pl.LazyFrame,
    parsed: list[_Parsed],
    roles: _Roles,
    *,
    strict: bool,
    part_rows: int,
    layout: Layout,
    temp_dir: str | None,
    progress: Callable[[Progress], None] | None,
) -> pl.DataFrame | None:
    """Per-group values of a ``LazyFrame``, read once, in parts of about ``part_rows`` rows.

    An input of at most ``part_rows`` rows is collected whole.  A larger one
    is streamed in parts cut between groups when its groups are contiguous
    runs (``layout``), else partitioned once by a hash of the keys into
    temporary files (:mod:`lodestar_polars._evaluate.partition`).  The parts are
    evaluated with ``strict=False`` and the refusals reported at the end over
    all of them, so the sentence is the in-memory path's (the refused groups'
    rows are read again for it, from the input).  None for an empty input.
    """
    keys = roles.keys
    total = source.select(pl.len()).collect().item()
    estimate = max(1, -(-total // part_rows))
    pieces: list[pl.DataFrame] = []
    rows_done = 0

    def evaluate_part(
        part: pl.DataFrame, done: int, parts: int, slice_rows: int | None = None
    ) -> None:
        nonlocal rows_done
        rows_done += part.height
        groups = 0
        if part.height:
            pieces.append(_evaluate_parted(part, parsed, roles, strict=False, part_rows=slice_rows))
            groups = pieces[-1].height
        _release_freed_memory()
        if progress is not None:
            progress(Progress(done, parts, rows_done, groups))

    ascending = True
    if estimate == 1:
        evaluate_part(source.collect(engine="streaming"), 1, 1)
    elif layout == "grouped" or (layout == "auto" and sample_is_grouped(source, keys)):
        # streamed in this thread: read ahead (as the shuffled parts are), a sorted 2e7-row log
        # took 2.68-2.70 s against 2.72-3.06 s, at 0.91 GB peak against 0.78-0.85 GB: there is
        # no sort to overlap, and the sorted log is twice as fast as DuckDB's already
        streamed = grouped_parts(source, keys, part_rows)
        try:
            done = 0
            for part, part_ascending, last in streamed:
                done += 1
                ascending = ascending and part_ascending
                evaluate_part(part, done, done if last else max(estimate, done + 1))
            if not ascending:  # no sorted key: no group may be in two parts
                _check_one_part_per_group(pl.concat(pieces), keys)
        except NotGroupedError as split:
            if layout == "grouped":
                msg = (
                    f"layout='grouped' needs each group's rows in one contiguous run (a log "
                    f"sorted by `by`), but group {split.where} has rows in two places; pass "
                    "layout='shuffled' (or 'auto') to partition the input by a hash of `by`"
                )
                raise ValueError(msg) from None
            pieces, rows_done, layout = [], 0, "shuffled"
        finally:
            streamed.close()
    else:
        layout = "shuffled"
    if layout == "shuffled" and estimate > 1:
        # two parts are in memory at once (the one evaluated, the one read ahead): each of about
        # half of part_rows. Smaller parts also shorten the first sort and the last evaluation,
        # which nothing overlaps (2e7 rows 3.13-3.16 s against 3.22-3.38 s in parts of 5e6)
        estimate = 2 * estimate
        # each part read back and sorted while the one before is evaluated: on one thread,
        # since the evaluation uses every core (1e8 rows shuffled: 16.5-16.9 s against 19.5 s)
        hashed = read_ahead(
            hashed_parts(source, keys, estimate, temp_dir),
            lambda part: _grouped(part, keys, multithreaded=False),
        )
        try:
            for i, part in enumerate(hashed):
                evaluate_part(part, i + 1, estimate, _SLICE_ROWS)
        finally:
            hashed.close()  # the temporary files go now, also on an error
    if not pieces:
        return None
    # the one sort of the result (the parts come in hash order): no copy before it
    result = pl.concat(pieces, how="vertical", rechunk=False).sort(keys)
    if strict:
        _raise_refusals(source, result, parsed, keys)
    return result


def _check_one_part_per_group(results: pl.DataFrame, keys: list[str]) -> None:
    """Raise :class:`NotGroupedError` naming a group found in two streamed parts."""
    twice = results.select(keys).filter(pl.struct(keys).is_duplicated())
    if twice.height:
        raise NotGroupedError(_describe(twice.row(0, named=True), keys))


def _raise_refusals(
    source: pl.LazyFrame, result: pl.DataFrame, parsed: list[_Parsed], keys: list[str]
) -> None:
    """Raise the in-memory path's :class:`RefusedGroupError` for a result read in parts.

    The sentence names the first refused groups of each metric with their
    reasons, which need those groups' rows: they are read again, from the input.
    """
    shown = [
        result.filter(pl.col(p.metric.name).is_null()).select(keys).head(_SHOWN) for p in parsed
    ]
    refused = pl.concat(shown).unique()
    if not refused.height:
        return
    rows = source.join(
        refused.lazy(), on=keys, how="semi", nulls_equal=True, maintain_order="left"
    ).collect(engine="streaming")
    report = _refusal_report(rows, result, parsed, keys)
    if report is not None:
        raise RefusedGroupError(report)


def _source(batches: Callable[[], Iterator[pl.DataFrame]], schema: dict[str, Any]) -> pl.LazyFrame:
    """A LazyFrame whose rows are produced, when collected, by ``batches``."""

    def io_source(
        with_columns: list[str] | None,
        predicate: pl.Expr | None,
        n_rows: int | None,
        batch_size: int | None,
    ) -> Iterator[pl.DataFrame]:
        for df in batches():
            if with_columns is not None:
                df = df.select(with_columns)
            if predicate is not None:
                df = df.filter(predicate)
            yield df

    return register_io_source(io_source, schema=schema)
