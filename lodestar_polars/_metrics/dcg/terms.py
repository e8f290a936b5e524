"""DCG's terms: the gain of a grade, the discounted sum of a ranking, averaged over ties."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from lodestar_polars._base.validation import check_option
from lodestar_polars._core.discount import (
    Discount,
)
from lodestar_polars._core.ir import exponential_gain
from lodestar_polars._metrics.expr import (
    Check,
    Fields,
    as_float,
    discount_at,
    empty_check,
    finite_checks,
    over_rows,
    row_index,
    tie_averaged_terms,
)
from lodestar_polars._metrics.ties import Ties, later_row_first
from lodestar_polars.typing import IntoExprColumn

GAINS = ("linear", "exponential")


def _gain(y_true: IntoExprColumn, gain: object, caller: str) -> tuple[pl.Expr, tuple[Check, ...]]:
    """The gain of each row as Float64 (the relevance, or ``2 ** relevance - 1``) and its checks.

    The checks read the relevance as given, not the gain: ``2 ** -inf - 1`` is
    a finite -1, and an infinite relevance must be refused under every gain,
    for the reason scikit-learn gives.  A finite relevance whose exponential
    gain overflows Float64 is refused in the same words.
    """
    check_option(gain, "gain", caller, GAINS)
    relevance = as_float(y_true)
    checks = finite_checks(relevance, "y_true")
    if gain == "linear":
        return relevance, checks
    g = exponential_gain(relevance)
    # a relevance whose gain overflows (2 ** 1024) is "a value too large", in the same words
    null, nan, infinite = checks
    overflow = g.is_infinite()  # an infinite relevance is in the null rule's row flag already
    return g, (
        null,
        nan,
        Check((overflow | relevance.is_infinite()).any(), infinite.message, overflow),
    )


def _checks(gain_checks: tuple[Check, ...], score: pl.Expr) -> tuple[Check, ...]:
    """The opening checks of :func:`input_checks`, with the relevance's own from :func:`_gain`."""
    return (empty_check(), *gain_checks, *finite_checks(score, "y_score"))


def _dcg_value(
    gain: pl.Expr,
    score: pl.Expr,
    *,
    k: int | None,
    log_base: float,
    ignore_ties: bool,
    ties: Ties,
    discount: Discount = "log",
) -> pl.Expr:
    if ignore_ties:
        ordered = later_row_first(gain, score)
    elif ties.averaged:
        return _over_group(gain, score, lambda _: _tie_averaged_dcg(log_base, k, discount))
    else:
        ordered = ties.order(gain)
    return (ordered * discount_at(log_base, k, discount)(row_index())).sum()


def _over_group(gain: pl.Expr, score: pl.Expr, value: Callable[[Fields], pl.Expr]) -> pl.Expr:
    """``value`` of the group's rows (fields ``gain`` and ``score``), evaluated in ``list.eval``."""
    return over_rows({"gain": gain, "score": score}, value).list.first()


def _tie_averaged_dcg(log_base: float, k: int | None, discount: Discount = "log") -> pl.Expr:
    """Tie-averaged DCG of the group's rows, in :func:`over_rows` (fields ``gain``, ``score``).

    Each row's share, summed in row order.  With ``k`` only the rows scoring
    at least the ``k``-th highest score can weigh (every other row has ``k`` or
    more rows above it, its discounts cut to 0): the shares are those rows',
    from :func:`tie_averaged_terms`, and the zero shares of the others are not
    added (docs/performance.md, "The expression path").
    """
    return tie_averaged_terms(pl.element(), log_base, k, discount).sum()
