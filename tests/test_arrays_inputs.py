"""``lp.arrays`` inputs scikit-learn takes: sparse ``y_true`` and integer scores (issue 8)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import lodestar_polars as lp
from lodestar_polars import arrays

scipy_sparse = pytest.importorskip("scipy.sparse", reason="scipy is in the test extra")

Y_TRUE = np.array([[1, 0, 0], [0, 0, 1], [1, 1, 0]])
Y_SCORE = np.array([[0.75, 0.5, 1.0], [1.0, 0.2, 0.1], [0.3, 0.3, 0.9]])
SPARSE = ["csr_matrix", "csr_array", "csc_matrix", "coo_matrix", "lil_matrix"]

#: the values on the dense input, by hand.  Row 0: the true label (0.75) is
#: below 1.0: coverage 2, 1 of 2 pairs wrong, precision 1/2.  Row 1: the true
#: label (0.1) is last: coverage 3, 2 of 2 wrong, precision 1/3.  Row 2: true
#: labels tie at 0.3 below 0.9: coverage 3, 2 of 2 wrong, precision 2/3 each.
EXPECTED: dict[str, float] = {
    "coverage_error": (2 + 3 + 3) / 3,
    "label_ranking_loss": (1 / 2 + 1 + 1) / 3,
    "label_ranking_average_precision_score": (1 / 2 + 1 / 3 + 2 / 3) / 3,
}


@pytest.mark.parametrize("kind", SPARSE)
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sparse_y_true(name: str, kind: str) -> None:
    """scikit-learn's own tests pass a sparse y_true; it failed with "setting an array element"."""
    fn: Callable[..., float] = getattr(arrays, name)
    y_true = getattr(scipy_sparse, kind)(Y_TRUE)
    assert fn(y_true, Y_SCORE) == pytest.approx(EXPECTED[name], rel=1e-15)
    assert fn(y_true, Y_SCORE) == fn(Y_TRUE, Y_SCORE)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sparse_y_score_is_refused_in_scikit_learn_s_sentence(name: str) -> None:
    fn: Callable[..., float] = getattr(arrays, name)
    y_score = scipy_sparse.csr_matrix(Y_SCORE)
    msg = f"The 'y_score' parameter of {name} must be an array-like. Got {y_score!r} instead."
    with pytest.raises(lp.InvalidParameterError, match=re.escape(msg)):
        fn(Y_TRUE, y_score)


#: (function, y_true, the call) for one relevant label ranked first by one unit
CASES: dict[str, tuple[Callable[..., float], Callable[[np.ndarray], Any], float]] = {
    "dcg_score": (arrays.dcg_score, lambda s: arrays.dcg_score([[0, 1, 0]], s), 1.0),
    "ndcg_score": (arrays.ndcg_score, lambda s: arrays.ndcg_score([[0, 1, 0]], s), 1.0),
    "top_k_accuracy_score": (
        arrays.top_k_accuracy_score,
        lambda s: arrays.top_k_accuracy_score([1], s, k=1, labels=[0, 1, 2]),
        1.0,
    ),
    "average_precision_score": (
        arrays.average_precision_score,
        lambda s: arrays.average_precision_score([0, 1, 0], s[0]),
        1.0,
    ),
    "coverage_error": (arrays.coverage_error, lambda s: arrays.coverage_error([[0, 1, 0]], s), 1.0),
    "label_ranking_loss": (
        arrays.label_ranking_loss,
        lambda s: arrays.label_ranking_loss([[0, 1, 0]], s),
        0.0,
    ),
    "label_ranking_average_precision_score": (
        arrays.label_ranking_average_precision_score,
        lambda s: arrays.label_ranking_average_precision_score([[0, 1, 0]], s),
        1.0,
    ),
    "reciprocal_rank_score": (
        arrays.reciprocal_rank_score,
        lambda s: arrays.reciprocal_rank_score([[0, 1, 0]], s),
        1.0,
    ),
}


@pytest.mark.parametrize(
    ("dtype", "base"),
    [(np.int64, 2**53), (np.uint64, 2**53), (np.uint64, 2**64 - 3), (np.int64, -(2**63))],
    ids=["int64-2^53", "uint64-2^53", "uint64-max", "int64-min"],
)
@pytest.mark.parametrize("name", sorted(CASES))
def test_integer_scores_past_2_53(name: str, dtype: type, base: int) -> None:
    """Scores one apart past 2**53 are two scores (a Float64 cast made them a tie)."""
    _, call, expected = CASES[name]
    score: np.ndarray = np.array([[base, base + 1, base]], dtype=dtype)
    assert call(score) == expected


def test_undefined_metric_warning_is_caught_by_scikit_learn_s_filter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With scikit-learn imported, a filter on its UndefinedMetricWarning catches ours.

    scikit-learn is not a test dependency: its ``sklearn.exceptions`` module is
    stood in for by a module holding a warning class of that name, which is all
    the mechanism reads.
    """
    import sys
    import types
    import warnings

    theirs = type("UndefinedMetricWarning", (UserWarning,), {})
    module = types.ModuleType("sklearn.exceptions")
    module.UndefinedMetricWarning = theirs  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sklearn.exceptions", module)
    y_score = np.array([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1], [0.1, 0.1, 0.8]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        arrays.top_k_accuracy_score([0, 1, 2], y_score, k=3)
    (warning,) = caught
    assert issubclass(warning.category, lp.UndefinedMetricWarning)
    assert issubclass(warning.category, theirs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=theirs)
        assert arrays.top_k_accuracy_score([0, 1, 2], y_score, k=3) == 1.0


def test_undefined_metric_warning_without_scikit_learn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without scikit-learn imported, the warning is lodestar_polars' own class."""
    import sys

    monkeypatch.delitem(sys.modules, "sklearn.exceptions", raising=False)
    y_score = np.array([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1], [0.1, 0.1, 0.8]])
    with pytest.warns(lp.UndefinedMetricWarning) as caught:
        arrays.top_k_accuracy_score([0, 1, 2], y_score, k=3)
    assert caught[0].category is lp.UndefinedMetricWarning
    assert "sklearn.exceptions" not in sys.modules
