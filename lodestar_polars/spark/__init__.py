"""``lp.evaluate``'s metrics on a Spark DataFrame: one Polars call per partition, through Arrow.

The rows are shuffled so that every group (query, sample) lands whole in one
partition (``repartition(n, *by)``); each partition's Arrow batches become one
Polars frame (``pl.from_arrow``, no copy of the columns) and one
:func:`lodestar_polars.evaluate` call scores all of its groups; the per-group
values come back as Arrow (``mapInArrow``).  :func:`trec_evaluate` does the
same for a run and its qrels with :func:`lodestar_polars.trec.evaluate`, and
:func:`ranking_report` grades each partition's lists for
:func:`lodestar_polars.ranking_report` and merges their terms on the driver.
So the numbers are the single-machine numbers, bit for bit: the same code
runs on the same rows of each group (the report's per-item sums, added
partition after partition, to about 1e-15).

Importing this module imports neither pyspark nor anything Spark needs: pyspark
is imported when :func:`evaluate` is called, and ``import lodestar_polars``
never imports this module.  Install the extra with
``pip install "lodestar-polars[spark]"``; the Spark workers need
lodestar-polars (with polars, numpy and pyarrow) in the Python they run
(``PYSPARK_PYTHON``).  See ``docs/spark.md``.
"""

from __future__ import annotations

from lodestar_polars.spark._common import DEFAULT_PARTITION_ROWS
from lodestar_polars.spark._evaluate import evaluate

# the report on Spark lives in its own module; it imports pyspark only when called
from lodestar_polars.spark._report import ranking_report
from lodestar_polars.spark._trec import trec_evaluate

__all__ = ["DEFAULT_PARTITION_ROWS", "evaluate", "ranking_report", "trec_evaluate"]
