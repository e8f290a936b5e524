"""What ``lp.ranking_report`` reads: Parquet paths and Arrow data, roles as expressions (19, 20).

``scores`` may be a Parquet path (a ``str`` or ``os.PathLike``, a directory or a glob, or a list of
them: scanned, so a large log is read once in parts of whole lists, never whole), or Arrow data read
as :func:`lodestar_polars.evaluate` reads it (:func:`lodestar_polars._base.arrow.from_arrow`: a
``Table`` or ``RecordBatch`` without a copy, a ``RecordBatchReader`` read whole, a
``pyarrow.dataset.Dataset`` scanned as a ``LazyFrame``). The roles ``item``, ``y_score`` and
``groups`` take a column name or a Polars expression
(:func:`~lodestar_polars._base.validation.check_column`): an expression is computed into a column
under its output name before anything else reads the frame, so the rest of the report reads column
names only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from lodestar_polars._base.arrow import from_arrow
from lodestar_polars._base.validation import select_roles
from lodestar_polars.exceptions import InvalidParameterError

_GLOB = frozenset("*?[")


def scores_frame(scores: object, caller: str) -> pl.DataFrame | pl.LazyFrame:
    """``scores`` as a Polars frame: a frame as it is, Parquet path(s) scanned, Arrow data read.

    A path that names no file (and is no glob) is a ``FileNotFoundError`` naming it; anything
    else that is not a frame is an :class:`~lodestar_polars.InvalidParameterError`.
    """
    if isinstance(scores, (pl.DataFrame, pl.LazyFrame)):
        return scores
    paths: list[str] | None = None
    if isinstance(scores, (str, os.PathLike)):
        paths = [str(os.fspath(scores))]
    elif (
        isinstance(scores, Sequence)
        and not isinstance(scores, (str, bytes))
        and scores
        and all(isinstance(p, (str, os.PathLike)) for p in scores)
    ):
        paths = [str(os.fspath(p)) for p in scores]
    if paths is not None:
        for path in paths:
            if not (_GLOB & set(path)) and not Path(path).exists():
                msg = f"{caller}: scores names the Parquet path {path!r}, which does not exist."
                raise FileNotFoundError(msg)
        return pl.scan_parquet(paths if len(paths) > 1 else paths[0])
    arrow = from_arrow(scores)
    if arrow is not None:
        return arrow
    msg = (
        f"The 'scores' parameter of {caller} must be a polars DataFrame or LazyFrame. "
        f"Got {type(scores).__name__} instead. (Arrow data, a pyarrow Table, RecordBatch, "
        "RecordBatchReader or Dataset, and Parquet paths, a str or os.PathLike or a list of "
        "them, are read too.)"
    )
    raise InvalidParameterError(msg)


def computed(given: Mapping[str, tuple[object, pl.Expr | None]]) -> dict[str, pl.Expr]:
    """The roles given as an expression that is not a plain column under its own name."""
    out: dict[str, pl.Expr] = {}
    for role, (value, expr) in given.items():
        if expr is None or not isinstance(value, pl.Expr):
            continue
        if value.meta.is_column() and value.meta.output_name() == expr.meta.output_name():
            continue  # pl.col("score"): the column itself
        out[role] = expr
    return out


def with_roles(
    scores: pl.DataFrame | pl.LazyFrame, exprs: Mapping[str, pl.Expr], caller: str
) -> pl.DataFrame | pl.LazyFrame:
    """``scores`` with each role's expression computed under its output name.

    A column an expression reads that ``scores`` lacks is refused naming the role
    (:func:`~lodestar_polars._base.validation.select_roles`); an eager frame stays eager.
    """
    if not exprs:
        return scores
    select_roles(scores.lazy(), {role: [e] for role, e in exprs.items()}, "scores", caller)
    return scores.with_columns(list(exprs.values()))


def with_item(frame: Any, item_expr: pl.Expr | None) -> Any:
    """A side frame (``y_true``, ``train``, ``popularity``) given the ``item`` expression's column.

    Only where it reads columns the frame has and the frame lacks the output column; otherwise
    the frame as it is (its own ``item`` column, or the report's sentence naming the one missing).
    """
    if item_expr is None or not isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        return frame
    schema = frame.lazy().collect_schema()
    name = item_expr.meta.output_name()
    if name in schema or not all(c in schema for c in item_expr.meta.root_names()):
        return frame
    return frame.with_columns(item_expr)
