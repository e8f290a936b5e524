"""`metric_at_k` and `per_query_distribution`: plots of `lp.evaluate`'s per-query values."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from lodestar_polars._base.deprecation import renamed

if TYPE_CHECKING:
    from matplotlib.figure import Figure


from lodestar_polars.plot._common import _figure, _require, _roles, _runs


def metric_at_k(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    run: str | pl.Expr = "run",
    k: str | pl.Expr = "k",
    value: str | pl.Expr = "value",
    title: str | None = None,
) -> Figure:
    """A metric against its cutoff ``k``, one line per run.

    Parameters
    ----------
    frame
        One row per (run, k): the run's (mean) metric at that cutoff.
    run, k, value : str or polars.Expr
        The column names, or expressions (each plays its role under its
        output name, as everywhere in the package).
    title : str, default=None
        The axes title; the ``value`` column name when None.

    Returns
    -------
    matplotlib.figure.Figure
        One axes: ``k`` on x, the metric on y, a marker per cutoff.

    Examples
    --------
    >>> import polars as pl
    >>> from lodestar_polars import plot
    >>> curves = pl.DataFrame(
    ...     {"run": ["bm25"] * 3 + ["dense"] * 3, "k": [1, 5, 10] * 2,
    ...      "value": [0.30, 0.42, 0.47, 0.35, 0.49, 0.55]}
    ... )
    >>> plot.metric_at_k(curves, value="value", title="nDCG@k").axes[0].get_title()
    'nDCG@k'
    """
    frame, (run, k, value), _ = _roles(frame, "metric_at_k", {"run": run, "k": k, "value": value})
    frame = _require(frame, (run, k, value), "metric_at_k")
    figure, (axes,) = _figure()
    for name in _runs(frame, run):
        part = frame.filter(pl.col(run) == name).sort(k)
        axes.plot(part[k].to_numpy(), part[value].to_numpy(), marker="o", label=str(name))
    axes.set_xlabel("k")
    axes.set_ylabel(value)
    axes.set_title(title or value)
    axes.grid(alpha=0.3)
    axes.legend(title=run)
    return figure


@renamed(query="by")
def per_query_distribution(
    per_query: pl.DataFrame | pl.LazyFrame,
    *,
    metric: str | pl.Expr,
    run: str | pl.Expr = "run",
    by: str | pl.Expr = "query",
    baseline: Any = None,
) -> Figure:
    """The per-query values of each run, and (with ``baseline``) their per-query difference.

    Parameters
    ----------
    per_query
        One row per (run, query): a metric column per metric, as
        :func:`lodestar_polars.evaluate` gives for each run, stacked.
    metric : str or polars.Expr
        The metric column to draw.  This role, ``run`` and ``by`` take a name
        or an expression (under its output name).
    run : str or polars.Expr, default="run"
        The run column.
    by : str or polars.Expr, default="query"
        The query column (called ``query`` before 0.2.0; the old name warns
        until 0.3.0).
    baseline : default=None
        A run name: adds a panel with each other run's difference to it,
        query by query (sorted, so the share of queries that win, tie and
        lose reads off the curve).  Queries missing from either run are left
        out of that panel.

    Returns
    -------
    matplotlib.figure.Figure
        A box plot with the runs' values (means marked); with ``baseline``, a
        second axes with the sorted per-query differences.

    Examples
    --------
    >>> import polars as pl
    >>> from lodestar_polars import plot
    >>> per_query = pl.DataFrame(
    ...     {"run": ["a"] * 3 + ["b"] * 3, "query": [1, 2, 3] * 2,
    ...      "ndcg": [0.2, 0.5, 0.9, 0.4, 0.5, 0.7]}
    ... )
    >>> len(plot.per_query_distribution(per_query, metric="ndcg", baseline="a").axes)
    2
    """
    caller = "per_query_distribution"
    per_query, (metric, run, by), _ = _roles(
        per_query, caller, {"metric": metric, "run": run, "by": by}
    )
    per_query = _require(per_query, (run, by, metric), caller)
    runs = _runs(per_query, run)
    if baseline is not None and baseline not in runs:
        msg = f"{caller}: baseline {baseline!r} is not a run (runs: {runs})"
        raise ValueError(msg)
    figure, axes = _figure(2 if baseline is not None else 1)
    values = [
        per_query.filter(pl.col(run) == name)[metric].drop_nulls().drop_nans().to_numpy()
        for name in runs
    ]
    axes[0].boxplot(values, tick_labels=[str(r) for r in runs], showmeans=True)
    axes[0].set_ylabel(metric)
    axes[0].set_title(f"{metric} per by")
    axes[0].grid(alpha=0.3, axis="y")
    if baseline is not None:
        base = per_query.filter(pl.col(run) == baseline).select(by, pl.col(metric).alias("b"))
        for name in runs:
            if name == baseline:
                continue
            joined = (
                per_query.filter(pl.col(run) == name)
                .select(by, metric)
                .join(base, on=by, how="inner")
            )
            difference = np.sort((joined[metric] - joined["b"]).to_numpy())[::-1]
            share = np.arange(difference.size) / max(difference.size - 1, 1)
            axes[1].plot(share, difference, label=f"{name} - {baseline}")
        axes[1].axhline(0.0, color="black", linewidth=0.8)
        axes[1].set_xlabel("share of queries (sorted by difference)")
        axes[1].set_ylabel(f"difference in {metric}")
        axes[1].set_title(f"per-by difference to {baseline}")
        axes[1].grid(alpha=0.3)
        axes[1].legend()
    return figure
