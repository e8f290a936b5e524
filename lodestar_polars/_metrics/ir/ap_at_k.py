"""`lp.average_precision_at_k` (AP@k) as a Polars expression."""

from __future__ import annotations

import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.validation import check_k, check_option
from lodestar_polars._core.ir import (
    ratio_or_zero,
)
from lodestar_polars._metrics.expr import (
    Metric,
)
from lodestar_polars._metrics.ir.precision_recall import DENOMINATORS
from lodestar_polars._metrics.ir.ranked import _n_relevant, _ranked
from lodestar_polars.typing import IntoExprColumn


def average_precision_at_k_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None,
    denominator: str = "relevant",
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    n_relevant: IntoExprColumn | None = None,
    name: str = "average_precision_at_k",
) -> Metric:
    """The :class:`Metric` behind :func:`average_precision_at_k`."""
    caller = "average_precision_at_k"
    k = check_k(k, caller)
    check_option(denominator, "denominator", caller, DENOMINATORS)
    r = _ranked(
        y_true, y_score, ties=ties, item=item, relevance_level=relevance_level, caller=caller
    )
    n, checks = _n_relevant(r, n_relevant)
    if denominator == "min_k" and k is not None:
        n = n.clip(upper_bound=float(k))
    value = ratio_or_zero(r.average_precision_numerator(k), n)
    return Metric(name, value, (*r.checks, *checks))


@renamed(doc_id="item")
def average_precision_at_k(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None,
    denominator: str = "relevant",
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    n_relevant: IntoExprColumn | None = None,
) -> pl.Expr:
    r"""Average precision cut at ``k`` of one group (trec_eval's ``map_cut.k``, ranx's ``map@k``).

    .. math:: \mathrm{AP@k} = \frac{1}{D} \sum_{i < k} \mathrm{rel}_{(i)} \,
              \frac{|\{\text{relevant rows among the first } i + 1\}|}{i + 1}

    the precision at each relevant row ranked in the top ``k``, summed, over a
    denominator ``D``: every relevant document (``denominator='relevant'``,
    trec_eval, ranx, ir_measures) or that capped at ``k``
    (``denominator='min_k'``, Spark's and the recommender libraries' MAP@k,
    which can reach 1 when there are more relevant documents than ``k``).

    Parameters
    ----------
    y_true, y_score, item, relevance_level
        As in :func:`precision`: a row is relevant when ``y_true > 0`` (or at
        least ``relevance_level``); graded relevance is read as relevant or not.
    k : int or None
        The cutoff, required (write ``k=None`` for the whole group: trec_eval's
        ``map`` over the rows).
    denominator : {'relevant', 'min_k'}, default='relevant'
        ``D``: the number of relevant documents, or ``min(that, k)``.
    ties : {'average', 'trec_eval', 'input'}, default='average'
        ``'average'``: the expectation over every ordering of each tie group,
        exact and in closed form (see Notes); ``'trec_eval'``: ``item``
        descending; ``'input'``: row order.
    n_relevant : column name or expression, default=None
        The number of relevant documents of the group (one value per group),
        when the rows are not the whole truth; default: the group's relevant rows.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``average_precision_at_k``, in [0, 1]; 0
        for a group with nothing relevant.

    Raises
    ------
    InvalidParameterError
        A ``k`` below 1, an unknown ``denominator`` or ``ties``,
        ``ties='trec_eval'`` without ``item``.

    See Also
    --------
    average_precision : scikit-learn's ``average_precision_score`` (binary, no cutoff).
    lodestar_polars.trec.evaluate : trec_eval's ``map`` and ``map_cut.k`` from files.

    Notes
    -----
    With ``ties='average'``, a position ``p`` inside a tie group of ``c`` rows
    at positions ``[a, a + c)`` holding ``r`` relevant rows, with ``R``
    relevant rows above the group, contributes in expectation
    ``r / c * (R + 1 + (p - a) * (r - 1) / (c - 1)) / (p + 1)``: it holds a
    relevant row with chance ``r / c``, and the ``p - a`` tied rows before it
    then hold ``(r - 1) / (c - 1)`` relevant rows each on average.  Without
    ties, and with a binary ``y_true``, ``k=None`` gives scikit-learn's
    ``average_precision_score``; on tied scores scikit-learn instead counts a
    whole tie group at once (:func:`average_precision`).

    Refused (null) as :func:`recall`.

    Examples
    --------
    The three arrangements of one slate of ten, three relevant:

    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> slates = {"top": "1110000000", "middle": "0001110000", "bottom": "0000000111"}
    >>> df = pl.DataFrame(
    ...     {
    ...         "slate": [name for name in slates for _ in range(10)],
    ...         "rel": [int(c) for s in slates.values() for c in s],
    ...         "score": [10.0 - i for _ in slates for i in range(10)],
    ...     }
    ... )
    >>> df.group_by("slate", maintain_order=True).agg(
    ...     ap=lp.average_precision_at_k("rel", "score", k=10),
    ...     ap_at_5=lp.average_precision_at_k("rel", "score", k=5),
    ...     ap_at_2_min_k=lp.average_precision_at_k("rel", "score", k=2, denominator="min_k"),
    ... )
    shape: (3, 4)
    ┌────────┬──────────┬──────────┬───────────────┐
    │ slate  ┆ ap       ┆ ap_at_5  ┆ ap_at_2_min_k │
    │ ---    ┆ ---      ┆ ---      ┆ ---           │
    │ str    ┆ f64      ┆ f64      ┆ f64           │
    ╞════════╪══════════╪══════════╪═══════════════╡
    │ top    ┆ 1.0      ┆ 1.0      ┆ 1.0           │
    │ middle ┆ 0.383333 ┆ 0.216667 ┆ 0.0           │
    │ bottom ┆ 0.215741 ┆ 0.0      ┆ 0.0           │
    └────────┴──────────┴──────────┴───────────────┘

    Two tied rows, one relevant, ranked first: AP is 1 or 1/2, so 3/4 on average.

    >>> tie = pl.DataFrame({"rel": [0, 1], "score": [1.0, 1.0], "doc": ["a", "b"]})
    >>> tie.select(
    ...     average=lp.average_precision_at_k("rel", "score", k=None),
    ...     trec_eval=lp.average_precision_at_k(
    ...         "rel", "score", k=None, ties="trec_eval", item="doc"
    ...     ),
    ...     input=lp.average_precision_at_k("rel", "score", k=None, ties="input"),
    ... )
    shape: (1, 3)
    ┌─────────┬───────────┬───────┐
    │ average ┆ trec_eval ┆ input │
    │ ---     ┆ ---       ┆ ---   │
    │ f64     ┆ f64       ┆ f64   │
    ╞═════════╪═══════════╪═══════╡
    │ 0.75    ┆ 1.0       ┆ 0.5   │
    └─────────┴───────────┴───────┘
    """
    return average_precision_at_k_metric(
        y_true,
        y_score,
        k=k,
        denominator=denominator,
        ties=ties,
        item=item,
        relevance_level=relevance_level,
        n_relevant=n_relevant,
    ).expr()
