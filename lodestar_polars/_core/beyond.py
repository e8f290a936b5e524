"""Beyond-accuracy measures of served lists, as NumPy segment cores.

Each list (a user's recommendations) is one segment of the flat arrays; the
rows of a segment are its served items, ranked by ``score`` descending.  The
top ``k`` of a list with tied scores is read as the expectation over the
orderings of the tie (the library's rule, decision 0002): the rows scoring
above the tie block at the cut are in; the block at the cut, of ``c`` rows
with ``s`` slots left, puts each of its rows in with chance ``s / c`` and
each pair of its rows in with chance ``s (s - 1) / (c (c - 1))``.  Every
per-list value below is that expectation, in closed form; no Python runs per
list or per row.

* :func:`novelty_segments`: the mean self-information ``-log2 p`` of the
  items in the top ``k`` (``p``: the share of training users who interacted
  with the item, RecTools' ``MeanInvUserFreq``);
* :func:`mean_popularity_segments`: the mean ``p`` (average recommended
  popularity, ARP);
* :func:`category_diversity_segments`: intra-list diversity of one category
  per item, the share of pairs in the top ``k`` whose categories differ,
  from the counts of each category (``1 - same pairs / pairs``);
* :func:`embedding_diversity_segments`: intra-list diversity as the mean
  cosine distance of the pairs, from the norms of the sums of the unit
  vectors (``sum over pairs of u_i . u_j = (|sum u|^2 - n) / 2``);
* :func:`serendipity_segments`: RecTools' ``Serendipity``;
* :func:`personalisation_value`: one minus the mean cosine overlap of two
  lists, over every pair of lists, from per-item sums (exact, linear time).
"""

from __future__ import annotations

import numpy as np

from lodestar_polars._core.ranking import Ranking, rank_segments


def top_k_weights(ranking: Ranking, k: int | None) -> tuple[np.ndarray, np.ndarray]:
    """``(w, m)``: each ranked row's chance to be in the top ``k``, and the top's size per list.

    ``w = clip(k - above, 0, c) / c`` with ``c`` the row's tie block: 1 above
    the block at the cut, ``s / c`` inside it, 0 below.  ``m = min(k, length)``.
    """
    length = ranking.length.astype(np.float64)
    if k is None:
        return np.ones(ranking.segment.size), length
    above = ranking.above.astype(np.float64)
    block = (ranking.through - ranking.above).astype(np.float64)
    w = np.clip(k - above, 0.0, block) / block
    return w, np.minimum(float(k), length)


def _weighted_mean(
    values: np.ndarray, score: np.ndarray, length: np.ndarray, k: int | None, *, presorted: bool
) -> np.ndarray:
    ranking = rank_segments(score, length, presorted=presorted)
    w, m = top_k_weights(ranking, k)
    total = ranking.segment_sum(w * ranking.take(values, np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        out: np.ndarray = total / m
    return out


def novelty_segments(
    popularity: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    *,
    k: int | None,
    presorted: bool = False,
) -> np.ndarray:
    """Mean self-information ``-log2 p`` of each list's top ``k`` (``p`` in (0, 1])."""
    information = -np.log2(np.asarray(popularity, dtype=np.float64))
    return _weighted_mean(information, score, length, k, presorted=presorted)


def mean_popularity_segments(
    popularity: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    *,
    k: int | None,
    presorted: bool = False,
) -> np.ndarray:
    """Mean popularity of each list's top ``k`` (average recommended popularity)."""
    return _weighted_mean(popularity, score, length, k, presorted=presorted)


def _sum_of_squared_counts(
    segment: np.ndarray, code: np.ndarray, chosen: np.ndarray, n_segments: int
) -> np.ndarray:
    """Per segment, the sum over categories of (rows of that category among ``chosen``)^2."""
    seg, cat = segment[chosen], code[chosen]
    out = np.zeros(n_segments, dtype=np.float64)
    if not seg.size:
        return out
    order = np.lexsort((cat, seg))
    seg, cat = seg[order], cat[order]
    new = np.ones(seg.size, dtype=bool)
    new[1:] = (seg[1:] != seg[:-1]) | (cat[1:] != cat[:-1])
    first = np.flatnonzero(new)
    counts = np.diff(np.append(first, seg.size)).astype(np.float64)
    return np.bincount(seg[first], weights=counts**2, minlength=n_segments)


def _block_at_cut(
    ranking: Ranking, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(full, part, q, pair, n_part)``: the top ``k``'s rows surely in and its block at the cut.

    Per list: the block's row chance ``q = s / c``, its pair chance
    ``s (s-1) / (c (c-1))``, and its size ``c``.
    """
    n_seg = ranking.length.size
    full, part = w == 1.0, (w > 0.0) & (w < 1.0)
    segment = ranking.segment
    n_part = np.bincount(segment[part], minlength=n_seg).astype(np.float64)
    q = np.zeros(n_seg, dtype=np.float64)
    q[segment[part]] = w[part]  # one value per block: s / c
    slots = q * n_part
    with np.errstate(invalid="ignore", divide="ignore"):
        pair = np.where(n_part > 1, q * (slots - 1.0) / (n_part - 1.0), 0.0)
    return full, part, q, pair, n_part


def _diversity(similar: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``1 - similar / pairs`` with ``m (m - 1) / 2`` pairs; 0 for a list of fewer than 2 items."""
    pairs = m * (m - 1.0) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(m >= 2.0, 1.0 - similar / pairs, 0.0)


def category_diversity_segments(
    code: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    *,
    k: int | None,
    presorted: bool = False,
) -> np.ndarray:
    """Share of the top ``k``'s pairs whose categories (integer ``code``) differ.

    With ``A`` rows of a category surely in and ``B`` in the block at the cut,
    its expected same-category pairs are ``C(A, 2) + A B (s / c) + C(B, 2) s (s-1) / (c (c-1))``;
    ``sum A B`` is ``(sum (A+B)^2 - sum A^2 - sum B^2) / 2``, three sums of squared counts.
    """
    ranking = rank_segments(score, length, presorted=presorted)
    w, m = top_k_weights(ranking, k)
    full, part, q, pair, n_part = _block_at_cut(ranking, w)
    codes = ranking.take(code, np.int64)
    n_seg, segment = ranking.length.size, ranking.segment
    a2 = _sum_of_squared_counts(segment, codes, full, n_seg)
    b2 = _sum_of_squared_counts(segment, codes, part, n_seg)
    u2 = _sum_of_squared_counts(segment, codes, full | part, n_seg)
    n_full = np.bincount(segment[full], minlength=n_seg).astype(np.float64)
    same = (a2 - n_full) / 2.0 + q * (u2 - a2 - b2) / 2.0 + pair * (b2 - n_part) / 2.0
    return _diversity(same, m)


def _masked_sums(ranking: Ranking, vectors: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    out = np.zeros((ranking.length.size, vectors.shape[1]), dtype=np.float64)
    nonempty = ranking.length > 0
    if vectors.shape[0]:
        masked = np.where(chosen[:, None], vectors, 0.0)
        out[nonempty] = np.add.reduceat(masked, ranking.start[nonempty], axis=0)
    return out


def embedding_diversity_segments(
    embedding: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    *,
    k: int | None,
    presorted: bool = False,
) -> np.ndarray:
    """Mean cosine distance ``1 - cos`` of the top ``k``'s pairs (``embedding``: rows x dims).

    The rows are made unit vectors ``u``; the pairs' summed similarity is
    ``(|S_A|^2 - n_A) / 2 + (s / c) S_A . S_B + s (s-1) / (c (c-1)) (|S_B|^2 - c) / 2``
    with ``S_A`` the sum over the rows surely in and ``S_B`` over the block at the cut.
    """
    ranking = rank_segments(score, length, presorted=presorted)
    w, m = top_k_weights(ranking, k)
    full, part, q, pair, n_part = _block_at_cut(ranking, w)
    vectors = ranking.take(np.asarray(embedding, dtype=np.float64))
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    s_a, s_b = _masked_sums(ranking, unit, full), _masked_sums(ranking, unit, part)
    n_full = np.bincount(ranking.segment[full], minlength=ranking.length.size).astype(np.float64)
    similar = (
        (np.einsum("ij,ij->i", s_a, s_a) - n_full) / 2.0
        + q * np.einsum("ij,ij->i", s_a, s_b)
        + pair * (np.einsum("ij,ij->i", s_b, s_b) - n_part) / 2.0
    )
    return _diversity(similar, m)


def serendipity_term(
    above: np.ndarray, through: np.ndarray, rank: np.ndarray, k: int | None
) -> np.ndarray:
    """Per row, ``sum over its possible positions p <= k of max(rank - p, 0)``, over ``c``.

    A row of a tie block at 0-based ``above .. through - 1`` sits at each
    1-based position ``p`` in ``above + 1 .. through`` with chance ``1 / c``;
    only positions up to ``k`` count.  The sum of ``rank - p`` over
    ``p = lo .. h`` (``h = min(through, k, rank - 1)``) is an arithmetic series.
    """
    lo = above + 1.0
    hi = through if k is None else np.minimum(through, float(k))
    h = np.minimum(hi, rank - 1.0)
    count = np.maximum(h - lo + 1.0, 0.0)
    series = count * rank - (lo + h) * count / 2.0
    out: np.ndarray = series / (through - above)
    return out


def serendipity_segments(
    relevant: np.ndarray,
    popularity_rank: np.ndarray,
    score: np.ndarray,
    length: np.ndarray,
    *,
    k: int | None,
    n_items: int,
    presorted: bool = False,
) -> np.ndarray:
    """RecTools' serendipity: the top ``k``'s mean of ``rel * max(rank_pop - p, 0) / n_items``.

    ``p`` is the 1-based position, ``rank_pop`` the item's dense popularity
    rank in training (1: the most popular; a cold item ``n_items + 1``).
    """
    ranking = rank_segments(score, length, presorted=presorted)
    _, m = top_k_weights(ranking, k)
    rel = ranking.take(relevant, np.float64)
    rank = ranking.take(popularity_rank, np.float64)
    above = ranking.above.astype(np.float64)
    through = ranking.through.astype(np.float64)
    terms = rel * serendipity_term(above, through, rank, k) / float(n_items)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: np.ndarray = ranking.segment_sum(terms) / m
    return out


def personalisation_value(
    item: np.ndarray, score: np.ndarray, length: np.ndarray, *, k: int | None
) -> float:
    """One minus the mean cosine overlap ``|a & b| / sqrt(|a| |b|)`` over all pairs of lists.

    ``item``: integer codes, each at most once per list.  With ``a_ui = w_ui /
    sqrt(m_u)`` (``w``: the chance the item is in list ``u``'s top ``k``), the
    pairs' summed expected overlap is ``sum over items of ((sum_u a_ui)^2 - sum_u a_ui^2) / 2``
    (tie orderings independent between lists).  Needs at least two lists.
    """
    ranking = rank_segments(score, length)
    w, m = top_k_weights(ranking, k)
    codes = ranking.take(item, np.int64)
    a = w / np.sqrt(m[ranking.segment])
    n_codes = int(codes.max()) + 1 if codes.size else 0
    total = np.bincount(codes, weights=a, minlength=n_codes)
    squares = np.bincount(codes, weights=a * a, minlength=n_codes)
    overlap = float(((total * total - squares) / 2.0).sum())
    n_lists = float(length.size)
    return 1.0 - overlap / (n_lists * (n_lists - 1.0) / 2.0)
