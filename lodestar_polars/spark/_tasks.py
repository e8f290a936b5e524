"""The functions each Spark task of `lodestar_polars.spark.evaluate` runs on its Arrow batches.

Each is a closure, so that cloudpickle ships it by value: unpickling it on a
worker imports nothing from this package, and the function itself checks that
the worker has lodestar_polars, with a sentence saying what to do.
:func:`_partition_evaluator` scores a partition's whole groups with one
``lp.evaluate`` call; :func:`_chunk_reducer` and :func:`_reduced_evaluator` are
the two stages of a group split across tasks
(:mod:`lodestar_polars._evaluate.two_stage`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from lodestar_polars.spark._common import _NOT_ON_WORKER

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa


def _partition_evaluator(
    names: list[str],
    keys: list[str],
    y_true: str,
    y_score: str,
    weight: str | None,
    schema: pa.Schema,
    options: dict[str, Any] | None = None,
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The function each Spark task runs on its partition's Arrow batches.

    It is a closure so that cloudpickle ships it by value: unpickling it on a
    worker imports nothing from this package, and the function itself checks
    that the worker has lodestar_polars, with a sentence saying what to do.
    ``options`` are lp.evaluate's other keywords (``ties``, the item column, ...).
    """
    extra = dict(options or {})

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
        rows = sum(batch.num_rows for batch in received)
        if not rows:
            return
        try:
            frame = polars.from_arrow(pyarrow.Table.from_batches(received))
            del received
            assert isinstance(frame, polars.DataFrame)
            result = lodestar_polars.evaluate(
                frame,
                names,
                by=keys,
                y_true=y_true,
                y_score=y_score,
                weight=weight,
                strict=False,
                **extra,
            )
        except MemoryError as error:
            msg = (
                f"a partition of {rows} rows does not fit in this Spark worker's Python memory: "
                "give the Python workers more (spark.executor.pyspark.memory, "
                "spark.executor.memoryOverhead) or, if the partition holds many groups, use more "
                "partitions (num_partitions=); one group must fit in one worker's memory"
            )
            raise MemoryError(msg) from error
        yield from result.to_arrow().cast(schema).to_batches()

    return evaluate_partition


def _chunk_reducer(
    names: list[str],
    keys: list[str],
    y_true: str,
    y_score: str,
    weight: str | None,
    options: dict[str, Any],
    schema: pa.Schema,
    chunk_rows: int,
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """Stage 1 of a split group, per input partition (``lodestar_polars._evaluate.two_stage``).

    The partition's batches are reduced about ``chunk_rows`` rows at a time,
    so a task holds that many rows whatever the size of its partition.
    """
    ties, item = options["ties"], options.get("item")

    def reduce_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import sys

        try:
            import polars
            import pyarrow

            from lodestar_polars._evaluate import two_stage as _two_stage
        except ImportError as error:
            msg = _NOT_ON_WORKER.format(python=sys.executable, error=error)
            raise ImportError(msg) from error

        def reduced(held: list[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            frame = polars.from_arrow(pyarrow.Table.from_batches(held))
            assert isinstance(frame, polars.DataFrame)
            kept = _two_stage.reduce_chunk(
                frame,
                names,
                by=keys,
                y_true=y_true,
                y_score=y_score,
                weight=weight,
                ties=ties,
                item=item,
            )
            yield from kept.to_arrow().cast(schema).to_batches()

        held: list[pa.RecordBatch] = []
        rows = 0
        for batch in batches:
            held.append(batch)
            rows += batch.num_rows
            if rows >= chunk_rows:
                yield from reduced(held)
                held, rows = [], 0
        if rows:
            yield from reduced(held)

    return reduce_partition


def _reduced_evaluator(
    names: list[str],
    keys: list[str],
    y_true: str,
    y_score: str,
    weight: str | None,
    options: dict[str, Any],
    schema: pa.Schema,
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """Stage 2 of a split group: its values from every partition's kept rows."""
    ties, item = options["ties"], options.get("item")

    def evaluate_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import sys

        try:
            import polars
            import pyarrow

            from lodestar_polars._evaluate import two_stage as _two_stage
        except ImportError as error:
            msg = _NOT_ON_WORKER.format(python=sys.executable, error=error)
            raise ImportError(msg) from error

        received = list(batches)
        if not received:
            return
        frame = polars.from_arrow(pyarrow.Table.from_batches(received))
        assert isinstance(frame, polars.DataFrame)
        if frame.is_empty():
            return
        result = _two_stage.evaluate_reduced(
            frame,
            names,
            by=keys,
            y_true=y_true,
            y_score=y_score,
            weight=weight,
            ties=ties,
            item=item,
        )
        yield from result.to_arrow().cast(schema).to_batches()

    return evaluate_partition
