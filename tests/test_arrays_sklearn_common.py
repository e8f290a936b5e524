"""scikit-learn's common metric tests, for ``roc_auc_score``, ``log_loss`` and ``brier_score_loss``.

Ported from ``sklearn/metrics/tests/test_common.py`` (scikit-learn 1.9.1):
every test whose parametrisation reaches one of the metric variants below
(scikit-learn's own names and ``partial`` settings), run against
``lp.arrays``.  The lists that decide which variant a test takes
(``METRIC_UNDEFINED_MULTICLASS``, ``CONTINUOUS_MULTILABEL_METRICS``, ...)
are scikit-learn's, cut down to these variants.  scikit-learn is not
imported:

* ``check_random_state(0)`` is ``np.random.RandomState(0)``;
  ``sklearn.utils.shuffle`` one permutation drawn from it;
* ``make_multilabel_classification(allow_unlabeled=False)`` is a random 0/1
  matrix with a label in every row;
* ``ignore_warnings`` is ``warnings.simplefilter("ignore")``;
* the array-API tests are not ported (``lp.arrays`` is NumPy only), nor
  those of curves, sparse ``y_true`` or regression metrics.

Each test passes as ported.
"""

from __future__ import annotations

import itertools
import math
import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars.arrays import brier_score_loss, log_loss, roc_auc_score

METRICS: dict[str, Callable[..., Any]] = {
    "log_loss": log_loss,
    "unnormalized_log_loss": partial(log_loss, normalize=False),
    "brier_score_loss": brier_score_loss,
    "roc_auc_score": roc_auc_score,
    "weighted_roc_auc": partial(roc_auc_score, average="weighted"),
    "samples_roc_auc": partial(roc_auc_score, average="samples"),
    "micro_roc_auc": partial(roc_auc_score, average="micro"),
    "ovr_roc_auc": partial(roc_auc_score, average="macro", multi_class="ovr"),
    "weighted_ovr_roc_auc": partial(roc_auc_score, average="weighted", multi_class="ovr"),
    "ovo_roc_auc": partial(roc_auc_score, average="macro", multi_class="ovo"),
    "weighted_ovo_roc_auc": partial(roc_auc_score, average="weighted", multi_class="ovo"),
    "partial_roc_auc": partial(roc_auc_score, max_fpr=0.5),
}
METRIC_UNDEFINED_MULTICLASS = {
    "micro_roc_auc",
    "samples_roc_auc",
    "partial_roc_auc",
    "roc_auc_score",
    "weighted_roc_auc",
}
CONTINUOUS_CLASSIFICATION_METRICS_WITH_AVERAGING = {"roc_auc_score", "partial_roc_auc"}
METRICS_WITH_POS_LABEL = {"brier_score_loss"}
METRICS_WITH_NORMALIZE_OPTION = {"log_loss"}
CONTINUOUS_MULTILABEL_METRICS = {
    "log_loss",
    "unnormalized_log_loss",
    "brier_score_loss",
    "roc_auc_score",
    "weighted_roc_auc",
    "samples_roc_auc",
    "micro_roc_auc",
    "partial_roc_auc",
}
METRICS_WITHOUT_SAMPLE_WEIGHT = {"ovo_roc_auc", "weighted_ovo_roc_auc"}
WEIGHT_SCALE_DEPENDENT_METRICS = {"unnormalized_log_loss"}
DEFINED_BINARY_MULTICLASS = sorted(set(METRICS) - METRIC_UNDEFINED_MULTICLASS)


@contextmanager
def ignore_warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def assert_allclose(actual: Any, desired: Any) -> None:
    """scikit-learn's ``assert_allclose`` (rtol 1e-7), NaN equal to NaN."""
    np.testing.assert_allclose(actual, desired, rtol=1e-7)


def _shuffle(*arrays: np.ndarray) -> list[np.ndarray]:
    order = np.random.RandomState(0).permutation(len(arrays[0]))
    return [a[order] for a in arrays]


def _labelled_rows(n_samples: int, n_classes: int, seed: int) -> np.ndarray:
    """Stands in for ``make_multilabel_classification(allow_unlabeled=False)``."""
    rng = np.random.RandomState(seed)
    y = (rng.uniform(size=(n_samples, n_classes)) < 0.3).astype(np.int64)
    y[np.arange(n_samples), rng.randint(0, n_classes, n_samples)] = 1
    return y


@pytest.mark.parametrize("name", DEFINED_BINARY_MULTICLASS)
def test_sample_order_invariance(name: str) -> None:
    random_state = np.random.RandomState(0)
    y_true = random_state.randint(0, 2, size=(20,))
    y_pred = random_state.randint(0, 2, size=(20,))
    y_true_shuffle, y_pred_shuffle = _shuffle(y_true, y_pred)
    with ignore_warnings():
        metric = METRICS[name]
        assert_allclose(metric(y_true, y_pred), metric(y_true_shuffle, y_pred_shuffle))


def test_sample_order_invariance_multilabel_and_multioutput() -> None:
    random_state = np.random.RandomState(0)
    y_true = random_state.randint(0, 2, size=(20, 25))
    random_state.randint(0, 2, size=(20, 25))  # y_pred: for the label metrics only
    y_score = random_state.uniform(size=y_true.shape)
    y_score /= y_score.sum(axis=1, keepdims=True)
    y_true_shuffle, y_score_shuffle = _shuffle(y_true, y_score)
    for name in sorted(CONTINUOUS_MULTILABEL_METRICS):
        metric = METRICS[name]
        with ignore_warnings():
            assert_allclose(metric(y_true, y_score), metric(y_true_shuffle, y_score_shuffle))


@pytest.mark.parametrize("name", DEFINED_BINARY_MULTICLASS)
def test_format_invariance_with_1d_vectors(name: str) -> None:
    random_state = np.random.RandomState(0)
    y1 = random_state.randint(0, 2, size=(20,))
    y2 = random_state.randint(0, 2, size=(20,))
    y1_list, y2_list = list(y1), list(y2)
    y1_1d, y2_1d = np.array(y1), np.array(y2)
    y1_column, y2_column = y1_1d.reshape(-1, 1), y2_1d.reshape(-1, 1)
    y1_row, y2_row = y1_1d.reshape(1, -1), y2_1d.reshape(1, -1)
    with ignore_warnings():
        metric = METRICS[name]
        measure = metric(y1, y2)
        for a, b in [
            (y1_list, y2_list),
            (y1_1d, y2_1d),
            (y1_column, y2_column),
            (y1_1d, y2_list),
            (y1_list, y2_1d),
            (y1_1d, y2_column),
            (y1_column, y2_1d),
            (y1_list, y2_column),
            (y1_column, y2_list),
        ]:
            assert_allclose(metric(a, b), measure)
        # these mixed representations are refused
        for a, b in [
            (y1_1d, y2_row),
            (y1_row, y2_1d),
            (y1_list, y2_row),
            (y1_row, y2_list),
            (y1_column, y2_row),
            (y1_row, y2_column),
        ]:
            with pytest.raises(ValueError):  # noqa: PT011 (scikit-learn's assertion)
                metric(a, b)
    if name not in CONTINUOUS_MULTILABEL_METRICS:
        if "roc_auc" in name:
            with pytest.warns(lp.UndefinedMetricWarning):
                assert math.isnan(metric(y1_row, y2_row))
        else:  # pragma: no cover (every variant here that is not multilabel is an AUC)
            with pytest.raises(ValueError):  # noqa: PT011
                metric(y1_row, y2_row)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_continuous_classification_invariance_string_vs_numbers_labels(name: str) -> None:
    random_state = np.random.RandomState(0)
    y1 = random_state.randint(0, 2, size=(20,))
    y2 = random_state.randint(0, 2, size=(20,))
    y1_str = np.array(["eggs", "spam"])[y1]
    with ignore_warnings():
        metric = METRICS[name]
        metric_str = metric
        if name in METRICS_WITH_POS_LABEL:
            metric_str = partial(metric_str, pos_label="spam")
        measure_with_number = metric(y1, y2)
        np.testing.assert_array_equal(measure_with_number, metric_str(y1_str, y2))
        np.testing.assert_array_equal(measure_with_number, metric_str(y1_str.astype("O"), y2))


INVALIDS_NAN_INF = [
    ([0, 1], [np.inf, np.inf]),
    ([0, 1], [np.nan, np.nan]),
    ([0, 1], [np.nan, np.inf]),
    ([0, 1], [np.inf, 1]),
    ([0, 1], [np.nan, 1]),
]


@pytest.mark.parametrize("name", sorted(METRICS))
@pytest.mark.parametrize(("y_true", "y_score"), INVALIDS_NAN_INF)
def test_continuous_inf_nan_input(name: str, y_true: Any, y_score: Any) -> None:
    with pytest.raises(ValueError, match=r"contains (NaN|infinity)"):
        METRICS[name](y_true, y_score)


@pytest.mark.parametrize("name", sorted(METRICS_WITH_NORMALIZE_OPTION))
def test_normalize_option_binary_classification(name: str) -> None:
    n_samples = 20
    random_state = np.random.RandomState(0)
    y_true = random_state.randint(0, 2, size=(n_samples,))
    random_state.randint(0, 2, size=(n_samples,))  # y_pred: for the label metrics only
    y_score = random_state.uniform(size=y_true.shape)
    metric = METRICS[name]
    measure_normalized = metric(y_true, y_score, normalize=True)
    measure_not_normalized = metric(y_true, y_score, normalize=False)
    assert measure_normalized > 0
    assert_allclose(measure_normalized, measure_not_normalized / n_samples)


@pytest.mark.parametrize("name", sorted(METRICS_WITH_NORMALIZE_OPTION))
def test_normalize_option_multiclass_classification(name: str) -> None:
    n_classes, n_samples = 4, 20
    random_state = np.random.RandomState(0)
    y_true = random_state.randint(0, n_classes, size=(n_samples,))
    random_state.randint(0, n_classes, size=(n_samples,))
    y_score = random_state.rand(n_samples, n_classes)
    temp = np.exp(-y_score)
    y_score = temp / temp.sum(axis=-1).reshape(-1, 1)
    metric = METRICS[name]
    measure_normalized = metric(y_true, y_score, normalize=True)
    measure_not_normalized = metric(y_true, y_score, normalize=False)
    assert measure_normalized > 0
    assert_allclose(measure_normalized, measure_not_normalized / n_samples)


def _check_averaging(
    metric: Callable[..., Any],
    y_true: np.ndarray,
    y_pred: np.ndarray,
    y_true_binarize: np.ndarray,
    y_pred_binarize: np.ndarray,
    *,
    is_multilabel: bool,
) -> None:
    n_samples, n_classes = y_true_binarize.shape
    label_measure = metric(y_true, y_pred, average=None)
    assert_allclose(
        label_measure,
        [metric(y_true_binarize[:, i], y_pred_binarize[:, i]) for i in range(n_classes)],
    )
    micro_measure = metric(y_true, y_pred, average="micro")
    assert_allclose(micro_measure, metric(y_true_binarize.ravel(), y_pred_binarize.ravel()))
    macro_measure = metric(y_true, y_pred, average="macro")
    assert_allclose(macro_measure, np.mean(label_measure))
    weights = np.sum(y_true_binarize, axis=0, dtype=int)
    weighted_measure = metric(y_true, y_pred, average="weighted")
    if np.sum(weights) != 0:
        assert_allclose(weighted_measure, np.average(label_measure, weights=weights))
    else:  # pragma: no cover (every label has a positive in these data)
        assert_allclose(weighted_measure, 0)
    if is_multilabel:
        sample_measure = metric(y_true, y_pred, average="samples")
        assert_allclose(
            sample_measure,
            np.mean([metric(y_true_binarize[i], y_pred_binarize[i]) for i in range(n_samples)]),
        )
    for average in ("unknown", "garbage"):
        with pytest.raises(ValueError, match=f"Got '{average}' instead"):
            metric(y_true, y_pred, average=average)


@pytest.mark.parametrize("name", sorted(CONTINUOUS_CLASSIFICATION_METRICS_WITH_AVERAGING))
def test_averaging_multilabel(name: str) -> None:
    n_classes = 5
    y = _labelled_rows(40, n_classes, seed=5)
    y_true = y[:20]
    y_score = np.random.RandomState(0).normal(size=(20, n_classes))
    _check_averaging(METRICS[name], y_true, y_score, y_true, y_score, is_multilabel=True)


def check_sample_weight_invariance(
    name: str,
    metric: Callable[..., Any],
    y1: np.ndarray,
    y2: np.ndarray,
    sample_weight: np.ndarray | None = None,
) -> None:
    rng = np.random.RandomState(0)
    if sample_weight is None:
        sample_weight = rng.randint(1, 10, size=len(y1))
    unweighted_score = metric(y1, y2, sample_weight=None)
    assert_allclose(unweighted_score, metric(y1, y2, sample_weight=np.ones(shape=len(y1))))
    weighted_score = metric(y1, y2, sample_weight=sample_weight)
    with pytest.raises(AssertionError):
        assert_allclose(unweighted_score, weighted_score)
    assert_allclose(weighted_score, metric(y1, y2, sample_weight=sample_weight.tolist()))
    repeat_weighted_score = metric(
        np.repeat(y1, sample_weight, axis=0), np.repeat(y2, sample_weight, axis=0)
    )
    assert_allclose(weighted_score, repeat_weighted_score)
    sample_weight_subset = sample_weight[1::2]
    sample_weight_zeroed = np.copy(sample_weight)
    sample_weight_zeroed[::2] = 0
    weighted_score_subset = metric(y1[1::2], y2[1::2], sample_weight=sample_weight_subset)
    weighted_score_zeroed = metric(y1, y2, sample_weight=sample_weight_zeroed)
    assert_allclose(weighted_score_subset, weighted_score_zeroed)
    if name not in WEIGHT_SCALE_DEPENDENT_METRICS:
        for scaling in (2, 0.3):
            assert_allclose(weighted_score, metric(y1, y2, sample_weight=sample_weight * scaling))
    msg = (
        "Found input variables with inconsistent numbers of samples: "
        f"[{len(y1)}, {len(y2)}, {len(sample_weight) * 2}]"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        metric(y1, y2, sample_weight=np.hstack([sample_weight, sample_weight]))


@pytest.mark.parametrize("name", sorted(set(METRICS) - METRICS_WITHOUT_SAMPLE_WEIGHT))
def test_binary_sample_weight_invariance(name: str) -> None:
    n_samples = 50
    random_state = np.random.RandomState(0)
    y_true = random_state.randint(0, 2, size=(n_samples,))
    random_state.randint(0, 2, size=(n_samples,))
    y_score = random_state.random_sample(size=(n_samples,))
    check_sample_weight_invariance(name, METRICS[name], y_true, y_score)


@pytest.mark.parametrize(
    "name", sorted(set(METRICS) - METRICS_WITHOUT_SAMPLE_WEIGHT - METRIC_UNDEFINED_MULTICLASS)
)
def test_multiclass_sample_weight_invariance(name: str) -> None:
    n_samples = 50
    random_state = np.random.RandomState(0)
    y_true = random_state.randint(0, 5, size=(n_samples,))
    random_state.randint(0, 5, size=(n_samples,))
    y_score = random_state.random_sample(size=(n_samples, 5))
    temp = np.exp(-y_score)
    y_score_norm = temp / temp.sum(axis=-1).reshape(-1, 1)
    check_sample_weight_invariance(name, METRICS[name], y_true, y_score_norm)


@pytest.mark.parametrize("name", sorted(CONTINUOUS_MULTILABEL_METRICS))
def test_multilabel_sample_weight_invariance(name: str) -> None:
    random_state = np.random.RandomState(0)
    ya = _labelled_rows(50, 10, seed=0)
    yb = _labelled_rows(50, 10, seed=1)
    y_true = np.vstack([ya, yb])
    y_score = random_state.uniform(size=y_true.shape)
    y_score /= y_score.sum(axis=1, keepdims=True)
    check_sample_weight_invariance(name, METRICS[name], y_true, y_score)


@pytest.mark.parametrize("name", sorted(CONTINUOUS_MULTILABEL_METRICS))
def test_continuous_multilabel_multioutput_permutations_invariance(name: str) -> None:
    random_state = np.random.RandomState(0)
    n_samples, n_classes = 20, 4
    y_true = random_state.randint(0, 2, size=(n_samples, n_classes))
    y_score = random_state.uniform(size=y_true.shape)
    y_score /= y_score.sum(axis=1, keepdims=True)
    y_true[y_true.sum(1) == 4, 0] = 0
    y_true[y_true.sum(1) == 0, 0] = 1
    metric = METRICS[name]
    score = metric(y_true, y_score)
    for perm in itertools.permutations(range(n_classes), n_classes):
        current_score = metric(y_true[:, perm], y_score[:, perm])
        np.testing.assert_almost_equal(score, current_score)


@pytest.mark.parametrize("name", DEFINED_BINARY_MULTICLASS)
def test_continuous_metric_permutation_invariance(name: str) -> None:
    n_samples, n_classes = 100, 3
    random_state = np.random.RandomState(0)
    y_score = random_state.rand(n_samples, n_classes)
    temp = np.exp(-y_score)
    y_score = temp / temp.sum(axis=-1).reshape(-1, 1)
    y_true = random_state.randint(0, n_classes, size=n_samples)
    metric = METRICS[name]
    score = metric(y_true, y_score)
    for perm in itertools.permutations(range(n_classes), n_classes):
        inverse_perm = np.zeros(n_classes, dtype=int)
        inverse_perm[list(perm)] = np.arange(n_classes)
        current_score = metric(np.take(perm, y_true), y_score[:, inverse_perm])
        np.testing.assert_almost_equal(score, current_score)


@pytest.mark.parametrize("dtype_y_str", [str, object])
def test_metrics_pos_label_error_str(dtype_y_str: Any) -> None:
    """The ``brier_score_loss`` line (its ``pos_label`` defaults to None)."""
    rng = np.random.RandomState(42)
    y1 = np.array(["spam"] * 3 + ["eggs"] * 2, dtype=dtype_y_str)
    y2 = rng.randint(0, 2, size=y1.size)
    msg = (
        "y_true takes value in {'eggs', 'spam'} and pos_label is not specified: either make "
        "y_true take value in {0, 1} or {-1, 1} or pass pos_label explicit"
    )
    with pytest.raises(ValueError, match=re.escape(msg)):
        brier_score_loss(y1, y2)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_metrics_dataframe_series(name: str) -> None:
    """Polars Series (pandas is not a test dependency)."""
    y_pred = pl.Series([0.0, 1.0, 0, 1.0])
    y_true = pl.Series([1.0, 0.0, 0.0, 0.0])
    metric = METRICS[name]
    expected_metric = metric(y_pred.to_numpy(), y_true.to_numpy())
    assert_allclose(metric(y_pred, y_true), expected_metric)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_returned_value_consistency(name: str) -> None:
    rng = np.random.RandomState(0)
    y_true = rng.randint(0, 2, size=(20,))
    y_pred = rng.randint(0, 2, size=(20,))
    score = METRICS[name](y_true, y_pred)
    assert isinstance(score, (float, np.ndarray, tuple))
    assert not isinstance(score, (np.float64, np.float32))
