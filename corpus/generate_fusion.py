"""Generate corpus/data/fusion.json: ranx 0.3.21's fused runs and weight searches.

The tests of ``lp.fuse`` and ``lp.optimize_fusion`` (tests/test_fusion.py) read the file;
they never import ranx (it pulls numba, and is only in the ``corpus`` and ``bench``
extras).  Regenerate with

    pip install -e .[corpus]
    PYTHONHASHSEED=0 python corpus/generate_fusion.py

What it holds: a few small long frames of runs (``datasets``: rows of
``[run, query, doc, score]``, each run's rows of a query in the order the ranx ``Run`` was
built from), and for each dataset every method x every normalisation that ranx and
``lp.fuse`` both accept (``fuse``: ranx's fused run as rows ``[query, doc, score]``),
plus ``optimize``: ranx's ``optimize_fusion`` best parameters on a dataset with qrels, and
``learned``: ranx's training of posfuse, mapfuse, probfuse, segfuse, slidefuse and bayesfuse
on those qrels (``optimize_fusion``) and the fused runs from what it learned.

Every list of one run for one query holds at most 15 documents: there ranx's sort
(numba's quicksort) is an insertion sort, so equal scores keep their insertion order,
the rule ``lp.fuse`` follows.  Condorcet is generated only on queries where ranx's
comparator is a strict total order (checked here on every pair and triple), where
ranx's result does not depend on Python's set order.
"""

from __future__ import annotations

import itertools
import json
import os
import platform
import sys
from pathlib import Path

if os.environ.get("PYTHONHASHSEED") != "0":  # ranx's candidate sets follow string hashing
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.argv])

import numpy as np
import ranx
from ranx import Qrels, Run, fuse, optimize_fusion

SEED = 20261221
OUT = Path(__file__).resolve().parent / "data" / "fusion.json"

METHODS = [
    "min",
    "max",
    "med",
    "sum",
    "anz",
    "mnz",
    "gmnz",
    "isr",
    "log_isr",
    "logn_isr",
    "rrf",
    "rbc",
    "wsum",
    "wmnz",
    "mixed",
    "bordafuse",
    "w_bordafuse",
]
CONDORCET = ["condorcet", "w_condorcet"]
NORMS = [None, "min-max", "max", "sum", "zmuv", "rank", "borda", "min-max-inverted"]
POSITIONAL = {"isr", "log_isr", "logn_isr", "rrf", "rbc", "bordafuse", "w_bordafuse", *CONDORCET}
WEIGHTED = {"wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet"}


def _params(method: str, runs: list[str]) -> list[dict]:
    """The parameter sets tried per method (ranx's defaults and one other)."""
    weights = {"weights": [round(0.2 + 0.3 * i, 2) for i in range(len(runs))]}
    return {
        "gmnz": [{"gamma": 0.5}, {"gamma": 2.0}],
        "logn_isr": [{}, {"sigma": 0.5}],
        "rrf": [{}, {"k": 10}],
        "rbc": [{"phi": 0.8}, {"phi": 0.5}],
    }.get(method, [weights] if method in WEIGHTED else [{}])


def _dataset(rng: np.random.Generator, runs: int, queries: int, kind: str) -> list[list]:
    rows: list[list] = []
    pool = [f"d{i:02d}" for i in range(14)]
    for q in range(queries):
        for r in range(runs):
            n = int(rng.integers(1, 11)) if not (q == queries - 1 and r == runs - 1) else 1
            docs = list(rng.choice(pool, size=n, replace=False))
            if kind == "ties":
                scores = np.round(rng.uniform(0, 1, n), 1)  # many equal scores
            elif kind == "negative":
                scores = np.round(rng.normal(0, 10, n), 3)
            elif kind == "flat":
                scores = np.full(n, [0.0, 2.5, -1.0][q % 3])
            else:
                scores = rng.uniform(0, 5, n)
            for d, s in zip(docs, scores, strict=True):
                rows.append([f"r{r + 1}", f"q{q + 1}", str(d), float(s)])
    return rows


def _condorcet_dataset(
    rng: np.random.Generator, runs: int, queries: int, *, missing: bool
) -> list[list]:
    """Runs whose ranx comparator is a strict total order on every query."""
    rows: list[list] = []
    q = 0
    while q < queries:
        pool = [f"d{i:02d}" for i in range(int(rng.integers(3, 9)))]
        base = rng.uniform(0, 1, len(pool))
        lists = []
        for _ in range(runs):
            noisy = base + rng.normal(0, 0.3, len(pool))
            keep = rng.uniform(0, 1, len(pool)) > (0.3 if missing else -1)
            lists.append([(d, float(s)) for d, s, k in zip(pool, noisy, keep, strict=True) if k])
        if not _strict_total_order(lists, pool, [1.0] * runs) or not _strict_total_order(
            lists, pool, [round(0.2 + 0.3 * i, 2) for i in range(runs)]
        ):
            continue
        for r, lst in enumerate(lists):
            for d, s in lst:
                rows.append([f"r{r + 1}", f"q{q + 1}", d, s])
        q += 1
    return rows


def _strict_total_order(lists: list[list], pool: list[str], weights: list[float]) -> bool:
    cand = sorted({d for lst in lists for d, _ in lst})
    pos = []
    for lst in lists:
        order = [d for d, _ in sorted(lst, key=lambda t: -t[1])]
        pos.append({d: order.index(d) if d in order else 1_000_000 for d in cand})

    def before(x: str, y: str) -> bool:  # ranx's weighted _compare(x, y) == -1
        xv = yv = 0.0
        for w, p in zip(weights, pos, strict=True):
            if p[x] < p[y]:
                xv += w
            else:
                yv += w
        return xv >= yv

    for x, y in itertools.combinations(cand, 2):
        if before(x, y) == before(y, x):
            return False
    for x, y, z in itertools.permutations(cand, 3):
        if before(x, y) and before(y, z) and not before(x, z):
            return False
    return True


def _runs(rows: list[list]) -> dict[str, Run]:
    runs: dict[str, dict[str, dict[str, float]]] = {}
    for r, q, d, s in rows:
        runs.setdefault(r, {}).setdefault(q, {})[d] = s
    return {name: Run.from_dict(d, name=name) for name, d in runs.items()}


def _rows(run: Run) -> list[list]:
    return [[q, d, float(s)] for q, docs in run.to_dict().items() for d, s in docs.items()]


def main() -> None:
    """Write corpus/data/fusion.json."""
    rng = np.random.default_rng(SEED)
    datasets = {
        "uniform": _dataset(rng, 3, 4, "uniform"),
        "ties": _dataset(rng, 3, 4, "ties"),
        "negative": _dataset(rng, 2, 3, "negative"),
        "flat": _dataset(rng, 2, 3, "flat"),
        "four_runs": _dataset(rng, 4, 3, "uniform"),
        "condorcet": _condorcet_dataset(rng, 3, 5, missing=False),
        "condorcet_missing": _condorcet_dataset(rng, 5, 5, missing=True),
    }
    cases = []
    for name, rows in datasets.items():
        runs = _runs(rows)
        names = list(runs)
        condorcet = name.startswith("condorcet")
        for method in CONDORCET if condorcet else METHODS:
            for norm in [None, "min-max"] if condorcet else NORMS:
                if norm == "borda" and method in POSITIONAL:
                    continue
                for params in _params(method, names):
                    fused = fuse(list(runs.values()), norm=norm, method=method, params=params)
                    kw = dict(params)
                    if "weights" in kw:
                        kw["weights"] = dict(zip(names, kw["weights"], strict=True))
                    cases.append(
                        {
                            "dataset": name,
                            "method": method,
                            "norm": norm,
                            "params": kw,
                            "expected": _rows(fused),
                        }
                    )
    # the weight and parameter search of ranx's optimize_fusion, on training qrels
    qrng = np.random.default_rng(SEED + 1)
    train = datasets["uniform"]
    qrels_rows = []
    for q in sorted({row[1] for row in train}):
        docs = sorted({row[2] for row in train if row[1] == q})
        for d in docs:
            rel = int(qrng.choice([0, 0, 1, 2]))
            if rel:
                qrels_rows.append([q, d, rel])
        qrels_rows.append([q, "d99", 1])  # judged, never retrieved
    qrels_dict: dict[str, dict[str, int]] = {}
    for q, d, rel in qrels_rows:
        qrels_dict.setdefault(q, {})[d] = rel
    qrels = Qrels.from_dict(qrels_dict)
    runs = list(_runs(train).values())
    optimize = []
    for method, norm, metric, step in [
        ("wsum", "min-max", "ndcg@5", None),
        ("wsum", "zmuv", "map@10", None),
        ("wsum", "min-max", "mrr", 0.25),
        ("wmnz", "max", "ndcg", None),
        ("mixed", "sum", "ndcg@3", None),
        ("rrf", "min-max", "ndcg@5", None),
        ("rrf", None, "map@10", 30),
        ("rbc", None, "ndcg@5", 0.05),
        ("logn_isr", None, "ndcg@10", 0.1),
        ("gmnz", "min-max", "map", 0.1),
    ]:
        kwargs = {"show_progress": False}
        if step is not None:
            kwargs["step"] = step
        best = optimize_fusion(qrels, runs, norm=norm, method=method, metric=metric, **kwargs)
        if "weights" in best:
            names = [r.name for r in runs]
            best = {"weights": dict(zip(names, map(float, best["weights"]), strict=True))}
        optimize.append(
            {
                "dataset": "uniform",
                "method": method,
                "norm": norm,
                "metric": metric,
                "step": step,
                "expected": best,
            }
        )
    # the learned methods: ranx's training (optimize_fusion) and the fusion with what it learned
    learned = []
    for method in ["posfuse", "mapfuse", "probfuse", "segfuse"]:
        for norm in [None, "min-max", "min-max-inverted", "zmuv"]:
            trained = optimize_fusion(qrels, runs, norm=norm, method=method)
            key = "map_scores" if method == "mapfuse" else "probs"
            values = [
                float(p) if method == "mapfuse" else [float(v) for v in p] for p in trained[key]
            ]
            fused = fuse(runs, norm=norm, method=method, params=trained)
            learned.append(
                {
                    "dataset": "uniform",
                    "method": method,
                    "norm": norm,
                    "trained": {key: dict(zip([r.name for r in runs], values, strict=True))},
                    "expected": _rows(fused),
                }
            )
    for norm in [None, "min-max", "min-max-inverted", "zmuv"]:
        trained = optimize_fusion(qrels, runs, norm=norm, method="slidefuse")
        probs = [[float(v) for v in p] for p in trained["probs"]]
        fused = fuse(runs, norm=norm, method="slidefuse", params=trained)
        learned.append(
            {
                "dataset": "uniform",
                "method": "slidefuse",
                "norm": norm,
                "trained": {
                    "probs": dict(zip([r.name for r in runs], probs, strict=True)),
                    "w": int(trained["w"]),
                },
                "expected": _rows(fused),
            }
        )
    for norm in [None, "min-max", "min-max-inverted", "zmuv"]:
        trained = optimize_fusion(qrels, runs, norm=norm, method="bayesfuse")
        odds = [[float(v) for v in p] for p in trained["log_odds"]]
        fused = fuse(runs, norm=norm, method="bayesfuse", params=trained)
        learned.append(
            {
                "dataset": "uniform",
                "method": "bayesfuse",
                "norm": norm,
                "trained": {"log_odds": dict(zip([r.name for r in runs], odds, strict=True))},
                "expected": _rows(fused),
            }
        )
    payload = {
        "manifest": {
            "generator": "corpus/generate_fusion.py",
            "seed": SEED,
            "pythonhashseed": os.environ["PYTHONHASHSEED"],
            "versions": {
                "ranx": ranx.__version__ if hasattr(ranx, "__version__") else "0.3.21",
                "numpy": np.__version__,
                "python": platform.python_version(),
            },
            "cases": {"fuse": len(cases), "optimize": len(optimize), "learned": len(learned)},
        },
        "datasets": datasets,
        "qrels": qrels_rows,
        "fuse": cases,
        "optimize": optimize,
        "learned": learned,
    }
    OUT.write_text(json.dumps(payload, separators=(",", ":")) + "\n")
    print(
        f"wrote {OUT}: {len(cases)} fuse cases, {len(optimize)} optimize cases, "
        f"{len(learned)} learned cases"
    )


if __name__ == "__main__":
    main()
