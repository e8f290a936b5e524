"""ERR, RBP (and its residual) and Judged@k as Polars expressions over one group.

The row formulas are :mod:`lodestar_polars._core.user_models`' (the NumPy cores
``lp.evaluate`` runs compute the same numbers).  ``y_true`` is what the judgments
say of each row, as for :func:`lodestar_polars.bpref`: a grade (relevance) where
judged, and a negative value where the row is unjudged (a run left-joined with its
qrels: fill the join's nulls with -1).  ERR and RBP give an unjudged row no gain;
RBP's residual and Judged@k count it.

Ties: RBP and Judged@k are sums of per-row terms, so a tie block's rows share the
mean weight of its positions and ``ties="average"`` (the default) is exact in
closed form; ERR's product over the rows above has none, so it ranks equal scores
by trec_eval's rule (``ties="trec_eval"``, the default, with ``item=``) or in row
order (``ties="input"``), and refuses ``"average"``.
"""

from __future__ import annotations

import math

import polars as pl

from lodestar_polars._base.messages import python_text
from lodestar_polars._base.validation import check_k, check_open_interval, check_real
from lodestar_polars._core.ir import expected_hits_in_block
from lodestar_polars._core.user_models import (
    ERR_MAX_GRADE,
    RBP_DEFAULT_P,
    block_weight,
    err_term,
    judged_share,
    stop_chance,
    tail_weight,
)
from lodestar_polars._metrics.expr import (
    MAX_ROWS,
    Check,
    Metric,
    as_float,
    as_score,
    input_checks,
    ranks_as_counts,
    row_index,
)
from lodestar_polars._metrics.ties import Ties, tie_rule
from lodestar_polars._metrics.trec_measures import _no_average
from lodestar_polars.exceptions import InvalidParameterError
from lodestar_polars.typing import IntoExprColumn


def check_persistence(p: object, caller: str = "rbp") -> float:
    """RBP's persistence ``p``: a float in (0, 1)."""
    return check_open_interval(p, "p", caller, 0.0, 1.0)


def check_max_grade(max_grade: object, caller: str = "err") -> float:
    """ERR's ``max_grade``: a finite real number above 0."""
    value = check_real(max_grade, "max_grade", caller, allow_none=False)
    assert value is not None
    if value <= 0:
        msg = (
            f"The 'max_grade' parameter of {caller} must be a real number above 0. "
            f"Got {max_grade!r} instead."
        )
        raise InvalidParameterError(msg)
    return value


def _k(k: int | None) -> float:
    return float("inf") if k is None else float(k)


def _rows(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    ties: str,
    item: IntoExprColumn | None,
    caller: str,
) -> tuple[pl.Expr, pl.Expr, Ties, tuple[Check, ...]]:
    gain, score = as_float(y_true), as_score(y_score)
    rule, doc_checks = tie_rule(score, ties=ties, item=item, caller=caller)
    return gain, score, rule, (*input_checks(gain, score), *doc_checks)


def _weights(rule: Ties, score: pl.Expr, p: float, k: float) -> pl.Expr:
    """Each row's RBP weight, ties averaged (rows as given), or by the rule (rows in order)."""
    if rule.averaged:
        above, through = ranks_as_counts(score)
        weight: pl.Expr = block_weight(p, above.cast(pl.Float64), through.cast(pl.Float64), k)
        return weight
    j = row_index().cast(pl.Float64)
    in_order: pl.Expr = block_weight(p, j, j + 1.0, k)
    return in_order


# --------------------------------------------------------------------------- ERR
def err_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None = None,
    max_grade: float = ERR_MAX_GRADE,
    ties: str = "trec_eval",
    item: IntoExprColumn | None = None,
    name: str = "err",
) -> Metric:
    """The :class:`Metric` behind :func:`err`."""
    caller = "err"
    k = check_k(k, caller)
    top = check_max_grade(max_grade, caller)
    _no_average(ties, caller, "a product over the rows ranked above each row")
    gain, _, rule, checks = _rows(y_true, y_score, ties=ties, item=item, caller=caller)
    ordered = rule.order(gain)
    j = row_index()
    chance = stop_chance(ordered, top)
    if k is not None:
        chance = pl.when(j < k).then(chance).otherwise(0.0)
    log_continue = (-chance).log1p()
    value = err_term(chance, log_continue.cum_sum() - log_continue, j.cast(pl.Float64)).sum()
    over = gain > top
    # -inf <= g <= top: NaN fails it, as it is over any grade (Polars orders NaN above every number)
    grade_check = Check.every_row_within(
        gain,
        -math.inf,
        top,
        "both",
        pl.format(
            f"err's grades must be at most max_grade={top!r} (the grade of the highest "
            "stopping chance). Got {} instead.",
            python_text(gain.filter(over).first()),
        ),
    )
    return Metric(name, value, (*checks, grade_check))


def err(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None = None,
    max_grade: float = ERR_MAX_GRADE,
    ties: str = "trec_eval",
    item: IntoExprColumn | None = None,
) -> pl.Expr:
    r"""Expected reciprocal rank (ERR) of one group, cut at ``k``: ir_measures' ``ERR@k``.

    .. math:: \mathrm{ERR@k} = \sum_{r=1}^{k} \frac{R_r}{r} \prod_{i<r} (1 - R_i),
              \qquad R = \frac{2^g - 1}{2^{g_{\max}}}

    the chance ``R`` that the row of grade ``g`` at rank ``r`` stops the user
    (Chapelle et al., 2009); a grade at or below 0 (an unjudged row, ``y_true < 0``,
    included) never stops.  ``g_max = 4`` is gdeval's ``MAX_JUDGMENT``, the
    implementation ir_measures runs for ``ERR@k``: fixed, not the group's largest grade.

    Parameters
    ----------
    y_true
        Each row's grade (0, 1, 2, ...), negative where unjudged.
    y_score
        Scores the ranking was made from.
    k : int, default=None
        The cutoff: only the top ``k`` rows are read (None: every row).
    max_grade : float, default=4
        ``g_max``: the grade of the highest stopping chance, ``1 - 2^-g_max``.  A
        group with a grade above it is refused (its chance would pass 1).
    ties : {'trec_eval', 'input'}, default='trec_eval'
        ``'trec_eval'``: score, then ``item`` descending; ``'input'``: row order.
        ``'average'`` is refused: the expectation over tied orderings has no closed form.
    item : column name or expression, default=None
        The ranked document's id, needed by ``ties='trec_eval'``.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``err``, in [0, 1].

    Raises
    ------
    InvalidParameterError
        A ``k`` that is not an int >= 1, a ``max_grade`` not above 0,
        ``ties='average'``, ``ties='trec_eval'`` without ``item``.

    See Also
    --------
    reciprocal_rank : the binary case's first hit alone.
    rbp : rank-biased precision, the other user model.

    Notes
    -----
    A group is refused (null) as the other metrics refuse one (no rows, a null or
    non-finite value, a repeated ``item``), and when a grade exceeds ``max_grade``.
    gdeval prints five decimals; the numbers here are the formula's, unrounded.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> run = pl.DataFrame({"rel": [3, 0, 1], "score": [0.9, 0.5, 0.1]})
    >>> run.select(lp.err("rel", "score", k=3, ties="input")).item()
    0.44921875
    """
    return err_metric(y_true, y_score, k=k, max_grade=max_grade, ties=ties, item=item).expr()


# --------------------------------------------------------------------------- RBP
def rbp_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    p: float = RBP_DEFAULT_P,
    k: int | None = None,
    residual: bool = False,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    name: str = "rbp",
) -> Metric:
    """The :class:`Metric` behind :func:`rbp`."""
    caller = "rbp"
    persistence = check_persistence(p, caller)
    k = check_k(k, caller)
    if not isinstance(residual, bool):
        msg = f"The 'residual' parameter of {caller} must be a bool. Got {residual!r} instead."
        raise InvalidParameterError(msg)
    gain, score, rule, checks = _rows(y_true, y_score, ties=ties, item=item, caller=caller)
    cut = _k(k)
    if residual:
        values = (gain < 0).cast(pl.Float64)
    else:
        values = pl.when(gain > 0).then(gain).otherwise(0.0)
    rows = values if rule.averaged else rule.order(values)
    value = (rows * _weights(rule, score, persistence, cut)).sum()
    if residual:
        value = value + tail_weight(persistence, pl.len().cast(pl.Float64), cut)
    return Metric(name, value, checks)


def rbp(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    p: float = RBP_DEFAULT_P,
    k: int | None = None,
    residual: bool = False,
    ties: str = "average",
    item: IntoExprColumn | None = None,
) -> pl.Expr:
    r"""Rank-biased precision (RBP) of one group, or its residual: ranx's ``rbp``.

    .. math:: \mathrm{RBP} = (1 - p) \sum_{r=1}^{\min(n, k)} g_r \, p^{r-1}

    a user reading on from each rank with chance ``p`` (the persistence; Moffat and
    Zobel, 2008), ``g`` the row's relevance (graded, as ranx; 0 for an unjudged
    row, ``y_true < 0``).  With ``residual=True`` the value is the weight RBP gives
    to what it does not know instead: the unjudged rows of the top ``k`` and every
    rank past the list or the cutoff,

    .. math:: (1 - p) \sum_{r \le \min(n, k),\ r \text{ unjudged}} p^{r-1} + p^{\min(n, k)}

    so that with binary gains the true RBP lies in ``[RBP, RBP + residual]``.

    Parameters
    ----------
    y_true
        Each row's relevance, negative where unjudged (a left join's nulls filled with -1).
    y_score
        Scores the ranking was made from.
    p : float, default=0.8
        The persistence, in (0, 1) (ir_measures' default; trec_eval's is 0.9).
    k : int, default=None
        The cutoff: rows past it weigh 0 (and count in the residual).
    residual : bool, default=False
        Return the residual rather than RBP.
    ties : {'average', 'trec_eval', 'input'}, default='average'
        ``'average'``: each row of a tie block gets the mean weight of the block's
        positions (the expectation over its orderings, exact); ``'trec_eval'``:
        ``item`` descending; ``'input'``: row order.
    item : column name or expression, default=None
        The ranked document's id, read by ``ties='trec_eval'``.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``rbp``: in [0, 1] for gains in [0, 1], up to the
        largest gain otherwise; the residual in (0, 1].

    Raises
    ------
    InvalidParameterError
        A ``p`` outside (0, 1), a ``k`` that is not an int >= 1, a ``residual``
        that is not a bool, an unknown ``ties``, ``ties='trec_eval'`` without ``item``.

    See Also
    --------
    err : expected reciprocal rank, the cascade user model.
    judged : the share of the top k that is judged.

    Notes
    -----
    In :func:`lodestar_polars.evaluate` the name carries ``p``: ``"rbp(p=0.9)"``,
    ir_measures' ``"RBP(p=0.9)@10"``, ranx's ``"rbp.9"`` (the digits after the dot
    are the fraction: ``p=0.9``).  The residual is read through this expression
    (``residual=True``): it is no ranking quality, so ``lp.evaluate`` has no name for it.

    Examples
    --------
    ``x`` is unjudged (-1):

    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> run = pl.DataFrame({"rel": [1, -1, 0, 1], "score": [0.9, 0.7, 0.5, 0.1]})
    >>> run.select(
    ...     rbp=lp.rbp("rel", "score", p=0.5),
    ...     residual=lp.rbp("rel", "score", p=0.5, residual=True),
    ... )
    shape: (1, 2)
    ┌────────┬──────────┐
    │ rbp    ┆ residual │
    │ ---    ┆ ---      │
    │ f64    ┆ f64      │
    ╞════════╪══════════╡
    │ 0.5625 ┆ 0.3125   │
    └────────┴──────────┘
    """
    return rbp_metric(y_true, y_score, p=p, k=k, residual=residual, ties=ties, item=item).expr()


# --------------------------------------------------------------------------- Judged@k
def judged_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None = None,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    name: str = "judged",
) -> Metric:
    """The :class:`Metric` behind :func:`judged`."""
    caller = "judged"
    k = check_k(k, caller)
    gain, score, rule, checks = _rows(y_true, y_score, ties=ties, item=item, caller=caller)
    flags = (gain >= 0).cast(pl.Float64)
    n = pl.len().cast(pl.Float64)
    if k is None:
        return Metric(name, judged_share(flags.sum(), n, _k(None)), checks)
    if rule.averaged:
        above, through = ranks_as_counts(score)
        a = above.cast(pl.Float64)
        hits = expected_hits_in_block(flags, through.cast(pl.Float64) - a, a, float(k)).sum()
    else:
        hits = rule.order(flags).head(min(k, MAX_ROWS)).sum()
    return Metric(name, judged_share(hits, n, float(k)), checks)


def judged(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None = None,
    ties: str = "average",
    item: IntoExprColumn | None = None,
) -> pl.Expr:
    r"""The share of a group's top ``k`` rows that is judged: ir_measures' ``Judged@k``.

    .. math:: \mathrm{Judged@k} = \frac{|\{r \le \min(n, k) : y_r \ge 0\}|}{\min(n, k)}

    over the ``n`` rows of the group (a run left-joined with its qrels, the join's
    nulls filled with -1: a negative ``y_true`` is unjudged).  How far the metrics
    computed with unjudged rows as irrelevant can be trusted.

    Parameters
    ----------
    y_true
        What the judgments say of each row: judged at 0 or above, unjudged when negative.
    y_score
        Scores the ranking was made from.
    k : int, default=None
        The cutoff (None: every row).
    ties : {'average', 'trec_eval', 'input'}, default='average'
        ``'average'``: the expected judged rows of a tie block at the cut, as
        :func:`precision` counts hits; ``'trec_eval'``: ``item`` descending;
        ``'input'``: row order.
    item : column name or expression, default=None
        The ranked document's id, read by ``ties='trec_eval'``.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``judged``, in [0, 1].

    Raises
    ------
    InvalidParameterError
        A ``k`` that is not an int >= 1, an unknown ``ties``, ``ties='trec_eval'``
        without ``item``.

    See Also
    --------
    rbp : its residual weighs the unjudged rows.

    Notes
    -----
    ir_measures counts a document judged when it is in the qrels at all, a
    negative relevance included; here a negative ``y_true`` is unjudged
    (trec_eval's reading of a negative judgment).  ir_measures sorts ties by
    document id ascending; with ties, ``ties='average'`` gives the expectation.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> run = pl.DataFrame({"rel": [1, -1, 0, -1], "score": [0.9, 0.7, 0.5, 0.1]})
    >>> run.select(at2=lp.judged("rel", "score", k=2), at10=lp.judged("rel", "score", k=10))
    shape: (1, 2)
    ┌─────┬──────┐
    │ at2 ┆ at10 │
    │ --- ┆ ---  │
    │ f64 ┆ f64  │
    ╞═════╪══════╡
    │ 0.5 ┆ 0.5  │
    └─────┴──────┘
    """
    return judged_metric(y_true, y_score, k=k, ties=ties, item=item).expr()
