"""lodestar_polars: ranking metrics as Polars expressions, exact to scikit-learn.

>>> import polars as pl
>>> import lodestar_polars as lp
>>> df = pl.DataFrame({"query": [1, 1, 1], "rel": [3, 2, 1], "score": [0.9, 0.8, 0.7]})
>>> df.group_by("query").agg(lp.ndcg("rel", "score", k=10))["ndcg"].to_list()
[1.0]
"""

from __future__ import annotations

from lodestar_polars import arrays, trec
from lodestar_polars._budget.budget import budget_curve, recall_at_budget
from lodestar_polars._compare.compare import compare
from lodestar_polars._compare.comparison import Comparison
from lodestar_polars._compare.summarize import summarize
from lodestar_polars._evaluate.evaluate import Progress, evaluate
from lodestar_polars._fusion.fusion import fuse
from lodestar_polars._fusion.optimize import optimize_fusion
from lodestar_polars._metrics.across_lists import item_popularity, personalisation
from lodestar_polars._metrics.beyond import (
    average_recommended_popularity,
    intra_list_diversity,
    novelty,
    serendipity,
)
from lodestar_polars._metrics.calibration import (
    brier_score,
    calibration_curve,
    expected_calibration_error,
    group_auc,
    log_loss,
    roc_auc,
)
from lodestar_polars._metrics.dcg import dcg, ndcg
from lodestar_polars._metrics.ir import (
    average_precision_at_k,
    hit_rate,
    precision,
    r_precision,
    recall,
)
from lodestar_polars._metrics.label_ranking import (
    average_precision,
    coverage_error,
    label_ranking_average_precision,
    label_ranking_loss,
)
from lodestar_polars._metrics.reciprocal_rank import reciprocal_rank
from lodestar_polars._metrics.top_k_accuracy import top_k_accuracy
from lodestar_polars._metrics.trec_measures import (
    bpref,
    inferred_average_precision,
    interpolated_precision,
)
from lodestar_polars._metrics.user_models import err, judged, rbp
from lodestar_polars._off_policy.off_policy import off_policy
from lodestar_polars._report.comparability import fit_comparability, transform_for_objective
from lodestar_polars._report.comparability_state import ComparabilityState
from lodestar_polars._report.html import report_html
from lodestar_polars._report.ranking_report import RankingReport, ranking_report
from lodestar_polars._report.serving import top_k
from lodestar_polars.exceptions import (
    InvalidParameterError,
    RefusedGroupError,
    UndefinedMetricWarning,
)

__version__ = "0.1.0"

__all__ = [
    "ComparabilityState",
    "Comparison",
    "InvalidParameterError",
    "Progress",
    "RankingReport",
    "RefusedGroupError",
    "UndefinedMetricWarning",
    "arrays",
    "average_precision",
    "average_precision_at_k",
    "average_recommended_popularity",
    "bpref",
    "brier_score",
    "budget_curve",
    "calibration_curve",
    "compare",
    "coverage_error",
    "dcg",
    "err",
    "evaluate",
    "expected_calibration_error",
    "fit_comparability",
    "fuse",
    "group_auc",
    "hit_rate",
    "inferred_average_precision",
    "interpolated_precision",
    "intra_list_diversity",
    "item_popularity",
    "judged",
    "label_ranking_average_precision",
    "label_ranking_loss",
    "log_loss",
    "ndcg",
    "novelty",
    "off_policy",
    "optimize_fusion",
    "personalisation",
    "precision",
    "r_precision",
    "ranking_report",
    "rbp",
    "recall",
    "recall_at_budget",
    "reciprocal_rank",
    "report_html",
    "roc_auc",
    "serendipity",
    "summarize",
    "top_k",
    "top_k_accuracy",
    "transform_for_objective",
    "trec",
]
