"""lodestar_polars.spark.evaluate with the beyond-accuracy inputs: lp.evaluate's numbers (1e-12).

The served lists of tests/_beyond.py (ties, lists of one row) as a Spark DataFrame, on the
``spark`` fixture's local session (tests/conftest.py): the popularity, a category (a string,
an int) or an embedding (an ``ARRAY<DOUBLE>``), the popularity rank and the catalogue's size
cross the Arrow boundary to each partition's ``lp.evaluate`` call.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import lodestar_polars as lp
import lodestar_polars.spark as lps

TOL = 1e-12


def _load_shared() -> Any:
    """``tests/_beyond.py``, by path (``--import-mode=importlib`` puts no test dir on sys.path)."""
    name = "_lodestar_tests_beyond"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("_beyond.py"))
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _served() -> pl.DataFrame:
    """300 tied lists; ``genre`` a string, ``genre_id`` an int, ``v`` a 3-float embedding."""
    frame: pl.DataFrame = _load_shared()._random_lists(7, "shuffled")
    return frame.with_columns(genre_id=pl.col("genre").rank("dense").cast(pl.Int64) * 10)


SERVED = _served()
INPUTS: dict[str, Any] = {"popularity": "p", "popularity_rank": "rank", "n_items": 40}
KEYS: dict[str, Any] = {"by": "user", "y_true": "hit", "y_score": "score"}


def _collect(sdf: Any) -> pl.DataFrame:
    frame = pl.from_arrow(sdf.toArrow())
    assert isinstance(frame, pl.DataFrame)
    return frame.sort("user")


def _assert_close(got: pl.DataFrame, want: pl.DataFrame) -> None:
    assert got.columns == want.columns
    assert got.height == want.height
    assert got["user"].to_list() == want["user"].to_list()
    for name in want.columns[1:]:
        g, w = got[name], want[name]
        assert g.is_null().to_list() == w.is_null().to_list(), name
        assert ((g - w).abs().max() or 0.0) <= TOL, name  # type: ignore[operator]


@pytest.mark.spark
@pytest.mark.parametrize(
    ("feature", "ild"),
    [("genre", "ild@5"), ("genre_id", "ild"), ("v", "ild(dim=3)@5")],
    ids=["string-category", "int-category", "embedding"],
)
def test_the_four_metrics_equal_lp_evaluate(spark: Any, feature: str, ild: str) -> None:
    names = ["novelty@5", "arp@3", ild, "serendipity@5", "ndcg@5"]
    sdf = spark.createDataFrame(SERVED.to_arrow())
    if feature == "v":
        assert sdf.schema["v"].dataType.simpleString() == "array<double>"
    got = _collect(
        lps.evaluate(sdf, names, **KEYS, **INPUTS, feature=feature, strict=False, num_partitions=3)
    )
    want = lp.evaluate(SERVED, names, **KEYS, **INPUTS, feature=feature, strict=False)
    assert want.null_count().sum_horizontal().item() > 0  # one-row lists: ndcg refuses them
    assert want.drop_nulls(ild).height > 250  # ILD of a one-row list is 0, scored
    assert got.schema == want.schema
    _assert_close(got, want)
    means = lps.evaluate(sdf, names, **KEYS, **INPUTS, feature=feature, mean=True, strict=False)
    expected = lp.evaluate(
        SERVED, names, **KEYS, **INPUTS, feature=feature, mean=True, strict=False
    )
    row = means.first()
    assert row is not None
    for name in names:
        assert abs(row[name] - expected[name].item()) <= TOL, name


@pytest.mark.spark
def test_a_float_array_embedding_crosses_arrow(spark: Any) -> None:
    """An ARRAY<FLOAT> column (float32 in Arrow) is cast to floats as lp.evaluate casts it."""
    from pyspark.sql import functions

    sdf = spark.createDataFrame(SERVED.to_arrow()).withColumn(
        "v", functions.col("v").cast("array<float>")
    )
    local = SERVED.with_columns(pl.col("v").cast(pl.List(pl.Float32)))
    got = _collect(lps.evaluate(sdf, ["ild(dim=3)@4"], **KEYS, feature="v", num_partitions=2))
    want = lp.evaluate(local, ["ild(dim=3)@4"], **KEYS, feature="v")
    _assert_close(got, want)


@pytest.mark.spark
def test_a_refused_list_is_named_with_lp_evaluate_s_reason(spark: Any) -> None:
    bad = SERVED.with_columns(p=pl.when(pl.col("user") == 5).then(0.0).otherwise(pl.col("p")))
    sdf = spark.createDataFrame(bad.to_arrow())
    with pytest.raises(lp.RefusedGroupError) as info:
        lps.evaluate(sdf, ["novelty@5"], **KEYS, popularity="p", num_partitions=2)
    message = str(info.value)
    assert message.startswith(
        "groups refused over all Spark partitions, per metric: 'novelty@5' 1;"
    )
    assert (
        "user=5: novelty needs a popularity in (0, 1] (a share of users). Got 0.0 instead."
        in message
    )
    got = _collect(lps.evaluate(sdf, ["novelty@5"], **KEYS, popularity="p", strict=False))
    want = lp.evaluate(bad, ["novelty@5"], **KEYS, popularity="p", strict=False)
    assert got.filter(pl.col("user") == 5)["novelty@5"].to_list() == [None]
    _assert_close(got, want)


@pytest.mark.spark
def test_inputs_are_refused_on_the_driver(spark: Any) -> None:
    """lp.evaluate's sentences, before any task runs."""
    sdf = spark.createDataFrame(SERVED.to_arrow())
    cases: list[tuple[list[str], dict[str, Any], str]] = [
        (
            ["novelty@5"],
            {},
            "metric 'novelty@5': novelty reads `popularity` (each served item's training "
            "popularity, a column): give it as evaluate(popularity=...)",
        ),
        (
            ["serendipity@5"],
            {"popularity_rank": "rank"},
            "metric 'serendipity@5': serendipity reads `n_items` (the catalogue's size, a "
            "number): give it as evaluate(n_items=...)",
        ),
        (
            ["ndcg@5"],
            {"feature": "genre"},
            "`feature` is read by ['intra_list_diversity'] only, and no metric asked for is "
            "one of them",
        ),
        (
            ["ild@5"],
            {"feature": "v"},
            "metric 'ild@5': `feature` column 'v' holds lists (embeddings): write their length "
            "in the name, as 'ild(dim=4)@10', or cast the column to an Array",
        ),
        (
            ["arp@5"],
            {"popularity": "pop"},
            f"`popularity` column 'pop' is not in the frame (columns: {sdf.columns})",
        ),
        (
            ["arp@5"],
            {"popularity": "genre"},
            "`popularity` column 'genre' must be numeric, found dtype String",
        ),
        (
            ["serendipity"],
            {"popularity_rank": "rank", "n_items": 0},
            "The 'n_items' parameter of evaluate must be an int in the range [1, inf) or None. "
            "Got 0 instead.",
        ),
        (
            ["novelty"],
            {"popularity": 3},
            "The 'popularity' parameter of evaluate on Spark must be a column name or None. "
            "Got 3 instead.",
        ),
    ]
    for names, given, sentence in cases:
        with pytest.raises(ValueError, match="^" + re.escape(sentence)):
            lps.evaluate(sdf, names, **KEYS, **given)
    page = (Path(__file__).resolve().parents[1] / "docs" / "refusals.md").read_text()
    assert cases[-1][2] in page  # the Spark sentence; lp.evaluate's are quoted from its tests
