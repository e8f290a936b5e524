"""lp.top_k (issue 10): the served (item, score, rank) rows of each list."""

from __future__ import annotations

import re
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import lodestar_polars as lp


def slow_top_k(rows: list[tuple[int, str, float]], k: int) -> list[tuple[int, str, float, int]]:
    """Per list, sorted by score descending then item ascending; the first k, ranked from 1."""
    out = []
    for key in sorted({r[0] for r in rows}):
        ranked = sorted((r for r in rows if r[0] == key), key=lambda r: (-r[2], r[1]))
        out += [(key, it, s, rank) for rank, (_, it, s) in enumerate(ranked[:k], start=1)]
    return out


rows_strategy = st.lists(
    st.tuples(st.integers(0, 3), st.sampled_from("abcdef"), st.sampled_from([0.0, 0.5, 1.0])),
    min_size=1,
    max_size=20,
    unique_by=lambda r: (r[0], r[1]),
)


@given(rows=rows_strategy, k=st.integers(1, 7))
@settings(max_examples=60, deadline=None)
def test_top_k_matches_the_slow_reference(rows: list[tuple[int, str, float]], k: int) -> None:
    """Ties broken by item order, rank 1-based, a short list served whole."""
    frame = pl.DataFrame(rows, schema=["user", "item", "score"], orient="row")
    got = lp.top_k(frame, k, by="user", item="item", y_score="score")
    assert got.rows() == slow_top_k(rows, k)
    assert got.schema["rank"] == pl.UInt32


def test_eager_lazy_streaming_and_row_order() -> None:
    """A LazyFrame stays lazy; every engine and any row order serve the same rows."""
    frame = pl.DataFrame(
        {
            "user": [1, 1, 1, 2, 2, 2, 2],
            "day": [1, 1, 1, 1, 1, 1, 1],
            "item": ["b", "a", "c", "d", "a", "b", "c"],
            "score": [0.5, 0.5, 0.9, 0.1, 0.2, 0.2, 0.3],
        }
    )
    eager = lp.top_k(frame, 2, by=["user", "day"], item="item", y_score="score")
    lazy = lp.top_k(frame.lazy(), 2, by=["user", "day"], item="item", y_score="score")
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), eager)
    assert_frame_equal(lazy.collect(engine="streaming"), eager)
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=1)
    served = lp.top_k(shuffled, 2, by=["user", "day"], item="item", y_score="score")
    assert_frame_equal(served, eager)
    assert eager.rows() == [
        (1, 1, "c", 0.9, 1),
        (1, 1, "a", 0.5, 2),
        (2, 1, "c", 0.3, 1),
        (2, 1, "a", 0.2, 2),
    ]


def test_null_and_nan_scores_rank_last() -> None:
    """A NaN (which Polars sorts above every number) and a null are served last."""
    frame = pl.DataFrame(
        {"user": [1, 1, 1], "item": ["a", "b", "c"], "score": [float("nan"), None, 0.1]}
    )
    got = lp.top_k(frame, 3, by="user", item="item", y_score="score")
    assert got["item"].to_list()[0] == "c"
    assert got["rank"].to_list() == [1, 2, 3]


@pytest.mark.parametrize(
    ("kwargs", "msg"),
    [
        (
            {"k": 0},
            "The 'k' parameter of top_k must be an int in the range [1, inf). Got 0 instead.",
        ),
        (
            {"y_score": "p"},
            "The 'y_score' parameter of top_k names 'p', which is not a column of frame "
            "(its columns: ['user', 'item', 'score']).",
        ),
        (
            {"by": []},
            "The 'by' parameter of top_k must be a column name or a polars expression, or a "
            "non-empty sequence of them. Got [] instead.",
        ),
    ],
    ids=["k-zero", "missing-column", "empty-by"],
)
def test_bad_input_gets_a_sentence(kwargs: dict[str, Any], msg: str) -> None:
    """Each rule its sentence."""
    frame = pl.DataFrame({"user": [1], "item": ["a"], "score": [0.1]})
    args: dict[str, Any] = {"k": 2, "by": "user", "item": "item", "y_score": "score"}
    args.update(kwargs)
    k = args.pop("k")
    with pytest.raises(ValueError, match=re.escape(msg)):
        lp.top_k(frame, k, **args)


@pytest.mark.parametrize(
    ("dtype", "low"),
    [(pl.Int64, 2**53), (pl.UInt64, 2**64 - 2), (pl.Int64, -(2**63)), (pl.Int128, 2**100)],
)
def test_integer_scores_rank_as_integers(dtype: pl.DataType, low: int) -> None:
    """2**53 and 2**53 + 1 are distinct scores: the larger is served first (no float cast)."""
    frame = pl.DataFrame({"user": [1, 1, 2, 2, 2], "item": ["a", "b", "a", "b", "c"]}).with_columns(
        pl.Series("score", [low, low + 1, low + 1, low, low], dtype=dtype)
    )
    served = lp.top_k(frame, 1, by="user", item="item", y_score="score")
    # by hand: user 1's best is b (low + 1), user 2's is a (low + 1)
    assert served["item"].to_list() == ["b", "a"]
    assert served["score"].to_list() == [low + 1, low + 1]
    assert served.schema["score"] == dtype


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize(
    ("column", "msg"),
    [
        (pl.Series("score", ["0.9", "10", "2"]), "top_k: the score column 'score' must be "
         "numeric. Got String."),
        (pl.Series("score", [True, False, True]), "top_k: the score column 'score' must be "
         "numeric. Got Boolean."),
    ],
    ids=["string", "boolean"],
)  # fmt: skip
def test_a_non_numeric_score_is_refused(column: pl.Series, msg: str, *, lazy: bool) -> None:
    """Strings are not parsed as numbers ("10" sorts below "2"): refused, as the report does."""
    frame = pl.DataFrame({"user": [1, 1, 1], "item": ["a", "b", "c"]}).with_columns(column)
    source: Any = frame.lazy() if lazy else frame  # either kind, as parametrized
    with pytest.raises(ValueError, match=re.escape(msg)):
        lp.top_k(source, 2, by="user", item="item", y_score="score")
    with pytest.raises(ValueError, match=re.escape(msg.replace("top_k", "ranking_report"))):
        lp.ranking_report(
            frame.with_columns(clicked=pl.Series([True, False, False])),
            by="user", item="item", y_score="score", y_true="clicked",
        )  # fmt: skip


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_a_list_holding_an_item_twice_is_refused(*, lazy: bool) -> None:
    """Item 'b' twice in list (2, 'x'): it would be served twice; refused, naming both."""
    frame = pl.DataFrame(
        {
            "user": [2, 2, 2, 1, 1, 2],
            "day": ["x", "x", "x", "x", "x", "y"],
            "item": ["b", "a", "b", "b", "a", "b"],
            "score": [0.9, 0.5, 0.8, 0.3, 0.2, 0.1],
        }
    )
    msg = (
        "top_k: list {'user': 2, 'day': 'x'} has item 'b' more than once (2 rows); frame must "
        "hold one row per (list, item)."
    )
    source: Any = frame.lazy() if lazy else frame  # either kind, as parametrized
    with pytest.raises(ValueError, match=re.escape(msg)):
        lp.top_k(source, 2, by=["user", "day"], item="item", y_score="score")
    with pytest.raises(ValueError, match=re.escape("list 2 has item 'b' more than once")):
        lp.top_k(source.filter(pl.col("day") == "x"), 2, by="user", item="item", y_score="score")


@pytest.mark.parametrize(
    ("kwargs", "msg"),
    [
        ({"item": 1}, "The 'item' parameter of top_k must be a column name or a polars "
         "expression of one column. Got 1 instead."),
        ({"y_score": None}, "The 'y_score' parameter of top_k must be a column name or a polars "
         "expression of one column. Got None instead."),
        ({"by": 3}, "The 'by' parameter of top_k must be a column name or a polars expression, "
         "or a non-empty sequence of them. Got 3 instead."),
        ({"y_score": pl.all()}, "The 'y_score' parameter of top_k must be a column name or a "
         "polars expression of one column. Got"),
    ],
    ids=["item-int", "score-none", "by-int", "score-several"],
)  # fmt: skip
def test_column_parameters_are_names(kwargs: dict[str, Any], msg: str) -> None:
    """A column parameter that is not a name: InvalidParameterError, before the frame is read."""
    frame = pl.DataFrame({"user": [1], "item": ["a"], "score": [0.1]})
    args: dict[str, Any] = {"by": "user", "item": "item", "y_score": "score", **kwargs}
    with pytest.raises(lp.InvalidParameterError, match=re.escape(msg)):
        lp.top_k(frame, 2, **args)


def test_the_old_name_score_warns() -> None:
    """``score`` is the old name of ``y_score``: the same rows, with a FutureWarning."""
    frame = pl.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"], "score": [0.1, 0.9, 0.5]})
    new = lp.top_k(frame, 1, by="user", item="item", y_score="score")
    with pytest.warns(FutureWarning, match="`score` is renamed `y_score`"):
        # the old name is no longer in the signature: @renamed maps it to `y_score`
        old = lp.top_k(frame, 1, by="user", item="item", score="score")  # type: ignore[call-arg]
    assert_frame_equal(old, new)


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_expressions_play_every_role(*, lazy: bool) -> None:
    """``by``, ``item`` and ``y_score`` take expressions: the same as the computed columns."""
    frame = pl.DataFrame(
        {"u": [1, 1, 1, 2, 2], "i": [3, 1, 2, 1, 2], "s": [0.2, 0.9, 0.4, 0.1, 0.7]}
    )
    computed = frame.with_columns(
        user=pl.col("u") * 10, item=pl.col("i").cast(pl.String), score=-pl.col("s")
    )
    want = lp.top_k(computed, 2, by="user", item="item", y_score="score")
    source: Any = frame.lazy() if lazy else frame  # either kind, as parametrized
    got = lp.top_k(
        source,
        2,
        by=(pl.col("u") * 10).alias("user"),
        item=pl.col("i").cast(pl.String).alias("item"),
        y_score=(-pl.col("s")).alias("score"),
    )
    assert isinstance(got, pl.LazyFrame) == lazy
    assert_frame_equal(got.lazy().collect(), want)
    assert want["item"].to_list() == ["3", "2", "1", "2"]  # the lowest s first: -s is the score


def test_arrow_data_in() -> None:
    """An Arrow table is read as a DataFrame; the result is a DataFrame."""
    frame = pl.DataFrame({"user": [1, 1], "item": ["a", "b"], "score": [0.1, 0.9]})
    # Arrow data is taken at run time (read as a DataFrame); top_k's signature names
    # only the Polars frames, so the table goes in untyped
    arrow: Any = frame.to_arrow()
    got = lp.top_k(arrow, 1, by="user", item="item", y_score="score")
    assert_frame_equal(got, lp.top_k(frame, 1, by="user", item="item", y_score="score"))
