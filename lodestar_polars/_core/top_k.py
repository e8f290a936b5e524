"""Top-k accuracy: whether the true class is among the ``k`` best-ranked.

Ranking order is score descending with equal scores broken by the later row
first, which is what scikit-learn's ``argsort(kind="mergesort")[:, ::-1]``
gives, so the closed form is: the true row is a hit iff
``#{scores higher} + #{later rows with an equal score} < k``, i.e. its 0-based
ranking position is below ``k``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lodestar_polars._core.ranking import rank_segments


def is_top_k(position: Any, k: int) -> Any:
    """Whether a 0-based ranking ``position`` is among the first ``k``."""
    return position < k


def top_k_segments(
    is_true: np.ndarray, score: np.ndarray, length: np.ndarray, *, k: int, presorted: bool = False
) -> np.ndarray:
    """1.0 where the segment's (single) true row ranks in the top ``k``, else 0.0.

    Segments must hold exactly one true row.
    """
    ranking = rank_segments(score, length, presorted=presorted)
    true = ranking.take(is_true, bool)
    hit = np.where(true, is_top_k(ranking.position, k), False).astype(np.float64)
    return ranking.segment_sum(hit)
