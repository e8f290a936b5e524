"""The checks the probability metrics share: positive labels, probability ranges, one-hot labels."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from lodestar_polars.arrays._sklearn_compat import (
    check_array,
    check_consistent_length,
    check_sample_weight,
    column_or_1d,
    num_samples,
    type_of_target,
)


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
