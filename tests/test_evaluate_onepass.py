"""lp.evaluate in parts of whole groups: the same numbers, bit for bit, as one whole-frame call.

An in-memory frame is evaluated in parts of about ``_PART_ROWS`` rows (cut at run boundaries
when each group is one run, by a hash of the keys otherwise); a ``LazyFrame`` is streamed in
parts when its groups are contiguous and partitioned once into temporary files otherwise.
The parts are forced here by small part sizes, and the values compared with one call over the
whole frame (and, for NDCG, with scikit-learn).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import ndcg_score

import lodestar_polars as lp
from lodestar_polars import _evaluate

METRICS = ["ndcg@5", "dcg", "rr@3", "top_k_accuracy@2"]
KEYS = ["user", "query"]


def _log(seed: int = 11, n: int = 4_000) -> pl.DataFrame:
    """A shuffled log: two keys (both with nulls), ragged groups, heavy ties, refused groups."""
    rng = np.random.default_rng(seed)
    users = np.array(["a", "b", "c", None], dtype=object)[rng.integers(0, 4, n)]
    query = rng.integers(0, 150, n).astype(np.float64)
    query[rng.random(n) < 0.03] = np.nan  # nulls below
    frame = pl.DataFrame(
        {
            "user": pl.Series(users.tolist(), dtype=pl.String),
            "query": pl.Series(query).fill_nan(None).cast(pl.Int64),
            "relevance": rng.integers(0, 4, n).astype(np.int8) * (rng.random(n) < 0.4),
            "score": rng.integers(0, 5, n) / 4.0,  # heavy ties
        }
    )
    # groups of one row (NDCG refuses them) and a weight per group
    single = pl.DataFrame(
        {"user": ["z", "z"], "query": [1, 2], "relevance": [1, 0], "score": [0.5, 0.5]},
        schema=frame.schema,
    )
    frame = pl.concat([frame, single])
    return frame.with_columns(
        w=(pl.struct(KEYS).hash(seed=1) % 7 + 1).cast(pl.Float64),
    ).sample(fraction=1.0, shuffle=True, seed=seed)


def _whole(frame: pl.DataFrame, by: list[str] | str, **kwargs: Any) -> pl.DataFrame:
    """One whole-frame call (no parts): the reference the parts must equal bit for bit."""
    out = lp.evaluate(frame, METRICS, by=by, y_true="relevance", y_score="score", **kwargs)
    assert isinstance(out, pl.DataFrame)
    return out


def _spy_parts(monkeypatch: pytest.MonkeyPatch, part_rows: int) -> list[int]:
    """Force parts of ``part_rows`` rows; the heights of the frames evaluated are recorded."""
    heights: list[int] = []
    inner = _evaluate._evaluate_frame

    def spy(frame: pl.DataFrame, *args: Any, **kwargs: Any) -> pl.DataFrame:
        heights.append(frame.height)
        return inner(frame, *args, **kwargs)

    monkeypatch.setattr(_evaluate, "_PART_ROWS", part_rows)
    monkeypatch.setattr(_evaluate, "_evaluate_frame", spy)
    return heights


@pytest.mark.parametrize("layout", ["shuffled", "sorted"])
@pytest.mark.parametrize("by", [KEYS, "query"])
def test_in_memory_parts_equal_one_call(
    monkeypatch: pytest.MonkeyPatch, layout: str, by: list[str] | str
) -> None:
    log = _log()
    if by == "query":
        log = log.drop("w")
    if layout == "sorted":
        log = log.sort(by, nulls_last=False)
    keys = [by] if isinstance(by, str) else by
    # the layout takes the path meant for it: runs when sorted, the hash otherwise
    assert (_evaluate._contiguous_runs(log, keys) is not None) == (layout == "sorted")
    kwargs: dict[str, Any] = dict(strict=False)
    if by == KEYS:
        kwargs["weight"] = "w"
    expected = _whole(log, by, **kwargs)
    heights = _spy_parts(monkeypatch, 300)
    got = _whole(log, by, **kwargs)
    assert len(heights) >= log.height // 300
    assert max(heights) < log.height
    assert sum(heights) == log.height  # every row in exactly one part
    assert_frame_equal(got, expected)  # bit for bit, same order (sorted by the keys)
    # refused groups stay null, and nulls in the keys are groups of their own
    assert sum(got[m].null_count() for m in METRICS) > 0
    assert got.filter(pl.col(keys[-1]).is_null()).height > 0


def test_in_memory_parts_match_scikit_learn(monkeypatch: pytest.MonkeyPatch) -> None:
    log = _log(seed=4)
    _spy_parts(monkeypatch, 250)
    got = _whole(log, KEYS, strict=False)
    lists = log.group_by(KEYS).agg("relevance", "score")
    expected = got.join(lists, on=KEYS, nulls_equal=True)
    checked = 0
    for row in expected.iter_rows(named=True):
        if len(row["relevance"]) < 2:  # scikit-learn's rule: NDCG refuses one document
            assert row["ndcg@5"] is None
            continue
        want = ndcg_score([row["relevance"]], [row["score"]], k=5)
        assert row["ndcg@5"] == pytest.approx(want, rel=1e-12, abs=1e-12)
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("layout", ["shuffled", "sorted"])
def test_in_memory_parts_refuse_as_one_call(monkeypatch: pytest.MonkeyPatch, layout: str) -> None:
    log = _log(seed=8)
    if layout == "sorted":
        log = log.sort(KEYS)
    with pytest.raises(lp.RefusedGroupError) as whole:
        _whole(log, KEYS)
    _spy_parts(monkeypatch, 200)
    with pytest.raises(lp.RefusedGroupError) as parted:
        _whole(log, KEYS)
    # the same sentence: the same count of refused groups, the same first groups named
    assert str(parted.value) == str(whole.value)
    assert "metric 'ndcg@5' refused 8 group(s)" in str(parted.value)


def test_in_memory_parts_weight_that_varies(monkeypatch: pytest.MonkeyPatch) -> None:
    one_group = (pl.col("user") == "z") & (pl.col("query") == 1)
    log = _log(seed=2).with_columns(w=pl.when(one_group).then(None).otherwise(pl.col("w")))
    _spy_parts(monkeypatch, 200)
    with pytest.raises(ValueError, match=r"group user='z', query=1 has several, or a null"):
        _whole(log, KEYS, weight="w", strict=False)


def test_float_keys_zero_and_nan_stay_one_group(monkeypatch: pytest.MonkeyPatch) -> None:
    # -0.0 and 0.0 are one group, and so are the NaNs, in every part
    rng = np.random.default_rng(0)
    n = 600
    key = rng.choice(np.array([0.0, -0.0, np.nan, 1.5, 2.5, 3.5]), n)
    log = pl.DataFrame(
        {"k": key, "relevance": rng.integers(0, 3, n), "score": rng.integers(0, 3, n) / 2}
    )
    expected = _whole(log, "k", strict=False)
    heights = _spy_parts(monkeypatch, 100)
    got = _whole(log, "k", strict=False)
    assert len(heights) > 1
    assert_frame_equal(got, expected)
    assert got.height == 5  # 0.0 (with -0.0), NaN, 1.5, 2.5, 3.5


def test_part_boundaries_of_a_sorted_frame(tmp_path: Path) -> None:
    # a run longer than a part is kept whole: parts are cut only between runs
    frame = pl.DataFrame({"q": [1] * 7 + [2] * 2 + [3] * 5, "v": range(14)})
    parts = list(_evaluate._frame_parts(frame, ["q"], 4))
    assert [p["q"].unique().to_list() for p in parts] == [[1], [2], [3]]
    assert sum(p.height for p in parts) == frame.height
