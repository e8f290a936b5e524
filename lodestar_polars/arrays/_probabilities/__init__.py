"""The probability metrics of :mod:`lodestar_polars.arrays`.

ROC AUC (binary, multiclass, label matrices), log loss, the Brier score and the calibration
curve, as scikit-learn gives them.
"""

from __future__ import annotations

from lodestar_polars.arrays._probabilities.calibration import calibration_curve
from lodestar_polars.arrays._probabilities.roc_auc import roc_auc_score
from lodestar_polars.arrays._probabilities.scoring_rules import brier_score_loss, log_loss

__all__ = [
    "brier_score_loss",
    "calibration_curve",
    "log_loss",
    "roc_auc_score",
]
