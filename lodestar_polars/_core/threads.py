"""NumPy work split across threads, as many as Polars uses (docs/decisions/0015).

NumPy releases the GIL in its loops but uses one core; Polars uses every
core it is given.  Three shapes of work are split, each giving the numbers
of one call, bit for bit:

* :func:`map_parts`: independent parts (the metric cores on parts of whole
  segments, ``_registry.run_core``; :func:`parts` cuts them), one per thread;
* :func:`argsort_rows`: a matrix sorted row by row (the padded ranking
  order), in blocks of rows;
* :func:`both`: two independent passes at once (NDCG's DCG and ideal DCG).

Inside a part everything runs serially (:func:`thread_count` is 1 there), so
no part waits on work queued behind the others.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Literal, TypeVar

import numpy as np

A = TypeVar("A")
B = TypeVar("B")

_MIN_BLOCK = 1 << 17
"""Elements a thread gets at least: below this the hand-off costs more than it saves."""

_lock = threading.Lock()
_pool: tuple[int, ThreadPoolExecutor] | None = None
_local = threading.local()
"""``inside``: this thread runs one of the parts of :func:`map_parts` (work there stays serial)."""


def thread_count() -> int:
    """Polars' thread count: ``POLARS_MAX_THREADS``, else the cores this process may use.

    1 inside a part of :func:`map_parts`: the parts hold every thread already,
    and a part waiting on work queued behind other parts could wait for ever.
    """
    if getattr(_local, "inside", False):
        return 1
    try:
        return max(1, int(os.environ["POLARS_MAX_THREADS"]))
    except (KeyError, ValueError):
        pass
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)


def _executor(threads: int) -> ThreadPoolExecutor:
    """One pool per process (a forked child, a Spark worker, gets its own)."""
    global _pool
    with _lock:
        if _pool is None or _pool[0] != os.getpid():
            _pool = (os.getpid(), ThreadPoolExecutor(threads, thread_name_prefix="lodestar"))
        return _pool[1]


def argsort_rows(keys: np.ndarray, *, kind: Literal["stable"] | None = None) -> np.ndarray:
    """``np.argsort(keys, axis=1, kind=kind)`` of a 2-D matrix, blocks of rows in threads."""
    rows = keys.shape[0]
    threads = min(thread_count(), keys.size // _MIN_BLOCK, rows)
    if threads < 2:
        return np.argsort(keys, axis=1, kind=kind)
    out = np.empty(keys.shape, dtype=np.intp)
    bounds = np.linspace(0, rows, threads + 1).astype(np.int64)

    def block(i: int) -> None:
        a, b = int(bounds[i]), int(bounds[i + 1])
        out[a:b] = np.argsort(keys[a:b], axis=1, kind=kind)

    _map(block, threads)
    return out


def _map(fn: Callable[[int], None], n: int) -> None:
    """``fn(0) .. fn(n - 1)`` in the pool, the first in this thread; errors re-raised."""
    pool = _executor(thread_count())
    futures = [pool.submit(fn, i) for i in range(1, n)]
    fn(0)
    for f in futures:
        f.result()


def _serial(fn: Callable[[int], A]) -> Callable[[int], A]:
    """``fn`` run with :func:`thread_count` 1 in its thread (see there)."""

    def run(i: int) -> A:
        _local.inside = True
        try:
            return fn(i)
        finally:
            _local.inside = False

    return run


def parts(length: np.ndarray, min_rows: int = 1 << 18) -> np.ndarray:
    """Segment bounds cutting segments of ``length`` rows into parts of about equal rows.

    One part per thread, none under ``min_rows`` rows; ``[0, n]`` for one part.
    A segment is never cut.
    """
    length = np.asarray(length, dtype=np.int64)
    rows = int(length.sum())
    n = max(1, min(thread_count(), rows // min_rows, length.size))
    if n == 1:
        return np.array([0, length.size], dtype=np.int64)
    through = np.cumsum(length)
    inner = np.searchsorted(through, np.arange(1, n) * (rows / n), side="left") + 1
    return np.unique(np.concatenate(([0], inner, [length.size])))


def map_parts(fn: Callable[[int], A], n: int) -> list[A]:
    """``[fn(0), .., fn(n - 1)]``, each in its own thread (the first in this one)."""
    if n == 1:
        return [fn(0)]
    results: list[A | None] = [None] * n
    serial = _serial(fn)

    def one(i: int) -> None:
        results[i] = serial(i)

    _map(one, n)
    return results  # type: ignore[return-value]  # every slot filled by _map


def both(first: Callable[[], A], second: Callable[[], B]) -> tuple[A, B]:
    """``first()`` here and ``second()`` in the pool at the same time (two independent passes)."""
    if thread_count() < 2:
        return first(), second()
    future = _executor(thread_count()).submit(second)
    return first(), future.result()
