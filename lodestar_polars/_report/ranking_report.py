"""The recommendation ranking report over a long frame (issue 10, seed 004).

Every graded list has one truth item.  With ``b`` candidates scored strictly
above it and ``t`` in its tie block (itself included), its rank is uniform on
``[b + 1, b + t]`` and each metric is that distribution's expectation
``E[f(R)]`` (docs/ties.md, docs/decisions/0012).  All of it is computed on
NumPy arrays built by one Polars sort: no Python runs per list, per item or per
bootstrap resample.
"""

from __future__ import annotations

import copy
import json
import numbers
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast, overload

import numpy as np
import numpy.typing as npt
import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.progress import check_progress, progress_callback
from lodestar_polars._base.validation import (
    check_bool,
    check_column,
    check_int,
    check_k,
    check_open_interval,
    check_option,
    names_of,
)
from lodestar_polars._core import bootstrap as _bootstrap
from lodestar_polars._core.ranking import descending_key
from lodestar_polars._evaluate.partition import LAYOUTS, Layout, check_temp_dir
from lodestar_polars._registry import report_metrics
from lodestar_polars._report.comparability import check_exclusive, check_state, resolve_shrinkage
from lodestar_polars._report.extras import Extras, check_extras, memory_extras
from lodestar_polars._report.inputs import computed, scores_frame, with_item, with_roles
from lodestar_polars._report.serving import (
    check_frame,
    check_score_dtype,
    require_columns,
)
from lodestar_polars.exceptions import InvalidParameterError

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.dataset as pads

    from lodestar_polars._evaluate.evaluate import Progress

SCHEMA_VERSION = 1
OBJECTIVES = ("accuracy", "balanced", "coverage")
MULTI_POSITIVE = ("each", "first")
ENGINES = ("auto", "in-memory", "streaming")
BASELINE = "global_pop"
CALLER = "ranking_report"

Objective = Literal["accuracy", "balanced", "coverage"]
MultiPositive = Literal["each", "first"]
Engine = Literal["auto", "in-memory", "streaming"]
Frame = pl.DataFrame | pl.LazyFrame

# internal column names
_LIST, _ITEM, _ROW, _ORDER, _TRUTH = "__lp_list", "__lp_item", "__lp_row", "__lp_order", "__lp_t"

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
ScoreArray = npt.NDArray[Any]  # float64, or an integer dtype: ranks as the scores do


# ---------------------------------------------------------------------------
# the graded lists: input handling


@dataclass(frozen=True)
class Graded:
    """The evaluated frame as arrays, in a canonical order (row order never matters)."""

    list_id: IntArray  # per candidate row: the list (0..n_lists_all)
    item_id: IntArray  # per candidate row: the item (0..n_items)
    keys: pl.DataFrame  # per list id: the by columns, sorted
    items: pl.Series  # per item id: the item value (catalogue first, then unseen truth items)
    n_catalogue: int  # items of `scores`: ids [0, n_catalogue)
    g_list: IntArray  # per graded list: its list id
    g_item: IntArray  # per graded list: its truth item id
    g_row: IntArray  # per graded list: its candidate row, -1 when the truth is unseen
    weight: FloatArray  # per list id: how many graded lists it carries
    n_dropped: int
    unit: IntArray | None  # per graded list: the bootstrap unit (groups), None: each graded list


def _truth_pairs_from_column(base: pl.DataFrame, truth: str, keys: list[str]) -> pl.DataFrame:
    dtype = base.schema[truth]
    col = pl.col(truth)
    if dtype == pl.Boolean:
        bad = base.filter(col.is_null())
    elif dtype.is_numeric():
        bad = base.filter(col.is_null() | ~((col == 0) | (col == 1)))
    else:
        msg = (
            f"{CALLER}: the y_true column {truth!r} must be Boolean or 0/1. "
            f"Got dtype {dtype} instead."
        )
        raise ValueError(msg)
    if bad.height:
        row = bad.sort(_ORDER).row(0, named=True)
        msg = (
            f"{CALLER}: the y_true column {truth!r} must hold only True/False or 0/1. "
            f"Got {row[truth]!r} in list {_key_repr(row, keys)}."
        )
        raise ValueError(msg)
    return base.filter(col.cast(pl.Boolean)).select(_LIST, _ITEM, _ROW, _ORDER)


def _check_scores(
    base: pl.DataFrame, keys: list[str], item: str, score: str, groups: str | None
) -> None:
    for name in [*keys, item, score, *([] if groups is None else [groups])]:
        nulls = base.filter(pl.col(name).is_null())
        if nulls.height:
            msg = (
                f"{CALLER}: scores column {name!r} has null values (first in row {nulls[_ROW][0]})."
            )
            raise ValueError(msg)
    check_score_dtype(base.schema, score, CALLER)  # the rule top_k follows
    bad = base.filter(~pl.col(score).cast(pl.Float64).is_finite())
    if bad.height:
        key = bad.row(0, named=True)
        msg = (
            f"{CALLER}: scores must be finite; list {_key_repr(key, keys)} has "
            f"{score}={key[score]!r} for item {key[item]!r}."
        )
        raise ValueError(msg)


def _key_repr(row: Mapping[str, Any], keys: list[str]) -> str:
    if len(keys) == 1:
        return repr(row[keys[0]])
    return repr({k: row[k] for k in keys})


def _grade(
    scores: Frame,
    *,
    keys: list[str],
    item: str,
    score: str,
    truth: str | Frame,
    groups: str | None,
    multi_positive: str,
    engine: Engine,
    key_exprs: Sequence[pl.Expr] = (),
    extra: Sequence[str] = (),
) -> tuple[Graded, pl.DataFrame]:
    """Read, check and index the input; the base frame keeps (list, item, score) rows.

    ``extra``: further columns of ``scores`` the base frame keeps (``value``, ``y_score_b``).
    """
    lazy = _with_keys(scores.lazy(), key_exprs, "scores")
    schema = lazy.collect_schema()
    wanted = [*keys, item, score, *extra]
    if isinstance(truth, str):
        wanted.append(truth)
    if groups is not None:
        wanted.append(groups)
    require_columns(schema, wanted, "scores", CALLER)
    base = lazy.select(list(dict.fromkeys(wanted))).with_row_index(_ROW).collect(engine=engine)
    if base.height == 0:
        msg = f"{CALLER}: scores has no rows, so there is nothing to grade."
        raise ValueError(msg)
    _check_scores(base, keys, item, score, groups)
    # canonical ids: sorted keys and sorted items, whatever the row order
    key_table = base.select(keys).unique().sort(keys).with_row_index(_LIST)
    catalogue = base.select(item).unique().sort(item)
    base = base.join(key_table, on=keys, how="left", maintain_order="left")
    base = base.join(
        catalogue.with_row_index(_ITEM), on=item, how="left", maintain_order="left"
    ).with_columns(pl.col(_LIST).cast(pl.Int64), pl.col(_ITEM).cast(pl.Int64))
    n_items = catalogue.height
    pair = pl.col(_LIST) * n_items + pl.col(_ITEM)
    if base.select(pair.n_unique()).item() != base.height:
        dup = base.filter(pair.is_duplicated()).row(0, named=True)
        msg = (
            f"{CALLER}: list {_key_repr(dup, keys)} has item {dup[item]!r} more than once; "
            f"scores must hold one row per (list, item)."
        )
        raise ValueError(msg)
    # canonical row order: (list, item), so every sum runs in one order whatever the input's
    base = base.rename({_ROW: _ORDER}).sort(_LIST, _ITEM).with_row_index(_ROW)
    items = catalogue[item]
    if isinstance(truth, str):
        pairs = _truth_pairs_from_column(base, truth, keys)
    else:
        truth = _with_keys(truth.lazy(), key_exprs, "the y_true frame")
        pairs, items = _truth_pairs_from_frame(truth, base, key_table, catalogue, keys, item)
    if multi_positive == "first":
        pairs = pairs.sort(_ORDER).unique(_LIST, keep="first")
    pairs = pairs.sort(_LIST, _ITEM)
    n_lists_all = key_table.height
    g_list = pairs[_LIST].to_numpy().astype(np.int64)
    weight = weighted_count(g_list, minlength=n_lists_all).astype(np.float64)
    n_dropped = int(np.count_nonzero(weight == 0))
    if g_list.size == 0:
        msg = f"{CALLER}: no list of scores has a positive, so there is nothing to grade."
        raise ValueError(msg)
    unit = None
    if groups is not None:
        per_list = base.group_by(_LIST).agg(
            pl.col(groups).n_unique().alias("n"), pl.col(groups).first().alias("g")
        )
        mixed = per_list.filter(pl.col("n") > 1)
        if mixed.height:
            row = key_table.filter(pl.col(_LIST) == mixed[_LIST][0]).row(0, named=True)
            msg = (
                f"{CALLER}: groups column {groups!r} must be constant within a list; list "
                f"{_key_repr(row, keys)} has {mixed['n'][0]} values."
            )
            raise ValueError(msg)
        # units among the graded lists only: a dropped entity is not a unit
        group_of_list = per_list.sort(_LIST)["g"]
        graded_groups = group_of_list.gather(pl.Series(g_list))
        unit = (graded_groups.rank("dense") - 1).to_numpy().astype(np.int64)
    graded = Graded(
        list_id=base[_LIST].to_numpy(),
        item_id=base[_ITEM].to_numpy(),
        keys=key_table,
        items=items,
        n_catalogue=n_items,
        g_list=g_list,
        g_item=pairs[_ITEM].to_numpy().astype(np.int64),
        g_row=pairs[_ROW].fill_null(-1).to_numpy().astype(np.int64),
        weight=weight,
        n_dropped=n_dropped,
        unit=unit,
    )
    kept = [c for c in dict.fromkeys(extra) if c not in (score, item, *keys)]
    return graded, base.select(_ROW, *keys, item, score, *kept)


def _keys_of(by: object) -> tuple[list[str], list[pl.Expr]]:
    """``by`` as key column names, and the expressions that make the keys that are no column.

    As :func:`lodestar_polars.evaluate` reads it: a name, a Polars expression, or a non-empty
    sequence of them; an expression keeps its output name (``pl.col("user")`` is the column
    ``user``; ``(pl.col("user") % 10).alias("bucket")`` adds the key ``bucket``).
    """
    many = [by] if isinstance(by, (str, pl.Expr)) else list(by) if isinstance(by, Sequence) else []
    if not many or not all(isinstance(key, (str, pl.Expr)) for key in many):
        msg = (
            f"The 'by' parameter of {CALLER} must be a column name, a Polars expression, or a "
            f"non-empty sequence of them. Got {by!r} instead."
        )
        raise InvalidParameterError(msg)
    keys: list[str] = []
    added: list[pl.Expr] = []
    for key in many:
        if isinstance(key, str):
            keys.append(key)
            continue
        name = key.meta.output_name(raise_if_undetermined=False)
        if name is None:
            msg = (
                f"The 'by' parameter of {CALLER}: the expression {key} has no output name; "
                "give it one with .alias()."
            )
            raise InvalidParameterError(msg)
        keys.append(name)
        if not key.meta.is_column():
            added.append(key.alias(name))
    if len(set(keys)) != len(keys):
        msg = f"The 'by' parameter of {CALLER} names a key column twice: {keys!r}."
        raise InvalidParameterError(msg)
    return keys, added


def _with_keys(lazy: pl.LazyFrame, key_exprs: Sequence[pl.Expr], frame: str) -> pl.LazyFrame:
    """``lazy`` with the ``by`` expressions' key columns, once the columns they read are there."""
    if not key_exprs:
        return lazy
    schema = lazy.collect_schema()
    wanted = []
    for expr in key_exprs:
        missing = [name for name in expr.meta.root_names() if name not in schema]
        if not missing:
            wanted.append(expr)
        elif expr.meta.output_name() not in schema:  # a frame holding the key itself keeps it
            msg = (
                f"{CALLER}: {frame} has no column {missing[0]!r}, which the `by` expression "
                f"{expr} reads (its columns: {list(schema.names())})."
            )
            raise ValueError(msg)
    return lazy.with_columns(wanted) if wanted else lazy


def _truth_pairs_from_frame(
    truth: Frame,
    base: pl.DataFrame,
    key_table: pl.DataFrame,
    catalogue: pl.DataFrame,
    keys: list[str],
    item: str,
) -> tuple[pl.DataFrame, pl.Series]:
    lazy = truth.lazy()
    schema = lazy.collect_schema()
    require_columns(schema, [*keys, item], "the y_true frame", CALLER)
    for name in [*keys, item]:
        if schema[name] != base.schema[name]:
            msg = (
                f"{CALLER}: column {name!r} is {schema[name]} in the y_true frame but "
                f"{base.schema[name]} in scores; they must match."
            )
            raise ValueError(msg)
    frame = lazy.select(*keys, item).with_row_index(_ORDER).collect()
    for name in [*keys, item]:
        if frame[name].null_count():
            msg = f"{CALLER}: the y_true frame's column {name!r} has null values."
            raise ValueError(msg)
    frame = frame.unique([*keys, item], keep="first")
    frame = frame.join(key_table, on=keys, how="left")
    unknown = frame.filter(pl.col(_LIST).is_null())
    if unknown.height:
        first = unknown.sort(_ORDER).row(0, named=True)
        msg = (
            f"{CALLER}: the y_true frame names {unknown.select(keys).n_unique()} list(s) that are "
            f"not in scores, e.g. {_key_repr(first, keys)}."
        )
        raise ValueError(msg)
    unseen = frame.select(item).unique().join(catalogue, on=item, how="anti").sort(item).to_series()
    items = pl.concat([catalogue[item], unseen])
    ids = items.to_frame().with_row_index(_ITEM)
    frame = frame.join(ids, on=item, how="left").with_columns(
        pl.col(_LIST).cast(pl.Int64), pl.col(_ITEM).cast(pl.Int64)
    )
    frame = frame.join(base.select(_LIST, _ITEM, _ROW), on=[_LIST, _ITEM], how="left")
    return frame.select(_LIST, _ITEM, _ROW, _ORDER), items


# ---------------------------------------------------------------------------
# the families on arrays


def ranking_values(column: pl.Series) -> ScoreArray:
    """A score column as an array that ranks and ties exactly as its values do.

    Floats as float64; integers of up to 64 bits in their own dtype, never cast to float (as
    ``lp.evaluate`` ranks them: ``2**53`` and ``2**53 + 1`` do not tie); 128-bit integers and
    decimals, which NumPy cannot hold, by their dense rank over the whole column.
    """
    dtype = column.dtype
    if dtype.is_float():
        return column.cast(pl.Float64).to_numpy()
    if dtype.is_integer() and dtype not in (pl.Int128, pl.UInt128):
        return column.to_numpy()
    return column.rank("dense").cast(pl.Int64).to_numpy()


def rank_bounds(list_id: IntArray, values: ScoreArray) -> tuple[IntArray, IntArray]:
    """Per row: ``b`` (candidates strictly above in its list) and ``t`` (its tie block's size).

    ``values`` are float64 or integers (compared as integers, never through a float).
    """
    shape = _rectangle(list_id)
    if shape is not None:
        return _rank_bounds_rectangular(values.reshape(shape))
    order = (
        pl.DataFrame({"l": list_id, "s": values})
        .select(pl.arg_sort_by(["l", "s"], descending=[False, True]))
        .to_series()
        .to_numpy()
    )
    ls, ss = list_id[order], values[order]
    n = ls.size
    new_list = np.ones(n, dtype=bool)
    new_list[1:] = ls[1:] != ls[:-1]
    new_block = new_list.copy()
    new_block[1:] |= ss[1:] != ss[:-1]
    pos = np.arange(n, dtype=np.int64)
    list_start = np.maximum.accumulate(np.where(new_list, pos, 0))
    block_start = np.maximum.accumulate(np.where(new_block, pos, 0))
    starts = np.flatnonzero(new_block)
    sizes = np.diff(np.append(starts, n))
    block_size = np.repeat(sizes, sizes)
    b = np.empty(n, dtype=np.int64)
    t = np.empty(n, dtype=np.int64)
    b[order] = block_start - list_start
    t[order] = block_size
    return b, t


def _rectangle(list_id: IntArray) -> tuple[int, int] | None:
    """(lists, length) when every list is one contiguous run of one length, in list order.

    The usual eval log (every list scores the whole catalogue) is such a matrix: row-wise NumPy
    sorts of it are about 10x faster than Polars' two-key ``arg_sort_by`` of the long rows
    (1e7 rows: 0.3 s against 3-8 s on this 2-core machine).
    """
    n = list_id.size
    if n == 0:
        return None
    n_lists = int(list_id[-1]) + 1
    if n % n_lists:
        return None
    length = n // n_lists
    if not np.array_equal(list_id, np.arange(n, dtype=np.int64) // length):
        return None
    return n_lists, length


def _rank_bounds_rectangular(scores: ScoreArray) -> tuple[IntArray, IntArray]:
    """:func:`rank_bounds` of a (lists x length) matrix, row by row in NumPy."""
    n_lists, length = scores.shape
    # -scores for floats, ~scores for integers (no overflow at the int64 minimum or in uint64)
    within = np.argsort(descending_key(scores), axis=1, kind="stable")
    ranked = np.take_along_axis(scores, within, axis=1)
    col = np.broadcast_to(np.arange(length, dtype=np.int64), (n_lists, length))
    first = np.ones((n_lists, length), dtype=bool)
    first[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
    last = np.ones((n_lists, length), dtype=bool)
    last[:, :-1] = first[:, 1:]
    start = np.maximum.accumulate(np.where(first, col, 0), axis=1)
    end = np.minimum.accumulate(np.where(last, col, length)[:, ::-1], axis=1)[:, ::-1]
    b = np.empty((n_lists, length), dtype=np.int64)
    t = np.empty((n_lists, length), dtype=np.int64)
    np.put_along_axis(b, within, start, axis=1)
    np.put_along_axis(t, within, end - start + 1, axis=1)
    return b.ravel(), t.ravel()


def expected_at(table: FloatArray, b: IntArray, t: IntArray, k: int) -> FloatArray:
    """``E[f(R) 1{R <= k}]`` for ``R`` uniform on ``[b+1, b+t]``, ``table[n] = sum f(1..n)``."""
    lo = np.minimum(b, k)
    hi = np.minimum(b + t, k)
    return np.asarray((table[hi] - table[lo]) / t, dtype=np.float64)


def cumulative(k: int, f: Literal["hit", "rr", "dcg"]) -> FloatArray:
    """``table[n] = sum_{r=1..n} f(r)`` for ``n`` in ``0..k``."""
    r = np.arange(1, k + 1, dtype=np.float64)
    terms = {"hit": np.ones_like(r), "rr": 1.0 / r, "dcg": 1.0 / np.log2(r + 1.0)}[f]
    return np.concatenate([[0.0], np.cumsum(terms)])


def micro_keys(k: int) -> list[tuple[str, Literal["hit", "rr", "dcg"], int]]:
    """The micro family's keys, as the seed spells them, with their term and cutoff.

    Read from the registry (:data:`lodestar_polars._registry.REPORT_METRICS`).
    """
    return [
        (m.name(k), m.term, m.cut(k))
        for m in report_metrics(k, "micro")
        if m.term is not None  # every micro key has one
    ]


def macro_keys(k: int) -> list[str]:
    """The macro block's keys (the macro and coverage families), in payload order."""
    return [m.name(k) for m in report_metrics(k, "macro")]


@dataclass(frozen=True)
class Block:
    """One ranking's families: the summary and the per-graded-list micro values."""

    micro: dict[str, float]
    macro: dict[str, float | None]
    per_list: dict[str, FloatArray]
    exposure: FloatArray


@dataclass(frozen=True)
class Terms:
    """One ranking's terms before any mean: per graded list, and per catalogue item."""

    per_list: dict[str, FloatArray]  # per graded list: each micro key's value
    exposure: FloatArray  # per item id: expected exposure (sum of w * P(in top-k))
    covered: npt.NDArray[np.bool_]  # per item id: surely in some top k
    miss: FloatArray  # per item id: prod (1 - p)^w over the rows straddling k


def block_terms(g: Graded, values: ScoreArray, k: int) -> Terms:
    """The per-list values and per-item sums of the ranking by ``values`` (one per row).

    Each list's terms depend on that list's rows alone, so a part of whole lists gives its
    lists' terms exactly (the cutoffs clamp to the longest list seen, which no rank exceeds).
    """
    b, t = rank_bounds(g.list_id, values)
    seen = g.g_row >= 0
    rows = np.where(seen, g.g_row, 0)
    gb, gt = b[rows], t[rows]
    # no rank exceeds the longest list, so a cutoff past it is that length: nothing is built at
    # the size of k (k=10**20 is a valid cutoff, as everywhere in the package)
    longest = int((b + t).max()) if b.size else 1
    per_list: dict[str, FloatArray] = {}
    for key, f, cut in micro_keys(k):
        c = min(cut, longest)
        v = expected_at(cumulative(c, f), gb, gt, c)
        per_list[key] = np.where(seen, v, 0.0)
    # catalogue: P(item in top-k) per candidate row, each list weighted by its graded lists
    p = np.clip(min(k, longest) - b, 0, t) / t
    w = g.weight[g.list_id]
    exposure = weighted_count(g.item_id, weights=w * p, minlength=g.n_catalogue)
    covered, miss = coverage_terms(g.item_id, p, w, g.n_catalogue)
    return Terms(per_list, exposure, covered, miss)


def summarise(
    hit_count: FloatArray,
    hit_sum: FloatArray,
    tail_hit: float | None,
    terms: Terms,
) -> dict[str, float | None]:
    """The macro block from per-item sums: hit@k's count and sum per truth item, the terms."""
    present = hit_count > 0
    coverage = np.where(terms.covered, 1.0, 1.0 - terms.miss)
    computed: dict[str, float | None] = {
        "macro_recall@{k}": float(np.mean(hit_sum[present] / hit_count[present])),
        "catalog_coverage": float(coverage.mean()),
        "tail_hit@{k}": tail_hit,
        "entropy": entropy(terms.exposure),
        "gini": gini(terms.exposure),
    }
    return computed


def score_block(g: Graded, values: ScoreArray, k: int, tail: npt.NDArray[np.bool_]) -> Block:
    """Micro and macro families of the ranking by ``values`` (one per candidate row)."""
    terms = block_terms(g, values, k)
    per_list = terms.per_list
    micro = {key: float(v.mean()) for key, v in per_list.items()}
    hit_k = per_list[f"hit@{k}"]
    # macro recall: hit@k averaged within each true item, then over the items
    n_ids = g.items.len()
    counts = weighted_count(g.g_item, minlength=n_ids)
    sums = weighted_count(g.g_item, weights=hit_k, minlength=n_ids)
    in_tail = tail[g.g_item]
    tail_hit = float(hit_k[in_tail].mean()) if in_tail.any() else None
    computed = summarise(counts, sums, tail_hit, terms)
    # the registry's keys, in its order (a key it adds must be computed above)
    macro = {m.name(k): computed[m.key] for m in report_metrics(k, "macro")}
    return Block(micro, macro, per_list, terms.exposure)


def coverage_terms(
    item_id: IntArray, p: FloatArray, w: FloatArray, n_items: int
) -> tuple[npt.NDArray[np.bool_], FloatArray]:
    """Per item: surely in some top k, and ``prod_rows (1 - p)^w`` over the other rows.

    Only rows of a tie block straddling ``k`` have ``0 < p < 1`` (the others are in or out for
    sure), so the product runs over those few rows, grouped by item in list order.
    """
    served = w > 0
    covered = np.zeros(n_items, dtype=bool)
    covered[item_id[served & (p == 1.0)]] = True
    part = np.flatnonzero(served & (p > 0.0) & (p < 1.0))
    miss = np.ones(n_items, dtype=np.float64)
    if part.size:
        order = part[np.argsort(item_id[part], kind="stable")]
        ids = item_id[order]
        starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
        miss[ids[starts]] = np.multiply.reduceat(np.power(1.0 - p[order], w[order]), starts)
    return covered, miss


def catalogue_coverage(item_id: IntArray, p: FloatArray, w: FloatArray, n_items: int) -> FloatArray:
    """Per item: ``1 - prod_rows (1 - p)^w``, the chance it is in at least one top k."""
    covered, miss = coverage_terms(item_id, p, w, n_items)
    return np.where(covered, 1.0, 1.0 - miss)


def weighted_count(
    index: IntArray, weights: npt.ArrayLike | None = None, minlength: int = 0
) -> FloatArray:
    """``numpy.bincount`` as float64 (a sum of ``weights`` per index)."""
    return np.asarray(np.bincount(index, weights=weights, minlength=minlength), dtype=np.float64)


def entropy(exposure: FloatArray) -> float:
    """Shannon entropy (nats) of the exposure shares."""
    total = exposure.sum()
    q = exposure[exposure > 0] / total
    return float(-np.sum(q * np.log(q)))


def gini(exposure: FloatArray) -> float:
    """Gini index of the exposure over the catalogue (0: even, near 1: one item)."""
    x = np.sort(exposure)
    n = x.size
    total = x.sum()
    if n == 0 or total <= 0:
        return 0.0
    i = np.arange(1, n + 1, dtype=np.float64)
    return max(0.0, float(np.sum((2.0 * i - n - 1.0) * x) / (n * total)))


# ---------------------------------------------------------------------------
# popularity: the floor and the tail rule


def _popularity(
    g: Graded, item: str, train: Frame | None, popularity: Frame | None
) -> tuple[FloatArray | None, FloatArray, float, str | None]:
    """Per item id: its training popularity (0 when unseen), others' popularity, total, source.

    "Others": the training items outside scores and truth (they hold positives too).
    """
    table = popularity_table(item, g.items.dtype, train, popularity)
    if table is None:
        return None, np.zeros(0), 0.0, None
    counts, total, source = table
    values, others = popularity_on(g.items, item, counts)
    return values, others, total, source


def popularity_table(
    item: str, item_dtype: Any, train: Frame | None, popularity: Frame | None
) -> tuple[pl.DataFrame, float, str] | None:
    """The floor's popularity per item value (``item``, ``p``), its total and its source."""
    if train is not None and popularity is not None:
        msg = (
            f"{CALLER}: pass either train (training interactions to fit the popularity floor) "
            f"or popularity (an already fitted floor), not both."
        )
        raise ValueError(msg)
    if train is None and popularity is None:
        return None
    if train is not None:
        source = "train"
        lazy = train.lazy()
        schema = lazy.collect_schema()
        require_columns(schema, [item], "train", CALLER)
        counts = lazy.group_by(item).agg(pl.len().cast(pl.Float64).alias("p")).collect()
    else:
        source = "popularity"
        assert popularity is not None
        lazy = popularity.lazy()
        schema = lazy.collect_schema()
        require_columns(schema, [item, "popularity"], "popularity", CALLER)
        counts = lazy.select(item, pl.col("popularity").cast(pl.Float64).alias("p")).collect()
        bad = counts.filter(~pl.col("p").is_finite() | (pl.col("p") < 0) | pl.col("p").is_null())
        if bad.height:
            msg = (
                f"{CALLER}: popularity must be finite and non-negative; item "
                f"{bad[item][0]!r} has {bad['p'][0]!r}."
            )
            raise ValueError(msg)
        if counts[item].is_duplicated().any():
            dup = counts.filter(pl.col(item).is_duplicated())[item][0]
            msg = f"{CALLER}: popularity names item {dup!r} more than once."
            raise ValueError(msg)
    if counts.schema[item] != item_dtype:
        msg = (
            f"{CALLER}: column {item!r} is {counts.schema[item]} in {source} but "
            f"{item_dtype} in scores; they must match."
        )
        raise ValueError(msg)
    return counts, float(counts["p"].sum()), source


def popularity_on(
    items: pl.Series, item: str, counts: pl.DataFrame
) -> tuple[FloatArray, FloatArray]:
    """Per item of ``items`` (in order): its popularity (0 when unseen); the others' popularity."""
    ids = items.to_frame(item).with_row_index(_ITEM)
    joined = ids.join(counts, on=item, how="left").sort(_ITEM)
    others = counts.join(ids, on=item, how="anti")["p"].to_numpy().astype(np.float64)
    values = joined["p"].fill_null(0.0).to_numpy().astype(np.float64)
    return values, others


def tail_items(
    popularity: FloatArray, total: float, share: float, others: FloatArray | None = None
) -> npt.NDArray[np.bool_]:
    """The long tail: items whose popularity, with all items no more popular, holds <= share.

    ``others``: the popularity of training items outside the ids (they hold positives too).
    Whole popularity ties go in or out together, so the rule never depends on item order.
    """
    n = popularity.size
    values = popularity if others is None else np.concatenate([popularity, others])
    order = np.argsort(values, kind="stable")
    sorted_pop = values[order]
    running = np.cumsum(sorted_pop)
    # the running total up to the last item of each popularity tie
    last = np.searchsorted(sorted_pop, sorted_pop, side="right") - 1
    held = running[last]
    out = np.empty(values.size, dtype=bool)
    out[order] = held <= share * total
    return out[:n]


# ---------------------------------------------------------------------------
# the clustered paired percentile bootstrap


def resample_counts(n_units: int, n_resamples: int, seed: int, batch: int) -> Any:
    """Yield (batch, n_units) float arrays of how often each unit is drawn.

    The draws are ``numpy.random.default_rng(seed).integers(0, n_units, (batch, n_units))``
    batch after batch, the stream ``scipy.stats.bootstrap(..., batch=batch)`` uses, so the
    two agree resample for resample (the kernel :mod:`lodestar_polars._core.bootstrap`,
    which ``lp.compare``'s bootstrap shares).
    """
    rng = np.random.default_rng(seed)
    return _bootstrap.resample_counts(n_units, n_resamples, rng, batch)


def bootstrap_batch(n_units: int, n_resamples: int) -> int:
    """Resamples per batch: all at once up to 2**24 draws, fewer on many units."""
    return max(1, min(n_resamples, _bootstrap.block_rows(n_units)))


def bootstrap_means(
    sums: FloatArray, counts: FloatArray, n_resamples: int, seed: int
) -> FloatArray:
    """(n_resamples, n_stats) resampled means: per-unit ``sums`` (U, S) over ``counts`` (U,)."""
    n_units = counts.size
    batch = bootstrap_batch(n_units, n_resamples)
    out = [
        (w @ sums) / (w @ counts)[:, None]
        for w in resample_counts(n_units, n_resamples, seed, batch)
    ]
    return np.concatenate(out, axis=0)


def _interval(dist: FloatArray, confidence_level: float) -> tuple[FloatArray, FloatArray]:
    alpha = (1.0 - confidence_level) / 2.0
    lo = np.quantile(dist, alpha, axis=0, method="linear")
    hi = np.quantile(dist, 1.0 - alpha, axis=0, method="linear")
    return lo, hi


def _verdict(lo: float, hi: float) -> str:
    if lo > 0.0:
        return "model_ahead"
    if hi < 0.0:
        return "baseline_ahead"
    return "undecided"


def _uncertainty(
    unit_of: IntArray | None,
    n_graded: int,
    model: Block,
    floor: Block | None,
    *,
    n_resamples: int,
    confidence_level: float,
    seed: int,
    objective: str,
) -> dict[str, Any] | None:
    unit = unit_of if unit_of is not None else np.arange(n_graded, dtype=np.int64)
    n_units = int(unit.max()) + 1
    if n_units < 2:
        return None
    names = list(model.per_list)
    stats = [model.per_list[m] for m in names]
    if floor is not None:
        stats += [floor.per_list[m] for m in names]
    sums = np.stack([weighted_count(unit, weights=s, minlength=n_units) for s in stats], axis=1)
    counts = weighted_count(unit, minlength=n_units).astype(np.float64)
    dist = bootstrap_means(sums, counts, n_resamples, seed)
    m = len(names)

    def summary(estimate: float, d: FloatArray) -> dict[str, Any]:
        lo, hi = _interval(d, confidence_level)
        return {"estimate": estimate, "ci_low": float(lo), "ci_high": float(hi)}

    out: dict[str, Any] = {
        "unit": "entity" if unit_of is not None else "row",
        "n_units": n_units,
        "n_resamples": n_resamples,
        "confidence_level": confidence_level,
        "seed": seed,
        "method": "percentile",
        "objective": objective,
        "model": {name: summary(model.micro[name], dist[:, j]) for j, name in enumerate(names)},
        "baselines": {},
    }
    if floor is not None:
        floor_part = {
            name: summary(floor.micro[name], dist[:, m + j]) for j, name in enumerate(names)
        }
        diff: dict[str, Any] = {}
        for j, name in enumerate(names):
            entry = summary(model.micro[name] - floor.micro[name], dist[:, j] - dist[:, m + j])
            entry["verdict"] = _verdict(entry["ci_low"], entry["ci_high"])
            diff[name] = entry
        out["baselines"][BASELINE] = {"floor": floor_part, "difference": diff}
    return out


# ---------------------------------------------------------------------------
# what a reader needs first: the decision, and the metrics no ranking can move

FLOOR_HINT = "pass train= (training interactions) or popularity= for the popularity floor"
VERDICT_WORDS = {
    "model_ahead": "Model ahead",
    "baseline_ahead": "Baseline ahead",
    "undecided": "Undecided",
}
_UNIT_WORDS = {"row": "graded lists", "entity": "entities"}
_VERDICT_TAIL = {
    "model_ahead": "which lies wholly above zero",
    "baseline_ahead": "which lies wholly below zero: recommending the popular items does better",
    "undecided": "which straddles zero: these data cannot tell the model from the floor",
}


def _names(keys: Sequence[str]) -> str:
    keys = list(keys)
    return keys[0] if len(keys) == 1 else ", ".join(keys[:-1]) + " and " + keys[-1]


def by_construction(k: int, longest: int) -> tuple[list[str], list[str]]:
    """The metrics every ordering of the candidates gives the same value, and a note saying so.

    ``longest`` is the most candidates of a graded list.  ``hit@c`` with ``c >= longest`` serves
    every list whole (1 for every truth that is a candidate); with ``k >= longest`` so does the
    whole coverage family; with one candidate per list nothing is ranked at all.
    """
    cuts = micro_keys(k)
    if longest <= 1:
        fixed = [key for key, _, _ in cuts]
    else:
        fixed = [key for key, f, cut in cuts if f == "hit" and cut >= longest]
    macro = macro_keys(k)
    if k >= longest:
        fixed += macro
    notes: list[str] = []
    hits = [key for key, f, cut in cuts if f == "hit" and cut >= longest]
    if longest <= 1:
        notes.append(
            "Every graded list has one candidate, so there is no ranking to grade: every "
            "metric here is fixed by construction and says nothing about the model."
        )
    elif hits:
        verb, says = ("is", "says") if len(hits) == 1 else ("are", "say")
        text = (
            f"Every graded list has at most {longest} candidates, so a top "
            f"{min(cut for key, _, cut in cuts if key in hits)} already holds them all: "
            f"{_names(hits)} {verb} 1 by construction (lower only by truths that are no "
            f"candidate) and {says} nothing about the ranking."
        )
        if k >= longest:
            text += (
                f" So are the coverage family's {_names(macro)}: k={k} serves every list whole. "
                f"A k below {longest} makes them informative; mrr@{k} and ndcg@{k} still grade "
                "the order."
            )
        notes.append(text)
    return fixed, notes


def decision_of(payload: Mapping[str, Any], *, floor_hint: str = FLOOR_HINT) -> dict[str, Any]:
    """The decision a reader wants first: model against the popularity floor on the primary metric.

    Built from a payload's own parts (so a payload read back from JSON without it gets the same
    one): the primary metric's model and floor values, the bootstrap interval of the difference,
    the verdict (``model_ahead``, ``baseline_ahead``, ``undecided``; None without a floor) and the
    sentence that says it.
    """
    primary = payload["primary_score"]
    metric, value = str(primary["metric"]), float(primary["value"])
    objective = payload.get("primary_objective", "")
    out: dict[str, Any] = {
        "metric": metric,
        "objective": objective,
        "model": value,
        "baseline": None,
        "baseline_value": None,
        "difference": None,
        "ci_low": None,
        "ci_high": None,
        "confidence_level": None,
        "verdict": None,
    }
    baselines: Mapping[str, Any] = payload.get("baselines") or {}
    if not baselines:
        out["sentence"] = (
            f"No verdict: the model's {metric} ({objective} ordering) is {value:.4f}, but with no "
            "popularity floor nothing says it beats recommending the popular items; "
            f"{floor_hint}."
        )
        return out
    name = next(iter(baselines))
    floor_value = float(baselines[name]["micro"][metric])
    unc: Mapping[str, Any] = payload.get("uncertainty") or {}
    part = (unc.get("baselines") or {}).get(name) or {}
    entry = (part.get("difference") or {}).get(metric)
    diff = value - floor_value if entry is None else float(entry["estimate"])
    out.update(baseline=name, baseline_value=floor_value, difference=diff)
    head = (
        f"on {metric} the model ({objective} ordering) scores {value:.4f} against the "
        f"popularity floor's {floor_value:.4f}, a difference of {diff:+.4f}"
    )
    if metric in (payload.get("by_construction") or []):
        out["verdict"] = "undecided"
        out["sentence"] = (
            f"Undecided: {head}, but {metric} is fixed by construction here (see the note), so "
            "it cannot tell the model from the floor."
        )
        return out
    if entry is None:
        out["verdict"] = "undecided"
        out["sentence"] = (
            f"Undecided: {head}, but with fewer than two resampling units there is no interval "
            "to judge it by."
        )
        return out
    verdict = str(entry["verdict"])
    level = float(unc.get("confidence_level", 0.95))
    out.update(
        ci_low=float(entry["ci_low"]),
        ci_high=float(entry["ci_high"]),
        confidence_level=level,
        verdict=verdict,
    )
    out["sentence"] = (
        f"{VERDICT_WORDS.get(verdict, verdict)}: {head}, {100 * level:g} % interval "
        f"[{out['ci_low']:+.4f}, {out['ci_high']:+.4f}] over {unc.get('n_units')} "
        f"{_UNIT_WORDS.get(str(unc.get('unit')), 'resampling units')}, "
        f"{_VERDICT_TAIL.get(verdict, verdict)}."
    )
    return out


# ---------------------------------------------------------------------------
# the result: the payload, readable as it is, with ways out to a frame, JSON and HTML

FRAME_SCHEMA: dict[str, Any] = {
    "subject": pl.String,
    "objective": pl.String,
    "baseline": pl.String,
    "family": pl.String,
    "metric": pl.String,
    "value": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "verdict": pl.String,
    "by_construction": pl.Boolean,
}


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


class RankingReport(dict[str, Any]):
    """What :func:`lodestar_polars.ranking_report` returns: the payload, and ways to read it.

    A ``dict`` (so a :class:`collections.abc.Mapping`) holding exactly the JSON-serialisable
    payload of docs/report.md: ``report["objectives"]["accuracy"]["micro"]``, ``dict(report)``,
    ``json.dumps(report)`` and ``report == payload`` all work as on a plain dict, and every
    value inside is a plain ``dict``, ``list``, ``str``, number or ``None``.  It adds
    :meth:`to_frame` (one tidy row per number), :meth:`to_dict`, :meth:`to_json`,
    :meth:`to_html` (the static page of :func:`lodestar_polars.report_html`), a short text
    summary as its ``repr`` (opening with the decision sentence) and a compact HTML table in
    a notebook.  A payload read back from JSON is wrapped again with
    ``RankingReport(json.loads(text))``.

    Examples
    --------
    >>> import json
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> scores = pl.DataFrame(
    ...     {
    ...         "user": [1, 1, 1, 2, 2, 2],
    ...         "item": ["a", "b", "c", "a", "b", "c"],
    ...         "score": [0.9, 0.5, 0.5, 0.2, 0.2, 0.2],
    ...         "clicked": [False, True, False, True, False, False],
    ...     }
    ... )
    >>> report = lp.ranking_report(
    ...     scores, by="user", item="item", y_true="clicked", y_score="score", k=2,
    ...     objectives=("accuracy",),
    ... )
    >>> report["objectives"]["accuracy"]["micro"]["mrr@2"]
    0.375
    >>> report == json.loads(report.to_json())
    True
    >>> frame = report.to_frame()
    >>> frame.filter(pl.col("family") == "micro").select("objective", "metric", "value")
    shape: (5, 3)
    ┌───────────┬────────┬──────────┐
    │ objective ┆ metric ┆ value    │
    │ ---       ┆ ---    ┆ ---      │
    │ str       ┆ str    ┆ f64      │
    ╞═══════════╪════════╪══════════╡
    │ accuracy  ┆ hit@1  ┆ 0.166667 │
    │ accuracy  ┆ hit@5  ┆ 1.0      │
    │ accuracy  ┆ hit@2  ┆ 0.583333 │
    │ accuracy  ┆ mrr@2  ┆ 0.375    │
    │ accuracy  ┆ ndcg@2 ┆ 0.429554 │
    └───────────┴────────┴──────────┘
    >>> print(report)  # doctest: +ELLIPSIS
    No verdict: the model's ndcg@2 (accuracy ordering) is 0.4296, but with no popularity floor ...
    note: Every graded list has at most 3 candidates, so a top 5 already holds them all: ...
    2 graded lists (0 dropped, 0 unseen truth), 3 items, k=2; objectives: accuracy (alpha 0)
    primary score: ndcg@2 = 0.4296
    ...
    """

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """The payload as a plain ``dict`` (a deep copy: changing it leaves the report alone)."""
        return copy.deepcopy(dict(self))

    @overload
    def to_json(self, path: None = None, *, indent: int | None = 2) -> str: ...

    @overload
    def to_json(self, path: str | Path, *, indent: int | None = 2) -> Path: ...

    def to_json(self, path: str | Path | None = None, *, indent: int | None = 2) -> str | Path:
        """The payload as strict JSON (no ``NaN``): the text, or written to ``path``.

        Parameters
        ----------
        path : str or pathlib.Path, default=None
            The file to write (overwritten, with a final newline); None returns the text.
        indent : int or None, default=2
            Passed to :func:`json.dumps`.

        Returns
        -------
        str or pathlib.Path
            The JSON text when ``path`` is None, else ``path``.
        """
        text = json.dumps(self, indent=indent, allow_nan=False)
        if path is None:
            return text
        out = Path(path)
        out.write_text(text + "\n", encoding="utf-8")
        return out

    def to_html(self, path: str | Path, *, title: str = "Ranking report") -> Path:
        """Write the report as one static HTML page: :func:`lodestar_polars.report_html`.

        Needs matplotlib (the ``report`` extra) for the figures; returns ``path``.
        """
        from lodestar_polars._report.html import report_html

        return report_html(self, path, title=title)

    def to_frame(self) -> pl.DataFrame:
        """Every number of the report as one tidy row.

        Returns
        -------
        polars.DataFrame
            One row per (subject, objective or baseline, family, metric), with the columns
            ``subject`` (``"model"``, ``"baseline"``: the popularity floor, or
            ``"difference"``: model − floor; with ``y_score_b``, ``"model_b"``: model B's
            families, and ``"versus"``: B − A, with ``a_ahead``/``b_ahead``/``undecided``
            verdicts on the micro rows), ``objective`` (the model's block; for a
            difference the primary objective; null for a floor), ``baseline`` (the floor's
            name, ``"global_pop"``; null for the model), ``family`` (``"micro"``: accuracy,
            ``"macro"``: coverage, ``"value"``: with ``value=``), ``metric``, ``value``,
            ``ci_low`` and ``ci_high`` (the
            bootstrap interval, null where the payload has none: only the primary objective's
            micro family, the floor's and the differences carry one), ``verdict`` (on
            difference rows: ``model_ahead``, ``baseline_ahead`` or ``undecided``; null
            elsewhere) and ``by_construction`` (the metric is one no ordering of the
            candidates can move, so its interval and verdict say nothing).  Difference rows
            exist only where the payload has intervals (two units or more); a ``tail_hit@k``
            with no tail truth is a null value.
        """
        fixed = set(self.get("by_construction") or ())
        unc: Mapping[str, Any] = self.get("uncertainty") or {}
        unc_objective = unc.get("objective", self.get("primary_objective"))
        unc_model: Mapping[str, Any] = unc.get("model") or {}
        unc_baselines: Mapping[str, Any] = unc.get("baselines") or {}
        rows: list[tuple[Any, ...]] = []

        def add(
            subject: str,
            objective: Any,
            baseline: Any,
            family: str,
            metric: str,
            value: Any,
            interval: Mapping[str, Any] | None,
            verdict: Any = None,
        ) -> None:
            interval = interval or {}
            rows.append(
                (
                    subject,
                    objective,
                    baseline,
                    family,
                    metric,
                    _float(value),
                    _float(interval.get("ci_low")),
                    _float(interval.get("ci_high")),
                    verdict,
                    metric in fixed,
                )
            )

        for name, block in (self.get("objectives") or {}).items():
            for family in ("micro", "macro", "value"):  # value: issue 21, with value=
                for metric, value in (block.get(family) or {}).items():
                    carries = name == unc_objective and family == "micro"
                    add("model", name, None, family, metric, value,
                        unc_model.get(metric) if carries else None)  # fmt: skip
        for base, block in (self.get("baselines") or {}).items():
            floor: Mapping[str, Any] = (unc_baselines.get(base) or {}).get("floor") or {}
            for family in ("micro", "macro", "value"):
                for metric, value in (block.get(family) or {}).items():
                    add("baseline", None, base, family, metric, value,
                        floor.get(metric) if family == "micro" else None)  # fmt: skip
        for base, part in unc_baselines.items():
            for metric, entry in ((part or {}).get("difference") or {}).items():
                add("difference", unc_objective, base, "micro", metric, entry.get("estimate"),
                    entry, entry.get("verdict"))  # fmt: skip
        versus: Mapping[str, Any] = self.get("versus") or {}  # issue 21: model B, B − A
        for family, part in (versus.get("model_b") or {}).items():
            for metric, value in part.items():
                add("model_b", versus.get("objective"), None, family, metric, value, None)
        for family, part in (versus.get("difference") or {}).items():
            for metric, entry in part.items():
                add("versus", versus.get("objective"), None, family, metric,
                    entry.get("estimate"), entry, entry.get("verdict"))  # fmt: skip
        return pl.DataFrame(rows, schema=FRAME_SCHEMA, orient="row")

    def _decision(self) -> Mapping[str, Any] | None:
        decision = self.get("decision")
        if isinstance(decision, Mapping) and "sentence" in decision:
            return decision
        try:  # an older payload: the decision from its parts
            return decision_of(self)
        except (KeyError, TypeError, ValueError, AttributeError):
            return None

    def _summary(self) -> str:
        lines = []
        decision = self._decision()
        if decision is not None:
            lines.append(str(decision["sentence"]))
        lines += [f"note: {note}" for note in self.get("notes") or ()]
        alphas: Mapping[str, Any] = self.get("objective_alpha") or {}
        shown = ", ".join(
            f"{n} ({'percentile' if a is None else f'alpha {a:g}'})" for n, a in alphas.items()
        )
        n = self.get("n_lists")
        if isinstance(n, int):
            lines.append(
                f"{n:,} graded list{'' if n == 1 else 's'} ({self.get('n_dropped', 0):,} "
                f"dropped, {self.get('n_unseen_truth', 0):,} unseen truth), "
                f"{self.get('n_items', 0):,} items, k={self.get('k')}; objectives: {shown}"
            )
        primary = self.get("primary_score")
        if isinstance(primary, Mapping) and primary.get("value") is not None:
            lines.append(f"primary score: {primary.get('metric')} = {primary['value']:.4f}")
        versus = self.get("versus")  # issue 21: model B against model A, in one sentence
        if isinstance(versus, Mapping) and isinstance(versus.get("decision"), Mapping):
            lines.append(str(versus["decision"].get("sentence", "")))
        lines.append(
            "RankingReport: report[key] reads the payload; .to_frame(), .to_html(path), "
            ".to_json(path), .to_dict()"
        )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self._summary()

    __str__ = __repr__

    def _repr_html_(self) -> str:
        from lodestar_polars._report.html import report_fragment

        return report_fragment(self)


# ---------------------------------------------------------------------------
# objectives (the comparability transforms live in _comparability, issue 10b)


def _objective_scores(
    base: pl.DataFrame,
    *,
    objective: str,
    alpha: float,
    keys: list[str],
    item: str,
    score: str,
    transforms: Mapping[str, Any],
    state: Any,
    fit: Any,
) -> tuple[ScoreArray, Any]:
    """The block's scores, per candidate row in ``base`` order, and the state used.

    The identity ranks the scores as they are (integers as integers); a transform's output is
    float64 by construction.
    """
    identity = alpha == 0.0 and not transforms["shrinkage"] and not transforms["percentile"]
    if identity:
        return ranking_values(base[score]), state
    from lodestar_polars._report.comparability import transform_for_objective

    if state is None:
        state = fit()
    out = transform_for_objective(
        base.select(_ROW, *keys, item, score),
        objective,  # type: ignore[arg-type]  # checked against OBJECTIVES
        state,
        by=keys,
        item=item,
        y_score=score,
        # a percentile block applies no alpha (transform_for_objective refuses one with it)
        popularity_discount=None if transforms["percentile"] else alpha,
        shrinkage=transforms["shrinkage"],
        shrinkage_strength=transforms["shrinkage_strength"],
        percentile=transforms["percentile"],
    )
    values = out.lazy().sort(_ROW).select(pl.col(score).cast(pl.Float64)).collect().to_series()
    array = values.to_numpy()
    if array.size != base.height or not np.isfinite(array).all():
        msg = f"{CALLER}: the {objective!r} transform did not give one finite score per row."
        raise ValueError(msg)
    return array, state


def _check_domain(
    base: pl.DataFrame,
    keys: list[str],
    item: str,
    score: str,
    block_alpha: Mapping[str, float],
    *,
    shrinkage: float | None,
    percentile: bool,
) -> None:
    """Refuse, before any block is scored, scores outside a requested transform's domain.

    Shrinkage pulls a probability toward a base rate (scores in [0, 1]); the popularity discount
    divides by ``base_rate ** alpha`` (scores >= 0, or the order of negatives reverses).  The
    first offending row in (list, item) order is named, with the two ways out for signed scores.
    """
    column = pl.col(score)
    if shrinkage is not None:
        bad = base.filter((column < 0) | (column > 1))
        if bad.height:
            row = bad.row(0, named=True)
            msg = (
                f"{CALLER}: shrinkage (shrinkage_strength={shrinkage:g}) pulls each score toward "
                f"its item's base rate, a probability, and needs scores in [0, 1]; list "
                f"{_key_repr(row, keys)} has {score}={row[score]!r} for item {row[item]!r}. "
                "Pass probabilities (for logits, their sigmoid), or leave shrinkage off; "
                "percentile=True ranks each score within its item's distribution and needs "
                "no scale."
            )
            raise ValueError(msg)
    if percentile:
        return
    discounted = [name for name, alpha in block_alpha.items() if alpha > 0.0]
    if not discounted:
        return
    bad = base.filter(column < 0)
    if bad.height:
        row = bad.row(0, named=True)
        which = ", ".join(f"{name!r} (alpha {block_alpha[name]:g})" for name in discounted)
        plural, verb = ("s", "divide") if len(discounted) > 1 else ("", "divides")
        msg = (
            f"{CALLER}: the objective{plural} {which} {verb} each score by its item's base rate "
            f"** alpha, which needs scores >= 0 (a negative score's order would reverse); list "
            f"{_key_repr(row, keys)} has {score}={row[score]!r} for item {row[item]!r}. For "
            'signed scores such as logits, pass objectives=("accuracy",) (alpha 0: the scores '
            "as they are), or percentile=True (each score ranked within its item's score "
            "distribution, which needs no sign)."
        )
        raise ValueError(msg)


DEFAULT_PART_ROWS = 5_000_000
"""A ``LazyFrame`` of more rows is graded in parts (``lp.evaluate``'s ``DEFAULT_BATCH_ROWS``)."""


def _fit_lazy(
    lazy: pl.LazyFrame, keys: list[str], item: str, score: str, truth: str, mp: str
) -> Any:
    """The comparability state fitted on a ``LazyFrame``, its truths read as :func:`_grade`."""
    from lodestar_polars._report.comparability import fit_comparability

    flag = pl.col(truth).cast(pl.Boolean)
    if mp == "first":  # the first positive of each list, in input order
        flag = flag & (flag.cast(pl.Int64).cum_sum().over(keys) == 1)
    return fit_comparability(
        lazy.with_columns(flag.alias(_TRUTH)), by=keys, item=item, y_score=score, y_true=_TRUTH
    )


def _objective_alphas() -> Mapping[str, float]:
    from lodestar_polars._report.comparability import OBJECTIVE_ALPHA

    return OBJECTIVE_ALPHA


# ---------------------------------------------------------------------------
# the public function


@renamed(score="y_score", truth="y_true")
def ranking_report(
    scores: pl.DataFrame
    | pl.LazyFrame
    | str
    | os.PathLike[str]
    | Sequence[str | os.PathLike[str]]
    | pa.Table
    | pa.RecordBatch
    | pa.RecordBatchReader
    | pads.Dataset,
    *,
    by: str | pl.Expr | Sequence[str | pl.Expr],
    item: str | pl.Expr,
    y_true: str | pl.Expr | pl.DataFrame | pl.LazyFrame,
    y_score: str | pl.Expr,
    k: int = 10,
    objectives: Sequence[Objective] = ("accuracy", "coverage"),
    train: pl.DataFrame | pl.LazyFrame | None = None,
    popularity: pl.DataFrame | pl.LazyFrame | None = None,
    groups: str | pl.Expr | None = None,
    value: str | pl.Expr | None = None,
    y_score_b: str | pl.Expr | None = None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    seed: int = 0,
    multi_positive: MultiPositive = "each",
    tail_share: float = 0.2,
    primary_objective: Objective | None = None,
    popularity_discount: float | None = None,
    shrinkage: bool = False,
    shrinkage_strength: float | None = None,
    percentile: bool = False,
    state: Any = None,
    engine: Engine = "auto",
    batch_rows: int | None = None,
    layout: Layout = "auto",
    temp_dir: str | os.PathLike[str] | None = None,
    progress: bool | Callable[[Progress], None] | None = None,
) -> RankingReport:
    r"""The recommendation ranking report: micro and macro families, baseline, bootstrap verdict.

    Every number is an expectation over the orderings of tied scores: a
    truth item with ``b`` candidates strictly above it and ``t`` in its tie
    block has its rank uniform on ``[b+1, b+t]``, and each metric is
    ``E[f(R)]``.  A constant model over ``C`` items gives ``hit@k = min(k, C)/C``.

    Parameters
    ----------
    scores : polars.DataFrame, polars.LazyFrame, Parquet path(s) or Arrow data
        One row per (list, candidate item) with the model's score.  A Parquet
        path (``str`` or ``os.PathLike``: a file, a directory or a glob), or a
        list of them, is scanned as a ``LazyFrame`` (so a log over
        ``batch_rows`` is read once in parts, never whole); Arrow data is read
        as :func:`lodestar_polars.evaluate` reads it: a ``pyarrow.Table`` or
        ``RecordBatch`` without a copy, a ``RecordBatchReader`` whole, a
        ``pyarrow.dataset.Dataset`` scanned as a ``LazyFrame``.
    by : str, polars.Expr or sequence of str or polars.Expr
        The group key naming the evaluation unit (an entity, or an (entity,
        occasion) pair): column names or expressions, one or several, as in
        :func:`lodestar_polars.evaluate`.  An expression's output name is the
        key's name (``(pl.col("user") % 10).alias("bucket")``); a ``y_true``
        frame is given the same keys by the same expressions.
    item : str or polars.Expr
        The candidate item (class) column.  This role, ``y_score`` and
        ``groups`` take a name or an expression, which plays its role under
        its output name (``pl.col("sku").alias("item")``); an ``item``
        expression also gives a ``y_true``, ``train`` or ``popularity`` frame
        its column where it reads columns that frame has and lacks the output.
    y_true : str, polars.Expr, polars.DataFrame or polars.LazyFrame
        A Boolean or 0/1 column of ``scores`` (a name or an expression), or a frame of realised
        (``by``, ``item``) pairs.  A realised item that is not among its list's
        candidates is a miss, counted in ``n_unseen_truth``.
    y_score : str or polars.Expr
        The score column; higher ranks first; must be finite.
    k : int, default=10
        The cutoff of ``hit@k``, ``mrr@k``, ``ndcg@k`` and the macro family
        (``hit@1`` and ``hit@5`` are always emitted).
    objectives : sequence of {'accuracy', 'balanced', 'coverage'}, default=('accuracy', 'coverage')
        The blocks to score; each ranks by its popularity discount α.
    train : polars.DataFrame or polars.LazyFrame, default=None
        Training interactions with an ``item`` column (one row per positive):
        the popularity floor and the tail rule's popularity.
    popularity : polars.DataFrame or polars.LazyFrame, default=None
        An already fitted floor: ``item`` and ``popularity`` (non-negative)
        columns.  Pass it or ``train``, not both.
    groups : str or polars.Expr, default=None
        A column of ``scores``, constant within a list: the bootstrap's
        cluster unit (the entity).  Without it each graded list is a unit.
    value : str or polars.Expr, default=None
        A numeric, non-negative column of ``scores`` (an item's price or
        margin): adds the value family (``value@k``, ``value_share@k``,
        ``value_ndcg@k``, no interval) to every block, the floor and model B
        (docs/report.md, "The value family").
    y_score_b : str or polars.Expr, default=None
        Model B's scores (a second column of ``scores``): every family of
        model B under the primary objective, and each difference B − A with
        the paired cluster bootstrap interval (micro) and a verdict
        (``a_ahead``, ``b_ahead``, ``undecided``) under ``versus``
        (docs/report.md, "Model A against model B").
    n_resamples : int, default=1000
    confidence_level : float, default=0.95
    seed : int, default=0
        The bootstrap's resamples, level and seed.
    multi_positive : {'each', 'first'}, default='each'
        A list with several positives: one graded list per (list, positive),
        or only the first positive in input order (the others are then not
        graded at all, which biases the metric down for the most active lists).
    tail_share : float, default=0.2
        The tail rule: the least popular items that together hold at most this
        share of the training positives (whole popularity ties at once).
        Without training data the popularity is the evaluation's own truth counts.
    primary_objective : str, default=None
        The operating block (the first objective when None): its ``ndcg@k`` is
        ``primary_score`` and its micro family carries the intervals.
    popularity_discount : float, default=None
        A configured α: applies to the primary block only.
    shrinkage, shrinkage_strength, percentile, state
        Passed to :func:`lodestar_polars.transform_for_objective`, for every
        block (the accuracy block included): a ``shrinkage_strength`` switches
        shrinkage on, as there (decision 0013).  ``state`` is a
        :class:`~lodestar_polars.ComparabilityState` (load a saved one with
        :meth:`~lodestar_polars.ComparabilityState.load`); without one the
        blocks that need it fit it on ``scores`` and ``y_true``.
    engine : {'auto', 'in-memory', 'streaming'}, default='auto'
        How a ``LazyFrame`` input is collected (when it is read whole).
    batch_rows : int, default=None
        A ``LazyFrame`` of more rows than this (5,000,000 when None, as
        :func:`lodestar_polars.evaluate`) with a ``y_true`` column is read
        once, in parts of whole lists of about this many rows, and never
        held whole: the same payload (to about 1e-15 where a per-item sum
        runs in another order).  A ``DataFrame`` is always graded whole.
    layout : {'auto', 'grouped', 'shuffled'}, default='auto'
        How a large ``LazyFrame``'s rows lie, as in
        :func:`lodestar_polars.evaluate`: a log sorted by one ``by`` column
        is streamed in parts cut between lists; any other is partitioned
        once by a hash of ``by`` into temporary Parquet files.
    temp_dir : str or os.PathLike, default=None
        Where those temporary files go (the system's temporary directory
        when None); they take about the input's columns' size, uncompressed,
        and are removed as they are read.
    progress : bool or callable, default=None
        ``True`` shows rows graded, rows a second and the time left: one
        line rewritten on stderr in a terminal, an updated output in a
        Jupyter notebook, nothing anywhere else.  A callable is called with
        a :class:`lodestar_polars.Progress` after each step instead: each
        part of a ``LazyFrame`` read in parts, then the merge and the
        bootstrap (``parts_total`` an estimate until the last part); in
        memory, the grading, each objective's block, the popularity floor
        and the bootstrap.  ``rows_done`` counts the input rows graded,
        ``groups_in_part`` the lists graded in the step (0 in a later step).
        ``None`` or ``False``: nothing.

    Returns
    -------
    RankingReport
        A ``dict`` holding the JSON-serialisable payload: ``schema_version``,
        ``k``, ``objectives`` → {objective: {``micro``, ``macro``}},
        ``objective_alpha``, ``primary_objective``, ``primary_score``,
        ``baselines``, ``uncertainty``, ``n_lists``, ``n_dropped``,
        ``n_unseen_truth``, ``n_items``, ``multi_positive``, ``ties``,
        ``tail_rule``, ``popularity_source``, ``comparability``,
        ``shrinkage_strength``, ``max_list_length``, ``by_construction``,
        ``notes``, ``decision`` (docs/report.md), with
        :meth:`~RankingReport.to_frame`, :meth:`~RankingReport.to_json`,
        :meth:`~RankingReport.to_html` and a notebook display.

    Raises
    ------
    ValueError
        Missing columns, a list with an item twice, non-finite or null scores,
        a ``y_true`` frame naming lists not in ``scores``, ``train`` with
        ``popularity``, no positive at all.
    InvalidParameterError
        An option out of its domain (``k``, an unknown objective, ...).

    See Also
    --------
    top_k : the served lists (ties broken by item order).
    hit_rate, reciprocal_rank, ndcg : the same micro numbers per group.

    Notes
    -----
    Lists with no positive are dropped, not scored as zero (``n_dropped``).
    ``catalog_coverage`` is the mean over catalogue items of
    :math:`1 - \prod_{l}(1 - P_l(\text{item in top-}k))`, entropy (nats) and
    Gini come from the expected exposure counts, which sum to ``n_lists·k``
    when every list has at least ``k`` candidates.  Each key's family, label,
    range and direction (``gini`` is lower-is-better) are in the registry's
    ``REPORT_METRICS`` (docs/report.md).

    ``y_score`` and ``y_true`` were named ``score`` and ``truth`` before
    0.2.0: the old names still work until 0.3.0, with a ``FutureWarning``.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> scores = pl.DataFrame(
    ...     {
    ...         "user": [1, 1, 1, 2, 2, 2],
    ...         "item": ["a", "b", "c", "a", "b", "c"],
    ...         "score": [0.9, 0.5, 0.5, 0.2, 0.2, 0.2],
    ...         "clicked": [False, True, False, True, False, False],
    ...     }
    ... )
    >>> report = lp.ranking_report(
    ...     scores, by="user", item="item", y_true="clicked", y_score="score", k=2,
    ...     objectives=("accuracy",),
    ... )
    >>> report["objectives"]["accuracy"]["micro"]
    {'hit@1': 0.1666..., 'hit@5': 1.0, 'hit@2': 0.5833..., 'mrr@2': 0.375, 'ndcg@2': 0.42...}
    >>> report["n_lists"], report["baselines"], report["uncertainty"]["unit"]
    (2, {}, 'row')
    """
    kk = check_k(k, CALLER, allow_none=False)
    assert kk is not None
    scores = scores_frame(scores, CALLER)  # Parquet paths scanned, Arrow data read
    check_frame(scores, "scores", CALLER)
    for extra, extra_name in ((train, "train"), (popularity, "popularity")):
        if extra is not None:
            check_frame(extra, extra_name, CALLER)
    keys, key_exprs = _keys_of(by)
    item_expr = check_column(item, "item", CALLER)
    score_expr = check_column(y_score, "y_score", CALLER)
    groups_expr = check_column(groups, "groups", CALLER, allow_none=True)
    value_expr = check_column(value, "value", CALLER, allow_none=True)
    score_b_expr = check_column(y_score_b, "y_score_b", CALLER, allow_none=True)
    role_exprs = computed(
        {
            "item": (item, item_expr),
            "y_score": (y_score, score_expr),
            "groups": (groups, groups_expr),
            "value": (value, value_expr),
            "y_score_b": (y_score_b, score_b_expr),
        }
    )
    value_name = None if value_expr is None else value_expr.meta.output_name()
    score_b = None if score_b_expr is None else score_b_expr.meta.output_name()
    extra_cols = [c for c in (value_name, score_b) if c is not None]
    item, score = names_of([item_expr, score_expr])  # type: ignore[list-item]
    groups = None if groups_expr is None else groups_expr.meta.output_name()
    truth = y_true
    if isinstance(truth, pl.Expr):  # a column of scores, as an expression
        truth_expr = check_column(truth, "y_true", CALLER)
        assert truth_expr is not None
        role_exprs.update(computed({"y_true": (truth, truth_expr)}))
        truth = truth_expr.meta.output_name()
    if not isinstance(truth, (str, pl.DataFrame, pl.LazyFrame)):
        msg = (
            f"The 'y_true' parameter of {CALLER} must be a column name of scores or a "
            f"DataFrame/LazyFrame of realised (list, item) pairs. Got {type(truth).__name__}. "
            "(A column may be given as a Polars expression of one column too.)"
        )
        raise InvalidParameterError(msg)
    if isinstance(objectives, str) or not objectives:
        msg = (
            f"The 'objectives' parameter of {CALLER} must be a non-empty sequence of "
            f"objective names. Got {objectives!r} instead."
        )
        raise InvalidParameterError(msg)
    names = [check_option(o, "objectives", CALLER, OBJECTIVES) for o in objectives]
    if len(set(names)) != len(names):
        msg = f"The 'objectives' parameter of {CALLER} names an objective twice: {names!r}."
        raise InvalidParameterError(msg)
    primary = names[0] if primary_objective is None else primary_objective
    if primary not in names:
        msg = (
            f"The 'primary_objective' parameter of {CALLER} must be one of the objectives "
            f"{names!r}. Got {primary!r} instead."
        )
        raise InvalidParameterError(msg)
    n_resamples = cast("int", check_int(n_resamples, "n_resamples", CALLER, allow_none=False))
    seed = cast("int", check_int(seed, "seed", CALLER, allow_none=False, low=0))
    confidence_level = check_open_interval(confidence_level, "confidence_level", CALLER, 0.0, 1.0)
    tail_share = check_open_interval(tail_share, "tail_share", CALLER, 0.0, 1.0)
    mp = check_option(multi_positive, "multi_positive", CALLER, MULTI_POSITIVE)
    eng: Engine = check_option(engine, "engine", CALLER, ENGINES)  # type: ignore[assignment]
    part_rows = check_int(batch_rows, "batch_rows", CALLER, low=1)
    lay: Layout = check_option(layout, "layout", CALLER, LAYOUTS)  # type: ignore[assignment]
    temp = check_temp_dir(temp_dir, CALLER)
    check_progress(progress, CALLER)
    # decision 0013's rule, read from the one place transform_for_objective reads it:
    # a shrinkage_strength switches shrinkage on
    shrink, strength = resolve_shrinkage(shrinkage, shrinkage_strength, CALLER)
    percentile = check_bool(percentile, "percentile", CALLER)
    check_exclusive(shrinkage=shrink, percentile=percentile, caller=CALLER)
    state = check_state(state, CALLER)
    if popularity_discount is not None and (
        not isinstance(popularity_discount, numbers.Real)
        or isinstance(popularity_discount, (bool, np.bool_))
        or not 0.0 <= float(popularity_discount) <= 1.0  # also refuses nan
    ):
        msg = (
            f"The 'popularity_discount' parameter of {CALLER} must be a float in [0, 1] (the "
            f"popularity discount alpha) or None. Got {popularity_discount!r} instead."
        )
        raise InvalidParameterError(msg)

    if percentile and popularity_discount is not None:
        msg = (
            f"{CALLER}: popularity_discount={popularity_discount!r} cannot be combined with "
            f"percentile=True: a block ranked by percentile applies no popularity discount."
        )
        raise InvalidParameterError(msg)
    alphas = _objective_alphas()
    block_alpha = {name: float(alphas[name]) for name in names}
    if popularity_discount is not None:
        block_alpha[primary] = float(popularity_discount)
    transforms = {
        "shrinkage": shrink,
        "shrinkage_strength": shrinkage_strength,
        "percentile": percentile,
    }
    limit = DEFAULT_PART_ROWS if part_rows is None else int(part_rows)
    if role_exprs:  # roles given as expressions: computed into their columns, once
        scores = with_roles(scores, role_exprs, CALLER)
        if "item" in role_exprs:
            truth = with_item(truth, item_expr)
            train, popularity = with_item(train, item_expr), with_item(popularity, item_expr)
    if extra_cols:  # issue 21: the value column and model B's scores, checked before any grading
        check_extras(scores, key_exprs, keys, item, value_name, score_b)
    if isinstance(scores, pl.LazyFrame) and isinstance(truth, str):
        lazy = _with_keys(scores, key_exprs, "scores")
        require_columns(
            lazy.collect_schema(),
            [*keys, item, score, truth, *([] if groups is None else [groups]), *extra_cols],
            "scores",
            CALLER,
        )
        total = lazy.select(pl.len()).collect().item()
        if total > limit:
            from lodestar_polars._report.parts import report_in_parts

            return report_in_parts(
                lazy, total, keys=keys, item=item, score=score, truth=truth, groups=groups, mp=mp,
                kk=kk, names=names, primary=primary, block_alpha=block_alpha,
                transforms=transforms, state=state,
                fit=lambda: _fit_lazy(lazy, keys, item, score, truth, mp), train=train,
                popularity=popularity, tail_share=tail_share, shrink=shrink, strength=strength,
                percentile=percentile, n_resamples=n_resamples,
                confidence_level=confidence_level, seed=seed, part_rows=limit, layout=lay,
                temp_dir=temp, progress=progress_callback(progress), value=value_name,
                score_b=score_b,
                fit_b=None if score_b is None
                else lambda: _fit_lazy(lazy, keys, item, score_b, truth, mp),
            )  # fmt: skip
    tick = progress_callback(progress, step="step")
    g, base = _grade(
        scores,
        keys=keys,
        item=item,
        score=score,
        truth=truth,
        groups=groups,
        multi_positive=mp,
        engine=eng,
        key_exprs=key_exprs,
        extra=extra_cols,
    )
    # before any block is scored: the transforms' domains, in the report's words
    _check_domain(
        base, keys, item, score, block_alpha, shrinkage=strength if shrink else None,
        percentile=percentile,
    )  # fmt: skip
    if score_b is not None:  # model B is ranked by the primary block's transform
        _check_domain(
            base, keys, item, score_b, {primary: block_alpha[primary]},
            shrinkage=strength if shrink else None, percentile=percentile,
        )  # fmt: skip
    pop, others, total, source = _popularity(g, item, train, popularity)
    if pop is None:
        tail_pop = weighted_count(g.g_item, minlength=g.items.len()).astype(np.float64)
        tail_total = float(tail_pop.sum())
        tail_source: str | None = "truth"
    else:
        tail_pop, tail_total, tail_source = pop, total, source
    tail = tail_items(tail_pop, tail_total, tail_share, others)
    # steps: the grading, each objective's block, the popularity floor, the bootstrap
    steps = 1 + len(names) + (pop is not None) + 1
    rows = base.height

    def step(done: int, lists: int = 0) -> None:
        if tick is not None:
            from lodestar_polars._evaluate.evaluate import Progress

            tick(Progress(done, steps, rows, lists))

    step(1, int(g.g_list.size))

    def fit() -> Any:
        from lodestar_polars._report.comparability import fit_comparability

        flags = np.zeros(base.height, dtype=bool)
        flags[g.g_row[g.g_row >= 0]] = True
        frame = base.with_columns(pl.Series(_TRUTH, flags))
        return fit_comparability(frame, by=keys, item=item, y_score=score, y_true=_TRUTH)

    def fit_b() -> Any:  # model B's own state, when none is given (issue 21)
        from lodestar_polars._report.comparability import fit_comparability

        assert score_b is not None
        flags = np.zeros(base.height, dtype=bool)
        flags[g.g_row[g.g_row >= 0]] = True
        frame = base.with_columns(pl.Series(_TRUTH, flags))
        return fit_comparability(frame, by=keys, item=item, y_score=score_b, y_true=_TRUTH)

    blocks: dict[str, Block] = {}
    objective_alpha: dict[str, float | None] = {}
    comparability = None if state is None else "given"
    for name in names:
        alpha = block_alpha[name]
        fitted_before = state
        values, state = _objective_scores(
            base,
            objective=name,
            alpha=alpha,
            keys=keys,
            item=item,
            score=score,
            transforms=transforms,
            state=state,
            fit=fit,
        )
        if fitted_before is None and state is not None:
            comparability = "fitted_on_scores"
        blocks[name] = score_block(g, values, kk, tail)
        objective_alpha[name] = None if percentile else alpha
        step(1 + len(blocks))

    floor = None
    if pop is not None:
        floor = score_block(g, pop[g.item_id], kk, tail)
        step(steps - 1)
    model = blocks[primary]
    uncertainty = _uncertainty(
        g.unit,
        int(g.g_list.size),
        model,
        floor,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        seed=seed,
        objective=primary,
    )
    step(steps)
    longest = int(np.bincount(g.list_id)[g.g_list].max())
    extras = memory_extras(
        g, base, blocks, floor, kk=kk, primary=primary, value=value_name, score_b=score_b,
        score_b_values=None if score_b is None else lambda state_b: _objective_scores(
            base, objective=primary, alpha=block_alpha[primary], keys=keys, item=item,
            score=score_b, transforms=transforms, state=state_b, fit=fit_b,
        )[0],
        state=None if comparability == "fitted_on_scores" else state, tail=tail,
        n_resamples=n_resamples, confidence_level=confidence_level, seed=seed,
    )  # fmt: skip
    return finish_payload(
        kk=kk,
        blocks=blocks,
        floor=floor,
        primary=primary,
        uncertainty=uncertainty,
        objective_alpha=objective_alpha,
        longest=longest,
        tail=tail,
        tail_share=tail_share,
        tail_source=tail_source,
        n_lists=int(g.g_list.size),
        n_dropped=g.n_dropped,
        n_unseen_truth=int(np.count_nonzero(g.g_row < 0)),
        n_items=g.n_catalogue,
        mp=mp,
        source=source,
        comparability=comparability,
        strength=strength if shrink else None,
        extras=extras,
    )


def finish_payload(
    *,
    kk: int,
    blocks: Mapping[str, Block],
    floor: Block | None,
    primary: str,
    uncertainty: dict[str, Any] | None,
    objective_alpha: Mapping[str, float | None],
    longest: int,
    tail: npt.NDArray[np.bool_],
    tail_share: float,
    tail_source: str | None,
    n_lists: int,
    n_dropped: int,
    n_unseen_truth: int,
    n_items: int,
    mp: str,
    source: str | None,
    comparability: str | None,
    strength: float | None,
    extras: Extras | None = None,
) -> RankingReport:
    """The payload from the blocks and the counts (both paths: whole, and in parts)."""
    model = blocks[primary]
    fixed, notes = by_construction(kk, longest)
    if model.macro[f"tail_hit@{kk}"] is None:  # null in every block: it depends on the truths
        counted = {"train": "training", "popularity": "given", "truth": "graded truths'"}
        notes.append(
            f"tail_hit@{kk} is null: no graded list's truth is a long-tail item (the least "
            f"popular items holding at most {tail_share:g} of the "
            f"{counted.get(str(tail_source), str(tail_source))} popularity; "
            f"{int(np.count_nonzero(tail))} catalogue or truth item(s) qualify)."
        )
    payload: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "k": kk,
        "objectives": {n: {"micro": b.micro, "macro": b.macro} for n, b in blocks.items()},
        "objective_alpha": dict(objective_alpha),
        "primary_objective": primary,
        "primary_score": {"metric": f"ndcg@{kk}", "value": model.micro[f"ndcg@{kk}"]},
        "baselines": {}
        if floor is None
        else {BASELINE: {"micro": floor.micro, "macro": floor.macro}},
        "uncertainty": uncertainty,
        "n_lists": n_lists,
        "n_dropped": n_dropped,
        "n_unseen_truth": n_unseen_truth,
        "n_items": n_items,
        "multi_positive": mp,
        "ties": "expectation",
        "tail_rule": {
            "share": tail_share,
            "source": tail_source,
            "n_tail_items": int(np.count_nonzero(tail)),
        },
        "popularity_source": source,
        "comparability": comparability,
        "shrinkage_strength": strength,
        "max_list_length": longest,
        "by_construction": fixed,
        "notes": notes,
    }
    if extras is not None:  # issue 21: the value family and model B (_report/extras.py)
        extras.write(payload)
    payload["decision"] = decision_of(payload)
    return RankingReport(payload)
