"""scikit-learn's sentences that more than one module says: each written once.

Templates hold ``{}`` where the value goes, so that the NumPy side fills them
with ``str.format`` and the Polars side with ``pl.format``: the same words
whether a group is refused in an expression or a call fails in
:mod:`lodestar_polars.arrays`.
"""

from __future__ import annotations

DIFFERENT_SHAPE = "y_true and y_score have different shape"
NDCG_NEGATIVE = "ndcg_score should not be used on negative y_true values."
NDCG_ONE_DOCUMENT = (
    "Computing NDCG is only meaningful when there is more than 1 document. Got {} instead."
)
FORMAT_NOT_SUPPORTED = "{} format is not supported"
POS_LABEL_FIXED = (
    "Parameter pos_label is fixed to 1 for {} y_true. Do not set pos_label or set pos_label to 1."
)
