"""trec_eval's other measures: bpref, infAP, interpolated precision, G, set measures, utility, ...

Each function is one trec_eval 10.0 measure (its ``m_<name>.c``), computed for
every query of a :class:`~lodestar_polars._core.ir.Judged` at once, with no
loop over queries: ``core(data, param, gains)``, where ``param`` is the
measure's parameter as :mod:`lodestar_polars.trec` parses it (a cutoff ``k``,
a recall level or multiple of R, or a tuple of values) and ``gains`` the
``level=gain`` pairs of the gain measures.  The registry
(:mod:`lodestar_polars._registry`) carries each as a ``TrecMeasure``'s core.

A ranked row's judged relevance (``Judged.relevance``) is ``>= 0`` where
judged, ``-1`` for a document not in the qrels (trec_eval's
``RELVALUE_NONPOOL``) and ``-2`` for one judged below 0 (``RELVALUE_UNJUDGED``,
"in the pool but not judged": only infAP tells the two apart).

Constants are trec_eval's (``trec_eval.h``): ``MIN_GEO_MEAN = 1e-5``, the
floor of the geometric means (``gm_map``, ``gm_bpref``), and
``INFAP_EPSILON = 1e-5``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lodestar_polars._core.ir import Gains, Judged, gains_of, judged_average_precision
from lodestar_polars._core.segments import (
    segment_positions,
    segment_running_sum,
    segment_starts,
    segment_sum,
)

MIN_GEO_MEAN = 1e-5
"""trec_eval's floor for a value entering a geometric mean (``gm_map``, ``gm_bpref``)."""
INFAP_EPSILON = 1e-5
"""trec_eval's smoothing in infAP's estimate of the precision above a relevant document."""

IPREC_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""The recall levels of ``iprec_at_recall`` and ``11pt_avg`` (trec_eval's defaults)."""
RPREC_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
"""The multiples of R of ``Rprec_mult`` (trec_eval's defaults)."""
UTILITY_DEFAULT = (1.0, -1.0, 0.0, 0.0)
"""``utility``'s coefficients of (relevant retrieved, irrelevant retrieved, relevant missed,
irrelevant missed): trec_eval's defaults."""
SET_F_DEFAULT = (1.0,)
"""``set_F``'s beta: trec_eval's default (the harmonic mean of set precision and recall)."""


def gmean(values: np.ndarray) -> float:
    """trec_eval's geometric mean over queries: ``exp(mean(log(max(v, 1e-5))))``."""
    values = np.asarray(values, dtype=np.float64)
    return float(np.exp(np.mean(np.log(np.maximum(values, MIN_GEO_MEAN)))))


def _div(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` where the denominator is not 0, else 0 (trec_eval's guard)."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def lround(x: np.ndarray) -> np.ndarray:
    """C's ``lround``: to the nearest integer, halves away from zero (NumPy rounds them to even)."""
    x = np.asarray(x, dtype=np.float64)
    floor = np.floor(x)
    return np.where(x - floor >= 0.5, floor + 1, floor).astype(np.int64)


def _judged_nonrelevant_rows(data: Judged) -> np.ndarray:
    """Ranked rows judged, below the relevance level."""
    rel = data.relevance
    return (rel >= 0) & (rel < data.relevance_level)


def _judged_nonrelevant(data: Judged) -> np.ndarray:
    """Judged documents below the relevance level of each query, retrieved or not."""
    start, _, _ = segment_positions(data.ideal_length)
    below = (data.ideal_relevance >= 0) & (data.ideal_relevance < data.relevance_level)
    return segment_sum(below.astype(np.float64), start, data.ideal_length)


def _exclusive_count(flags: np.ndarray, data: Judged) -> np.ndarray:
    """Rows above each row (same query) for which ``flags`` holds."""
    counts = segment_running_sum(flags.astype(bool), data.rows.start, data.length)
    return counts - flags


# --------------------------------------------------------------------------- judged-only
def judged_bpref(data: Judged, k: Any, gains: Gains) -> np.ndarray:
    """``bpref``: per relevant document, the share of the top R judged irrelevant ones below it.

    ``sum over relevant retrieved d of (1 - min(n_d, R) / min(N, R)) / R``, ``n_d`` the
    judged irrelevant documents ranked above ``d``, ``N`` those judged in all, ``R``
    ``num_rel``; a term is 1 where ``n_d = 0``.  Unjudged documents are skipped.
    """
    rows = data.rows
    nonrel = _judged_nonrelevant_rows(data)
    above = _exclusive_count(nonrel, data)
    r = data.n_relevant.astype(np.float64)[rows.segment]
    n = _judged_nonrelevant(data)[rows.segment]
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(above > 0, 1.0 - np.minimum(above, r) / np.minimum(n, r), 1.0)
    total = data.sum(np.where(rows.relevant, term, 0.0))
    return _div(total, data.n_relevant)


def judged_gm_bpref(data: Judged, k: Any, gains: Gains) -> np.ndarray:
    """``gm_bpref``: bpref per query; ``all`` is its geometric mean (:func:`gmean`)."""
    return judged_bpref(data, k, gains)


def judged_gm_map(data: Judged, k: Any, gains: Gains) -> np.ndarray:
    """``gm_map``: AP per query; ``all`` is its geometric mean (:func:`gmean`)."""
    return judged_average_precision(data, None, gains)


def judged_infap(data: Judged, k: Any, gains: Gains) -> np.ndarray:
    """``infAP``: inferred AP (Yilmaz and Aslam), as trec_eval's ``m_infap.c`` writes it.

    At a relevant document at 0-based rank ``j > 0``, with ``r`` relevant, ``n``
    judged irrelevant and ``u`` in-pool unjudged (qrels relevance < 0) documents
    above it: ``1/(j+1) + j/(j+1) * (r + n + u)/j * (r + eps)/(r + n + 2 eps)``; at
    rank 0, 1.  Documents not in the qrels count only in ``j``.  Summed, over R.
    """
    rows = data.rows
    rel = data.relevance
    r = _exclusive_count(rows.relevant, data)
    n = _exclusive_count(_judged_nonrelevant_rows(data), data)
    u = _exclusive_count(rel == -2, data)
    fj = rows.position.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((r + n + u) / fj) * (
            (r + INFAP_EPSILON) / (r + n + 2 * INFAP_EPSILON)
        )
    term = np.where(rows.position == 0, 1.0, term)
    total = data.sum(np.where(rows.relevant, term, 0.0))
    return _div(total, data.n_relevant)


def judged_num_nonrel_judged_ret(data: Judged, k: Any, gains: Gains) -> np.ndarray:
    """``num_nonrel_judged_ret``: ranked documents judged below the relevance level."""
    return data.sum(_judged_nonrelevant_rows(data).astype(np.float64))


# --------------------------------------------------------------------------- interpolated
def _suffix_max_precision(data: Judged) -> np.ndarray:
    """Per row, the largest precision at it or below it in its query (interpolated precision).

    One running maximum over the reversed rows, exact and with no sort: each
    precision is the imaginary part of a complex key whose real part, the query
    counted from the last, grows along the reversed rows, and NumPy orders
    complex numbers by real part first, so the maximum restarts at each query.
    """
    rows = data.rows
    precision = rows.cum_relevant / (rows.position + 1.0)
    if precision.size == 0:
        return precision
    later = (data.length.size - 1 - rows.segment).astype(np.float64)
    key = later + 1j * precision
    out: np.ndarray = np.maximum.accumulate(key[::-1])[::-1].imag
    return out


def _nth_relevant(data: Judged, values: np.ndarray, nth: np.ndarray) -> np.ndarray:
    """``values`` at each query's ``nth`` (1-based) relevant ranked row; 0 where there is none."""
    rows = data.rows
    hits = data.hits(None).astype(np.int64)
    flat = np.flatnonzero(rows.relevant)
    first = segment_starts(hits)
    valid = (nth >= 1) & (nth <= hits)
    out = np.zeros(nth.size, dtype=np.float64)
    out[valid] = values[flat[first[valid] + nth[valid] - 1]]
    return out


def _iprec(data: Judged, levels: tuple[float, ...]) -> np.ndarray:
    """Interpolated precision at each recall level: a ``(levels, queries)`` array."""
    best = _suffix_max_precision(data)
    hits = data.hits(None).astype(np.int64)
    at_top = np.zeros(hits.size, dtype=np.float64)
    nonempty = data.length > 0
    at_top[nonempty] = best[data.rows.start[nonempty]]
    out = np.zeros((len(levels), hits.size), dtype=np.float64)
    for i, level in enumerate(levels):  # a handful of levels, each vectorized over queries
        cut = lround(level * data.n_relevant.astype(np.float64))
        value = _nth_relevant(data, best, cut)
        out[i] = np.where(cut == 0, at_top, np.where(cut <= hits, value, 0.0))
    return out


def judged_iprec_at_recall(data: Judged, level: Any, gains: Gains) -> np.ndarray:
    """``iprec_at_recall``: the largest precision at or after the ``lround(level R)``-th relevant.

    Where that many relevant documents are not retrieved, 0; at level 0, the
    largest precision anywhere in the ranking.
    """
    out: np.ndarray = _iprec(data, (float(level),))[0]
    return out


def judged_11pt_avg(data: Judged, levels: Any, gains: Gains) -> np.ndarray:
    """``11pt_avg``: interpolated precision averaged over the recall levels (11 by default)."""
    values = _iprec(data, tuple(levels))
    total = np.zeros(values.shape[1], dtype=np.float64)
    for row in values[::-1]:  # trec_eval adds from the highest level down
        total = total + row
    return total / len(levels)


# --------------------------------------------------------------------------- precision
def _hits_at(data: Judged, cut: np.ndarray) -> np.ndarray:
    """Relevant documents in the top ``cut[q]`` of each query ``q``."""
    rows = data.rows
    return data.sum((rows.relevant & (rows.position < cut[rows.segment])).astype(np.float64))


def judged_rprec_mult(data: Judged, multiple: Any, gains: Gains) -> np.ndarray:
    """``Rprec_mult``: precision at ``(long)(multiple R + 0.9)`` documents (0 at 0 documents)."""
    cut = np.floor(float(multiple) * data.n_relevant.astype(np.float64) + 0.9).astype(np.int64)
    return _div(_hits_at(data, cut), cut)


def judged_relative_p(data: Judged, k: Any, gains: Gains) -> np.ndarray:
    """``relative_P.k``: relevant documents in the top k over ``min(k, R)`` (0 where R = 0)."""
    assert k is not None
    return _div(data.hits(int(k)), np.minimum(int(k), data.n_relevant))


# --------------------------------------------------------------------------- set measures
def _set_counts(data: Judged) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(num_ret, num_rel, num_rel_ret)`` per query, as floats."""
    return (
        data.length.astype(np.float64),
        data.n_relevant.astype(np.float64),
        data.hits(None),
    )


def judged_set_p(data: Judged, k: Any, gains: Gains) -> np.ndarray:
    """``set_P``: relevant retrieved over retrieved."""
    ret, _, rel_ret = _set_counts(data)
    return _div(rel_ret, ret)


def judged_set_recall(data: Judged, k: Any, gains: Gains) -> np.ndarray:
    """``set_recall``: relevant retrieved over ``num_rel``."""
    _, rel, rel_ret = _set_counts(data)
    return _div(rel_ret, rel)


def judged_set_map(data: Judged, k: Any, gains: Gains) -> np.ndarray:
    """``set_map``: set precision times set recall, ``rel_ret^2 / (ret rel)``."""
    ret, rel, rel_ret = _set_counts(data)
    return _div(rel_ret * rel_ret, ret * rel)


def judged_set_relative_p(data: Judged, k: Any, gains: Gains) -> np.ndarray:
    """``set_relative_P``: relevant retrieved over ``min(num_ret, num_rel)``."""
    ret, rel, rel_ret = _set_counts(data)
    return _div(rel_ret, np.minimum(ret, rel))


def judged_set_f(data: Judged, beta: Any, gains: Gains) -> np.ndarray:
    """``set_F``: ``(b + 1) P R / (b P + R)`` of set precision and recall (``b``: 1 by default).

    trec_eval's parameter ``b`` is used as written (not squared); 0 where nothing
    relevant is retrieved.
    """
    (b,) = tuple(beta)
    ret, rel, rel_ret = _set_counts(data)
    p, r = _div(rel_ret, ret), _div(rel_ret, rel)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = (b + 1.0) * p * r / (b * p + r)
    return np.where(rel_ret > 0, f, 0.0)


def judged_utility(data: Judged, coefficients: Any, gains: Gains) -> np.ndarray:
    """``utility``: a linear utility of the retrieved set's counts.

    ``a rel_ret + b (ret - rel_ret) + c (rel - rel_ret) + d (N + rel_ret - ret - rel)``,
    the coefficients ``(a, b, c, d)`` given (1, -1, 0, 0 by default).  The collection
    size ``N`` is trec_eval's default (``-N`` not given): 0.
    """
    a, b, c, d = tuple(coefficients)
    ret, rel, rel_ret = _set_counts(data)
    out: np.ndarray = (
        a * rel_ret + b * (ret - rel_ret) + c * (rel - rel_ret) + d * (0.0 + rel_ret - ret - rel)
    )
    return out


# --------------------------------------------------------------------------- gains
def _ideal(data: Judged, gains: Gains) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The positive ideal gains of each query, highest first: ``(gain, start, count)``."""
    gain = gains_of(data.ideal_relevance, gains)
    _, segment, _ = segment_positions(data.ideal_length)
    keep = gain > 0
    gain, segment = gain[keep], segment[keep]
    order = np.lexsort((-gain, segment))
    gain = gain[order]
    count = np.bincount(segment, minlength=data.length.size).astype(np.int64)
    start = segment_starts(count)
    return gain, start, count


def _at_rank(
    flat: np.ndarray, start: np.ndarray, count: np.ndarray, segment: np.ndarray, position: Any
) -> np.ndarray:
    """``flat[start[q] + position]`` for rows of query ``q`` below ``count[q]``; else 0."""
    position = np.asarray(position, dtype=np.int64)
    inside = position < count[segment]
    out = np.zeros(segment.size, dtype=np.float64)
    out[inside] = flat[start[segment[inside]] + position[inside]]
    return out


def judged_bin_g(data: Judged, k: Any, gains: Gains) -> np.ndarray:
    """``binG``: ``1 / log2(2 + irrelevant above)`` per relevant document, over R."""
    rows = data.rows
    with np.errstate(divide="ignore"):
        term = 1.0 / np.log2((3 + rows.position - rows.cum_relevant).astype(np.float64))
    total = data.sum(np.where(rows.relevant, term, 0.0))
    return np.where(data.hits(None) > 0, _div(total, data.n_relevant), 0.0)


def judged_g(data: Judged, k: Any, gains: Gains) -> np.ndarray:
    """``G``: trec_eval's normalized gain (``m_G.c``).

    A row's gain ``g`` counts ``g / log2(2 + C - S)``, where ``S`` is the gain
    retrieved down to it and ``C`` the cost so far, each rank costing its ideal
    gain or 1, whichever is larger; the sum is over the total ideal gain.
    """
    rows = data.rows
    gain = gains_of(data.relevance, gains)
    ideal, start, count = _ideal(data, gains)
    at = _at_rank(ideal, start, count, rows.segment, rows.position)
    cost = segment_running_sum(np.maximum(at, 1.0), rows.start, data.length)
    got = segment_running_sum(gain, rows.start, data.length)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(gain != 0, gain / np.log2(2 + cost - got), 0.0)
    total_ideal = segment_sum(ideal, start, count)
    return _div(data.sum(term), total_ideal)


def _ideal_dcg_running(
    ideal: np.ndarray, start: np.ndarray, count: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Running ideal DCG over each query's positive ideal gains, and its total per query."""
    _, _, position = segment_positions(count)
    running = segment_running_sum(ideal / np.log2(position + 2.0), start, count)
    total = np.zeros(count.size, dtype=np.float64)
    nonempty = count > 0
    total[nonempty] = running[start[nonempty] + count[nonempty] - 1]
    return running, total


def _dcg_running(data: Judged, gain: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Running DCG of the ranked gains per row, and each query's DCG (0 for an empty query)."""
    rows = data.rows
    running = segment_running_sum(gain / np.log2(rows.position + 2.0), rows.start, data.length)
    total = np.zeros(data.length.size, dtype=np.float64)
    nonempty = data.length > 0
    total[nonempty] = running[rows.start[nonempty] + data.length[nonempty] - 1]
    return running, total


def judged_ndcg_rel(data: Judged, k: Any, gains: Gains) -> np.ndarray:
    """``ndcg_rel``: NDCG at each relevant document's rank, averaged over the relevant documents.

    A relevant document not retrieved counts the NDCG of the whole ranking
    (``m_ndcg_rel.c``); "relevant" is a positive gain here.
    """
    rows = data.rows
    gain = gains_of(data.relevance, gains)
    ideal, start, count = _ideal(data, gains)
    dcg, dcg_total = _dcg_running(data, gain)
    ideal_running, ideal_total = _ideal_dcg_running(ideal, start, count)
    at = np.minimum(rows.position, count[rows.segment] - 1)
    ideal_here = _at_rank(ideal_running, start, count, rows.segment, np.maximum(at, 0))
    positive = gain > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(positive, dcg / ideal_here, 0.0)
        missed = (count - data.sum(positive.astype(np.float64))) * dcg_total / ideal_total
    total = data.sum(ratio) + np.where(count > 0, missed, 0.0)
    return np.where(total > 0, _div(total, count), 0.0)


def judged_rndcg(data: Judged, k: Any, gains: Gains) -> np.ndarray:
    """``Rndcg``: NDCG at each rank where the ideal gain drops, averaged (``m_Rndcg.c``).

    At each rank ``j`` (1 to the number ``n`` of positive ideal gains) after
    which the ideal ranking's gain changes, NDCG@j; and, where more than
    ``n + 1`` documents are retrieved, the NDCG of the whole ranking.  0 where
    nothing is relevant.
    """
    gain = gains_of(data.relevance, gains)
    ideal, start, count = _ideal(data, gains)
    dcg, dcg_total = _dcg_running(data, gain)
    ideal_running, ideal_total = _ideal_dcg_running(ideal, start, count)
    _, segment, position = segment_positions(count)
    # the boundary after ideal position p (0-based): the gain at p + 1 differs, or p is last
    last = position == count[segment] - 1
    following = np.concatenate((ideal[1:], [0.0]))
    boundary = last | (following != ideal)
    j = position[boundary] + 1
    q = segment[boundary]
    cut = np.minimum(j, data.length[q])
    dcg_at = np.zeros(j.size, dtype=np.float64)
    reached = cut > 0
    dcg_at[reached] = dcg[data.rows.start[q[reached]] + cut[reached] - 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = dcg_at / ideal_running[boundary]
    n_queries = data.length.size
    total = np.bincount(q, weights=ratio, minlength=n_queries)
    number = np.bincount(q, minlength=n_queries).astype(np.float64)
    extra = data.length > count + 1
    with np.errstate(divide="ignore", invalid="ignore"):
        total = total + np.where(extra, dcg_total / ideal_total, 0.0)
    number = number + extra
    return np.where(data.n_relevant > 0, _div(total, number), 0.0)


__all__ = [
    "INFAP_EPSILON",
    "IPREC_LEVELS",
    "MIN_GEO_MEAN",
    "RPREC_MULTIPLES",
    "SET_F_DEFAULT",
    "UTILITY_DEFAULT",
    "gmean",
    "judged_11pt_avg",
    "judged_bin_g",
    "judged_bpref",
    "judged_g",
    "judged_gm_bpref",
    "judged_gm_map",
    "judged_infap",
    "judged_iprec_at_recall",
    "judged_ndcg_rel",
    "judged_num_nonrel_judged_ret",
    "judged_relative_p",
    "judged_rndcg",
    "judged_rprec_mult",
    "judged_set_f",
    "judged_set_map",
    "judged_set_p",
    "judged_set_recall",
    "judged_set_relative_p",
    "judged_utility",
    "lround",
]


# --------------------------------------------------------------------------- lp.evaluate's cores
# Over ``lp.evaluate``'s sorted frame (``lodestar_polars._registry.Sorted``: the gains
# ``y_true`` in ranking order, the scores, the lengths, and ``n_relevant`` / ``judged``
# where given).  A row is relevant when ``y_true > 0``, judged irrelevant at 0, unjudged
# below 0 (``-2`` and below: in the pool, unjudged).
def _as_judged(a: Any) -> Judged:
    """lp.evaluate's sorted arrays as a :class:`Judged` (relevance 1 / 0 / -1 / -2)."""
    gain = np.asarray(a.gain, dtype=np.float64)
    relevance = np.where(gain > 0, 1, np.where(gain == 0, 0, np.where(gain <= -2, -2, -1)))
    length = np.asarray(a.length, dtype=np.int64)
    _, segment, _ = segment_positions(length)
    own = np.bincount(segment, weights=gain > 0, minlength=length.size)
    n_relevant = own if a.n_relevant is None else np.asarray(a.n_relevant, dtype=np.float64)
    return Judged(
        relevance=relevance.astype(np.int64),
        length=length,
        n_relevant=n_relevant.astype(np.int64),
        ideal_relevance=np.zeros(0, dtype=np.int64),
        ideal_length=np.zeros(length.size, dtype=np.int64),
    )


def bpref_core(a: Any, options: dict[str, Any]) -> np.ndarray:
    """``lp.evaluate``'s bpref: tied scores averaged in closed form (see ``lp.bpref``)."""
    data = _as_judged(a)
    rows = data.rows
    relevant = rows.relevant
    nonrel = data.relevance == 0
    length = data.length
    # tie blocks: rows of one segment with one score
    score = np.asarray(a.score)
    new = np.ones(score.size, dtype=bool)
    if score.size:
        new[1:] = (score[1:] != score[:-1]) | (rows.segment[1:] != rows.segment[:-1])
    block = np.cumsum(new) - 1
    per_block = np.bincount(block, weights=nonrel, minlength=int(block.max(initial=-1)) + 1)
    through = segment_running_sum(nonrel, rows.start, length)
    # each block's last row (none in an empty part)
    last = np.flatnonzero(np.append(new[1:], True)) if score.size else np.zeros(0, np.int64)
    m = per_block[block]
    n0 = through[last][block] - m
    big_r = data.n_relevant.astype(np.float64)[rows.segment]
    if a.judged is None:
        big_n = data.sum(nonrel.astype(np.float64))
    else:
        values, lengths = a.judged
        start, _, _ = segment_positions(np.asarray(lengths, dtype=np.int64))
        big_n = segment_sum((np.asarray(values) == 0).astype(np.float64), start, lengths)
    d = np.minimum(big_n[rows.segment], big_r)
    c = np.minimum(n0 + m, big_r)
    linear = np.where(c >= n0, (n0 + c) * (c - n0 + 1.0) / 2.0, 0.0)
    high = np.maximum(n0, big_r + 1.0)
    flat = np.where(n0 + m >= high, big_r * (n0 + m - high + 1.0), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(d > 0, 1.0 - (linear + flat) / (m + 1.0) / d, 1.0)
    return _div(data.sum(np.where(relevant, term, 0.0)), data.n_relevant)


def inferred_average_precision_core(a: Any, options: dict[str, Any]) -> np.ndarray:
    """``lp.evaluate``'s infAP (rows in the tie rule's order: ``ties`` is never averaged)."""
    return judged_infap(_as_judged(a), None, None)


def interpolated_precision_core(a: Any, options: dict[str, Any]) -> np.ndarray:
    """``lp.evaluate``'s interpolated precision at ``options["recall"]``."""
    return judged_iprec_at_recall(_as_judged(a), float(options["recall"]), None)
