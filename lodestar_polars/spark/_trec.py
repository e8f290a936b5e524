"""`lodestar_polars.spark.trec_evaluate`: `lp.trec.evaluate` on a run and its qrels on Spark."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa
    from pyspark.sql import DataFrame as SparkDataFrame

from lodestar_polars.spark._common import (
    _MIN_PARTITION_ROWS,
    _NOT_ON_WORKER,
    DEFAULT_PARTITION_ROWS,
    _pyspark,
    _quoted,
)

_RUN = "__lodestar_from_run"
"""Marks a run row (true) or a qrels row (false) in the union both travel in."""


def _trec_partition_evaluator(
    measures: str | Sequence[str], options: dict[str, Any], schema: pa.Schema
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """Each task: its queries' qrels and run rows, one ``lp.trec.evaluate``, per-query rows."""
    complete = bool(options.get("complete"))

    def evaluate_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import sys

        try:
            import polars
            import pyarrow

            import lodestar_polars
        except ImportError as error:
            msg = _NOT_ON_WORKER.format(python=sys.executable, error=error)
            raise ImportError(msg) from error
        received = list(batches)
        if not received:
            return
        rows = polars.from_arrow(pyarrow.Table.from_batches(received))
        assert isinstance(rows, polars.DataFrame)
        run = rows.filter(polars.col(_RUN)).select("qid", "docno", "score")
        qrels = rows.filter(~polars.col(_RUN)).select("qid", "docno", "rel")
        judged = qrels["qid"].unique()
        if qrels.is_empty() or not (complete or run["qid"].is_in(judged.implode()).any()):
            return  # no query of this partition is evaluated
        result = lodestar_polars.trec.evaluate(
            qrels, run, measures, per_query=True, wide=True, **options
        )
        per_query = result.head(result.height - 1)  # the last row is "all"
        yield from per_query.to_arrow().cast(schema).to_batches()

    return evaluate_partition


def trec_evaluate(
    qrels: SparkDataFrame,
    run: SparkDataFrame,
    measures: str | Sequence[str] = "official",
    *,
    per_query: bool = False,
    complete: bool = False,
    relevance_level: int = 1,
    max_docs: int | None = None,
    float32_scores: bool = False,
    num_partitions: int | None = None,
    partition_rows: int = DEFAULT_PARTITION_ROWS,
) -> SparkDataFrame:
    """Score a run against its judgments as trec_eval does, on Spark DataFrames.

    :func:`lodestar_polars.trec.evaluate` per partition: the qrels and the run
    rows travel together, repartitioned by query id, so each task holds every
    judgment and every ranked document of its queries and scores them with one
    ``lp.trec.evaluate`` call (trec_eval's ranking, relevance level, judged
    ideal and counts).  The ``all`` row is computed with Spark aggregates over
    the per-query rows, as trec_eval computes it: the mean over the evaluated
    queries, the sum for ``num_ret``, ``num_rel`` and ``num_rel_ret``, the
    count for ``num_q``.

    Parameters
    ----------
    qrels
        A ``pyspark.sql.DataFrame`` with columns ``qid``, ``docno`` and
        ``rel`` (an integer); ids of any type are compared as text.
    run
        A ``pyspark.sql.DataFrame`` with columns ``qid``, ``docno`` and ``score``.
    measures, complete, relevance_level, max_docs, float32_scores
        As :func:`lodestar_polars.trec.evaluate` reads them.
    per_query : bool, default=False
        Return one row per evaluated query, then the ``all`` row; otherwise
        the ``all`` row alone.
    num_partitions, partition_rows
        As :func:`evaluate` reads them (the rows counted are the run's and
        the qrels' together).

    Returns
    -------
    pyspark.sql.DataFrame
        Wide, as ``lp.trec.evaluate(..., wide=True)``: ``qid`` (a string) and
        one DOUBLE column per measure, named as there (``P_10``,
        ``ndcg_cut_10``, ``ndcg@10``); ``num_q`` is null on query rows.  The
        per-query rows are in no particular order, the ``all`` row last.

    Raises
    ------
    ImportError
        pyspark is not installed (install the ``spark`` extra).
    ValueError
        A missing column, an unknown measure or bad option (checked on the
        driver, with ``lp.trec.evaluate``'s sentences), or no query to
        evaluate; from a task (as ``pyspark.errors.PythonException``), a
        document listed twice in one query or a null or non-finite score.

    Examples
    --------
    With a Spark session ``spark`` (``docs/spark.md``)::

        import lodestar_polars.spark

        qrels = spark.read.parquet("qrels.parquet")  # qid, docno, rel
        run = spark.read.parquet("run.parquet")  # qid, docno, score
        lodestar_polars.spark.trec_evaluate(qrels, run, ["map", "ndcg_cut.10", "P.10"])
    """
    functions = _pyspark()
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import DoubleType, StringType, StructField, StructType

    from lodestar_polars import trec

    for name, frame in (("qrels", qrels), ("run", run)):
        if not isinstance(frame, SparkDataFrame):
            msg = f"`{name}` must be a pyspark.sql.DataFrame, got {type(frame).__name__}"
            raise TypeError(msg)
    for name, frame, needed in (
        ("qrels", qrels, ("qid", "docno", "rel")),
        ("run", run, ("qid", "docno", "score")),
    ):
        missing = [c for c in needed if c not in frame.columns]
        if missing:
            msg = (
                f"`{name}` must have the columns {list(needed)}; missing {missing} "
                f"(columns: {frame.columns})"
            )
            raise ValueError(msg)
    if num_partitions is not None and num_partitions < 1:
        msg = f"`num_partitions` must be at least 1, got {num_partitions}"
        raise ValueError(msg)
    if partition_rows < 1:
        msg = f"`partition_rows` must be at least 1, got {partition_rows}"
        raise ValueError(msg)
    options: dict[str, Any] = {
        "complete": complete,
        "relevance_level": relevance_level,
        "max_docs": max_docs,
        "float32_scores": float32_scores,
    }
    # measure names and options checked on the driver, on one judged document
    shape = trec.evaluate(
        pl.DataFrame({"qid": ["q"], "docno": ["d"], "rel": [1]}),
        pl.DataFrame({"qid": ["q"], "docno": ["d"], "score": [1.0]}),
        measures,
        per_query=True,
        wide=True,
        **options,
    )
    parsed = trec.parse_measures(measures)
    kinds = {m.label: m.kind for m in parsed}
    geometric = [m.label for m in parsed if m.measure.aggregate == "gmean"]
    if geometric:
        msg = (
            f"measures {geometric}: trec_eval's geometric means (gm_map, gm_bpref) are not "
            "offered on Spark (their per-query values are not written); use lp.trec.evaluate"
        )
        raise ValueError(msg)
    counts = {m.label for m in parsed if m.measure.is_count}
    out = StructType(
        [StructField("qid", StringType(), True)]
        + [StructField(c, DoubleType(), True) for c in shape.columns[1:]]
    )
    text = StringType()
    rows = run.select(
        functions.col("qid").cast(text).alias("qid"),
        functions.col("docno").cast(text).alias("docno"),
        functions.col("score").cast(DoubleType()).alias("score"),
        functions.lit(None).cast("long").alias("rel"),
        functions.lit(True).alias(_RUN),
    ).unionByName(
        qrels.select(
            functions.col("qid").cast(text).alias("qid"),
            functions.col("docno").cast(text).alias("docno"),
            functions.lit(None).cast(DoubleType()).alias("score"),
            functions.col("rel").cast("long").alias("rel"),
            functions.lit(False).alias(_RUN),
        )
    )
    if num_partitions is None:
        count = rows.count()
        parallelism = run.sparkSession.sparkContext.defaultParallelism
        num_partitions = max(
            1,
            math.ceil(count / partition_rows),
            min(parallelism, count // _MIN_PARTITION_ROWS),
        )
    job = _trec_partition_evaluator(measures, options, to_arrow_schema(out))
    queries = rows.repartition(num_partitions, functions.col("qid")).mapInArrow(job, out).persist()
    aggregates = []
    for label in shape.columns[1:]:
        column = functions.col(_quoted(label))
        if kinds[label] == "num_q":
            value = functions.count(functions.lit(1))
        elif label in counts:  # num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret
            value = functions.sum(column)
        else:
            value = functions.avg(column)
        aggregates.append(value.cast(DoubleType()).alias(label))
    summary = queries.agg(*aggregates)
    first = summary.first()
    if first is None or not queries.limit(1).count():
        msg = "no query to evaluate: no query of the run has judgments"
        raise ValueError(msg)
    all_row = summary.select(
        functions.lit("all").alias("qid"), *(functions.col(_quoted(c)) for c in summary.columns)
    )
    if not per_query:
        return all_row
    return queries.unionByName(all_row)
