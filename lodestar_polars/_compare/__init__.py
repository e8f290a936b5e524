"""Comparing runs and cohorts over per-query values.

- :mod:`~lodestar_polars._compare.compare`: ``lp.compare`` (its options, the pairs, the tests
  run, the result built);
- :mod:`~lodestar_polars._compare.inputs`: its per-query frames read, checked and aligned into
  one array (runs, metrics, queries);
- :mod:`~lodestar_polars._compare.paired`: the paired tests (Student, Fisher, the bootstrap) and
  the corrections, on a matrix of paired differences;
- :mod:`~lodestar_polars._compare.comparison`: ``lp.Comparison``, its tables and their Markdown
  and LaTeX;
- :mod:`~lodestar_polars._compare.stats`: Student's t distribution in NumPy (no scipy at run
  time);
- :mod:`~lodestar_polars._compare.summarize`: ``lp.summarize``, micro and macro means by cohort.
"""
