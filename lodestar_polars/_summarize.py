"""``lp.summarize``: the per-query (micro) mean next to the per-user (macro) mean, by cohort."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

_VALUE = "__lp_value__"
_METRIC = "__lp_metric__"
_WEIGHT = "__lp_weight__"


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
        micro``) (f64), ``queries`` and ``users`` (u32, the counts behind the means).

    Raises
    ------
    ValueError
        A column that is not in the frame, a metric column that is not numeric, a NaN
        value, a null user or cohort, a negative, null or non-finite weight.

    Notes
    -----
    A null metric value (a query ``lp.evaluate(strict=False)`` could not score) is left
    out of both means, as ``lp.evaluate(mean=True)`` leaves it out; a user with no scored
    query is left out of the macro mean. ``queries`` and ``users`` count what was averaged.

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
    if isinstance(per_query, pl.LazyFrame):
        per_query = per_query.collect()
    if not isinstance(per_query, pl.DataFrame):
        msg = f"per_query must be a polars DataFrame or LazyFrame; got {type(per_query).__name__}."
        raise _fail(msg)
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        msg = "The 'metrics' parameter of summarize must name at least one column. Got []."
        raise _fail(msg)
    columns = per_query.columns
    for label, col in [
        *(("metrics", m) for m in names),
        ("average_over", average_over),
        ("cohort", cohort),
        ("weight", weight),
    ]:
        if col is not None and col not in columns:
            msg = (
                f"The {label!r} parameter of summarize names {col!r}, which is not a column "
                f"of per_query ({columns})."
            )
            raise _fail(msg)
    if len(set(names)) != len(names):
        msg = f"The 'metrics' parameter of summarize names a column twice: {names}."
        raise _fail(msg)
    for m in [*names, *([weight] if weight else [])]:
        if not per_query.schema[m].is_numeric():
            msg = f"column {m!r} must be numeric; it is {per_query.schema[m]}."
            raise _fail(msg)
    for label, col in (("average_over", average_over), ("cohort", cohort)):
        if col is not None and per_query[col].null_count():
            msg = f"The {label!r} column {col!r} has {per_query[col].null_count()} null value(s)."
            raise _fail(msg)
    for m in names:
        nan = per_query.filter(pl.col(m).cast(pl.Float64).is_nan())
        if nan.height:
            msg = (
                f"metric {m!r} has {nan.height} NaN value(s) (first for {average_over} "
                f"{nan[average_over][0]!r}): a NaN would silently poison both means; use null "
                "for a query that could not be scored."
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
    keys = [cohort] if cohort is not None else []
    long = per_query.select(
        *keys,
        pl.col(average_over),
        (pl.col(weight).cast(pl.Float64) if weight else pl.lit(1.0)).alias(_WEIGHT),
        *(pl.col(m).cast(pl.Float64) for m in names),
    ).unpivot(
        on=names, index=[*keys, average_over, _WEIGHT], variable_name=_METRIC, value_name=_VALUE
    )
    long = long.filter(pl.col(_VALUE).is_not_null())

    def weighted(value: pl.Expr, w: pl.Expr) -> pl.Expr:
        return (value * w).sum() / w.sum()

    def summary(by: list[str]) -> pl.DataFrame:
        users = long.group_by([*by, _METRIC, average_over]).agg(
            weighted(pl.col(_VALUE), pl.col(_WEIGHT)).alias("user_mean"),
            (pl.col(_VALUE) * pl.col(_WEIGHT)).sum().alias("wv"),
            pl.col(_WEIGHT).sum().alias("w"),
            pl.len().alias("queries"),
        )
        return users.group_by([*by, _METRIC]).agg(
            (pl.col("wv").sum() / pl.col("w").sum()).alias("micro"),
            pl.col("user_mean").mean().alias("macro"),
            pl.col("queries").sum().cast(pl.UInt32),
            pl.len().cast(pl.UInt32).alias("users"),
        )

    parts = [summary(keys)]
    if cohort is not None:
        whole = summary([]).with_columns(pl.lit(None, per_query.schema[cohort]).alias(cohort))
        parts.append(whole)
    out = pl.concat(parts, how="diagonal_relaxed")
    order = pl.DataFrame({_METRIC: names, "__lp_order__": range(len(names))})
    out = out.join(order, on=_METRIC, how="right")  # every metric, even with nothing scored
    sort_by = [*keys, "__lp_order__"]
    out = out.sort(sort_by, nulls_last=True, maintain_order=True)
    return out.select(
        *keys,
        pl.col(_METRIC).alias("metric"),
        "micro",
        "macro",
        (pl.col("macro") - pl.col("micro")).alias("divergence"),
        pl.col("queries").fill_null(0),
        pl.col("users").fill_null(0),
    )
