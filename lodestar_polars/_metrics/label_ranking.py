"""Rank-as-count metrics as Polars expressions.

``coverage_error``, ``label_ranking_loss``, ``label_ranking_average_precision``
(scikit-learn's multilabel ranking metrics, one sample per group) and
``average_precision`` (binary, one list per group).  Each reads, for every
relevant row, how many rows score at least as high (``through``) and how many
of those are relevant (``through_relevant``).
"""

from __future__ import annotations

import polars as pl

from lodestar_polars._base.messages import FORMAT_NOT_SUPPORTED
from lodestar_polars._core.label_ranking import misordered_pairs, precision_at, ranking_loss
from lodestar_polars._metrics.expr import (
    Check,
    Metric,
    as_float,
    as_score,
    binary_check,
    input_checks,
)
from lodestar_polars.typing import IntoExprColumn


class _Counts:
    """The per-relevant-row counts of one group, as expressions."""

    def __init__(self, y_true: IntoExprColumn, y_score: IntoExprColumn, caller: str) -> None:
        self.truth = as_float(y_true)
        self.score = as_score(y_score)
        self.relevant = self.truth == 1.0
        self.n = pl.len().cast(pl.Float64)
        self.n_relevant = self.relevant.sum().cast(pl.Float64)
        # for relevant rows only, in row order; as Int64, since the ranks are
        # UInt32 and a sum of their differences (misordered pairs) passes 2**32
        # in a group of 65,536 relevant and 65,537 irrelevant rows
        self.through = self.score.rank("max", descending=True).filter(self.relevant).cast(pl.Int64)
        self.through_relevant = (
            self.score.filter(self.relevant).rank("max", descending=True).cast(pl.Int64)
        )
        self.checks = (*input_checks(self.truth, self.score), binary_check(self.truth, caller))

    def precision_mean(self) -> pl.Expr:
        return precision_at(
            self.through_relevant.cast(pl.Float64), self.through.cast(pl.Float64)
        ).mean()


def _single_label_check() -> Check:
    """scikit-learn refuses a single label column for coverage and ranking loss."""
    return Check(pl.len() == 1, pl.lit(FORMAT_NOT_SUPPORTED.format("binary")))


def coverage_error_metric(
    y_true: IntoExprColumn, y_score: IntoExprColumn, *, name: str = "coverage_error"
) -> Metric:
    """The :class:`Metric` behind :func:`coverage_error`."""
    c = _Counts(y_true, y_score, "coverage_error")
    # the worst relevant row's ``through``: rows scoring at least its score
    worst = c.score.filter(c.relevant).min()
    value = pl.when(c.n_relevant > 0).then((c.score >= worst).sum()).otherwise(0).cast(pl.Float64)
    return Metric(name, value, (*c.checks, _single_label_check()))


def label_ranking_loss_metric(
    y_true: IntoExprColumn, y_score: IntoExprColumn, *, name: str = "label_ranking_loss"
) -> Metric:
    """The :class:`Metric` behind :func:`label_ranking_loss`."""
    c = _Counts(y_true, y_score, "label_ranking_loss")
    misordered = misordered_pairs(c.through_relevant, c.through).sum().cast(pl.Float64)
    value = ranking_loss(misordered, c.n_relevant, c.n)
    return Metric(name, value, (*c.checks, _single_label_check()))


def label_ranking_average_precision_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    name: str = "label_ranking_average_precision",
) -> Metric:
    """The :class:`Metric` behind :func:`label_ranking_average_precision`."""
    c = _Counts(y_true, y_score, "label_ranking_average_precision")
    degenerate = (c.n_relevant == 0) | (c.n_relevant == c.n)
    value = pl.when(degenerate).then(1.0).otherwise(c.precision_mean())
    return Metric(name, value, c.checks)


def average_precision_metric(
    y_true: IntoExprColumn, y_score: IntoExprColumn, *, name: str = "average_precision"
) -> Metric:
    """The :class:`Metric` behind :func:`average_precision`."""
    c = _Counts(y_true, y_score, "average_precision")
    value = pl.when(c.n_relevant == 0).then(0.0).otherwise(c.precision_mean())
    return Metric(name, value, c.checks)


def coverage_error(y_true: IntoExprColumn, y_score: IntoExprColumn) -> pl.Expr:
    """How far down one sample's ranking you read to see every relevant label.

    scikit-learn's ``coverage_error`` per sample: the rank, counted as the
    number of labels scoring at least as high (``rankdata(-score, "max")``), of
    the worst-ranked relevant label.  Its mean over samples is scikit-learn's
    number.

    Parameters
    ----------
    y_true
        True (or 1) on the sample's relevant labels, False (or 0) elsewhere.
    y_score
        The score of each label.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``coverage_error``, one value per group.
        Lower is better; a sample's floor is its number of relevant labels.

    See Also
    --------
    label_ranking_loss, label_ranking_average_precision
    lodestar_polars.arrays.coverage_error : the same on a dense label matrix.

    Notes
    -----
    A relevant label tied with irrelevant ones counts as ranked below all of
    them.  A sample with no relevant label scores 0, which can take the mean
    below 1: that is scikit-learn's answer.  A group is refused (null) when
    ``y_true`` is not binary, a value is null, NaN or infinite, or the group
    has a single label ("binary format is not supported", as scikit-learn).

    Examples
    --------
    The seed's two samples over three labels (scikit-learn gives 2.5):

    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {
    ...         "sample": [0, 0, 0, 1, 1, 1],
    ...         "truth": [True, False, False, False, False, True],
    ...         "score": [0.75, 0.5, 1.0, 1.0, 0.2, 0.1],
    ...     }
    ... )
    >>> out = df.group_by("sample", maintain_order=True).agg(
    ...     cov=lp.coverage_error("truth", "score")
    ... )
    >>> out
    shape: (2, 2)
    ┌────────┬─────┐
    │ sample ┆ cov │
    │ ---    ┆ --- │
    │ i64    ┆ f64 │
    ╞════════╪═════╡
    │ 0      ┆ 2.0 │
    │ 1      ┆ 3.0 │
    └────────┴─────┘
    >>> out["cov"].mean()
    2.5
    """
    return coverage_error_metric(y_true, y_score).expr()


def label_ranking_loss(y_true: IntoExprColumn, y_score: IntoExprColumn) -> pl.Expr:
    """The fraction of one sample's (relevant, irrelevant) label pairs ranked wrongly.

    scikit-learn's ``label_ranking_loss`` per sample: the number of pairs whose
    irrelevant label scores at least as high as the relevant one, over
    ``|relevant| * |irrelevant|``.

    Parameters
    ----------
    y_true
        True (or 1) on the sample's relevant labels, False (or 0) elsewhere.
    y_score
        The score of each label.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``label_ranking_loss``, in [0, 1]; 0 is perfect.

    See Also
    --------
    coverage_error, label_ranking_average_precision
    lodestar_polars.arrays.label_ranking_loss : the same on a dense label matrix.

    Notes
    -----
    A tie between a relevant and an irrelevant label counts as a wrongly
    ordered pair, so a sample whose scores are all equal scores 1.0.  A sample
    whose labels are all relevant, or all irrelevant, scores 0.0.  A group is
    refused (null) when ``y_true`` is not binary, a value is null, NaN or
    infinite, or the group has a single label ("binary format is not
    supported", as scikit-learn).

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {
    ...         "sample": [0, 0, 0, 1, 1, 1],
    ...         "truth": [True, False, False, False, False, True],
    ...         "score": [0.75, 0.5, 1.0, 1.0, 0.2, 0.1],
    ...     }
    ... )
    >>> df.group_by("sample", maintain_order=True).agg(
    ...     loss=lp.label_ranking_loss("truth", "score")
    ... )
    shape: (2, 2)
    ┌────────┬──────┐
    │ sample ┆ loss │
    │ ---    ┆ ---  │
    │ i64    ┆ f64  │
    ╞════════╪══════╡
    │ 0      ┆ 0.5  │
    │ 1      ┆ 1.0  │
    └────────┴──────┘
    """
    return label_ranking_loss_metric(y_true, y_score).expr()


def label_ranking_average_precision(y_true: IntoExprColumn, y_score: IntoExprColumn) -> pl.Expr:
    """How much of the ranking above each relevant label is itself relevant.

    scikit-learn's ``label_ranking_average_precision_score`` per sample: the
    mean, over the relevant labels, of (relevant labels scoring at least as
    high) / (labels scoring at least as high).

    Parameters
    ----------
    y_true
        True (or 1) on the sample's relevant labels, False (or 0) elsewhere.
    y_score
        The score of each label.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``label_ranking_average_precision``, in
        [0, 1]; 1 is perfect.

    See Also
    --------
    average_precision : the same sum, per list, with 0.0 for no positive.
    lodestar_polars.arrays.label_ranking_average_precision_score : dense form.

    Notes
    -----
    Ties count against the relevant label (both counts are "at least as
    high").  A sample with no relevant label, or only relevant labels, scores
    1.0, as in scikit-learn.  A group is refused (null) when ``y_true`` is not
    binary, or a value is null, NaN or infinite.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {
    ...         "sample": [0, 0, 0, 1, 1, 1],
    ...         "truth": [True, False, False, False, False, True],
    ...         "score": [0.75, 0.5, 1.0, 1.0, 0.2, 0.1],
    ...     }
    ... )
    >>> df.group_by("sample", maintain_order=True).agg(
    ...     lrap=lp.label_ranking_average_precision("truth", "score")
    ... )
    shape: (2, 2)
    ┌────────┬──────────┐
    │ sample ┆ lrap     │
    │ ---    ┆ ---      │
    │ i64    ┆ f64      │
    ╞════════╪══════════╡
    │ 0      ┆ 0.5      │
    │ 1      ┆ 0.333333 │
    └────────┴──────────┘
    """
    return label_ranking_average_precision_metric(y_true, y_score).expr()


def average_precision(y_true: IntoExprColumn, y_score: IntoExprColumn) -> pl.Expr:
    r"""Average precision of one ranked list: scikit-learn's binary ``average_precision_score``.

    .. math:: \mathrm{AP} = \sum_n (R_n - R_{n-1}) P_n

    over the distinct score thresholds in descending order, ``P_n`` and
    ``R_n`` the precision and recall of the rows scoring at least the n-th
    threshold.  It is a sum over the steps of the precision-recall curve, not
    the trapezoid area under it (``auc(recall, precision)``), which is a
    different, optimistic number.

    Parameters
    ----------
    y_true
        True (or 1) on the positive rows, False (or 0) elsewhere.
    y_score
        Scores the ranking was made from.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``average_precision``, in [0, 1].

    See Also
    --------
    label_ranking_average_precision : the same sum, 1.0 for no positive.
    lodestar_polars.arrays.average_precision_score : scikit-learn's surface,
        with ``average``, ``pos_label`` and ``sample_weight``.

    Notes
    -----
    Tied scores form one threshold, so a tie is consumed at once: all scores
    equal gives the prevalence.  A list with no positive row scores 0.0
    (scikit-learn also warns; an expression cannot).  A group is refused
    (null) when ``y_true`` is not binary, or a value is null, NaN or infinite.

    Examples
    --------
    scikit-learn's docstring example and the all-tied row:

    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {
    ...         "query": ["a", "a", "a", "a", "b", "b"],
    ...         "truth": [0, 0, 1, 1, 0, 1],
    ...         "score": [0.1, 0.4, 0.35, 0.8, 0.5, 0.5],
    ...     }
    ... )
    >>> df.group_by("query", maintain_order=True).agg(ap=lp.average_precision("truth", "score"))
    shape: (2, 2)
    ┌───────┬──────────┐
    │ query ┆ ap       │
    │ ---   ┆ ---      │
    │ str   ┆ f64      │
    ╞═══════╪══════════╡
    │ a     ┆ 0.833333 │
    │ b     ┆ 0.5      │
    └───────┴──────────┘
    """
    return average_precision_metric(y_true, y_score).expr()
