"""`lp.hit_rate` and `lp.r_precision` as Polars expressions."""

from __future__ import annotations

import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.validation import check_k
from lodestar_polars._core.ir import (
    ratio_or_zero,
)
from lodestar_polars._metrics.expr import (
    Metric,
)
from lodestar_polars._metrics.ir.ranked import _n_relevant, _ranked
from lodestar_polars.typing import IntoExprColumn


def hit_rate_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    name: str = "hit_rate",
) -> Metric:
    """The :class:`Metric` behind :func:`hit_rate`."""
    k = check_k(k, "hit_rate", allow_none=False)  # type: ignore[assignment]
    r = _ranked(
        y_true,
        y_score,
        ties=ties,
        item=item,
        relevance_level=relevance_level,
        caller="hit_rate",
    )
    return Metric(name, r.any_hit(k), r.checks)


def r_precision_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    n_relevant: IntoExprColumn | None = None,
    name: str = "r_precision",
) -> Metric:
    """The :class:`Metric` behind :func:`r_precision`."""
    r = _ranked(
        y_true,
        y_score,
        ties=ties,
        item=item,
        relevance_level=relevance_level,
        caller="r_precision",
    )
    n, checks = _n_relevant(r, n_relevant)
    return Metric(name, ratio_or_zero(r.hits(n), n), (*r.checks, *checks))


@renamed(doc_id="item")
def hit_rate(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
) -> pl.Expr:
    r"""Hit rate (trec_eval's success) at ``k``: 1 when a relevant row is in the top ``k``.

    Parameters
    ----------
    y_true, y_score, ties, item, relevance_level
        As in :func:`precision`.
    k : int
        The cutoff.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``hit_rate``: 0 or 1, or with
        ``ties='average'`` the chance of a hit, in [0, 1].  Its mean is the
        hit rate of the groups.

    See Also
    --------
    precision, recall
    lodestar_polars.trec.evaluate : trec_eval's ``success.k``.

    Notes
    -----
    With ``ties='average'``: when the first tie group holding a relevant row
    occupies positions ``[a, a + c)`` with ``r`` relevant rows and straddles
    ``k``, ``m = k - a`` of its rows make the cut and the chance of a hit is
    ``1 - C(c - r, m) / C(c, m)``.

    Examples
    --------
    >>> import polars as pl
    >>> from lodestar_polars._metrics.ir import hit_rate
    >>> df = pl.DataFrame({"rel": [0, 0, 1, 0], "score": [2.0, 1.0, 1.0, 1.0]})
    >>> df.select(hit_rate("rel", "score", k=2))
    shape: (1, 1)
    ┌──────────┐
    │ hit_rate │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.333333 │
    └──────────┘
    """
    return hit_rate_metric(
        y_true, y_score, k=k, ties=ties, item=item, relevance_level=relevance_level
    ).expr()


@renamed(doc_id="item")
def r_precision(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    ties: str = "average",
    item: IntoExprColumn | None = None,
    relevance_level: float | None = None,
    n_relevant: IntoExprColumn | None = None,
) -> pl.Expr:
    r"""R-precision of one group: precision at ``R``, the number of relevant documents.

    .. math:: \mathrm{R\text{-}prec} = \mathrm{P@R} = \frac{|\{\text{relevant in the top } R\}|}{R}

    Parameters
    ----------
    y_true, y_score, ties, item, relevance_level
        As in :func:`precision`.
    n_relevant : column name or expression, default=None
        ``R`` from the judgments (one value per group); default: the group's
        relevant rows.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``r_precision``; 0 with nothing relevant.

    See Also
    --------
    precision, recall
    lodestar_polars.trec.evaluate : trec_eval's ``Rprec``.

    Examples
    --------
    >>> import polars as pl
    >>> from lodestar_polars._metrics.ir import r_precision
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 0], "score": [0.9, 0.8, 0.7, 0.1]})
    >>> df.select(r_precision("rel", "score"))
    shape: (1, 1)
    ┌─────────────┐
    │ r_precision │
    │ ---         │
    │ f64         │
    ╞═════════════╡
    │ 0.5         │
    └─────────────┘
    """
    return r_precision_metric(
        y_true,
        y_score,
        ties=ties,
        item=item,
        relevance_level=relevance_level,
        n_relevant=n_relevant,
    ).expr()
