"""``lp.trec.evaluate`` reads frames under the rules it reads files by (issue 8, item 7)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import lodestar_polars as lp

RUN = pl.DataFrame({"qid": ["q"] * 3, "docno": ["a", "b", "c"], "score": [0.3, 0.2, 0.1]})


@pytest.mark.parametrize("value", [0.5, 1.5, float("nan"), float("inf")])
def test_a_fractional_relevance_is_refused_not_truncated(value: float) -> None:
    """1.5 in a qrels file is refused with file:line; in a frame it was cast to 1."""
    qrels = pl.DataFrame({"qid": ["q"] * 3, "docno": ["a", "b", "c"], "rel": [1.0, 0.0, value]})
    msg = f"`qrels` row 3: relevance {value!r} is not an integer"
    with pytest.raises(ValueError, match=re.escape(msg)):
        lp.trec.evaluate(qrels, RUN, "map")


def test_a_whole_float_relevance_is_read_as_the_integer() -> None:
    floats = pl.DataFrame({"qid": ["q", "q"], "docno": ["a", "c"], "rel": [1.0, 2.0]})
    ints = floats.with_columns(pl.col("rel").cast(pl.Int64))
    assert lp.trec.evaluate(floats, RUN, "map").equals(lp.trec.evaluate(ints, RUN, "map"))


def test_the_file_rule_is_the_same(tmp_path: Path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text("q 0 a 1\nq 0 b 0\nq 0 c 1.5\n")
    with pytest.raises(ValueError, match=re.escape(f"{path}:3: relevance '1.5' is not an integer")):
        lp.trec.evaluate(path, RUN, "map")


@pytest.mark.parametrize(
    ("run", "qrels", "msg"),
    [
        (
            RUN.with_columns(pl.col("score").cast(pl.String)),
            pl.DataFrame({"qid": ["q"], "docno": ["a"], "rel": [1]}),
            "`run` column 'score' must hold numbers, found dtype String",
        ),
        (
            RUN,
            pl.DataFrame({"qid": ["q"], "docno": ["a"], "rel": ["1"]}),
            "`qrels` column 'rel' must hold integers, found dtype String",
        ),
    ],
    ids=["score", "rel"],
)
def test_non_numeric_columns(run: pl.DataFrame, qrels: pl.DataFrame, msg: str) -> None:
    with pytest.raises(ValueError, match=re.escape(msg)):
        lp.trec.evaluate(qrels, run, "map")


@pytest.mark.parametrize("flag", ["per_query", "complete", "float32_scores", "wide"])
@pytest.mark.parametrize("value", ["no", 1, None])
def test_flags_are_bools(flag: str, value: Any) -> None:
    """``complete="no"`` meant True."""
    qrels = pl.DataFrame({"qid": ["q"], "docno": ["a"], "rel": [1]})
    msg = (
        f"The {flag!r} parameter of evaluate must be an instance of 'bool' or an instance of "
        f"'numpy.bool'. Got {value!r} instead."
    )
    with pytest.raises(lp.InvalidParameterError, match=re.escape(msg)):
        lp.trec.evaluate(qrels, RUN, "map", **{flag: value})


def test_paths_read_literally(tmp_path: Path) -> None:
    (tmp_path / "run[1].txt").write_text("q Q0 a 1 0.3 t\n")
    (tmp_path / "run1.txt").write_text("q Q0 b 1 0.3 t\n")  # what the glob would have matched
    run = lp.trec.read_run(tmp_path / "run[1].txt").collect()
    assert run["docno"].to_list() == ["a"]
    with pytest.raises(ValueError, match=re.escape(f"{tmp_path}: is a directory, not a run file")):
        lp.trec.read_run(tmp_path)
    with pytest.raises(ValueError, match=re.escape(f"{tmp_path / 'x.txt'}: no such file")):
        lp.trec.read_qrels(tmp_path / "x.txt")


def test_arrow_inputs() -> None:
    """Arrow tables and readers are read as frames, without a copy."""
    import pyarrow as pa

    qrels = pl.DataFrame({"qid": ["q", "q"], "docno": ["a", "c"], "rel": [1, 2]})
    want = lp.trec.evaluate(qrels, RUN, ["map", "P.2"])
    reader = pa.RecordBatchReader.from_batches(
        qrels.to_arrow().schema, qrels.to_arrow().to_batches()
    )
    # Arrow data is taken at run time; the signature names only paths and Polars frames
    got = lp.trec.evaluate(reader, RUN.to_arrow(), ["map", "P.2"])  # type: ignore[arg-type]
    assert got.equals(want)
