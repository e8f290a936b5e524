"""`top_k_accuracy_score`: scikit-learn's top-k accuracy on dense arrays."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from lodestar_polars._base.validation import (
    check_bool,
    check_k,
)
from lodestar_polars._core.top_k import top_k_segments
from lodestar_polars.arrays._ranking.common import _rows
from lodestar_polars.arrays._sklearn_compat import (
    _binds_like_sklearn,
    check_array,
    check_array_like,
    check_consistent_length,
    column_or_1d,
    type_of_target,
)
from lodestar_polars.arrays._sklearn_compat import average as np_average
from lodestar_polars.exceptions import undefined_metric_warning


@_binds_like_sklearn
def top_k_accuracy_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int = 2,
    normalize: bool = True,
    sample_weight: Any = None,
    labels: Any = None,
) -> float:
    """Top-k Accuracy classification score, as ``sklearn.metrics.top_k_accuracy_score``.

    Counts how often the true label is among the ``k`` labels with the
    highest predicted scores.  Among tied scores the label of higher index
    ranks first.  A binary target with ``k=1`` is scored by thresholding
    instead: the positive (sorted-last) label is predicted where the score is
    strictly above 0.5 when every score lies in [0, 1], else above 0.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Target scores: of the positive class for a binary target (1-D), else
        one column per class, in the order of the sorted labels.
    k : int, default=2
        Number of most likely outcomes considered to find the correct label.
    normalize : bool, default=True
        If True, return the fraction of correctly classified samples,
        otherwise their number (weighted when ``sample_weight`` is given).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    labels : array-like of shape (n_classes,), default=None
        All the labels, sorted, when ``y_true`` does not show every class.

    Returns
    -------
    score : float
        The top-k accuracy score.

    Raises
    ------
    InvalidParameterError
        A parameter outside its domain (scikit-learn's sentence).
    ValueError
        A target that is not binary or multiclass, scores of the wrong
        shape, labels that are not unique, sorted or complete, NaN or
        infinite input, inconsistent lengths.
    ZeroDivisionError
        ``normalize=True`` and the sample weights sum to zero.

    Warns
    -----
    UndefinedMetricWarning
        ``k`` is at least the number of classes (every sample is a hit).

    See Also
    --------
    lodestar_polars.top_k_accuracy : the same per group of a long Polars frame.

    Examples
    --------
    >>> from lodestar_polars.arrays import top_k_accuracy_score
    >>> y_true = [0, 1, 2, 2]
    >>> y_score = [[0.5, 0.2, 0.2], [0.3, 0.4, 0.2], [0.2, 0.4, 0.3], [0.7, 0.2, 0.1]]
    >>> top_k_accuracy_score(y_true, y_score, k=2)
    0.75
    >>> top_k_accuracy_score(y_true, y_score, k=2, normalize=False)
    3.0
    """
    caller = "top_k_accuracy_score"
    check_array_like(y_true, "y_true", caller)
    check_array_like(y_score, "y_score", caller)
    cut: int = check_k(k, caller, allow_none=False)  # type: ignore[assignment]
    normalize = check_bool(normalize, "normalize", caller)
    check_array_like(sample_weight, "sample_weight", caller, allow_none=True)
    check_array_like(labels, "labels", caller, allow_none=True)
    y_true = check_array(y_true, ensure_2d=False, numeric=False)
    y_true = column_or_1d(y_true)
    y_type = type_of_target(y_true, input_name="y_true")
    if y_type == "binary" and labels is not None and len(labels) > 2:
        y_type = "multiclass"
    if y_type not in ("binary", "multiclass"):
        msg = f"y type must be 'binary' or 'multiclass', got '{y_type}' instead."
        raise ValueError(msg)
    y_score = check_array(y_score, ensure_2d=False)
    if y_type == "binary":
        if y_score.ndim == 2 and y_score.shape[1] != 1:
            msg = (
                "`y_true` is binary while y_score is 2d with"
                f" {y_score.shape[1]} classes. If `y_true` does not contain all the"
                " labels, `labels` must be provided."
            )
            raise ValueError(msg)
        y_score = column_or_1d(y_score)
    elif y_score.ndim != 2:
        msg = (
            "`y_score` needs to be of shape `(n_samples, n_classes)`, since "
            "`y_true` contains multiple classes. Got "
            f"`y_score.shape={y_score.shape}`."
        )
        raise ValueError(msg)
    check_consistent_length(y_true, y_score, sample_weight)
    n_score_classes = y_score.shape[1] if y_score.ndim == 2 else 2
    if labels is None:
        classes = np.unique(y_true)
        n_classes = len(classes)
        if n_classes != n_score_classes:
            msg = (
                f"Number of classes in 'y_true' ({n_classes}) not equal "
                f"to the number of classes in 'y_score' ({n_score_classes})."
                "You can provide a list of all known classes by assigning it "
                "to the `labels` parameter."
            )
            raise ValueError(msg)
    else:
        labels = column_or_1d(labels)
        classes = np.unique(labels)
        n_classes = len(classes)
        if n_classes != len(labels):
            msg = "Parameter 'labels' must be unique."
            raise ValueError(msg)
        if not np.array_equal(classes, labels):
            msg = "Parameter 'labels' must be ordered."
            raise ValueError(msg)
        if n_classes != n_score_classes:
            msg = (
                f"Number of given labels ({n_classes}) not equal to the "
                f"number of classes in 'y_score' ({n_score_classes})."
            )
            raise ValueError(msg)
        if len(np.setdiff1d(y_true, classes)):
            msg = "'y_true' contains labels not in parameter 'labels'."
            raise ValueError(msg)
    if cut >= n_classes:
        warnings.warn(
            f"'k' ({k}) greater than or equal to 'n_classes' ({n_classes}) "
            "will result in a perfect score and is therefore meaningless.",
            undefined_metric_warning(),
            stacklevel=3,
        )
    encoded = np.searchsorted(classes, y_true)
    if y_type == "binary":
        if cut == 1:
            threshold = 0.5 if y_score.min() >= 0 and y_score.max() <= 1 else 0
            hits = (y_score > threshold).astype(np.int64) == encoded
        else:
            hits = np.ones_like(y_score, dtype=np.bool_)
    else:
        is_true, length = _rows(encoded[:, np.newaxis] == np.arange(n_classes))
        hits = top_k_segments(is_true, y_score.reshape(-1), length, k=cut) > 0
    if normalize:
        return float(np_average(hits, sample_weight))
    if sample_weight is None:
        return float(np.sum(hits))
    return float(np.dot(hits, sample_weight))
