"""scikit-learn's ranking metrics on dense arrays, with scikit-learn's answers.

Every function here has the signature of its ``sklearn.metrics`` namesake
(scikit-learn 1.9.1) and returns what scikit-learn returns: the same value
(within a few ulp), the same type (a Python ``float``; a NumPy array or the int
``0`` where ``average_precision_score`` gives them), the same exceptions with
the same messages, and the same warnings.  Neither scikit-learn nor SciPy is
imported.

``reciprocal_rank_score`` is ours: scikit-learn has no reciprocal rank.  It
takes the same inputs as ``ndcg_score``.

The per-sample maths is :mod:`lodestar_polars._core`'s, the same code the
Polars expressions use: a ``(n_samples, n_labels)`` matrix is read row by
row as ``n_samples`` segments of ``n_labels`` values (a column of a label
matrix, for ``average_precision_score``, is a segment of the transposed
matrix).  This module adds scikit-learn's checks, its dispatch on the kind of
target, and its averaging.

Examples
--------
>>> from lodestar_polars import arrays
>>> arrays.ndcg_score([[3, 2, 1, 0]], [[0.5, 0.5, 0.5, 0.5]])
0.806913656672...
>>> arrays.reciprocal_rank_score([[0, 1, 0], [1, 0, 0]], [[0.9, 0.5, 0.1], [0.9, 0.5, 0.1]])
0.75
"""

from __future__ import annotations

from lodestar_polars.arrays._probabilities import (
    brier_score_loss,
    calibration_curve,
    log_loss,
    roc_auc_score,
)
from lodestar_polars.arrays._ranking import (
    average_precision_score,
    coverage_error,
    dcg_score,
    label_ranking_average_precision_score,
    label_ranking_loss,
    ndcg_score,
    reciprocal_rank_score,
    top_k_accuracy_score,
)

__all__ = [
    "average_precision_score",
    "brier_score_loss",
    "calibration_curve",
    "coverage_error",
    "dcg_score",
    "label_ranking_average_precision_score",
    "label_ranking_loss",
    "log_loss",
    "ndcg_score",
    "reciprocal_rank_score",
    "roc_auc_score",
    "top_k_accuracy_score",
]
