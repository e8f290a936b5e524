"""The IR family as Polars expressions: precision, recall, hit rate, R-precision, AP@k.

Each takes ``ties``, the rule for equal scores:

``"average"`` (default)
    the expectation over every ordering of each tie group, in closed form
    (scikit-learn's rule for DCG): a relevant row in a tie group of ``c`` rows
    at positions ``[a, a + c)`` is in the top ``k`` with chance
    ``clip(k - a, 0, c) / c``; the first relevant row is in the top ``k``
    unless the ``m = k - a`` tied rows that make the cut are all irrelevant,
    with chance ``C(c - r, m) / C(c, m)``.
``"trec_eval"``
    score descending, then item (document id) descending (``item=``, compared
    as text, byte-wise), trec_eval's order.
``"input"``
    score descending, equal scores in row order (the earlier row first).

``n_relevant=`` gives the number of relevant documents of a group when the
rows are not the whole truth (a run joined with qrels: the judged relevant
documents the run missed count in recall and R-precision, as in trec_eval).
Without it, the rows given are the whole truth.
"""

from __future__ import annotations

from lodestar_polars._metrics.ir.ap_at_k import average_precision_at_k
from lodestar_polars._metrics.ir.ap_at_k import (
    average_precision_at_k_metric as average_precision_at_k_metric,
)
from lodestar_polars._metrics.ir.hits import hit_rate, r_precision
from lodestar_polars._metrics.ir.hits import hit_rate_metric as hit_rate_metric
from lodestar_polars._metrics.ir.hits import r_precision_metric as r_precision_metric
from lodestar_polars._metrics.ir.precision_recall import DENOMINATORS, precision, recall
from lodestar_polars._metrics.ir.precision_recall import (
    PRECISION_DENOMINATORS as PRECISION_DENOMINATORS,
)
from lodestar_polars._metrics.ir.precision_recall import precision_metric as precision_metric
from lodestar_polars._metrics.ir.precision_recall import recall_metric as recall_metric

__all__ = [
    "DENOMINATORS",
    "average_precision_at_k",
    "hit_rate",
    "precision",
    "r_precision",
    "recall",
]
