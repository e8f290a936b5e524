"""``lp.evaluate``: many metrics, one row per group, with bad groups named.

The frame is evaluated whole: a single group-by evaluates the rules (the
metric expressions' own :class:`~lodestar_polars._metrics.expr.Check` s) deciding which
groups are refused and orders each group's row indices by score descending
(row descending too when a metric reads the order inside ties); a gather of
the two value columns by those indices, then every metric's values
from the NumPy core (``lodestar_polars._core``) over the sorted columns,
segment by segment.  When each group's rows are one contiguous run (a log
sorted by query, and each part read from one), the group-by is by run number
instead of by the keys (:func:`_contiguous_runs`): Polars then cuts slices
instead of hashing.  A frame of more than ``_PART_ROWS`` rows is evaluated
in parts of whole groups (:func:`_evaluate_parted`), and a ``LazyFrame`` is
read once, in parts of whole groups (:func:`_evaluate_lazy`: streamed when
its groups are contiguous runs, partitioned into temporary files by a hash
of the keys otherwise), so that memory stays bounded.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import polars as pl
from polars.io.plugins import register_io_source

from lodestar_polars._base.arrow import from_arrow
from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.progress import ProgressBar
from lodestar_polars._base.validation import check_bool, check_int, check_option
from lodestar_polars._core.ranking import one_padded_matrix, runs_descend, segment_order
from lodestar_polars._evaluate.partition import (
    LAYOUTS,
    Layout,
    NotGroupedError,
    check_temp_dir,
    grouped_parts,
    hashed_parts,
    sample_is_grouped,
)
from lodestar_polars._metrics.expr import Metric, as_float, as_score
from lodestar_polars._metrics.ties import TIES, TieRule
from lodestar_polars._registry import (
    REGISTRY,
    MetricSpec,
    Sorted,
    metric_names,
    resolve,
    run_core,
    unknown_metric_message,
)
from lodestar_polars.exceptions import InvalidParameterError, RefusedGroupError

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.dataset as pads

__all__ = ["Progress", "evaluate", "mean_of_groups", "metric_names"]

_PREFIX = "__lodestar_"
_LEN, _WEIGHT_VARIES = f"{_PREFIX}len", f"{_PREFIX}weight_varies"
_ROW, _ORDER = f"{_PREFIX}row", f"{_PREFIX}order"
_NREL = f"{_PREFIX}n_relevant"
_JUDGED = f"{_PREFIX}judged"
_RUN = f"{_PREFIX}run"
_SHOWN = 5
# key dtypes whose runs are found by equality, as the group-by groups them
# (floats are left to the hash group-by: its NaN and -0.0 rules are its own)
_RUN_KEY_TYPES = (pl.Boolean, pl.String, pl.Categorical, pl.Enum, pl.Binary)


@dataclass(frozen=True)
class _Parsed:
    metric: Metric
    spec: MetricSpec
    options: dict[str, Any]


@dataclass(frozen=True)
class _Roles:
    """The column of each role, and the tie rule, of one :func:`evaluate` call."""

    keys: list[str]
    y_true: str
    y_score: str
    weight: str | None = None
    item: str | None = None
    n_relevant: str | None = None
    ties: TieRule = "average"
    judged: str | None = None


def _parse(text: str, roles: _Roles) -> _Parsed:
    found = resolve(text) if isinstance(text, str) else None
    if found is None:
        raise InvalidParameterError(unknown_metric_message(text))
    spec = found.spec
    options = found.builder_options()
    extra: dict[str, Any] = {}
    if roles.ties == "average" and not spec.averaged_ties:
        msg = (
            f"metric {text!r}: {spec.name} has no closed form for ties averaged over their "
            "orderings; evaluate it with ties='trec_eval' (and item=) or ties='input'"
        )
        raise InvalidParameterError(msg)
    if roles.ties != "average":
        if not spec.ties:
            takes = [s.name for s in REGISTRY if s.ties]
            msg = (
                f"metric {text!r}: {spec.name} has no tie rule but its own, so it cannot be "
                f"evaluated with ties={roles.ties!r}; the metrics that take one: {takes}"
            )
            raise InvalidParameterError(msg)
        extra.update(ties=roles.ties, item=roles.item)
    if roles.n_relevant is not None and spec.judged:
        extra["n_relevant"] = roles.n_relevant
    if roles.judged is not None and spec.judged_ideal:
        extra["judged"] = roles.judged
    # the builder validates the options and holds the rules a group must pass
    metric = spec.builder(roles.y_true, roles.y_score, name=text, **options, **extra)
    return _Parsed(metric, spec, options)


def _check_columns(schema: pl.Schema, columns: dict[str, str]) -> None:
    for role, column in columns.items():
        if column not in schema:
            msg = f"`{role}` column {column!r} is not in the frame (columns: {list(schema)})"
            raise ValueError(msg)
        if role in ("y_true", "y_score", "weight", "n_relevant"):
            dtype = schema[column]
            if not (dtype.is_numeric() or dtype == pl.Boolean):
                msg = f"`{role}` column {column!r} must be numeric or boolean, found dtype {dtype}"
                raise ValueError(msg)
        if role == "judged":
            dtype = schema[column]
            if not (isinstance(dtype, pl.List) and dtype.inner.is_numeric()):
                msg = (
                    f"`judged` column {column!r} must hold a list of relevances per group, "
                    f"found dtype {dtype}"
                )
                raise ValueError(msg)


Frame = pl.DataFrame | pl.LazyFrame


def _as_columns(
    frame: Frame,
    by: str | pl.Expr | Sequence[str | pl.Expr],
    y_true: str | pl.Expr,
    y_score: str | pl.Expr,
    weight: str | pl.Expr | None,
    item: str | pl.Expr | None,
    n_relevant: str | pl.Expr | None,
    judged: str | pl.Expr | None,
) -> tuple[Frame, list[str], str, str, str | None, str | None, str | None, str | None]:
    """Column names for every role, the frame given a column for each expression that is not one.

    A key or weight expression keeps its output name (it is a column of the
    result); a ``y_true`` / ``y_score`` expression is held under a working name.
    """
    added: list[pl.Expr] = []

    def column(value: object, role: str, working: str | None) -> str:
        if isinstance(value, str):
            return value
        if not isinstance(value, pl.Expr):
            msg = f"`{role}` must be a column name or a Polars expression, got {value!r}"
            raise InvalidParameterError(msg)  # a TypeError too
        if value.meta.is_column():
            return value.meta.output_name()
        name = working or value.meta.output_name(raise_if_undetermined=False)
        if name is None:
            msg = f"`{role}` expression {value} has no output name: give it one with .alias()"
            raise ValueError(msg)
        added.append(value.alias(name))
        return name

    if isinstance(by, (str, pl.Expr)):
        many: list[object] = [by]
    elif isinstance(by, Sequence) and not isinstance(by, bytes):
        many = list(by)
    else:
        msg = (
            "The 'by' parameter of evaluate must be a column name or a polars expression, "
            f"or a non-empty sequence of them. Got {by!r} instead."
        )
        raise InvalidParameterError(msg)
    keys = [column(key, f"by[{i}]", None) for i, key in enumerate(many)]
    true = column(y_true, "y_true", f"{_PREFIX}y_true")
    score = column(y_score, "y_score", f"{_PREFIX}y_score")
    w = None if weight is None else column(weight, "weight", None)
    doc = None if item is None else column(item, "item", f"{_PREFIX}item")
    n_rel = None if n_relevant is None else column(n_relevant, "n_relevant", f"{_PREFIX}n_rel")
    lists = None if judged is None else column(judged, "judged", f"{_PREFIX}judged_lists")
    frame = frame.with_columns(added) if added else frame
    return frame, keys, true, score, w, doc, n_rel, lists


def _check_output_names(keys: list[str], weight: str | None, names: list[str]) -> None:
    """The result has a column per key, the weight and a column per metric: no two alike."""
    roles = [*(f"`by` column {key!r}" for key in keys)]
    roles += [f"`weight` column {weight!r}"] if weight is not None else []
    roles += [f"metric {name!r}" for name in names]
    columns = [*keys, *([weight] if weight is not None else []), *names]
    seen: dict[str, str] = {}
    for column, role in zip(columns, roles, strict=True):
        if column.startswith(_PREFIX):
            msg = f"{role}: names starting with {_PREFIX!r} are lp.evaluate's own working columns"
            raise ValueError(msg)
        if column in seen:
            msg = (
                f"{role} and {seen[column]} would both be the result's column {column!r}: "
                "the result holds the `by` columns, the weight and one column per metric, "
                "so rename the frame's column or write the metric with another of its names "
                "(e.g. 'nDCG' for 'ndcg')"
            )
            raise ValueError(msg)
        seen[column] = role


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
) -> tuple[pl.DataFrame, tuple[np.ndarray, np.ndarray] | None]:
    """The groups of a frame laid out in runs (their rules, in run order) and its ranked rows.

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
            return groups, (gain, score)
    if roles.ties == "average" and score_dtype.is_float() and one_padded_matrix(runs.length):
        unranked = frame.select(
            _finite(y_true, clean=clean).alias("g"),
            _score_values(frame, y_score, clean=clean).alias("s"),
        )
        score = unranked["s"].to_numpy()
        order = segment_order(score, runs.length, break_ties=row_order)
        return groups, (unranked["g"].to_numpy()[order], score[order])
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
    if runs is None:
        groups = indexed.group_by(keys).agg(*aggs, ranked.alias(_ORDER))
    else:
        # groups as slices of runs (see _contiguous_runs): the same groups, in run order
        groups, ranked_arrays = _rank_runs(frame, indexed, runs, aggs, ranked, parsed, roles)
        if ranked_arrays is not None:
            gain_ranked, ranked_score = ranked_arrays
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
    arrays = Sorted(gain_ranked, ranked_score, groups[_LEN].to_numpy(), n_relevant, judged)
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


_PART_ROWS = 1 << 21
"""Rows of an in-memory frame evaluated at once (:func:`_evaluate_parted`)."""


def _evaluate_parted(
    frame: pl.DataFrame,
    parsed: list[_Parsed],
    roles: _Roles,
    *,
    strict: bool,
) -> pl.DataFrame:
    """:func:`_evaluate_frame` of a frame, in parts of whole groups of about ``part_rows`` rows.

    The ranked arrays and the cores' temporaries of the whole-frame path are
    several times the columns it reads (about 4x); evaluated in parts, they
    are those of one part.  A frame laid out in runs (sorted by the keys, say)
    is cut at run boundaries, without a copy; any other is cut by a hash of
    the keys, one part copied out at a time.  A group's value reads only its
    own rows, so the values are those of one call, bit for bit; the refusals
    are reported over the whole frame, as one call reports them.
    """
    part_rows = _PART_ROWS
    if frame.height <= part_rows:
        return _evaluate_frame(frame, parsed, roles, strict=strict)
    keys = roles.keys
    pieces = [
        _evaluate_frame(part, parsed, roles, strict=False)
        for part in _frame_parts(frame, keys, part_rows)
    ]
    result = pl.concat(pieces, how="vertical", rechunk=True).sort(keys)
    if strict:
        report = _refusal_report(frame, result, parsed, keys)
        if report is not None:
            raise RefusedGroupError(report)
    return result


def _frame_parts(frame: pl.DataFrame, keys: list[str], part_rows: int) -> Iterator[pl.DataFrame]:
    """An in-memory frame in parts of whole groups of about ``part_rows`` rows each."""
    runs = _contiguous_runs(frame, keys)
    if runs is not None:
        # every group one run: slices cut at the first run end past each multiple of part_rows
        ends = np.cumsum(runs.length)
        del runs
        targets = np.arange(part_rows, frame.height, part_rows)
        past = ends[np.searchsorted(ends, targets)]
        cuts = np.unique(np.concatenate([[0], past, [frame.height]]))
        for start, stop in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
            yield frame.slice(start, stop - start)
        return
    n_parts = -(-frame.height // part_rows)
    bucket = _bucket_of_rows(frame, keys, n_parts)
    for i in range(n_parts):
        yield _grouped(frame.filter(bucket == i), keys)


def _grouped(part: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """A part sorted by its keys (stably: each group's rows keep their order), when that helps.

    A part laid out in runs is cut into slices instead of hashed
    (:func:`_contiguous_runs`): a stable sort and that path cost about 0.6x the
    hash group-by's sort per group on 10-row queries.  Float keys are left to
    the hash group-by (its NaN and -0.0 rules are its own).
    """
    for key in keys:
        dtype = part.schema[key]
        if not (dtype.is_integer() or dtype.is_temporal() or isinstance(dtype, _RUN_KEY_TYPES)):
            return part
    return part.sort(keys, maintain_order=True)


def _bucket(keys: list[str], n_parts: int) -> pl.Expr:
    """Each row's part: a hash of its keys, modulo the parts (the same for every row of a group)."""
    return (pl.struct(keys).hash(seed=0) % n_parts).cast(pl.UInt32)


def _bucket_of_rows(frame: pl.DataFrame, keys: list[str], n_parts: int) -> pl.Series:
    """:func:`_bucket` of every row, computed a slice at a time (the 64-bit hashes stay small)."""
    step = 1 << 21
    pieces = [
        frame.slice(start, step).select(_bucket(keys, n_parts)).to_series()
        for start in range(0, frame.height, step)
    ]
    return pl.concat(pieces, rechunk=True)


def mean_of_groups(result: pl.DataFrame, names: Sequence[str], weight: str | None) -> pl.DataFrame:
    """One row: each metric's mean over its scored (non-null) groups, weighted by ``weight``.

    The weighted mean is ``sum(v * w) / sum(w)``, NumPy's ``np.average``, which
    is how scikit-learn averages per-sample values with ``sample_weight``.
    """
    if weight is None:
        return result.select(pl.col(name).mean() for name in names)
    w = pl.col(weight).cast(pl.Float64)
    totals = result.select(w.filter(pl.col(name).is_not_null()).sum().alias(name) for name in names)
    for name in names:
        if totals[name].item() == 0:
            msg = f"metric {name!r}: Weights sum to zero, can't be normalized"
            raise ZeroDivisionError(msg)
    return result.select(
        ((pl.col(name) * w).sum() / totals[name].item()).alias(name) for name in names
    )


@overload
def evaluate(
    frame: pl.DataFrame,
    metrics: Sequence[str],
    *,
    by: str | pl.Expr | Sequence[str | pl.Expr],
    y_true: str | pl.Expr,
    y_score: str | pl.Expr,
    weight: str | pl.Expr | None = ...,
    ties: TieRule = ...,
    item: str | pl.Expr | None = ...,
    n_relevant: str | pl.Expr | None = ...,
    judged: str | pl.Expr | None = ...,
    strict: bool = ...,
    mean: bool = ...,
    batch_rows: int | None = ...,
    progress: bool | Callable[[Progress], None] | None = ...,
    layout: Layout = ...,
    temp_dir: str | os.PathLike[str] | None = ...,
) -> pl.DataFrame: ...


@overload
def evaluate(
    frame: pa.Table | pa.RecordBatch | pa.RecordBatchReader | pads.Dataset,
    metrics: Sequence[str],
    *,
    by: str | pl.Expr | Sequence[str | pl.Expr],
    y_true: str | pl.Expr,
    y_score: str | pl.Expr,
    weight: str | pl.Expr | None = ...,
    ties: TieRule = ...,
    item: str | pl.Expr | None = ...,
    n_relevant: str | pl.Expr | None = ...,
    judged: str | pl.Expr | None = ...,
    strict: bool = ...,
    mean: bool = ...,
    batch_rows: int | None = ...,
    progress: bool | Callable[[Progress], None] | None = ...,
    layout: Layout = ...,
    temp_dir: str | os.PathLike[str] | None = ...,
) -> pa.Table: ...


@overload
def evaluate(
    frame: pl.LazyFrame,
    metrics: Sequence[str],
    *,
    by: str | pl.Expr | Sequence[str | pl.Expr],
    y_true: str | pl.Expr,
    y_score: str | pl.Expr,
    weight: str | pl.Expr | None = ...,
    ties: TieRule = ...,
    item: str | pl.Expr | None = ...,
    n_relevant: str | pl.Expr | None = ...,
    judged: str | pl.Expr | None = ...,
    strict: bool = ...,
    mean: bool = ...,
    batch_rows: int | None = ...,
    progress: bool | Callable[[Progress], None] | None = ...,
    layout: Layout = ...,
    temp_dir: str | os.PathLike[str] | None = ...,
) -> pl.LazyFrame: ...


@renamed(doc_id="item")
def evaluate(
    frame: pl.DataFrame
    | pl.LazyFrame
    | pa.Table
    | pa.RecordBatch
    | pa.RecordBatchReader
    | pads.Dataset,
    metrics: Sequence[str],
    *,
    by: str | pl.Expr | Sequence[str | pl.Expr],
    y_true: str | pl.Expr,
    y_score: str | pl.Expr,
    weight: str | pl.Expr | None = None,
    ties: TieRule = "average",
    item: str | pl.Expr | None = None,
    n_relevant: str | pl.Expr | None = None,
    judged: str | pl.Expr | None = None,
    strict: bool = True,
    mean: bool = False,
    batch_rows: int | None = None,
    progress: bool | Callable[[Progress], None] | None = None,
    layout: Layout = "auto",
    temp_dir: str | os.PathLike[str] | None = None,
) -> pl.DataFrame | pl.LazyFrame | pa.Table:
    """Evaluate several metrics per group of a long frame.

    Parameters
    ----------
    frame
        A long frame: one row per (group, item).  A ``DataFrame`` gives a
        ``DataFrame``; a ``LazyFrame`` gives a ``LazyFrame``.  Arrow data is
        read without a copy and gives a ``pyarrow.Table``: a ``Table`` or
        ``RecordBatch``; a ``pyarrow.dataset.Dataset`` (a Parquet directory),
        read in parts as a ``LazyFrame`` is; a ``RecordBatchReader``, read
        once, whole.
    metrics
        Metric names, each optionally with a cutoff after ``@``:
        ``"dcg"``, ``"ndcg"``, ``"reciprocal_rank"`` (``"rr"``, ``"mrr"``),
        ``"average_precision"`` (``"ap"``), ``"top_k_accuracy"``,
        ``"coverage_error"``, ``"label_ranking_loss"``,
        ``"label_ranking_average_precision"`` (``"lrap"``), ``"precision"``,
        ``"recall"``, ``"hit_rate@k"``, ``"r_precision"``,
        ``"average_precision_at_k"`` (``"map"``), ``"dcg_burges"``,
        ``"ndcg_burges"``, and the names of trec_eval, ranx and ir_measures as
        they write them (``"P.10"``, ``"nDCG@10"``, ``"map_cut.100"``,
        ``"AP@100"``, ``"Rprec"``, ``"success.5"``, ...); e.g.
        ``["ndcg@10", "rr@10", "ap"]``.  Each becomes a column of that name.
        The IR names see the rows as the whole truth, ties averaged
        (scikit-learn's view), not trec_eval's qrels denominators or tie
        order: for those, :func:`lodestar_polars.trec.evaluate`.
    by
        The column(s) that identify a group (a query, a sample): names or
        Polars expressions (an expression's output name names its column).
    y_true, y_score
        The relevance (or truth) and score columns, as names or expressions
        (``pl.col("rel") >= 2``).
    weight : str or polars.Expr, default=None
        A per-group weight column (one value per group), carried into the
        result and used by ``mean=True``, as scikit-learn's ``sample_weight``.
    ties : {'average', 'trec_eval', 'input'}, default='average'
        The rule for equal scores: averaged over every ordering
        (scikit-learn's), trec_eval's order (score, then ``item``
        descending) or row order.  Only metrics that take ``ties=`` accept
        another rule.
    item : str or polars.Expr, default=None
        The id of the ranked item (a document): trec_eval's tie-break,
        read by ``ties='trec_eval'``.  Called ``doc_id`` before 0.2.0 (the
        old name warns until 0.3.0).
    n_relevant : str or polars.Expr, default=None
        Per group, the judged relevant documents, retrieved or not: the
        denominator of ``recall``, ``r_precision``,
        ``average_precision_at_k``, ``bpref``, ``inferred_average_precision``
        and ``interpolated_precision``, as in trec_eval.
    judged : str or polars.Expr, default=None
        A list column, per group the relevance of every judged document,
        retrieved or not: the ideal DCG of ``ndcg`` (and ``ndcg_burges``), as
        in trec_eval and ir_measures, and the judged irrelevant count of
        ``bpref`` (its relevances equal to 0).
    strict : bool, default=True
        Raise :class:`RefusedGroupError` naming the groups a metric cannot
        score (and why, in scikit-learn's sentence where it has one).  With
        ``False`` those groups get null.
    mean : bool, default=False
        Return one row: each metric's mean over the groups (weighted by
        ``weight`` when given), which is scikit-learn's number on the same
        data.  Null (refused) groups are left out of the mean.
    batch_rows : int, default=None
        For a ``LazyFrame``: hold about this many rows in memory at once
        (default 5,000,000, about half a gigabyte).  A larger input is read
        once, in parts of whole groups (see ``layout``).  Ignored for a
        ``DataFrame``, which is in memory already.
    progress : bool or callable, default=None
        For a ``LazyFrame``: ``True`` shows rows done, rows a second and the
        time left while the parts are evaluated: one line rewritten on
        stderr in a terminal, an updated output in a Jupyter notebook, and
        nothing anywhere else (a pipe, a log file).  A callable is called
        with a :class:`Progress` after each part instead (the command line
        uses it).  ``None`` or ``False``: nothing.  Ignored for a
        ``DataFrame``, which is evaluated in one step.
    layout : {'auto', 'grouped', 'shuffled'}, default='auto'
        For a ``LazyFrame`` larger than ``batch_rows``: how its rows lie.
        ``'grouped'``: each group's rows are one contiguous run (a log sorted
        by ``by``); the input is streamed in parts cut between groups, with no
        hashing and nothing written, and a group found in two runs raises a
        ``ValueError``.  ``'shuffled'``: the input is partitioned once, by a
        hash of the ``by`` columns, into temporary files under ``temp_dir``,
        and each part read back from its own.  ``'auto'`` looks at the
        leading rows (about a million): grouped, it streams, and goes over to
        the partition if a later part is not; otherwise it partitions.
        Ignored for a ``DataFrame``.
    temp_dir : str or os.PathLike, default=None
        An existing directory for the temporary files of a shuffled
        ``LazyFrame`` (by default the system's, :func:`tempfile.gettempdir`):
        about the in-memory size of the columns read (17 bytes a row for an
        Int64 key, a Float64 score and an Int8 relevance), removed when the
        parts are read, also on an error.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        One row per group, sorted by the ``by`` columns: the ``by`` columns,
        the weight column if given, and one Float64 column per metric.  With
        ``mean=True``, one row of Float64 means.

    Raises
    ------
    InvalidParameterError
        An unknown metric name, or a cutoff on a metric that takes none; an
        option outside its domain (``ties``, ``strict``, ``layout``, ...); a
        column role (``by``, ``y_true``, ``item``, ...) that is not a name or
        an expression.
    ValueError
        A missing column, a non-numeric ``y_true``/``y_score``/``weight``, or
        a weight that varies within a group.
    RefusedGroupError
        With ``strict=True``, a group some metric refuses (raised when a lazy
        result is collected).
    ZeroDivisionError
        With ``mean=True`` and ``weight``, weights that sum to zero.

    Notes
    -----
    The whole frame is evaluated at once rather than group by group: one
    group-by evaluates the rules a group must pass and lists each group's row
    indices by score descending (row descending too only for
    ``top_k_accuracy``, the one metric that reads the order inside a tie);
    the two value columns are gathered in that order, and the NumPy core runs
    over the sorted columns, segment by segment (docs/decisions/0006).  The
    numbers equal the expressions' (within floating-point rounding); the rules
    and sentences are the expressions' own.  Metric names are read through
    the metric registry (docs/decisions/0009).  A frame of more than 2^21
    rows is evaluated in parts of whole groups, so that the ranked columns
    and temporaries are those of one part (docs/performance.md, "Memory of
    an in-memory frame"); the values are those of one call, bit for bit.
    A ``LazyFrame`` is read once, streamed or partitioned (see ``layout``;
    docs/decisions/0017).

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> log = pl.DataFrame(
    ...     {
    ...         "query": ["q1", "q1", "q1", "q2", "q2", "q2"],
    ...         "rel": [3, 0, 1, 0, 0, 2],
    ...         "score": [0.9, 0.8, 0.1, 0.7, 0.7, 0.3],
    ...     }
    ... )
    >>> lp.evaluate(log, ["ndcg@2", "rr", "ap"], by="query", y_true="rel", y_score="score")
    Traceback (most recent call last):
    ...
    lodestar_polars.exceptions.RefusedGroupError: metric 'ap' refused 2 group(s):
      query='q1': average_precision needs a binary y_true (bool, or 0 and 1). Got 3.0 instead.
      query='q2': average_precision needs a binary y_true (bool, or 0 and 1). Got 2.0 instead.
    (pass strict=False to get null for these groups instead)
    >>> lp.evaluate(log, ["ndcg@2", "rr", "dcg"], by="query", y_true="rel", y_score="score")
    shape: (2, 4)
    ┌───────┬──────────┬──────────┬─────┐
    │ query ┆ ndcg@2   ┆ rr       ┆ dcg │
    │ ---   ┆ ---      ┆ ---      ┆ --- │
    │ str   ┆ f64      ┆ f64      ┆ f64 │
    ╞═══════╪══════════╪══════════╪═════╡
    │ q1    ┆ 0.826235 ┆ 1.0      ┆ 3.5 │
    │ q2    ┆ 0.0      ┆ 0.333333 ┆ 1.0 │
    └───────┴──────────┴──────────┴─────┘
    >>> lp.evaluate(
    ...     log, ["ndcg@2", "rr"], by="query", y_true="rel", y_score="score", mean=True
    ... )
    shape: (1, 2)
    ┌──────────┬──────────┐
    │ ndcg@2   ┆ rr       │
    │ ---      ┆ ---      │
    │ f64      ┆ f64      │
    ╞══════════╪══════════╡
    │ 0.413117 ┆ 0.666667 │
    └──────────┴──────────┘
    """
    arrow = from_arrow(frame)
    if arrow is not None:
        out = evaluate(
            arrow,
            metrics,
            by=by,
            y_true=y_true,
            y_score=y_score,
            weight=weight,
            ties=ties,
            item=item,
            n_relevant=n_relevant,
            judged=judged,
            strict=strict,
            mean=mean,
            batch_rows=batch_rows,
            progress=progress,
            layout=layout,
            temp_dir=temp_dir,
        )
        return (out.collect() if isinstance(out, pl.LazyFrame) else out).to_arrow()
    if not isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        msg = (
            "`frame` must be a polars DataFrame or LazyFrame, or a pyarrow Table, "
            f"RecordBatch, RecordBatchReader or Dataset, got {type(frame).__name__}"
        )
        raise TypeError(msg)
    frame, keys, y_true, y_score, weight, item, n_relevant, judged = _as_columns(
        frame, by, y_true, y_score, weight, item, n_relevant, judged
    )
    if not keys:
        msg = "`by` must name at least one column"
        raise ValueError(msg)
    if not isinstance(metrics, (str, Sequence)) or isinstance(metrics, bytes):
        msg = (
            "The 'metrics' parameter of evaluate must be a metric name or a sequence of them. "
            f"Got {metrics!r} instead."
        )
        raise InvalidParameterError(msg)
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        msg = "`metrics` must name at least one metric"
        raise ValueError(msg)
    if len(set(names)) != len(names):
        msg = f"`metrics` names a metric twice: {names!r}"
        raise ValueError(msg)
    strict = check_bool(strict, "strict", "evaluate")
    mean = check_bool(mean, "mean", "evaluate")
    batch_rows = check_int(batch_rows, "batch_rows", "evaluate")
    if progress is not None and not isinstance(progress, bool) and not callable(progress):
        msg = (
            "The 'progress' parameter of evaluate must be a bool, a callable or None. "
            f"Got {progress!r} instead."
        )
        raise InvalidParameterError(msg)
    layout = check_option(layout, "layout", "evaluate", LAYOUTS)  # type: ignore[assignment]
    temp_dir = check_temp_dir(temp_dir, "evaluate")
    rule: TieRule = check_option(ties, "ties", "evaluate", TIES)  # type: ignore[assignment]
    if rule == "trec_eval" and item is None:
        msg = "evaluate(ties='trec_eval') needs `item=`: trec_eval breaks ties by document id"
        raise InvalidParameterError(msg)
    _check_output_names(keys, weight, names)
    lazy = frame.lazy()
    columns = {f"by[{i}]": key for i, key in enumerate(keys)}
    columns.update(y_true=y_true, y_score=y_score)
    if weight is not None:
        columns["weight"] = weight
    if item is not None and rule == "trec_eval":
        columns["item"] = item
    if n_relevant is not None:
        columns["n_relevant"] = n_relevant
    if judged is not None:
        columns["judged"] = judged
    schema = lazy.collect_schema()
    _check_columns(schema, columns)
    roles = _Roles(keys, y_true, y_score, weight, columns.get("item"), n_relevant, rule, judged)
    parsed = [_parse(name, roles) for name in names]
    if n_relevant is not None and not any(p.spec.judged for p in parsed):
        reads = [s.name for s in REGISTRY if s.judged]
        msg = f"`n_relevant` is read by {reads} only, and no metric asked for is one of them"
        raise InvalidParameterError(msg)
    if judged is not None and not any(p.spec.judged_ideal for p in parsed):
        reads = [s.name for s in REGISTRY if s.judged_ideal]
        msg = f"`judged` is read by {reads} only, and no metric asked for is one of them"
        raise InvalidParameterError(msg)
    needed = list(dict.fromkeys(columns.values()))

    if isinstance(frame, pl.DataFrame):
        result = _evaluate_parted(frame.select(needed), parsed, roles, strict=strict)
        return mean_of_groups(result, names, weight) if mean else result

    group_schema = {
        **{key: schema[key] for key in keys},
        **({weight: schema[weight]} if weight else {}),
        **{m: pl.Float64 for m in names},
    }

    source = lazy.select(needed)
    limit = DEFAULT_BATCH_ROWS if batch_rows is None else batch_rows

    def batches() -> Iterator[pl.DataFrame]:
        bar = ProgressBar() if progress is True else None
        callback = None if isinstance(progress, bool) else progress
        try:
            result = _evaluate_lazy(
                source,
                parsed,
                roles,
                strict=strict,
                part_rows=limit,
                layout=layout,
                temp_dir=temp_dir,
                progress=bar if bar is not None else callback,
            )
        finally:
            if bar is not None:
                bar.close()
        if result is not None:
            yield result

    per_group = _source(batches, group_schema).sort(keys)
    if not mean:
        return per_group
    return per_group.map_batches(
        lambda df: mean_of_groups(df, names, weight),
        schema=pl.Schema({m: pl.Float64 for m in names}),
    )


DEFAULT_BATCH_ROWS = 5_000_000
"""Rows :func:`evaluate` holds in memory at once for a ``LazyFrame`` (about 0.5 GB)."""


@dataclass(frozen=True)
class Progress:
    """Where a batched :func:`evaluate` stands, passed to its ``progress`` callback.

    :func:`lodestar_polars.ranking_report` and :func:`lodestar_polars.compare` pass one
    to theirs too: a part or a step of the report (``groups_in_part``: the lists graded
    in it), a block of resamples (``rows_done``: the resamples drawn).
    """

    parts_done: int
    """Parts of the input evaluated so far."""
    parts_total: int
    """Parts the input is read in (streamed in runs: an estimate until the last part)."""
    rows_done: int
    """Input rows evaluated so far."""
    groups_in_part: int
    """Groups in the part just evaluated."""


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (macOS, musl, Windows)."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
    except (OSError, TypeError):  # no C library to load (Windows: CDLL(None) is a TypeError)
        return None
    return getattr(libc, "malloc_trim", None)


def _release_freed_memory() -> None:
    """Hand the C heap's freed pages back to the OS after a part (glibc only; else nothing).

    The parts of a ``LazyFrame`` are evaluated on Polars' worker threads (its
    engine pulls the IO source from them), and glibc gives each thread a heap
    arena of its own: the NumPy arrays a part frees stay in that thread's
    arena, so peak RSS grew with every thread that evaluated a part (2.4 GB on
    the 1e8-row log; 1.1 GB when trimmed after each part).
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _evaluate_lazy(
    source: pl.LazyFrame,
    parsed: list[_Parsed],
    roles: _Roles,
    *,
    strict: bool,
    part_rows: int,
    layout: Layout,
    temp_dir: str | None,
    progress: Callable[[Progress], None] | None,
) -> pl.DataFrame | None:
    """Per-group values of a ``LazyFrame``, read once, in parts of about ``part_rows`` rows.

    An input of at most ``part_rows`` rows is collected whole.  A larger one
    is streamed in parts cut between groups when its groups are contiguous
    runs (``layout``), else partitioned once by a hash of the keys into
    temporary files (:mod:`lodestar_polars._evaluate.partition`).  The parts are
    evaluated with ``strict=False`` and the refusals reported at the end over
    all of them, so the sentence is the in-memory path's (the refused groups'
    rows are read again for it, from the input).  None for an empty input.
    """
    keys = roles.keys
    total = source.select(pl.len()).collect().item()
    estimate = max(1, -(-total // part_rows))
    pieces: list[pl.DataFrame] = []
    rows_done = 0

    def evaluate_part(part: pl.DataFrame, done: int, parts: int) -> None:
        nonlocal rows_done
        rows_done += part.height
        groups = 0
        if part.height:
            pieces.append(_evaluate_parted(part, parsed, roles, strict=False))
            groups = pieces[-1].height
        _release_freed_memory()
        if progress is not None:
            progress(Progress(done, parts, rows_done, groups))

    ascending = True
    if estimate == 1:
        evaluate_part(source.collect(engine="streaming"), 1, 1)
    elif layout == "grouped" or (layout == "auto" and sample_is_grouped(source, keys)):
        streamed = grouped_parts(source, keys, part_rows)
        try:
            done = 0
            for part, part_ascending, last in streamed:
                done += 1
                ascending = ascending and part_ascending
                evaluate_part(part, done, done if last else max(estimate, done + 1))
            if not ascending:  # no sorted key: no group may be in two parts
                _check_one_part_per_group(pl.concat(pieces), keys)
        except NotGroupedError as split:
            if layout == "grouped":
                msg = (
                    f"layout='grouped' needs each group's rows in one contiguous run (a log "
                    f"sorted by `by`), but group {split.where} has rows in two places; pass "
                    "layout='shuffled' (or 'auto') to partition the input by a hash of `by`"
                )
                raise ValueError(msg) from None
            pieces, rows_done, layout = [], 0, "shuffled"
        finally:
            streamed.close()
    else:
        layout = "shuffled"
    if layout == "shuffled" and estimate > 1:
        hashed = hashed_parts(source, keys, estimate, temp_dir)
        try:
            for i, part in enumerate(hashed):
                evaluate_part(_grouped(part, keys), i + 1, estimate)
        finally:
            hashed.close()  # the temporary files go now, also on an error
    if not pieces:
        return None
    result = pl.concat(pieces, how="vertical", rechunk=True).sort(keys)
    if strict:
        _raise_refusals(source, result, parsed, keys)
    return result


def _check_one_part_per_group(results: pl.DataFrame, keys: list[str]) -> None:
    """Raise :class:`NotGroupedError` naming a group found in two streamed parts."""
    twice = results.select(keys).filter(pl.struct(keys).is_duplicated())
    if twice.height:
        raise NotGroupedError(_describe(twice.row(0, named=True), keys))


def _raise_refusals(
    source: pl.LazyFrame, result: pl.DataFrame, parsed: list[_Parsed], keys: list[str]
) -> None:
    """Raise the in-memory path's :class:`RefusedGroupError` for a result read in parts.

    The sentence names the first refused groups of each metric with their
    reasons, which need those groups' rows: they are read again, from the input.
    """
    shown = [
        result.filter(pl.col(p.metric.name).is_null()).select(keys).head(_SHOWN) for p in parsed
    ]
    refused = pl.concat(shown).unique()
    if not refused.height:
        return
    rows = source.join(
        refused.lazy(), on=keys, how="semi", nulls_equal=True, maintain_order="left"
    ).collect(engine="streaming")
    report = _refusal_report(rows, result, parsed, keys)
    if report is not None:
        raise RefusedGroupError(report)


def _source(batches: Callable[[], Iterator[pl.DataFrame]], schema: dict[str, Any]) -> pl.LazyFrame:
    """A LazyFrame whose rows are produced, when collected, by ``batches``."""

    def io_source(
        with_columns: list[str] | None,
        predicate: pl.Expr | None,
        n_rows: int | None,
        batch_size: int | None,
    ) -> Iterator[pl.DataFrame]:
        for df in batches():
            if with_columns is not None:
                df = df.select(with_columns)
            if predicate is not None:
                df = df.filter(predicate)
            yield df

    return register_io_source(io_source, schema=schema)
