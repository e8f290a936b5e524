"""The figure of recall against a latency budget: :func:`lodestar_polars.plot.budget_curve`.

In its own module so the budget work stays apart from ``plot.py``; ``lodestar_polars.plot``
re-exports it. matplotlib is imported only when the function is called.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from lodestar_polars._base.validation import check_bool, check_option
from lodestar_polars.exceptions import InvalidParameterError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CURVE_COLUMNS = ("source", "k", "cost", "recall_macro", "recall_micro")
"""The columns :func:`budget_curve` reads (``lp.budget_curve``'s output)."""


def budget_curve(
    curve: pl.DataFrame | pl.LazyFrame,
    *,
    average: str = "macro",
    budgets: Sequence[float] | None = None,
    log_cost: bool = False,
    title: str | None = None,
) -> Figure:
    """Recall against cost, one line per source, the Pareto front and the budgets' winners.

    Parameters
    ----------
    curve : DataFrame or LazyFrame
        :func:`lodestar_polars.budget_curve`'s frame: one row per (source, k) with its
        ``cost``, ``recall_macro`` and ``recall_micro``.
    average : {"macro", "micro"}, default="macro"
        Which recall is drawn; the front is recomputed on it.
    budgets : sequence of float, optional
        Budgets drawn as vertical lines, each with the best single source it buys (the
        highest point of the curve at a cost within it), as
        :func:`lodestar_polars.recall_at_budget` without mixes.
    log_cost : bool, default=False
        A logarithmic cost axis (costs must then be > 0).
    title : str, optional
        The axes title.

    Returns
    -------
    matplotlib.figure.Figure
        One axes: cost on x, recall on y; a line per source, the front as a black step.

    Examples
    --------
    >>> import polars as pl
    >>> from lodestar_polars import plot
    >>> curve = pl.DataFrame(
    ...     {"source": ["pop"] * 3 + ["ann"] * 3, "k": [1, 2, 3] * 2,
    ...      "cost": [0.1, 0.2, 0.3, 2.0, 3.0, 4.0],
    ...      "recall_macro": [0.3, 0.35, 0.36, 0.4, 0.6, 0.7],
    ...      "recall_micro": [0.3, 0.35, 0.36, 0.4, 0.6, 0.7]}
    ... )
    >>> figure = plot.budget_curve(curve, budgets=[1.0, 3.5])
    >>> figure.axes[0].get_xlabel()
    'cost'
    """
    from lodestar_polars._budget.budget import pareto_mask  # noqa: PLC0415
    from lodestar_polars.plot._common import _figure, _require  # noqa: PLC0415

    caller = "plot.budget_curve"
    average = check_option(average, "average", caller, ("macro", "micro"))
    log_cost = check_bool(log_cost, "log_cost", caller)
    marks: list[float] = []
    if budgets is not None:
        items = list(budgets) if isinstance(budgets, Sequence) else [budgets]
        if not items or not all(
            isinstance(b, numbers.Real)
            and not isinstance(b, bool)
            and math.isfinite(float(b))
            and float(b) >= 0
            for b in items
        ):
            msg = (
                f"The 'budgets' parameter of {caller} must be a non-empty sequence of finite "
                f"real numbers >= 0, or None. Got {budgets!r} instead."
            )
            raise InvalidParameterError(msg)
        marks = [float(b) for b in items]
    frame = _require(curve, CURVE_COLUMNS, caller)
    recall = f"recall_{average}"
    if log_cost and (frame["cost"] <= 0).any():
        msg = f"{caller}: log_cost=True needs every cost > 0; the curve has a cost <= 0."
        raise ValueError(msg)
    figure, (axes,) = _figure(width=7.0)
    for name in frame["source"].unique(maintain_order=True).to_list():
        part = frame.filter(pl.col("source") == name).sort("k")
        axes.plot(part["cost"].to_numpy(), part[recall].to_numpy(), label=str(name), lw=1.8)
    cost = frame["cost"].to_numpy()
    value = frame[recall].to_numpy()
    on = pareto_mask(cost, value)
    order = np.argsort(cost[on], kind="stable")
    axes.step(
        cost[on][order],
        value[on][order],
        where="post",
        color="black",
        lw=1.0,
        ls="--",
        label="Pareto front",
    )
    for b in marks:
        fits = cost <= b
        axes.axvline(b, color="grey", ls=":", lw=1.0)
        if fits.any():
            best = int(np.flatnonzero(fits)[np.argmax(value[fits])])
            row = frame.row(best, named=True)
            axes.plot([row["cost"]], [row[recall]], marker="o", color="black")
            axes.annotate(
                f"{b:g}: {row['source']}@{row['k']}",
                (row["cost"], row[recall]),
                textcoords="offset points",
                xytext=(4, -12),
                fontsize=8,
            )
    if log_cost:
        axes.set_xscale("log")
    axes.set_xlabel("cost")
    axes.set_ylabel(f"recall ({average} over queries)")
    axes.set_title(title or "Recall against cost")
    axes.grid(alpha=0.3)
    axes.legend(title="source")
    return figure


__all__ = ["CURVE_COLUMNS", "budget_curve"]
