"""scikit-learn's own tests of its ranking metrics, run against ``lp.arrays``.

Ported from ``sklearn/metrics/tests/test_ranking.py`` (scikit-learn 1.9.1):
the tests of ``dcg_score``, ``ndcg_score``, ``top_k_accuracy_score``,
``average_precision_score``, ``coverage_error``, ``label_ranking_loss``,
``label_ranking_average_precision_score`` and ``roc_auc_score``; and from
``sklearn/metrics/tests/test_classification.py`` the tests of ``log_loss``
and ``brier_score_loss``.  Their expected values are the hand-written ones
of those tests.  Each test passes, or is a strict xfail naming the
deliberate difference (``log_loss``'s deprecated ``y_pred``).  scikit-learn
is not imported:

* its data generators (``make_multilabel_classification``,
  ``_sparse_random_matrix``, the iris + ``LogisticRegression`` predictions of
  ``make_prediction`` and ``make_classification``) are replaced by NumPy
  random data of the same shape and kind, and the properties the tests check
  on them are checked on that data;
* its private per-sample ``_dcg_sample_scores`` / ``_ndcg_sample_scores`` are
  the public functions called on one row at a time;
* ``precision_recall_curve`` (in ``_average_precision_slow``) is replaced by
  the precision and recall at each distinct threshold, counted by hand;
* ``accuracy_score`` is ``np.mean(y_true == y_pred)``;
* ``roc_curve`` (in ``_partial_roc_auc_score`` and the micro-average test)
  is the false- and true-positive rates at each distinct threshold, counted
  by hand, ``auc`` the trapezoids; scipy's ``bernoulli.logpmf``,
  ``dirichlet`` and ``multinomial`` and scikit-learn's ``softmax`` and
  ``MockDataFrame`` are written with NumPy (pandas is replaced by Polars).

Tolerances are tightened from scikit-learn's ``assert_almost_equal`` (7
decimals) to 1e-12 relative, and each ``pytest.raises(ValueError)`` without a
message matches scikit-learn's whole message.  The ROC, DET and
precision-recall-curve tests are not ported: ``lp.arrays`` has no curves
(of the ROC tests, the ``roc_auc_score`` assertions are kept).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import lodestar_polars as lp
from lodestar_polars.arrays import (
    average_precision_score,
    brier_score_loss,
    coverage_error,
    dcg_score,
    label_ranking_average_precision_score,
    label_ranking_loss,
    log_loss,
    ndcg_score,
    roc_auc_score,
    top_k_accuracy_score,
)


def approx(expected: Any) -> Any:
    return pytest.approx(expected, rel=1e-12, abs=1e-12)


def _csr_containers() -> list[Any]:
    sparse = pytest.importorskip("scipy.sparse", reason="scipy is in the test extra")
    return [sparse.csr_matrix, sparse.csr_array]


def _dcg_sample_scores(y_true: np.ndarray, y_score: np.ndarray, **kwargs: Any) -> np.ndarray:
    """scikit-learn's private per-sample DCG: ``dcg_score`` on each row alone."""
    rows = range(np.shape(y_true)[0])
    return np.array([dcg_score(y_true[i : i + 1], y_score[i : i + 1], **kwargs) for i in rows])


def _ndcg_sample_scores(y_true: np.ndarray, y_score: np.ndarray, **kwargs: Any) -> np.ndarray:
    rows = range(np.shape(y_true)[0])
    return np.array([ndcg_score(y_true[i : i + 1], y_score[i : i + 1], **kwargs) for i in rows])


def _multilabel_indicator(n_samples: int, n_classes: int, seed: int) -> np.ndarray:
    """Stands in for ``make_multilabel_classification``: a 0/1 matrix, some rows empty."""
    rng = np.random.RandomState(seed)
    y = (rng.uniform(size=(n_samples, n_classes)) < 0.3).astype(np.int64)
    y[::7] = 0
    return y


def _labelled_rows(n_samples: int, n_classes: int, seed: int) -> np.ndarray:
    """As ``make_multilabel_classification(allow_unlabeled=False)``: each row has a label."""
    y = _multilabel_indicator(n_samples, n_classes, seed)
    y[np.arange(n_samples), np.arange(n_samples) % n_classes] = 1
    return y


def _tied_scores(n_samples: int, n_classes: int, seed: int) -> np.ndarray:
    """Stands in for ``_sparse_random_matrix``: mostly 0, a few +-s, many ties."""
    rng = np.random.RandomState(seed)
    s = 1 / np.sqrt(n_classes)
    return rng.choice([-s, 0.0, 0.0, 0.0, s], size=(n_samples, n_classes))


def _binary_prediction(seed: int = 37) -> tuple[np.ndarray, np.ndarray]:
    """Stands in for ``make_prediction(binary=True)``: 75 labels and noisy probabilities."""
    rng = np.random.RandomState(seed)
    y_true = rng.randint(0, 2, size=75)
    y_score = np.clip(0.35 * y_true + rng.uniform(0, 0.65, size=75), 0, 1)
    return y_true, y_score


# --------------------------------------------------------------------------- average precision


def _average_precision(y_true: np.ndarray, y_score: np.ndarray) -> float:
    """scikit-learn's first alternative AP (wrong on ties: one ordering of each tie)."""
    pos_label = np.unique(y_true)[1]
    n_pos = np.sum(y_true == pos_label)
    order = np.argsort(y_score)[::-1]
    y_score = y_score[order]
    y_true = y_true[order]
    score = 0.0
    for i in range(len(y_score)):
        if y_true[i] == pos_label:
            prec = 0.0
            for j in range(i + 1):
                if y_true[j] == pos_label:
                    prec += 1.0
            prec /= i + 1.0
            score += prec
    return float(score / n_pos)


def _average_precision_slow(y_true: np.ndarray, y_score: np.ndarray) -> float:
    """scikit-learn's second alternative AP (Wikipedia's definition), its curve by hand.

    One point per distinct score, from the highest: precision and recall of
    everything scored at least that high; AP sums precision times the step
    in recall.
    """
    positive = y_true == np.max(y_true)
    n_pos = positive.sum()
    average_precision, previous_recall = 0.0, 0.0
    for threshold in sorted(set(y_score.tolist()), reverse=True):
        taken = y_score >= threshold
        tp = np.sum(positive & taken)
        precision, recall = tp / taken.sum(), tp / n_pos
        average_precision += precision * (recall - previous_recall)
        previous_recall = recall
    return float(average_precision)


@pytest.mark.parametrize("labels", ["01", "-11"])
def test_precision_recall_curve(labels: str) -> None:
    """AP equals the slow reference, and the untied alternative; y_true is not modified."""
    y_true, y_score = _binary_prediction()
    if labels == "-11":
        y_true[y_true == 0] = -1
    y_true_copy = y_true.copy()
    precision_recall_auc = _average_precision_slow(y_true, y_score)
    assert average_precision_score(y_true, y_score) == approx(precision_recall_auc)
    # no tie in this y_score, so the first alternative is right too
    assert len(np.unique(y_score)) == len(y_score)
    assert _average_precision(y_true, y_score) == approx(precision_recall_auc)
    np.testing.assert_array_equal(y_true_copy, y_true)
    # with ties (scores rounded to one decimal) only the slow reference holds
    tied = np.round(y_score, 1)
    assert average_precision_score(y_true, tied) == approx(_average_precision_slow(y_true, tied))


def test_precision_recall_curve_toydata() -> None:
    with np.errstate(all="raise"):
        # Binary classification
        assert average_precision_score([0, 1], [0, 1]) == approx(1.0)
        # always wrong: the accuracy at chance
        assert average_precision_score([0, 1], [1, 0]) == approx(0.5)
        assert average_precision_score([1, 0], [1, 1]) == approx(0.5)
        assert average_precision_score([1, 0], [1, 0]) == approx(1.0)
        assert average_precision_score([1, 0], [0.5, 0.5]) == approx(0.5)
        with pytest.warns(UserWarning, match="No positive class found in y_true"):
            auc_prc = average_precision_score([0, 0], [0.25, 0.75])
        assert auc_prc == 0
        assert average_precision_score([1, 1], [0.25, 0.75]) == approx(1.0)

        # Multi-label classification task
        y_true = np.array([[0, 1], [0, 1]])
        y_score = np.array([[0, 1], [0, 1]])
        with pytest.warns(UserWarning, match="No positive class found in y_true"):
            assert average_precision_score(y_true, y_score, average="macro") == approx(0.5)
        with pytest.warns(UserWarning, match="No positive class found in y_true"):
            assert average_precision_score(y_true, y_score, average="weighted") == approx(1.0)
        assert average_precision_score(y_true, y_score, average="samples") == approx(1.0)
        assert average_precision_score(y_true, y_score, average="micro") == approx(1.0)

        y_true = np.array([[0, 1], [0, 1]])
        y_score = np.array([[0, 1], [1, 0]])
        with pytest.warns(UserWarning, match="No positive class found in y_true"):
            assert average_precision_score(y_true, y_score, average="macro") == approx(0.5)
        with pytest.warns(UserWarning, match="No positive class found in y_true"):
            assert average_precision_score(y_true, y_score, average="weighted") == approx(1.0)
        assert average_precision_score(y_true, y_score, average="samples") == approx(0.75)
        assert average_precision_score(y_true, y_score, average="micro") == approx(0.5)

        y_true = np.array([[1, 0], [0, 1]])
        y_score = np.array([[0, 1], [1, 0]])
        for average in ("macro", "weighted", "samples", "micro"):
            assert average_precision_score(y_true, y_score, average=average) == approx(0.5)

        y_true = np.array([[0, 0], [0, 0]])
        y_score = np.array([[0, 1], [0, 1]])
        with pytest.warns(UserWarning, match="No positive class found in y_true"):
            assert average_precision_score(y_true, y_score, average="macro") == 0.0
        assert average_precision_score(y_true, y_score, average="weighted") == 0.0
        with pytest.warns(UserWarning, match="No positive class found in y_true"):
            assert average_precision_score(y_true, y_score, average="samples") == 0.0
        with pytest.warns(UserWarning, match="No positive class found in y_true"):
            assert average_precision_score(y_true, y_score, average="micro") == 0.0

        y_true = np.array([[1, 1], [1, 1]])
        y_score = np.array([[0, 1], [0, 1]])
        for average in ("macro", "weighted", "samples", "micro"):
            assert average_precision_score(y_true, y_score, average=average) == approx(1.0)

        y_true = np.array([[1, 0], [0, 1]])
        y_score = np.array([[0.5, 0.5], [0.5, 0.5]])
        for average in ("macro", "weighted", "samples", "micro"):
            assert average_precision_score(y_true, y_score, average=average) == approx(0.5)

    with np.errstate(all="ignore"):
        # if one class is never present weighted should not be NaN
        y_true = np.array([[0, 0], [0, 1]])
        y_score = np.array([[0, 0], [0, 1]])
        with pytest.warns(UserWarning, match="No positive class found in y_true"):
            assert average_precision_score(y_true, y_score, average="weighted") == approx(1.0)


def test_average_precision_constant_values() -> None:
    """A constant predictor's AP is the fraction of positives."""
    y_true = np.zeros(100, dtype=int)
    y_true[::4] = 1
    y_score = np.ones(100)
    assert average_precision_score(y_true, y_score) == 0.25


def test_average_precision_score_binary_pos_label_errors() -> None:
    y_true = np.array([0, 1])
    y_pred = np.array([0, 1])
    msg = "pos_label=2 is not a valid label. It should be one of [0 1]"
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        average_precision_score(y_true, y_pred, pos_label=2)


def test_average_precision_score_multilabel_pos_label_errors() -> None:
    y_true = np.array([[1, 0], [0, 1], [0, 1], [1, 0]])
    y_pred = np.array([[0.9, 0.1], [0.1, 0.9], [0.8, 0.2], [0.2, 0.8]])
    msg = (
        "Parameter pos_label is fixed to 1 for multilabel-indicator y_true. "
        "Do not set pos_label or set pos_label to 1."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        average_precision_score(y_true, y_pred, pos_label=0)


def test_average_precision_score_multiclass_pos_label_errors() -> None:
    y_true = np.array([0, 1, 2, 0, 1, 2])
    y_score = np.array(
        [
            [0.5, 0.2, 0.1],
            [0.4, 0.5, 0.3],
            [0.1, 0.2, 0.6],
            [0.2, 0.3, 0.5],
            [0.2, 0.3, 0.5],
            [0.2, 0.3, 0.5],
        ]
    )
    msg = (
        "Parameter pos_label is fixed to 1 for multiclass y_true. "
        "Do not set pos_label or set pos_label to 1."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        average_precision_score(y_true, y_score, pos_label=3)


def test_multiclass_ranking_metrics_raise_for_incorrect_shape_of_y_score() -> None:
    y_true = np.array([0, 1, 2, 0, 1, 2])
    y_score = np.array([0.5, 0.4, 0.8, 0.9, 0.8, 0.7])
    msg = (
        "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` contains "
        "multiple classes. Got `y_score.shape=(6,)`."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        average_precision_score(y_true, y_score)
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        top_k_accuracy_score(y_true, y_score)


def test_score_scale_invariance() -> None:
    """AP is invariant by scaling or shifting the scores (scikit-learn issue #3864)."""
    y_true, y_score = _binary_prediction()
    pr_auc = average_precision_score(y_true, y_score)
    assert pr_auc == average_precision_score(y_true, 100 * y_score)
    assert pr_auc == average_precision_score(y_true, 1e-6 * y_score)
    assert pr_auc == average_precision_score(y_true, y_score - 10)


@pytest.mark.parametrize("classes", [(False, True), (0, 1), (0.0, 1.0), ("zero", "one")])
def test_ranking_metric_pos_label_types(classes: tuple[Any, Any]) -> None:
    """pos_label may be a bool, an int, a float or a str."""
    rng = np.random.RandomState(42)
    n_samples, pos_label = 10, classes[-1]
    y_true = rng.choice(classes, size=n_samples, replace=True)
    y_proba = rng.rand(n_samples)
    result = average_precision_score(y_true, y_proba, pos_label=pos_label)
    assert isinstance(result, float)
    assert not np.isnan(result)
    positive = np.asarray(y_true) == pos_label
    assert result == approx(_average_precision_slow(positive.astype(int), y_proba))


# --------------------------------------------------------------------------- LRAP


LrapScore = Callable[..., float]


def check_lrap_toy(lrap_score: LrapScore) -> None:
    assert lrap_score([[0, 1]], [[0.25, 0.75]]) == approx(1)
    assert lrap_score([[0, 1]], [[0.75, 0.25]]) == approx(1 / 2)
    assert lrap_score([[1, 1]], [[0.75, 0.25]]) == approx(1)

    assert lrap_score([[0, 0, 1]], [[0.25, 0.5, 0.75]]) == approx(1)
    assert lrap_score([[0, 1, 0]], [[0.25, 0.5, 0.75]]) == approx(1 / 2)
    assert lrap_score([[0, 1, 1]], [[0.25, 0.5, 0.75]]) == approx(1)
    assert lrap_score([[1, 0, 0]], [[0.25, 0.5, 0.75]]) == approx(1 / 3)
    assert lrap_score([[1, 0, 1]], [[0.25, 0.5, 0.75]]) == approx((2 / 3 + 1 / 1) / 2)
    assert lrap_score([[1, 1, 0]], [[0.25, 0.5, 0.75]]) == approx((2 / 3 + 1 / 2) / 2)

    assert lrap_score([[0, 0, 1]], [[0.75, 0.5, 0.25]]) == approx(1 / 3)
    assert lrap_score([[0, 1, 0]], [[0.75, 0.5, 0.25]]) == approx(1 / 2)
    assert lrap_score([[0, 1, 1]], [[0.75, 0.5, 0.25]]) == approx((1 / 2 + 2 / 3) / 2)
    assert lrap_score([[1, 0, 0]], [[0.75, 0.5, 0.25]]) == approx(1)
    assert lrap_score([[1, 0, 1]], [[0.75, 0.5, 0.25]]) == approx((1 + 2 / 3) / 2)
    assert lrap_score([[1, 1, 0]], [[0.75, 0.5, 0.25]]) == approx(1)
    assert lrap_score([[1, 1, 1]], [[0.75, 0.5, 0.25]]) == approx(1)

    assert lrap_score([[0, 0, 1]], [[0.5, 0.75, 0.25]]) == approx(1 / 3)
    assert lrap_score([[0, 1, 0]], [[0.5, 0.75, 0.25]]) == approx(1)
    assert lrap_score([[0, 1, 1]], [[0.5, 0.75, 0.25]]) == approx((1 + 2 / 3) / 2)
    assert lrap_score([[1, 0, 0]], [[0.5, 0.75, 0.25]]) == approx(1 / 2)
    assert lrap_score([[1, 0, 1]], [[0.5, 0.75, 0.25]]) == approx((1 / 2 + 2 / 3) / 2)
    assert lrap_score([[1, 1, 0]], [[0.5, 0.75, 0.25]]) == approx(1)
    assert lrap_score([[1, 1, 1]], [[0.5, 0.75, 0.25]]) == approx(1)

    # Tie handling
    assert lrap_score([[1, 0]], [[0.5, 0.5]]) == approx(0.5)
    assert lrap_score([[0, 1]], [[0.5, 0.5]]) == approx(0.5)
    assert lrap_score([[1, 1]], [[0.5, 0.5]]) == approx(1)

    assert lrap_score([[0, 0, 1]], [[0.25, 0.5, 0.5]]) == approx(0.5)
    assert lrap_score([[0, 1, 0]], [[0.25, 0.5, 0.5]]) == approx(0.5)
    assert lrap_score([[0, 1, 1]], [[0.25, 0.5, 0.5]]) == approx(1)
    assert lrap_score([[1, 0, 0]], [[0.25, 0.5, 0.5]]) == approx(1 / 3)
    assert lrap_score([[1, 0, 1]], [[0.25, 0.5, 0.5]]) == approx((2 / 3 + 1 / 2) / 2)
    assert lrap_score([[1, 1, 0]], [[0.25, 0.5, 0.5]]) == approx((2 / 3 + 1 / 2) / 2)
    assert lrap_score([[1, 1, 1]], [[0.25, 0.5, 0.5]]) == approx(1)

    assert lrap_score([[1, 1, 0]], [[0.5, 0.5, 0.5]]) == approx(2 / 3)

    assert lrap_score([[1, 1, 1, 0]], [[0.5, 0.5, 0.5, 0.5]]) == approx(3 / 4)


def check_zero_or_all_relevant_labels(lrap_score: LrapScore) -> None:
    random_state = np.random.RandomState(0)
    for n_labels in range(2, 5):
        y_score = random_state.uniform(size=(1, n_labels))
        y_score_ties = np.zeros_like(y_score)
        # No relevant labels
        y_true = np.zeros((1, n_labels))
        assert lrap_score(y_true, y_score) == 1.0
        assert lrap_score(y_true, y_score_ties) == 1.0
        # Only relevant labels
        y_true = np.ones((1, n_labels))
        assert lrap_score(y_true, y_score) == 1.0
        assert lrap_score(y_true, y_score_ties) == 1.0
    # Degenerate case: only one label
    assert lrap_score([[1], [0], [1], [0]], [[0.5], [0.5], [0.5], [0.5]]) == approx(1.0)


def check_lrap_only_ties(lrap_score: LrapScore) -> None:
    for n_labels in range(2, 10):
        y_score = np.ones((1, n_labels))
        for n_relevant in range(1, n_labels):
            for pos in range(n_labels - n_relevant):
                y_true = np.zeros((1, n_labels))
                y_true[0, pos : pos + n_relevant] = 1
                assert lrap_score(y_true, y_score) == approx(n_relevant / n_labels)


def check_lrap_without_tie_and_increasing_score(lrap_score: LrapScore) -> None:
    for n_labels in range(2, 10):
        y_score = n_labels - (np.arange(n_labels).reshape((1, n_labels)) + 1)
        # First and last
        y_true = np.zeros((1, n_labels))
        y_true[0, 0] = 1
        y_true[0, -1] = 1
        assert lrap_score(y_true, y_score) == approx((2 / n_labels + 1) / 2)
        for n_relevant in range(1, n_labels):
            for pos in range(n_labels - n_relevant):
                y_true = np.zeros((1, n_labels))
                y_true[0, pos : pos + n_relevant] = 1
                expected = sum((r + 1) / ((pos + r + 1) * n_relevant) for r in range(n_relevant))
                assert lrap_score(y_true, y_score) == approx(expected)


def _my_lrap(y_true: Any, y_score: Any) -> float:
    """scikit-learn's simple implementation of LRAP (its check_array made np.asarray)."""
    y_true = np.asarray(y_true)
    y_score = np.asarray(y_score)
    assert y_true.shape[0] == y_score.shape[0]
    n_samples, n_labels = y_true.shape
    score = np.empty((n_samples,))
    for i in range(n_samples):
        # the best rank is 1; a tie shares the worst rank of its labels
        unique_rank, inv_rank = np.unique(y_score[i], return_inverse=True)
        n_ranks = unique_rank.size
        rank = n_ranks - inv_rank
        corr_rank = np.bincount(rank, minlength=n_ranks + 1).cumsum()
        rank = corr_rank[rank]
        relevant = y_true[i].nonzero()[0]
        if relevant.size == 0 or relevant.size == n_labels:
            score[i] = 1
            continue
        score[i] = 0.0
        for label in relevant:
            n_ranked_above = sum(rank[r] <= rank[label] for r in relevant)
            score[i] += n_ranked_above / rank[label]
        score[i] /= relevant.size
    return float(score.mean())


@pytest.mark.parametrize(
    "check",
    [
        check_lrap_toy,
        check_lrap_without_tie_and_increasing_score,
        check_lrap_only_ties,
        check_zero_or_all_relevant_labels,
    ],
)
@pytest.mark.parametrize("func", [label_ranking_average_precision_score, _my_lrap])
def test_label_ranking_avp(check: Callable[[LrapScore], None], func: LrapScore) -> None:
    check(func)


@pytest.mark.parametrize(
    ("y_true", "y_score", "msg"),
    [
        ([0, 1, 0], [0.25, 0.3, 0.2], "binary format is not supported"),
        (
            [0, 1, 2],
            [[0.25, 0.75, 0.0], [0.7, 0.3, 0.0], [0.8, 0.2, 0.0]],
            "y_true and y_score have different shape",
        ),
        ([[0, 1], [0, 1]], [0, 1], "y_true and y_score have different shape"),
        (
            [[0, 1], [0, 1]],
            [[0, 1]],
            "Found input variables with inconsistent numbers of samples: [2, 1]",
        ),
        ([[0, 1], [0, 1]], [[0], [1]], "y_true and y_score have different shape"),
        (
            [[0, 1]],
            [[0, 1], [0, 1]],
            "Found input variables with inconsistent numbers of samples: [1, 2]",
        ),
        ([[0], [1]], [[0, 1], [0, 1]], "y_true and y_score have different shape"),
    ],
)
def test_lrap_error_raised(y_true: Any, y_score: Any, msg: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        label_ranking_average_precision_score(y_true, y_score)


@pytest.mark.parametrize("n_samples", [1, 2, 8, 20])
@pytest.mark.parametrize("n_classes", [2, 5, 10])
def test_alternative_lrap_implementation(n_samples: int, n_classes: int) -> None:
    y_true = _labelled_rows(n_samples, n_classes, seed=0)
    # scores with ties
    y_score = _tied_scores(n_samples, n_classes, seed=0)
    assert label_ranking_average_precision_score(y_true, y_score) == approx(
        _my_lrap(y_true, y_score)
    )
    # uniform scores
    y_score = np.random.RandomState(0).uniform(size=(n_samples, n_classes))
    assert label_ranking_average_precision_score(y_true, y_score) == approx(
        _my_lrap(y_true, y_score)
    )


def test_lrap_sample_weighting_zero_labels() -> None:
    """A sample without labels scores 1; with weight 0 it does not count."""
    y_true = np.array([[1, 0, 0, 0], [1, 0, 0, 1], [0, 0, 0, 0]], dtype=bool)
    y_score = np.array([[0.3, 0.4, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]])
    samplewise_lraps = np.array([0.5, 0.75, 1.0])
    sample_weight = np.array([1.0, 1.0, 0.0])
    assert label_ranking_average_precision_score(
        y_true, y_score, sample_weight=sample_weight
    ) == approx(np.sum(sample_weight * samplewise_lraps) / np.sum(sample_weight))


def test_label_ranking_avg_precision_score_should_allow_csr_matrix_for_y_true_input() -> None:
    """scikit-learn's non-regression test for its #22575."""
    for csr_container in _csr_containers():
        y_true = csr_container([[1, 0, 0], [0, 0, 1]])
        y_score = np.array([[0.5, 0.9, 0.6], [0, 0, 1]])
        assert label_ranking_average_precision_score(y_true, y_score) == approx(2 / 3)


# --------------------------------------------------------------------------- coverage


COVERAGE_TOY = [
    ([[0, 1]], [[0.25, 0.75]], 1),
    ([[0, 1]], [[0.75, 0.25]], 2),
    ([[1, 1]], [[0.75, 0.25]], 2),
    ([[0, 0]], [[0.75, 0.25]], 0),
    ([[0, 0, 0]], [[0.25, 0.5, 0.75]], 0),
    ([[0, 0, 1]], [[0.25, 0.5, 0.75]], 1),
    ([[0, 1, 0]], [[0.25, 0.5, 0.75]], 2),
    ([[0, 1, 1]], [[0.25, 0.5, 0.75]], 2),
    ([[1, 0, 0]], [[0.25, 0.5, 0.75]], 3),
    ([[1, 0, 1]], [[0.25, 0.5, 0.75]], 3),
    ([[1, 1, 0]], [[0.25, 0.5, 0.75]], 3),
    ([[1, 1, 1]], [[0.25, 0.5, 0.75]], 3),
    ([[0, 0, 0]], [[0.75, 0.5, 0.25]], 0),
    ([[0, 0, 1]], [[0.75, 0.5, 0.25]], 3),
    ([[0, 1, 0]], [[0.75, 0.5, 0.25]], 2),
    ([[0, 1, 1]], [[0.75, 0.5, 0.25]], 3),
    ([[1, 0, 0]], [[0.75, 0.5, 0.25]], 1),
    ([[1, 0, 1]], [[0.75, 0.5, 0.25]], 3),
    ([[1, 1, 0]], [[0.75, 0.5, 0.25]], 2),
    ([[1, 1, 1]], [[0.75, 0.5, 0.25]], 3),
    ([[0, 0, 0]], [[0.5, 0.75, 0.25]], 0),
    ([[0, 0, 1]], [[0.5, 0.75, 0.25]], 3),
    ([[0, 1, 0]], [[0.5, 0.75, 0.25]], 1),
    ([[0, 1, 1]], [[0.5, 0.75, 0.25]], 3),
    ([[1, 0, 0]], [[0.5, 0.75, 0.25]], 2),
    ([[1, 0, 1]], [[0.5, 0.75, 0.25]], 3),
    ([[1, 1, 0]], [[0.5, 0.75, 0.25]], 2),
    ([[1, 1, 1]], [[0.5, 0.75, 0.25]], 3),
    # non-trivial cases
    ([[0, 1, 0], [1, 1, 0]], [[0.1, 10.0, -3], [0, 1, 3]], (1 + 3) / 2.0),
    (
        [[0, 1, 0], [1, 1, 0], [0, 1, 1]],
        [[0.1, 10, -3], [0, 1, 3], [0, 2, 0]],
        (1 + 3 + 3) / 3.0,
    ),
    (
        [[0, 1, 0], [1, 1, 0], [0, 1, 1]],
        [[0.1, 10, -3], [3, 1, 3], [0, 2, 0]],
        (1 + 3 + 3) / 3.0,
    ),
    # ties
    ([[0, 0]], [[0.5, 0.5]], 0),
    ([[1, 0]], [[0.5, 0.5]], 2),
    ([[0, 1]], [[0.5, 0.5]], 2),
    ([[1, 1]], [[0.5, 0.5]], 2),
    ([[0, 0, 0]], [[0.25, 0.5, 0.5]], 0),
    ([[0, 0, 1]], [[0.25, 0.5, 0.5]], 2),
    ([[0, 1, 0]], [[0.25, 0.5, 0.5]], 2),
    ([[0, 1, 1]], [[0.25, 0.5, 0.5]], 2),
    ([[1, 0, 0]], [[0.25, 0.5, 0.5]], 3),
    ([[1, 0, 1]], [[0.25, 0.5, 0.5]], 3),
    ([[1, 1, 0]], [[0.25, 0.5, 0.5]], 3),
    ([[1, 1, 1]], [[0.25, 0.5, 0.5]], 3),
]


@pytest.mark.parametrize(("y_true", "y_score", "expected"), COVERAGE_TOY)
def test_coverage_error(y_true: Any, y_score: Any, expected: float) -> None:
    """scikit-learn's test_coverage_error and test_coverage_tie_handling."""
    assert coverage_error(y_true, y_score) == approx(expected)


@pytest.mark.parametrize(
    ("y_true", "y_score", "shown"),
    [
        ([1, 0, 1], [0.25, 0.5, 0.5], "[1 0 1]"),
        ([1, 0, 1], [[0.25, 0.5, 0.5]], "[1 0 1]"),
        ([[1, 0, 1]], [0.25, 0.5, 0.5], "[0.25 0.5  0.5 ]"),
    ],
)
def test_coverage_1d_error_message(y_true: Any, y_score: Any, shown: str) -> None:
    """scikit-learn's non-regression test for its #23368."""
    msg = (
        f"Expected 2D array, got 1D array instead:\narray={shown}.\n"
        "Reshape your data either using array.reshape(-1, 1) if your data has a single "
        "feature or array.reshape(1, -1) if it contains a single sample."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        coverage_error(y_true, y_score)


# --------------------------------------------------------------------------- ranking loss


RANKING_LOSS_TOY = [
    ([[0, 1]], [[0.25, 0.75]], 0),
    ([[0, 1]], [[0.75, 0.25]], 1),
    ([[0, 0, 1]], [[0.25, 0.5, 0.75]], 0),
    ([[0, 1, 0]], [[0.25, 0.5, 0.75]], 1 / 2),
    ([[0, 1, 1]], [[0.25, 0.5, 0.75]], 0),
    ([[1, 0, 0]], [[0.25, 0.5, 0.75]], 2 / 2),
    ([[1, 0, 1]], [[0.25, 0.5, 0.75]], 1 / 2),
    ([[1, 1, 0]], [[0.25, 0.5, 0.75]], 2 / 2),
    # undefined: the ranking does not matter
    ([[0, 0]], [[0.75, 0.25]], 0),
    ([[1, 1]], [[0.75, 0.25]], 0),
    ([[0, 0]], [[0.5, 0.5]], 0),
    ([[1, 1]], [[0.5, 0.5]], 0),
    ([[0, 0, 0]], [[0.5, 0.75, 0.25]], 0),
    ([[1, 1, 1]], [[0.5, 0.75, 0.25]], 0),
    ([[0, 0, 0]], [[0.25, 0.5, 0.5]], 0),
    ([[1, 1, 1]], [[0.25, 0.5, 0.5]], 0),
    # non-trivial cases
    ([[0, 1, 0], [1, 1, 0]], [[0.1, 10.0, -3], [0, 1, 3]], (0 + 2 / 2) / 2.0),
    (
        [[0, 1, 0], [1, 1, 0], [0, 1, 1]],
        [[0.1, 10, -3], [0, 1, 3], [0, 2, 0]],
        (0 + 2 / 2 + 1 / 2) / 3.0,
    ),
    (
        [[0, 1, 0], [1, 1, 0], [0, 1, 1]],
        [[0.1, 10, -3], [3, 1, 3], [0, 2, 0]],
        (0 + 2 / 2 + 1 / 2) / 3.0,
    ),
    # ties
    ([[1, 0]], [[0.5, 0.5]], 1),
    ([[0, 1]], [[0.5, 0.5]], 1),
    ([[0, 0, 1]], [[0.25, 0.5, 0.5]], 1 / 2),
    ([[0, 1, 0]], [[0.25, 0.5, 0.5]], 1 / 2),
    ([[0, 1, 1]], [[0.25, 0.5, 0.5]], 0),
    ([[1, 0, 0]], [[0.25, 0.5, 0.5]], 1),
    ([[1, 0, 1]], [[0.25, 0.5, 0.5]], 1),
    ([[1, 1, 0]], [[0.25, 0.5, 0.5]], 1),
]


@pytest.mark.parametrize(("y_true", "y_score", "expected"), RANKING_LOSS_TOY)
def test_label_ranking_loss(y_true: Any, y_score: Any, expected: float) -> None:
    """scikit-learn's test_label_ranking_loss and test_ranking_loss_ties_handling."""
    assert label_ranking_loss(y_true, y_score) == approx(expected)


def test_label_ranking_loss_sparse() -> None:
    for csr_container in _csr_containers():
        y_true = csr_container(np.array([[0, 1, 0], [1, 1, 0]]))
        assert label_ranking_loss(y_true, [[0.1, 10, -3], [3, 1, 3]]) == approx((0 + 2 / 2) / 2.0)


@pytest.mark.parametrize(
    ("y_true", "y_score", "msg"),
    [
        ([[0, 1], [0, 1]], [0, 1], "y_true and y_score have different shape"),
        (
            [[0, 1], [0, 1]],
            [[0, 1]],
            "Found input variables with inconsistent numbers of samples: [2, 1]",
        ),
        ([[0, 1], [0, 1]], [[0], [1]], "y_true and y_score have different shape"),
        (
            [[0, 1]],
            [[0, 1], [0, 1]],
            "Found input variables with inconsistent numbers of samples: [1, 2]",
        ),
        ([[0], [1]], [[0, 1], [0, 1]], "binary format is not supported"),
    ],
)
def test_ranking_appropriate_input_shape(y_true: Any, y_score: Any, msg: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        label_ranking_loss(y_true, y_score)


# --------------------------------------------------------------------------- DCG / NDCG


def _test_dcg_score_for(y_true: np.ndarray, y_score: np.ndarray) -> None:
    discount = np.log2(np.arange(y_true.shape[1]) + 2)
    ideal = _dcg_sample_scores(y_true, y_true)
    score = _dcg_sample_scores(y_true, y_score)
    assert (score <= ideal).all()
    assert (_dcg_sample_scores(y_true, y_true, k=5) <= ideal).all()
    assert ideal.shape == (y_true.shape[0],)
    assert score.shape == (y_true.shape[0],)
    assert ideal == approx((np.sort(y_true)[:, ::-1] / discount).sum(axis=1))
    assert dcg_score(y_true, y_score) == approx(score.mean())


def test_dcg_score() -> None:
    y_true = _multilabel_indicator(100, 10, seed=0)
    y_score = -y_true + 1
    _test_dcg_score_for(y_true, y_score)
    y_true, y_score = np.random.RandomState(0).random_sample((2, 100, 10))
    _test_dcg_score_for(y_true, y_score)


def test_dcg_ties() -> None:
    y_true = np.asarray([np.arange(5)])
    y_score = np.zeros(y_true.shape)
    dcg = _dcg_sample_scores(y_true, y_score)
    dcg_ignore_ties = _dcg_sample_scores(y_true, y_score, ignore_ties=True)
    discounts = 1 / np.log2(np.arange(2, 7))
    assert dcg == approx([discounts.sum() * y_true.mean()])
    assert dcg_ignore_ties == approx([(discounts * y_true[:, ::-1]).sum()])
    y_score[0, 3:] = 1
    dcg = _dcg_sample_scores(y_true, y_score)
    dcg_ignore_ties = _dcg_sample_scores(y_true, y_score, ignore_ties=True)
    assert dcg_ignore_ties == approx([(discounts * y_true[:, ::-1]).sum()])
    assert dcg == approx(
        [discounts[:2].sum() * y_true[0, 3:].mean() + discounts[2:].sum() * y_true[0, :3].mean()]
    )


def test_ndcg_ignore_ties_with_k() -> None:
    a = np.arange(12).reshape((2, 6))
    # both rows ranked perfectly, with the cut at 3
    assert ndcg_score(a, a, k=3, ignore_ties=True) == approx(1.0)
    assert ndcg_score(a, a, k=3, ignore_ties=True) == ndcg_score(a, a, k=3)


def test_ndcg_negative_ndarray_error() -> None:
    y_true = np.array([[-0.89, -0.53, -0.47, 0.39, 0.56]])
    y_score = np.array([[0.07, 0.31, 0.75, 0.33, 0.27]])
    msg = "ndcg_score should not be used on negative y_true values."
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        ndcg_score(y_true, y_score)


def test_ndcg_invariant() -> None:
    y_true = np.arange(70).reshape(7, 10)
    y_score = y_true + np.random.RandomState(0).uniform(-0.2, 0.2, size=y_true.shape)
    ndcg = ndcg_score(y_true, y_score)
    ndcg_no_ties = ndcg_score(y_true, y_score, ignore_ties=True)
    assert ndcg == approx(ndcg_no_ties)
    assert ndcg == approx(1.0)
    y_score += 1000
    assert ndcg_score(y_true, y_score) == approx(1.0)


@pytest.mark.parametrize("ignore_ties", [True, False])
def test_ndcg_toy_examples(ignore_ties: bool) -> None:  # noqa: FBT001 (parametrized)
    y_true = 3 * np.eye(7)[:5]
    y_score = np.tile(np.arange(6, -1, -1), (5, 1))
    y_score_noisy = y_score + np.random.RandomState(0).uniform(-0.2, 0.2, size=y_score.shape)
    kw = {"ignore_ties": ignore_ties}
    assert _dcg_sample_scores(y_true, y_score, **kw) == approx(3 / np.log2(np.arange(2, 7)))
    assert _dcg_sample_scores(y_true, y_score_noisy, **kw) == approx(3 / np.log2(np.arange(2, 7)))
    assert _ndcg_sample_scores(y_true, y_score, **kw) == approx(1 / np.log2(np.arange(2, 7)))
    assert _dcg_sample_scores(y_true, y_score, log_base=10, **kw) == approx(
        3 / np.log10(np.arange(2, 7))
    )
    assert ndcg_score(y_true, y_score, **kw) == approx((1 / np.log2(np.arange(2, 7))).mean())
    assert dcg_score(y_true, y_score, **kw) == approx((3 / np.log2(np.arange(2, 7))).mean())
    y_true = 3 * np.ones((5, 7))
    expected_dcg_score = (3 / np.log2(np.arange(2, 9))).sum()
    assert _dcg_sample_scores(y_true, y_score, **kw) == approx(expected_dcg_score * np.ones(5))
    assert _ndcg_sample_scores(y_true, y_score, **kw) == approx(np.ones(5))
    assert dcg_score(y_true, y_score, **kw) == approx(expected_dcg_score)
    assert ndcg_score(y_true, y_score, **kw) == approx(1.0)


def test_ndcg_error_single_document() -> None:
    msg = "Computing NDCG is only meaningful when there is more than 1 document. Got 1 instead."
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        ndcg_score([[1]], [[1]])


def _test_ndcg_score_for(y_true: np.ndarray, y_score: np.ndarray) -> None:
    ideal = _ndcg_sample_scores(y_true, y_true)
    score = _ndcg_sample_scores(y_true, y_score)
    assert (score <= ideal).all()
    all_zero = (y_true == 0).all(axis=1)
    assert all_zero.any()
    assert ideal[~all_zero] == approx(np.ones((~all_zero).sum()))
    assert ideal[all_zero] == approx(np.zeros(all_zero.sum()))
    dcg, ideal_dcg = _dcg_sample_scores(y_true, y_score), _dcg_sample_scores(y_true, y_true)
    assert score[~all_zero] == approx(dcg[~all_zero] / ideal_dcg[~all_zero])
    assert score[all_zero] == approx(np.zeros(all_zero.sum()))
    assert ideal.shape == (y_true.shape[0],)
    assert score.shape == (y_true.shape[0],)
    assert ndcg_score(y_true, y_score) == approx(score.mean())


def test_ndcg_score() -> None:
    y_true = _multilabel_indicator(100, 10, seed=0)
    y_score = -y_true + 1
    _test_ndcg_score_for(y_true, y_score)
    y_true, y_score = np.random.RandomState(0).random_sample((2, 100, 10))
    y_true[::9] = 0  # rows with nothing relevant, as the generator of scikit-learn's test gives
    _test_ndcg_score_for(y_true, y_score)


# --------------------------------------------------------------------------- top-k accuracy


TOP_K_SCORE = np.array(
    [
        [0.4, 0.3, 0.2, 0.1],
        [0.1, 0.3, 0.4, 0.2],
        [0.4, 0.1, 0.2, 0.3],
        [0.3, 0.2, 0.4, 0.1],
    ]
)


@pytest.mark.parametrize(
    ("y_true", "k", "true_score"),
    [([0, 1, 2, 3], 1, 0.25), ([0, 1, 2, 3], 2, 0.5), ([0, 1, 2, 3], 3, 0.75)],
)
def test_top_k_accuracy_score(y_true: Any, k: int, true_score: float) -> None:
    assert top_k_accuracy_score(y_true, TOP_K_SCORE, k=k) == approx(true_score)


@pytest.mark.parametrize(
    ("y_score", "k", "true_score"),
    [
        (np.array([-1, -1, 1, 1]), 1, 1),
        (np.array([-1, 1, -1, 1]), 1, 0.5),
        (np.array([-1, 1, -1, 1]), 2, 1),
        (np.array([0.2, 0.2, 0.7, 0.7]), 1, 1),
        (np.array([0.2, 0.7, 0.2, 0.7]), 1, 0.5),
        (np.array([0.2, 0.7, 0.2, 0.7]), 2, 1),
    ],
)
def test_top_k_accuracy_score_binary(y_score: np.ndarray, k: int, true_score: float) -> None:
    y_true = [0, 0, 1, 1]
    threshold = 0.5 if y_score.min() >= 0 and y_score.max() <= 1 else 0
    y_pred = (y_score > threshold).astype(np.int64) if k == 1 else y_true
    if k >= 2:  # as many as the classes: scikit-learn warns, and so do we
        with pytest.warns(lp.UndefinedMetricWarning, match="will result in a perfect score"):
            score = top_k_accuracy_score(y_true, y_score, k=k)
    else:
        score = top_k_accuracy_score(y_true, y_score, k=k)
    score_acc = float(np.mean(np.asarray(y_true) == y_pred))
    assert score == score_acc == approx(true_score)


@pytest.mark.parametrize(
    ("y_true", "true_score", "labels"),
    [
        (np.array([0, 1, 1, 2]), 0.75, [0, 1, 2, 3]),
        (np.array([0, 1, 1, 1]), 0.5, [0, 1, 2, 3]),
        (np.array([1, 1, 1, 1]), 0.5, [0, 1, 2, 3]),
        (np.array(["a", "e", "e", "a"]), 0.75, ["a", "b", "d", "e"]),
    ],
)
@pytest.mark.parametrize("labels_as_ndarray", [True, False])
def test_top_k_accuracy_score_multiclass_with_labels(
    y_true: np.ndarray,
    true_score: float,
    labels: list[Any],
    labels_as_ndarray: bool,  # noqa: FBT001 (parametrized)
) -> None:
    given: Any = np.asarray(labels) if labels_as_ndarray else labels
    score = top_k_accuracy_score(y_true, TOP_K_SCORE, k=2, labels=given)
    assert score == approx(true_score)


def test_top_k_accuracy_score_increasing() -> None:
    """Increasing k strictly raises the score (random class probabilities, 10 classes)."""
    rng = np.random.RandomState(0)
    for n_samples in (750, 250):
        y = rng.randint(0, 10, size=n_samples)
        proba = rng.dirichlet(np.ones(10), size=n_samples)
        proba[np.arange(n_samples), y] += 0.02  # a little better than chance
        scores = [top_k_accuracy_score(y, proba, k=k) for k in range(2, 10)]
        assert np.all(np.diff(scores) > 0)


@pytest.mark.parametrize(
    ("y_true", "k", "true_score"),
    [([0, 1, 2, 3], 1, 0.25), ([0, 1, 2, 3], 2, 0.5), ([0, 1, 2, 3], 3, 1)],
)
def test_top_k_accuracy_score_ties(y_true: Any, k: int, true_score: float) -> None:
    """Among tied scores the label of higher index is chosen first."""
    y_score = np.array([[5, 5, 7, 0], [1, 5, 5, 5], [0, 0, 3, 3], [1, 1, 1, 1]])
    assert top_k_accuracy_score(y_true, y_score, k=k) == approx(true_score)


@pytest.mark.parametrize(("y_true", "k"), [([0, 1, 2, 3], 4), ([0, 1, 2, 3], 5)])
def test_top_k_accuracy_score_warning(y_true: Any, k: int) -> None:
    y_score = np.array(
        [
            [0.4, 0.3, 0.2, 0.1],
            [0.1, 0.4, 0.3, 0.2],
            [0.2, 0.1, 0.4, 0.3],
            [0.3, 0.2, 0.1, 0.4],
        ]
    )
    msg = (
        f"'k' ({k}) greater than or equal to 'n_classes' (4) will result in a "
        "perfect score and is therefore meaningless."
    )
    with pytest.warns(lp.UndefinedMetricWarning, match=f"^{re.escape(msg)}$"):
        score = top_k_accuracy_score(y_true, y_score, k=k)
    assert score == 1


_S3 = [[0.2, 0.1, 0.7], [0.4, 0.3, 0.3], [0.3, 0.4, 0.3], [0.4, 0.5, 0.1]]


@pytest.mark.parametrize(
    ("y_true", "y_score", "labels", "msg"),
    [
        (
            [0, 0.57, 1, 2],
            _S3,
            None,
            "y type must be 'binary' or 'multiclass', got 'continuous' instead.",
        ),
        (
            [0, 1, 2, 3],
            _S3,
            None,
            "Number of classes in 'y_true' (4) not equal to the number of classes in "
            "'y_score' (3).You can provide a list of all known classes by assigning it to "
            "the `labels` parameter.",
        ),
        (["c", "c", "a", "b"], _S3, ["a", "b", "c", "c"], "Parameter 'labels' must be unique."),
        (["c", "c", "a", "b"], _S3, ["a", "c", "b"], "Parameter 'labels' must be ordered."),
        (
            [0, 0, 1, 2],
            _S3,
            [0, 1, 2, 3],
            "Number of given labels (4) not equal to the number of classes in 'y_score' (3).",
        ),
        ([0, 0, 1, 2], _S3, [0, 1, 3], "'y_true' contains labels not in parameter 'labels'."),
        (
            [0, 1],
            [[0.5, 0.2, 0.2], [0.3, 0.4, 0.2]],
            None,
            "`y_true` is binary while y_score is 2d with 3 classes. If `y_true` does not "
            "contain all the labels, `labels` must be provided.",
        ),
    ],
)
def test_top_k_accuracy_score_error(y_true: Any, y_score: Any, labels: Any, msg: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        top_k_accuracy_score(y_true, y_score, k=2, labels=labels)


def test_no_warning_on_the_toy_cases() -> None:
    """The ported cases that scikit-learn runs without a warning stay silent here."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_lrap_toy(label_ranking_average_precision_score)
        for y_true, y_score, _ in COVERAGE_TOY + RANKING_LOSS_TOY:
            coverage_error(y_true, y_score)
            label_ranking_loss(y_true, y_score)


# --------------------------------------------------------------------------- ROC AUC
#
# From sklearn/metrics/tests/test_ranking.py.  The ROC curve itself
# (``roc_curve``, ``auc``, ``metric_at_thresholds``) is not in ``lp.arrays``:
# the assertions on the curve are dropped, those on ``roc_auc_score`` kept.


def _auc(y_true: np.ndarray, y_score: np.ndarray) -> float:
    """scikit-learn's alternative AUC: positives ranked strictly above negatives."""
    pos_label = np.unique(y_true)[1]
    pos = y_score[y_true == pos_label]
    neg = y_score[y_true != pos_label]
    diff_matrix = pos.reshape(1, -1) - neg.reshape(-1, 1)
    n_correct = np.sum(diff_matrix > 0)
    return float(n_correct / float(len(pos) * len(neg)))


def _roc_points(y_true: np.ndarray, y_score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stands in for ``roc_curve``: (0, 0), then the rates at each distinct score, highest first."""
    positive = y_true == np.max(y_true)
    fpr, tpr = [0.0], [0.0]
    for threshold in sorted(set(y_score.tolist()), reverse=True):
        taken = y_score >= threshold
        fpr.append(np.sum(taken & ~positive) / np.sum(~positive))
        tpr.append(np.sum(taken & positive) / np.sum(positive))
    return np.array(fpr), np.array(tpr)


def _trapezoid(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2))


def _partial_roc_auc_score(y_true: np.ndarray, y_predict: np.ndarray, max_fpr: float) -> float:
    """scikit-learn's alternative partial AUC (its ``roc_curve`` by hand)."""
    fpr, tpr = _roc_points(y_true, y_predict)
    new_fpr = np.append(fpr[fpr <= max_fpr], max_fpr)
    new_tpr = tpr[fpr <= max_fpr]
    idx_out = np.argmax(fpr > max_fpr)
    idx_in = idx_out - 1
    x_interp = [fpr[idx_in], fpr[idx_out]]
    y_interp = [tpr[idx_in], tpr[idx_out]]
    new_tpr = np.append(new_tpr, np.interp(max_fpr, x_interp, y_interp))
    partial_auc = _trapezoid(new_fpr, new_tpr)
    fpr1, fpr2 = 0, max_fpr
    min_area = 0.5 * (fpr2 - fpr1) * (fpr2 + fpr1)
    max_area = fpr2 - fpr1
    return 0.5 * (1 + (partial_auc - min_area) / (max_area - min_area))


def _softmax(x: np.ndarray) -> np.ndarray:
    """``sklearn.utils.extmath.softmax``."""
    e = np.exp(x - x.max(axis=1, keepdims=True))
    out: np.ndarray = e / e.sum(axis=1, keepdims=True)
    return out


def test_roc_curve() -> None:
    """The area under the curve equals the pair count (no tie in these scores)."""
    y_true, y_score = _binary_prediction()
    expected_auc = _auc(y_true, y_score)
    assert roc_auc_score(y_true, y_score) == approx(expected_auc)
    fpr, tpr = _roc_points(y_true, y_score)
    assert roc_auc_score(y_true, y_score) == approx(_trapezoid(fpr, tpr))


ONE_CLASS_AUC = "Only one class is present in y_true. ROC AUC score is not defined in that case."


def test_roc_curve_toydata() -> None:
    assert roc_auc_score([0, 1], [0, 1]) == approx(1.0)
    assert roc_auc_score([0, 1], [1, 0]) == approx(0.0)
    assert roc_auc_score([1, 0], [1, 1]) == approx(0.5)
    assert roc_auc_score([1, 0], [1, 0]) == approx(1.0)
    assert roc_auc_score([1, 0], [0.5, 0.5]) == approx(0.5)

    # no positive sample, then no negative one
    for one_class in ([0, 0], [1, 1]):
        with pytest.warns(lp.UndefinedMetricWarning, match=f"^{re.escape(ONE_CLASS_AUC)}$"):
            auc = roc_auc_score(one_class, [0.25, 0.75])
        assert np.isnan(auc)

    # Multi-label classification task
    y_true = np.array([[0, 1], [0, 1]])
    y_score = np.array([[0, 1], [0, 1]])
    with pytest.warns(lp.UndefinedMetricWarning, match=re.escape(ONE_CLASS_AUC)):
        roc_auc_score(y_true, y_score, average="macro")
    with pytest.warns(lp.UndefinedMetricWarning, match=re.escape(ONE_CLASS_AUC)):
        roc_auc_score(y_true, y_score, average="weighted")
    assert roc_auc_score(y_true, y_score, average="samples") == approx(1.0)
    assert roc_auc_score(y_true, y_score, average="micro") == approx(1.0)

    y_true = np.array([[0, 1], [0, 1]])
    y_score = np.array([[0, 1], [1, 0]])
    with pytest.warns(lp.UndefinedMetricWarning, match=re.escape(ONE_CLASS_AUC)):
        roc_auc_score(y_true, y_score, average="macro")
    with pytest.warns(lp.UndefinedMetricWarning, match=re.escape(ONE_CLASS_AUC)):
        roc_auc_score(y_true, y_score, average="weighted")
    assert roc_auc_score(y_true, y_score, average="samples") == approx(0.5)
    assert roc_auc_score(y_true, y_score, average="micro") == approx(0.5)

    y_true = np.array([[1, 0], [0, 1]])
    y_score = np.array([[0, 1], [1, 0]])
    for average in ("macro", "weighted", "samples", "micro"):
        assert roc_auc_score(y_true, y_score, average=average) == approx(0)

    y_true = np.array([[1, 0], [0, 1]])
    y_score = np.array([[0.5, 0.5], [0.5, 0.5]])
    for average in ("macro", "weighted", "samples", "micro"):
        assert roc_auc_score(y_true, y_score, average=average) == approx(0.5)


OVO_SCORES = np.array([[0.1, 0.8, 0.1], [0.3, 0.4, 0.3], [0.35, 0.5, 0.15], [0, 0.2, 0.8]])


@pytest.mark.parametrize(
    ("y_true", "labels"),
    [
        (np.array([0, 1, 0, 2]), [0, 1, 2]),
        (np.array([0, 1, 0, 2]), None),
        (["a", "b", "a", "c"], ["a", "b", "c"]),
        (["a", "b", "a", "c"], None),
    ],
)
def test_multiclass_ovo_roc_auc_toydata(y_true: Any, labels: Any) -> None:
    score_01 = roc_auc_score([1, 0, 1], [0.1, 0.3, 0.35])
    score_10 = roc_auc_score([0, 1, 0], [0.8, 0.4, 0.5])
    average_score_01 = (score_01 + score_10) / 2
    score_02 = roc_auc_score([1, 1, 0], [0.1, 0.35, 0])
    score_20 = roc_auc_score([0, 0, 1], [0.1, 0.15, 0.8])
    average_score_02 = (score_02 + score_20) / 2
    score_12 = roc_auc_score([1, 0], [0.4, 0.2])
    score_21 = roc_auc_score([0, 1], [0.3, 0.8])
    average_score_12 = (score_12 + score_21) / 2
    ovo_unweighted_score = (average_score_01 + average_score_02 + average_score_12) / 3
    got = roc_auc_score(y_true, OVO_SCORES, labels=labels, multi_class="ovo")
    assert got == approx(ovo_unweighted_score)
    pair_scores = [average_score_01, average_score_02, average_score_12]
    ovo_weighted_score = np.average(pair_scores, weights=[0.75, 0.75, 0.50])
    got = roc_auc_score(y_true, OVO_SCORES, labels=labels, multi_class="ovo", average="weighted")
    assert got == approx(ovo_weighted_score)
    msg = "average=None is not implemented for multi_class='ovo'."
    with pytest.raises(NotImplementedError, match=f"^{re.escape(msg)}$"):
        roc_auc_score(y_true, OVO_SCORES, labels=labels, multi_class="ovo", average=None)


@pytest.mark.parametrize(
    ("y_true", "labels"),
    [
        (np.array([0, 2, 0, 2]), [0, 1, 2]),
        (np.array(["a", "d", "a", "d"]), ["a", "b", "d"]),
    ],
)
def test_multiclass_ovo_roc_auc_toydata_binary(y_true: Any, labels: Any) -> None:
    y_scores = np.array([[0.2, 0.0, 0.8], [0.6, 0.0, 0.4], [0.55, 0.0, 0.45], [0.4, 0.0, 0.6]])
    score_01 = roc_auc_score([1, 0, 1, 0], [0.2, 0.6, 0.55, 0.4])
    score_10 = roc_auc_score([0, 1, 0, 1], [0.8, 0.4, 0.45, 0.6])
    ovo_score = (score_01 + score_10) / 2
    assert roc_auc_score(y_true, y_scores, labels=labels, multi_class="ovo") == approx(ovo_score)
    got = roc_auc_score(y_true, y_scores, labels=labels, multi_class="ovo", average="weighted")
    assert got == approx(ovo_score)


@pytest.mark.parametrize(
    ("y_true", "labels"),
    [
        (np.array([0, 1, 2, 2]), None),
        (["a", "b", "c", "c"], None),
        ([0, 1, 2, 2], [0, 1, 2]),
        (["a", "b", "c", "c"], ["a", "b", "c"]),
    ],
)
def test_multiclass_ovr_roc_auc_toydata(y_true: Any, labels: Any) -> None:
    y_scores = np.array([[1.0, 0.0, 0.0], [0.1, 0.5, 0.4], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]])
    out_0 = roc_auc_score([1, 0, 0, 0], y_scores[:, 0])
    out_1 = roc_auc_score([0, 1, 0, 0], y_scores[:, 1])
    out_2 = roc_auc_score([0, 0, 1, 1], y_scores[:, 2])
    got = roc_auc_score(y_true, y_scores, multi_class="ovr", labels=labels, average=None)
    assert got == approx([out_0, out_1, out_2])
    result_unweighted = (out_0 + out_1 + out_2) / 3.0
    got = roc_auc_score(y_true, y_scores, multi_class="ovr", labels=labels)
    assert got == approx(result_unweighted)
    result_weighted = out_0 * 0.25 + out_1 * 0.25 + out_2 * 0.5
    got = roc_auc_score(y_true, y_scores, multi_class="ovr", labels=labels, average="weighted")
    assert got == approx(result_weighted)


@pytest.mark.parametrize(
    ("multi_class", "average"), [("ovr", "macro"), ("ovr", "micro"), ("ovo", "macro")]
)
def test_perfect_imperfect_chance_multiclass_roc_auc(multi_class: str, average: str) -> None:
    y_true = np.array([3, 1, 2, 0])
    y_perfect = [
        [0.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.75, 0.05, 0.05, 0.15],
    ]
    got = roc_auc_score(y_true, y_perfect, multi_class=multi_class, average=average)
    assert got == approx(1.0)
    y_imperfect = [
        [0.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]
    assert roc_auc_score(y_true, y_imperfect, multi_class=multi_class, average=average) < 1.0
    y_chance = 0.25 * np.ones((4, 4))
    got = roc_auc_score(y_true, y_chance, multi_class=multi_class, average=average)
    assert got == approx(0.5)


@pytest.mark.parametrize("seed", [0, 1, 42])
def test_micro_averaged_ovr_roc_auc(seed: int) -> None:
    """scipy's dirichlet and multinomial draws made with NumPy; the curve by hand."""
    rng = np.random.RandomState(seed)
    y_pred = rng.dirichlet([2.0, 1.0, 0.5], size=1000)
    y_true = np.array([rng.multinomial(1, p).argmax() for p in y_pred])
    y_onehot = (y_true[:, np.newaxis] == np.arange(3)).astype(int)
    fpr, tpr = _roc_points(y_onehot.ravel(), y_pred.ravel())
    roc_auc_by_hand = _trapezoid(fpr, tpr)
    roc_auc_auto = roc_auc_score(y_true, y_pred, multi_class="ovr", average="micro")
    assert roc_auc_by_hand == approx(roc_auc_auto)


LABELS_ERRORS = [
    ("Parameter 'labels' must be unique", np.array([0, 1, 2, 2]), [0, 2, 0]),
    ("Parameter 'labels' must be unique", np.array(["a", "b", "c", "c"]), ["a", "a", "b"]),
    (
        "Number of classes in y_true not equal to the number of columns in 'y_score'",
        np.array([0, 2, 0, 2]),
        None,
    ),
    ("Parameter 'labels' must be ordered", np.array(["a", "b", "c", "c"]), ["a", "c", "b"]),
    (
        "Number of given labels, 2, not equal to the number of columns in 'y_score', 3",
        np.array([0, 1, 2, 2]),
        [0, 1],
    ),
    (
        "Number of given labels, 2, not equal to the number of columns in 'y_score', 3",
        np.array(["a", "b", "c", "c"]),
        ["a", "b"],
    ),
    (
        "Number of given labels, 4, not equal to the number of columns in 'y_score', 3",
        np.array([0, 1, 2, 2]),
        [0, 1, 2, 3],
    ),
    (
        "Number of given labels, 4, not equal to the number of columns in 'y_score', 3",
        np.array(["a", "b", "c", "c"]),
        ["a", "b", "c", "d"],
    ),
    (
        "'y_true' contains labels not in parameter 'labels'",
        np.array(["a", "b", "c", "e"]),
        ["a", "b", "c"],
    ),
    (
        "'y_true' contains labels not in parameter 'labels'",
        np.array(["a", "b", "c", "d"]),
        ["a", "b", "c"],
    ),
    ("'y_true' contains labels not in parameter 'labels'", np.array([0, 1, 2, 3]), [0, 1, 2]),
]


@pytest.mark.parametrize(("msg", "y_true", "labels"), LABELS_ERRORS)
@pytest.mark.parametrize("multi_class", ["ovo", "ovr"])
def test_roc_auc_score_multiclass_labels_error(
    msg: str, y_true: Any, labels: Any, multi_class: str
) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        roc_auc_score(y_true, OVO_SCORES, labels=labels, multi_class=multi_class)


@pytest.mark.parametrize(
    ("msg", "kwargs"),
    [
        (
            "average must be one of ('macro', 'weighted', None) for multiclass problems",
            {"average": "samples", "multi_class": "ovo"},
        ),
        (
            "average must be one of ('micro', 'macro', 'weighted', None) for multiclass problems",
            {"average": "samples", "multi_class": "ovr"},
        ),
        (
            "sample_weight is not supported for multiclass one-vs-one ROC AUC, "
            "'sample_weight' must be None in this case.",
            {"multi_class": "ovo", "sample_weight": []},
        ),
        (
            "Partial AUC computation not available in multiclass setting, 'max_fpr' must be "
            "set to `None`, received `max_fpr=0.5` instead",
            {"multi_class": "ovo", "max_fpr": 0.5},
        ),
        ("multi_class must be in ('ovo', 'ovr')", {}),
    ],
)
def test_roc_auc_score_multiclass_error(msg: str, kwargs: dict[str, Any]) -> None:
    rng = np.random.RandomState(404)
    y_score = rng.rand(20, 3)
    y_prob = _softmax(y_score)
    y_true = rng.randint(0, 3, size=20)
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        roc_auc_score(y_true, y_prob, **kwargs)


def test_auc_score_non_binary_class() -> None:
    rng = np.random.RandomState(404)
    y_pred = rng.rand(10)
    for y_true in (np.zeros(10, dtype="int"), np.ones(10, dtype="int"), np.full(10, -1)):
        with pytest.warns(lp.UndefinedMetricWarning, match=f"^{re.escape(ONE_CLASS_AUC)}$"):
            roc_auc_score(y_true, y_pred)


def test_roc_auc_raises_for_incorrect_shape_of_y_score() -> None:
    """The ``roc_auc_score`` line of scikit-learn's shape test (AP and top-k are above)."""
    y_true = np.array([0, 1, 2, 0, 1, 2])
    y_score = np.array([0.5, 0.4, 0.8, 0.9, 0.8, 0.7])
    msg = (
        "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` contains "
        "multiple classes. Got `y_score.shape=(6,)`."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        roc_auc_score(y_true, y_score, multi_class="ovr")


def test_roc_auc_score_scale_invariance() -> None:
    """The ``roc_auc_score`` half of scikit-learn's test_score_scale_invariance."""
    y_true, y_score = _binary_prediction()
    roc_auc = roc_auc_score(y_true, y_score)
    assert roc_auc == roc_auc_score(y_true, 100 * y_score)
    assert roc_auc == roc_auc_score(y_true, 1e-6 * y_score)
    assert roc_auc == roc_auc_score(y_true, y_score - 10)


MAX_FPR = (
    "The 'max_fpr' parameter of roc_auc_score must be a float in the range (0.0, 1.0] or None."
)


def test_partial_roc_auc_score() -> None:
    y_true = np.array([0, 0, 1, 1])
    assert roc_auc_score(y_true, y_true, max_fpr=1) == 1
    assert roc_auc_score(y_true, y_true, max_fpr=0.001) == 1
    for max_fpr in (-0.1, 1.1, 0):
        with pytest.raises(ValueError, match=f"^{re.escape(MAX_FPR)} Got {max_fpr!r} instead.$"):
            roc_auc_score(y_true, y_true, max_fpr=max_fpr)

    y_scores = np.array([0.1, 0, 0.1, 0.01])
    roc_auc_with_max_fpr_one = roc_auc_score(y_true, y_scores, max_fpr=1)
    unconstrained_roc_auc = roc_auc_score(y_true, y_scores)
    assert roc_auc_with_max_fpr_one == unconstrained_roc_auc
    assert roc_auc_score(y_true, y_scores, max_fpr=0.3) == 0.5

    y_true, y_pred = _binary_prediction()
    for max_fpr in np.linspace(1e-4, 1, 5):
        got = roc_auc_score(y_true, y_pred, max_fpr=max_fpr)
        assert got == approx(_partial_roc_auc_score(y_true, y_pred, max_fpr))


# --------------------------------------------------------------------------- log loss
#
# From sklearn/metrics/tests/test_classification.py.


def test_log_loss() -> None:
    # binary case with symbolic labels ("no" < "yes")
    y_true: Any = ["no", "no", "no", "yes", "yes", "yes"]
    y_proba: Any = np.array(
        [[0.5, 0.5], [0.1, 0.9], [0.01, 0.99], [0.9, 0.1], [0.75, 0.25], [0.001, 0.999]]
    )
    loss = log_loss(y_true, y_proba)
    is_yes = np.array(y_true) == "yes"
    # scipy's bernoulli.logpmf(k, p), written out
    logpmf = np.where(is_yes, np.log(y_proba[:, 1]), np.log(1 - y_proba[:, 1]))
    assert loss == approx(-np.mean(logpmf))

    # multiclass case; adapted from http://bit.ly/RJJHWA
    y_true = [1, 0, 2]
    y_proba = [[0.2, 0.7, 0.1], [0.6, 0.2, 0.2], [0.6, 0.1, 0.3]]
    loss = log_loss(y_true, y_proba, normalize=True)
    expected = -(np.log(0.7) + np.log(0.6) + np.log(0.3)) / 3
    assert loss == approx(expected)
    assert loss == pytest.approx(0.6904911, abs=1e-7)

    # check that we got all the shapes and axes right
    # by doubling the length of y_true and y_proba
    y_true *= 2
    y_proba *= 2
    loss = log_loss(y_true, y_proba, normalize=False)
    assert loss == approx(expected * 6)

    # raise error if number of classes are not equal.
    msg = (
        "y_true and y_prob contain different number of classes: 3 vs 2. Please provide the "
        "true labels explicitly through the labels argument. Classes found in y_true: [0 1 2]"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        log_loss([1, 0, 2], [[0.3, 0.7], [0.6, 0.4], [0.4, 0.6]])

    # raise error if labels do not contain all values of y_true
    y_true = ["a", "b", "c"]
    y_proba = [[0.9, 0.1, 0.0], [0.1, 0.9, 0.0], [0.1, 0.1, 0.8]]
    labels = ["a", "c", "d"]
    error_str = "y_true contains values {'b'} not belonging to the passed labels ['a', 'c', 'd']."
    with pytest.raises(ValueError, match=f"^{re.escape(error_str)}$"):
        log_loss(y_true, y_proba, labels=labels)

    # case when y_true is a string array object
    y_true = ["ham", "spam", "spam", "ham"]
    y_proba = [[0.3, 0.7], [0.6, 0.4], [0.4, 0.6], [0.7, 0.3]]
    loss = log_loss(y_true, y_proba)
    assert loss == approx(-(np.log(0.3) + np.log(0.4) + np.log(0.6) + np.log(0.7)) / 4)
    assert loss == pytest.approx(0.7469410, abs=1e-7)

    # test labels option
    y_true = [2, 2]
    y_proba = [[0.2, 0.8], [0.6, 0.4]]
    y_score = np.array([[0.1, 0.9], [0.1, 0.9]])
    error_str = (
        "y_true contains only one label (2). Please provide the list of all "
        "expected class labels explicitly through the labels argument."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(error_str)}$"):
        log_loss(y_true, y_proba)

    y_proba = [[0.2, 0.8], [0.6, 0.4], [0.7, 0.3]]
    error_str = "Found input variables with inconsistent numbers of samples: [3, 2]"
    with pytest.raises(ValueError, match=f"^{re.escape(error_str)}$"):
        log_loss(y_true, y_proba)

    # works when the labels argument is used
    true_log_loss = -np.mean(np.log(y_score[:, 1]))
    calculated_log_loss = log_loss(y_true, y_score, labels=[1, 2])
    assert calculated_log_loss == approx(true_log_loss)

    # ensure labels work when len(np.unique(y_true)) != y_proba.shape[1]
    y_true = [1, 2, 2]
    y_score2 = [[0.7, 0.1, 0.2], [0.2, 0.7, 0.1], [0.1, 0.7, 0.2]]
    loss = log_loss(y_true, y_score2, labels=[1, 2, 3])
    assert loss == approx(-np.log(0.7))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_log_loss_eps(dtype: Any) -> None:
    y_true = np.array([0, 1], dtype=dtype)
    y_proba = np.array([1, 0], dtype=dtype)
    loss = log_loss(y_true, y_proba)
    assert np.isfinite(loss)
    # both rows wrong, clipped at the dtype's epsilon: -log(eps) each
    assert loss == pytest.approx(-np.log(np.finfo(dtype).eps), rel=1e-3)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_log_loss_not_probabilities_warning(dtype: Any) -> None:
    y_true = np.array([0, 1, 1, 0])
    y_proba = np.array([[0.2, 0.7], [0.6, 0.3], [0.4, 0.7], [0.8, 0.3]], dtype=dtype)
    msg = "The y_prob values do not sum to one. Make sure to pass probabilities."
    with pytest.warns(UserWarning, match=f"^{re.escape(msg)}$"):
        log_loss(y_true, y_proba)


@pytest.mark.parametrize(
    ("y_true", "y_proba"),
    [
        ([0, 1, 0], [0, 1, 0]),
        ([0, 1, 0], [[1, 0], [0, 1], [1, 0]]),
        ([0, 1, 2], [[1, 0, 0], [0, 1, 0], [0, 0, 1]]),
    ],
)
def test_log_loss_perfect_predictions(y_true: Any, y_proba: Any) -> None:
    # Because of the clipping, the result is not exactly 0
    assert log_loss(y_true, y_proba) == pytest.approx(0)


class _MockDataFrame:
    """Stands in for scikit-learn's ``MockDataFrame``: only ``__array__``, shape and length."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.shape = array.shape
        self.ndim = array.ndim

    def __len__(self) -> int:
        return len(self.array)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray(self.array, dtype=dtype)


def test_log_loss_pandas_input() -> None:
    """pandas is not a test dependency: the mock frame, and Polars' Series and DataFrame."""
    import polars as pl  # noqa: PLC0415

    y_tr = np.array(["ham", "spam", "spam", "ham"])
    y_pr = np.array([[0.3, 0.7], [0.6, 0.4], [0.4, 0.6], [0.7, 0.3]])
    expected = -(np.log(0.3) + np.log(0.4) + np.log(0.6) + np.log(0.7)) / 4
    assert log_loss(_MockDataFrame(y_tr), _MockDataFrame(y_pr)) == approx(expected)
    frame = pl.DataFrame(y_pr, schema=["ham", "spam"], orient="row")
    assert log_loss(pl.Series(y_tr), frame) == approx(expected)


LABELS_ORDER = (
    "Labels passed were ['spam', 'eggs', 'ham']. But this function assumes labels are ordered "
    "lexicographically. Pass the ordered labels=['eggs', 'ham', 'spam'] and ensure that the "
    "columns of y_prob correspond to this ordering."
)


def test_log_loss_warnings() -> None:
    with pytest.warns(UserWarning, match=f"^{re.escape(LABELS_ORDER)}$"):
        log_loss(
            ["eggs", "spam", "ham"],
            [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
            labels=["spam", "eggs", "ham"],
        )


@pytest.mark.xfail(
    raises=pytest.fail.Exception,
    reason="deliberate: lp.arrays.log_loss has no y_pred argument (deprecated in 1.9, "
    "removed in 1.11); docs/arrays.md",
)
def test_log_loss_y_pred_deprecation() -> None:
    y_true = np.array([0, 1, 1, 0])
    y_proba = np.array([[0.1, 0.9], [0.9, 0.1], [0.8, 0.2], [0.35, 0.65]])
    log_loss(y_true, y_proba)
    msg = "`y_pred` was renamed to `y_proba` in version 1.9 and will be removed "
    # `y_pred` is not in lp.arrays.log_loss's signature (this test is an expected failure)
    with pytest.warns(FutureWarning, match=re.escape(msg)):
        log_loss(y_true, y_pred=y_proba)  # type: ignore[call-arg]
    msg = "Cannot use both `y_pred` and `y_proba`. `y_pred` is deprecated, "
    with pytest.raises(ValueError, match=re.escape(msg)):
        log_loss(y_true, y_pred=y_proba, y_proba=y_proba)  # type: ignore[call-arg]


# --------------------------------------------------------------------------- Brier score


def test_brier_score_loss_binary() -> None:
    y_true = np.array([0, 1, 1, 0, 1, 1])
    y_prob = np.array([0.1, 0.8, 0.9, 0.3, 1.0, 0.95])
    true_score = np.linalg.norm(y_true - y_prob) ** 2 / len(y_true)

    assert brier_score_loss(y_true, y_true) == approx(0.0)
    assert brier_score_loss(y_true, y_prob) == approx(true_score)
    assert brier_score_loss(1.0 + y_true, y_prob) == approx(true_score)
    assert brier_score_loss(2 * y_true - 1, y_prob) == approx(true_score)

    # check that using (n_samples, 2) y_prob or y_true gives the same score
    y_prob_reshaped = np.column_stack((1 - y_prob, y_prob))
    y_true_reshaped = np.column_stack((1 - y_true, y_true))
    assert brier_score_loss(y_true, y_prob_reshaped) == approx(true_score)
    assert brier_score_loss(y_true_reshaped, y_prob_reshaped) == approx(true_score)

    # check scale_by_half argument
    assert brier_score_loss(y_true, y_prob, scale_by_half="auto") == approx(true_score)
    assert brier_score_loss(y_true, y_prob, scale_by_half=True) == approx(true_score)
    assert brier_score_loss(y_true, y_prob, scale_by_half=False) == approx(2 * true_score)

    # calculate correctly when there's only one class in y_true
    assert brier_score_loss([-1], [0.4]) == approx(0.4**2)
    assert brier_score_loss([0], [0.4]) == approx(0.4**2)
    assert brier_score_loss([1], [0.4]) == approx((1 - 0.4) ** 2)
    assert brier_score_loss(["foo"], [0.4], pos_label="bar") == approx(0.4**2)
    assert brier_score_loss(["foo"], [0.4], pos_label="foo") == approx((1 - 0.4) ** 2)


def test_brier_score_loss_multiclass() -> None:
    got = brier_score_loss(
        ["eggs", "spam", "ham"],
        [[1, 0, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0]],
        labels=["eggs", "ham", "spam", "yams"],
    )
    assert got == approx(2 / 3)
    got = brier_score_loss([1, 0, 2], [[0.2, 0.7, 0.1], [0.6, 0.2, 0.2], [0.6, 0.1, 0.3]])
    expected = (0.2**2 + 0.3**2 + 0.1**2) + (0.4**2 + 0.2**2 + 0.2**2) + (0.6**2 + 0.1**2 + 0.7**2)
    assert got == approx(expected / 3)
    assert got == pytest.approx(0.41333333, abs=1e-7)
    perfect = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    assert brier_score_loss([0, 1, 2], perfect) == approx(0)
    wrong = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    assert brier_score_loss([0, 1, 2], wrong) == approx(2)


def test_brier_score_loss_invalid_inputs() -> None:
    # binary case
    y_true = np.array([0, 1, 1, 0, 1, 1])
    y_prob = np.array([0.1, 0.8, 0.9, 0.3, 1.0, 0.95])
    length = "Found input variables with inconsistent numbers of samples: [5, 6]"
    with pytest.raises(ValueError, match=f"^{re.escape(length)}$"):
        brier_score_loss(y_true, y_prob[1:])
    with pytest.raises(ValueError, match="^y_prob contains values greater than 1: 2.0$"):
        brier_score_loss(y_true, y_prob + 1.0)
    with pytest.raises(ValueError, match="^y_prob contains values less than 0: -0.9$"):
        brier_score_loss(y_true, y_prob - 1.0)

    # multiclass case
    y_true = np.array([1, 0, 2])
    y_prob = np.array([[0.2, 0.7, 0.1], [0.6, 0.2, 0.2], [0.6, 0.1, 0.3]])
    length = "Found input variables with inconsistent numbers of samples: [2, 3]"
    with pytest.raises(ValueError, match=f"^{re.escape(length)}$"):
        brier_score_loss(y_true, y_prob[1:])
    with pytest.raises(ValueError, match="^y_prob contains values greater than 1: 1.7$"):
        brier_score_loss(y_true, y_prob + 1.0)
    with pytest.raises(ValueError, match="^y_prob contains values lower than 0: -0.9$"):
        brier_score_loss(y_true, y_prob - 1.0)

    # raise an error for multiclass y_true and binary y_prob
    error_message = (
        "The type of the target inferred from y_true is multiclass "
        "but should be binary according to the shape of y_prob."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(error_message)}$"):
        brier_score_loss(np.array([0, 1, 2, 0]), np.array([0.8, 0.6, 0.4, 0.2]))

    # raise an error for wrong number of classes
    error_message = (
        "y_true and y_prob contain different number of classes: 3 vs 2. Please provide the "
        "true labels explicitly through the labels argument. Classes found in y_true: [0 1 2]"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(error_message)}$"):
        brier_score_loss([0, 1, 2], [[1, 0], [0, 1], [0, 1]])

    error_message = (
        "The number of classes in labels is different from that in y_prob. Classes found in "
        "labels: ['eggs' 'ham' 'spam' 'yams']"
    )
    unsorted = (
        "Labels passed were ['eggs', 'spam', 'ham', 'yams']. But this function assumes labels "
        "are ordered lexicographically. Pass the ordered labels=['eggs', 'ham', 'spam', 'yams'] "
        "and ensure that the columns of y_prob correspond to this ordering."
    )
    # scikit-learn warns first (its suite does not turn warnings into errors)
    with pytest.warns(UserWarning, match=f"^{re.escape(unsorted)}$"):  # noqa: PT031
        with pytest.raises(ValueError, match=f"^{re.escape(error_message)}$"):
            brier_score_loss(
                ["eggs", "spam", "ham"],
                [[1, 0, 0], [0, 1, 0], [0, 1, 0]],
                labels=["eggs", "spam", "ham", "yams"],
            )

    # raise error message when there's only one class in y_true
    error_message = (
        "y_true contains only one label (eggs). Please provide the list of all expected class "
        "labels explicitly through the labels argument."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(error_message)}$"):
        brier_score_loss(["eggs"], [[0.9, 0.1]])

    # error is fixed when labels is specified
    assert brier_score_loss(["eggs"], [[0.9, 0.1]], labels=["eggs", "ham"]) == approx(0.01)


def test_brier_score_loss_warnings() -> None:
    with pytest.warns(UserWarning, match=f"^{re.escape(LABELS_ORDER)}$"):
        brier_score_loss(
            ["eggs", "spam", "ham"],
            [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
            labels=["spam", "eggs", "ham"],
        )
