"""Elementary functions for both array kinds the row formulas see.

A NumPy array (or scalar) goes through the NumPy ufunc; anything else that
has the method of that name (a Polars expression) uses its own method, so a
Polars expression stays native (a NumPy ufunc applied to an expression would
become a Python callback).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _dispatch(x: Any, method: str, ufunc: np.ufunc) -> Any:
    if isinstance(x, (np.ndarray, np.generic, int, float)):
        return ufunc(x)
    return getattr(x, method)()


def log(x: Any) -> Any:
    """Natural logarithm."""
    return _dispatch(x, "log", np.log)


def log1p(x: Any) -> Any:
    """``ln(1 + x)``."""
    return _dispatch(x, "log1p", np.log1p)


def exp(x: Any) -> Any:
    """``e ** x``."""
    return _dispatch(x, "exp", np.exp)


def clip(x: Any, lower: float | None = None, upper: float | None = None) -> Any:
    """``x`` limited to ``[lower, upper]`` (``None``: no bound on that side).

    One call, so an expression passed in is evaluated once (inside
    ``group_by().agg()`` Polars evaluates a subexpression once per use).
    """
    if isinstance(x, (np.ndarray, np.generic, int, float)):
        return np.clip(x, lower, upper)
    return x.clip(lower, upper)
