"""``lp.arrays``'s ROC AUC of label matrices and multiclass targets, and negative weights.

The expected values are counted by hand here: the AUC as the share of
(positive, negative) pairs ordered correctly (a tie counting one half), the
partial AUC from a curve built threshold by threshold.  The sentences are
scikit-learn 1.9.1's (corpus/data/roc_auc_score.json freezes them too).
scikit-learn is not imported.
"""

from __future__ import annotations

import itertools
import re
import warnings
from typing import Any

import numpy as np
import pytest

from lodestar_polars import arrays
from lodestar_polars._core.multiclass import roc_auc_rows
from lodestar_polars.exceptions import UndefinedMetricWarning

ONE_CLASS = "Only one class is present in y_true. ROC AUC score is not defined in that case."


def approx(expected: Any) -> Any:
    return pytest.approx(expected, rel=1e-12, abs=1e-12)


def pair_auc(positive: Any, score: Any) -> float:
    """The share of (positive, negative) pairs the score orders correctly, ties one half."""
    positive = np.asarray(positive, dtype=bool)
    score = np.asarray(score, dtype=float)
    pos, neg = score[positive], score[~positive]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return float(wins / (len(pos) * len(neg)))


def partial_auc(positive: Any, score: Any, max_fpr: float) -> float:
    """McClish's standardised partial AUC from the curve built threshold by threshold."""
    positive = np.asarray(positive, dtype=bool)
    score = np.asarray(score, dtype=float)
    fpr, tpr = [0.0], [0.0]
    for threshold in sorted(set(score.tolist()), reverse=True):
        taken = score >= threshold
        fpr.append(np.sum(taken & ~positive) / np.sum(~positive))
        tpr.append(np.sum(taken & positive) / np.sum(positive))
    area = 0.0
    for x0, x1, y0, y1 in zip(fpr, fpr[1:], tpr, tpr[1:], strict=False):
        if x1 <= max_fpr:
            area += (x1 - x0) * (y0 + y1) / 2
        elif x0 < max_fpr:
            y_cut = y0 + (y1 - y0) * (max_fpr - x0) / (x1 - x0)
            area += (max_fpr - x0) * (y0 + y_cut) / 2
    min_area = max_fpr**2 / 2
    return 0.5 * (1 + (area - min_area) / (max_fpr - min_area))


def _caught(call: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [str(w.message) for w in caught]


# --------------------------------------------------------------------------- negative weights


def test_negative_weights_make_the_false_positive_rate_fall() -> None:
    """scikit-learn's ``auc`` refuses a curve whose x falls and rises.

    Ranked by score: (pos, -1), (neg, 1), (neg, 1), (neg, -1).  The positive
    weight totals -1 (no positive: NaN rates, with the warning); the false
    positives run -0, 1, 2, 1, the collinear middle point is dropped and
    (0, 0) put first: fpr = [0, -0, 2, 1], which falls and rises.
    """
    msg = "x is neither increasing nor decreasing : [ 0. -0.  2.  1.]."
    with pytest.warns(UndefinedMetricWarning, match="^No positive samples in y_true"):  # noqa: PT031
        with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
            arrays.roc_auc_score([0, 0, 0, 1], [0.1, 0.2, 0.3, 0.4], sample_weight=[-1, 1, 1, -1])


def test_negative_weight_on_a_negative() -> None:
    """fps = 0, 0 (-1 at the top), 2 after the first two: [0, 0, 2, 1] after (0, 0)."""
    msg = "x is neither increasing nor decreasing : [0. 0. 2. 1.]."
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        arrays.roc_auc_score([0, 0, 0, 1], [0.1, 0.2, 0.3, 0.4], sample_weight=[-1, 1, 1, 1])


def test_negative_weights_with_max_fpr() -> None:
    """The partial curve [0, max_fpr] rises: the area is taken (the positive ranks first)."""
    got = arrays.roc_auc_score(
        [0, 0, 0, 1], [0.1, 0.2, 0.3, 0.4], sample_weight=[-1, 1, 1, 1], max_fpr=0.5
    )
    assert got == 1.0


def test_zero_weights_leave_one_point_under_max_fpr() -> None:
    """Zero weight drops the one negative: fpr is NaN, the cut curve a single point."""
    msg = "At least 2 points are needed to compute area under curve, but x.shape = 1"
    with pytest.warns(UndefinedMetricWarning, match="^No negative samples in y_true"):  # noqa: PT031
        with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
            arrays.roc_auc_score([0, 1, 1], [0.1, 0.2, 0.3], sample_weight=[0, 1, 1], max_fpr=0.5)


# --------------------------------------------------------------------------- label matrices

Y = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1], [1, 0, 0]])
S = np.array(
    [
        [0.9, 0.2, 0.4],
        [0.3, 0.6, 0.4],
        [0.5, 0.5, 0.1],
        [0.5, 0.3, 0.8],
        [0.2, 0.7, 0.4],
    ]
)
W = np.array([1.0, 2.0, 0.5, 1.0, 3.0])


def _weighted_pair_auc(positive: np.ndarray, score: np.ndarray, weight: np.ndarray) -> float:
    wins = total = 0.0
    for i, j in itertools.product(np.flatnonzero(positive), np.flatnonzero(~positive)):
        pair = weight[i] * weight[j]
        wins += pair * ((score[i] > score[j]) + 0.5 * (score[i] == score[j]))
        total += pair
    return wins / total


def test_multilabel_averages() -> None:
    columns = [pair_auc(Y[:, c], S[:, c]) for c in range(3)]
    assert arrays.roc_auc_score(Y, S, average=None) == approx(columns)
    assert arrays.roc_auc_score(Y, S) == approx(np.mean(columns))
    support = Y.sum(axis=0)
    assert arrays.roc_auc_score(Y, S, average="weighted") == approx(
        np.dot(columns, support) / support.sum()
    )
    assert arrays.roc_auc_score(Y, S, average="micro") == approx(pair_auc(Y.ravel(), S.ravel()))
    rows = [pair_auc(Y[i], S[i]) for i in range(5)]
    assert arrays.roc_auc_score(Y, S, average="samples") == approx(np.mean(rows))
    assert arrays.roc_auc_score(Y, S, average="samples", sample_weight=W) == approx(
        np.dot(rows, W) / W.sum()
    )


def test_multilabel_weighted_columns() -> None:
    columns = [_weighted_pair_auc(Y[:, c] == 1, S[:, c], W) for c in range(3)]
    assert arrays.roc_auc_score(Y, S, average=None, sample_weight=W) == approx(columns)
    support = (Y * W[:, np.newaxis]).sum(axis=0)
    assert arrays.roc_auc_score(Y, S, average="weighted", sample_weight=W) == approx(
        np.dot(columns, support) / support.sum()
    )
    micro = _weighted_pair_auc(Y.ravel() == 1, S.ravel(), np.repeat(W, 3))
    assert arrays.roc_auc_score(Y, S, average="micro", sample_weight=W) == approx(micro)


def test_minus_one_one_matrix_is_a_label_matrix() -> None:
    assert arrays.roc_auc_score(2 * Y - 1, S, average=None) == approx(
        arrays.roc_auc_score(Y, S, average=None)
    )


def test_zero_two_matrix_is_refused_as_scikit_learn_does() -> None:
    msg = (
        "y_true takes value in {0, 2} and pos_label is not specified: either make y_true "
        "take value in {0, 1} or {-1, 1} or pass pos_label explicitly."
    )
    for average in ("macro", "samples", "micro"):
        with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
            arrays.roc_auc_score(2 * Y, S, average=average)


@pytest.mark.parametrize("max_fpr", [0.1, 0.25, 0.5, 0.8])
def test_samples_partial_auc(max_fpr: float) -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, (40, 7))
    y[:, 0], y[:, 1] = 1, 0  # every row holds both classes
    s = np.round(rng.random((40, 7)), 1)  # ties
    rows = [partial_auc(y[i], s[i], max_fpr) for i in range(40)]
    assert arrays.roc_auc_score(y, s, average="samples", max_fpr=max_fpr) == approx(np.mean(rows))
    columns = [partial_auc(y[:, c], s[:, c], max_fpr) for c in range(2, 7)]
    got = arrays.roc_auc_score(y[:, 2:], s[:, 2:], average=None, max_fpr=max_fpr)
    assert got == approx(columns)


def test_rows_at_once_equal_pair_counts() -> None:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, (200, 6))
    s = rng.integers(0, 4, (200, 6)).astype(float)
    got = roc_auc_rows(y, s)
    for i in range(200):
        if 0 < y[i].sum() < 6:
            assert got[i] == approx(pair_auc(y[i], s[i]))
        else:
            assert np.isnan(got[i])


def test_samples_one_class_rows_warn_in_order() -> None:
    """A row of one class is NaN and warns, one warning per row, as scikit-learn loops."""
    y = np.array([[1, 1, 1], [0, 1, 0], [0, 0, 0]])
    s = np.array([[0.1, 0.2, 0.3], [0.1, 0.2, 0.3], [0.1, 0.2, 0.3]])
    got, caught = _caught(lambda: arrays.roc_auc_score(y, s, average="samples"))
    assert np.isnan(got)
    assert caught == [ONE_CLASS, ONE_CLASS]


def test_samples_width_mismatch_fails_on_the_first_two_class_row() -> None:
    y = np.array([[1, 1, 1], [0, 1, 0], [0, 0, 0]])
    s = np.array([[0.1, 0.2], [0.1, 0.2], [0.1, 0.2]])
    msg = "Found input variables with inconsistent numbers of samples: [3, 2]"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
            arrays.roc_auc_score(y, s, average="samples")
    assert [str(w.message) for w in caught] == [ONE_CLASS]


def test_weighted_without_positive_weight_is_int_zero() -> None:
    got = arrays.roc_auc_score(np.zeros((3, 2), dtype=int), S[:3, :2], average="weighted")
    assert got == 0
    assert type(got) is int


# --------------------------------------------------------------------------- multiclass

Y3 = np.array([0, 1, 2, 2, 1, 0, 2])
P3 = np.array(
    [
        [0.6, 0.3, 0.1],
        [0.2, 0.5, 0.3],
        [0.1, 0.3, 0.6],
        [0.3, 0.3, 0.4],
        [0.4, 0.4, 0.2],
        [0.5, 0.1, 0.4],
        [0.2, 0.5, 0.3],
    ]
)


def test_ovr() -> None:
    columns = [pair_auc(Y3 == c, P3[:, c]) for c in range(3)]
    assert arrays.roc_auc_score(Y3, P3, multi_class="ovr", average=None) == approx(columns)
    assert arrays.roc_auc_score(Y3, P3, multi_class="ovr") == approx(np.mean(columns))
    prevalence = np.bincount(Y3) / len(Y3)
    assert arrays.roc_auc_score(Y3, P3, multi_class="ovr", average="weighted") == approx(
        np.dot(columns, prevalence)
    )
    one_hot = (Y3[:, np.newaxis] == np.arange(3)).ravel()
    assert arrays.roc_auc_score(Y3, P3, multi_class="ovr", average="micro") == approx(
        pair_auc(one_hot, P3.ravel())
    )


def test_ovr_weighted() -> None:
    weight = np.array([1.0, 2.0, 1.0, 0.5, 1.0, 3.0, 2.0])
    columns = [_weighted_pair_auc(Y3 == c, P3[:, c], weight) for c in range(3)]
    got = arrays.roc_auc_score(Y3, P3, multi_class="ovr", average=None, sample_weight=weight)
    assert got == approx(columns)


def test_ovo() -> None:
    """Hand and Till: the mean over pairs of the two one-against-the-other AUCs."""
    pairs, prevalence = [], []
    for a, b in itertools.combinations(range(3), 2):
        mask = (Y3 == a) | (Y3 == b)
        pairs.append(
            (pair_auc(Y3[mask] == a, P3[mask, a]) + pair_auc(Y3[mask] == b, P3[mask, b])) / 2
        )
        prevalence.append(mask.mean())
    assert arrays.roc_auc_score(Y3, P3, multi_class="ovo") == approx(np.mean(pairs))
    assert arrays.roc_auc_score(Y3, P3, multi_class="ovo", average="weighted") == approx(
        np.dot(pairs, prevalence) / np.sum(prevalence)
    )


def test_string_classes_and_labels() -> None:
    names = np.array(["ant", "bee", "cat"])[Y3]
    expected = arrays.roc_auc_score(Y3, P3, multi_class="ovr")
    assert arrays.roc_auc_score(names, P3, multi_class="ovr") == expected
    got = arrays.roc_auc_score(names, P3, multi_class="ovo", labels=["ant", "bee", "cat"])
    assert got == arrays.roc_auc_score(Y3, P3, multi_class="ovo")


def test_labels_name_a_class_absent_from_y_true() -> None:
    """ovo scores the pairs of present classes; ovr's absent column is NaN, with the warning."""
    y = np.array([0, 2, 0, 2])
    p = np.array([[0.2, 0.0, 0.8], [0.6, 0.0, 0.4], [0.55, 0.0, 0.45], [0.4, 0.0, 0.6]])
    expected = (pair_auc(y == 0, p[:, 0]) + pair_auc(y == 2, p[:, 2])) / 2
    assert arrays.roc_auc_score(y, p, multi_class="ovo", labels=[0, 1, 2]) == approx(expected)
    got, caught = _caught(
        lambda: arrays.roc_auc_score(y, p, multi_class="ovr", labels=[0, 1, 2], average=None)
    )
    assert got[0] == approx(pair_auc(y == 0, p[:, 0]))
    assert np.isnan(got[1])
    assert caught == [ONE_CLASS]


@pytest.mark.parametrize(
    ("kwargs", "exc", "msg"),
    [
        (
            {"multi_class": "ovr", "y_score": P3 * 2},
            ValueError,
            "Target scores need to be probabilities for multiclass roc_auc, i.e. they should "
            "sum up to 1.0 over classes",
        ),
        (
            {"multi_class": "ovr", "y_score": P3[:, 0]},
            ValueError,
            "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` contains "
            "multiple classes. Got `y_score.shape=(7,)`.",
        ),
        ({}, ValueError, "multi_class must be in ('ovo', 'ovr')"),
        (
            {"multi_class": "ovo", "average": "micro"},
            ValueError,
            "average must be one of ('macro', 'weighted', None) for multiclass problems",
        ),
        (
            {"multi_class": "ovr", "average": "samples"},
            ValueError,
            "average must be one of ('micro', 'macro', 'weighted', None) for multiclass problems",
        ),
        (
            {"multi_class": "ovo", "average": None},
            NotImplementedError,
            "average=None is not implemented for multi_class='ovo'.",
        ),
        (
            {"multi_class": "ovo", "sample_weight": np.ones(7)},
            ValueError,
            "sample_weight is not supported for multiclass one-vs-one ROC AUC, "
            "'sample_weight' must be None in this case.",
        ),
        (
            {"multi_class": "ovr", "max_fpr": 0.5},
            ValueError,
            "Partial AUC computation not available in multiclass setting, 'max_fpr' must be "
            "set to `None`, received `max_fpr=0.5` instead",
        ),
        (
            {"multi_class": "ovr", "labels": [0, 1, 2, 3]},
            ValueError,
            "Number of given labels, 4, not equal to the number of columns in 'y_score', 3",
        ),
        (
            {"multi_class": "ovo", "labels": [0, 2, 1]},
            ValueError,
            "Parameter 'labels' must be ordered",
        ),
        (
            {"multi_class": "ovo", "labels": [0, 0, 1]},
            ValueError,
            "Parameter 'labels' must be unique",
        ),
        (
            {"multi_class": "ovr", "labels": [0, 1, 5]},
            ValueError,
            "'y_true' contains labels not in parameter 'labels'",
        ),
        (
            {"multi_class": "ovr", "y_true": [0, 1, 1, 0, 1, 0, 1]},
            ValueError,
            "Number of classes in y_true not equal to the number of columns in 'y_score'",
        ),
    ],
)
def test_multiclass_sentences(kwargs: dict[str, Any], exc: type, msg: str) -> None:
    call = {"y_true": Y3, "y_score": P3, **kwargs}
    with pytest.raises(exc, match=f"^{re.escape(msg)}$"):
        arrays.roc_auc_score(**call)


def test_samples_without_a_scored_row_is_nan_whatever_the_widths() -> None:
    """No row holds two classes: scikit-learn never compares the widths, every row is NaN."""
    y = np.array([[1, 1, 1], [0, 0, 0]])
    s = np.array([[0.1, 0.2], [0.3, 0.4]])
    got, caught = _caught(lambda: arrays.roc_auc_score(y, s, average="samples"))
    assert np.isnan(got)
    assert caught == [ONE_CLASS, ONE_CLASS]
