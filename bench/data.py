"""Generated benchmark data: long Polars frames, one row per (query, doc) or (sample, label).

Every generator is deterministic in its ``seed`` and returns a frame whose rows are in
random order (no tool is handed a frame already grouped or sorted; :func:`query_sorted`
makes the query-sorted layout of one on purpose), with columns

- ranking frames: ``query`` (Int64), ``doc`` (Int64, unique within a query), ``rel``
  (Int64 graded relevance 0..3, at least one relevant doc per query), ``binrel`` (Int64,
  ``rel > 0``), ``score`` (Float64, correlated with ``rel``);
- label frames: ``sample``, ``label`` (Int64), ``truth`` (Int64 0/1, between 1 and
  n_labels - 1 true labels per sample), ``onehot`` (Int64 0/1, exactly one true label
  per sample, for top-k accuracy), ``score`` (Float64).

``ties=True`` draws every score from 5 values (0.0 .. 4.0), so most rows of a query tie
with others; otherwise scores are continuous (Float64 draws, ties have probability ~0).
"""

from __future__ import annotations

import numpy as np
import polars as pl

_REL_P = np.array([0.55, 0.25, 0.13, 0.07])  # P(rel = 0, 1, 2, 3)


def _scores(rng: np.random.Generator, rel: np.ndarray, *, ties: bool) -> np.ndarray:
    if ties:
        # 5 distinct values, correlated with relevance
        return np.clip(rel + rng.integers(-1, 3, size=rel.size), 0, 4).astype(np.float64)
    return rel * 0.6 + rng.standard_normal(rel.size)


def _ranking_frame(lengths: np.ndarray, *, ties: bool, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    lengths = np.asarray(lengths, dtype=np.int64)
    n = int(lengths.sum())
    query = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    doc = np.arange(n, dtype=np.int64) - np.repeat(starts, lengths)
    rel = rng.choice(4, size=n, p=_REL_P).astype(np.int64)
    # at least one relevant doc per query: give a random doc of each query relevance >= 1
    pick = starts + (rng.random(lengths.size) * lengths).astype(np.int64)
    rel[pick] = np.maximum(rel[pick], 1)
    score = _scores(rng, rel, ties=ties)
    order = rng.permutation(n)
    return pl.DataFrame(
        {
            "query": query[order],
            "doc": doc[order],
            "rel": rel[order],
            "binrel": (rel[order] > 0).astype(np.int64),
            "score": score[order],
        }
    )


def query_sorted(frame: pl.DataFrame, group: str = "query") -> pl.DataFrame:
    """``frame``'s rows ordered by ``group`` (each group's own rows still in random order).

    The layout of most eval logs (a file written query by query, a Spark
    partition sorted within).  The columns are rebuilt from NumPy so that they
    carry no sorted flag, as when the log is read back from Parquet: a tool
    must find the order itself.
    """
    ordered = frame.sort(group, maintain_order=True)
    return pl.DataFrame({name: ordered[name].to_numpy() for name in ordered.columns})


def rectangular(n_queries: int, n_docs: int, *, ties: bool = False, seed: int = 0) -> pl.DataFrame:
    """``n_queries`` queries of exactly ``n_docs`` docs each."""
    return _ranking_frame(np.full(n_queries, n_docs), ties=ties, seed=seed)


def zipf_lengths(n_rows: int, *, a: float = 1.5, max_len: int = 5000, seed: int = 0) -> np.ndarray:
    """Query lengths drawn from Zipf(a), clipped to [2, max_len], summing to about n_rows."""
    rng = np.random.default_rng(seed + 1)
    mean = 60.0  # a rough guess; we draw in batches until the rows are reached
    out: list[np.ndarray] = []
    total = 0
    while total < n_rows:
        batch = np.clip(rng.zipf(a, size=max(16, int((n_rows - total) / mean) + 16)), 2, max_len)
        keep = batch[np.cumsum(batch) + total <= n_rows]
        if keep.size == 0:
            rest = n_rows - total
            if rest >= 2:
                out.append(np.array([rest]))
            break
        out.append(keep)
        total += int(keep.sum())
    return np.concatenate(out).astype(np.int64)


def zipf(n_rows: int, *, ties: bool = False, seed: int = 0) -> pl.DataFrame:
    """Queries of Zipf-distributed length (at least 2 docs), about ``n_rows`` rows in all."""
    return _ranking_frame(zipf_lengths(n_rows, seed=seed), ties=ties, seed=seed)


def labels(n_samples: int, n_labels: int, *, p_true: float = 0.1, seed: int = 0) -> pl.DataFrame:
    """A (sample, label) frame: several true labels per sample, and one one-hot class."""
    rng = np.random.default_rng(seed)
    n = n_samples * n_labels
    sample = np.repeat(np.arange(n_samples, dtype=np.int64), n_labels)
    label = np.tile(np.arange(n_labels, dtype=np.int64), n_samples)
    truth = (rng.random((n_samples, n_labels)) < p_true).astype(np.int64)
    rows = np.arange(n_samples)
    # between 1 and n_labels - 1 true labels per sample
    truth[rows, rng.integers(0, n_labels, n_samples)] = 1
    full = truth.sum(axis=1) == n_labels
    truth[rows[full], 0] = 0
    onehot = np.zeros((n_samples, n_labels), dtype=np.int64)
    onehot[rows, rng.integers(0, n_labels, n_samples)] = 1
    score = truth * 0.8 + onehot * 0.8 + rng.standard_normal((n_samples, n_labels))
    order = rng.permutation(n)
    return pl.DataFrame(
        {
            "sample": sample[order],
            "label": label[order],
            "truth": truth.ravel()[order],
            "onehot": onehot.ravel()[order],
            "score": score.ravel()[order],
        }
    )


def dense(frame: pl.DataFrame, group: str, item: str, columns: list[str]) -> dict[str, np.ndarray]:
    """The (n_groups, n_items) matrices of ``columns`` of a rectangular long frame."""
    ordered = frame.sort([group, item])
    n_groups = ordered[group].n_unique()
    return {c: ordered[c].to_numpy().reshape(n_groups, -1) for c in columns}
