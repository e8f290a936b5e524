"""The report's beyond-accuracy keys (issue 21): novelty and personalisation of the served top k.

With ``train=`` the coverage family of every objective's block and of the popularity floor adds

- ``novelty@k``: :func:`lodestar_polars.novelty` of each served list's top ``k`` (the mean
  self-information ``-log2 p``, ``p`` the share of training users who interacted with the item,
  :func:`lodestar_polars.item_popularity`; an item no training user touched counts as one user,
  RecTools' rule), averaged over the served lists;
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
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

if TYPE_CHECKING:
    from lodestar_polars._report.ranking_report.common import FloatArray, Frame, Graded

_USER = "__lp_train_user"


def information_table(train: Frame, keys: Sequence[str], item: str) -> tuple[pl.DataFrame, float]:
    """``train``'s self-information per item (``item``, ``info``) and a cold item's.

    ``info = -log2 p`` with ``p`` the item's share of training users; an item that no training
    user touched counts as one user (``p = 1 / n_users``).
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
    table = pop.select(item, (-pl.col("popularity").cast(pl.Float64).log(2.0)).alias("info"))
    return table, float(np.log2(n_users))


def information_on(items: pl.Series, item: str, table: tuple[pl.DataFrame, float]) -> FloatArray:
    """Per item of ``items`` (in order): its self-information (a cold item's where unseen)."""
    ids = items.to_frame(item).with_row_index("__lp_id")
    joined = ids.join(table[0], on=item, how="left").sort("__lp_id")
    out: FloatArray = joined["info"].fill_null(table[1]).to_numpy().astype(np.float64)
    return out


def train_information(
    train: Frame, keys: Sequence[str], item: str, items: pl.Series
) -> FloatArray:
    """Per item id (``items`` in order): ``-log2 p`` (:func:`information_table`)."""
    return information_on(items, item, information_table(train, keys, item))


def beyond_sums(
    g: Graded, top: FloatArray, information: FloatArray, k: int
) -> tuple[float, int, FloatArray, FloatArray]:
    """One ranking's sums over its served lists, which add over parts of whole lists.

    ``top``: per candidate row, its chance to be in its list's top ``k``. The served lists are
    those carrying a graded list (``g.weight > 0``), each counted once. Returns the sum of the
    lists' novelty, their count, and per item id ``sum_u a_ui`` and ``sum_u a_ui^2`` with
    ``a_ui = P(i in u's top k) / sqrt(m_u)`` (``lp.personalisation``'s terms).
    """
    n_lists = g.weight.size
    length = np.bincount(g.list_id, minlength=n_lists).astype(np.float64)
    m = np.minimum(float(k), length)
    served = g.weight > 0
    weights = top * information[g.item_id]
    with np.errstate(invalid="ignore", divide="ignore"):
        novelty = np.bincount(g.list_id, weights=weights, minlength=n_lists) / m
    rows = served[g.list_id]
    a = top[rows] / np.sqrt(m[g.list_id[rows]])
    codes = g.item_id[rows]
    size = int(g.items.len())
    total = np.bincount(codes, weights=a, minlength=size).astype(np.float64)
    squares = np.bincount(codes, weights=a * a, minlength=size).astype(np.float64)
    return float(novelty[served].sum()), int(np.count_nonzero(served)), total, squares


def beyond_from_sums(
    novelty_sum: float, n_served: int, total: FloatArray, squares: FloatArray
) -> dict[str, float | None]:
    """``novelty@{k}`` and ``personalisation@{k}`` (registry keys) from :func:`beyond_sums`."""
    overlap = float(((total * total - squares) / 2.0).sum())
    pairs = n_served * (n_served - 1.0) / 2.0
    return {
        "novelty@{k}": novelty_sum / n_served if n_served else None,
        "personalisation@{k}": 1.0 - overlap / pairs if n_served >= 2 else None,
    }


def beyond_family(
    g: Graded, top: FloatArray, information: FloatArray, k: int
) -> dict[str, float | None]:
    """``novelty@{k}`` and ``personalisation@{k}`` of one ranking (registry keys, unformatted)."""
    return beyond_from_sums(*beyond_sums(g, top, information, k))
