"""Type aliases of the public API."""

from __future__ import annotations

import polars as pl

IntoExprColumn = pl.Expr | str
"""A column name, or a Polars expression, that gives one value per row."""

__all__ = ["IntoExprColumn"]
