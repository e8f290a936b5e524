"""ROC AUC, log loss, Brier score and calibration as Polars expressions and frame functions.

The expressions (:func:`roc_auc`, :func:`log_loss`, :func:`brier_score`,
:func:`expected_calibration_error`) reduce one group to one Float64, like every
metric of the package; their :class:`~lodestar_polars._metrics.expr.Metric` builders
(``*_metric``) carry the rules a group must pass, for
:func:`lodestar_polars.evaluate`.  :func:`group_auc` and
:func:`calibration_curve` take a whole frame and return a frame: the first
averages per-user AUCs, the second is scikit-learn's ``calibration_curve`` as a
table.  The arithmetic is :mod:`lodestar_polars._core.calibration`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeVar, cast, get_args

import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.messages import python_text
from lodestar_polars._base.validation import (
    ROC_AUC_ONE_CLASS,
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
from lodestar_polars._core.calibration import (
    auc_from_rank_sum,
    brier_row,
    calibration_gap,
    lerp,
    log_loss_row,
    percentile_position,
    quantile_levels,
    uniform_edges,
)
from lodestar_polars._metrics.expr import (
    Check,
    Metric,
    as_float,
    as_score,
    binary_check,
    input_checks,
)
from lodestar_polars.exceptions import InvalidParameterError, RefusedGroupError
from lodestar_polars.typing import IntoExprColumn

GroupWeight = Literal["impressions", "uniform"]
FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)

ONE_CLASS = ROC_AUC_ONE_CLASS
"""scikit-learn's sentence (an ``UndefinedMetricWarning`` there) for a group AUC cannot score."""


def _probability_checks(prob: pl.Expr, below: str) -> tuple[Check, ...]:
    """scikit-learn's range checks of ``y_prob``: above 1 first, then below 0."""
    high, low = prob > 1.0, prob < 0.0
    return (
        Check(
            high.any(),
            pl.format("y_prob contains values greater than 1: {}", python_text(prob.max())),
            high,
        ),
        Check(
            low.any(),
            pl.format(f"y_prob contains values {below} than 0: {{}}", python_text(prob.min())),
            low,
        ),
    )


class _Inputs:
    """A binary ``y_true`` and a score or probability, with the rules every metric here makes.

    ``checks`` are the rules in the order the reason reads them: a group with
    no rows, a null, NaN or infinite value, then a ``y_true`` other than 0
    and 1.  ``finite`` and ``binary`` are the two parts, for a metric that
    puts a rule of its own between them (``log_loss``, as scikit-learn).
    """

    def __init__(
        self, y_true: IntoExprColumn, y_score: IntoExprColumn, caller: str, role: str = "y_prob"
    ) -> None:
        self.truth = as_float(y_true)
        self.score = as_float(y_score)
        self.n = pl.len().cast(pl.Float64)
        self.finite = input_checks(self.truth, self.score, score_role=role)
        self.binary = binary_check(self.truth, caller)
        self.checks: tuple[Check, ...] = (*self.finite, self.binary)


# --------------------------------------------------------------------------- metric builders


def roc_auc_metric(
    y_true: IntoExprColumn, y_score: IntoExprColumn, *, name: str = "roc_auc"
) -> Metric:
    """The :class:`Metric` behind :func:`roc_auc`."""
    c = _Inputs(y_true, y_score, "roc_auc", "y_score")
    positive = c.truth == 1.0
    n_positive = positive.sum().cast(pl.Float64)
    n_negative = c.n - n_positive
    one_class = Check((n_positive == 0) | (n_negative == 0), pl.lit(ONE_CLASS))
    # ranked in the score's own dtype: integers past 2**53 stay apart (issue 8)
    rank_sum = as_score(y_score).rank("average").filter(positive).sum().cast(pl.Float64)
    value = auc_from_rank_sum(rank_sum, n_positive, n_negative)
    return Metric(name, value, (*c.checks, one_class))


def log_loss_metric(
    y_true: IntoExprColumn, y_prob: IntoExprColumn, *, name: str = "log_loss"
) -> Metric:
    """The :class:`Metric` behind :func:`log_loss`."""
    c = _Inputs(y_true, y_prob, "log_loss")
    value = log_loss_row(c.truth, c.score).mean()
    # scikit-learn's log_loss checks the range of y_prob before it reads the labels
    rules = (*c.finite, *_probability_checks(c.score, "lower"), c.binary)
    return Metric(name, value, rules)


def brier_score_metric(
    y_true: IntoExprColumn, y_prob: IntoExprColumn, *, name: str = "brier_score"
) -> Metric:
    """The :class:`Metric` behind :func:`brier_score`."""
    c = _Inputs(y_true, y_prob, "brier_score")
    value = brier_row(c.truth, c.score).mean()
    return Metric(name, value, (*c.checks, *_probability_checks(c.score, "less")))


def _inner_edges(prob: pl.Expr, n_bins: int, strategy: BinStrategy) -> list[pl.Expr]:
    """The ``n_bins - 1`` inner bin edges, ascending: constants, or the group's quantiles."""
    if strategy == "uniform":
        return [pl.lit(float(edge)) for edge in uniform_edges(n_bins)]
    ranked = prob.sort()
    n = pl.len().cast(pl.Float64)
    edges = []
    for level in quantile_levels(n_bins):
        previous, following, t = percentile_position(n, float(level))
        a = ranked.gather(previous.cast(pl.Int64)).first()
        b = ranked.gather(following.cast(pl.Int64)).first()
        edges.append(lerp(a, b, t))
    return edges


def _bin_of(prob: pl.Expr, n_bins: int, strategy: BinStrategy) -> pl.Expr:
    """Each row's bin: the inner edges strictly below it (``np.searchsorted``, side left)."""
    below = [(edge < prob).cast(pl.Int64) for edge in _inner_edges(prob, n_bins, strategy)]
    return pl.sum_horizontal(below) if below else pl.lit(0, dtype=pl.Int64)


def _ece(truth: pl.Expr, prob: pl.Expr, n_bins: int, strategy: BinStrategy) -> pl.Expr:
    """The ECE of one group, bin by bin.

    A bin is the rows between two consecutive edges, ``lower < p <= upper``,
    summed with ``filter``: ``group_by().agg()`` refuses a window (``.over``)
    keyed by a value that is not elementwise (the bin of a row), and each
    bin's sums stay exact, as ``np.bincount`` makes them (a cumulative sum
    read at the bin ends would lose the digits of small gaps to the running
    total).  The cost is one pass per bin.  With quantile bins it is more:
    Polars does not share a subexpression inside ``group_by().agg()``, so
    every bin's filter sorts the group again for its edges (measured: 63 s
    for 1e4 groups of 20 rows, against 0.17 s for uniform bins).  Holding the
    bins once in a struct (``_metrics.expr.let``) took 3.3 s but gave wrong values
    under the lazy engine's optimisations in Polars 2.1.0, so it is not used.
    """
    edges = _inner_edges(prob, n_bins, strategy)
    n = pl.len().cast(pl.Float64)
    gaps = []
    for lower, upper in zip([None, *edges], [*edges, None], strict=True):
        inside = pl.lit(value=True)
        if lower is not None:
            inside = inside & (prob > lower)
        if upper is not None:
            inside = inside & (prob <= upper)
        count = inside.sum().cast(pl.Float64)
        prob_true = truth.filter(inside).sum() / count
        prob_pred = prob.filter(inside).sum() / count
        gaps.append(
            pl.when(count > 0).then(calibration_gap(count, n, prob_true, prob_pred)).otherwise(0.0)
        )
    return pl.sum_horizontal(gaps)


def expected_calibration_error_metric(
    y_true: IntoExprColumn,
    y_prob: IntoExprColumn,
    *,
    n_bins: int = 10,
    strategy: BinStrategy = "uniform",
    name: str = "expected_calibration_error",
) -> Metric:
    """The :class:`Metric` behind :func:`expected_calibration_error`."""
    caller = "expected_calibration_error"
    n_bins = check_n_bins(n_bins, caller)
    strategy = check_strategy(strategy, caller)
    c = _Inputs(y_true, y_prob, caller)
    outside = (c.score < 0.0) | (c.score > 1.0)
    in_range = Check.any_row(outside, pl.lit("y_prob has values outside [0, 1]."))
    value = _ece(c.truth, c.score, n_bins, strategy)
    return Metric(name, value, (*c.checks, in_range))


# --------------------------------------------------------------------------- expressions


def roc_auc(y_true: IntoExprColumn, y_score: IntoExprColumn) -> pl.Expr:
    r"""Area under the ROC curve of one group: scikit-learn's binary ``roc_auc_score``.

    .. math::

        \mathrm{AUC} = \frac{1}{n_+ n_-} \sum_{i: y_i = 1} \sum_{j: y_j = 0}
        \Big( [s_i > s_j] + \tfrac{1}{2} [s_i = s_j] \Big)

    the share of (positive, negative) pairs the score orders correctly, a tie
    counting one half, computed from the positives' average ranks
    (Mann-Whitney) in one sort.

    Parameters
    ----------
    y_true
        True (or 1) on the positive rows, False (or 0) elsewhere.
    y_score
        Scores, probabilities or any monotone function of them.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``roc_auc``, one value per group, in [0, 1];
        0.5 is chance.

    See Also
    --------
    group_auc : the impression-weighted mean of per-user AUC.
    lodestar_polars.arrays.roc_auc_score : scikit-learn's surface (weights, ``max_fpr``).

    Notes
    -----
    AUC reads the order of the scores only: any strictly increasing
    transform leaves it unchanged, so it says nothing about calibration (see
    :func:`log_loss` and :func:`expected_calibration_error`).  A group is
    refused (null) when it has a single class (scikit-learn warns "Only one
    class is present in y_true. ROC AUC score is not defined in that case."
    and returns NaN), when ``y_true`` is not binary, or a value is null, NaN
    or infinite; ``lp.evaluate(..., ["roc_auc"])`` names such a group and
    its sentence.

    Examples
    --------
    scikit-learn's example (0.75) and a user with clicks only:

    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {
    ...         "user": ["a", "a", "a", "a", "b", "b"],
    ...         "click": [0, 0, 1, 1, 1, 1],
    ...         "score": [0.1, 0.4, 0.35, 0.8, 0.3, 0.6],
    ...     }
    ... )
    >>> df.group_by("user", maintain_order=True).agg(auc=lp.roc_auc("click", "score"))
    shape: (2, 2)
    ┌──────┬──────┐
    │ user ┆ auc  │
    │ ---  ┆ ---  │
    │ str  ┆ f64  │
    ╞══════╪══════╡
    │ a    ┆ 0.75 │
    │ b    ┆ null │
    └──────┴──────┘
    """
    return roc_auc_metric(y_true, y_score).expr()


def log_loss(y_true: IntoExprColumn, y_prob: IntoExprColumn) -> pl.Expr:
    r"""Mean log loss (cross-entropy) of one group: scikit-learn's binary ``log_loss``.

    .. math::

        \mathrm{LogLoss} = -\frac{1}{n} \sum_i \big( y_i \ln p_i + (1 - y_i) \ln(1 - p_i) \big)

    with ``p`` and ``1 - p`` each clipped to ``[eps, 1 - eps]`` (``eps`` the
    float64 machine epsilon, 2.22e-16), as scikit-learn clips them.

    Parameters
    ----------
    y_true
        True (or 1) on the positive rows, False (or 0) elsewhere.
    y_prob
        The predicted probability of the positive class, in [0, 1].

    Returns
    -------
    polars.Expr
        A Float64 expression named ``log_loss``, one value per group; lower is
        better: 0 is perfect, ``ln 2 = 0.693`` is a constant 0.5.

    See Also
    --------
    brier_score, expected_calibration_error
    lodestar_polars.arrays.log_loss : scikit-learn's surface (weights, multiclass).

    Notes
    -----
    The labels are 0 and 1 whatever the group holds, as scikit-learn's
    ``log_loss(..., labels=[0, 1])``: a group of one class is scored (without
    ``labels`` scikit-learn refuses it).  A group is refused (null) when a
    probability is above 1 ("y_prob contains values greater than 1: 1.2") or
    below 0 ("y_prob contains values lower than 0: -0.1"), scikit-learn's
    sentences, checked before the labels as scikit-learn checks them, when
    ``y_true`` is not binary, or a value is null, NaN or infinite;
    ``lp.evaluate(..., ["log_loss"])`` names such a group and its sentence.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {
    ...         "user": ["a", "a", "a", "a", "b", "b"],
    ...         "click": [0, 0, 1, 1, 1, 0],
    ...         "prob": [0.1, 0.2, 0.7, 0.9, 0.5, 0.5],
    ...     }
    ... )
    >>> df.group_by("user", maintain_order=True).agg(loss=lp.log_loss("click", "prob"))
    shape: (2, 2)
    ┌──────┬──────────┐
    │ user ┆ loss     │
    │ ---  ┆ ---      │
    │ str  ┆ f64      │
    ╞══════╪══════════╡
    │ a    ┆ 0.197635 │
    │ b    ┆ 0.693147 │
    └──────┴──────────┘
    """
    return log_loss_metric(y_true, y_prob).expr()


def brier_score(y_true: IntoExprColumn, y_prob: IntoExprColumn) -> pl.Expr:
    r"""Mean squared error of the probabilities of one group: ``brier_score_loss``.

    .. math:: \mathrm{Brier} = \frac{1}{n} \sum_i (y_i - p_i)^2

    scikit-learn 1.9.1's binary ``brier_score_loss`` (computed, as there, as
    half the squared distance between ``(1 - y, y)`` and ``(1 - p, p)``).

    Parameters
    ----------
    y_true
        True (or 1) on the positive rows, False (or 0) elsewhere.
    y_prob
        The predicted probability of the positive class, in [0, 1].

    Returns
    -------
    polars.Expr
        A Float64 expression named ``brier_score``, one value per group, in
        [0, 1]; lower is better: 0 is perfect, 0.25 is a constant 0.5.

    See Also
    --------
    log_loss, expected_calibration_error
    lodestar_polars.arrays.brier_score_loss : scikit-learn's surface.

    Notes
    -----
    A group of one class is scored (its positive label is 1, as
    scikit-learn infers it for 0/1 labels).  A group is refused (null) when a
    probability is above 1 ("y_prob contains values greater than 1: 1.2") or
    below 0 ("y_prob contains values less than 0: -0.1"), scikit-learn's
    sentences, when ``y_true`` is not binary, or a value is null, NaN or
    infinite; ``lp.evaluate(..., ["brier_score"])`` names such a group and
    its sentence.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {
    ...         "user": ["a", "a", "a", "a", "b", "b"],
    ...         "click": [0, 1, 1, 0, 1, 0],
    ...         "prob": [0.1, 0.9, 0.8, 0.3, 0.5, 0.5],
    ...     }
    ... )
    >>> df.group_by("user", maintain_order=True).agg(brier=lp.brier_score("click", "prob"))
    shape: (2, 2)
    ┌──────┬────────┐
    │ user ┆ brier  │
    │ ---  ┆ ---    │
    │ str  ┆ f64    │
    ╞══════╪════════╡
    │ a    ┆ 0.0375 │
    │ b    ┆ 0.25   │
    └──────┴────────┘
    """
    return brier_score_metric(y_true, y_prob).expr()


def expected_calibration_error(
    y_true: IntoExprColumn,
    y_prob: IntoExprColumn,
    *,
    n_bins: int = 10,
    strategy: BinStrategy = "uniform",
) -> pl.Expr:
    r"""Expected calibration error of one group: the gap between confidence and frequency.

    .. math:: \mathrm{ECE} = \sum_b \frac{n_b}{n} \, \big| \bar y_b - \bar p_b \big|

    over the non-empty bins ``b`` of the probabilities, ``\bar y_b`` the
    fraction of positives in the bin and ``\bar p_b`` its mean probability:
    the bins and the two means of scikit-learn's ``calibration_curve``,
    weighted by the bins' shares of the rows.

    Parameters
    ----------
    y_true
        True (or 1) on the positive rows, False (or 0) elsewhere.
    y_prob
        The predicted probability of the positive class, in [0, 1].
    n_bins : int, default=10
        The number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        ``"uniform"``: equal widths on [0, 1]; ``"quantile"``: edges at the
        group's own quantiles of ``y_prob`` (NumPy's linear percentile), so
        that bins hold about the same number of rows.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``expected_calibration_error``, one value
        per group, in [0, 1]; lower is better: 0 is perfectly calibrated.

    Raises
    ------
    InvalidParameterError
        ``n_bins`` is not an int of at least 1, or ``strategy`` is neither
        name (scikit-learn's sentences).

    See Also
    --------
    calibration_curve : the bins themselves, as a table.
    log_loss, brier_score

    Notes
    -----
    A bin holds the probabilities above its lower edge and up to its upper
    edge (the first bin includes 0): ``np.searchsorted(inner_edges, p)``, as
    ``calibration_curve`` numbers them.  A group is refused (null) when a
    probability is outside [0, 1] ("y_prob has values outside [0, 1].",
    scikit-learn's sentence), when ``y_true`` is not binary, or a value is
    null, NaN or infinite.  scikit-learn has no ECE function; the tests check
    this one against hand arithmetic and a loop.

    In :func:`lodestar_polars.evaluate` it is ``"expected_calibration_error"``
    (``"ece"``), the bins after ``@`` (``"ece@15"``), and
    ``"expected_calibration_error_quantile"`` (``"ece_quantile"``) for
    ``strategy="quantile"``; there a NumPy core bins every group of the frame
    at once, much faster than this expression with quantile bins over many
    groups.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {
    ...         "click": [0, 0, 1, 0, 1, 1],
    ...         "prob": [0.1, 0.2, 0.3, 0.6, 0.8, 0.9],
    ...     }
    ... )
    >>> df.select(ece=lp.expected_calibration_error("click", "prob", n_bins=2))
    shape: (1, 1)
    ┌──────────┐
    │ ece      │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.116667 │
    └──────────┘
    """
    return expected_calibration_error_metric(
        y_true, y_prob, n_bins=n_bins, strategy=strategy
    ).expr()


# --------------------------------------------------------------------------- frame functions


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
    outside = (c.score < 0.0) | (c.score > 1.0)
    checks = Metric(
        "ok",
        pl.lit(0.0),
        (*c.checks, Check.any_row(outside, pl.lit("y_prob has values outside [0, 1]."))),
    )
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
