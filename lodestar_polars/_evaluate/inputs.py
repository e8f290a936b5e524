"""The inputs ``lp.evaluate`` gives a metric besides ``y_true`` and ``y_score``.

The beyond-accuracy entries read per-row columns (:attr:`MetricSpec.inputs`:
``popularity``, ``feature``, ``popularity_rank``) and a number (``n_items``).
:func:`check_inputs` refuses a metric whose input is not given, and an input no
metric asked for reads; :func:`ranked_inputs` gives the cores each column as a
NumPy array in the rows' ranked order (a category as integer codes, an
embedding as a matrix, one row per row).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from lodestar_polars._registry import REGISTRY, MetricSpec
from lodestar_polars.exceptions import InvalidParameterError

if TYPE_CHECKING:
    from lodestar_polars._evaluate.roles import _Roles

WHAT: Mapping[str, str] = MappingProxyType(
    {
        "popularity": "each served item's training popularity, a column",
        "feature": "each served item's category or embedding, a column",
        "popularity_rank": "each served item's popularity rank in training, a column",
        "n_items": "the catalogue's size, a number",
    }
)
"""What each input is, as the refusals say it."""


def _given(role: str, roles: _Roles) -> bool:
    return roles.n_items is not None if role == "n_items" else role in roles.inputs


def check_inputs(text: str, spec: MetricSpec, roles: _Roles) -> None:
    """Refuse a metric name whose inputs are not all given, naming the first missing role."""
    for role in spec.inputs:
        if not _given(role, roles):
            msg = (
                f"metric {text!r}: {spec.name} reads `{role}` ({WHAT[role]}): "
                f"give it as evaluate({role}=...)"
            )
            raise InvalidParameterError(msg)


def check_inputs_read(roles: _Roles, specs: Sequence[MetricSpec]) -> None:
    """Refuse an input given that no metric asked for reads (it would be ignored)."""
    for role in WHAT:
        if _given(role, roles) and not any(role in spec.inputs for spec in specs):
            reads = [s.name for s in REGISTRY if role in s.inputs]
            msg = f"`{role}` is read by {reads} only, and no metric asked for is one of them"
            raise InvalidParameterError(msg)


def feature_options(text: str, roles: _Roles, options: dict[str, Any]) -> Any:
    """The feature as the builder reads it, and ``dim`` set in ``options`` for an embedding.

    An ``Array`` column gives its width; a ``List`` column needs the length in
    the name (``ild(dim=4)@10``); any other column is a category.
    """
    column, dtype = roles.inputs["feature"], roles.feature_dtype
    if isinstance(dtype, pl.Array):
        if options.setdefault("dim", dtype.size) != dtype.size:
            msg = (
                f"metric {text!r}: dim={options['dim']}, but `feature` column {column!r} "
                f"holds arrays of {dtype.size} values"
            )
            raise InvalidParameterError(msg)
        return pl.col(column).arr.to_list()
    if isinstance(dtype, pl.List):
        if "dim" not in options:
            msg = (
                f"metric {text!r}: `feature` column {column!r} holds lists (embeddings): write "
                "their length in the name, as 'ild(dim=4)@10', or cast the column to an Array"
            )
            raise InvalidParameterError(msg)
    elif "dim" in options:
        msg = (
            f"metric {text!r}: dim= is an embedding's length, but `feature` column {column!r} "
            f"holds {dtype}, not lists"
        )
        raise InvalidParameterError(msg)
    return column


def check_input_columns(schema: pl.Schema, inputs: Mapping[str, str]) -> None:
    """The popularity and its rank are numbers; an embedding's values are numbers."""
    for role, column in inputs.items():
        dtype = schema[column]
        if role in ("popularity", "popularity_rank") and not dtype.is_numeric():
            msg = f"`{role}` column {column!r} must be numeric, found dtype {dtype}"
            raise ValueError(msg)
        if isinstance(dtype, (pl.List, pl.Array)) and not dtype.inner.is_numeric():
            msg = f"`{role}` column {column!r} must hold numbers in its lists, found dtype {dtype}"
            raise ValueError(msg)


def _embedding(values: pl.Series) -> np.ndarray:
    """A list or array column as a float matrix, one row per row (short or null lists padded).

    A row of another length than the metric's ``dim`` (or a null) is refused by
    the metric's rules, so its padding is never read.
    """
    if isinstance(values.dtype, pl.Array):
        values = values.arr.to_list()
    lists = values.cast(pl.List(pl.Float64))
    lengths = lists.list.len().fill_null(0)
    width = int(lengths.max() or 0)  # type: ignore[arg-type]
    if not lists.has_nulls() and lengths.min() == width:
        flat = lists.explode().to_numpy()
        if flat.size == width * lists.len():
            return flat.reshape(lists.len(), width)
    columns = [lists.list.get(j, null_on_oob=True).fill_null(0.0).to_numpy() for j in range(width)]
    return np.column_stack(columns) if columns else np.zeros((lists.len(), 0))


def ranked_inputs(
    frame: pl.DataFrame, roles: _Roles, order: np.ndarray | None
) -> Mapping[str, np.ndarray]:
    """Each input column as NumPy, its rows in ranked order (``order``; None: as they are)."""
    out: dict[str, np.ndarray] = {}
    for role, column in roles.inputs.items():
        series = frame.get_column(column)
        if role == "feature":
            if isinstance(series.dtype, (pl.List, pl.Array)):
                values = _embedding(series)
            else:  # a category: its code, by equality (null: refused)
                values = series.rank("dense").fill_null(0).cast(pl.Int64).to_numpy()
        else:
            values = series.cast(pl.Float64).to_numpy()  # null: NaN (refused)
        out[role] = values if order is None else values[order]
    return MappingProxyType(out)
