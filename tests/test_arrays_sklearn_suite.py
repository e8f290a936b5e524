"""scikit-learn's own tests of its ranking metrics, run against ``lp.arrays``.

Ported from ``sklearn/metrics/tests/test_ranking.py`` (scikit-learn 1.9.1):
the tests of ``dcg_score``, ``ndcg_score``, ``top_k_accuracy_score``,
``average_precision_score``, ``coverage_error``, ``label_ranking_loss`` and
``label_ranking_average_precision_score``.  Their expected values are the
hand-written ones of those tests.  scikit-learn is not imported:

* its data generators (``make_multilabel_classification``,
  ``_sparse_random_matrix``, the iris + ``LogisticRegression`` predictions of
  ``make_prediction`` and ``make_classification``) are replaced by NumPy
  random data of the same shape and kind, and the properties the tests check
  on them are checked on that data;
* its private per-sample ``_dcg_sample_scores`` / ``_ndcg_sample_scores`` are
  the public functions called on one row at a time;
* ``precision_recall_curve`` (in ``_average_precision_slow``) is replaced by
  the precision and recall at each distinct threshold, counted by hand;
* ``accuracy_score`` is ``np.mean(y_true == y_pred)``.

Tolerances are tightened from scikit-learn's ``assert_almost_equal`` (7
decimals) to 1e-12 relative, and each ``pytest.raises(ValueError)`` without a
message matches scikit-learn's whole message.  The ROC, DET and
precision-recall-curve tests are not ported: ``lp.arrays`` has no curves.
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
    coverage_error,
    dcg_score,
    label_ranking_average_precision_score,
    label_ranking_loss,
    ndcg_score,
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
