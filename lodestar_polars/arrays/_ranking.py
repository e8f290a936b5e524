"""The ranking metrics of :mod:`lodestar_polars.arrays`.

scikit-learn's checks, dispatch and averaging over :mod:`lodestar_polars._core`'s segment maths:
DCG, NDCG, top-k accuracy, average precision, the label-ranking metrics, reciprocal rank.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from lodestar_polars._base.messages import (
    DIFFERENT_SHAPE,
    FORMAT_NOT_SUPPORTED,
    NDCG_NEGATIVE,
    NDCG_ONE_DOCUMENT,
    POS_LABEL_FIXED,
)
from lodestar_polars._base.validation import (
    check_bool,
    check_k,
    check_log_base,
)
from lodestar_polars._core.dcg import dcg_segments, ndcg_segments
from lodestar_polars._core.label_ranking import (
    average_precision_segments,
    coverage_segments,
    lrap_segments,
    precision_at,
    ranking_loss_segments,
)
from lodestar_polars._core.ranking import rank_segments
from lodestar_polars._core.reciprocal_rank import reciprocal_rank_segments
from lodestar_polars._core.segments import segment_starts
from lodestar_polars._core.top_k import top_k_segments
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
from lodestar_polars.exceptions import undefined_metric_warning

_DCG_TARGETS = ("multilabel-indicator", "continuous-multioutput", "multiclass-multioutput")
_NO_POSITIVE = "No positive class found in y_true, recall is set to one for all thresholds."


# --------------------------------------------------------------------------- helpers


def _paired(
    y_true: Any,
    y_score: Any,
    sample_weight: Any,
    *,
    ensure_2d: bool = False,
    sparse_true: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """The shared opening: both inputs as arrays, then one sample count for all three.

    scikit-learn's order (``check_array`` on each, then ``check_consistent_length``),
    so a call with several faults fails on the one scikit-learn names first.
    """
    true = check_array(y_true, ensure_2d=ensure_2d, accept_sparse=sparse_true)
    score = check_array(y_score, ensure_2d=ensure_2d)
    check_consistent_length(true, score, sample_weight)
    return true, score


def _rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A 2-D matrix as flat row-major values and one segment length per row."""
    n_rows, n_cols = matrix.shape
    return matrix.reshape(-1), np.full(n_rows, n_cols, dtype=np.int64)


def _check_dcg_target_type(y_true: np.ndarray) -> None:
    y_type = type_of_target(y_true, input_name="y_true")
    if y_type not in _DCG_TARGETS:
        msg = f"Only {_DCG_TARGETS} formats are supported. Got {y_type} instead"
        raise ValueError(msg)


def _check_dcg_shapes(y_true: np.ndarray, y_score: np.ndarray, *, ignore_ties: bool) -> None:
    """scikit-learn does not compare the shapes: NumPy fails inside its maths.

    Reproduce that failure: the tie-averaged path fails in ``np.add.at``; the
    ``ignore_ties`` path is run as scikit-learn writes it, so NumPy raises its
    own ``IndexError``/``ValueError``.
    """
    if y_true.shape == y_score.shape:
        return
    if not ignore_ties:
        msg = "array is not broadcastable to correct shape"
        raise ValueError(msg)
    discount = np.zeros(y_true.shape[1])
    ranking = np.argsort(y_score)[:, ::-1]
    ranked = y_true[np.arange(ranking.shape[0])[:, np.newaxis], ranking]
    discount.dot(ranked.T)
    msg = DIFFERENT_SHAPE  # pragma: no cover (NumPy raised)
    raise ValueError(msg)  # pragma: no cover


def _check_multilabel(y_true: np.ndarray, y_score: np.ndarray) -> None:
    """coverage_error and label_ranking_loss: a label matrix, and equal shapes."""
    y_type = type_of_target(y_true, input_name="y_true")
    if y_type != "multilabel-indicator":
        msg = FORMAT_NOT_SUPPORTED.format(y_type)
        raise ValueError(msg)
    if y_true.shape != y_score.shape:
        msg = DIFFERENT_SHAPE
        raise ValueError(msg)


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


def _sequential_sum(values: np.ndarray) -> np.float64:
    """``0.0 + v[0] + v[1] + ...`` in this order (``np.sum`` would pair the terms)."""
    return np.float64(np.cumsum(np.concatenate(([0.0], values)))[-1])


def _label_binarize(y_true: Any, classes: np.ndarray) -> np.ndarray:
    """One-hot ``int`` matrix of a multiclass target over ``classes`` (sorted)."""
    y = np.asarray(y_true).reshape(-1)
    onehot: np.ndarray = (y[:, np.newaxis] == classes[np.newaxis, :]).astype(np.int64)
    return onehot


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


# --------------------------------------------------------------------------- metrics


@_binds_like_sklearn
def dcg_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int | None = None,
    log_base: float = 2,
    sample_weight: Any = None,
    ignore_ties: bool = False,
) -> float:
    """Compute Discounted Cumulative Gain, as ``sklearn.metrics.dcg_score``.

    Sum the true scores ranked in the order induced by the predicted scores,
    after applying a logarithmic discount: the gain at 0-based position ``i``
    is divided by ``log_base``-logarithm of ``i + 2``.  Tied scores share
    their positions' discounts (the mean over every ordering of the tie).

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        True scores of the entities to be ranked (the gains), at least two
        columns.
    y_score : array-like of shape (n_samples, n_labels)
        Predicted scores of the same entities.
    k : int, default=None
        Only the ``k`` highest-scored entities count; ``None`` counts all.
    log_base : float, default=2
        Base of the logarithm of the discount.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; the result is their weighted mean.
    ignore_ties : bool, default=False
        Rank tied scores with the later column first instead of averaging
        (faster, but then tied results depend on the column order).

    Returns
    -------
    discounted_cumulative_gain : float
        The averaged sample DCG scores.

    Raises
    ------
    InvalidParameterError
        A parameter outside its domain (scikit-learn's sentence).
    ValueError
        NaN, infinite or non-numeric input, inconsistent lengths, a target
        that is not 2-D with at least two columns.
    ZeroDivisionError
        The sample weights sum to zero.

    See Also
    --------
    ndcg_score : DCG divided by the DCG of the perfect ranking.
    lodestar_polars.dcg : the same per group of a long Polars frame.

    Notes
    -----
    scikit-learn's ``ignore_ties=True`` uses NumPy's unstable argsort, so on
    tied scores its order depends on the NumPy build; here a tie always
    ranks the later column first, which is what scikit-learn gives on the
    builds tested (see the package documentation).

    Examples
    --------
    >>> from lodestar_polars.arrays import dcg_score
    >>> true_relevance = [[10, 0, 0, 1, 5]]
    >>> scores = [[0.1, 0.2, 0.3, 4, 70]]
    >>> dcg_score(true_relevance, scores)
    9.499457825916...
    >>> dcg_score(true_relevance, scores, k=2)
    5.630929753571...
    >>> dcg_score(true_relevance, [[1, 0, 0, 0, 1]], k=1)
    7.5
    >>> dcg_score(true_relevance, [[1, 0, 0, 0, 1]], k=1, ignore_ties=True)
    5.0
    """
    caller = "dcg_score"
    check_array_like(y_true, "y_true", caller)
    check_array_like(y_score, "y_score", caller)
    cut = check_k(k, caller)
    base = check_log_base(log_base, caller)
    check_array_like(sample_weight, "sample_weight", caller, allow_none=True)
    ignore_ties = check_bool(ignore_ties, "ignore_ties", caller)
    y_true, y_score = _paired(y_true, y_score, sample_weight)
    _check_dcg_target_type(y_true)
    _check_dcg_shapes(y_true, y_score, ignore_ties=ignore_ties)
    gain, length = _rows(y_true)
    per_row = dcg_segments(
        gain, y_score.reshape(-1), length, k=cut, log_base=base, ignore_ties=ignore_ties
    )
    return float(np_average(per_row, sample_weight))


@_binds_like_sklearn
def ndcg_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int | None = None,
    sample_weight: Any = None,
    ignore_ties: bool = False,
) -> float:
    """Compute Normalized Discounted Cumulative Gain, as ``sklearn.metrics.ndcg_score``.

    The DCG of the ranking induced by the predicted scores (see
    :func:`dcg_score`, base-2 discount) divided by the DCG of the best
    possible ranking, so that a perfect ranking scores 1.  A sample whose
    true scores are all 0 scores 0.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        Non-negative true scores of the entities to be ranked, at least two
        columns.
    y_score : array-like of shape (n_samples, n_labels)
        Predicted scores of the same entities.
    k : int, default=None
        Only the ``k`` highest-scored entities count; ``None`` counts all.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; the result is their weighted mean.
    ignore_ties : bool, default=False
        Rank tied scores with the later column first instead of averaging.

    Returns
    -------
    normalized_discounted_cumulative_gain : float in [0., 1.]
        The averaged NDCG scores for all samples.

    Raises
    ------
    InvalidParameterError
        A parameter outside its domain (scikit-learn's sentence).
    ValueError
        A negative true score, a single column, NaN, infinite or
        non-numeric input, inconsistent lengths, a target that is not 2-D.
    ZeroDivisionError
        The sample weights sum to zero.

    See Also
    --------
    dcg_score : the unnormalised gain.
    lodestar_polars.ndcg : the same per group of a long Polars frame.

    Notes
    -----
    As in scikit-learn the result is not clipped: ``ndcg_score(y, y)`` can be
    one ulp below 1.0.

    Examples
    --------
    >>> from lodestar_polars.arrays import ndcg_score
    >>> true_relevance = [[10, 0, 0, 1, 5]]
    >>> ndcg_score(true_relevance, [[0.1, 0.2, 0.3, 4, 70]])
    0.695694044381...
    >>> ndcg_score(true_relevance, [[0.05, 1.1, 1.0, 0.5, 0.0]], k=4)
    0.352024110063...
    >>> ndcg_score(true_relevance, [[1, 0, 0, 0, 1]], k=1)
    0.75
    """
    caller = "ndcg_score"
    check_array_like(y_true, "y_true", caller)
    check_array_like(y_score, "y_score", caller)
    cut = check_k(k, caller)
    check_array_like(sample_weight, "sample_weight", caller, allow_none=True)
    ignore_ties = check_bool(ignore_ties, "ignore_ties", caller)
    y_true, y_score = _paired(y_true, y_score, sample_weight)
    if y_true.min() < 0:
        msg = NDCG_NEGATIVE
        raise ValueError(msg)
    if y_true.ndim > 1 and y_true.shape[1] <= 1:
        msg = NDCG_ONE_DOCUMENT.format(y_true.shape[1])
        raise ValueError(msg)
    _check_dcg_target_type(y_true)
    _check_dcg_shapes(y_true, y_score, ignore_ties=ignore_ties)
    gain, length = _rows(y_true)
    per_row = ndcg_segments(gain, y_score.reshape(-1), length, k=cut, ignore_ties=ignore_ties)
    return float(np_average(per_row, sample_weight))


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


@_binds_like_sklearn
def reciprocal_rank_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int | None = None,
    sample_weight: Any = None,
    ignore_ties: bool = False,
) -> float:
    """Mean reciprocal rank: 1 / the rank of the first relevant entity.

    Not a scikit-learn function; it takes ``ndcg_score``'s inputs.  Per
    sample, the entities are ranked by ``y_score`` (descending); the sample
    scores ``1 / rank`` of the first one with ``y_true > 0``, and 0 when that
    rank is above ``k`` or nothing is relevant.  Tied scores are averaged
    exactly: the expectation over every ordering of the tie.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        Relevance of each entity; an entity is relevant when above 0 (or
        True).  A single column is accepted.
    y_score : array-like of shape (n_samples, n_labels)
        Predicted scores of the same entities.
    k : int, default=None
        A first relevant entity ranked below ``k`` scores 0; ``None`` looks
        at every rank.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; the result is their weighted mean.
    ignore_ties : bool, default=False
        Rank tied scores with the later column first instead of averaging.

    Returns
    -------
    mean_reciprocal_rank : float in [0., 1.]
        The averaged reciprocal ranks of the samples.

    Raises
    ------
    InvalidParameterError
        A parameter outside its domain (scikit-learn's sentence, naming
        ``reciprocal_rank_score``).
    ValueError
        NaN, infinite or non-numeric input, inconsistent lengths, a target
        that is not 2-D, different shapes.
    ZeroDivisionError
        The sample weights sum to zero.

    See Also
    --------
    ndcg_score : the graded, position-discounted counterpart.
    lodestar_polars.reciprocal_rank : the same per group of a long Polars frame.

    Examples
    --------
    >>> from lodestar_polars.arrays import reciprocal_rank_score
    >>> y_true = [[0, 0, 1], [1, 0, 0]]
    >>> y_score = [[0.9, 0.5, 0.1], [0.9, 0.5, 0.1]]
    >>> reciprocal_rank_score(y_true, y_score)
    0.666666666666...
    >>> reciprocal_rank_score(y_true, y_score, k=2)
    0.5

    Tied with one other entity, the relevant one is first half the time:

    >>> reciprocal_rank_score([[0, 1]], [[0.5, 0.5]])
    0.75
    """
    caller = "reciprocal_rank_score"
    check_array_like(y_true, "y_true", caller)
    check_array_like(y_score, "y_score", caller)
    cut = check_k(k, caller)
    check_array_like(sample_weight, "sample_weight", caller, allow_none=True)
    ignore_ties = check_bool(ignore_ties, "ignore_ties", caller)
    y_true, y_score = _paired(y_true, y_score, sample_weight)
    if y_true.ndim != 2:
        msg = (
            "reciprocal_rank_score needs y_true of shape (n_samples, n_labels). "
            f"Got an array of shape {y_true.shape} instead."
        )
        raise ValueError(msg)
    if y_true.shape != y_score.shape:
        msg = DIFFERENT_SHAPE
        raise ValueError(msg)
    relevant, length = _rows(y_true > 0)
    per_row = reciprocal_rank_segments(
        relevant, y_score.reshape(-1), length, k=cut, ignore_ties=ignore_ties
    )
    return float(np_average(per_row, sample_weight))


# --------------------------------------------------------------------------- AUC and calibration
