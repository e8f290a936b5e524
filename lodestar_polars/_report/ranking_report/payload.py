"""The payload's last step: the families, floor and verdicts written as the seed's JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from lodestar_polars._report.extras import Extras

if TYPE_CHECKING:
    pass
from lodestar_polars._report.ranking_report.common import (
    BASELINE,
    SCHEMA_VERSION,
)
from lodestar_polars._report.ranking_report.decision import by_construction, decision_of
from lodestar_polars._report.ranking_report.families import (
    Block,
)
from lodestar_polars._report.ranking_report.result import RankingReport


def finish_payload(
    *,
    kk: int,
    blocks: Mapping[str, Block],
    floor: Block | None,
    primary: str,
    uncertainty: dict[str, Any] | None,
    objective_alpha: Mapping[str, float | None],
    longest: int,
    tail: npt.NDArray[np.bool_],
    tail_share: float,
    tail_source: str | None,
    n_lists: int,
    n_dropped: int,
    n_unseen_truth: int,
    n_items: int,
    mp: str,
    source: str | None,
    comparability: str | None,
    strength: float | None,
    extras: Extras | None = None,
) -> RankingReport:
    """The payload from the blocks and the counts (both paths: whole, and in parts)."""
    model = blocks[primary]
    fixed, notes = by_construction(kk, longest)
    if model.macro[f"tail_hit@{kk}"] is None:  # null in every block: it depends on the truths
        counted = {"train": "training", "popularity": "given", "truth": "graded truths'"}
        notes.append(
            f"tail_hit@{kk} is null: no graded list's truth is a long-tail item (the least "
            f"popular items holding at most {tail_share:g} of the "
            f"{counted.get(str(tail_source), str(tail_source))} popularity; "
            f"{int(np.count_nonzero(tail))} catalogue or truth item(s) qualify)."
        )
    payload: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "k": kk,
        "objectives": {n: {"micro": b.micro, "macro": b.macro} for n, b in blocks.items()},
        "objective_alpha": dict(objective_alpha),
        "primary_objective": primary,
        "primary_score": {"metric": f"ndcg@{kk}", "value": model.micro[f"ndcg@{kk}"]},
        "baselines": {}
        if floor is None
        else {BASELINE: {"micro": floor.micro, "macro": floor.macro}},
        "uncertainty": uncertainty,
        "n_lists": n_lists,
        "n_dropped": n_dropped,
        "n_unseen_truth": n_unseen_truth,
        "n_items": n_items,
        "multi_positive": mp,
        "ties": "expectation",
        "tail_rule": {
            "share": tail_share,
            "source": tail_source,
            "n_tail_items": int(np.count_nonzero(tail)),
        },
        "popularity_source": source,
        "comparability": comparability,
        "shrinkage_strength": strength,
        "max_list_length": longest,
        "by_construction": fixed,
        "notes": notes,
    }
    if extras is not None:  # issue 21: the value family and model B (_report/extras.py)
        extras.write(payload)
    payload["decision"] = decision_of(payload)
    return RankingReport(payload)
