"""Beyond-accuracy measures over a whole frame of lists: item popularity, personalisation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from lodestar_polars._base.validation import (
    check_column,
    check_columns,
    check_frame,
    check_k,
    give_back,
    names_of,
    select_roles,
)
from lodestar_polars._core.beyond import personalisation_value
from lodestar_polars.exceptions import InvalidParameterError


def item_popularity(
    frame: Any, *, by: str | pl.Expr | Sequence[str | pl.Expr], item: str | pl.Expr
) -> Any:
    """Each item's training popularity: its users, their share, its dense popularity rank.

    ``users``: distinct users who interacted with the item; ``popularity``:
    ``users`` over the distinct users of ``frame`` (the training interactions) (RecTools'
    ``MeanInvUserFreq``); ``popularity_rank``: the dense rank of ``users``,
    1 the largest (RecTools' ``Serendipity`` ranks interaction counts: the
    same where no user-item pair repeats).  One row per item, in the order the
    items first appear in ``frame``.  Join it onto the served rows by
    ``item``; items missing there are cold (see :func:`novelty`,
    :func:`serendipity`).

    ``by`` (the user: a column, an expression, or several) and ``item`` (a
    column or an expression, named by its output name) are the training
    interactions' columns.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> train = pl.DataFrame({"user": [1, 1, 2, 3], "item": ["a", "b", "a", "a"]})
    >>> lp.item_popularity(train, by="user", item="item").sort("item").rows()
    [('a', 3, 1.0, 1), ('b', 1, 0.3333333333333333, 2)]
    """
    caller = "item_popularity"
    lazy, was_lazy = check_frame(frame, "frame", caller)
    keys = check_columns(by, "by", caller)
    item_expr = check_column(item, "item", caller)
    assert item_expr is not None  # allow_none=False
    select_roles(lazy, {"by": keys, "item": [item_expr]}, "frame", caller)
    (item,) = names_of([item_expr])
    user = pl.struct(keys) if len(keys) > 1 else keys[0]
    lazy = lazy.select(item_expr, user.alias("__lodestar_user"))
    by = "__lodestar_user"
    counts = lazy.group_by(item, maintain_order=True).agg(pl.col(by).n_unique().alias("users"))
    total = lazy.select(pl.col(by).n_unique().alias("n"))
    out = counts.join(total, how="cross", maintain_order="left").select(
        pl.col(item),
        pl.col("users"),
        (pl.col("users") / pl.col("n")).alias("popularity"),
        pl.col("users").rank("dense", descending=True).cast(pl.Int64).alias("popularity_rank"),
    )
    return give_back(out, lazy=was_lazy)


def personalisation(
    frame: Any,
    *,
    by: str | pl.Expr | Sequence[str | pl.Expr],
    item: str | pl.Expr,
    y_score: str | pl.Expr,
    k: int | None = None,
) -> float:
    r"""Personalisation: one minus the mean overlap of two users' lists, over every pair.

    .. math:: 1 - \binom{U}{2}^{-1} \sum_{u < v} \frac{|L_u \cap L_v|}{\sqrt{|L_u| |L_v|}}

    ``L_u``: user ``u``'s top ``k`` items (``|L_u| = min(k, n_u)``); the
    overlap is the cosine of the two lists' 0/1 item vectors (``|L_u & L_v| / k``
    when both hold ``k`` items).  Exact, in one pass: the sum over pairs is
    ``sum over items of ((sum_u a_ui)^2 - sum_u a_ui^2) / 2`` with
    ``a_ui = 1 / sqrt(|L_u|)`` for an item in ``L_u``, so no pair of users is
    visited and no sampling is needed.  Ties at the cut: ``a_ui`` is scaled by
    the chance the item is in, tie orderings independent between users (the
    expected overlap).

    Parameters
    ----------
    frame : polars.DataFrame, polars.LazyFrame or Arrow data
        One row per served item: the user ``by``, the ``item``, its ``y_score``.
    by : str, polars.Expr or a sequence of them
        The user (the list's key): a column, an expression, or several.
    item, y_score : str or polars.Expr
        The served item and its score: columns or expressions.  An item
        appears at most once in a list.
    k : int, default=None
        Each list's top ``k``; None: the whole list.

    Returns
    -------
    float
        In [0, 1]: 1 when no two lists share an item, 0 when all are equal.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {"user": [1, 1, 2, 2, 3, 3], "item": [1, 2, 1, 3, 4, 5], "score": [2, 1] * 3}
    ... )
    >>> lp.personalisation(df, by="user", item="item", y_score="score")
    0.8333333333333334

    One pair of three shares one item of two: ``1 - (1/2) / 3``.
    """
    caller = "personalisation"
    k = check_k(k, caller)
    lazy, _ = check_frame(frame, "frame", caller)
    keys = check_columns(by, "by", caller)
    item_expr = check_column(item, "item", caller)
    score = check_column(y_score, "y_score", caller)
    assert item_expr is not None  # allow_none=False
    assert score is not None
    select_roles(lazy, {"by": keys, "item": [item_expr], "y_score": [score]}, "frame", caller)
    user = pl.struct(keys) if len(keys) > 1 else keys[0]
    data = (
        lazy.select(
            user.alias("by"),
            item_expr.rank("dense").cast(pl.Int64).alias("item") - 1,
            (score + 0).alias("score"),
        )
        .sort("by", maintain_order=True)
        .collect()
    )
    if data.height == 0:
        msg = (
            "The 'frame' parameter of personalisation must hold at least two lists. Got 0 instead."
        )
        raise InvalidParameterError(msg)
    lengths = data.group_by("by", maintain_order=True).len()["len"].to_numpy()
    if lengths.size < 2:
        msg = (
            "The 'frame' parameter of personalisation must hold at least two lists. "
            f"Got {lengths.size} instead."
        )
        raise InvalidParameterError(msg)
    if data.select(pl.struct("by", "item").is_duplicated().any()).item():
        msg = (
            "The 'item' column of personalisation must hold each item at most once per list. "
            "Got a repeated item."
        )
        raise InvalidParameterError(msg)
    scores = data["score"]
    if scores.is_null().any() or not bool(np.isfinite(scores.cast(pl.Float64).to_numpy()).all()):
        msg = "Input y_score contains null, NaN or infinity."
        raise InvalidParameterError(msg)
    return personalisation_value(
        data["item"].to_numpy(), scores.to_numpy(), lengths.astype(np.int64), k=k
    )


__all__ = ["item_popularity", "personalisation"]
