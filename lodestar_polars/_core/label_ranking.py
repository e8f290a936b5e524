"""Rank as a count: coverage error, label ranking loss, LRAP and average precision.

For a relevant row ``p`` of a segment, ``through[p]`` counts the rows scoring
at least as high as ``p`` (``rankdata(-s, "max")``) and ``through_relevant[p]``
the relevant ones among them.  Every formula below is arithmetic on those
two counts, so nothing observes an order inside a tie: a tie counts against
the relevant row.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lodestar_polars._core.ranking import rank_segments
from lodestar_polars._core.segments import segment_ids


def precision_at(through_relevant: Any, through: Any) -> Any:
    """Precision of the cut made at a relevant row's score.

    The mean of this over the relevant rows is LRAP's row value, and, with
    weighted counts, binary average precision (the step sum, not the trapezoid).
    """
    return through_relevant / through


def misordered_pairs(through_relevant: Any, through: Any) -> Any:
    """Irrelevant rows scoring at least as high as a relevant row."""
    return through - through_relevant


def ranking_loss(misordered: Any, n_relevant: Any, n: Any) -> Any:
    """Fraction of (relevant, irrelevant) pairs ordered wrongly; 0 when either set is empty."""
    pairs = n_relevant * (n - n_relevant)
    return misordered / (pairs + (pairs == 0))


def _relevant_counts(
    relevant: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    weight: np.ndarray | None,
    *,
    presorted: bool = False,
) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray]:
    ranking = rank_segments(score, length, presorted=presorted)
    rel = ranking.take(relevant, bool)
    if weight is None:
        # unweighted, both are counts: rows, and relevant rows (from the running
        # count over all rows), at or above the row's tie block in its segment
        relevant_before = np.zeros(rel.size + 1, dtype=np.int64)
        np.cumsum(rel, out=relevant_before[1:])
        through_rel = relevant_before[ranking.block_end] - relevant_before[ranking.segment_start]
        through = ranking.block_end - ranking.segment_start
        return ranking, rel, through.astype(np.float64), through_rel.astype(np.float64)
    w = ranking.take(weight, np.float64)
    through = ranking.through_sum(w)
    through_rel = ranking.through_sum(w * rel)
    return ranking, rel, through, through_rel


def coverage_segments(
    relevant: np.ndarray, score: np.ndarray, length: np.ndarray, *, presorted: bool = False
) -> np.ndarray:
    """Coverage error per segment: the largest ``through`` of a relevant row, 0 if none."""
    ranking = rank_segments(score, length, presorted=presorted)
    rel = ranking.take(relevant, bool)
    cov = np.where(rel, ranking.through, 0).astype(np.float64)
    return np.maximum.reduceat(cov, ranking.start)


def ranking_loss_segments(
    relevant: np.ndarray, score: np.ndarray, length: np.ndarray, *, presorted: bool = False
) -> np.ndarray:
    """Label ranking loss per segment."""
    ranking, rel, through, through_rel = _relevant_counts(
        relevant, score, length, None, presorted=presorted
    )
    misordered = ranking.segment_sum(np.where(rel, misordered_pairs(through_rel, through), 0.0))
    n_rel = ranking.segment_sum(rel.astype(np.float64))
    return ranking_loss(misordered, n_rel, ranking.length.astype(np.float64))


def precision_mean_segments(
    relevant: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    weight: np.ndarray | None = None,
    *,
    presorted: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Per segment: the (weighted) mean of :func:`precision_at` over relevant rows.

    Returns ``(mean, weight_of_relevant)``; ``mean`` is NaN where a segment has
    no (weighted) relevant row, and the callers decide that row's value (LRAP
    1.0, AP 0.0).
    """
    if weight is None:
        return _unweighted_precision_mean(relevant, score, length, presorted=presorted)
    ranking, rel, through, through_rel = _relevant_counts(
        relevant, score, length, weight, presorted=presorted
    )
    w = ranking.take(weight, np.float64)
    w_rel = np.where(rel, w, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(
            rel & (w_rel != 0) & (through != 0), precision_at(through_rel, through), 0.0
        )
        total = ranking.segment_sum(w_rel)
        mean = ranking.segment_sum(w_rel * prec) / total
    return mean, total


def _unweighted_precision_mean(
    relevant: np.ndarray, score: np.ndarray, length: np.ndarray, *, presorted: bool
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`precision_mean_segments` with every weight 1, at the relevant rows only.

    The same numbers: a segment's sum of :func:`precision_at` over its relevant
    rows, in ranking order (the weighted form adds zeros between them, which
    change no sum), over its count of relevant rows.
    """
    ranking = rank_segments(score, length, presorted=presorted)
    rel = ranking.take(relevant, bool)
    relevant_before = np.zeros(rel.size + 1, dtype=np.int64)  # among the first i ranked rows
    np.cumsum(rel, out=relevant_before[1:])
    start = ranking.start
    first = relevant_before[start]  # each segment's first relevant row, among the relevant rows
    count = relevant_before[start + ranking.length] - first
    rows = np.flatnonzero(rel)
    segment = segment_ids(count)  # rows are in segment order
    end = rows + 1 if ranking.no_ties else ranking.block_end[rows]  # past the row's tie block
    through = end - start[segment]
    through_rel = relevant_before[end] - first[segment]
    sums = np.zeros(start.size, dtype=np.float64)
    has = count > 0
    if rows.size:
        sums[has] = np.add.reduceat(precision_at(through_rel, through), first[has])
    total = count.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return sums / total, total


def lrap_segments(
    relevant: np.ndarray, score: np.ndarray, length: np.ndarray, *, presorted: bool = False
) -> np.ndarray:
    """LRAP per segment: 1.0 when no label or every label is relevant."""
    mean, n_rel = precision_mean_segments(relevant, score, length, presorted=presorted)
    degenerate = (n_rel == 0) | (n_rel == np.asarray(length))
    return np.where(degenerate, 1.0, mean)


def average_precision_segments(
    relevant: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    weight: np.ndarray | None = None,
    *,
    presorted: bool = False,
) -> np.ndarray:
    """Binary average precision per segment (step sum); 0.0 with no positive."""
    mean, total = precision_mean_segments(relevant, score, length, weight, presorted=presorted)
    return np.where(total == 0, 0.0, np.maximum(mean, 0.0))
