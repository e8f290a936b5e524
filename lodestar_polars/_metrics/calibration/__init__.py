"""ROC AUC, log loss, Brier score and calibration as Polars expressions and frame functions.

The expressions (:func:`roc_auc`, :func:`log_loss`, :func:`brier_score`,
:func:`expected_calibration_error`) reduce one group to one Float64, like every
metric of the package; their :class:`~lodestar_polars._metrics.expr.Metric` builders
(``*_metric``) carry the rules a group must pass, for
:func:`lodestar_polars.evaluate`.  :func:`group_auc` and
:func:`calibration_curve` take a whole frame and return a frame: the first
averages per-user AUCs, the second is scikit-learn's ``calibration_curve`` as a
table.  The arithmetic is :mod:`lodestar_polars._core.calibration`'s.
"""

from __future__ import annotations

from lodestar_polars._metrics.calibration.expressions import (
    ONE_CLASS,
    brier_score,
    brier_score_metric,
    expected_calibration_error,
    expected_calibration_error_metric,
    log_loss,
    log_loss_metric,
    roc_auc,
    roc_auc_metric,
)
from lodestar_polars._metrics.calibration.frames import (
    GroupWeight,
    calibration_curve,
    group_auc,
)

__all__ = [
    "GroupWeight",
    "ONE_CLASS",
    "brier_score",
    "brier_score_metric",
    "calibration_curve",
    "expected_calibration_error",
    "expected_calibration_error_metric",
    "group_auc",
    "log_loss",
    "log_loss_metric",
    "roc_auc",
    "roc_auc_metric",
]
