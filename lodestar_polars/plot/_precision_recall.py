"""`precision_recall_curve`: trec_eval's interpolated precision at 11 recall levels, plotted."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.validation import (
    check_option,
)
from lodestar_polars._core.calibration import binary_clf_counts
from lodestar_polars.exceptions import InvalidParameterError

if TYPE_CHECKING:
    from matplotlib.figure import Figure


from lodestar_polars.plot._common import (
    _check_scores,
    _figure,
    _require,
    _roles,
    _runs,
    _runs_moved_to_run,
)

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
