"""Reciprocal rank as a Polars expression, with the exact expectation over ties."""

from __future__ import annotations

import polars as pl

from lodestar_polars._core.reciprocal_rank import (
    expected_reciprocal_rank,
    first_relevant_probability,
    log_survival_step,
)
from lodestar_polars._expr import Metric, as_float, input_checks, position_of
from lodestar_polars._ir import tie_policy
from lodestar_polars._validation import check_bool, check_k
from lodestar_polars.typing import IntoExprColumn


def _expected_value(relevant: pl.Expr, score: pl.Expr, k: int | None) -> pl.Expr:
    best = score.filter(relevant).max()
    in_block = score == best
    above = (score > best).sum().cast(pl.Float64)
    block = in_block.sum().cast(pl.Float64)
    hits = (in_block & relevant).sum().cast(pl.Float64)
    offset = pl.int_range(0, (block - hits + 1).cast(pl.Int64), dtype=pl.Int64).cast(pl.Float64)
    step = log_survival_step(offset, block, hits)
    log_survival = step.cum_sum().shift(1, fill_value=0.0)
    probability = first_relevant_probability(offset, block, hits, log_survival)
    value = expected_reciprocal_rank(probability, above, offset, k).sum()
    return pl.when(hits > 0).then(value).otherwise(0.0)


def _ordered_value(relevant: pl.Expr, score: pl.Expr, k: int | None) -> pl.Expr:
    first = position_of(score, relevant).cast(pl.Float64)
    return expected_reciprocal_rank(1.0, first, 0.0, k).fill_null(0.0)


def reciprocal_rank_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None = None,
    ignore_ties: bool = False,
    ties: str = "average",
    doc_id: IntoExprColumn | None = None,
    name: str = "reciprocal_rank",
) -> Metric:
    """The :class:`Metric` behind :func:`reciprocal_rank`."""
    k = check_k(k, "reciprocal_rank")
    ignore_ties = check_bool(ignore_ties, "ignore_ties", "reciprocal_rank")
    policy, doc_checks = tie_policy(
        y_true,
        y_score,
        ties=ties,
        doc_id=doc_id,
        ignore_ties=ignore_ties,
        caller="reciprocal_rank",
    )
    gain, score = as_float(y_true), as_float(y_score)
    relevant = gain > 0
    if ties != "average":
        # first relevant row in the policy's order: its 0-based position
        flags = policy.order(relevant.cast(pl.Float64))
        first = pl.when(relevant.any()).then(flags.arg_max().cast(pl.Float64))
        value = expected_reciprocal_rank(1.0, first, 0.0, k).fill_null(0.0)
    else:
        value = (_ordered_value if ignore_ties else _expected_value)(relevant, score, k)
    return Metric(name, value, (*input_checks(gain, score), *doc_checks))


def reciprocal_rank(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    k: int | None = None,
    ignore_ties: bool = False,
    ties: str = "average",
    doc_id: IntoExprColumn | None = None,
) -> pl.Expr:
    r"""Reciprocal rank of the first relevant row of one group; its mean is MRR.

    .. math:: \mathrm{RR@k} = \frac{1}{\mathrm{rank}}\ \text{if rank} \le k
              \text{ else } 0

    where ``rank`` is the 1-based position, by descending ``y_score``, of the
    first row with ``y_true > 0`` (or True).  A group with nothing relevant
    scores 0.

    Parameters
    ----------
    y_true
        Relevance of each row; a row is relevant when it is above 0 (or True).
    y_score
        Scores the ranking was made from.
    k : int, default=None
        A first relevant row below position ``k`` scores 0.
    ignore_ties : bool, default=False
        Rank equal scores with the later row first instead of averaging.
    ties : {'average', 'trec_eval', 'input'}, default='average'
        How equal scores are ordered: ``'average'``, the exact expectation
        over the orderings of the tie (below); ``'trec_eval'``, by ``doc_id``
        descending, as trec_eval; ``'input'``, in row order.  Cannot be
        combined with ``ignore_ties=True``.
    doc_id : str or polars.Expr, default=None
        Document ids, needed by ``ties='trec_eval'``.

    Returns
    -------
    polars.Expr
        A Float64 expression named ``reciprocal_rank``, one value per group, in [0, 1].

    Raises
    ------
    InvalidParameterError
        ``k`` below 1 or not an int, or a non-bool ``ignore_ties``.

    See Also
    --------
    lodestar_polars.arrays.reciprocal_rank_score : the same on dense arrays.
    ndcg : position-discounted gain of every relevant row, not only the first.

    Notes
    -----
    scikit-learn has no reciprocal rank; this one follows the same tie rule
    as its NDCG.  With ties, the value is the exact expectation over the
    orderings of the tied group that holds the first relevant rows: if that
    group occupies positions ``a+1 .. a+c`` and holds ``r`` relevant rows, the
    first relevant one sits at ``a+1+j`` with probability
    ``C(c-1-j, r-1) / C(c, r)``; the expectation of ``1/(a+1+j)`` (0 past
    ``k``) is summed in closed form.  On untied scores with exactly one
    relevant row it equals scikit-learn's
    ``label_ranking_average_precision_score``.

    A group is refused, and gets null, when it is empty or has a null, NaN or
    infinite value.  A single row is fine.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {
    ...         "query": [1, 1, 1, 2, 2, 2],
    ...         "rel": [0, 1, 0, 1, 0, 0],
    ...         "score": [0.9, 0.8, 0.1, 0.5, 0.5, 0.2],
    ...     }
    ... )
    >>> df.group_by("query", maintain_order=True).agg(rr=lp.reciprocal_rank("rel", "score"))
    shape: (2, 2)
    ┌───────┬──────┐
    │ query ┆ rr   │
    │ ---   ┆ ---  │
    │ i64   ┆ f64  │
    ╞═══════╪══════╡
    │ 1     ┆ 0.5  │
    │ 2     ┆ 0.75 │
    └───────┴──────┘

    Query 2's relevant row is tied for first with another: at rank 1 or 2
    with equal chance, so ``(1 + 1/2) / 2 = 0.75``.
    """
    return reciprocal_rank_metric(
        y_true, y_score, k=k, ignore_ties=ignore_ties, ties=ties, doc_id=doc_id
    ).expr()
