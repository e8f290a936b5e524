"""The clustered bootstrap of the lift over the floor: intervals and verdicts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from lodestar_polars._core import bootstrap as _bootstrap

if TYPE_CHECKING:
    pass

from lodestar_polars._report.ranking_report.common import (
    BASELINE,
    FloatArray,
    IntArray,
    weighted_count,
)
from lodestar_polars._report.ranking_report.families import Block


def resample_counts(n_units: int, n_resamples: int, seed: int, batch: int) -> Any:
    """Yield (batch, n_units) float arrays of how often each unit is drawn.

    The draws are ``numpy.random.default_rng(seed).integers(0, n_units, (batch, n_units))``
    batch after batch, the stream ``scipy.stats.bootstrap(..., batch=batch)`` uses, so the
    two agree resample for resample (the kernel :mod:`lodestar_polars._core.bootstrap`,
    which ``lp.compare``'s bootstrap shares).
    """
    rng = np.random.default_rng(seed)
    return _bootstrap.resample_counts(n_units, n_resamples, rng, batch)


def bootstrap_batch(n_units: int, n_resamples: int) -> int:
    """Resamples per batch: all at once up to 2**24 draws, fewer on many units."""
    return max(1, min(n_resamples, _bootstrap.block_rows(n_units)))


def bootstrap_means(
    sums: FloatArray, counts: FloatArray, n_resamples: int, seed: int
) -> FloatArray:
    """(n_resamples, n_stats) resampled means: per-unit ``sums`` (U, S) over ``counts`` (U,)."""
    return bootstrap_means_shared([sums], counts, n_resamples, seed)[0]


def bootstrap_means_shared(
    sums: Sequence[FloatArray], counts: FloatArray, n_resamples: int, seed: int
) -> list[FloatArray]:
    """:func:`bootstrap_means` of each of ``sums`` on one set of draws, drawn once.

    Each block of draws becomes one count matrix ``w``, and every ``sums[i]`` gets the same
    products it gets alone (``(w @ sums[i]) / (w @ counts)``): the results are bit for bit
    those of one :func:`bootstrap_means` call per ``sums[i]`` with the same seed.
    """
    n_units = counts.size
    batch = bootstrap_batch(n_units, n_resamples)
    out: list[list[FloatArray]] = [[] for _ in sums]
    for w in resample_counts(n_units, n_resamples, seed, batch):
        size = (w @ counts)[:, None]
        for kept, s in zip(out, sums, strict=True):
            kept.append((w @ s) / size)
    return [np.concatenate(kept, axis=0) for kept in out]


def _interval(dist: FloatArray, confidence_level: float) -> tuple[FloatArray, FloatArray]:
    alpha = (1.0 - confidence_level) / 2.0
    lo = np.quantile(dist, alpha, axis=0, method="linear")
    hi = np.quantile(dist, 1.0 - alpha, axis=0, method="linear")
    return lo, hi


def _verdict(lo: float, hi: float) -> str:
    if lo > 0.0:
        return "model_ahead"
    if hi < 0.0:
        return "baseline_ahead"
    return "undecided"


def _uncertainty(
    unit_of: IntArray | None,
    n_graded: int,
    model: Block,
    floor: Block | None,
    *,
    n_resamples: int,
    confidence_level: float,
    seed: int,
    objective: str,
) -> dict[str, Any] | None:
    return uncertainty_and_paired(
        unit_of, n_graded, model, floor, None, n_resamples=n_resamples,
        confidence_level=confidence_level, seed=seed, objective=objective,
    )[0]  # fmt: skip


def uncertainty_and_paired(
    unit_of: IntArray | None,
    n_graded: int,
    model: Block,
    floor: Block | None,
    block_b: Block | None,
    *,
    n_resamples: int,
    confidence_level: float,
    seed: int,
    objective: str,
) -> tuple[dict[str, Any] | None, FloatArray | None]:
    """The ``uncertainty`` block and, with model B's block, the paired bootstrap of B − A.

    One set of draws serves both (:func:`bootstrap_means_shared`): the second is
    :func:`lodestar_polars._report.versus.paired_sums` resampled, the distribution
    :func:`~lodestar_polars._report.versus.versus_block` reads its intervals from (None with
    fewer than 2 units, where neither draws).
    """
    from lodestar_polars._report.versus import paired_sums

    unit = unit_of if unit_of is not None else np.arange(n_graded, dtype=np.int64)
    n_units = int(unit.max()) + 1
    if n_units < 2:
        return None, None
    names = list(model.per_list)
    stats = [model.per_list[m] for m in names]
    if floor is not None:
        stats += [floor.per_list[m] for m in names]
    sums = np.stack([weighted_count(unit, weights=s, minlength=n_units) for s in stats], axis=1)
    counts = weighted_count(unit, minlength=n_units).astype(np.float64)
    if block_b is None:
        dist, paired = bootstrap_means(sums, counts, n_resamples, seed), None
    else:
        dist, paired = bootstrap_means_shared(
            [sums, paired_sums(unit, n_units, model, block_b)], counts, n_resamples, seed
        )
    m = len(names)

    def summary(estimate: float, d: FloatArray) -> dict[str, Any]:
        lo, hi = _interval(d, confidence_level)
        return {"estimate": estimate, "ci_low": float(lo), "ci_high": float(hi)}

    out: dict[str, Any] = {
        "unit": "entity" if unit_of is not None else "row",
        "n_units": n_units,
        "n_resamples": n_resamples,
        "confidence_level": confidence_level,
        "seed": seed,
        "method": "percentile",
        "objective": objective,
        "model": {name: summary(model.micro[name], dist[:, j]) for j, name in enumerate(names)},
        "baselines": {},
    }
    if floor is not None:
        floor_part = {
            name: summary(floor.micro[name], dist[:, m + j]) for j, name in enumerate(names)
        }
        diff: dict[str, Any] = {}
        for j, name in enumerate(names):
            entry = summary(model.micro[name] - floor.micro[name], dist[:, j] - dist[:, m + j])
            entry["verdict"] = _verdict(entry["ci_low"], entry["ci_high"])
            diff[name] = entry
        out["baselines"][BASELINE] = {"floor": floor_part, "difference": diff}
    return out, paired
