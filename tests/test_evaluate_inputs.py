"""``lp.evaluate`` takes its inputs as Polars users and Arrow users hold them (issue 9).

Column roles accept expressions as well as names; a pyarrow ``Table``,
``RecordBatch``, ``RecordBatchReader`` or ``Dataset`` is read without a copy and
gives a ``pyarrow.Table`` back.  Every number is the one the same data gives
as a Polars frame with plain column names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest
from polars.testing import assert_frame_equal

import lodestar_polars as lp

LOG = pl.DataFrame(
    {
        "q": ["a", "a", "a", "b", "b", "c", "c"],
        "rel": [2, 0, 1, 0, 1, 1, 0],
        "s": [0.5, 0.2, 0.2, 0.3, 0.1, 0.9, 0.9],
        "w": [1.0, 1.0, 1.0, 2.0, 2.0, 0.5, 0.5],
    }
)
METRICS = ["ndcg@2", "rr", "P@1"]


def _plain(**options: Any) -> pl.DataFrame:
    out = lp.evaluate(LOG, METRICS, by="q", y_true="rel", y_score="s", **options)
    assert isinstance(out, pl.DataFrame)
    return out


def test_expressions_for_every_role() -> None:
    out = lp.evaluate(
        LOG, METRICS, by=pl.col("q"), y_true=pl.col("rel"), y_score=pl.col("s"), weight=pl.col("w")
    )
    assert_frame_equal(out, _plain(weight="w"))


def test_computed_expressions() -> None:
    """A computed truth or score is evaluated; a computed key names its column."""
    out = lp.evaluate(
        LOG.lazy(),
        ["ap"],
        by=pl.col("q").str.to_uppercase().alias("query"),
        y_true=pl.col("rel") >= 1,
        y_score=-pl.col("s"),
    ).collect()
    binary = LOG.with_columns(truth=pl.col("rel") >= 1, neg=-pl.col("s"), query=pl.col("q"))
    expected = lp.evaluate(binary, ["ap"], by="query", y_true="truth", y_score="neg")
    assert out.columns == ["query", "ap"]
    assert out["query"].to_list() == ["A", "B", "C"]
    assert out["ap"].to_list() == expected["ap"].to_list()


@pytest.mark.parametrize(
    ("options", "error", "msg"),
    [
        ({"y_true": 3}, TypeError, "`y_true` must be a column name or a Polars expression, got 3"),
        ({"by": [pl.nth(0)]}, ValueError, "has no output name: give it one with .alias()"),
    ],
)
def test_bad_roles(options: dict[str, object], error: type[Exception], msg: str) -> None:
    kwargs: dict[str, Any] = {"by": "q", "y_true": "rel", "y_score": "s", **options}
    with pytest.raises(error, match=msg.replace("(", r"\(").replace(")", r"\)")):
        lp.evaluate(LOG, ["rr"], **kwargs)


@pytest.mark.parametrize("kind", ["table", "batch", "reader"])
@pytest.mark.parametrize("mean", [False, True])
def test_arrow_in_arrow_out(kind: str, *, mean: bool) -> None:
    table = LOG.to_arrow()
    source: object = {
        "table": table,
        "batch": table.combine_chunks().to_batches()[0],
        "reader": pa.RecordBatchReader.from_batches(table.schema, table.to_batches()),
    }[kind]
    out = lp.evaluate(source, METRICS, by="q", y_true="rel", y_score="s", mean=mean)  # type: ignore[call-overload]
    assert isinstance(out, pa.Table)
    assert_frame_equal(pl.from_arrow(out), _plain(mean=mean))  # type: ignore[arg-type]


def test_parquet_dataset_is_read_in_parts(tmp_path: Path) -> None:
    for i, part in enumerate(LOG.partition_by("q")):
        pq.write_table(part.to_arrow(), tmp_path / f"part{i}.parquet")
    dataset = pads.dataset(tmp_path)
    seen: list[lp.Progress] = []
    out = lp.evaluate(
        dataset, METRICS, by="q", y_true="rel", y_score="s", batch_rows=3, progress=seen.append
    )
    assert isinstance(out, pa.Table)
    assert_frame_equal(pl.from_arrow(out), _plain())  # type: ignore[arg-type]
    assert len(seen) > 1  # more than one part


def test_other_objects_are_refused() -> None:
    with pytest.raises(TypeError, match="`frame` must be a polars DataFrame or LazyFrame, or a "):
        lp.evaluate({"q": [1]}, ["rr"], by="q", y_true="rel", y_score="s")  # type: ignore[call-overload]
