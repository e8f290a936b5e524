"""`comparison_chart`: `lp.compare`'s differences and their significance as bars."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from lodestar_polars.exceptions import InvalidParameterError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from lodestar_polars._compare.comparison import Comparison

from lodestar_polars.plot._common import _require

COMPARE_COLUMNS = (
    "run",
    "metric",
    "mean",
    "difference",
    "ci_low",
    "ci_high",
    "p_value",
    "significant",
)
"""The columns :func:`comparison_chart` reads (``lp.compare``'s output)."""


_BETTER = "tab:green"
_WORSE = "tab:red"
_UNDIRECTED = "tab:blue"
_NOT_SIGNIFICANT = "tab:gray"
_OUTCOMES = (
    (_BETTER, "significantly better than the baseline"),
    (_WORSE, "significantly worse than the baseline"),
    (_UNDIRECTED, "significant, direction unknown"),
    (_NOT_SIGNIFICANT, "not significant"),
)
"""The bar colours of :func:`comparison_chart` and what each means (its legend)."""


def _wrap(text: str, width: int) -> str:
    import textwrap  # noqa: PLC0415

    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False)) or text


def comparison_chart(
    table: pl.DataFrame | pl.LazyFrame | Comparison,
    *,
    alpha: float | None = None,
    lower_is_better: str | Sequence[str] = (),
    higher_is_better: str | Sequence[str] = (),
) -> Figure:
    """A compare table drawn: each run's difference to the baseline with its interval.

    Each bar is coloured by what its difference means: green for a significant win
    over the baseline, red for a significant loss, blue for a significant difference
    on a metric whose direction is unknown, grey when not significant. A win is a
    positive difference where higher is better and a negative one where lower is
    better (a loss such as ``brier`` or ``log_loss``): the direction comes from
    ``lp.compare`` (a :class:`~lodestar_polars.Comparison`) or, for a bare table,
    from the metric registry, as ``lp.compare`` reads it.

    Parameters
    ----------
    table : polars.DataFrame or lodestar_polars.Comparison
        ``lp.compare``'s result, or its ``.table``: the columns ``run``, ``metric``,
        ``mean``, ``difference``, ``ci_low``, ``ci_high``, ``p_value``, ``significant``
        (one row per run and metric, the baseline's included, its difference 0).
    alpha : float, default=None
        Written in the title (the level the table was made at); a Comparison's own
        when None.
    lower_is_better, higher_is_better : str or sequence of str, default=()
        Metrics whose direction the registry does not know (or that you read the other
        way), named exactly, as ``lp.compare`` takes them.

    Returns
    -------
    matplotlib.figure.Figure
        One axes per metric (three to a row), the runs down a shared y axis: a
        horizontal bar per run, the confidence interval as an error bar, significant
        runs marked with ``*``, and a legend of the colours. Long run and metric names
        are wrapped.

    Examples
    --------
    >>> import polars as pl
    >>> from lodestar_polars import plot
    >>> table = pl.DataFrame(
    ...     {"run": ["a", "b"] * 2, "metric": ["ndcg@10"] * 2 + ["brier"] * 2,
    ...      "mean": [0.40, 0.43, 0.20, 0.23], "difference": [0.0, 0.03, 0.0, 0.03],
    ...      "ci_low": [0.0, 0.01, 0.0, 0.01], "ci_high": [0.0, 0.05, 0.0, 0.05],
    ...      "p_value": [None, 0.004, None, 0.004], "significant": [False, True, False, True]}
    ... )
    >>> figure = plot.comparison_chart(table)
    >>> [ax.get_title() for ax in figure.axes]
    ['ndcg@10 (higher is better)', 'brier (lower is better)']
    >>> figure.legends[0].get_texts()[0].get_text()  # ndcg@10: b wins; brier: b loses
    'significantly better than the baseline'
    """
    from lodestar_polars._compare.compare import _metric_names  # noqa: PLC0415
    from lodestar_polars._compare.comparison import Comparison  # noqa: PLC0415
    from lodestar_polars._registry import direction  # noqa: PLC0415

    directions: dict[str, str | None] = {}
    if isinstance(table, Comparison):
        directions.update(table.directions)
        alpha = table.alpha if alpha is None else alpha
        table = table.table
    table = _require(table, COMPARE_COLUMNS, "comparison_chart")
    lower = _metric_names(lower_is_better, "lower_is_better")
    higher = _metric_names(higher_is_better, "higher_is_better")
    metrics = table["metric"].unique(maintain_order=True).to_list()
    for option, names in (("lower_is_better", lower), ("higher_is_better", higher)):
        absent = [m for m in names if m not in metrics]
        if absent:
            msg = (
                f"comparison_chart: {option} names {absent[0]!r}, which is not a metric of "
                f"the table ({metrics})"
            )
            raise InvalidParameterError(msg)
    for m in metrics:
        way = directions[m] if m in directions else direction(str(m))
        directions[m] = "lower" if m in lower else "higher" if m in higher else way
    runs = [str(r) for r in table["run"].unique(maintain_order=True)]
    baselines = set(
        table.group_by("run").agg(pl.col("p_value").is_null().all().alias("b")).filter("b")["run"]
    )
    ncols = min(len(metrics), 3)
    nrows = -(-len(metrics) // ncols)
    labels = [_wrap(r, 22) + ("\n(baseline)" if r in baselines else "") for r in runs]
    lines = sum(label.count("\n") + 1 for label in labels)
    height = max(2.2, 0.3 * lines + 0.35 * len(runs) + 1.2)
    try:
        from matplotlib.figure import Figure  # noqa: PLC0415
        from matplotlib.layout_engine import ConstrainedLayoutEngine  # noqa: PLC0415
        from matplotlib.patches import Patch  # noqa: PLC0415
        from matplotlib.ticker import MaxNLocator  # noqa: PLC0415
    except ImportError as exc:  # pragma: no cover (the test extra has matplotlib)
        msg = 'lodestar_polars.plot needs matplotlib: pip install "lodestar-polars[plot]"'
        raise ImportError(msg) from exc
    figure = Figure(
        figsize=(1.5 + 3.6 * ncols, height * nrows + 0.8),
        layout=ConstrainedLayoutEngine(w_pad=0.1, h_pad=0.1),  # room between the axes
    )
    grid = figure.subplots(nrows, ncols, squeeze=False, sharey=True)
    axes = list(grid.ravel())
    for ax in axes[len(metrics) :]:
        figure.delaxes(ax)
    position = np.arange(len(runs))
    used: set[str] = set()
    for ax, metric in zip(axes, metrics, strict=False):
        part = table.filter(pl.col("metric") == metric)
        order = {r: i for i, r in enumerate(str(r) for r in part["run"])}
        rows = [order.get(r) for r in runs]
        where = np.array([i for i, r in enumerate(rows) if r is not None])
        take = [r for r in rows if r is not None]
        difference = part["difference"].to_numpy().astype(np.float64)[take]
        low = difference - part["ci_low"].fill_null(np.nan).to_numpy().astype(np.float64)[take]
        high = part["ci_high"].fill_null(np.nan).to_numpy().astype(np.float64)[take] - difference
        significant = np.asarray(part["significant"].fill_null(value=False).to_list())[take]
        way = directions[metric]
        base = part["p_value"].is_null().to_numpy()[take]  # the baseline's rows
        colours = []
        for d, s, b in zip(difference, significant, base, strict=True):
            if b:
                colours.append(_NOT_SIGNIFICANT)
                continue
            if not s or d == 0:
                colour = _NOT_SIGNIFICANT
            elif way is None:
                colour = _UNDIRECTED
            else:
                colour = _BETTER if (d > 0) == (way == "higher") else _WORSE
            colours.append(colour)
            used.add(colour)
        ax.barh(
            position[where],
            difference,
            color=colours,
            xerr=np.vstack([np.nan_to_num(low), np.nan_to_num(high)]),
            error_kw={"ecolor": "black", "capsize": 4, "linewidth": 1.0},
        )
        ends = np.where(difference >= 0, difference + high, difference - low)
        for y, d, end, s in zip(position[where], difference, ends, significant, strict=True):
            if s:  # past the end of the interval, clear of the error bar
                ax.annotate(
                    "*",
                    (end, y),
                    xytext=(3 if d >= 0 else -3, -1),
                    textcoords="offset points",
                    ha="left" if d >= 0 else "right",
                    va="center",
                    fontsize=12,
                )
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.margins(x=0.12)  # room for the stars past the intervals
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
        # tilted, each label ending at its tick: it reaches left, never into the next axes
        ax.tick_params(axis="x", labelrotation=30)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")
            label.set_rotation_mode("anchor")
        arrow = {"higher": " (higher is better)", "lower": " (lower is better)"}.get(way or "", "")
        ax.set_title(_wrap(f"{metric}{arrow}", 34), fontsize=10)
        ax.set_xlabel("difference to the baseline")
        ax.grid(alpha=0.3, axis="x")
    axes[0].set_yticks(position, labels)  # shared: written on the first column only
    axes[0].invert_yaxis()
    handles = [
        Patch(facecolor=colour, label=label) for colour, label in _OUTCOMES if colour in used
    ]
    figure.legend(
        handles=handles, loc="outside lower center", ncols=min(len(handles), 2), fontsize=9
    )
    if alpha is not None:
        figure.suptitle(f"* significant at alpha = {alpha}", fontsize=10)
    return figure
