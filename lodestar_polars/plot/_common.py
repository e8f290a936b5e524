"""What the plots share: matplotlib's import, a figure's axes, the run and metric columns."""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import polars as pl

from lodestar_polars._base.deprecation import RENAMED_IN
from lodestar_polars._base.validation import (
    check_column,
    check_frame,
    select_roles,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure


P = ParamSpec("P")
R = TypeVar("R")


def _figure(ncols: int = 1, width: float = 6.0) -> tuple[Figure, Any]:
    try:
        from matplotlib.figure import Figure  # noqa: PLC0415
    except ImportError as exc:  # pragma: no cover (the test extra has matplotlib)
        msg = 'lodestar_polars.plot needs matplotlib: pip install "lodestar-polars[plot]"'
        raise ImportError(msg) from exc
    figure = Figure(figsize=(width * ncols, 4.0), layout="constrained")
    axes = figure.subplots(1, ncols, squeeze=False)[0]
    return figure, axes


def _require(frame: object, columns: Sequence[str], caller: str) -> pl.DataFrame:
    """The frame to draw: a DataFrame, a LazyFrame (collected) or Arrow data, with ``columns``."""
    lazy, _ = check_frame(frame, "frame", caller)
    frame = lazy.collect()
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        msg = f"{caller}: the frame has no column {missing[0]!r} (columns: {frame.columns})"
        raise ValueError(msg)
    if frame.is_empty():
        msg = f"{caller}: the frame has no rows"
        raise ValueError(msg)
    return frame


def _roles(
    frame: object,
    caller: str,
    required: dict[str, object],
    optional: dict[str, object] | None = None,
) -> tuple[pl.LazyFrame, list[str], list[str | None]]:
    """The frame, and its roles as column names: each given as a name or a Polars expression.

    An expression plays its role under its output name (``pl.col("ndcg@10").alias("ndcg")``);
    one that is not a plain column is computed into that column first, a column it reads that
    the frame lacks refused naming the role.  Names pass as they are (:func:`_require` names a
    missing one).  ``optional`` roles may be None (absent).
    """
    names: dict[str, str | None] = {}
    computed: dict[str, pl.Expr] = {}
    given = {**required, **(optional or {})}
    for role, value in given.items():
        expr = check_column(value, role, caller, allow_none=role not in required)
        name = None if expr is None else expr.meta.output_name()
        names[role] = name
        if (
            expr is not None
            and isinstance(value, pl.Expr)
            and not (value.meta.is_column() and value.meta.output_name() == name)
        ):
            computed[role] = expr
    lazy, _ = check_frame(frame, "frame", caller)
    if computed:
        select_roles(lazy, {role: [e] for role, e in computed.items()}, "the frame", caller)
        lazy = lazy.with_columns(list(computed.values()))
    must = [str(names[role]) for role in required]
    return lazy, must, [names[role] for role in optional or {}]


def _runs(frame: pl.DataFrame, run: str) -> list[Any]:
    return frame.get_column(run).unique(maintain_order=True).to_list()


def _runs_moved_to_run(function: Callable[P, R]) -> Callable[P, R]:
    """``precision_recall_curve``'s ``by`` named the runs before 0.2.0; it names the queries now.

    An old call with both ``by`` (runs) and ``query`` is read as ``run=by,
    by=query``; a call with ``by`` and no ``run`` (nor ``query``) cannot be told
    apart from a new one, so it warns that the meaning changed (``run=None``
    says it is meant).  Both with a ``FutureWarning``.
    """

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        if "run" not in kwargs and kwargs.get("by") is not None:
            if "query" in kwargs:
                kwargs["run"] = kwargs.pop("by")
                kwargs["by"] = kwargs.pop("query")
                msg = (
                    f"{function.__name__}: `by` names the query column and `query` is renamed "
                    f"`by` (lodestar_polars {RENAMED_IN}); the runs go in `run`. Read as "
                    f"run={kwargs['run']!r}, by={kwargs['by']!r}."
                )
            else:
                msg = (
                    f"{function.__name__}: `by` names the query column since lodestar_polars "
                    f"{RENAMED_IN} (it named the runs before); the runs go in `run`. Pass "
                    "run=None to say by= is the query column."
                )
            warnings.warn(msg, FutureWarning, stacklevel=2)
        return function(*args, **kwargs)

    wrapper.__signature__ = inspect.signature(function)  # type: ignore[attr-defined]
    return wrapper


def _check_scores(frame: pl.DataFrame, y_score: str, run: str | None, caller: str) -> None:
    """A numeric score on every row, finite: scikit-learn's sentences, then where."""
    dtype = frame.schema[y_score]
    if not dtype.is_numeric():
        msg = f"{caller}: the score column {y_score!r} must be numeric; it is {dtype}"
        raise ValueError(msg)
    score = pl.col(y_score).cast(pl.Float64)
    for what, bad in (
        ("NaN", score.is_null() | score.is_nan()),
        ("infinity or a value too large for dtype('float64')", score.is_infinite()),
    ):
        rows = frame.filter(bad)
        if rows.height:
            where = "" if run is None else f", the first in group {rows[run][0]!r}"
            msg = (
                f"Input contains {what}. {caller}: the score column {y_score!r} has "
                f"{rows.height} {'null or NaN' if what == 'NaN' else 'infinite'} value(s)"
                f"{where}; such a row has no place in a ranking: drop it or give it a score."
            )
            raise ValueError(msg)
