"""ranx's learned fusions, PosFuse and MAPFuse: trained on judged queries, then applied.

``lp.optimize_fusion(qrels, runs, method="posfuse")`` learns, per run, the probability
that the document at each position is relevant (ranx's ``posfuse_train``: over the
queries of ``qrels``, the relevant documents at position ``p`` over the lists that
reach ``p``); ``method="mapfuse"`` learns each run's MAP on ``qrels`` (ranx's
``mapfuse_train``). ``lp.fuse(runs, method=..., probs=...)`` / ``map_scores=...``
then scores each document of a run ``probs[p]`` (0 past the learned positions) or
``map / (p + 1)`` and sums over the runs holding it (ranx's CombSUM). Training and
fusion are Polars expressions over the long frame: a ``group_by`` over (run,
position), a join of the learned table, a ``group_by`` over (query, document).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from lodestar_polars._fusion.inputs import run_sum
from lodestar_polars._fusion.segmented import (
    bayesfuse_fused,
    bayesfuse_train,
    probfuse_scores,
    segfuse_scores,
    segfuse_train,
    slidefuse_scores,
)
from lodestar_polars.exceptions import InvalidParameterError

LEARNED: dict[str, str] = {
    "posfuse": "probs",
    "mapfuse": "map_scores",
    "probfuse": "probs",
    "segfuse": "probs",
    "slidefuse": "probs",
    "bayesfuse": "log_odds",
}
"""The learned methods and the name of what each learns (ranx's parameter names)."""


def check_learned(
    method: str, given: Mapping[str, object], runs: Sequence[object], caller: str
) -> list[Any] | None:
    """What the method learned, one entry per run in the runs' order; refused elsewhere."""
    for name, value in given.items():
        if value is not None and LEARNED.get(method) != name:
            names = [repr(m) for m, p in LEARNED.items() if p == name]
            which = " or ".join([", ".join(names[:-1]), names[-1]] if names[1:] else names)
            msg = (
                f"The {name!r} parameter of {caller} applies to method={which} only. "
                f"Got {name} with method={method!r}."
            )
            raise InvalidParameterError(msg)
    if method not in LEARNED:
        return None
    name = LEARNED[method]
    value = given.get(name)
    if value is None:
        msg = (
            f"The {name!r} parameter of {caller} is required with method={method!r}: what "
            f"lp.optimize_fusion(qrels, runs, method={method!r}) learns, a mapping of each "
            "run's name to it. Got None."
        )
        raise InvalidParameterError(msg)
    listed_name = name in ("probs", "log_odds")
    rule = {"probs": "a list of probabilities", "log_odds": "a list of log-odds"}.get(
        name, "a number"
    )
    if (
        not isinstance(value, Mapping)
        or [r for r in runs if r not in value]
        or len(value) != len(runs)
    ):
        msg = (
            f"The {name!r} parameter of {caller} must be a mapping of each run's name to "
            f"{rule}, and name no other. Got {value!r} instead."
        )
        raise InvalidParameterError(msg)
    out: list[Any] = []
    for r in runs:
        entry = value[r]
        listed = isinstance(entry, Sequence | np.ndarray) and not isinstance(entry, str)
        items = list(entry) if listed_name and listed else [entry]
        if (listed_name and not listed) or not all(
            isinstance(v, int | float | np.floating | np.integer)
            and not isinstance(v, bool | np.bool_)
            and math.isfinite(v)
            for v in items
        ):
            msg = (
                f"The {name!r} parameter of {caller} must map each run to {rule} "
                f"(finite). Got {entry!r} for run {r!r}."
            )
            raise InvalidParameterError(msg)
        if method == "probfuse" and not items:
            msg = (
                f"The 'probs' parameter of {caller} must map each run to a non-empty list "
                f"with method='probfuse' (one probability per segment). Got {entry!r} for "
                f"run {r!r}."
            )
            raise InvalidParameterError(msg)
        out.append([float(v) for v in items] if listed_name else float(entry))
    return out


def fused_learned(
    frame: pl.LazyFrame,
    *,
    keys: list[str],
    item: str,
    method: str,
    learned: list[Any],
    cols: tuple[str, str, str, str, str],
    w: int = 0,
) -> pl.LazyFrame:
    """(keys..., item, fused score, first appearance): CombSUM of each run's learned score."""
    run, pos, score, first, length = cols
    if method == "bayesfuse":
        return bayesfuse_fused(frame, learned, keys=keys, item=item, cols=(run, pos, score, first))
    if method == "probfuse":
        frame, value = probfuse_scores(frame, learned, (run, pos, length))
    elif method == "slidefuse":
        frame, value = slidefuse_scores(frame, learned, w, (run, pos, length))
    elif method == "segfuse":
        frame, value = segfuse_scores(frame, learned, (run, pos, score))
    elif method == "posfuse":
        table = pl.LazyFrame(
            {
                run: [r for r, probs in enumerate(learned) for _ in probs],
                pos: [p for probs in learned for p in range(len(probs))],
                f"{score}_p": [v for probs in learned for v in probs],
            },
            schema={run: pl.UInt32, pos: pl.Int64, f"{score}_p": pl.Float64},
        )
        value = pl.col(f"{score}_p").fill_null(0.0)
        frame = frame.join(table, on=[run, pos], how="left")
    else:
        weight = pl.col(run).replace_strict(
            list(range(len(learned))), learned, return_dtype=pl.Float64
        )
        value = weight / (pl.col(pos).cast(pl.Float64) + 1.0)
    appearance = (pl.col(run).cast(pl.UInt64) * 2**32 + pl.col(pos).cast(pl.UInt64)).min()
    total = run_sum(value, run, len(learned))  # in run order: the same float each call
    return frame.group_by([*keys, item]).agg(total.alias(score), appearance.alias(first))


def train(
    prepared: pl.DataFrame,
    *,
    method: str,
    keys: list[str],
    item: str,
    runs: list[object],
    judged: pl.DataFrame,
    rel: str,
    per_query: pl.DataFrame,
    cols: tuple[str, str],
) -> dict[str, Any]:
    """ranx's ``posfuse_train`` / ``mapfuse_train`` over the queries of ``qrels``."""
    run, pos = cols
    rows = prepared.join(per_query.select(keys), on=keys, how="semi").join(
        judged.select(*keys, item, rel), on=[*keys, item], how="left"
    )
    hit = (pl.col(rel).fill_null(0) > 0).cast(pl.Float64)
    if method == "bayesfuse":
        odds = bayesfuse_train(
            rows, keys=keys, n_runs=len(runs), n_queries=per_query.height, hit=hit, cols=cols
        )
        return {"log_odds": dict(zip(runs, odds, strict=True))}
    if method == "segfuse":
        found_seg = segfuse_train(
            rows, keys=keys, n_runs=len(runs), n_queries=per_query.height, hit=hit, cols=cols
        )
        return {"probs": dict(zip(runs, found_seg, strict=True))}
    if method in ("posfuse", "slidefuse"):
        table = (
            rows.group_by(run, pos).agg(hit.mean().alias("p")).sort(run, pos).group_by(run).agg("p")
        )
        found = dict(zip(table[run].to_list(), table["p"].to_list(), strict=True))
        return {"probs": {name: found.get(r, []) for r, name in enumerate(runs)}}
    from lodestar_polars._evaluate.evaluate import evaluate
    from lodestar_polars._registry import resolve

    resolved = resolve("map")
    assert resolved is not None
    roles: dict[str, str] = {}
    nrel, truth = per_query.columns[len(keys)], per_query.columns[len(keys) + 1]
    if resolved.spec.judged:
        roles["n_relevant"] = nrel
    if resolved.spec.judged_ideal:
        roles["judged"] = truth
    frame = (
        rows.sort([*keys, run, pos])
        .with_columns(pl.col(rel).fill_null(0), (-pl.col(pos).cast(pl.Float64)).alias("__lp_s"))
        .join(per_query, on=keys, how="inner", maintain_order="left")
    )
    scores = evaluate(  # type: ignore[call-overload]
        frame,
        ["map"],
        by=[*keys, run],
        y_true=rel,
        y_score="__lp_s",
        ties="input",
        strict=False,
        **roles,
    )
    totals = scores.group_by(run).agg(pl.col("map").fill_null(0.0).sum())
    found = dict(zip(totals[run].to_list(), totals["map"].to_list(), strict=True))
    n = per_query.height
    means = {name: found.get(r, 0.0) / n if n else 0.0 for r, name in enumerate(runs)}
    return {"map_scores": means}
