"""A group too large for one task, scored exactly in two stages (the @k metrics only).

A metric cut at ``k`` whose registry entry has ``top_k_only`` (DCG, NDCG, their
Burges forms, precision, recall, hit rate, reciprocal rank, AP cut at k) reads
three things of a group: the rows ranked in the top ``k`` with the whole tie
block at the cut, the ``k`` largest gains (the ideal DCG) and the number of
relevant rows (the denominators of recall and AP).  So a group split over
many chunks (Spark partitions) can be scored from a few of its rows:

1. :func:`reduce_chunk`, on each chunk, keeps the rows whose score has fewer
   than ``K`` rows of the chunk above it (``K`` the largest cutoff: the top
   ``K`` with the tie block at the cut), the ``K`` rows of largest relevance
   (when a metric has an ideal DCG),
   every row some rule of the metrics refuses (null, NaN, a negative gain),
   and the first row of each distinct weight; it counts the chunk's relevant
   rows into :data:`RELEVANT` (on one kept row of the group, 0 on the others).
2. :func:`evaluate_reduced`, on all the kept rows of a group, sums those
   counts into the group's ``n_relevant`` and runs :func:`lodestar_polars.evaluate`.

Why this is exact: every row the rows above it push out of a chunk's top
``K`` has ``K`` rows of its own chunk scored strictly higher, so it ranks
below the group's ``K``-th row and below the tie block there; every row that
can reach the group's top ``K`` (or tie at its cut) is kept with its score,
so the kept rows rank the top ``K`` exactly as the whole group does.  The
rows kept below the cut are real rows of the group and change nothing above
it.  The group's ``K`` largest relevances are among the chunks' ``K``
largest, so the ideal DCG is the same; the relevant count is summed, and it
reaches the metrics through ``n_relevant``, which recall and AP at k read as
their denominator (and which the other metrics do not read).  Every row a
rule refuses is kept, so a group is refused exactly when the whole group
would be, for the same reason.

What is not offered: a metric without a cutoff or outside that list (AP,
ROC AUC, coverage read every row), ``ties="input"`` (row order, which a
distributed group has not), and the ``n_relevant`` and ``judged`` columns
(their rules read every row).  :func:`refusal` says which applies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from lodestar_polars._evaluate.evaluate import evaluate as _lp_evaluate
from lodestar_polars._evaluate.roles import _parse, _Roles
from lodestar_polars._metrics.expr import as_float, as_score
from lodestar_polars._metrics.ties import TieRule
from lodestar_polars._registry import MetricSpec, resolve

__all__ = ["RELEVANT", "cutoff", "evaluate_reduced", "reduce_chunk", "refusal"]

RELEVANT = "__lodestar_relevant"
"""The column :func:`reduce_chunk` counts each chunk's relevant rows into."""

_TOTAL = "__lodestar_n_relevant"


def refusal(
    metrics: Sequence[str], *, ties: TieRule, n_relevant: Any = None, judged: Any = None
) -> str | None:
    """Why these metrics and options cannot be scored in two stages, or None when they can."""
    if ties == "input":
        return "ties='input' ranks equal scores in row order, which a split group has not"
    if n_relevant is not None or judged is not None:
        return "the n_relevant and judged columns are read over every row of a group"
    not_cut = []
    for name in metrics:
        found = resolve(name)
        if found is None:
            continue  # lp.evaluate names it, with its own sentence
        k = found.k if found.k is not None else found.spec.default_k
        if not found.spec.top_k_only or k is None:
            not_cut.append(name)
    if not_cut:
        return (
            f"only metrics cut at k that read the top k rows alone can be (DCG, NDCG, "
            f"precision, recall, hit rate, reciprocal rank, AP at k, each with @k); not {not_cut}"
        )
    return None


def _spec(name: str) -> MetricSpec:
    found = resolve(name)
    assert found is not None
    return found.spec


def cutoff(metrics: Sequence[str]) -> int:
    """The largest cutoff of the metrics (each is cut: see :func:`refusal`)."""
    ks = []
    for name in metrics:
        found = resolve(name)
        assert found is not None
        k = found.k if found.k is not None else found.spec.default_k
        assert k is not None
        ks.append(k)
    return max(ks)


def reduce_chunk(
    frame: pl.DataFrame,
    metrics: Sequence[str],
    *,
    by: Sequence[str],
    y_true: str,
    y_score: str,
    weight: str | None = None,
    ties: TieRule = "average",
    item: str | None = None,
) -> pl.DataFrame:
    """Stage 1 on one chunk of rows: the rows that can matter, and the chunk's relevant count.

    Returns the frame's kept rows (all its columns) and :data:`RELEVANT`.
    """
    keys = list(by)
    roles = _Roles(keys, y_true, y_score, weight, item, None, ties)
    k = cutoff(metrics)
    flags = [
        check.row
        for name in metrics
        for check in _parse(name, roles).metric.checks
        if check.row is not None
    ]
    keep = as_score(y_score).rank("min", descending=True).over(keys) <= k
    if any(_spec(name).judged_ideal for name in metrics):  # an ideal DCG: the k largest gains
        keep = keep | (as_float(y_true).rank("ordinal", descending=True).over(keys) <= k)
    if flags:
        keep = keep | pl.any_horizontal(*flags)
    if weight is not None:
        keep = keep | pl.col(weight).is_first_distinct().over(keys)
    relevant = (as_float(y_true) > 0).sum().over(keys)
    kept = frame.with_columns(relevant.cast(pl.Int64).alias(RELEVANT)).filter(keep.fill_null(True))
    first = pl.int_range(pl.len()).over(keys) == 0
    return kept.with_columns(pl.when(first).then(pl.col(RELEVANT)).otherwise(0).alias(RELEVANT))


def evaluate_reduced(
    frame: pl.DataFrame,
    metrics: Sequence[str],
    *,
    by: Sequence[str],
    y_true: str,
    y_score: str,
    weight: str | None = None,
    ties: TieRule = "average",
    item: str | None = None,
    strict: bool = False,
) -> pl.DataFrame:
    """Stage 2: the per-group values from every chunk's kept rows (:func:`reduce_chunk`)."""
    keys = list(by)
    counted = any(_spec(name).judged for name in metrics)  # recall, AP at k: a denominator
    total = frame
    if counted:
        total = frame.with_columns(pl.col(RELEVANT).sum().over(keys).alias(_TOTAL))
    result = _lp_evaluate(
        total,
        list(metrics),
        by=keys,
        y_true=y_true,
        y_score=y_score,
        weight=weight,
        ties=ties,
        item=item,
        n_relevant=_TOTAL if counted else None,
        strict=strict,
    )
    assert isinstance(result, pl.DataFrame)
    return result
