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
    from lodestar_polars._report.ranking_report.common import FloatArray, Frame, Graded

_USER = "__lp_train_user"


class TrainItems(NamedTuple):
    """Per item id: what ``train`` says of it (the beyond-accuracy keys' terms)."""

    information: FloatArray
    """``-log2 p`` (novelty; a cold item: one user's)."""
    popularity: FloatArray
    """``p``, the share of training users (ARP; a cold item: 0)."""


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
    table = pop.select(item, (-share.log(2.0)).alias("info"), share.alias("popularity"))
    return table, float(np.log2(n_users))


def information_on(items: pl.Series, item: str, table: tuple[pl.DataFrame, float]) -> TrainItems:
    """Per item of ``items`` (in order): its self-information and popularity (cold: see above)."""
    ids = items.to_frame(item).with_row_index("__lp_id")
    joined = ids.join(table[0], on=item, how="left").sort("__lp_id")
    info = joined["info"].fill_null(table[1]).to_numpy().astype(np.float64)
    share = joined["popularity"].fill_null(0.0).to_numpy().astype(np.float64)
    return TrainItems(info, share)


def train_information(train: Frame, keys: Sequence[str], item: str, items: pl.Series) -> TrainItems:
    """Per item id (``items`` in order): ``-log2 p`` and ``p`` (:func:`information_table`)."""
    return information_on(items, item, information_table(train, keys, item))


ByCut = dict[int, tuple["FloatArray", "FloatArray"]]
"""Per top size ``m``: per item id, ``sum_u w_ui`` and ``sum_u w_ui^2`` over the lists of that
size (``w``: the chance the item is in the list's top ``k``; 1 or 0 outside a tie, so the sums
are exact integers there and every path adds them to the same number)."""


def beyond_sums(
    g: Graded, top: FloatArray, train: TrainItems, k: int
) -> tuple[float, float, int, ByCut]:
    """One ranking's sums over its served lists, which add over parts of whole lists.

    ``top``: per candidate row, its chance to be in its list's top ``k``. The served lists are
    those carrying a graded list (``g.weight > 0``), each counted once. Returns the sum of the
    lists' novelty, the sum of their ARP, their count, and :data:`ByCut`
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
    n_served = int(np.count_nonzero(served))
    return float(novelty[served].sum()), float(arp[served].sum()), n_served, by_cut


def beyond_from_sums(
    novelty_sum: float, arp_sum: float, n_served: int, by_cut: ByCut
) -> dict[str, float | None]:
    """``novelty@{k}``, ``average_recommended_popularity@{k}`` and ``personalisation@{k}``.

    The registry's keys, unformatted, from :func:`beyond_sums`.
    """
    total: FloatArray | float = 0.0
    squares: FloatArray | float = 0.0
    for c in sorted(by_cut):
        w_sum, w_sq = by_cut[c]
        total = total + w_sum / np.sqrt(float(c))
        squares = squares + w_sq / float(c)
    overlap = float(np.sum((np.asarray(total) ** 2 - np.asarray(squares)) / 2.0))
    pairs = n_served * (n_served - 1.0) / 2.0
    return {
        "novelty@{k}": novelty_sum / n_served if n_served else None,
        "average_recommended_popularity@{k}": arp_sum / n_served if n_served else None,
        "personalisation@{k}": 1.0 - overlap / pairs if n_served >= 2 else None,
    }


def beyond_family(g: Graded, top: FloatArray, train: TrainItems, k: int) -> dict[str, float | None]:
    """:func:`beyond_from_sums` of one ranking (registry keys, unformatted)."""
    return beyond_from_sums(*beyond_sums(g, top, train, k))
