"""Condorcet's pairwise wins, counted by a NumPy kernel over dense blocks of queries.

Each query's candidates are numbered in order of first appearance; a block of queries
with about the same number of candidates becomes an array of positions
``(queries, runs, candidates)`` (a missing document at ranx's position 1,000,000),
and every pair ``(x, y)`` of a query is compared at once, run by run:
``x_votes += w_r * (p_r(x) < p_r(y))``, ``y_votes += w_r * (not that)``, in run order
as ranx sums them. ``x`` beats ``y`` when ``x_votes >= y_votes``. The work is
``N**2 * R`` per query (the pairs are the definition), in blocks of at most
``_BLOCK`` pair cells; the Python loop runs over blocks and runs, never over queries.
"""

from __future__ import annotations

import numpy as np
import polars as pl

_MISSING = 1_000_000.0  # ranx's position of a document a run lacks
_BLOCK = 1 << 22  # pair cells (queries x N x N) per block


def wins(
    pres_query: np.ndarray,
    pres_cand: np.ndarray,
    pres_run: np.ndarray,
    pres_pos: np.ndarray,
    sizes: np.ndarray,
    weights: list[float],
) -> np.ndarray:
    """Each candidate's number of wins, as a flat array in (query, candidate) order.

    ``pres_*``: one entry per (query, candidate, run) present, the query's index, the
    candidate's index in its query, the run's index and the 0-based position;
    ``sizes``: the number of candidates of each query.
    """
    n_queries = len(sizes)
    offsets = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    out = np.zeros(int(offsets[-1]), dtype=np.int64)
    n_runs = len(weights)
    unweighted = all(w == 1.0 for w in weights)
    # blocks: queries of about one size (widths on a grid of ratio sqrt(2), so a block
    # pads at most 2x), as many per block as fit in _BLOCK pair cells
    grid = np.unique(np.ceil(2.0 ** (np.arange(0, 2 * 40) / 2)).astype(np.int64))
    width_of = grid[np.searchsorted(grid, np.maximum(sizes, 1))]
    blocks: list[tuple[int, np.ndarray]] = []
    for width in np.unique(width_of).tolist():
        members = np.flatnonzero(width_of == width)
        per_block = max(_BLOCK // (width * width), 1)
        starts = range(0, len(members), per_block)
        blocks.extend((width, members[i : i + per_block]) for i in starts)
    # each query's block and place in it; the entries grouped by block once
    block_of = np.zeros(n_queries, dtype=np.int64)
    local = np.zeros(n_queries, dtype=np.int64)
    for b, (_, block) in enumerate(blocks):
        block_of[block] = b
        local[block] = np.arange(len(block))
    entry_block = block_of[pres_query]
    order = np.argsort(entry_block, kind="stable")
    bounds = np.searchsorted(entry_block[order], np.arange(len(blocks) + 1))
    for b, (width, block) in enumerate(blocks):
        picks = order[bounds[b] : bounds[b + 1]]
        pos = np.full((len(block), n_runs, width), _MISSING)
        pos[local[pres_query[picks]], pres_run[picks], pres_cand[picks]] = pres_pos[picks]
        if unweighted:  # a count of runs: x_votes >= n_runs - x_votes
            count = np.zeros((len(block), width, width), dtype=np.int32)
            for r in range(n_runs):
                count += pos[:, r, :, None] < pos[:, r, None, :]
            beats = 2 * count >= n_runs
        else:
            x_votes = np.zeros((len(block), width, width))
            y_votes = np.zeros((len(block), width, width))
            for r in range(n_runs):
                less = pos[:, r, :, None] < pos[:, r, None, :]
                x_votes += np.where(less, weights[r], 0.0)
                y_votes += np.where(less, 0.0, weights[r])
            beats = x_votes >= y_votes
        valid = np.arange(width)[None, :] < sizes[block][:, None]  # (block, width)
        beats &= valid[:, None, :]
        beats[:, np.arange(width), np.arange(width)] = False
        counts = beats.sum(axis=2)
        rows, cols = np.nonzero(valid)
        out[offsets[block[rows]] + cols] = counts[rows, cols]
    return out


def condorcet_wins(
    cand: pl.DataFrame,
    present: pl.DataFrame,
    *,
    keys: list[str],
    item: str,
    run: str,
    pos: str,
    first: str,
    weights: list[float],
) -> pl.DataFrame:
    """``cand`` (keys, item, first appearance, ...) with each candidate's ``wins``."""
    qcol, ccol = "__lp_cq", "__lp_cc"
    queries = cand.select(keys).unique(maintain_order=True).with_row_index(qcol)
    numbered = (
        cand.join(queries, on=keys, how="left")
        .sort(qcol, first)
        .with_columns(pl.int_range(pl.len()).over(qcol).cast(pl.Int64).alias(ccol))
    )
    sizes = numbered.group_by(qcol).agg(pl.len()).sort(qcol)["len"].to_numpy().astype(np.int64)
    entries = present.join(numbered.select(*keys, item, qcol, ccol), on=[*keys, item], how="inner")
    counted = wins(
        entries[qcol].to_numpy().astype(np.int64),
        entries[ccol].to_numpy().astype(np.int64),
        entries[run].to_numpy().astype(np.int64),
        entries[pos].to_numpy().astype(np.float64),
        sizes,
        weights,
    )
    return numbered.with_columns(pl.Series("wins", counted, dtype=pl.Int64)).drop(qcol, ccol)
