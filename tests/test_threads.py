"""NumPy work in threads (``_core/threads.py``): the same numbers, any number of parts."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._core import threads
from lodestar_polars._registry import spec as _registry_spec


def test_parts_cut_between_segments_into_about_equal_rows() -> None:
    length = np.array([5, 1, 1, 1, 1, 1, 10, 2, 2, 2, 2, 2])  # 30 rows
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(threads, "thread_count", lambda: 3)
        bounds = threads.parts(length, min_rows=1)
    assert bounds[0] == 0
    assert bounds[-1] == length.size
    assert np.all(np.diff(bounds) > 0)  # every part holds a segment
    rows = [int(length[a:b].sum()) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    assert bounds.size == 4
    assert sum(rows) == 30
    assert max(rows) <= 16  # about a third each, a segment never cut (10 rows in one)


def test_one_part_below_the_minimum_rows_or_with_one_thread() -> None:
    length = np.full(100, 10)
    assert threads.parts(length, min_rows=1000).tolist() == [0, 100]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(threads, "thread_count", lambda: 1)
        assert threads.parts(length, min_rows=1).tolist() == [0, 100]


def test_map_parts_keeps_the_order_and_runs_each_part_serially() -> None:
    seen: list[tuple[int, int]] = []

    def part(i: int) -> int:
        seen.append((i, threads.thread_count()))  # inside a part: 1, no nested pool work
        return i * i

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("POLARS_MAX_THREADS", "4")
        assert threads.map_parts(part, 4) == [0, 1, 4, 9]
        assert threads.thread_count() == 4  # outside the parts again
    assert sorted(seen) == [(0, 1), (1, 1), (2, 1), (3, 1)]


def test_an_error_in_a_part_is_raised() -> None:
    def part(i: int) -> int:
        if i == 1:
            msg = "part 1"
            raise ValueError(msg)
        return i

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("POLARS_MAX_THREADS", "2")
        with pytest.raises(ValueError, match="part 1"):
            threads.map_parts(part, 2)


def test_argsort_rows_in_threads_equals_one_argsort() -> None:
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 5, (3000, 100)).astype(np.float64)  # ties: stable order matters
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("POLARS_MAX_THREADS", "3")
        patch.setattr(threads, "_MIN_BLOCK", 1000)
        got = threads.argsort_rows(keys, kind="stable")
    assert np.array_equal(got, np.argsort(keys, axis=1, kind="stable"))


def test_both_runs_the_second_in_another_thread() -> None:
    names: list[str] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("POLARS_MAX_THREADS", "2")

        def first() -> int:
            names.append(threading.current_thread().name)
            return 1

        def second() -> int:
            names.append(threading.current_thread().name)
            return 2

        got = threads.both(first, second)
    assert got == (1, 2)
    assert names[0] != names[1]


@pytest.mark.parametrize("n_threads", [2, 3, 5])
def test_evaluate_in_parts_gives_the_same_floats(n_threads: int) -> None:
    """Every core scored in 2, 3 or 5 parts of whole segments: the very same values."""
    rng = np.random.default_rng(n_threads)
    lengths = rng.integers(1, 40, 400)
    query = np.repeat(np.arange(lengths.size), lengths)
    n = query.size
    frame = pl.DataFrame(
        {
            "query": query,
            "rel": rng.choice(4, n, p=[0.5, 0.3, 0.1, 0.1]),
            "score": np.round(rng.standard_normal(n), 1),  # ties
        }
    ).with_columns(binrel=(pl.col("rel") > 0).cast(pl.Int64))
    graded = ["ndcg@10", "ndcg", "dcg@3", "ndcg_burges@5"]
    binary = ["rr@10", "ap", "P@5", "map@10", "recall@20", "Rprec", "lrap", "roc_auc"]
    binary += ["label_ranking_loss", "coverage_error", "top_k_accuracy@2", "success@3"]

    def run() -> list[pl.DataFrame]:
        kw: dict[str, Any] = dict(by="query", y_score="score", strict=False)
        return [
            lp.evaluate(frame, graded, y_true="rel", **kw),
            lp.evaluate(frame, binary, y_true="binrel", **kw),
        ]

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("POLARS_MAX_THREADS", "1")
        whole = run()
    calls: list[int] = []
    cut = threads.parts

    def small_parts(length: np.ndarray) -> np.ndarray:
        bounds = cut(length, min_rows=64)
        calls.append(bounds.size - 1)
        return bounds

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_registry_spec, "parts", small_parts)
        patch.setenv("POLARS_MAX_THREADS", str(n_threads))
        in_parts = run()
    assert calls
    assert set(calls) == {n_threads}
    for a, b in zip(in_parts, whole, strict=True):
        assert a.equals(b)
