"""The families' values: rank bounds over ties, accuracy terms, coverage, popularity."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt
import polars as pl

from lodestar_polars._core.ranking import descending_key
from lodestar_polars._registry import report_metrics
from lodestar_polars._report.serving import (
    require_columns,
)

if TYPE_CHECKING:
    pass

from lodestar_polars._report.ranking_report.common import (
    _ITEM,
    CALLER,
    FloatArray,
    Frame,
    Graded,
    IntArray,
    ScoreArray,
    weighted_count,
)


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


_GRADED_PER_CELL = 4
""":func:`_top_rectangular` compares each graded row with its whole list: at most this many
times the matrix's cells (more graded rows than that per list, and the row-wise sort is cheaper)."""


def _top_rectangular(
    scores: ScoreArray, rows: IntArray, k: int
) -> tuple[FloatArray, IntArray, IntArray] | None:
    """Each cell's chance to be in its list's top ``k``, and ``(b, t)`` of the cells ``rows``.

    ``scores`` is a (lists x length) matrix, ``rows`` flat indices into it (``b`` and ``t`` as
    :func:`rank_bounds` gives them); None when ``rows`` are too many.

    What :func:`block_terms` needs of :func:`_rank_bounds_rectangular`, without sorting:
    only a tie block that starts above the cut has a chance to be served, and that chance,
    ``clip(k - b, 0, t) / t``, is 1 for every value above the list's ``k``-th largest (its
    block ends above the cut), 0 below it, and for the ``k``-th largest's own block that
    formula with ``b`` and ``t`` counted in the list. The graded rows' ``b`` and ``t`` are
    counted the same way, each against its own list. The same integers, so the same floats,
    as the sort gives; about 3x faster at 100 candidates a list.
    """
    n_lists, length = scores.shape
    if rows.size * length > _GRADED_PER_CELL * scores.size:
        return None
    kk = min(k, length)  # k may be any positive integer (10**20): never in integer arithmetic
    kth = np.partition(scores, length - kk, axis=1)[:, length - kk, None]
    above = scores > kth
    at = scores == kth
    b_at = np.count_nonzero(above, axis=1)
    t_at = np.count_nonzero(at, axis=1)
    chance = np.clip(kk - b_at, 0, t_at) / t_at
    p = np.where(above, 1.0, np.where(at, chance[:, None], 0.0)).ravel()
    own = scores[rows // length]
    graded = scores.ravel()[rows, None]
    gb = np.count_nonzero(own > graded, axis=1).astype(np.int64)
    gt = np.count_nonzero(own == graded, axis=1).astype(np.int64)
    return p, gb, gt


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
    """The macro block's keys (the macro and coverage families), in payload order.

    Keys written only with an input (``novelty@k``, ARP and serendipity with ``train``,
    ``intra_list_diversity@k`` with ``feature``) are left out.
    """
    return [m.name(k) for m in report_metrics(k, "macro") if m.needs is None]


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
    top: FloatArray | None = None  # per candidate row: P(in its list's top k)
    bounds: tuple[IntArray, IntArray] | None = None  # per graded list: its truth row's (b, t)


def block_terms(g: Graded, values: ScoreArray, k: int) -> Terms:
    """The per-list values and per-item sums of the ranking by ``values`` (one per row).

    Each list's terms depend on that list's rows alone, so a part of whole lists gives its
    lists' terms exactly (the cutoffs clamp to the longest list seen, which no rank exceeds).
    """
    seen = g.g_row >= 0
    rows = np.where(seen, g.g_row, 0)
    shape = _rectangle(g.list_id)
    top = None if shape is None else _top_rectangular(values.reshape(shape), rows, k)
    if top is not None:
        p, gb, gt = top
        longest = shape[1] if shape is not None else 1
    else:
        b, t = rank_bounds(g.list_id, values)
        gb, gt = b[rows], t[rows]
        # no rank exceeds the longest list, so a cutoff past it is that length: nothing is
        # built at the size of k (k=10**20 is a valid cutoff, as everywhere in the package)
        longest = int((b + t).max()) if b.size else 1
        p = np.clip(min(k, longest) - b, 0, t) / t
    per_list: dict[str, FloatArray] = {}
    for key, f, cut in micro_keys(k):
        c = min(cut, longest)
        v = expected_at(cumulative(c, f), gb, gt, c)
        per_list[key] = np.where(seen, v, 0.0)
    # catalogue: P(item in top-k) per candidate row (p), each list weighted by its graded lists;
    # only the rows with a chance (about k a list) add to the sums, in the same order
    chance = np.flatnonzero(p)
    ids, pc, w = g.item_id[chance], p[chance], g.weight[g.list_id[chance]]
    exposure = weighted_count(ids, weights=w * pc, minlength=g.n_catalogue)
    covered, miss = coverage_terms(ids, pc, w, g.n_catalogue)
    return Terms(per_list, exposure, covered, miss, p, (gb, gt))


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


def score_block(
    g: Graded,
    values: ScoreArray,
    k: int,
    tail: npt.NDArray[np.bool_],
    information: Any = None,
    features: Any = None,
) -> Block:
    """Micro and macro families of the ranking by ``values`` (one per candidate row).

    ``information``: per item id, its self-information and popularity against ``train``
    (``_report/beyond.py``'s ``TrainItems``); with it, the coverage family's ``novelty@k``,
    ``average_recommended_popularity@k``, ``serendipity@k`` and ``personalisation@k``.
    ``features``: per candidate row, the item's feature (``_report/diversity.py``); with it,
    ``intra_list_diversity@k``.
    """
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
    if information is not None:
        from lodestar_polars._report.beyond import beyond_family

        assert terms.top is not None
        computed.update(beyond_family(g, terms.top, information, k, terms.bounds))
    if features is not None:
        from lodestar_polars._report.diversity import ild_family

        assert terms.top is not None
        computed.update(ild_family(g, terms.top, features, k))
    # the registry's keys, in its order (a key it adds must be computed above)
    macro = {
        m.name(k): computed[m.key]
        for m in report_metrics(k, "macro")
        if m.needs is None or m.key in computed
    }
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
