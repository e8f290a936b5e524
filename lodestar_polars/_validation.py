"""Checks of options, made when an expression is built, in scikit-learn's sentences."""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Sequence
from typing import Literal, get_args

import numpy as np

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
        return int(value)  # type: ignore[call-overload]
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
