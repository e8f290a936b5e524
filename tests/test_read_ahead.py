"""``read_ahead``: the parts of a larger-than-memory input read while the previous one is used.

It runs the source generator on a worker thread, one part ahead of the caller. These tests
pin down what the evaluation relies on: the parts come in order, at most one is read ahead
(two in memory), an error comes where the source raised it, and the source is closed (its
``finally``, which removes the temporary files, runs) when it ends, fails, or the caller stops.
"""

from __future__ import annotations

import threading
from collections.abc import Generator

import pytest

from lodestar_polars._evaluate.partition import read_ahead


def _take(parts: Generator[int], seen: list[int]) -> None:
    """Append each part to ``seen`` until the parts end or one fails."""
    for part in parts:
        seen.append(part)


class _Source:
    """A generator of ``n`` parts that records how far it was pulled and whether it was closed."""

    def __init__(self, n: int, fail_at: int | None = None) -> None:
        self.n, self.fail_at = n, fail_at
        self.produced = 0
        self.closed = threading.Event()
        self.threads: set[str] = set()

    def parts(self) -> Generator[int]:
        try:
            for i in range(self.n):
                self.threads.add(threading.current_thread().name)
                if i == self.fail_at:
                    msg = f"part {i} is unreadable"
                    raise OSError(msg)
                self.produced += 1
                yield i
        finally:
            self.closed.set()


def test_parts_come_in_order_prepared() -> None:
    source = _Source(5)
    assert list(read_ahead(source.parts(), lambda i: 10 * i)) == [0, 10, 20, 30, 40]
    assert source.closed.is_set()
    # pulled on the worker thread, not the caller's
    assert source.threads == {"lodestar-read-ahead"}


def test_at_most_one_part_ahead_of_the_caller() -> None:
    source = _Source(6)
    taken = 0
    ahead = []
    parts = read_ahead(source.parts(), lambda i: i)
    for _ in parts:
        taken += 1
        # give the worker time to run as far ahead as it may
        threading.Event().wait(0.05)
        ahead.append(source.produced - taken)
    assert max(ahead) <= 1
    assert ahead[:-1] == [1] * (len(ahead) - 1)  # and it does read the next one ahead
    assert taken == 6


def test_an_error_of_the_source_comes_where_it_was_raised() -> None:
    source = _Source(5, fail_at=3)
    seen: list[int] = []
    with pytest.raises(OSError, match="part 3 is unreadable"):
        _take(read_ahead(source.parts(), lambda i: i), seen)
    assert seen == [0, 1, 2]
    assert source.closed.is_set()


def test_an_error_of_prepare_comes_with_its_part() -> None:
    def prepare(i: int) -> int:
        if i == 2:
            msg = "cannot sort part 2"
            raise ValueError(msg)
        return i

    source = _Source(5)
    seen: list[int] = []
    with pytest.raises(ValueError, match="cannot sort part 2"):
        _take(read_ahead(source.parts(), prepare), seen)
    assert seen == [0, 1]
    assert source.closed.is_set()


def test_closing_early_closes_the_source_and_stops_the_worker() -> None:
    source = _Source(100)
    parts = read_ahead(source.parts(), lambda i: i)
    assert next(parts) == 0
    parts.close()
    assert source.closed.is_set()
    assert source.produced <= 2  # the part taken and at most one ahead
    assert not any(t.name == "lodestar-read-ahead" for t in threading.enumerate())


def test_a_caller_that_fails_closes_the_source() -> None:
    # as lp.evaluate uses it: closed in a ``finally`` (the temporary files go there)
    source = _Source(100)

    def evaluate_all() -> None:
        parts = read_ahead(source.parts(), lambda i: i)
        try:
            for part in parts:
                if part == 1:
                    msg = "evaluation failed"
                    raise RuntimeError(msg)
        finally:
            parts.close()

    with pytest.raises(RuntimeError, match="evaluation failed"):
        evaluate_all()
    assert source.closed.is_set()


def test_an_empty_source() -> None:
    source = _Source(0)
    assert list(read_ahead(source.parts(), lambda i: i)) == []
    assert source.closed.is_set()
