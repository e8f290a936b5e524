"""Reading the scores and the truth: keys, realised pairs, the graded frame."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from lodestar_polars._report.serving import (
    check_score_dtype,
    require_columns,
)
from lodestar_polars.exceptions import InvalidParameterError

if TYPE_CHECKING:
    pass

from lodestar_polars._report.ranking_report.common import (
    _ITEM,
    _LIST,
    _ORDER,
    _ROW,
    CALLER,
    Engine,
    Frame,
    Graded,
    ScoreArray,
    weighted_count,
)
from lodestar_polars._report.ranking_report.families import ranking_values


def _truth_pairs_from_column(base: pl.DataFrame, truth: str, keys: list[str]) -> pl.DataFrame:
    dtype = base.schema[truth]
    col = pl.col(truth)
    if dtype == pl.Boolean:
        bad = base.filter(col.is_null())
    elif dtype.is_numeric():
        bad = base.filter(col.is_null() | ~((col == 0) | (col == 1)))
    else:
        msg = (
            f"{CALLER}: the y_true column {truth!r} must be Boolean or 0/1. "
            f"Got dtype {dtype} instead."
        )
        raise ValueError(msg)
    if bad.height:
        row = bad.sort(_ORDER).row(0, named=True)
        msg = (
            f"{CALLER}: the y_true column {truth!r} must hold only True/False or 0/1. "
            f"Got {row[truth]!r} in list {_key_repr(row, keys)}."
        )
        raise ValueError(msg)
    return base.filter(col.cast(pl.Boolean)).select(_LIST, _ITEM, _ROW, _ORDER)


def _check_scores(
    base: pl.DataFrame, keys: list[str], item: str, score: str, groups: str | None
) -> None:
    for name in [*keys, item, score, *([] if groups is None else [groups])]:
        nulls = base.filter(pl.col(name).is_null())
        if nulls.height:
            msg = (
                f"{CALLER}: scores column {name!r} has null values (first in row "
                f"{nulls.sort(_ROW)[_ROW][0]})."
            )
            raise ValueError(msg)
    check_score_dtype(base.schema, score, CALLER)  # the rule top_k follows
    bad = base.filter(~pl.col(score).cast(pl.Float64).is_finite())
    if bad.height:
        key = bad.sort(_ROW).row(0, named=True)  # the first in input order
        msg = (
            f"{CALLER}: scores must be finite; list {_key_repr(key, keys)} has "
            f"{score}={key[score]!r} for item {key[item]!r}."
        )
        raise ValueError(msg)


def _key_repr(row: Mapping[str, Any], keys: list[str]) -> str:
    if len(keys) == 1:
        return repr(row[keys[0]])
    return repr({k: row[k] for k in keys})


def _grade(
    scores: Frame,
    *,
    keys: list[str],
    item: str,
    score: str,
    truth: str | Frame,
    groups: str | None,
    multi_positive: str,
    engine: Engine,
    key_exprs: Sequence[pl.Expr] = (),
    extra: Sequence[str] = (),
    order: str | None = None,
) -> tuple[Graded, pl.DataFrame]:
    """Read, check and index the input; the base frame keeps (list, item, score) rows.

    ``extra``: further columns of ``scores`` the base frame keeps (``value``, ``y_score_b``).
    ``order``: a column of ``scores`` numbering its rows in the input's order (a part of a
    larger log, its rows put in another order to be graded faster); else the rows' own order.
    What reads the input's order (the first problem a refusal names, the first positive of
    ``multi_positive="first"``) reads it from there.
    """
    lazy = _with_keys(scores.lazy(), key_exprs, "scores")
    schema = lazy.collect_schema()
    wanted = [*keys, item, score, *extra]
    if isinstance(truth, str):
        wanted.append(truth)
    if groups is not None:
        wanted.append(groups)
    require_columns(schema, wanted, "scores", CALLER)
    selected = list(dict.fromkeys(wanted))
    if order is None:
        base = lazy.select(selected).with_row_index(_ROW).collect(engine=engine)
    else:
        base = lazy.select(*selected, pl.col(order).alias(_ROW)).collect(engine=engine)
    if base.height == 0:
        msg = f"{CALLER}: scores has no rows, so there is nothing to grade."
        raise ValueError(msg)
    _check_scores(base, keys, item, score, groups)
    # canonical ids: sorted keys and sorted items, whatever the row order
    key_table = base.select(keys).unique().sort(keys).with_row_index(_LIST)
    catalogue = base.select(item).unique().sort(item)
    base = base.join(key_table, on=keys, how="left", maintain_order="left")
    base = base.join(
        catalogue.with_row_index(_ITEM), on=item, how="left", maintain_order="left"
    ).with_columns(pl.col(_LIST).cast(pl.Int64), pl.col(_ITEM).cast(pl.Int64))
    n_items = catalogue.height
    # (list, item) as one Int64 (lists and items each fewer than the rows): one key to sort by
    pair = pl.col(_LIST) * n_items + pl.col(_ITEM)
    # canonical row order: (list, item), so every sum runs in one order whatever the input's
    # (one sort by the one key: a third of the two-key sort's time on a shuffled part)
    ordered = base.rename({_ROW: _ORDER}).sort(pair)
    if ordered.select((pair.diff() == 0).any()).item():  # sorted: a repeat is adjacent
        dup = base.filter(pair.is_duplicated()).sort(_ROW).row(0, named=True)
        msg = (
            f"{CALLER}: list {_key_repr(dup, keys)} has item {dup[item]!r} more than once; "
            f"scores must hold one row per (list, item)."
        )
        raise ValueError(msg)
    base = ordered.with_row_index(_ROW)
    items = catalogue[item]
    if isinstance(truth, str):
        pairs = _truth_pairs_from_column(base, truth, keys)
    else:
        truth = _with_keys(truth.lazy(), key_exprs, "the y_true frame")
        pairs, items = _truth_pairs_from_frame(truth, base, key_table, catalogue, keys, item)
    if multi_positive == "first":
        pairs = pairs.sort(_ORDER).unique(_LIST, keep="first")
    pairs = pairs.sort(_LIST, _ITEM)
    n_lists_all = key_table.height
    g_list = pairs[_LIST].to_numpy().astype(np.int64)
    weight = weighted_count(g_list, minlength=n_lists_all).astype(np.float64)
    n_dropped = int(np.count_nonzero(weight == 0))
    if g_list.size == 0:
        msg = f"{CALLER}: no list of scores has a positive, so there is nothing to grade."
        raise ValueError(msg)
    unit = None
    if groups is not None:
        per_list = base.group_by(_LIST).agg(
            pl.col(groups).n_unique().alias("n"), pl.col(groups).first().alias("g")
        )
        mixed = per_list.filter(pl.col("n") > 1)
        if mixed.height:
            row = key_table.filter(pl.col(_LIST) == mixed[_LIST][0]).row(0, named=True)
            msg = (
                f"{CALLER}: groups column {groups!r} must be constant within a list; list "
                f"{_key_repr(row, keys)} has {mixed['n'][0]} values."
            )
            raise ValueError(msg)
        # units among the graded lists only: a dropped entity is not a unit
        group_of_list = per_list.sort(_LIST)["g"]
        graded_groups = group_of_list.gather(pl.Series(g_list))
        unit = (graded_groups.rank("dense") - 1).to_numpy().astype(np.int64)
    graded = Graded(
        list_id=base[_LIST].to_numpy(),
        item_id=base[_ITEM].to_numpy(),
        keys=key_table,
        items=items,
        n_catalogue=n_items,
        g_list=g_list,
        g_item=pairs[_ITEM].to_numpy().astype(np.int64),
        g_row=pairs[_ROW].fill_null(-1).to_numpy().astype(np.int64),
        weight=weight,
        n_dropped=n_dropped,
        unit=unit,
    )
    kept = [c for c in dict.fromkeys(extra) if c not in (score, item, *keys)]
    return graded, base.select(_ROW, *keys, item, score, *kept)


def _keys_of(by: object) -> tuple[list[str], list[pl.Expr]]:
    """``by`` as key column names, and the expressions that make the keys that are no column.

    As :func:`lodestar_polars.evaluate` reads it: a name, a Polars expression, or a non-empty
    sequence of them; an expression keeps its output name (``pl.col("user")`` is the column
    ``user``; ``(pl.col("user") % 10).alias("bucket")`` adds the key ``bucket``).
    """
    many = [by] if isinstance(by, (str, pl.Expr)) else list(by) if isinstance(by, Sequence) else []
    if not many or not all(isinstance(key, (str, pl.Expr)) for key in many):
        msg = (
            f"The 'by' parameter of {CALLER} must be a column name, a Polars expression, or a "
            f"non-empty sequence of them. Got {by!r} instead."
        )
        raise InvalidParameterError(msg)
    keys: list[str] = []
    added: list[pl.Expr] = []
    for key in many:
        if isinstance(key, str):
            keys.append(key)
            continue
        name = key.meta.output_name(raise_if_undetermined=False)
        if name is None:
            msg = (
                f"The 'by' parameter of {CALLER}: the expression {key} has no output name; "
                "give it one with .alias()."
            )
            raise InvalidParameterError(msg)
        keys.append(name)
        if not key.meta.is_column():
            added.append(key.alias(name))
    if len(set(keys)) != len(keys):
        msg = f"The 'by' parameter of {CALLER} names a key column twice: {keys!r}."
        raise InvalidParameterError(msg)
    return keys, added


def _with_keys(lazy: pl.LazyFrame, key_exprs: Sequence[pl.Expr], frame: str) -> pl.LazyFrame:
    """``lazy`` with the ``by`` expressions' key columns, once the columns they read are there."""
    if not key_exprs:
        return lazy
    schema = lazy.collect_schema()
    wanted = []
    for expr in key_exprs:
        missing = [name for name in expr.meta.root_names() if name not in schema]
        if not missing:
            wanted.append(expr)
        elif expr.meta.output_name() not in schema:  # a frame holding the key itself keeps it
            msg = (
                f"{CALLER}: {frame} has no column {missing[0]!r}, which the `by` expression "
                f"{expr} reads (its columns: {list(schema.names())})."
            )
            raise ValueError(msg)
    return lazy.with_columns(wanted) if wanted else lazy


def _truth_pairs_from_frame(
    truth: Frame,
    base: pl.DataFrame,
    key_table: pl.DataFrame,
    catalogue: pl.DataFrame,
    keys: list[str],
    item: str,
) -> tuple[pl.DataFrame, pl.Series]:
    lazy = truth.lazy()
    schema = lazy.collect_schema()
    require_columns(schema, [*keys, item], "the y_true frame", CALLER)
    for name in [*keys, item]:
        if schema[name] != base.schema[name]:
            msg = (
                f"{CALLER}: column {name!r} is {schema[name]} in the y_true frame but "
                f"{base.schema[name]} in scores; they must match."
            )
            raise ValueError(msg)
    frame = lazy.select(*keys, item).with_row_index(_ORDER).collect()
    for name in [*keys, item]:
        if frame[name].null_count():
            msg = f"{CALLER}: the y_true frame's column {name!r} has null values."
            raise ValueError(msg)
    frame = frame.unique([*keys, item], keep="first")
    frame = frame.join(key_table, on=keys, how="left")
    unknown = frame.filter(pl.col(_LIST).is_null())
    if unknown.height:
        first = unknown.sort(_ORDER).row(0, named=True)
        msg = (
            f"{CALLER}: the y_true frame names {unknown.select(keys).n_unique()} list(s) that are "
            f"not in scores, e.g. {_key_repr(first, keys)}."
        )
        raise ValueError(msg)
    unseen = frame.select(item).unique().join(catalogue, on=item, how="anti").sort(item).to_series()
    items = pl.concat([catalogue[item], unseen])
    ids = items.to_frame().with_row_index(_ITEM)
    frame = frame.join(ids, on=item, how="left").with_columns(
        pl.col(_LIST).cast(pl.Int64), pl.col(_ITEM).cast(pl.Int64)
    )
    frame = frame.join(base.select(_LIST, _ITEM, _ROW), on=[_LIST, _ITEM], how="left")
    return frame.select(_LIST, _ITEM, _ROW, _ORDER), items


def _objective_scores(
    base: pl.DataFrame,
    *,
    objective: str,
    alpha: float,
    keys: list[str],
    item: str,
    score: str,
    transforms: Mapping[str, Any],
    state: Any,
    fit: Any,
) -> tuple[ScoreArray, Any]:
    """The block's scores, per candidate row in ``base`` order, and the state used.

    The identity ranks the scores as they are (integers as integers); a transform's output is
    float64 by construction.
    """
    identity = alpha == 0.0 and not transforms["shrinkage"] and not transforms["percentile"]
    if identity:
        return ranking_values(base[score]), state
    from lodestar_polars._report.comparability import transform_for_objective

    if state is None:
        state = fit()
    out = transform_for_objective(
        base.select(_ROW, *keys, item, score),
        objective,  # type: ignore[arg-type]  # checked against OBJECTIVES
        state,
        by=keys,
        item=item,
        y_score=score,
        # a percentile block applies no alpha (transform_for_objective refuses one with it)
        popularity_discount=None if transforms["percentile"] else alpha,
        shrinkage=transforms["shrinkage"],
        shrinkage_strength=transforms["shrinkage_strength"],
        percentile=transforms["percentile"],
    )
    values = out.lazy().sort(_ROW).select(pl.col(score).cast(pl.Float64)).collect().to_series()
    array = values.to_numpy()
    if array.size != base.height or not np.isfinite(array).all():
        msg = f"{CALLER}: the {objective!r} transform did not give one finite score per row."
        raise ValueError(msg)
    return array, state


def _check_domain(
    base: pl.DataFrame,
    keys: list[str],
    item: str,
    score: str,
    block_alpha: Mapping[str, float],
    *,
    shrinkage: float | None,
    percentile: bool,
) -> None:
    """Refuse, before any block is scored, scores outside a requested transform's domain.

    Shrinkage pulls a probability toward a base rate (scores in [0, 1]); the popularity discount
    divides by ``base_rate ** alpha`` (scores >= 0, or the order of negatives reverses).  The
    first offending row in (list, item) order is named, with the two ways out for signed scores.
    """
    column = pl.col(score)
    if shrinkage is not None:
        bad = base.filter((column < 0) | (column > 1))
        if bad.height:
            row = bad.row(0, named=True)
            msg = (
                f"{CALLER}: shrinkage (shrinkage_strength={shrinkage:g}) pulls each score toward "
                f"its item's base rate, a probability, and needs scores in [0, 1]; list "
                f"{_key_repr(row, keys)} has {score}={row[score]!r} for item {row[item]!r}. "
                "Pass probabilities (for logits, their sigmoid), or leave shrinkage off; "
                "percentile=True ranks each score within its item's distribution and needs "
                "no scale."
            )
            raise ValueError(msg)
    if percentile:
        return
    discounted = [name for name, alpha in block_alpha.items() if alpha > 0.0]
    if not discounted:
        return
    bad = base.filter(column < 0)
    if bad.height:
        row = bad.row(0, named=True)
        which = ", ".join(f"{name!r} (alpha {block_alpha[name]:g})" for name in discounted)
        plural, verb = ("s", "divide") if len(discounted) > 1 else ("", "divides")
        msg = (
            f"{CALLER}: the objective{plural} {which} {verb} each score by its item's base rate "
            f"** alpha, which needs scores >= 0 (a negative score's order would reverse); list "
            f"{_key_repr(row, keys)} has {score}={row[score]!r} for item {row[item]!r}. For "
            'signed scores such as logits, pass objectives=("accuracy",) (alpha 0: the scores '
            "as they are), or percentile=True (each score ranked within its item's score "
            "distribution, which needs no sign)."
        )
        raise ValueError(msg)
