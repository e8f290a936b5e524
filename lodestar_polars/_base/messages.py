"""scikit-learn's sentences that more than one module says: each written once.

Templates hold ``{}`` where the value goes, so that the NumPy side fills them
with ``str.format`` and the Polars side with ``pl.format``: the same words
whether a group is refused in an expression or a call fails in
:mod:`lodestar_polars.arrays`.
"""

from __future__ import annotations

from typing import Any

import polars as pl

DIFFERENT_SHAPE = "y_true and y_score have different shape"
NDCG_NEGATIVE = "ndcg_score should not be used on negative y_true values."
NDCG_ONE_DOCUMENT = (
    "Computing NDCG is only meaningful when there is more than 1 document. Got {} instead."
)
FORMAT_NOT_SUPPORTED = "{} format is not supported"
POS_LABEL_FIXED = (
    "Parameter pos_label is fixed to 1 for {} y_true. Do not set pos_label or set pos_label to 1."
)


def python_text(value: Any) -> Any:
    """A number as Python's ``repr`` writes it, as a Polars string expression.

    scikit-learn's sentences are f-strings, so a value in them reads as Python
    writes it (``1e-05``, ``1.5e-07``, ``nan``); Polars writes ``0.00001``,
    ``1.5e-7`` and ``NaN``. Both print the shortest digits that read back, so
    only the layout differs: exponents from -5 to -9 and NaN. Integers and
    strings pass unchanged.
    """
    return (
        value.cast(pl.String)
        .str.replace(r"^(-?)0\.0000([1-9])$", "${1}${2}e-05")
        .str.replace(r"^(-?)0\.0000([1-9])([0-9]+)$", "${1}${2}.${3}e-05")
        .str.replace(r"e([+-])([0-9])$", "e${1}0${2}")
        .str.replace(r"^NaN$", "nan")
    )
