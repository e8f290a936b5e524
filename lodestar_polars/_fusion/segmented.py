"""ranx's ProbFuse: per run, the probability of relevance of each of ``n`` segments.

``lp.optimize_fusion(qrels, runs, method="probfuse")`` learns it as ranx's
``probfuse_train`` does: each list of a query of ``qrels`` is cut into segments of
``ceil(L / n)`` documents (``L`` the list's length); a segment's probability is the
mean over the queries of ``qrels`` of the share of relevant documents in it (a
segment past the list's end adds 0); and, as ranx's ``optimize_probfuse``, ``n`` is
searched over 1..100 for the best ``metric``. ``lp.fuse(runs, method="probfuse",
probs=...)`` scores the document at position ``p`` of a list of length ``L``
``probs[k] / (k + 1)``, ``k = p // ceil(L / n)``, ``n = len(probs)``, summed over the
runs (ranx's CombSUM). Both are Polars ``group_by``/joins over the long frame.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from lodestar_polars._fusion.inputs import run_sum

#: ranx's ``optimize_probfuse`` grid: ``n_segments`` from 1 to 100
N_SEGMENTS = range(1, 101)


def _segment(n: pl.Expr, length: str, pos: str) -> pl.Expr:
    """The 0-based segment of a position: ``pos // ceil(length / n)``."""
    size = (pl.col(length) + n - 1) // n
    return pl.col(pos) // size


def probfuse_scores(
    frame: pl.LazyFrame, learned: list[list[float]], cols: tuple[str, str, str]
) -> tuple[pl.LazyFrame, pl.Expr]:
    """The frame with each row's segment probability joined, and the score expression."""
    run, pos, length = cols
    table = pl.LazyFrame(
        {
            run: [r for r, probs in enumerate(learned) for _ in probs],
            "__lp_seg": [k for probs in learned for k in range(len(probs))],
            "__lp_sp": [v for probs in learned for v in probs],
        },
        schema={run: pl.UInt32, "__lp_seg": pl.Int64, "__lp_sp": pl.Float64},
    )
    n = pl.col(run).replace_strict(
        list(range(len(learned))), [len(p) for p in learned], return_dtype=pl.Int64
    )
    frame = frame.with_columns(_segment(n, length, pos).alias("__lp_seg")).join(
        table, on=[run, "__lp_seg"], how="left"
    )
    value = pl.col("__lp_sp") / (pl.col("__lp_seg").cast(pl.Float64) + 1.0)
    return frame, value


def probfuse_train(
    rows: pl.DataFrame,
    *,
    keys: list[str],
    n_runs: int,
    n_queries: int,
    n_segments: int,
    hit: pl.Expr,
    cols: tuple[str, str, str],
) -> list[list[float]]:
    """ranx's ``estimate_probfuse_probs``: per run, ``n_segments`` probabilities."""
    run, pos, length = cols
    segment = _segment(pl.lit(n_segments), length, pos).alias("__lp_seg")
    per_query = rows.group_by(run, *keys, segment).agg(hit.mean().alias("__lp_sp"))
    out = [[0.0] * n_segments for _ in range(n_runs)]
    for r, k, total in _query_sums(per_query, run, keys):
        out[r][k] = total / n_queries
    return out


def _query_sums(per_query: pl.DataFrame, run: str, keys: list[str]) -> list[tuple[int, int, float]]:
    """Each (run, segment)'s sum of ``__lp_sp`` over the queries, added in query order.

    ranx adds the queries in order; a ``group_by``'s sum adds its rows in no fixed order,
    one last bit apart from call to call, and the fused scores' ties move with it.
    """
    ordered = per_query.sort(run, "__lp_seg", *keys)
    if ordered.height == 0:
        return []
    r = ordered[run].to_numpy()
    k = ordered["__lp_seg"].to_numpy()
    starts = np.flatnonzero(np.r_[True, (r[1:] != r[:-1]) | (k[1:] != k[:-1])])
    totals = np.add.reduceat(ordered["__lp_sp"].to_numpy(), starts)
    return [
        (int(r[i]), int(k[i]), float(t))
        for i, t in zip(starts.tolist(), totals.tolist(), strict=True)
    ]


#: SegFuse's segment ends, ranx's ``10 * 2 ** (k - 1) - 5`` for k = 1..10: 5, 15, 35, ...
SEG_ENDS = [10 * 2 ** (k - 1) - 5 for k in range(1, 11)]
SEG_SIZES = [b - a for a, b in zip([0, *SEG_ENDS[:-1]], SEG_ENDS, strict=True)]


def _seg_of(pos: str) -> pl.Expr:
    """SegFuse's 0-based segment of a position (10: past the last segment)."""
    return pl.sum_horizontal([(pl.col(pos) >= end).cast(pl.Int64) for end in SEG_ENDS])


def segfuse_scores(
    frame: pl.LazyFrame, learned: list[list[float]], cols: tuple[str, str, str]
) -> tuple[pl.LazyFrame, pl.Expr]:
    """The frame with each row's segment probability joined; the score ``P_k * (s + 1)``."""
    run, pos, score = cols
    table = pl.LazyFrame(
        {
            run: [r for r, probs in enumerate(learned) for _ in probs],
            "__lp_seg": [k for probs in learned for k in range(len(probs))],
            "__lp_sp": [v for probs in learned for v in probs],
        },
        schema={run: pl.UInt32, "__lp_seg": pl.Int64, "__lp_sp": pl.Float64},
    )
    frame = frame.with_columns(_seg_of(pos).alias("__lp_seg")).join(
        table, on=[run, "__lp_seg"], how="left"
    )
    return frame, pl.col("__lp_sp").fill_null(0.0) * (pl.col(score) + 1.0)


def segfuse_train(
    rows: pl.DataFrame,
    *,
    keys: list[str],
    n_runs: int,
    n_queries: int,
    hit: pl.Expr,
    cols: tuple[str, str],
) -> list[list[float]]:
    """ranx's ``estimate_segfuse_probs``: per run, 10 probabilities (hits over the full size)."""
    run, pos = cols
    size = pl.col("__lp_seg").replace_strict(
        list(range(len(SEG_SIZES))), SEG_SIZES, return_dtype=pl.Float64
    )
    per_query = (
        rows.with_columns(_seg_of(pos).alias("__lp_seg"))
        .filter(pl.col("__lp_seg") < len(SEG_ENDS))
        .group_by(run, *keys, "__lp_seg")
        .agg((hit.sum() / size.first()).alias("__lp_sp"))
    )
    out = [[0.0] * len(SEG_ENDS) for _ in range(n_runs)]
    for r, k, total in _query_sums(per_query, run, keys):
        out[r][k] = total / n_queries
    return out


def slidefuse_scores(
    frame: pl.LazyFrame, learned: list[list[float]], w: int, cols: tuple[str, str, str]
) -> tuple[pl.LazyFrame, pl.Expr]:
    """ranx's ``_slide_score``: the mean of ``probs[a..b]``, by prefix sums.

    ``a = max(p - w, 0)``, ``b = min(p + w, L - 1)``; a position past the learned ones adds 0.
    """
    run, pos, length = cols
    prefix = [[0.0, *np.cumsum(p).tolist()] for p in learned]
    table = pl.LazyFrame(
        {
            run: [r for r, c in enumerate(prefix) for _ in c],
            "__lp_i": [i for c in prefix for i in range(len(c))],
            "__lp_c": [v for c in prefix for v in c],
        },
        schema={run: pl.UInt32, "__lp_i": pl.Int64, "__lp_c": pl.Float64},
    )
    n = pl.col(run).replace_strict(
        list(range(len(learned))), [len(p) for p in learned], return_dtype=pl.Int64
    )
    a = pl.max_horizontal(pl.col(pos) - w, pl.lit(0, pl.Int64))
    b = pl.min_horizontal(pl.col(pos) + w, pl.col(length) - 1)
    frame = (
        frame.with_columns(
            pl.min_horizontal(a, n).alias("__lp_i"),
            pl.min_horizontal(b + 1, n).alias("__lp_j"),
            (b - a + 1).cast(pl.Float64).alias("__lp_width"),
        )
        .join(table, on=[run, "__lp_i"], how="left")
        .join(
            table.rename({"__lp_i": "__lp_j", "__lp_c": "__lp_cj"}),
            on=[run, "__lp_j"],
            how="left",
        )
    )
    return frame, (pl.col("__lp_cj") - pl.col("__lp_c")) / pl.col("__lp_width")


#: BayesFuse's cut-offs (ranx's ``estimate_bayesfuse_log_odds``) and its floor
BAYES_CUTS = [0, 5, 10, 15, 20, 30, 100, 200, 500, 1000]
MIN_ODD = float(np.log(0.001 / 0.999))


def bayesfuse_train(
    rows: pl.DataFrame,
    *,
    keys: list[str],
    n_runs: int,
    n_queries: int,
    hit: pl.Expr,
    cols: tuple[str, str],
) -> list[list[float]]:
    """ranx's ``_estimate_log_odds``: per run, 1000 log-odds, constant between cut-offs."""
    run, pos = cols
    ends = BAYES_CUTS[1:]
    seg = pl.sum_horizontal([(pl.col(pos) >= end).cast(pl.Int64) for end in ends])
    sizes = [b - a for a, b in zip(BAYES_CUTS[:-1], ends, strict=True)]
    size = pl.col("__lp_seg").replace_strict(
        list(range(len(sizes))), sizes, return_dtype=pl.Float64
    )
    table = (
        rows.with_columns(seg.alias("__lp_seg"))
        .filter(pl.col("__lp_seg") < len(sizes))
        .group_by(run, *keys, "__lp_seg")
        .agg((hit.sum() / size.first() / n_queries).alias("__lp_sp"))
    )
    avg = np.zeros((n_runs, len(sizes)))
    for r, k, total in _query_sums(table, run, keys):
        avg[r, k] = total
    avg[avg == 0] += 0.001
    neg = 1 - avg
    neg[neg == 0] += 0.001
    odds = np.log(avg / neg)
    return [np.repeat(odds[r], sizes).tolist() for r in range(n_runs)]


def bayesfuse_fused(
    frame: pl.LazyFrame,
    learned: list[list[float]],
    *,
    keys: list[str],
    item: str,
    cols: tuple[str, str, str, str],
) -> pl.LazyFrame:
    """ranx's ``sum_odds``: each run's log-odds at the position, ``MIN_ODD`` where it misses."""
    run, pos, score, first = cols
    table = pl.LazyFrame(
        {
            run: [r for r, odds in enumerate(learned) for _ in odds],
            pos: [p for odds in learned for p in range(len(odds))],
            "__lp_lo": [v for odds in learned for v in odds],
        },
        schema={run: pl.UInt32, pos: pl.Int64, "__lp_lo": pl.Float64},
    )
    appearance = (pl.col(run).cast(pl.UInt64) * 2**32 + pl.col(pos).cast(pl.UInt64)).min()
    missing = (len(learned) - pl.len()).cast(pl.Float64) * MIN_ODD
    return (
        frame.join(table, on=[run, pos], how="left")
        .group_by([*keys, item])
        .agg(
            (run_sum(pl.col("__lp_lo").fill_null(0.0), run, len(learned)) + missing).alias(score),
            appearance.alias(first),
        )
    )
