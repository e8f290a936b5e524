"""trec_eval's judged-run measures as Polars expressions: bpref, infAP, interpolated precision.

Each scores one group of a run joined with its judgments (a long frame), as
trec_eval scores a query, where ``y_true`` holds what the qrels say of each
ranked row:

* ``y_true >= 0``: judged; relevant when ``y_true > 0`` (or at least
  ``relevance_level``), judged irrelevant otherwise;
* ``y_true == -1`` (any negative value above -2): not in the qrels, trec_eval's
  ``RELVALUE_NONPOOL``: fill the join's nulls with -1;
* ``y_true <= -2``: in the qrels with a negative relevance, trec_eval's "in the
  pool, unjudged" (``RELVALUE_UNJUDGED``), which infAP counts apart.

``n_relevant=`` is the judged relevant count of the group (retrieved or not),
``judged=`` (bpref) the list of every judged relevance of the group; without
them the rows are the whole truth.

Ties: bpref's expectation over every ordering of each tie group has a closed
form (each relevant row of a tie block with ``m`` judged irrelevant rows sits
after ``0 .. m`` of them with equal chances), so ``ties="average"`` is its
default.  infAP and interpolated precision have none (a ratio of counts that
move together, a running maximum): they rank equal scores by trec_eval's rule
(``ties="trec_eval"``, the default, with ``item=``) or in row order
(``ties="input"``), and refuse ``"average"``.
"""

from __future__ import annotations

import polars as pl

from lodestar_polars._base.validation import check_real
from lodestar_polars._metrics.expr import Check, Metric, as_float, parse_into_expr, row_index
from lodestar_polars._metrics.ir.ranked import _n_relevant, _Ranked, _ranked
from lodestar_polars.exceptions import InvalidParameterError
from lodestar_polars.typing import IntoExprColumn

INFAP_EPSILON = 1e-5
"""trec_eval's smoothing in infAP (``trec_eval.h``)."""


def _no_average(ties: object, caller: str, why: str) -> None:
    if ties == "average":
        msg = (
            f"{caller} has no closed form for ties averaged over their orderings ({why}): rank "
            "equal scores by trec_eval's rule (ties='trec_eval', item=...) or in row order "
            "(ties='input')"
        )
        raise InvalidParameterError(msg)


def _judged_rows(y_true: IntoExprColumn, r: _Ranked) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """Float flags per row: relevant, judged irrelevant, in the pool unjudged (-2), and the gain."""
    gain = as_float(y_true)
    relevant = r.relevant.cast(pl.Float64)
    nonrel = ((gain >= 0) & ~r.relevant).cast(pl.Float64)
    pooled = (gain <= -2).cast(pl.Float64)
    return relevant, nonrel, pooled, gain


def _min_sum(a: pl.Expr, b: pl.Expr, cap: pl.Expr) -> pl.Expr:
    """``sum over n in [a, b] of min(n, cap)``, integers ``0 <= a <= b`` held as floats."""
    c = pl.min_horizontal(b, cap)
    linear = pl.when(c >= a).then((a + c) * (c - a + 1.0) / 2.0).otherwise(0.0)
    high = pl.max_horizontal(a, cap + 1.0)
    flat = pl.when(b >= high).then(cap * (b - high + 1.0)).otherwise(0.0)
    return linear + flat


def bpref_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    n_relevant: IntoExprColumn | None = None,
    judged: IntoExprColumn | None = None,
    name: str = "bpref",
) -> Metric:
    """The :class:`Metric` behind :func:`bpref`."""
    caller = "bpref"
    level = check_real(relevance_level, "relevance_level", caller)
    r = _ranked(
        y_true, y_score, ties=ties, item=item, relevance_level=relevance_level, caller=caller
    )
    relevant, nonrel, _, _ = _judged_rows(y_true, r)
    big_r, r_checks = _n_relevant(r, n_relevant)
    checks: tuple[Check, ...] = ()
    if judged is None:
        big_n = nonrel.sum()
    else:
        lists = parse_into_expr(judged)
        v = pl.element().cast(pl.Float64)
        below = (v >= 0) & ((v == 0) if level is None else (v < level))
        big_n = lists.first().list.eval(below.cast(pl.Float64).sum()).list.first()
        bad = lists.first().list.eval(~v.is_finite() | v.is_null()).list.any()
        checks = (
            Check(lists.first().is_null(), pl.lit("Input judged contains null.")),
            Check(lists.n_unique() > 1, pl.lit("judged must hold one list per group.")),
            Check(
                bad.fill_null(False),
                pl.lit("judged relevances must be finite numbers (no null, NaN or infinity)."),
            ),
        )
    d = pl.min_horizontal(big_n, big_r)
    if r.ties.averaged:
        # n0: judged irrelevant rows scored higher; m: those tied with the row
        nonrel_scores = r.score.filter(nonrel > 0).sort(descending=True)
        higher = nonrel_scores.search_sorted(r.score, side="left", descending=True)
        upto = nonrel_scores.search_sorted(r.score, side="right", descending=True)
        n0 = higher.cast(pl.Float64)
        m = (upto - higher).cast(pl.Float64)
        mean_min = _min_sum(n0, n0 + m, big_r) / (m + 1.0)
        term = relevant * (1.0 - mean_min / d)
    else:
        flags = r.ties.order(nonrel)
        above = flags.cum_sum() - flags
        term = r.ties.order(relevant) * (1.0 - pl.min_horizontal(above, big_r) / d)
    total = pl.when(d > 0).then(term.sum()).otherwise(relevant.sum())
    value = pl.when(big_r > 0).then(total / big_r).otherwise(0.0)
    return Metric(name, value, (*r.checks, *r_checks, *checks))


def bpref(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    n_relevant: IntoExprColumn | None = None,
    judged: IntoExprColumn | None = None,
) -> pl.Expr:
    r"""Binary preference (bpref) of one group: trec_eval's ``bpref``.

    .. math:: \mathrm{bpref} = \frac{1}{R} \sum_{d \text{ relevant, ranked}}
              \left(1 - \frac{\min(n_d, R)}{\min(N, R)}\right)

    ``n_d`` the judged irrelevant rows ranked above the relevant row ``d``,
    ``N`` the judged irrelevant documents of the group, ``R`` the relevant
    ones (Buckley and Voorhees, 2004).  Unjudged rows (``y_true < 0``) count
    nowhere.

    Parameters
    ----------
    y_true
        What the qrels say of each row: relevant when above 0 (or at least
        ``relevance_level``), judged irrelevant from 0 to there, unjudged when
        negative (fill the join's nulls with -1).
    y_score
        Scores the ranking was made from.
    ties : {'average', 'trec_eval', 'input'}, default='average'
        ``'average'``: the expectation over every ordering of each tie group,
        exact and in closed form (see Notes); ``'trec_eval'``: ``item``
        descending; ``'input'``: row order.
    item : column name or expression, default=None
        The ranked document's id, read by ``ties='trec_eval'``.
    relevance_level : float, default=None
        A row is relevant when ``y_true >= relevance_level`` (trec_eval ``-l``).
    n_relevant : column name or expression, default=None
        ``R``: the judged relevant documents of the group, retrieved or not
        (one value per group).  Default: the group's relevant rows.
    judged : column name or expression, default=None
        A list column: every judged relevance of the group, retrieved or not,
        from which ``N`` is counted.  Default: the group's judged irrelevant rows.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``bpref``, in [0, 1]; 0 for a group with
        nothing relevant.

    Raises
    ------
    InvalidParameterError
        An unknown ``ties``, ``ties='trec_eval'`` without ``item``, a
        ``relevance_level`` that is not a finite number.

    See Also
    --------
    inferred_average_precision, average_precision_at_k
    lodestar_polars.trec.evaluate : trec_eval's ``bpref`` and ``gm_bpref`` from files.

    Notes
    -----
    With ``ties='average'``, a relevant row in a tie block holding ``m`` judged
    irrelevant rows, ``n_0`` of them above the block, follows ``n_0 + x`` of
    them for ``x = 0 .. m`` with equal chances (its place among itself and the
    ``m``), so its term is ``1 - mean_x min(n_0 + x, R) / min(N, R)``: a sum
    of ``min`` over a range, in closed form.  Refused (null) as
    :func:`recall`, and when ``judged`` is null, varies within the group or
    holds a non-finite value.

    Examples
    --------
    A run joined with its qrels: ``x`` is unjudged (-1), ``e`` judged
    irrelevant and not retrieved (it counts in ``N`` through ``judged``).

    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> run = pl.DataFrame(
    ...     {
    ...         "q": ["q1"] * 4,
    ...         "doc": ["a", "x", "b", "d"],
    ...         "rel": [1, -1, 0, 1],
    ...         "score": [4.0, 3.0, 2.0, 1.0],
    ...         "qrels": [[1, 0, 1, 0]] * 4,
    ...     }
    ... )
    >>> run.group_by("q").agg(
    ...     rows=lp.bpref("rel", "score"),
    ...     judged=lp.bpref("rel", "score", judged="qrels"),
    ... )
    shape: (1, 3)
    ┌─────┬──────┬────────┐
    │ q   ┆ rows ┆ judged │
    │ --- ┆ ---  ┆ ---    │
    │ str ┆ f64  ┆ f64    │
    ╞═════╪══════╪════════╡
    │ q1  ┆ 0.5  ┆ 0.75   │
    └─────┴──────┴────────┘
    """
    return bpref_metric(
        y_true,
        y_score,
        ties=ties,
        item=item,
        relevance_level=relevance_level,
        n_relevant=n_relevant,
        judged=judged,
    ).expr()


def inferred_average_precision_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    ties: str = "trec_eval",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    n_relevant: IntoExprColumn | None = None,
    name: str = "inferred_average_precision",
) -> Metric:
    """The :class:`Metric` behind :func:`inferred_average_precision`."""
    caller = "inferred_average_precision"
    _no_average(ties, caller, "a ratio of counts that move together")
    r = _ranked(
        y_true, y_score, ties=ties, item=item, relevance_level=relevance_level, caller=caller
    )
    relevant, nonrel, pooled, _ = _judged_rows(y_true, r)
    big_r, r_checks = _n_relevant(r, n_relevant)
    rel_o, nonrel_o, pooled_o = (r.ties.order(e) for e in (relevant, nonrel, pooled))
    above_r = rel_o.cum_sum() - rel_o
    above_n = nonrel_o.cum_sum() - nonrel_o
    above_u = pooled_o.cum_sum() - pooled_o
    j = row_index().cast(pl.Float64)
    later = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((above_r + above_n + above_u) / j) * (
        (above_r + INFAP_EPSILON) / (above_r + above_n + 2 * INFAP_EPSILON)
    )
    term = rel_o * pl.when(j == 0).then(1.0).otherwise(later)
    value = pl.when(big_r > 0).then(term.sum() / big_r).otherwise(0.0)
    return Metric(name, value, (*r.checks, *r_checks))


def inferred_average_precision(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    ties: str = "trec_eval",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    n_relevant: IntoExprColumn | None = None,
) -> pl.Expr:
    r"""Inferred average precision (infAP) of one group: trec_eval's ``infAP``.

    .. math:: \mathrm{infAP} = \frac{1}{R} \sum_{d \text{ relevant, ranked}}
              \left(\frac{1}{j+1} + \frac{j}{j+1} \cdot \frac{r + n + u}{j}
              \cdot \frac{r + \epsilon}{r + n + 2\epsilon}\right)

    for a relevant row at 0-based rank ``j > 0`` with ``r`` relevant, ``n``
    judged irrelevant and ``u`` in-pool unjudged rows above it (1 at rank 0),
    ``epsilon = 1e-5`` (Yilmaz and Aslam, 2006, as trec_eval writes it).

    Parameters
    ----------
    y_true
        What the qrels say of each row: relevant when above 0 (or at least
        ``relevance_level``), judged irrelevant from 0 to there, ``-1`` not in
        the qrels, ``-2`` (or below) in the qrels with a negative relevance
        (trec_eval's "in the pool, unjudged", counted in ``u``).
    y_score
        Scores the ranking was made from.
    ties : {'trec_eval', 'input'}, default='trec_eval'
        ``'trec_eval'``: score, then ``item`` descending; ``'input'``: row
        order.  ``'average'`` is refused: the expectation over tied orderings
        has no closed form here.
    item : column name or expression, default=None
        The ranked document's id, needed by ``ties='trec_eval'``.
    relevance_level, n_relevant
        As in :func:`bpref`.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``inferred_average_precision``, in [0, 1];
        0 for a group with nothing relevant.

    Raises
    ------
    InvalidParameterError
        ``ties='average'``, an unknown ``ties``, ``ties='trec_eval'`` without ``item``.

    See Also
    --------
    bpref, average_precision_at_k
    lodestar_polars.trec.evaluate : trec_eval's ``infAP`` from files.

    Notes
    -----
    With every document judged (no negative ``y_true``), infAP is AP over
    ``R``.  Refused (null) as :func:`recall`.

    Examples
    --------
    ``u`` is in the pool but unjudged (-2), ``x`` not in the qrels (-1):

    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> run = pl.DataFrame(
    ...     {
    ...         "doc": ["a", "u", "x", "b", "d"],
    ...         "rel": [1, -2, -1, 0, 1],
    ...         "score": [5.0, 4.0, 3.0, 2.0, 1.0],
    ...     }
    ... )
    >>> run.select(
    ...     infap=lp.inferred_average_precision("rel", "score", item="doc"),
    ...     ap=lp.average_precision_at_k("rel", "score", k=None, ties="trec_eval", item="doc"),
    ... )
    shape: (1, 2)
    ┌───────┬─────┐
    │ infap ┆ ap  │
    │ ---   ┆ --- │
    │ f64   ┆ f64 │
    ╞═══════╪═════╡
    │ 0.75  ┆ 0.7 │
    └───────┴─────┘
    """
    return inferred_average_precision_metric(
        y_true,
        y_score,
        ties=ties,
        item=item,
        relevance_level=relevance_level,
        n_relevant=n_relevant,
    ).expr()


def interpolated_precision_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    recall: float,
    ties: str = "trec_eval",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    n_relevant: IntoExprColumn | None = None,
    name: str = "interpolated_precision",
) -> Metric:
    """The :class:`Metric` behind :func:`interpolated_precision`."""
    caller = "interpolated_precision"
    level = check_real(recall, "recall", caller, allow_none=False)
    assert level is not None
    if not 0.0 <= level <= 1.0:
        msg = (
            f"The 'recall' parameter of {caller} must be a recall level in [0, 1]. "
            f"Got {recall!r} instead."
        )
        raise InvalidParameterError(msg)
    _no_average(ties, caller, "a running maximum")
    r = _ranked(
        y_true, y_score, ties=ties, item=item, relevance_level=relevance_level, caller=caller
    )
    big_r, r_checks = _n_relevant(r, n_relevant)
    flags = r.ties.order(r.relevant.cast(pl.Float64))
    count = flags.cum_sum()
    precision = count / (row_index().cast(pl.Float64) + 1.0)
    best = precision.reverse().cum_max().reverse()
    x = level * big_r
    cut = x.floor() + (x - x.floor() >= 0.5).cast(pl.Float64)  # C's lround
    at_cut = best.filter((flags > 0) & (count == cut)).first()
    value = (
        pl.when(cut == 0)
        .then(precision.max())
        .otherwise(pl.when(cut <= flags.sum()).then(at_cut).otherwise(0.0))
    )
    return Metric(name, value.fill_null(0.0), (*r.checks, *r_checks))


def interpolated_precision(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    recall: float,
    ties: str = "trec_eval",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    n_relevant: IntoExprColumn | None = None,
) -> pl.Expr:
    r"""Interpolated precision at a recall level of one group: trec_eval's ``iprec_at_recall``.

    .. math:: \mathrm{iprec}(\rho) = \max_{i \ge i_c} \frac{|\{\text{relevant rows among
              the first } i\}|}{i}, \qquad c = \mathrm{lround}(\rho R)

    the largest precision at or below the rank ``i_c`` of the ``c``-th relevant
    row; 0 where fewer than ``c`` relevant rows are ranked; at ``c = 0``, the
    largest precision anywhere.  trec_eval 10.0 rounds ``rho R`` to the nearest
    integer, halves away from zero (9 and pytrec_eval took ``(long)(rho R + 0.9)``).

    Parameters
    ----------
    y_true, y_score, relevance_level, n_relevant
        As in :func:`bpref` (a row not relevant counts as irrelevant here,
        judged or not).
    recall : float
        The recall level, in [0, 1] (trec_eval's 11: 0, 0.1, ..., 1).
    ties : {'trec_eval', 'input'}, default='trec_eval'
        As in :func:`inferred_average_precision`: ``'average'`` is refused
        (the expectation of a running maximum over tied orderings has no
        closed form).
    item : column name or expression, default=None
        The ranked document's id, needed by ``ties='trec_eval'``.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``interpolated_precision``, in [0, 1].

    Raises
    ------
    InvalidParameterError
        A ``recall`` outside [0, 1], ``ties='average'``, an unknown ``ties``,
        ``ties='trec_eval'`` without ``item``.

    See Also
    --------
    precision, r_precision
    lodestar_polars.trec.evaluate : ``iprec_at_recall`` and ``11pt_avg`` from files.

    Notes
    -----
    Refused (null) as :func:`recall`.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> run = pl.DataFrame(
    ...     {"doc": ["a", "b", "c", "d", "e"], "rel": [1, 0, 0, 0, 1], "score": [5, 4, 3, 2, 1]}
    ... )
    >>> run.select(
    ...     low=lp.interpolated_precision("rel", "score", recall=0.3, item="doc"),
    ...     high=lp.interpolated_precision("rel", "score", recall=1.0, item="doc"),
    ... )
    shape: (1, 2)
    ┌─────┬──────┐
    │ low ┆ high │
    │ --- ┆ ---  │
    │ f64 ┆ f64  │
    ╞═════╪══════╡
    │ 1.0 ┆ 0.4  │
    └─────┴──────┘
    """
    return interpolated_precision_metric(
        y_true,
        y_score,
        recall=recall,
        ties=ties,
        item=item,
        relevance_level=relevance_level,
        n_relevant=n_relevant,
    ).expr()


__all__ = [
    "bpref",
    "bpref_metric",
    "inferred_average_precision",
    "inferred_average_precision_metric",
    "interpolated_precision",
    "interpolated_precision_metric",
]
