"""The report's average_recommended_popularity@k (ARP@k, issue 21), written with ``train=``.

It equals ``lp.average_recommended_popularity`` of the report's served lists (the lists carrying
a graded truth, each once), their top ``k`` ranked as the block ranks them, ``p`` the share of
training users ``lp.item_popularity`` gives (a cold item 0), ties at the cut as expectations.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._registry import direction, report_metric, report_metrics

KEY = "average_recommended_popularity@{k}"


def _example() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Ties at the cut (user 1's b/c, user 2's three-way tie), a cold item d, a dropped list."""
    scores = pl.DataFrame(
        {
            "user": [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4],
            "item": ["a", "b", "c", "d"] * 3 + ["a", "b", "c"],
            "score": [0.9, 0.5, 0.5, 0.1, 0.2, 0.2, 0.2, 0.4, 0.1, 0.7, 0.3, 0.3, 1, 2, 3],
            "score_b": [0.1, 0.2, 0.3, 0.4, 0.4, 0.3, 0.3, 0.1, 0.5, 0.5, 0.5, 0.5, 1, 1, 1],
            "clicked": [False, True, False, False, True, False, False, False]
            + [False, False, True, False, False, False, False],
        }
    )
    train = pl.DataFrame(
        {"user": [1, 1, 2, 3, 3, 5, 5], "item": ["a", "b", "a", "a", "c", "b", "e"]}
    )
    return scores, train


def _report(scores: Any, train: Any, **kw: Any) -> lp.RankingReport:
    base: dict[str, Any] = dict(
        by="user", item="item", y_true="clicked", y_score="score", k=2,
        objectives=("accuracy",), train=train, n_resamples=20,
    )  # fmt: skip
    base.update(kw)
    return lp.ranking_report(scores, **base)


def _served(scores: pl.DataFrame) -> pl.DataFrame:
    """The lists the report grades: those with a positive (user 4 clicked nothing)."""
    return scores.filter(pl.col("clicked").any().over("user"))


def _with_popularity(served: pl.DataFrame, train: pl.DataFrame) -> pl.DataFrame:
    """``p`` per served row: ``lp.item_popularity``'s share of training users, a cold item 0."""
    pop = lp.item_popularity(train, by="user", item="item").select("item", "popularity")
    joined = served.join(pop, on="item", how="left", maintain_order="left")
    return joined.with_columns(pl.col("popularity").fill_null(0.0))


def _arp(served: pl.DataFrame, train: pl.DataFrame, y_score: str, k: int) -> float:
    """The mean over the served lists of ``lp.average_recommended_popularity`` of their top k."""
    joined = _with_popularity(served, train)
    arp = lp.average_recommended_popularity(y_score, popularity="popularity", k=k)
    per_list = joined.group_by("user").agg(arp)
    return float(per_list["average_recommended_popularity"].mean())  # type: ignore[arg-type]


def _floor_scores(served: pl.DataFrame, train: pl.DataFrame) -> pl.DataFrame:
    """The popularity floor's ranking: train's item counts (an unseen item: 0)."""
    counts = train.group_by("item").agg(pl.len().cast(pl.Float64).alias("count"))
    joined = served.join(counts, on="item", how="left", maintain_order="left")
    return joined.with_columns(pl.col("count").fill_null(0.0))


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_every_block_equals_lp_average_recommended_popularity(k: int) -> None:
    """The model's blocks, the popularity floor and model B, against the lp function."""
    scores, train = _example()
    report = _report(scores, train, k=k, objectives=("accuracy", "coverage"), y_score_b="score_b")
    served = _served(scores)
    key = KEY.format(k=k)
    want = _arp(served, train, "score", k)
    for name in ("accuracy", "coverage"):  # a monotone transform: the same top k
        assert report["objectives"][name]["macro"][key] == pytest.approx(want, rel=0, abs=1e-12)
    floor = report["baselines"]["global_pop"]["macro"][key]
    want_floor = _arp(_floor_scores(served, train), train, "count", k)
    assert floor == pytest.approx(want_floor, rel=0, abs=1e-12)
    versus = report["versus"]
    want_b = _arp(served, train, "score_b", k)
    assert versus["model_b"]["macro"][key] == pytest.approx(want_b, rel=0, abs=1e-12)
    diff = versus["difference"]["macro"][key]
    assert diff["estimate"] == pytest.approx(want_b - want, rel=0, abs=1e-12)
    assert diff["ci_low"] is None  # no interval, as every coverage key


def test_hand_arithmetic_k2() -> None:
    """Users 1-3 (4 training users: 1, 2, 3, 5). p: a 3/4, b 2/4, c 1/4, d cold 0.

    Top 2 (model): user 1 a + half each of b, c; user 2 d + one of the tied a, b, c (1/3 each);
    user 3 b + half each of c, d. The floor (train's counts a 3, b 2, c 1, d 0): a and b.
    """
    scores, train = _example()
    report = _report(scores, train)
    p = {"a": 3 / 4, "b": 2 / 4, "c": 1 / 4, "d": 0.0}
    user1 = (p["a"] + (p["b"] + p["c"]) / 2) / 2
    user2 = (p["d"] + (p["a"] + p["b"] + p["c"]) / 3) / 2
    user3 = (p["b"] + (p["c"] + p["d"]) / 2) / 2
    macro = report["objectives"]["accuracy"]["macro"]
    assert macro["average_recommended_popularity@2"] == pytest.approx(
        (user1 + user2 + user3) / 3, rel=0, abs=1e-15
    )
    assert macro["average_recommended_popularity@2"] == pytest.approx(0.375, abs=1e-15)
    floor = report["baselines"]["global_pop"]["macro"]
    assert floor["average_recommended_popularity@2"] == pytest.approx(
        (p["a"] + p["b"]) / 2, rel=0, abs=1e-15
    )


def _enumerated(served: pl.DataFrame, train: pl.DataFrame, y_score: str, k: int) -> float:
    """ARP@k by brute force: each list's top k averaged over every ordering of its ties."""
    joined = _with_popularity(served, train)
    per_list = []
    for (_,), rows in joined.group_by(["user"], maintain_order=True):
        s = rows[y_score].to_list()
        p = rows["popularity"].to_list()
        values = []
        for order in itertools.permutations(range(len(s))):
            ranked = [s[i] for i in order]
            if any(ranked[j] < ranked[j + 1] for j in range(len(ranked) - 1)):
                continue  # not a descending order: not an ordering of the ties
            top = order[: min(k, len(s))]
            values.append(sum(p[i] for i in top) / len(top))
        per_list.append(sum(values) / len(values))
    return float(sum(per_list) / len(per_list))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_ties_at_the_cut_equal_the_enumeration_of_their_orders(k: int) -> None:
    scores, train = _example()
    report = _report(scores, train, k=k, y_score_b="score_b")
    served = _served(scores)
    key = KEY.format(k=k)
    got = report["objectives"]["accuracy"]["macro"][key]
    assert got == pytest.approx(_enumerated(served, train, "score", k), rel=0, abs=1e-12)
    got_b = report["versus"]["model_b"]["macro"][key]  # user 3's four-way tie
    assert got_b == pytest.approx(_enumerated(served, train, "score_b", k), rel=0, abs=1e-12)
    floor = report["baselines"]["global_pop"]["macro"][key]
    want = _enumerated(_floor_scores(served, train), train, "count", k)
    assert floor == pytest.approx(want, rel=0, abs=1e-12)


def test_train_without_user_columns_counts_each_row_a_user() -> None:
    scores, train = _example()
    rows = train.select("item")  # 7 rows: a 3/7, b 2/7, c 1/7, e 1/7, d cold 0
    report = _report(scores, rows, k=1)
    # top 1: user 1 a, user 2 d, user 3 b
    want = (3 / 7 + 0.0 + 2 / 7) / 3
    got = report["objectives"]["accuracy"]["macro"]["average_recommended_popularity@1"]
    assert got == pytest.approx(want, rel=0, abs=1e-15)


def test_only_with_train_and_in_every_view(tmp_path: Path) -> None:
    scores, train = _example()
    without = lp.ranking_report(
        scores, by="user", item="item", y_true="clicked", y_score="score", k=2,
        objectives=("accuracy",), n_resamples=20, y_score_b="score_b",
    )  # fmt: skip
    assert "average_recommended_popularity@" not in without.to_json()
    fitted = train.group_by("item").agg(pl.len().cast(pl.Float64).alias("popularity"))
    floor_only = _report(scores, None, popularity=fitted)  # an already fitted floor: no train
    assert "average_recommended_popularity@" not in floor_only.to_json()
    report = _report(scores, train, objectives=("accuracy", "coverage"), y_score_b="score_b")
    keys = list(report["objectives"]["coverage"]["macro"])
    assert keys[-4:] == [
        "novelty@2", "average_recommended_popularity@2", "serendipity@2", "personalisation@2"
    ]  # fmt: skip
    key = "average_recommended_popularity@2"
    frame = report.to_frame().filter(pl.col("metric") == key)
    # two blocks, the floor, model B and B − A
    assert frame["subject"].to_list() == ["model", "model", "baseline", "model_b", "versus"]
    assert frame["ci_low"].is_null().all()  # coverage metrics carry no interval
    assert key not in (report["uncertainty"] or {}).get("model", {})
    payload = json.loads(report.to_json())
    assert payload["objectives"]["accuracy"]["macro"][key] == pytest.approx(0.375, abs=1e-15)
    assert key in payload["versus"]["model_b"]["macro"]
    html = report.to_html(tmp_path / "r.html").read_text(encoding="utf-8")
    assert f"<td>{key}</td><td>ARP@2</td><td>neither</td>" in html
    assert "<td>novelty@2</td><td>novelty@2</td><td>higher</td>" in html


def test_the_registry_is_its_one_home() -> None:
    m = report_metric("average_recommended_popularity@5")
    assert m is not None
    assert m.key == KEY
    assert m.family == "coverage"
    assert m.block == "macro"
    assert m.needs == "train"
    assert m.higher_is_better is None
    assert m.direction is None  # no better way, as lp.evaluate's arp
    assert m.display(5) == "ARP@5"
    assert (m.value_range.low, m.value_range.high) == (0.0, 1.0)  # a mean of shares
    assert direction("average_recommended_popularity@10") is None
    assert direction("arp@10") is None
    names = [x.name(3) for x in report_metrics(3, "macro") if x.needs == "train"]
    assert names == [
        "novelty@3", "average_recommended_popularity@3", "serendipity@3", "personalisation@3"
    ]  # fmt: skip


def _random_log(seed: int, n_lists: int = 40) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Lists of 3-8 candidates, scores on a coarse grid (ties at the cut)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 9, n_lists)
    user = np.repeat(np.arange(n_lists), sizes)
    item = np.concatenate([rng.choice(15, s, replace=False) for s in sizes])
    scores = pl.DataFrame(
        {
            "user": user,
            "item": item,
            "score": rng.integers(0, 4, user.size).astype(np.float64),
            "score_b": rng.integers(0, 3, user.size).astype(np.float64) / 2,
            "clicked": rng.random(user.size) < 0.2,
        }
    )
    train = pl.DataFrame({"user": rng.integers(0, 30, 300), "item": rng.integers(0, 13, 300)})
    return scores, train


def _blocks(report: Any, objectives: tuple[str, ...]) -> list[Any]:
    out = [report["objectives"][n] for n in objectives]
    return [*out, report["baselines"]["global_pop"], report["versus"]["model_b"]]


@pytest.mark.parametrize("seed", [0, 1])
def test_a_random_tied_log_equals_lp_and_its_parts(seed: int) -> None:
    scores, train = _random_log(seed)
    objectives = ("accuracy", "coverage")
    kw: dict[str, Any] = dict(k=3, objectives=objectives, y_score_b="score_b")
    whole = _report(scores, train, **kw)
    served = _served(scores)
    key = "average_recommended_popularity@3"
    model = whole["objectives"]["accuracy"]["macro"][key]
    assert model == pytest.approx(_arp(served, train, "score", 3), rel=0, abs=1e-12)
    model_b = whole["versus"]["model_b"]["macro"][key]
    assert model_b == pytest.approx(_arp(served, train, "score_b", 3), rel=0, abs=1e-12)
    floor = whole["baselines"]["global_pop"]["macro"][key]
    want = _arp(_floor_scores(served, train), train, "count", 3)
    assert floor == pytest.approx(want, rel=0, abs=1e-12)
    for rows in (7, 60):
        parted = _report(scores.lazy(), train, batch_rows=rows, **kw)
        for a, b in zip(_blocks(whole, objectives), _blocks(parted, objectives), strict=True):
            assert list(a["macro"]) == list(b["macro"])
            assert b["macro"][key] == pytest.approx(a["macro"][key], rel=0, abs=1e-12)


def test_a_lazy_train_and_a_sorted_one_agree() -> None:
    scores, train = _random_log(2)
    a = _report(scores, train, k=3)
    b = _report(scores, train.lazy().sort("item", "user"), k=3)
    key = "average_recommended_popularity@3"
    got = b["objectives"]["accuracy"]["macro"][key]
    assert got == pytest.approx(a["objectives"]["accuracy"]["macro"][key], rel=0, abs=1e-15)
    assert math.isfinite(got)


@pytest.mark.spark
@pytest.mark.parametrize("where", ["polars", "spark"])
def test_spark_equals_the_single_machine_report(spark: Any, where: str) -> None:
    import lodestar_polars.spark as lps

    scores, train = _random_log(3, n_lists=30)
    kw: dict[str, Any] = dict(
        by="user", item="item", y_true="clicked", y_score="score", k=3,
        objectives=("accuracy",), n_resamples=20, y_score_b="score_b",
    )  # fmt: skip
    local = lp.ranking_report(scores, train=train, **kw)
    given = spark.createDataFrame(train.to_arrow()) if where == "spark" else train
    on_spark = lps.ranking_report(
        spark.createDataFrame(scores.to_arrow()), train=given, num_partitions=3, **kw
    )
    key = "average_recommended_popularity@3"
    for a, b in zip(_blocks(on_spark, ("accuracy",)), _blocks(local, ("accuracy",)), strict=True):
        assert list(a["macro"]) == list(b["macro"])
        assert a["macro"][key] == pytest.approx(b["macro"][key], rel=0, abs=1e-12)


# serendipity@k (issue 21): RecTools' serendipity of the served top k, with train=

SER = "serendipity@{k}"


def _with_rank(served: pl.DataFrame, train: pl.DataFrame, n_items: int) -> pl.DataFrame:
    """Each served row's dense popularity rank in train (a cold item ``n_items + 1``)."""
    pop = lp.item_popularity(train, by="user", item="item").select("item", "popularity_rank")
    joined = served.join(pop, on="item", how="left", maintain_order="left")
    return joined.with_columns(pl.col("popularity_rank").fill_null(n_items + 1))


def _serendipity(
    served: pl.DataFrame, train: pl.DataFrame, y_score: str, k: int, n_items: int
) -> float:
    """The mean over the served lists of ``lp.serendipity`` of their top k."""
    joined = _with_rank(served, train, n_items)
    s = lp.serendipity("clicked", y_score, popularity_rank="popularity_rank", n_items=n_items, k=k)
    return float(joined.group_by("user").agg(s)["serendipity"].mean())  # type: ignore[arg-type]


def _serendipity_enumerated(
    served: pl.DataFrame, train: pl.DataFrame, y_score: str, k: int, n_items: int
) -> float:
    """Serendipity@k by brute force over every ordering of each list's ties."""
    joined = _with_rank(served, train, n_items)
    per_list = []
    for (_,), rows in joined.group_by(["user"], maintain_order=True):
        s, r = rows[y_score].to_list(), rows["popularity_rank"].to_list()
        rel = [float(x) for x in rows["clicked"].to_list()]
        values = []
        for order in itertools.permutations(range(len(s))):
            ranked = [s[i] for i in order]
            if any(ranked[j] < ranked[j + 1] for j in range(len(ranked) - 1)):
                continue
            top = order[: min(k, len(s))]
            terms = [rel[i] * max(r[i] - (pos + 1), 0) / n_items for pos, i in enumerate(top)]
            values.append(sum(terms) / len(top))
        per_list.append(sum(values) / len(values))
    return float(sum(per_list) / len(per_list))


def test_serendipity_hand_arithmetic_k2() -> None:
    """N = 4 items; train's dense ranks a 1, b 2, c 3 (e 3), d cold 5.

    User 1's b and user 2's a are never above their popularity; user 3's c (rank 3) is at
    position 2 with chance 1/2: ``(1/2) (3 - 2) / 4 / 2``, over three lists.
    """
    scores, train = _example()
    report = _report(scores, train)
    assert report["n_items"] == 4
    macro = report["objectives"]["accuracy"]["macro"]
    assert macro["serendipity@2"] == pytest.approx(1 / 48, rel=0, abs=1e-15)
    assert report["baselines"]["global_pop"]["macro"]["serendipity@2"] == 0.0


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_serendipity_of_every_block_equals_lp_and_the_enumeration(k: int) -> None:
    scores, train = _example()
    # a cold positive (user 1's d) high in model B's list: its rank N + 1 counts
    scores = scores.with_columns(
        clicked=pl.col("clicked") | ((pl.col("user") == 1) & (pl.col("item") == "d"))
    )
    report = _report(scores, train, k=k, objectives=("accuracy", "coverage"), y_score_b="score_b")
    served, n = _served(scores), report["n_items"]
    key = SER.format(k=k)
    want = _serendipity(served, train, "score", k, n)
    assert want == pytest.approx(_serendipity_enumerated(served, train, "score", k, n), abs=1e-12)
    for name in ("accuracy", "coverage"):
        assert report["objectives"][name]["macro"][key] == pytest.approx(want, rel=0, abs=1e-12)
    want_b = _serendipity(served, train, "score_b", k, n)
    assert want_b > 0
    assert want_b == pytest.approx(
        _serendipity_enumerated(served, train, "score_b", k, n), rel=0, abs=1e-12
    )
    assert report["versus"]["model_b"]["macro"][key] == pytest.approx(want_b, rel=0, abs=1e-12)
    floor_scores = _floor_scores(served, train)
    want_floor = _serendipity(floor_scores, train, "count", k, n)
    floor = report["baselines"]["global_pop"]["macro"][key]
    assert floor == pytest.approx(want_floor, rel=0, abs=1e-12)
    parted = _report(
        scores.lazy(), train, k=k, objectives=("accuracy", "coverage"), y_score_b="score_b",
        batch_rows=4,
    )  # fmt: skip
    both = ("accuracy", "coverage")
    for a, b in zip(_blocks(report, both), _blocks(parted, both), strict=True):
        assert b["macro"][key] == pytest.approx(a["macro"][key], rel=0, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_serendipity_of_a_random_tied_log_equals_lp_and_its_parts(seed: int) -> None:
    scores, train = _random_log(seed)
    objectives = ("accuracy", "coverage")
    kw: dict[str, Any] = dict(k=3, objectives=objectives, y_score_b="score_b")
    whole = _report(scores, train, **kw)
    served, n = _served(scores), whole["n_items"]
    key = "serendipity@3"
    model = whole["objectives"]["accuracy"]["macro"][key]
    assert model == pytest.approx(_serendipity(served, train, "score", 3, n), rel=0, abs=1e-12)
    model_b = whole["versus"]["model_b"]["macro"][key]
    assert model_b == pytest.approx(_serendipity(served, train, "score_b", 3, n), rel=0, abs=1e-12)
    floor = whole["baselines"]["global_pop"]["macro"][key]
    want = _serendipity(_floor_scores(served, train), train, "count", 3, n)
    assert floor == pytest.approx(want, rel=0, abs=1e-12)
    for rows in (7, 60):
        parted = _report(scores.lazy(), train, batch_rows=rows, **kw)
        assert parted["n_items"] == n
        for a, b in zip(_blocks(whole, objectives), _blocks(parted, objectives), strict=True):
            assert b["macro"][key] == pytest.approx(a["macro"][key], rel=0, abs=1e-12)


def test_serendipity_in_every_view(tmp_path: Path) -> None:
    scores, train = _example()
    without = _report(scores, None)
    assert "serendipity@" not in without.to_json()
    report = _report(scores, train, y_score_b="score_b")
    frame = report.to_frame().filter(pl.col("metric") == "serendipity@2")
    assert frame["subject"].to_list() == ["model", "baseline", "model_b", "versus"]
    assert frame["ci_low"].is_null().all()
    html = report.to_html(tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<td>serendipity@2</td><td>serendipity@2</td><td>higher</td>" in html
    m = report_metric("serendipity@7")
    assert m is not None
    assert (m.family, m.needs, m.direction) == ("coverage", "train", "higher")
    assert direction("serendipity@7") == "higher"


@pytest.mark.spark
def test_serendipity_on_spark_equals_the_single_machine_report(spark: Any) -> None:
    import lodestar_polars.spark as lps

    scores, train = _random_log(4, n_lists=30)
    kw: dict[str, Any] = dict(
        by="user", item="item", y_true="clicked", y_score="score", k=3,
        objectives=("accuracy",), n_resamples=20, y_score_b="score_b",
    )  # fmt: skip
    local = lp.ranking_report(scores, train=train, **kw)
    on_spark = lps.ranking_report(
        spark.createDataFrame(scores.to_arrow()),
        train=spark.createDataFrame(train.to_arrow()), num_partitions=3, **kw,
    )  # fmt: skip
    for a, b in zip(_blocks(on_spark, ("accuracy",)), _blocks(local, ("accuracy",)), strict=True):
        assert a["macro"]["serendipity@3"] == pytest.approx(
            b["macro"]["serendipity@3"], rel=0, abs=1e-12
        )


def test_the_cli_gates_read_the_train_keys(tmp_path: Path) -> None:
    from lodestar_polars._report.cli import run

    scores, train = _example()
    scores.write_parquet(tmp_path / "scores.parquet")
    train.write_parquet(tmp_path / "train.parquet")
    argv = [
        str(tmp_path / "scores.parquet"), "--by", "user", "--item", "item", "--y-score", "score",
        "--y-true", "clicked", "--train", str(tmp_path / "train.parquet"), "-k", "2",
        "--objective", "accuracy", "--n-resamples", "20", "-q",
    ]  # fmt: skip
    key = "average_recommended_popularity@2"  # 0.375: no better way, either threshold
    assert run([*argv, "--fail-above", f"{key}=0.4", "--fail-below", f"{key}=0.3"]) == 0
    assert run([*argv, "--fail-above", f"{key}=0.3"]) == 1
    assert run([*argv, "--fail-below", "serendipity@2=0.02"]) == 0  # 1/48
    assert run([*argv, "--fail-below", "serendipity@2=0.03"]) == 1
    assert run([*argv[:9], *argv[11:], "--fail-below", "serendipity@2=0.01"]) == 2  # no train
