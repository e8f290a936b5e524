"""Checks of options, made when an expression is built, in scikit-learn's sentences."""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

import numpy as np
import polars as pl

from lodestar_polars.exceptions import InvalidParameterError


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral)


def check_int(
    value: object, name: str, caller: str, *, allow_none: bool = True, low: int = 1
) -> int | None:
    """An int in [low, inf) of any integer type, or None where allowed.

    As scikit-learn's ``Interval(Integral, low, None)``: ``True`` passes as 1.
    """
    if value is None and allow_none:
        return None
    if _is_int(value) and int(value) >= low:  # type: ignore[call-overload]
        number: int = int(value)  # type: ignore[call-overload]
        return number
    rule = f"an int in the range [{low}, inf)" + (" or None" if allow_none else "")
    msg = f"The {name!r} parameter of {caller} must be {rule}. Got {value!r} instead."
    raise InvalidParameterError(msg)


def check_k(k: object, caller: str, *, allow_none: bool = True) -> int | None:
    """``k``: an int in [1, inf) of any integer type, or None where the function allows it.

    Any size is valid: a ``k`` past the longest group scores the whole group,
    and nothing is built at the size of ``k`` (10**18 and 2**70 as well as 10).
    """
    return check_int(k, "k", caller, allow_none=allow_none)


def check_real(value: object, name: str, caller: str, *, allow_none: bool = True) -> float | None:
    """A finite real number of any numeric type (a bool is not one), or None where allowed."""
    if value is None and allow_none:
        return None
    if (
        isinstance(value, numbers.Real)
        and not isinstance(value, (bool, np.bool_))
        and math.isfinite(value)
    ):
        return float(value)
    rule = "a finite real number" + (" or None" if allow_none else "")
    msg = f"The {name!r} parameter of {caller} must be {rule}. Got {value!r} instead."
    raise InvalidParameterError(msg)


def check_open_interval(value: object, name: str, caller: str, low: float, high: float) -> float:
    """A real number strictly between ``low`` and ``high`` (a bool is not one)."""
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        v = float(value)
        if low < v < high:
            return v
    msg = (
        f"The {name!r} parameter of {caller} must be a float in the range ({low}, {high}). "
        f"Got {value!r} instead."
    )
    raise InvalidParameterError(msg)


def check_option(value: object, name: str, caller: str, options: Sequence[str]) -> str:
    """One of the strings ``options``; the sentence lists them sorted, so it never varies."""
    if isinstance(value, str) and value in options:
        return value
    msg = (
        f"The {name!r} parameter of {caller} must be one of {sorted(options)}. "
        f"Got {value!r} instead."
    )
    raise InvalidParameterError(msg)


def check_log_base(log_base: object, caller: str) -> float:
    """``log_base``: a real number in (0, inf).

    A NumPy float narrower than float64 (``np.float32(2)``) is kept as it is:
    scikit-learn takes ``np.log(log_base)`` in that precision, and so does the
    core's :func:`~lodestar_polars._core.discount.discount`.
    """
    if isinstance(log_base, numbers.Real):
        value = float(log_base)
        if 0.0 < value < math.inf:
            if isinstance(log_base, np.floating) and not isinstance(log_base, float):
                return log_base  # float32 / float16: np.floating is a float to mypy
            return value
    msg = (
        f"The 'log_base' parameter of {caller} must be a float in the range (0.0, inf). "
        f"Got {log_base!r} instead."
    )
    raise InvalidParameterError(msg)


def check_bool(value: object, name: str, caller: str) -> bool:
    """A flag: a Python or NumPy bool, nothing else (1 and 0 are refused)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    msg = (
        f"The {name!r} parameter of {caller} must be an instance of 'bool' or an instance "
        f"of 'numpy.bool'. Got {value!r} instead."
    )
    raise InvalidParameterError(msg)


BinStrategy = Literal["uniform", "quantile"]
"""How calibration bins are cut: equal widths on [0, 1], or at quantiles of the probabilities."""

# the set as scikit-learn 1.9.1 prints it under PYTHONHASHSEED=0 (its order follows hashing)
_STRATEGIES = "{'quantile', 'uniform'}"

ROC_AUC_ONE_CLASS = (
    "Only one class is present in y_true. ROC AUC score is not defined in that case."
)
"""scikit-learn's warning for an AUC over one class (it returns NaN there)."""


def check_strategy(strategy: object, caller: str) -> BinStrategy:
    """``strategy``: ``"uniform"`` or ``"quantile"`` (scikit-learn's sentence)."""
    if isinstance(strategy, str) and strategy in get_args(BinStrategy):
        return strategy  # type: ignore[return-value]
    msg = (
        f"The 'strategy' parameter of {caller} must be a str among {_STRATEGIES}. "
        f"Got {strategy!r} instead."
    )
    raise InvalidParameterError(msg)


def check_n_bins(n_bins: object, caller: str) -> int:
    """``n_bins``: an int in [1, inf) (scikit-learn's sentence)."""
    if isinstance(n_bins, numbers.Integral) and not isinstance(n_bins, bool):
        value = operator.index(n_bins)
        if value >= 1:
            return value
    msg = (
        f"The 'n_bins' parameter of {caller} must be an int in the range [1, inf). "
        f"Got {n_bins!r} instead."
    )
    raise InvalidParameterError(msg)


# ---------------------------------------------------------------------------
# frames and column roles: the input layer every public function shares


def check_frame(frame: object, name: str, caller: str) -> tuple[pl.LazyFrame, bool]:
    """A frame in: ``(the frame as a LazyFrame, whether it came in lazy)``.

    A Polars ``DataFrame`` or ``LazyFrame`` or Arrow data (a ``Table``,
    ``RecordBatch``, ``RecordBatchReader`` or ``pyarrow.dataset.Dataset``, read
    as :func:`lodestar_polars._base.arrow.from_arrow` reads it). Anything else is an
    :class:`~lodestar_polars.InvalidParameterError`. Hand the result back with
    :func:`give_back`, so a LazyFrame in gives a LazyFrame out.

    >>> lazy, was_lazy = check_frame(pl.DataFrame({"a": [1]}), "frame", "f")
    >>> type(lazy).__name__, was_lazy
    ('LazyFrame', False)
    """
    from lodestar_polars._base.arrow import from_arrow

    arrow = from_arrow(frame)
    if arrow is not None:
        frame = arrow
    if isinstance(frame, pl.LazyFrame):
        return frame, arrow is None or isinstance(arrow, pl.LazyFrame)
    if isinstance(frame, pl.DataFrame):
        return frame.lazy(), False
    msg = (
        f"The {name!r} parameter of {caller} must be a polars DataFrame or LazyFrame "
        f"(or Arrow data). Got {type(frame).__name__} instead."
    )
    raise InvalidParameterError(msg)


def give_back(result: pl.LazyFrame, *, lazy: bool) -> Any:
    """``result`` as the caller's frame came in: lazy stays lazy, eager is collected."""
    return result if lazy else result.collect()


def _as_expr(value: object) -> pl.Expr | None:
    if isinstance(value, str):
        return pl.col(value)
    if isinstance(value, pl.Expr):
        return value
    return None


def _output_name(expr: pl.Expr) -> str | None:
    try:
        return expr.meta.output_name()
    except pl.exceptions.ComputeError:  # several outputs (pl.all(), a regex), or none
        return None


def check_column(
    value: object, name: str, caller: str, *, allow_none: bool = False
) -> pl.Expr | None:
    """A role played by one column: a name or an expression with one output name.

    The result is the expression aliased to that name, so the selected column
    is called as the role's column is called (``pl.col("s") * 2`` is ``"s"``).

    >>> check_column(pl.col("s") * 2, "y_score", "f").meta.output_name()
    's'
    """
    if value is None and allow_none:
        return None
    expr = _as_expr(value)
    out = None if expr is None else _output_name(expr)
    if expr is None or out is None:
        rule = "a column name or a polars expression of one column" + (
            " or None" if allow_none else ""
        )
        msg = f"The {name!r} parameter of {caller} must be {rule}. Got {value!r} instead."
        raise InvalidParameterError(msg)
    return expr.alias(out)


def check_columns(value: object, name: str, caller: str) -> list[pl.Expr]:
    """A role played by one or several columns (a group key ``by``): names or expressions.

    One name or expression, or a non-empty sequence of them; each gets its
    output name (see :func:`check_column`); a name given twice is refused.

    >>> [e.meta.output_name() for e in check_columns(["user", pl.col("day")], "by", "f")]
    ['user', 'day']
    """
    items: list[object] = []
    if isinstance(value, (str, pl.Expr)):
        items = [value]
    elif isinstance(value, Sequence) and not isinstance(value, bytes):
        items = list(value)
    exprs = [_as_expr(v) for v in items]
    names = [None if e is None else _output_name(e) for e in exprs]
    if not items or any(n is None for n in names):
        msg = (
            f"The {name!r} parameter of {caller} must be a column name or a polars expression, "
            f"or a non-empty sequence of them. Got {value!r} instead."
        )
        raise InvalidParameterError(msg)
    twice = sorted({n for n in names if names.count(n) > 1})  # type: ignore[type-var]
    if twice:
        msg = f"The {name!r} parameter of {caller} names a column twice: {twice}."
        raise InvalidParameterError(msg)
    return [e.alias(n) for e, n in zip(exprs, names, strict=True)]  # type: ignore[union-attr,arg-type]


def names_of(exprs: Sequence[pl.Expr]) -> list[str]:
    """The output names of expressions made by :func:`check_column` / :func:`check_columns`."""
    return [e.meta.output_name() for e in exprs]


def select_roles(
    frame: pl.LazyFrame, roles: Mapping[str, Sequence[pl.Expr]], frame_name: str, caller: str
) -> pl.Schema:
    """The schema of the role columns, refusing a column the frame lacks, naming the role.

    ``roles`` maps a parameter name to its expressions; a missing column is an
    :class:`~lodestar_polars.InvalidParameterError` naming the parameter, the
    column and the frame's columns.
    """
    columns = frame.collect_schema().names()
    for role, exprs in roles.items():
        for expr in exprs:
            missing = [c for c in expr.meta.root_names() if c not in columns]
            if missing:
                msg = (
                    f"The {role!r} parameter of {caller} names {missing[0]!r}, which is not a "
                    f"column of {frame_name} (its columns: {columns})."
                )
                raise InvalidParameterError(msg)
    try:
        return frame.select(*(e for exprs in roles.values() for e in exprs)).collect_schema()
    except pl.exceptions.PolarsError as err:
        msg = f"{caller}: a column expression cannot be read on {frame_name}: {err}"
        raise InvalidParameterError(msg) from None
