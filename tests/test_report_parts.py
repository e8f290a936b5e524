"""lp.ranking_report on a LazyFrame read in parts of whole lists equals the in-memory payload.

The reference is the in-memory path on the same log (a DataFrame); the parts path is forced with
a small ``batch_rows``.  Per-list values merge in the in-memory order (exact); per-item sums and
the non-primary blocks' micro sums run in another order, so floats compare to 1e-12.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp


def _log(
    seed: int = 0,
    n_lists: int = 240,
    n_items: int = 11,
    *,
    integer: bool = False,
    shuffle: bool = False,
) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    lists = np.repeat(np.arange(n_lists), n_items)
    items = np.tile(np.arange(n_items), n_lists)
    truth = rng.integers(0, n_items, n_lists)
    raw = rng.integers(0, 6, lists.size)  # heavy ties
    frame = pl.DataFrame(
        {
            "list": lists,
            "entity": lists // 7,
            "item": items,
            "score": raw if integer else raw / 5.0,
            "clicked": items == np.repeat(truth, n_items),
        }
    )
    # some lists without a positive (dropped), some with two (multi_positive)
    frame = frame.filter(~((pl.col("list") % 13 == 0) & pl.col("clicked")))
    frame = frame.with_columns(
        clicked=pl.col("clicked") | ((pl.col("list") % 11 == 0) & (pl.col("item") == 0))
    )
    if shuffle:
        frame = frame.sample(fraction=1.0, shuffle=True, seed=seed)
    return frame


def _same(a: Any, b: Any, path: str = "") -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for key in a:
            _same(a[key], b[key], f"{path}/{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15), (path, a, b)
    else:
        assert a == b, (path, a, b)


def _exact_parts(a: Any, b: Any) -> None:
    """The primary block's micro family, the floor's and the bootstrap: bit for bit."""
    primary = a["primary_objective"]
    assert a["objectives"][primary]["micro"] == b["objectives"][primary]["micro"]
    assert (
        a["baselines"] == {}
        or a["baselines"]["global_pop"]["micro"] == (b["baselines"]["global_pop"]["micro"])
    )
    assert a["uncertainty"] == b["uncertainty"]


@pytest.mark.parametrize("layout", ["grouped", "shuffled", "auto"])
@pytest.mark.parametrize("shuffle", [False, True])
def test_parts_equal_in_memory_with_train_and_groups(layout: Any, *, shuffle: bool) -> None:
    frame = _log(shuffle=shuffle)
    kw: dict[str, Any] = dict(
        by="list", item="item", y_true="clicked", y_score="score", k=3,
        train=pl.DataFrame({"item": np.arange(11).repeat(np.arange(1, 12))}),
        groups="entity", n_resamples=60,
    )  # fmt: skip
    whole = lp.ranking_report(frame, **kw)
    if shuffle and layout == "grouped":
        layout = "auto"  # a shuffled log is hashed (grouped refuses it, as lp.evaluate)
    parted = lp.ranking_report(frame.lazy(), batch_rows=400, layout=layout, **kw)
    _same(dict(whole), dict(parted))
    _exact_parts(whole, parted)
    assert parted["n_dropped"] > 0
    assert parted["uncertainty"]["unit"] == "entity"


@pytest.mark.parametrize(
    "objectives", [("accuracy",), ("balanced",), ("coverage", "accuracy", "balanced")]
)
@pytest.mark.parametrize("multi_positive", ["each", "first"])
def test_parts_equal_in_memory_every_objective(objectives: Any, multi_positive: Any) -> None:
    frame = _log(seed=1, integer=True, shuffle=True)
    kw: dict[str, Any] = dict(
        by="list", item="item", y_true="clicked", y_score="score", k=4,
        objectives=objectives, multi_positive=multi_positive, n_resamples=40,
    )  # fmt: skip
    whole = lp.ranking_report(frame, **kw)
    parted = lp.ranking_report(frame.lazy(), batch_rows=300, **kw)
    _same(dict(whole), dict(parted))
    _exact_parts(whole, parted)


def test_parts_with_a_popularity_and_percentile() -> None:
    frame = _log(seed=2)
    pop = pl.DataFrame({"item": np.arange(11), "popularity": np.arange(11) * 2.0 + 1})
    kw: dict[str, Any] = dict(
        by="list", item="item", y_true="clicked", y_score="score", k=2,
        objectives=("accuracy", "coverage"), popularity=pop, percentile=True, n_resamples=30,
    )  # fmt: skip
    whole = lp.ranking_report(frame, **kw)
    parted = lp.ranking_report(frame.lazy(), batch_rows=500, layout="grouped", **kw)
    _same(dict(whole), dict(parted))
    _exact_parts(whole, parted)


def test_a_small_lazy_frame_is_graded_whole() -> None:
    frame = _log(seed=3, n_lists=30)
    kw: dict[str, Any] = dict(
        by="list", item="item", y_true="clicked", y_score="score", k=3, n_resamples=20
    )
    assert lp.ranking_report(frame.lazy(), **kw) == lp.ranking_report(frame, **kw)


def _refusal(frame: pl.DataFrame, **extra: Any) -> list[str]:
    kw: dict[str, Any] = dict(
        by="list", item="item", y_true="clicked", y_score="score", k=3, n_resamples=10
    )
    kw.update(extra)
    messages = []
    runs: tuple[tuple[Any, dict[str, Any]], ...] = (
        (frame, {}),
        (frame.lazy(), {"batch_rows": 200}),
    )
    for source, more in runs:
        with pytest.raises(ValueError, match="ranking_report") as info:
            lp.ranking_report(source, **kw, **more)
        messages.append(str(info.value))
    return messages


@pytest.mark.parametrize("shuffle", [False, True])
def test_refusals_name_the_same_list(*, shuffle: bool) -> None:
    base = _log(seed=4, shuffle=shuffle)
    # a duplicated (list, item) in two late lists, a non-finite score in an earlier one
    dup = base.filter(pl.col("list").is_in([150, 200]) & (pl.col("item") == 3))
    whole, parted = _refusal(pl.concat([base, dup]))
    assert whole == parted
    assert "has item 3 more than once" in whole
    bad = base.with_columns(
        score=pl.when((pl.col("list") == 120) & (pl.col("item") == 2))
        .then(float("inf"))
        .otherwise(pl.col("score"))
    )
    whole, parted = _refusal(pl.concat([bad, dup]))
    assert whole == parted
    assert "list 120" in whole
    nulls = base.with_columns(
        score=pl.when(pl.col("list").is_in([90, 170]) & (pl.col("item") == 1))
        .then(None)
        .otherwise(pl.col("score"))
    )
    whole, parted = _refusal(nulls)
    assert whole == parted
    first = nulls.with_row_index().filter(pl.col("score").is_null())["index"][0]
    assert f"first in row {first}" in whole
    negative = base.with_columns(
        score=pl.when(pl.col("list").is_in([60, 180]) & (pl.col("item") == 4))
        .then(-1.0)
        .otherwise(pl.col("score"))
    )
    whole, parted = _refusal(negative, objectives=("coverage",))
    assert whole == parted
    assert "list 60" in whole
    nothing = base.with_columns(clicked=pl.lit(False))
    whole, parted = _refusal(nothing)
    assert whole == parted


@pytest.mark.parametrize("positive", [True, False])
def test_a_group_varying_within_a_list_is_refused_as_whole(*, positive: bool) -> None:
    base = _log(seed=5)
    # list 200 (late: its own part) names two entities; with positive=False it has no positive
    frame = base.with_columns(
        entity=pl.when((pl.col("list") == 200) & (pl.col("item") == 5))
        .then(-1)
        .otherwise(pl.col("entity")),
        clicked=pl.col("clicked") & ((pl.col("list") < 190) | pl.lit(positive)),
    )
    whole, parted = _refusal(frame, groups="entity")
    assert whole == parted
    assert "groups column 'entity' must be constant within a list; list 200 has 2 values" in whole


def test_shuffled_parts_leave_no_temporary_files(tmp_path: Any) -> None:
    frame = _log(seed=6, shuffle=True)
    kw: dict[str, Any] = dict(
        by="list", item="item", y_true="clicked", y_score="score", k=3, n_resamples=10
    )
    parted = lp.ranking_report(
        frame.lazy(), batch_rows=300, layout="shuffled", temp_dir=tmp_path, **kw
    )
    _same(dict(lp.ranking_report(frame, **kw)), dict(parted))
    assert list(tmp_path.iterdir()) == []


def test_grouped_layout_refuses_a_list_in_two_places() -> None:
    frame = _log(seed=7)
    # list 3's rows in two runs within the first part: its first 4 rows, lists 4 and 5, the rest
    three = frame.filter(pl.col("list") == 3)
    moved = pl.concat(
        [
            frame.filter(pl.col("list") < 3),
            three.head(4),
            frame.filter(pl.col("list").is_in([4, 5])),
            three.tail(three.height - 4),
            frame.filter(pl.col("list") > 5),
        ]
    )
    kw: dict[str, Any] = dict(
        by="list", item="item", y_true="clicked", y_score="score", k=3, n_resamples=10
    )
    with pytest.raises(ValueError, match=r"layout='grouped' needs each list's rows in one"):
        lp.ranking_report(moved.lazy(), batch_rows=200, layout="grouped", **kw)
    # 'auto' partitions it instead, and gives the whole path's payload
    _same(
        dict(lp.ranking_report(moved, **kw)),
        dict(lp.ranking_report(moved.lazy(), batch_rows=200, **kw)),
    )


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("batch_rows", 0, "The 'batch_rows' parameter of ranking_report must be an int"),
        ("layout", "sorted", "The 'layout' parameter of ranking_report must be"),
        ("temp_dir", "/no/such/dir", "The 'temp_dir' parameter of ranking_report must be"),
    ],
)
def test_bad_part_options_are_refused(option: str, value: Any, words: str) -> None:
    frame = _log(seed=8, n_lists=20)
    kw: dict[str, Any] = dict(by="list", item="item", y_true="clicked", y_score="score")
    with pytest.raises(lp.InvalidParameterError, match=words):
        lp.ranking_report(frame.lazy(), **kw, **{option: value})


@pytest.mark.parametrize("key", ["string", "two keys", "int64 ends"])
@pytest.mark.parametrize("multi_positive", ["each", "first"])
def test_shuffled_parts_of_any_key_equal_in_memory(key: str, multi_positive: Any) -> None:
    """A shuffled part is put in (list, item) order on the reading thread
    (``in_grading_order``): one Int64 from an integer key's and item's ranges, else the
    keys; the payload is the in-memory one whatever the keys.
    """
    frame = _log(seed=6, shuffle=True)
    by: Any = "list"
    if key == "string":
        frame = frame.with_columns(pl.format("l{}", pl.col("list")).alias("list"))
    elif key == "two keys":
        by = ["entity", "list"]
    else:  # keys at both ends of the int64 range: no Int64 (list, item) key fits their span
        frame = frame.with_columns(
            pl.when(pl.col("list") % 2 == 0)
            .then(pl.col("list") - 2**62)
            .otherwise(pl.col("list") + 2**62)
            .alias("list")
        )
    kw: dict[str, Any] = dict(
        by=by, item="item", y_true="clicked", y_score="score", k=3,
        multi_positive=multi_positive, n_resamples=30,
    )  # fmt: skip
    whole = lp.ranking_report(frame, **kw)
    parted = lp.ranking_report(frame.lazy(), batch_rows=400, layout="shuffled", **kw)
    _same(dict(whole), dict(parted))
    _exact_parts(whole, parted)


def test_in_grading_order_sorts_by_list_then_item() -> None:
    from lodestar_polars._report.parts import in_grading_order

    part = pl.DataFrame(
        {"list": [5, -3, 5, -3, 9], "item": [2, 7, -1, 0, 0], "row": [0, 1, 2, 3, 4]}
    )
    ordered = in_grading_order(part, ["list"], "item")
    assert ordered["row"].to_list() == [3, 1, 2, 0, 4]  # (-3, 0) (-3, 7) (5, -1) (5, 2) (9, 0)
    text = part.with_columns(pl.col("list").cast(pl.String))  # by the keys only, stably
    assert in_grading_order(text, ["list"], "item")["row"].to_list() == [1, 3, 0, 2, 4]


def test_shuffled_parts_name_the_first_problem_in_input_order() -> None:
    """Two lists with a duplicated item, the larger key first in the input: the refusal names
    it, as the in-memory path does, though the part is graded in (list, item) order.
    """
    base = _log(seed=7)
    late = base.filter(pl.col("list") == 30)
    early = base.filter(pl.col("list") == 200)
    rest = base.filter(~pl.col("list").is_in([30, 200])).sample(fraction=1.0, shuffle=True, seed=1)
    dup = pl.concat([early, rest, late, early.head(1), late.head(1)])
    kw: dict[str, Any] = dict(
        by="list", item="item", y_true="clicked", y_score="score", k=3, n_resamples=10
    )
    messages = []
    runs: tuple[tuple[Any, dict[str, Any]], ...] = (
        (dup, {}),
        (dup.lazy(), {"batch_rows": 200, "layout": "shuffled"}),
    )
    for source, more in runs:
        with pytest.raises(ValueError, match="more than once") as info:
            lp.ranking_report(source, **kw, **more)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "list 200 has item" in messages[0]
