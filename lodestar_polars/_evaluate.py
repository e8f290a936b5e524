"""``lp.evaluate``: many metrics, one row per group, with bad groups named."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, overload

import polars as pl

from lodestar_polars._dcg import dcg_metric, ndcg_metric
from lodestar_polars._expr import Metric
from lodestar_polars._label_ranking import (
    average_precision_metric,
    coverage_error_metric,
    label_ranking_average_precision_metric,
    label_ranking_loss_metric,
)
from lodestar_polars._reciprocal_rank import reciprocal_rank_metric
from lodestar_polars._top_k import top_k_accuracy_metric
from lodestar_polars.exceptions import InvalidParameterError, RefusedGroupError

_REASON = "__lodestar_reason_"
_WEIGHT_VARIES = "__lodestar_weight_varies"
_SHOWN = 5


@dataclass(frozen=True)
class _Spec:
    builder: Callable[..., Metric]
    takes_k: bool


_METRICS: dict[str, _Spec] = {
    "dcg": _Spec(dcg_metric, takes_k=True),
    "ndcg": _Spec(ndcg_metric, takes_k=True),
    "reciprocal_rank": _Spec(reciprocal_rank_metric, takes_k=True),
    "top_k_accuracy": _Spec(top_k_accuracy_metric, takes_k=True),
    "average_precision": _Spec(average_precision_metric, takes_k=False),
    "coverage_error": _Spec(coverage_error_metric, takes_k=False),
    "label_ranking_loss": _Spec(label_ranking_loss_metric, takes_k=False),
    "label_ranking_average_precision": _Spec(
        label_ranking_average_precision_metric, takes_k=False
    ),
}
_ALIASES = {
    "rr": "reciprocal_rank",
    "mrr": "reciprocal_rank",
    "recip_rank": "reciprocal_rank",
    "ap": "average_precision",
    "top_k": "top_k_accuracy",
    "lrap": "label_ranking_average_precision",
}
_NAME = re.compile(r"^(?P<name>[a-z_]+)(@(?P<k>[0-9]+))?$")


def metric_names() -> list[str]:
    """Every name :func:`evaluate` accepts (aliases included), sorted."""
    return sorted([*_METRICS, *_ALIASES])


def parse_metric(text: str, y_true: str | pl.Expr, y_score: str | pl.Expr) -> Metric:
    """Turn ``"ndcg@10"`` into the :class:`Metric` it names, output column ``text``."""
    match = _NAME.match(text.strip().lower()) if isinstance(text, str) else None
    name = match and _ALIASES.get(match["name"], match["name"])
    if not match or name not in _METRICS:
        msg = (
            f"unknown metric {text!r}: expected a name among {metric_names()}, "
            "optionally followed by @k for a cutoff (e.g. 'ndcg@10')"
        )
        raise InvalidParameterError(msg)
    spec = _METRICS[name]
    kwargs: dict[str, Any] = {"name": text}
    if match["k"] is not None:
        if not spec.takes_k:
            msg = f"metric {text!r}: {name} takes no cutoff, write it without '@{match['k']}'"
            raise InvalidParameterError(msg)
        kwargs["k"] = int(match["k"])
    return spec.builder(y_true, y_score, **kwargs)


def _check_columns(schema: pl.Schema, columns: dict[str, str]) -> None:
    for role, column in columns.items():
        if column not in schema:
            msg = f"`{role}` column {column!r} is not in the frame (columns: {list(schema)})"
            raise ValueError(msg)
        if role in ("y_true", "y_score", "weight"):
            dtype = schema[column]
            if not (dtype.is_numeric() or dtype == pl.Boolean):
                msg = (
                    f"`{role}` column {column!r} must be numeric or boolean, "
                    f"found dtype {dtype}"
                )
                raise ValueError(msg)


def _describe(row: dict[str, Any], by: list[str]) -> str:
    return ", ".join(f"{key}={row[key]!r}" for key in by)


def _finish(
    result: pl.DataFrame, metrics: list[Metric], by: list[str], *, strict: bool, weight: str | None
) -> pl.DataFrame:
    """Raise for refused groups (strict) and drop the bookkeeping columns."""
    if weight is not None and result[_WEIGHT_VARIES].any():
        bad = result.filter(pl.col(_WEIGHT_VARIES)).row(0, named=True)
        msg = (
            f"`weight` column {weight!r} must hold one value per group; group "
            f"{_describe(bad, by)} has several"
        )
        raise ValueError(msg)
    if strict:
        problems = []
        for i, metric in enumerate(metrics):
            refused = result.filter(pl.col(f"{_REASON}{i}").is_not_null())
            if refused.height:
                lines = [
                    f"  {_describe(row, by)}: {row[f'{_REASON}{i}']}"
                    for row in refused.head(_SHOWN).iter_rows(named=True)
                ]
                more = refused.height - _SHOWN
                if more > 0:
                    lines.append(f"  ... and {more} more")
                problems.append(
                    f"metric {metric.name!r} refused {refused.height} group(s):\n"
                    + "\n".join(lines)
                )
        if problems:
            msg = (
                "\n".join(problems)
                + "\n(pass strict=False to get null for these groups instead)"
            )
            raise RefusedGroupError(msg)
    return result.select(pl.exclude(f"^{_REASON}.*$", _WEIGHT_VARIES))


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
    return result.select(((pl.col(name) * w).sum() / totals[name].item()).alias(name) for name in names)


@overload
def evaluate(
    frame: pl.DataFrame,
    metrics: Sequence[str],
    *,
    by: str | Sequence[str],
    y_true: str,
    y_score: str,
    weight: str | None = ...,
    strict: bool = ...,
    mean: bool = ...,
) -> pl.DataFrame: ...


@overload
def evaluate(
    frame: pl.LazyFrame,
    metrics: Sequence[str],
    *,
    by: str | Sequence[str],
    y_true: str,
    y_score: str,
    weight: str | None = ...,
    strict: bool = ...,
    mean: bool = ...,
) -> pl.LazyFrame: ...


def evaluate(
    frame: pl.DataFrame | pl.LazyFrame,
    metrics: Sequence[str],
    *,
    by: str | Sequence[str],
    y_true: str,
    y_score: str,
    weight: str | None = None,
    strict: bool = True,
    mean: bool = False,
) -> pl.DataFrame | pl.LazyFrame:
    """Evaluate several metrics per group of a long frame.

    Parameters
    ----------
    frame
        A long frame: one row per (group, item).  A ``DataFrame`` gives a
        ``DataFrame``; a ``LazyFrame`` gives a ``LazyFrame``.
    metrics
        Metric names, each optionally with a cutoff after ``@``:
        ``"dcg"``, ``"ndcg"``, ``"reciprocal_rank"`` (``"rr"``, ``"mrr"``),
        ``"average_precision"`` (``"ap"``), ``"top_k_accuracy"``,
        ``"coverage_error"``, ``"label_ranking_loss"``,
        ``"label_ranking_average_precision"`` (``"lrap"``); e.g.
        ``["ndcg@10", "rr@10", "ap"]``.  Each becomes a column of that name.
    by
        The column(s) that identify a group (a query, a sample).
    y_true, y_score
        The relevance (or truth) and score columns.
    weight : str, default=None
        A per-group weight column (one value per group), carried into the
        result and used by ``mean=True``, as scikit-learn's ``sample_weight``.
    strict : bool, default=True
        Raise :class:`RefusedGroupError` naming the groups a metric cannot
        score (and why, in scikit-learn's sentence where it has one).  With
        ``False`` those groups get null.
    mean : bool, default=False
        Return one row: each metric's mean over the groups (weighted by
        ``weight`` when given), which is scikit-learn's number on the same
        data.  Null (refused) groups are left out of the mean.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        One row per group (in order of first appearance): the ``by`` columns,
        the weight column if given, and one Float64 column per metric.  With
        ``mean=True``, one row of Float64 means.

    Raises
    ------
    InvalidParameterError
        An unknown metric name, or a cutoff on a metric that takes none.
    ValueError
        A missing column, a non-numeric ``y_true``/``y_score``/``weight``, or
        a weight that varies within a group.
    RefusedGroupError
        With ``strict=True``, a group some metric refuses (raised when a lazy
        result is collected).
    ZeroDivisionError
        With ``mean=True`` and ``weight``, weights that sum to zero.

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
    if not isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        msg = f"`frame` must be a polars DataFrame or LazyFrame, got {type(frame).__name__}"
        raise TypeError(msg)
    keys = [by] if isinstance(by, str) else list(by)
    if not keys:
        msg = "`by` must name at least one column"
        raise ValueError(msg)
    if isinstance(metrics, str):
        metrics = [metrics]
    if not metrics:
        msg = "`metrics` must name at least one metric"
        raise ValueError(msg)
    names = list(metrics)
    if len(set(names)) != len(names):
        msg = f"`metrics` names a metric twice: {names!r}"
        raise ValueError(msg)
    lazy = frame.lazy()
    columns = {f"by[{i}]": key for i, key in enumerate(keys)}
    columns.update(y_true=y_true, y_score=y_score)
    if weight is not None:
        columns["weight"] = weight
    _check_columns(lazy.collect_schema(), columns)
    built = [parse_metric(name, y_true, y_score) for name in names]

    aggs: list[pl.Expr] = [m.expr() for m in built]
    aggs += [m.reason().alias(f"{_REASON}{i}") for i, m in enumerate(built)]
    if weight is not None:
        aggs.insert(0, pl.col(weight).first())
        aggs.append((pl.col(weight).n_unique() > 1).alias(_WEIGHT_VARIES))
    grouped = lazy.group_by(keys, maintain_order=True).agg(aggs)
    out_schema = {
        name: dtype
        for name, dtype in grouped.collect_schema().items()
        if not name.startswith(_REASON) and name != _WEIGHT_VARIES
    }

    def finish(df: pl.DataFrame) -> pl.DataFrame:
        result = _finish(df, built, keys, strict=strict, weight=weight)
        return mean_of_groups(result, names, weight) if mean else result

    if isinstance(frame, pl.DataFrame):
        return finish(grouped.collect())
    if mean:
        out_schema = {m.name: pl.Float64 for m in built}
    return grouped.map_batches(finish, schema=pl.Schema(out_schema))
