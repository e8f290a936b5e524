"""``lp.ranking_report`` of a Spark DataFrame: partial terms per partition, merged on the driver.

The rows are repartitioned by ``by`` (a list never spans two partitions) and each partition is
graded by one call of the parts path's :func:`~lodestar_polars._report.parts.take_part` (the
in-memory grading, through Arrow, ``mapInArrow``).  What a partition keeps is the parts path's:
per graded list its key, truth item, entity and the primary block's and the floor's micro values;
per item its exposure, coverage and hit@k terms; per other block its micro sums.  The partials
are combined in a tree on the executors (``treeAggregate`` of
:func:`~lodestar_polars._report.parts_merge.combine`: the per-item terms summed over the
union of the partitions' items, the per-list values concatenated), and the driver finishes the
payload with the parts path's :func:`~lodestar_polars._report.parts_merge._merge`: per-list
values in the in-memory order, so the primary block, the floor and the bootstrap are bit for bit
the single-machine ones.

pyspark is imported when :func:`ranking_report` is called, never when this module is.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from lodestar_polars._report.ranking_report import (
    CALLER,
    MultiPositive,
    Objective,
    RankingReport,
    popularity_table,
)

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa
    from pyspark.sql import DataFrame as SparkDataFrame

    from lodestar_polars._report.parts import PartContext

_PARTIAL = "__lp_partial"
"""The one binary column a partition's task returns: its pickled partial terms."""


def _partition_grader(
    context: PartContext,
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The function each Spark task runs: its lists graded by one ``take_part`` call.

    A closure, shipped by value: unpickling it needs nothing of ours; it checks that the worker
    has lodestar_polars and says what to do otherwise.
    """
    from lodestar_polars.spark._common import _NOT_ON_WORKER

    def grade_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import pickle
        import sys

        try:
            import polars
            import pyarrow

            from lodestar_polars._report import parts as _report_parts
            from lodestar_polars._report import parts_merge as _report_merge
        except ImportError as error:
            msg = _NOT_ON_WORKER.format(python=sys.executable, error=error)
            raise ImportError(msg) from error
        received = list(batches)
        if not sum(batch.num_rows for batch in received):
            return
        frame = polars.from_arrow(pyarrow.Table.from_batches(received))
        del received
        assert isinstance(frame, polars.DataFrame)
        # the shuffle leaves a list's rows in any order: back to the input's (multi_positive
        # "first" reads it, and a refusal names the first row)
        frame = frame.sort(_report_parts._GROW)
        merged = _report_merge._Merged()
        _report_parts.take_part(merged, frame, context)
        del frame
        blob = pickle.dumps(merged, protocol=pickle.HIGHEST_PROTOCOL)
        yield pyarrow.record_batch([pyarrow.array([blob], pyarrow.binary())], names=[_PARTIAL])

    return grade_partition


def _spark_information(
    train: Any, keys: list[str], item: str, spark_frame: type
) -> tuple[pl.DataFrame, float]:
    """``train``'s terms per item (novelty@k, ARP@k, serendipity@k); a Spark one on the cluster.

    The table of :func:`~lodestar_polars._report.beyond.information_table`: ``info``,
    ``popularity`` (the share of training users) and ``popularity_rank`` per item, and a
    cold item's ``info``.
    """
    from lodestar_polars._report.beyond import information_table

    if not isinstance(train, spark_frame):
        return information_table(train, keys, item)
    import numpy as np
    from pyspark.sql import functions

    from lodestar_polars.spark._common import _quoted

    col = functions.col
    spark_train: Any = train  # a Spark DataFrame (isinstance against a runtime type)
    if keys and all(k in spark_train.columns for k in keys):  # the users: the by columns
        pairs = spark_train.select(*(col(_quoted(k)) for k in keys), col(_quoted(item))).distinct()
        n_users = spark_train.select(*(col(_quoted(k)) for k in keys)).distinct().count()
    else:  # each training row one user's interaction
        pairs, n_users = spark_train.select(col(_quoted(item))), spark_train.count()
    per_item = pairs.groupBy(col(_quoted(item))).agg(functions.count(functions.lit(1)).alias("u"))
    frame = pl.from_arrow(per_item.toArrow())
    assert isinstance(frame, pl.DataFrame)
    n = max(int(n_users), 1)
    share = pl.col("u").cast(pl.Float64) / n
    rank = pl.col("u").rank("dense", descending=True).cast(pl.Float64)
    table = frame.select(
        item,
        (-share.log(2.0)).alias("info"),
        share.alias("popularity"),
        rank.alias("popularity_rank"),
    )
    return table, float(np.log2(n))


def _spark_popularity(
    train: Any, popularity: Any, item: str, item_dtype: Any, spark_frame: type
) -> tuple[pl.DataFrame, float, str] | None:
    """The floor's table from Polars frames, or from Spark ones aggregated on the cluster."""
    from pyspark.sql import functions

    from lodestar_polars.spark._common import _quoted

    def collected(frame: Any, what: str, columns: list[str]) -> pl.DataFrame:
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            msg = f"{CALLER}: {what} has no column {missing[0]!r} (its columns: {frame.columns})."
            raise ValueError(msg)
        if what == "train":  # one row per item: the count of its training positives
            frame = frame.groupBy(functions.col(_quoted(item))).agg(
                functions.count(functions.lit(1)).alias("__lp_count")
            )
        out = pl.from_arrow(frame.toArrow())
        assert isinstance(out, pl.DataFrame)
        return out

    if isinstance(train, spark_frame) and popularity is None:
        counts = collected(train, "train", [item]).select(
            item, pl.col("__lp_count").cast(pl.Float64).alias("p")
        )
        if counts.schema[item] != item_dtype:
            msg = (
                f"{CALLER}: column {item!r} is {counts.schema[item]} in train but "
                f"{item_dtype} in scores; they must match."
            )
            raise ValueError(msg)
        return counts, float(counts["p"].sum()), "train"
    if isinstance(popularity, spark_frame):
        popularity = collected(popularity, "popularity", [item, "popularity"])
    if isinstance(train, spark_frame):
        train = collected(train, "train", [item]).select(item)
    return popularity_table(item, item_dtype, train, popularity)


def ranking_report(
    sdf: SparkDataFrame,
    *,
    by: str | Sequence[str],
    item: str,
    y_true: str,
    y_score: str,
    k: int = 10,
    objectives: Sequence[Objective] = ("accuracy", "coverage"),
    train: Any = None,
    popularity: Any = None,
    groups: str | None = None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    seed: int = 0,
    multi_positive: MultiPositive = "each",
    tail_share: float = 0.2,
    primary_objective: Objective | None = None,
    popularity_discount: float | None = None,
    shrinkage: bool = False,
    shrinkage_strength: float | None = None,
    percentile: bool = False,
    state: Any = None,
    num_partitions: int | None = None,
    partition_rows: int | None = None,
    value: str | None = None,
    y_score_b: str | None = None,
    feature: str | None = None,
) -> RankingReport:
    """The ranking report of :func:`lodestar_polars.ranking_report` from a Spark DataFrame.

    The same payload: the rows are repartitioned by ``by`` (a list is never split), each
    partition is graded by one Polars call on its rows (``mapInArrow``), the partitions' terms
    are combined on the executors and the driver finishes the payload: per-list values in the
    single-machine order (the primary block, the floor and the bootstrap bit for bit), per-item
    sums and the other blocks' micro sums in another order (equal to about 1e-15).

    Parameters
    ----------
    sdf
        A long ``pyspark.sql.DataFrame``: one row per (list, candidate item).
    by
        The column(s) naming a list: names (an expression has no Spark form here).
    item, y_true, y_score, groups
        Column names of ``sdf``, as :func:`lodestar_polars.ranking_report` reads them:
        ``y_true`` a Boolean or 0/1 column (a frame of realised pairs is not taken here).
    k, objectives, n_resamples, confidence_level, seed, multi_positive, tail_share
        As :func:`lodestar_polars.ranking_report`.
    primary_objective, popularity_discount, shrinkage, shrinkage_strength, percentile
        As :func:`lodestar_polars.ranking_report`.
    train, popularity
        The popularity floor: Polars frames, or Spark DataFrames (``train`` is counted per item
        on the cluster; ``popularity``, one row per item, is collected).
    state : lodestar_polars.ComparabilityState, default=None
        Needed by every block other than the identity (the default ``coverage`` block among
        them): fit it with :func:`lodestar_polars.fit_comparability` on a holdout, or on a
        sample of ``sdf`` collected to Polars.  It is not fitted on the Spark frame.
    num_partitions : int, default=None
        Partitions (tasks) to grade the lists in; by default about ``partition_rows`` rows
        each (one count of the rows), as :func:`lodestar_polars.spark.evaluate` sizes them.
    partition_rows : int, default=None
        Rows per partition aimed at (``DEFAULT_PARTITION_ROWS``, 2,000,000, when None).
    value, y_score_b : str, default=None
        Column names of ``sdf``, as :func:`lodestar_polars.ranking_report` reads them: the
        value family and model B (``versus``; B's blocks use ``state`` as A's do).  Their rows
        are checked in each partition, the first refusal by ``monotonically_increasing_id``.
    feature : str, default=None
        A column name of ``sdf``: each item's category or embedding (an array of floats),
        as :func:`lodestar_polars.ranking_report` reads it (``intra_list_diversity@k``).  Each
        partition keeps its distinct (item, feature) pairs; the driver checks them together.

    Returns
    -------
    RankingReport
        The payload of :func:`lodestar_polars.ranking_report` on the same rows.

    Raises
    ------
    ImportError
        pyspark is not installed (install the ``spark`` extra).
    TypeError
        ``sdf`` is not a Spark DataFrame.
    InvalidParameterError
        A bad option (checked on the driver, before a task starts, with the single-machine
        sentences), a ``y_true`` that is not a column name, or a block that needs a
        comparability state without ``state=``.
    ValueError
        What :func:`lodestar_polars.ranking_report` refuses in the rows (a missing column, a
        list with an item twice, a null or non-finite score, a ``groups`` varying within a
        list, no positive at all, ...), the first in its order of checks over all partitions;
        a row is named by its ``monotonically_increasing_id`` (Spark has no other row order).

    Notes
    -----
    One list must fit in one Python worker.  What reaches the driver is the combined partial:
    about 10 doubles per graded list (the primary block's and the floor's micro values) with its
    key, truth item and entity, and per catalogue item 5 doubles per block; ``docs/spark.md``
    gives the plan for 1e10 rows.

    Examples
    --------
    With a Spark session ``spark`` (``docs/spark.md`` shows how to start one)::

        import lodestar_polars.spark

        log = spark.read.parquet("scores.parquet")  # user, item, score, clicked
        train = spark.read.parquet("train.parquet")  # one row per training positive
        report = lodestar_polars.spark.ranking_report(
            log, by="user", item="item", y_true="clicked", y_score="score", k=10,
            objectives=("accuracy",), train=train,
        )
        report["decision"]["sentence"]
    """
    from lodestar_polars._base.validation import check_int
    from lodestar_polars._report import parts as _report_parts
    from lodestar_polars._report import parts_merge as _report_merge
    from lodestar_polars._report.comparability_checks import resolve_shrinkage
    from lodestar_polars._report.diversity import check_merged_features
    from lodestar_polars._report.ranking_report import _objective_alphas
    from lodestar_polars._report.ranking_report import ranking_report as _lp_report
    from lodestar_polars._report.serving import check_score_dtype
    from lodestar_polars.exceptions import InvalidParameterError
    from lodestar_polars.spark._common import (
        _MIN_PARTITION_ROWS,
        DEFAULT_PARTITION_ROWS,
        _pyspark,
        _quoted,
    )

    functions = _pyspark()
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import BinaryType, StructField, StructType

    if not isinstance(sdf, SparkDataFrame):
        msg = f"`sdf` must be a pyspark.sql.DataFrame, got {type(sdf).__name__}"
        raise TypeError(msg)
    keys = [by] if isinstance(by, str) else list(by) if isinstance(by, Sequence) else []
    if not keys or not all(isinstance(key, str) for key in keys):
        msg = (
            f"The 'by' parameter of {CALLER} on Spark must be a column name or a non-empty "
            f"sequence of column names. Got {by!r} instead."
        )
        raise InvalidParameterError(msg)
    optional = ("groups", "value", "y_score_b", "feature")
    for role, given in (
        ("item", item), ("y_score", y_score), ("groups", groups), ("value", value),
        ("y_score_b", y_score_b), ("feature", feature),
    ):  # fmt: skip
        if not (isinstance(given, str) or (role in optional and given is None)):
            msg = (
                f"The {role!r} parameter of {CALLER} on Spark must be a column name"
                f"{' or None' if role in optional else ''}. Got {given!r} instead."
            )
            raise InvalidParameterError(msg)
    if not isinstance(y_true, str):
        msg = (
            f"The 'y_true' parameter of {CALLER} on Spark must be a Boolean or 0/1 column name "
            f"of sdf (a frame of realised pairs is not taken on Spark). Got {y_true!r} instead."
        )
        raise InvalidParameterError(msg)
    num_partitions = check_int(num_partitions, "num_partitions", CALLER)
    rows_per_part = check_int(partition_rows, "partition_rows", CALLER)
    part_rows = DEFAULT_PARTITION_ROWS if rows_per_part is None else rows_per_part
    options: dict[str, Any] = {
        "k": k,
        "objectives": objectives,
        "groups": groups,
        "n_resamples": n_resamples,
        "confidence_level": confidence_level,
        "seed": seed,
        "multi_positive": multi_positive,
        "tail_share": tail_share,
        "primary_objective": primary_objective,
        "popularity_discount": popularity_discount,
        "shrinkage": shrinkage,
        "shrinkage_strength": shrinkage_strength,
        "percentile": percentile,
        "state": state,
        "value": value,
        "y_score_b": y_score_b,
        "feature": feature,
    }
    extra = [c for c in (value, y_score_b, feature) if c is not None]
    wanted = list(
        dict.fromkeys([*keys, item, y_score, y_true, *([groups] if groups else []), *extra])
    )
    present = [c for c in wanted if c in sdf.columns]
    source = sdf.select(*(functions.col(_quoted(c)) for c in present))
    # every option, and the columns and their dtypes, checked on the driver before a task
    # starts: the single-machine report on an empty frame of the same Arrow schema stops at
    # its first row check ("no rows") once everything before the rows is checked
    empty = pl.from_arrow(to_arrow_schema(source.schema).empty_table())
    assert isinstance(empty, pl.DataFrame)
    try:
        _lp_report(empty, by=keys, item=item, y_true=y_true, y_score=y_score, **options)
    except ValueError as error:
        if not str(error).startswith(f"{CALLER}: scores has no rows"):
            raise
    check_score_dtype(empty.schema, y_score, CALLER)
    kk = int(k)
    names = [str(o) for o in objectives]
    primary = names[0] if primary_objective is None else str(primary_objective)
    shrink, strength = resolve_shrinkage(shrinkage, shrinkage_strength, CALLER)
    alphas = _objective_alphas()
    block_alpha = {name: float(alphas[name]) for name in names}
    if popularity_discount is not None:
        block_alpha[primary] = float(popularity_discount)
    transforms = {
        "shrinkage": shrink,
        "shrinkage_strength": shrinkage_strength,
        "percentile": bool(percentile),
    }
    needs_state = [
        n for n in names if not (block_alpha[n] == 0.0 and not shrink and not percentile)
    ]
    if needs_state and state is None:
        msg = (
            f"The 'state' parameter of {CALLER} on Spark: the objective(s) {needs_state} rank "
            "by transformed scores and need a comparability state, which is not fitted on a "
            "Spark frame; pass state=lp.fit_comparability(...) fitted on a holdout (or on a "
            'sample collected to Polars), or objectives=("accuracy",) with no shrinkage or '
            "percentile."
        )
        raise InvalidParameterError(msg)

    later: list[ValueError] = []  # refused after the rows' problems, as in memory
    table = None
    try:
        table = _spark_popularity(train, popularity, item, empty.schema[item], SparkDataFrame)
    except ValueError as error:
        later.append(error)
    context = _report_parts.PartContext(
        keys=keys, item=item, score=y_score, truth=y_true, groups=groups, mp=multi_positive,
        kk=kk, names=names, primary=primary, block_alpha=block_alpha, transforms=transforms,
        state=state, table=table, shrink=shrink, strength=strength, percentile=bool(percentile),
        check_only=bool(later), value=value, score_b=y_score_b, state_b=state,
        check_extras=True, feature=feature,
        information=None if train is None or later
        else _spark_information(train, keys, item, SparkDataFrame),
    )  # fmt: skip
    if num_partitions is None:
        rows = source.count()
        parallelism = sdf.sparkSession.sparkContext.defaultParallelism
        num_partitions = max(
            1, math.ceil(rows / part_rows), min(parallelism, rows // _MIN_PARTITION_ROWS)
        )
    numbered = source.withColumn(_report_parts._GROW, functions.monotonically_increasing_id())
    partials = numbered.repartition(
        num_partitions, *(functions.col(_quoted(key)) for key in keys)
    ).mapInArrow(
        _partition_grader(context), StructType([StructField(_PARTIAL, BinaryType(), False)])
    )

    def combine(a: Any, b: Any) -> Any:
        return _report_merge.combine(a, b, item)

    merged = partials.rdd.map(lambda row: pickle.loads(row[0])).treeAggregate(
        _report_merge._Merged(), combine, combine, depth=2
    )
    if merged.problem is not None:
        raise merged.problem[1]
    if not merged.lists:
        msg = f"{CALLER}: no list of scores has a positive, so there is nothing to grade."
        if not merged.items:
            msg = f"{CALLER}: scores has no rows, so there is nothing to grade."
        raise ValueError(msg)
    if later:
        raise later[0]
    check_merged_features(merged, item, feature)
    return _report_merge._merge(
        merged, keys=keys, item=item, groups=groups, kk=kk, names=names, primary=primary,
        table=table, tail_share=float(tail_share), mp=multi_positive,
        comparability=None if state is None else "given",
        strength=strength if shrink else None, percentile=bool(percentile),
        block_alpha=block_alpha, n_resamples=int(n_resamples),
        confidence_level=float(confidence_level), seed=int(seed), value=value,
        score_b=y_score_b,
    )  # fmt: skip
