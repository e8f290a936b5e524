"""TREC files and trec_eval's measures: ``lp.trec``.

A *run* is a ranking per query, one line per retrieved document,
``qid Q0 docno rank score tag``; *qrels* are the judgments,
``qid iter docno rel``.  :func:`read_run` and :func:`read_qrels` scan them
lazily, :func:`write_run` writes a run, and :func:`evaluate` scores a run
against its judgments exactly as ``trec_eval`` 10.0 does:

* the ranking is by score descending, then document id descending byte-wise
  (trec_eval ignores the rank column and the line order);
* the judgments are the whole truth: a document absent from the qrels, or
  judged below 0, is not relevant; relevant documents the run did not
  retrieve count in recall, average precision and the ideal DCG;
* queries: every judged query the run ranks; a run query without judgments is
  skipped, a judged query the run misses is scored 0 only with
  ``complete=True`` (``-c``).

Scoring a run joined with judgments as a plain long frame (with
:func:`lodestar_polars.evaluate`) would treat the rows given as the whole
truth, which is scikit-learn's view, not trec_eval's.  This module takes the
two files (or frames) separately so that the two views cannot be mixed up.

>>> import polars as pl
>>> import lodestar_polars as lp
>>> run = pl.DataFrame(
...     {"qid": ["q1"] * 3, "docno": ["d1", "d2", "d3"], "score": [0.9, 0.8, 0.7]}
... )
>>> qrels = pl.DataFrame({"qid": ["q1", "q1"], "docno": ["d2", "d9"], "rel": [1, 1]})
>>> lp.trec.evaluate(qrels, run, ["P.2", "recall.3", "map"])
shape: (3, 3)
┌─────┬──────────┬───────┐
│ qid ┆ measure  ┆ value │
│ --- ┆ ---      ┆ ---   │
│ str ┆ str      ┆ f64   │
╞═════╪══════════╪═══════╡
│ all ┆ map      ┆ 0.25  │
│ all ┆ P_2      ┆ 0.5   │
│ all ┆ recall_3 ┆ 0.5   │
└─────┴──────────┴───────┘
"""

from __future__ import annotations

from lodestar_polars.trec._evaluate import evaluate
from lodestar_polars.trec._files import read_qrels, read_run, write_run
from lodestar_polars.trec._measures import MEASURES, parse_measures
from lodestar_polars.trec._measures import Measure as Measure  # what parse_measures returns

__all__ = [
    "MEASURES",
    "evaluate",
    "parse_measures",
    "read_qrels",
    "read_run",
    "write_run",
]
