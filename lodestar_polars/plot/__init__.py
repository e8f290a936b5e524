"""Plots of evaluation results: each function returns a matplotlib ``Figure``.

matplotlib is an optional extra (``pip install "lodestar-polars[plot]"``),
imported inside each function: ``import lodestar_polars`` imports neither it
nor this module.  Every function reads Polars frames in the shapes the rest
of the package produces (per-query values, a compare table, a long log) and
computes what it draws with the package's own functions, so a figure shows
the numbers the metrics report.

* :func:`metric_at_k` -- a metric against the cutoff ``k``, one line per run;
* :func:`per_query_distribution` -- the per-query values of each run, and
  their difference to a baseline query by query;
* :func:`precision_recall_curve` -- trec_eval's interpolated precision at 11
  recall levels averaged over queries, or precision against recall over the
  pooled score thresholds, one curve per run;
* :func:`calibration_diagram` -- the fraction of positives against the mean
  probability per bin (:func:`lodestar_polars.calibration_curve`);
* :func:`comparison_chart` -- a compare table's differences to the baseline
  with their confidence intervals, significant ones marked;
* :func:`budget_curve` -- recall against cost per candidate source, the Pareto front and
  what each budget buys (:func:`lodestar_polars.budget_curve`; in ``plot/_budget.py``).
"""

from __future__ import annotations

from lodestar_polars.plot._budget import budget_curve
from lodestar_polars.plot._calibration import calibration_diagram
from lodestar_polars.plot._comparison import COMPARE_COLUMNS as COMPARE_COLUMNS
from lodestar_polars.plot._comparison import comparison_chart
from lodestar_polars.plot._per_query import metric_at_k, per_query_distribution
from lodestar_polars.plot._precision_recall import precision_recall_curve

__all__ = [
    "budget_curve",
    "calibration_diagram",
    "comparison_chart",
    "metric_at_k",
    "per_query_distribution",
    "precision_recall_curve",
]
