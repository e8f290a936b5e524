"""Recall against a latency budget (seed 003, §2 "Problem 2").

- :mod:`~lodestar_polars._budget.budget`: ``lp.budget_curve`` (recall at every K per candidate
  source, its cost, the Pareto front) and ``lp.recall_at_budget`` (the best source, or mix of
  sources, under each budget). The figure is :func:`lodestar_polars.plot.budget_curve`.
- :mod:`~lodestar_polars._budget.inputs`: what both read: the cost of K candidates of a source,
  each source's ranked lists, and their checks.
"""
