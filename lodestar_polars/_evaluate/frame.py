"""An in-memory frame scored whole: the refusal rules, one sort, the NumPy cores.

A single group-by evaluates the rules (the metric expressions' own
:class:`~lodestar_polars._metrics.expr.Check` s) deciding which groups are refused and orders
each group's row indices by score descending; a gather of the value columns by those indices,
then every metric's values from the NumPy core over the sorted columns, segment by segment.
When each group's rows are one contiguous run, the group-by is by run number instead of by the
keys (:func:`_contiguous_runs`): Polars then cuts slices instead of hashing. The refusals are
reported by :func:`_refusal_report`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from lodestar_polars._core.ranking import one_padded_matrix, runs_descend, segment_order
from lodestar_polars._evaluate.inputs import ranked_inputs
from lodestar_polars._evaluate.roles import (
    _JUDGED,
    _LEN,
    _NREL,
    _ORDER,
    _PREFIX,
    _ROW,
    _RUN,
    _RUN_KEY_TYPES,
    _SHOWN,
    _WEIGHT_VARIES,
    _Parsed,
    _Roles,
)
from lodestar_polars._metrics.expr import as_float, as_score
from lodestar_polars._registry import (
    Sorted,
    run_core,
)
from lodestar_polars.exceptions import RefusedGroupError

if TYPE_CHECKING:
    pass


def _describe(row: dict[str, Any], by: list[str]) -> str:
    return ", ".join(f"{key}={row[key]!r}" for key in by)


def _refusal_report(
    frame: pl.DataFrame, groups: pl.DataFrame, parsed: list[_Parsed], keys: list[str]
) -> str | None:
    """The error message for the refused groups, or None when no group is refused."""
    problems = []
    for p in parsed:
        name = p.metric.name
        refused = groups.filter(pl.col(name).is_null()).select(keys)
        if not refused.height:
            continue
        shown = refused.head(_SHOWN)
        reasons = (
            frame.join(shown, on=keys, how="semi", nulls_equal=True)
            .group_by(keys, maintain_order=True)
            .agg(p.metric.reason().alias(f"{_PREFIX}reason"))
        )
        lines = [
            f"  {_describe(row, keys)}: {row[f'{_PREFIX}reason']}"
            for row in reasons.iter_rows(named=True)
        ]
        if refused.height > _SHOWN:
            lines.append(f"  ... and {refused.height - _SHOWN} more")
        problems.append(f"metric {name!r} refused {refused.height} group(s):\n" + "\n".join(lines))
    if not problems:
        return None
    return "\n".join(problems) + "\n(pass strict=False to get null for these groups instead)"


@dataclass(frozen=True)
class _Runs:
    """A frame's groups as contiguous runs of rows (:func:`_contiguous_runs`)."""

    run: pl.Series
    """Each row's run number, ascending, flagged sorted."""
    length: np.ndarray
    """Rows of each run."""
    keys: pl.DataFrame
    """The ``by`` columns of each run, one row per run."""
    ascending: bool
    """True when the runs come in the result's order (one key, sorted, nulls first)."""


def _contiguous_runs(frame: pl.DataFrame, keys: list[str]) -> _Runs | None:
    """The frame's groups as runs, when every group's rows are one contiguous run.

    Eval logs usually arrive ordered by query (a sorted file, a partition
    sorted within): each group's rows are then one contiguous run.  Grouping
    by the run number (``rle_id``, ascending, flagged sorted) lets Polars cut
    the frame into slices instead of hashing every key.  None when the frame
    is not laid out so (a group's rows in two runs, or runs of about one row:
    a shuffled frame costs one ``rle_id``, ~2% of the call).
    """
    if frame.height < 2 or frame.height >= 2**32 - 1:
        return None
    for key in keys:
        dtype = frame.schema[key]
        if not (dtype.is_integer() or dtype.is_temporal() or isinstance(dtype, _RUN_KEY_TYPES)):
            return None
    row_key = pl.col(keys[0]) if len(keys) == 1 else pl.struct(keys)
    run = frame.select(row_key.rle_id()).to_series()
    n_runs = int(run[-1]) + 1
    if 2 * n_runs > frame.height:  # runs of about one row: not worth the check below
        return None
    run_number = run.to_numpy()
    new_run = np.empty(run_number.size, dtype=bool)
    new_run[0] = True
    np.not_equal(run_number[1:], run_number[:-1], out=new_run[1:])
    starts = np.flatnonzero(new_run)  # each run's first row
    length = np.diff(starts, append=frame.height)
    first_rows = pl.Series(starts)
    # every group one run: the keys at the runs' first rows are all distinct
    firsts = frame.select(pl.col(keys).gather(first_rows))
    # adjacent runs differ in key, so sorted first keys (one key, a query-sorted
    # log) are strictly increasing: all distinct, with no hashing
    ascending = len(keys) == 1 and firsts.to_series().is_sorted()
    if not ascending and firsts.n_unique() != n_runs:
        return None
    return _Runs(run.set_sorted().alias(_RUN), length, firsts, ascending)


def _finite(value: str, *, clean: bool) -> pl.Expr:
    """The column as Float64, null, NaN and infinity as 0 (refused groups only: nulled later).

    ``clean``: no group was refused, so no row holds a null, NaN or infinity
    (every metric refuses a group with one in ``y_true`` or ``y_score``) and
    the column is only cast.
    """
    x = as_float(value)
    return x if clean else pl.when(x.is_finite()).then(x).otherwise(0.0)


def _score_values(frame: pl.DataFrame, y_score: str, *, clean: bool) -> pl.Expr:
    """The score column for the core: an integer score keeps its dtype (see :func:`as_score`)."""
    if frame.schema[y_score].is_integer():
        return pl.col(y_score) if clean else pl.col(y_score).fill_null(0)
    return _finite(y_score, clean=clean)


def _no_refusal(groups: pl.DataFrame, parsed: list[_Parsed]) -> bool:
    """True when no metric refused any group."""
    flags = [f"{_PREFIX}refused{i}" for i in range(len(parsed))]
    return not groups.select(pl.any_horizontal(flags).any()).item()


def _rank_runs(
    frame: pl.DataFrame,
    indexed: pl.DataFrame,
    runs: _Runs,
    aggs: list[pl.Expr],
    ranked: pl.Expr,
    parsed: list[_Parsed],
    roles: _Roles,
) -> tuple[pl.DataFrame, tuple[np.ndarray, np.ndarray, np.ndarray | None] | None]:
    """The groups of a frame laid out in runs (their rules, in run order) and its ranked rows.

    The ranked rows are the gain, the score and the order that ranks the rows (None: the
    frame's own), for the other inputs (:func:`~lodestar_polars._evaluate.inputs.ranked_inputs`).

    The rows are put in ranking order in one of three ways, cheapest first:

    * a log ranked within each run already (scores descending, as a TREC run
      or a top-k list is written) is read as it is: no sort.  Equal scores
      must then be in the tie rule's order: where a metric reads row order
      (later row first) the scores must fall strictly; ``ties="input"`` reads
      equal scores earlier row first, as given;
    * runs of about one length with float scores are ordered by NumPy, one
      padded matrix row per run (about 3x faster than Polars' sort per group
      at 10 rows a run, 1.3x at 200; ragged runs, one matrix per class of
      lengths, are slower than Polars): score descending, ties later row
      first where a metric reads that order, as ``ranked`` sorts;
    * otherwise Polars sorts each run (``ranked``), and the groups come back
      with the row order in ``_ORDER`` for the caller to gather (the ranked
      arrays are then None).
    """
    by_run = indexed.with_columns(runs.run).group_by(_RUN)
    groups = by_run.agg(*aggs).sort(_RUN)
    clean = _no_refusal(groups, parsed)
    row_order = any(p.spec.row_order for p in parsed)
    y_true, y_score = roles.y_true, roles.y_score
    score_dtype = frame.schema[y_score]
    if roles.ties in ("average", "input") and (score_dtype.is_integer() or score_dtype.is_float()):
        score = (
            frame.get_column(y_score).to_numpy()
            if clean
            else frame.select(_score_values(frame, y_score, clean=False)).to_series().to_numpy()
        )
        strict_order = roles.ties == "average" and row_order
        if runs_descend(score, runs.length, strict=strict_order):
            gain = frame.select(_finite(y_true, clean=clean)).to_series().to_numpy()
            return groups, (gain, score, None)
    if roles.ties == "average" and score_dtype.is_float() and one_padded_matrix(runs.length):
        unranked = frame.select(
            _finite(y_true, clean=clean).alias("g"),
            _score_values(frame, y_score, clean=clean).alias("s"),
        )
        score = unranked["s"].to_numpy()
        order = segment_order(score, runs.length, break_ties=row_order)
        return groups, (unranked["g"].to_numpy()[order], score[order], order)
    ranked_runs = by_run.agg(ranked.alias(_ORDER)).sort(_RUN)
    return groups.with_columns(ranked_runs.get_column(_ORDER)), None


def _evaluate_frame(
    frame: pl.DataFrame, parsed: list[_Parsed], roles: _Roles, *, strict: bool
) -> pl.DataFrame:
    """Per-group values of every metric over an in-memory frame (see module docstring)."""
    keys, y_true, y_score, weight = roles.keys, roles.y_true, roles.y_score, roles.weight
    # One group-by makes the groups, evaluates the rules and orders each
    # group's row indices by score descending (the row index breaks equal
    # scores, later row first, only where a metric reads that order): the
    # flattened lists are the argsort that puts the rows in ranking order,
    # segment after segment.  Only the two value columns are then gathered, in
    # one Polars select.  Cheaper than a frame argsort and a second group-by.
    score = as_score(y_score)
    row = pl.col(_ROW)
    if roles.ties == "trec_eval" and roles.item is not None:
        # trec_eval's order: score, then document id descending (as text, byte-wise)
        doc = pl.col(roles.item).cast(pl.String)
        ranked = row.sort_by([score, doc], descending=[True, True])
    elif roles.ties == "input":
        ranked = row.sort_by([score, row], descending=[True, False])
    elif any(p.spec.row_order for p in parsed):
        ranked = row.sort_by([score, row], descending=[True, True])
    else:
        ranked = row.sort_by(score, descending=True)
    aggs: list[pl.Expr] = [pl.len().alias(_LEN)]
    if roles.n_relevant is not None:
        # one value per group (the metrics' own rules refuse a group otherwise)
        aggs.append(as_float(roles.n_relevant).first().fill_null(0.0).alias(_NREL))
    if roles.judged is not None:
        aggs.append(pl.col(roles.judged).first().alias(_JUDGED))
    if weight is not None:
        aggs += [
            pl.col(weight).first(),
            ((pl.col(weight).n_unique() > 1) | pl.col(weight).is_null().any()).alias(
                _WEIGHT_VARIES
            ),
        ]
    aggs += [p.metric.refused().alias(f"{_PREFIX}refused{i}") for i, p in enumerate(parsed)]
    indexed = frame.with_row_index(_ROW)
    runs = _contiguous_runs(frame, keys)
    gain_ranked: np.ndarray | None = None
    order: np.ndarray | None = None  # the rows in ranked order (None: as they are)
    if runs is None:
        groups = indexed.group_by(keys).agg(*aggs, ranked.alias(_ORDER))
    else:
        # groups as slices of runs (see _contiguous_runs): the same groups, in run order
        groups, ranked_arrays = _rank_runs(frame, indexed, runs, aggs, ranked, parsed, roles)
        if ranked_arrays is not None:
            gain_ranked, ranked_score, order = ranked_arrays
        groups = pl.concat([runs.keys, groups.drop(_RUN)], how="horizontal")
    if gain_ranked is None:
        ranked_rows = groups.get_column(_ORDER).explode()
        groups = groups.drop(_ORDER)
        clean = _no_refusal(groups, parsed)
        # both columns gathered in one select (Polars runs them in parallel)
        in_order = frame.select(
            _finite(y_true, clean=clean).gather(ranked_rows).alias("g"),
            _score_values(frame, y_score, clean=clean).gather(ranked_rows).alias("s"),
        )
        gain_ranked, ranked_score = in_order["g"].to_numpy(), in_order["s"].to_numpy()
        order = ranked_rows.to_numpy() if roles.inputs else None
    if weight is not None and groups[_WEIGHT_VARIES].any():
        bad = groups.filter(pl.col(_WEIGHT_VARIES)).row(0, named=True)
        msg = (
            f"`weight` column {weight!r} must hold one non-null value per group; group "
            f"{_describe(bad, keys)} has several, or a null"
        )
        raise ValueError(msg)

    if roles.ties != "average":
        # the rows are in the rule's order: strictly decreasing scores leave no
        # tie for the core to average over, so it reads that order as it is
        ranked_score = -np.arange(ranked_score.size, dtype=np.int64)
    n_relevant = None
    if roles.n_relevant is not None:
        counts = groups[_NREL].to_numpy()
        n_relevant = np.where(np.isfinite(counts), counts, 0.0)  # refused groups only
    judged: tuple[np.ndarray, np.ndarray] | None = None
    if roles.judged is not None:
        lists = groups[_JUDGED].cast(pl.List(pl.Float64))
        lengths = lists.list.len().fill_null(0).to_numpy()
        flat = lists.filter(lists.list.len() > 0).explode()
        values = flat.fill_null(0.0).fill_nan(0.0).to_numpy()  # refused groups only
        judged = (np.where(np.isfinite(values), values, 0.0), lengths.astype(np.int64))
    inputs = ranked_inputs(frame, roles, order)
    lengths = groups[_LEN].to_numpy()
    arrays = Sorted(gain_ranked, ranked_score, lengths, n_relevant, judged, inputs)
    columns = []
    for i, p in enumerate(parsed):
        values = run_core(p.spec.core, arrays, p.options)
        columns.append(
            pl.when(pl.col(f"{_PREFIX}refused{i}"))
            .then(None)
            .otherwise(pl.Series(values, dtype=pl.Float64))
            .alias(p.metric.name)
        )
    # groups sorted by their keys, nulls first (runs of one sorted key are already)
    result = groups.select(*keys, *([weight] if weight else []), *columns)
    if runs is None or not runs.ascending:
        result = result.sort(keys)
    if strict:
        report = _refusal_report(frame, result, parsed, keys)
        if report is not None:
            raise RefusedGroupError(report)
    return result
