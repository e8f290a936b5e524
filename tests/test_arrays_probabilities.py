"""``lp.arrays.log_loss`` and ``brier_score_loss``: label matrices, ``labels=``, many classes.

The expected numbers are written as arithmetic here; the sentences are
scikit-learn 1.9.1's (``LabelBinarizer`` and
``_validate_multiclass_probabilistic_prediction``; the corpus freezes them
too).  scikit-learn is not imported.
"""

from __future__ import annotations

import math
import re
import warnings
from typing import Any

import numpy as np
import pytest

from lodestar_polars import arrays


def approx(expected: Any) -> Any:
    return pytest.approx(expected, rel=1e-12, abs=1e-12)


P = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.5, 0.4, 0.1]])
Y = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]])
CLASSES = np.array([0, 1, 2, 0])


def test_log_loss_of_a_label_matrix() -> None:
    expected = -(math.log(0.7) + math.log(0.5) + math.log(0.4) + math.log(0.5)) / 4
    assert arrays.log_loss(Y, P) == approx(expected)
    assert arrays.log_loss(Y, P) == approx(arrays.log_loss(CLASSES, P))
    assert arrays.log_loss(Y.tolist(), P.tolist()) == approx(expected)
    assert arrays.log_loss(Y.astype(bool), P) == approx(expected)
    assert arrays.log_loss(Y, P, normalize=False) == approx(4 * expected)


def test_log_loss_of_a_label_matrix_weighted() -> None:
    w = np.array([1.0, 2.0, 3.0, 4.0])
    losses = -np.log([0.7, 0.5, 0.4, 0.5])
    assert arrays.log_loss(Y, P, sample_weight=w) == approx(np.dot(losses, w) / w.sum())


def test_label_matrix_values_are_kept_as_they_are() -> None:
    """A row with two ones adds both logarithms; a {0, 2} matrix doubles them."""
    two = np.array([[1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]])
    expected = -(math.log(0.7) + math.log(0.2) + math.log(0.5) + math.log(0.4) + math.log(0.5))
    assert arrays.log_loss(two, P) == approx(expected / 4)
    doubled = -(math.log(0.7) + math.log(0.5) + math.log(0.4) + math.log(0.5)) / 2
    assert arrays.log_loss(2 * Y, P) == approx(doubled)
    # an all-zero matrix loses nothing; all ones add every logarithm
    assert arrays.log_loss(np.zeros((4, 3), dtype=int), P) == 0.0
    assert arrays.log_loss(np.ones((4, 3), dtype=int), P) == approx(-np.log(P).sum() / 4)


def test_two_column_label_matrix_with_a_vector_of_probabilities() -> None:
    """The vector is the second column; the first is 1 - p."""
    y = np.array([[0, 1], [1, 0], [1, 1]])
    p = np.array([0.8, 0.3, 0.6])
    expected = -(math.log(0.8) + math.log(0.7) + math.log(0.4) + math.log(0.6)) / 3
    assert arrays.log_loss(y, p) == approx(expected)


def test_log_loss_labels() -> None:
    """labels= names classes that y_true lacks: their columns count zero."""
    p = np.array([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]])
    expected = -(math.log(0.6) + math.log(0.6)) / 2
    assert arrays.log_loss([0, 2], p, labels=[0, 1, 2]) == approx(expected)
    assert arrays.log_loss(["a", "c"], p, labels=["a", "b", "c"]) == approx(expected)


def test_brier_of_a_label_matrix() -> None:
    rows = ((Y - P) ** 2).sum(axis=1)
    assert arrays.brier_score_loss(Y, P) == approx(rows.mean())
    assert arrays.brier_score_loss(Y, P, scale_by_half=True) == approx(rows.mean() / 2)
    assert arrays.brier_score_loss(Y, P) == approx(arrays.brier_score_loss(CLASSES, P))
    w = np.array([1.0, 0.0, 2.0, 1.0])
    assert arrays.brier_score_loss(Y, P, sample_weight=w) == approx(np.dot(rows, w) / w.sum())


def test_brier_two_column_label_matrix_is_halved() -> None:
    y = np.array([[0, 1], [1, 0], [1, 1]])
    p = np.array([[0.2, 0.8], [0.7, 0.3], [0.4, 0.6]])
    rows = ((y - p) ** 2).sum(axis=1)
    assert arrays.brier_score_loss(y, p) == approx(rows.mean() / 2)
    assert arrays.brier_score_loss(y, p, scale_by_half=False) == approx(rows.mean())


def test_brier_multiclass_labels() -> None:
    """scikit-learn's docstring example: three classes, the sum over them, unhalved."""
    p = [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.2, 0.2, 0.6]]
    expected = (0.2**2 + 0.1**2 + 0.1**2) + (0.2**2 + 0.3**2 + 0.1**2) + (0.2**2 + 0.2**2 + 0.4**2)
    got = arrays.brier_score_loss(["eggs", "ham", "spam"], p, labels=["eggs", "ham", "spam"])
    assert got == approx(expected / 3)
    # a class that y_true lacks, named by labels
    got = arrays.brier_score_loss(["eggs", "spam"], p[:2], labels=["eggs", "ham", "spam"])
    assert got == approx(((0.2**2 + 0.1**2 + 0.1**2) + (0.2**2 + 0.7**2 + 0.9**2)) / 2)


MULTIOUTPUT = "Multioutput target data is not supported with label binarization"


@pytest.mark.parametrize("function", [arrays.log_loss, arrays.brier_score_loss])
@pytest.mark.parametrize(
    ("y_true", "y_proba", "labels", "exc", "msg"),
    [
        (Y, P, [0, 1, 2], ValueError, "The object was not fitted with multilabel input."),
        (np.array([[0, 1, 2], [2, 1, 0], [0, 1, 2], [1, 1, 1]]), P, None, ValueError, MULTIOUTPUT),
        (Y * 0.5, P, None, ValueError, MULTIOUTPUT),
        ([0.5, 0.2, 0.3, 0.1], P, None, ValueError, "Unknown label type: ([0.5, 0.2, 0.3, 0.1],)"),
        (
            Y,
            P[:, :2] / P[:, :2].sum(axis=1, keepdims=True),
            None,
            ValueError,
            "y_true and y_prob contain different number of classes: 3 vs 2. Please provide the "
            "true labels explicitly through the labels argument. Classes found in y_true: [0 1 2]",
        ),
        ([[0], [1], [1], [0]], P, None, TypeError, "unhashable type: 'list'"),
    ],
)
def test_label_matrix_sentences(
    function: Any, y_true: Any, y_proba: Any, labels: Any, exc: type, msg: str
) -> None:
    with pytest.raises(exc, match=f"^{re.escape(msg)}$"):
        function(y_true, y_proba, labels=labels)


def test_rows_that_do_not_sum_to_one_warn_before_the_class_count_fails() -> None:
    msg = "The y_prob values do not sum to one. Make sure to pass probabilities."
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="^y_true and y_prob contain different number"):
            arrays.log_loss(Y, P[:, :2])
    assert [str(w.message) for w in caught] == [msg]


def test_float32_probabilities_are_computed_in_float32() -> None:
    """scikit-learn keeps float32 probabilities in float32 (its clip, log and mean)."""
    p = np.array([0.3, 0.6, 0.9], dtype=np.float32)
    y = np.array([0, 1, 0])
    one = np.float32(1)
    logs = np.array([np.log(one - p[0]), np.log(p[1]), np.log(one - p[2])], dtype=np.float32)
    assert arrays.log_loss(y, p) == float(-np.mean(logs))
    assert arrays.log_loss(y, np.c_[one - p, p]) == float(-np.mean(logs))
    t = y.astype(np.float32)
    rows = ((one - t) - (one - p)) ** 2 + (t - p) ** 2
    assert rows.dtype == np.float32
    assert arrays.brier_score_loss(y, p) == float(np.mean(rows) * np.float32(0.5))
