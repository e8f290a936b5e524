"""The ranking the IR metrics read: hits in the top k under a tie rule, the relevant count."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

from lodestar_polars._base.messages import python_text
from lodestar_polars._base.validation import check_real
from lodestar_polars._core._ops import exp
from lodestar_polars._core.ir import (
    average_precision_term,
    expected_average_precision_term,
    expected_hits_in_block,
    hit_term,
    log_miss_term,
)
from lodestar_polars._metrics.expr import (
    MAX_ROWS,
    Check,
    Fields,
    as_float,
    as_score,
    input_checks,
    let,
    over_rows,
    ranks_as_counts,
    row_index,
)
from lodestar_polars._metrics.ties import Ties, tie_rule
from lodestar_polars.typing import IntoExprColumn


@dataclass(frozen=True)
class _Ranked:
    """The pieces every IR expression shares: relevance, score and the tie rule.

    Polars does no common-subexpression elimination inside ``group_by().agg()``:
    an expression referenced at two places of a tree is evaluated twice there
    (a rank, a sort, a group scalar broadcast back to rows).  So the methods
    below feed the row formulas of ``_core.ir`` with arguments built so that
    each costly node (rank, sort, int_range, cum_sum, filtered aggregate) is
    evaluated as few times as possible (docs/decisions/0008).
    """

    relevant: pl.Expr
    score: pl.Expr
    ties: Ties
    checks: tuple[Check, ...]

    def in_order(self) -> pl.Expr:
        """Relevance flags (Float64) in ranking order (``ties`` ``"trec_eval"`` or ``"input"``)."""
        return self.ties.order(self.relevant.cast(pl.Float64))

    def hits(self, k: int | pl.Expr | None) -> pl.Expr:
        """(Expected) relevant rows in the top ``k``; ``None``: all relevant rows."""
        if k is None:
            return self.relevant.cast(pl.Float64).sum()
        if not self.ties.averaged:
            if isinstance(k, int):
                return self.in_order().head(min(k, MAX_ROWS)).sum()
            return hit_term(self.in_order(), row_index(), k).cast(pl.Float64).sum()
        flags = self.relevant.cast(pl.Float64)
        if not isinstance(k, int):
            # k an expression of the group (R-precision's): 3 ranks evaluated
            above, through = ranks_as_counts(self.score)
            a = above.cast(pl.Float64)
            return expected_hits_in_block(flags, through.cast(pl.Float64) - a, a, k).sum()

        def terms(rows: Fields) -> pl.Expr:
            above, through = ranks_as_counts(rows["score"])
            # each rank computed once though read twice (no CSE inside agg)
            return let(
                {"flag": rows["flag"], "a": above.cast(pl.Float64), "t": through},
                lambda f: expected_hits_in_block(f["flag"], f["t"] - f["a"], f["a"], k),
            )

        return over_rows({"flag": flags, "score": self.score}, terms).list.sum()

    def any_hit(self, k: int) -> pl.Expr:
        """(Chance of) at least one relevant row in the top ``k``."""
        if not self.ties.averaged:
            return (self.hits(k) > 0).cast(pl.Float64)
        # The best-scored relevant rows' tie block: ``above`` rows score higher, it
        # holds ``block`` rows, ``r`` of them relevant.  Each of those three reads
        # ``best`` (a group scalar compared with every row), so each is named once.
        best = pl.when(self.relevant).then(self.score).max()
        above = (self.score > best).sum().cast(pl.Float64)
        block = (self.score == best).sum().cast(pl.Float64)
        r = (self.relevant & (self.score == best)).sum().cast(pl.Float64)
        # Draws past the block's irrelevant rows are certain hits (ln 0 = -inf at
        # j = block - r), so capping the draws at the group's length rather than at
        # ``block`` gives the same sum; no relevant row: null ``best``, guarded below.
        made = (pl.lit(float(k)) - above).clip(0.0, pl.len().cast(pl.Float64))
        offset = pl.int_range(0, made.cast(pl.Int64), dtype=pl.Int64).cast(pl.Float64)
        log_miss = log_miss_term(r, block, offset).sum()
        return pl.when(self.relevant.any()).then(1.0 - exp(log_miss)).otherwise(0.0)

    def average_precision_numerator(self, k: int | None) -> pl.Expr:
        """(Expected) sum of the precision at each relevant row in the top ``k``."""
        if not self.ties.averaged:
            flags = self.in_order()
            return average_precision_term(flags, flags.cum_sum(), row_index(), k).sum()

        # expected_average_precision_term per position: any bijection of a block's
        # rows onto its positions gives the same sum, so the ordinal rank serves as
        # position.  The relevant rows above each row's tie block (R) and through
        # it (R + r) are counted by binary searches of its score among the
        # relevant scores (sorted descending: negating them would wrap an
        # unsigned score), not gathered from a running sum at the ranks.  Each
        # rank and search is computed once (let).
        def terms(rows: Fields) -> pl.Expr:
            score = rows["score"]
            above, through = ranks_as_counts(score)
            relevant_scores = score.filter(rows["relevant"]).sort(descending=True)

            def searched(side: Literal["left", "right"]) -> pl.Expr:
                found = relevant_scores.search_sorted(score, side=side, descending=True)
                return found.cast(pl.Float64)

            values = {
                "a": above.cast(pl.Float64),
                "t": through.cast(pl.Float64),
                "position": score.rank("ordinal", descending=True).cast(pl.Float64) - 1.0,
                "higher": searched("left"),
                "upto": searched("right"),
            }
            return let(
                values,
                lambda f: expected_average_precision_term(
                    f["upto"] - f["higher"], f["t"] - f["a"], f["a"], f["higher"], f["position"], k
                ),
            )

        return over_rows({"relevant": self.relevant, "score": self.score}, terms).list.sum()


def _ranked(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    ties: str,
    item: IntoExprColumn | None,
    relevance_level: float | None,
    caller: str,
) -> _Ranked:
    level = check_real(relevance_level, "relevance_level", caller)
    gain, score = as_float(y_true), as_score(y_score)
    relevant = gain > 0 if level is None else gain >= level
    rule, doc_checks = tie_rule(score, ties=ties, item=item, caller=caller)
    return _Ranked(relevant, score, rule, (*input_checks(gain, score), *doc_checks))


def _n_relevant(
    ranked: _Ranked, n_relevant: IntoExprColumn | None
) -> tuple[pl.Expr, tuple[Check, ...]]:
    """The denominator: ``n_relevant`` (one value per group) or the group's relevant rows."""
    own = ranked.relevant.cast(pl.Float64).sum()
    if n_relevant is None:
        return own, ()
    n = as_float(n_relevant)
    not_whole = n.is_infinite() | (n != n.floor()) | (n < 0)
    checks = (
        Check(
            n.is_null().any() | n.is_nan().any(), pl.lit("Input n_relevant contains null or NaN.")
        ),
        Check.any_row(
            not_whole,
            pl.format(
                "n_relevant must be a whole number of relevant documents (0, 1, 2, ...). "
                "Got {} instead.",
                python_text(n.filter(not_whole).first()),
            ),
        ),
        Check(n.n_unique() > 1, pl.lit("n_relevant must hold one value per group.")),
        Check(
            n.first() < own,
            pl.format(
                "n_relevant ({}) is below the relevant rows of the group ({}).", n.first(), own
            ),
        ),
    )
    return n.first(), checks
