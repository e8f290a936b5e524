"""``lp.summarize``: the per-query (micro) mean next to the per-user (macro) mean, by cohort."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from lodestar_polars.exceptions import InvalidParameterError

_VALUE = "__lp_value__"
_METRIC = "__lp_metric__"
_WEIGHT = "__lp_weight__"
_USER = "__lp_user__"
_COHORT = "__lp_cohort__"
_ORDER = "__lp_order__"
_RESULT = ("metric", "micro", "macro", "divergence", "queries", "users")


def _fail(msg: str) -> ValueError:
    return ValueError(msg)


def summarize(
    per_query: pl.DataFrame | pl.LazyFrame,
    *,
    metrics: str | Sequence[str],
    average_over: str = "user",
    cohort: str | None = None,
    weight: str | None = None,
) -> pl.DataFrame:
    """Micro (over queries) and macro (over users) means of per-query metric values.

    The micro mean averages all queries at once, so the most active users set it; the
    macro mean first averages inside each user, then over users, so each user counts once.
    With a heavy tail of activity they are different numbers, and a change that only hurts
    the light users (newcomers) shows in the macro mean alone.

    Parameters
    ----------
    per_query : polars.DataFrame or polars.LazyFrame
        One row per query with the metric columns, as ``lp.evaluate`` returns it when its
        ``by`` includes the user column (``by=["user", "query"]``), plus any cohort column.
    metrics : str or sequence of str
        The metric columns to summarize.
    average_over : str, default="user"
        The column whose values are averaged inside first (a user, a session, a country).
    cohort : str, default=None
        A column splitting the users into cohorts (``"newcomer"`` / ``"active"``); each
        cohort gets its rows, and the whole frame a row with a null cohort.
    weight : str, default=None
        A per-query weight: the micro mean and each user's mean are weighted by it; users
        still count equally in the macro mean.

    Returns
    -------
    polars.DataFrame
        One row per (cohort and) metric: the cohort column (when given; null for the whole
        frame, last), ``metric`` (str), ``micro``, ``macro``, ``divergence`` (``macro -
        micro``) (f64), ``queries`` and ``users`` (u32, the counts behind the means).  Every
        cohort of the frame has a row for every metric: where none of its queries has a
        value of that metric the means are null and both counts 0.

    Raises
    ------
    InvalidParameterError
        An option that is not a column name (``metrics`` a name or a sequence of names,
        ``cohort`` and ``weight`` a name or None), a column that is not in the frame, a
        metric named twice, a column given two roles (``cohort`` the same column as
        ``average_over``, a metric that is also the weight), or a cohort column named as a
        column of the result (``metric``, ``micro``, ...).
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
    macro mean.

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
    names, keys = _check_options(per_query, metrics, average_over, cohort, weight)
    if isinstance(per_query, pl.LazyFrame):
        per_query = per_query.collect()
    _check_values(per_query, names, average_over, cohort, weight)
    # the roles under names of their own: a user or cohort column may be called anything
    # ("w", "queries") without meeting the columns made below
    long = per_query.select(
        *([pl.col(cohort).alias(_COHORT)] if cohort is not None else []),
        pl.col(average_over).alias(_USER),
        (pl.col(weight).cast(pl.Float64) if weight else pl.lit(1.0)).alias(_WEIGHT),
        *(pl.col(m).cast(pl.Float64) for m in names),
    ).unpivot(on=names, index=[*keys, _USER, _WEIGHT], variable_name=_METRIC, value_name=_VALUE)
    long = long.filter(pl.col(_VALUE).is_not_null())

    # maintain_order: the groups are summed in one order (the rows'), so the same frame
    # gives the same bits on every call
    def per_user(by: list[str]) -> pl.DataFrame:
        return long.group_by([*by, _METRIC, _USER], maintain_order=True).agg(
            (pl.col(_VALUE) * pl.col(_WEIGHT)).sum().alias("wv"),
            pl.col(_WEIGHT).sum().alias("w"),
            pl.len().alias("queries"),
        )

    def summary(users: pl.DataFrame, by: list[str]) -> pl.DataFrame:
        return users.group_by([*by, _METRIC], maintain_order=True).agg(
            (pl.col("wv").sum() / pl.col("w").sum()).alias("micro"),
            (pl.col("wv") / pl.col("w")).mean().alias("macro"),
            pl.col("queries").sum().cast(pl.UInt32),
            pl.len().cast(pl.UInt32).alias("users"),
        )

    users = per_user(keys)
    if weight is not None:
        _check_user_weights(users, average_over, cohort, weight, per_query.schema)
    order = pl.DataFrame({_METRIC: names, _ORDER: range(len(names))})
    # every (cohort and) metric gets its row, scored or not: queries and users 0, means null
    grid = [order]
    parts = [summary(users, keys)]
    if cohort is not None:
        cohorts = per_query.select(pl.col(cohort).unique().alias(_COHORT))
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
    return out.select(
        *([pl.col(_COHORT).cast(per_query.schema[cohort]).alias(cohort)] if cohort else []),
        pl.col(_METRIC).alias("metric"),
        "micro",
        "macro",
        (pl.col("macro") - pl.col("micro")).alias("divergence"),
        pl.col("queries").fill_null(0),
        pl.col("users").fill_null(0),
    )


def _check_options(
    per_query: object,
    metrics: object,
    average_over: object,
    cohort: object,
    weight: object,
) -> tuple[list[str], list[str]]:
    """The options, each a column of its own role: ``(metric names, cohort key)``."""
    if not isinstance(per_query, (pl.DataFrame, pl.LazyFrame)):
        msg = f"per_query must be a polars DataFrame or LazyFrame; got {type(per_query).__name__}."
        raise InvalidParameterError(msg)
    if isinstance(metrics, str):
        names = [metrics]
    elif isinstance(metrics, Sequence) and all(isinstance(m, str) for m in metrics):
        names = list(metrics)
    else:
        msg = (
            "The 'metrics' parameter of summarize must be a column name or a sequence of "
            f"column names. Got {metrics!r} instead."
        )
        raise InvalidParameterError(msg)
    if not names:
        msg = "The 'metrics' parameter of summarize must name at least one column. Got []."
        raise InvalidParameterError(msg)
    if len(set(names)) != len(names):
        msg = f"The 'metrics' parameter of summarize names a column twice: {names}."
        raise InvalidParameterError(msg)
    roles = {"average_over": average_over, "cohort": cohort, "weight": weight}
    for label, col in roles.items():
        if not isinstance(col, str) and not (col is None and label != "average_over"):
            rule = "a column name" + ("" if label == "average_over" else " or None")
            msg = f"The {label!r} parameter of summarize must be {rule}. Got {col!r} instead."
            raise InvalidParameterError(msg)
    columns = per_query.collect_schema().names()
    for label, col in [*(("metrics", m) for m in names), *roles.items()]:
        if col is not None and col not in columns:
            msg = (
                f"The {label!r} parameter of summarize names {col!r}, which is not a column "
                f"of per_query ({columns})."
            )
            raise InvalidParameterError(msg)
    taken = {m: "metrics" for m in names}
    for label, col in roles.items():
        if not isinstance(col, str):  # None: checked above
            continue
        if col in taken:
            msg = (
                f"The {label!r} parameter of summarize names {col!r}, the column already given "
                f"as {taken[col]}: each column plays one role."
            )
            raise InvalidParameterError(msg)
        taken[col] = label
    if cohort is not None and cohort in _RESULT:
        msg = (
            f"The 'cohort' parameter of summarize names {cohort!r}, a column of the result "
            f"({list(_RESULT)}): rename the cohort column first."
        )
        raise InvalidParameterError(msg)
    return names, [_COHORT] if cohort is not None else []


def _check_values(
    per_query: pl.DataFrame,
    names: list[str],
    average_over: str,
    cohort: str | None,
    weight: str | None,
) -> None:
    """The values: numeric metrics and weight, no NaN or infinity, no null user or cohort."""
    for m in [*names, *([weight] if weight else [])]:
        if not per_query.schema[m].is_numeric():
            msg = f"column {m!r} must be numeric; it is {per_query.schema[m]}."
            raise _fail(msg)
    for label, col in (("average_over", average_over), ("cohort", cohort)):
        if col is not None and per_query[col].null_count():
            msg = f"The {label!r} column {col!r} has {per_query[col].null_count()} null value(s)."
            raise _fail(msg)
    for m in names:
        value = pl.col(m).cast(pl.Float64)
        nan = per_query.filter(value.is_nan())
        if nan.height:
            msg = (
                f"metric {m!r} has {nan.height} NaN value(s) (first for {average_over} "
                f"{nan[average_over][0]!r}): a NaN would silently poison both means; use null "
                "for a query that could not be scored."
            )
            raise _fail(msg)
        infinite = per_query.filter(value.is_infinite())
        if infinite.height:
            msg = (
                f"metric {m!r} has {infinite.height} infinite value(s) (first for "
                f"{average_over} {infinite[average_over][0]!r}: {infinite[m][0]}): an "
                "infinity would make both means infinite or NaN; a metric value is finite, "
                "or null for a query that could not be scored."
            )
            raise _fail(msg)
    if weight is not None:
        w = per_query[weight].cast(pl.Float64)
        bad = w.is_null() | w.is_nan() | w.is_infinite() | (w < 0)
        if bad.any():
            first = w.filter(bad)[0]
            msg = (
                f"The 'weight' column {weight!r} must be finite and >= 0 on every row; "
                f"{bad.sum()} row(s) are not (e.g. {first!r})."
            )
            raise _fail(msg)


def _check_user_weights(
    users: pl.DataFrame,
    average_over: str,
    cohort: str | None,
    weight: str,
    schema: pl.Schema,
) -> None:
    """Refuse a user whose scored queries of a metric weigh 0 in all: its mean is 0 / 0."""
    zero = users.filter(pl.col("w") == 0)
    if not zero.height:
        return
    first = zero.sort(_METRIC, _USER, maintain_order=True).row(0, named=True)
    user = pl.Series([first[_USER]], dtype=schema[average_over])[0]
    where = f"{average_over} {user!r}"
    if cohort is not None:
        where += f" (cohort {pl.Series([first[_COHORT]], dtype=schema[cohort])[0]!r})"
    msg = (
        f"The 'weight' column {weight!r} sums to 0 over the scored queries of {where} for "
        f"metric {first[_METRIC]!r} ({zero.height} such group(s)): that mean would be 0 / 0. "
        "Give those queries a positive weight or leave the rows out."
    )
    raise _fail(msg)
