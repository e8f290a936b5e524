"""The report's value family (issue 21): value@k, value_share@k, value_ndcg@k.

Hand arithmetic written out on a 3-list example with ties; equality with ``lp.ndcg`` with the
value of the positives as ``y_true``; the parts path equals the whole path; the refusals.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._registry import REPORT_METRICS, direction, report_metric, report_metrics

L2, L3 = 1.0 / math.log2(3.0), 1.0 / math.log2(4.0)  # the DCG discounts at ranks 2 and 3


def _example() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "user": [1, 1, 1, 2, 2, 2, 3, 3, 3],
            "item": ["a", "b", "c"] * 3,
            "score": [0.9, 0.5, 0.5, 0.2, 0.2, 0.2, 0.1, 0.7, 0.3],
            "clicked": [False, True, True, True, False, False, False, False, False],
            "price": [10.0, 4.0, 6.0, 2.0, 3.0, 5.0, 1.0, 1.0, 1.0],
        }
    )


def _report(frame: Any, **kw: Any) -> lp.RankingReport:
    base: dict[str, Any] = dict(
        by="user", item="item", y_true="clicked", y_score="score", k=2,
        objectives=("accuracy",), value="price", n_resamples=30,
    )  # fmt: skip
    base.update(kw)
    return lp.ranking_report(frame, **base)


def test_hand_arithmetic_with_ties() -> None:
    """User 1 clicked b (4) and c (6), tied at ranks 2-3 behind a; user 2 clicked a (2) in a
    three-way tie; user 3 clicked nothing and is dropped.

    P(in top 2): user 1's b and c 1/2 each, user 2's a 2/3.
    value@2: user 1 4/2 + 6/2 = 5, user 2 2 * 2/3 = 4/3; mean (5 + 4/3) / 2 = 19/6.
    value_share@2: 5/10 and (4/3)/2; mean (1/2 + 2/3) / 2 = 7/12.
    value_ndcg@2: E[discount * 1{R <= 2}] is L2/2 for ranks {2, 3} and (1 + L2)/3 for {1, 2, 3};
    user 1 DCG (4 + 6) L2/2 over the ideal 6 + 4 L2; user 2 DCG 2 (1 + L2)/3 over the ideal 2.
    """
    report = _report(_example())
    got = report["objectives"]["accuracy"]["value"]
    assert list(got) == ["value@2", "value_share@2", "value_ndcg@2"]
    assert got["value@2"] == pytest.approx(19 / 6, rel=1e-12)
    assert got["value_share@2"] == pytest.approx(7 / 12, rel=1e-12)
    user1 = 10 * L2 / 2 / (6 + 4 * L2)
    user2 = 2 * (1 + L2) / 3 / 2
    assert got["value_ndcg@2"] == pytest.approx((user1 + user2) / 2, rel=1e-12)
    assert report["value_rule"] == {"column": "price", "n_lists": 2, "n_lists_with_value": 2}
    # the micro family is unchanged by value=
    plain = _report(_example(), value=None)
    assert plain["objectives"]["accuracy"]["micro"] == report["objectives"]["accuracy"]["micro"]
    assert "value" not in plain["objectives"]["accuracy"]
    assert "value_rule" not in plain


def test_k_one_and_the_floor() -> None:
    """k=1: user 1's top is a (not clicked): 0; user 2's top is a with chance 1/3: 2/3.

    The floor ranks by training popularity: a (3) > c (2) > b (1). User 1: c at 2, b at 3,
    so nothing in the top 1; user 2's a is first: value 2, share 1, NDCG 1.
    """
    train = pl.DataFrame({"item": ["a", "a", "a", "c", "c", "b"]})
    report = _report(_example(), k=1, train=train)
    model = report["objectives"]["accuracy"]["value"]
    assert model["value@1"] == pytest.approx((0 + 2 / 3) / 2, rel=1e-12)
    assert model["value_share@1"] == pytest.approx((0 + 1 / 3) / 2, rel=1e-12)
    # ideal at k=1: user 1 6, user 2 2; DCG: user 1 0, user 2 2/3
    assert model["value_ndcg@1"] == pytest.approx((0 + (2 / 3) / 2) / 2, rel=1e-12)
    floor = report["baselines"]["global_pop"]["value"]
    assert floor == pytest.approx({"value@1": 1.0, "value_share@1": 0.5, "value_ndcg@1": 0.5})


def test_value_ndcg_is_lp_ndcg_with_the_price_as_y_true() -> None:
    rng = np.random.default_rng(3)
    n_lists, n_items = 40, 9
    frame = pl.DataFrame(
        {
            "user": np.repeat(np.arange(n_lists), n_items),
            "item": np.tile(np.arange(n_items), n_lists),
            "score": rng.integers(0, 4, n_lists * n_items) / 4.0,  # ties
            "clicked": rng.random(n_lists * n_items) < 0.25,
            "price": rng.integers(0, 50, n_lists * n_items).astype(np.float64),
        }
    )
    report = _report(frame, k=4)
    got = report["objectives"]["accuracy"]["value"]
    gain = pl.when(pl.col("clicked")).then(pl.col("price")).otherwise(0.0)
    per_list = (
        frame.with_columns(gain=gain)
        .group_by("user")
        .agg(
            lp.ndcg("gain", "score", k=4).alias("ndcg"),
            pl.col("gain").sum().alias("total"),
            pl.col("clicked").any().alias("any"),
        )
        .filter(pl.col("any"))
    )
    valued = per_list.filter(pl.col("total") > 0)
    assert got["value_ndcg@4"] == pytest.approx(valued["ndcg"].mean(), rel=1e-12)
    assert report["value_rule"]["n_lists"] == per_list.height
    assert report["value_rule"]["n_lists_with_value"] == valued.height


def test_multi_positive_first_grades_one_positive() -> None:
    """Only user 1's first positive (b, 4) is graded: value@2 (2 + 4/3)/2, share (1/2 + 2/3)/2."""
    got = _report(_example(), multi_positive="first")["objectives"]["accuracy"]["value"]
    assert got["value@2"] == pytest.approx((2 + 4 / 3) / 2, rel=1e-12)
    assert got["value_share@2"] == pytest.approx(7 / 12, rel=1e-12)


def test_zero_value_lists_are_left_out_of_share_and_ndcg() -> None:
    frame = _example().with_columns(
        price=pl.when(pl.col("user") == 2).then(0.0).otherwise(pl.col("price"))
    )
    report = _report(frame)
    got = report["objectives"]["accuracy"]["value"]
    assert got["value@2"] == pytest.approx(5 / 2, rel=1e-12)  # user 2 captures 0
    assert got["value_share@2"] == pytest.approx(1 / 2, rel=1e-12)  # user 1 only
    assert report["value_rule"]["n_lists_with_value"] == 1
    assert any("leave out 1 of 2 list(s)" in note for note in report["notes"])


def test_value_as_an_expression_and_integer_values() -> None:
    frame = _example().with_columns(cents=(pl.col("price") * 100).cast(pl.Int64))
    got = _report(frame, value=(pl.col("cents") / 100).alias("euros"))
    want = _report(_example())
    assert got["objectives"] == want["objectives"]
    assert got["value_rule"]["column"] == "euros"
    ints = _report(frame, value="cents")["objectives"]["accuracy"]["value"]
    assert ints["value@2"] == pytest.approx(100 * 19 / 6, rel=1e-12)


def _log(seed: int, n_lists: int = 200, n_items: int = 10) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    lists = np.repeat(np.arange(n_lists), n_items)
    items = np.tile(np.arange(n_items), n_lists)
    return pl.DataFrame(
        {
            "list": lists,
            "entity": lists // 5,
            "item": items,
            "score": rng.integers(0, 5, lists.size) / 4.0,
            "clicked": rng.random(lists.size) < 0.15,
            "price": rng.integers(0, 30, lists.size) * 1.5,
        }
    ).sample(fraction=1.0, shuffle=True, seed=seed)


@pytest.mark.parametrize("objectives", [("accuracy",), ("coverage", "accuracy")])
def test_parts_equal_the_whole_path(objectives: Any) -> None:
    frame = _log(1)
    kw: dict[str, Any] = dict(
        by="list", item="item", y_true="clicked", y_score="score", k=3, value="price",
        objectives=objectives, groups="entity", n_resamples=40,
        train=pl.DataFrame({"item": np.arange(10).repeat(np.arange(1, 11))}),
    )  # fmt: skip
    whole = lp.ranking_report(frame, **kw)
    parted = lp.ranking_report(frame.lazy(), batch_rows=300, **kw)
    for name in objectives:
        assert parted["objectives"][name]["value"] == pytest.approx(
            whole["objectives"][name]["value"], rel=1e-12
        )
    assert parted["baselines"]["global_pop"]["value"] == pytest.approx(
        whole["baselines"]["global_pop"]["value"], rel=1e-12
    )
    assert parted["value_rule"] == whole["value_rule"]
    assert parted["uncertainty"] == whole["uncertainty"]


@pytest.mark.parametrize(
    ("price", "words"),
    [
        ([10.0, 4.0, None, 2.0, 3.0, 5.0, 1.0, 1.0, 1.0], "is null in row 2 (list 1, item 'c')"),
        ([10.0, 4.0, 6.0, -2.0, 3.0, 5.0, 1.0, 1.0, 1.0], "is negative in row 3 (list 2,"),
        ([10.0, 4.0, 6.0, 2.0, float("inf"), 5.0, 1.0, 1.0, 1.0], "is not finite in row 4"),
    ],
)
@pytest.mark.parametrize("lazy", [False, True])
def test_refusals(price: list[float | None], words: str, *, lazy: bool) -> None:
    frame = _example().with_columns(price=pl.Series(price, dtype=pl.Float64))
    with pytest.raises(lp.InvalidParameterError, match="must name a column of finite, non-neg"):
        _report(frame.lazy() if lazy else frame, batch_rows=3)
    with pytest.raises(lp.InvalidParameterError) as info:
        _report(frame)
    assert words in str(info.value)
    assert "'value' parameter of ranking_report" in str(info.value)


def test_refusals_of_a_non_numeric_or_missing_column() -> None:
    frame = _example().with_columns(tag=pl.lit("x"))
    with pytest.raises(lp.InvalidParameterError, match="must name a numeric column of scores"):
        _report(frame, value="tag")
    with pytest.raises(ValueError, match="price2"):
        _report(_example(), value="price2")


def test_the_registry_holds_the_value_keys() -> None:
    value = [m for m in REPORT_METRICS if m.family == "value"]
    assert [m.key for m in value] == ["value@{k}", "value_share@{k}", "value_ndcg@{k}"]
    assert [m.name(5) for m in report_metrics(5, "value")] == [
        "value@5",
        "value_share@5",
        "value_ndcg@5",
    ]
    for m in value:
        assert m.block == "value"
        assert m.direction == "higher"
    assert report_metric("value_ndcg@10") is value[2]
    assert direction("value@10") == "higher"
    assert all(m.block != "value" for m in report_metrics(5, "macro"))


def test_an_unseen_truth_adds_no_value() -> None:
    """A y_true frame naming an item the model did not score: a miss with no value row.

    User 1 bought b (4, tied at ranks 2-3: half captured) and z (not a candidate); user 2
    bought a (2, a three-way tie at k=2: 2/3 captured). value@2 (2 + 4/3)/2; share (1/2 + 2/3)/2.
    """
    truth = pl.DataFrame({"user": [1, 1, 2], "item": ["b", "z", "a"]})
    report = _report(_example().drop("clicked"), y_true=truth)
    assert report["n_unseen_truth"] == 1
    got = report["objectives"]["accuracy"]["value"]
    assert got["value@2"] == pytest.approx((2 + 4 / 3) / 2, rel=1e-12)
    assert got["value_share@2"] == pytest.approx(7 / 12, rel=1e-12)


def test_against_a_loop_over_lists() -> None:
    """Per list, per positive: b above, t tied, P(R <= k) = clip(k - b, 0, t) / t."""
    rng = np.random.default_rng(11)
    rows = []
    for user in range(25):
        n = int(rng.integers(2, 9))  # lists of different lengths
        for i in range(n):
            rows.append((user, i, float(rng.integers(0, 3)), bool(rng.random() < 0.3),
                         float(rng.integers(0, 10))))  # fmt: skip
    frame = pl.DataFrame(rows, schema=["user", "item", "score", "clicked", "price"], orient="row")
    k = 3
    got = _report(frame, k=k)["objectives"]["accuracy"]["value"]
    captured, shares, ndcgs = [], [], []
    for user in range(25):
        lst = [r for r in rows if r[0] == user]
        pos = [r for r in lst if r[3]]
        if not pos:
            continue
        cap = dcg = 0.0
        for r in pos:
            b = sum(1 for o in lst if o[2] > r[2])
            t = sum(1 for o in lst if o[2] == r[2])
            cap += r[4] * max(0, min(k - b, t)) / t
            dcg += r[4] * sum(1 / math.log2(q + 1) for q in range(b + 1, b + t + 1) if q <= k) / t
        total = sum(r[4] for r in pos)
        ideal = sum(v / math.log2(q + 2) for q, v in enumerate(sorted([r[4] for r in pos])[::-1])
                    if q < k)  # fmt: skip
        captured.append(cap)
        if total > 0:
            shares.append(cap / total)
            ndcgs.append(dcg / ideal)
    assert got["value@3"] == pytest.approx(sum(captured) / len(captured), rel=1e-12)
    assert got["value_share@3"] == pytest.approx(sum(shares) / len(shares), rel=1e-12)
    assert got["value_ndcg@3"] == pytest.approx(sum(ndcgs) / len(ndcgs), rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_every_value_key_lies_in_its_range(seed: int) -> None:
    frame = _log(seed, n_lists=60)
    report = lp.ranking_report(
        frame, by="list", item="item", y_true="clicked", y_score="score", k=3, value="price",
        objectives=("accuracy", "coverage"), n_resamples=10, y_score_b="price",
    )  # fmt: skip
    families = [b["value"] for b in report["objectives"].values()]
    families.append(report["versus"]["model_b"]["value"])
    for family in families:
        for name, value in family.items():
            m = report_metric(name)
            assert m is not None
            assert m.block == "value"
            assert value is None or value in m.value_range, (name, value)
    # value@k is at most the mean realised value of the lists (every positive captured)
    realised = frame.filter(pl.col("clicked")).group_by("list").agg(pl.col("price").sum())["price"]
    for family in families:
        assert family["value@3"] <= float(realised.sum()) / realised.len() + 1e-12
