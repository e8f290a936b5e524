"""Comparability of per-item scores: base rates, score quantiles, and the objective transforms.

Two independently calibrated per-item scores live on incomparable scales when the items' base
rates differ: a 0.4 for an item bought by 1 % of lists is far stronger evidence than a 0.4 for
one bought by 30 %.  :func:`fit_comparability` learns each item's base rate and score quantiles
once, into a :class:`ComparabilityState`; :func:`transform_for_objective` re-expresses the scores
for an objective (a popularity discount, empirical-Bayes shrinkage, or the rank percentile).
They reshape the sort key and retrain nothing.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, TypeVar, cast

import numpy as np
import numpy.typing as npt
import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.validation import check_bool, check_int
from lodestar_polars._report.comparability_checks import (
    DEFAULT_SHRINKAGE_STRENGTH,
    _check_columns,
    _check_finite,
    _check_item_dtype,
    _check_no_nulls,
    _check_score_dtype,
    _describe,
    _roles,
)

# re-exported (``as``): the report imports these three from this module
from lodestar_polars._report.comparability_checks import (
    check_exclusive as check_exclusive,
)
from lodestar_polars._report.comparability_checks import (
    check_state as check_state,
)
from lodestar_polars._report.comparability_checks import (
    resolve_shrinkage as resolve_shrinkage,
)
from lodestar_polars._report.comparability_quantiles import _quantiles, item_ids
from lodestar_polars._report.comparability_state import (
    _INT_DTYPES,
    ComparabilityState,
    _table_schema,
)
from lodestar_polars.exceptions import InvalidParameterError

__all__ = [
    "DEFAULT_SHRINKAGE_STRENGTH",
    "OBJECTIVE_ALPHA",
    "ComparabilityState",
    "fit_comparability",
    "transform_for_objective",
]

Objective = Literal["accuracy", "balanced", "coverage"]
FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: The popularity discount each named objective ranks at.
OBJECTIVE_ALPHA: Mapping[str, float] = MappingProxyType(
    {"accuracy": 0.0, "balanced": 0.5, "coverage": 1.0}
)

FIT = "fit_comparability"
TRANSFORM = "transform_for_objective"
_TRUTH = "__lp_truth"
_RAW_TRUTH = "__lp_truth_raw"


# ---------------------------------------------------------------------------
# fit


def _truth_column(
    lf: pl.LazyFrame,
    schema: Mapping[str, Any],
    truth: str | pl.DataFrame | pl.LazyFrame,
    keys: list[str],
    item: str,
) -> pl.LazyFrame:
    """``lf`` with a Boolean column ``_TRUTH``."""
    if isinstance(truth, str):
        _check_columns(schema, [truth], FIT)
        dtype = schema[truth]
        if dtype == pl.Boolean:
            return lf.with_columns(pl.col(truth).alias(_TRUTH))
        if not dtype.is_numeric():
            msg = f"{FIT}: the y_true column {truth!r} must be Boolean or 0/1; it is {dtype}."
            raise ValueError(msg)
        return lf.with_columns((pl.col(truth).cast(pl.Float64) == 1.0).alias(_TRUTH))
    if not isinstance(truth, (pl.DataFrame, pl.LazyFrame)):
        msg = (
            f"{FIT}: 'y_true' must be a column name of scores or a frame of realised "
            f"(list, item) pairs; got {type(truth).__name__}."
        )
        raise TypeError(msg)
    pairs = truth.lazy()
    pair_schema = pairs.collect_schema()
    missing = [c for c in [*keys, item] if c not in pair_schema]
    if missing:
        msg = f"{FIT}: the y_true frame has no column {', '.join(map(repr, missing))}."
        raise ValueError(msg)
    pairs = pairs.select(*keys, item).unique()
    unknown = pairs.join(lf.select(keys).unique(), on=keys, how="anti").collect()
    if unknown.height:
        msg = (
            f"{FIT}: the y_true frame names {unknown.height} list(s) that are not in scores, "
            f"e.g. {_describe(unknown.row(0, named=True), keys)}."
        )
        raise ValueError(msg)
    return lf.join(
        pairs.with_columns(pl.lit(True).alias(_TRUTH)), on=[*keys, item], how="left"
    ).with_columns(pl.col(_TRUTH).fill_null(False))


def _check_binary_truth(df: pl.DataFrame, truth: str, keys: list[str], item: str) -> None:
    """Refuse a truth column holding anything but True/False or 0/1 (a 2 is not "not 1")."""
    raw = pl.col(_RAW_TRUTH)
    ok = raw.is_not_null() if df.schema[_RAW_TRUTH] == pl.Boolean else (raw == 0) | (raw == 1)
    bad = df.filter(~ok.fill_null(value=False))
    if bad.height:
        values = bad[_RAW_TRUTH].unique().sort(nulls_last=True)
        shown = ", ".join("null" if v is None else repr(v) for v in values.head(5).to_list())
        more = f" and {values.len() - 5} more" if values.len() > 5 else ""
        row = bad.row(0, named=True)
        msg = (
            f"{FIT}: the y_true column {truth!r} must hold only True/False or 0/1; it holds "
            f"{shown}{more} ({bad.height} row(s)), e.g. in the list {_describe(row, keys)} for "
            f"{item}={row[item]!r}."
        )
        raise ValueError(msg)


@renamed(score="y_score", truth="y_true")
def fit_comparability(
    scores: pl.DataFrame | pl.LazyFrame,
    *,
    by: str | pl.Expr | Sequence[str | pl.Expr],
    item: str | pl.Expr,
    y_score: str | pl.Expr,
    y_true: str | pl.Expr | pl.DataFrame | pl.LazyFrame,
    n_quantiles: int = 100,
) -> ComparabilityState:
    """Learn each item's base rate and score quantiles, for :func:`transform_for_objective`.

    Fit it once, on the holdout (or the training positives) and reuse it unchanged: a state
    derived from the batch being scored would make one list's ranking depend on the others.

    Parameters
    ----------
    scores : polars.DataFrame, polars.LazyFrame or Arrow data
        One row per (list, item) with the model's score.
    by : str, polars.Expr or sequence of them
        The column(s) naming a list (the evaluation unit).
    item : str or polars.Expr
        The item (class) column: integers or strings.
    y_score : str or polars.Expr
        The score column (called ``score`` before 0.2.0; the old name warns until 0.3.0).
    y_true : str, polars.Expr, polars.DataFrame or polars.LazyFrame
        A Boolean or 0/1 column of ``scores``, or a frame of the realised (``by``, ``item``)
        pairs (called ``truth`` before 0.2.0). An expression plays its role under its output
        name (``pl.col("s") * 2`` is ``s``), here and in every role. Lists with no positive
        are left out of the base rates (counted in ``n_dropped``).
    n_quantiles : int, default 100
        The score quantiles kept per item are at the ``n_quantiles + 1`` levels
        ``0, 1/n_quantiles, ..., 1`` (NumPy's ``linear`` method).

    Returns
    -------
    ComparabilityState
        Per item: ``n_positive``, ``n_candidate``, ``base_rate = n_positive / n_candidate``
        over the graded lists, and the score ``quantiles`` over every row of the item.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> log = pl.DataFrame({
    ...     "user": [1, 1, 2, 2, 3, 3, 4, 4],
    ...     "item": ["a", "b"] * 4,
    ...     "score": [0.9, 0.2, 0.6, 0.3, 0.8, 0.1, 0.4, 0.5],
    ...     "clicked": [True, False, True, False, False, True, False, False],
    ... })
    >>> state = lp.fit_comparability(log, by="user", item="item", y_score="score", y_true="clicked")
    >>> state.table.select("item", "n_positive", "n_candidate", "base_rate")
    shape: (2, 4)
    ┌──────┬────────────┬─────────────┬───────────┐
    │ item ┆ n_positive ┆ n_candidate ┆ base_rate │
    │ ---  ┆ ---        ┆ ---         ┆ ---       │
    │ str  ┆ i64        ┆ i64         ┆ f64       │
    ╞══════╪════════════╪═════════════╪═══════════╡
    │ a    ┆ 2          ┆ 3           ┆ 0.666667  │
    │ b    ┆ 1          ┆ 3           ┆ 0.333333  │
    └──────┴────────────┴─────────────┴───────────┘
    >>> state.n_lists, state.n_dropped
    (3, 1)
    """
    n_quantiles = cast("int", check_int(n_quantiles, "n_quantiles", FIT, allow_none=False))
    source, keys, item, y_score, truth_name = _roles(scores, by, item, y_score, FIT, y_true)
    truth: str | pl.DataFrame | pl.LazyFrame
    if truth_name is not None:
        truth = truth_name
    elif isinstance(y_true, (pl.DataFrame, pl.LazyFrame)):
        truth = y_true
    else:  # pragma: no cover - _roles checked it
        raise AssertionError(y_true)
    lf = source.lazy()
    schema = lf.collect_schema()
    _check_columns(schema, [*keys, item, y_score], FIT)
    _check_score_dtype(schema, y_score, FIT)
    item_dtype = _check_item_dtype(schema, item, FIT)
    lf = _truth_column(lf, schema, truth, keys, item)
    raw = [pl.col(truth).alias(_RAW_TRUTH)] if isinstance(truth, str) else []
    df = lf.select(
        *keys, pl.col(item).cast(item_dtype), pl.col(y_score).cast(pl.Float64), _TRUTH, *raw
    ).collect()
    if isinstance(truth, str):
        _check_binary_truth(df, truth, keys, item)
        df = df.drop(_RAW_TRUTH)
    _check_no_nulls(df, [*keys, item, _TRUTH], FIT)
    _check_finite(df, keys, y_score, FIT)
    per_list = df.group_by(keys).agg(
        pl.len().alias("__lp_n"),
        pl.col(item).n_unique().alias("__lp_u"),
        pl.col(_TRUTH).any().alias("__lp_graded"),
    )
    bad_list = per_list.filter(pl.col("__lp_n") != pl.col("__lp_u"))
    if bad_list.height:
        rows = df.join(bad_list.head(1).select(keys), on=keys, how="semi")
        row = rows.filter(pl.col(item).is_duplicated()).row(0, named=True)
        msg = (
            f"{FIT}: each list must hold an item once; the list {_describe(row, keys)} holds "
            f"{item}={row[item]!r} more than once."
        )
        raise ValueError(msg)
    graded_lists = per_list.filter(pl.col("__lp_graded")).select(keys)
    n_lists = graded_lists.height
    graded_rows = df if n_lists == per_list.height else df.join(graded_lists, on=keys, how="semi")
    item_id, catalogue = item_ids(df[item])
    per_item = (
        pl.DataFrame({item: catalogue})
        .join(
            graded_rows.group_by(item).agg(
                pl.col(_TRUTH).sum().cast(pl.Int64).alias("n_positive"),
                pl.len().cast(pl.Int64).alias("n_candidate"),
            ),
            on=item,
            how="left",
        )
        .sort(item)
        .fill_null(0)
    )
    n_lists_all = per_list.height
    levels = np.linspace(0.0, 1.0, int(n_quantiles) + 1)
    quants = _quantiles(item_id, df[y_score].to_numpy(), catalogue.len(), levels)
    n_pos = per_item["n_positive"].to_numpy()
    n_cand = per_item["n_candidate"].to_numpy()
    rate = np.divide(n_pos, n_cand, out=np.zeros(n_pos.size), where=n_cand > 0)
    table = pl.DataFrame(
        {
            "item": catalogue,
            "n_positive": per_item["n_positive"],
            "n_candidate": per_item["n_candidate"],
            "base_rate": rate,
            "quantiles": pl.Series(quants.tolist(), dtype=pl.List(pl.Float64)),
        },
        schema=_table_schema(item_dtype),
    )
    return ComparabilityState(
        table,
        quantile_levels=levels.tolist(),
        item_column=item,
        n_lists=n_lists,
        n_dropped=n_lists_all - n_lists,
    )


# ---------------------------------------------------------------------------
# transform


def _resolve_alpha(objective: object, alpha: object) -> tuple[float, bool]:
    """The alpha to rank at, and whether it was given explicitly (raw, not a preset)."""
    if isinstance(objective, str):
        if objective not in OBJECTIVE_ALPHA:
            msg = (
                f"{TRANSFORM}: unknown objective {objective!r}; use one of "
                f"{', '.join(map(repr, OBJECTIVE_ALPHA))} or a raw alpha in [0, 1]."
            )
            raise InvalidParameterError(msg)
        preset, explicit = OBJECTIVE_ALPHA[objective], False
    elif isinstance(objective, numbers.Real) and not isinstance(objective, bool):
        preset, explicit = float(objective), True
    else:
        msg = (
            f"{TRANSFORM}: 'objective' must be one of {', '.join(map(repr, OBJECTIVE_ALPHA))} "
            f"or a raw alpha (a float in [0, 1]); got {objective!r}."
        )
        raise InvalidParameterError(msg)
    if alpha is not None:
        if not isinstance(alpha, numbers.Real) or isinstance(alpha, bool):
            msg = (
                f"{TRANSFORM}: 'popularity_discount' must be a float in [0, 1] or None; "
                f"got {alpha!r}."
            )
            raise InvalidParameterError(msg)
        preset, explicit = float(alpha), True
    if not (0.0 <= preset <= 1.0):  # also refuses nan
        msg = (
            f"{TRANSFORM}: the popularity discount (popularity_discount) must be in [0, 1] "
            f"(0 keeps the scores, 1 divides by the full base rate); got {preset!r}."
        )
        raise InvalidParameterError(msg)
    return preset, explicit


def _count_at_most(
    quants: FloatArray, item_id: IntArray, values: FloatArray, *, strict: bool
) -> IntArray:
    """Per row, how many of its item's quantiles are < (strict) or <= its value.

    Binary lifting over the quantile rows padded with +inf to a power of two: one gather and
    one comparison per bit, a loop over bits (7 for 101 levels), never over rows.
    """
    width = quants.shape[1]
    padded_width = 1 << max(width - 1, 1).bit_length()
    padded = np.full((quants.shape[0], padded_width), np.inf)
    padded[:, :width] = quants
    flat = padded.ravel()
    pos = item_id * padded_width  # the row's offset; pos - offset is the count so far
    offset = pos.copy()
    step = padded_width // 2
    while step >= 1:
        v = flat.take(pos + (step - 1))
        hit = (v < values) if strict else (v <= values)
        pos += hit * step
        step //= 2
    # the last slot of a padded row is +inf, so the count never exceeds padded_width - 1;
    # one more look decides whether the count is padded_width - 1 or less
    v = flat.take(pos)
    pos += (v < values) if strict else (v <= values)
    counts: IntArray = np.minimum(pos - offset, width)
    return counts


def rank_percentile(
    quants: FloatArray, levels: FloatArray, item_id: IntArray, values: FloatArray
) -> FloatArray:
    """The mid-CDF of each value within its item's quantiles, in [0, 1].

    Between two stored quantiles the level is interpolated linearly; a value equal to one or more
    stored quantiles takes the middle of their levels; below the first 0, above the last 1.
    """
    left = _count_at_most(quants, item_id, values, strict=True)
    right = _count_at_most(quants, item_id, values, strict=False)
    width = quants.shape[1]
    on = right > left
    mid_level = (levels[np.minimum(left, width - 1)] + levels[np.maximum(right - 1, 0)]) / 2.0
    j = np.clip(left - 1, 0, width - 1)
    j1 = np.clip(left, 0, width - 1)
    a, b = quants[item_id, j], quants[item_id, j1]
    gap = np.where(b > a, b - a, 1.0)
    between = levels[j] + (values - a) / gap * (levels[j1] - levels[j])
    out = np.where(left == 0, 0.0, np.where(left >= width, 1.0, between))
    return np.where(on, mid_level, out)


def _no_state(a: float, *, shrinkage: bool, percentile: bool, caller: str) -> ValueError:
    """The sentence of a transform other than the identity called without a state."""
    needs = (
        "percentile ranking (the item's score quantiles)"
        if percentile
        else "shrinkage (the items' base rates)"
        if shrinkage
        else f"the popularity discount {a!r} (the items' base rates)"
    )
    msg = (
        f"{caller}: {needs} needs a ComparabilityState from lp.fit_comparability, fitted "
        "once on training or holdout data; got state=None. Scores are never used to fit "
        "their own state (one list's ranking would depend on the rest of the batch); only "
        "the identity (popularity_discount 0, no shrinkage, no percentile) runs without a "
        "state."
    )
    return ValueError(msg)


def _catalogue_ids(
    df: pl.DataFrame,
    schema: Mapping[str, Any],
    item: str,
    item_dtype: Any,
    state: ComparabilityState,
    caller: str,
) -> IntArray:
    """Each row's item as its row in the state's catalogue; another catalogue's items refused."""
    catalogue = state.catalogue
    if item_dtype != catalogue.dtype and not (
        item_dtype in _INT_DTYPES.values() and catalogue.dtype in _INT_DTYPES.values()
    ):
        msg = (
            f"{caller}: the state was fitted on a catalogue of {catalogue.dtype} items; the "
            f"item column {item!r} holds {schema[item]}: a state from another catalogue."
        )
        raise ValueError(msg)
    items = df[item].cast(catalogue.dtype, strict=False)
    ids = items.replace_strict(
        catalogue, pl.Series(np.arange(catalogue.len())), default=None, return_dtype=pl.Int64
    )
    unknown = items.filter(ids.is_null()).unique(maintain_order=True)
    if ids.null_count():
        shown = ", ".join(repr(v) for v in unknown.head(5).to_list())
        msg = (
            f"{caller}: the state's catalogue ({catalogue.len()} items) lacks {unknown.len()} "
            f"item(s) of scores, e.g. {shown}: a state from another catalogue is refused; fit "
            "one with lp.fit_comparability on this catalogue."
        )
        raise ValueError(msg)
    return ids.to_numpy()


@renamed(score="y_score", alpha="popularity_discount")
def transform_for_objective(
    scores: FrameT,
    objective: Objective | float,
    state: ComparabilityState | None,
    *,
    by: str | pl.Expr | Sequence[str | pl.Expr],
    item: str | pl.Expr,
    y_score: str | pl.Expr,
    popularity_discount: float | None = None,
    shrinkage: bool = False,
    shrinkage_strength: float | None = None,
    percentile: bool = False,
) -> FrameT:
    """Re-express the scores for an objective, with a fitted :class:`ComparabilityState`.

    In this order, for a row of item ``i`` with score ``s``, ``n_i`` positives and base rate
    ``b_i`` in the state:

    1. shrinkage (when switched on): ``s <- (n_i * s + m * b_i) / (n_i + m)``, empirical-Bayes
       shrinkage toward the base rate with strength (pseudo-count) ``m``;
    2. the popularity discount: ``s <- s / b~_i ** alpha`` with ``b~_i = max(n_i, 1) /
       n_candidate_i`` (an item never positive counts as one positive), ``alpha`` from the
       objective (``accuracy`` 0, ``balanced`` 0.5, ``coverage`` 1) or given raw;
    3. or, instead of both, the rank percentile: ``s <-`` the mid-CDF of ``s`` within the item's
       stored score quantiles, in [0, 1] (scale- and base-rate-invariant; no discount applies).

    Parameters
    ----------
    scores : polars.DataFrame, polars.LazyFrame or Arrow data
        One row per (list, item) with the model's score; other columns pass through.  A role
        given as an expression is computed into the column of its output name first.
    objective : {'accuracy', 'balanced', 'coverage'} or float
        A named objective (its preset alpha) or a raw alpha in [0, 1].
    state : ComparabilityState or None
        From :func:`fit_comparability`.  Only the identity (alpha 0, no shrinkage, no
        percentile) runs without one; otherwise ``None`` raises.
    by : str, polars.Expr or sequence of them
        The list column(s), used to name an offending list in errors.
    item : str or polars.Expr
        The item column; every item must be in the state's catalogue.
    y_score : str or polars.Expr
        The score column, replaced by the re-expressed Float64 score (called ``score``
        before 0.2.0; the old name warns until 0.3.0).
    popularity_discount : float, optional
        A raw popularity discount (the exponent alpha) in [0, 1], overriding the objective's
        preset (called ``alpha`` before 0.2.0; ``alpha`` now means only a significance
        level across the library).
    shrinkage : bool, default False
        Shrink each score toward its item's base rate (needs scores in [0, 1]).
    shrinkage_strength : float, optional
        The pseudo-count ``m`` (> 0); setting it switches shrinkage on; ``shrinkage=True``
        without it uses 50.
    percentile : bool, default False
        Rank by the percentile within the item's score distribution.  Refused together with
        shrinkage (a per-item monotone map cannot change a correctly referenced percentile, and
        the raw quantiles would mis-reference the shrunk score) and with a non-zero alpha.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        ``scores`` (same type, rows and columns, in order) with ``y_score`` re-expressed.  A
        LazyFrame is collected to check the catalogue and given back lazy.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> log = pl.DataFrame({
    ...     "user": [1, 1, 2, 2, 3, 3, 4, 4],
    ...     "item": ["a", "b"] * 4,
    ...     "score": [0.9, 0.2, 0.6, 0.3, 0.8, 0.1, 0.4, 0.5],
    ...     "clicked": [True, False, True, False, False, True, False, False],
    ... })
    >>> state = lp.fit_comparability(log, by="user", item="item", y_score="score", y_true="clicked")
    >>> new = pl.DataFrame({"user": [9, 9], "item": ["a", "b"], "score": [0.4, 0.3]})
    >>> out = lp.transform_for_objective(
    ...     new, "coverage", state, by="user", item="item", y_score="score"
    ... )
    >>> out["score"].to_list()  # 0.4 / (2/3) and 0.3 / (1/3): b now leads
    [0.6000000000000001, 0.9]
    """
    caller = TRANSFORM
    a, explicit = _resolve_alpha(objective, popularity_discount)
    shrinkage, strength = resolve_shrinkage(shrinkage, shrinkage_strength, caller)
    percentile = check_bool(percentile, "percentile", caller)
    state = check_state(state, caller)
    check_exclusive(shrinkage=shrinkage, percentile=percentile, caller=caller)
    if percentile and explicit and a != 0.0:
        msg = (
            f"{caller}: percentile ranking is base-rate invariant and takes no popularity "
            f"discount; got popularity_discount={a!r} with percentile=True (pass "
            "popularity_discount=None or 0)."
        )
        raise ValueError(msg)
    if percentile:
        a = 0.0
    keys: list[str]
    source, keys, item, y_score, _ = _roles(scores, by, item, y_score, caller)
    lazy = isinstance(source, pl.LazyFrame)
    schema = source.lazy().collect_schema()
    _check_columns(schema, [*keys, item, y_score], caller)
    _check_score_dtype(schema, y_score, caller)
    if a == 0.0 and not shrinkage and not percentile:
        # the identity
        return source.with_columns(pl.col(y_score).cast(pl.Float64))  # type: ignore[return-value]
    if state is None:
        raise _no_state(a, shrinkage=shrinkage, percentile=percentile, caller=caller)
    if percentile and not state.quantile_levels:
        msg = (
            f"{caller}: percentile ranking reads the items' score quantiles, and this state "
            "holds none (it was fitted for the popularity discount and shrinkage only); "
            "fit it with lp.fit_comparability."
        )
        raise ValueError(msg)
    item_dtype = _check_item_dtype(schema, item, caller)
    df = source.lazy().collect() if lazy else source
    assert isinstance(df, pl.DataFrame)
    _check_no_nulls(df, [item], caller)
    _check_finite(df, keys, y_score, caller)
    item_id = _catalogue_ids(df, schema, item, item_dtype, state, caller)
    s = df[y_score].cast(pl.Float64).to_numpy().copy()
    table = state.table
    n_pos = table["n_positive"].to_numpy().astype(np.float64)
    if shrinkage:
        bad = (s < 0.0) | (s > 1.0)
        if bad.any():
            row = df.filter(pl.Series(bad)).row(0, named=True)
            msg = (
                f"{caller}: shrinkage pulls a probability toward the item's base rate and needs "
                f"scores in [0, 1]; the list {_describe(row, keys)} has {item}={row[item]!r} "
                f"with {y_score}={row[y_score]!r}."
            )
            raise ValueError(msg)
        rate = table["base_rate"].to_numpy()
        s = (n_pos[item_id] * s + strength * rate[item_id]) / (n_pos[item_id] + strength)
    if a > 0.0:
        bad = s < 0.0
        if bad.any():
            row = df.filter(pl.Series(bad)).row(0, named=True)
            msg = (
                f"{caller}: the popularity discount divides a score by base_rate ** "
                f"popularity_discount and needs scores >= 0; the list {_describe(row, keys)} "
                f"has {item}={row[item]!r} with {y_score}={row[y_score]!r}."
            )
            raise ValueError(msg)
        n_cand = table["n_candidate"].to_numpy().astype(np.float64)
        smoothed = np.maximum(n_pos, 1.0) / np.maximum(n_cand, 1.0)
        s = s / smoothed[item_id] ** a
    if percentile:
        quants = np.asarray(table["quantiles"].to_list(), dtype=np.float64)
        levels = np.asarray(state.quantile_levels, dtype=np.float64)
        s = rank_percentile(quants, levels, item_id, s)
    out = df.with_columns(pl.Series(y_score, s, dtype=pl.Float64))
    return out.lazy() if lazy else out  # type: ignore[return-value]
