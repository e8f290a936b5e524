"""``lp.summarize``: the per-query (micro) mean next to the per-user (macro) mean, by cohort."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar, cast

import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.validation import (
    check_column,
    check_columns,
    check_frame,
    give_back,
    names_of,
    select_roles,
)
from lodestar_polars.exceptions import InvalidParameterError

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
CALLER = "summarize"

_VALUE = "__lp_value__"
_METRIC = "__lp_metric__"
_WEIGHT = "__lp_weight__"
_USER = "__lp_user__"
_COHORT = "__lp_cohort__"
_ORDER = "__lp_order__"
_ROW = "__lp_row__"
_RESULT = ("metric", "micro", "macro", "divergence", "queries", "users")


def _fail(msg: str) -> ValueError:
    return ValueError(msg)


@renamed(average_over="by")
def summarize(
    per_query: FrameT,
    *,
    metrics: str | pl.Expr | Sequence[str | pl.Expr],
    by: str | pl.Expr | Sequence[str | pl.Expr] = "user",
    cohort: str | pl.Expr | None = None,
    weight: str | pl.Expr | None = None,
) -> FrameT:
    """Micro (over queries) and macro (over users) means of per-query metric values.

    The micro mean averages all queries at once, so the most active users set it; the
    macro mean first averages inside each user, then over users, so each user counts once.
    With a heavy tail of activity they are different numbers, and a change that only hurts
    the light users (newcomers) shows in the macro mean alone.

    Parameters
    ----------
    per_query : polars.DataFrame, polars.LazyFrame or Arrow data
        One row per query with the metric columns, as ``lp.evaluate`` returns it when its
        ``by`` includes the user column (``by=["user", "query"]``), plus any cohort column.
    metrics : str, polars.Expr or sequence of them
        The metric columns to summarize (an expression's column is named by its output name).
    by : str, polars.Expr or sequence of them, default="user"
        The column(s) whose values are averaged inside first (a user, a session, a country).
        Renamed from ``average_over`` in 0.2.0 (the old name warns until 0.3.0).
    cohort : str or polars.Expr, default=None
        A column splitting the users into cohorts (``"newcomer"`` / ``"active"``); each
        cohort gets its rows, and the whole frame a row with a null cohort.
    weight : str or polars.Expr, default=None
        A per-query weight: the micro mean and each user's mean are weighted by it; users
        still count equally in the macro mean.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        A ``LazyFrame`` for a ``LazyFrame`` (its values are read once when ``summarize`` is
        called, for the checks below); a ``DataFrame`` otherwise. One row per (cohort and)
        metric: the cohort column (when given; null for the whole frame, last), ``metric``
        (str), ``micro``, ``macro``, ``divergence`` (``macro - micro``) (f64), ``queries``
        and ``users`` (u32, the counts behind the means). Every cohort of the frame has a
        row for every metric: where none of its queries has a value of that metric the means
        are null and both counts 0.

    Raises
    ------
    InvalidParameterError
        ``per_query`` not a frame, an option that is not a column (``metrics`` and ``by`` a
        name or expression or a sequence of them, ``cohort`` and ``weight`` one or None), a
        column that is not in the frame, a metric named twice, a column given two roles
        (``cohort`` the same column as ``by``, a metric that is also the weight), or a
        cohort column named as a column of the result (``metric``, ``micro``, ...).
    ValueError
        A metric column that is not numeric, a NaN or infinite value, a null user or
        cohort, a negative, null or non-finite weight, or a user whose scored queries of a
        metric weigh 0 in all (its weighted mean would be 0 / 0; the sentence names the
        user, its cohort and the metric).

    Notes
    -----
    A null metric value (a query ``lp.evaluate(strict=False)`` could not score) is left
    out of both means, as ``lp.evaluate(mean=True)`` leaves it out; a user with no scored
    query is left out of the macro mean. ``queries`` and ``users`` count what was averaged.
    A weight of 0 leaves a query out of both means (it still counts in ``queries``); a
    user needs a positive total weight over its scored queries, as it counts once in the
    macro mean.  Every sum adds the values one after the other in the rows' order (users in
    the order they first appear), so the same frame gives the same bits, eager or lazy, on
    every call.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "user": ["ann", "ann", "ann", "bob"],
    ...         "query": ["q1", "q2", "q3", "q4"],
    ...         "ndcg": [0.9, 0.8, 1.0, 0.1],
    ...     }
    ... )
    >>> lp.summarize(per_query, metrics="ndcg")
    shape: (1, 6)
    ┌────────┬───────┬───────┬────────────┬─────────┬───────┐
    │ metric ┆ micro ┆ macro ┆ divergence ┆ queries ┆ users │
    │ ---    ┆ ---   ┆ ---   ┆ ---        ┆ ---     ┆ ---   │
    │ str    ┆ f64   ┆ f64   ┆ f64        ┆ u32     ┆ u32   │
    ╞════════╪═══════╪═══════╪════════════╪═════════╪═══════╡
    │ ndcg   ┆ 0.7   ┆ 0.5   ┆ -0.2       ┆ 4       ┆ 2     │
    └────────┴───────┴───────┴────────────┴─────────┴───────┘
    """
    lf, lazy = check_frame(per_query, "per_query", CALLER)
    roles = _check_options(lf, metrics, by, cohort, weight)
    names = names_of(roles["metrics"])
    by_names = names_of(roles["by"])
    cohort_name = names_of(roles["cohort"])[0] if roles["cohort"] else None
    weight_name = names_of(roles["weight"])[0] if roles["weight"] else None
    frame = lf.select(*(e for exprs in roles.values() for e in exprs))
    schema = frame.collect_schema()
    user = pl.col(by_names[0]) if len(by_names) == 1 else pl.struct(by_names)
    label = by_names[0] if len(by_names) == 1 else str(by_names)
    keys: list[str] = [_COHORT] if cohort_name is not None else []
    # the roles under names of their own: a user or cohort column may be called anything
    # ("w", "queries") without meeting the columns made below
    long = frame.select(
        *([pl.col(cohort_name).alias(_COHORT)] if cohort_name is not None else []),
        user.alias(_USER),
        pl.int_range(pl.len(), dtype=pl.UInt64).alias(_ROW),
        (pl.col(weight_name).cast(pl.Float64) if weight_name else pl.lit(1.0)).alias(_WEIGHT),
        *(pl.col(m).cast(pl.Float64) for m in names),
    ).unpivot(
        on=names, index=[*keys, _USER, _WEIGHT, _ROW], variable_name=_METRIC, value_name=_VALUE
    )
    long = long.filter(pl.col(_VALUE).is_not_null())

    # every sum runs in the rows' order (_in_order), so the same frame gives the same bits
    # on every call, eager or lazy
    def per_user(by: list[str]) -> pl.LazyFrame:
        return long.group_by([*by, _METRIC, _USER], maintain_order=True).agg(
            _in_order(pl.col(_VALUE) * pl.col(_WEIGHT)).alias("wv"),
            _in_order(pl.col(_WEIGHT)).alias("w"),
            pl.len().alias("queries"),
            pl.col(_ROW).min(),
        )

    def summary(users: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
        return users.group_by([*by, _METRIC], maintain_order=True).agg(
            (_in_order(pl.col("wv")) / _in_order(pl.col("w"))).alias("micro"),
            (_in_order(pl.col("wv") / pl.col("w")) / pl.len()).alias("macro"),
            pl.col("queries").sum().cast(pl.UInt32),
            pl.len().cast(pl.UInt32).alias("users"),
        )

    users = per_user(keys)
    _check_values(frame, schema, names, by_names, user, cohort_name, weight_name, label)
    if weight_name is not None:
        _check_user_weights(users, label, cohort_name, weight_name, schema)
    order = pl.LazyFrame({_METRIC: names, _ORDER: range(len(names))})
    # every (cohort and) metric gets its row, scored or not: queries and users 0, means null
    grid = [order]
    parts = [summary(users, keys)]
    if cohort_name is not None:
        cohorts = frame.select(pl.col(cohort_name).unique().alias(_COHORT))
        grid = [cohorts.join(order, how="cross"), order.with_columns(pl.lit(None).alias(_COHORT))]
        parts.append(summary(per_user([]), []).with_columns(pl.lit(None).alias(_COHORT)))
    rows = pl.concat(grid, how="diagonal_relaxed")
    out = rows.join(
        pl.concat(parts, how="diagonal_relaxed"),
        on=[*keys, _METRIC],
        how="left",
        nulls_equal=True,
        maintain_order="left",
    )
    out = out.sort([*keys, _ORDER], nulls_last=True, maintain_order=True)
    result = out.select(
        *(
            [pl.col(_COHORT).cast(schema[cohort_name]).alias(cohort_name)]
            if cohort_name is not None
            else []
        ),
        pl.col(_METRIC).alias("metric"),
        "micro",
        "macro",
        (pl.col("macro") - pl.col("micro")).alias("divergence"),
        pl.col("queries").fill_null(0),
        pl.col("users").fill_null(0),
    )
    return cast("FrameT", give_back(result, lazy=lazy))


def _in_order(value: pl.Expr) -> pl.Expr:
    """A group's sum, added one row after the other in the rows' order.

    ``cum_sum`` is sequential, so the bits do not depend on the engine, the optimizer
    (which drops ``maintain_order`` where the final sort hides row order) or SIMD
    blocking: the same frame gives the same number, eager or lazy, on every call.
    """
    return value.sort_by(_ROW).cum_sum().last()


def _check_options(
    frame: pl.LazyFrame,
    metrics: object,
    by: object,
    cohort: object,
    weight: object,
) -> dict[str, list[pl.Expr]]:
    """The options, each a column of its own role: ``{role: its expressions}``."""
    roles = {
        "metrics": check_columns(metrics, "metrics", CALLER),
        "by": check_columns(by, "by", CALLER),
        "cohort": [
            e for e in [check_column(cohort, "cohort", CALLER, allow_none=True)] if e is not None
        ],
        "weight": [
            e for e in [check_column(weight, "weight", CALLER, allow_none=True)] if e is not None
        ],
    }
    taken: dict[str, str] = {}
    for label, exprs in roles.items():
        for col in names_of(exprs):
            if col in taken:
                msg = (
                    f"The {label!r} parameter of summarize names {col!r}, the column already "
                    f"given as {taken[col]}: each column plays one role."
                )
                raise InvalidParameterError(msg)
            taken[col] = label
    cohort_names = names_of(roles["cohort"])
    if cohort_names and cohort_names[0] in _RESULT:
        msg = (
            f"The 'cohort' parameter of summarize names {cohort_names[0]!r}, a column of the "
            f"result ({list(_RESULT)}): rename the cohort column first."
        )
        raise InvalidParameterError(msg)
    select_roles(frame, roles, "per_query", CALLER)
    return roles


def _check_values(
    frame: pl.LazyFrame,
    schema: pl.Schema,
    names: list[str],
    by_names: list[str],
    user: pl.Expr,
    cohort: str | None,
    weight: str | None,
    label: str,
) -> None:
    """The values: numeric metrics and weight, no NaN or infinity, no null user or cohort.

    One pass over the frame (a LazyFrame is read for it when ``summarize`` is called).
    """
    for m in [*names, *([weight] if weight else [])]:
        if not schema[m].is_numeric():
            msg = f"column {m!r} must be numeric; it is {schema[m]}."
            raise _fail(msg)
    nulls = [("by", b) for b in by_names] + ([("cohort", cohort)] if cohort is not None else [])
    checks: list[pl.Expr] = [
        pl.col(col).null_count().alias(f"null{i}") for i, (_, col) in enumerate(nulls)
    ]
    for i, m in enumerate(names):
        value = pl.col(m).cast(pl.Float64)
        checks += [
            value.is_nan().sum().alias(f"nan{i}"),
            user.filter(value.is_nan()).first().alias(f"nan_user{i}"),
            value.is_infinite().sum().alias(f"inf{i}"),
            user.filter(value.is_infinite()).first().alias(f"inf_user{i}"),
            value.filter(value.is_infinite()).first().alias(f"inf_value{i}"),
        ]
    if weight is not None:
        w = pl.col(weight).cast(pl.Float64)
        bad = w.is_null() | w.is_nan() | w.is_infinite() | (w < 0)
        checks += [bad.sum().alias("bad_w"), w.filter(bad).first().alias("bad_w_value")]
    found = frame.select(checks).collect().row(0, named=True)
    for i, (role, col) in enumerate(nulls):
        if found[f"null{i}"]:
            msg = f"The {role!r} column {col!r} has {found[f'null{i}']} null value(s)."
            raise _fail(msg)
    for i, m in enumerate(names):
        if found[f"nan{i}"]:
            msg = (
                f"metric {m!r} has {found[f'nan{i}']} NaN value(s) (first for {label} "
                f"{found[f'nan_user{i}']!r}): a NaN would silently poison both means; use null "
                "for a query that could not be scored."
            )
            raise _fail(msg)
        if found[f"inf{i}"]:
            msg = (
                f"metric {m!r} has {found[f'inf{i}']} infinite value(s) (first for "
                f"{label} {found[f'inf_user{i}']!r}: {found[f'inf_value{i}']}): an "
                "infinity would make both means infinite or NaN; a metric value is finite, "
                "or null for a query that could not be scored."
            )
            raise _fail(msg)
    if weight is not None and found["bad_w"]:
        msg = (
            f"The 'weight' column {weight!r} must be finite and >= 0 on every row; "
            f"{found['bad_w']} row(s) are not (e.g. {found['bad_w_value']!r})."
        )
        raise _fail(msg)


def _check_user_weights(
    users: pl.LazyFrame,
    label: str,
    cohort: str | None,
    weight: str,
    schema: pl.Schema,
) -> None:
    """Refuse a user whose scored queries of a metric weigh 0 in all: its mean is 0 / 0."""
    zero = users.filter(pl.col("w") == 0).collect()
    if not zero.height:
        return
    first = zero.sort(_METRIC, _USER, maintain_order=True).row(0, named=True)
    where = f"{label} {first[_USER]!r}"
    if cohort is not None:
        where += f" (cohort {pl.Series([first[_COHORT]], dtype=schema[cohort])[0]!r})"
    msg = (
        f"The 'weight' column {weight!r} sums to 0 over the scored queries of {where} for "
        f"metric {first[_METRIC]!r} ({zero.height} such group(s)): that mean would be 0 / 0. "
        "Give those queries a positive weight or leave the rows out."
    )
    raise _fail(msg)
