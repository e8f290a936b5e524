"""Model A against model B in one report (issue 21): ``y_score_b=``, the paired bootstrap of B − A.

Model B's scores rank the same candidates, graded against the same truths, through the primary
objective's block (its transform, with ``state=`` when given, else a state fitted on B's own
scores). Every family is computed for B; each difference is B − A. The micro differences carry a
paired cluster percentile bootstrap interval: A's and B's per-unit sums are resampled by the same
draws (:func:`lodestar_polars._report.ranking_report.bootstrap_means`, the kernel of
:mod:`lodestar_polars._core.bootstrap`, with the report's seed: the draws of its ``uncertainty``
block, drawn once for both by
:func:`~lodestar_polars._report.ranking_report.uncertainty.uncertainty_and_paired`), so the
interval carries only the noise in the difference. The verdict reads each metric's
direction from the registry: ``b_ahead`` when the interval lies on B's better side of 0,
``a_ahead`` on A's, ``undecided`` otherwise. The macro and value differences are point values
(no interval, seed 004's rule), their verdict null.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import polars as pl

from lodestar_polars._registry import report_metric
from lodestar_polars._report.serving import check_score_dtype

if TYPE_CHECKING:
    from lodestar_polars._report.ranking_report import Block

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

CALLER = "ranking_report"
_ROWNO = "__lp_b_row"
VERDICTS = ("a_ahead", "b_ahead", "undecided")


def check_score_b(
    lazy: pl.LazyFrame, score_b: str, keys: list[str], item: str, row: str | None = None
) -> None:
    """Refuse a ``y_score_b`` column as ``y_score`` is refused: its dtype, a null, a non-finite."""
    check_score_dtype(lazy.collect_schema(), score_b, CALLER)
    col = pl.col(score_b)
    numbered = (
        lazy.select(*keys, item, score_b).with_row_index(_ROWNO)
        if row is None
        else lazy.select(*keys, item, score_b, pl.col(row).alias(_ROWNO)).sort(_ROWNO)
    )
    wrong = col.is_null() | ~col.cast(pl.Float64).is_finite()
    bad = numbered.filter(wrong).head(1).collect(engine="streaming")
    if bad.height:
        first = bad.row(0, named=True)
        where = first[keys[0]] if len(keys) == 1 else {k: first[k] for k in keys}
        msg = (
            f"{CALLER}: y_score_b (model B's scores) must be finite and not null; list "
            f"{where!r} has {score_b}={first[score_b]!r} for item {first[item]!r} (row "
            f"{first[_ROWNO]})."
        )
        raise ValueError(msg)


def verdict(metric: str, lo: float, hi: float) -> str:
    """``b_ahead`` / ``a_ahead`` / ``undecided`` for the interval of B − A, in the metric's way."""
    spec = report_metric(metric)
    higher = spec is None or spec.higher_is_better
    if lo > 0.0:
        return "b_ahead" if higher else "a_ahead"
    if hi < 0.0:
        return "a_ahead" if higher else "b_ahead"
    return "undecided"


def _point(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, av in a.items():
        bv = b.get(name)
        estimate = None if av is None or bv is None else float(bv) - float(av)
        out[name] = {"estimate": estimate, "ci_low": None, "ci_high": None, "verdict": None}
    return out


def paired_sums(unit: IntArray, n_units: int, a: Block, b: Block) -> FloatArray:
    """Per unit (U, S): the sums of B − A per graded list, one column per micro metric of A.

    A resample's mean of them is B's mean minus A's on the same draws (exactly 0 when B is
    A, where two matrix products could differ in the last bit).
    """
    from lodestar_polars._report.ranking_report import weighted_count

    stats = [b.per_list[m] - a.per_list[m] for m in a.per_list]
    return np.stack([weighted_count(unit, weights=s, minlength=n_units) for s in stats], 1)


def versus_block(
    unit_of: IntArray | None,
    n_graded: int,
    a: Block,
    b: Block,
    *,
    a_value: Mapping[str, Any] | None,
    b_value: Mapping[str, Any] | None,
    score_b: str,
    objective: str,
    kk: int,
    n_resamples: int,
    confidence_level: float,
    seed: int,
    dist: FloatArray | None = None,
) -> dict[str, Any]:
    """The payload's ``versus``: model B's families and every difference B − A.

    ``dist``: the resampled means of :func:`paired_sums`, drawn with the report's uncertainty
    (:func:`~lodestar_polars._report.ranking_report.uncertainty.uncertainty_and_paired`); else
    drawn here, on the same seed (the same draws).
    """
    from lodestar_polars._report.ranking_report import (
        _interval,
        bootstrap_means,
        weighted_count,
    )

    unit = unit_of if unit_of is not None else np.arange(n_graded, dtype=np.int64)
    n_units = int(unit.max()) + 1 if unit.size else 0
    names = list(a.per_list)
    micro: dict[str, Any] = {}
    if n_units >= 2:
        if dist is None:  # not drawn with the report's uncertainty: the same draws again
            counts = weighted_count(unit, minlength=n_units)
            dist = bootstrap_means(paired_sums(unit, n_units, a, b), counts, n_resamples, seed)
        for j, name in enumerate(names):
            lo, hi = _interval(dist[:, j], confidence_level)
            micro[name] = {
                "estimate": b.micro[name] - a.micro[name],
                "ci_low": float(lo),
                "ci_high": float(hi),
                "verdict": verdict(name, float(lo), float(hi)),
            }
    else:  # one unit: no interval, nothing decided
        micro = _point(a.micro, b.micro)
        for entry in micro.values():
            entry["verdict"] = "undecided"
    difference: dict[str, Any] = {"micro": micro, "macro": _point(a.macro, b.macro)}
    model_b: dict[str, Any] = {"micro": dict(b.micro), "macro": dict(b.macro)}
    if a_value is not None and b_value is not None:
        difference["value"] = _point(a_value, b_value)
        model_b["value"] = dict(b_value)
    primary = f"ndcg@{kk}"
    head = micro[primary]
    return {
        "y_score_b": score_b,
        "objective": objective,
        "unit": "entity" if unit_of is not None else "row",
        "n_units": n_units,
        "n_resamples": n_resamples,
        "confidence_level": confidence_level,
        "seed": seed,
        "method": "percentile",
        "model_b": model_b,
        "difference": difference,
        "decision": {
            "metric": primary,
            "a": a.micro[primary],
            "b": b.micro[primary],
            "difference": head["estimate"],
            "ci_low": head["ci_low"],
            "ci_high": head["ci_high"],
            "verdict": head["verdict"],
            "sentence": versus_sentence(primary, a.micro[primary], b.micro[primary], head,
                                        confidence_level, n_units),
        },
    }  # fmt: skip


def versus_sentence(
    metric: str,
    a: float,
    b: float,
    head: Mapping[str, Any],
    confidence_level: float,
    n_units: int,
) -> str:
    """One sentence: B against A on the primary metric, its interval and verdict."""
    text = f"Model B against model A on {metric}: {b:.4f} against {a:.4f} (B − A {b - a:+.4f}"
    if head["ci_low"] is None:
        return text + f"); undecided: {n_units} unit(s), no interval."
    level = f"{100 * confidence_level:g}%"
    words = {"b_ahead": "B ahead", "a_ahead": "A ahead", "undecided": "undecided"}
    return (
        text + f", {level} interval [{head['ci_low']:+.4f}, {head['ci_high']:+.4f}] over "
        f"{n_units} units): {words[head['verdict']]}."
    )
