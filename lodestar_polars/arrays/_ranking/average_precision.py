"""`average_precision_score`: scikit-learn's average precision, binary and multilabel."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from lodestar_polars._base.messages import (
    FORMAT_NOT_SUPPORTED,
    POS_LABEL_FIXED,
)
from lodestar_polars._core.label_ranking import (
    average_precision_segments,
    precision_at,
)
from lodestar_polars._core.ranking import rank_segments
from lodestar_polars._core.segments import segment_starts
from lodestar_polars.arrays._ranking.common import _label_binarize, _rows
from lodestar_polars.arrays._sklearn_compat import (
    _binds_like_sklearn,
    assert_all_finite,
    check_array,
    check_array_like,
    check_average,
    check_consistent_length,
    check_pos_label,
    check_sample_weight,
    column_or_1d,
    type_of_target,
)
from lodestar_polars.arrays._sklearn_compat import average as np_average

_NO_POSITIVE = "No positive class found in y_true, recall is set to one for all thresholds."


def _warn_precision_recall(
    no_positive: np.ndarray, divide: np.ndarray | None = None, invalid: np.ndarray | None = None
) -> None:
    """The warnings ``precision_recall_curve`` emits, segment after segment.

    Per segment: NumPy's division warnings (precision at a threshold whose
    weighted count is 0, only possible with negative weights), then the
    missing-positive ``UserWarning``.  The loop runs over the flagged segments
    only and just warns: scikit-learn warns once per such column or row.
    """
    divide = np.zeros_like(no_positive) if divide is None else divide
    invalid = np.zeros_like(no_positive) if invalid is None else invalid
    for segment in np.flatnonzero(no_positive | divide | invalid):
        if divide[segment]:
            warnings.warn("divide by zero encountered in divide", RuntimeWarning, stacklevel=4)
        if invalid[segment]:
            warnings.warn("invalid value encountered in divide", RuntimeWarning, stacklevel=4)
        if no_positive[segment]:
            warnings.warn(_NO_POSITIVE, UserWarning, stacklevel=4)


def _binary_average_precisions(
    positive: np.ndarray, score: np.ndarray, length: np.ndarray, weight: np.ndarray | None
) -> np.ndarray:
    """Binary AP of each segment, as ``precision_recall_curve`` + the step sum.

    ``weight`` is validated already.  Zero-weight samples are dropped before
    the thresholds are built, as scikit-learn does.  A segment whose weighted
    positive total is 0 gets recall 1 at every threshold, so its AP is the
    precision at the highest threshold (0 unless negative weights cancel
    the positives), with the ``UserWarning``.
    """
    score = np.asarray(score)
    if score.dtype.kind not in "iu":  # integers are ranked as integers (2**53 + 1 is not 2**53)
        score = score.astype(np.float64)
    if weight is not None:
        keep = weight != 0
        if not keep.all():
            length = np.add.reduceat(keep.astype(np.int64), segment_starts(length))
            positive, score, weight = positive[keep], score[keep], weight[keep]
    values = average_precision_segments(positive, score, length, weight)
    if weight is None or not np.any(weight < 0):
        no_positive = ~np.logical_or.reduceat(positive, segment_starts(length))
        _warn_precision_recall(no_positive)
        return values
    # negative weights: a threshold's weighted count can be 0, and the
    # positives' weights can cancel
    ranking = rank_segments(score, length)
    w = ranking.take(weight)
    tp = ranking.through_sum(w * ranking.take(positive))
    ps = ranking.through_sum(w)
    empty = ps == 0
    divide = np.logical_or.reduceat(empty & (tp != 0), ranking.start)
    invalid = np.logical_or.reduceat(empty & (tp == 0), ranking.start)
    no_positive = tp[ranking.start + ranking.length - 1] == 0
    top_tp, top_ps = tp[ranking.start], ps[ranking.start]
    with np.errstate(divide="ignore", invalid="ignore"):
        top = np.where(top_ps != 0, precision_at(top_tp, top_ps), 0.0)
    _warn_precision_recall(no_positive, divide, invalid)
    return np.where(no_positive, np.maximum(top, 0.0), values)


def _binary_average_precision(
    y_true: Any, y_score: Any, pos_label: Any, sample_weight: np.ndarray | None
) -> float:
    """``average_precision_score`` on a binary target (scikit-learn's check order)."""
    positive = np.asarray(np.asarray(y_true) == pos_label)
    check_consistent_length(positive, y_score, sample_weight)
    positive = column_or_1d(positive)
    score = column_or_1d(y_score)
    assert_all_finite(score)
    weight = None
    if sample_weight is not None:
        weight = check_sample_weight(column_or_1d(sample_weight), positive.shape[0])
    if score.dtype.kind not in "iuf":
        np.diff(score)  # scikit-learn's thresholds: NumPy refuses strings and booleans here
    if positive.size == 0:
        msg = "index -1 is out of bounds for axis 0 with size 0"
        raise IndexError(msg)
    length = np.array([positive.size], dtype=np.int64)
    return float(_binary_average_precisions(positive, score, length, weight)[0])


def _multilabel_average_precision(
    y_true: Any,
    y_score: Any,
    average_: str | None,
    pos_label: Any,
    sample_weight: np.ndarray | None,
) -> Any:
    """scikit-learn's ``_average_binary_score`` over the columns (or rows) of a label matrix."""
    check_consistent_length(y_true, y_score, sample_weight)
    y_true = check_array(y_true)
    y_score = check_array(y_score)
    n_samples, n_true = y_true.shape
    n_classes = y_score.shape[1]
    average_weight = None
    if average_ == "micro":
        weight = None if sample_weight is None else np.repeat(sample_weight, n_true)
        positive = (y_true == pos_label).reshape(-1)
        score = y_score.reshape(-1)
        check_consistent_length(positive, score, weight)
        if weight is not None:
            weight = check_sample_weight(weight, positive.size)
        length = np.array([positive.size], dtype=np.int64)
        scores = _binary_average_precisions(positive, score, length, weight)
    elif average_ == "samples":
        if n_true != n_classes:
            msg = (
                "Found input variables with inconsistent numbers of samples: "
                f"[{n_true}, {n_classes}]"
            )
            raise ValueError(msg)
        average_weight = sample_weight
        positive, length = _rows(y_true == pos_label)
        scores = _binary_average_precisions(positive, y_score.reshape(-1), length, None)
    else:
        if average_ == "weighted":
            if sample_weight is not None:
                truth = np.asarray(y_true, dtype=sample_weight.dtype)
                average_weight = np.sum(truth * sample_weight.reshape(-1, 1), axis=0)
            else:
                average_weight = np.sum(y_true, axis=0)
            if np.isclose(np.sum(average_weight), 0):
                return 0
        weight = None
        if sample_weight is not None:
            weight = check_sample_weight(sample_weight, n_samples)
        n_done = min(n_classes, n_true)
        columns = (y_true[:, :n_done] == pos_label).T
        positive, length = _rows(columns)
        score = y_score[:, :n_done].T.reshape(-1)
        tiled = None if weight is None else np.tile(weight, n_done)
        scores = _binary_average_precisions(positive, score, length, tiled)
        if n_classes > n_true:
            msg = f"index {n_true} is out of bounds for axis 1 with size {n_true}"
            raise IndexError(msg)
    if average_ is None:
        return scores
    if average_weight is not None:
        scores[average_weight == 0] = 0
    return float(np_average(scores, average_weight))


@_binds_like_sklearn
def average_precision_score(
    y_true: Any,
    y_score: Any,
    *,
    average: str | None = "macro",
    pos_label: Any = 1,
    sample_weight: Any = None,
) -> Any:
    r"""Compute average precision (AP), as ``sklearn.metrics.average_precision_score``.

    AP summarizes a precision-recall curve as the weighted mean of the
    precisions achieved at each threshold, with the increase in recall from
    the previous threshold as the weight:

    .. math:: \text{AP} = \sum_n (R_n - R_{n-1}) P_n

    It is not interpolated (not the trapezoidal area under the curve), and
    tied scores form one threshold.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True binary labels, a label-indicator matrix, or multiclass labels
        (binarised over the labels present).
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Target scores (probabilities or decision values).
    average : {'micro', 'samples', 'weighted', 'macro'} or None, default='macro'
        ``None`` returns the score of each class; ``'micro'`` scores every
        cell of the indicator matrix as one binary problem; ``'macro'`` is the
        unweighted mean over classes; ``'weighted'`` weighs each class by its
        support; ``'samples'`` is the mean over samples.  Ignored when
        ``y_true`` is binary.
    pos_label : int, float, bool or str, default=1
        The positive class of a binary ``y_true``; fixed to 1 otherwise.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    average_precision : float or ndarray of shape (n_classes,)
        Average precision score (an array for ``average=None`` on a
        multilabel or multiclass target; the int ``0`` for
        ``average='weighted'`` when the total support is zero).

    Raises
    ------
    InvalidParameterError
        A parameter outside its domain (scikit-learn's sentence).
    ValueError
        A continuous or multioutput target, a ``pos_label`` that is not a
        label, NaN or infinite input, scores of the wrong shape, sample
        weights that are all zero or NaN.

    Warns
    -----
    UserWarning
        A class (or, for ``'samples'``, a sample) has no positive: its AP is
        0, once per such class or sample.

    See Also
    --------
    label_ranking_average_precision_score : the per-sample ranking view.
    lodestar_polars.average_precision : the same per group of a long Polars frame.

    Examples
    --------
    >>> from lodestar_polars.arrays import average_precision_score
    >>> average_precision_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.833333333333...
    >>> y_true = [0, 0, 1, 1, 2, 2]
    >>> y_score = [
    ...     [0.7, 0.2, 0.1],
    ...     [0.4, 0.3, 0.3],
    ...     [0.1, 0.8, 0.1],
    ...     [0.2, 0.3, 0.5],
    ...     [0.4, 0.4, 0.2],
    ...     [0.1, 0.2, 0.7],
    ... ]
    >>> average_precision_score(y_true, y_score)
    0.777777777777...
    >>> average_precision_score(y_true, y_score, average=None)
    array([0.83333333, 0.75      , 0.75      ])
    """
    caller = "average_precision_score"
    check_array_like(y_true, "y_true", caller)
    check_array_like(y_score, "y_score", caller)
    average_ = check_average(average, caller)
    check_pos_label(pos_label, caller)
    check_array_like(sample_weight, "sample_weight", caller, allow_none=True)
    if sample_weight is not None:
        sample_weight = column_or_1d(sample_weight)
    y_type = type_of_target(y_true, input_name="y_true")
    present_labels = np.unique(np.asarray(y_true))
    if y_type == "binary":
        if present_labels.shape[0] == 2 and pos_label not in present_labels:
            msg = (
                f"pos_label={pos_label} is not a valid label. It should be one of {present_labels}"
            )
            raise ValueError(msg)
        return _binary_average_precision(y_true, y_score, pos_label, sample_weight)
    if y_type == "multilabel-indicator" and pos_label != 1:
        msg = POS_LABEL_FIXED.format("multilabel-indicator")
        raise ValueError(msg)
    if y_type == "multiclass":
        if pos_label != 1:
            msg = POS_LABEL_FIXED.format("multiclass")
            raise ValueError(msg)
        y_true = _label_binarize(y_true, present_labels)
        shape = np.shape(y_score)
        if shape != y_true.shape:
            msg = (
                "`y_score` needs to be of shape `(n_samples, n_classes)`, since "
                "`y_true` contains multiple classes. Got "
                f"`y_score.shape={shape}`."
            )
            raise ValueError(msg)
    y_type = type_of_target(y_true)  # again, as _average_binary_score does
    if y_type != "multilabel-indicator":
        msg = FORMAT_NOT_SUPPORTED.format(y_type)
        raise ValueError(msg)
    return _multilabel_average_precision(y_true, y_score, average_, pos_label, sample_weight)
