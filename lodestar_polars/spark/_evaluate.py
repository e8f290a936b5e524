"""`lodestar_polars.spark.evaluate`: `lp.evaluate` on each partition, means reduced on Spark."""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.validation import check_int
from lodestar_polars._evaluate import two_stage as _two_stage
from lodestar_polars._evaluate.evaluate import evaluate as _lp_evaluate
from lodestar_polars._metrics.ties import TieRule
from lodestar_polars.exceptions import InvalidParameterError, RefusedGroupError
from lodestar_polars.spark._common import (
    _MIN_PARTITION_ROWS,
    _SHOWN,
    DEFAULT_PARTITION_ROWS,
    _pyspark,
    _quoted,
)
from lodestar_polars.spark._tasks import _chunk_reducer, _partition_evaluator, _reduced_evaluator

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import Column
    from pyspark.sql import DataFrame as SparkDataFrame


@renamed(doc_id="item")
def evaluate(
    sdf: SparkDataFrame,
    metrics: Sequence[str],
    *,
    by: str | Sequence[str],
    y_true: str,
    y_score: str,
    weight: str | None = None,
    ties: TieRule = "average",
    item: str | None = None,
    n_relevant: str | None = None,
    judged: str | None = None,
    popularity: str | None = None,
    feature: str | None = None,
    popularity_rank: str | None = None,
    n_items: int | None = None,
    strict: bool = True,
    mean: bool = False,
    num_partitions: int | None = None,
    partition_rows: int = DEFAULT_PARTITION_ROWS,
    large_group_rows: int | float | None = None,
) -> SparkDataFrame:
    """Evaluate several metrics per group of a long Spark DataFrame.

    The metrics, names, options and numbers of :func:`lodestar_polars.evaluate`,
    computed by the Spark executors: the rows are repartitioned by the ``by``
    columns (a group is never split) and each partition is scored by one
    ``lp.evaluate`` call on its rows as a Polars frame (``mapInArrow``).

    Parameters
    ----------
    sdf
        A long ``pyspark.sql.DataFrame``: one row per (group, item).
    metrics
        Metric names, as :func:`lodestar_polars.evaluate` reads them
        (``"ndcg@10"``, ``"rr"``, ``"P.10"``, ``"map@100"``, ...).  Each becomes
        a DOUBLE column of that name.
    by
        The column(s) that identify a group (a query, a sample).
    y_true, y_score
        The relevance (or truth) and score columns.
    weight : str, default=None
        A per-group weight column (one value per group), carried into the
        result and used by ``mean=True``.
    ties, item, n_relevant, judged
        As :func:`lodestar_polars.evaluate` reads them (the tie rule, the
        item (document) id column trec_eval's tie order reads, the judged
        number of relevant documents per group, the judged relevances per
        group): the columns travel with the rows to the workers.  ``item``
        was called ``doc_id`` before 0.2.0 (the old name warns until 0.3.0).
    popularity, feature, popularity_rank, n_items
        The inputs of the beyond-accuracy metrics, as
        :func:`lodestar_polars.evaluate` reads them: per row, the served
        item's training popularity (``novelty``, ``arp``), its category or
        embedding (``ild``: a category of any type, or an ``ARRAY<DOUBLE>``
        column, which reaches Polars as a list, so the name gives its length,
        ``ild(dim=4)@10``) and its popularity rank (``serendipity``), and the
        catalogue's size (``serendipity``).  The columns travel with the rows;
        a metric without its input, or an input no metric reads, is refused on
        the driver with ``lp.evaluate``'s sentence.
    strict : bool, default=True
        Raise :class:`~lodestar_polars.RefusedGroupError` naming the groups a
        metric cannot score, collected from every partition (the first ten by
        key are named, with the reason), and how many each metric refused.
        With ``False`` those groups get null.
    mean : bool, default=False
        Return one row: each metric's mean over its scored groups (weighted by
        ``weight``), computed with Spark aggregates over the per-group result.
    num_partitions : int, default=None
        Partitions (tasks) to score the groups in.  By default about
        ``partition_rows`` rows each, and at least as many as the cluster's
        default parallelism when the data has 100,000 rows per core; the
        default costs one count of the input rows.
    partition_rows : int, default=2,000,000
        Rows per partition aimed at when ``num_partitions`` is not given.
    large_group_rows : int or math.inf, default=None
        Groups of more rows than this are scored in two stages, never whole
        in one task: each input partition keeps, per group, the rows that can
        reach the top ``k`` (the whole tie block at the cut), the ``k``
        largest gains and its count of relevant rows, and a second stage
        scores each group from those (exact: ``docs/spark.md``).  Only for
        metrics cut at ``k`` that read the top ``k`` alone (DCG, NDCG,
        precision, recall, hit rate, reciprocal rank, AP at k, each with
        ``@k``), with ``ties`` ``"average"`` or ``"trec_eval"`` and without
        ``n_relevant`` or ``judged``; a ``ValueError`` says which rule an
        explicit int breaks.  By default ``partition_rows`` when every
        metric qualifies (the default then costs one count of rows per group,
        in place of the count of all rows), and no group is split otherwise.
        ``math.inf`` splits no group, whatever the metrics, and skips the
        count of rows per group (the count of all rows remains when
        ``num_partitions`` is not given).  An int below 1, or any other float
        (NaN included) or a bool, is a ``ValueError``.

    Returns
    -------
    pyspark.sql.DataFrame
        One row per group (in no particular order): the ``by`` columns with
        their Spark types, the weight column if given, and one DOUBLE column
        per metric.  With ``mean=True``, one row of DOUBLE means.  When
        ``strict=True`` or ``mean=True`` the per-group result has been
        computed (and cached with ``persist()``) by the time this returns;
        otherwise it is a lazy plan like any Spark DataFrame.

    Raises
    ------
    ImportError
        pyspark is not installed (install the ``spark`` extra), or, from a
        task, lodestar_polars is not installed on a worker.
    InvalidParameterError
        An unknown metric name, or a cutoff on a metric that takes none; a
        beyond-accuracy metric without its input, or an input no metric
        reads; a column role that is not a column name.
    ValueError
        A missing column, a non-numeric ``y_true``/``y_score``/``weight``, a
        ``num_partitions`` or ``partition_rows`` below 1, a
        ``large_group_rows`` that is neither an int of at least 1 nor
        ``math.inf``, or an int ``large_group_rows`` for metrics or options
        that cannot be scored in two stages.
    RefusedGroupError
        With ``strict=True``, a group some metric refuses.
    ZeroDivisionError
        With ``mean=True`` and ``weight``, weights that sum to zero.
    pyspark.errors.PythonException
        A task failed: its message holds the worker's error, e.g. a weight
        that varies within a group (``lp.evaluate``'s ``ValueError``), a
        worker without lodestar_polars (``ImportError``) or a partition too
        large for the worker's memory (``MemoryError``).

    Notes
    -----
    One group must fit in one Python worker's memory (about 100 bytes a row
    while it is scored), except a group split in two stages
    (``large_group_rows``).  A worker that runs out raises ``MemoryError``
    naming the partition size when ``spark.executor.pyspark.memory`` caps the
    worker; without a cap the cluster manager kills the executor instead.

    Examples
    --------
    With a Spark session ``spark`` (``docs/spark.md`` shows how to start one)::

        import lodestar_polars.spark

        log = spark.read.parquet("eval_log.parquet")
        per_query = lodestar_polars.spark.evaluate(
            log, ["ndcg@10", "rr", "ap"], by="query", y_true="rel", y_score="score"
        )
        means = lodestar_polars.spark.evaluate(
            log, ["ndcg@10", "rr"], by="query", y_true="rel", y_score="score", mean=True
        )
    """
    functions = _pyspark()
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import DoubleType, LongType, StructField, StructType

    if not isinstance(sdf, SparkDataFrame):
        msg = f"`sdf` must be a pyspark.sql.DataFrame, got {type(sdf).__name__}"
        raise TypeError(msg)
    keys = [by] if isinstance(by, str) else list(by)
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    num_partitions = check_int(num_partitions, "num_partitions", "evaluate")
    partition_rows = cast(
        "int", check_int(partition_rows, "partition_rows", "evaluate", allow_none=False)
    )
    # math.inf: no group is split and the rows per group are not counted
    no_split = isinstance(large_group_rows, float) and large_group_rows == math.inf
    if large_group_rows is not None and not no_split:
        if (
            isinstance(large_group_rows, bool)
            or not isinstance(large_group_rows, numbers.Integral)
            or large_group_rows < 1
        ):
            msg = (
                "The 'large_group_rows' parameter of evaluate must be an int in the range "
                f"[1, inf), math.inf or None. Got {large_group_rows!r} instead."
            )
            raise InvalidParameterError(msg)
    columns = {f"by[{i}]": key for i, key in enumerate(keys)}
    columns.update(y_true=y_true, y_score=y_score)
    if weight is not None:
        columns["weight"] = weight
    optional = {
        "item": item,
        "n_relevant": n_relevant,
        "judged": judged,
        "popularity": popularity,
        "feature": feature,
        "popularity_rank": popularity_rank,
    }
    for role, column in optional.items():
        if column is not None and not isinstance(column, str):
            msg = (
                f"The {role!r} parameter of evaluate on Spark must be a column name or None. "
                f"Got {column!r} instead."
            )
            raise InvalidParameterError(msg)
    columns.update({role: c for role, c in optional.items() if c is not None})
    options: dict[str, Any] = {
        "ties": ties,
        **{r: c for r, c in optional.items() if c},
        **({"n_items": n_items} if n_items is not None else {}),
    }
    for role, column in columns.items():
        if column not in sdf.columns:
            msg = f"`{role}` column {column!r} is not in the frame (columns: {sdf.columns})"
            raise ValueError(msg)
    needed = list(dict.fromkeys(columns.values()))
    source = sdf.select(*(functions.col(_quoted(c)) for c in needed))

    # Every rule lp.evaluate checks before it reads a row (metric names,
    # options, dtypes, `by` not empty), checked here on the driver against an
    # empty frame of the same Arrow schema, so a mistake never reaches a task.
    arrow_in = to_arrow_schema(source.schema)
    empty = pl.from_arrow(arrow_in.empty_table())
    assert isinstance(empty, pl.DataFrame)
    shape = _lp_evaluate(
        empty, names, by=keys, y_true=y_true, y_score=y_score, weight=weight, **options
    )
    # the result's columns as lp.evaluate gives them: the input columns it
    # carries (keys, weight) with their Spark types, then one DOUBLE per metric
    out = StructType(
        [
            StructField(c, source.schema[c].dataType if c not in names else DoubleType(), True)
            for c in shape.columns
        ]
    )
    arrow_out = to_arrow_schema(out)

    # Groups too large for one task (two stages), when the metrics allow it.
    why_not = _two_stage.refusal(names, ties=ties, n_relevant=n_relevant, judged=judged)
    if large_group_rows is not None and not no_split and why_not is not None:
        msg = f"`large_group_rows`: a group cannot be scored in two stages here: {why_not}"
        raise ValueError(msg)
    threshold = large_group_rows if large_group_rows is not None else partition_rows
    parallelism = sdf.sparkSession.sparkContext.defaultParallelism
    run = _partition_evaluator(names, keys, y_true, y_score, weight, arrow_out, options)
    whole, split = source, None
    if why_not is None and not no_split:
        counts = source.groupBy(*(functions.col(_quoted(k)) for k in keys)).count().persist()
        large = counts.filter(functions.col("count") > threshold)
        total, large_rows, n_large = counts.agg(
            functions.sum("count"),
            functions.sum(
                functions.when(functions.col("count") > threshold, functions.col("count"))
            ),
            functions.count_if(functions.col("count") > threshold),
        ).first() or (0, None, 0)
        rows = int(total or 0) - int(large_rows or 0)
        if n_large:
            # the large groups' keys, brought to the driver (a few) and broadcast
            marked = large.select(
                *(functions.col(_quoted(k)).alias(f"__lodestar_key{i}") for i, k in enumerate(keys))
            )
            marked = sdf.sparkSession.createDataFrame(marked.collect(), schema=marked.schema)
            on = functools.reduce(
                lambda a, b: a & b,
                (
                    source[_quoted(k)].eqNullSafe(marked[f"__lodestar_key{i}"])
                    for i, k in enumerate(keys)
                ),
            )
            marked = functions.broadcast(marked)
            whole = source.join(marked, on=on, how="left_anti")
            split = source.join(marked, on=on, how="left_semi")
        counts.unpersist()
    elif num_partitions is None:
        rows = source.count()
    if num_partitions is None:
        num_partitions = max(
            1,
            math.ceil(rows / partition_rows),
            min(parallelism, rows // _MIN_PARTITION_ROWS),
        )
    per_group = whole.repartition(
        num_partitions, *(functions.col(_quoted(k)) for k in keys)
    ).mapInArrow(run, out)
    kept = None
    if split is not None:
        kept_type = StructType(
            [*source.schema.fields, StructField(_two_stage.RELEVANT, LongType())]
        )
        reduce = _chunk_reducer(
            names,
            keys,
            y_true,
            y_score,
            weight,
            options,
            to_arrow_schema(kept_type),
            partition_rows,
        )
        kept = split.mapInArrow(reduce, kept_type)
        if strict:
            kept = kept.persist()  # read again to name refused groups
        finish = _reduced_evaluator(names, keys, y_true, y_score, weight, options, arrow_out)
        scored = kept.repartition(
            max(1, min(int(n_large), parallelism)), *(functions.col(_quoted(k)) for k in keys)
        ).mapInArrow(finish, out)
        per_group = per_group.unionByName(scored)
    if not (strict or mean):
        return per_group

    # cached: the refusal check and the mean would each re-run the whole plan
    per_group = per_group.persist()
    metric_columns = [functions.col(_quoted(name)) for name in names]
    if strict:
        # the rows of a refused group, to say why: a split group's kept rows
        # hold every row a rule refuses
        rows_of = source if kept is None else whole.unionByName(kept.drop(_two_stage.RELEVANT))
        _raise_refused(
            rows_of, per_group, keys, names, metric_columns, y_true, y_score, weight, options
        )
    if not mean:
        return per_group
    return _mean(per_group, names, metric_columns, weight)


def _raise_refused(
    source: SparkDataFrame,
    per_group: SparkDataFrame,
    keys: list[str],
    names: list[str],
    metric_columns: list[Column],
    y_true: str,
    y_score: str,
    weight: str | None,
    options: dict[str, Any],
) -> None:
    """Raise RefusedGroupError if any partition refused a group (strict=True)."""
    from pyspark.sql import functions

    counts = per_group.agg(
        *(
            functions.count_if(c.isNull()).alias(n)
            for c, n in zip(metric_columns, names, strict=True)
        )
    ).first()
    assert counts is not None
    refused = {name: int(counts[name]) for name in names if counts[name]}
    if not refused:
        return
    any_null = functools.reduce(lambda a, b: a | b, (c.isNull() for c in metric_columns))
    key_columns = [functions.col(_quoted(k)) for k in keys]
    shown = per_group.filter(any_null).select(*key_columns).orderBy(*key_columns).limit(_SHOWN)
    # the rows of those groups (null keys match null keys, as in lp.evaluate)
    condition = functools.reduce(
        lambda a, b: a & b,
        (source[_quoted(k)].eqNullSafe(shown[_quoted(k)]) for k in keys),
    )
    rows = pl.from_arrow(source.join(shown, on=condition, how="left_semi").toArrow())
    assert isinstance(rows, pl.DataFrame)
    summary = ", ".join(f"{name!r} {n}" for name, n in refused.items())
    named = rows.select(keys).unique().height
    header = (
        f"groups refused over all Spark partitions, per metric: {summary}; "
        f"the {named} first by key (evaluated again on the driver to say why):"
    )
    try:
        _lp_evaluate(rows, names, by=keys, y_true=y_true, y_score=y_score, weight=weight, **options)
    except RefusedGroupError as error:
        msg = f"{header}\n{error}"
        raise RefusedGroupError(msg) from None
    msg = f"{header}\n(their rows, evaluated again on the driver, were not refused)"
    raise RefusedGroupError(msg)


def _mean(
    per_group: SparkDataFrame, names: list[str], metric_columns: list[Column], weight: str | None
) -> SparkDataFrame:
    """One row of means over the scored groups, as lp.evaluate's ``mean=True`` weighs them."""
    from pyspark.sql import functions

    if weight is None:
        return per_group.agg(
            *(functions.avg(c).alias(n) for c, n in zip(metric_columns, names, strict=True))
        )
    w = functions.col(_quoted(weight)).cast("double")
    totals = per_group.agg(
        *(
            functions.sum(functions.when(c.isNotNull(), w)).alias(n)
            for c, n in zip(metric_columns, names, strict=True)
        )
    ).first()
    assert totals is not None
    for name in names:
        if not totals[name]:
            msg = f"metric {name!r}: Weights sum to zero, can't be normalized"
            raise ZeroDivisionError(msg)
    return per_group.agg(
        *(
            (functions.sum(c * w) / totals[n]).alias(n)
            for c, n in zip(metric_columns, names, strict=True)
        )
    )
