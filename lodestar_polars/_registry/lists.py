"""The beyond-accuracy measures of served lists (`LIST_MEASURES`): inputs, direction, label."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from lodestar_polars._core.beyond import (
    category_diversity_segments,
    mean_popularity_segments,
    novelty_segments,
    personalisation_value,
    serendipity_segments,
)
from lodestar_polars._metrics.across_lists import personalisation
from lodestar_polars._metrics.beyond import (
    average_recommended_popularity,
    intra_list_diversity,
    novelty,
    serendipity,
)
from lodestar_polars._registry.spec import NON_NEGATIVE, UNIT, Direction, Range, _way


@dataclass(frozen=True, kw_only=True)
class ListMeasure:
    """A beyond-accuracy measure of served lists: novelty, ARP, ILD, serendipity, personalisation.

    Not an :func:`lodestar_polars.evaluate` metric (yet): each reads input
    columns besides ``y_true`` and ``y_score`` (``inputs``: the popularity, an
    item feature, the popularity rank), which ``lp.evaluate`` has no role for.
    The per-list ones are expressions used in ``group_by(user).agg(...)``;
    personalisation is a function of a frame of lists (it is across users).
    """

    name: str
    function: Callable[..., Any]
    summary: str
    higher_is_better: bool | None
    """None where neither way is better (ARP: how popular, a bias to read, not a score)."""
    label: str
    """Shown in tables and plots, with ``{k}`` for the cutoff (``"ILD@{k}"``)."""
    value_range: Range
    inputs: tuple[str, ...]
    """The parameters naming the extra input columns it reads (``popularity``, ``feature``)."""
    per_list: bool
    """One value per list (an expression); False: one value over every list (a function)."""
    rectools: str | None = None
    """The RecTools class whose numbers it reproduces (tests/test_beyond_accuracy.py)."""
    core: Callable[..., Any] | None = None
    """The NumPy segment core over flat arrays (:mod:`lodestar_polars._core.beyond`), the
    same numbers as the expression: what an ``lp.evaluate`` path would run."""

    @property
    def direction(self) -> Direction | None:
        """``"higher"``, ``"lower"`` or None (no better way)."""
        if self.higher_is_better is None:
            return None
        return _way(higher_is_better=self.higher_is_better)

    def display(self, k: int | None = None) -> str:
        """The label at cutoff ``k`` (``"ILD@10"``); without one, the plain name (``"ILD"``)."""
        return self.label.replace("@{k}", "") if k is None else self.label.format(k=k)


LIST_MEASURES: tuple[ListMeasure, ...] = (
    ListMeasure(
        name="novelty",
        function=novelty,
        summary="mean self-information -log2 p of the served items (p: share of training users)",
        higher_is_better=True,
        label="novelty@{k}",
        value_range=NON_NEGATIVE,
        inputs=("popularity",),
        per_list=True,
        rectools="MeanInvUserFreq",
        core=novelty_segments,
    ),
    ListMeasure(
        name="average_recommended_popularity",
        function=average_recommended_popularity,
        summary="mean training popularity of the served items (ARP)",
        higher_is_better=None,
        label="ARP@{k}",
        value_range=NON_NEGATIVE,
        inputs=("popularity",),
        per_list=True,
        rectools="AvgRecPopularity",
        core=mean_popularity_segments,
    ),
    ListMeasure(
        name="intra_list_diversity",
        function=intra_list_diversity,
        summary="mean distance of the pairs of served items (category: differ; embedding: cosine)",
        higher_is_better=True,
        label="ILD@{k}",
        value_range=Range(0.0, 2.0),
        inputs=("feature",),
        per_list=True,
        rectools="IntraListDiversity",
        core=category_diversity_segments,  # embedding_diversity_segments with dim=
    ),
    ListMeasure(
        name="serendipity",
        function=serendipity,
        summary="relevant items served above their popularity rank (RecTools' definition)",
        higher_is_better=True,
        label="serendipity@{k}",
        value_range=UNIT,
        inputs=("popularity_rank",),
        per_list=True,
        rectools="Serendipity",
        core=serendipity_segments,
    ),
    ListMeasure(
        name="personalisation",
        function=personalisation,
        summary="one minus the mean overlap of two users' lists, over every pair (exact)",
        higher_is_better=True,
        label="personalisation@{k}",
        value_range=UNIT,
        inputs=(),
        per_list=False,
        core=personalisation_value,
    ),
)


"""The beyond-accuracy measures; :func:`direction` reads their direction by name."""


LIST_MEASURES_BY_NAME: Mapping[str, ListMeasure] = MappingProxyType(
    {m.name: m for m in LIST_MEASURES}
)
