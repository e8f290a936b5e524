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

ranx orders equal fused scores as its candidate sets iterate, which follows Python's string
hashing, and a metric reads that order. So every report is computed twice, here under
``PYTHONHASHSEED=0`` and in a child process under ``PYTHONHASHSEED=1``: only the cases
whose reports agree exactly are kept (the others are listed in the manifest's
``dropped``), so what is frozen does not hang on one hash seed.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

CHILD = "--child" in sys.argv  # the second hash seed's run: print the reports, write nothing
if not CHILD and os.environ.get("PYTHONHASHSEED") != "0":  # as corpus/generate_fusion.py
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.argv])

import numpy as np
import ranx
from ranx import Qrels, Run, optimize_fusion
from ranx.fusion_optimization.optimize_weights import get_possible_weights, get_trial_configs

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


def reports() -> list[dict]:
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
    return cases


def main() -> None:
    """Write corpus/data/fusion_report.json (or, as the child, print the reports)."""
    cases = reports()
    if CHILD:
        print(json.dumps(cases))
        return
    env = {**os.environ, "PYTHONHASHSEED": "1"}
    child = subprocess.run(
        [sys.executable, __file__, "--child"], env=env, capture_output=True, text=True, check=True
    )
    other = json.loads(child.stdout.strip().splitlines()[-1])
    dropped = [
        f"{c['method']}-{c['norm']}-{c['metric']}-{c['step']}"
        for c, o in zip(cases, other, strict=True)
        if c != o
    ]
    cases = [c for c, o in zip(cases, other, strict=True) if c == o]
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
        f"dropped (hash-seed dependent): {dropped}"
    )


if __name__ == "__main__":
    main()
