"""The checks the ranking metrics share: paired score matrices, their rows, multilabel targets."""

from __future__ import annotations

from typing import Any

import numpy as np

from lodestar_polars._base.messages import (
    DIFFERENT_SHAPE,
    FORMAT_NOT_SUPPORTED,
)
from lodestar_polars.arrays._sklearn_compat import (
    check_array,
    check_consistent_length,
    type_of_target,
)

_DCG_TARGETS = ("multilabel-indicator", "continuous-multioutput", "multiclass-multioutput")


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


def _sequential_sum(values: np.ndarray) -> np.float64:
    """``0.0 + v[0] + v[1] + ...`` in this order (``np.sum`` would pair the terms)."""
    return np.float64(np.cumsum(np.concatenate(([0.0], values)))[-1])


def _label_binarize(y_true: Any, classes: np.ndarray) -> np.ndarray:
    """One-hot ``int`` matrix of a multiclass target over ``classes`` (sorted)."""
    y = np.asarray(y_true).reshape(-1)
    onehot: np.ndarray = (y[:, np.newaxis] == classes[np.newaxis, :]).astype(np.int64)
    return onehot
