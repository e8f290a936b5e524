"""Top-k serving over a long frame: the ranked (item, score, rank) rows of each list."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar, cast

import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.validation import (
    check_column,
    check_columns,
    check_k,
    give_back,
    names_of,
    select_roles,
)
from lodestar_polars._base.validation import check_frame as check_validated_frame
from lodestar_polars.exceptions import InvalidParameterError

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def columns_of(by: str | Sequence[str], caller: str) -> list[str]:
    """``by`` as a list of column names (one name or a sequence of names)."""
    names = [by] if isinstance(by, str) else list(by) if isinstance(by, Sequence) else []
    if not names or not all(isinstance(name, str) for name in names):
        msg = (
            f"The 'by' parameter of {caller} must be a column name or a non-empty sequence "
            f"of column names. Got {by!r} instead."
        )
        raise InvalidParameterError(msg)
    return names


def column_name(value: object, name: str, caller: str) -> str:
    """A parameter naming one column: a str."""
    if not isinstance(value, str):
        msg = f"The {name!r} parameter of {caller} must be a column name. Got {value!r}."
        raise InvalidParameterError(msg)
    return value


def require_columns(schema: pl.Schema, names: Sequence[str], frame: str, caller: str) -> None:
    """Refuse a frame that lacks one of ``names``, naming it and listing what is there."""
    for name in names:
        if name not in schema:
            msg = f"{caller}: {frame} has no column {name!r} (its columns: {list(schema.names())})."
            raise ValueError(msg)


def key_repr(row: dict[str, object], keys: Sequence[str]) -> str:
    """A list's key as the errors name it: the value, or a dict of the key columns' values."""
    if len(keys) == 1:
        return repr(row[keys[0]])
    return repr({k: row[k] for k in keys})


def check_score_dtype(schema: pl.Schema, score: str, caller: str) -> None:
    """Refuse a score column that is not numeric (strings are never parsed as numbers)."""
    dtype = schema[score]
    if not dtype.is_numeric():
        msg = f"{caller}: the score column {score!r} must be numeric. Got {dtype}."
        raise ValueError(msg)


def check_one_row_per_item(
    frame: pl.LazyFrame, keys: Sequence[str], item: str, caller: str, name: str
) -> None:
    """Refuse a list holding an item twice, naming the first such (list, item) in key order.

    One pass over the key and item columns (a LazyFrame is read for it once, when called).
    """
    counts = (
        frame.group_by(*keys, item)
        .agg(pl.len().alias("__lp_n"))
        .filter(pl.col("__lp_n") > 1)
        .sort(*keys, item, nulls_last=True)
        .head(1)
        .collect()
    )
    if counts.height:
        row = counts.row(0, named=True)
        msg = (
            f"{caller}: list {key_repr(row, keys)} has item {row[item]!r} more than once "
            f"({row['__lp_n']} rows); {name} must hold one row per (list, item)."
        )
        raise ValueError(msg)


def check_frame(frame: object, name: str, caller: str) -> None:
    """Refuse anything but a Polars DataFrame or LazyFrame (``InvalidParameterError``)."""
    if not isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        msg = (
            f"The {name!r} parameter of {caller} must be a polars DataFrame or LazyFrame. "
            f"Got {type(frame).__name__} instead."
        )
        raise InvalidParameterError(msg)  # a TypeError too


@renamed(score="y_score")
def top_k(
    frame: FrameT,
    k: int,
    *,
    by: str | pl.Expr | Sequence[str | pl.Expr],
    item: str | pl.Expr,
    y_score: str | pl.Expr,
) -> FrameT:
    """The ``k`` best-scored items of each list, ranked: what a recommender serves.

    Parameters
    ----------
    frame : polars.DataFrame, polars.LazyFrame or Arrow data
        One row per (list, candidate item), with the list key column(s), the
        item and its score.  A ``LazyFrame`` stays lazy: the result is a
        ``LazyFrame`` (streaming-friendly: a sort and a window count).
    k : int
        How many items to serve per list; a list with fewer candidates serves
        them all.
    by : str, polars.Expr or sequence of them
        The column(s) naming the list (an entity, or an (entity, occasion) pair).
    item : str or polars.Expr
        The candidate item column.
    y_score : str or polars.Expr
        The score column; higher is better.  (Renamed from ``score`` in 0.2.0;
        the old name works, with a ``FutureWarning``, until 0.3.0.)

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        The ``by`` columns, ``item``, ``y_score`` and ``rank`` (UInt32, 1-based),
        at most ``k`` rows per list, sorted by the list key then ``rank``.  An
        expression's column is named by its output name (``pl.col("s") * 2``
        is ``s``).

    Raises
    ------
    InvalidParameterError
        ``k`` below 1 or not an int; ``by``, ``item`` or ``y_score`` not a column name or
        expression, or naming a column missing from ``frame``; ``frame`` not a frame.
    ValueError
        A score column that is not numeric, a list holding an item twice (the first in key
        order is named).

    Notes
    -----
    Equal scores are broken by item order (the smaller item first), so the
    served list is deterministic and independent of row order.  Null and NaN
    scores rank after every number.  Integer scores are sorted as integers
    (``2**53 + 1`` above ``2**53``), never through a float.  The check that each
    list holds an item once reads the key and item columns when ``top_k`` is
    called, a ``LazyFrame``'s too.  The evaluation in
    :func:`lodestar_polars.ranking_report` does not use this tie-break: it
    averages each metric over the orderings of a tie (docs/decisions/0012).

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {
    ...         "user": [1, 1, 1, 2, 2],
    ...         "item": ["c", "a", "b", "a", "b"],
    ...         "score": [0.2, 0.9, 0.2, 0.1, 0.7],
    ...     }
    ... )
    >>> lp.top_k(df, 2, by="user", item="item", y_score="score")
    shape: (4, 4)
    ┌──────┬──────┬───────┬──────┐
    │ user ┆ item ┆ score ┆ rank │
    │ ---  ┆ ---  ┆ ---   ┆ ---  │
    │ i64  ┆ str  ┆ f64   ┆ u32  │
    ╞══════╪══════╪═══════╪══════╡
    │ 1    ┆ a    ┆ 0.9   ┆ 1    │
    │ 1    ┆ b    ┆ 0.2   ┆ 2    │
    │ 2    ┆ b    ┆ 0.7   ┆ 1    │
    │ 2    ┆ a    ┆ 0.1   ┆ 2    │
    └──────┴──────┴───────┴──────┘
    """
    kk = check_k(k, "top_k", allow_none=False)
    by_exprs = check_columns(by, "by", "top_k")
    item_expr = check_column(item, "item", "top_k")
    score_expr = check_column(y_score, "y_score", "top_k")
    assert item_expr is not None
    assert score_expr is not None
    source, was_lazy = check_validated_frame(frame, "frame", "top_k")
    roles = {"by": by_exprs, "item": [item_expr], "y_score": [score_expr]}
    schema = select_roles(source, roles, "frame", "top_k")
    keys: list[str] = names_of(by_exprs)
    [item_name, score] = names_of([item_expr, score_expr])
    lazy = source.select(*by_exprs, item_expr, score_expr)
    check_score_dtype(schema, score, "top_k")
    check_one_row_per_item(lazy, keys, item_name, "top_k", "frame")
    key = "__lp_sort_score"
    dtype = schema[score]
    # integers are sorted as integers (2**53 + 1 is above 2**53), never through a float
    sort_key = pl.col(score).fill_nan(None) if dtype.is_float() else pl.col(score)
    ranked = (
        lazy.with_columns(sort_key.alias(key))
        .sort(
            [*keys, key, item_name],
            descending=[False] * len(keys) + [True, False],
            nulls_last=True,
        )
        .with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.UInt32).over(keys).alias("rank"))
        .filter(pl.col("rank") <= kk)
        .drop(key)
    )
    return cast("FrameT", give_back(ranked, lazy=was_lazy))
