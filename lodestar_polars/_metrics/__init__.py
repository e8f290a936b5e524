"""The metric expressions: one module per family, each ``lp.<metric>`` a Polars expression.

- :mod:`~lodestar_polars._metrics.expr`: the machinery every expression shares (``Metric``:
  a value and its refusal rules);
- :mod:`~lodestar_polars._metrics.ties`: the tie rules (``"average"``, ``"trec_eval"``,
  ``"input"``; decision 0010);
- :mod:`~lodestar_polars._metrics.dcg`: ``lp.dcg``, ``lp.ndcg``;
- :mod:`~lodestar_polars._metrics.reciprocal_rank`: ``lp.reciprocal_rank``;
- :mod:`~lodestar_polars._metrics.ir`: ``lp.precision``, ``lp.recall``, ``lp.hit_rate``,
  ``lp.r_precision``, ``lp.average_precision_at_k``;
- :mod:`~lodestar_polars._metrics.label_ranking`: ``lp.average_precision``,
  ``lp.coverage_error``, ``lp.label_ranking_loss``, ``lp.label_ranking_average_precision``;
- :mod:`~lodestar_polars._metrics.top_k_accuracy`: ``lp.top_k_accuracy``;
- :mod:`~lodestar_polars._metrics.calibration`: ``lp.roc_auc``, ``lp.group_auc``,
  ``lp.log_loss``, ``lp.brier_score``, ``lp.expected_calibration_error``,
  ``lp.calibration_curve``.

The NumPy formulas they share with ``lp.evaluate`` and ``lp.arrays`` live once in
:mod:`lodestar_polars._core`; a metric's facts (names, direction, range, trec measures) live in
:mod:`lodestar_polars._registry`.
"""
