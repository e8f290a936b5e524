"""Generate corpus/rbp_ir_measures.json: ir_measures' ``RBP`` through its two providers.

tests/test_user_models.py reads the file and checks ``lp.rbp`` against it, to 1e-12,
without importing either tool.  Run it in a venv of its own:

    python3 -m venv /work/venvs/trec2
    /work/venvs/trec2/bin/pip install ir_measures trectools cwl-eval
    /work/venvs/trec2/bin/python corpus/rbp_ir_measures.py

What it holds: ``queries``, 30 random queries, each a run (``run``: rows ``[doc, score]``
in the input order, scores small integers with ties) and its qrels (``qrels``: rows
``[doc, rel]``, grades 0 to 3 and a few -1; some ranked documents are not judged, some
judged ones not ranked).  Each query's scores lie in a range of their own (query ``i``'s
are ``100 i`` plus 0 to 4), so no two queries share a score: trectools averages a tie
over consecutive rows of its sorted frame, across a query's boundary too (see below).
Then ``values``: per measure (its ``provider``, ir_measures' name, ``p``, the cutoff
``k`` and the level ``rel``, null where not given), one value per query in the order of
``queries``:

* ``trectools``: ir_measures' ``RBP(p=...)`` and ``RBP(p=...)@k`` (no ``rel``), which
  ir_measures hands to trectools' ``TrecEval.get_rbp(p, depth=k or sys.maxsize,
  binary_topical_relevance=False, average_ties=True, removeUnjudged=False)``: the gain
  is the grade where it is above 0; tied rows share the mean of their weights; the cutoff
  takes the first ``k`` rows of the run sorted by score descending (pandas' sort: equal
  scores in input order), and only those rows share a tie's weights.
* ``cwl_eval``: ir_measures' ``RBP(rel=..., p=...)`` (no cutoff: cwl_eval takes none):
  the gain is 1 where the grade is at least ``rel`` (negative grades clipped to 0), 0
  otherwise; the ranking is the run sorted by score descending, equal scores in input
  order (Python's stable sort), cut at 1000 rows (every list here is shorter).

Each value is what ``ir_measures.<provider>.iter_calc`` yields for the query; a query
of the qrels that ir_measures leaves out (trectools yields no value where no relevant
document is ranked) gets the measure's default, 0, as ``iter_calc`` fills it in.
"""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path
from typing import Any

import ir_measures
import numpy as np

SEED = 20261203
N_QUERIES = 30
PS = (0.5, 0.8, 0.95)
CUTOFFS = (None, 3, 10)
LEVELS = (1, 2)
OUT = Path(__file__).with_suffix(".json")


def _queries() -> list[dict[str, Any]]:
    rng = np.random.default_rng(SEED)
    out = []
    for i in range(N_QUERIES):
        n = int(rng.integers(1, 26))
        docs = [f"d{j}" for j in rng.permutation(40)[:n]]
        scores = [float(100 * i + s) for s in rng.integers(0, 5, size=n)]
        # judged: most ranked documents and a few others; grades 0-3, sometimes -1
        pool = docs + [f"d{j}" for j in range(40, 40 + int(rng.integers(0, 4)))]
        judged = [d for d in pool if rng.random() < 0.8] or pool[:1]
        grades = rng.choice([-1, 0, 0, 1, 1, 2, 3], size=len(judged))
        if i % 7 == 3:  # a query with nothing relevant: every grade 0 or -1
            grades = np.minimum(grades, 0)
        out.append(
            {
                "qid": f"q{i:02d}",
                "run": [[d, s] for d, s in zip(docs, scores, strict=True)],
                "qrels": [[d, int(g)] for d, g in zip(judged, grades, strict=True)],
            }
        )
    return out


def _per_query(provider: Any, measure: Any, queries: list[dict[str, Any]]) -> list[float]:
    qrels = [ir_measures.Qrel(q["qid"], d, g) for q in queries for d, g in q["qrels"]]
    run = [ir_measures.ScoredDoc(q["qid"], d, s) for q in queries for d, s in q["run"]]
    got: dict[str, float] = {}
    for metric in provider.iter_calc([measure], qrels, run):
        assert metric.query_id not in got, metric
        got[metric.query_id] = float(metric.value)
    return [got[q["qid"]] for q in queries]


def _layout(document: dict[str, Any]) -> str:
    """The JSON text: a key per line, then one query and one measure per line."""
    lines = []
    for key, value in document.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            rows = ",\n".join(f"  {json.dumps(row)}" for row in value)
            lines.append(f" {json.dumps(key)}: [\n{rows}\n ]")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main() -> None:
    """Draw the queries, run both providers, write the JSON file."""
    queries = _queries()
    assert all(q["qrels"] for q in queries), "every query is judged (ir_measures' queries)"
    trectools = ir_measures.trectools
    cwl = ir_measures.cwl_eval
    values: list[dict[str, Any]] = []
    for p in PS:
        for k in CUTOFFS:
            measure = ir_measures.RBP(p=p) if k is None else ir_measures.RBP(p=p) @ k
            values.append(
                {"provider": "trectools", "measure": str(measure), "p": p, "k": k, "rel": None,
                 "values": _per_query(trectools, measure, queries)}
            )  # fmt: skip
        for level in LEVELS:
            measure = ir_measures.RBP(rel=level, p=p)
            values.append(
                {"provider": "cwl_eval", "measure": str(measure), "p": p, "k": None, "rel": level,
                 "values": _per_query(cwl, measure, queries)}
            )  # fmt: skip
    versions = {
        name: __import__("importlib.metadata").metadata.version(name)
        for name in ("ir_measures", "trectools", "cwl-eval", "pandas", "numpy")
    }
    document = {
        "about": "ir_measures' RBP per query, trectools and cwl_eval: see rbp_ir_measures.py",
        "versions": {**versions, "python": platform.python_version()},
        "seed": SEED,
        "ps": list(PS),
        "cutoffs": list(CUTOFFS),
        "levels": list(LEVELS),
        "queries": queries,
        "values": values,
    }
    OUT.write_text(_layout(document), encoding="utf-8")
    print(f"wrote {OUT} ({len(values)} measures)", file=sys.stderr)


if __name__ == "__main__":
    main()
