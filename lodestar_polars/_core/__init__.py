"""The maths of every metric, written once.

Nothing here validates input or imports Polars. Each module holds

* the *row formulas* of one metric family: plain arithmetic on per-row
  quantities (a gain, a rank counted as "rows scoring at least as high", a
  position).  They are written with Python operators and NumPy ufuncs only,
  so the very same function evaluates a NumPy array (the dense
  :mod:`lodestar_polars.arrays` surface) or a Polars expression (the
  expressions, through ``Expr.__array_ufunc__``); and
* a *segmented* NumPy evaluator that computes one value per segment (a
  query, a sample) of flat arrays, used by :mod:`lodestar_polars.arrays`.

The Polars layer (``lodestar_polars/_<family>.py``) computes the same per-row
quantities with native Polars operations and feeds them to the same row
formulas, so no formula is written twice.
"""
