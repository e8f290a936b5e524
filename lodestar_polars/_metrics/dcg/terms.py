"""DCG's terms: the gain of a grade, the discounted sum of a ranking, averaged over ties."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import polars as pl

from lodestar_polars._base.validation import check_option
from lodestar_polars._core.dcg import (
    PATTERN_K,
    normalized,
    tie_averaged_gain,
    tie_pattern_weights,
)
from lodestar_polars._core.discount import (
    Discount,
    cumulative_discount_table,
)
from lodestar_polars._core.ir import exponential_gain
from lodestar_polars._metrics.dcg.ideal import (
    _group_ideal_dcg,
    best_gains,
    entry,
    ideal_of_best_gains,
)
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
        return tie_averaged_dcg(gain, score, k=k, log_base=log_base, discount=discount)
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


def tie_averaged_dcg(
    gain: pl.Expr, score: pl.Expr, *, k: int | None, log_base: float, discount: Discount = "log"
) -> pl.Expr:
    """The group's tie-averaged DCG: :func:`_top_tie_pattern_dcg` up to ``PATTERN_K``, else rows."""
    if k is not None and k <= PATTERN_K:
        return _top_tie_pattern_dcg(gain, score, k=k, log_base=log_base, discount=discount)
    return _over_group(gain, score, lambda _: _tie_averaged_dcg(log_base, k, discount))


def tie_averaged_ndcg(
    gain: pl.Expr, score: pl.Expr, *, k: int, discount: Discount = "log"
) -> pl.Expr:
    """The group's tie-averaged NDCG@k for ``k <= _UNROLLED_K``: over the list-sorted ideal.

    Up to ``PATTERN_K`` the DCG and the ideal share one struct (the ideal from
    the gains the pattern path implodes anyway); beyond, :func:`tie_averaged_dcg`
    over :func:`~lodestar_polars._metrics.dcg.ideal._group_ideal_dcg`.
    """
    if k <= PATTERN_K:
        return _top_tie_pattern_dcg(
            gain, score, k=k, log_base=2.0, discount=discount, normalise=True
        )
    dcg = tie_averaged_dcg(gain, score, k=k, log_base=2.0, discount=discount)
    value: pl.Expr = normalized(dcg, _group_ideal_dcg(gain, k=k, discount=discount))
    return value


_TOP = "__lodestar_top_"


def _top_tie_pattern_dcg(
    gain: pl.Expr,
    score: pl.Expr,
    *,
    k: int,
    log_base: float,
    discount: Discount = "log",
    normalise: bool = False,
) -> pl.Expr:
    """Tie-averaged DCG@k of the group from its top ``k + 1`` rows, for ``k <= PATTERN_K``.

    One limited sort of the group (``sort_by(...).head(k + 1)``, what a
    by-hand NDCG@k costs) gives the top rows as a list read by index; which of them
    tie with the row before is one integer, the tie pattern, and the weight of
    each position's gain under that pattern is read from a table
    (:func:`~lodestar_polars._core.dcg.tie_pattern_weights`), so the tie
    blocks cost no per-group operation.  Only when the last block goes on past
    row ``k`` (row ``k + 1`` ties with row ``k``) are the group's rows read
    again, for that block's gain sum and size.  The terms are added in score
    order, block by block as the NumPy core adds them (docs/performance.md,
    "The expression path"; docs/decisions/0020).  ``normalise``: NDCG, the DCG
    over the ideal of the same imploded gains (the terms and order of
    :func:`~lodestar_polars._metrics.dcg.ideal._group_ideal_dcg`).
    """
    keys, weights, last_above, cut = _pattern_tables(k, log_base, discount)
    patterns = 1 << (k - 1)
    # the score's physical values: the same order and ties, and a Decimal's scaled Int128 has the
    # list arithmetic the last block's difference needs (Polars has none on Decimal lists)
    rows = pl.struct(score.to_physical().alias("score"), gain.alias("gain"))
    # a list of k + 1 rows read by index, not struct fields: see ideal.entry
    top = rows.sort_by(score, descending=True).head(k + 1).implode()
    # the group's rows imploded as one struct, so that a literal score or gain is one per row
    group = pl.struct(top.alias("top"), rows.implode().alias("rows"))

    top_row = entry(pl.field("top"))

    def row(i: int, name: str) -> pl.Expr:
        return top_row(i).struct.field(name)

    def column(name: str) -> pl.Expr:  # one field of the group's rows, as a list
        return pl.field("rows").list.eval(pl.element().struct.field(name))

    # bit i - 1: row i ties with row i - 1; bit k - 1: row k + 1 ties with row k (null past the end)
    bits = [
        pl.when(row(i, "score") == row(i - 1, "score")).then(1 << (i - 1)) for i in range(1, k + 1)
    ]
    fields = group.struct.with_fields(
        **{f"{_TOP}gain{i}": row(i, "gain").fill_null(0.0) for i in range(k)},
        **{_KEY: pl.sum_horizontal(bits).cast(pl.Int64), _LAST: row(k - 1, "score")},
        **({_IDEAL: best_gains(column("gain"))} if normalise else {}),
    )
    key = pl.field(_KEY)

    def at(table: pl.Series) -> pl.Expr:  # a literal's gather is per group in agg: much slower
        return key.replace_strict(keys, table, return_dtype=pl.Float64)

    total = pl.field(f"{_TOP}gain0") * at(weights[0])
    for i in range(1, k):
        total = total + pl.field(f"{_TOP}gain{i}") * at(weights[i])
    # a last block past row k: its gains and size from the group's rows equal to its score, at a
    # difference of 0 (finite scores subtract to 0 only when equal; int64 wraps, never to 0)
    continued = key >= patterns
    equal = (pl.when(continued).then(column("score")) - pl.field(_LAST)).list.eval(
        (pl.element() == 0).cast(pl.Float64)
    )
    block_sum = (pl.when(continued).then(column("gain")) * equal).list.sum()
    last = tie_averaged_gain(block_sum, at(last_above), cut, 0, equal.list.sum())
    value = total + pl.when(continued).then(last).otherwise(0.0)
    if normalise:  # NDCG: the ideal from the same imploded gains
        ideal = ideal_of_best_gains(entry(pl.field(_IDEAL)), k=k, discount=discount)
        value = normalized(value, ideal)
    return fields.struct.with_fields(value.alias(_VALUE)).struct.field(_VALUE)


_KEY, _LAST, _VALUE = "__lodestar_key", "__lodestar_last", "__lodestar_value"
_IDEAL = "__lodestar_ideal"


@functools.lru_cache(maxsize=64)
def _pattern_tables(
    k: int, log_base: float, discount: Discount
) -> tuple[pl.Series, tuple[pl.Series, ...], pl.Series, float]:
    """:func:`tie_pattern_weights` as Series for ``replace_strict``, and ``C[k]``, built once."""
    weights, last_above = tie_pattern_weights(k, log_base, discount)
    with np.errstate(divide="ignore"):
        cut = float(cumulative_discount_table(k, log_base, k, discount)[k])
    keys = pl.Series(np.arange(weights.shape[1], dtype=np.int64))
    return keys, tuple(pl.Series(w) for w in weights), pl.Series(last_above), cut
