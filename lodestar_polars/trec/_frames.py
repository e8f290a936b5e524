"""Checking a run's and a qrels' frames: columns, types and values, as trec_eval reads them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from lodestar_polars._base.arrow import from_arrow

Source = str | Path | pl.DataFrame | pl.LazyFrame


_LINE, _TEXT = "__lodestar_line", "__lodestar_text"


# --------------------------------------------------------------------------- evaluating
def _lazy(source: Source, reader: Callable[[str | Path], pl.LazyFrame], role: str) -> pl.LazyFrame:
    arrow = from_arrow(source)
    if arrow is not None:
        source = arrow
    if isinstance(source, (str, Path)):
        return reader(source)
    if isinstance(source, (pl.DataFrame, pl.LazyFrame)):
        return _check_frame_values(source.lazy(), role, "score" if role == "run" else "rel")
    msg = (
        f"`{role}` must be a path, a polars DataFrame/LazyFrame or Arrow data (Table, "
        f"RecordBatch, RecordBatchReader, Dataset), got {type(source).__name__}"
    )
    raise TypeError(msg)


def _select(lf: pl.LazyFrame, role: str, columns: dict[str, Any]) -> pl.LazyFrame:
    schema = lf.collect_schema()
    for column in columns:
        if column not in schema:
            msg = f"`{role}` has no {column!r} column (columns: {list(schema)})"
            raise ValueError(msg)
    return lf.select(pl.col(c).cast(dtype) for c, dtype in columns.items())


def _check_frame_values(lf: pl.LazyFrame, role: str, value: str) -> pl.LazyFrame:
    """A frame's score and relevance, under the rules a file's are read by.

    A score must be a number, and a relevance an integer: a relevance of 0.5
    in a file is refused with ``path:line:``, so in a frame it is refused with
    ``row N`` (1-based), never truncated by a cast.  Only the column read is
    checked (``value``: ``score`` in a run, ``rel`` in qrels); the ids are
    checked to be scalars.
    """
    schema = lf.collect_schema()
    for column in ("qid", "docno"):
        if column in schema and (schema[column].is_nested() or schema[column] == pl.Object):
            msg = (
                f"`{role}` column {column!r} must hold ids (text or numbers), "
                f"found dtype {schema[column]}"
            )
            raise ValueError(msg)
    dtype = schema.get(value)
    if dtype is not None and not (dtype.is_numeric() or dtype == pl.Boolean):
        rule = "numbers" if value == "score" else "integers"
        msg = f"`{role}` column {value!r} must hold {rule}, found dtype {dtype}"
        raise ValueError(msg)
    if value != "rel" or dtype is None or dtype == pl.Boolean:
        return lf
    if dtype.is_integer() and dtype != pl.UInt64:
        return lf
    rel = pl.col("rel")
    if dtype == pl.UInt64:
        bad_value, rule = rel > 2**63 - 1, "does not fit in a 64-bit integer"
    elif dtype.is_float():
        bad_value, rule = ~rel.is_finite() | (rel != rel.floor()), "is not an integer"
    else:  # Decimal: its fraction would be cut by the cast to Int64
        bad_value, rule = rel != rel.floor(), "is not an integer"
    bad = (
        lf.with_row_index("__row", offset=1)
        .filter(rel.is_not_null() & bad_value)
        .select("__row", "rel")
        .head(1)
        .collect()
    )
    if not bad.is_empty():
        row, value = bad.row(0)
        msg = f"`{role}` row {row}: relevance {value!r} {rule}"
        raise ValueError(msg)
    return lf


def _check_frame(df: pl.DataFrame, role: str) -> None:
    """Nulls, bad scores and documents listed twice in one query."""
    for column in df.columns:
        nulls = df.filter(pl.col(column).is_null())
        if not nulls.is_empty():
            msg = f"`{role}` has a null {column} (query {nulls['qid'][0]!r})"
            raise ValueError(msg)
    if "score" in df.columns:
        bad = df.filter(~pl.col("score").is_finite())
        if not bad.is_empty():
            row = bad.row(0, named=True)
            msg = (
                f"`{role}`: score {row['score']!r} of document {row['docno']!r} in query "
                f"{row['qid']!r} is not a finite number"
            )
            raise ValueError(msg)
    dup = df.filter(pl.struct("qid", "docno").is_duplicated())
    if not dup.is_empty():
        row = dup.row(0, named=True)
        msg = f"`{role}` lists document {row['docno']!r} twice for query {row['qid']!r}"
        raise ValueError(msg)
