"""lodestar_polars.spark.ranking_report equals the single-machine lp.ranking_report (issue 20).

The reference is ``lp.ranking_report`` on the same rows as a Polars DataFrame.  Per-list values
reach the driver and are merged in the single-machine order, so the primary block's micro
family, the floor's and the whole bootstrap (``uncertainty``) are compared bit for bit; the
per-item sums and the other blocks' micro sums add the partitions' terms in another order, so
the rest compares to 1e-12.  One local[2] Spark session (tests/conftest.py's ``spark``
fixture, shared with tests/test_spark.py); the tests marked ``spark`` skip only where pyspark or
Java is missing, and fail then under LODESTAR_REQUIRE_SPARK=1.  The tree of partial terms
(``combine``) is also checked without Spark, on parts graded here.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
import lodestar_polars.spark as lps
from lodestar_polars._report import parts as _report_parts
from lodestar_polars._report import parts_merge as _report_merge
from lodestar_polars._report.ranking_report import popularity_table


def _log(
    seed: int = 0, n_lists: int = 180, n_items: int = 9, *, integer: bool = False
) -> pl.DataFrame:
    """Whole-catalogue lists, heavy ties, some lists without a positive, some with two."""
    rng = np.random.default_rng(seed)
    lists = np.repeat(np.arange(n_lists), n_items)
    items = np.tile(np.arange(n_items), n_lists)
    truth = rng.integers(0, n_items, n_lists)
    raw = rng.integers(0, 6, lists.size)
    frame = pl.DataFrame(
        {
            "list": lists,
            "entity": lists // 7,
            "item": [f"i{i}" for i in items],
            "score": raw if integer else raw / 5.0,
            "clicked": items == np.repeat(truth, n_items),
        }
    )
    frame = frame.filter(~((pl.col("list") % 13 == 0) & pl.col("clicked")))
    frame = frame.with_columns(
        clicked=pl.col("clicked") | ((pl.col("list") % 11 == 0) & (pl.col("item") == "i0"))
    )
    # rows in no particular order: the shuffle must not change the first positive
    return frame.sample(fraction=1.0, shuffle=True, seed=seed)


def _close(a: Any, b: Any, path: str = "") -> None:
    """Equal, floats to 1e-12 relative."""
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


def _same_report(spark_report: dict[str, Any], local: dict[str, Any]) -> None:
    """Bit for bit where the sums keep their order; the rest to 1e-12."""
    primary = local["primary_objective"]
    assert spark_report["objectives"][primary]["micro"] == local["objectives"][primary]["micro"]
    assert spark_report["uncertainty"] == local["uncertainty"]
    assert spark_report["primary_score"] == local["primary_score"]
    if local["baselines"]:
        assert (
            spark_report["baselines"]["global_pop"]["micro"]
            == (local["baselines"]["global_pop"]["micro"])
        )
    for key in ("n_lists", "n_dropped", "n_unseen_truth", "n_items", "max_list_length"):
        assert spark_report[key] == local[key], key
    _close(dict(spark_report), dict(local))


CASES: dict[str, dict[str, Any]] = {
    "floor-and-entities": {
        "objectives": ("accuracy",),
        "groups": "entity",
        "with_train": True,
    },
    "first-positive-integer-scores": {
        "objectives": ("accuracy",),
        "multi_positive": "first",
        "integer": True,
        "k": 3,
    },
    "percentile-with-state": {
        "objectives": ("accuracy", "coverage"),
        "percentile": True,
        "with_state": True,
        "groups": "entity",
    },
    "shrinkage-with-state": {
        "objectives": ("coverage",),
        "shrinkage_strength": 20.0,
        "with_state": True,
        "with_train": True,
    },
    "three-objectives-with-state": {
        "objectives": ("accuracy", "balanced", "coverage"),
        "with_state": True,
        "with_train": True,
        "spark_train": True,
        "k": 4,
    },
}


@pytest.mark.spark
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_payload_equals_the_single_machine_one(spark: Any, case: str) -> None:
    options = dict(CASES[case])
    integer = options.pop("integer", False)
    log = _log(seed=len(case), integer=integer)
    train = pl.DataFrame({"item": [f"i{i}" for i in [0, 0, 0, 1, 1, 2, 3, 4, 5, 5, 6]]})
    args: dict[str, Any] = {
        "by": "list",
        "item": "item",
        "y_true": "clicked",
        "y_score": "score",
        "n_resamples": 200,
        "k": options.pop("k", 2),
        **{k: v for k, v in options.items() if not k.startswith(("with_", "spark_"))},
    }
    if options.get("with_state"):
        args["state"] = lp.fit_comparability(
            log, by="list", item="item", y_score="score", y_true="clicked"
        )
    local_args = dict(args)
    spark_args = dict(args)
    if options.get("with_train"):
        local_args["train"] = train
        spark_args["train"] = (
            spark.createDataFrame(train.to_arrow()) if options.get("spark_train") else train
        )
    local = lp.ranking_report(log, **local_args)
    sdf = spark.createDataFrame(log.to_arrow())
    on_spark = lps.ranking_report(sdf, num_partitions=3, **spark_args)
    assert isinstance(on_spark, lp.RankingReport)
    _same_report(on_spark, local)


@pytest.mark.spark
def test_keys_of_several_columns_and_default_partitions(spark: Any) -> None:
    """Two key columns (a list is (entity, list)); the default sizing (one count of rows)."""
    log = _log(seed=5).with_columns(pl.col("clicked").cast(pl.Int8))
    args: dict[str, Any] = {
        "by": ["entity", "list"],
        "item": "item",
        "y_true": "clicked",
        "y_score": "score",
        "objectives": ("accuracy",),
        "n_resamples": 100,
        "k": 3,
        "popularity": pl.DataFrame({"item": ["i0", "i1"], "popularity": [5.0, 2.0]}),
    }
    local = lp.ranking_report(log, **args)
    on_spark = lps.ranking_report(spark.createDataFrame(log.to_arrow()), **args)
    _same_report(on_spark, local)
    assert on_spark["popularity_source"] == "popularity"
    # a Spark popularity frame is collected
    args["popularity"] = spark.createDataFrame(args["popularity"].to_arrow())
    again = lps.ranking_report(spark.createDataFrame(log.to_arrow()), num_partitions=2, **args)
    _same_report(again, local)


def _refusal(call: Any) -> str:
    with pytest.raises(ValueError, match="^ranking_report: ") as info:
        call()
    return str(info.value)


@pytest.mark.spark
def test_a_refusal_says_what_the_single_machine_report_says(spark: Any) -> None:
    args: dict[str, Any] = {
        "by": "list",
        "item": "item",
        "y_true": "clicked",
        "y_score": "score",
        "objectives": ("accuracy",),
    }
    twice = _log(seed=1).sort("list", "item")
    twice = pl.concat([twice, twice.filter(pl.col("list") == 17).head(1)])
    expected = _refusal(lambda: lp.ranking_report(twice, **args))
    assert "has item" in expected
    sdf = spark.createDataFrame(twice.to_arrow())
    assert _refusal(lambda: lps.ranking_report(sdf, num_partitions=2, **args)) == expected
    # no positive at all, in any partition
    none = _log(seed=2).with_columns(clicked=pl.lit(value=False))
    expected = _refusal(lambda: lp.ranking_report(none, **args))
    sdf = spark.createDataFrame(none.to_arrow())
    assert _refusal(lambda: lps.ranking_report(sdf, num_partitions=2, **args)) == expected
    # a non-finite score names the list and item, as in memory
    bad = _log(seed=3).sort("list", "item").with_row_index("r")
    bad = bad.with_columns(
        score=pl.when(pl.col("r") == 40).then(float("inf")).otherwise("score")
    ).drop("r")
    expected = _refusal(lambda: lp.ranking_report(bad, **args))
    sdf = spark.createDataFrame(bad.to_arrow())
    assert _refusal(lambda: lps.ranking_report(sdf, num_partitions=2, **args)) == expected


@pytest.mark.spark
def test_options_are_checked_on_the_driver(spark: Any) -> None:
    sdf = spark.createDataFrame(_log(seed=4).to_arrow())
    args: dict[str, Any] = {"by": "list", "item": "item", "y_true": "clicked", "y_score": "score"}
    with pytest.raises(lp.InvalidParameterError, match="The 'k' parameter of ranking_report"):
        lps.ranking_report(sdf, **args, k=0, objectives=("accuracy",))
    with pytest.raises(lp.InvalidParameterError, match=re.escape("need a comparability state")):
        lps.ranking_report(sdf, **args)  # the default coverage block, no state
    with pytest.raises(lp.InvalidParameterError, match="'y_true' parameter of ranking_report"):
        lps.ranking_report(sdf, **{**args, "y_true": pl.DataFrame({"list": [1]})})
    with pytest.raises(lp.InvalidParameterError, match="'item' parameter of ranking_report"):
        lps.ranking_report(sdf, **{**args, "item": pl.col("item")})
    with pytest.raises(ValueError, match=re.escape("scores has no column 'nope'")):
        lps.ranking_report(sdf, **{**args, "y_score": "nope"}, objectives=("accuracy",))
    with pytest.raises(TypeError, match="must be a pyspark.sql.DataFrame"):
        lps.ranking_report(_log(), **args)  # type: ignore[arg-type]


def test_partial_terms_combine_in_any_tree() -> None:
    """``combine``d partials give the sequential parts' payload (no Spark: parts graded here)."""
    log = _log(seed=7).sort("list")
    train = pl.DataFrame({"item": ["i0", "i0", "i1", "i2"]})
    args: dict[str, Any] = {
        "by": "list",
        "item": "item",
        "y_true": "clicked",
        "y_score": "score",
        "objectives": ("accuracy",),
        "n_resamples": 100,
        "k": 3,
        "groups": "entity",
        "train": train,
    }
    local = lp.ranking_report(log, **args)
    from lodestar_polars._report.beyond import information_table

    table = popularity_table("item", pl.String, train, None)
    context = _report_parts.PartContext(
        keys=["list"], item="item", score="score", truth="clicked", groups="entity", mp="each",
        kk=3, names=["accuracy"], primary="accuracy", block_alpha={"accuracy": 0.0},
        transforms={"shrinkage": False, "shrinkage_strength": None, "percentile": False},
        state=None, table=table, shrink=False, strength=None, percentile=False,
        information=information_table(train, ["list"], "item"),  # issue 21: novelty@k
    )  # fmt: skip
    numbered = log.with_row_index(_report_parts._GROW)
    partials = []
    for bucket in range(5):  # whole lists, by a hash of the key
        part = numbered.filter(pl.col("list") % 5 == bucket)
        merged = _report_merge._Merged()
        _report_parts.take_part(merged, part, context)
        partials.append(merged)
    tree = _report_merge.combine(
        _report_merge.combine(partials[3], partials[0], "item"),
        _report_merge.combine(
            _report_merge.combine(_report_merge._Merged(), partials[4], "item"),
            _report_merge.combine(partials[1], partials[2], "item"),
            "item",
        ),
        "item",
    )
    report = _report_merge._merge(
        tree, keys=["list"], item="item", groups="entity", kk=3, names=["accuracy"],
        primary="accuracy", table=table, tail_share=0.2, mp="each", comparability=None,
        strength=None, percentile=False, block_alpha={"accuracy": 0.0}, n_resamples=100,
        confidence_level=0.95, seed=0,
    )  # fmt: skip
    _same_report(report, local)


# issue 21: value= and y_score_b= on Spark equal the single-machine report


def _with_extras(seed: int) -> pl.DataFrame:
    log = _log(seed=seed)
    rng = np.random.default_rng(seed)
    return log.with_columns(
        price=pl.Series(rng.integers(0, 20, log.height) * 0.5),
        b=pl.Series(rng.integers(0, 6, log.height) / 5.0),
    )


@pytest.mark.spark
@pytest.mark.parametrize("with_state", [False, True])
def test_value_and_versus_equal_the_single_machine_ones(spark: Any, *, with_state: bool) -> None:
    log = _with_extras(7)
    args: dict[str, Any] = {
        "by": "list", "item": "item", "y_true": "clicked", "y_score": "score", "k": 3,
        "n_resamples": 100, "groups": "entity", "value": "price", "y_score_b": "b",
        "objectives": ("accuracy",),
    }  # fmt: skip
    if with_state:
        args["objectives"] = ("coverage", "accuracy")
        args["state"] = lp.fit_comparability(
            log, by="list", item="item", y_score="score", y_true="clicked"
        )
    local = lp.ranking_report(log, **args)
    on_spark = lps.ranking_report(spark.createDataFrame(log.to_arrow()), num_partitions=3, **args)
    _same_report(on_spark, local)
    assert on_spark["versus"]["difference"]["micro"] == local["versus"]["difference"]["micro"]
    assert "value" in on_spark["objectives"]["accuracy"]


@pytest.mark.spark
def test_a_negative_value_is_refused_as_on_one_machine(spark: Any) -> None:
    log = _with_extras(8).with_columns(
        price=pl.when(pl.col("list") == 5).then(-1.0).otherwise(pl.col("price"))
    )
    args: dict[str, Any] = {
        "by": "list", "item": "item", "y_true": "clicked", "y_score": "score",
        "objectives": ("accuracy",), "value": "price",
    }  # fmt: skip
    with pytest.raises(lp.InvalidParameterError, match="column 'price' is negative in row"):
        lps.ranking_report(spark.createDataFrame(log.to_arrow()), num_partitions=2, **args)
    with pytest.raises(lp.InvalidParameterError, match="must be a column name or None"):
        lps.ranking_report(
            spark.createDataFrame(log.to_arrow()), **{**args, "value": pl.col("price")}
        )
