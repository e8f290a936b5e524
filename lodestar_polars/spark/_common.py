"""What the Spark surfaces share: partition sizes, the worker's sentence, importing pyspark."""

from __future__ import annotations

from typing import Any

DEFAULT_PARTITION_ROWS = 2_000_000
"""Rows per partition :func:`evaluate` aims at when ``num_partitions`` is not given.

About 200 MB of input columns per task and a second or two of Polars work:
large enough that the per-task overhead (a Python worker, an Arrow stream) is
small, small enough that a task's frame fits comfortably in a worker's memory.
"""

_MIN_PARTITION_ROWS = 100_000
"""Below this many rows a partition is not split further to use more cores."""

_SHOWN = 10
"""Refused groups whose rows are brought to the driver to name them and say why."""

_NOT_ON_WORKER = (
    "lodestar_polars is not importable on this Spark worker (Python {python}): install "
    "lodestar-polars (with polars, numpy and pyarrow) in the Python environment every worker "
    "runs (PYSPARK_PYTHON), the same version as the driver's; the import failed with: {error}"
)

_INSTALL_EXTRA = (
    'lodestar_polars.spark needs pyspark: install the extra, pip install "lodestar-polars[spark]"'
)


def _pyspark() -> Any:
    """Import pyspark's SQL functions, or say how to install them."""
    try:
        from pyspark.sql import functions
    except ImportError as error:
        raise ImportError(_INSTALL_EXTRA) from error
    return functions


def _quoted(name: str) -> str:
    """A column name Spark reads literally (``ndcg@10``, ``P.10``, names with spaces)."""
    return "`" + name.replace("`", "``") + "`"
