"""The probability metrics of :mod:`lodestar_polars.arrays`.

ROC AUC (binary, multiclass, label matrices), log loss, the Brier score and the calibration
curve, as scikit-learn gives them.
"""

from __future__ import annotations

import itertools
import numbers
import warnings
from typing import Any

import numpy as np

from lodestar_polars._base.validation import (
    ROC_AUC_ONE_CLASS,
    check_bool,
    check_n_bins,
    check_strategy,
)
from lodestar_polars._core.calibration import (
    bin_ids,
    binary_clf_counts,
    brier_row,
    log_loss_row,
    quantile_edges,
    roc_points,
    trapezoid,
    uniform_edges,
)
from lodestar_polars._core.multiclass import roc_auc_rows
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
    num_samples,
    type_of_target,
)
from lodestar_polars.arrays._sklearn_compat import average as np_average
from lodestar_polars.exceptions import InvalidParameterError, undefined_metric_warning

_MULTI_CLASS_OPTIONS = "{'ovo', 'raise', 'ovr'}"  # as scikit-learn prints it under PYTHONHASHSEED=0


def _check_pos_label_consistency(pos_label: Any, y_true: np.ndarray) -> Any:
    """scikit-learn's ``_check_pos_label_consistency``: infer 1 for {0, 1} / {-1, 1} labels."""
    if pos_label is not None:
        return pos_label
    classes = np.unique(y_true)
    allowed = ([0, 1], [-1, 1], [0], [-1], [1])
    if (
        classes.dtype.kind in "OUS"
        or classes.shape[0] > 2
        or not any(
            classes.shape[0] == len(a) and bool(np.all(classes == np.asarray(a))) for a in allowed
        )
    ):
        classes_repr = ", ".join(repr(c) for c in classes.tolist())
        msg = (
            f"y_true takes value in {{{classes_repr}}} and pos_label is not "
            "specified: either make y_true take value in {0, 1} or "
            "{-1, 1} or pass pos_label explicitly."
        )
        raise ValueError(msg)
    return 1


def _check_probability_range(y_prob: np.ndarray, below: str) -> None:
    if np.max(y_prob) > 1:
        msg = f"y_prob contains values greater than 1: {np.max(y_prob)}"
        raise ValueError(msg)
    if np.min(y_prob) < 0:
        msg = f"y_prob contains values {below} than 0: {np.min(y_prob)}"
        raise ValueError(msg)


def _as_float_probabilities(y_proba: Any) -> np.ndarray:
    """``check_array(y_proba, ensure_2d=False, dtype=float)``: float64 unless float32 already."""
    array = check_array(y_proba, ensure_2d=False)
    return array if array.dtype.kind == "f" else array.astype(np.float64)


_MULTIOUTPUT = "Multioutput target data is not supported with label binarization"


def _binarizer_classes(y: Any) -> tuple[str, np.ndarray]:
    """``LabelBinarizer().fit(y)``: the type of ``y`` and its classes (``unique_labels``).

    A label matrix has one class per column (``0 .. n_columns - 1``); other
    targets their sorted distinct values.  Multioutput targets are refused,
    and continuous ones (``Unknown label type``), in scikit-learn's sentences.
    """
    y_type = type_of_target(y, input_name="y")
    if "multioutput" in y_type:
        raise ValueError(_MULTIOUTPUT)
    if y_type == "multilabel-indicator":
        return y_type, np.arange(np.shape(y)[1])
    if y_type not in ("binary", "multiclass"):
        msg = f"Unknown label type: {(y,)!r}"
        raise ValueError(msg)
    if not hasattr(y, "__array__"):
        set(y)  # scikit-learn's unique values of a list: a list of rows fails (unhashable)
    return y_type, np.unique(np.asarray(y))


def _one_hot(y_true: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's ``_one_hot_encoding_multiclass_target``: ``(one_hot, classes)``.

    The classes are sorted (``LabelBinarizer``); two classes give the two
    columns ``(1 - t, t)``.  A label matrix ``y_true`` is its own encoding,
    one class per column, its values kept as they are (as ``label_binarize``
    keeps them).
    """
    if labels is not None:
        fit_type, classes = _binarizer_classes(labels)
        same = np.asarray(classes == np.asarray(labels))
        if not (classes.shape == np.shape(labels) and np.all(same)) and not (
            fit_type == "multilabel-indicator" and np.all(same)
        ):
            msg = (
                f"Labels passed were {labels}. But this function "
                "assumes labels are ordered lexicographically. "
                f"Pass the ordered labels={classes.tolist()} and ensure that "
                "the columns of y_prob correspond to this ordering."
            )
            warnings.warn(msg, UserWarning, stacklevel=3)
        if not np.all(np.isin(np.asarray(y_true), np.asarray(labels))):
            undeclared = set(y_true) - set(labels)
            msg = (
                f"y_true contains values {undeclared} not belonging to the passed labels {labels}."
            )
            raise ValueError(msg)
    else:
        fit_type, classes = _binarizer_classes(y_true)
    if classes.shape[0] == 1:
        if labels is None:
            msg = (
                f"y_true contains only one label ({classes[0]}). Please provide the list of all "
                "expected class labels explicitly through the labels argument."
            )
        else:
            msg = f"The labels array needs to contain at least two labels, got {classes}."
        raise ValueError(msg)
    y_type = type_of_target(y_true)
    if y_type.startswith("multilabel"):
        if not fit_type.startswith("multilabel"):
            msg = "The object was not fitted with multilabel input."
            raise ValueError(msg)
        matrix = np.asarray(y_true)
        if matrix.shape[1] != classes.shape[0]:
            msg = (
                f"classes {classes} mismatch with the labels {np.arange(matrix.shape[1])} "
                "found in the data"
            )
            raise ValueError(msg)
        dtype = matrix.dtype if matrix.dtype.kind == "i" else np.int64
        return matrix.astype(dtype), classes
    if "multioutput" in y_type:
        raise ValueError(_MULTIOUTPUT)
    if y_type not in ("binary", "multiclass"):
        msg = f"{y_type} target data is not supported with label binarization"
        raise ValueError(msg)
    y = column_or_1d(y_true)
    one_hot = (y[:, np.newaxis] == classes[np.newaxis, :]).astype(np.int64)
    return one_hot, classes


def _probability_matrix(
    y_true: Any, y_proba: np.ndarray, sample_weight: Any, labels: Any
) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's ``_validate_multiclass_probabilistic_prediction``."""
    _check_probability_range(y_proba, "lower")
    check_consistent_length(y_proba, y_true, sample_weight)
    if sample_weight is not None:
        check_sample_weight(np.asarray(sample_weight), num_samples(y_proba))
    one_hot, classes = _one_hot(y_true, labels)
    if y_proba.ndim == 1:
        y_proba = y_proba[:, np.newaxis]
    if y_proba.shape[1] == 1:
        y_proba = np.concatenate([1 - y_proba, y_proba], axis=1)
    eps = np.finfo(y_proba.dtype).eps
    if not np.all(np.isclose(np.sum(y_proba, axis=1), 1, rtol=np.sqrt(eps))):
        msg = "The y_prob values do not sum to one. Make sure to pass probabilities."
        warnings.warn(msg, UserWarning, stacklevel=3)
    if classes.shape[0] != y_proba.shape[1]:
        if labels is None:
            msg = (
                "y_true and y_prob contain different number of classes: "
                f"{one_hot.shape[1]} vs {y_proba.shape[1]}. Please provide the true labels "
                "explicitly through the labels argument. Classes found in "
                f"y_true: {classes}"
            )
        else:
            msg = (
                "The number of classes in labels is different from that in y_prob. "
                f"Classes found in labels: {classes}"
            )
        raise ValueError(msg)
    return one_hot, y_proba


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
