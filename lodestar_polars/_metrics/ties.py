"""The tie rules: how rows with equal scores are ordered, written once.

``"average"`` (the default)
    no order: a metric averages over every ordering of each tie (scikit-learn's
    rule for DCG), in closed form, or counts ties against the relevant row
    (rank-as-count metrics);
``"trec_eval"``
    score descending, then document id descending (compared as text, byte-wise),
    trec_eval's order;
``"input"``
    score descending, equal scores in row order (the earlier row first);
later row first (scikit-learn's ``ignore_ties=True``, and ``top_k_accuracy``)
    score descending, equal scores with the later row first: NumPy's
    ``argsort(kind="mergesort")[::-1]``.

The Polars layer orders with :class:`Ties` and :func:`later_row_first`; the
NumPy core (``_core/ranking.py``) orders the same way with one ``lexsort``
(:func:`~lodestar_polars._core.ranking.rank_segments`).  docs/decisions/0007
and 0010 say why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

from lodestar_polars._base.validation import check_option
from lodestar_polars._metrics.expr import Check, parse_into_expr
from lodestar_polars.exceptions import InvalidParameterError
from lodestar_polars.typing import IntoExprColumn

TieRule = Literal["average", "trec_eval", "input"]
TIES: tuple[TieRule, ...] = ("average", "trec_eval", "input")


def later_row_first(values: pl.Expr, score: pl.Expr) -> pl.Expr:
    """``values`` sorted by score descending, equal scores with the later row first.

    A stable sort of the reversed rows: cheaper inside ``group_by().agg()``
    than a sort with a row-index key (0.27 s against 0.41 s for NDCG@10 with
    ``ignore_ties`` on 200k groups of 10 rows).
    """
    return values.reverse().sort_by(score.reverse(), descending=True, maintain_order=True)


def later_row_first_position(score: pl.Expr) -> pl.Expr:
    """Each row's 1-based position in the order of :func:`later_row_first` (UInt32).

    In the reversed rows an ordinal rank breaks ties by row order, which is the
    later row first in the rows as given.
    """
    return score.reverse().rank("ordinal", descending=True).reverse()


@dataclass(frozen=True)
class Ties:
    """A tie rule with what it reads: the score and, for ``"trec_eval"``, the item id."""

    rule: TieRule
    score: pl.Expr
    item: pl.Expr | None = None

    @property
    def averaged(self) -> bool:
        """Whether equal scores are averaged over rather than put in an order."""
        return self.rule == "average"

    def order(self, values: pl.Expr) -> pl.Expr:
        """``values`` in ranking order under ``"trec_eval"`` or ``"input"``.

        trec_eval: score descending, then document id descending; input: score
        descending, then row order (a stable sort: no row-index key to build).
        """
        if self.rule == "trec_eval" and self.item is not None:
            return values.sort_by([self.score, self.item], descending=[True, True])
        return values.sort_by(self.score, descending=True, maintain_order=True)


def tie_rule(
    score: pl.Expr,
    *,
    ties: object,
    item: IntoExprColumn | None,
    caller: str,
    ignore_ties: bool = False,
) -> tuple[Ties, tuple[Check, ...]]:
    """The tie rule ``ties`` over ``score``, with the rules a group's item ids must pass.

    ``ignore_ties`` (scikit-learn's flag: equal scores, the later row first) is
    a tie rule of its own, so it cannot be combined with another ``ties``.
    """
    rule: TieRule = check_option(ties, "ties", caller, TIES)  # type: ignore[assignment]
    if rule == "trec_eval" and item is None:
        msg = f"{caller}(ties='trec_eval') needs `item=`: trec_eval breaks ties by document id"
        raise InvalidParameterError(msg)
    if ignore_ties and rule != "average":
        msg = (
            f"{caller}: ignore_ties=True is a tie rule of its own (equal scores, the later "
            f"row first) and cannot be combined with ties={rule!r}"
        )
        raise InvalidParameterError(msg)
    if rule != "trec_eval" or item is None:
        return Ties(rule, score), ()
    doc = parse_into_expr(item).cast(pl.String)
    checks = (
        Check(
            doc.is_duplicated().any(),
            pl.format("item {} repeats in the group.", doc.filter(doc.is_duplicated()).first()),
        ),
        Check.any_row(doc.is_null(), pl.lit("Input item contains null.")),
    )
    return Ties(rule, score, doc), checks
