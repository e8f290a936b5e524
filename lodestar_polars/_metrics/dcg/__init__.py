"""DCG and NDCG as Polars expressions (scikit-learn's ``dcg_score``/``ndcg_score``)."""

from __future__ import annotations

from lodestar_polars._metrics.dcg.expressions import (
    NDCG_DENOMINATORS,
    dcg,
    dcg_metric,
    ndcg,
    ndcg_metric,
)
from lodestar_polars._metrics.dcg.terms import GAINS

__all__ = [
    "GAINS",
    "NDCG_DENOMINATORS",
    "dcg",
    "dcg_metric",
    "ndcg",
    "ndcg_metric",
]
