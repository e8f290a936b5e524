"""Off-policy estimates of a new ranking's reward from a logged policy's propensities.

- :mod:`~lodestar_polars._off_policy.off_policy`: ``lp.off_policy`` (IPS, self-normalised IPS,
  their clipped variants, the direct method and doubly robust estimates, per position or per
  slate, with the report's cluster bootstrap for intervals).
"""
