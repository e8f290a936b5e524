"""ROC AUC, log loss, Brier score and calibration bins: the maths, once.

The *row formulas* (:func:`auc_from_rank_sum`, :func:`log_loss_row`,
:func:`brier_row`, :func:`percentile_position`, :func:`lerp`,
:func:`calibration_gap`) are arithmetic that evaluates a NumPy array or a
Polars expression alike; :func:`where` and :func:`floor` pick the NumPy or the
Polars spelling of the one operation that has no common operator.  The NumPy
evaluators below them (:func:`binary_clf_counts`, :func:`trapezoid`,
:func:`quantile_edges`, :func:`bin_ids`) serve :mod:`lodestar_polars.arrays`
and the plots.

Each follows scikit-learn 1.9.1 operation by operation where the order of
floating-point operations decides the last bits: the clip of the two
probability columns in ``log_loss``, the ``(1 - y) - (1 - p)`` column of
``brier_score_loss``, NumPy's linear percentile (``(n - 1) * q``, and its
``lerp`` that interpolates from the upper end when ``t >= 0.5``) for the
quantile bins of ``calibration_curve``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lodestar_polars._core.ranking import rank_segments
from lodestar_polars._core.segments import segment_ids, segment_starts, segment_sum

EPS = float(np.finfo(np.float64).eps)
"""The float64 machine epsilon: ``log_loss`` clips probabilities to ``[EPS, 1 - EPS]``."""


def where(condition: Any, then: Any, otherwise: Any) -> Any:
    """``then`` where ``condition`` holds, else ``otherwise`` (``np.where`` / ``pl.when``)."""
    if isinstance(condition, (np.ndarray, np.generic, bool)):
        return np.where(condition, then, otherwise)
    import polars as pl  # noqa: PLC0415 (the Polars branch only; the core imports no Polars)

    return pl.when(condition).then(then).otherwise(otherwise)


def floor(x: Any) -> Any:
    """The largest integer not above ``x``, as a float."""
    if isinstance(x, (np.ndarray, np.generic, int, float)):
        return np.floor(x)
    return x.floor()


# --------------------------------------------------------------------------- ROC AUC


def auc_from_rank_sum(rank_sum_positive: Any, n_positive: Any, n_negative: Any) -> Any:
    r"""ROC AUC from the sum of the positives' ascending average ranks (Mann-Whitney).

    .. math:: \mathrm{AUC} = \frac{R_+ - n_+ (n_+ + 1) / 2}{n_+ n_-}

    The numerator counts the (positive, negative) pairs the score orders
    correctly, a tie counting one half: the area under scikit-learn's ROC
    curve, whose tied scores form one diagonal step.
    """
    return (rank_sum_positive - n_positive * (n_positive + 1.0) / 2.0) / (n_positive * n_negative)


def binary_clf_counts(
    positive: np.ndarray, score: np.ndarray, weight: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(fps, tps, thresholds)`` at each distinct score, highest first.

    scikit-learn's ``confusion_matrix_at_thresholds``: the (weighted) false
    and true positives scoring at least each threshold.  ``weight`` has its
    zeros removed already.
    """
    order = np.argsort(-score, kind="stable")
    ranked = score[order]
    truth = positive[order].astype(np.float64)
    last = np.concatenate((np.flatnonzero(np.diff(ranked)), [ranked.size - 1]))
    if weight is None:
        tps = np.cumsum(truth)[last]
        fps = 1 + last.astype(np.float64) - tps
    else:
        w = weight[order]
        tps = np.cumsum(truth * w)[last]
        fps = np.cumsum((1 - truth) * w)[last]
    return fps, tps, ranked[last]


def roc_points(fps: np.ndarray, tps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's ``roc_curve`` points (collinear ones dropped, (0, 0) first), unscaled."""
    if fps.size > 2:
        corner = np.logical_or(np.diff(fps, 2), np.diff(tps, 2))
        keep = np.concatenate(([True], corner, [True]))
        fps, tps = fps[keep], tps[keep]
    return np.concatenate(([0.0], fps)), np.concatenate(([0.0], tps))


def trapezoid(y: np.ndarray, x: np.ndarray) -> float:
    """``np.trapezoid(y, x)``, written out (NumPy 1.26 names it ``trapz``)."""
    return float(np.add.reduce(np.diff(x) * (y[1:] + y[:-1]) / 2.0))


# --------------------------------------------------------------------------- probabilities


def log_loss_row(positive: Any, prob: Any) -> Any:
    """One row's log loss, as scikit-learn's binary ``log_loss`` computes it.

    The two columns ``(1 - p, p)`` are made first and each is clipped to
    ``[EPS, 1 - EPS]``; the loss is ``-(xlogy(1 - y, q0) + xlogy(y, q1))``.
    Both logarithms are finite after the clip, so ``0 * log`` is the zero
    that ``xlogy`` gives.
    """
    from lodestar_polars._core._ops import clip, log  # noqa: PLC0415

    low = clip(1.0 - prob, EPS, 1.0 - EPS)
    high = clip(prob, EPS, 1.0 - EPS)
    return -((1.0 - positive) * log(low) + positive * log(high))


def brier_row(positive: Any, prob: Any) -> Any:
    """One row's Brier loss, as scikit-learn's binary ``brier_score_loss`` computes it.

    The squared distance between the one-hot row ``(1 - y, y)`` and
    ``(1 - p, p)``, halved (``scale_by_half="auto"`` for two columns): equal
    to ``(y - p) ** 2`` up to the rounding of ``1 - p``.
    """
    return (((1.0 - positive) - (1.0 - prob)) ** 2 + (positive - prob) ** 2) * 0.5


# --------------------------------------------------------------------------- calibration bins


def uniform_edges(n_bins: int) -> np.ndarray:
    """The inner edges of ``n_bins`` equal bins of [0, 1] (``np.linspace``, as scikit-learn)."""
    return np.linspace(0.0, 1.0, n_bins + 1)[1:-1]


def quantile_levels(n_bins: int) -> np.ndarray:
    """The quantiles of the inner edges, as ``np.percentile`` sees ``linspace(0, 1) * 100``."""
    return np.true_divide(np.linspace(0, 1, n_bins + 1) * 100, 100)[1:-1]


def percentile_position(n: Any, level: float) -> tuple[Any, Any, Any]:
    """``(previous, next, t)``: NumPy's linear percentile reads ``lerp(s[previous], s[next], t)``.

    ``n`` is the number of values and ``s`` the values sorted ascending;
    ``previous`` is clipped to the last index, as NumPy does above bounds.
    """
    virtual = (n - 1) * level
    previous = floor(virtual)
    t = virtual - previous
    last = n - 1
    return where(previous > last, last, previous), where(previous + 1 > last, last, previous + 1), t


def lerp(a: Any, b: Any, t: Any) -> Any:
    """NumPy's ``_lerp``: from ``a`` below ``t = 0.5``, from ``b`` at and above it."""
    diff = b - a
    return where(t >= 0.5, b - diff * (1.0 - t), a + diff * t)


def quantile_edges(prob: np.ndarray, n_bins: int) -> np.ndarray:
    """The inner edges of ``n_bins`` quantile bins of ``prob`` (``np.percentile``, linear)."""
    return np.asarray(np.percentile(prob, np.linspace(0, 1, n_bins + 1) * 100)[1:-1])


def bin_ids(prob: np.ndarray, inner_edges: np.ndarray) -> np.ndarray:
    """The bin of each probability: edges strictly below it (``searchsorted`` left)."""
    return np.searchsorted(inner_edges, prob)


def calibration_gap(count: Any, total: Any, prob_true: Any, prob_pred: Any) -> Any:
    """One bin's share of the expected calibration error: ``n_b / n * |acc_b - conf_b|``."""
    return count / total * abs(prob_true - prob_pred)


# --------------------------------------------------------------------------- segments (lp.evaluate)


def roc_auc_segments(
    truth: np.ndarray, score: np.ndarray, length: np.ndarray, *, presorted: bool = False
) -> np.ndarray:
    """ROC AUC of each segment from its positives' ascending average ranks.

    A row's tie block holds descending positions ``above + 1 .. through``, so
    its ascending average rank is ``n - (above + through - 1) / 2``.  A segment
    with one class gives NaN (its group is refused by the metric's rules).
    """
    ranking = rank_segments(score, length, presorted=presorted, break_ties=False)
    positive = ranking.take(truth, bool)
    n = np.repeat(ranking.length, ranking.length).astype(np.float64)
    ascending = n - (ranking.above + ranking.through - 1) / 2.0
    rank_sum = ranking.segment_sum(np.where(positive, ascending, 0.0))
    n_positive = ranking.segment_sum(positive.astype(np.float64))
    n_negative = ranking.length - n_positive
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(auc_from_rank_sum(rank_sum, n_positive, n_negative), dtype=np.float64)


def _segment_mean(rows: np.ndarray, length: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return segment_sum(rows, segment_starts(length), length) / length


# A probability far outside [0, 1] (1e200) overflows a square or a sum: its group is
# refused by the metric's rules and nulled, so NumPy is not let to warn about it
# (the cores below say so with np.errstate(over="ignore", invalid="ignore")).


def log_loss_segments(
    truth: np.ndarray, prob: np.ndarray, length: np.ndarray, *, presorted: bool = False
) -> np.ndarray:
    """Mean log loss of each segment (row order does not matter: ``presorted`` is ignored)."""
    with np.errstate(over="ignore", invalid="ignore"):
        rows = log_loss_row(np.asarray(truth, np.float64), prob)
    return _segment_mean(rows, length)


def brier_segments(
    truth: np.ndarray, prob: np.ndarray, length: np.ndarray, *, presorted: bool = False
) -> np.ndarray:
    """Mean Brier loss of each segment (row order does not matter: ``presorted`` is ignored)."""
    with np.errstate(over="ignore", invalid="ignore"):
        rows = brier_row(np.asarray(truth, np.float64), prob)
    return _segment_mean(rows, length)


def expected_calibration_error_segments(
    truth: np.ndarray,
    prob: np.ndarray,
    length: np.ndarray,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    presorted: bool = False,
) -> np.ndarray:
    """The expected calibration error of each segment, its bins as ``calibration_curve``'s.

    ``presorted``: the rows of each segment are in descending ``prob`` order
    (as :func:`lodestar_polars.evaluate` lays them out); otherwise they are
    sorted here.  The rows are then read in ascending order, segment after
    segment, so that each (segment, bin) is one contiguous run of rows: a
    row's bin, the inner edges strictly below it, grows with its probability.
    The quantile edges are NumPy's linear percentile of the segment, read
    from its sorted rows by :func:`percentile_position` and :func:`lerp`, the
    formulas the expression reads.  A run's sums, its share and gap
    (:func:`calibration_gap`) and each segment's sum of gaps are NumPy's: the
    expression's sums are Polars', in another order, so the two agree to the
    last bits of a bin's mean probability (1e-15, not to the bit).
    """
    truth = np.asarray(truth, dtype=np.float64)
    prob = np.asarray(prob, dtype=np.float64)
    length = np.asarray(length, dtype=np.int64)
    if not length.size:
        return np.zeros(0, dtype=np.float64)
    start = segment_starts(length)
    if presorted:
        truth, prob = truth[::-1], prob[::-1]
        order_back = slice(None, None, -1)
        length, start = length[::-1], segment_starts(length[::-1])
    else:
        segment = segment_ids(length)
        order = np.lexsort((prob, segment))
        truth, prob = truth[order], prob[order]
        order_back = slice(None)
    if strategy == "uniform":
        bins = np.searchsorted(uniform_edges(n_bins), prob)
    else:
        bins = np.zeros(prob.size, dtype=np.int64)
        n = length.astype(np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            for level in quantile_levels(n_bins):
                previous, following, t = percentile_position(n, float(level))
                lower = prob[start + previous.astype(np.int64)]
                upper = prob[start + following.astype(np.int64)]
                edge = np.asarray(lerp(lower, upper, t), dtype=np.float64)
                bins += np.repeat(edge, length) < prob
    with np.errstate(over="ignore", invalid="ignore"):
        ece = _binned_gaps(truth, prob, length, bins)
    return np.asarray(ece[order_back], dtype=np.float64)


def _binned_gaps(
    truth: np.ndarray, prob: np.ndarray, length: np.ndarray, bins: np.ndarray
) -> np.ndarray:
    """Each segment's sum of its bins' gaps; rows ascending within segments, so bins are runs."""
    segment = segment_ids(length)
    new_run = np.ones(prob.size, dtype=bool)
    new_run[1:] = (bins[1:] != bins[:-1]) | (segment[1:] != segment[:-1])
    run_start = np.flatnonzero(new_run)
    count = np.diff(run_start, append=prob.size).astype(np.float64)
    sum_true = np.add.reduceat(truth, run_start)
    sum_prob = np.add.reduceat(prob, run_start)
    run_segment = segment[run_start]
    total = length.astype(np.float64)[run_segment]
    gap = calibration_gap(count, total, sum_true / count, sum_prob / count)
    runs_per_segment = np.bincount(run_segment, minlength=length.size)
    return segment_sum(gap, segment_starts(runs_per_segment), runs_per_segment)
