"""Fusing runs into one ranking, as ranx does.

- :mod:`~lodestar_polars._fusion.fusion`: ``lp.fuse`` (ranx's score-, rank- and vote-based
  methods and its normalisations, as Polars expressions over a long frame) and
  ``lp.optimize_fusion`` (ranx's weight search on training queries).
"""
