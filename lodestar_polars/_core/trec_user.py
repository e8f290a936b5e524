"""trec_eval's user-model measures over judged runs: ``rbp``, ``rbp_resid`` and ``unj``.

Each is one ``judged_*(data, param, gains)`` function computing the measure for
every query of a :class:`~lodestar_polars._core.ir.Judged` at once (no loop over
queries), as trec_eval 10.0's ``m_rbp.c``, ``m_rbp_resid.c`` and ``m_unjudged.c``
compute it:

* ``rbp``: ``(1 - p) sum_r g_r p^(r - 1)`` over the ranked documents, ``p = 0.9``;
  the gain is the relevance, divided by the query's largest judged relevance when
  that is above 1 (trec_eval scales the gains into ``[0, 1]``);
* ``rbp_resid``: ``p^n + (1 - p) sum over unjudged ranks of p^(r - 1)``, ``p = 0.9``,
  for a query with an unjudged ranked document (not in the qrels, or judged below
  0), and 0 for a query with none (trec_eval leaves the value at 0 then);
* ``unj``: the unjudged documents of the top ``k`` over ``k`` (a list shorter than
  ``k`` counts its missing ranks as judged).
"""

from __future__ import annotations

import numpy as np

from lodestar_polars._core.ir import Gains, Judged, hit_term
from lodestar_polars._core.segments import segment_starts

TREC_RBP_P = 0.9
"""trec_eval's persistence for ``rbp`` and ``rbp_resid``."""
UNJ_CUTOFFS = (5, 10, 20)
"""trec_eval's default cutoffs for ``unj``."""


def _weights(data: Judged, p: float) -> np.ndarray:
    """``(1 - p) p^r`` at each ranked row's 0-based position ``r``."""
    weight: np.ndarray = (1.0 - p) * p ** data.rows.position.astype(np.float64)
    return weight


def _largest_judged(data: Judged) -> np.ndarray:
    """The largest judged relevance of each query (0 where none is judged)."""
    out = np.zeros(data.ideal_length.size, dtype=np.float64)
    has = data.ideal_length > 0
    first = segment_starts(data.ideal_length)[has]  # ideal relevances are highest first
    out[has] = data.ideal_relevance[first]
    return out


def judged_rbp(data: Judged, k: int | None, gains: Gains) -> np.ndarray:
    """``rbp``: rank-biased precision at ``p = 0.9``, gains scaled into ``[0, 1]``."""
    top = _largest_judged(data)
    scale = np.where(top > 1, top, 1.0)[data.rows.segment]
    gain = np.where(data.relevance > 0, data.relevance, 0).astype(np.float64) / scale
    return data.sum(gain * _weights(data, TREC_RBP_P))


def judged_rbp_resid(data: Judged, k: int | None, gains: Gains) -> np.ndarray:
    """``rbp_resid``: the weight of the unjudged ranks and of the tail past the list."""
    p = TREC_RBP_P
    unjudged = (data.relevance < 0).astype(np.float64)
    in_list = data.sum(unjudged * _weights(data, p))
    any_unjudged = data.sum(unjudged) > 0
    tail = p ** data.length.astype(np.float64)
    return np.where(any_unjudged, tail + in_list, 0.0)


def judged_unj(data: Judged, k: int | None, gains: Gains) -> np.ndarray:
    """``unj_k``: the unjudged documents of the top ``k``, over ``k``."""
    assert k is not None  # a measure with cutoffs: parse_measures gives one
    unjudged = data.relevance < 0
    return data.sum(hit_term(unjudged, data.rows.position, k).astype(np.float64)) / float(k)
