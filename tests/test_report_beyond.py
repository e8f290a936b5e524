"""The report's beyond-accuracy keys (issue 21): novelty@k and personalisation@k with ``train=``.

Each equals ``lp.novelty`` / ``lp.personalisation`` computed on the report's served lists (the
lists carrying a graded truth), ranked as the block ranks them (the accuracy block: the model's
scores; the popularity floor: ``train``'s item counts), ties at the cut as expectations.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._registry import direction, report_metric, report_metrics


def _example() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Ties at the cut (user 1's b/c, user 2's three-way tie), a cold item d, a dropped list."""
    scores = pl.DataFrame(
        {
            "user": [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4],
            "item": ["a", "b", "c", "d"] * 3 + ["a", "b", "c"],
            "score": [0.9, 0.5, 0.5, 0.1, 0.2, 0.2, 0.2, 0.4, 0.1, 0.7, 0.3, 0.3, 1, 2, 3],
            "clicked": [False, True, False, False, True, False, False, False]
            + [False, False, True, False, False, False, False],
        }
    )
    train = pl.DataFrame(
        {"user": [1, 1, 2, 3, 3, 5, 5], "item": ["a", "b", "a", "a", "c", "b", "e"]}
    )
    return scores, train


def _report(scores: Any, train: pl.DataFrame, **kw: Any) -> lp.RankingReport:
    base: dict[str, Any] = dict(
        by="user", item="item", y_true="clicked", y_score="score", k=2,
        objectives=("accuracy",), train=train, n_resamples=20,
    )  # fmt: skip
    base.update(kw)
    return lp.ranking_report(scores, **base)


def _served(scores: pl.DataFrame) -> pl.DataFrame:
    """The lists the report grades: those with a positive (user 4 clicked nothing)."""
    return scores.filter(pl.col("clicked").any().over("user"))


def _novelty(served: pl.DataFrame, train: pl.DataFrame, y_score: str, k: int) -> float:
    pop = lp.item_popularity(train, by="user", item="item")
    n_users = train["user"].n_unique()
    joined = served.join(pop.select("item", "popularity"), on="item", how="left")
    joined = joined.with_columns(pl.col("popularity").fill_null(1.0 / n_users))  # cold: one user
    per_list = joined.group_by("user").agg(lp.novelty(y_score, popularity="popularity", k=k))
    return float(per_list.to_series(1).mean())  # type: ignore[arg-type]


@pytest.mark.parametrize("k", [1, 2, 3])
def test_equal_novelty_and_personalisation_on_the_served_top_k(k: int) -> None:
    scores, train = _example()
    report = _report(scores, train, k=k)
    served = _served(scores)
    model = report["objectives"]["accuracy"]["macro"]
    assert model[f"novelty@{k}"] == pytest.approx(_novelty(served, train, "score", k), abs=1e-12)
    want = lp.personalisation(served, by="user", item="item", y_score="score", k=k)
    assert model[f"personalisation@{k}"] == pytest.approx(want, abs=1e-12)
    # the popularity floor ranks by train's item counts (an unseen item: 0), ties at the cut
    counts = train.group_by("item").agg(pl.len().cast(pl.Float64).alias("count"))
    floor_served = served.join(counts, on="item", how="left").with_columns(
        pl.col("count").fill_null(0.0)
    )
    floor = report["baselines"]["global_pop"]["macro"]
    want_nov = _novelty(floor_served, train, "count", k)
    assert floor[f"novelty@{k}"] == pytest.approx(want_nov, abs=1e-12)
    want_p = lp.personalisation(floor_served, by="user", item="item", y_score="count", k=k)
    assert floor[f"personalisation@{k}"] == pytest.approx(want_p, abs=1e-12)


def test_hand_arithmetic_k2() -> None:
    """Users 1-3 (4 training users: 1, 2, 3, 5). p: a 3/4, b 2/4, c 1/4, d cold 1/4.

    Top 2 (model): user 1 a + half each of b, c; user 2 d + one of the tied a, b, c (1/3 each);
    user 3 b + half each of c, d.
    """
    scores, train = _example()
    report = _report(scores, train)
    i = {"a": -math.log2(3 / 4), "b": 1.0, "c": 2.0, "d": 2.0}
    user1 = (i["a"] + (i["b"] + i["c"]) / 2) / 2
    user2 = (i["d"] + (i["a"] + i["b"] + i["c"]) / 3) / 2
    user3 = (i["b"] + (i["c"] + i["d"]) / 2) / 2
    macro = report["objectives"]["accuracy"]["macro"]
    assert macro["novelty@2"] == pytest.approx((user1 + user2 + user3) / 3, abs=1e-12)
    # a_ui = P(in top 2) / sqrt(2); overlaps: per item ((sum a)^2 - sum a^2) / 2
    a = {
        "a": [1, 1 / 3, 0], "b": [1 / 2, 1 / 3, 1], "c": [1 / 2, 1 / 3, 1 / 2], "d": [0, 1, 1 / 2]
    }  # fmt: skip
    overlap = sum((sum(v) ** 2 - sum(x * x for x in v)) / 2 / 2 for v in a.values())
    assert macro["personalisation@2"] == pytest.approx(1 - overlap / 3, abs=1e-12)


def test_only_with_train_and_in_every_view(tmp_path: Path) -> None:
    scores, train = _example()
    without = lp.ranking_report(
        scores, by="user", item="item", y_true="clicked", y_score="score", k=2,
        objectives=("accuracy",), n_resamples=20,
    )  # fmt: skip
    assert "novelty@2" not in without["objectives"]["accuracy"]["macro"]
    report = _report(scores, train, objectives=("accuracy", "coverage"))
    keys = list(report["objectives"]["coverage"]["macro"])
    assert keys[-4:] == [
        "novelty@2", "average_recommended_popularity@2", "serendipity@2", "personalisation@2"
    ]  # fmt: skip
    frame = report.to_frame().filter(pl.col("metric").is_in(["novelty@2", "personalisation@2"]))
    assert frame.height == 6  # two blocks and the floor
    assert frame["ci_low"].is_null().all()  # coverage metrics carry no interval
    assert "novelty@2" not in (report["uncertainty"] or {}).get("model", {})
    html = report.to_html(tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<td>novelty@2</td>" in html
    assert "<td>personalisation@2</td>" in html
    # the registry's facts
    assert direction("novelty@10") == "higher"
    assert direction("personalisation@10") == "higher"
    assert report_metric("novelty@5").family == "coverage"  # type: ignore[union-attr]
    names = [m.name(3) for m in report_metrics(3, "macro")]
    assert names[-5:-1] == [
        "novelty@3", "average_recommended_popularity@3", "serendipity@3", "personalisation@3"
    ]  # then ILD (with feature)  # fmt: skip


def test_train_without_user_columns_counts_each_row_a_user() -> None:
    scores, train = _example()
    rows = train.select("item")  # 7 rows: a 3/7, b 2/7, c 1/7, e 1/7, d cold 1/7
    report = _report(scores, rows, k=1)
    # top 1: user 1 a, user 2 d, user 3 b
    want = (-math.log2(3 / 7) - math.log2(1 / 7) - math.log2(2 / 7)) / 3
    got = report["objectives"]["accuracy"]["macro"]["novelty@1"]
    assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("objectives", [("accuracy",), ("accuracy", "coverage")])
def test_parts_equal_the_whole_path(objectives: Any) -> None:
    scores, train = _example()
    whole = _report(scores, train, objectives=objectives)
    parted = _report(scores.lazy(), train, objectives=objectives, batch_rows=5)
    blocks = [(whole["objectives"][n], parted["objectives"][n]) for n in objectives]
    blocks.append((whole["baselines"]["global_pop"], parted["baselines"]["global_pop"]))
    for a, b in blocks:
        assert list(a["macro"]) == list(b["macro"])
        for key in ("novelty@2", "personalisation@2"):
            assert b["macro"][key] == pytest.approx(a["macro"][key], rel=0, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_random_tied_log_equals_lp_and_its_parts(seed: int) -> None:
    """40 lists of 3-8 candidates, scores on a coarse grid (ties at the cut), k=3."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 9, 40)
    user = np.repeat(np.arange(40), sizes)
    item = np.concatenate([rng.choice(15, s, replace=False) for s in sizes])
    scores = pl.DataFrame(
        {
            "user": user,
            "item": item,
            "score": rng.integers(0, 4, user.size).astype(np.float64),
            "clicked": rng.random(user.size) < 0.2,
        }
    )
    train = pl.DataFrame({"user": rng.integers(0, 30, 300), "item": rng.integers(0, 13, 300)})
    whole = _report(scores, train, k=3)
    parted = _report(scores.lazy(), train, k=3, batch_rows=60)
    served = _served(scores)
    model = whole["objectives"]["accuracy"]["macro"]
    assert model["novelty@3"] == pytest.approx(_novelty(served, train, "score", 3), abs=1e-12)
    want = lp.personalisation(served, by="user", item="item", y_score="score", k=3)
    assert model["personalisation@3"] == pytest.approx(want, abs=1e-12)
    for key in ("novelty@3", "personalisation@3"):
        got = parted["objectives"]["accuracy"]["macro"][key]
        assert got == pytest.approx(model[key], rel=0, abs=1e-12)
        floor = parted["baselines"]["global_pop"]["macro"][key]
        assert floor == pytest.approx(whole["baselines"]["global_pop"]["macro"][key], abs=1e-12)
