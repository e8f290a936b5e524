"""The checks of the comparability transforms: options, the state, roles, columns and values.

Shared by :func:`lodestar_polars.fit_comparability`, :func:`lodestar_polars.transform_for_objective`
and the report's objective options (``shrinkage``, ``percentile``, ``comparability_state``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from lodestar_polars._base.validation import (
    check_bool,
    check_column,
    check_columns,
    check_frame,
    check_open_interval,
    names_of,
    select_roles,
)
from lodestar_polars._report.comparability_state import _ITEM_DTYPES, ComparabilityState
from lodestar_polars.exceptions import InvalidParameterError

#: The shrinkage strength (pseudo-count) used when shrinkage is switched on without one.
DEFAULT_SHRINKAGE_STRENGTH = 50.0


def resolve_shrinkage(
    shrinkage: object, shrinkage_strength: object, caller: str
) -> tuple[bool, float]:
    """Whether shrinkage is on, and its strength: decision 0013's rule, in one place.

    ``shrinkage_strength`` set (a float in (0, inf)) switches shrinkage on at that strength;
    ``shrinkage=True`` without one uses :data:`DEFAULT_SHRINKAGE_STRENGTH`; neither: off.
    :func:`transform_for_objective` and :func:`lodestar_polars.ranking_report` both read it.

    Raises
    ------
    InvalidParameterError
        ``shrinkage`` not a bool, or ``shrinkage_strength`` not None nor a float in (0, inf).
    """
    on = check_bool(shrinkage, "shrinkage", caller)
    if shrinkage_strength is None:
        return on, DEFAULT_SHRINKAGE_STRENGTH
    strength = check_open_interval(shrinkage_strength, "shrinkage_strength", caller, 0.0, math.inf)
    return True, strength


def check_exclusive(*, shrinkage: bool, percentile: bool, caller: str) -> None:
    """Refuse shrinkage (on by :func:`resolve_shrinkage`'s rule) together with the percentile."""
    if shrinkage and percentile:
        msg = (
            f"{caller}: shrinkage and percentile are mutually exclusive: the percentile of a "
            "shrunk score looked up in the item's raw score distribution promotes the "
            "small-sample items shrinkage exists to damp; choose one (a shrinkage_strength "
            "switches shrinkage on)."
        )
        raise InvalidParameterError(msg)


def check_state(state: object, caller: str) -> ComparabilityState | None:
    """``state``: a :class:`ComparabilityState` or None; a path is refused with what to do."""
    if state is None or isinstance(state, ComparabilityState):
        return state
    if isinstance(state, (str, Path)):
        msg = (
            f"The 'state' parameter of {caller} must be a ComparabilityState or None. Got the "
            f"path {str(state)!r}: load it first, state=lp.ComparabilityState.load({str(state)!r})."
        )
    else:
        msg = (
            f"The 'state' parameter of {caller} must be a ComparabilityState or None. "
            f"Got {type(state).__name__} instead."
        )
    raise InvalidParameterError(msg)


def _roles(
    scores: object,
    by: object,
    item: object,
    y_score: object,
    caller: str,
    y_true: object = None,
) -> tuple[pl.DataFrame | pl.LazyFrame, list[str], str, str, str | None]:
    """The frame with each role a column of its own name: ``(frame, keys, item, score, truth)``.

    A role given as an expression is computed into a column under its output name
    (``pl.col("s") * 2`` is ``s``); names pass as they are.  A ``DataFrame`` stays a
    ``DataFrame``, Arrow data becomes one, a ``LazyFrame`` stays lazy.
    """
    lf, lazy = check_frame(scores, "scores", caller)
    by_exprs = check_columns(by, "by", caller)
    item_expr = check_column(item, "item", caller)
    score_expr = check_column(y_score, "y_score", caller)
    truth_expr = (
        None
        if y_true is None or isinstance(y_true, (pl.DataFrame, pl.LazyFrame))
        else check_column(y_true, "y_true", caller)
    )
    assert item_expr is not None
    assert score_expr is not None
    roles = {"by": by_exprs, "item": [item_expr], "y_score": [score_expr]}
    if truth_expr is not None:
        roles["y_true"] = [truth_expr]
    select_roles(lf, roles, "scores", caller)
    given = [
        *zip(
            by if isinstance(by, Sequence) and not isinstance(by, str) else [by],
            by_exprs,
            strict=True,
        ),
        (item, item_expr),
        (y_score, score_expr),
        *([(y_true, truth_expr)] if truth_expr is not None else []),
    ]
    computed = [expr for value, expr in given if isinstance(value, pl.Expr)]
    frame: pl.DataFrame | pl.LazyFrame = (
        scores if isinstance(scores, pl.DataFrame) else lf if lazy else lf.collect()
    )
    if computed:
        frame = frame.with_columns(computed)
    truth = None if truth_expr is None else truth_expr.meta.output_name()
    return (
        frame,
        names_of(by_exprs),
        item_expr.meta.output_name(),
        score_expr.meta.output_name(),
        truth,
    )


def _check_columns(schema: Mapping[str, Any], names: Sequence[str], caller: str) -> None:
    missing = [n for n in names if n not in schema]
    if missing:
        msg = (
            f"{caller}: 'scores' has no column {', '.join(map(repr, missing))}; "
            f"its columns are {list(schema)}."
        )
        raise ValueError(msg)


def _check_score_dtype(schema: Mapping[str, Any], score: str, caller: str) -> None:
    dtype = schema[score]
    if not (dtype.is_numeric() or dtype == pl.Boolean):
        msg = f"{caller}: the score column {score!r} must be numeric; it is {dtype}."
        raise ValueError(msg)


def _check_item_dtype(schema: Mapping[str, Any], item: str, caller: str) -> Any:
    dtype = schema[item]
    if isinstance(dtype, (pl.Categorical, pl.Enum)):
        return pl.String
    if str(dtype) in _ITEM_DTYPES:
        return dtype
    msg = f"{caller}: the item column {item!r} must hold integers or strings; it is {dtype}."
    raise ValueError(msg)


def _describe(row: Mapping[str, Any], keys: Sequence[str]) -> str:
    return ", ".join(f"{k}={row[k]!r}" for k in keys)


def _check_finite(df: pl.DataFrame, keys: list[str], score: str, caller: str) -> None:
    bad = df.filter(pl.col(score).is_null() | ~pl.col(score).cast(pl.Float64).is_finite())
    if bad.height:
        row = bad.row(0, named=True)
        msg = (
            f"{caller}: scores must be finite; the list {_describe(row, keys)} has "
            f"{score}={row[score]!r} ({bad.height} such rows)."
        )
        raise ValueError(msg)


def _check_no_nulls(df: pl.DataFrame, names: list[str], caller: str) -> None:
    for name in names:
        n = df[name].null_count()
        if n:
            msg = f"{caller}: the column {name!r} holds {n} null value(s); it must hold none."
            raise ValueError(msg)
