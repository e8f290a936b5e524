"""lp.evaluate on a LazyFrame read in parts: same numbers as in memory (issue: speed and scale)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import lodestar_polars as lp

METRICS = ["ndcg@5", "dcg", "rr@3", "top_k_accuracy@2"]


def _log(seed: int = 3) -> pl.DataFrame:
    """An unsorted log with ragged queries, heavy ties and some refused groups."""
    rng = np.random.default_rng(seed)
    n = 3_000
    return pl.DataFrame(
        {
            "query": rng.integers(0, 400, n),
            "relevance": (rng.random(n) < 0.2).astype(np.int64),
            "score": rng.integers(0, 4, n) / 4.0,  # heavy ties
        }
    )


@pytest.mark.parametrize("batch_rows", [100, 250, 1_000, None])
def test_parts_equal_the_in_memory_path(tmp_path: Path, batch_rows: int | None) -> None:
    log = _log()
    path = tmp_path / "log.parquet"
    log.write_parquet(path)
    kwargs: dict[str, Any] = dict(by="query", y_true="relevance", y_score="score", strict=False)
    eager = lp.evaluate(log, METRICS, **kwargs)
    seen: list[lp.Progress] = []
    lazy = lp.evaluate(
        pl.scan_parquet(path), METRICS, batch_rows=batch_rows, progress=seen.append, **kwargs
    )
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), eager)
    # the progress callback saw every part, and every row once
    assert seen[-1].parts_done == seen[-1].parts_total
    assert seen[-1].rows_done == log.height
    # a shuffled log: parts of half of batch_rows (two in memory at once, one read ahead)
    expected_parts = 1 if batch_rows is None else 2 * -(-log.height // batch_rows)
    assert seen[-1].parts_total == expected_parts
    # some groups are refused (a group without a true row for top_k), and stay null
    assert eager["top_k_accuracy@2"].null_count() > 0


def test_parts_means_equal_the_in_memory_means() -> None:
    log = _log(seed=5).with_columns(w=(pl.col("query") % 3 + 1).cast(pl.Float64))
    kwargs: dict[str, Any] = dict(
        by="query", y_true="relevance", y_score="score", weight="w", strict=False
    )
    eager = lp.evaluate(log, ["ndcg", "rr"], mean=True, **kwargs)
    lazy = lp.evaluate(log.lazy(), ["ndcg", "rr"], mean=True, batch_rows=300, **kwargs)
    assert_frame_equal(lazy.collect(), eager, rel_tol=1e-12, abs_tol=1e-12)


def test_strict_error_from_a_part_names_the_group() -> None:
    log = pl.DataFrame({"query": [1, 2, 2, 3, 3], "relevance": [1, 0, 1, 1, 0], "score": [0.1] * 5})
    lazy = lp.evaluate(
        log.lazy(), ["ndcg"], by="query", y_true="relevance", y_score="score", batch_rows=2
    )
    with pytest.raises(lp.RefusedGroupError, match=r"query=1: Computing NDCG is only meaningful"):
        lazy.collect()


@pytest.mark.parametrize("layout", ["shuffled", "sorted"])
def test_a_frame_evaluated_in_parts_equals_one_call(
    monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    """An in-memory frame above ``_PART_ROWS`` rows: parts of whole groups, the next one
    copied out and sorted on a worker thread (shuffled), or slices cut between runs (sorted).
    """
    import lodestar_polars._evaluate.parted as parted

    log = _log(seed=11)
    if layout == "sorted":
        log = log.sort("query", maintain_order=True)
    kwargs: dict[str, Any] = dict(by="query", y_true="relevance", y_score="score")
    whole = lp.evaluate(log, METRICS, strict=False, **kwargs)
    with pytest.raises(lp.RefusedGroupError) as whole_error:
        lp.evaluate(log, METRICS, **kwargs)
    monkeypatch.setattr(parted, "_PART_ROWS", 256)  # 12 parts of the 3,000 rows
    in_parts = lp.evaluate(log, METRICS, strict=False, **kwargs)
    assert_frame_equal(in_parts, whole)
    assert whole["top_k_accuracy@2"].null_count() > 0  # refused groups stay null in parts
    with pytest.raises(lp.RefusedGroupError) as parts_error:  # strict: the same sentence
        lp.evaluate(log, METRICS, **kwargs)
    assert str(parts_error.value) == str(whole_error.value)


def test_a_shuffled_log_in_slices_in_threads_equals_one_call(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A shuffled log's sorted parts are evaluated in slices (``_SLICE_ROWS``), each on a
    thread of its own: the values, nulls and refusal of one in-memory call.
    """
    import lodestar_polars._evaluate.parted as parted

    log = _log(seed=13)
    path = tmp_path / "log.parquet"
    log.write_parquet(path)
    kwargs: dict[str, Any] = dict(by="query", y_true="relevance", y_score="score")
    whole = lp.evaluate(log, METRICS, strict=False, **kwargs)
    with pytest.raises(lp.RefusedGroupError) as whole_error:
        lp.evaluate(log, METRICS, **kwargs)
    from lodestar_polars._core.threads import map_parts as original

    seen: list[Any] = []

    def spy(fn: Any, n: int) -> Any:
        seen.append(n)
        return original(fn, n)

    monkeypatch.setattr(parted, "map_parts", spy)
    monkeypatch.setattr(parted, "_SLICE_ROWS", 64)  # parts of ~600 rows in about ten slices
    scan = pl.scan_parquet(path)
    lazy = lp.evaluate(scan, METRICS, strict=False, batch_rows=600, layout="shuffled", **kwargs)
    assert_frame_equal(lazy.collect(), whole)
    assert seen, "no part was cut into slices"
    assert max(seen) > 1  # the slices did run in threads
    with pytest.raises(lp.RefusedGroupError) as parts_error:
        lp.evaluate(scan, METRICS, batch_rows=600, layout="shuffled", **kwargs).collect()
    assert str(parts_error.value) == str(whole_error.value)
