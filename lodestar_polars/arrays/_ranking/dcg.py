"""`dcg_score` and `ndcg_score`: scikit-learn's discounted cumulative gain on dense arrays."""

from __future__ import annotations

from typing import Any

from lodestar_polars._base.messages import (
    NDCG_NEGATIVE,
    NDCG_ONE_DOCUMENT,
)
from lodestar_polars._base.validation import (
    check_bool,
    check_k,
    check_log_base,
)
from lodestar_polars._core.dcg import dcg_segments, ndcg_segments
from lodestar_polars.arrays._ranking.common import (
    _check_dcg_shapes,
    _check_dcg_target_type,
    _paired,
    _rows,
)
from lodestar_polars.arrays._sklearn_compat import (
    _binds_like_sklearn,
    check_array_like,
)
from lodestar_polars.arrays._sklearn_compat import average as np_average


@_binds_like_sklearn
def dcg_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int | None = None,
    log_base: float = 2,
    sample_weight: Any = None,
    ignore_ties: bool = False,
) -> float:
    """Compute Discounted Cumulative Gain, as ``sklearn.metrics.dcg_score``.

    Sum the true scores ranked in the order induced by the predicted scores,
    after applying a logarithmic discount: the gain at 0-based position ``i``
    is divided by ``log_base``-logarithm of ``i + 2``.  Tied scores share
    their positions' discounts (the mean over every ordering of the tie).

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        True scores of the entities to be ranked (the gains), at least two
        columns.
    y_score : array-like of shape (n_samples, n_labels)
        Predicted scores of the same entities.
    k : int, default=None
        Only the ``k`` highest-scored entities count; ``None`` counts all.
    log_base : float, default=2
        Base of the logarithm of the discount.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; the result is their weighted mean.
    ignore_ties : bool, default=False
        Rank tied scores with the later column first instead of averaging
        (faster, but then tied results depend on the column order).

    Returns
    -------
    discounted_cumulative_gain : float
        The averaged sample DCG scores.

    Raises
    ------
    InvalidParameterError
        A parameter outside its domain (scikit-learn's sentence).
    ValueError
        NaN, infinite or non-numeric input, inconsistent lengths, a target
        that is not 2-D with at least two columns.
    ZeroDivisionError
        The sample weights sum to zero.

    See Also
    --------
    ndcg_score : DCG divided by the DCG of the perfect ranking.
    lodestar_polars.dcg : the same per group of a long Polars frame.

    Notes
    -----
    scikit-learn's ``ignore_ties=True`` uses NumPy's unstable argsort, so on
    tied scores its order depends on the NumPy build; here a tie always
    ranks the later column first, which is what scikit-learn gives on the
    builds tested (see the package documentation).

    Examples
    --------
    >>> from lodestar_polars.arrays import dcg_score
    >>> true_relevance = [[10, 0, 0, 1, 5]]
    >>> scores = [[0.1, 0.2, 0.3, 4, 70]]
    >>> dcg_score(true_relevance, scores)
    9.499457825916...
    >>> dcg_score(true_relevance, scores, k=2)
    5.630929753571...
    >>> dcg_score(true_relevance, [[1, 0, 0, 0, 1]], k=1)
    7.5
    >>> dcg_score(true_relevance, [[1, 0, 0, 0, 1]], k=1, ignore_ties=True)
    5.0
    """
    caller = "dcg_score"
    check_array_like(y_true, "y_true", caller)
    check_array_like(y_score, "y_score", caller)
    cut = check_k(k, caller)
    base = check_log_base(log_base, caller)
    check_array_like(sample_weight, "sample_weight", caller, allow_none=True)
    ignore_ties = check_bool(ignore_ties, "ignore_ties", caller)
    y_true, y_score = _paired(y_true, y_score, sample_weight)
    _check_dcg_target_type(y_true)
    _check_dcg_shapes(y_true, y_score, ignore_ties=ignore_ties)
    gain, length = _rows(y_true)
    per_row = dcg_segments(
        gain, y_score.reshape(-1), length, k=cut, log_base=base, ignore_ties=ignore_ties
    )
    return float(np_average(per_row, sample_weight))


@_binds_like_sklearn
def ndcg_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int | None = None,
    sample_weight: Any = None,
    ignore_ties: bool = False,
) -> float:
    """Compute Normalized Discounted Cumulative Gain, as ``sklearn.metrics.ndcg_score``.

    The DCG of the ranking induced by the predicted scores (see
    :func:`dcg_score`, base-2 discount) divided by the DCG of the best
    possible ranking, so that a perfect ranking scores 1.  A sample whose
    true scores are all 0 scores 0.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        Non-negative true scores of the entities to be ranked, at least two
        columns.
    y_score : array-like of shape (n_samples, n_labels)
        Predicted scores of the same entities.
    k : int, default=None
        Only the ``k`` highest-scored entities count; ``None`` counts all.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; the result is their weighted mean.
    ignore_ties : bool, default=False
        Rank tied scores with the later column first instead of averaging.

    Returns
    -------
    normalized_discounted_cumulative_gain : float in [0., 1.]
        The averaged NDCG scores for all samples.

    Raises
    ------
    InvalidParameterError
        A parameter outside its domain (scikit-learn's sentence).
    ValueError
        A negative true score, a single column, NaN, infinite or
        non-numeric input, inconsistent lengths, a target that is not 2-D.
    ZeroDivisionError
        The sample weights sum to zero.

    See Also
    --------
    dcg_score : the unnormalised gain.
    lodestar_polars.ndcg : the same per group of a long Polars frame.

    Notes
    -----
    As in scikit-learn the result is not clipped: ``ndcg_score(y, y)`` can be
    one ulp below 1.0.

    Examples
    --------
    >>> from lodestar_polars.arrays import ndcg_score
    >>> true_relevance = [[10, 0, 0, 1, 5]]
    >>> ndcg_score(true_relevance, [[0.1, 0.2, 0.3, 4, 70]])
    0.695694044381...
    >>> ndcg_score(true_relevance, [[0.05, 1.1, 1.0, 0.5, 0.0]], k=4)
    0.352024110063...
    >>> ndcg_score(true_relevance, [[1, 0, 0, 0, 1]], k=1)
    0.75
    """
    caller = "ndcg_score"
    check_array_like(y_true, "y_true", caller)
    check_array_like(y_score, "y_score", caller)
    cut = check_k(k, caller)
    check_array_like(sample_weight, "sample_weight", caller, allow_none=True)
    ignore_ties = check_bool(ignore_ties, "ignore_ties", caller)
    y_true, y_score = _paired(y_true, y_score, sample_weight)
    if y_true.min() < 0:
        msg = NDCG_NEGATIVE
        raise ValueError(msg)
    if y_true.ndim > 1 and y_true.shape[1] <= 1:
        msg = NDCG_ONE_DOCUMENT.format(y_true.shape[1])
        raise ValueError(msg)
    _check_dcg_target_type(y_true)
    _check_dcg_shapes(y_true, y_score, ignore_ties=ignore_ties)
    gain, length = _rows(y_true)
    per_row = ndcg_segments(gain, y_score.reshape(-1), length, k=cut, ignore_ties=ignore_ties)
    return float(np_average(per_row, sample_weight))
