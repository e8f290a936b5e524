"""Exceptions and warnings raised by lodestar_polars."""

from __future__ import annotations


class InvalidParameterError(ValueError, TypeError):
    """An option is outside its domain.

    A subclass of both ``ValueError`` and ``TypeError``, as scikit-learn's
    ``InvalidParameterError`` is, so code written against either catches it.
    """


class UndefinedMetricWarning(UserWarning):
    """The metric is ill-defined on this input (scikit-learn's warning of the same name)."""


class RefusedGroupError(ValueError):
    """:func:`lodestar_polars.evaluate` met a group that a metric cannot score."""


__all__ = ["InvalidParameterError", "RefusedGroupError", "UndefinedMetricWarning"]
