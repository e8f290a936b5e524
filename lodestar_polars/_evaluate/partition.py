"""A ``LazyFrame`` read once, in parts of whole groups (``lp.evaluate``'s larger-than-memory path).

Two ways, one read of the input each:

* **grouped** (each group's rows one contiguous run: a log sorted by query):
  the input is streamed (:func:`grouped_parts`) and cut at group boundaries,
  with no hashing and nothing written;
* **shuffled**: the input is partitioned once, by a hash of the keys, into
  temporary Arrow IPC files (Polars' partitioned sink), then each part is read
  from its own files (:func:`hashed_parts`); the temporary directory is
  removed when the parts are read, or on an error.

Each part keeps its rows in input order (a group's rows in their order), so a
part's values are those of the in-memory path, bit for bit.  :func:`read_ahead`
reads (and sorts) the next part on a worker thread while one is evaluated.
"""

from __future__ import annotations

import os
import queue
import shutil
import tempfile
import threading
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Literal, TypeVar

import numpy as np
import polars as pl

from lodestar_polars.exceptions import InvalidParameterError

T = TypeVar("T")
U = TypeVar("U")

Layout = Literal["auto", "grouped", "shuffled"]
LAYOUTS: tuple[Layout, ...] = ("auto", "grouped", "shuffled")

_PART = "__lodestar_part"
_SAMPLE_ROWS = 1 << 20
"""Leading rows read to tell a grouped input from a shuffled one (``layout='auto'``)."""


class NotGroupedError(ValueError):
    """The input's groups are not contiguous runs; ``where`` names a group split in two."""

    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


def check_temp_dir(temp_dir: object, caller: str) -> str | None:
    """An existing directory (``str`` or path-like) or None, in scikit-learn's sentence."""
    if temp_dir is None:
        return None
    if isinstance(temp_dir, (str, os.PathLike)) and os.path.isdir(temp_dir):
        return os.fspath(temp_dir)
    msg = (
        f"The 'temp_dir' parameter of {caller} must be an existing directory or None. "
        f"Got {temp_dir!r} instead."
    )
    raise InvalidParameterError(msg)


def _describe(row: dict[str, object], keys: list[str]) -> str:
    return ", ".join(f"{key}={row[key]!r}" for key in keys)


def _row_key(keys: list[str]) -> pl.Expr:
    return pl.col(keys[0]) if len(keys) == 1 else pl.struct(keys)


def _run_starts(part: pl.DataFrame, keys: list[str]) -> np.ndarray:
    """The first row of each run of equal keys (``rle_id``: nulls equal)."""
    run = part.select(_row_key(keys).rle_id()).to_series().to_numpy()
    new_run = np.empty(run.size, dtype=bool)
    new_run[:1] = True
    np.not_equal(run[1:], run[:-1], out=new_run[1:])
    return np.flatnonzero(new_run)


def _sorted_key(part: pl.DataFrame, keys: list[str]) -> pl.Series | None:
    """The one key column when it is sorted (nulls first) and not a float; else None.

    A sorted key makes every group one run with no hashing; floats are left to
    the hash (``-0.0`` and ``0.0``, the NaNs, are one group of the group-by).
    """
    if len(keys) != 1:
        return None
    column = part.get_column(keys[0])
    dtype = column.dtype
    if not (dtype.is_integer() or dtype.is_temporal() or dtype in (pl.String, pl.Boolean)):
        return None
    return column if column.is_sorted() else None


def _split_group(part: pl.DataFrame, keys: list[str]) -> str | None:
    """A group whose rows are not one run, described; None when every group is one run."""
    starts = _run_starts(part, keys)
    firsts = part.select(pl.col(keys).gather(pl.Series(starts, dtype=pl.UInt32)))
    if firsts.n_unique() == firsts.height:
        return None
    return _describe(firsts.filter(firsts.is_duplicated()).row(0, named=True), keys)


def sample_is_grouped(lazy: pl.LazyFrame, keys: list[str]) -> bool:
    """Whether the input's leading rows (about a million) hold each group in one run.

    The cheap guess of ``layout='auto'``: a shuffled log shows it in its first
    rows; a grouped one is checked part by part as it is streamed.
    """
    head = lazy.head(_SAMPLE_ROWS).collect(engine="streaming")
    if head.height < 2:
        return True
    if _sorted_key(head, keys) is not None:
        return True
    return 2 * _run_starts(head, keys).size <= head.height and _split_group(head, keys) is None


def grouped_parts(
    lazy: pl.LazyFrame, keys: list[str], part_rows: int
) -> Generator[tuple[pl.DataFrame, bool, bool]]:
    """The input streamed in parts of about ``part_rows`` rows, cut between groups.

    Yields ``(part, ascending, last)``: ``ascending`` when the part's one key
    is sorted and above the previous part's, so that no group can be in two
    parts; ``last`` for the last part.  Raises :class:`NotGroupedError` as
    soon as a part holds a group in two runs.  A group
    of more rows than ``part_rows`` stays whole (its part grows).
    """
    pending: list[pl.DataFrame] = []
    pending_rows = 0
    previous_last: pl.Series | None = None

    def check(part: pl.DataFrame) -> bool:
        nonlocal previous_last
        key = _sorted_key(part, keys)
        if key is not None:
            first = key.head(1)
            ascending = previous_last is None or (
                pl.concat([previous_last, first]).is_sorted()
                and pl.concat([previous_last, first]).n_unique() == 2
            )
            previous_last = key.tail(1)
            if ascending:
                return True
        else:
            previous_last = None
        split = _split_group(part, keys)
        if split is not None:
            raise NotGroupedError(split)
        return False

    batches = lazy.collect_batches(chunk_size=part_rows)
    for batch in batches:
        if not batch.height:
            continue
        pending.append(batch)
        pending_rows += batch.height
        if pending_rows < part_rows:
            continue
        frame = pl.concat(pending, rechunk=True)
        # the last run may go on in the next batch: it waits for it
        cut = int(_run_starts(frame, keys)[-1])
        pending, pending_rows = [frame.slice(cut)], frame.height - cut
        if cut == 0:  # one run so far: a group larger than a part
            continue
        part = frame.slice(0, cut)
        yield part, check(part), False  # the last run waits: a part follows
    if pending_rows:
        part = pl.concat(pending, rechunk=True)
        yield part, check(part), True


def hashed_parts(
    lazy: pl.LazyFrame, keys: list[str], n_parts: int, temp_dir: str | None
) -> Generator[pl.DataFrame]:
    """The input in ``n_parts`` parts of whole groups, by a hash of the keys, read once.

    One streaming pass writes each row to its part's files (uncompressed
    Arrow IPC, about a third faster to write than uncompressed Parquet, in a
    new directory under ``temp_dir``, the system's temporary directory by
    default); each part is then read back whole.  The directory
    is removed when the generator ends, is closed, or fails.
    """
    bucket = (pl.struct(keys).hash(seed=0) % n_parts).cast(pl.UInt32).alias(_PART)
    directory = tempfile.mkdtemp(prefix="lodestar_evaluate_", dir=temp_dir)
    try:
        lazy.with_columns(bucket).sink_ipc(
            pl.PartitionBy(directory, key=_PART, include_key=False),
            compression="uncompressed",
            mkdir=True,
        )
        schema = lazy.collect_schema()
        for i in range(n_parts):
            files = sorted(Path(directory, f"{_PART}={i}").glob("*.ipc"))
            if not files:
                yield pl.DataFrame(schema=schema)
                continue
            part = pl.scan_ipc(files).collect().rechunk()
            for file in files:  # the disk a part held is freed once it is read
                file.unlink()
            yield part
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def read_ahead(parts: Iterator[T], prepare: Callable[[T], U]) -> Generator[U]:
    """``prepare(part)`` of each part, the next one read and prepared while this one is used.

    A worker thread pulls ``parts`` (reading a file, streaming a scan) and
    prepares each (a sort), at most one part ahead of the caller: two parts
    are in memory at once, the one being evaluated and the next.  Reading
    and sorting are Polars' (the GIL released) and overlap the evaluation of
    the previous part, whose serial steps leave a core idle.  The items come
    in order, an exception of ``parts`` or ``prepare`` comes where it was
    raised, and ``parts`` is closed on the worker thread (its ``finally``
    runs there) when it ends, fails, or this generator is closed.
    """
    done = object()
    ready: queue.Queue[tuple[object, BaseException | None]] = queue.Queue()
    room = threading.Semaphore(1)  # a part taken by the caller frees room for the next
    stop = threading.Event()

    def work() -> None:
        try:
            while True:
                room.acquire()
                if stop.is_set():
                    return
                try:
                    part = next(parts)
                except StopIteration:
                    ready.put((done, None))
                    return
                ready.put((prepare(part), None))
        except BaseException as exc:  # handed to the caller, raised there
            ready.put((done, exc))
        finally:
            close = getattr(parts, "close", None)
            if close is not None:
                close()

    worker = threading.Thread(target=work, name="lodestar-read-ahead", daemon=True)
    worker.start()
    try:
        while True:
            item, exc = ready.get()
            room.release()
            if exc is not None:
                raise exc
            if item is done:
                return
            yield item  # type: ignore[misc]
    finally:
        stop.set()
        room.release()
        worker.join()
