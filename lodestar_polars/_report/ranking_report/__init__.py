"""The recommendation ranking report over a long frame (issue 10, seed 004).

Every graded list has one truth item.  With ``b`` candidates scored strictly
above it and ``t`` in its tie block (itself included), its rank is uniform on
``[b + 1, b + t]`` and each metric is that distribution's expectation
``E[f(R)]`` (docs/ties.md, docs/decisions/0012).  All of it is computed on
NumPy arrays built by one Polars sort: no Python runs per list, per item or per
bootstrap resample.
"""

from __future__ import annotations

from lodestar_polars._report.ranking_report.common import (
    _ITEM,
    _ORDER,
    _ROW,
    _TRUTH,
    BASELINE,
    CALLER,
    ENGINES,
    MULTI_POSITIVE,
    OBJECTIVES,
    SCHEMA_VERSION,
    Engine,
    FloatArray,
    Frame,
    Graded,
    IntArray,
    MultiPositive,
    Objective,
    ScoreArray,
    weighted_count,
)
from lodestar_polars._report.ranking_report.decision import (
    FLOOR_HINT,
    VERDICT_WORDS,
    _names,
    by_construction,
    decision_of,
)
from lodestar_polars._report.ranking_report.families import (
    Block,
    Terms,
    _popularity,
    _rectangle,
    block_terms,
    catalogue_coverage,
    coverage_terms,
    cumulative,
    entropy,
    expected_at,
    gini,
    macro_keys,
    micro_keys,
    popularity_on,
    popularity_table,
    rank_bounds,
    ranking_values,
    score_block,
    summarise,
    tail_items,
)
from lodestar_polars._report.ranking_report.grading import (
    _check_domain,
    _check_scores,
    _grade,
    _key_repr,
    _objective_scores,
    _with_keys,
)
from lodestar_polars._report.ranking_report.payload import finish_payload
from lodestar_polars._report.ranking_report.report import (
    DEFAULT_PART_ROWS,
    _objective_alphas,
    ranking_report,
)
from lodestar_polars._report.ranking_report.result import FRAME_SCHEMA, RankingReport
from lodestar_polars._report.ranking_report.uncertainty import (
    _interval,
    _uncertainty,
    bootstrap_batch,
    bootstrap_means,
    resample_counts,
)

__all__ = [
    "BASELINE",
    "Block",
    "CALLER",
    "DEFAULT_PART_ROWS",
    "ENGINES",
    "Engine",
    "FLOOR_HINT",
    "FRAME_SCHEMA",
    "FloatArray",
    "Frame",
    "Graded",
    "IntArray",
    "MULTI_POSITIVE",
    "MultiPositive",
    "OBJECTIVES",
    "Objective",
    "RankingReport",
    "SCHEMA_VERSION",
    "ScoreArray",
    "Terms",
    "VERDICT_WORDS",
    "_ITEM",
    "_ORDER",
    "_ROW",
    "_TRUTH",
    "_check_domain",
    "_check_scores",
    "_grade",
    "_interval",
    "_key_repr",
    "_names",
    "_objective_alphas",
    "_objective_scores",
    "_popularity",
    "_rectangle",
    "_uncertainty",
    "_with_keys",
    "block_terms",
    "bootstrap_batch",
    "bootstrap_means",
    "by_construction",
    "catalogue_coverage",
    "coverage_terms",
    "cumulative",
    "decision_of",
    "entropy",
    "expected_at",
    "finish_payload",
    "gini",
    "macro_keys",
    "micro_keys",
    "popularity_on",
    "popularity_table",
    "rank_bounds",
    "ranking_report",
    "ranking_values",
    "resample_counts",
    "score_block",
    "summarise",
    "tail_items",
    "weighted_count",
]
