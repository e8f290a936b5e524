r"""Off-policy estimates of a new policy's reward from a log the previous policy collected.

Seed 003, section 2: held-out positives "were collected by the previous policy: whatever the
system never showed is not counted as relevant by construction", so a new ranking's recall on
them comes out inflated toward the old policy. With the logging policy's propensities the log
can be reweighted instead: each logged row ``i`` (a context ``x_i``, the action ``a_i`` shown,
at position ``p_i`` where the log has positions, and its reward ``r_i``) has the importance
weight

.. math::

    w_i = \frac{\pi_e(a_i \mid x_i, p_i)}{\pi_b(a_i \mid x_i, p_i)}

of the new (evaluation) policy :math:`\pi_e` over the logging (behaviour) policy
:math:`\pi_b`, clipped to :math:`\min(w_i, \lambda)` by ``clip=``:math:`\lambda`. Over the
rows of one position (all rows without positions), with :math:`n` rows,
:math:`\hat q_i = \hat q(x_i, a_i, p_i)` a reward model's prediction for the logged action
and :math:`\hat v_i = \sum_a \pi_e(a \mid x_i, p_i)\, \hat q(x_i, a, p_i)` its value under
the new policy:

- ``ips``: :math:`\frac{1}{n}\sum_i w_i r_i`;
- ``snips``: :math:`\sum_i w_i r_i / \sum_i w_i`;
- ``dm``: :math:`\frac{1}{n}\sum_i \hat v_i`;
- ``dr``: :math:`\frac{1}{n}\sum_i \bigl(\hat v_i + w_i (r_i - \hat q_i)\bigr)`;
- ``sndr``: :math:`\frac{1}{n}\sum_i \hat v_i + \sum_i w_i (r_i - \hat q_i) / \sum_i w_i`.

These are Open Bandit Pipeline 0.5.7's ``InverseProbabilityWeighting`` (``lambda_`` its
clip), ``SelfNormalizedInverseProbabilityWeighting``, ``DirectMethod``, ``DoublyRobust``
and ``SelfNormalizedDoublyRobust`` given ``action_dist[i, a_i, p_i]`` and the reward
model's array; obp clips only IPS and DR, here ``clip`` clips the weights of every weighted
estimator (the unclipped rows are always there too).

Per position, the positions are treated independently (the independent-item, or
position-based, assumption: the reward at a position depends on the context and the item
there, not on the rest of the slate), and the slate's total is the sum of the positions'
estimates: obp's ``SlateIndependentIPS`` when each slate has each position once.

Intervals: the percentile bootstrap of the package's report
(:func:`lodestar_polars._report.ranking_report.bootstrap_means`, the resamples of
``scipy.stats.bootstrap``), resampling the ``by`` groups (slates, sessions, users) whole, or
the rows without ``by``; each resample recomputes every ratio (a self-normalised estimate is
renormalised within the resample, where obp bootstraps its rows' normalised terms).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import polars as pl

from lodestar_polars._base.validation import (
    check_column,
    check_columns,
    check_frame,
    check_int,
    check_open_interval,
    give_back,
    names_of,
    select_roles,
)
from lodestar_polars._report.ranking_report import _interval, bootstrap_means
from lodestar_polars.exceptions import InvalidParameterError

FloatArray = npt.NDArray[np.float64]

ESTIMATORS = ("ips", "snips", "dm", "dr", "sndr")
"""The estimators, in the order the result lists them."""
_NEEDS_MODEL = frozenset({"dm", "dr", "sndr"})
_WEIGHTED = frozenset({"ips", "snips", "dr", "sndr"})
CALLER = "off_policy"


def _clips(value: object) -> list[float | None]:
    items = (
        []
        if value is None
        else [value]
        if isinstance(value, numbers.Real)
        else list(value)
        if isinstance(value, Sequence) and not isinstance(value, str)
        else [object()]
    )
    ok = all(
        isinstance(v, numbers.Real)
        and not isinstance(v, (bool, np.bool_))
        and math.isfinite(float(v))
        and float(v) > 0
        for v in items
    )
    if not ok or (value is not None and not items):
        msg = (
            f"The 'clip' parameter of {CALLER} must be a finite real number > 0, a non-empty "
            f"sequence of them, or None. Got {value!r} instead."
        )
        raise InvalidParameterError(msg)
    return [None, *sorted({float(v) for v in items})]  # type: ignore[arg-type]


def _estimators(value: object, *, has_model: bool) -> list[str]:
    if value is None:
        return [e for e in ESTIMATORS if has_model or e not in _NEEDS_MODEL]
    items = (
        [value] if isinstance(value, str) else list(value) if isinstance(value, Sequence) else []
    )
    if not items or any(not isinstance(e, str) or e not in ESTIMATORS for e in items):
        msg = (
            f"The 'estimators' parameter of {CALLER} must be a non-empty sequence of "
            f"{list(ESTIMATORS)}, or None (every one the columns allow). Got {value!r} instead."
        )
        raise InvalidParameterError(msg)
    needs = sorted(set(items) & _NEEDS_MODEL)
    if needs and not has_model:
        msg = (
            f"The 'estimators' parameter of {CALLER} asks for {needs}, which need a reward "
            "model: give reward_model= (its prediction for the logged action) and "
            "reward_model_target= (its value under the new policy)."
        )
        raise InvalidParameterError(msg)
    return [e for e in ESTIMATORS if e in items]


def _refuse_rows(df: pl.DataFrame, rule: pl.Expr, column: str, what: str) -> None:
    bad = df.filter(rule.fill_null(True))
    if bad.height:
        msg = (
            f"{CALLER}: the {column!r} column must hold {what}; {bad.height} row(s) do not, "
            f"e.g. {bad.head(1).to_dicts()[0]}."
        )
        raise ValueError(msg)


def off_policy(
    frame: Any,
    *,
    y_true: Any,
    propensity: Any,
    target: Any,
    reward_model: Any = None,
    reward_model_target: Any = None,
    position: Any = None,
    by: Any = None,
    clip: float | Sequence[float] | None = None,
    estimators: Sequence[str] | None = None,
    n_resamples: int | None = 1000,
    confidence_level: float = 0.95,
    seed: int = 0,
) -> Any:
    r"""A new policy's expected reward estimated from a log: IPS, SNIPS, DM, DR and SNDR.

    Parameters
    ----------
    frame : DataFrame or LazyFrame
        The log, one row per logged action (per (slate, position) where there are positions).
    y_true : str or Expr
        The reward observed (a click: 0 / 1, or any finite number).
    propensity : str or Expr
        The logging policy's probability of the logged action, :math:`\pi_b(a_i|x_i,p_i)`,
        in (0, 1].
    target : str or Expr
        The new policy's probability of that same action (at that position),
        :math:`\pi_e(a_i|x_i,p_i)`, in [0, 1]: for a deterministic new ranking, 1 where it
        puts the logged item at the logged position and 0 elsewhere.
    reward_model, reward_model_target : str or Expr, optional
        Together: a reward model's prediction for the logged action,
        :math:`\hat q(x_i,a_i,p_i)`, and its value under the new policy,
        :math:`\sum_a \pi_e(a|x_i,p_i)\,\hat q(x_i,a,p_i)`. They enable ``dm``, ``dr`` and
        ``sndr``.
    position : str or Expr, optional
        The position of the logged action: one estimate per position, and their sum (the
        slate's, under the independent-item assumption), in a row whose position is null.
    by : str or Expr or sequence, optional
        The bootstrap's unit, resampled whole (a slate, a session, a user); None: the row.
    clip : float or sequence of float, optional
        Clip the importance weights at each value: :math:`\min(w_i, \lambda)`, rows for
        each value next to the unclipped rows (``clip`` null).
    estimators : sequence of str, optional
        Among ``"ips"``, ``"snips"``, ``"dm"``, ``"dr"``, ``"sndr"``; None: every one the
        columns allow (the last three with a reward model).
    n_resamples : int or None, default=1000
        The bootstrap's resamples; None: no interval (``ci_low``, ``ci_high`` null).
    confidence_level : float, default=0.95
        The percentile interval's level.
    seed : int, default=0
        The resamples' seed (``numpy.random.default_rng(seed)``, as scipy's bootstrap).

    Returns
    -------
    DataFrame or LazyFrame
        One row per (position, estimator, clip): the ``position`` (with ``position=``),
        ``estimator``, ``clip`` (null: not clipped), ``estimate``, ``ci_low``, ``ci_high``,
        ``n_rows``, and ``ess``, the weights' effective sample size
        :math:`(\sum_i w_i)^2 / \sum_i w_i^2` (null for ``dm``, and for a sum over
        positions). An estimate whose denominator is 0 (``snips`` where every weight is 0)
        is null, and so is an interval where a resample has a zero denominator. A
        LazyFrame in gives a LazyFrame out.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> log = pl.DataFrame(
    ...     {
    ...         "click": [1, 0, 1, 0],
    ...         "p_log": [0.5, 0.5, 0.25, 0.8],
    ...         "p_new": [1.0, 0.0, 0.5, 0.2],
    ...     }
    ... )
    >>> lp.off_policy(
    ...     log, y_true="click", propensity="p_log", target="p_new", clip=1.5, n_resamples=None
    ... ).select("estimator", "clip", "estimate", "ess")
    shape: (4, 4)
    ┌───────────┬──────┬──────────┬──────────┐
    │ estimator ┆ clip ┆ estimate ┆ ess      │
    │ ---       ┆ ---  ┆ ---      ┆ ---      │
    │ str       ┆ f64  ┆ f64      ┆ f64      │
    ╞═══════════╪══════╪══════════╪══════════╡
    │ ips       ┆ null ┆ 1.0      ┆ 2.24031  │
    │ ips       ┆ 1.5  ┆ 0.75     ┆ 2.315068 │
    │ snips     ┆ null ┆ 0.941176 ┆ 2.24031  │
    │ snips     ┆ 1.5  ┆ 0.923077 ┆ 2.315068 │
    └───────────┴──────┴──────────┴──────────┘
    """
    lazy, was_lazy = check_frame(frame, "frame", CALLER)
    roles: dict[str, list[pl.Expr]] = {}
    for name, value in (("y_true", y_true), ("propensity", propensity), ("target", target)):
        roles[name] = [cast("pl.Expr", check_column(value, name, CALLER))]
    for name, value in (
        ("reward_model", reward_model),
        ("reward_model_target", reward_model_target),
        ("position", position),
    ):
        expr = check_column(value, name, CALLER, allow_none=True)
        if expr is not None:
            roles[name] = [expr]
    if ("reward_model" in roles) != ("reward_model_target" in roles):
        msg = (
            f"{CALLER} takes a reward model as two columns, reward_model= and "
            f"reward_model_target=: give both or neither. Got reward_model={reward_model!r}, "
            f"reward_model_target={reward_model_target!r}."
        )
        raise InvalidParameterError(msg)
    if by is not None:
        roles["by"] = check_columns(by, "by", CALLER)
    clips = _clips(clip)
    chosen = _estimators(estimators, has_model="reward_model" in roles)
    resamples = check_int(n_resamples, "n_resamples", CALLER, allow_none=True)
    level = check_open_interval(confidence_level, "confidence_level", CALLER, 0.0, 1.0)
    seed_ = cast("int", check_int(seed, "seed", CALLER, allow_none=False, low=0))
    select_roles(lazy, roles, "the frame", CALLER)

    aliased = [
        roles[r][0].alias(f"__lp_{r}__")
        for r in ("y_true", "propensity", "target", "reward_model", "reward_model_target")
        if r in roles
    ]
    keys = roles.get("by", [])
    pos_expr = roles["position"][0] if "position" in roles else None
    df = lazy.select(
        *aliased,
        *([pos_expr.alias("__lp_position__")] if pos_expr is not None else []),
        *keys,
    ).collect()
    numeric = [a.meta.output_name() for a in aliased]
    for col in numeric:
        if not df[col].dtype.is_numeric() and df[col].dtype != pl.Boolean:
            msg = (
                f"{CALLER}: the {col[5:-2]!r} column must be numeric; its type is {df[col].dtype}."
            )
            raise ValueError(msg)
    df = df.with_columns(pl.col(numeric).cast(pl.Float64))
    if df.height == 0:
        msg = f"{CALLER}: the log has no rows."
        raise ValueError(msg)
    finite = pl.col("__lp_y_true__").is_finite().not_()
    _refuse_rows(df, finite, "y_true", "a finite reward")
    p = pl.col("__lp_propensity__")
    _refuse_rows(df, ~((p > 0) & (p <= 1)), "propensity", "probabilities in (0, 1]")
    t = pl.col("__lp_target__")
    _refuse_rows(df, ~((t >= 0) & (t <= 1)), "target", "probabilities in [0, 1]")
    for r in ("reward_model", "reward_model_target"):
        if r in roles:
            _refuse_rows(df, pl.col(f"__lp_{r}__").is_finite().not_(), r, "finite numbers")
    if pos_expr is not None:
        _refuse_rows(df, pl.col("__lp_position__").is_null(), "position", "no null")

    def floats(name: str) -> FloatArray:
        return np.asarray(df[name].to_numpy(), dtype=np.float64)

    r_ = floats("__lp_y_true__")
    w_raw = floats("__lp_target__") / floats("__lp_propensity__")
    q = floats("__lp_reward_model__") if "reward_model" in roles else None
    v = floats("__lp_reward_model_target__") if "reward_model" in roles else None
    if pos_expr is not None:
        positions = df["__lp_position__"].unique().sort()
        pos_index = (
            df.select(pl.col("__lp_position__").rank("dense").cast(pl.Int64) - 1)
            .to_series()
            .to_numpy()
        )
        n_pos = positions.len()
    else:
        positions = None
        pos_index = np.zeros(df.height, dtype=np.int64)
        n_pos = 1
    if keys:
        unit = (
            df.select(pl.struct(names_of(keys)).rank("dense").cast(pl.Int64) - 1)
            .to_series()
            .to_numpy()
        )
    else:
        unit = np.arange(df.height, dtype=np.int64)
    n_units = int(unit.max()) + 1

    # the row vectors summed: one column per (kind, clip, position); a term is num / den
    vectors: dict[tuple[Any, ...], FloatArray] = {}
    ones = np.ones(df.height)

    def vec(kind: str, lam: float | None) -> FloatArray:
        w = w_raw if lam is None else np.minimum(w_raw, lam)
        if kind == "one":
            return ones
        if kind == "w":
            return w
        if kind == "w2":
            return w * w
        if kind == "wr":
            return w * r_
        assert q is not None
        assert v is not None
        if kind == "v":
            return v
        return w * (r_ - q)  # "wres"

    def column_of(kind: str, lam: float | None, pos: int) -> int:
        key = (kind, None if kind in ("one", "v") else lam, pos)
        if key not in vectors:
            vectors[key] = np.where(pos_index == pos, vec(kind, lam), 0.0)
        return list(vectors).index(key)

    terms_of = {
        "ips": [("wr", "one")],
        "snips": [("wr", "w")],
        "dm": [("v", "one")],
        "dr": [("v", "one"), ("wres", "one")],
        "sndr": [("v", "one"), ("wres", "w")],
    }
    rows: list[dict[str, Any]] = []
    specs: list[list[tuple[int, int]]] = []
    ess_of: list[tuple[int, int] | None] = []
    for pos in range(n_pos):
        for est in chosen:
            for lam in clips if est in _WEIGHTED else [None]:
                specs.append(
                    [(column_of(a, lam, pos), column_of(b, lam, pos)) for a, b in terms_of[est]]
                )
                ess_of.append(
                    (column_of("w", lam, pos), column_of("w2", lam, pos))
                    if est in _WEIGHTED
                    else None
                )
                rows.append(
                    {
                        "position": None if positions is None else positions[pos],
                        "estimator": est,
                        "clip": lam,
                        "n_rows": int(np.count_nonzero(pos_index == pos)),
                    }
                )
    if positions is not None and n_pos > 1:  # the slate: the sum over positions
        per = len(specs) // n_pos
        for j in range(per):
            specs.append([term for pos in range(n_pos) for term in specs[pos * per + j]])
            ess_of.append(None)
            rows.append({**rows[j], "position": None, "n_rows": df.height})
    matrix = np.stack(list(vectors.values()), axis=1)
    totals = matrix.sum(axis=0)

    def estimate(sums: FloatArray, spec: list[tuple[int, int]]) -> FloatArray:
        with np.errstate(divide="ignore", invalid="ignore"):
            parts = [sums[..., a] / sums[..., b] for a, b in spec]
        return np.asarray(np.sum(parts, axis=0), dtype=np.float64)

    value = [float(estimate(totals, s)) for s in specs]
    ess = [
        None if e is None or totals[e[1]] == 0 else float(totals[e[0]] ** 2 / totals[e[1]])
        for e in ess_of
    ]
    low: list[float | None] = [None] * len(specs)
    high: list[float | None] = [None] * len(specs)
    if resamples is not None and n_units >= 2:
        sums = np.asarray(
            np.stack(
                [
                    np.bincount(unit, weights=matrix[:, j], minlength=n_units)
                    for j in range(matrix.shape[1])
                ],
                axis=1,
            ),
            dtype=np.float64,
        )
        dist = bootstrap_means(sums, np.ones(n_units), resamples, seed_)
        for j, spec in enumerate(specs):
            d = estimate(dist, spec)
            if np.all(np.isfinite(d)):
                lo, hi = _interval(d, level)
                low[j], high[j] = float(lo), float(hi)
    out = pl.DataFrame(
        {
            **(
                {"position": pl.Series([r["position"] for r in rows], dtype=positions.dtype)}
                if positions is not None
                else {}
            ),
            "estimator": [r["estimator"] for r in rows],
            "clip": pl.Series([r["clip"] for r in rows], dtype=pl.Float64),
            "estimate": pl.Series(
                [x if math.isfinite(x) else None for x in value], dtype=pl.Float64
            ),
            "ci_low": pl.Series(low, dtype=pl.Float64),
            "ci_high": pl.Series(high, dtype=pl.Float64),
            "n_rows": pl.Series([r["n_rows"] for r in rows], dtype=pl.Int64),
            "ess": pl.Series(ess, dtype=pl.Float64),
        }
    )
    return give_back(out.lazy(), lazy=was_lazy)


__all__ = ["ESTIMATORS", "off_policy"]
