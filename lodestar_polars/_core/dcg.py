"""DCG and NDCG: the tie-group closed form (McSherry & Najork, as scikit-learn).

A tie group of ``c`` rows occupying positions ``[above, through)`` has no
order, so every member sees, on average, the mean of the discounts of those
positions.  Summed over the group that is ``mean(gain) * sum(discounts)``,
the expectation of DCG over every ordering of the tie, computed without
enumerating any.  ``k`` cuts the discounts (positions ``>= k`` weigh 0), so a
group straddling ``k`` gets only the discounts of its positions below ``k``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from lodestar_polars._core.discount import Discount, cumulative_discount_table, cut_discount
from lodestar_polars._core.ranking import rank_segments
from lodestar_polars._core.segments import segment_positions, segment_starts
from lodestar_polars._core.threads import both

_FEW_GAINS = 32  # distinct gain values up to which the ideal DCG is counted, not sorted
_TINY = float(np.nextafter(0.0, 1.0))  # the smallest positive double, 5e-324


def tie_averaged_gain(gain: Any, cum_above: Any, cum_through: Any, above: Any, through: Any) -> Any:
    """A tie group's expected discounted gain, or one row's share of it.

    ``cum_above``/``cum_through`` are the cumulative (cut) discounts at the
    counts ``above`` and ``through``.  With ``gain`` the sum of the group's
    gains it is ``mean(gain) * (cum_through - cum_above)``, scikit-learn's
    ``_tie_averaged_dcg`` term (the NumPy core, block by block); with one row's
    gain, that row's share (the expressions, row by row: the shares sum to the
    group's value).  With ``through = above + 1`` (no tie, or ``ignore_ties``)
    it is ``gain * discount(above)``.
    """
    return gain / (through - above) * (cum_through - cum_above)


def normalized(dcg: Any, ideal: Any) -> Any:
    """``dcg / ideal``, and 0.0 where the ideal is 0 (nothing relevant).

    On a Polars expression ``ideal`` is written once: inside
    ``group_by().agg()`` Polars evaluates a subexpression once per use (no
    common-subexpression elimination there), and the ideal costs a sort.  The
    ideal is 0 only when every gain is 0 (gains are not negative), and then
    the DCG is 0 too: raising the ideal to the smallest positive double
    changes no other value and turns ``0 / 0`` into ``0 / 5e-324 = 0``.
    """
    if isinstance(ideal, (np.ndarray, np.generic, int, float)):
        return dcg / (ideal + (ideal == 0))  # type: ignore[operator]  # numpy stubs: bool
    return dcg / ideal.clip(lower_bound=_TINY)


def dcg_segments(
    gain: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    *,
    k: int | None,
    log_base: float,
    ignore_ties: bool,
    presorted: bool = False,
    discount: Discount = "log",
) -> np.ndarray:
    """DCG of each segment of the flat arrays ``gain``/``score``."""
    ranking = rank_segments(score, length, presorted=presorted)
    table = cumulative_discount_table(int(np.max(length, initial=0)), log_base, k, discount)
    g = ranking.take(gain, np.float64)
    if ignore_ties or ranking.no_ties:
        # one row per block (no tie, or ties broken): the block sums below are the
        # rows themselves, and each block's term is tie_averaged_gain with
        # through = above + 1, g / 1 * (C[above + 1] - C[above]): the same numbers
        # row by row, each discount difference taken once
        weights = np.diff(table)
        return ranking.segment_sum(g * ranking.by_position(weights))
    # block by block: each tie block's gain sum times its mean discount
    above = ranking.block_above
    through = above + ranking.block_size
    terms = tie_averaged_gain(ranking.block_sum(g), table[above], table[through], above, through)
    return ranking.segment_sum_of_blocks(terms)


def ndcg_segments(
    gain: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    *,
    k: int | None,
    ignore_ties: bool,
    ideal: np.ndarray | None = None,
    presorted: bool = False,
    discount: Discount = "log",
    denominator: str = "ideal",
) -> np.ndarray:
    """NDCG of each segment: DCG over the DCG of the gains ranked by themselves.

    ``ideal``, when given, is each segment's ideal DCG from elsewhere (the
    judged relevances of a run's qrels, :func:`ideal_dcg_segments` of them).
    ``denominator="k"``: over the DCG of ``k`` rows of gain 1 (RecTools'), one
    constant; ``discount``: as :func:`dcg_segments`, in the DCG and its ideal.
    """

    def dcg() -> np.ndarray:
        return dcg_segments(
            gain,
            score,
            length,
            k=k,
            log_base=2,
            ignore_ties=ignore_ties,
            presorted=presorted,
            discount=discount,
        )

    if denominator == "k" and k is not None:
        with np.errstate(divide="ignore"):
            slots = cumulative_discount_table(k, 2, k, discount)[k]
        return normalized(dcg(), np.full(len(length), slots))
    if ideal is None:  # two independent passes over the rows, at the same time
        value, best = both(dcg, lambda: ideal_dcg_segments(gain, length, k=k, discount=discount))
        return normalized(value, best)
    return normalized(dcg(), ideal)


def ideal_dcg_segments(
    gain: np.ndarray, length: np.ndarray, *, k: int | None, discount: Discount = "log"
) -> np.ndarray:
    """DCG of each segment's gains ranked by themselves (equal gains in any order).

    No tie group can change this number, so it needs only how the gains fall
    in each segment's best order, not which row holds which.  Relevance
    usually takes a few values: then, value by value from the largest, the
    count of each segment's rows holding it gives the positions it occupies,
    and it adds ``value * (C[through] - C[above])`` (``C`` the cumulative cut
    discounts), with no sort.  Otherwise the gains are sorted within segments.
    """
    length = np.asarray(length, dtype=np.int64)
    g = np.asarray(gain, dtype=np.float64)
    out = np.zeros(length.size)
    nonempty = length > 0
    if g.size:
        # an empty segment (a query with no judged row) has an ideal of 0; the
        # segments with rows lie end to end without it, so each is cut from the
        # flat rows by its own length alone (np.add.reduceat cannot sum an empty
        # slice: it reads one row past it, or raises at the end of the array)
        out[nonempty] = _ideal_dcg_filled(g, length[nonempty], k, discount)
    return out


def _ideal_dcg_filled(
    g: np.ndarray, length: np.ndarray, k: int | None, discount: Discount = "log"
) -> np.ndarray:
    """:func:`ideal_dcg_segments` of segments of at least one row each."""
    start = segment_starts(length)
    longest = int(np.max(length, initial=0))
    values = np.unique(g)
    if values.size <= _FEW_GAINS:
        table = cumulative_discount_table(longest, 2, k, discount)
        out = np.zeros(length.size)
        above = np.zeros(length.size, dtype=np.int64)
        # every value but the smallest, from the largest: its count in each segment
        # is how many positions it fills, below those of the larger values
        for value in values[:0:-1]:
            equal = (g == value).view(np.int8)
            through = above + np.add.reduceat(equal, start, dtype=np.int64)
            out += value * (table[through] - table[above])
            above = through
        # the smallest value fills every position left, with no count (none where
        # a segment does not hold it: the larger values' counts reach its length);
        # a smallest value of 0 adds nothing (out starts at +0.0, never holds -0.0)
        if values[0] != 0:
            out += values[0] * (table[length] - table[above])
        return out
    _, segment, position = segment_positions(length)
    order = np.lexsort((-g, segment))
    discounts = cut_discount(np.arange(longest, dtype=np.float64), 2, k, discount)
    return np.add.reduceat(g[order] * discounts[position], start)


PATTERN_K = 10
"""The largest ``k`` whose tie patterns are tabled (:func:`tie_pattern_weights`)."""


@functools.lru_cache(maxsize=64)
def tie_pattern_weights(
    k: int, log_base: float, kind: Discount = "log"
) -> tuple[np.ndarray, np.ndarray]:
    """Each tie pattern of a ranking's top ``k`` rows, and the weights it gives its positions.

    Of the top ``k`` rows in score order, bit ``i - 1`` of ``pattern`` says
    that row ``i`` ties with row ``i - 1``; ``key = pattern + 2 ** (k - 1) *
    continued``, where ``continued`` says that the last tie block goes on past
    row ``k``.  ``weights[i, key]`` is the weight of row ``i``'s gain in the
    tie-averaged DCG: ``tie_averaged_gain`` of a gain of 1 over its block's
    positions ``[above, through)``, or 0 for the rows of a continued last
    block (its gains are read in full elsewhere).  ``last_above[key]`` is the
    cumulative discount ``C[above]`` at the start of the last block.  A group
    shorter than ``k`` puts each missing row in a block of its own (gain 0).
    ``2 ** k * k`` weights, so only up to :data:`PATTERN_K`.
    """
    with np.errstate(divide="ignore"):
        table = cumulative_discount_table(k, log_base, k, kind)
    patterns = 1 << (k - 1)
    weights = np.zeros((k, 2 * patterns))
    last_above = np.zeros(2 * patterns)
    for pattern in range(patterns):
        starts = [0, *(i for i in range(1, k) if not (pattern >> (i - 1)) & 1)]
        blocks = list(zip(starts, [*starts[1:], k], strict=True))
        for continued in (0, 1):
            key = pattern + continued * patterns
            for above, through in blocks[: len(blocks) - continued]:
                weights[above:through, key] = tie_averaged_gain(
                    1.0, table[above], table[through], above, through
                )
            last_above[key] = table[starts[-1]]
    return weights, last_above
