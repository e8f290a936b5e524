"""``lp.trec.evaluate(qrels, run, ...)``: the argument order and the options (issues 8 and 11)."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from polars.testing import assert_frame_equal

import lodestar_polars as lp

RUN = pl.DataFrame({"qid": ["q"] * 3, "docno": ["a", "b", "c"], "score": [0.3, 0.2, 0.1]})
QRELS = pl.DataFrame({"qid": ["q", "q"], "docno": ["b", "z"], "rel": [1, 2]})
OLD_ORDER = (
    "lp.trec.evaluate takes the qrels first, then the run, as trec_eval, ranx and ir_measures "
    "do: evaluate(qrels, run, ...). These frames are in the old order (a run with 'score' "
    "first, qrels with 'rel' second) and are read so in this release only"
)


def test_qrels_come_first() -> None:
    got = lp.trec.evaluate(QRELS, RUN, ["map", "P.2", "num_rel"])
    # b is relevant at rank 2; z (rel 2) is judged but not retrieved: AP = (1/2) / 2
    assert dict(zip(got["measure"], got["value"], strict=True)) == {
        "num_rel": 2.0,
        "map": 0.25,
        "P_2": 0.5,
    }


def test_the_old_order_of_frames_is_read_with_a_warning() -> None:
    """The columns leave no doubt, and the new order would refuse the call."""
    want = lp.trec.evaluate(QRELS, RUN, ["map", "P.2"])
    for run, qrels in [(RUN, QRELS), (RUN.lazy(), QRELS.lazy()), (RUN.to_arrow(), QRELS)]:
        with pytest.warns(FutureWarning, match=re.escape(OLD_ORDER)):
            got = lp.trec.evaluate(run, qrels, ["map", "P.2"])  # type: ignore[arg-type]
        assert_frame_equal(got, want)


def test_frames_that_could_be_either_are_read_in_the_new_order() -> None:
    """A frame with both ``score`` and ``rel`` is never taken for the old order."""
    both = RUN.join(QRELS, on=["qid", "docno"], how="left")
    msg = "`run` has no 'score' column (columns: ['qid', 'docno', 'rel'])"
    with pytest.raises(ValueError, match=re.escape(msg)):
        lp.trec.evaluate(both, QRELS, "map")
    # in the new order it is a qrels frame with an extra column: no warning, read as given
    # (a, b, c judged 0, 1, 0: b is relevant at rank 2)
    assert lp.trec.evaluate(both.fill_null(0), RUN, "map")["value"].to_list() == [0.5]


def test_files_in_the_old_order_are_refused_saying_the_order(tmp_path: Path) -> None:
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("q Q0 a 1 0.3 t\nq Q0 b 2 0.2 t\n")
    qrels.write_text("q 0 b 1\n")
    msg = (
        f"{run}:1: 'q Q0 a 1 0.3 t' is a run line (`qid Q0 docno rank score tag`), not a qrels "
        "line: the qrels come first, then the run, as in trec_eval"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        lp.trec.evaluate(run, qrels, "map")
    msg = (
        f"{qrels}:1: 'q 0 b 1' is a qrels line (`qid iter docno rel`), not a run line: "
        "the qrels come first, then the run, as in trec_eval"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        lp.trec.read_run(qrels).collect()
    assert lp.trec.evaluate(qrels, run, "map")["value"].to_list() == [0.5]


@pytest.mark.parametrize("level", [1, np.int64(1), np.uint8(1), np.int32(1)])
def test_relevance_level_of_any_integer_type(level: Any) -> None:
    got = lp.trec.evaluate(QRELS, RUN, ["P.2"], relevance_level=level)
    assert got["value"].to_list() == [0.5]
    # a NumPy integer is taken at run time, though the signature says int
    two = np.int64(2)
    assert lp.trec.evaluate(QRELS, RUN, ["P.2"], relevance_level=two)["value"][0] == 0.0  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "level", [float("nan"), float("inf"), 2.5, 1.0, -1, True, "1", None, np.float64(1.0)]
)
def test_relevance_level_is_a_whole_number(level: Any) -> None:
    msg = f"`relevance_level` must be an int >= 0, got {level!r}"
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        lp.trec.evaluate(QRELS, RUN, "map", relevance_level=level)


@pytest.mark.parametrize("max_docs", [float("nan"), float("inf"), 2.5, 2.0, 0, -3, True, "2"])
def test_max_docs_is_a_positive_int(max_docs: Any, tmp_path: Path) -> None:
    msg = f"`max_docs` must be an int >= 1, got {max_docs!r}"
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        lp.trec.evaluate(QRELS, RUN, "map", max_docs=max_docs)
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        lp.trec.write_run(RUN, tmp_path / "run.txt", max_docs=max_docs)


def test_max_docs_of_any_integer_type(tmp_path: Path) -> None:
    # a NumPy integer is taken at run time, though the signature says int
    got = lp.trec.evaluate(QRELS, RUN, ["num_ret"], max_docs=np.int64(2))  # type: ignore[arg-type]
    assert got["value"].to_list() == [2.0]
    lp.trec.write_run(RUN, tmp_path / "run.txt", max_docs=np.uint16(1))  # type: ignore[arg-type]
    assert (tmp_path / "run.txt").read_text() == "q Q0 a 1 0.3 lodestar\n"


@pytest.mark.parametrize("value", ["no", 1, None, np.int64(0)])
def test_complete_is_a_bool(value: Any) -> None:
    """``complete="no"`` meant True."""
    msg = (
        "The 'complete' parameter of evaluate must be an instance of 'bool' or an instance of "
        f"'numpy.bool'. Got {value!r} instead."
    )
    with pytest.raises(lp.InvalidParameterError, match=f"^{re.escape(msg)}$"):
        lp.trec.evaluate(QRELS, RUN, "map", complete=value)


def test_complete_numpy_bool() -> None:
    # numpy.bool is taken at run time, though the signature says bool
    got = lp.trec.evaluate(QRELS, RUN.head(0), ["num_q", "map"], complete=np.bool_(True))  # type: ignore[arg-type]
    assert got["value"].to_list() == [1.0, 0.0]


@pytest.mark.parametrize(
    ("frame", "msg"),
    [
        (RUN.with_columns(score=pl.lit(None, pl.Float64)), "`run` has a null score (query 'q')"),
        (
            RUN.with_columns(score=pl.lit(float("-inf"))),
            "`run`: score -inf of document 'a' in query 'q' is not a finite number",
        ),
        (
            RUN.with_columns(score=pl.lit("x")),
            "`run` column 'score' must hold numbers, found dtype String",
        ),
        (
            RUN.with_columns(score=pl.lit(pa.scalar(1, pa.date32()).as_py())),
            "`run` column 'score' must hold numbers, found dtype Date",
        ),
    ],
    ids=["null", "inf", "text", "date"],
)
def test_bad_scores_in_a_frame(frame: pl.DataFrame, msg: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        lp.trec.evaluate(QRELS, frame, "map")


@pytest.mark.parametrize(
    ("value", "msg"),
    [
        (0.5, "`qrels` row 2: relevance 0.5 is not an integer"),
        (float("nan"), "`qrels` row 2: relevance nan is not an integer"),
        (None, "`qrels` has a null rel (query 'q')"),
    ],
)
def test_bad_relevance_in_a_frame(value: Any, msg: str) -> None:
    qrels = pl.DataFrame({"qid": ["q", "q"], "docno": ["b", "z"], "rel": [1.0, value]})
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        lp.trec.evaluate(qrels, RUN, "map")


@pytest.mark.parametrize(
    ("call", "error", "msg"),
    [
        (
            lambda d: lp.trec.write_run(RUN.with_columns(score=pl.lit("x")), d / "r.txt"),
            ValueError,
            "`frame` column 'score' must hold numbers, found dtype String",
        ),
        (
            lambda d: lp.trec.write_run(RUN, d / "r.txt", tag=3),  # type: ignore[arg-type]
            TypeError,
            "`tag` must be a str, got 3",
        ),
        (
            lambda d: lp.trec.write_run([1], d / "r.txt"),  # type: ignore[arg-type]
            TypeError,
            "`frame` must be a polars DataFrame or LazyFrame, got list",
        ),
        (
            lambda d: lp.trec.write_run(RUN, d),
            ValueError,
            "{d}: is a directory, not a run file",
        ),
        (
            lambda d: lp.trec.write_run(RUN, d / "nowhere" / "r.txt"),
            ValueError,
            "{d}/nowhere/r.txt: no such directory '{d}/nowhere'",
        ),
        (
            lambda d: lp.trec.read_run(3),  # type: ignore[arg-type]
            TypeError,
            "`path` must be a str or a path, got int",
        ),
        (
            lambda d: lp.trec.read_qrels(None),  # type: ignore[arg-type]
            TypeError,
            "`path` must be a str or a path, got NoneType",
        ),
    ],
    ids=["score-text", "tag-int", "not-a-frame", "dir", "no-folder", "read-int", "read-none"],
)
def test_write_run_and_readers_refuse_in_a_sentence(
    tmp_path: Path, call: Any, error: type[Exception], msg: str
) -> None:
    """Each ended in a raw Polars error, an AttributeError, or wrote ``3`` as the tag."""
    with pytest.raises(error, match=f"^{re.escape(msg.format(d=tmp_path))}$"):
        call(tmp_path)
    assert not (tmp_path / "r.txt").exists()


def test_write_run_path_is_literal(tmp_path: Path) -> None:
    lp.trec.write_run(RUN, tmp_path / "run[1].txt", max_docs=1)
    assert lp.trec.read_run(tmp_path / "run[1].txt").collect()["docno"].to_list() == ["a"]


@pytest.mark.parametrize(
    ("rel", "msg"),
    [
        (
            pl.Series([1, 2**64 - 1], dtype=pl.UInt64),
            "`qrels` row 2: relevance 18446744073709551615 does not fit in a 64-bit integer",
        ),
        (
            pl.Series([Decimal("1"), Decimal("1.5")]),
            "`qrels` row 2: relevance Decimal('1.5') is not an integer",
        ),
    ],
    ids=["uint64", "decimal"],
)
def test_relevance_beyond_int64_or_decimal(rel: pl.Series, msg: str) -> None:
    """A raw Polars cast error, and a Decimal 1.5 truncated to 1."""
    qrels = pl.DataFrame({"qid": ["q", "q"], "docno": ["b", "z"], "rel": rel})
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        lp.trec.evaluate(qrels, RUN, "map")


def test_whole_decimal_relevance_is_read() -> None:
    qrels = QRELS.with_columns(pl.col("rel").cast(pl.Decimal(10, 2)))
    assert_frame_equal(lp.trec.evaluate(qrels, RUN, "map"), lp.trec.evaluate(QRELS, RUN, "map"))


@pytest.mark.parametrize("column", ["qid", "docno"])
def test_ids_must_be_scalars(column: str) -> None:
    """A list id ended in a raw Polars cast error."""
    run = RUN.with_columns(pl.concat_list(column).alias(column))
    msg = f"`run` column {column!r} must hold ids (text or numbers), found dtype List(String)"
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        lp.trec.evaluate(QRELS, run, "map")


def test_a_column_that_is_not_read_is_not_checked(tmp_path: Path) -> None:
    """A run frame joined with graded labels (``rel`` 0.5) scores by its ``score`` only."""
    run = RUN.with_columns(rel=pl.Series([0.5, 1.5, 0.0]))
    qrels = QRELS.with_columns(score=pl.lit("unused"))
    assert_frame_equal(lp.trec.evaluate(qrels, run, "map"), lp.trec.evaluate(QRELS, RUN, "map"))
    lp.trec.write_run(run, tmp_path / "run.txt")
    assert (tmp_path / "run.txt").read_text().splitlines()[0] == "q Q0 a 1 0.3 lodestar"


@pytest.mark.parametrize(
    ("measures", "error", "msg"),
    [
        (5, TypeError, "`measures` must be a str or a list of str, got 5"),
        (None, TypeError, "`measures` must be a str or a list of str, got None"),
        # '23.4' is read as 23, as trec_eval does; an exponent is not read either way
        (
            "P.1e3",
            ValueError,
            "measure 'P.1e3': cutoff '1e3' must be written in digits, as 10 or 23.4",
        ),
        ("P.0", ValueError, "measure 'P.0': cutoff '0' is not a number >= 1"),
        ("map@0", ValueError, "measure 'map@0': cutoff '0' is not a number >= 1"),
        ("ndcg.1=inf", ValueError, "measure 'ndcg.1=inf': gain 'inf' is not a finite number"),
        ("ndcg.1=nan", ValueError, "measure 'ndcg.1=nan': gain 'nan' is not a finite number"),
    ],
)
def test_measure_names_are_refused_in_a_sentence(
    measures: Any, error: type[Exception], msg: str
) -> None:
    """A raw TypeError; 'P.1e3' read as P_1000; 'map@0' scored 0; an infinite gain gave NaN."""
    with pytest.raises(error, match=f"^{re.escape(msg)}$"):
        lp.trec.evaluate(QRELS, RUN, measures)


def test_cutoffs_in_digits_are_read() -> None:
    got = lp.trec.evaluate(QRELS, RUN, ["P.02,3.7", "ndcg.1=0.5,2=2"])
    assert got["measure"].to_list() == ["P_2", "P_3", "ndcg_1=0.5,2=2"]
    assert got["value"].to_list()[:2] == [0.5, 1 / 3]
