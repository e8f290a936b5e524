"""``lp.compare``: paired significance tests between runs over their per-query values.

Five tests, each vectorised over every (pair of runs, metric) at once and, for the
resampling tests, over blocks of resamples (no Python loop per resample):

- ``"student"``: the paired t-test, ``scipy.stats.ttest_rel``, with its t interval. The t
  distribution comes from :mod:`lodestar_polars._compare.stats` (NumPy only).
- ``"fisher"``: the randomization (sign-flip) test on the mean difference,
  ``scipy.stats.permutation_test(..., permutation_type="samples")``. Exact, over all
  ``2**n`` sign patterns, when ``n <= EXACT_MAX``; otherwise ``n_resamples`` random
  patterns drawn from ``seed``. Its interval is Student's (a randomization test has none).
- ``"bootstrap"``: the paired bootstrap of the mean difference; the interval is the
  percentile interval of ``scipy.stats.bootstrap(..., method="percentile")`` and the
  p-value the share of the bootstrap means, centred on the observed mean, at least as
  far from 0 as the observed mean (Efron and Tibshirani's shifted test). Its draws and
  count matrices are :mod:`lodestar_polars._core.bootstrap`, shared with the report.
- ``"wilcoxon"``: Wilcoxon's signed-rank test, ``scipy.stats.wilcoxon`` with its defaults
  (:mod:`lodestar_polars._compare.wilcoxon`); its interval is Student's.
- ``"tukey"``: Tukey's HSD over all the runs of a metric, ``scipy.stats.tukey_hsd`` as
  ranx calls it (:mod:`lodestar_polars._compare.tukey`): family-wise already, so no correction on
  top; its interval is ``tukey_hsd``'s.

Each pair also counts its wins, ties and losses over the queries (:func:`win_tie_loss`).

A resampled mean within :func:`tolerance` of the observed one ties with it (scaled to the
values, not to the differences: scipy's tolerance misses such ties). Which run is better
on a metric is the metric's direction (:func:`lodestar_polars._registry.direction`, or
the user's ``lower_is_better`` / ``higher_is_better``); on a metric of unknown direction
no run is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import numpy as np
import numpy.typing as npt
import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.progress import ProgressBar, check_progress, progress_callback
from lodestar_polars._base.validation import check_columns, check_int, check_open_interval, names_of
from lodestar_polars._compare.stats import t_two_sided_p, t_two_sided_quantile
from lodestar_polars._compare.tukey import tukey_hsd
from lodestar_polars._compare.wilcoxon import wilcoxon
from lodestar_polars._core import bootstrap as _bootstrap
from lodestar_polars._evaluate.evaluate import Progress
from lodestar_polars._registry import Direction, direction
from lodestar_polars.exceptions import InvalidParameterError

Test = Literal["student", "fisher", "bootstrap", "wilcoxon", "tukey"]
Correction = Literal["holm", "bonferroni"]
Missing = Literal["raise", "intersect"]
Frame = pl.DataFrame | pl.LazyFrame
_RUN = "__lp_run__"

#: The Fisher test enumerates every sign pattern up to this many queries (2**20 patterns).
EXACT_MAX = 20
#: Elements of one block of resamples (a float64 matrix of 128 MiB at most).
_BLOCK = _bootstrap.BLOCK
#: Null values within this many ulps of the data's magnitude of the observed one are ties.
TIE_ULPS = 256.0
_EPS = float(np.finfo(np.float64).eps)

_TESTS = ("bootstrap", "fisher", "student", "tukey", "wilcoxon")
_CORRECTIONS = ("bonferroni", "holm", None)
_MISSING = ("intersect", "raise")
_SUPERSCRIPT = dict(zip("abcdefghijklmnopqrstuvwxyz", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖᑫʳˢᵗᵘᵛʷˣʸᶻ", strict=True))

Array = npt.NDArray[np.float64]
_Block = TypeVar("_Block", bound=np.ndarray[Any, Any])


def _fail(msg: str) -> ValueError:
    return ValueError(msg)


def _check_option(value: object, name: str, allowed: Sequence[object]) -> None:
    if value not in allowed:
        shown = sorted((a for a in allowed if a is not None), key=str)
        extra = " or None" if None in allowed else ""
        msg = (
            f"The {name!r} parameter of compare must be one of {shown}{extra}. "
            f"Got {value!r} instead."
        )
        raise InvalidParameterError(msg)


# --------------------------------------------------------------------------------------
# Low level: the tests on a matrix of paired differences, one column per comparison.
# --------------------------------------------------------------------------------------


def student(d: Array, alpha: float) -> tuple[Array, Array, Array]:
    """Paired t-test on each column of ``d``: (p-value, ci_low, ci_high).

    A column of zeros (two identical runs) gets p = 1 and the interval [0, 0], where
    scipy gives NaN; a constant non-zero column gets p = 0 and a zero-width interval.
    """
    mean, se = _mean_se(d)
    return _student_test(mean, se, d.shape[0], alpha)


def _mean_se(d: Array) -> tuple[Array, Array]:
    """Each column's mean and standard error (``ddof=1``), summed pairwise down columns."""
    d = np.asfortranarray(d)  # pairwise sums down each column (see compare)
    return d.mean(axis=0), d.std(axis=0, ddof=1) / math.sqrt(d.shape[0])


def _student_test(mean: Array, se: Array, n: int, alpha: float) -> tuple[Array, Array, Array]:
    """:func:`student` from each column's mean and standard error over ``n`` queries."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, mean / se, np.where(mean == 0, 0.0, np.copysign(np.inf, mean)))
    p = t_two_sided_p(t, n - 1.0)
    half = t_two_sided_quantile(alpha, n - 1.0) * se
    return p, mean - half, mean + half


def _sign_sums_exact(d: Array) -> Iterator[Array]:
    """For blocks of columns of ``d``: the sums over all ``2**n`` sign patterns."""
    n, k = d.shape
    width = max(1, _BLOCK >> n)
    for start in range(0, k, width):
        block = d[:, start : start + width]
        sums = np.zeros((1, block.shape[1]))
        for row in block:  # n <= EXACT_MAX doublings, not one step per pattern
            sums = np.concatenate((sums + row, sums - row))
        yield sums


def tolerance(d: Array, magnitude: Array | None = None) -> Array:
    """How far a resampled mean may sit from the observed one and still tie with it.

    ``TIE_ULPS * eps * magnitude`` per column, ``magnitude`` the mean of
    ``|run_i| + |baseline_i|`` over the queries (by default ``mean(|d_i|)``, the
    differences alone). Each ``d_i = run_i - baseline_i`` carries a rounding error up to
    ``eps * (|run_i| + |baseline_i|)``, so two sign patterns that are equal in exact
    arithmetic can differ by about ``eps * magnitude`` in their means, however small the
    ``d_i`` themselves are; 256 ulps of it leave room for the sums' own rounding.
    scipy's ``gamma`` (100 ulps of the observed statistic) misses such ties when the
    differences are small next to the values (docs/compare.md).
    """
    if magnitude is None:
        magnitude = np.abs(d).mean(axis=0)
    return TIE_ULPS * _EPS * np.asarray(magnitude, dtype=np.float64)


def fisher_exact(d: Array, magnitude: Array | None = None) -> Array:
    """Exact two-sided randomization p-value of the mean of each column of ``d``.

    scipy's rule: ``min(1, 2 * min(P(null <= obs), P(null >= obs)))`` over all ``2**n``
    sign patterns, null values within :func:`tolerance` of the observed one counted as
    equal (on both sides).
    """
    n, k = d.shape
    observed = d.mean(axis=0)
    gamma = tolerance(d, magnitude)
    p = np.empty(k)
    start = 0
    for sums in _sign_sums_exact(d):
        width = sums.shape[1]
        obs, tol = observed[start : start + width], gamma[start : start + width]
        null = sums / n
        less = np.count_nonzero(null <= obs + tol, axis=0)
        greater = np.count_nonzero(null >= obs - tol, axis=0)
        p[start : start + width] = np.minimum(2.0 * np.minimum(less, greater) / sums.shape[0], 1.0)
        start += width
    return p


def _random_flips(n: int, n_resamples: int, rng: np.random.Generator) -> Iterator[Array]:
    """Blocks of random 0/1 flip indicators, shape (rows, n), from random bytes."""
    rows = max(1, _BLOCK // n)
    width = (n + 7) // 8
    for start in range(0, n_resamples, rows):
        m = min(rows, n_resamples - start)
        raw = np.frombuffer(rng.bytes(m * width), dtype=np.uint8).reshape(m, width)
        yield np.unpackbits(raw, axis=1, count=n).astype(np.float64)


def fisher_monte_carlo(d: Array, flips: Iterable[Array], magnitude: Array | None = None) -> Array:
    """Monte Carlo two-sided randomization p-value from blocks of 0/1 flip indicators.

    scipy's Monte Carlo rule: the observed pattern counts once more,
    ``(count + 1) / (n_resamples + 1)`` on each side; ties within :func:`tolerance`.
    """
    n = d.shape[0]
    observed = d.mean(axis=0)
    gamma = tolerance(d, magnitude)
    total = d.sum(axis=0)
    less = np.zeros(d.shape[1])
    greater = np.zeros(d.shape[1])
    count = 0
    for block in flips:
        null = (total - 2.0 * (block @ d)) / n  # flipping query i subtracts 2 d_i
        less += np.count_nonzero(null <= observed + gamma, axis=0)
        greater += np.count_nonzero(null >= observed - gamma, axis=0)
        count += block.shape[0]
    return np.minimum(2.0 * np.minimum(less + 1, greater + 1) / (count + 1), 1.0)


def _random_indices(
    n: int, n_resamples: int, rng: np.random.Generator
) -> Iterator[npt.NDArray[np.int64]]:
    """The bootstrap's draws, blocks of :data:`_BLOCK` at most (the shared kernel's)."""
    return _bootstrap.draw_indices(n, n_resamples, rng, _bootstrap.block_rows(n, _BLOCK))


def _ticking(
    blocks: Iterator[_Block], n: int, n_resamples: int, progress: Callable[[Progress], None] | None
) -> Iterator[_Block]:
    """``blocks`` of resamples, with a :class:`Progress` to ``progress`` as each is used.

    A block is used when the next is asked for (or the blocks end): the progress after
    block ``i`` counts the resamples of blocks ``1..i``.
    """
    if progress is None:
        yield from blocks
        return
    total = -(-n_resamples // max(1, _BLOCK // n))
    done = drawn = 0
    for block in blocks:
        yield block
        done += 1
        drawn += block.shape[0]
        progress(Progress(done, total, drawn, 0))


def bootstrap(
    d: Array,
    indices: Iterable[npt.NDArray[np.integer]],
    alpha: float,
    magnitude: Array | None = None,
) -> tuple[Array, Array, Array]:
    """Paired bootstrap of the mean of each column of ``d``: (p-value, ci_low, ci_high).

    ``indices`` are blocks of resamples, each row ``n`` query positions drawn with
    replacement (scipy draws ``rng.integers(0, n, (n_resamples, n))``). Each row becomes
    counts, and the resampled means of every column are one matrix product. A centred
    resampled mean as far from 0 as the observed one but for :func:`tolerance` counts as
    far.
    """
    n = d.shape[0]
    means = [_bootstrap.counts_of(block, n) @ d / n for block in indices]
    boot = np.concatenate(means)
    observed = d.mean(axis=0)
    low, high = np.quantile(boot, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    gamma = tolerance(d, magnitude)
    far = np.count_nonzero(np.abs(boot - observed) >= np.abs(observed) - gamma, axis=0)
    p = np.minimum((far + 1.0) / (boot.shape[0] + 1.0), 1.0)
    return p, low, high


def adjust(p: Array, correction: Correction | None) -> Array:
    """Family-wise adjusted p-values (Holm step-down or Bonferroni), capped at 1."""
    m = p.size
    if correction is None or m == 0:
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(p * m, 1.0)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate(p[order] * (m - np.arange(m)))
    out = np.empty(m)
    out[order] = np.minimum(stepped, 1.0)
    return out


# --------------------------------------------------------------------------------------
# Input: per-query frames to one array (runs, queries, metrics).
# --------------------------------------------------------------------------------------


def _examples(frame: pl.DataFrame, limit: int = 3) -> str:
    rows = frame.head(limit).rows()
    shown = [repr(r[0]) if len(r) == 1 else repr(r) for r in rows]
    return ", ".join(shown) + (", ..." if frame.height > limit else "")


def _to_wide(
    frame: pl.DataFrame, by: list[pl.Expr] | None, where: str
) -> tuple[pl.DataFrame, list[str]]:
    """A frame with the query column(s) and one column per metric (trec long frames pivoted).

    ``by`` (names or expressions, each with its output name) adds its expressions'
    columns under those names; by default the queries are ``qid``, or else ``query``.
    """
    columns = frame.columns
    query = None if by is None else names_of(by)
    if by is not None:
        missing = [c for e in by for c in e.meta.root_names() if c not in columns]
        if missing:
            msg = f"{where}: the `by` column(s) {missing} are not in the frame's columns {columns}."
            raise _fail(msg)
        if any(not _is_column(e) for e in by):  # an expression: its column, under its name
            try:
                frame = frame.with_columns(by)
            except pl.exceptions.PolarsError as err:
                msg = f"compare: a `by` expression cannot be read on {where}: {err}"
                raise InvalidParameterError(msg) from None
            columns = frame.columns
    if {"measure", "value"} <= set(columns) and (query is None or query == ["qid"]):
        if "qid" not in columns:
            msg = f"{where}: a long frame (measure, value) needs a 'qid' column; got {columns}."
            raise _fail(msg)
        extra = [c for c in columns if c not in ("qid", "measure", "value")]
        long = frame.filter(pl.col("qid").cast(pl.String) != "all")
        dup = long.group_by([*extra, "qid", "measure"]).len().filter(pl.col("len") > 1)
        if dup.height:
            msg = f"{where}: query {dup['qid'][0]!r} has measure {dup['measure'][0]!r} twice."
            raise _fail(msg)
        wide = long.pivot(on="measure", index=[*extra, "qid"], values="value")
        return wide, ["qid"]
    if query is None:
        if "qid" in columns:
            query = ["qid"]
        elif "query" in columns:
            query = ["query"]
        else:
            msg = (
                f"{where}: no 'qid' or 'query' column to identify the queries; "
                f"pass by= (one of {columns})."
            )
            raise _fail(msg)
    if query == ["qid"] and frame.schema["qid"] == pl.String:
        frame = frame.filter(pl.col("qid") != "all")  # lp.trec.evaluate's summary row
    return frame, query


def _is_column(expr: pl.Expr) -> bool:
    """Whether ``expr`` (as :func:`check_columns` makes it) is a column under its own name."""
    bare = expr.meta.undo_aliases()
    return bare.meta.is_column() and bare.meta.output_name() == expr.meta.output_name()


@dataclass(frozen=True)
class _Data:
    runs: list[str]
    metrics: list[str]
    values: Array  # (runs, metrics, queries): each run's metric contiguous
    n_dropped: int


def _read_run(
    name: object, frame: object, by: list[pl.Expr] | None
) -> tuple[pl.DataFrame, list[str]]:
    """One run of a mapping: its name checked, its frame read and made wide."""
    if not isinstance(name, str):
        msg = f"per_query: run names must be strings; got {name!r}."
        raise _fail(msg)
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    if not isinstance(frame, pl.DataFrame):
        msg = f"per_query[{name!r}] must be a polars DataFrame; got {type(frame).__name__}."
        raise _fail(msg)
    return _to_wide(frame, by, f"per_query[{name!r}]")


def _numeric_columns(frame: pl.DataFrame, exclude: Sequence[str]) -> list[str]:
    """The default metrics: every numeric column not in ``exclude`` (query and run)."""
    return [c for c in frame.columns if c not in exclude and frame.schema[c].is_numeric()]


def _check_metrics_once(metrics: list[str]) -> None:
    if len(set(metrics)) != len(metrics):
        msg = f"metrics: each metric once; got {metrics}."
        raise _fail(msg)


def _stack_runs(
    per_query: Mapping[str, Frame], by: list[pl.Expr] | None, metrics: list[str] | None
) -> tuple[pl.DataFrame, list[str], list[str], list[str]]:
    """A mapping run name -> frame as one frame (run, query columns, metrics)."""
    parts = []
    keys = None
    for name, frame in per_query.items():
        wide, keys_here = _read_run(name, frame, by)
        if keys is not None and keys_here != keys:
            msg = f"per_query[{name!r}]: queries are keyed by {keys_here}, other runs by {keys}."
            raise _fail(msg)
        keys = keys_here
        parts.append((name, wide))
    if keys is None:
        msg = "per_query is empty: compare needs at least 2 runs."
        raise _fail(msg)
    if metrics is None:
        metrics = _numeric_columns(parts[0][1], keys)
    for name, wide in parts:
        absent = [m for m in metrics if m not in wide.columns]
        if absent:
            msg = (
                f"run {name!r} has no metric {absent[0]!r}: every run needs every metric "
                f"(its columns are {wide.columns})."
            )
            raise _fail(msg)
    _check_metrics_once(metrics)
    try:
        full = pl.concat(
            [w.select(pl.lit(name, pl.String).alias(_RUN), *keys, *metrics) for name, w in parts],
            how="vertical_relaxed",
        )
    except pl.exceptions.PolarsError as exc:
        msg = f"per_query: the runs' query or metric columns have different types ({exc})."
        raise _fail(msg) from None
    return full, [name for name, _ in parts], keys, metrics


def _read_frame(
    per_query: object, run: str, by: list[pl.Expr] | None, metrics: list[str] | None
) -> tuple[pl.DataFrame, list[str], list[str], list[str]]:
    """One frame with a run column as (run, query columns, metrics), and its runs in order."""
    if isinstance(per_query, pl.LazyFrame):
        per_query = per_query.collect()
    if not isinstance(per_query, pl.DataFrame):
        msg = (
            "per_query must be a polars DataFrame with a run column or a mapping "
            f"run name -> DataFrame; got {type(per_query).__name__}."
        )
        raise _fail(msg)
    if run not in per_query.columns:
        msg = (
            f"per_query has no run column {run!r} (columns {per_query.columns}); pass "
            "run= naming it, or a mapping run name -> per-query frame."
        )
        raise _fail(msg)
    wide, keys = _to_wide(per_query, by, "per_query")
    if metrics is None:
        metrics = _numeric_columns(wide, [*keys, run])
    absent = [m for m in metrics if m not in wide.columns]
    if absent:
        msg = f"per_query has no metric column {absent[0]!r} (columns {wide.columns})."
        raise _fail(msg)
    _check_metrics_once(metrics)
    full = wide.select(pl.col(run).cast(pl.String).alias(_RUN), *keys, *metrics)
    names = full[_RUN].unique(maintain_order=True).to_list()
    if None in names:
        msg = f"per_query: the run column {run!r} has null values."
        raise _fail(msg)
    return full, names, keys, metrics


def _check_runs_and_metrics(
    full: pl.DataFrame, names: list[str], metrics: list[str], baseline: str
) -> None:
    """At least one numeric metric, each once; the baseline among at least 2 runs."""
    if not metrics:
        msg = "metrics: no metric to compare (no numeric column besides the query and run)."
        raise _fail(msg)
    _check_metrics_once(metrics)
    for m in metrics:
        if not full.schema[m].is_numeric():
            msg = f"metric {m!r} must be numeric; its column is {full.schema[m]}."
            raise _fail(msg)
    if baseline not in names:
        msg = f"baseline {baseline!r} is not one of the runs {names}."
        raise _fail(msg)
    if len(names) < 2:
        msg = f"compare needs at least 2 runs; got {names}."
        raise _fail(msg)


def _aligned(
    full: pl.DataFrame, names: list[str], query: list[str], metrics: list[str], baseline: str
) -> Array | None:
    """The values without a join when every run has the baseline's queries, each once.

    The common case, at the cost of reading it: every run lists the baseline's queries
    (at least 2, each once), every value finite. A run that lists them in the baseline's
    order is read as it stands; one in another order is put in it by sorting both on the
    query (the same queries sorted alike, each run's value moves to its query's place in
    the baseline). The values, (runs, metrics, queries), are then what :func:`_pivot`
    gives, without a join. Otherwise None, and the checks that follow say what is wrong
    (their order, and so their sentences, unchanged).
    """
    if any(full.schema[q].is_float() for q in query):
        return None  # float keys: leave equality (-0.0, NaN) to the joins' rules
    parts = _runs_apart(full, names)
    base = parts[baseline]
    keys = base.select(query)
    if base.height < 2 or keys.n_unique() < base.height:
        return None
    values = np.empty((len(names), len(metrics), base.height))
    by_query: tuple[npt.NDArray[np.intp], pl.DataFrame] | None = None
    for i, name in enumerate(names):
        part = parts[name]
        if part.height != base.height:
            return None
        if part.select(query).equals(keys):
            for j, m in enumerate(metrics):
                values[i, j] = part.get_column(m).to_numpy()
            continue
        if by_query is None:  # the baseline's queries sorted, and where each one sits
            at = _sorting(keys, query)
            by_query = (at, keys[at])
        base_at, base_sorted = by_query
        run_at = _sorting(part, query)
        if not part.select(query)[run_at].equals(base_sorted):
            return None  # other queries (or one twice): the checks name them
        for j, m in enumerate(metrics):
            values[i, j, base_at] = part.get_column(m).to_numpy()[run_at]
    return values if np.isfinite(values).all() else None


def _sorting(frame: pl.DataFrame, query: list[str]) -> npt.NDArray[np.intp]:
    """The row order that sorts ``frame`` on the query column(s)."""
    at = frame.select(pl.arg_sort_by(query).alias("__lp_at__")).get_column("__lp_at__")
    return at.to_numpy().astype(np.intp, copy=False)


def _runs_apart(full: pl.DataFrame, names: list[str]) -> dict[str, pl.DataFrame]:
    """Each run's rows (query and metric columns), in their order.

    Slices, without a copy, when each run's rows are together (a mapping's runs, or a
    frame built by concatenating runs); otherwise Polars' ``partition_by``.
    """
    together = full.select(pl.col(_RUN).rle_id().max()).item() == len(names) - 1
    if together:
        blocks = full.get_column(_RUN).rle().struct.unnest()
        starts = np.concatenate([[0], np.cumsum(blocks["len"].to_numpy())])
        rows = full.drop(_RUN)
        return {
            name: rows.slice(int(start), int(length))
            for name, start, length in zip(blocks["value"], starts[:-1], blocks["len"], strict=True)
        }
    parts = full.partition_by(_RUN, maintain_order=True, include_key=False, as_dict=True)
    return {name: parts[(name,)] for name in names}


def _key(query: list[str]) -> pl.Expr:
    return pl.col(query[0]) if len(query) == 1 else pl.struct(query)


def _check_finite(full: pl.DataFrame, query: list[str], metrics: list[str]) -> None:
    """Every value a finite number, or the run, metric and queries named.

    An infinity would make the mean infinite, the t statistic NaN and the resampling tests'
    p-values 0.
    """
    for m in metrics:
        value = pl.col(m)
        bad = full.filter(value.is_null() | ~value.is_finite())
        if bad.height:
            r = bad[_RUN][0]
            which = bad.filter(pl.col(_RUN) == r)
            kinds = [
                kind
                for kind, found in (
                    ("null", which[m].is_null()),
                    ("NaN", which[m].is_nan()),
                    ("infinite", which[m].is_infinite()),
                )
                if found.any()
            ]
            msg = (
                f"run {r!r} has {which.height} {' or '.join(kinds)} value(s) of {m!r} (queries "
                f"{_examples(which.select(query))}): a finite per-query value is needed for "
                "every query (score those queries, or drop them from every run)."
            )
            raise _fail(msg)


def _check_unique_queries(full: pl.DataFrame, query: list[str]) -> None:
    if full.select(_key(query).is_duplicated().over(_RUN).any()).item():
        # in the order the rows come (the first run listed first, its queries as they appear)
        dup = full.group_by([_RUN, *query], maintain_order=True).len().filter(pl.col("len") > 1)
        r = dup[_RUN][0]
        msg = (
            f"run {r!r} lists {dup.filter(pl.col(_RUN) == r).height} query(ies) more than "
            f"once (e.g. {_examples(dup.filter(pl.col(_RUN) == r).select(query))})."
        )
        raise _fail(msg)


def _common_queries(
    full: pl.DataFrame, names: list[str], query: list[str], baseline: str, missing: Missing
) -> tuple[pl.DataFrame, int]:
    """The queries every run has, in the baseline's order, and how many queries in all.

    With ``missing="raise"``, a run that lacks a query of the baseline's, or has one it
    lacks, is refused.
    """
    base_q = full.filter(pl.col(_RUN) == baseline).select(query)
    differ = False
    for name in names:
        if name == baseline:
            continue
        run_q = full.filter(pl.col(_RUN) == name).select(query)
        lacks = base_q.join(run_q, on=query, how="anti", nulls_equal=True)
        has = run_q.join(base_q, on=query, how="anti", nulls_equal=True)
        differ = differ or bool(lacks.height or has.height)
        if (lacks.height or has.height) and missing == "raise":
            if lacks.height:
                what = (
                    f"run {name!r} lacks {lacks.height} of the {base_q.height} queries of the "
                    f"baseline {baseline!r} ({_examples(lacks)})"
                )
            else:
                what = (
                    f"run {name!r} has {has.height} queries that the baseline {baseline!r} "
                    f"lacks ({_examples(has)})"
                )
            msg = (
                f"{what}: paired tests need the same queries in every run. Score the "
                "missing queries (0 for a query a run did not answer: trec_eval -c, "
                "lp.trec.evaluate(complete=True)), or pass missing='intersect' to compare "
                "on the queries every run has."
            )
            raise _fail(msg)
    if not differ:
        return base_q, base_q.height
    present = full.group_by(query).agg(pl.col(_RUN).n_unique().alias("__lp_n__"))
    # The queries every run has, in the baseline's order (the order resamples index).
    everywhere = present.filter(pl.col("__lp_n__") == len(names)).select(query)
    common = base_q.join(everywhere, on=query, how="semi", nulls_equal=True, maintain_order="left")
    return common, present.height


def _pivot(
    full: pl.DataFrame, names: list[str], query: list[str], metrics: list[str], common: pl.DataFrame
) -> Array:
    """The values of the ``common`` queries, (runs, metrics, queries), in their order."""
    values = np.empty((len(names), len(metrics), common.height))
    for i, name in enumerate(names):
        part = common.join(
            full.filter(pl.col(_RUN) == name),
            on=query,
            how="left",
            nulls_equal=True,
            maintain_order="left",
        )
        for j, m in enumerate(metrics):
            values[i, j] = part.get_column(m).to_numpy()
    return values


def _collect(
    per_query: Frame | Mapping[str, Frame],
    *,
    run: str,
    by: list[pl.Expr] | None,
    metrics: list[str] | None,
    baseline: str,
    missing: Missing,
) -> _Data:
    """The runs' per-query values as one array, every check on the way.

    ``query`` below: the column(s) that identify a query, ``by``'s output names.
    """
    if isinstance(per_query, Mapping):
        full, names, query, metrics = _stack_runs(per_query, by, metrics)
    else:
        full, names, query, metrics = _read_frame(per_query, run, by, metrics)
    _check_runs_and_metrics(full, names, metrics, baseline)
    full = full.with_columns(pl.col(m).cast(pl.Float64) for m in metrics)
    values = _aligned(full, names, query, metrics, baseline)
    if values is not None:
        return _Data(names, list(metrics), values, 0)
    _check_finite(full, query, metrics)
    _check_unique_queries(full, query)
    common, all_queries = _common_queries(full, names, query, baseline, missing)
    if common.height < 2:
        msg = f"compare needs at least 2 queries scored by every run; got {common.height}" + (
            f" (of {all_queries} in all)." if all_queries != common.height else "."
        )
        raise _fail(msg)
    values = _pivot(full, names, query, metrics, common)
    return _Data(names, list(metrics), values, all_queries - common.height)


# --------------------------------------------------------------------------------------
# The result.
# --------------------------------------------------------------------------------------


def _letters(k: int) -> list[str]:
    letters = list("abcdefghijklmnopqrstuvwxyz")
    if k > len(letters):
        msg = f"the report labels at most {len(letters)} runs with letters; got {k}."
        raise _fail(msg)
    return letters[:k]


@dataclass(frozen=True, eq=False)
class Comparison:
    """The result of :func:`lodestar_polars.compare`.

    Attributes
    ----------
    table : polars.DataFrame
        One row per run and metric: ``run``, ``metric``, ``mean``, ``difference`` (run minus
        baseline), ``ci_low``, ``ci_high``, ``p_value``, ``significant``.
    pairs : polars.DataFrame
        Every ordered pair of runs: ``run``, ``other``, ``metric``, ``difference``,
        ``p_value``, ``p_adjusted``, ``better`` (``run`` significantly better than ``other``;
        null for a metric whose direction is unknown), ``wins``, ``ties``, ``losses`` (the
        queries where ``run`` is better than ``other``, equal, worse, in the metric's
        direction; wins and losses null where it is unknown). The source of the report's
        superscripts and its wins/ties/losses table.
    baseline, test, correction, alpha, n_queries
        The options the comparison ran with and the number of queries compared.
    directions : mapping of str to "higher", "lower" or None
        Each metric's direction (larger values better, or smaller): the user's
        ``lower_is_better`` / ``higher_is_better``, else the metric registry's; None
        where neither knows it.
    n_resamples : int or None
        The resamples (random sign patterns) the p-values come from: the bootstrap's, and
        the Fisher test's above 20 queries; None for Student's test and the exact Fisher test.

    ``print(comparison)`` prints the report (:meth:`to_markdown`), and a notebook renders
    it as a Markdown table.
    """

    table: pl.DataFrame
    pairs: pl.DataFrame
    baseline: str
    test: str
    correction: str | None
    alpha: float
    n_queries: int
    directions: Mapping[str, Direction | None] = field(default_factory=dict)
    n_resamples: int | None = None

    def __repr__(self) -> str:
        """A line saying what this is, then the report (:meth:`to_markdown`)."""
        runs = self.table["run"].n_unique()
        head = (
            f"<lp.Comparison of {runs} runs against {self.baseline!r} over {self.n_queries} "
            "queries; the numbers in .table and .pairs>"
        )
        return head + "\n" + self.to_markdown()

    def __str__(self) -> str:
        """The report, as :meth:`to_markdown` writes it (ranx's ``Report`` prints its table)."""
        return self.to_markdown()

    def _repr_markdown_(self) -> str:
        """A notebook shows the report as a rendered Markdown table."""
        return self.to_markdown()

    def _cells(
        self,
        digits: int,
        sup: Callable[[str], str],
        bold: Callable[[str], str] | None = None,
    ) -> tuple[list[str], list[list[str]]]:
        """The report's rows: letter, run, then each metric's mean with its superscripts.

        With ``bold``, the best mean of each metric with a direction (as printed: every run
        that prints the best value) goes through ``bold``.
        """
        runs = self.table["run"].unique(maintain_order=True).to_list()
        metrics = self.table["metric"].unique(maintain_order=True).to_list()
        label = dict(zip(runs, _letters(len(runs)), strict=True))
        better = self.pairs.filter(pl.col("better"))
        beaten: dict[tuple[str, str], str] = {}
        for r, other, m in better.select("run", "other", "metric").iter_rows():
            beaten[(r, m)] = beaten.get((r, m), "") + label[other]
        means = {(r, m): v for r, m, v in self.table.select("run", "metric", "mean").iter_rows()}
        best: dict[str, str] = {}
        for m in metrics:
            way = self.directions.get(m)
            if bold is not None and way is not None:
                pick = max if way == "higher" else min
                best[m] = f"{pick(means[(r, m)] for r in runs):.{digits}f}"
        rows = []
        for r in runs:
            cells = [label[r], r]
            for m in metrics:
                marks = "".join(sorted(beaten.get((r, m), "")))
                value = f"{means[(r, m)]:.{digits}f}"
                if bold is not None and best.get(m) == value:
                    value = bold(value)
                cells.append(value + (sup(marks) if marks else ""))
            rows.append(cells)
        return metrics, rows

    def _win_tie_loss(self) -> tuple[list[str], list[tuple[str, list[str]]]]:
        """Each other run's wins/ties/losses against the baseline, per metric, as cells.

        ``W/T/L``: the queries where the run is better than the baseline, equal, worse,
        in the metric's direction; ``–/T/–`` where the direction is unknown.
        """
        metrics = self.table["metric"].unique(maintain_order=True).to_list()
        runs = [r for r in self.table["run"].unique(maintain_order=True) if r != self.baseline]
        against = self.pairs.filter(pl.col("other") == self.baseline)
        cell = {
            (r, m): f"{'–' if w is None else w}/{t}/{'–' if lo is None else lo}"
            for r, m, w, t, lo in against.select(
                "run", "metric", "wins", "ties", "losses"
            ).iter_rows()
        }
        return metrics, [(r, [cell[(r, m)] for m in metrics]) for r in runs]

    def _legend(self) -> str:
        corr = "no correction" if self.correction is None else f"{self.correction} correction"
        if self.test == "tukey":
            corr = "family-wise by Tukey's studentized range"
        return (
            f"Superscripts: significantly better than the runs with those letters "
            f"({self.test} test, two-sided, alpha={self.alpha}, {corr} over the pairs of runs "
            f"per metric; {self.n_queries} queries)."
        )

    def _undirected(self) -> str:
        """The note on the metrics without a direction (no superscripts); empty if none."""
        metrics = self.table["metric"].unique(maintain_order=True).to_list()
        unknown = [m for m in metrics if self.directions.get(m) is None]
        if not unknown:
            return ""
        names = ", ".join(repr(m) for m in unknown)
        return (
            f"No superscripts on {names}: whether higher or lower is better is not known "
            "(name it in compare's higher_is_better= or lower_is_better=)."
        )

    def to_markdown(self, *, digits: int = 4, win_tie_loss: bool = True) -> str:
        """The means as a Markdown table, ranx-style superscripts marking significance.

        Each cell carries the letters of the runs it is significantly better than. With
        ``win_tie_loss`` (the default), a second table gives each other run's wins, ties
        and losses against the baseline over the queries, in each metric's direction.
        """
        metrics, rows = self._cells(digits, lambda s: "".join(_SUPERSCRIPT[c] for c in s))
        lines = [
            "| # | run | " + " | ".join(metrics) + " |",
            "|---|---|" + "---:|" * len(metrics),
            *("| " + " | ".join(r) + " |" for r in rows),
        ]
        if win_tie_loss:
            _, counted = self._win_tie_loss()
            lines += [
                "",
                f"Wins/ties/losses against {self.baseline} (queries where the run is better, "
                "equal, worse in the metric's direction):",
                "",
                "| run | " + " | ".join(metrics) + " |",
                "|---|" + "---:|" * len(metrics),
                *("| " + " | ".join([r, *cells]) + " |" for r, cells in counted),
            ]
        lines += [
            "",
            self._legend(),
        ]
        if note := self._undirected():
            lines.append(note)
        return "\n".join(lines)

    def _caption(self) -> str:
        """The LaTeX caption: the test, the correction, alpha, what the marks mean."""
        if self.test == "student":
            test = "Paired t-test"
        elif self.test == "wilcoxon":
            test = "Wilcoxon signed-rank test"
        elif self.test == "tukey":
            test = "Tukey's HSD test"
        elif self.test == "fisher":
            test = "Fisher's randomization (sign-flip) test, " + (
                f"exact over all $2^{{{self.n_queries}}}$ sign patterns"
                if self.n_resamples is None
                else f"{self.n_resamples:,} random sign patterns"
            )
        else:
            test = f"Paired bootstrap test, {self.n_resamples:,} resamples"
        corr = (
            "no correction"
            if self.correction is None
            else f"{self.correction.capitalize()}-corrected over the pairs of runs per metric"
        )
        if self.test == "tukey":
            corr = "family-wise over the pairs of runs per metric (the studentized range)"
        return (
            rf"{test}, two-sided, {corr}, $\alpha = {self.alpha}$; {self.n_queries} queries. "
            "Superscripts mark runs significantly better than the run of that letter; the "
            "best mean of each metric, in its direction, is in bold."
        )

    def to_latex(
        self,
        *,
        digits: int = 4,
        caption: bool | str = True,
        label: str | None = None,
        win_tie_loss: bool = True,
    ) -> str:
        r"""The means as a LaTeX table (booktabs), superscripts as ``$^{ab}$``, best in bold.

        Each metric's best mean, in the metric's direction (the lowest for a loss), is in
        bold, every run that prints it when several do; a metric of unknown direction has
        none in bold, and a note under the table says it has no superscripts either.

        Parameters
        ----------
        digits : int, default=4
            Decimals of the means.
        caption : bool or str, default=True
            True: a ``table`` float whose caption names the test, the correction and alpha
            ("Paired t-test, two-sided, Holm-corrected over the pairs of runs per metric,
            $\alpha = 0.05$; 8 queries. Superscripts mark ..."); a str: that caption, as
            LaTeX; False: the bare ``tabular``.
        label : str, default=None
            A ``\label`` for the table float.
        win_tie_loss : bool, default=True
            Rows under the means (after a ``\midrule``): each other run's wins, ties and
            losses against the baseline over the queries, ``W/T/L`` in each metric's
            direction (``–/T/–`` where it is unknown).
        """

        def esc(s: str) -> str:
            for a, b in (
                ("\\", r"\textbackslash{}"),
                ("_", r"\_"),
                ("&", r"\&"),
                ("%", r"\%"),
                ("#", r"\#"),
                ("$", r"\$"),
                ("{", r"\{"),
                ("}", r"\}"),
            ):
                s = s.replace(a, b)
            return s

        metrics, rows = self._cells(digits, lambda s: f"$^{{{s}}}$", lambda v: rf"\textbf{{{v}}}")
        lines = [
            r"\begin{tabular}{ll" + "r" * len(metrics) + "}",
            r"\toprule",
            r"\# & Run & " + " & ".join(esc(m) for m in metrics) + r" \\",
            r"\midrule",
            *(" & ".join([r[0], esc(r[1]), *r[2:]]) + r" \\" for r in rows),
        ]
        if win_tie_loss:
            _, counted = self._win_tie_loss()
            lines.append(r"\midrule")
            lines += [
                " & ".join(["", rf"{esc(r)}: W/T/L vs.\ {esc(self.baseline)}", *cells]) + r" \\"
                for r, cells in counted
            ]
        lines.append(r"\bottomrule")
        if note := self._undirected():
            width = 2 + len(metrics)
            lines.append(rf"\multicolumn{{{width}}}{{l}}{{\footnotesize {esc(note)}}} \\")
        lines.append(r"\end{tabular}")
        if caption is False:
            return "\n".join(lines)
        text = self._caption() if caption is True else str(caption)
        head = [r"\begin{table}[ht]", r"\centering", rf"\caption{{{text}}}"]
        if label is not None:
            head.append(rf"\label{{{label}}}")
        return "\n".join([*head, *lines, r"\end{table}"])


def _metric_names(value: object, name: str, what: str = "metric column names") -> list[str]:
    """An option naming columns: a column name or a sequence of them."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return list(value)
    msg = (
        f"The {name!r} parameter of compare must be a str or a sequence of str ({what}). "
        f"Got {value!r} instead."
    )
    raise InvalidParameterError(msg)


def _directions(
    metrics: Sequence[str], lower: Sequence[str], higher: Sequence[str]
) -> dict[str, Direction | None]:
    """Each metric's direction: the user's lists (exact names), else the registry's."""
    for option, names in (("lower_is_better", lower), ("higher_is_better", higher)):
        for m in names:
            if m not in metrics:
                msg = (
                    f"The {option!r} parameter of compare names {m!r}, which is not a "
                    f"compared metric (the metrics are {list(metrics)}; names match exactly)."
                )
                raise InvalidParameterError(msg)
    out: dict[str, Direction | None] = {}
    for m in metrics:
        out[m] = "lower" if m in lower else "higher" if m in higher else direction(m)
    return out


@renamed(query="by")
def compare(
    per_query: Frame | Mapping[str, Frame],
    *,
    baseline: str,
    metrics: str | Sequence[str] | None = None,
    test: Test = "student",
    correction: Correction | None = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int | None = 0,
    run: str = "run",
    by: str | pl.Expr | Sequence[str | pl.Expr] | None = None,
    missing: Missing = "raise",
    lower_is_better: str | Sequence[str] = (),
    higher_is_better: str | Sequence[str] = (),
    progress: bool | Callable[[Progress], None] | None = None,
) -> Comparison:
    """Paired significance tests of several runs against a baseline, over per-query values.

    Parameters
    ----------
    per_query : polars.DataFrame, LazyFrame, or mapping of str to one
        Per-query metric values of several runs: a frame with a ``run`` column, or a mapping
        run name -> frame. Each frame is ``lp.evaluate``'s output (query column(s), one
        column per metric) or ``lp.trec.evaluate(..., per_query=True)``'s, long (``qid``,
        ``measure``, ``value``) or ``wide=True``; its ``all`` rows are left out.
    baseline : str
        The run every other run is compared with.
    metrics : str or sequence of str, default=None
        The metric columns (measures) to compare; by default every numeric column that is
        not a query or run column.
    test : {"student", "fisher", "bootstrap", "wilcoxon", "tukey"}, default="student"
        Paired t-test; randomization (sign-flip) test, exact up to 20 queries; paired
        bootstrap; Wilcoxon's signed-rank test (``scipy.stats.wilcoxon``'s defaults);
        Tukey's HSD over all the runs (ranx's ``"tukey"``, ``scipy.stats.tukey_hsd``:
        the runs as unpaired groups, family-wise over the pairs, so ``correction`` is not
        applied on top and ``Comparison.correction`` is None).
    correction : {"holm", "bonferroni"} or None, default="holm"
        Family-wise correction, per metric, over the comparisons with the baseline (for
        ``table``) and over all pairs of runs (for ``pairs`` and the report).
    alpha : float, default=0.05
        Significance level; the confidence intervals are ``1 - alpha`` (uncorrected).
    n_resamples : int, default=10_000
        Resamples of the bootstrap and of the Fisher test above 20 queries.
    seed : int or None, default=0
        Seed of ``numpy.random.default_rng`` for the resampling tests.
    run : str, default="run"
        The run column of a single frame.
    by : str, polars.Expr or sequence of them, default=None
        The column(s) identifying a query, as names or expressions (an expression's
        output name names its column): by default ``qid`` or else ``query``. Called
        ``query`` before 0.2.0 (the old name warns until 0.3.0).
    missing : {"raise", "intersect"}, default="raise"
        Queries that some runs lack: ``"raise"`` refuses, naming the run, the count and
        examples; ``"intersect"`` compares on the queries every run has.
    lower_is_better : str or sequence of str, default=()
        Metric columns where lower is better, named exactly as written (``"recall@100"``
        names that column and no other). A metric's direction otherwise comes from the
        metric registry (:func:`lodestar_polars._registry.direction`): the losses and
        errors (``log_loss``, ``brier``, ``brier_score_loss``, ``coverage_error``,
        ``label_ranking_loss``, ``ece``) are lower-is-better, every other metric
        ``lp.evaluate``, ``lp.trec.evaluate`` or trec_eval writes higher-is-better, and a
        count (``num_ret``) or an unknown column has no direction.
    higher_is_better : str or sequence of str, default=()
        Metric columns where higher is better, for columns the registry does not know.
        A metric of unknown direction that neither list names is compared (p-value,
        interval, ``significant``) but no run is called better on it: ``better`` is null
        in ``.pairs`` and the report puts no superscript on it, and says so.
    progress : bool or callable, default=None
        For the resampling tests (the bootstrap, and the Fisher test above 20 queries):
        ``True`` shows resamples done, resamples a second and the time left, on one line
        rewritten on stderr in a terminal or an updated output in a Jupyter notebook, and
        nothing anywhere else.  A callable is called with a
        :class:`lodestar_polars.Progress` after each block of resamples instead
        (``rows_done``: the resamples drawn so far, ``groups_in_part``: 0).  ``None`` or
        ``False``: nothing.  Student's, the exact Fisher, Wilcoxon's and Tukey's tests draw
        nothing and show nothing.

    Returns
    -------
    Comparison
        ``.table``: a polars.DataFrame, one row per run and metric (the baseline's first),
        columns ``run`` (str), ``metric`` (str), ``mean``, ``difference`` (run minus
        baseline), ``ci_low``, ``ci_high``, ``p_value`` (f64; null on the baseline's rows)
        and ``significant`` (bool, after correction); ``.pairs`` all pairs of runs, with
        each pair's ``wins``, ``ties`` and ``losses`` over the queries;
        ``.to_markdown()`` and ``.to_latex()`` the report; ``print(result)`` prints the
        Markdown report.

    Raises
    ------
    InvalidParameterError
        An option outside its domain (a ``ValueError``): an unknown ``test``, ``alpha``
        outside (0, 1), a ``seed`` that is not None or an int >= 0, a ``by`` that is not
        a name or expression (or a sequence of them), a metric named in both
        ``lower_is_better`` and ``higher_is_better`` or in either but not compared.
    ValueError
        Runs with different query sets (with ``missing="raise"``), a metric missing in one
        run, a null, NaN or infinite value, fewer than 2 queries or runs, a query listed
        twice.

    Notes
    -----
    ``student`` equals ``scipy.stats.ttest_rel`` (p-value and ``confidence_interval``);
    ``fisher`` equals ``scipy.stats.permutation_test`` with ``permutation_type="samples"``
    and the mean difference as statistic (exact up to 20 queries, Monte Carlo beyond,
    ``(count + 1) / (n_resamples + 1)``), its interval Student's; ``bootstrap``'s interval
    is ``scipy.stats.bootstrap``'s percentile interval on the same resamples;
    ``wilcoxon`` equals ``scipy.stats.wilcoxon(run, baseline)`` (exact up to 50 queries
    without ties or zeros, every sign pattern up to 13 with them, else the normal
    approximation), its interval Student's; ``tukey`` equals ``scipy.stats.tukey_hsd`` and
    its ``confidence_interval``. Two identical runs get p = 1 (scipy: NaN).

    A resampled mean counts as tied with the observed one (as extreme) when the two
    differ by at most ``256 * eps * mean(|run_i| + |baseline_i|)``: the rounding of the
    differences is at the size of the values, not of the differences. scipy's tolerance,
    ``100 * eps * |observed|``, misses such ties when the differences are small next to
    the values, and there its p-value is smaller (docs/compare.md, "Ties and rounding").

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "run": ["bm25"] * 4 + ["dense"] * 4,
    ...         "query": ["q1", "q2", "q3", "q4"] * 2,
    ...         "ndcg@10": [0.2, 0.4, 0.1, 0.5, 0.5, 0.6, 0.4, 0.7],
    ...     }
    ... )
    >>> result = lp.compare(per_query, baseline="bm25", test="fisher")
    >>> result.table.select("run", "mean", "difference", "p_value")
    shape: (2, 4)
    ┌───────┬──────┬────────────┬─────────┐
    │ run   ┆ mean ┆ difference ┆ p_value │
    │ ---   ┆ ---  ┆ ---        ┆ ---     │
    │ str   ┆ f64  ┆ f64        ┆ f64     │
    ╞═══════╪══════╪════════════╪═════════╡
    │ bm25  ┆ 0.3  ┆ 0.0        ┆ null    │
    │ dense ┆ 0.55 ┆ 0.25       ┆ 0.125   │
    └───────┴──────┴────────────┴─────────┘
    """
    alpha, n_resamples, seed = _check_options(
        test, correction, missing, alpha, n_resamples, seed, baseline=baseline, run=run
    )
    check_progress(progress, "compare")
    metric_list = None if metrics is None else _metric_names(metrics, "metrics")
    by_exprs = None if by is None else check_columns(by, "by", "compare")
    lower, higher = _direction_lists(lower_is_better, higher_is_better)
    data = _collect(
        per_query,
        run=run,
        by=by_exprs,
        metrics=metric_list,
        baseline=baseline,
        missing=missing,
    )
    names, values = data.metrics, data.values
    directions = _directions(names, lower, higher)
    k = len(data.runs)
    # Put the baseline first; every ordered pair (i, j), i < j, of that order is compared.
    order = [data.runs.index(baseline)] + [i for i in range(k) if data.runs[i] != baseline]
    runs = [data.runs[i] for i in order]
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    tick = progress_callback(progress, step="block")
    if isinstance(tick, ProgressBar):
        tick.what = "resamples"
    try:
        mean_diff, p, low, high = _run_tests(
            values, order, pairs, test=test, alpha=alpha, n_resamples=n_resamples, seed=seed,
            progress=tick,
        )  # fmt: skip
    finally:
        if isinstance(tick, ProgressBar):
            tick.close()
    means = values.mean(axis=2)[order]  # (runs, metrics)
    # Tukey's p-values are family-wise over the pairs already: no correction on top.
    applied = None if test == "tukey" else correction
    table = _baseline_table(runs, names, means, pairs, (mean_diff, p, low, high), applied, alpha)
    counts = win_tie_loss(values, order, pairs)
    pair_frame = _pair_table(runs, names, pairs, mean_diff, p, applied, alpha, directions, counts)
    n = values.shape[2]
    resampled = test == "bootstrap" or (test == "fisher" and n > EXACT_MAX)
    return Comparison(
        table,
        pair_frame,
        baseline,
        test,
        applied,
        float(alpha),
        n,
        directions,
        n_resamples if resampled else None,
    )


def _check_options(
    test: object,
    correction: object,
    missing: object,
    alpha: object,
    n_resamples: object,
    seed: object,
    *,
    baseline: object,
    run: object,
) -> tuple[float, int, int | None]:
    """Every option in its domain before any data is read: (alpha, n_resamples, seed)."""
    _check_option(test, "test", _TESTS)
    _check_option(correction, "correction", _CORRECTIONS)
    _check_option(missing, "missing", _MISSING)
    alpha_ = check_open_interval(alpha, "alpha", "compare", 0, 1)
    resamples = check_int(n_resamples, "n_resamples", "compare", allow_none=False)
    assert resamples is not None  # allow_none=False
    seed_ = check_int(seed, "seed", "compare", low=0)  # for every test: one rule, one sentence
    for option, value in (("baseline", baseline), ("run", run)):
        if not isinstance(value, str):
            msg = (
                f"The {option!r} parameter of compare must be a str (a run name or column). "
                f"Got {value!r} instead."
            )
            raise InvalidParameterError(msg)
    return alpha_, resamples, seed_


def _direction_lists(
    lower_is_better: object, higher_is_better: object
) -> tuple[list[str], list[str]]:
    """The user's lower- and higher-is-better metrics; none in both."""
    lower = _metric_names(lower_is_better, "lower_is_better")
    higher = _metric_names(higher_is_better, "higher_is_better")
    both = [m for m in lower if m in higher]
    if both:
        msg = (
            f"The 'lower_is_better' and 'higher_is_better' parameters of compare both name "
            f"{both[0]!r}: a metric improves one way."
        )
        raise InvalidParameterError(msg)
    return lower, higher


def _run_tests(
    values: Array,
    order: list[int],
    pairs: list[tuple[int, int]],
    *,
    test: Test,
    alpha: float,
    n_resamples: int,
    seed: int | None,
    progress: Callable[[Progress], None] | None = None,
) -> tuple[Array, Array, Array, Array]:
    """Each pair (i, j) of ``order``'s runs and metric: mean of run i minus run j, p, interval.

    ``values`` is (runs, metrics, queries); each result is (pairs, metrics).
    """
    _, n_metrics, n = values.shape
    # d[:, p * n_metrics + m] is pair p's differences on metric m, column-major: each
    # comparison's differences contiguous, so NumPy's column sums are pairwise (error
    # ~log2(n) eps). Row-major sums down axis 0 are sequential (~n eps): at 1e5 queries that
    # put the t statistic 1e-12 off and tail p-values (t ~ 30) 1e-11 off. Student's test
    # needs each column's mean and spread only: one pair's block at a time, in cache.
    every = test in ("fisher", "bootstrap", "wilcoxon")  # the tests that need each d_i
    d_rows = np.empty((len(pairs) * n_metrics if every else n_metrics, n))
    mean_d, se_d = np.empty(len(pairs) * n_metrics), np.empty(len(pairs) * n_metrics)
    for at, (i, j) in enumerate(pairs):
        cols = slice(at * n_metrics, (at + 1) * n_metrics)
        block = d_rows[cols] if every else d_rows
        np.subtract(values[order[i]], values[order[j]], out=block)
        mean_d[cols], se_d[cols] = _mean_se(block.T)
    p, low, high = _student_test(mean_d, se_d, n, alpha)
    if test == "wilcoxon":
        p = wilcoxon(d_rows.T)
    elif test == "tukey":
        _, p2, low2, high2 = tukey_hsd(values[order], pairs, alpha)
        p, low, high = p2.reshape(-1), low2.reshape(-1), high2.reshape(-1)
    elif every:
        d = d_rows.T
        # The size of the values each difference comes from, mean(|run_i| + |baseline_i|):
        # the scale of the rounding in d, and so of the resampling tests' tie tolerance
        # (summed down the queries in the order that has always been used for it).
        by_query = np.ascontiguousarray(values[order].transpose(0, 2, 1))
        size = np.abs(by_query).mean(axis=1)  # (runs, metrics)
        magnitude = np.stack([size[i] + size[j] for i, j in pairs]).reshape(-1)
        rng = np.random.default_rng(seed)
        if test == "fisher" and n <= EXACT_MAX:
            p = fisher_exact(d, magnitude)
        elif test == "fisher":
            flips = _ticking(_random_flips(n, n_resamples, rng), n, n_resamples, progress)
            p = fisher_monte_carlo(d, flips, magnitude)
        else:
            draws = _ticking(_random_indices(n, n_resamples, rng), n, n_resamples, progress)
            p, low, high = bootstrap(d, draws, alpha, magnitude)
    shape = (len(pairs), n_metrics)
    return mean_d.reshape(shape), p.reshape(shape), low.reshape(shape), high.reshape(shape)


def win_tie_loss(
    values: Array, order: list[int], pairs: list[tuple[int, int]]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Per pair ``(i, j)`` of ``order``'s runs and metric: queries where i is above, equal, below.

    Exact comparisons of the values (``run_i == other_i``, not within a tolerance);
    each result is (pairs, metrics).
    """
    above, equal, below = [], [], []
    for i, j in pairs:
        a, b = values[order[i]], values[order[j]]
        above.append(np.count_nonzero(a > b, axis=1))
        equal.append(np.count_nonzero(a == b, axis=1))
        below.append(np.count_nonzero(a < b, axis=1))
    shape = (len(pairs), values.shape[1])
    return tuple(np.array(x, dtype=np.int64).reshape(shape) for x in (above, equal, below))  # type: ignore[return-value]


def _baseline_table(
    runs: list[str],
    names: list[str],
    means: Array,
    pairs: list[tuple[int, int]],
    tested: tuple[Array, Array, Array, Array],
    correction: Correction | None,
    alpha: float,
) -> pl.DataFrame:
    """``Comparison.table``: each run against the baseline (``runs[0]``), per metric."""
    mean_diff, p, low, high = tested
    k, n_metrics = means.shape
    # Pairs (0, j) are "baseline minus run j": flip them to "run j minus baseline".
    base_rows = [pairs.index((0, j)) for j in range(1, k)]
    table_rows: list[tuple[object, ...]] = []
    adjusted_base = np.stack(
        [adjust(p[base_rows, m], correction) for m in range(n_metrics)], axis=1
    )
    for r in range(k):
        for m in range(n_metrics):
            if r == 0:
                table_rows.append((runs[0], names[m], means[0, m], 0.0, None, None, None, False))
                continue
            row = base_rows[r - 1]
            table_rows.append(
                (
                    runs[r],
                    names[m],
                    float(means[r, m]),
                    float(-mean_diff[row, m]),
                    float(-high[row, m]),
                    float(-low[row, m]),
                    float(p[row, m]),
                    bool(adjusted_base[r - 1, m] <= alpha),
                )
            )
    return pl.DataFrame(
        table_rows,
        schema={
            "run": pl.String,
            "metric": pl.String,
            "mean": pl.Float64,
            "difference": pl.Float64,
            "ci_low": pl.Float64,
            "ci_high": pl.Float64,
            "p_value": pl.Float64,
            "significant": pl.Boolean,
        },
        orient="row",
    )


def _pair_table(
    runs: list[str],
    names: list[str],
    pairs: list[tuple[int, int]],
    mean_diff: Array,
    p: Array,
    correction: Correction | None,
    alpha: float,
    directions: Mapping[str, Direction | None],
    counts: tuple[npt.NDArray[np.int64], ...],
) -> pl.DataFrame:
    """``Comparison.pairs``: every ordered pair of runs, per metric, corrected over pairs.

    With each pair's wins, ties and losses over the queries in the metric's direction
    (wins and losses null where the direction is unknown).
    """
    n_metrics = len(names)
    adjusted_all = np.stack([adjust(p[:, m], correction) for m in range(n_metrics)], axis=1)
    pair_rows: list[tuple[object, ...]] = []
    above, equal, below = counts
    for idx, (i, j) in enumerate(pairs):
        for m in range(n_metrics):
            up, tie, down = int(above[idx, m]), int(equal[idx, m]), int(below[idx, m])
            delta = float(mean_diff[idx, m])
            sig = bool(adjusted_all[idx, m] <= alpha)
            way = directions[names[m]]
            pv, pa = float(p[idx, m]), float(adjusted_all[idx, m])
            i_better: bool | None = None  # unknown direction: a difference, not a win
            j_better: bool | None = None
            if way is not None:
                gain = delta if way == "higher" else -delta  # i's gain over j
                i_better, j_better = sig and gain > 0, sig and gain < 0
            i_wins: int | None = None
            i_losses: int | None = None
            if way is not None:
                i_wins, i_losses = (up, down) if way == "higher" else (down, up)
            pair_rows.append(
                (runs[i], runs[j], names[m], delta, pv, pa, i_better, i_wins, tie, i_losses)
            )
            pair_rows.append(
                (runs[j], runs[i], names[m], -delta, pv, pa, j_better, i_losses, tie, i_wins)
            )
    return pl.DataFrame(
        pair_rows,
        schema={
            "run": pl.String,
            "other": pl.String,
            "metric": pl.String,
            "difference": pl.Float64,
            "p_value": pl.Float64,
            "p_adjusted": pl.Float64,
            "better": pl.Boolean,
            "wins": pl.Int64,
            "ties": pl.Int64,
            "losses": pl.Int64,
        },
        orient="row",
    )
