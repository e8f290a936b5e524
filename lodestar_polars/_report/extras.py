"""What ``value=`` and ``y_score_b=`` add to the report (issue 21), on both paths.

The whole-frame path hands its graded lists here (:func:`memory_extras`); the parts path its
merged per-list values (:mod:`lodestar_polars._report.parts_merge`). Either gives an
:class:`Extras`, which
:func:`~lodestar_polars._report.ranking_report.payload.finish_payload` writes into the payload:
``objectives[o]["value"]``, ``baselines["global_pop"]["value"]``, ``value_rule`` and ``versus``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from lodestar_polars._report.value import (
    check_value_column,
    truth_values,
    value_family,
    value_note,
)
from lodestar_polars._report.versus import check_score_b, versus_block

if TYPE_CHECKING:
    from lodestar_polars._report.ranking_report import Block, Graded, IntArray, ScoreArray

BASELINE = "global_pop"
CALLER = "ranking_report"


@dataclass
class Extras:
    """The value families (per objective and of the floor) and the ``versus`` block."""

    value: str | None = None
    families: dict[str, dict[str, float | None]] = field(default_factory=dict)
    floor: dict[str, float | None] | None = None
    counts: dict[str, int] = field(default_factory=dict)
    versus: dict[str, Any] | None = None

    def write(self, payload: dict[str, Any]) -> None:
        """Write them into ``payload`` (in place)."""
        if self.value is not None:
            for name, family in self.families.items():
                payload["objectives"][name]["value"] = family
            if self.floor is not None and BASELINE in payload["baselines"]:
                payload["baselines"][BASELINE]["value"] = self.floor
            payload["value_rule"] = {"column": self.value, **self.counts}
            note = value_note(self.value, self.counts)
            if note is not None:
                payload["notes"].append(note)
        if self.versus is not None:
            payload["versus"] = self.versus


def check_extras(
    scores: pl.DataFrame | pl.LazyFrame,
    key_exprs: Sequence[pl.Expr],
    keys: list[str],
    item: str,
    value: str | None,
    score_b: str | None,
    row: str | None = None,
) -> None:
    """The value column and model B's scores, checked on ``scores`` before any grading.

    ``row``: a column numbering the rows (a Spark partition's); else the input's order.
    """
    from lodestar_polars._report.ranking_report import _with_keys
    from lodestar_polars._report.serving import require_columns

    lazy = _with_keys(scores.lazy(), key_exprs, "scores")
    wanted = [c for c in (value, score_b) if c is not None]
    require_columns(lazy.collect_schema(), [*keys, item, *wanted], "scores", CALLER)
    if value is not None:
        check_value_column(lazy, value, keys, item, row)
    if score_b is not None:
        check_score_b(lazy, score_b, keys, item, row)


def families_of(
    served: IntArray,
    value: Any,
    blocks: Mapping[str, Block],
    floor: Block | None,
    kk: int,
) -> tuple[dict[str, dict[str, float | None]], dict[str, float | None] | None, dict[str, int]]:
    """Each block's value family (and the floor's), from their per graded list values."""
    hit, ndcg = f"hit@{kk}", f"ndcg@{kk}"
    counts: dict[str, int] = {}
    out: dict[str, dict[str, float | None]] = {}
    for name, block in blocks.items():
        per_list = block.per_list
        out[name], counts = value_family(served, value, per_list[hit], per_list[ndcg], kk)
    floor_family = None
    if floor is not None:
        floor_family, _ = value_family(served, value, floor.per_list[hit], floor.per_list[ndcg], kk)
    return out, floor_family, counts


def build_extras(
    *,
    served: IntArray,
    value_of_truth: Any,
    unit: IntArray | None,
    blocks: Mapping[str, Block],
    floor: Block | None,
    block_b: Block | None,
    kk: int,
    primary: str,
    value: str | None,
    score_b: str | None,
    n_resamples: int,
    confidence_level: float,
    seed: int,
    versus_dist: Any = None,
) -> Extras:
    """The extras from per graded list values in the canonical order (both paths).

    ``versus_dist``: the paired bootstrap of B − A, drawn with the uncertainty block's draws
    (:func:`~lodestar_polars._report.ranking_report.uncertainty.uncertainty_and_paired`).
    """
    extras = Extras(value=value)
    if value is not None:
        extras.families, extras.floor, extras.counts = families_of(
            served, value_of_truth, blocks, floor, kk
        )
    if block_b is not None:
        assert score_b is not None
        b_value = None
        if value is not None:
            b_value, _ = value_family(
                served, value_of_truth, block_b.per_list[f"hit@{kk}"],
                block_b.per_list[f"ndcg@{kk}"], kk,
            )  # fmt: skip
        extras.versus = versus_block(
            unit, int(served.size), blocks[primary], block_b,
            a_value=extras.families.get(primary), b_value=b_value, score_b=score_b,
            objective=primary, kk=kk, n_resamples=n_resamples,
            confidence_level=confidence_level, seed=seed, dist=versus_dist,
        )  # fmt: skip
    return extras


def memory_extras(
    g: Graded,
    base: pl.DataFrame,
    blocks: Mapping[str, Block],
    floor: Block | None,
    *,
    kk: int,
    primary: str,
    value: str | None,
    score_b: str | None,
    block_b: Block | None,
    versus_dist: Any,
    n_resamples: int,
    confidence_level: float,
    seed: int,
) -> Extras | None:
    """The extras of the whole-frame path (its graded lists and base frame).

    ``block_b``: model B's block (:func:`memory_block_b`), computed before the uncertainty
    block so that its bootstrap draws serve the paired one too (``versus_dist``).
    """
    if value is None and score_b is None:
        return None
    value_of_truth = None
    if value is not None:
        per_row = base[value].cast(pl.Float64).to_numpy()
        value_of_truth = truth_values(np.asarray(per_row, dtype=np.float64), g.g_row)
    return build_extras(
        served=g.g_list, value_of_truth=value_of_truth, unit=g.unit, blocks=blocks,
        floor=floor, block_b=block_b, kk=kk, primary=primary, value=value, score_b=score_b,
        n_resamples=n_resamples, confidence_level=confidence_level, seed=seed,
        versus_dist=versus_dist,
    )  # fmt: skip


def memory_block_b(
    g: Graded,
    score_b_values: Callable[[Any], ScoreArray] | None,
    state: Any,
    kk: int,
    tail: Any,
    information: Any = None,
    features: Any = None,
) -> Block | None:
    """Model B's block on the whole-frame path (None without ``y_score_b``).

    ``information``: per item id, ``train``'s terms (novelty, ARP, serendipity, ...);
    ``features``: per candidate row, the item's feature (intra-list diversity).
    """
    if score_b_values is None:
        return None
    from lodestar_polars._report.ranking_report import score_block

    return score_block(g, score_b_values(state), kk, tail, information, features)
