"""lp.ranking_report's inputs: Parquet paths, Arrow data, and roles as expressions (19, 20).

The reference is the report of the same rows as a Polars DataFrame with plain column names.
A frame read whole gives the same payload, compared with ``==`` (bit for bit); a log read in
parts (``batch_rows`` below its rows) merges per-item sums in another order, so it compares to
1e-12, as tests/test_report_parts.py does.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.dataset as pads
import pytest

import lodestar_polars as lp


def _log(seed: int = 0, n_lists: int = 120, n_items: int = 7) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    lists = np.repeat(np.arange(n_lists), n_items)
    items = np.tile(np.arange(n_items), n_lists)
    truth = rng.integers(0, n_items, n_lists)
    return pl.DataFrame(
        {
            "user": lists,
            "entity": lists // 5,
            "item": [f"i{i}" for i in items],
            "score": rng.integers(0, 5, lists.size) / 4.0,
            "clicked": (items == np.repeat(truth, n_items)) & (lists % 9 != 0),
        }
    )


ARGS: dict[str, Any] = {
    "by": "user",
    "item": "item",
    "y_true": "clicked",
    "y_score": "score",
    "k": 3,
    "objectives": ("accuracy",),
    "n_resamples": 100,
    "groups": "entity",
}
TRAIN = pl.DataFrame({"item": ["i0", "i0", "i0", "i1", "i2", "i2"]})


def _close(a: Any, b: Any, path: str = "") -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for key in a:
            _close(a[key], b[key], f"{path}/{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _close(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15), (path, a, b)
    else:
        assert a == b, (path, a, b)


@pytest.fixture(scope="module")
def reference() -> lp.RankingReport:
    return lp.ranking_report(_log(), train=TRAIN, **ARGS)


# ---- Parquet paths ---------------------------------------------------------------------------


def test_a_parquet_path_is_read(tmp_path: Path, reference: lp.RankingReport) -> None:
    path = tmp_path / "scores.parquet"
    _log().write_parquet(path)
    assert lp.ranking_report(path, train=TRAIN, **ARGS) == reference
    assert lp.ranking_report(str(path), train=TRAIN, **ARGS) == reference


def test_a_list_of_parquet_files_and_a_glob(tmp_path: Path, reference: lp.RankingReport) -> None:
    log = _log()
    halves = [tmp_path / "a.parquet", tmp_path / "b.parquet"]
    log.filter(pl.col("user") < 60).write_parquet(halves[0])
    log.filter(pl.col("user") >= 60).write_parquet(halves[1])
    assert lp.ranking_report(halves, train=TRAIN, **ARGS) == reference
    assert lp.ranking_report(str(tmp_path / "*.parquet"), train=TRAIN, **ARGS) == reference


def test_a_large_parquet_log_is_read_in_parts(tmp_path: Path, reference: lp.RankingReport) -> None:
    """Over ``batch_rows``: scanned and graded in parts of whole lists (sorted and shuffled)."""
    path = tmp_path / "scores.parquet"
    _log().write_parquet(path)
    in_parts = lp.ranking_report(path, train=TRAIN, batch_rows=100, **ARGS)
    _close(dict(in_parts), dict(reference))
    shuffled = tmp_path / "shuffled.parquet"
    _log().sample(fraction=1.0, shuffle=True, seed=3).write_parquet(shuffled)
    again = lp.ranking_report(shuffled, train=TRAIN, batch_rows=100, layout="shuffled", **ARGS)
    _close(dict(again), dict(reference))


def test_a_missing_path_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nope.parquet"
    with pytest.raises(FileNotFoundError, match=re.escape(f"path {str(missing)!r}")):
        lp.ranking_report(missing, **ARGS)


def test_something_else_is_refused_with_what_is_read() -> None:
    with pytest.raises(lp.InvalidParameterError, match=r"Got int instead\. \(Arrow data"):
        lp.ranking_report(3, **ARGS)  # type: ignore[arg-type]


# ---- Arrow data ------------------------------------------------------------------------------


def test_arrow_tables_batches_and_readers(reference: lp.RankingReport) -> None:
    table = _log().to_arrow()
    assert lp.ranking_report(table, train=TRAIN, **ARGS) == reference
    batch = table.combine_chunks().to_batches()[0]
    assert lp.ranking_report(batch, train=TRAIN, **ARGS) == reference
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=100))
    assert lp.ranking_report(reader, train=TRAIN, **ARGS) == reference


def test_an_arrow_dataset_is_scanned(tmp_path: Path, reference: lp.RankingReport) -> None:
    _log().write_parquet(tmp_path / "scores.parquet")
    dataset = pads.dataset(tmp_path / "scores.parquet", format="parquet")
    assert lp.ranking_report(dataset, train=TRAIN, **ARGS) == reference
    in_parts = lp.ranking_report(dataset, train=TRAIN, batch_rows=100, **ARGS)
    _close(dict(in_parts), dict(reference))


# ---- roles as expressions --------------------------------------------------------------------


def test_item_score_and_groups_as_expressions(reference: lp.RankingReport) -> None:
    renamed = _log().rename({"item": "sku", "score": "raw", "entity": "who"})
    args = {
        **ARGS,
        "item": pl.col("sku").alias("item"),
        "y_score": (pl.col("raw") * 4).alias("score"),  # a monotone map: the same rankings
        "groups": (pl.col("user") // 5).alias("entity"),
    }
    # train holds `sku`: the item expression gives it its `item` column
    train = TRAIN.rename({"item": "sku"})
    got = lp.ranking_report(renamed, train=train, **args)
    assert got == reference
    lazy = lp.ranking_report(renamed.lazy(), train=train, batch_rows=100, **args)
    _close(dict(lazy), dict(reference))


def test_a_plain_column_expression_is_the_column(reference: lp.RankingReport) -> None:
    args = {**ARGS, "item": pl.col("item"), "y_score": pl.col("score"), "groups": pl.col("entity")}
    assert lp.ranking_report(_log(), train=TRAIN, **args) == reference


def test_an_item_expression_keys_a_y_true_frame() -> None:
    log = _log()
    pairs = log.filter("clicked").select("user", "item")
    plain = {**ARGS, "y_true": pairs}
    expected = lp.ranking_report(log.drop("clicked"), **plain)
    renamed = log.drop("clicked").rename({"item": "sku"})
    item = pl.col("sku").alias("item")
    # the y_true frame holding the source column, or the role's column already
    for truth in (pairs.rename({"item": "sku"}), pairs):
        got = lp.ranking_report(renamed, **{**plain, "item": item, "y_true": truth})
        assert got == expected


def test_an_expression_reading_a_missing_column_names_the_role() -> None:
    with pytest.raises(
        lp.InvalidParameterError,
        match=re.escape("The 'groups' parameter of ranking_report names 'nope', which is not"),
    ):
        lp.ranking_report(_log(), **{**ARGS, "groups": pl.col("nope").alias("entity")})
    with pytest.raises(lp.InvalidParameterError, match="The 'item' parameter of ranking_report"):
        lp.ranking_report(_log(), **{**ARGS, "item": pl.all()})
