"""Recall against a latency budget (seed 003, section 2, "Problem 2"): lp.budget_curve and
lp.recall_at_budget.

References: hand arithmetic written out below, a brute-force union of the lists for every
mix on a grid (Python sets, small data), lp.recall for the per-query recall, and the seed's
story on a scenario with the seed's shapes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp

CANDS = pl.DataFrame(
    {
        "user": [1, 1, 1, 1, 2, 2, 2, 2],
        "source": ["pop", "pop", "ann", "ann"] * 2,
        "item": ["a", "b", "c", "a", "a", "b", "d", "c"],
        "score": [0.9, 0.8, 0.7, 0.6, 0.9, 0.8, 0.7, 0.6],
    }
)
RELEVANT = pl.DataFrame({"user": [1, 1, 2], "item": ["a", "c", "d"]})
COST: dict[str, Any] = {"pop": {1: 0.1, 2: 0.2}, "ann": lambda k: 1.0 + k}
ROLES: dict[str, Any] = {"by": "user", "item": "item", "source": "source"}


def test_curve_by_hand() -> None:
    """User 1 has {a, c} relevant, user 2 {d}; pop lists (a, b) for both, ann (c, a) and (d, c).

    pop@1: user 1 finds a (1/2), user 2 nothing: macro (1/2 + 0)/2 = 0.25, micro 1/3.
    ann@1: c for user 1 (1/2), d for user 2 (1): macro 0.75, micro 2/3; ann@2: all, 1.0.
    Costs: pop's table {1: 0.1, 2: 0.2}, ann's 1 + k. pop@2 costs more than pop@1 for the
    same recall: off the front.
    """
    got = lp.budget_curve(CANDS, **ROLES, y_score="score", relevant=RELEVANT, cost=COST)
    want = pl.DataFrame(
        {
            "source": ["ann", "ann", "pop", "pop"],
            "k": [1, 2, 1, 2],
            "cost": [2.0, 3.0, 0.1, 0.2],
            "recall_macro": [0.75, 1.0, 0.25, 0.25],
            "recall_micro": [2 / 3, 1.0, 1 / 3, 1 / 3],
            "pareto": [True, True, True, False],
        }
    )
    assert got.equals(want)


def test_curve_macro_is_the_mean_of_lp_recall() -> None:
    """recall_macro at K is the mean over users of lp.recall(k=K) on that source's list,
    with the relevant items the source never listed counted (n_relevant).
    """
    rng = np.random.default_rng(0)
    n = 300
    frame = pl.DataFrame(
        {
            "user": rng.integers(0, 20, n),
            "source": rng.choice(["x", "y"], n),
            "item": rng.integers(0, 40, n),
            "score": rng.random(n),
        }
    ).unique(["user", "source", "item"])
    relevant = pl.DataFrame(
        {"user": rng.integers(0, 20, 60), "item": rng.integers(0, 40, 60)}
    ).unique()
    curve = lp.budget_curve(
        frame,
        **ROLES,
        y_score="score",
        relevant=relevant,
        cost={"x": lambda k: k, "y": lambda k: k},
    )
    n_rel = relevant.group_by("user").len("n_rel")
    for src in ("x", "y"):
        lst = frame.filter(pl.col("source") == src)
        joined = (
            n_rel.join(lst, on="user", how="left")
            .join(relevant.with_columns(rel=pl.lit(1)), on=["user", "item"], how="left")
            .with_columns(pl.col("rel").fill_null(0), pl.col("score").fill_null(-1.0))
        )
        for k in (1, 3, 7):
            per_user = joined.group_by("user").agg(
                r=lp.recall("rel", "score", k=k, n_relevant="n_rel")
            )
            # users the source does not list: joined with a null item, scored -1, rel 0
            want = per_user["r"].mean()
            got = curve.filter((pl.col("source") == src) & (pl.col("k") == k))["recall_macro"]
            assert got.item() == pytest.approx(want, rel=1e-12)


def test_rank_and_y_true_paths_agree() -> None:
    """A rank column gives what the scores give; y_true in the frame names the relevant."""
    ranked = CANDS.with_columns(
        rank=pl.col("score").rank("ordinal", descending=True).over("user", "source").cast(pl.Int64)
    )
    by_score = lp.budget_curve(CANDS, **ROLES, y_score="score", relevant=RELEVANT, cost=COST)
    by_rank = lp.budget_curve(ranked, **ROLES, rank="rank", relevant=RELEVANT, cost=COST)
    assert by_rank.equals(by_score)
    labelled = CANDS.join(RELEVANT.with_columns(y=pl.lit(1)), on=["user", "item"], how="left")
    labelled = labelled.with_columns(pl.col("y").fill_null(0))
    by_label = lp.budget_curve(labelled, **ROLES, y_score="score", y_true="y", cost=COST)
    assert by_label.equals(by_score)  # every relevant item is listed by some source here


def test_ties_are_broken_by_item_ascending() -> None:
    """Tied scores: the smaller item first, the list lp.top_k serves."""
    frame = pl.DataFrame(
        {"user": [1, 1], "source": ["s", "s"], "item": ["a", "b"], "score": [0.5, 0.5]}
    )
    relevant = pl.DataFrame({"user": [1], "item": ["b"]})
    curve = lp.budget_curve(
        frame, **ROLES, y_score="score", relevant=relevant, cost={"s": {1: 1, 2: 2}}
    )
    assert curve["recall_macro"].to_list() == [0.0, 1.0]  # a first, then b
    served = lp.top_k(frame, 1, by="user", item="item", y_score="score")
    assert served["item"].to_list() == ["a"]


def test_cost_table_is_interpolated_and_bounded() -> None:
    """Between table rows linear; a K outside the table's range is left off the curve."""
    frame = pl.DataFrame(
        {"user": [1] * 5, "source": ["s"] * 5, "item": list("abcde"), "score": [5, 4, 3, 2, 1]}
    )
    relevant = pl.DataFrame({"user": [1], "item": ["e"]})
    cost = {"s": pl.DataFrame({"k": [4, 2], "cost": [3.0, 1.0]})}
    curve = lp.budget_curve(frame, **ROLES, y_score="score", relevant=relevant, cost=cost)
    assert curve["k"].to_list() == [2, 3, 4]
    assert curve["cost"].to_list() == [1.0, 2.0, 3.0]  # k=3: halfway between 1 and 3
    assert curve["recall_macro"].to_list() == [0.0, 0.0, 0.0]  # e is fifth


def test_a_query_a_source_does_not_list_counts_zero() -> None:
    frame = pl.DataFrame({"user": [1], "source": ["s"], "item": ["a"], "score": [1.0]})
    relevant = pl.DataFrame({"user": [1, 2], "item": ["a", "z"]})
    curve = lp.budget_curve(
        frame, **ROLES, y_score="score", relevant=relevant, cost={"s": {1: 1.0}}
    )
    assert curve["recall_macro"].item() == 0.5  # (1 + 0) / 2
    assert curve["recall_micro"].item() == 0.5  # 1 of 2


def test_truth_y_true_filters_truth_rows() -> None:
    relevant = RELEVANT.with_columns(y=pl.Series([1, 0, 1]))  # user 1's c is not relevant
    curve = lp.budget_curve(
        CANDS, **ROLES, y_score="score", relevant=relevant, y_true="y", cost=COST
    )
    # user 1 {a}, user 2 {d}: pop@1 finds a: macro (1 + 0)/2 = 0.5
    assert curve.filter(source="pop", k=1)["recall_macro"].item() == 0.5


def test_budget_by_hand() -> None:
    """Budget 1.0: only pop fits (0.1 / 0.2 for 0.25). 2.0: ann@1 (0.75). 2.1 with mixes:
    ann@1 + pop@1 = {c, a} for user 1, {d, a} for user 2: 1.0 at 2.0 + 0.1.
    """
    got = lp.recall_at_budget(
        CANDS, budget=[0.05, 1.0, 2.0, 2.1], **ROLES, y_score="score", relevant=RELEVANT,
        cost=COST, mix_ks=[1, 2],
    )  # fmt: skip
    assert got["choice"].to_list() == [None, "pop@1", "ann@1", "ann@1 + pop@1"]
    assert got["cost"].to_list() == [0.0, 0.1, 2.0, 2.0 + 0.1]
    assert got["recall_macro"].to_list() == [0.0, 0.25, 0.75, 1.0]
    assert got["recall_micro"].to_list() == [0.0, 1 / 3, 2 / 3, 1.0]
    assert got["k"].struct.unnest().to_dicts()[3] == {"ann": 1, "pop": 1}
    # max: parallel calls cost the slower one
    par = lp.recall_at_budget(
        CANDS, budget=2.0, **ROLES, y_score="score", relevant=RELEVANT, cost=COST,
        mix_ks=[1, 2], combine="max",
    )  # fmt: skip
    assert par["choice"].item() == "ann@1 + pop@1"
    assert par["cost"].item() == 2.0


def _brute_union(
    frame: pl.DataFrame, relevant: pl.DataFrame, sources: list[str], ks: tuple[int, ...]
) -> tuple[float, float]:
    """Recall of the union of each source's top k: lp.top_k's lists, Python sets."""
    ranked = lp.top_k(frame, 10**6, by=["user", "source"], item="item", y_score="score")
    tops: dict[Any, set[Any]] = {}
    for u, s, i, r in ranked.select("user", "source", "item", "rank").iter_rows():
        if r <= ks[sources.index(str(s))]:
            tops.setdefault(u, set()).add(i)
    rel: dict[Any, set[Any]] = {}
    for u, i in relevant.iter_rows():
        rel.setdefault(u, set()).add(i)
    found = {u: len(r & tops.get(u, set())) for u, r in rel.items()}
    macro = float(np.mean([found[u] / len(r) for u, r in rel.items()]))
    micro = sum(found.values()) / sum(len(r) for r in rel.values())
    return macro, micro


def test_mixes_equal_the_brute_force_union() -> None:
    """Every mix on the grid: the histogram's recall equals the union computed with sets."""
    rng = np.random.default_rng(3)
    n = 400
    frame = pl.DataFrame(
        {
            "user": rng.integers(0, 12, n),
            "source": rng.choice(["a", "b", "c"], n),
            "item": rng.integers(0, 30, n),
            "score": rng.integers(0, 6, n).astype(float),  # many ties: lp.top_k's order
        }
    ).unique(["user", "source", "item"])
    relevant = pl.DataFrame({"user": rng.integers(0, 12, 50), "item": rng.integers(0, 30, 50)})
    relevant = relevant.unique()
    grid = [1, 2, 4, 7]
    cost = {s: (lambda k, w=w: w * k) for s, w in (("a", 1.0), ("b", 10.0), ("c", 100.0))}
    # budgets that single out each combination: costs k_a + 10 k_b + 100 k_c are distinct
    from lodestar_polars._budget.budget import _mix_candidates
    from lodestar_polars._budget.inputs import _check_roles, _rank

    roles = _check_roles(
        frame, by="user", item="item", source="source", y_score="score", rank=None,
        relevant=relevant, y_true=None, caller="t",
    )  # fmt: skip
    ranked = _rank(roles, "t")
    combo, cst, macro, micro = _mix_candidates(
        ranked, [cost[s] for s in ranked.sources], grid, "sum", "t"
    )
    assert combo.shape == (5**3, 3)
    for row, m, mi in zip(combo, macro, micro, strict=True):
        want = _brute_union(frame, relevant, ranked.names, tuple(int(v) for v in row))
        assert (m, mi) == pytest.approx(want, rel=1e-12, abs=1e-15)
    # and the public answer at a budget is the best combination that fits
    got = lp.recall_at_budget(
        frame, budget=150.0, **ROLES, y_score="score", relevant=relevant, cost=cost, mix_ks=grid
    )
    fits = cst <= 150.0
    assert got["recall_macro"].item() >= macro[fits].max() - 1e-15


def _scenario(seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame, dict[str, Any]]:
    """Three sources with the seed's shapes and costs (ms).

    - popular: one static top of 200 items for everyone; 3 of each user's 10 relevant items
      are popular, at ranks of an exponential with scale 20: recall gathers quickly and
      plateaus near 0.3. Cost 0.5 + 0.001 k (from memory: almost nothing).
    - ann: finds each relevant item with recall 0.6 (1 - exp(-K/300)) within 1000: grows
      slower, higher. Cost 2 + 0.01 k (milliseconds).
    - neural: 0.9 (1 - exp(-K/400)) within 1000: slower still, highest. Cost 8 + 0.02 k.
    """
    rng = np.random.default_rng(seed)
    n_users, n_rel, length = 40, 10, 1000
    users = np.repeat(np.arange(n_users), n_rel)
    slot = np.tile(np.arange(n_rel), n_users)
    # relevant items: the popular ones are global ids, the others the user's own
    pop_rank = np.minimum(np.ceil(rng.exponential(20.0, users.size)), 10_000).astype(int)
    popular = slot < 3
    item = np.where(
        popular,
        [f"pop{r}" for r in pop_rank],
        [f"u{u}_{j}" for u, j in zip(users, slot, strict=True)],
    )
    relevant = pl.DataFrame({"user": users, "item": item}).unique()
    frames = [
        pl.DataFrame(
            {
                "user": np.repeat(np.arange(n_users), 200),
                "source": "popular",
                "item": [f"pop{r}" for r in np.tile(np.arange(1, 201), n_users)],
                "score": -np.tile(np.arange(1, 201), n_users).astype(float),
            }
        )
    ]
    for name, plateau, scale in (("ann", 0.6, 300.0), ("neural", 0.9, 400.0)):
        t = relevant
        n = t.height
        reach = plateau * (1 - np.exp(-length / scale))
        found = rng.random(n) < reach
        u = rng.random(n) * (1 - np.exp(-length / scale))
        pos = -scale * np.log1p(-u)  # a truncated exponential within the list
        rel = t.filter(pl.Series(found)).with_columns(
            score=pl.Series(-pos[found]), source=pl.lit(name)
        )
        fill_users = np.repeat(np.arange(n_users), length)
        filler = pl.DataFrame(
            {
                "user": fill_users,
                "item": [f"{name}_f{i}" for i in range(fill_users.size)],
                "score": -rng.random(fill_users.size) * length,
                "source": name,
            }
        )
        # each list keeps its top 1000: the relevant items and the filler around them
        lst = pl.concat(
            [
                rel.select(filler.columns),
                filler.with_columns(pl.col("user").cast(rel["user"].dtype)),
            ]
        )
        lst = lst.sort("score", descending=True).group_by("user", maintain_order=True).head(length)
        frames.append(lst.select("user", "source", "item", "score"))
    frame = pl.concat([f.with_columns(pl.col("user").cast(pl.Int64)) for f in frames])
    cost = {
        "popular": lambda k: 0.5 + 0.001 * k,
        "ann": lambda k: 2.0 + 0.01 * k,
        "neural": lambda k: 8.0 + 0.02 * k,
    }
    return frame, relevant.with_columns(pl.col("user").cast(pl.Int64)), cost


def test_the_seeds_story() -> None:
    """At 3 ms the popular top wins; by 20 ms the winner changes twice (popular, ann, neural)."""
    frame, relevant, cost = _scenario()
    curve = lp.budget_curve(frame, **ROLES, y_score="score", relevant=relevant, cost=cost)
    # the shapes: popular gathers quickly and plateaus, the others grow slower but higher
    at = {
        (s, k): curve.filter(source=s, k=k)["recall_macro"].item()
        for s in ("popular", "ann", "neural")
        for k in (50, 200, 1000)
        if curve.filter(source=s, k=k).height
    }
    assert at[("popular", 50)] > 0.8 * at[("popular", 200)]  # most of it by 50
    assert at[("ann", 50)] < at[("popular", 50)] < at[("ann", 1000)] < at[("neural", 1000)]
    budgets = [3.0 + 0.25 * i for i in range(69)]  # 3 ms to 20 ms
    best = lp.recall_at_budget(
        frame, budget=budgets, **ROLES, y_score="score", relevant=relevant, cost=cost
    )
    winner = [c.split("@")[0] for c in best["choice"].to_list()]
    assert winner[0] == "popular"
    changes = [i for i in range(1, len(winner)) if winner[i] != winner[i - 1]]
    assert [winner[0], *(winner[i] for i in changes)] == ["popular", "ann", "neural"]
    assert len(changes) == 2
    # at 3 ms the others return too few candidates: ann affords 100, neural nothing
    three = best.row(0, named=True)
    assert three["k"]["ann"] == 0
    assert three["k"]["neural"] == 0
    ann_100 = curve.filter(source="ann", k=100)["recall_macro"].item()
    assert three["recall_macro"] > ann_100
    assert curve.filter((pl.col("source") == "neural") & (pl.col("cost") <= 3.0)).height == 0
    # every winner is on the front
    front = curve.filter("pareto")
    for row in best.iter_rows(named=True):
        src, k = row["choice"].split("@")
        assert front.filter(source=src, k=int(k)).height == 1
    # "the time saved buys you another source": with mixes, at 20 ms a mix beats neural alone
    mixed = lp.recall_at_budget(
        frame, budget=20.0, **ROLES, y_score="score", relevant=relevant, cost=cost,
        mix_ks=[10, 20, 50, 100, 200, 300, 400, 500, 600, 700, 800, 1000],
    )  # fmt: skip
    assert "+" in mixed["choice"].item()
    assert mixed["recall_macro"].item() > best["recall_macro"][-1]
    assert mixed["cost"].item() <= 20.0


def test_lazy_in_lazy_out() -> None:
    lazy = lp.budget_curve(CANDS.lazy(), **ROLES, y_score="score", relevant=RELEVANT, cost=COST)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(
        lp.budget_curve(CANDS, **ROLES, y_score="score", relevant=RELEVANT, cost=COST)
    )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"y_score": None}, "exactly one of them"),
        ({"rank": "score"}, "exactly one of them"),
        ({"relevant": None}, "Got neither"),
        ({"cost": {"pop": {1: 0.1}}}, r"lacks \['ann'\]"),
        ({"cost": {**COST, "neural": {1: 1.0}}}, r"names \['neural'\], not a source"),
        ({"cost": {"pop": {0: 0.1}, "ann": COST["ann"]}}, "distinct ints k >= 1"),
        ({"cost": {"pop": {1: -1.0}, "ann": COST["ann"]}}, "finite costs >= 0"),
        ({"cost": {"pop": pl.DataFrame({"n": [1]}), "ann": COST["ann"]}}, "columns 'k' and 'cost'"),
        ({"cost": {"pop": lambda k: [1.0], "ann": COST["ann"]}}, "must return an array of 2"),
        ({"cost": {"pop": lambda k: -k, "ann": COST["ann"]}}, "finite costs >= 0"),
        ({"cost": "cheap"}, "non-empty mapping"),
        ({"average": "weighted"}, "'average'"),
        ({"relevant": pl.DataFrame({"item": ["a"]})}, "lacks"),
    ],
)
def test_refusals(kwargs: dict[str, Any], match: str) -> None:
    base: dict[str, Any] = {"y_score": "score", "relevant": RELEVANT, "cost": COST}
    with pytest.raises(lp.InvalidParameterError, match=match):
        lp.budget_curve(CANDS, **ROLES, **{**base, **kwargs})


def test_data_refusals() -> None:
    twice = pl.concat([CANDS, CANDS.head(1)])
    with pytest.raises(ValueError, match="listed twice by one source"):
        lp.budget_curve(twice, **ROLES, y_score="score", relevant=RELEVANT, cost=COST)
    tied = CANDS.with_columns(rank=pl.lit(1))
    with pytest.raises(ValueError, match="share a rank"):
        lp.budget_curve(tied, **ROLES, rank="rank", relevant=RELEVANT, cost=COST)
    zero = CANDS.with_columns(rank=pl.lit(0))
    with pytest.raises(ValueError, match="rank must be >= 1"):
        lp.budget_curve(zero, **ROLES, rank="rank", relevant=RELEVANT, cost=COST)
    nan = CANDS.with_columns(score=pl.lit(float("nan")))
    with pytest.raises(ValueError, match="null or NaN"):
        lp.budget_curve(nan, **ROLES, y_score="score", relevant=RELEVANT, cost=COST)
    with pytest.raises(ValueError, match="no query has a relevant item"):
        lp.budget_curve(CANDS, **ROLES, y_score="score", relevant=RELEVANT.head(0), cost=COST)


def test_budget_refusals() -> None:
    base: dict[str, Any] = {**ROLES, "y_score": "score", "relevant": RELEVANT, "cost": COST}
    budgets: list[Any] = [-1.0, [], "3ms", float("nan"), True]
    for budget in budgets:
        with pytest.raises(lp.InvalidParameterError, match="'budget'"):
            lp.recall_at_budget(CANDS, budget=budget, **base)
    grids: list[Any] = [[0], [], [1.5], "10"]
    for grid in grids:
        with pytest.raises(lp.InvalidParameterError, match="'mix_ks'"):
            lp.recall_at_budget(CANDS, budget=1.0, mix_ks=grid, **base)
    with pytest.raises(lp.InvalidParameterError, match="'combine'"):
        lp.recall_at_budget(CANDS, budget=1.0, combine="mean", **base)  # type: ignore[arg-type]
    many = {**base, "cost": {"pop": lambda k: k, "ann": lambda k: k}}
    from lodestar_polars._budget import budget as _budget

    old = _budget.MAX_COMBINATIONS
    _budget.MAX_COMBINATIONS = 5
    try:
        with pytest.raises(lp.InvalidParameterError, match="coarser grid"):
            lp.recall_at_budget(CANDS, budget=1.0, mix_ks=[1, 2], **many)
    finally:
        _budget.MAX_COMBINATIONS = old
