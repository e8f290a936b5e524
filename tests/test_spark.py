"""lodestar_polars.spark: Spark's per-group values equal single-machine lp.evaluate bit for bit.

One local[2] Spark session (a real JVM; tests/conftest.py's ``spark`` fixture, shared with
tests/test_spark_report.py), small frames.  The tests marked ``spark`` skip, with the reason,
only where pyspark or Java is missing (the dependency-floor job installs no pyspark); with
LODESTAR_REQUIRE_SPARK=1, as the main CI run sets it, a missing pyspark or Java fails them
instead.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
import lodestar_polars.spark as lps
from lodestar_polars.spark._tasks import _partition_evaluator


def _log(seed: int, groups: int = 120, rows: int = 1500) -> pl.DataFrame:
    """Tie-heavy: scores from 4 values, graded relevance 0-3, Zipf-ish group sizes."""
    rng = np.random.default_rng(seed)
    query = np.minimum(rng.zipf(1.3, rows), groups) - 1
    return pl.DataFrame(
        {
            "query": [f"q{q:03d}" for q in query],
            "rel": rng.integers(0, 4, rows),
            "score": rng.integers(0, 4, rows) / 4.0,
        }
    )


def _collect(sdf: Any, keys: list[str]) -> pl.DataFrame:
    frame = pl.from_arrow(sdf.toArrow())
    assert isinstance(frame, pl.DataFrame)
    return frame.sort(keys, nulls_last=False)


@pytest.mark.spark
@pytest.mark.parametrize(
    "metrics",
    [
        ["ndcg@10", "rr", "dcg"],
        ["P.5", "recall@10", "map@100", "Rprec", "ndcg_cut.3", "success.1"],
        ["ndcg_burges@5", "hit_rate@3", "top_k_accuracy@2", "coverage_error"],
    ],
)
def test_per_group_values_are_bit_identical(spark: Any, metrics: list[str]) -> None:
    """Several metric sets on tie-heavy string-keyed data: the very same floats."""
    log = _log(seed=len(metrics))
    sdf = spark.createDataFrame(log.to_arrow())
    got = _collect(
        lps.evaluate(
            sdf, metrics, by="query", y_true="rel", y_score="score", strict=False, num_partitions=3
        ),
        ["query"],
    )
    expected = lp.evaluate(log, metrics, by="query", y_true="rel", y_score="score", strict=False)
    assert expected.null_count().sum_horizontal().item() > 0  # one-document queries refused
    assert got.schema == expected.schema
    assert got.height == log["query"].n_unique()
    assert got.equals(expected)  # exact, not approximate


@pytest.mark.spark
def test_trec_eval_ties_item_and_judged_counts(spark: Any) -> None:
    """ties="trec_eval" with a document id, and n_relevant: lp.evaluate's options travel."""
    log = _log(seed=9).with_columns(
        docno=pl.format("d{}", pl.int_range(pl.len()) % 97),
        n_rel=((pl.col("rel") > 0).sum().over("query") + 2).cast(pl.Int64),
    )
    sdf = spark.createDataFrame(log.to_arrow())
    metrics = ["P.5", "recall@10", "map@10", "ndcg_cut.5"]
    kwargs: dict[str, Any] = {
        "by": "query",
        "y_true": "rel",
        "y_score": "score",
        "ties": "trec_eval",
        "item": "docno",
        "n_relevant": "n_rel",
        "strict": False,
    }
    got = _collect(lps.evaluate(sdf, metrics, num_partitions=3, **kwargs), ["query"])
    expected = lp.evaluate(log, metrics, **kwargs)
    assert got.equals(expected)
    averaged = lp.evaluate(log, metrics, by="query", y_true="rel", y_score="score", strict=False)
    assert not got.equals(averaged)  # the options did change the numbers


@pytest.mark.spark
def test_multi_column_keys_null_key_and_null_scores(spark: Any) -> None:
    """Two key columns (one with nulls), null scores refused the same way."""
    rng = np.random.default_rng(7)
    rows = 800
    log = pl.DataFrame(
        {
            "user": pl.Series(rng.integers(0, 10, rows), dtype=pl.Int32),
            "session": [f"s{s}" if s else None for s in rng.integers(0, 6, rows)],
            "rel": rng.integers(0, 2, rows).astype(bool),
            "score": [None if u < 0.01 else float(u // 0.1) for u in rng.random(rows)],
        }
    )
    assert log["score"].null_count() > 0
    sdf = spark.createDataFrame(log.to_arrow())
    metrics = ["ndcg@5", "ap", "rr@3"]
    keys = ["user", "session"]
    got = _collect(
        lps.evaluate(
            sdf, metrics, by=keys, y_true="rel", y_score="score", strict=False, num_partitions=4
        ),
        keys,
    )
    expected = lp.evaluate(log, metrics, by=keys, y_true="rel", y_score="score", strict=False)
    assert expected["ap"].null_count() > 0  # the groups holding a null score
    assert expected["session"].null_count() > 0  # a null key is a group too
    assert got.equals(expected)


def _refusing_log() -> pl.DataFrame:
    """60 queries of 10 documents, binary relevance but for four queries holding a 2.

    `ap` refuses exactly those four; `ndcg` refuses none.
    """
    rng = np.random.default_rng(11)
    query = np.repeat(np.arange(60), 10)
    rel = (np.arange(600) % 3 == 0).astype(np.int64)
    bad = np.isin(query, [0, 1, 13, 29]) & (rel == 1)
    return pl.DataFrame(
        {
            "query": [f"q{q:03d}" for q in query],
            "rel": np.where(bad, 2, rel),
            "score": rng.integers(0, 4, 600) / 4.0,
        }
    )


@pytest.mark.spark
def test_strict_names_refused_groups_from_every_partition(spark: Any) -> None:
    """strict=True names the refused groups of all partitions, with the reason."""
    from pyspark.sql import functions

    log = _refusing_log()
    sdf = spark.createDataFrame(log.to_arrow())
    # the refused groups sit in different partitions (the same hash repartition uses)
    placed = (
        sdf.repartition(4, "query")
        .withColumn("part", functions.spark_partition_id())
        .filter(functions.col("query").isin("q000", "q001", "q013", "q029"))
        .select("part")
        .distinct()
        .count()
    )
    assert placed >= 2
    with pytest.raises(lp.RefusedGroupError) as raised:
        lps.evaluate(
            sdf, ["ndcg", "ap"], by="query", y_true="rel", y_score="score", num_partitions=4
        )
    message = str(raised.value)
    assert "per metric: 'ap' 4;" in message
    for group in ["q000", "q001", "q013", "q029"]:
        assert f"query={group!r}: average_precision needs a binary y_true" in message
    assert "'ndcg'" not in message.split(";")[0]


@pytest.mark.spark
def test_not_strict_gives_null_for_refused_groups(spark: Any) -> None:
    """strict=False: null for exactly the refused groups."""
    log = _refusing_log()
    sdf = spark.createDataFrame(log.to_arrow())
    got = _collect(
        lps.evaluate(
            sdf,
            ["ndcg", "ap"],
            by="query",
            y_true="rel",
            y_score="score",
            strict=False,
            num_partitions=4,
        ),
        ["query"],
    )
    expected = lp.evaluate(
        log, ["ndcg", "ap"], by="query", y_true="rel", y_score="score", strict=False
    )
    assert got.equals(expected)
    assert got.filter(pl.col("ap").is_null())["query"].to_list() == ["q000", "q001", "q013", "q029"]


@pytest.mark.spark
def test_weights_and_means(spark: Any) -> None:
    """Weights carried per group; means (weighted or not) within 1e-12 of lp's."""
    log = _refusing_log()
    weights = pl.DataFrame({"query": log["query"].unique()}).with_columns(
        w=(pl.col("query").str.slice(1).cast(pl.Int64) % 5 + 1).cast(pl.Float64)
    )
    log = log.join(weights, on="query")
    sdf = spark.createDataFrame(log.to_arrow())
    metrics = ["ndcg@10", "ap", "P.5"]
    kwargs: dict[str, Any] = {
        "by": "query",
        "y_true": "rel",
        "y_score": "score",
        "weight": "w",
        "strict": False,
    }
    got = _collect(lps.evaluate(sdf, metrics, num_partitions=3, **kwargs), ["query"])
    assert got.equals(lp.evaluate(log, metrics, **kwargs))
    for weight in ["w", None]:
        kwargs["weight"] = weight
        means = lps.evaluate(sdf, metrics, num_partitions=3, mean=True, **kwargs).collect()
        assert len(means) == 1
        expected = lp.evaluate(log, metrics, mean=True, **kwargs).row(0, named=True)
        for name in metrics:
            assert math.isclose(means[0][name], expected[name], rel_tol=1e-12, abs_tol=0.0)


@pytest.mark.spark
def test_weights_summing_to_zero(spark: Any) -> None:
    """Zero weights: lp.evaluate's ZeroDivisionError and sentence."""
    log = _log(seed=3, groups=5, rows=40).with_columns(w=pl.lit(0.0))
    sdf = spark.createDataFrame(log.to_arrow())
    kwargs: dict[str, Any] = {"by": "query", "y_true": "rel", "y_score": "score", "weight": "w"}
    with pytest.raises(ZeroDivisionError, match="metric 'rr': Weights sum to zero"):
        lp.evaluate(log, ["rr"], mean=True, **kwargs)
    with pytest.raises(ZeroDivisionError, match="metric 'rr': Weights sum to zero"):
        lps.evaluate(sdf, ["rr"], mean=True, num_partitions=2, **kwargs)


@pytest.mark.spark
def test_default_partitioning(spark: Any) -> None:
    """About partition_rows rows a partition when num_partitions is not given."""
    log = _log(seed=5, groups=40, rows=400)
    log = log.filter(pl.len().over("query") > 1)  # ndcg refuses one-document queries
    sdf = spark.createDataFrame(log.to_arrow())
    kwargs: dict[str, Any] = {"by": "query", "y_true": "rel", "y_score": "score"}
    result = lps.evaluate(sdf, ["ndcg@5"], **kwargs)  # under 400 rows: one partition
    assert result.rdd.getNumPartitions() == 1
    assert _collect(result, ["query"]).equals(lp.evaluate(log, ["ndcg@5"], **kwargs))
    # 301 to 400 rows at 150 a partition: three ("ndcg" is uncut: no group is split)
    result = lps.evaluate(sdf, ["ndcg"], partition_rows=150, strict=False, **kwargs)
    assert result.rdd.getNumPartitions() == 3


@pytest.mark.spark
def test_bad_input_is_refused_on_the_driver(spark: Any) -> None:
    """Bad input fails on the driver with lp.evaluate's sentences."""
    log = _log(seed=2, groups=5, rows=30)
    sdf = spark.createDataFrame(log.to_arrow())
    kwargs: dict[str, Any] = {"by": "query", "y_true": "rel", "y_score": "score"}
    with pytest.raises(ValueError, match=r"`y_score` column 'scor' is not in the frame"):
        lps.evaluate(sdf, ["rr"], by="query", y_true="rel", y_score="scor")
    with pytest.raises(ValueError, match=r"`by\[1\]` column 'user' is not in the frame"):
        lps.evaluate(sdf, ["rr"], by=["query", "user"], y_true="rel", y_score="score")
    with pytest.raises(lp.InvalidParameterError, match="unknown metric 'ndgc@10'"):
        lps.evaluate(sdf, ["ndgc@10"], **kwargs)
    with pytest.raises(ValueError, match="`y_true` column 'query' must be numeric"):
        lps.evaluate(sdf, ["rr"], by="query", y_true="query", y_score="score")
    with pytest.raises(
        lp.InvalidParameterError,
        match=re.escape(
            "The 'num_partitions' parameter of evaluate must be an int in the range [1, inf) "
            "or None. Got 0 instead."
        ),
    ):
        lps.evaluate(sdf, ["rr"], num_partitions=0, **kwargs)
    with pytest.raises(
        lp.InvalidParameterError,
        match=re.escape(
            "The 'large_group_rows' parameter of evaluate must be an int in the range [1, inf), "
            "math.inf or None. Got 0 instead."
        ),
    ):
        lps.evaluate(sdf, ["rr@5"], large_group_rows=0, **kwargs)
    with pytest.raises(ValueError, match=r"cannot be scored in two stages here: .* not \['ap'\]"):
        lps.evaluate(sdf, ["rr@5", "ap"], large_group_rows=100, **kwargs)
    with pytest.raises(TypeError, match="`sdf` must be a pyspark.sql.DataFrame, got DataFrame"):
        lps.evaluate(log, ["rr"], **kwargs)  # type: ignore[arg-type]


@pytest.mark.spark
def test_worker_without_lodestar_polars_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker lacking the package gets a sentence saying what to install."""
    import pyarrow as pa
    from pyspark import cloudpickle

    fields: list[tuple[str, pa.DataType]] = [("query", pa.string()), ("rr", pa.float64())]
    schema = pa.schema(fields)
    run = _partition_evaluator(["rr"], ["query"], "rel", "score", None, schema)
    # as Spark ships it to a worker (pyspark's cloudpickle is untyped)
    shipped = cloudpickle.dumps(run)  # type: ignore[no-untyped-call]
    for name in [m for m in sys.modules if m.startswith("lodestar_polars")]:
        monkeypatch.setitem(sys.modules, name, None)  # a worker without the package
    on_worker = cloudpickle.loads(shipped)  # unpickling imports nothing of ours
    batch = pa.record_batch({"query": ["a"], "rel": [1], "score": [0.5]})
    with pytest.raises(ImportError, match="lodestar_polars is not importable on this Spark worker"):
        list(on_worker(iter([batch])))


def test_without_pyspark_says_to_install_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """No pyspark: one sentence naming the extra."""
    monkeypatch.setitem(sys.modules, "pyspark", None)
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    with pytest.raises(
        ImportError, match=r'install the extra, pip install "lodestar-polars\[spark\]"'
    ):
        lps.evaluate(None, ["rr"], by="query", y_true="rel", y_score="score")  # type: ignore[arg-type]


def test_importing_the_package_imports_no_pyspark() -> None:
    """pyspark (and pandas) are imported only when the Spark path is used."""
    code = (
        "import sys, lodestar_polars, lodestar_polars.spark; "
        "assert not [m for m in sys.modules if m.startswith(('pyspark', 'pandas'))]"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("name", sorted(lps.__all__))
def test_public_name_has_its_page(name: str) -> None:
    """Every public name of lodestar_polars.spark is on docs/spark.md, with a docstring."""
    page = (Path(__file__).resolve().parents[1] / "docs" / "spark.md").read_text()
    assert f"lodestar_polars.spark.{name}" in page or f"`{name}`" in page, name
    if callable(getattr(lps, name)):
        assert getattr(lps, name).__doc__


@pytest.mark.spark
def test_partition_too_large_for_the_worker_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A MemoryError in a task (a capped Python worker) names the rows and the settings."""
    import pyarrow as pa

    def out_of_memory(*args: object, **kwargs: object) -> None:
        raise MemoryError

    fields: list[tuple[str, pa.DataType]] = [("query", pa.string()), ("rr", pa.float64())]
    schema = pa.schema(fields)
    run = _partition_evaluator(["rr"], ["query"], "rel", "score", None, schema)
    batch = pa.record_batch({"query": ["a", "a", "b"], "rel": [1, 0, 1], "score": [0.5, 0.1, 0.2]})
    assert pa.Table.from_batches(list(run(iter([batch])))).num_rows == 2  # as it runs normally
    monkeypatch.setattr(lp, "evaluate", out_of_memory)
    with pytest.raises(
        MemoryError, match=r"a partition of 3 rows does not fit .* one group must fit"
    ):
        list(run(iter([batch])))


def _skewed_log(seed: int) -> pl.DataFrame:
    """One query of 6,000 rows among 40 small ones; tied scores, graded relevance, weights."""
    rng = np.random.default_rng(seed)
    rows = 8000
    query = np.where(rng.random(rows) < 0.75, 0, rng.integers(1, 41, rows))
    return pl.DataFrame(
        {
            "query": [f"q{q:02d}" for q in query],
            "rel": rng.integers(0, 4, rows) * (rng.random(rows) < 0.3),
            "score": rng.integers(0, 60, rows).astype(np.float64),
            "docno": [f"d{i}" for i in rng.permutation(rows)],
        }
    ).with_columns(w=pl.col("query").str.slice(1).cast(pl.Float64) + 1.0)


@pytest.mark.spark
@pytest.mark.parametrize("ties", ["average", "trec_eval"])
def test_a_group_larger_than_large_group_rows_is_split_exactly(spark: Any, ties: str) -> None:
    """The 6,000-row query scored in two stages equals lp.evaluate on the whole query."""
    log = _skewed_log(seed=3)
    assert log.group_by("query").len()["len"].max() == log.filter(pl.col("query") == "q00").height
    sdf = spark.createDataFrame(log.to_arrow()).repartition(3)  # the big query over 3 partitions
    metrics = ["ndcg@10", "dcg@5", "P@5", "recall@20", "rr@10", "map@10", "hit_rate@3"]
    kwargs: dict[str, Any] = {
        "by": "query",
        "y_true": "rel",
        "y_score": "score",
        "weight": "w",
        "ties": ties,
        "item": "docno" if ties == "trec_eval" else None,
    }
    got = _collect(lps.evaluate(sdf, metrics, large_group_rows=1000, **kwargs), ["query"])
    expected = lp.evaluate(log, metrics, **kwargs)
    assert got.schema == expected.schema
    assert got.select("query", "w").equals(expected.select("query", "w"))
    for name in metrics:  # the split query's values within rounding, the others identical
        assert np.allclose(got[name], expected[name], rtol=1e-12, atol=0), name
    small = pl.col("query") != "q00"
    assert got.filter(small).equals(expected.filter(small))
    means = lps.evaluate(sdf, metrics, large_group_rows=1000, mean=True, **kwargs).toArrow()
    expected_means = lp.evaluate(log, metrics, mean=True, **kwargs)
    for name in metrics:
        assert math.isclose(means[name][0].as_py(), expected_means[name].item(), rel_tol=1e-12)


@pytest.mark.spark
def test_split_by_default_above_partition_rows(spark: Any) -> None:
    """With every metric cut at k, a group over partition_rows rows is split by default."""
    log = _skewed_log(seed=4)
    sdf = spark.createDataFrame(log.to_arrow()).repartition(2)
    kwargs: dict[str, Any] = {"by": "query", "y_true": "rel", "y_score": "score"}
    split = lps.evaluate(sdf, ["ndcg@10", "rr@5"], partition_rows=2000, strict=False, **kwargs)
    # the plan scores the whole groups (one mapInArrow) and the split one (two more)
    plan = split._jdf.queryExecution().executedPlan().toString()
    assert plan.count("MapInArrow") == 3, plan
    whole = lps.evaluate(sdf, ["ndcg@10", "rr@5"], partition_rows=10_000, strict=False, **kwargs)
    assert whole._jdf.queryExecution().executedPlan().toString().count("MapInArrow") == 1
    got = _collect(split, ["query"])
    expected = lp.evaluate(log, ["ndcg@10", "rr@5"], **kwargs)
    assert np.allclose(got["ndcg@10"], expected["ndcg@10"], rtol=1e-12, atol=0)
    assert np.allclose(got["rr@5"], expected["rr@5"], rtol=1e-12, atol=0)


@pytest.mark.spark
def test_a_split_group_is_refused_for_its_own_reason(spark: Any) -> None:
    """A NaN relevance in the big query (in no top k): refused, named, the reason given."""
    log = _skewed_log(seed=5)
    low = log.filter(pl.col("query") == "q00")["score"].arg_min()
    assert low is not None  # q00 has rows
    row = log.with_row_index().filter(pl.col("query") == "q00")["index"][low]
    log = log.with_columns(
        rel=pl.when(pl.int_range(pl.len()) == row).then(float("nan")).otherwise(pl.col("rel"))
    )
    sdf = spark.createDataFrame(log.to_arrow()).repartition(3)
    kwargs: dict[str, Any] = {"by": "query", "y_true": "rel", "y_score": "score"}
    lenient = _collect(
        lps.evaluate(sdf, ["ndcg@10"], large_group_rows=1000, strict=False, **kwargs), ["query"]
    )
    assert lenient.filter(pl.col("ndcg@10").is_null())["query"].to_list() == ["q00"]
    with pytest.raises(lp.RefusedGroupError) as caught:
        lps.evaluate(sdf, ["ndcg@10"], large_group_rows=1000, **kwargs)
    with pytest.raises(lp.RefusedGroupError) as whole:
        lp.evaluate(log, ["ndcg@10"], **kwargs)
    assert "'ndcg@10' 1" in str(caught.value)
    assert str(whole.value) in str(caught.value)  # the same group, the same reason


def _spy(monkeypatch: pytest.MonkeyPatch, cls: type, name: str) -> list[int]:
    """Count the driver's calls of ``cls.<name>``.

    ``cls`` is the session's concrete DataFrame class (pyspark 4's classic
    DataFrame overrides the methods of ``pyspark.sql.DataFrame``).
    """
    calls: list[int] = []
    original = getattr(cls, name)

    def spy(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, spy)
    return calls


@pytest.mark.spark
def test_large_group_rows_inf_splits_nothing_and_counts_no_groups(
    spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """math.inf: the values of the routed path and of lp.evaluate, without the count per group."""
    log = _log(seed=6, groups=30, rows=300)
    log = log.filter(pl.len().over("query") > 1)  # ndcg refuses one-document queries
    sdf = spark.createDataFrame(log.to_arrow())
    metrics = ["ndcg@5", "rr@10", "P@3"]
    kwargs: dict[str, Any] = {"by": "query", "y_true": "rel", "y_score": "score"}
    expected = lp.evaluate(log, metrics, **kwargs)
    group_by = _spy(monkeypatch, type(sdf), "groupBy")
    count = _spy(monkeypatch, type(sdf), "count")
    routed = lps.evaluate(sdf, metrics, large_group_rows=2**62, strict=False, **kwargs)
    assert group_by  # the routing counts rows per group (and sums the counts: agg)
    assert not count
    group_by.clear()
    unrouted = lps.evaluate(sdf, metrics, large_group_rows=math.inf, strict=False, **kwargs)
    assert (len(group_by), len(count)) == (0, 1)  # only the plain count of rows
    count.clear()
    given = lps.evaluate(
        sdf, metrics, large_group_rows=math.inf, num_partitions=2, strict=False, **kwargs
    )
    assert (len(group_by), len(count)) == (0, 0)  # no count at all
    monkeypatch.undo()
    assert unrouted.rdd.getNumPartitions() == routed.rdd.getNumPartitions()
    assert _collect(routed, ["query"]).equals(expected)
    assert _collect(unrouted, ["query"]).equals(expected)  # bit for bit
    assert _collect(given, ["query"]).equals(expected)


@pytest.mark.spark
def test_large_group_rows_inf_keeps_a_large_group_whole(spark: Any) -> None:
    """A group the default would split is scored whole; metrics that cannot split are accepted."""
    log = _skewed_log(seed=7)
    sdf = spark.createDataFrame(log.to_arrow()).repartition(2)
    kwargs: dict[str, Any] = {"by": "query", "y_true": "rel", "y_score": "score"}
    whole = lps.evaluate(
        sdf, ["ndcg@10"], partition_rows=2000, large_group_rows=math.inf, strict=False, **kwargs
    )  # by default the 6,000-row query would be split at 2,000 rows
    assert whole._jdf.queryExecution().executedPlan().toString().count("MapInArrow") == 1
    assert _collect(whole, ["query"]).equals(lp.evaluate(log, ["ndcg@10"], **kwargs))
    metrics = ["rr@5", "ndcg"]  # uncut ndcg reads every row: an int is refused, inf is not
    got = lps.evaluate(sdf, metrics, large_group_rows=math.inf, num_partitions=2, **kwargs)
    assert _collect(got, ["query"]).equals(lp.evaluate(log, metrics, **kwargs))


@pytest.mark.spark
@pytest.mark.parametrize("value", [2.5, float("nan"), True, 0.5, -math.inf, 3.0])
def test_large_group_rows_neither_int_nor_inf_is_refused(spark: Any, value: Any) -> None:
    """Another float, NaN or a bool: refused naming the rule and the value, before a job."""
    sdf = spark.createDataFrame(_log(seed=2, groups=5, rows=30).to_arrow())
    kwargs: dict[str, Any] = {"by": "query", "y_true": "rel", "y_score": "score"}
    sentence = (
        "The 'large_group_rows' parameter of evaluate must be an int in the range [1, inf), "
        f"math.inf or None. Got {value!r} instead."
    )
    with pytest.raises(lp.InvalidParameterError, match="math.inf or None") as caught:
        lps.evaluate(sdf, ["rr@5"], large_group_rows=value, **kwargs)
    assert str(caught.value) == sentence
    if value == 2.5:  # the sentence docs/refusals.md quotes
        page = (Path(__file__).parent.parent / "docs" / "refusals.md").read_text()
        assert sentence in page


TREC = Path(__file__).parent / "data" / "trec_eval"


@pytest.mark.spark
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"complete": True, "relevance_level": 2},
        {"max_docs": 20, "float32_scores": True},
    ],
)
def test_trec_evaluate_equals_lp_trec(spark: Any, options: dict[str, Any]) -> None:
    """trec_eval's own test run and qrels: per query bit for bit, ``all`` to 1e-12."""
    qrels = lp.trec.read_qrels(TREC / "qrels.test").select("qid", "docno", "rel").collect()
    run = lp.trec.read_run(TREC / "results.test").select("qid", "docno", "score").collect()
    measures = ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank"]
    measures += ["P.5,10", "ndcg_cut.10", "ndcg", "ndcg@10", "success.1"]
    measures += ["bpref", "infAP", "iprec_at_recall..5", "num_nonrel_judged_ret", "set_F"]
    got = lps.trec_evaluate(
        spark.createDataFrame(qrels.to_arrow()),
        spark.createDataFrame(run.to_arrow()).repartition(3),
        measures,
        per_query=True,
        num_partitions=3,
        **options,
    ).toArrow()
    got_frame = pl.from_arrow(got)
    assert isinstance(got_frame, pl.DataFrame)
    expected = lp.trec.evaluate(qrels, run, measures, per_query=True, wide=True, **options)
    assert got_frame.columns == expected.columns
    queries = got_frame.filter(pl.col("qid") != "all").sort("qid")
    assert queries.equals(expected.filter(pl.col("qid") != "all").sort("qid"))
    assert got_frame["qid"][-1] == "all"
    for name in expected.columns[1:]:
        assert math.isclose(got_frame[name][-1], expected[name][-1], rel_tol=1e-12), name
    mean_only = lps.trec_evaluate(
        spark.createDataFrame(qrels.to_arrow()),
        spark.createDataFrame(run.to_arrow()),
        measures,
        **options,
    ).toArrow()
    assert mean_only.num_rows == 1
    assert mean_only.column("map")[0].as_py() == got_frame["map"][-1]


@pytest.mark.spark
def test_trec_evaluate_refuses_the_geometric_means_and_text(spark: Any) -> None:
    qrels = spark.createDataFrame(
        pl.DataFrame({"qid": ["q"], "docno": ["d"], "rel": [1]}).to_arrow()
    )
    run = spark.createDataFrame(
        pl.DataFrame({"qid": ["q"], "docno": ["d"], "score": [1.0]}).to_arrow()
    )
    with pytest.raises(ValueError, match=r"\['gm_map'\]: trec_eval's geometric means"):
        lps.trec_evaluate(qrels, run, ["map", "gm_map"])
    with pytest.raises(ValueError, match=r"\['relstring'\]: trec_eval's text measures"):
        lps.trec_evaluate(qrels, run, ["map", "relstring"])


@pytest.mark.spark
def test_trec_evaluate_bad_input(spark: Any) -> None:
    """Missing columns, unknown measures, no judged query: said on the driver."""
    qrels = spark.createDataFrame(
        pl.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [1]}).to_arrow()
    )
    run = spark.createDataFrame(
        pl.DataFrame({"qid": ["2"], "docno": ["a"], "score": [1.0]}).to_arrow()
    )
    with pytest.raises(ValueError, match=r"`run` must have the columns .* missing \['score'\]"):
        lps.trec_evaluate(qrels, run.drop("score"), ["map"])
    with pytest.raises(ValueError, match="unknown"):
        lps.trec_evaluate(qrels, run, ["mapp"])
    with pytest.raises(ValueError, match="no query to evaluate"):
        lps.trec_evaluate(qrels, run, ["map"])


@pytest.mark.spark
def test_evaluate_old_name_doc_id_warns(spark: Any) -> None:
    """``doc_id`` is the old name of ``item``: the same values, with a FutureWarning."""
    log = _log(seed=9, groups=6, rows=40).with_columns(
        docno=pl.format("d{}", pl.int_range(pl.len()) % 7)
    )
    sdf = spark.createDataFrame(log.to_arrow())
    kwargs: dict[str, Any] = {"by": "query", "y_true": "rel", "y_score": "score"}
    kwargs.update(ties="trec_eval", strict=False, num_partitions=2)
    new = _collect(lps.evaluate(sdf, ["P.5", "map@10"], item="docno", **kwargs), ["query"])
    with pytest.warns(FutureWarning, match="`doc_id` is renamed `item`"):
        # the old name is no longer in the signature: @renamed maps it to `item`
        old = lps.evaluate(sdf, ["P.5", "map@10"], doc_id="docno", **kwargs)  # type: ignore[call-arg]
    assert _collect(old, ["query"]).equals(new)


@pytest.mark.spark
def test_evaluate_trec_eval_s_judged_run_measures(spark: Any) -> None:
    """bpref, infAP and interpolated precision on Spark: lp.evaluate's numbers, per query."""
    qrels = lp.trec.read_qrels(TREC / "qrels.test").select("qid", "docno", "rel").collect()
    run = lp.trec.read_run(TREC / "results.test").select("qid", "docno", "score").collect()
    per_query = qrels.group_by("qid").agg(
        n_rel=(pl.col("rel") >= 1).sum().cast(pl.Int64),
        judged=pl.col("rel").filter(pl.col("rel") >= 0),
    )
    rel = pl.col("rel")
    frame = (
        run.join(qrels, on=["qid", "docno"], how="left")
        .with_columns(
            pl.when(rel.is_null()).then(-1).when(rel < 0).then(-2).otherwise(rel).alias("rel")
        )
        .join(per_query, on="qid")
    )
    names = ["bpref", "infAP", "iprec_at_recall@0.5"]
    options: dict[str, Any] = {
        "by": "qid",
        "y_true": "rel",
        "y_score": "score",
        "ties": "trec_eval",
        "item": "docno",
        "n_relevant": "n_rel",
        "judged": "judged",
    }
    got = pl.from_arrow(
        lps.evaluate(spark.createDataFrame(frame.to_arrow()), names, **options).toArrow()
    )
    assert isinstance(got, pl.DataFrame)
    expected = lp.evaluate(frame, names, **options)
    assert got.sort("qid").equals(expected.sort("qid"))
