"""``lp.evaluate``: many metrics by name, one row per group, on frames of any size.

- :mod:`~lodestar_polars._evaluate.evaluate`: ``lp.evaluate``, the public function (its options,
  the path for its input);
- :mod:`~lodestar_polars._evaluate.roles`: the metric names parsed and the roles' columns
  resolved and checked;
- :mod:`~lodestar_polars._evaluate.frame`: an in-memory frame scored whole (one group-by for the
  refusal rules, one sort, the registry's NumPy cores in threads);
- :mod:`~lodestar_polars._evaluate.parted`: frames in parts of whole groups (a large in-memory
  frame; a ``LazyFrame`` read once) and ``lp.Progress``;
- :mod:`~lodestar_polars._evaluate.partition`: a ``LazyFrame`` read once, streamed between
  groups or partitioned once by a hash of ``by`` (decision 0017);
- :mod:`~lodestar_polars._evaluate.two_stage`: groups too large for one task, exactly in two
  stages (the @k metrics; used by :mod:`lodestar_polars.spark`).
"""
