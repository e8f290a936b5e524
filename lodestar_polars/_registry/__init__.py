"""The metric registry: the one home of every metric's names, cutoff, options and implementations.

Each :class:`MetricSpec` holds, for one metric that :func:`lodestar_polars.evaluate`
computes:

* its canonical name and every other name it answers to (:class:`Name`), with
  the tool that spells it so (scikit-learn, trec_eval, ranx, ir_measures), how
  a cutoff is written after it (``@k``; trec_eval's ``.k`` and ``_k``) and
  whether the name matches in any case or only as written (``AP`` is
  ir_measures' AP cut at k, ``ap`` scikit-learn's average precision);
* whether it takes a cutoff (``"none"``, ``"optional"``, ``"required"``), the
  option the number after ``@`` sets (the cutoff ``k``; the bins ``n_bins`` of
  ``ece@15``) and the options its name fixes (``gain="exponential"`` for
  ``ndcg_burges``, ``strategy="quantile"`` for ``ece_quantile``);
* the public Polars expression, the :class:`~lodestar_polars._metrics.expr.Metric`
  builder behind it (rules and value), and the NumPy segment core that
  :func:`~lodestar_polars.evaluate` runs over the sorted frame;
* the ``lp.evaluate`` inputs it reads besides ``y_true`` and ``y_score``
  (``popularity``, ``feature``, ``popularity_rank``, ``n_items``: the
  beyond-accuracy entries, :mod:`lodestar_polars._registry.beyond_entries`);
* its direction, its display label (``NDCG@10``, ``P@10``, ``MRR@10``, ``ECE``)
  and its value range (``[0, 1]``, ``[0, inf)``);
* the trec_eval measures it is (:class:`TrecMeasure`: ``ndcg`` and
  ``ndcg_cut``), each with how it is written, its default cutoffs, its sets
  (``official``, ``all_trec``), how ``all`` aggregates it and its core over
  judged runs, for :mod:`lodestar_polars.trec`.

trec_eval's measures that are no metric here (the counts, and those not
offered yet) are :class:`TrecMeasure` entries of their own (:data:`TREC_ONLY`);
:data:`TREC_MEASURES` gathers every one in trec_eval's print order.

:func:`resolve` reads a name (``"nDCG@10"``, ``"P.10"``, ``"map_cut.100"``);
``lp.evaluate``'s parser, ``lp.trec`` (its measure table, sets, names and
cores), the ``trec`` command, :func:`direction` (``lp.compare``, the plots),
the test suite's name tables and the docs' tables (:func:`names_table` and
:func:`trec_table`, each checked by a test against its page) all read this
module.  A new metric is added here, once (docs/adding-a-metric.md;
docs/decisions/0009-metric-registry.md, 0016-registry-defines-each-metric.md).
"""

from __future__ import annotations

from lodestar_polars._registry.beyond_entries import ACROSS_LISTS, BEYOND_ENTRIES, AcrossLists
from lodestar_polars._registry.entries import BY_NAME, REGISTRY
from lodestar_polars._registry.names import (
    DEPRECATED_NAMES,
    Resolved,
    direction,
    metric_names,
    resolve,
    unknown_metric_message,
)
from lodestar_polars._registry.ranking_entries import RANKING_ENTRIES
from lodestar_polars._registry.report import (
    REPORT_METRICS,
    ReportFamily,
    ReportMetric,
    ReportTerm,
    report_metric,
    report_metrics,
)
from lodestar_polars._registry.spec import (
    COLUMN_INPUTS,
    DEFAULT_CUTOFFS,
    NON_NEGATIVE,
    REAL,
    TREC_PRINT_ORDER,
    UNIT,
    Aggregate,
    Core,
    Cutoff,
    Direction,
    InputRole,
    MetricSpec,
    Name,
    Option,
    Range,
    Sorted,
    Tool,
    TrecCore,
    TrecMeasure,
    TrecParams,
    _gain,
    _names,
    run_core,
    segmented,
)
from lodestar_polars._registry.tables import names_table, report_table, trec_peer_names, trec_table
from lodestar_polars._registry.trec import (
    NOT_OFFERED,
    TREC_MEASURES,
    TREC_METRIC,
    TREC_ONLY,
    trec_offered,
)

__all__ = [
    "ACROSS_LISTS",
    "Aggregate",
    "AcrossLists",
    "BEYOND_ENTRIES",
    "BY_NAME",
    "COLUMN_INPUTS",
    "Core",
    "Cutoff",
    "DEFAULT_CUTOFFS",
    "DEPRECATED_NAMES",
    "Direction",
    "InputRole",
    "MetricSpec",
    "NON_NEGATIVE",
    "NOT_OFFERED",
    "Name",
    "Option",
    "RANKING_ENTRIES",
    "REAL",
    "REGISTRY",
    "REPORT_METRICS",
    "Range",
    "ReportFamily",
    "ReportMetric",
    "ReportTerm",
    "Resolved",
    "Sorted",
    "TREC_MEASURES",
    "TREC_METRIC",
    "TREC_ONLY",
    "TREC_PRINT_ORDER",
    "Tool",
    "TrecCore",
    "TrecMeasure",
    "TrecParams",
    "UNIT",
    "_gain",
    "_names",
    "direction",
    "metric_names",
    "names_table",
    "report_metric",
    "report_metrics",
    "report_table",
    "resolve",
    "run_core",
    "segmented",
    "trec_offered",
    "trec_peer_names",
    "trec_table",
    "unknown_metric_message",
]
