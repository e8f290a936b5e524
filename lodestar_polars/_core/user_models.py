"""Metrics of a user reading down the ranking: ERR, RBP and its residual, and Judged@k.

Each is one NumPy function over flat segmented arrays (a query's rows, segment
after segment; :mod:`lodestar_polars._core.segments`), with no loop over queries.
The row formulas are written once here with Python operators and :mod:`._ops`, so
the Polars expressions (``lodestar_polars._metrics.user_models``) compute the same
numbers.

ERR (Chapelle et al., 2009)
    A row of grade ``g`` stops the user with chance ``R = (2^g - 1) / 2^g_max``
    (``g_max = 4``: gdeval's ``MAX_JUDGMENT``, ir_measures' ``ERR@k``; a grade at or
    below 0 never stops); ``ERR@k = sum_{r <= k} R_r / r * prod_{i < r} (1 - R_i)``.
    The product is a segment running sum of ``log1p(-R)``.  The expectation over a
    tie's orderings has no closed form (a product over random subsets), so ERR
    ranks ties by a rule (trec_eval's, or row order) and reads the rows as ranked.
RBP (Moffat and Zobel, 2008)
    ``RBP = (1 - p) sum_r g_r p^(r - 1)`` with the gain ``g`` the relevance (ranx's,
    graded), rows past the cutoff weighing 0.  Its *residual* is the weight RBP
    gives to what it does not know: the unjudged rows (``y_true < 0``) of the top
    ``k`` and everything past the list or the cutoff, ``p^min(n, k)``.  Both are
    linear in the rows, so a tie block of ``c`` rows at 0-based positions
    ``[a, a + c)`` gives each row the mean weight of those positions,
    ``(p^a - p^min(a + c, k)) / c`` (a geometric sum): ties averaged, exactly.
Judged@k (ir_measures' ``Judged``)
    The share of the top ``k`` rows that is judged (``y_true >= 0``), over
    ``min(k, n)``; ties averaged as precision's are (the expected judged rows at
    the cut).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lodestar_polars._core._ops import clip, exp, log1p
from lodestar_polars._core.ir import expected_hits_in_block
from lodestar_polars._core.ranking import rank_segments
from lodestar_polars._core.segments import segment_running_sum

ERR_MAX_GRADE = 4
"""gdeval's ``MAX_JUDGMENT``: the grade whose stopping chance is ``(2^4 - 1) / 2^4``."""
RBP_DEFAULT_P = 0.8
"""ir_measures' default persistence for ``RBP`` (trec_eval's ``rbp`` uses 0.9)."""


# --------------------------------------------------------------------------- row formulas
def stop_chance(grade: Any, max_grade: float) -> Any:
    """ERR's ``R = (2^g - 1) / 2^g_max`` of a row, 0 for a grade at or below 0."""
    positive = grade * (grade > 0)
    return (2.0**positive - 1.0) / 2.0**max_grade


def err_term(chance: Any, log_continue_before: Any, position: Any) -> Any:
    """A row's share of ERR: ``R / rank`` times the chance the user reached it."""
    return chance * exp(log_continue_before) / (position + 1.0)


def block_weight(p: float, above: Any, through: Any, k: float) -> Any:
    """RBP's mean weight of a row in a tie block at positions ``[above, through)``, cut at ``k``.

    ``sum over r in [above, min(through, k)) of (1 - p) p^r``, over the block's rows:
    ``(p^above - p^min(through, k)) / (through - above)``, 0 for a block past ``k``.
    """
    if k == np.inf:
        return (p**above - p**through) / (through - above)
    start = clip(above, None, k)
    return (p**start - p ** clip(through, None, k)) / (through - above)


def tail_weight(p: float, n: Any, k: float) -> Any:
    """RBP's weight past the list or the cutoff: ``p^min(n, k)``."""
    return p ** (n if k == np.inf else clip(n, None, k))


def judged_share(judged_at_k: Any, n: Any, k: float) -> Any:
    """Judged@k from the (expected) judged rows of the top ``k``: over ``min(k, n)``."""
    return judged_at_k / (n if k == np.inf else clip(n, None, k))


def _k(k: int | None) -> float:
    return np.inf if k is None else float(k)


# --------------------------------------------------------------------------- segment cores
def err_segments(
    gain: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    *,
    k: int | None,
    max_grade: float = ERR_MAX_GRADE,
    presorted: bool = False,
) -> np.ndarray:
    """ERR at ``k`` of each segment, rows ranked by ``score`` (ties in row order, later first).

    ``lp.evaluate`` hands the rows in its tie rule's order with strictly falling
    scores, so no tie is left (ERR has no averaged-tie rule: see the module docstring).
    """
    ranking = rank_segments(score, length, presorted=presorted)
    chance = stop_chance(ranking.take(gain, np.float64), max_grade)
    position = ranking.position
    if k is not None:
        chance = np.where(position < k, chance, 0.0)
    with np.errstate(invalid="ignore"):  # a grade above max_grade: a refused group
        log_continue = log1p(-chance)
    through = segment_running_sum(log_continue, ranking.start, ranking.length)
    terms = err_term(chance, through - log_continue, position)
    out: np.ndarray = ranking.segment_sum(terms)
    return out


def rbp_segments(
    gain: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    *,
    p: float = RBP_DEFAULT_P,
    k: int | None = None,
    residual: bool = False,
    presorted: bool = False,
) -> np.ndarray:
    """RBP (or, with ``residual``, its residual) of each segment, ties averaged.

    ``gain`` is the relevance: a positive value is the row's gain, a negative one
    marks it unjudged (no gain; counted in the residual).
    """
    ranking = rank_segments(score, length, presorted=presorted)
    g = ranking.take(gain, np.float64)
    values = (g < 0).astype(np.float64) if residual else np.where(g > 0, g, 0.0)
    cut = _k(k)
    above = ranking.block_above.astype(np.float64)
    through = above + ranking.block_size
    terms = ranking.block_sum(values) * block_weight(p, above, through, cut)
    out: np.ndarray = ranking.segment_sum_of_blocks(terms)
    if residual:
        out = out + tail_weight(p, np.asarray(length, dtype=np.float64), cut)
    return out


def judged_segments(
    gain: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    *,
    k: int | None = None,
    presorted: bool = False,
) -> np.ndarray:
    """Judged@k of each segment (a row is judged when ``gain >= 0``), ties averaged."""
    ranking = rank_segments(score, length, presorted=presorted)
    judged = (ranking.take(gain, np.float64) >= 0).astype(np.float64)
    n = np.asarray(length, dtype=np.float64)
    if k is None:
        return judged_share(ranking.segment_sum(judged), n, np.inf)
    above = ranking.above.astype(np.float64)
    block = ranking.through.astype(np.float64) - above
    hits = ranking.segment_sum(expected_hits_in_block(judged, block, above, float(k)))
    return judged_share(hits, n, float(k))
