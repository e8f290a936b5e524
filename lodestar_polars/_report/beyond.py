"""The report's beyond-accuracy keys (issue 21): novelty, ARP and personalisation of the top k.

With ``train=`` the coverage family of every objective's block and of the popularity floor adds

- ``novelty@k``: :func:`lodestar_polars.novelty` of each served list's top ``k`` (the mean
  self-information ``-log2 p``, ``p`` the share of training users who interacted with the item,
  :func:`lodestar_polars.item_popularity`; an item no training user touched counts as one user,
  RecTools' rule), averaged over the served lists;
- ``average_recommended_popularity@k``: :func:`lodestar_polars.average_recommended_popularity`
  of each served list's top ``k`` (the mean ``p``, the same share of training users; an item no
  training user touched has ``p = 0``, RecTools' rule), averaged over the served lists;
- ``personalisation@k``: :func:`lodestar_polars.personalisation` of the served lists' top ``k``
  (null with fewer than two lists).

The training users are the report's ``by`` columns where ``train`` holds them all; otherwise
each row of ``train`` is one user's interaction. Ties at the cut are expectations, as in every
family of the report: each candidate row's chance to be in its list's top ``k``
(``Terms.top``) weighs it. No interval (coverage metrics carry none). NumPy over the graded
arrays, no Python per list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import polars as pl

if TYPE_CHECKING:
    from lodestar_polars._report.ranking_report.common import (
        FloatArray,
        Frame,
        Graded,
        IntArray,
    )

_USER = "__lp_train_user"


class TrainItems(NamedTuple):
    """Per item id: what ``train`` says of it (the beyond-accuracy keys' terms)."""

    information: FloatArray
    """``-log2 p`` (novelty; a cold item: one user's)."""
    popularity: FloatArray
    """``p``, the share of training users (ARP; a cold item: 0)."""
    rank: FloatArray
    """The dense popularity rank (1: the most training users; serendipity), 0 for a cold item
    (whose rank, ``n_items + 1``, waits for the catalogue's size: the parts know it last)."""


def information_table(train: Frame, keys: Sequence[str], item: str) -> tuple[pl.DataFrame, float]:
    """``train``'s terms per item (``item``, ``info``, ``popularity``) and a cold item's ``info``.

    ``popularity``: ``p``, the item's share of training users (the ``popularity`` of
    :func:`lodestar_polars.item_popularity`); ``info = -log2 p``. An item that no training
    user touched counts as one user for its information (``p = 1 / n_users``) and as none
    for its popularity (0).
    """
    from lodestar_polars._metrics.across_lists import item_popularity

    lazy = train.lazy()
    schema = lazy.collect_schema()
    users: list[str]
    if keys and all(k in schema for k in keys):
        users = list(keys)
    else:  # no user columns: each training row is one user's interaction
        lazy = lazy.with_row_index(_USER)
        users = [_USER]
    frame = lazy.select(*users, item).collect()
    n_users = float(frame.select(pl.struct(users).n_unique()).item()) if frame.height else 1.0
    pop = item_popularity(frame, by=users if len(users) > 1 else users[0], item=item)
    share = pl.col("popularity").cast(pl.Float64)
    table = pop.select(
        item,
        (-share.log(2.0)).alias("info"),
        share.alias("popularity"),
        pl.col("popularity_rank").cast(pl.Float64),
    )
    return table, float(np.log2(n_users))


def information_on(items: pl.Series, item: str, table: tuple[pl.DataFrame, float]) -> TrainItems:
    """Per item of ``items`` (in order): its self-information and popularity (cold: see above)."""
    ids = items.to_frame(item).with_row_index("__lp_id")
    joined = ids.join(table[0], on=item, how="left").sort("__lp_id")
    info = joined["info"].fill_null(table[1]).to_numpy().astype(np.float64)
    share = joined["popularity"].fill_null(0.0).to_numpy().astype(np.float64)
    rank = joined["popularity_rank"].fill_null(0.0).to_numpy().astype(np.float64)
    return TrainItems(info, share, rank)


def train_information(train: Frame, keys: Sequence[str], item: str, items: pl.Series) -> TrainItems:
    """Per item id (``items`` in order): ``-log2 p`` and ``p`` (:func:`information_table`)."""
    return information_on(items, item, information_table(train, keys, item))


ByCut = dict[int, tuple["FloatArray", "FloatArray"]]
"""Per top size ``m``: per item id, ``sum_u w_ui`` and ``sum_u w_ui^2`` over the lists of that
size (``w``: the chance the item is in the list's top ``k``; 1 or 0 outside a tie, so the sums
are exact integers there and every path adds them to the same number)."""


NOVELTY_SUM, ARP_SUM, SERVED = "__lp_novelty_sum", "__lp_arp_sum", "__lp_served"
SER_WARM, SER_COLD, SER_COLD_BASE = "__lp_ser_warm", "__lp_ser_cold", "__lp_ser_cold_base"
BEYOND_SUMS = (NOVELTY_SUM, ARP_SUM, SERVED, SER_WARM, SER_COLD, SER_COLD_BASE)
""":func:`beyond_sums`' scalar sums, which add over parts of whole lists (and in any tree)."""


def beyond_sums(
    g: Graded,
    top: FloatArray,
    train: TrainItems,
    k: int,
    bounds: tuple[IntArray, IntArray] | None = None,
) -> tuple[dict[str, float], ByCut]:
    """One ranking's sums over its served lists, which add over parts of whole lists.

    ``top``: per candidate row, its chance to be in its list's top ``k``; ``bounds``: per
    graded list, its truth row's ``(b, t)`` (candidates strictly above, tie block size). The
    served lists are those carrying a graded list (``g.weight > 0``), each counted once.
    Returns the :data:`BEYOND_SUMS` (the lists' novelty and ARP summed, their count, and
    serendipity's three sums, see :func:`serendipity_sums`) and :data:`ByCut`
    (``lp.personalisation``'s terms ``a_ui = w_ui / sqrt(m_u)``, kept apart by ``m`` so that no
    path rounds them differently).
    """
    n_lists = g.weight.size
    length = np.bincount(g.list_id, minlength=n_lists).astype(np.float64)
    m = np.minimum(float(k), length)
    served = g.weight > 0
    # only the rows with a chance to be served add anything (about k of each list's rows): a
    # sum skipping terms of 0.0 is the same sum (information is finite, top in [0, 1])
    chance = np.flatnonzero(top)
    lists, items, w_all = g.list_id[chance], g.item_id[chance], top[chance]
    with np.errstate(invalid="ignore", divide="ignore"):
        info = w_all * train.information[items]
        novelty = np.bincount(lists, weights=info, minlength=n_lists) / m
        arp = np.bincount(lists, weights=w_all * train.popularity[items], minlength=n_lists) / m
    rows = served[lists]
    w, codes, cut = w_all[rows], items[rows], m[lists[rows]].astype(np.int64)
    size = int(g.items.len())
    by_cut: ByCut = {}
    for c in np.unique(cut).tolist():  # one pass per distinct top size (at most k), not per list
        at = cut == c
        by_cut[int(c)] = (
            np.bincount(codes[at], weights=w[at], minlength=size).astype(np.float64),
            np.bincount(codes[at], weights=w[at] * w[at], minlength=size).astype(np.float64),
        )
    sums = {
        NOVELTY_SUM: float(novelty[served].sum()),
        ARP_SUM: float(arp[served].sum()),
        SERVED: float(np.count_nonzero(served)),
    }
    if bounds is not None:
        sums.update(serendipity_sums(g, bounds, train, k, m))
    return sums, by_cut


def serendipity_sums(
    g: Graded, bounds: tuple[IntArray, IntArray], train: TrainItems, k: int, m: FloatArray
) -> dict[str, float]:
    """Serendipity's sums over the graded lists' truth rows (the relevant ones; no other counts).

    ``lp.serendipity`` of list ``u`` is ``(1 / m_u) sum_i rel_i S_i / N`` with ``S_i`` the sum
    over the row's possible positions ``p <= k`` of ``max(r_i - p, 0)``, over its tie block's
    size (``_core.beyond.serendipity_term``). A warm item's ``S`` is known here; a cold item's
    rank ``N + 1`` is not until the catalogue's size ``N`` is (the parts path), but every
    position is at most ``N`` (a list holds each catalogue item at most once), so its ``S`` is
    ``(N + 1) a + c0`` with ``a = count / t`` and ``c0 = -(lo + hi) count / (2 t)``: three sums,
    each over ``1 / m_u``, finished by :func:`beyond_from_sums`.
    """
    from lodestar_polars._core.beyond import serendipity_term

    b, t = bounds
    seen = g.g_row >= 0  # an unseen truth is in no list: no term
    rank = train.rank[g.g_item[seen]]
    above = b[seen].astype(np.float64)
    through = above + t[seen].astype(np.float64)
    scale = 1.0 / m[g.g_list[seen]]
    cold = rank == 0.0
    warm = serendipity_term(above[~cold], through[~cold], rank[~cold], k) * scale[~cold]
    lo = above[cold] + 1.0
    hi = np.minimum(through[cold], float(k))
    count = np.maximum(hi - lo + 1.0, 0.0)
    block = through[cold] - above[cold]
    return {
        SER_WARM: float(warm.sum()),
        SER_COLD: float((count / block * scale[cold]).sum()),
        SER_COLD_BASE: float((-(lo + hi) * count / 2.0 / block * scale[cold]).sum()),
    }


def beyond_from_sums(
    sums: dict[str, float], by_cut: ByCut, n_items: int
) -> dict[str, float | None]:
    """The registry's keys (unformatted) from :func:`beyond_sums`.

    ``novelty@{k}``, ``average_recommended_popularity@{k}``, ``serendipity@{k}`` (with the
    truth rows' bounds) and ``personalisation@{k}``; ``n_items``: the catalogue's size ``N``,
    the payload's ``n_items``.
    """
    n_served = int(sums[SERVED])
    total: FloatArray | float = 0.0
    squares: FloatArray | float = 0.0
    for c in sorted(by_cut):
        w_sum, w_sq = by_cut[c]
        total = total + w_sum / np.sqrt(float(c))
        squares = squares + w_sq / float(c)
    overlap = float(np.sum((np.asarray(total) ** 2 - np.asarray(squares)) / 2.0))
    pairs = n_served * (n_served - 1.0) / 2.0
    out: dict[str, float | None] = {
        "novelty@{k}": sums[NOVELTY_SUM] / n_served if n_served else None,
        "average_recommended_popularity@{k}": sums[ARP_SUM] / n_served if n_served else None,
        "personalisation@{k}": 1.0 - overlap / pairs if n_served >= 2 else None,
    }
    if SER_WARM in sums:
        n = float(n_items)
        terms = sums[SER_WARM] + (n + 1.0) * sums[SER_COLD] + sums[SER_COLD_BASE]
        out["serendipity@{k}"] = terms / n / n_served if n_served else None
    return out


def beyond_family(
    g: Graded,
    top: FloatArray,
    train: TrainItems,
    k: int,
    bounds: tuple[IntArray, IntArray] | None = None,
) -> dict[str, float | None]:
    """:func:`beyond_from_sums` of one ranking (registry keys, unformatted), ``N`` the scores'."""
    return beyond_from_sums(*beyond_sums(g, top, train, k, bounds), g.n_catalogue)
