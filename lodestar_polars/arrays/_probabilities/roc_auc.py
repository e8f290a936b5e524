"""`roc_auc_score`: scikit-learn's ROC AUC, binary, multiclass (ovr, ovo) and label matrices."""

from __future__ import annotations

import itertools
import numbers
import warnings
from typing import Any

import numpy as np

from lodestar_polars._base.validation import (
    ROC_AUC_ONE_CLASS,
)
from lodestar_polars._core.calibration import (
    binary_clf_counts,
    roc_points,
    trapezoid,
)
from lodestar_polars._core.multiclass import roc_auc_rows
from lodestar_polars.arrays._probabilities.common import _check_pos_label_consistency
from lodestar_polars.arrays._sklearn_compat import (
    _binds_like_sklearn,
    assert_all_finite,
    check_array,
    check_array_like,
    check_average,
    check_consistent_length,
    check_sample_weight,
    column_or_1d,
    type_of_target,
)
from lodestar_polars.arrays._sklearn_compat import average as np_average
from lodestar_polars.exceptions import InvalidParameterError, undefined_metric_warning

_MULTI_CLASS_OPTIONS = "{'ovo', 'raise', 'ovr'}"  # as scikit-learn prints it under PYTHONHASHSEED=0


def _roc_curve(
    y_true: np.ndarray, y_score: Any, sample_weight: Any
) -> tuple[np.ndarray, np.ndarray]:
    """``roc_curve(y_true, y_score, sample_weight=...)``'s ``(fpr, tpr)``, its checks in order.

    The target must be binary with labels {0, 1} or {-1, 1} (1 positive);
    zero-weight samples are dropped; a class of zero total weight gives a
    NaN rate, with scikit-learn's ``UndefinedMetricWarning``.
    """
    y_type = type_of_target(y_true, input_name="y_true")
    if y_type != "binary":
        msg = f"{y_type} format is not supported"
        raise ValueError(msg)
    pos_label = _check_pos_label_consistency(None, y_true)
    positive = np.asarray(np.asarray(y_true) == pos_label, dtype=np.int32)
    check_consistent_length(positive, y_score, sample_weight)
    positive = column_or_1d(positive)
    score = column_or_1d(y_score)
    assert_all_finite(positive)
    assert_all_finite(score)
    weight = None
    if sample_weight is not None:
        weight = check_sample_weight(column_or_1d(sample_weight), positive.shape[0])
        keep = weight != 0
        positive, score, weight = positive[keep], score[keep], weight[keep]
    fps, tps, _ = binary_clf_counts(positive.astype(bool), score.astype(np.float64), weight)
    fps, tps = roc_points(fps, tps)
    if fps[-1] <= 0:
        msg = "No negative samples in y_true, false positive value should be meaningless"
        warnings.warn(msg, undefined_metric_warning(), stacklevel=4)
        fpr = np.full(fps.shape, np.nan)
    else:
        fpr = fps / fps[-1]
    if tps[-1] <= 0:
        msg = "No positive samples in y_true, true positive value should be meaningless"
        warnings.warn(msg, undefined_metric_warning(), stacklevel=4)
        tpr = np.full(tps.shape, np.nan)
    else:
        tpr = tps / tps[-1]
    return fpr, tpr


def _auc(x: np.ndarray, y: np.ndarray) -> float:
    """``sklearn.metrics.auc``: the trapezoids under a monotonic curve.

    A curve whose ``x`` falls and rises (negative sample weights can make the
    false-positive rate fall) raises scikit-learn's ``ValueError``; a falling
    one gives the area negated; NaN rates give NaN.
    """
    if x.shape[0] < 2:
        msg = (
            f"At least 2 points are needed to compute area under curve, but x.shape = {x.shape[0]}"
        )
        raise ValueError(msg)
    direction = 1
    dx = np.diff(x)
    if np.any(dx < 0):
        if np.all(dx <= 0):
            direction = -1
        else:
            msg = f"x is neither increasing nor decreasing : {x}."
            raise ValueError(msg)
    return float(direction * trapezoid(y, x))


def _binary_roc_auc(
    y_true: np.ndarray, y_score: Any, sample_weight: Any, max_fpr: float | None
) -> float:
    """scikit-learn's ``_binary_roc_auc_score``: ``roc_curve``, then ``auc``, or McClish's.

    ``y_true`` holds the labels of one binary problem (0/1, -1/1 or bool):
    one class gives NaN with the ``UndefinedMetricWarning``.  With
    ``max_fpr`` the curve is cut at that rate by ``np.interp`` between the
    two points around it, as scikit-learn does (a curve that never reaches
    ``max_fpr`` fails where it fails there).
    """
    if np.unique(y_true).shape[0] != 2:
        warnings.warn(ROC_AUC_ONE_CLASS, undefined_metric_warning(), stacklevel=4)
        return float("nan")
    fpr, tpr = _roc_curve(y_true, y_score, sample_weight)
    if max_fpr is None or max_fpr == 1:
        return _auc(fpr, tpr)
    stop = int(np.searchsorted(fpr, max_fpr, "right"))
    x_interp = [fpr[stop - 1], fpr[stop]]
    y_interp = [tpr[stop - 1], tpr[stop]]
    tpr = np.append(tpr[:stop], np.interp(max_fpr, x_interp, y_interp))
    fpr = np.append(fpr[:stop], max_fpr)
    partial_auc = _auc(fpr, tpr)
    min_area = 0.5 * max_fpr**2
    max_area = max_fpr
    return 0.5 * (1 + (partial_auc - min_area) / (max_area - min_area))  # max_fpr's type


def _samples_roc_auc(y_true: np.ndarray, y_score: np.ndarray, max_fpr: float | None) -> np.ndarray:
    """``average="samples"``: the binary AUC of each row, computed for all rows at once.

    scikit-learn calls its binary AUC row after row; the warnings and the
    first error come in that order here: a row of one class warns (NaN), and
    the first row of two classes raises if the labels are not {0, 1} or
    {-1, 1}, or if the two matrices have different widths.
    """
    n_rows = y_true.shape[0]
    classes = np.unique(y_true)
    low = y_true.min(axis=1) if y_true.size else np.zeros(n_rows)
    high = y_true.max(axis=1) if y_true.size else np.zeros(n_rows)
    two = low != high
    first_two = int(np.argmax(two)) if two.any() else n_rows
    for _ in range(int(np.count_nonzero(~two[:first_two]))):
        warnings.warn(ROC_AUC_ONE_CLASS, undefined_metric_warning(), stacklevel=4)
    if first_two == n_rows:  # no row is scored (whatever the widths)
        return np.full(n_rows, np.nan)
    _check_pos_label_consistency(None, classes)
    check_consistent_length(y_true[first_two], y_score[first_two])
    scores = roc_auc_rows(y_true == 1, y_score, max_fpr)
    for _ in range(int(np.count_nonzero(~two[first_two:]))):
        warnings.warn(ROC_AUC_ONE_CLASS, undefined_metric_warning(), stacklevel=4)
    return scores


def _average_binary_roc_auc(
    y_true: Any,
    y_score: Any,
    average: str | None,
    sample_weight: np.ndarray | None,
    max_fpr: float | None,
) -> Any:
    """scikit-learn's ``_average_binary_score`` over ``_binary_roc_auc_score``.

    A label matrix is scored column by column (a loop per class), or row by
    row for ``average="samples"`` (all rows at once), or as one long column
    for ``"micro"``; the scores are then averaged.  Returns a float, the int
    ``0`` (``"weighted"`` with no positive weight), or the array of scores
    (``average=None``).
    """
    y_type = type_of_target(y_true)
    if y_type not in ("binary", "multilabel-indicator"):
        msg = f"{y_type} format is not supported"
        raise ValueError(msg)
    if y_type == "binary":
        return _binary_roc_auc(y_true, y_score, sample_weight, max_fpr)
    check_consistent_length(y_true, y_score, sample_weight)
    y_true = check_array(y_true)
    y_score = check_array(y_score)
    axis = 1
    score_weight = sample_weight
    average_weight = None
    if average == "micro":
        if score_weight is not None:
            score_weight = np.repeat(score_weight, y_true.shape[1])
        y_true = y_true.ravel()
        y_score = y_score.ravel()
    elif average == "weighted":
        if score_weight is not None:
            truth = np.asarray(y_true, dtype=score_weight.dtype)
            average_weight = np.sum(truth * score_weight.reshape(-1, 1), axis=0)
        else:
            average_weight = np.sum(y_true, axis=0)
        if np.isclose(np.sum(average_weight), 0):
            return 0
    elif average == "samples":
        average_weight = score_weight
        score_weight = None
        axis = 0
    if y_true.ndim == 1:
        y_true = y_true.reshape(-1, 1)
    if y_score.ndim == 1:
        y_score = y_score.reshape(-1, 1)
    if axis == 0:
        scores = _samples_roc_auc(y_true, y_score, max_fpr)
    else:
        scores = np.zeros(y_score.shape[1])
        for c in range(y_score.shape[1]):
            truth_c = np.take(y_true, [c], axis=1).ravel()
            scores[c] = _binary_roc_auc(truth_c, y_score[:, c], score_weight, max_fpr)
    if average is None:
        return scores
    if average_weight is not None:
        scores[average_weight == 0] = 0
    return float(np_average(scores, average_weight))


def _check_multiclass_labels(y_true: np.ndarray, labels: Any, n_columns: int) -> np.ndarray:
    """The classes of a multiclass AUC: ``labels`` checked, or the sorted values of ``y_true``."""
    if labels is not None:
        labels = column_or_1d(labels)
        classes = np.unique(labels)
        if len(classes) != len(labels):
            msg = "Parameter 'labels' must be unique"
            raise ValueError(msg)
        if not np.array_equal(classes, labels):
            msg = "Parameter 'labels' must be ordered"
            raise ValueError(msg)
        if len(classes) != n_columns:
            msg = (
                f"Number of given labels, {len(classes)}, not equal to the number of columns "
                f"in 'y_score', {n_columns}"
            )
            raise ValueError(msg)
        if len(np.setdiff1d(y_true, classes)):
            msg = "'y_true' contains labels not in parameter 'labels'"
            raise ValueError(msg)
        return classes
    classes = np.unique(y_true)
    if len(classes) != n_columns:
        msg = "Number of classes in y_true not equal to the number of columns in 'y_score'"
        raise ValueError(msg)
    return classes


def _multiclass_roc_auc(
    y_true: np.ndarray,
    y_score: np.ndarray,
    labels: Any,
    multi_class: str,
    average: str | None,
    sample_weight: np.ndarray | None,
) -> Any:
    """scikit-learn's ``_multiclass_roc_auc_score``: one-vs-rest or one-vs-one (Hand & Till)."""
    if y_score.ndim != 2:
        msg = (
            "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` contains "
            f"multiple classes. Got `y_score.shape={y_score.shape}`."
        )
        raise ValueError(msg)
    if not np.allclose(1, y_score.sum(axis=1)):
        msg = (
            "Target scores need to be probabilities for multiclass roc_auc, i.e. they should "
            "sum up to 1.0 over classes"
        )
        raise ValueError(msg)
    options: tuple[str | None, ...] = ("macro", "weighted", None)
    if multi_class == "ovr":
        options = ("micro", *options)
    if average not in options:
        msg = f"average must be one of {options} for multiclass problems"
        raise ValueError(msg)
    if average is None and multi_class == "ovo":
        msg = "average=None is not implemented for multi_class='ovo'."
        raise NotImplementedError(msg)
    classes = _check_multiclass_labels(y_true, labels, y_score.shape[1])
    if multi_class == "ovr":
        one_hot = (y_true.reshape(-1)[:, np.newaxis] == classes[np.newaxis, :]).astype(np.int64)
        return _average_binary_roc_auc(one_hot, y_score, average, sample_weight, None)
    if sample_weight is not None:
        msg = (
            "sample_weight is not supported for multiclass one-vs-one ROC AUC, "
            "'sample_weight' must be None in this case."
        )
        raise ValueError(msg)
    encoded = np.searchsorted(classes, y_true)
    check_consistent_length(encoded, y_score)
    present = np.unique(encoded)
    n_pairs = present.shape[0] * (present.shape[0] - 1) // 2
    pair_scores = np.empty(n_pairs)
    prevalence = np.empty(n_pairs) if average == "weighted" else None
    for ix, (a, b) in enumerate(itertools.combinations(present, 2)):
        a_mask = encoded == a
        b_mask = encoded == b
        ab_mask = a_mask | b_mask
        if prevalence is not None:
            prevalence[ix] = np.average(ab_mask)
        a_score = _binary_roc_auc(a_mask[ab_mask], y_score[ab_mask, a], None, None)
        b_score = _binary_roc_auc(b_mask[ab_mask], y_score[ab_mask, b], None, None)
        pair_scores[ix] = (a_score + b_score) / 2
    return np.average(pair_scores, weights=prevalence)  # np.float64, as scikit-learn returns


@_binds_like_sklearn
def roc_auc_score(
    y_true: Any,
    y_score: Any,
    *,
    average: str | None = "macro",
    sample_weight: Any = None,
    max_fpr: float | None = None,
    multi_class: str = "raise",
    labels: Any = None,
) -> Any:
    r"""Area under the ROC curve, as ``sklearn.metrics.roc_auc_score``.

    The trapezoidal area under ``roc_curve``: the share of (positive,
    negative) pairs the score orders correctly, a tie counting one half.
    ``max_fpr`` gives the McClish-standardised partial AUC over
    ``[0, max_fpr]``.  A label matrix is scored label by label (or sample by
    sample, or as one long column) and averaged; a multiclass target one
    class against the rest (``"ovr"``) or pair by pair (``"ovo"``, Hand and
    Till).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True labels: binary (the greater label is the positive one),
        multiclass, or a label indicator matrix (0/1 or -1/1).
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Target scores: of the greater class for a binary target; one column
        per class (in the order of ``labels``, or of the sorted classes) for
        a multiclass target, probabilities that sum to 1 per row; one column
        per label for a label matrix.
    average : {'micro', 'macro', 'samples', 'weighted'} or None, default='macro'
        How the scores of a label matrix or a multiclass target are
        averaged: ``None`` returns them all; ``'micro'`` scores every
        (sample, label) cell as one binary problem; ``'macro'`` is their
        mean; ``'weighted'`` weights each label by its (weighted) positive
        count; ``'samples'`` scores each row (label matrix only).  Multiclass
        ``'ovo'`` takes ``'macro'`` or ``'weighted'`` (by the pair's
        prevalence); ``'ovr'`` also ``'micro'`` and ``None``.  Ignored for a
        binary target.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (not with ``multi_class='ovo'``).
    max_fpr : float in (0, 1], default=None
        Cut the curve at this false-positive rate (partial AUC); ``None`` or
        1 for a multiclass target.
    multi_class : {'raise', 'ovr', 'ovo'}, default='raise'
        One-vs-rest or one-vs-one for a multiclass target; ``'raise'``
        refuses one.
    labels : array-like, default=None
        The classes of a multiclass target (unique, sorted, one per column of
        ``y_score``), when ``y_true`` lacks some.

    Returns
    -------
    auc : float or ndarray
        The area (a ``np.float64`` for ``multi_class='ovo'``, as
        scikit-learn's); an array of per-label areas for ``average=None``;
        the int ``0`` for ``average='weighted'`` when no label has a positive
        weight.
        NaN (with an ``UndefinedMetricWarning``) for a label that holds one
        class.

    Raises
    ------
    InvalidParameterError
        A parameter outside its domain (scikit-learn's sentence).
    ValueError
        scikit-learn's sentences: NaN or infinite input, inconsistent
        lengths, a 2-D ``y_score`` for a binary target, all sample weights
        zero; an ROC curve whose false-positive rate falls and rises
        (negative weights: ``x is neither increasing nor decreasing``), or
        one cut by ``max_fpr`` to a single point; multiclass rows that do
        not sum to 1, bad ``labels``, an ``average`` or ``max_fpr`` the
        multiclass case does not take, ``multi_class='raise'``.
    NotImplementedError
        ``average=None`` with ``multi_class='ovo'``.

    Warns
    -----
    UndefinedMetricWarning
        A binary problem (the target, a label, a row) that holds one class:
        its AUC is NaN; or a class of zero total weight.

    See Also
    --------
    lodestar_polars.roc_auc : the binary AUC per group of a long Polars frame.
    lodestar_polars.group_auc : the impression-weighted mean of per-user AUC.

    Examples
    --------
    >>> from lodestar_polars.arrays import roc_auc_score
    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], max_fpr=0.5)
    0.666666666666...
    >>> proba = [[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.1, 0.6, 0.3]]
    >>> roc_auc_score([0, 1, 2, 2], proba, multi_class="ovr")
    0.847222222222...
    >>> print(roc_auc_score([0, 1, 2, 2], proba, multi_class="ovo"))  # a NumPy float, as there
    0.875
    >>> roc_auc_score([[1, 0], [0, 1], [1, 1]], [[0.9, 0.2], [0.3, 0.7], [0.6, 0.4]], average=None)
    array([1., 1.])
    """
    caller = "roc_auc_score"
    check_array_like(y_true, "y_true", caller)
    check_array_like(y_score, "y_score", caller)
    check_average(average, caller)
    check_array_like(sample_weight, "sample_weight", caller, allow_none=True)
    if max_fpr is not None and not (
        isinstance(max_fpr, numbers.Real) and not isinstance(max_fpr, bool) and 0 < max_fpr <= 1
    ):
        msg = (
            f"The 'max_fpr' parameter of {caller} must be a float in the range (0.0, 1.0] or "
            f"None. Got {max_fpr!r} instead."
        )
        raise InvalidParameterError(msg)
    if not (isinstance(multi_class, str) and multi_class in ("raise", "ovr", "ovo")):
        msg = (
            f"The 'multi_class' parameter of {caller} must be a str among "
            f"{_MULTI_CLASS_OPTIONS}. Got {multi_class!r} instead."
        )
        raise InvalidParameterError(msg)
    check_array_like(labels, "labels", caller, allow_none=True)
    y_type = type_of_target(y_true, input_name="y_true")
    y_true = check_array(y_true, ensure_2d=False, numeric=False)
    y_score = check_array(y_score, ensure_2d=False)
    if sample_weight is not None:
        sample_weight = column_or_1d(sample_weight)
    if y_type == "multiclass" or (
        y_type == "binary" and y_score.ndim == 2 and y_score.shape[1] > 2
    ):
        if max_fpr is not None and max_fpr != 1.0:
            msg = (
                "Partial AUC computation not available in multiclass setting, 'max_fpr' must be"
                f" set to `None`, received `max_fpr={max_fpr}` instead"
            )
            raise ValueError(msg)
        if multi_class == "raise":
            msg = "multi_class must be in ('ovo', 'ovr')"
            raise ValueError(msg)
        return _multiclass_roc_auc(y_true, y_score, labels, multi_class, average, sample_weight)
    if y_type == "binary":
        classes = np.unique(y_true)
        positive = (y_true == classes[-1]) if classes.shape[0] == 2 else np.zeros(y_true.shape)
        y_true = positive.astype(np.int64).reshape(-1)
    return _average_binary_roc_auc(y_true, y_score, average, sample_weight, max_fpr)
