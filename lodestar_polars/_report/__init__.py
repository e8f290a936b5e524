"""The recommendation ranking report (seed 004) and what it stands on.

- :mod:`~lodestar_polars._report.ranking_report`: ``lp.ranking_report`` and
  ``lp.RankingReport`` (the families, the popularity floor, the cluster bootstrap);
- :mod:`~lodestar_polars._report.parts`: the report of a large ``LazyFrame``, read once in parts
  of whole lists, and :mod:`~lodestar_polars._report.parts_merge`, their terms merged;
- :mod:`~lodestar_polars._report.html`: ``lp.report_html``, the payload as one static page;
- :mod:`~lodestar_polars._report.cli`: the ``lodestar-polars report`` command;
- :mod:`~lodestar_polars._report.comparability`: ``lp.fit_comparability`` and
  ``lp.transform_for_objective`` (decision 0013), on ``lp.ComparabilityState``
  (:mod:`~lodestar_polars._report.comparability_state`, its files saved and loaded) and the
  checks they share with the report (:mod:`~lodestar_polars._report.comparability_checks`),
  and the report's state fitted from a large ``LazyFrame`` in parts
  (:mod:`~lodestar_polars._report.comparability_parts`);
- :mod:`~lodestar_polars._report.serving`: ``lp.top_k``, the served top-k rows of each list.
"""
