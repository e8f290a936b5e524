"""`calibration_diagram`: the reliability diagram of predicted probabilities."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from lodestar_polars._base.validation import (
    BinStrategy,
)
from lodestar_polars._metrics.calibration import calibration_curve

if TYPE_CHECKING:
    from matplotlib.figure import Figure


from lodestar_polars.plot._common import _figure, _require, _roles, _runs


def calibration_diagram(
    frame: pl.DataFrame | pl.LazyFrame,
    y_true: str | pl.Expr,
    y_prob: str | pl.Expr,
    *,
    n_bins: int = 10,
    strategy: BinStrategy = "uniform",
    by: str | pl.Expr | None = None,
) -> Figure:
    """The reliability diagram: fraction of positives against mean probability per bin.

    The points are :func:`lodestar_polars.calibration_curve`'s (scikit-learn's
    ``calibration_curve``); the diagonal is perfect calibration, and a second
    axes shows how many rows each bin holds.

    Parameters
    ----------
    frame
        A long frame, one row per prediction.
    y_true, y_prob : str or polars.Expr
        The 0/1 (or bool) label and the probability columns (names or
        expressions, under their output names, as ``by``).
    n_bins : int, default=10
        The number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal widths, or equal counts.
    by : str or polars.Expr, default=None
        A column naming models: one curve each.

    Returns
    -------
    matplotlib.figure.Figure
        Two axes: the diagram, and the rows per bin.

    Examples
    --------
    >>> import polars as pl
    >>> from lodestar_polars import plot
    >>> log = pl.DataFrame({"y": [0, 0, 1, 0, 1, 1], "p": [0.1, 0.2, 0.3, 0.6, 0.8, 0.9]})
    >>> len(plot.calibration_diagram(log, "y", "p", n_bins=2).axes)
    2
    """
    frame, (y_true, y_prob), (by,) = _roles(
        frame, "calibration_diagram", {"y_true": y_true, "y_prob": y_prob}, {"by": by}
    )
    needed = [c for c in (y_true, y_prob, by) if c is not None]
    frame = _require(frame, needed, "calibration_diagram")
    table = calibration_curve(frame, y_true, y_prob, n_bins=n_bins, strategy=strategy, by=by)
    figure, axes = _figure(2)
    axes[0].plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfectly calibrated")
    groups = (
        [(None, table)]
        if by is None
        else [(name, table.filter(pl.col(by) == name)) for name in _runs(table, by)]
    )
    width = 1.0 / n_bins / max(len(groups), 1)
    for i, (name, part) in enumerate(groups):
        label = "model" if name is None else str(name)
        axes[0].plot(part["prob_pred"], part["prob_true"], marker="s", label=label)
        axes[1].bar(
            part["prob_pred"].to_numpy() + i * width,
            part["count"].to_numpy(),
            width=width,
            label=label,
        )
    axes[0].set_xlim(0.0, 1.0)
    axes[0].set_ylim(0.0, 1.0)
    axes[0].set_xlabel("mean predicted probability")
    axes[0].set_ylabel("fraction of positives")
    axes[0].set_title(f"calibration ({n_bins} {strategy} bins)")
    axes[0].grid(alpha=0.3)
    axes[0].legend()
    axes[1].set_xlabel("mean predicted probability")
    axes[1].set_ylabel("rows")
    axes[1].set_title("rows per bin")
    return figure
