"""The ranking metrics of :mod:`lodestar_polars.arrays`.

scikit-learn's checks, dispatch and averaging over :mod:`lodestar_polars._core`'s segment maths:
DCG, NDCG, top-k accuracy, average precision, the label-ranking metrics, reciprocal rank.
"""

from __future__ import annotations

from lodestar_polars.arrays._ranking.average_precision import average_precision_score
from lodestar_polars.arrays._ranking.dcg import dcg_score, ndcg_score
from lodestar_polars.arrays._ranking.label_ranking import (
    coverage_error,
    label_ranking_average_precision_score,
    label_ranking_loss,
)
from lodestar_polars.arrays._ranking.reciprocal_rank import reciprocal_rank_score
from lodestar_polars.arrays._ranking.top_k import top_k_accuracy_score

__all__ = [
    "average_precision_score",
    "coverage_error",
    "dcg_score",
    "label_ranking_average_precision_score",
    "label_ranking_loss",
    "ndcg_score",
    "reciprocal_rank_score",
    "top_k_accuracy_score",
]
