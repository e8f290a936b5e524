"""Comparing runs and cohorts over per-query values.

- :mod:`~lodestar_polars._compare.compare`: ``lp.compare`` and ``lp.Comparison`` (paired
  tests between runs, corrections, tables in Markdown and LaTeX);
- :mod:`~lodestar_polars._compare.stats`: Student's t distribution in NumPy (no scipy at run
  time);
- :mod:`~lodestar_polars._compare.summarize`: ``lp.summarize``, micro and macro means by cohort.
"""
