"""`log_loss` and `brier_score_loss`: scikit-learn's losses of probabilities on dense arrays."""

from __future__ import annotations

from typing import Any

import numpy as np

from lodestar_polars._base.validation import (
    check_bool,
)
from lodestar_polars._core.calibration import (
    brier_row,
    log_loss_row,
)
from lodestar_polars.arrays._probabilities.common import (
    _as_float_probabilities,
    _check_pos_label_consistency,
    _check_probability_range,
    _probability_matrix,
)
from lodestar_polars.arrays._sklearn_compat import (
    _binds_like_sklearn,
    assert_all_finite,
    check_array_like,
    check_consistent_length,
    check_pos_label,
    check_sample_weight,
    column_or_1d,
    type_of_target,
)
from lodestar_polars.arrays._sklearn_compat import average as np_average
from lodestar_polars.exceptions import InvalidParameterError


@_binds_like_sklearn
def log_loss(
    y_true: Any,
    y_proba: Any,
    *,
    normalize: bool = True,
    sample_weight: Any = None,
    labels: Any = None,
) -> float:
    r"""Log loss (cross-entropy), as ``sklearn.metrics.log_loss``.

    .. math:: -\frac{1}{n} \sum_i \sum_k y_{ik} \ln p_{ik}

    with the probabilities clipped to ``[eps, 1 - eps]`` (``eps`` the
    machine epsilon of their dtype).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True labels, whose sorted distinct values are the classes (or
        ``labels``); or a label indicator matrix, one column per class (its
        values are the weights ``y_ik`` as they are).
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities: of the greater class for a 1-D array, of
        each sorted class for a matrix.
    normalize : bool, default=True
        The mean per sample; ``False`` gives the sum.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    labels : array-like, default=None
        The classes, when ``y_true`` does not hold every one.

    Returns
    -------
    loss : float
        The log loss; 0 is perfect.

    Raises
    ------
    InvalidParameterError
        A parameter outside its domain (scikit-learn's sentence).
    ValueError
        Probabilities above 1 or below 0, NaN or infinite input, one class
        without ``labels``, a ``y_true`` value missing from ``labels``,
        classes and columns that do not match, inconsistent lengths; a
        continuous or multioutput ``y_true``, a label matrix with ``labels``
        (scikit-learn's sentences).

    Warns
    -----
    UserWarning
        The rows of ``y_proba`` do not sum to one, or ``labels`` are not sorted.

    See Also
    --------
    lodestar_polars.log_loss : the same per group of a long Polars frame.

    Notes
    -----
    scikit-learn 1.9's deprecated ``y_pred`` argument is not offered: pass
    ``y_proba``.

    Examples
    --------
    >>> from lodestar_polars.arrays import log_loss
    >>> log_loss(["spam", "ham", "ham", "spam"], [[0.1, 0.9], [0.9, 0.1], [0.8, 0.2], [0.35, 0.65]])
    0.216161...
    >>> log_loss([1, 1], [0.9, 0.6], labels=[0, 1])
    0.308093...
    >>> log_loss([[1, 0, 0], [0, 0, 1]], [[0.8, 0.1, 0.1], [0.2, 0.3, 0.5]])
    0.458145...
    """
    caller = "log_loss"
    check_array_like(y_true, "y_true", caller)
    check_array_like(y_proba, "y_proba", caller)
    normalize = check_bool(normalize, "normalize", caller)
    check_array_like(sample_weight, "sample_weight", caller, allow_none=True)
    check_array_like(labels, "labels", caller, allow_none=True)
    proba = _as_float_probabilities(y_proba)
    one_hot, matrix = _probability_matrix(y_true, proba, sample_weight, labels)
    if proba.ndim == 1 and proba.dtype == np.float64 and np.ndim(y_true) == 1:
        loss = log_loss_row(one_hot[:, 1].astype(np.float64), proba)
    else:
        eps = np.finfo(matrix.dtype).eps
        clipped = np.clip(matrix, eps, 1 - eps)
        # scikit-learn's _xlogy, in the probabilities' own dtype (float32 stays float32)
        weights = one_hot.astype(matrix.dtype)
        terms = np.where(weights == 0, matrix.dtype.type(0), weights * np.log(clipped))
        loss = -np.sum(terms, axis=1)
    if normalize:
        return float(np_average(loss, sample_weight))
    if sample_weight is not None:
        return float(np.dot(loss, sample_weight))
    return float(np.sum(loss))


@_binds_like_sklearn
def brier_score_loss(
    y_true: Any,
    y_proba: Any,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    labels: Any = None,
    scale_by_half: bool | str = "auto",
) -> float:
    r"""Brier score loss, as ``sklearn.metrics.brier_score_loss``.

    .. math:: \frac{1}{n} \sum_i \sum_k (y_{ik} - p_{ik})^2

    halved for two classes (``scale_by_half="auto"``), so that the binary
    score is the mean of ``(y - p) ** 2``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True labels; or a label indicator matrix, one column per class (with
        a ``y_proba`` matrix).
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probabilities of the positive class (1-D), or of each sorted class.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    pos_label : int, float, bool or str, default=None
        The positive class of a binary target: 1 for {0, 1} or {-1, 1}
        labels, else the greater label (string labels need it).
    labels : array-like, default=None
        The classes of a multiclass target, when ``y_true`` lacks some.
    scale_by_half : bool or "auto", default="auto"
        Halve the score; ``"auto"`` halves it for at most two classes.

    Returns
    -------
    score : float
        The Brier score; 0 is perfect.

    Raises
    ------
    InvalidParameterError
        A parameter outside its domain (scikit-learn's sentence).
    ValueError
        Probabilities above 1 or below 0, NaN or infinite input, a 1-D
        ``y_proba`` for a multiclass target, string labels without
        ``pos_label``, inconsistent lengths; with a ``y_proba`` matrix, the
        sentences of ``log_loss`` (classes and columns, ``labels``).

    Warns
    -----
    UserWarning
        The rows of a ``y_proba`` matrix do not sum to one, or ``labels``
        are not sorted.

    See Also
    --------
    lodestar_polars.brier_score : the same per group of a long Polars frame.

    Examples
    --------
    >>> from lodestar_polars.arrays import brier_score_loss
    >>> brier_score_loss([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3])
    0.037...
    >>> brier_score_loss(["spam", "ham", "ham", "spam"], [0.1, 0.9, 0.8, 0.3], pos_label="ham")
    0.037...
    >>> proba = [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.2, 0.2, 0.6]]
    >>> brier_score_loss(["eggs", "ham", "spam"], proba, labels=["eggs", "ham", "spam"])
    0.146...
    >>> brier_score_loss([[1, 0, 0], [0, 1, 0], [0, 0, 1]], proba, scale_by_half=True)
    0.073...
    """
    caller = "brier_score_loss"
    check_array_like(y_true, "y_true", caller)
    check_array_like(y_proba, "y_proba", caller)
    check_array_like(sample_weight, "sample_weight", caller, allow_none=True)
    if pos_label is not None:
        check_pos_label(pos_label, caller)
    check_array_like(labels, "labels", caller, allow_none=True)
    if not (isinstance(scale_by_half, (bool, np.bool_)) or scale_by_half == "auto"):
        msg = (
            f"The 'scale_by_half' parameter of {caller} must be an instance of 'bool', an "
            "instance of 'numpy.bool' or a str among {'auto'}. "
            f"Got {scale_by_half!r} instead."
        )
        raise InvalidParameterError(msg)
    proba = _as_float_probabilities(y_proba)
    if proba.ndim == 1 or proba.shape[1] == 1:
        truth = column_or_1d(y_true)
        prob = column_or_1d(proba)
        assert_all_finite(truth)
        assert_all_finite(prob)
        check_consistent_length(prob, truth, sample_weight)
        if sample_weight is not None:
            check_sample_weight(np.asarray(sample_weight), prob.shape[0])
        y_type = type_of_target(truth, input_name="y_true")
        if y_type != "binary":
            msg = (
                f"The type of the target inferred from y_true is {y_type} but should be "
                "binary according to the shape of y_prob."
            )
            raise ValueError(msg)
        _check_probability_range(prob, "less")
        try:
            positive_label = _check_pos_label_consistency(pos_label, truth)
        except ValueError:
            classes = np.unique(truth)
            if classes.dtype.kind in "OUS":
                raise
            positive_label = classes[-1]
        positive = (truth == positive_label).astype(prob.dtype)
        if prob.dtype == np.float64:
            per_row = brier_row(positive, prob) * 2.0
        else:  # float32 and float16 stay in their dtype, as in scikit-learn
            per_row = ((1 - positive) - (1 - prob)) ** 2 + (positive - prob) ** 2
        width = 2
    else:
        one_hot, matrix = _probability_matrix(y_true, proba, sample_weight, labels)
        per_row = np.sum((one_hot.astype(matrix.dtype) - matrix) ** 2, axis=1)
        width = matrix.shape[1]
    score = np_average(per_row, sample_weight)
    halve = width < 3 if scale_by_half == "auto" else bool(scale_by_half)
    return float(score * 0.5) if halve else float(score)
