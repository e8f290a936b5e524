"""Where ``lp.arrays`` and scikit-learn 1.9.1 differ, each difference named (docs/arrays.md).

Each difference has two tests: what ``lp.arrays`` answers (it must pass), and
scikit-learn's answer written by hand as a strict xfail, so that the test
fails (and the docs must change) the day the two agree.  The numbers were
read from scikit-learn 1.9.1 and are reproduced here by hand arithmetic.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from lodestar_polars import arrays

# --------------------------------------------------------------------------- unsigned scores

#: scikit-learn negates the scores before its tie-averaged DCG and its LRAP:
#: unsigned integers wrap (-1 is 255 as uint8), so 0 outranks 1
UNSIGNED = np.array([[0, 1]], dtype=np.uint8)


def test_unsigned_scores_are_ranked_by_value() -> None:
    assert arrays.dcg_score([[0, 1]], UNSIGNED) == 1.0
    assert arrays.ndcg_score([[0, 1]], UNSIGNED) == 1.0
    assert arrays.label_ranking_average_precision_score([[0, 1]], UNSIGNED) == 1.0
    assert arrays.ndcg_score([[0, 1]], UNSIGNED) == arrays.ndcg_score([[0, 1]], [[0, 1]])


@pytest.mark.xfail(
    raises=AssertionError, reason="deliberate: unsigned scores wrap when scikit-learn negates them"
)
def test_unsigned_scores_as_scikit_learn() -> None:
    # the relevant label (score 1) is ranked second: 1 / log2(3); LRAP 1/2
    assert arrays.dcg_score([[0, 1]], UNSIGNED) == 1 / math.log2(3)


@pytest.mark.xfail(
    raises=AssertionError, reason="deliberate: unsigned scores wrap when scikit-learn negates them"
)
def test_unsigned_scores_lrap_as_scikit_learn() -> None:
    assert arrays.label_ranking_average_precision_score([[0, 1]], UNSIGNED) == 0.5


# --------------------------------------------------------------------------- boolean scores

BOOLEAN = np.array([[False, True]])
BOOLEAN_NEGATIVE = (
    "The numpy boolean negative, the `-` operator, is not supported, use the `~` operator "
    "or the logical_not function instead."
)


def test_boolean_scores_rank_true_above_false() -> None:
    assert arrays.dcg_score([[0, 1]], BOOLEAN) == 1.0
    assert arrays.ndcg_score([[0, 1]], BOOLEAN) == 1.0
    assert arrays.label_ranking_average_precision_score([[0, 1]], BOOLEAN) == 1.0


@pytest.mark.xfail(
    raises=pytest.fail.Exception,
    reason="deliberate: scikit-learn fails in NumPy negating boolean scores",
)
def test_boolean_scores_as_scikit_learn() -> None:
    with pytest.raises(TypeError, match=f"^{re.escape(BOOLEAN_NEGATIVE)}$"):
        arrays.ndcg_score([[0, 1]], BOOLEAN)


# --------------------------------------------------------------------------- sparse y_true


def _explicit_zero() -> object:
    """A CSR y_true storing a 0 at (0, 1): [[1, 0, 0], [0, 0, 1], [0, 0, 0]] by value."""
    sparse = pytest.importorskip("scipy.sparse", reason="scipy is in the test extra")
    data, indices, indptr = np.array([1, 0, 1]), np.array([0, 1, 2]), np.array([0, 2, 3, 3])
    return sparse.csr_array((data, indices, indptr), shape=(3, 3))


SCORES = np.array([[0.9, 0.2, 0.3], [0.1, 0.5, 0.5], [0.3, 0.2, 0.1]])


def test_sparse_y_true_is_read_by_value() -> None:
    """A stored 0 is a 0: the answer is the dense matrix's."""
    y_true = _explicit_zero()
    dense = np.array([[1, 0, 0], [0, 0, 1], [0, 0, 0]])
    # row 0: the true label first (0); row 1: tied with a false label (1/2); row 2: none
    assert arrays.label_ranking_loss(y_true, SCORES) == (0 + 1 / 2 + 0) / 3
    assert arrays.label_ranking_loss(y_true, SCORES) == arrays.label_ranking_loss(dense, SCORES)
    # LRAP: 1, 1/2 (tied at rank 2), 1 (no true label)
    assert arrays.label_ranking_average_precision_score(y_true, SCORES) == (1 + 1 / 2 + 1) / 3


@pytest.mark.xfail(
    raises=AssertionError, reason="deliberate: scikit-learn counts a stored 0 as a true label"
)
def test_sparse_explicit_zero_as_scikit_learn() -> None:
    # row 0 has true labels 0 and 1 (score 0.2, below the false 0.3): 1 of 2 pairs wrong
    assert arrays.label_ranking_loss(_explicit_zero(), SCORES) == pytest.approx(
        (1 / 2 + 1 / 2 + 0) / 3, rel=1e-15
    )


@pytest.mark.xfail(
    raises=AssertionError, reason="deliberate: scikit-learn counts a stored 0 as a true label"
)
def test_sparse_explicit_zero_lrap_as_scikit_learn() -> None:
    # row 0: label 0 at rank 1 (1/1), label 1 at rank 3 with 2 true at or above (2/3)
    expected = ((1 + 2 / 3) / 2 + 1 / 2 + 1) / 3
    assert arrays.label_ranking_average_precision_score(_explicit_zero(), SCORES) == pytest.approx(
        expected, rel=1e-15
    )


@pytest.mark.xfail(
    raises=pytest.fail.Exception,
    reason="deliberate: coverage_error takes a sparse y_true; scikit-learn refuses it there alone",
)
def test_sparse_coverage_as_scikit_learn() -> None:
    y_true = _explicit_zero()
    msg = f"The 'y_true' parameter of coverage_error must be an array-like. Got {y_true!r} instead."
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        arrays.coverage_error(y_true, SCORES)


# --------------------------------------------------------------------------- float16 coverage

HALF = np.array([[1, 2, 3], [3, 2, 1]], dtype=np.float16)


def test_float16_coverage_is_silent() -> None:
    assert arrays.coverage_error([[1, 0, 1], [1, 0, 1]], HALF) == 3.0


@pytest.mark.xfail(
    raises=pytest.fail.Exception,
    reason="deliberate: scikit-learn's masked array warns casting to float16",
)
def test_float16_coverage_warns_as_scikit_learn() -> None:
    with pytest.warns(RuntimeWarning, match="^overflow encountered in cast$"):
        arrays.coverage_error([[1, 0, 1], [1, 0, 1]], HALF)


# --------------------------------------------------------------------------- log_base precision


def test_float32_log_base_as_scikit_learn() -> None:
    """scikit-learn takes ``np.log(log_base)`` in the scalar's own precision."""
    ln_base = float(np.log(np.float32(2)))
    discount = [ln_base / math.log(i + 2) for i in range(4)]
    # ranked by score: gains 2, 0, 1, 3
    expected = 2 * discount[0] + 1 * discount[2] + 3 * discount[3]
    got = arrays.dcg_score([[3, 2, 1, 0]], [[0.1, 0.4, 0.2, 0.3]], log_base=np.float32(2))  # type: ignore[arg-type]  # a NumPy float, as scikit-learn takes
    assert got == pytest.approx(expected, rel=1e-15)
