"""Exceptions and warnings raised by lodestar_polars."""

from __future__ import annotations

import importlib
import sys


class InvalidParameterError(ValueError, TypeError):
    """An option is outside its domain.

    A subclass of both ``ValueError`` and ``TypeError``, as scikit-learn's
    ``InvalidParameterError`` is, so code written against either catches it.
    """


class UndefinedMetricWarning(UserWarning):
    """The metric is ill-defined on this input (scikit-learn's warning of the same name).

    When scikit-learn has been imported, the warning is raised as a subclass of
    this class and of ``sklearn.exceptions.UndefinedMetricWarning`` (see
    :func:`undefined_metric_warning`), so a filter on either class catches it.
    scikit-learn is never imported for it: a filter on scikit-learn's class
    needs scikit-learn imported already.
    """


def undefined_metric_warning() -> type[UserWarning]:
    """The class to raise :class:`UndefinedMetricWarning` as: caught by scikit-learn's too."""
    sklearn_exceptions = sys.modules.get("sklearn.exceptions")
    theirs = getattr(sklearn_exceptions, "UndefinedMetricWarning", None)
    if not (isinstance(theirs, type) and issubclass(theirs, Warning)):
        return UndefinedMetricWarning
    if theirs not in _BOTH:
        bases = (UndefinedMetricWarning, theirs)
        # shown as UndefinedMetricWarning; pickled by reference to _BOTH_NAME (a
        # warning turned into an error crosses processes, e.g. under joblib)
        namespace = {"__module__": __name__, "__qualname__": _BOTH_NAME}
        _BOTH[theirs] = type("UndefinedMetricWarning", bases, namespace)
    return _BOTH[theirs]


_BOTH_NAME = "_UndefinedMetricWarningAndScikitLearns"


def __getattr__(name: str) -> object:
    """The class of both, looked up by name when a pickled warning is loaded.

    Loading one in a process that has not imported scikit-learn imports it: the
    warning was made where scikit-learn was imported.
    """
    if name == _BOTH_NAME:
        importlib.import_module("sklearn.exceptions")  # only to load such a pickle

        return undefined_metric_warning()
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


_BOTH: dict[type[Warning], type[UserWarning]] = {}
"""The class made for each scikit-learn warning class met (one, unless sklearn is reloaded)."""


class RefusedGroupError(ValueError):
    """:func:`lodestar_polars.evaluate` met a group that a metric cannot score."""


__all__ = [
    "InvalidParameterError",
    "RefusedGroupError",
    "UndefinedMetricWarning",
    "undefined_metric_warning",
]
