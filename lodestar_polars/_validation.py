"""Checks of options, made when an expression is built, in scikit-learn's sentences."""

from __future__ import annotations

import math
import numbers

import numpy as np

from lodestar_polars.exceptions import InvalidParameterError


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral)


def check_k(k: object, caller: str, *, allow_none: bool = True) -> int | None:
    """``k``: an int in [1, inf), or None where the function allows it."""
    if k is None and allow_none:
        return None
    if _is_int(k) and int(k) >= 1:  # type: ignore[call-overload]
        return int(k)  # type: ignore[call-overload]
    rule = "an int in the range [1, inf) or None" if allow_none else "an int in the range [1, inf)"
    msg = f"The 'k' parameter of {caller} must be {rule}. Got {k!r} instead."
    raise InvalidParameterError(msg)


def check_log_base(log_base: object, caller: str) -> float:
    """``log_base``: a real number in (0, inf)."""
    if isinstance(log_base, numbers.Real):
        value = float(log_base)
        if 0.0 < value < math.inf:
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
