"""The input of ``lp.compare``: per-query frames to one array (runs, metrics, queries).

A frame with a run column or a mapping run name -> frame, read, checked (runs, metrics,
finite values, one row per query, the same queries in every run) and aligned by query;
:func:`collect` is the whole path, each step a function of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
import polars as pl

from lodestar_polars._base.validation import names_of
from lodestar_polars.exceptions import InvalidParameterError

Missing = Literal["raise", "intersect"]
Frame = pl.DataFrame | pl.LazyFrame
_RUN = "__lp_run__"

Array = npt.NDArray[np.float64]


def fail(msg: str) -> ValueError:
    return ValueError(msg)


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
            raise fail(msg)
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
            raise fail(msg)
        if _is_trec_text(frame):  # lp.trec.evaluate's text (relstring): not compared
            frame = frame.filter(pl.col("text").is_null()).drop("text")
            columns = frame.columns
        extra = [c for c in columns if c not in ("qid", "measure", "value")]
        long = frame.filter(pl.col("qid").cast(pl.String) != "all")
        dup = long.group_by([*extra, "qid", "measure"]).len().filter(pl.col("len") > 1)
        if dup.height:
            msg = f"{where}: query {dup['qid'][0]!r} has measure {dup['measure'][0]!r} twice."
            raise fail(msg)
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
            raise fail(msg)
    if query == ["qid"] and frame.schema["qid"] == pl.String:
        frame = frame.filter(pl.col("qid") != "all")  # lp.trec.evaluate's summary row
    return frame, query


def _is_column(expr: pl.Expr) -> bool:
    """Whether ``expr`` (as :func:`check_columns` makes it) is a column under its own name."""
    bare = expr.meta.undo_aliases()
    return bare.meta.is_column() and bare.meta.output_name() == expr.meta.output_name()


@dataclass(frozen=True)
class Collected:
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
        raise fail(msg)
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    if not isinstance(frame, pl.DataFrame):
        msg = f"per_query[{name!r}] must be a polars DataFrame; got {type(frame).__name__}."
        raise fail(msg)
    return _to_wide(frame, by, f"per_query[{name!r}]")


def _numeric_columns(frame: pl.DataFrame, exclude: Sequence[str]) -> list[str]:
    """The default metrics: every numeric column not in ``exclude`` (query and run)."""
    return [c for c in frame.columns if c not in exclude and frame.schema[c].is_numeric()]


def _check_metrics_once(metrics: list[str]) -> None:
    if len(set(metrics)) != len(metrics):
        msg = f"metrics: each metric once; got {metrics}."
        raise fail(msg)


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
            raise fail(msg)
        keys = keys_here
        parts.append((name, wide))
    if keys is None:
        msg = "per_query is empty: compare needs at least 2 runs."
        raise fail(msg)
    if metrics is None:
        metrics = _numeric_columns(parts[0][1], keys)
    for name, wide in parts:
        absent = [m for m in metrics if m not in wide.columns]
        if absent:
            msg = (
                f"run {name!r} has no metric {absent[0]!r}: every run needs every metric "
                f"(its columns are {wide.columns})."
            )
            raise fail(msg)
    _check_metrics_once(metrics)
    try:
        full = pl.concat(
            [w.select(pl.lit(name, pl.String).alias(_RUN), *keys, *metrics) for name, w in parts],
            how="vertical_relaxed",
        )
    except pl.exceptions.PolarsError as exc:
        msg = f"per_query: the runs' query or metric columns have different types ({exc})."
        raise fail(msg) from None
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
        raise fail(msg)
    if run not in per_query.columns:
        msg = (
            f"per_query has no run column {run!r} (columns {per_query.columns}); pass "
            "run= naming it, or a mapping run name -> per-query frame."
        )
        raise fail(msg)
    wide, keys = _to_wide(per_query, by, "per_query")
    if metrics is None:
        metrics = _numeric_columns(wide, [*keys, run])
    absent = [m for m in metrics if m not in wide.columns]
    if absent:
        msg = f"per_query has no metric column {absent[0]!r} (columns {wide.columns})."
        raise fail(msg)
    _check_metrics_once(metrics)
    full = wide.select(pl.col(run).cast(pl.String).alias(_RUN), *keys, *metrics)
    names = full[_RUN].unique(maintain_order=True).to_list()
    if None in names:
        msg = f"per_query: the run column {run!r} has null values."
        raise fail(msg)
    return full, names, keys, metrics


def _check_runs_and_metrics(
    full: pl.DataFrame, names: list[str], metrics: list[str], baseline: str
) -> None:
    """At least one numeric metric, each once; the baseline among at least 2 runs."""
    if not metrics:
        msg = "metrics: no metric to compare (no numeric column besides the query and run)."
        raise fail(msg)
    _check_metrics_once(metrics)
    for m in metrics:
        if not full.schema[m].is_numeric():
            msg = f"metric {m!r} must be numeric; its column is {full.schema[m]}."
            raise fail(msg)
    if baseline not in names:
        msg = f"baseline {baseline!r} is not one of the runs {names}."
        raise fail(msg)
    if len(names) < 2:
        msg = f"compare needs at least 2 runs; got {names}."
        raise fail(msg)


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
            raise fail(msg)


def _check_unique_queries(full: pl.DataFrame, query: list[str]) -> None:
    if full.select(_key(query).is_duplicated().over(_RUN).any()).item():
        # in the order the rows come (the first run listed first, its queries as they appear)
        dup = full.group_by([_RUN, *query], maintain_order=True).len().filter(pl.col("len") > 1)
        r = dup[_RUN][0]
        msg = (
            f"run {r!r} lists {dup.filter(pl.col(_RUN) == r).height} query(ies) more than "
            f"once (e.g. {_examples(dup.filter(pl.col(_RUN) == r).select(query))})."
        )
        raise fail(msg)


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
            raise fail(msg)
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


def collect(
    per_query: Frame | Mapping[str, Frame],
    *,
    run: str,
    by: list[pl.Expr] | None,
    metrics: list[str] | None,
    baseline: str,
    missing: Missing,
) -> Collected:
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
        return Collected(names, list(metrics), values, 0)
    _check_finite(full, query, metrics)
    _check_unique_queries(full, query)
    common, all_queries = _common_queries(full, names, query, baseline, missing)
    if common.height < 2:
        msg = f"compare needs at least 2 queries scored by every run; got {common.height}" + (
            f" (of {all_queries} in all)." if all_queries != common.height else "."
        )
        raise fail(msg)
    values = _pivot(full, names, query, metrics, common)
    return Collected(names, list(metrics), values, all_queries - common.height)


def _is_trec_text(frame: pl.DataFrame) -> bool:
    """Whether ``text`` is lp.trec.evaluate's column of a text measure (``relstring``).

    A String column whose rows with text all have a null ``value``; any other ``text``
    column stays a key, as every extra column of a long frame is.
    """
    if frame.schema.get("text") != pl.String:
        return False
    return bool(frame.filter(pl.col("text").is_not_null())["value"].is_null().all())
