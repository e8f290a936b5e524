"""`calibration_curve`: scikit-learn's reliability diagram's points."""

from __future__ import annotations

from typing import Any

import numpy as np

from lodestar_polars._base.validation import (
    check_n_bins,
    check_strategy,
)
from lodestar_polars._core.calibration import (
    bin_ids,
    quantile_edges,
    uniform_edges,
)
from lodestar_polars.arrays._probabilities.common import _check_pos_label_consistency
from lodestar_polars.arrays._sklearn_compat import (
    _binds_like_sklearn,
    check_array_like,
    check_consistent_length,
    check_pos_label,
    column_or_1d,
)


@_binds_like_sklearn
def calibration_curve(
    y_true: Any,
    y_prob: Any,
    *,
    pos_label: Any = None,
    n_bins: int = 5,
    strategy: str = "uniform",
) -> tuple[np.ndarray, np.ndarray]:
    """Compute true and predicted probabilities for a calibration curve.

    ``sklearn.calibration.calibration_curve``: the probabilities are cut
    into ``n_bins`` bins; each non-empty bin gives the fraction of positives
    and the mean probability.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_prob : array-like of shape (n_samples,)
        Probabilities of the positive class, in [0, 1].
    pos_label : int, float, bool or str, default=None
        The positive class: 1 for {0, 1} or {-1, 1} labels.
    n_bins : int, default=5
        The number of bins.
    strategy : {'uniform', 'quantile'}, default='uniform'
        Equal widths on [0, 1], or edges at the quantiles of ``y_prob``.

    Returns
    -------
    prob_true : ndarray
        The fraction of positives in each non-empty bin.
    prob_pred : ndarray
        The mean probability in each non-empty bin.

    Raises
    ------
    InvalidParameterError
        ``n_bins`` or ``strategy`` outside its domain (scikit-learn's sentence).
    ValueError
        Probabilities outside [0, 1], more than two labels, labels other
        than {0, 1} or {-1, 1} without ``pos_label``, inconsistent lengths.

    See Also
    --------
    lodestar_polars.calibration_curve : the same as a table, per group of a frame.
    lodestar_polars.expected_calibration_error : the bins' weighted gap.

    Examples
    --------
    >>> from lodestar_polars.arrays import calibration_curve
    >>> y_true = [0, 0, 0, 0, 1, 1, 1, 1, 1]
    >>> y_pred = [0.1, 0.2, 0.3, 0.4, 0.65, 0.7, 0.8, 0.9, 1.0]
    >>> prob_true, prob_pred = calibration_curve(y_true, y_pred, n_bins=3)
    >>> prob_true
    array([0. , 0.5, 1. ])
    >>> prob_pred
    array([0.2  , 0.525, 0.85 ])
    """
    caller = "calibration_curve"
    check_array_like(y_true, "y_true", caller)
    check_array_like(y_prob, "y_prob", caller)
    if pos_label is not None:
        check_pos_label(pos_label, caller)
    n_bins = check_n_bins(n_bins, caller)
    strategy = check_strategy(strategy, caller)
    truth = column_or_1d(y_true)
    prob = column_or_1d(y_prob)
    check_consistent_length(truth, prob)
    positive_label = _check_pos_label_consistency(pos_label, truth)
    if prob.min() < 0 or prob.max() > 1:
        msg = "y_prob has values outside [0, 1]."
        raise ValueError(msg)
    labels = np.unique(truth)
    if len(labels) > 2:
        msg = f"Only binary classification is supported. Provided labels {labels}."
        raise ValueError(msg)
    positive = truth == positive_label
    edges = uniform_edges(n_bins) if strategy == "uniform" else quantile_edges(prob, n_bins)
    ids = bin_ids(prob, edges)
    bin_sums = np.bincount(ids, weights=prob, minlength=n_bins)
    bin_true = np.bincount(ids, weights=positive, minlength=n_bins)
    bin_total = np.bincount(ids, minlength=n_bins)
    nonzero = bin_total != 0
    return bin_true[nonzero] / bin_total[nonzero], bin_sums[nonzero] / bin_total[nonzero]
