"""Positional discounts: the one home of ``1 / log_b(position + 2)``.

Two discounts (``discount=``): ``"log"``, ``1 / log_b(rank + 1)`` with the
1-based ``rank = position + 1`` (scikit-learn, trec_eval, ranx, RecTools), and
``"lenskit"``, ``1 / log_b(max(rank, 2))`` (LensKit's ``LogRankWeight``: the
first two ranks both weigh 1 in base 2, Järvelin and Kekäläinen's original).
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from lodestar_polars._core._ops import clip, log

Discount = Literal["log", "lenskit"]
DISCOUNTS: tuple[Discount, ...] = ("log", "lenskit")


def discount(position: Any, log_base: float, kind: Discount = "log") -> Any:
    """Discount of a 0-based ``position``, as scikit-learn computes it.

    ``1 / (ln(position + 2) / ln(log_base))``: the natural-log ratio first,
    then the reciprocal (not ``1 / log2``), so the values are bit-identical
    to ``sklearn.metrics._ranking._dcg_sample_scores``.  Works on NumPy arrays
    and on Polars expressions alike.

    ``kind="lenskit"``: ``ln(log_base) / ln(max(position + 1, 2))``, LensKit's
    ``LogRankWeight`` (``np.log(base) / np.log(np.maximum(ranks, 2))``) written
    the same way.
    """
    if kind == "lenskit":
        return _ln(log_base) / log(clip(position + 1.0, lower=2.0))
    return 1.0 / (log(position + 2.0) / _ln(log_base))


def _ln(log_base: float) -> float:
    """``ln(log_base)``; a float32 base's in float32, as scikit-learn's ``np.log(log_base)``."""
    if isinstance(log_base, float):
        return math.log(log_base)
    return float(np.log(log_base))


def cut_discount(position: Any, log_base: float, k: int | None, kind: Discount = "log") -> Any:
    """:func:`discount`, set to zero at positions ``>= k`` (``k=None``: no cut)."""
    d = discount(position, log_base, kind)
    if k is None:
        return d
    return d * (position < k)


def reciprocal_discount(position: Any, k: int | None) -> Any:
    """``1 / (position + 1)``, zero at positions ``>= k``: the reciprocal-rank weight."""
    w = 1.0 / (position + 1.0)
    if k is None:
        return w
    return w * (position < k)


def cumulative_discount_table(
    n: int, log_base: float, k: int | None, kind: Discount = "log"
) -> np.ndarray:
    """``C`` with ``C[m]`` = the sum of the (cut) discounts of positions ``0..m-1``.

    ``C[0] == 0``; the sum is NumPy's ``cumsum`` as in scikit-learn, so the
    differences ``C[b] - C[a]`` are the exact discount sums of a tie group.
    """
    d = cut_discount(np.arange(n, dtype=np.float64), log_base, k, kind)
    out = np.zeros(n + 1, dtype=np.float64)
    np.cumsum(d, out=out[1:])
    return out
