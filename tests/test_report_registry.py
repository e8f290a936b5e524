"""The ranking report's metric keys are defined in the registry (issue 19): REPORT_METRICS."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._registry import (
    BY_NAME,
    REPORT_METRICS,
    direction,
    report_metric,
    report_metrics,
    report_table,
)
from lodestar_polars._report.html import report_fragment

DOCS = Path(__file__).resolve().parent.parent / "docs"

# the seed's keys (004), written out by hand: the payload must keep them byte for byte
SEED_MICRO = {
    1: ["hit@1", "hit@5", "mrr@1", "ndcg@1"],
    2: ["hit@1", "hit@5", "hit@2", "mrr@2", "ndcg@2"],
    5: ["hit@1", "hit@5", "mrr@5", "ndcg@5"],
    10: ["hit@1", "hit@5", "hit@10", "mrr@10", "ndcg@10"],
}


def _seed_macro(k: int) -> list[str]:
    return [f"macro_recall@{k}", "catalog_coverage", f"tail_hit@{k}", "entropy", "gini"]


def _log(seed: int, n_users: int = 30, n_items: int = 12) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    users = np.repeat(np.arange(n_users), n_items)
    return pl.DataFrame(
        {
            "user": users,
            "item": np.tile(np.arange(n_items), n_users),
            "score": rng.integers(0, 5, users.size) / 5,
            "clicked": rng.random(users.size) < 0.2,
        }
    )


@pytest.mark.parametrize("k", sorted(SEED_MICRO))
def test_the_payload_keys_are_the_registrys_and_the_seeds(k: int) -> None:
    """Same keys, same order, in every block, the floor's and the intervals' included."""
    log = _log(k)
    train = pl.DataFrame({"item": np.random.default_rng(9).integers(0, 12, 200)})
    report = lp.ranking_report(
        log, by="user", item="item", y_true="clicked", y_score="score", k=k, train=train,
        n_resamples=20,
    )  # fmt: skip
    micro = [m.name(k) for m in report_metrics(k, "micro")]
    macro = [m.name(k) for m in report_metrics(k, "macro") if m.needs is None]
    assert micro == SEED_MICRO[k]
    assert macro == _seed_macro(k)
    beyond = [  # issue 21: written with train
        f"novelty@{k}", f"average_recommended_popularity@{k}", f"serendipity@{k}",
        f"personalisation@{k}",
    ]  # fmt: skip
    ild = [f"intra_list_diversity@{k}"]  # issue 21: written with feature
    assert [m.name(k) for m in report_metrics(k, "macro")] == macro + beyond + ild
    for block in [*report["objectives"].values(), report["baselines"]["global_pop"]]:
        assert list(block["micro"]) == micro
        assert list(block["macro"]) == macro + beyond
    assert list(report["uncertainty"]["model"]) == micro
    assert list(report["uncertainty"]["baselines"]["global_pop"]["difference"]) == micro
    assert report["primary_score"]["metric"] == f"ndcg@{k}"


def test_every_key_has_one_direction_and_direction_reads_it() -> None:
    """gini is lower-is-better, ARP neither way, every other key higher; direction() agrees."""
    lower = {"gini"}
    neither = {"average_recommended_popularity@{k}"}  # as lp.evaluate's arp
    for k in (1, 3, 10, 100):
        for m in report_metrics(k):
            name = m.name(k)
            want = None if m.key in neither else "lower" if m.key in lower else "higher"
            assert m.direction == want, name
            assert direction(name) == want, name
            assert direction(name.upper()) == want, name
            assert report_metric(name) is not None
    assert report_metric("gini@10") is None  # no cutoff on a key that takes none
    assert report_metric("hits@10") is None
    assert direction("hits@10") is None


def test_the_micro_keys_are_the_evaluate_metrics_they_equal() -> None:
    """Direction, label and range come from the metric: hit_rate, reciprocal_rank, ndcg."""
    micro = [m for m in REPORT_METRICS if m.family == "micro"]
    assert {m.metric for m in micro} == {"hit_rate", "reciprocal_rank", "ndcg"}
    for m in micro:
        assert m.metric is not None
        spec = BY_NAME[m.metric]
        assert m.higher_is_better is spec.higher_is_better
        assert m.value_range == spec.value_range
        assert m.display(10) == spec.display(m.cut(10))
    assert [m.display(10) for m in micro] == ["HR@1", "HR@5", "HR@10", "MRR@10", "NDCG@10"]
    # the micro numbers are those metrics' (averaged ties), one positive per list
    one = np.random.default_rng(4).integers(0, 12, 30)  # each user's one clicked item
    log = _log(4).with_columns(clicked=pl.col("item") == pl.Series(np.repeat(one, 12)))
    report = lp.ranking_report(
        log, by="user", item="item", y_true="clicked", y_score="score", k=3,
        objectives=("accuracy",), n_resamples=20,
    )  # fmt: skip
    got = report["objectives"]["accuracy"]["micro"]
    for m in micro:
        assert m.metric is not None
        expr = getattr(lp, m.metric)("clicked", "score", k=m.cut(3))
        want = log.group_by("user").agg(expr.alias("v"))["v"].mean()
        assert got[m.name(3)] == pytest.approx(want, rel=1e-12), m.name(3)


def test_coverage_directions_agree_on_which_ranking_spreads_more() -> None:
    """A model serving everyone the same head items against one serving varied items.

    catalog_coverage, entropy and gini must all call the varied one better, each by its own
    direction; the hand arithmetic: 10 lists, 10 items, k=2.
    """
    n, m = 10, 10
    users = np.repeat(np.arange(n), m)
    items = np.tile(np.arange(m), n)
    head = np.where(items < 2, 1.0, 0.0)  # items 0 and 1 on top everywhere
    varied = np.where((items - users) % m < 2, 1.0, 0.0)  # list u serves u and u+1
    clicked = items == (users % m)

    def report(score: np.ndarray) -> dict[str, Any]:
        frame = pl.DataFrame({"user": users, "item": items, "score": score, "clicked": clicked})
        out = lp.ranking_report(
            frame, by="user", item="item", y_true="clicked", y_score="score", k=2,
            objectives=("accuracy",), n_resamples=20,
        )  # fmt: skip
        macro: dict[str, Any] = out["objectives"]["accuracy"]["macro"]
        return macro

    collapsed, spread = report(head), report(varied)
    # hand arithmetic: exposure 10 on each of 2 items, or 2 on each of 10 items
    assert collapsed["catalog_coverage"] == pytest.approx(2 / 10, rel=1e-12)
    assert spread["catalog_coverage"] == pytest.approx(1.0, rel=1e-12)
    assert collapsed["entropy"] == pytest.approx(math.log(2), rel=1e-12)
    assert spread["entropy"] == pytest.approx(math.log(10), rel=1e-12)
    # Gini of (0 x 8, 10, 10), i = 1..10: sum (2i - n - 1) x_i / (n total)
    # = ((18 - 11) * 10 + (20 - 11) * 10) / (10 * 20)
    assert collapsed["gini"] == pytest.approx((7 * 10 + 9 * 10) / (10 * 20), rel=1e-12)
    assert spread["gini"] == pytest.approx(0.0, abs=1e-12)
    for key in ("catalog_coverage", "entropy", "gini"):
        way = report_metric(key)
        assert way is not None
        better = spread[key] > collapsed[key]
        assert better == (way.direction == "higher"), key


def test_every_value_lies_in_its_range() -> None:
    for seed in range(4):
        report = lp.ranking_report(
            _log(seed), by="user", item="item", y_true="clicked", y_score="score", k=3,
            objectives=("accuracy", "coverage"), n_resamples=20,
        )  # fmt: skip
        for block in report["objectives"].values():
            for family in ("micro", "macro"):
                for name, value in block[family].items():
                    m = report_metric(name)
                    assert m is not None, name
                    assert m.block == family, name
                    assert value is None or value in m.value_range, (name, value)


def test_the_html_tables_show_the_registrys_label_and_direction() -> None:
    report = lp.ranking_report(
        _log(5), by="user", item="item", y_true="clicked", y_score="score", k=3,
        n_resamples=20,
    )  # fmt: skip
    html = report_fragment(report)
    assert "<th>label</th><th>better</th>" in html
    assert "<td>ndcg@3</td><td>NDCG@3</td><td>higher</td>" in html
    assert "<td>hit@1</td><td>HR@1</td><td>higher</td>" in html
    assert "<td>gini</td><td>exposure Gini</td><td>lower</td>" in html
    assert "<td>entropy</td><td>exposure entropy</td><td>higher</td>" in html


def test_the_docs_table_is_the_registrys() -> None:
    page = (DOCS / "report.md").read_text(encoding="utf-8")
    assert report_table() in page, (
        "docs/report.md's table of the report's keys differs from "
        "lodestar_polars._registry.report_table(): paste the function's output into the page"
    )
