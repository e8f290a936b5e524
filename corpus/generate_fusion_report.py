"""Generate corpus/data/fusion_report.json: ranx 0.3.21's optimization reports.

``ranx.optimize_fusion(..., return_optimization_report=True)`` returns, besides the best
parameters, every configuration it tried with its score (a dict in the order tried).
tests/test_fusion_report.py reads the file and checks ``lp.optimize_fusion(report=True)``
against it; it never imports ranx (only the ``corpus`` and ``bench`` extras hold it).
The runs and qrels are corpus/data/fusion.json's ``uniform`` dataset and ``qrels`` (read
from that file, so the two stay one dataset). Regenerate with

    pip install -e .[corpus]
    PYTHONHASHSEED=0 python corpus/generate_fusion_report.py

Each case holds ``configs`` (the weights, one list per configuration, or the parameter)
and ``results`` (ranx's score of each), in ranx's order.

Equal fused scores are common (RRF gives a document first in one run and third in another
the score of one third in the first and first in the other), and a metric reads their
order. On lists of up to 15 documents ranx keeps them in the order of its fused run, which
follows its candidate sets' iteration (hence ``PYTHONHASHSEED=0``, as in
corpus/generate_fusion.py); ``lp.fuse`` orders them by first appearance (run order, then
position). So, as a guard, each configuration's fused run is re-ranked with its ties in
first-appearance order and scored again by ranx's own ``evaluate``; a case is kept only
where that equals ranx's reported score at every configuration (the others would be listed
in the manifest's ``dropped``; with ranx 0.3.21 none is).
"""

from __future__ import annotations

import json
import math
import os
import platform
import sys
from pathlib import Path

if os.environ.get("PYTHONHASHSEED") != "0":  # as corpus/generate_fusion.py
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.argv])

import numpy as np
import ranx
from ranx import Qrels, Run, evaluate, fuse, optimize_fusion
from ranx.fusion.probfuse import estimate_probfuse_probs
from ranx.fusion.slidefuse import slidefuse_train
from ranx.fusion_optimization.optimize_weights import get_possible_weights, get_trial_configs
from ranx.normalization import norm_switch

DATA = Path(__file__).resolve().parent / "data"
SOURCE = DATA / "fusion.json"
OUT = DATA / "fusion_report.json"
WEIGHTED = {"wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet"}

#: (method, norm, metric, step): every method with a search that the dataset suits
#: (w_condorcet is left out: on these runs ranx's comparator is not a total order)
CASES: list[tuple[str, str | None, str, float | None]] = [
    ("wsum", "min-max", "ndcg@5", None),
    ("wsum", "zmuv", "map@10", None),
    ("wsum", "min-max", "mrr", 0.25),
    ("wmnz", "max", "ndcg", None),
    ("mixed", "sum", "ndcg@3", None),
    ("w_bordafuse", None, "mrr", None),
    ("w_bordafuse", None, "ndcg@5", 0.2),
    ("rrf", "min-max", "ndcg@5", None),
    ("rrf", None, "map@10", 30),
    ("rbc", None, "ndcg@5", None),
    ("rbc", "min-max", "map", 0.05),
    ("logn_isr", None, "ndcg@10", 0.1),
    ("gmnz", "min-max", "map", 0.1),
    ("probfuse", "min-max", "ndcg@5", None),
    ("probfuse", None, "map@10", None),
    ("probfuse", "zmuv", "ndcg", None),
    ("slidefuse", "min-max", "ndcg@5", None),
    ("slidefuse", None, "map", None),
]


PARAMETER = {"rrf": "k", "rbc": "phi", "logn_isr": "sigma", "gmnz": "gamma"}


def _normed(runs: list[Run], norm: str | None) -> list[Run]:
    """The runs as ranx's optimize_fusion normalises them before the search."""
    if norm is None:
        return runs
    if norm == "borda":
        return norm_switch(norm)(runs)
    return [norm_switch(norm)(run) for run in runs]


def _first_appearance(normed: list[Run]) -> dict[str, dict[str, int]]:
    """Each document's first appearance per query: run order, then position in the run."""
    seen: dict[str, dict[str, int]] = {}
    for run in normed:
        for q, docs in run.to_dict().items():
            ranked = sorted(docs, key=lambda d: -docs[d])  # stable: ties in insertion order
            first = seen.setdefault(q, {})
            for d in ranked:
                first.setdefault(d, len(first))
    return seen


def _reranked(fused: dict[str, dict[str, float]], first: dict[str, dict[str, int]]) -> Run:
    """``fused`` with its ties in first-appearance order, as distinct scores."""
    out = {}
    for q, docs in fused.items():
        order = sorted(docs, key=lambda d: (-docs[d], first[q][d]))
        out[q] = {d: float(len(order) - i) for i, d in enumerate(order)}
    return Run.from_dict(out)


def first_appearance_scores(qrels: Qrels, runs: list[Run], case: dict) -> bool:
    """Whether ranx's score of each configuration is that of its ties in first appearance."""
    method, metric = case["method"], case["metric"]
    normed = _normed(runs, case["norm"])
    first = _first_appearance(normed)
    slide = slidefuse_train(qrels, normed) if method == "slidefuse" else None
    for config, value in zip(case["configs"], case["results"], strict=True):
        if method in WEIGHTED:
            params: dict[str, object] = {"weights": config}
        elif method == "probfuse":
            params = {"probs": estimate_probfuse_probs(qrels, normed, config)}
        elif method == "slidefuse":
            params = {"probs": slide, "w": config}
        else:
            params = {PARAMETER[method]: config}
        fused = fuse(normed, norm=None, method=method, params=params).to_dict()
        run = _reranked(fused, first)
        score = float(evaluate(qrels, run, metric, save_results_in_run=False))
        if not math.isclose(score, value, rel_tol=1e-12, abs_tol=1e-12):
            return False
    return True


def reports() -> tuple[list[dict], Qrels, list[Run]]:
    """Every case of ``CASES``, as ranx reports it under this process's hash seed."""
    source = json.loads(SOURCE.read_text())
    rows = source["datasets"]["uniform"]
    by_run: dict[str, dict[str, dict[str, float]]] = {}
    for r, q, d, s in rows:
        by_run.setdefault(r, {}).setdefault(q, {})[d] = s
    runs = [Run.from_dict(d, name=name) for name, d in by_run.items()]
    judged: dict[str, dict[str, int]] = {}
    for q, d, rel in source["qrels"]:
        judged.setdefault(q, {})[d] = rel
    qrels = Qrels.from_dict(judged)
    cases = []
    for method, norm, metric, step in CASES:
        kwargs: dict[str, object] = {"show_progress": False}
        if step is not None:
            kwargs["step"] = step
        best, report = optimize_fusion(
            qrels,
            runs,
            norm=norm,
            method=method,
            metric=metric,
            return_optimization_report=True,
            **kwargs,
        )
        configs: list[object]
        if method in WEIGHTED:
            trials = get_trial_configs(get_possible_weights(step or 0.1), len(runs))
            assert [str(t) for t in trials] == report.configs  # the keys are str(trial)
            configs = [[float(w) for w in t] for t in trials]
            best = {"weights": dict(zip(by_run, map(float, best["weights"]), strict=True))}
        else:
            configs = [float(c) for c in report.configs]
            if method in {"rrf", "probfuse", "slidefuse"}:
                configs = [int(c) for c in report.configs]
            best = {k: v for k, v in best.items() if k != "probs"}  # the trained lists: fusion.json
        cases.append(
            {
                "dataset": "uniform",
                "method": method,
                "norm": norm,
                "metric": metric,
                "step": step,
                "best": best,
                "configs": configs,
                "results": [float(v) for v in report.results],
            }
        )
    return cases, qrels, runs


def main() -> None:
    """Write corpus/data/fusion_report.json."""
    every, qrels, runs = reports()
    kept = [first_appearance_scores(qrels, runs, c) for c in every]
    dropped = [
        f"{c['method']}-{c['norm']}-{c['metric']}-{c['step']}"
        for c, ok in zip(every, kept, strict=True)
        if not ok
    ]
    cases = [c for c, ok in zip(every, kept, strict=True) if ok]
    payload = {
        "manifest": {
            "generator": "corpus/generate_fusion_report.py",
            "source": "corpus/data/fusion.json (datasets.uniform, qrels)",
            "pythonhashseed": os.environ["PYTHONHASHSEED"],
            "versions": {
                "ranx": getattr(ranx, "__version__", "0.3.21"),
                "numpy": np.__version__,
                "python": platform.python_version(),
            },
            "cases": len(cases),
            "configurations": sum(len(c["configs"]) for c in cases),
            "dropped": dropped,
        },
        "cases": cases,
    }
    OUT.write_text(json.dumps(payload, indent=None, separators=(",", ":")) + "\n")
    print(
        f"wrote {OUT}: {len(cases)} reports, {payload['manifest']['configurations']} rows; "
        f"dropped (ranx's ties not in first appearance): {dropped}"
    )


if __name__ == "__main__":
    main()
