"""trec_eval's measures: `TREC_METRIC`, `TREC_ONLY` (no `lp.evaluate` metric), `TREC_MEASURES`."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from lodestar_polars._core.ir import (
    judged_num_q,
    judged_num_rel,
    judged_num_rel_ret,
    judged_num_ret,
)
from lodestar_polars._core.trec_more import (
    IPREC_LEVELS,
    RPREC_MULTIPLES,
    SET_F_DEFAULT,
    UTILITY_DEFAULT,
    judged_11pt_avg,
    judged_bin_g,
    judged_g,
    judged_gm_bpref,
    judged_gm_map,
    judged_ndcg_rel,
    judged_num_nonrel_judged_ret,
    judged_relative_p,
    judged_rndcg,
    judged_rprec_mult,
    judged_set_f,
    judged_set_map,
    judged_set_p,
    judged_set_recall,
    judged_set_relative_p,
    judged_utility,
)
from lodestar_polars._core.trec_text import RELSTRING_DEFAULT, judged_relstring
from lodestar_polars._core.trec_user import (
    UNJ_CUTOFFS,
    judged_rbp,
    judged_rbp_resid,
    judged_unj,
)
from lodestar_polars._registry.entries import REGISTRY
from lodestar_polars._registry.spec import (
    DEFAULT_CUTOFFS,
    TREC_PRINT_ORDER,
    MetricSpec,
    TrecMeasure,
)


def _not_offered(name: str, summary: str, **facts: Any) -> TrecMeasure:
    return TrecMeasure(name=name, summary=summary, **facts)


TREC_ONLY: tuple[TrecMeasure, ...] = (
    TrecMeasure(
        name="num_q",
        summary="the queries evaluated",
        core=judged_num_q,
        aggregate="sum",
        per_query=False,
        official=True,
        higher_is_better=None,
    ),
    TrecMeasure(
        name="num_ret",
        summary="documents ranked",
        core=judged_num_ret,
        aggregate="sum",
        official=True,
        higher_is_better=None,
    ),
    TrecMeasure(
        name="num_rel",
        summary="judged relevant documents, retrieved or not",
        core=judged_num_rel,
        aggregate="sum",
        official=True,
        higher_is_better=None,
    ),
    TrecMeasure(
        name="num_rel_ret",
        summary="relevant documents ranked",
        core=judged_num_rel_ret,
        aggregate="sum",
        official=True,
        higher_is_better=None,
    ),
    # trec_eval's measures not offered here (no core): refused by lp.trec, named by
    # the trec command's note, and their direction known to lp.compare
    # trec_eval's other measures (lodestar_polars._core.trec_more); bpref, infAP and
    # iprec_at_recall are metrics too (their MetricSpec entries hold them)
    TrecMeasure(
        name="gm_map",
        summary="AP per query; `all` is its geometric mean (each value floored at 1e-5)",
        core=judged_gm_map,
        aggregate="gmean",
        per_query=False,
        official=True,
    ),
    TrecMeasure(
        name="relstring",
        summary=(
            "the relevance of the first 10 ranked documents as text (`-` not judged, "
            "`.` judged below 0, `>` above 9); a `text` column"
        ),
        core=judged_relstring,
        params="values",
        default_values=RELSTRING_DEFAULT,
        n_values=1,
        aggregate="none",
        higher_is_better=None,
    ),
    TrecMeasure(
        name="gm_bpref",
        summary="bpref per query; `all` is its geometric mean (each value floored at 1e-5)",
        core=judged_gm_bpref,
        aggregate="gmean",
        per_query=False,
    ),
    TrecMeasure(
        name="Rprec_mult",
        summary="precision at `(long)(m R + 0.9)` documents, for multiples m of R",
        core=judged_rprec_mult,
        params="levels",
        default_values=RPREC_MULTIPLES,
    ),
    TrecMeasure(
        name="utility",
        summary=(
            "a rel_ret + b (ret - rel_ret) + c (rel - rel_ret) + d (rel_ret - ret - rel), "
            "the collection size 0"
        ),
        core=judged_utility,
        params="values",
        default_values=UTILITY_DEFAULT,
        n_values=4,
    ),
    TrecMeasure(
        name="11pt_avg",
        summary="interpolated precision averaged over the recall levels",
        core=judged_11pt_avg,
        params="values",
        default_values=IPREC_LEVELS,
        increasing=True,
    ),
    TrecMeasure(
        name="binG",
        summary="1 / log2(2 + irrelevant documents above) per relevant document, over R",
        core=judged_bin_g,
    ),
    TrecMeasure(
        name="G",
        summary="normalized cumulative gain (G), a rank costing its ideal gain or 1",
        core=judged_g,
        params="gains",
    ),
    TrecMeasure(
        name="ndcg_rel",
        summary="NDCG at each relevant document, averaged over the relevant documents",
        core=judged_ndcg_rel,
        params="gains",
    ),
    TrecMeasure(
        name="Rndcg",
        summary="NDCG at each rank where the ideal gain drops, averaged",
        core=judged_rndcg,
        params="gains",
    ),
    TrecMeasure(
        name="relative_P",
        summary="relevant documents in the top k, over min(k, `num_rel`)",
        core=judged_relative_p,
        params="cutoffs",
        default_cutoffs=DEFAULT_CUTOFFS,
    ),
    TrecMeasure(
        name="set_P",
        summary="relevant retrieved over retrieved",
        core=judged_set_p,
    ),
    TrecMeasure(
        name="set_relative_P",
        summary="relevant retrieved over min(retrieved, `num_rel`)",
        core=judged_set_relative_p,
    ),
    TrecMeasure(
        name="set_recall",
        summary="relevant retrieved over `num_rel`",
        core=judged_set_recall,
    ),
    TrecMeasure(
        name="set_map",
        summary="set precision times set recall",
        core=judged_set_map,
    ),
    TrecMeasure(
        name="set_F",
        summary="(b + 1) P R / (b P + R) of set precision and recall, b = 1 (`set_F.0.5`)",
        core=judged_set_f,
        params="values",
        default_values=SET_F_DEFAULT,
        n_values=1,
    ),
    TrecMeasure(
        name="num_nonrel_judged_ret",
        summary="judged irrelevant documents ranked",
        core=judged_num_nonrel_judged_ret,
        aggregate="sum",
        higher_is_better=None,
    ),
    # trec_eval's user-model measures (lodestar_polars._core.trec_user); lp.rbp is RBP with
    # ranx's gains and a residual over the top k, so trec_eval's own are entries of their own
    TrecMeasure(
        name="rbp",
        summary="rank-biased precision, p = 0.9, gains over the query's largest grade past 1",
        core=judged_rbp,
    ),
    TrecMeasure(
        name="rbp_resid",
        summary="RBP's residual (p = 0.9): unjudged ranks and the tail; 0 with none unjudged",
        core=judged_rbp_resid,
        higher_is_better=None,
    ),
    TrecMeasure(
        name="unj",
        summary="unjudged documents in the top k, over k",
        core=judged_unj,
        params="cutoffs",
        default_cutoffs=UNJ_CUTOFFS,
        higher_is_better=None,
    ),
    _not_offered("map_avgjg", "AP over judgment sets (-J)", all_trec=False),
    _not_offered("P_avgjg", "precision over judgment sets (-J)", all_trec=False),
    _not_offered("Rprec_mult_avgjg", "Rprec_mult over judgment sets (-J)", all_trec=False),
    _not_offered("yaap", "yet another AP (-J)", all_trec=False),
)


"""trec_eval's measures that are no :func:`lodestar_polars.evaluate` metric: the
counts, and the measures not offered here (``core=None``)."""


def _trec_measures() -> dict[str, TrecMeasure]:
    found: dict[str, TrecMeasure] = {}
    for measure in (*TREC_ONLY, *(m for spec in REGISTRY for m in spec.trec_eval)):
        if measure.name in found:  # pragma: no cover - a registry bug
            msg = f"the trec_eval measure {measure.name!r} is defined twice"
            raise AssertionError(msg)
        if measure.name not in TREC_PRINT_ORDER:  # pragma: no cover - a registry bug
            msg = f"{measure.name!r} is not a trec_eval measure (TREC_PRINT_ORDER)"
            raise AssertionError(msg)
        found[measure.name] = measure
    return dict(sorted(found.items(), key=lambda item: item[1].order))


TREC_MEASURES: Mapping[str, TrecMeasure] = MappingProxyType(_trec_measures())


"""Every trec_eval measure known here, by name, in trec_eval's print order: those
of the registry's metrics and :data:`TREC_ONLY`.  ``lp.trec``'s table, the
``trec`` command's help and note, :func:`direction` and the docs read it."""


TREC_METRIC: Mapping[str, MetricSpec] = MappingProxyType(
    {m.name: spec for spec in REGISTRY for m in spec.trec_eval}
)


"""The :func:`lodestar_polars.evaluate` metric each trec_eval measure is, where one is."""


def trec_offered() -> list[TrecMeasure]:
    """The trec_eval measures ``lp.trec.evaluate`` computes, in trec_eval's print order."""
    return [m for m in TREC_MEASURES.values() if m.offered]


NOT_OFFERED: Mapping[str, str] = MappingProxyType(
    {
        "hits": (
            "ranx's 'hits' is the number of relevant rows in the top k, not the hit rate: "
            "write 'hit_rate@k' for the chance of a hit, or 'precision@k' (times k) for the count"
        ),
    }
)


"""Names of other tools that mean something lodestar_polars does not compute (lowercase)."""
