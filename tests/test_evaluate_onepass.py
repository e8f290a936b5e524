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
from lodestar_polars._evaluate import frame as _frame
from lodestar_polars._evaluate import parted as _parted
from lodestar_polars._evaluate import partition as _partition
from lodestar_polars._evaluate import partition as lp_partition
from lodestar_polars._evaluate.partition import Layout

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
    inner = _frame._evaluate_frame

    def spy(frame: pl.DataFrame, *args: Any, **kwargs: Any) -> pl.DataFrame:
        heights.append(frame.height)
        return inner(frame, *args, **kwargs)

    monkeypatch.setattr(_parted, "_PART_ROWS", part_rows)
    monkeypatch.setattr(_parted, "_evaluate_frame", spy)
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
    assert (_frame._contiguous_runs(log, keys) is not None) == (layout == "sorted")
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
    parts = list(_parted._frame_parts(frame, ["q"], 4))
    assert [p["q"].unique().to_list() for p in parts] == [[1], [2], [3]]
    assert sum(p.height for p in parts) == frame.height


# --- a LazyFrame read once: streamed when grouped, partitioned into temporary files otherwise


def _spy_paths(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record which way each lazy call read its input: 'streamed' and/or 'hashed'."""
    taken: list[str] = []
    streamed, hashed = _partition.grouped_parts, _partition.hashed_parts

    def spy_streamed(*args: Any) -> Any:
        taken.append("streamed")
        return streamed(*args)

    def spy_hashed(*args: Any) -> Any:
        taken.append("hashed")
        return hashed(*args)

    monkeypatch.setattr(_parted, "grouped_parts", spy_streamed)
    monkeypatch.setattr(_parted, "hashed_parts", spy_hashed)
    return taken


def _lazy(log: pl.DataFrame, tmp_path: Path) -> pl.LazyFrame:
    path = tmp_path / "log.parquet"
    log.write_parquet(path, row_group_size=500)
    return pl.scan_parquet(path)


@pytest.mark.parametrize(
    ("order", "layout", "path"),
    [
        ("shuffled", "auto", ["hashed"]),
        ("shuffled", "shuffled", ["hashed"]),
        ("sorted", "auto", ["streamed"]),
        ("sorted", "grouped", ["streamed"]),
        ("sorted", "shuffled", ["hashed"]),
    ],
)
@pytest.mark.parametrize("by", [KEYS, "query"])
def test_lazy_parts_equal_the_in_memory_path(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    order: str,
    layout: Layout,
    path: list[str],
    by: list[str] | str,
) -> None:
    log = _log(seed=21)
    if by == "query":
        log = log.drop("w")
    if order == "sorted":
        log = log.sort(by)
    kwargs: dict[str, Any] = dict(strict=False)
    if by == KEYS:
        kwargs["weight"] = "w"
    expected = _whole(log, by, **kwargs)
    taken = _spy_paths(monkeypatch)
    seen: list[lp.Progress] = []
    temp = tmp_path / "temp"
    temp.mkdir()
    out = lp.evaluate(
        _lazy(log, tmp_path),
        METRICS,
        by=by,
        y_true="relevance",
        y_score="score",
        batch_rows=450,
        layout=layout,
        temp_dir=temp,
        progress=seen.append,
        **kwargs,
    )
    assert isinstance(out, pl.LazyFrame)
    assert_frame_equal(out.collect(), expected)  # bit for bit
    assert taken == path
    assert list(temp.iterdir()) == []  # the temporary files are gone
    # several parts, every row once, and the last progress says all are done
    assert len(seen) > 3
    assert seen[-1].rows_done == log.height
    assert seen[-1].parts_done == seen[-1].parts_total == len(seen)


@pytest.mark.parametrize("order", ["shuffled", "sorted"])
def test_lazy_parts_keep_the_order_inside_ties(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, order: str
) -> None:
    # ties="input" and top_k_accuracy read the rows' order inside a tie: each part keeps it
    log = _log(seed=5).with_columns(hit=pl.col("relevance") > 0)
    if order == "sorted":
        log = log.sort(KEYS, maintain_order=True)
    lazy = _lazy(log, tmp_path)
    taken = _spy_paths(monkeypatch)
    for kwargs in (
        dict(metrics=["ndcg@3", "rr@2", "precision@2"], ties="input"),
        dict(metrics=["top_k_accuracy@2", "ap"]),
    ):
        common: dict[str, Any] = dict(
            by=KEYS, y_true="hit", y_score="score", strict=False, **kwargs
        )
        expected = lp.evaluate(log, **common)
        got = lp.evaluate(lazy, batch_rows=300, **common).collect()
        assert_frame_equal(got, expected)
    assert taken == 2 * ["streamed" if order == "sorted" else "hashed"]


@pytest.mark.parametrize("order", ["shuffled", "sorted"])
def test_lazy_strict_error_names_the_in_memory_groups(tmp_path: Path, order: str) -> None:
    log = _log(seed=8)
    if order == "sorted":
        log = log.sort(KEYS)
    with pytest.raises(lp.RefusedGroupError) as whole:
        _whole(log, KEYS)
    temp = tmp_path / "temp"
    temp.mkdir()
    lazy = lp.evaluate(
        _lazy(log, tmp_path),
        METRICS,
        by=KEYS,
        y_true="relevance",
        y_score="score",
        batch_rows=400,
        temp_dir=str(temp),
    )
    with pytest.raises(lp.RefusedGroupError) as parted:
        lazy.collect()
    assert str(parted.value) == str(whole.value)
    assert list(temp.iterdir()) == []


def test_lazy_temporary_files_removed_on_an_error(tmp_path: Path) -> None:
    # a weight that varies inside a group fails in a part: the parts' files go all the same
    one_group = (pl.col("user") == "z") & (pl.col("query") == 1)
    log = _log(seed=2).with_columns(w=pl.when(one_group).then(None).otherwise(pl.col("w")))
    temp = tmp_path / "temp"
    temp.mkdir()
    lazy = lp.evaluate(
        _lazy(log, tmp_path),
        METRICS,
        by=KEYS,
        y_true="relevance",
        y_score="score",
        weight="w",
        strict=False,
        batch_rows=300,
        layout="shuffled",
        temp_dir=temp,
    )
    with pytest.raises(ValueError, match=r"group user='z', query=1 has several, or a null"):
        lazy.collect()
    assert list(temp.iterdir()) == []


def test_declared_grouped_layout_that_is_not(tmp_path: Path) -> None:
    log = pl.DataFrame(
        {"query": [1, 1, 2, 2, 1, 3, 3, 4], "relevance": [1, 0] * 4, "score": [0.5, 0.2] * 4}
    )
    lazy = lp.evaluate(
        _lazy(log, tmp_path),
        ["dcg"],
        by="query",
        y_true="relevance",
        y_score="score",
        batch_rows=3,
        layout="grouped",
    )
    with pytest.raises(ValueError, match=r"group query=1 has rows in two places; pass"):
        lazy.collect()


def test_auto_layout_goes_over_to_the_partition(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # the leading rows look grouped, a later part is not: the input is partitioned after all
    log = _log(seed=13)
    head = log.head(1_000).sort(KEYS)
    tail = log.tail(log.height - 1_000)
    mixed = pl.concat([head, tail])
    monkeypatch.setattr(lp_partition, "_SAMPLE_ROWS", 500)
    taken = _spy_paths(monkeypatch)
    kwargs: dict[str, Any] = dict(by=KEYS, y_true="relevance", y_score="score", strict=False)
    expected = lp.evaluate(mixed, METRICS, **kwargs)
    got = lp.evaluate(_lazy(mixed, tmp_path), METRICS, batch_rows=400, **kwargs).collect()
    assert_frame_equal(got, expected)
    assert taken == ["streamed", "hashed"]


def test_grouped_but_unsorted_log_is_checked_across_parts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # each part's groups are runs, but group 1 comes back in a later part
    log = pl.DataFrame(
        {
            "query": [1, 1, 2, 2, 3, 3, 1, 1, 4, 4],
            "relevance": [1, 0, 0, 1, 1, 1, 0, 1, 1, 0],
            "score": [0.5, 0.2, 0.3, 0.1, 0.9, 0.9, 0.4, 0.4, 0.7, 0.6],
        }
    )
    monkeypatch.setattr(lp_partition, "_SAMPLE_ROWS", 6)  # the leading rows look grouped
    taken = _spy_paths(monkeypatch)
    kwargs: dict[str, Any] = dict(by="query", y_true="relevance", y_score="score")
    expected = lp.evaluate(log, ["dcg", "ndcg"], **kwargs)
    lazy = _lazy(log, tmp_path)
    got = lp.evaluate(lazy, ["dcg", "ndcg"], batch_rows=6, **kwargs).collect()
    assert_frame_equal(got, expected)
    assert taken == ["streamed", "hashed"]
    # by hand: query 1 holds rel 1, 0, 0, 1 at scores 0.5, 0.2, 0.4, 0.4 (a tie of one 0 and
    # one 1 at ranks 2-3): DCG = 1 + 0.5 / log2(3) + 0.5 / log2(4)
    want = 1 + 0.5 / np.log2(3) + 0.5 / np.log2(4)
    assert got.filter(pl.col("query") == 1)["dcg"].item() == pytest.approx(want, rel=1e-12)
    with pytest.raises(ValueError, match=r"group query=1 has rows in two places"):
        lp.evaluate(lazy, ["dcg"], batch_rows=6, layout="grouped", **kwargs).collect()


def test_layout_and_temp_dir_are_checked(tmp_path: Path) -> None:
    log = _log().lazy()
    kwargs: dict[str, Any] = dict(by="query", y_true="relevance", y_score="score")
    with pytest.raises(
        lp.InvalidParameterError,
        match=r"The 'layout' parameter of evaluate must be one of \['auto', 'grouped', "
        r"'shuffled'\]. Got 'sorted' instead.",
    ):
        lp.evaluate(log, ["dcg"], layout="sorted", **kwargs)  # type: ignore[call-overload]
    missing = tmp_path / "nowhere"
    with pytest.raises(
        lp.InvalidParameterError,
        match=r"The 'temp_dir' parameter of evaluate must be an existing directory or None. "
        r"Got PosixPath\('.*nowhere'\) instead.",
    ):
        lp.evaluate(log, ["dcg"], temp_dir=missing, **kwargs)
    with pytest.raises(lp.InvalidParameterError, match=r"Got 3 instead"):
        lp.evaluate(log, ["dcg"], temp_dir=3, **kwargs)  # type: ignore[call-overload]


@pytest.mark.parametrize("layout", ["auto", "grouped", "shuffled"])
def test_arrow_dataset_in_parts(tmp_path: Path, layout: Layout) -> None:
    import pyarrow.dataset as ds

    log = _log(seed=17).sort(KEYS)
    log.write_parquet(tmp_path / "log.parquet", row_group_size=700)
    kwargs: dict[str, Any] = dict(by=KEYS, y_true="relevance", y_score="score", strict=False)
    expected = lp.evaluate(log, METRICS, weight="w", **kwargs)
    got = lp.evaluate(
        ds.dataset(tmp_path / "log.parquet"),
        METRICS,
        weight="w",
        batch_rows=500,
        layout=layout,
        temp_dir=tmp_path,
        **kwargs,
    )
    assert_frame_equal(pl.from_arrow(got), expected)  # type: ignore[arg-type]
    assert [p.name for p in tmp_path.iterdir()] == ["log.parquet"]


def test_layout_and_temp_dir_leave_a_data_frame_alone(tmp_path: Path) -> None:
    # in memory already: nothing is streamed or written, the options are only checked
    log = _log(seed=1)
    kwargs: dict[str, Any] = dict(by=KEYS, y_true="relevance", y_score="score", strict=False)
    expected = lp.evaluate(log, METRICS, **kwargs)
    got = lp.evaluate(log, METRICS, layout="shuffled", temp_dir=tmp_path, **kwargs)
    assert_frame_equal(got, expected)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(lp.InvalidParameterError, match=r"'layout' parameter"):
        lp.evaluate(log, METRICS, layout="hashed", **kwargs)  # type: ignore[call-overload]
