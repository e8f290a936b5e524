"""The beyond-accuracy entries (`BEYOND_ENTRIES`): novelty, ARP, ILD, serendipity per served list.

Each reads an ``lp.evaluate`` input besides ``y_true`` and ``y_score``
(:attr:`MetricSpec.inputs`): the items' training popularity, a feature, the
popularity rank and the catalogue's size.  Their cores are
:mod:`lodestar_polars._core.beyond`'s, over the ranked rows' inputs
(:attr:`Sorted.inputs`).  Personalisation is one number over every list, no
per-list metric: it stays a function (:data:`ACROSS_LISTS`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from lodestar_polars._base.validation import check_int
from lodestar_polars._core.beyond import (
    category_diversity_segments,
    embedding_diversity_segments,
    mean_popularity_segments,
    novelty_segments,
    personalisation_value,
    serendipity_segments,
)
from lodestar_polars._metrics.across_lists import personalisation
from lodestar_polars._metrics.beyond import (
    average_recommended_popularity,
    average_recommended_popularity_metric,
    intra_list_diversity,
    intra_list_diversity_metric,
    novelty,
    novelty_metric,
    serendipity,
    serendipity_metric,
)
from lodestar_polars._registry.spec import (
    NON_NEGATIVE,
    UNIT,
    Direction,
    MetricSpec,
    Name,
    Option,
    Range,
    Sorted,
    _names,
    _way,
)


def _novelty_core(a: Sorted, options: dict[str, Any]) -> np.ndarray:
    with np.errstate(all="ignore"):  # a refused list's popularity (0, NaN): nulled later
        return novelty_segments(
            a.inputs["popularity"], a.score, a.length, k=options["k"], presorted=True
        )


def _arp_core(a: Sorted, options: dict[str, Any]) -> np.ndarray:
    with np.errstate(all="ignore"):
        return mean_popularity_segments(
            a.inputs["popularity"], a.score, a.length, k=options["k"], presorted=True
        )


def _ild_core(a: Sorted, options: dict[str, Any]) -> np.ndarray:
    feature = a.inputs["feature"]
    with np.errstate(all="ignore"):  # a refused list's zero vector: nulled later
        if feature.ndim == 2:  # an embedding per row (dim= set)
            return embedding_diversity_segments(
                feature, a.score, a.length, k=options["k"], presorted=True
            )
        return category_diversity_segments(
            feature, a.score, a.length, k=options["k"], presorted=True
        )


def _serendipity_core(a: Sorted, options: dict[str, Any]) -> np.ndarray:
    with np.errstate(all="ignore"):
        return serendipity_segments(
            a.gain,
            a.inputs["popularity_rank"],
            a.score,
            a.length,
            k=options["k"],
            n_items=options["n_items"],
            presorted=True,
        )


def _check_dim(value: object) -> int:
    dim = check_int(value, "dim", "intra_list_diversity", allow_none=False)
    assert dim is not None  # allow_none=False
    return dim


BEYOND_ENTRIES: tuple[MetricSpec, ...] = (
    MetricSpec(
        "novelty",
        novelty,
        novelty_metric,
        _novelty_core,
        "optional",
        _names(Name("MeanInvUserFreq", "rectools")),
        "mean self-information -log2 p of the served items (`popularity`: a share of users)",
        higher_is_better=True,
        label="novelty",
        value_range=NON_NEGATIVE,
        inputs=("popularity",),
        reads_y_true=False,
        page="beyond-accuracy.md#lpnovelty",
    ),
    MetricSpec(
        "average_recommended_popularity",
        average_recommended_popularity,
        average_recommended_popularity_metric,
        _arp_core,
        "optional",
        _names(Name("arp", "lodestar_polars"), Name("AvgRecPopularity", "rectools")),
        "mean training popularity of the served items (`popularity`); no better way",
        higher_is_better=None,
        label="ARP",
        value_range=NON_NEGATIVE,
        inputs=("popularity",),
        reads_y_true=False,
        page="beyond-accuracy.md#lpaverage_recommended_popularity",
    ),
    MetricSpec(
        "intra_list_diversity",
        intra_list_diversity,
        intra_list_diversity_metric,
        _ild_core,
        "optional",
        _names(Name("ild", "lodestar_polars"), Name("IntraListDiversity", "rectools")),
        "mean distance of the pairs of served items (`feature`: a category, or an embedding)",
        higher_is_better=True,
        label="ILD",
        value_range=Range(0.0, 2.0),
        inputs=("feature",),
        reads_y_true=False,
        page="beyond-accuracy.md#lpintra_list_diversity",
        name_options=(
            Option("dim", _check_dim, "the embedding's length, for a `feature` list column"),
        ),
    ),
    MetricSpec(
        "serendipity",
        serendipity,
        serendipity_metric,
        _serendipity_core,
        "optional",
        _names(Name("Serendipity", "rectools")),
        "relevant items served above their popularity rank (`popularity_rank`, `n_items`)",
        higher_is_better=True,
        label="serendipity",
        value_range=UNIT,
        inputs=("popularity_rank", "n_items"),
        page="beyond-accuracy.md#lpserendipity",
    ),
)


"""The per-list beyond-accuracy metrics, in the docs' order (docs/beyond-accuracy.md)."""


@dataclass(frozen=True, kw_only=True)
class AcrossLists:
    """A beyond-accuracy measure of every served list at once: one number, a function.

    Not an :func:`lodestar_polars.evaluate` metric, which gives one value per
    group: personalisation compares the groups' lists with each other.
    """

    name: str
    function: Any
    summary: str
    higher_is_better: bool
    label: str
    """Shown in tables and plots, with ``{k}`` for the cutoff (``"personalisation@{k}"``)."""
    value_range: Range
    core: Any
    """The NumPy core over flat arrays (``_core.beyond.personalisation_value``)."""

    @property
    def direction(self) -> Direction:
        """``"higher"`` or ``"lower"``."""
        return _way(higher_is_better=self.higher_is_better)

    def display(self, k: int | None = None) -> str:
        """The label at cutoff ``k``; without one, the plain name."""
        return self.label.replace("@{k}", "") if k is None else self.label.format(k=k)


ACROSS_LISTS: Mapping[str, AcrossLists] = MappingProxyType(
    {
        "personalisation": AcrossLists(
            name="personalisation",
            function=personalisation,
            summary="one minus the mean overlap of two users' lists, over every pair (exact)",
            higher_is_better=True,
            label="personalisation@{k}",
            value_range=UNIT,
            core=personalisation_value,
        )
    }
)


"""The measures across lists, by name; :func:`direction` reads their direction."""
