"""The plan of an :func:`lodestar_polars.evaluate` call: metric names parsed, roles resolved.

Each metric name parsed against the registry (:func:`_parse`), the columns of each role
(``by``, ``y_true``, ``y_score``, ``weight``, ...) resolved and checked (:func:`_as_columns`,
:func:`_check_columns`), the output names checked against the keys; and the working column
names every path of ``lp.evaluate`` shares.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import polars as pl

from lodestar_polars._evaluate.inputs import check_inputs, feature_options
from lodestar_polars._metrics.expr import Metric
from lodestar_polars._metrics.ties import TieRule
from lodestar_polars._registry import (
    REGISTRY,
    MetricSpec,
    resolve,
    unknown_metric_message,
)
from lodestar_polars.exceptions import InvalidParameterError

if TYPE_CHECKING:
    pass

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
    inputs: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """The column of each input role given (``popularity``, ``feature``, ``popularity_rank``)."""
    n_items: int | None = None
    """The catalogue's size (serendipity), if given."""
    feature_dtype: pl.DataType | None = None
    """The ``feature`` column's dtype: a category, or an embedding (a list or an array)."""


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
    check_inputs(text, spec, roles)
    for role in spec.inputs:
        if role == "n_items":  # a number: the builder's and the core's option
            options["n_items"] = roles.n_items
        elif role == "feature":
            extra["feature"] = feature_options(text, roles, options)
        else:
            extra[role] = roles.inputs[role]
    # the builder validates the options and holds the rules a group must pass
    data = (roles.y_true, roles.y_score) if spec.reads_y_true else (roles.y_score,)
    metric = spec.builder(*data, name=text, **options, **extra)
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
    inputs: Mapping[str, str | pl.Expr | None] = MappingProxyType({}),
) -> tuple[
    Frame, list[str], str, str, str | None, str | None, str | None, str | None, dict[str, str]
]:
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
    given = {
        role: column(value, role, f"{_PREFIX}{role}")
        for role, value in inputs.items()
        if value is not None
    }
    frame = frame.with_columns(added) if added else frame
    return frame, keys, true, score, w, doc, n_rel, lists, given


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
