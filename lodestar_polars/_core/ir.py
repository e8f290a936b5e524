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
:mod:`lodestar_polars.trec`) and Polars expressions (``lodestar_polars._ir``).

Expectations over ties
----------------------
With a tie group of ``c`` rows occupying positions ``[a, a + c)`` and holding
``r`` relevant rows, every ordering of the group being equally likely, the
expected number of relevant rows in the top ``k`` (``a < k < a + c``) is
``r * (k - a) / c``; the chance that none of the ``m = k - a`` tied rows that
make the cut is relevant is ``C(c - r, m) / C(c, m)``.  Both closed forms are
here (:func:`expected_hits_in_block`, :func:`miss_probability`).

Segmented evaluators
--------------------
:class:`Judged` holds flat arrays in ranking order, query after query (the
order a sort by ``(qid, score desc, docno desc)`` gives, trec_eval's), with
per-query lengths that may be 0 (a judged query the run does not rank, which
``-c`` scores), the per-query count of relevant judged documents
``n_relevant`` (retrieved or not), and the judged gains of each query in
ideal order for the ideal DCG.  :func:`measure_values` computes one measure
for every query at once; there is no loop over queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lodestar_polars._core._ops import exp
from lodestar_polars._core.discount import cut_discount


# --------------------------------------------------------------------------- row formulas
def cut(position: Any, k: int | None) -> Any:
    """1 where the 0-based ``position`` is in the top ``k`` (``k=None``: everywhere), else 0."""
    if k is None:
        return position * 0 + 1
    return position < k


def hit_term(relevant: Any, position: Any, k: int | None) -> Any:
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

    ``r * m / c`` with ``m = clip(k - above, 0, c)`` rows of the block making the cut.
    """
    made = ((k - above) * ((k - above) > 0)) - ((k - above - block) * ((k - above - block) > 0))
    return relevant_in_block * made / block


def log_choose(n: Any, m: Any) -> Any:
    """``ln C(n, m)`` through sums of logs (``lgamma`` is not in both array kinds).

    Only used with scalars or NumPy arrays here; see :func:`miss_probability`.
    """
    return log_factorial(n) - log_factorial(m) - log_factorial(n - m)


def log_factorial(n: Any) -> Any:
    """``ln(n!)`` for NumPy arrays of non-negative integers (exact sum of logs)."""
    n = np.asarray(n, dtype=np.int64)
    top = int(n.max(initial=0))
    table = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, top + 1, dtype=np.float64)))))
    return table[n]


def miss_probability(relevant_in_block: Any, block: Any, made: Any) -> Any:
    """Chance that none of ``made`` rows drawn from a tie block of ``block`` rows is relevant.

    ``C(c - r, m) / C(c, m)``, 0 when ``m > c - r``.  Computed as
    ``exp(ln C(c-r, m) - ln C(c, m))`` on NumPy arrays.
    """
    c = np.asarray(block, dtype=np.int64)
    r = np.asarray(relevant_in_block, dtype=np.int64)
    m = np.asarray(made, dtype=np.int64)
    possible = m <= c - r
    mm = np.where(possible, m, 0)
    value = exp(log_choose(c - r, mm) - log_choose(c, mm))
    return np.where(possible, value, 0.0)


# --------------------------------------------------------------------------- segments
def segment_sum(values: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Sum flat ``values`` over contiguous segments; an empty segment sums to 0."""
    out = np.zeros(length.size, dtype=np.float64)
    nonempty = length > 0
    if values.size:
        out[nonempty] = np.add.reduceat(np.asarray(values, dtype=np.float64), start[nonempty])
    return out


def segment_positions(length: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(start, segment, position)`` of flat rows cut into segments of ``length`` rows."""
    length = np.asarray(length, dtype=np.int64)
    start = np.zeros(length.size, dtype=np.int64)
    np.cumsum(length[:-1], out=start[1:])
    segment = np.repeat(np.arange(length.size), length)
    position = np.arange(segment.size, dtype=np.int64) - start[segment]
    return start, segment, position


def segment_cumsum(values: np.ndarray, start: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """Inclusive running sum of integer ``values`` restarting at each segment."""
    total = np.cumsum(values, dtype=np.int64)
    before = np.concatenate(([0], total))[start]
    return total - before[segment]


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
    """Judged relevance of each ranked row (int64); -1 for a row not judged (or judged < 0)."""
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


def gains_of(relevance: np.ndarray, gains: tuple[tuple[int, float], ...] | None) -> np.ndarray:
    """The gain of each judged relevance: the relevance itself, or ``gains`` where it names it.

    An unjudged row (relevance < 0) gains 0, as in trec_eval.
    """
    rel = np.asarray(relevance, dtype=np.int64)
    out = np.where(rel >= 0, rel, 0).astype(np.float64)
    for level, gain in gains or ():
        out[rel == level] = gain
    return out


def ideal_dcg(
    data: Judged, k: int | None, gains: tuple[tuple[int, float], ...] | None
) -> np.ndarray:
    """DCG of each query's judged documents in the best order, cut at ``k``.

    Only positive gains count, highest first (trec_eval's ideal: every judged
    document, retrieved or not).
    """
    gain = gains_of(data.ideal_relevance, gains)
    start, segment, _ = segment_positions(data.ideal_length)
    # best order per query: gains descending (the relevances are sorted, but
    # custom gains may reorder the levels)
    order = np.lexsort((-gain, segment))
    gain = gain[order]
    position = np.arange(gain.size, dtype=np.int64) - start[segment]
    positive = gain > 0  # they sort first: their positions are 0, 1, ...
    terms = gain_term(gain * positive, position, k)
    return segment_sum(terms, start, data.ideal_length)


def measure_values(
    data: Judged,
    kind: str,
    k: int | None = None,
    gains: tuple[tuple[int, float], ...] | None = None,
) -> np.ndarray:
    """One trec_eval measure (``kind``, cutoff ``k``) for every query of ``data``.

    ``kind`` is one of ``num_ret``, ``num_rel``, ``num_rel_ret``, ``map``,
    ``map_cut``, ``Rprec``, ``recip_rank``, ``P``, ``recall``, ``success``,
    ``ndcg``, ``ndcg_cut``.
    """
    rows = data.rows
    rel, cum, pos = rows.relevant, rows.cum_relevant, rows.position
    n_rel = data.n_relevant.astype(np.float64)
    if kind == "num_ret":
        return data.length.astype(np.float64)
    if kind == "num_rel":
        return n_rel
    if kind == "num_rel_ret":
        return data.hits(None)
    if kind in ("map", "map_cut"):
        return ratio_or_zero(data.sum(average_precision_term(rel, cum, pos, k)), n_rel)
    if kind == "recip_rank":
        return data.sum(reciprocal_rank_term(rel, cum, pos, k))
    if kind == "P":
        assert k is not None
        return precision_at(data.hits(k), k)
    if kind == "recall":
        return ratio_or_zero(data.hits(k), n_rel)
    if kind == "success":
        return (data.hits(k) > 0).astype(np.float64)
    if kind == "Rprec":
        # relevant rows above position R, R = the query's own n_relevant
        within = pos < data.n_relevant[rows.segment]
        return ratio_or_zero(data.sum(rel * within), n_rel)
    if kind in ("ndcg", "ndcg_cut"):
        g = gains if kind == "ndcg" else None
        dcg = data.sum(gain_term(gains_of(data.relevance, g), pos, k))
        return ratio_or_zero(dcg, ideal_dcg(data, k, g))
    msg = f"unknown measure kind {kind!r}"
    raise ValueError(msg)


__all__ = [
    "Judged",
    "average_precision_term",
    "cut",
    "exponential_gain",
    "expected_hits_in_block",
    "gain_term",
    "hit_term",
    "ideal_dcg",
    "measure_values",
    "miss_probability",
    "precision_at",
    "ratio_or_zero",
    "reciprocal_rank_term",
    "segment_sum",
]
