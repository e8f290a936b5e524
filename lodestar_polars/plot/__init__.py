"""Plots of evaluation results: each function returns a matplotlib ``Figure``.

matplotlib is an optional extra (``pip install "lodestar-polars[plot]"``),
imported inside each function: ``import lodestar_polars`` imports neither it
nor this module.  Every function reads Polars frames in the shapes the rest
of the package produces (per-query values, a compare table, a long log) and
computes what it draws with the package's own functions, so a figure shows
the numbers the metrics report.

* :func:`metric_at_k` -- a metric against the cutoff ``k``, one line per run;
* :func:`per_query_distribution` -- the per-query values of each run, and
  their difference to a baseline query by query;
* :func:`precision_recall_curve` -- trec_eval's interpolated precision at 11
  recall levels averaged over queries, or precision against recall over the
  pooled score thresholds, one curve per run;
* :func:`calibration_diagram` -- the fraction of positives against the mean
  probability per bin (:func:`lodestar_polars.calibration_curve`);
* :func:`comparison_chart` -- a compare table's differences to the baseline
  with their confidence intervals, significant ones marked;
* :func:`budget_curve` -- recall against cost per candidate source, the Pareto front and
  what each budget buys (:func:`lodestar_polars.budget_curve`; in ``_plot_budget.py``).
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import numpy as np
import polars as pl

from lodestar_polars._base.deprecation import RENAMED_IN, renamed
from lodestar_polars._base.validation import (
    BinStrategy,
    check_column,
    check_frame,
    check_option,
    select_roles,
)
from lodestar_polars._core.calibration import binary_clf_counts
from lodestar_polars._metrics.calibration import calibration_curve
from lodestar_polars.exceptions import InvalidParameterError
from lodestar_polars.plot._budget import budget_curve

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from lodestar_polars._compare.comparison import Comparison

P = ParamSpec("P")
R = TypeVar("R")

__all__ = [
    "budget_curve",
    "calibration_diagram",
    "comparison_chart",
    "metric_at_k",
    "per_query_distribution",
    "precision_recall_curve",
]

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


def _figure(ncols: int = 1, width: float = 6.0) -> tuple[Figure, Any]:
    try:
        from matplotlib.figure import Figure  # noqa: PLC0415
    except ImportError as exc:  # pragma: no cover (the test extra has matplotlib)
        msg = 'lodestar_polars.plot needs matplotlib: pip install "lodestar-polars[plot]"'
        raise ImportError(msg) from exc
    figure = Figure(figsize=(width * ncols, 4.0), layout="constrained")
    axes = figure.subplots(1, ncols, squeeze=False)[0]
    return figure, axes


def _require(frame: object, columns: Sequence[str], caller: str) -> pl.DataFrame:
    """The frame to draw: a DataFrame, a LazyFrame (collected) or Arrow data, with ``columns``."""
    lazy, _ = check_frame(frame, "frame", caller)
    frame = lazy.collect()
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        msg = f"{caller}: the frame has no column {missing[0]!r} (columns: {frame.columns})"
        raise ValueError(msg)
    if frame.is_empty():
        msg = f"{caller}: the frame has no rows"
        raise ValueError(msg)
    return frame


def _roles(
    frame: object,
    caller: str,
    required: dict[str, object],
    optional: dict[str, object] | None = None,
) -> tuple[pl.LazyFrame, list[str], list[str | None]]:
    """The frame, and its roles as column names: each given as a name or a Polars expression.

    An expression plays its role under its output name (``pl.col("ndcg@10").alias("ndcg")``);
    one that is not a plain column is computed into that column first, a column it reads that
    the frame lacks refused naming the role.  Names pass as they are (:func:`_require` names a
    missing one).  ``optional`` roles may be None (absent).
    """
    names: dict[str, str | None] = {}
    computed: dict[str, pl.Expr] = {}
    given = {**required, **(optional or {})}
    for role, value in given.items():
        expr = check_column(value, role, caller, allow_none=role not in required)
        name = None if expr is None else expr.meta.output_name()
        names[role] = name
        if (
            expr is not None
            and isinstance(value, pl.Expr)
            and not (value.meta.is_column() and value.meta.output_name() == name)
        ):
            computed[role] = expr
    lazy, _ = check_frame(frame, "frame", caller)
    if computed:
        select_roles(lazy, {role: [e] for role, e in computed.items()}, "the frame", caller)
        lazy = lazy.with_columns(list(computed.values()))
    must = [str(names[role]) for role in required]
    return lazy, must, [names[role] for role in optional or {}]


def _runs(frame: pl.DataFrame, run: str) -> list[Any]:
    return frame.get_column(run).unique(maintain_order=True).to_list()


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


def _runs_moved_to_run(function: Callable[P, R]) -> Callable[P, R]:
    """``precision_recall_curve``'s ``by`` named the runs before 0.2.0; it names the queries now.

    An old call with both ``by`` (runs) and ``query`` is read as ``run=by,
    by=query``; a call with ``by`` and no ``run`` (nor ``query``) cannot be told
    apart from a new one, so it warns that the meaning changed (``run=None``
    says it is meant).  Both with a ``FutureWarning``.
    """

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        if "run" not in kwargs and kwargs.get("by") is not None:
            if "query" in kwargs:
                kwargs["run"] = kwargs.pop("by")
                kwargs["by"] = kwargs.pop("query")
                msg = (
                    f"{function.__name__}: `by` names the query column and `query` is renamed "
                    f"`by` (lodestar_polars {RENAMED_IN}); the runs go in `run`. Read as "
                    f"run={kwargs['run']!r}, by={kwargs['by']!r}."
                )
            else:
                msg = (
                    f"{function.__name__}: `by` names the query column since lodestar_polars "
                    f"{RENAMED_IN} (it named the runs before); the runs go in `run`. Pass "
                    "run=None to say by= is the query column."
                )
            warnings.warn(msg, FutureWarning, stacklevel=2)
        return function(*args, **kwargs)

    wrapper.__signature__ = inspect.signature(function)  # type: ignore[attr-defined]
    return wrapper


# trec_eval's 11 recall levels 0.0, 0.1, ..., 1.0 (k / 10: the doubles of its C literals)
_RECALL_LEVELS = np.arange(11) / 10

_PR_CURVES = ("interpolated", "pooled")


@_runs_moved_to_run
@renamed(query="by")
def precision_recall_curve(
    frame: pl.DataFrame | pl.LazyFrame,
    y_true: str | pl.Expr,
    y_score: str | pl.Expr,
    *,
    by: str | pl.Expr | None = None,
    run: str | pl.Expr | None = None,
    curve: str | None = None,
) -> Figure:
    """Precision against recall, one curve per run: per query, or pooled.

    With ``by``, the query column (IR input: each query its own ranking), the curve is
    trec_eval's ``iprec_at_recall``: each query's interpolated precision at the 11 recall levels
    0.0, 0.1, ..., 1.0, averaged over the queries.  The interpolated precision at
    recall ``r`` is the largest precision at any cut of the query's ranking whose
    recall is at least ``r`` (0 where no cut reaches ``r``); recall divides by the
    query's positive rows.  As trec_eval, level ``r`` needs ``int(r * R + 0.9)`` of
    the ``R`` positives, and a query with no positive row counts as 0 at every level
    (the legend says how many).

    ``curve="pooled"`` (the only curve without ``by``) ranks every row of a group
    at once: scikit-learn's ``precision_recall_curve``, drawn as the step function
    average precision sums.  Either way tied scores form one cut (every tied row in,
    or none), and the title says which curve is drawn.

    Parameters
    ----------
    frame
        A long frame, one row per scored item.
    y_true, y_score : str or polars.Expr
        The 0/1 (or bool) label and the score columns.  A null, NaN or infinite
        score is refused.  Every role here takes a name or an expression
        (under its output name).
    by : str or polars.Expr, default=None
        The column naming queries: each ranks its own rows.  (Called ``query``
        before 0.2.0; ``by`` then named the runs, which go in ``run`` now.  A
        call with ``by`` and without ``run`` warns that the meaning changed:
        pass ``run=None`` to say ``by`` is the query column.  An old call with
        both ``by`` and ``query`` is read as ``run=by, by=query``, with a
        ``FutureWarning``.)
    run : str or polars.Expr, default=None
        A column naming runs (or models): one curve each.
    curve : {"interpolated", "pooled"}, default=None
        ``"interpolated"`` (the default with ``by``; it needs ``by``): the mean
        over queries of the interpolated precision at the 11 recall levels.
        ``"pooled"`` (the default without ``by``): one precision-recall curve
        over all rows of a run.

    Returns
    -------
    matplotlib.figure.Figure
        One axes, recall on x and precision on y.  The legend gives each curve's
        trec_eval ``11pt_avg`` (the mean of its 11 points), and in its title how many
        queries are averaged (and how many have no positive); pooled, each curve's
        average precision.

    Raises
    ------
    InvalidParameterError
        ``curve`` not one of the two, or ``"interpolated"`` without ``by``.
    ValueError
        A missing column, no rows, a label that is not 0/1 or a group with no
        positive, a score that is not numeric, or null, NaN or infinite, a null run
        or query.

    Examples
    --------
    >>> import polars as pl
    >>> from lodestar_polars import plot
    >>> log = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
    >>> plot.precision_recall_curve(log, "y", "s").axes[0].get_legend_handles_labels()[1]
    ['AP 0.833']

    Two queries: the first ranks its positive first, the second second.

    >>> log = pl.DataFrame(
    ...     {"q": [1, 1, 2, 2], "y": [1, 0, 0, 1], "s": [0.9, 0.2, 0.8, 0.7]}
    ... )
    >>> figure = plot.precision_recall_curve(log, "y", "s", by="q", run=None)
    >>> figure.axes[0].get_lines()[0].get_ydata().tolist()  # (1 + 1/2) / 2 at every level
    [0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75]
    >>> print(figure.axes[0].get_title())
    interpolated precision, mean over queries
    (trec_eval iprec_at_recall, 11 recall levels)
    >>> figure.axes[0].get_legend().get_title().get_text()
    '2 queries'
    """
    caller = "precision_recall_curve"
    frame, (y_true, y_score), (by, run) = _roles(
        frame, caller, {"y_true": y_true, "y_score": y_score}, {"by": by, "run": run}
    )
    if curve is None:
        curve = "pooled" if by is None else "interpolated"
    curve = check_option(curve, "curve", caller, _PR_CURVES)
    if curve == "interpolated" and by is None:
        msg = (
            "The 'curve' parameter of precision_recall_curve is 'interpolated', which needs "
            "the query column 'by': each query's interpolated precision is averaged over "
            "queries. Give by=..., or curve='pooled'."
        )
        raise InvalidParameterError(msg)
    frame = _require(frame, [c for c in (y_true, y_score, run, by) if c is not None], caller)
    _check_scores(frame, y_score, run, caller)
    for label, col in (("run", run), ("query", by)):
        if col is not None and frame[col].null_count():
            msg = (
                f"{caller}: the {label} column {col!r} has {frame[col].null_count()} null value(s)"
            )
            raise ValueError(msg)
    figure, (axes,) = _figure()
    groups = (
        [(None, frame)]
        if run is None
        else [(name, frame.filter(pl.col(run) == name)) for name in _runs(frame, run)]
    )
    counts: list[tuple[int, int]] = []  # (queries, queries with no positive) per curve
    for name, part in groups:
        truth = part[y_true].cast(pl.Float64, strict=False).fill_null(np.nan).to_numpy()
        if not np.isin(truth, (0.0, 1.0)).all() or truth.sum() == 0:
            msg = f"{caller}: {y_true!r} must be 0/1 with at least one positive"
            raise ValueError(msg + ("" if name is None else f" (group {name!r})"))
        score = part[y_score].cast(pl.Float64).to_numpy()
        if curve == "pooled":
            fps, tps, _ = binary_clf_counts(truth == 1.0, score, None)
            precision = tps / (tps + fps)
            recall = tps / tps[-1]
            ap = float(np.sum(np.diff(recall, prepend=0.0) * precision))
            label = f"AP {ap:.3f}"
            axes.step(
                np.concatenate(([0.0], recall)),
                np.concatenate(([precision[0]], precision)),
                where="pre",
                label=label if name is None else f"{name} ({label})",
            )
            continue
        assert by is not None  # checked above
        levels, n_queries, n_empty = _iprec_at_recall(part[by], truth, score)
        counts.append((n_queries, n_empty))
        label = f"11-pt avg {float(np.mean(levels)):.3f}"
        axes.plot(
            _RECALL_LEVELS, levels, marker="o", label=label if name is None else f"{name}: {label}"
        )
    axes.set_xlim(0.0, 1.02)
    axes.set_ylim(0.0, 1.02)
    axes.set_xlabel("recall")
    if curve == "pooled":
        axes.set_ylabel("precision")
        axes.set_title("precision-recall curve, all rows pooled")
        legend_title = None
    else:
        axes.set_ylabel("interpolated precision")
        axes.set_title(
            "interpolated precision, mean over queries\n"
            "(trec_eval iprec_at_recall, 11 recall levels)"
        )

        # how many queries each curve averages; one line when the runs share the counts
        def averaged(n: int, empty: int) -> str:
            return f"{n} queries" + (f", {empty} with no positive (0)" if empty else "")

        names = [name for name, _ in groups]
        legend_title = (
            averaged(*counts[0])
            if len(set(counts)) == 1
            else "\n".join(f"{n}: {averaged(*c)}" for n, c in zip(names, counts, strict=True))
        )
    axes.grid(alpha=0.3)
    axes.legend(title=legend_title, loc="lower left", fontsize="small", title_fontsize="small")
    return figure


def _check_scores(frame: pl.DataFrame, y_score: str, run: str | None, caller: str) -> None:
    """A numeric score on every row, finite: scikit-learn's sentences, then where."""
    dtype = frame.schema[y_score]
    if not dtype.is_numeric():
        msg = f"{caller}: the score column {y_score!r} must be numeric; it is {dtype}"
        raise ValueError(msg)
    score = pl.col(y_score).cast(pl.Float64)
    for what, bad in (
        ("NaN", score.is_null() | score.is_nan()),
        ("infinity or a value too large for dtype('float64')", score.is_infinite()),
    ):
        rows = frame.filter(bad)
        if rows.height:
            where = "" if run is None else f", the first in group {rows[run][0]!r}"
            msg = (
                f"Input contains {what}. {caller}: the score column {y_score!r} has "
                f"{rows.height} {'null or NaN' if what == 'NaN' else 'infinite'} value(s)"
                f"{where}; such a row has no place in a ranking: drop it or give it a score."
            )
            raise ValueError(msg)


def _iprec_at_recall(
    query: pl.Series, truth: np.ndarray, score: np.ndarray
) -> tuple[np.ndarray, int, int]:
    """trec_eval's ``iprec_at_recall`` at the 11 levels, averaged over the queries.

    Returns the 11 means, the number of queries and of queries with no positive.
    Each query's rows are ranked by score, tied scores one cut; at each cut the
    precision is ``hits / rows``, and its interpolated precision the largest at
    that cut or any later one.  Level ``r`` takes the interpolated precision at
    the first cut holding ``int(r * R + 0.9)`` hits (trec_eval's count of the
    query's ``R`` positives), or 0 if none does.
    """
    rows = pl.DataFrame(
        {"q": query, "y": truth, "s": score + 0.0}  # + 0.0: -0.0 and 0.0 one score
    ).sort(["q", "s"], descending=[False, True], maintain_order=True)
    ranked = rows.with_columns(
        n=pl.int_range(1, pl.len() + 1).over("q"),
        hits=pl.col("y").cum_sum().over("q"),
        positives=pl.col("y").sum().over("q"),
    )
    cuts = (
        ranked.filter(pl.col("n") == pl.col("n").max().over("q", "s"))  # each tie's last row
        .with_columns(precision=pl.col("hits") / pl.col("n"))
        .with_columns(
            interpolated=pl.col("precision").reverse().cum_max().reverse().over("q"),
        )
    )
    need = pl.DataFrame({"level": range(_RECALL_LEVELS.size), "r": _RECALL_LEVELS})
    reached = (
        cuts.join(need, how="cross")
        .filter(pl.col("hits") >= (pl.col("r") * pl.col("positives") + 0.9).floor())
        .group_by("q", "level")
        .agg(pl.col("interpolated").first())  # the first cut reaching the level
    )
    sums = reached.group_by("level").agg(pl.col("interpolated").sum())
    total = np.zeros(_RECALL_LEVELS.size)
    total[sums["level"].to_numpy()] = sums["interpolated"].to_numpy()
    per_query = rows.group_by("q").agg(pl.col("y").sum())
    n_queries = per_query.height
    return total / n_queries, n_queries, int((per_query["y"] == 0).sum())


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
