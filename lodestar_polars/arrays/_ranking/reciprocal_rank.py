"""`reciprocal_rank_score`: the reciprocal rank of the first relevant label (ours)."""

from __future__ import annotations

from typing import Any

from lodestar_polars._base.messages import (
    DIFFERENT_SHAPE,
)
from lodestar_polars._base.validation import (
    check_bool,
    check_k,
)
from lodestar_polars._core.reciprocal_rank import reciprocal_rank_segments
from lodestar_polars.arrays._ranking.common import _paired, _rows
from lodestar_polars.arrays._sklearn_compat import (
    _binds_like_sklearn,
    check_array_like,
)
from lodestar_polars.arrays._sklearn_compat import average as np_average


@_binds_like_sklearn
def reciprocal_rank_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int | None = None,
    sample_weight: Any = None,
    ignore_ties: bool = False,
) -> float:
    """Mean reciprocal rank: 1 / the rank of the first relevant entity.

    Not a scikit-learn function; it takes ``ndcg_score``'s inputs.  Per
    sample, the entities are ranked by ``y_score`` (descending); the sample
    scores ``1 / rank`` of the first one with ``y_true > 0``, and 0 when that
    rank is above ``k`` or nothing is relevant.  Tied scores are averaged
    exactly: the expectation over every ordering of the tie.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        Relevance of each entity; an entity is relevant when above 0 (or
        True).  A single column is accepted.
    y_score : array-like of shape (n_samples, n_labels)
        Predicted scores of the same entities.
    k : int, default=None
        A first relevant entity ranked below ``k`` scores 0; ``None`` looks
        at every rank.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; the result is their weighted mean.
    ignore_ties : bool, default=False
        Rank tied scores with the later column first instead of averaging.

    Returns
    -------
    mean_reciprocal_rank : float in [0., 1.]
        The averaged reciprocal ranks of the samples.

    Raises
    ------
    InvalidParameterError
        A parameter outside its domain (scikit-learn's sentence, naming
        ``reciprocal_rank_score``).
    ValueError
        NaN, infinite or non-numeric input, inconsistent lengths, a target
        that is not 2-D, different shapes.
    ZeroDivisionError
        The sample weights sum to zero.

    See Also
    --------
    ndcg_score : the graded, position-discounted counterpart.
    lodestar_polars.reciprocal_rank : the same per group of a long Polars frame.

    Examples
    --------
    >>> from lodestar_polars.arrays import reciprocal_rank_score
    >>> y_true = [[0, 0, 1], [1, 0, 0]]
    >>> y_score = [[0.9, 0.5, 0.1], [0.9, 0.5, 0.1]]
    >>> reciprocal_rank_score(y_true, y_score)
    0.666666666666...
    >>> reciprocal_rank_score(y_true, y_score, k=2)
    0.5

    Tied with one other entity, the relevant one is first half the time:

    >>> reciprocal_rank_score([[0, 1]], [[0.5, 0.5]])
    0.75
    """
    caller = "reciprocal_rank_score"
    check_array_like(y_true, "y_true", caller)
    check_array_like(y_score, "y_score", caller)
    cut = check_k(k, caller)
    check_array_like(sample_weight, "sample_weight", caller, allow_none=True)
    ignore_ties = check_bool(ignore_ties, "ignore_ties", caller)
    y_true, y_score = _paired(y_true, y_score, sample_weight)
    if y_true.ndim != 2:
        msg = (
            "reciprocal_rank_score needs y_true of shape (n_samples, n_labels). "
            f"Got an array of shape {y_true.shape} instead."
        )
        raise ValueError(msg)
    if y_true.shape != y_score.shape:
        msg = DIFFERENT_SHAPE
        raise ValueError(msg)
    relevant, length = _rows(y_true > 0)
    per_row = reciprocal_rank_segments(
        relevant, y_score.reshape(-1), length, k=cut, ignore_ties=ignore_ties
    )
    return float(np_average(per_row, sample_weight))
