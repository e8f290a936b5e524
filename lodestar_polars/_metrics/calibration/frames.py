"""`lp.group_auc` and `lp.calibration_curve`: frame functions that return a frame."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeVar, cast, get_args

import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.validation import (
    BinStrategy,
    check_column,
    check_columns,
    check_frame,
    check_n_bins,
    check_option,
    check_strategy,
    give_back,
    names_of,
    select_roles,
)
from lodestar_polars._metrics.calibration.expressions import (
    ONE_CLASS,
    _bin_of,
    _Inputs,
    roc_auc_metric,
    unit_range_check,
)
from lodestar_polars._metrics.expr import (
    Metric,
)
from lodestar_polars.exceptions import InvalidParameterError, RefusedGroupError
from lodestar_polars.typing import IntoExprColumn

GroupWeight = Literal["impressions", "uniform"]
FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def _roles(
    frame: object, y_true: object, y_score: object, by: object, caller: str, score: str
) -> tuple[pl.LazyFrame, bool, pl.Expr, pl.Expr, list[pl.Expr]]:
    """The frame and the column roles, checked: ``(lazy, was_lazy, y_true, score, by)``."""
    truth = check_column(y_true, "y_true", caller)
    prob = check_column(y_score, score, caller)
    assert truth is not None
    assert prob is not None
    keys = [] if by is None else check_columns(by, "by", caller)
    lazy, was_lazy = check_frame(frame, "frame", caller)
    select_roles(lazy, {"by": keys, "y_true": [truth], score: [prob]}, "frame", caller)
    return lazy, was_lazy, truth, prob, keys


def _describe(row: dict[str, object], keys: list[str]) -> str:
    return ", ".join(f"{key}={row[key]!r}" for key in keys)


def _raise_refused(caller: str, refused: pl.DataFrame, keys: list[str]) -> None:
    """Raise :class:`RefusedGroupError` naming the groups in ``refused`` and their reasons."""
    if not refused.height:
        return
    shown = refused.sort(keys).head(_SHOWN) if keys else refused
    lines = [
        f"  {_describe(row, keys) if keys else 'the frame'}: {row['reason']}"
        for row in shown.iter_rows(named=True)
    ]
    if refused.height > shown.height:
        lines.append(f"  ... and {refused.height - shown.height} more")
    msg = f"{caller} refused {refused.height} group(s):\n" + "\n".join(lines)
    raise RefusedGroupError(msg)


_SHOWN = 5


@renamed(weight="weighting")
def group_auc(
    frame: FrameT,
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    by: IntoExprColumn | Sequence[IntoExprColumn],
    weighting: GroupWeight = "impressions",
) -> FrameT:
    r"""Group AUC: the mean of per-user ROC AUC, weighted by each user's impressions.

    .. math:: \mathrm{GAUC} = \frac{\sum_u n_u \, \mathrm{AUC}_u}{\sum_u n_u}

    over the users ``u`` (the groups of ``by``) that have both classes,
    ``n_u`` a user's rows (impressions).  A user with clicks only, or none,
    has no AUC: it is skipped and counted.

    Parameters
    ----------
    frame : polars.DataFrame, polars.LazyFrame or Arrow data
        A long frame, one row per impression.  It is read once when
        ``group_auc`` is called (a refused user raises then); a ``LazyFrame``
        gets its one-row result back as a ``LazyFrame``.
    y_true : str or polars.Expr
        True (or 1) on the clicked (positive) rows, False (or 0) elsewhere.
    y_score : str or polars.Expr
        The scores.
    by : str, polars.Expr or sequence of them
        The column(s) naming a user (or a session, a query).
    weighting : {"impressions", "uniform"}, default="impressions"
        ``"impressions"`` weighs each user by its rows; ``"uniform"`` gives
        every scored user the same weight.  Called ``weight`` before 0.2.0
        (the old name warns until 0.3.0): ``weight`` names a column of
        weights everywhere else.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        One row: ``group_auc`` (Float64, null when no user has both
        classes), ``users`` (users scored), ``skipped_one_class`` (users
        skipped for having one class) and ``impressions`` (the rows of the
        scored users).

    Raises
    ------
    InvalidParameterError
        ``weighting`` not one of its options; a role that is not a column name
        or expression, or names a column the frame lacks; ``frame`` not a frame.
    RefusedGroupError
        A user breaks a rule other than having one class (a NaN score, a
        non-binary label): its key and the sentence, as
        :func:`lodestar_polars.evaluate` reports it.

    See Also
    --------
    roc_auc : the AUC of one group.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> log = pl.DataFrame(
    ...     {
    ...         "user": ["a", "a", "a", "a", "b", "b", "c", "c"],
    ...         "click": [0, 0, 1, 1, 1, 0, 1, 1],
    ...         "score": [0.1, 0.4, 0.35, 0.8, 0.2, 0.6, 0.5, 0.4],
    ...     }
    ... )
    >>> lp.group_auc(log, "click", "score", by="user")
    shape: (1, 4)
    ┌───────────┬───────┬───────────────────┬─────────────┐
    │ group_auc ┆ users ┆ skipped_one_class ┆ impressions │
    │ ---       ┆ ---   ┆ ---               ┆ ---         │
    │ f64       ┆ u32   ┆ u32               ┆ u32         │
    ╞═══════════╪═══════╪═══════════════════╪═════════════╡
    │ 0.5       ┆ 2     ┆ 1                 ┆ 6           │
    └───────────┴───────┴───────────────────┴─────────────┘

    User ``a`` scores 0.75 over 4 impressions, ``b`` 0.0 over 2:
    ``(4 * 0.75 + 2 * 0) / 6 = 0.5``; ``c`` clicked everything and is skipped.
    """
    caller = "group_auc"
    weighting = check_option(  # type: ignore[assignment]
        weighting, "weighting", caller, get_args(GroupWeight)
    )
    lazy, was_lazy, truth, score, by_exprs = _roles(frame, y_true, y_score, by, caller, "y_score")
    if not by_exprs:
        msg = f"The 'by' parameter of {caller} must name the user column(s). Got None instead."
        raise InvalidParameterError(msg)
    keys = names_of(by_exprs)
    metric = roc_auc_metric(truth, score)
    per_user = (
        lazy.group_by(by_exprs)
        .agg(
            metric.expr().alias("auc"),
            metric.reason().alias("reason"),
            pl.len().alias("impressions"),
        )
        .collect()
    )
    one_class = pl.col("reason") == ONE_CLASS
    _raise_refused(caller, per_user.filter(pl.col("reason").is_not_null() & ~one_class), keys)
    # in key order: the sum, hence its last bit, does not depend on the group order
    scored = per_user.filter(pl.col("auc").is_not_null()).sort(keys)
    if weighting == "impressions":
        w = pl.col("impressions").cast(pl.Float64)
        mean = (w * pl.col("auc")).sum() / w.sum()
    else:
        mean = pl.col("auc").mean()
    out = scored.select(
        group_auc=pl.when(pl.len() > 0).then(mean),
        users=pl.len(),
        skipped_one_class=pl.lit(per_user.height - scored.height, dtype=pl.UInt32),
        impressions=pl.col("impressions").sum().cast(pl.UInt32),
    )
    return out.lazy() if was_lazy else out  # type: ignore[return-value]


def calibration_curve(
    frame: FrameT,
    y_true: IntoExprColumn,
    y_prob: IntoExprColumn,
    *,
    n_bins: int = 5,
    strategy: BinStrategy = "uniform",
    by: IntoExprColumn | Sequence[IntoExprColumn] | None = None,
) -> FrameT:
    """scikit-learn's ``calibration_curve`` as a table, for a whole frame or per group.

    The probabilities are cut into ``n_bins`` bins; each non-empty bin gives
    the fraction of positives (``prob_true``) and the mean probability
    (``prob_pred``), the two arrays ``sklearn.calibration.calibration_curve``
    returns, and its number of rows.

    Parameters
    ----------
    frame : polars.DataFrame, polars.LazyFrame or Arrow data
        A long frame.  A ``LazyFrame`` gives a ``LazyFrame``; its rules are
        checked when ``calibration_curve`` is called (one read of the frame).
    y_true : str or polars.Expr
        True (or 1) on the positive rows, False (or 0) elsewhere.
    y_prob : str or polars.Expr
        The predicted probability of the positive class, in [0, 1].
    n_bins : int, default=5
        The number of bins (scikit-learn's default).
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins on [0, 1], or edges at the quantiles of ``y_prob``
        (of each group's own, with ``by``).
    by : str, polars.Expr or sequence of them, default=None
        Group columns: one curve per group.  None: one curve for the frame.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        The ``by`` columns, then ``bin`` (Int64, 0-based), ``prob_true``,
        ``prob_pred`` (Float64) and ``count`` (UInt32): one row per non-empty
        bin, sorted by group and bin.

    Raises
    ------
    InvalidParameterError
        ``n_bins`` or ``strategy`` outside its domain (scikit-learn's sentences);
        a role that is not a column name or expression, or names a column the
        frame lacks; ``frame`` not a frame.
    RefusedGroupError
        A group (or the frame) with a probability outside [0, 1] ("y_prob has
        values outside [0, 1].", scikit-learn's sentence), a non-binary
        ``y_true``, or a null, NaN or infinite value.

    See Also
    --------
    expected_calibration_error : the bins' weighted gap, as one number.
    lodestar_polars.arrays.calibration_curve : scikit-learn's surface.
    lodestar_polars.plot.calibration_diagram : the curve drawn.

    Examples
    --------
    scikit-learn's docstring example:

    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {
    ...         "y": [0, 0, 0, 0, 1, 1, 1, 1, 1],
    ...         "p": [0.1, 0.2, 0.3, 0.4, 0.65, 0.7, 0.8, 0.9, 1.0],
    ...     }
    ... )
    >>> lp.calibration_curve(df, "y", "p", n_bins=3)
    shape: (3, 4)
    ┌─────┬───────────┬───────────┬───────┐
    │ bin ┆ prob_true ┆ prob_pred ┆ count │
    │ --- ┆ ---       ┆ ---       ┆ ---   │
    │ i64 ┆ f64       ┆ f64       ┆ u32   │
    ╞═════╪═══════════╪═══════════╪═══════╡
    │ 0   ┆ 0.0       ┆ 0.2       ┆ 3     │
    │ 1   ┆ 0.5       ┆ 0.525     ┆ 2     │
    │ 2   ┆ 1.0       ┆ 0.85      ┆ 4     │
    └─────┴───────────┴───────────┴───────┘
    """
    caller = "calibration_curve"
    n_bins = check_n_bins(n_bins, caller)
    strategy = check_strategy(strategy, caller)
    lazy, was_lazy, truth, prob, by_exprs = _roles(frame, y_true, y_prob, by, caller, "y_prob")
    keys = names_of(by_exprs)
    c: _Inputs = _Inputs(truth, prob, caller)
    checks = Metric("ok", pl.lit(0.0), (*c.checks, unit_range_check(c.score)))
    lazy = lazy.with_columns(by_exprs) if by_exprs else lazy
    grouped = lazy.group_by(keys) if keys else None
    if grouped is None:
        reasons = lazy.select(checks.reason().alias("reason")).collect()
    else:
        reasons = grouped.agg(checks.reason().alias("reason")).collect()
    _raise_refused(caller, reasons.filter(pl.col("reason").is_not_null()), keys)
    bin_id = _bin_of(c.score, n_bins, strategy)
    if keys:
        bin_id = bin_id.over(keys)
    curve = (
        lazy.select(*keys, bin_id.alias("bin"), c.truth.alias("__y"), c.score.alias("__p"))
        .group_by(*keys, "bin")
        .agg(
            prob_true=pl.col("__y").sum() / pl.len(),
            prob_pred=pl.col("__p").sum() / pl.len(),
            count=pl.len(),
        )
        .sort(*keys, "bin")
    )
    return cast("FrameT", give_back(curve, lazy=was_lazy))
