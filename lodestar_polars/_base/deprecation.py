"""Renamed parameters: the old name keeps working for one release, with a ``FutureWarning``.

One decorator for every public function (as Polars' ``deprecate_renamed_parameter``):
the signature, ``help()`` and the API reference show only the new names, and a call
with an old name warns once per call, naming the new one, then runs as if the new
name had been written.

>>> import warnings
>>> @renamed(score="y_score")
... def top(*, y_score: str) -> str:
...     return y_score
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     top(score="s")
's'
>>> print(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
top: the parameter `score` is renamed `y_score` (lodestar_polars 0.2.0);
`score` will be removed in 0.3.0
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from lodestar_polars.exceptions import InvalidParameterError

P = ParamSpec("P")
R = TypeVar("R")

#: The release that renamed the parameters, and the one that drops the old names.
RENAMED_IN = "0.2.0"
REMOVED_IN = "0.3.0"


def renamed(**renames: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Accept each ``old=new`` keyword's old name, warning that it is renamed.

    Passing both the old and the new name is an error
    (:class:`~lodestar_polars.InvalidParameterError`), as is an old name the
    function would not know.
    """

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        parameters = inspect.signature(function).parameters
        for old, new in renames.items():
            if new not in parameters or old in parameters:  # pragma: no cover - a code bug
                msg = f"{function.__qualname__}: cannot rename {old!r} to {new!r}"
                raise AssertionError(msg)

        @functools.wraps(function)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            for old, new in renames.items():
                if old not in kwargs:
                    continue
                if new in kwargs:
                    msg = (
                        f"{function.__name__}: pass `{new}` only (`{old}` is its old name); "
                        f"got both `{old}` and `{new}`"
                    )
                    raise InvalidParameterError(msg)
                warnings.warn(
                    f"{function.__name__}: the parameter `{old}` is renamed `{new}` "
                    f"(lodestar_polars {RENAMED_IN}); `{old}` will be removed in {REMOVED_IN}",
                    FutureWarning,
                    stacklevel=2,
                )
                kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        wrapper.__signature__ = inspect.signature(function)  # type: ignore[attr-defined]
        wrapper.__renamed__ = dict(renames)  # type: ignore[attr-defined]
        return wrapper

    return decorate
