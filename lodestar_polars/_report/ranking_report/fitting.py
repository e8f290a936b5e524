"""The report's comparability fits on a ``LazyFrame``: whole, or read in parts."""

from __future__ import annotations

from typing import Any

import polars as pl

from lodestar_polars._report.ranking_report.common import _TRUTH


def _fit_lazy(
    lazy: pl.LazyFrame, keys: list[str], item: str, score: str, truth: str, mp: str
) -> Any:
    """The comparability state fitted on a ``LazyFrame``, its truths read as :func:`_grade`."""
    from lodestar_polars._report.comparability import fit_comparability

    flag = pl.col(truth).cast(pl.Boolean)
    if mp == "first":  # the first positive of each list, in input order
        flag = flag & (flag.cast(pl.Int64).cum_sum().over(keys) == 1)
    return fit_comparability(
        lazy.with_columns(flag.alias(_TRUTH)), by=keys, item=item, y_score=score, y_true=_TRUTH
    )


def _fit_parts(
    lazy: pl.LazyFrame,
    keys: list[str],
    item: str,
    score: str,
    truth: str,
    mp: str,
    parted: tuple[int, int, Any, str | None],
    *,
    quantiles: bool,
) -> Any:
    """:func:`_fit_lazy`'s state, never held whole (``(total, part_rows, layout, temp_dir)``).

    ``quantiles``: the items' score quantiles too (only a percentile block reads them).
    """
    from lodestar_polars._report.comparability_parts import fit_lazy_in_parts

    total, part_rows, _layout, temp_dir = parted
    return fit_lazy_in_parts(
        lazy, keys, item, score, truth, mp, total=total, part_rows=part_rows,
        temp_dir=temp_dir, whole=lambda: _fit_lazy(lazy, keys, item, score, truth, mp),
        quantiles=quantiles,
    )  # fmt: skip
