"""The report's constants, type aliases and the graded frame every part reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt
import polars as pl

if TYPE_CHECKING:
    pass


SCHEMA_VERSION = 1


OBJECTIVES = ("accuracy", "balanced", "coverage")


MULTI_POSITIVE = ("each", "first")


ENGINES = ("auto", "in-memory", "streaming")


BASELINE = "global_pop"


CALLER = "ranking_report"


Objective = Literal["accuracy", "balanced", "coverage"]


MultiPositive = Literal["each", "first"]


Engine = Literal["auto", "in-memory", "streaming"]


Frame = pl.DataFrame | pl.LazyFrame


# internal column names
_LIST, _ITEM, _ROW, _ORDER, _TRUTH = "__lp_list", "__lp_item", "__lp_row", "__lp_order", "__lp_t"


FloatArray = npt.NDArray[np.float64]


IntArray = npt.NDArray[np.int64]


ScoreArray = npt.NDArray[Any]  # float64, or an integer dtype: ranks as the scores do


@dataclass(frozen=True)
class Graded:
    """The evaluated frame as arrays, in a canonical order (row order never matters)."""

    list_id: IntArray  # per candidate row: the list (0..n_lists_all)
    item_id: IntArray  # per candidate row: the item (0..n_items)
    keys: pl.DataFrame  # per list id: the by columns, sorted
    items: pl.Series  # per item id: the item value (catalogue first, then unseen truth items)
    n_catalogue: int  # items of `scores`: ids [0, n_catalogue)
    g_list: IntArray  # per graded list: its list id
    g_item: IntArray  # per graded list: its truth item id
    g_row: IntArray  # per graded list: its candidate row, -1 when the truth is unseen
    weight: FloatArray  # per list id: how many graded lists it carries
    n_dropped: int
    unit: IntArray | None  # per graded list: the bootstrap unit (groups), None: each graded list


def weighted_count(
    index: IntArray, weights: npt.ArrayLike | None = None, minlength: int = 0
) -> FloatArray:
    """``numpy.bincount`` as float64 (a sum of ``weights`` per index)."""
    return np.asarray(np.bincount(index, weights=weights, minlength=minlength), dtype=np.float64)
