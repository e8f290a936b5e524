"""The IR family: precision, recall, success, R-precision, AP, RR, (N)DCG with judged denominators.

Row formulas
------------
Each measure is a sum, over a query's ranked rows, of a *row term* (or a
ratio of such sums).  A row is described by

* ``relevant``: it counts as relevant (relevance at least the relevance level);
* ``cum_relevant``: relevant rows at or above it in the ranking (inclusive);
* ``position``: its 0-based place in the ranking;
* ``gain``: its gain for (N)DCG.

The term functions below use Python operators and :mod:`._ops` only, so one
function evaluates NumPy arrays (the segmented evaluators here, used by
:mod:`lodestar_polars.trec`) and Polars expressions (``lodestar_polars._metrics.ir``).

Expectations over ties
----------------------
With a tie group of ``c`` rows occupying positions ``[a, a + c)`` and holding
``r`` relevant rows, every ordering of the group being equally likely, the
expected number of relevant rows in the top ``k`` (``a < k < a + c``) is
``r * (k - a) / c``; the chance that none of the ``m = k - a`` tied rows that
make the cut is relevant is ``C(c - r, m) / C(c, m)``.  Both closed forms are
here (:func:`expected_hits_in_block`, and :func:`log_miss_term` summed over the draws).

Segmented evaluators
--------------------
:class:`Judged` holds flat arrays in ranking order, query after query (the
order a sort by ``(qid, score desc, docno desc)`` gives, trec_eval's), with
per-query lengths that may be 0 (a judged query the run does not rank, which
``-c`` scores), the per-query count of relevant judged documents
``n_relevant`` (retrieved or not), and the judged gains of each query in
ideal order for the ideal DCG.  Each trec_eval measure is one function
``judged_*(data, k, gains)`` computing it for every query at once (there is no
loop over queries); the metric registry carries each as its entry's core.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lodestar_polars._core._ops import clip, exp, log1p
from lodestar_polars._core.dcg import ideal_dcg_segments
from lodestar_polars._core.discount import cut_discount
from lodestar_polars._core.ranking import Ranking, rank_segments
from lodestar_polars._core.segments import segment_cumsum, segment_positions, segment_sum


# --------------------------------------------------------------------------- row formulas
def cut(position: Any, k: Any) -> Any:
    """1 where the 0-based ``position`` is in the top ``k`` (``k=None``: everywhere), else 0."""
    if k is None:
        return position * 0 + 1
    return position < k


def hit_term(relevant: Any, position: Any, k: Any) -> Any:
    """A relevant row in the top ``k``: summed, the number of hits at ``k``."""
    return relevant * cut(position, k)


def precision_at(hits: Any, k: Any) -> Any:
    """Precision at ``k`` from the hits at ``k``: over ``k`` even for a shorter list (trec_eval)."""
    return hits / k


def average_precision_term(relevant: Any, cum_relevant: Any, position: Any, k: int | None) -> Any:
    """Precision at a relevant row's rank (0 elsewhere), cut at ``k``; summed, AP's numerator."""
    return hit_term(relevant, position, k) * cum_relevant / (position + 1.0)


def reciprocal_rank_term(relevant: Any, cum_relevant: Any, position: Any, k: int | None) -> Any:
    """``1 / rank`` at the first relevant row (0 elsewhere), cut at ``k``."""
    return hit_term(relevant, position, k) * (cum_relevant == 1) / (position + 1.0)


def gain_term(gain: Any, position: Any, k: int | None) -> Any:
    """A row's discounted gain ``gain / log2(position + 2)``, 0 at positions ``>= k``."""
    return gain * cut_discount(position, 2.0, k)


def exponential_gain(relevance: Any) -> Any:
    """``2 ** relevance - 1`` (the Burges gain); ``0`` for relevance 0."""
    return 2.0**relevance - 1.0


def ratio_or_zero(numerator: Any, denominator: Any) -> Any:
    """``numerator / denominator`` where the denominator is positive, else 0.

    trec_eval's convention for a query with nothing relevant (recall, AP,
    R-precision) or an ideal DCG of 0 (NDCG): the measure is 0.
    """
    positive = denominator > 0
    return numerator * positive / (denominator + (denominator <= 0))


def expected_hits_in_block(relevant_in_block: Any, block: Any, above: Any, k: Any) -> Any:
    """Expected relevant rows of a tie block ``[above, above + block)`` that land in the top ``k``.

    ``r * m / c`` with ``m = clip(k - above, 0, c)`` rows of the block making the
    cut, written ``r * clip((k - above) / c, 0, 1)`` so that each argument is
    read once or twice (an expression argument is evaluated once per read).
    """
    return relevant_in_block * clip((k - above) / block, 0.0, 1.0)


def log_miss_term(relevant_in_block: Any, block: Any, offset: Any) -> Any:
    """``ln(1 - r / (c - j))``: the ``j``-th tied row drawn misses, the earlier ones having missed.

    Summed over ``j < m`` it is ``ln C(c - r, m) - ln C(c, m)``, the log of the
    chance that no drawn row is relevant, as a running product of per-draw chances.  When
    more rows are drawn than the block has irrelevant ones (``j >= c - r``) a
    hit is certain: the chance ``r / (c - j)`` is capped at 1, the draw
    ``j = c - r`` gives ``ln 0 = -inf`` and the sum, whatever follows, ``-inf``.
    """
    return log1p(-clip(relevant_in_block / (block - offset), None, 1.0))


def expected_average_precision_term(
    relevant_in_block: Any,
    block: Any,
    above: Any,
    relevant_above: Any,
    position: Any,
    k: int | None,
) -> Any:
    """Expected precision-at-a-relevant-row term of 0-based ``position``, over a tie's orderings.

    The position lies in a tie block ``[above, above + block)`` holding
    ``relevant_in_block`` (``r``) relevant rows, with ``relevant_above``
    (``R``) relevant rows ranked above the block.  Every ordering of the block
    being equally likely, the position holds a relevant row with chance
    ``r / c``, and given that, the ``position - above`` block positions before
    it hold ``(position - above) * (r - 1) / (c - 1)`` relevant rows on
    average, so (linearity of expectation)

    ``E[rel * cum_relevant / (position + 1)] = r / c * (R + 1 + (position - above)
    * (r - 1) / (c - 1)) / (position + 1)``,

    cut at ``k``.  A block of one row is :func:`average_precision_term`.
    The term depends on the position only, not on which row is there: summed
    over the positions of a query it is the expected numerator of AP@k.
    """
    before = (position - above) * (relevant_in_block - 1.0) / clip(block - 1.0, 1.0, None)
    share = relevant_in_block / block * (relevant_above + 1.0 + before) / (position + 1.0)
    return share * cut(position, k)


# --------------------------------------------------------------------------- scikit-learn view
# The rows of a segment are its whole truth (no n_relevant), ties averaged:
# ``lp.evaluate``'s cores for the IR expressions of ``lodestar_polars._metrics.ir``.
@dataclass(frozen=True)
class _Blocks:
    """Tie blocks of ranked segments, with the relevant rows in and above each."""

    ranking: Ranking
    relevant: np.ndarray
    """Relevance flag of each ranked row (float64, 0 or 1)."""
    in_block: np.ndarray
    """Relevant rows of each ranked row's tie block."""
    before_block: np.ndarray
    """Relevant rows of the segment ranked above each row's tie block."""
    n_relevant: np.ndarray
    """Relevant rows of each segment."""

    @property
    def block(self) -> np.ndarray:
        return (self.ranking.through - self.ranking.above).astype(np.float64)

    @property
    def above(self) -> np.ndarray:
        return self.ranking.above.astype(np.float64)

    def hits(self, k: Any) -> np.ndarray:
        """Expected relevant rows in the top ``k`` (per segment, or an array of them)."""
        if k is None:
            return self.n_relevant
        kk = k if np.isscalar(k) else np.asarray(k, dtype=np.float64)[self.ranking.segment]
        terms = expected_hits_in_block(self.relevant, self.block, self.above, kk)
        return self.ranking.segment_sum(terms)


def _blocks(
    truth: np.ndarray, score: np.ndarray, length: np.ndarray, *, presorted: bool
) -> _Blocks:
    ranking = rank_segments(score, length, presorted=presorted)
    relevant = ranking.take(truth, bool).astype(np.float64)
    csum = np.concatenate(([0.0], np.cumsum(relevant)))
    in_block = csum[ranking.block_end] - csum[ranking.block_start]
    before = csum[ranking.block_start] - csum[ranking.segment_start]
    n_relevant = ranking.segment_sum(relevant)
    return _Blocks(ranking, relevant, in_block, before, n_relevant)


def precision_segments(
    truth: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    *,
    k: int | None,
    presorted: bool = False,
    denominator: str = "k",
) -> np.ndarray:
    """Precision at ``k`` of each segment, ties averaged (``lp.precision``).

    ``truth`` flags the relevant rows; ``k=None`` is the whole segment over its length,
    ``denominator="retrieved"`` over ``min(k, length)`` (LensKit's).
    """
    b = _blocks(truth, score, length, presorted=presorted)
    rows = np.asarray(length, dtype=np.float64)
    if k is None:
        over: np.ndarray | float = rows
    elif denominator == "retrieved":
        over = np.minimum(rows, float(k))
    else:
        over = float(k)
    return precision_at(b.hits(k), over)


def recall_segments(
    truth: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    *,
    k: int | None,
    n_relevant: np.ndarray | None = None,
    presorted: bool = False,
    denominator: str = "relevant",
) -> np.ndarray:
    """Recall at ``k`` of each segment, ties averaged (``lp.recall``).

    The denominator is ``n_relevant`` (judged relevant documents per segment,
    retrieved or not) when given, else the segment's own relevant rows;
    ``denominator="min_k"`` caps it at ``k`` (LensKit's).
    """
    b = _blocks(truth, score, length, presorted=presorted)
    n = b.n_relevant if n_relevant is None else n_relevant
    if denominator == "min_k" and k is not None:
        n = np.minimum(n, float(k))
    return ratio_or_zero(b.hits(k), n)


def r_precision_segments(
    truth: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    *,
    n_relevant: np.ndarray | None = None,
    presorted: bool = False,
) -> np.ndarray:
    """Precision at ``R``, ties averaged (``lp.r_precision``).

    ``R`` is ``n_relevant`` when given (judged relevant documents), else the
    segment's own relevant rows.
    """
    b = _blocks(truth, score, length, presorted=presorted)
    r = b.n_relevant if n_relevant is None else n_relevant
    return ratio_or_zero(b.hits(r), r)


def hit_rate_segments(
    truth: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    *,
    k: int,
    presorted: bool = False,
) -> np.ndarray:
    """Chance of a relevant row in the top ``k`` of each segment, ties averaged (``lp.hit_rate``).

    The first tie block holding a relevant row decides: ``m`` of its ``c`` rows
    (``r`` relevant) make the cut, and all miss with chance ``C(c - r, m) / C(c, m)``,
    summed here as :func:`log_miss_term` over the ``m`` draws.
    """
    b = _blocks(truth, score, length, presorted=presorted)
    out = np.zeros(b.ranking.length.size, dtype=np.float64)
    relevant_rows = np.flatnonzero(b.relevant)
    segments, first = np.unique(b.ranking.segment[relevant_rows], return_index=True)
    row = relevant_rows[first]  # first relevant row of each segment that has one
    c = b.block[row]
    r = b.in_block[row]
    # a k past the longest segment cuts nothing (and a huge k does not fit int64)
    k = min(k, int(np.max(length, initial=0)))
    made = np.clip(k - b.ranking.above[row], 0, c.astype(np.int64))
    draw_of = np.repeat(np.arange(row.size), made)
    draw_start = np.concatenate(([0], np.cumsum(made)[:-1]))
    offset = (np.arange(draw_of.size) - draw_start[draw_of]).astype(np.float64)
    with np.errstate(divide="ignore"):
        terms = log_miss_term(r[draw_of], c[draw_of], offset)
    log_miss = np.bincount(draw_of, weights=terms, minlength=row.size)
    out[segments] = 1.0 - exp(log_miss)
    return out


def average_precision_at_k_segments(
    truth: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    *,
    k: int | None,
    denominator: str = "relevant",
    n_relevant: np.ndarray | None = None,
    presorted: bool = False,
) -> np.ndarray:
    """AP cut at ``k`` of each segment, ties averaged (``lp.average_precision_at_k``).

    The numerator is the sum of :func:`expected_average_precision_term`; the
    denominator the segment's relevant rows, or ``n_relevant`` when given
    (``"relevant"``), or that capped at ``k`` (``"min_k"``); 0 with nothing relevant.
    """
    b = _blocks(truth, score, length, presorted=presorted)
    ranking = b.ranking
    terms = expected_average_precision_term(
        b.in_block, b.block, b.above, b.before_block, ranking.position.astype(np.float64), k
    )
    n = b.n_relevant if n_relevant is None else n_relevant
    if denominator == "min_k" and k is not None:
        n = np.minimum(n, float(k))
    return ratio_or_zero(ranking.segment_sum(terms), n)


@dataclass(frozen=True)
class _Rows:
    """Per-row quantities of a :class:`Judged`, derived once."""

    start: np.ndarray
    segment: np.ndarray
    position: np.ndarray
    relevant: np.ndarray
    cum_relevant: np.ndarray


@dataclass(frozen=True)
class Judged:
    """A ranked run joined with its judgments, query after query (see module docstring)."""

    relevance: np.ndarray
    """Judged relevance of each ranked row (int64); -1 for a row not in the qrels, -2 for
    one judged below 0 (trec_eval's "in the pool, unjudged": only infAP reads the difference)."""
    length: np.ndarray
    """Ranked rows of each query (int64, may be 0)."""
    n_relevant: np.ndarray
    """Judged documents of each query with relevance >= the level, retrieved or not."""
    ideal_relevance: np.ndarray
    """Every judged relevance >= 0 of each query, highest first (int64), query after query."""
    ideal_length: np.ndarray
    """Judged documents (relevance >= 0) of each query."""
    relevance_level: int = 1
    """A row is relevant when its judged relevance is at least this (trec_eval ``-l``)."""
    rows: _Rows = field(init=False, repr=False)
    """Per-row position, relevance flag and running count of relevant rows."""

    def __post_init__(self) -> None:
        start, segment, position = segment_positions(self.length)
        relevant = (self.relevance >= self.relevance_level) & (self.relevance >= 0)
        cum = segment_cumsum(relevant.astype(np.int64), start, segment)
        object.__setattr__(self, "rows", _Rows(start, segment, position, relevant, cum))

    def sum(self, values: np.ndarray) -> np.ndarray:
        """Sum ranked-order ``values`` per query (0 for a query with no rows)."""
        return segment_sum(values, self.rows.start, self.length)

    def hits(self, k: int | None) -> np.ndarray:
        """Relevant rows in the top ``k`` of each query."""
        return self.sum(hit_term(self.rows.relevant, self.rows.position, k))


Gains = tuple[tuple[int, float], ...] | None
"""trec_eval's ``ndcg.level=gain,...``: a gain for each listed relevance level (None: the level)."""


def gains_of(relevance: np.ndarray, gains: Gains) -> np.ndarray:
    """The gain of each judged relevance: the relevance itself, or ``gains`` where it names it.

    An unjudged row (relevance < 0) gains 0, as in trec_eval.
    """
    rel = np.asarray(relevance, dtype=np.int64)
    out = np.where(rel >= 0, rel, 0).astype(np.float64)
    for level, gain in gains or ():
        out[rel == level] = gain
    return out


def ideal_dcg(data: Judged, k: int | None, gains: Gains) -> np.ndarray:
    """DCG of each query's judged documents in the best order, cut at ``k``.

    Only positive gains count, highest first (trec_eval's ideal: every judged
    document, retrieved or not).
    """
    gain = gains_of(data.ideal_relevance, gains)
    return ideal_dcg_segments(np.where(gain > 0, gain, 0.0), data.ideal_length, k=k)


# --------------------------------------------------------------------------- trec_eval's measures
# One function per measure, each ``core(data, k, gains)`` for every query of ``data``
# at once; the registry (``lodestar_polars._registry``) names them, and
# ``lp.trec.evaluate`` calls the one an entry carries (no dispatch on names).
def judged_num_q(data: Judged, k: int | None, gains: Gains) -> np.ndarray:
    """``num_q``: 1 per query (summed in ``all``: the number of queries)."""
    return np.ones(data.length.size, dtype=np.float64)


def judged_num_ret(data: Judged, k: int | None, gains: Gains) -> np.ndarray:
    """``num_ret``: the ranked documents of each query."""
    return data.length.astype(np.float64)


def judged_num_rel(data: Judged, k: int | None, gains: Gains) -> np.ndarray:
    """``num_rel``: the judged relevant documents of each query, retrieved or not."""
    return data.n_relevant.astype(np.float64)


def judged_num_rel_ret(data: Judged, k: int | None, gains: Gains) -> np.ndarray:
    """``num_rel_ret``: the relevant documents ranked."""
    return data.hits(None)


def judged_average_precision(data: Judged, k: int | None, gains: Gains) -> np.ndarray:
    """``map`` (``k=None``) and ``map_cut.k``: precision at each relevant rank over ``num_rel``."""
    rows = data.rows
    terms = average_precision_term(rows.relevant, rows.cum_relevant, rows.position, k)
    return ratio_or_zero(data.sum(terms), data.n_relevant.astype(np.float64))


def judged_reciprocal_rank(data: Judged, k: int | None, gains: Gains) -> np.ndarray:
    """``recip_rank``: 1 / rank of the first relevant document (cut at ``k`` where given)."""
    rows = data.rows
    return data.sum(reciprocal_rank_term(rows.relevant, rows.cum_relevant, rows.position, k))


def judged_precision(data: Judged, k: int | None, gains: Gains) -> np.ndarray:
    """``P.k``: relevant documents in the top ``k``, over ``k``."""
    assert k is not None
    return precision_at(data.hits(k), k)


def judged_recall(data: Judged, k: int | None, gains: Gains) -> np.ndarray:
    """``recall.k``: relevant documents in the top ``k``, over ``num_rel``."""
    return ratio_or_zero(data.hits(k), data.n_relevant.astype(np.float64))


def judged_success(data: Judged, k: int | None, gains: Gains) -> np.ndarray:
    """``success.k``: 1 where a relevant document is in the top ``k``."""
    return (data.hits(k) > 0).astype(np.float64)


def judged_r_precision(data: Judged, k: int | None, gains: Gains) -> np.ndarray:
    """``Rprec``: relevant documents above position ``R``, ``R`` the query's ``num_rel``."""
    rows = data.rows
    within = rows.position < data.n_relevant[rows.segment]
    return ratio_or_zero(data.sum(rows.relevant * within), data.n_relevant.astype(np.float64))


def judged_ndcg(data: Judged, k: int | None, gains: Gains) -> np.ndarray:
    """``ndcg`` (``gains`` per level, no cutoff) and ``ndcg_cut.k`` (the relevance as gain)."""
    dcg = data.sum(gain_term(gains_of(data.relevance, gains), data.rows.position, k))
    return ratio_or_zero(dcg, ideal_dcg(data, k, gains))


__all__ = [
    "Gains",
    "Judged",
    "average_precision_at_k_segments",
    "average_precision_term",
    "cut",
    "expected_average_precision_term",
    "expected_hits_in_block",
    "exponential_gain",
    "gain_term",
    "hit_rate_segments",
    "hit_term",
    "ideal_dcg",
    "judged_average_precision",
    "judged_ndcg",
    "judged_num_q",
    "judged_num_rel",
    "judged_num_rel_ret",
    "judged_num_ret",
    "judged_precision",
    "judged_r_precision",
    "judged_recall",
    "judged_reciprocal_rank",
    "judged_success",
    "log_miss_term",
    "precision_at",
    "precision_segments",
    "r_precision_segments",
    "ratio_or_zero",
    "recall_segments",
    "reciprocal_rank_term",
]
