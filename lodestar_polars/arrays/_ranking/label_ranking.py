"""The label-ranking metrics: coverage error, ranking loss, label ranking average precision."""

from __future__ import annotations

from typing import Any

import numpy as np

from lodestar_polars._base.messages import (
    DIFFERENT_SHAPE,
    FORMAT_NOT_SUPPORTED,
)
from lodestar_polars._core.label_ranking import (
    coverage_segments,
    lrap_segments,
    ranking_loss_segments,
)
from lodestar_polars.arrays._ranking.common import (
    _check_multilabel,
    _paired,
    _rows,
    _sequential_sum,
)
from lodestar_polars.arrays._sklearn_compat import (
    _binds_like_sklearn,
    check_array,
    check_array_like,
    check_consistent_length,
    type_of_target,
)
from lodestar_polars.arrays._sklearn_compat import average as np_average


@_binds_like_sklearn
def coverage_error(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """Coverage error measure, as ``sklearn.metrics.coverage_error``.

    How far down the ranking of the labels by score one has to go, on
    average, to cover every true label: per sample, the number of labels
    scoring at least as high as the lowest-scored true label (a tie counts
    against you).  A sample without true labels counts 0.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        True labels in binary indicator format (any non-zero value is true).
    y_score : array-like of shape (n_samples, n_labels)
        Target scores.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    coverage_error : float
        The coverage error.

    Raises
    ------
    InvalidParameterError
        ``sample_weight`` or an input that is not array-like.
    ValueError
        A target that is not a label-indicator matrix, different shapes,
        NaN, infinite or non-numeric input, inconsistent lengths.
    ZeroDivisionError
        The sample weights sum to zero.

    See Also
    --------
    label_ranking_loss, label_ranking_average_precision_score
    lodestar_polars.coverage_error : the same per group of a long Polars frame.

    Examples
    --------
    >>> from lodestar_polars.arrays import coverage_error
    >>> coverage_error([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    2.5
    """
    caller = "coverage_error"
    # scikit-learn 1.9.1 refuses a sparse y_true here and takes it for the two
    # other label-ranking metrics; it is taken here too (docs/arrays.md)
    check_array_like(y_true, "y_true", caller, sparse=True)
    check_array_like(y_score, "y_score", caller)
    check_array_like(sample_weight, "sample_weight", caller, allow_none=True)
    y_true, y_score = _paired(y_true, y_score, sample_weight, ensure_2d=True, sparse_true=True)
    _check_multilabel(y_true, y_score)
    relevant, length = _rows(y_true != 0)
    per_row = coverage_segments(relevant, y_score.reshape(-1), length)
    return float(np_average(per_row, sample_weight))


@_binds_like_sklearn
def label_ranking_loss(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """Compute Ranking loss measure, as ``sklearn.metrics.label_ranking_loss``.

    Per sample, the fraction of (true, false) label pairs that the scores
    order wrongly; a tie between a true and a false label counts as wrong.
    A sample whose labels are all true or all false counts 0.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        True labels in binary indicator format (any non-zero value is true).
    y_score : array-like of shape (n_samples, n_labels)
        Target scores.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    loss : float
        Average number of label pairs that are incorrectly ordered given
        y_score weighted by the size of the label set and the number of
        labels not in the label set.

    Raises
    ------
    InvalidParameterError
        ``sample_weight`` or an input that is not array-like.
    ValueError
        A target that is not a label-indicator matrix, different shapes,
        NaN, infinite or non-numeric input, inconsistent lengths.
    ZeroDivisionError
        The sample weights sum to zero.

    See Also
    --------
    coverage_error, label_ranking_average_precision_score
    lodestar_polars.label_ranking_loss : the same per group of a long Polars frame.

    Examples
    --------
    >>> from lodestar_polars.arrays import label_ranking_loss
    >>> label_ranking_loss([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    0.75
    """
    caller = "label_ranking_loss"
    check_array_like(y_true, "y_true", caller, sparse=True)
    check_array_like(y_score, "y_score", caller)
    check_array_like(sample_weight, "sample_weight", caller, allow_none=True)
    y_true, y_score = _paired(y_true, y_score, sample_weight, sparse_true=True)
    _check_multilabel(y_true, y_score)
    relevant, length = _rows(y_true != 0)
    per_row = ranking_loss_segments(relevant, y_score.reshape(-1), length)
    return float(np_average(per_row, sample_weight))


@_binds_like_sklearn
def label_ranking_average_precision_score(
    y_true: Any, y_score: Any, *, sample_weight: Any = None
) -> float:
    """Compute ranking-based average precision, as scikit-learn does.

    ``sklearn.metrics.label_ranking_average_precision_score``: per sample and
    true label, the fraction of the labels scoring at least as high that are
    true, averaged over the sample's true labels (ties count against you).
    A sample whose labels are all true or all false scores 1.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        True labels in binary indicator format (any non-zero value is true).
        A single column is accepted (every sample then scores 1).
    y_score : array-like of shape (n_samples, n_labels)
        Target scores.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    score : float
        Ranking-based average precision score.

    Raises
    ------
    InvalidParameterError
        ``sample_weight`` or an input that is not array-like.
    ValueError
        A target that is not a label-indicator matrix, different shapes,
        NaN, infinite or non-numeric input, inconsistent lengths.

    See Also
    --------
    average_precision_score, label_ranking_loss
    lodestar_polars.label_ranking_average_precision : the same per group of a
        long Polars frame.

    Notes
    -----
    As in scikit-learn the weighted sum is divided by ``np.sum(sample_weight)``
    without a check: weights summing to zero give NaN or an infinity, with
    NumPy's ``RuntimeWarning``.

    Examples
    --------
    >>> from lodestar_polars.arrays import label_ranking_average_precision_score
    >>> y_true = [[1, 0, 0], [0, 0, 1]]
    >>> y_score = [[0.75, 0.5, 1], [1, 0.2, 0.1]]
    >>> label_ranking_average_precision_score(y_true, y_score)
    0.416666666666...
    """
    caller = "label_ranking_average_precision_score"
    check_array_like(y_true, "y_true", caller, sparse=True)
    check_array_like(y_score, "y_score", caller)
    check_array_like(sample_weight, "sample_weight", caller, allow_none=True)
    check_consistent_length(y_true, y_score, sample_weight)
    y_true = check_array(y_true, ensure_2d=False, accept_sparse=True)
    y_score = check_array(y_score, ensure_2d=False)
    if y_true.shape != y_score.shape:
        msg = DIFFERENT_SHAPE
        raise ValueError(msg)
    y_type = type_of_target(y_true, input_name="y_true")
    if y_type != "multilabel-indicator" and not (y_type == "binary" and y_true.ndim == 2):
        msg = FORMAT_NOT_SUPPORTED.format(y_type)
        raise ValueError(msg)
    relevant, length = _rows(y_true != 0)
    per_row = lrap_segments(relevant, y_score.reshape(-1), length)
    if sample_weight is None:
        return float(_sequential_sum(per_row) / len(per_row))
    n_relevant = np.count_nonzero(y_true, axis=1)
    degenerate = (n_relevant == 0) | (n_relevant == y_true.shape[1])
    weight = np.asarray(sample_weight, dtype=np.float64)
    if weight.ndim != 1:
        # scikit-learn multiplies each row's value by sample_weight[i]
        if isinstance(sample_weight, np.ndarray):
            msg = "only 0-dimensional arrays can be converted to Python scalars"
        else:
            kind = "float" if degenerate[0] else "numpy.float64"
            msg = f"can't multiply sequence by non-int of type '{kind}'"
        raise TypeError(msg)
    out: Any = _sequential_sum(per_row * weight)
    if isinstance(sample_weight, (list, tuple)) and degenerate.all():
        # scikit-learn's sum stayed a Python float (every row scored the
        # literal 1.0, every weight a Python number): dividing it by a NumPy
        # integer warns as an array division, not a scalar one
        out = float(out)
    return float(out / np.sum(sample_weight))
