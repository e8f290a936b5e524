"""The machinery every metric expression shares.

A metric is built as :class:`Metric`: the expression of its value over one
group, and the :class:`Check` rules a group must pass.  The public expression
is the value where every rule passes and null where one fails;
:func:`lodestar_polars.evaluate` also reads the rules to say *why* a group was
refused.  Everything is native Polars: no Python runs per group or per row.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import polars as pl

from lodestar_polars._base.messages import python_text
from lodestar_polars._core.dcg import tie_averaged_gain
from lodestar_polars._core.discount import Discount, cumulative_discount_table, cut_discount
from lodestar_polars.exceptions import InvalidParameterError
from lodestar_polars.typing import IntoExprColumn

FLOAT_DTYPE = "dtype('float64')"

MAX_ROWS = 2**63 - 1
"""More rows than any group holds: a cutoff ``k`` above it is read as it (Polars
takes no larger length), which changes nothing since the whole group makes the cut."""


def parse_into_expr(value: IntoExprColumn) -> pl.Expr:
    """A column name becomes ``pl.col(name)``; an expression is kept as it is.

    An expression must give one value per row of the group (or one value for
    every row, a literal or an aggregate): the rules and several values count
    the group's rows (``pl.len()``), so an input that filters or slices them
    (``pl.col("rel").filter(...)``, ``head``, ``drop_nulls``) would be read
    against the wrong count and give a wrong number; it is refused here, with
    the advice to filter the frame instead.  A scalar is repeated on every row
    (``pl.repeat(value, pl.len())``): left a scalar, a rule or a bin that sums
    it would count it once (``expected_calibration_error("y", pl.lit(0.5))``).
    """
    if isinstance(value, pl.Expr):
        if not (value.meta.is_length_preserving() or value.meta.is_scalar()):
            msg = (
                "expected an expression with one value per row of the group, got "
                f"{value} (it filters or slices the rows); filter the frame instead, "
                "as in df.filter(...).group_by(...).agg(...)"
            )
            raise InvalidParameterError(msg)
        if value.meta.is_scalar():  # a literal or an aggregate: the same value on every row
            return pl.repeat(value, pl.len())
        return value
    if isinstance(value, str):
        return pl.col(value)
    msg = f"expected a column name or a Polars expression, got {value!r}"
    raise TypeError(msg)


def as_float(value: IntoExprColumn) -> pl.Expr:
    """The column as Float64, for values that enter arithmetic (relevance, weights).

    Adding ``0.0`` (rather than casting) makes a string, date or other
    non-numeric column fail when the query is planned, with Polars' message
    naming the column, instead of being parsed into numbers.
    """
    return (parse_into_expr(value) + 0.0).cast(pl.Float64)


def as_score(value: IntoExprColumn) -> pl.Expr:
    """The score column in its own dtype, for values that are only ranked and compared.

    An integer score is never cast to Float64: above 2**53 that cast merges
    neighbouring integers into ties (epoch-nanosecond timestamps as scores),
    where scikit-learn ranks the int64 values as they are.  Adding ``0`` keeps
    the dtype of every numeric column and, like :func:`as_float`, makes a
    non-numeric one fail when the query is planned.  Polars ranks, sorts and
    compares -0.0 and 0.0 as equal, so floats need no normalising.
    """
    return parse_into_expr(value) + 0


Closed = Literal["none", "left", "right", "both"]


@dataclass(frozen=True)
class Within:
    """The per-row rule ``lower <(=) x <(=) upper``: which ends are allowed is ``closed``.

    Polars' ``is_between``: NaN fails an upper bound of ``inf`` (Polars orders
    NaN above every number), a null row gives null, which breaks the rule.
    """

    x: pl.Expr
    lower: float
    upper: float
    closed: Closed = "none"

    def test(self) -> pl.Expr:
        """True for a row inside the range, False outside, null for null."""
        return self.x.is_between(self.lower, self.upper, closed=self.closed)

    def meet(self, other: Within) -> Within:
        """The rows both rules keep, for two rules on the same ``x``: one range test."""
        low_in = self.closed in ("left", "both")
        high_in = self.closed in ("right", "both")
        other_low_in = other.closed in ("left", "both")
        other_high_in = other.closed in ("right", "both")
        if other.lower > self.lower:
            lower, low_in = other.lower, other_low_in
        else:
            lower, low_in = self.lower, low_in and (other.lower < self.lower or other_low_in)
        if other.upper < self.upper:
            upper, high_in = other.upper, other_high_in
        else:
            upper, high_in = self.upper, high_in and (other.upper > self.upper or other_high_in)
        closed: Closed = ("none", "right", "left", "both")[2 * low_in + high_in]
        return Within(self.x, lower, upper, closed)


@dataclass(frozen=True)
class Check:
    """A rule a group must pass: ``refused`` is True for a group that breaks it.

    ``flag``, when set, is a per-row flag whose ``any()`` is True for a group
    that breaks the rule: :meth:`Metric.refused` ORs such flags row-wise and
    aggregates them once, cheaper than one aggregation per rule.  One flag may
    cover several rules (null, NaN and infinity are one range test): the
    rules it covers are marked ``covered`` and add no flag of their own.  The
    flagged rows (:attr:`row`) are the rows some rule is about (the two-stage
    path keeps them).

    ``within``, in place of a flag, is the rule as a range every row must be
    in (:class:`Within`: finite values, gains of at least 0, probabilities in
    [0, 1]).  :meth:`Metric.refused` meets the ranges on the same input into
    one ``is_between``, ANDs them and negates the result once, with one
    ``fill_null``: cheaper than a flag per rule (docs/performance.md, "Fourth
    round").
    """

    refused: pl.Expr
    message: pl.Expr
    flag: pl.Expr | None = None
    covered: bool = False
    within: Within | None = None

    @property
    def row(self) -> pl.Expr | None:
        """The per-row flag: True for a row that breaks the rule (null counts as breaking)."""
        if self.within is not None:
            return ~self.within.test().fill_null(False)
        return self.flag

    @classmethod
    def any_row(cls, flags: pl.Expr, message: pl.Expr) -> Check:
        """The rule "no row is flagged"."""
        return cls(flags.any(), message, flags)

    @classmethod
    def every_row_within(
        cls, x: pl.Expr, lower: float, upper: float, closed: Closed, message: pl.Expr
    ) -> Check:
        """The rule "every row of ``x`` is in the range" (a null row breaks it)."""
        within = Within(x, lower, upper, closed)
        return cls((~within.test().fill_null(False)).any(), message, within=within)


def _met(ranges: list[Within]) -> list[Within]:
    """The ranges with those on the same input met into one (:meth:`Within.meet`)."""
    out: list[Within] = []
    for r in ranges:
        i = next((i for i, o in enumerate(out) if o.x.meta.eq(r.x)), None)
        if i is None:
            out.append(r)
        else:
            out[i] = out[i].meet(r)
    return out


@dataclass(frozen=True)
class Metric:
    """A metric's value over one group and the rules a group must pass."""

    name: str
    value: pl.Expr
    checks: tuple[Check, ...]

    def refused(self) -> pl.Expr:
        """True for a group that breaks a rule (each per-row rule's flag aggregated once)."""
        ranges = _met([c.within for c in self.checks if c.within is not None])
        rows = [c.flag for c in self.checks if c.within is None and c.flag is not None]
        groups = [c.refused for c in self.checks if c.row is None and not c.covered]
        if ranges:
            tests = [r.test() for r in ranges]
            rows.insert(0, ~functools.reduce(operator.and_, tests).fill_null(False))
        if rows:
            groups.append(pl.any_horizontal(*rows).any() if len(rows) > 1 else rows[0].any())
        return pl.any_horizontal(*groups)

    def expr(self) -> pl.Expr:
        """The value, null for a group that breaks a rule, as Float64 named ``name``."""
        return (
            pl.when(self.refused())
            .then(pl.lit(None, dtype=pl.Float64))
            .otherwise(self.value.cast(pl.Float64))
            .alias(self.name)
        )

    def reason(self) -> pl.Expr:
        """The first rule the group breaks, as a sentence; null when none."""
        out: Any = pl.when(self.checks[0].refused).then(self.checks[0].message)
        for check in self.checks[1:]:
            out = out.when(check.refused).then(check.message)
        reason: pl.Expr = out.otherwise(pl.lit(None, dtype=pl.String))
        return reason


def finite_checks(x: pl.Expr, role: str) -> tuple[Check, ...]:
    """Null, NaN and infinity refuse the group, in scikit-learn's ``check_array`` words.

    One range covers the three rules (``-inf < x < inf``: a row that is not
    finite, null included, breaks it), met with the metric's other ranges on
    ``x``: one pass instead of three when only *whether* a group is refused is
    asked; each rule keeps its own test for the reason.
    """
    return (
        Check(
            x.is_null().any(),
            pl.lit(f"Input {role} contains null."),
            within=Within(x, -math.inf, math.inf, "none"),
        ),
        Check(x.is_nan().any(), pl.lit(f"Input {role} contains NaN."), covered=True),
        Check(
            x.is_infinite().any(),
            pl.lit(f"Input {role} contains infinity or a value too large for {FLOAT_DTYPE}."),
            covered=True,
        ),
    )


def empty_check() -> Check:
    """A group must have rows (a filtered expression can leave none)."""
    return Check(pl.len() == 0, pl.lit("the group has no rows."))


def input_checks(
    y_true: pl.Expr, y_score: pl.Expr, *, score_role: str = "y_score"
) -> tuple[Check, ...]:
    """The checks every metric makes first: a non-empty group of finite values.

    ``score_role`` names the second input in the sentences (``"y_prob"`` for
    the probability metrics).
    """
    return (empty_check(), *finite_checks(y_true, "y_true"), *finite_checks(y_score, score_role))


def binary_check(y_true: pl.Expr, caller: str) -> Check:
    """y_true must be boolean: True/False, or the numbers 0 and 1."""
    bad = ~((y_true == 0.0) | (y_true == 1.0))
    return Check.any_row(
        bad,
        pl.format(
            f"{caller} needs a binary y_true (bool, or 0 and 1). Got {{}} instead.",
            python_text(y_true.filter(bad).first()),
        ),
    )


Fields = dict[str, pl.Expr]


def over_rows(inputs: Fields, body: Callable[[Fields], pl.Expr]) -> pl.Expr:
    """``body`` over the rows of the group, as a list per group (sum it with ``.list.sum()``).

    ``body`` gets each input as a field of the group's rows.  The group is
    imploded into one list and ``body`` runs in ``list.eval``, where
    :func:`let` can share a value (``struct.with_fields`` is refused by the
    streaming engine in a group-by, and allowed in ``list.eval``).
    """
    element = {name: pl.element().struct.field(name) for name in inputs}
    return _struct(inputs).implode().list.eval(body(element))


def let(values: Fields, body: Callable[[Fields], pl.Expr]) -> pl.Expr:
    """``body`` of the named ``values``, each evaluated once however often ``body`` reads it.

    Polars does no common-subexpression elimination inside ``group_by().agg()``
    (docs/decisions/0008): a value read twice is computed twice.  Held in a
    struct and read as ``pl.field`` inside ``struct.with_fields``, it is
    computed once.  Use inside :func:`over_rows`.
    """
    fields = {name: pl.field(name) for name in values}
    return _struct(values).struct.with_fields(body(fields).alias(_LET)).struct.field(_LET)


def _struct(values: Fields) -> pl.Expr:
    """A struct of the named values (``pl.struct(**values)``, in the form its stubs type)."""
    return pl.struct([value.alias(name) for name, value in values.items()])


_LET = "__lodestar_let"


def ranks_as_counts(score: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """``(above, through)``: rows scoring strictly higher, and at least as high."""
    above = score.rank("min", descending=True).cast(pl.Int64) - 1
    through = score.rank("max", descending=True).cast(pl.Int64)
    return above, through


def ranks_by_search(rows: pl.Expr) -> pl.Expr:
    """``rows`` (a struct with a ``score`` field) with ``above`` and ``through`` added (Int64).

    The same counts as :func:`ranks_as_counts`, found by two binary searches
    of each score in the group's scores sorted once: inside ``list.eval``
    one sort and two searches cost about half of two ranks on groups of 10
    rows.  Use inside :func:`over_rows`.
    """
    ranked = rows.struct.with_fields(pl.field("score").sort(descending=True).alias(_SORTED))
    sorted_scores, score = pl.field(_SORTED), pl.field("score")
    return ranked.struct.with_fields(
        above=sorted_scores.search_sorted(score, side="left", descending=True).cast(pl.Int64),
        through=sorted_scores.search_sorted(score, side="right", descending=True).cast(pl.Int64),
    )


_SORTED = "__lodestar_sorted"


def top_k_rows(rows: pl.Expr, k: int) -> pl.Expr:
    """The rows (a struct with a ``score`` field) scoring at least the ``k``-th highest score.

    Every row scoring strictly higher than a kept row is kept, so a kept row's
    ``above`` and ``through`` counted among the kept rows are its counts in the
    whole group; a row left out has ``k`` or more rows above it.  The rows
    keep their order.  Use inside :func:`over_rows`.
    """
    score = rows.struct.field("score")
    return rows.filter(score >= score.sort(descending=True).head(k).last())


def tie_averaged_terms(
    rows: pl.Expr, log_base: float, k: int | None, kind: Discount = "log"
) -> pl.Expr:
    """Each row's share of the group's tie-averaged DCG (``rows``: a struct of ``gain``, ``score``).

    With a ``k`` whose discounts are a table, only the rows of :func:`top_k_rows`
    (the others' shares are zero), counted by :func:`ranks_by_search` (about
    ``k`` rows: binary searches are the cheaper there); otherwise every row,
    counted by :func:`ranks_as_counts` (ranks are the cheaper on long groups).
    The shares come in the rows' order, each
    :func:`~lodestar_polars._core.dcg.tie_averaged_gain` of the row's gain and
    its counts.
    """
    if k is not None and k <= _TABLE_K:
        ranked = ranks_by_search(top_k_rows(rows, k))
    else:
        above_rank, through_rank = ranks_as_counts(pl.field("score"))
        ranked = rows.struct.with_fields(above=above_rank, through=through_rank)
    cum = cumulative_discount_at(log_base, k, kind)
    above, through = pl.field("above"), pl.field("through")
    share = tie_averaged_gain(pl.field("gain"), cum(above), cum(through), above, through)
    return ranked.struct.with_fields(share.alias(_LET)).struct.field(_LET)


def row_index() -> pl.Expr:
    """0-based index of each row inside its group."""
    return pl.int_range(pl.len(), dtype=pl.Int64)


def lookup(values: np.ndarray) -> Callable[[pl.Expr], pl.Expr]:
    """Index a small table of floats with an integer expression clipped to its last entry.

    ``replace_strict`` from a literal mapping is one of the cheapest ways to
    read a table inside ``group_by().agg()`` (a per-group ``cum_sum`` and
    ``gather`` costs several times more).
    """
    last = len(values) - 1
    old, new = list(range(last + 1)), [float(v) for v in values]

    def at(index: pl.Expr) -> pl.Expr:
        return index.clip(upper_bound=last).replace_strict(old, new, return_dtype=pl.Float64)

    return at


# The largest ``k`` whose discounts are looked up in a table of ``k + 1`` values;
# past it they are computed per row, so a huge ``k`` builds nothing of its size.
_TABLE_K = 4096


def discount_at(
    log_base: float, k: int | None, kind: Discount = "log"
) -> Callable[[pl.Expr], pl.Expr]:
    """A function mapping a 0-based position to its discount, cut at ``k``.

    With ``k <= _TABLE_K`` the discounts form a table of ``k + 1`` values (the
    last one 0, for every position past the cut), made by the core's
    :func:`cut_discount`; otherwise they are computed per row.
    """
    if k is None or k > _TABLE_K:
        return lambda position: cut_discount(position, log_base, k, kind)
    positions = np.arange(k + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return lookup(cut_discount(positions, log_base, k, kind))


def cumulative_discount_at(
    log_base: float, k: int | None, kind: Discount = "log"
) -> Callable[[pl.Expr], pl.Expr]:
    """A function mapping a count ``m`` to the sum of the cut discounts of positions < m.

    With ``k`` that sum stops growing at ``m = k``: a table of ``k + 1`` values
    from the core's :func:`cumulative_discount_table` (``k <= _TABLE_K``).
    Otherwise it is computed per group, a cumulative sum over the group's
    positions of the (cut) discounts.
    """
    if k is not None and k <= _TABLE_K:
        with np.errstate(divide="ignore"):
            return lookup(cumulative_discount_table(k, log_base, k, kind))
    position = pl.int_range(pl.len(), dtype=pl.Int64)
    cumulative = cut_discount(position, log_base, k, kind).cum_sum()

    def at(m: pl.Expr) -> pl.Expr:
        index = (m - 1).clip(lower_bound=0)
        return pl.when(m == 0).then(0.0).otherwise(cumulative.gather(index))

    return at
