"""``lp.evaluate``: many metrics by name, one row per group, on frames of any size.

- :mod:`~lodestar_polars._evaluate.evaluate`: ``lp.evaluate`` (the whole-frame path: one
  group-by for the refusal rules, one sort, the registry's NumPy cores in threads; in-memory
  frames in parts of whole groups);
- :mod:`~lodestar_polars._evaluate.partition`: a ``LazyFrame`` read once, streamed between
  groups or partitioned once by a hash of ``by`` (decision 0017);
- :mod:`~lodestar_polars._evaluate.two_stage`: groups too large for one task, exactly in two
  stages (the @k metrics; used by :mod:`lodestar_polars.spark`).
"""
