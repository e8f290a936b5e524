"""The parts path's merge (issue 20): the terms the parts keep, folded and finished into a payload.

:class:`_Merged` is what the parts leave for the driver; :func:`combine` folds two partial
results into one (the per-item terms over the union of their items, Spark's tree) and
:func:`_merge` finishes the payload: the per-list values in the in-memory order (so the primary
block, the floor and the bootstrap are bit for bit the in-memory ones), the per-item sums added
part after part.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from lodestar_polars._registry import report_metrics
from lodestar_polars._report.beyond import BEYOND_SUMS, ByCut, beyond_from_sums
from lodestar_polars._report.diversity import ILD_SERVED, ILD_SUM, ild_from_sums
from lodestar_polars._report.extras import build_extras
from lodestar_polars._report.ranking_report import (
    _ITEM,
    BASELINE,
    Block,
    FloatArray,
    IntArray,
    RankingReport,
    Terms,
    finish_payload,
    micro_keys,
    popularity_on,
    summarise,
    tail_items,
    uncertainty_and_paired,
)

_TRUTH_ITEM = "__lp_truth_item"
_GROUP = "__lp_group"
_TRUTH_VALUE = "__lp_truth_value"
MODEL_B = "__lp_model_b"  # model B's block (issue 21), ranked by the primary block's transform


@dataclass
class _BlockSums:
    """One block's per-item sums (by part, local item ids) and, off the primary, micro sums."""

    exposure: list[FloatArray] = field(default_factory=list)
    covered: list[np.ndarray] = field(default_factory=list)
    miss: list[FloatArray] = field(default_factory=list)
    hit_count: list[FloatArray] = field(default_factory=list)
    hit_sum: list[FloatArray] = field(default_factory=list)
    micro_sum: dict[str, float] = field(default_factory=dict)
    by_cut: list[ByCut] = field(default_factory=list)  # issue 21, with train: per part


@dataclass
class _Merged:
    """What the parts leave for the driver."""

    lists: list[pl.DataFrame] = field(default_factory=list)  # keys, truth item, group
    per_list: dict[str, list[FloatArray]] = field(default_factory=dict)  # "model:key"/"floor:key"
    items: list[pl.Series] = field(default_factory=list)  # per part: its sorted items
    blocks: dict[str, _BlockSums] = field(default_factory=dict)
    n_dropped: int = 0
    n_unseen: int = 0
    longest: int = 0
    graded: list[int] = field(default_factory=list)  # indexes in items of the graded parts
    problem: tuple[tuple[Any, ...], ValueError] | None = None
    features: list[pl.DataFrame] = field(default_factory=list)  # with feature: (item, feature)


def _keep_problem(merged: _Merged, where: tuple[Any, ...], error: ValueError) -> None:
    if merged.problem is None or where < merged.problem[0]:
        merged.problem = (where, error)


def _per_item(merged: _Merged, catalogue: pl.Series, item: str) -> tuple[list[IntArray], int]:
    """Each graded part's local item ids in ``catalogue``, and the catalogue's size."""
    ids = catalogue.to_frame(item).with_row_index(_ITEM)
    part_ids: list[IntArray] = [
        s.to_frame(item)
        .join(ids, on=item, how="left", maintain_order="left")[_ITEM]
        .cast(pl.Int64)
        .to_numpy()
        for s in merged.items
    ]
    return [part_ids[i] for i in merged.graded], catalogue.len()


def _gathered(arrays: list[Any], ids: list[IntArray], n: int, start: float, how: str) -> Any:
    """Per catalogue item: the parts' ``arrays`` added (``add``), multiplied or or-ed."""
    out = np.full(n, start, dtype=np.float64 if how != "or" else bool)
    for local_ids, values in zip(ids, arrays, strict=True):
        if how == "add":
            np.add.at(out, local_ids, values)
        elif how == "mul":
            np.multiply.at(out, local_ids, values)
        else:
            out[local_ids[values]] = True
    return out


def _cuts_gathered(parts: list[ByCut], ids: list[IntArray], n: int) -> ByCut:
    """The parts' :data:`ByCut` sums per catalogue item (a part without a top size: zeros)."""
    out: ByCut = {}
    for c in sorted({c for part in parts for c in part}):
        pairs = [
            part.get(c, (np.zeros(i.size), np.zeros(i.size)))
            for part, i in zip(parts, ids, strict=True)
        ]
        out[c] = (
            _gathered([p[0] for p in pairs], ids, n, 0.0, "add"),
            _gathered([p[1] for p in pairs], ids, n, 0.0, "add"),
        )
    return out


def _cuts_added(x: list[ByCut], y: list[ByCut]) -> list[ByCut]:
    """Two collapsed parts' :data:`ByCut` sums added (over one catalogue)."""
    if not (x and y):
        return x or y
    out = dict(x[0])
    for c, (w_sum, w_sq) in y[0].items():
        out[c] = (out[c][0] + w_sum, out[c][1] + w_sq) if c in out else (w_sum, w_sq)
    return [out]


def _collapsed(merged: _Merged, catalogue: pl.Series, item: str) -> dict[str, _BlockSums]:
    """The parts' per-item sums as one part over ``catalogue`` (neutral where a part is not)."""
    ids, n = _per_item(merged, catalogue, item)
    out: dict[str, _BlockSums] = {}
    for name, sums in merged.blocks.items():
        out[name] = _BlockSums(
            [_gathered(sums.exposure, ids, n, 0.0, "add")],
            [_gathered(sums.covered, ids, n, False, "or")],
            [_gathered(sums.miss, ids, n, 1.0, "mul")],
            [_gathered(sums.hit_count, ids, n, 0.0, "add")],
            [_gathered(sums.hit_sum, ids, n, 0.0, "add")],
            dict(sums.micro_sum),
            [_cuts_gathered(sums.by_cut, ids, n)] if sums.by_cut else [],
        )
    return out


def combine(a: _Merged, b: _Merged, item: str) -> _Merged:
    """Two parts' terms as one (the per-item sums over the union of their items).

    Associative up to the order of float sums and products (about 1e-15), so partial results
    can be combined in any tree (Spark's ``treeReduce``) before the driver's :func:`_merge`.
    """
    out = _Merged()
    for side in (a, b):
        if side.problem is not None:
            _keep_problem(out, *side.problem)
    out.n_dropped = a.n_dropped + b.n_dropped
    out.n_unseen = a.n_unseen + b.n_unseen
    out.longest = max(a.longest, b.longest)
    out.lists = [*a.lists, *b.lists]
    if a.features or b.features:  # the distinct (item, feature) pairs, checked on the driver
        out.features = [pl.concat([*a.features, *b.features]).unique()]
    for key in dict.fromkeys([*a.per_list, *b.per_list]):
        out.per_list[key] = [*a.per_list.get(key, []), *b.per_list.get(key, [])]
    if out.problem is not None:
        return out  # a refusal is coming: the terms are not needed
    parts = [*a.items, *b.items]
    if not parts:
        return out
    catalogue = pl.concat(parts).unique().sort()
    out.items = [catalogue]
    if not (a.graded or b.graded):
        return out
    out.graded = [0]
    left, right = _collapsed(a, catalogue, item), _collapsed(b, catalogue, item)
    for name in dict.fromkeys([*left, *right]):
        if name not in left or name not in right:
            out.blocks[name] = left.get(name) or right[name]
            continue
        x, y = left[name], right[name]
        micro = dict(x.micro_sum)
        for key, value in y.micro_sum.items():
            micro[key] = micro.get(key, 0.0) + value
        out.blocks[name] = _BlockSums(
            [x.exposure[0] + y.exposure[0]],
            [x.covered[0] | y.covered[0]],
            [x.miss[0] * y.miss[0]],
            [x.hit_count[0] + y.hit_count[0]],
            [x.hit_sum[0] + y.hit_sum[0]],
            micro,
            _cuts_added(x.by_cut, y.by_cut),
        )
    return out


def _merge(
    merged: _Merged,
    *,
    keys: list[str],
    item: str,
    groups: str | None,
    kk: int,
    names: Sequence[str],
    primary: str,
    table: tuple[pl.DataFrame, float, str] | None,
    tail_share: float,
    mp: str,
    comparability: str | None,
    strength: float | None,
    percentile: bool,
    block_alpha: Mapping[str, float],
    n_resamples: int,
    confidence_level: float,
    seed: int,
    value: str | None = None,
    score_b: str | None = None,
) -> RankingReport:
    """The payload from the parts' terms: per-list values in the in-memory order, items summed."""
    lists = pl.concat(merged.lists, how="vertical", rechunk=True)
    order = lists.select(pl.arg_sort_by([*keys, _TRUTH_ITEM])).to_series().to_numpy()
    n_graded = order.size
    catalogue = pl.concat(merged.items).unique().sort()
    n_items = catalogue.len()
    ids = catalogue.to_frame(item).with_row_index(_ITEM)
    micro = [key for key, _, _ in micro_keys(kk)]
    hit = f"hit@{kk}"
    # the ids of the parts that were graded (a part with no positive is only items)
    terms_ids, _ = _per_item(merged, catalogue, item)

    def per_item(arrays: list[Any], start: float, how: str) -> Any:
        return _gathered(arrays, terms_ids, n_items, start, how)

    counts = per_item(merged.blocks[primary].hit_count, 0.0, "add")
    pop_values = None
    others = np.zeros(0)
    if table is not None:
        pop_values, others = popularity_on(catalogue, item, table[0])
        tail = tail_items(pop_values, table[1], tail_share, others)
        tail_source: str | None = table[2]
    else:
        tail = tail_items(counts, float(counts.sum()), tail_share, others)
        tail_source = "truth"

    def block(name: str) -> Block:
        sums = merged.blocks[name]
        terms = Terms(
            {},
            per_item(sums.exposure, 0.0, "add"),
            per_item(sums.covered, False, "or"),
            per_item(sums.miss, 1.0, "mul"),
        )
        hit_count = per_item(sums.hit_count, 0.0, "add")
        hit_sum = per_item(sums.hit_sum, 0.0, "add")
        values: dict[str, FloatArray] = {}
        if f"{name}:{hit}" in merged.per_list:  # primary, floor, B; every block with value
            values = {k: np.concatenate(merged.per_list[f"{name}:{k}"])[order] for k in micro}
            means = {k: float(v.mean()) for k, v in values.items()}
            hit_k = values[hit]
            in_tail = tail[_truth_ids(lists, order, ids, item)]
            tail_hit = float(hit_k[in_tail].mean()) if in_tail.any() else None
        else:
            means = {k: sums.micro_sum[k] / n_graded for k in micro}
            held = float(hit_count[tail].sum())
            tail_hit = float(hit_sum[tail].sum()) / held if held > 0 else None
        computed = summarise(hit_count, hit_sum, tail_hit, terms)
        if sums.by_cut:  # issue 21, with train: novelty, ARP, ... from their sums
            beyond = {k: v for k, v in sums.micro_sum.items() if k in BEYOND_SUMS}
            cuts = _cuts_gathered(sums.by_cut, terms_ids, n_items)
            computed.update(beyond_from_sums(beyond, cuts, n_items))
        if ILD_SUM in sums.micro_sum:  # issue 21, with feature: intra-list diversity
            computed.update(ild_from_sums(sums.micro_sum[ILD_SUM], int(sums.micro_sum[ILD_SERVED])))
        macro = {
            m.name(kk): computed[m.key]
            for m in report_metrics(kk, "macro")
            if m.needs is None or m.key in computed
        }
        return Block(means, macro, values, terms.exposure)

    blocks = {name: block(name) for name in names}
    floor = block(BASELINE) if table is not None else None
    unit = None
    if groups is not None:
        graded_groups = lists[_GROUP].gather(pl.Series(order))
        unit = (graded_groups.rank("dense") - 1).to_numpy().astype(np.int64)
    block_b = None if score_b is None else block(MODEL_B)
    # one set of bootstrap draws: the uncertainty block's and the paired one of B − A
    uncertainty, versus_dist = uncertainty_and_paired(
        unit, n_graded, blocks[primary], floor, block_b, n_resamples=n_resamples,
        confidence_level=confidence_level, seed=seed, objective=primary,
    )  # fmt: skip
    extras = None
    if value is not None or score_b is not None:  # issue 21, in the in-memory order
        ordered = lists[pl.Series(order)]
        served = ordered.select(pl.struct(keys).rank("dense")).to_series().to_numpy()
        extras = build_extras(
            served=np.asarray(served, dtype=np.int64),
            value_of_truth=None if value is None
            else ordered[_TRUTH_VALUE].to_numpy().astype(np.float64),
            unit=unit, blocks=blocks, floor=floor,
            block_b=block_b, kk=kk, primary=primary, value=value, score_b=score_b,
            n_resamples=n_resamples, confidence_level=confidence_level, seed=seed,
            versus_dist=versus_dist,
        )  # fmt: skip
    return finish_payload(
        kk=kk, blocks=blocks, floor=floor, primary=primary, uncertainty=uncertainty,
        objective_alpha={n: None if percentile else block_alpha[n] for n in names},
        longest=merged.longest, tail=tail, tail_share=tail_share, tail_source=tail_source,
        n_lists=n_graded, n_dropped=merged.n_dropped, n_unseen_truth=merged.n_unseen,
        n_items=n_items, mp=mp, source=None if table is None else table[2],
        comparability=comparability, strength=strength, extras=extras,
    )  # fmt: skip


def _truth_ids(lists: pl.DataFrame, order: IntArray, ids: pl.DataFrame, item: str) -> IntArray:
    """Per graded list, in the in-memory order: its truth item's global id."""
    truth = lists[_TRUTH_ITEM].gather(pl.Series(order)).to_frame(item)
    joined = truth.join(ids, on=item, how="left", maintain_order="left")
    return joined[_ITEM].cast(pl.Int64).to_numpy()
