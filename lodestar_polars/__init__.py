"""lodestar_polars: ranking metrics as Polars expressions, exact to scikit-learn.

>>> import lodestar_polars as lp
>>> sorted(lp.__all__)[:3]
['InvalidParameterError', 'RefusedGroupError', 'UndefinedMetricWarning']
"""

from __future__ import annotations

from lodestar_polars import arrays
from lodestar_polars._dcg import dcg, ndcg
from lodestar_polars._evaluate import Progress, evaluate
from lodestar_polars._label_ranking import (
    average_precision,
    coverage_error,
    label_ranking_average_precision,
    label_ranking_loss,
)
from lodestar_polars._reciprocal_rank import reciprocal_rank
from lodestar_polars._top_k import top_k_accuracy
from lodestar_polars.exceptions import (
    InvalidParameterError,
    RefusedGroupError,
    UndefinedMetricWarning,
)

__version__ = "0.1.0"

__all__ = [
    "InvalidParameterError",
    "Progress",
    "RefusedGroupError",
    "UndefinedMetricWarning",
    "arrays",
    "average_precision",
    "coverage_error",
    "dcg",
    "evaluate",
    "label_ranking_average_precision",
    "label_ranking_loss",
    "ndcg",
    "reciprocal_rank",
    "top_k_accuracy",
]
