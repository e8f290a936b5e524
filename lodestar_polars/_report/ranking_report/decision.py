"""The payload's decision: the verdict in words, and what holds by construction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

from lodestar_polars._report.ranking_report.families import macro_keys, micro_keys

FLOOR_HINT = "pass train= (training interactions) or popularity= for the popularity floor"


VERDICT_WORDS = {
    "model_ahead": "Model ahead",
    "baseline_ahead": "Baseline ahead",
    "undecided": "Undecided",
}


_UNIT_WORDS = {"row": "graded lists", "entity": "entities"}


_VERDICT_TAIL = {
    "model_ahead": "which lies wholly above zero",
    "baseline_ahead": "which lies wholly below zero: recommending the popular items does better",
    "undecided": "which straddles zero: these data cannot tell the model from the floor",
}


def _names(keys: Sequence[str]) -> str:
    keys = list(keys)
    return keys[0] if len(keys) == 1 else ", ".join(keys[:-1]) + " and " + keys[-1]


def by_construction(k: int, longest: int) -> tuple[list[str], list[str]]:
    """The metrics every ordering of the candidates gives the same value, and a note saying so.

    ``longest`` is the most candidates of a graded list.  ``hit@c`` with ``c >= longest`` serves
    every list whole (1 for every truth that is a candidate); with ``k >= longest`` so does the
    whole coverage family; with one candidate per list nothing is ranked at all.
    """
    cuts = micro_keys(k)
    if longest <= 1:
        fixed = [key for key, _, _ in cuts]
    else:
        fixed = [key for key, f, cut in cuts if f == "hit" and cut >= longest]
    macro = macro_keys(k)
    if k >= longest:
        fixed += macro
    notes: list[str] = []
    hits = [key for key, f, cut in cuts if f == "hit" and cut >= longest]
    if longest <= 1:
        notes.append(
            "Every graded list has one candidate, so there is no ranking to grade: every "
            "metric here is fixed by construction and says nothing about the model."
        )
    elif hits:
        verb, says = ("is", "says") if len(hits) == 1 else ("are", "say")
        text = (
            f"Every graded list has at most {longest} candidates, so a top "
            f"{min(cut for key, _, cut in cuts if key in hits)} already holds them all: "
            f"{_names(hits)} {verb} 1 by construction (lower only by truths that are no "
            f"candidate) and {says} nothing about the ranking."
        )
        if k >= longest:
            text += (
                f" So are the coverage family's {_names(macro)}: k={k} serves every list whole. "
                f"A k below {longest} makes them informative; mrr@{k} and ndcg@{k} still grade "
                "the order."
            )
        notes.append(text)
    return fixed, notes


def decision_of(payload: Mapping[str, Any], *, floor_hint: str = FLOOR_HINT) -> dict[str, Any]:
    """The decision a reader wants first: model against the popularity floor on the primary metric.

    Built from a payload's own parts (so a payload read back from JSON without it gets the same
    one): the primary metric's model and floor values, the bootstrap interval of the difference,
    the verdict (``model_ahead``, ``baseline_ahead``, ``undecided``; None without a floor) and the
    sentence that says it.
    """
    primary = payload["primary_score"]
    metric, value = str(primary["metric"]), float(primary["value"])
    objective = payload.get("primary_objective", "")
    out: dict[str, Any] = {
        "metric": metric,
        "objective": objective,
        "model": value,
        "baseline": None,
        "baseline_value": None,
        "difference": None,
        "ci_low": None,
        "ci_high": None,
        "confidence_level": None,
        "verdict": None,
    }
    baselines: Mapping[str, Any] = payload.get("baselines") or {}
    if not baselines:
        out["sentence"] = (
            f"No verdict: the model's {metric} ({objective} ordering) is {value:.4f}, but with no "
            "popularity floor nothing says it beats recommending the popular items; "
            f"{floor_hint}."
        )
        return out
    name = next(iter(baselines))
    floor_value = float(baselines[name]["micro"][metric])
    unc: Mapping[str, Any] = payload.get("uncertainty") or {}
    part = (unc.get("baselines") or {}).get(name) or {}
    entry = (part.get("difference") or {}).get(metric)
    diff = value - floor_value if entry is None else float(entry["estimate"])
    out.update(baseline=name, baseline_value=floor_value, difference=diff)
    head = (
        f"on {metric} the model ({objective} ordering) scores {value:.4f} against the "
        f"popularity floor's {floor_value:.4f}, a difference of {diff:+.4f}"
    )
    if metric in (payload.get("by_construction") or []):
        out["verdict"] = "undecided"
        out["sentence"] = (
            f"Undecided: {head}, but {metric} is fixed by construction here (see the note), so "
            "it cannot tell the model from the floor."
        )
        return out
    if entry is None:
        out["verdict"] = "undecided"
        out["sentence"] = (
            f"Undecided: {head}, but with fewer than two resampling units there is no interval "
            "to judge it by."
        )
        return out
    verdict = str(entry["verdict"])
    level = float(unc.get("confidence_level", 0.95))
    out.update(
        ci_low=float(entry["ci_low"]),
        ci_high=float(entry["ci_high"]),
        confidence_level=level,
        verdict=verdict,
    )
    out["sentence"] = (
        f"{VERDICT_WORDS.get(verdict, verdict)}: {head}, {100 * level:g} % interval "
        f"[{out['ci_low']:+.4f}, {out['ci_high']:+.4f}] over {unc.get('n_units')} "
        f"{_UNIT_WORDS.get(str(unc.get('unit')), 'resampling units')}, "
        f"{_VERDICT_TAIL.get(verdict, verdict)}."
    )
    return out
