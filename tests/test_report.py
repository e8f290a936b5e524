"""lp.ranking_report (issue 10): the seed's claims, a slow reference, the bootstrap, bad input."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import lodestar_polars as lp

# ---------------------------------------------------------------------------
# a slow reference, written from the seed's definitions (Python loops)


def _rank_range(scores: dict[Any, float], item: Any) -> range:
    """The positions the item may take: uniform on [b+1, b+t]."""
    s = scores[item]
    b = sum(1 for v in scores.values() if v > s)
    t = sum(1 for v in scores.values() if v == s)
    return range(b + 1, b + t + 1)


def _expect(positions: range, f: Callable[[int], float]) -> float:
    return sum(f(r) for r in positions) / len(positions)


def reference(
    rows: list[tuple[Any, Any, float, bool]],
    k: int,
    *,
    train: list[Any] | None = None,
    tail_share: float = 0.2,
    multi_positive: str = "each",
    truth_pairs: list[tuple[Any, Any]] | None = None,
) -> dict[str, Any]:
    """The families by the seed's definitions, one list and one item at a time.

    rows: (list, item, score, truth) in input order; truth_pairs, when given, are the realised
    (list, item) pairs instead of the rows' truth flags (an item may be no candidate: a miss).
    """
    lists: dict[Any, dict[Any, float]] = {}
    positives: dict[Any, list[Any]] = {}
    for key, item, score, truth in rows:
        lists.setdefault(key, {})[item] = score
        if truth and truth_pairs is None:
            positives.setdefault(key, []).append(item)
    for key, item in truth_pairs or []:
        if item not in positives.setdefault(key, []):
            positives[key].append(item)
    graded = []  # (list, truth item)
    for key in lists:
        pos = positives.get(key, [])
        for item in pos[:1] if multi_positive == "first" else pos:
            graded.append((key, item))
    catalogue = sorted({item for _, item, _, _ in rows})

    def micro_of(sc: dict[Any, dict[Any, float]]) -> tuple[dict[str, float], list[float]]:
        cuts = [("hit@1", 1, "hit"), ("hit@5", 5, "hit")]
        if k not in (1, 5):
            cuts.append((f"hit@{k}", k, "hit"))
        cuts += [(f"mrr@{k}", k, "rr"), (f"ndcg@{k}", k, "dcg")]
        fs: dict[str, Callable[[int], Callable[[int], float]]] = {
            "hit": lambda c: lambda r: 1.0 if r <= c else 0.0,
            "rr": lambda c: lambda r: 1.0 / r if r <= c else 0.0,
            "dcg": lambda c: lambda r: 1.0 / math.log2(r + 1) if r <= c else 0.0,
        }
        out = {}
        hits = []
        for name, c, kind in cuts:
            vals = [
                _expect(_rank_range(sc[key], it), fs[kind](c)) if it in sc[key] else 0.0
                for key, it in graded
            ]
            out[name] = sum(vals) / len(vals)
            if name == f"hit@{k}":
                hits = vals
        return out, hits

    def macro_of(sc: dict[Any, dict[Any, float]], hits: list[float]) -> dict[str, Any]:
        per_class: dict[Any, list[float]] = {}
        for (_, it), h in zip(graded, hits, strict=True):
            per_class.setdefault(it, []).append(h)
        macro_recall = sum(sum(v) / len(v) for v in per_class.values()) / len(per_class)
        # P(item in top k) per list, each list counted once per graded list
        weight = Counter(key for key, _ in graded)
        exposure = {it: 0.0 for it in catalogue}
        miss = {it: 1.0 for it in catalogue}
        for key, cand in sc.items():
            for it in cand:
                p = _expect(_rank_range(cand, it), lambda r: 1.0 if r <= k else 0.0)
                exposure[it] += weight[key] * p
                miss[it] *= (1.0 - p) ** weight[key]
        coverage = sum(1.0 - m for m in miss.values()) / len(catalogue)
        total = sum(exposure.values())
        ent = -sum((e / total) * math.log(e / total) for e in exposure.values() if e > 0)
        xs = sorted(exposure.values())
        n = len(xs)
        g = sum((2 * (i + 1) - n - 1) * x for i, x in enumerate(xs)) / (n * total)
        # tail: least popular items holding <= share of the positives, whole ties at once
        pop = Counter(train) if train is not None else Counter(it for _, it in graded)
        known = set(catalogue) | {it for _, it in graded} | set(pop)
        ptotal = sum(pop.values())
        tail = {
            it
            for it in known
            if sum(pop[j] for j in known if pop[j] <= pop[it]) <= tail_share * ptotal
        }
        tail_hits = [h for (_, it), h in zip(graded, hits, strict=True) if it in tail]
        return {
            f"macro_recall@{k}": macro_recall,
            "catalog_coverage": coverage,
            f"tail_hit@{k}": sum(tail_hits) / len(tail_hits) if tail_hits else None,
            "entropy": ent,
            "gini": max(0.0, g),
            "_exposure": total,
        }

    micro, hits = micro_of(lists)
    out = {"micro": micro, "macro": macro_of(lists, hits), "n_lists": len(graded)}
    if train is not None:
        pop = Counter(train)
        floor = {key: {it: float(pop[it]) for it in cand} for key, cand in lists.items()}
        # unseen truths stay misses under the floor too
        fmicro, fhits = micro_of(floor)
        out["floor"] = {"micro": fmicro, "macro": macro_of(floor, fhits)}
    return out


def _frame(rows: list[tuple[Any, Any, float, bool]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "user": [r[0] for r in rows],
            "item": [r[1] for r in rows],
            "score": [r[2] for r in rows],
            "clicked": [r[3] for r in rows],
        },
        schema={"user": pl.Int64, "item": pl.Int64, "score": pl.Float64, "clicked": pl.Boolean},
    )


def _close(got: dict[str, Any], want: dict[str, Any]) -> None:
    for key, value in want.items():
        if key.startswith("_"):
            continue
        if value is None:
            assert got[key] is None, key
        else:
            assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key


@st.composite
def logs(draw: Any) -> list[tuple[int, int, float, bool]]:
    """Small long frames with heavy ties (three score values)."""
    n_lists = draw(st.integers(1, 5))
    rows = []
    for key in range(n_lists):
        items = draw(st.lists(st.integers(0, 7), min_size=1, max_size=7, unique=True))
        for it in items:
            rows.append((key, it, draw(st.sampled_from([0.0, 0.5, 1.0])), draw(st.booleans())))
    if not any(r[3] for r in rows):
        r = rows[0]
        rows[0] = (r[0], r[1], r[2], True)
    return rows


@given(
    rows=logs(),
    k=st.integers(1, 8),
    train=st.none() | st.lists(st.integers(0, 9), min_size=1, max_size=20),
    multi=st.sampled_from(["each", "first"]),
)
@example(rows=[(0, 0, 0.0, True), (0, 1, 0.0, False)], k=1, train=None, multi="each")
@example(
    rows=[(0, 0, 1.0, True), (0, 1, 1.0, True), (1, 1, 0.0, False)], k=1, train=[1], multi="each"
)
@example(
    rows=[
        (0, 0, 0.5, False),
        (0, 1, 0.5, True),
        (0, 2, 1.0, True),
        (1, 0, 0.0, True),
        (1, 1, 0.5, False),
        (1, 2, 0.5, False),
    ],
    k=2,
    train=[0, 0, 2],
    multi="each",
)  # every list over the same items: the (lists x items) matrix path
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_family_matches_the_slow_reference(
    rows: list[tuple[int, int, float, bool]], k: int, train: list[int] | None, multi: str
) -> None:
    """Micro, macro and the floor equal the loop reference on tied frames."""
    want = reference(rows, k, train=train, multi_positive=multi)
    got = lp.ranking_report(
        _frame(rows),
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=k,
        objectives=("accuracy",),
        train=None if train is None else pl.DataFrame({"item": train}),
        multi_positive=multi,  # type: ignore[arg-type]
        n_resamples=20,
    )
    block = got["objectives"]["accuracy"]
    _close(block["micro"], want["micro"])
    _close(block["macro"], want["macro"])
    assert got["n_lists"] == want["n_lists"]
    if train is None:
        assert got["baselines"] == {}
    else:
        _close(got["baselines"]["global_pop"]["micro"], want["floor"]["micro"])
        _close(got["baselines"]["global_pop"]["macro"], want["floor"]["macro"])


# ---------------------------------------------------------------------------
# the seed's worked claims


def _constant(n_classes: int, n_lists: int = 60) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "user": np.repeat(np.arange(n_lists), n_classes),
            "item": np.tile(np.arange(n_classes), n_lists),
            "score": np.zeros(n_lists * n_classes),
        }
    ).with_columns(clicked=pl.col("item") == pl.col("user") % n_classes)


def test_constant_model_over_20_classes_covers_the_catalogue() -> None:
    """Seed: no preference over 20 items at k=10 is coverage 1.0, hit@10 0.5."""
    report = lp.ranking_report(
        _constant(20),
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=10,
        objectives=("accuracy",),
    )
    block = report["objectives"]["accuracy"]
    assert block["micro"]["hit@10"] == pytest.approx(0.5, rel=1e-12)
    # 1 - (1 - 1/2)**60 for every item: 1.0 to double precision
    assert block["macro"]["catalog_coverage"] == pytest.approx(1.0, rel=1e-15)
    assert block["macro"]["gini"] == pytest.approx(0.0, abs=1e-12)
    assert block["macro"]["entropy"] == pytest.approx(math.log(20), rel=1e-12)


def test_coverage_of_one_constant_list_is_the_exact_product() -> None:
    """One list: each item is in its top 10 with chance 1/2, so coverage 1 - 1/2."""
    report = lp.ranking_report(
        _constant(20, n_lists=1),
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=10,
        objectives=("accuracy",),
    )
    assert report["objectives"]["accuracy"]["macro"]["catalog_coverage"] == 0.5


@pytest.mark.parametrize("n_classes", range(11, 20))
def test_constant_model_hit_at_10_is_10_over_c_never_1(n_classes: int) -> None:
    """Seed: E[hit@10] is 10/C for 11 to 19 items, not the 1.0 of the average rank."""
    report = lp.ranking_report(
        _constant(n_classes),
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        objectives=("accuracy",),
    )
    hit = report["objectives"]["accuracy"]["micro"]["hit@10"]
    assert hit == pytest.approx(10 / n_classes, rel=1e-12)
    assert hit < 1.0


@pytest.mark.parametrize(("n_classes", "k"), [(3, 10), (10, 10), (20, 5), (40, 10)])
def test_constant_model_hit_at_k_is_min_k_c_over_c(n_classes: int, k: int) -> None:
    """hit@k = min(k, C) / C, hit@1 = 1/C, and coverage min(k, C)/C-exposure for every item."""
    report = lp.ranking_report(
        _constant(n_classes),
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=k,
        objectives=("accuracy",),
    )
    micro = report["objectives"]["accuracy"]["micro"]
    assert micro[f"hit@{k}"] == pytest.approx(min(k, n_classes) / n_classes, rel=1e-12)
    assert micro["hit@1"] == pytest.approx(1 / n_classes, rel=1e-12)
    # mrr@k: the mean of 1/r over the first min(k, C) of C equally likely ranks
    want = sum(1 / r for r in range(1, min(k, n_classes) + 1)) / n_classes
    assert micro[f"mrr@{k}"] == pytest.approx(want, rel=1e-12)


@given(rows=logs(), k=st.integers(1, 8))
@settings(max_examples=30, deadline=None)
def test_exposure_sums_to_n_lists_times_k(rows: list[tuple[int, int, float, bool]], k: int) -> None:
    """Expected exposures sum to the served slots: n_lists * k."""
    from lodestar_polars._report.ranking_report import Graded, _grade, score_block, tail_items

    g: Graded
    g, base = _grade(
        _frame(rows),
        keys=["user"],
        item="item",
        score="score",
        truth="clicked",
        groups=None,
        multi_positive="each",
        engine="auto",
    )
    tail = tail_items(np.zeros(g.items.len()), 0.0, 0.2)
    block = score_block(g, base["score"].to_numpy(), k, tail)
    sizes = np.bincount(g.list_id)
    want = float(np.sum(g.weight * np.minimum(sizes, k)))
    assert block.exposure.sum() == pytest.approx(want, rel=1e-12)
    if (sizes[g.weight > 0] >= k).all():
        assert block.exposure.sum() == pytest.approx(report_n(g) * k, rel=1e-12)


def report_n(g: Any) -> int:
    """The graded lists' count."""
    return int(g.g_list.size)


# ---------------------------------------------------------------------------
# equal to the existing expressions when the truth is one relevant item


@given(rows=logs(), k=st.integers(1, 8))
@settings(max_examples=40, deadline=None)
def test_micro_equals_hit_rate_reciprocal_rank_ndcg(
    rows: list[tuple[int, int, float, bool]], k: int
) -> None:
    """One relevant item: the expressions' averaged ties give the same numbers."""
    frame = _frame(rows)
    # ndcg refuses a one-document group (scikit-learn's rule): lists of two items or more
    frame = frame.filter(pl.len().over("user") > 1)
    if frame.is_empty() or not frame["clicked"].any():
        return
    # one positive per list: keep its first
    frame = frame.with_columns(
        clicked=pl.col("clicked") & (pl.col("clicked").cum_sum().over("user") == 1)
    )
    graded = frame.filter(pl.col("clicked").any().over("user"))
    means = (
        graded.group_by("user")
        .agg(
            hit=lp.hit_rate("clicked", "score", k=k),
            rr=lp.reciprocal_rank("clicked", "score", k=k),
            ndcg=lp.ndcg("clicked", "score", k=k),
        )
        .mean()
    )
    micro = lp.ranking_report(
        frame,
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=k,
        objectives=("accuracy",),
        n_resamples=10,
    )["objectives"]["accuracy"]["micro"]
    assert micro[f"hit@{k}"] == pytest.approx(means["hit"].item(), rel=1e-12)
    assert micro[f"mrr@{k}"] == pytest.approx(means["rr"].item(), rel=1e-12)
    assert micro[f"ndcg@{k}"] == pytest.approx(means["ndcg"].item(), rel=1e-12)


# ---------------------------------------------------------------------------
# input forms: truth frame, unseen truth, dropped lists, multi positives


def test_truth_frame_unseen_truth_and_dropped_lists() -> None:
    """An unseen truth is a graded miss; a list without positive is dropped."""
    scores = pl.DataFrame(
        {
            "user": [1, 1, 1, 2, 2, 3, 3],
            "item": ["a", "b", "c", "a", "b", "a", "b"],
            "score": [0.9, 0.5, 0.1, 0.3, 0.3, 0.2, 0.1],
        }
    )
    truth = pl.DataFrame({"user": [1, 1, 2], "item": ["b", "z", "b"]})
    report = lp.ranking_report(
        scores,
        by="user",
        item="item",
        y_true=truth,
        y_score="score",
        k=1,
        objectives=("accuracy",),
    )
    assert report["n_lists"] == 3
    assert report["n_dropped"] == 1  # user 3
    assert report["n_unseen_truth"] == 1  # (1, z)
    micro = report["objectives"]["accuracy"]["micro"]
    # (1, b) at rank 2: 0; (1, z) unseen: 0; (2, b) tied at [1, 2]: 1/2
    assert micro["hit@1"] == pytest.approx((0 + 0 + 0.5) / 3, rel=1e-12)
    # mrr@1 is hit@1; ndcg@1 too
    assert micro["mrr@1"] == pytest.approx(0.5 / 3, rel=1e-12)
    macro = report["objectives"]["accuracy"]["macro"]
    # classes b (0, 0.5) and z (0): (0.25 + 0) / 2
    assert macro["macro_recall@1"] == pytest.approx(0.125, rel=1e-12)


def test_first_positive_in_input_order() -> None:
    """multi_positive='first' grades the first positive only."""
    scores = pl.DataFrame({"user": [1, 1, 1], "item": ["a", "b", "c"], "score": [0.9, 0.5, 0.1]})
    truth = pl.DataFrame({"user": [1, 1], "item": ["c", "a"]})
    each = lp.ranking_report(
        scores, by="user", item="item", y_score="score", y_true=truth, k=1, objectives=("accuracy",)
    )
    first = lp.ranking_report(
        scores,
        by="user",
        item="item",
        y_true=truth,
        y_score="score",
        k=1,
        objectives=("accuracy",),
        multi_positive="first",
    )
    assert each["n_lists"] == 2
    assert each["objectives"]["accuracy"]["micro"]["hit@1"] == 0.5
    assert first["n_lists"] == 1
    assert first["objectives"]["accuracy"]["micro"]["hit@1"] == 0.0  # c came first


def test_multi_column_list_key_and_payload_is_json() -> None:
    """A two-column list key; the payload survives a JSON round trip."""
    scores = pl.DataFrame(
        {
            "user": [1, 1, 1, 1],
            "day": [1, 1, 2, 2],
            "item": ["a", "b", "a", "b"],
            "score": [0.9, 0.1, 0.1, 0.9],
            "clicked": [1, 0, 1, 0],
        }
    )
    report = lp.ranking_report(
        scores,
        by=["user", "day"],
        item="item",
        y_true="clicked",
        y_score="score",
        k=1,
        train=pl.DataFrame({"item": ["a", "a", "b"]}),
        groups="user",
        objectives=("accuracy",),
    )
    assert report["objectives"]["accuracy"]["micro"]["hit@1"] == 0.5
    assert report["uncertainty"] is None  # one entity: below two units
    assert json.loads(json.dumps(report)) == report
    keys = {
        "schema_version",
        "k",
        "objectives",
        "objective_alpha",
        "primary_objective",
        "primary_score",
        "baselines",
        "uncertainty",
        "n_lists",
        "n_dropped",
        "n_unseen_truth",
        "n_items",
        "multi_positive",
        "ties",
        "tail_rule",
        "popularity_source",
        "comparability",
        "shrinkage_strength",
        "max_list_length",
        "by_construction",
        "notes",
        "decision",
    }
    assert set(report) == keys


# ---------------------------------------------------------------------------
# eager = lazy = streaming; row order does not matter


def _random_log(seed: int, n_users: int = 40, n_items: int = 12) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    users = np.repeat(np.arange(n_users), n_items)
    items = np.tile(np.arange(n_items), n_users)
    return pl.DataFrame(
        {
            "user": users,
            "entity": users // 3,
            "item": items,
            "score": rng.integers(0, 4, users.size) / 4,
            "clicked": rng.random(users.size) < 0.15,
        }
    )


def test_eager_lazy_streaming_and_row_order_give_one_payload() -> None:
    """The same payload eager, lazy, streaming and on shuffled rows."""
    log = _random_log(1)
    train = pl.DataFrame({"item": np.random.default_rng(2).integers(0, 12, 300)})
    kwargs: dict[str, Any] = dict(
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=3,
        groups="entity",
        objectives=("accuracy",),
        train=train,
        n_resamples=200,
    )
    eager = lp.ranking_report(log, **kwargs)
    assert lp.ranking_report(log.lazy(), **kwargs) == eager
    assert lp.ranking_report(log.lazy(), engine="streaming", **kwargs) == eager
    shuffled = log.sample(fraction=1.0, shuffle=True, seed=3)
    assert lp.ranking_report(shuffled, **kwargs) == eager
    assert eager["uncertainty"]["unit"] == "entity"
    graded_entities = log.filter(pl.col("clicked"))["entity"].n_unique()
    assert eager["uncertainty"]["n_units"] == graded_entities


# ---------------------------------------------------------------------------
# the bootstrap against scipy.stats.bootstrap


def test_bootstrap_matches_scipy() -> None:
    """Cluster intervals equal scipy.stats.bootstrap's paired percentile ones."""
    stats = pytest.importorskip("scipy.stats")
    log = _random_log(5)
    train = pl.DataFrame({"item": np.random.default_rng(6).integers(0, 12, 200)})
    report = lp.ranking_report(
        log,
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=3,
        groups="entity",
        objectives=("accuracy",),
        train=train,
        n_resamples=300,
        confidence_level=0.9,
        seed=7,
    )
    from lodestar_polars._report.ranking_report import _grade, _popularity, score_block, tail_items

    g, base = _grade(
        log,
        keys=["user"],
        item="item",
        score="score",
        truth="clicked",
        groups="entity",
        multi_positive="each",
        engine="auto",
    )
    pop, _, _, _ = _popularity(g, "item", train, None)
    assert pop is not None
    tail = tail_items(pop, 1.0, 0.2)
    model = score_block(g, base["score"].to_numpy(), 3, tail)
    floor = score_block(g, pop[g.item_id], 3, tail)
    assert g.unit is not None
    n_units = int(g.unit.max()) + 1
    count = np.bincount(g.unit, minlength=n_units).astype(float)
    unc = report["uncertainty"]
    for name in ("hit@1", "hit@3", "mrr@3", "ndcg@3"):
        sm = np.bincount(g.unit, weights=model.per_list[name], minlength=n_units)
        sf = np.bincount(g.unit, weights=floor.per_list[name], minlength=n_units)

        def mean(s: Any, n: Any, axis: int = -1) -> Any:
            return s.sum(axis=axis) / n.sum(axis=axis)

        def gap(a: Any, b: Any, n: Any, axis: int = -1) -> Any:
            return (a.sum(axis=axis) - b.sum(axis=axis)) / n.sum(axis=axis)

        for stat, data, got in (
            (mean, (sm, count), unc["model"][name]),
            (mean, (sf, count), unc["baselines"]["global_pop"]["floor"][name]),
            (gap, (sm, sf, count), unc["baselines"]["global_pop"]["difference"][name]),
        ):
            ref = stats.bootstrap(
                data,
                stat,
                paired=True,
                vectorized=True,
                n_resamples=300,
                confidence_level=0.9,
                method="percentile",
                rng=np.random.default_rng(7),
            )
            assert got["ci_low"] == pytest.approx(ref.confidence_interval.low, rel=1e-12)
            assert got["ci_high"] == pytest.approx(ref.confidence_interval.high, rel=1e-12)
        diff = unc["baselines"]["global_pop"]["difference"][name]
        want = (
            "model_ahead"
            if diff["ci_low"] > 0
            else "baseline_ahead"
            if diff["ci_high"] < 0
            else "undecided"
        )
        assert diff["verdict"] == want
        assert diff["estimate"] == pytest.approx(
            report["objectives"]["accuracy"]["micro"][name]
            - report["baselines"]["global_pop"]["micro"][name],
            rel=1e-12,
            abs=1e-15,
        )


def test_bootstrap_batches_follow_scipys_stream() -> None:
    """Batched resamples draw the stream scipy draws with the same batch."""
    stats = pytest.importorskip("scipy.stats")
    from lodestar_polars._report.ranking_report import resample_counts

    rng = np.random.default_rng(0)
    s, n = rng.random(50), np.ones(50)
    got = np.concatenate([(w @ s) / (w @ n) for w in resample_counts(50, 100, 4, batch=30)])
    ref = stats.bootstrap(
        (s, n),
        lambda a, b, axis=-1: a.sum(axis) / b.sum(axis),
        paired=True,
        vectorized=True,
        n_resamples=100,
        batch=30,
        method="percentile",
        rng=np.random.default_rng(4),
    )
    np.testing.assert_allclose(np.sort(got), np.sort(ref.bootstrap_distribution), rtol=1e-12)


def test_a_clear_model_is_ahead_of_the_floor() -> None:
    """A model that always ranks the truth first beats the floor."""
    n_users, n_items = 200, 10
    users = np.repeat(np.arange(n_users), n_items)
    items = np.tile(np.arange(n_items), n_users)
    target = users % n_items
    log = pl.DataFrame(
        {"user": users, "item": items, "score": (items == target) * 1.0, "clicked": items == target}
    )
    train = pl.DataFrame({"item": [0] * 50 + list(range(10))})
    report = lp.ranking_report(
        log,
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=3,
        objectives=("accuracy",),
        train=train,
    )
    diff = report["uncertainty"]["baselines"]["global_pop"]["difference"]
    assert diff["hit@1"]["verdict"] == "model_ahead"
    assert report["uncertainty"]["unit"] == "row"
    assert report["uncertainty"]["n_units"] == n_users


def test_popularity_floor_equals_train() -> None:
    """A fitted popularity= floor equals the one fitted from train."""
    log = _random_log(9)
    train = pl.DataFrame({"item": [0, 0, 1, 2, 2, 2]})
    fitted = pl.DataFrame({"item": [0, 1, 2], "popularity": [2.0, 1.0, 3.0]})
    kw: dict[str, Any] = dict(
        by="user", item="item", y_score="score", y_true="clicked", objectives=("accuracy",)
    )
    a = lp.ranking_report(log, train=train, **kw)
    b = lp.ranking_report(log, popularity=fitted, **kw)
    # issue 21: written with train only
    beyond = {
        "novelty@10", "average_recommended_popularity@10", "serendipity@10", "personalisation@10"
    }  # fmt: skip
    a_macro = a["baselines"]["global_pop"]["macro"]
    assert beyond <= set(a_macro)
    assert not beyond & set(b["baselines"]["global_pop"]["macro"])
    for key in beyond:
        del a_macro[key]
    assert a["baselines"] == b["baselines"]
    assert a["popularity_source"] == "train"
    assert b["popularity_source"] == "popularity"


def test_tail_rule_is_recorded() -> None:
    """The tail rule is recorded; zero-popularity items are tail."""
    log = _random_log(4)
    train = pl.DataFrame({"item": [0] * 80 + [1] * 10 + [2] * 5 + [3] * 5})
    report = lp.ranking_report(
        log,
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=3,
        objectives=("accuracy",),
        train=train,
        tail_share=0.2,
    )
    # items 4..11 never seen (0), then 2 and 3 (5 each: 10 <= 20), then 1 (20 <= 20)
    assert report["tail_rule"] == {"share": 0.2, "source": "train", "n_tail_items": 11}


# ---------------------------------------------------------------------------
# bad input: clear sentences


BASE = pl.DataFrame(
    {
        "user": [1, 1, 2, 2],
        "item": ["a", "b", "a", "b"],
        "score": [0.5, 0.1, 0.2, 0.3],
        "clicked": [True, False, False, True],
    }
)


@pytest.mark.parametrize(
    ("frame", "kwargs", "msg"),
    [
        (
            BASE.drop("score"),
            {},
            "ranking_report: scores has no column 'score' (its columns: "
            "['user', 'item', 'clicked']).",
        ),
        (
            pl.concat([BASE, BASE.head(1)]),
            {},
            "ranking_report: list 1 has item 'a' more than once; scores must hold one row per "
            "(list, item).",
        ),
        (
            BASE.with_columns(score=pl.Series([0.5, float("nan"), 0.2, 0.3])),
            {},
            "ranking_report: scores must be finite; list 1 has score=nan for item 'b'.",
        ),
        (
            BASE.with_columns(score=pl.Series([0.5, 0.1, float("inf"), 0.3])),
            {},
            "ranking_report: scores must be finite; list 2 has score=inf for item 'a'.",
        ),
        (
            BASE,
            {"objectives": ("accuracy", "speed")},
            "The 'objectives' parameter of ranking_report must be one of "
            "['accuracy', 'balanced', 'coverage']. Got 'speed' instead.",
        ),
        (
            BASE,
            {"y_true": pl.DataFrame({"user": [1, 7], "item": ["a", "b"]})},
            "ranking_report: the y_true frame names 1 list(s) that are not in scores, e.g. 7.",
        ),
        (
            BASE,
            {"y_true": pl.DataFrame({"user": [1]})},
            "ranking_report: the y_true frame has no column 'item' (its columns: ['user']).",
        ),
        (
            BASE,
            {
                "train": pl.DataFrame({"item": ["a"]}),
                "popularity": pl.DataFrame({"item": ["a"], "popularity": [1.0]}),
            },
            "ranking_report: pass either train (training interactions to fit the popularity "
            "floor) or popularity (an already fitted floor), not both.",
        ),
        (
            BASE,
            {"k": 0},
            "The 'k' parameter of ranking_report must be an int in the range [1, inf). "
            "Got 0 instead.",
        ),
        (
            BASE.with_columns(clicked=pl.lit(False)),
            {},
            "ranking_report: no list of scores has a positive, so there is nothing to grade.",
        ),
        (
            BASE.with_columns(clicked=pl.Series([1, 0, 2, 0])),
            {},
            "ranking_report: the y_true column 'clicked' must hold only True/False or 0/1. "
            "Got 2 in list 2.",
        ),
        (
            BASE.with_columns(clicked=pl.Series([1, 3, 2, 0])),
            {},
            "ranking_report: the y_true column 'clicked' must hold only True/False or 0/1. "
            "Got 3 in list 1.",
        ),
        (
            BASE.with_columns(clicked=pl.Series([1.0, 0.5, 0.0, 1.0])),
            {},
            "ranking_report: the y_true column 'clicked' must hold only True/False or 0/1. "
            "Got 0.5 in list 1.",
        ),
        (
            BASE.with_columns(g=pl.Series([1, 1, None, None])),
            {"groups": "g"},
            "ranking_report: scores column 'g' has null values (first in row 2).",
        ),
        (
            BASE,
            {"y_true": pl.DataFrame({"user": ["1"], "item": ["a"]})},
            "ranking_report: column 'user' is String in the y_true frame but Int64 in scores; "
            "they must match.",
        ),
        (
            BASE,
            {"primary_objective": "balanced"},
            "The 'primary_objective' parameter of ranking_report must be one of the objectives "
            "['accuracy', 'coverage']. Got 'balanced' instead.",
        ),
        (
            BASE.with_columns(g=pl.Series([1, 2, 3, 3])),
            {"groups": "g"},
            "ranking_report: groups column 'g' must be constant within a list; list 1 has 2 "
            "values.",
        ),
        (
            BASE,
            {"multi_positive": "all"},
            "The 'multi_positive' parameter of ranking_report must be one of ['each', 'first']. "
            "Got 'all' instead.",
        ),
        (
            BASE,
            {"confidence_level": 1.5},
            "The 'confidence_level' parameter of ranking_report must be a float in the range "
            "(0.0, 1.0). Got 1.5 instead.",
        ),
        (
            BASE,
            {"popularity": pl.DataFrame({"item": ["a"], "popularity": [-1.0]})},
            "ranking_report: popularity must be finite and non-negative; item 'a' has -1.0.",
        ),
    ],
    ids=[
        "missing-column",
        "duplicate-item",
        "nan-score",
        "inf-score",
        "unknown-objective",
        "truth-unknown-list",
        "truth-missing-column",
        "train-and-popularity",
        "k-zero",
        "no-positive",
        "truth-not-binary",
        "truth-not-binary-twice",
        "truth-float-half",
        "groups-null",
        "truth-dtype",
        "primary-not-an-objective",
        "groups-not-constant",
        "multi-positive",
        "confidence-level",
        "negative-popularity",
    ],
)
def test_bad_input_gets_a_sentence(frame: pl.DataFrame, kwargs: dict[str, Any], msg: str) -> None:
    """Bad input gets the sentence, never a raw Polars error."""
    args: dict[str, Any] = dict(by="user", item="item", y_score="score", y_true="clicked")
    args.update(kwargs)
    with pytest.raises(ValueError, match=re.escape(msg)):
        lp.ranking_report(frame, **args)


def test_an_entity_without_positive_is_no_bootstrap_unit() -> None:
    """Dropped lists take their entity out of the resampling too."""
    log = pl.DataFrame(
        {
            "user": [1, 1, 2, 2, 3, 3],
            "entity": ["x", "x", "y", "y", "z", "z"],
            "item": ["a", "b"] * 3,
            "score": [0.9, 0.1, 0.1, 0.9, 0.5, 0.5],
            "clicked": [True, False, True, False, False, False],
        }
    )
    report = lp.ranking_report(
        log,
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=1,
        objectives=("accuracy",),
        groups="entity",
        n_resamples=50,
    )
    assert report["n_dropped"] == 1
    assert report["uncertainty"]["n_units"] == 2


# ---------------------------------------------------------------------------
# objectives: the report's wiring, with a test double of the comparability module (issue 10b)


class _Comparability:
    """A stand-in for lodestar_polars._report.comparability: score / (base rate + 0.01) ** alpha."""

    OBJECTIVE_ALPHA = {"accuracy": 0.0, "balanced": 0.5, "coverage": 1.0}

    def __init__(self) -> None:
        self.fits = 0

    def fit_comparability(
        self, frame: pl.DataFrame, *, by: list[str], item: str, y_score: str, y_true: str
    ) -> dict[Any, float]:
        self.fits += 1
        rates = frame.group_by(item).agg(pl.col(y_true).mean())
        return dict(zip(rates[item].to_list(), rates[y_true].to_list(), strict=True))

    def transform_for_objective(
        self,
        frame: pl.DataFrame,
        objective: str,
        state: dict[Any, float],
        *,
        by: list[str],
        item: str,
        y_score: str,
        popularity_discount: float | None,
        shrinkage: bool,
        shrinkage_strength: Any,
        percentile: bool,
    ) -> pl.DataFrame:
        score, alpha = y_score, popularity_discount
        if alpha is None:  # a percentile block: no discount (the double ranks as given)
            assert percentile
            return frame.with_columns(pl.col(score).cast(pl.Float64))
        rate = pl.col(item).replace_strict(state, default=0.0, return_dtype=pl.Float64)
        return frame.with_columns(pl.col(score) / (rate + 0.01) ** alpha)


@pytest.fixture
def comparability(monkeypatch: pytest.MonkeyPatch) -> _Comparability:
    """The test double installed as lodestar_polars._report.comparability."""
    import sys
    import types

    double = _Comparability()
    module = types.ModuleType("lodestar_polars._report.comparability")
    module.OBJECTIVE_ALPHA = double.OBJECTIVE_ALPHA  # type: ignore[attr-defined]
    module.fit_comparability = double.fit_comparability  # type: ignore[attr-defined]
    module.transform_for_objective = double.transform_for_objective  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "lodestar_polars._report.comparability", module)
    return double


def _by_hand(log: pl.DataFrame, alpha: float, state: dict[Any, float]) -> dict[str, Any]:
    rate = pl.col("item").replace_strict(state, default=0.0, return_dtype=pl.Float64)
    moved = log.with_columns(pl.col("score") / (rate + 0.01) ** alpha)
    block = lp.ranking_report(
        moved,
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=3,
        objectives=("accuracy",),
        n_resamples=20,
    )["objectives"]["accuracy"]
    return dict(block)


def test_each_objective_ranks_at_its_alpha(comparability: _Comparability) -> None:
    """accuracy is the identity; coverage ranks the re-expressed scores; one state is fitted."""
    log = _random_log(11)
    report = lp.ranking_report(
        log, by="user", item="item", y_score="score", y_true="clicked", k=3, n_resamples=20
    )
    state = comparability.fit_comparability(
        log, by=["user"], item="item", y_score="score", y_true="clicked"
    )
    assert report["objective_alpha"] == {"accuracy": 0.0, "coverage": 1.0}
    assert report["comparability"] == "fitted_on_scores"
    assert comparability.fits == 2  # once by the report, once above
    assert report["objectives"]["accuracy"] == _by_hand(log, 0.0, state)
    assert report["objectives"]["coverage"] == _by_hand(log, 1.0, state)
    assert report["objectives"]["coverage"] != report["objectives"]["accuracy"]
    assert report["primary_score"]["value"] == report["objectives"]["accuracy"]["micro"]["ndcg@3"]


def test_a_configured_discount_moves_the_primary_block_only(
    comparability: _Comparability,
) -> None:
    """popularity_discount is the operating point's alpha; the other blocks keep their own."""
    log = _random_log(12)
    kw: dict[str, Any] = dict(
        by="user", item="item", y_score="score", y_true="clicked", k=3, n_resamples=20
    )
    plain = lp.ranking_report(log, **kw)
    tuned = lp.ranking_report(log, popularity_discount=0.3, **kw)
    state = comparability.fit_comparability(
        log, by=["user"], item="item", y_score="score", y_true="clicked"
    )
    assert tuned["objective_alpha"] == {"accuracy": 0.3, "coverage": 1.0}
    assert tuned["objectives"]["coverage"] == plain["objectives"]["coverage"]
    assert tuned["objectives"]["accuracy"] == _by_hand(log, 0.3, state)
    assert tuned["objectives"]["accuracy"] != plain["objectives"]["accuracy"]
    assert tuned["primary_score"]["value"] == tuned["objectives"]["accuracy"]["micro"]["ndcg@3"]
    assert tuned["uncertainty"]["model"]["ndcg@3"]["estimate"] == tuned["primary_score"]["value"]


def test_a_given_state_is_used_and_percentile_blocks_have_no_alpha(
    comparability: _Comparability,
) -> None:
    """state= is not refitted; a percentile block records alpha null."""
    log = _random_log(13)
    # a real state passes the report's check; the double (percentile: no alpha) never reads it
    state = lp.fit_comparability(log, by="user", item="item", y_score="score", y_true="clicked")
    report = lp.ranking_report(
        log,
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=3,
        n_resamples=20,
        objectives=("coverage", "balanced"),
        state=state,
        percentile=True,
    )
    assert comparability.fits == 0
    assert report["comparability"] == "given"
    assert report["objective_alpha"] == {"coverage": None, "balanced": None}
    assert report["primary_objective"] == "coverage"


@given(
    rows=logs(),
    pairs=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 9)), min_size=1, max_size=8),
    k=st.integers(1, 8),
    multi=st.sampled_from(["each", "first"]),
)
@settings(max_examples=40, deadline=None)
def test_a_truth_frame_matches_the_slow_reference(
    rows: list[tuple[int, int, float, bool]],
    pairs: list[tuple[int, int]],
    k: int,
    multi: str,
) -> None:
    """Realised pairs as a frame, items outside the candidates included (misses)."""
    present = {r[0] for r in rows}
    pairs = [p for p in pairs if p[0] in present]
    if not pairs:
        pairs = [(rows[0][0], 9)]
    want = reference(rows, k, multi_positive=multi, truth_pairs=pairs)
    truth = pl.DataFrame(pairs, schema={"user": pl.Int64, "item": pl.Int64}, orient="row")
    got = lp.ranking_report(
        _frame(rows),
        by="user",
        item="item",
        y_true=truth,
        y_score="score",
        k=k,
        objectives=("accuracy",),
        multi_positive=multi,  # type: ignore[arg-type]
        n_resamples=10,
    )
    block = got["objectives"]["accuracy"]
    _close(block["micro"], want["micro"])
    _close(block["macro"], want["macro"])
    assert got["n_lists"] == want["n_lists"]
    candidates = {(r[0], r[1]) for r in rows}
    graded = {(key, it) for key, it in pairs}
    if multi == "each":
        assert got["n_unseen_truth"] == len(graded - candidates)


@pytest.mark.parametrize(
    "dtype", [pl.Boolean, pl.UInt8, pl.Int32, pl.Int64, pl.Float32, pl.Float64]
)
def test_truth_column_dtypes(dtype: pl.DataType) -> None:
    """A Boolean or any numeric 0/1 truth column grades the same lists."""
    frame = BASE.with_columns(pl.col("clicked").cast(dtype))
    report = lp.ranking_report(
        frame,
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=1,
        objectives=("accuracy",),
    )
    # user 1 clicked its best item, user 2 its best item too
    assert report["objectives"]["accuracy"]["micro"]["hit@1"] == 1.0
    assert report["n_lists"] == 2


@pytest.mark.parametrize(
    ("kwargs", "msg"),
    [
        (
            {"train": ["a", "b"]},
            "The 'train' parameter of ranking_report must be a polars DataFrame or LazyFrame. "
            "Got list instead.",
        ),
        (
            {"popularity": {"a": 1.0}},
            "The 'popularity' parameter of ranking_report must be a polars DataFrame or "
            "LazyFrame. Got dict instead.",
        ),
        (
            {"scores": {"user": [1]}},
            "The 'scores' parameter of ranking_report must be a polars DataFrame or LazyFrame. "
            "Got dict instead.",
        ),
    ],
    ids=["train-list", "popularity-dict", "scores-dict"],
)
def test_frames_of_the_wrong_type(kwargs: dict[str, Any], msg: str) -> None:
    """Not a frame: a TypeError sentence, not an AttributeError."""
    args: dict[str, Any] = dict(
        scores=BASE, by="user", item="item", y_score="score", y_true="clicked"
    )
    args.update(kwargs)
    scores = args.pop("scores")
    with pytest.raises(TypeError, match=re.escape(msg)):
        lp.ranking_report(scores, **args)


# ---------------------------------------------------------------------------
# objectives with the real comparability transforms (issue 10b)


def test_real_objectives_block_by_block() -> None:
    """Each block is the report of the scores transform_for_objective gives at its alpha."""
    log = _random_log(21).with_columns(pl.col("score") + 0.125)
    kw: dict[str, Any] = dict(
        by="user", item="item", y_score="score", y_true="clicked", k=3, n_resamples=20
    )
    state = lp.fit_comparability(log, by="user", item="item", y_score="score", y_true="clicked")
    report = lp.ranking_report(log, popularity_discount=0.25, **kw)
    assert report["objective_alpha"] == {"accuracy": 0.25, "coverage": 1.0}
    assert report["comparability"] == "fitted_on_scores"
    blocks: tuple[tuple[Literal["accuracy", "coverage"], float], ...] = (
        ("accuracy", 0.25),
        ("coverage", 1.0),
    )
    for name, alpha in blocks:
        moved = lp.transform_for_objective(
            log, name, state, by="user", item="item", y_score="score", popularity_discount=alpha
        )
        alone = lp.ranking_report(moved, objectives=("accuracy",), **kw)
        assert report["objectives"][name] == alone["objectives"]["accuracy"]
    plain = lp.ranking_report(log, **kw)
    assert plain["objectives"]["coverage"] == report["objectives"]["coverage"]
    assert plain["objectives"]["accuracy"] != report["objectives"]["accuracy"]
    given = lp.ranking_report(log, state=state, popularity_discount=0.25, **kw)
    assert given["comparability"] == "given"
    assert given["objectives"] == report["objectives"]


def test_real_percentile_blocks() -> None:
    """percentile=True: every block ranks by the within-item percentile, alpha null."""
    log = _random_log(22)
    report = lp.ranking_report(
        log,
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=3,
        n_resamples=20,
        percentile=True,
    )
    assert report["objective_alpha"] == {"accuracy": None, "coverage": None}
    assert report["objectives"]["accuracy"] == report["objectives"]["coverage"]


@pytest.mark.parametrize(
    ("kwargs", "msg"),
    [
        (
            {"popularity_discount": 0.5, "percentile": True},
            "ranking_report: popularity_discount=0.5 cannot be combined with percentile=True: "
            "a block ranked by percentile applies no popularity discount.",
        ),
        (
            {"popularity_discount": 2.0},
            "The 'popularity_discount' parameter of ranking_report must be a float in [0, 1] "
            "(the popularity discount alpha) or None. Got 2.0 instead.",
        ),
        ({"shrinkage": True, "percentile": True}, "shrinkage"),
    ],
    ids=["discount-with-percentile", "alpha-out-of-range", "shrinkage-with-percentile"],
)
def test_objective_refusals(kwargs: dict[str, Any], msg: str) -> None:
    """Objective options out of their domain: a sentence, from the report or the transform."""
    with pytest.raises(ValueError, match=re.escape(msg)):
        lp.ranking_report(BASE, by="user", item="item", y_score="score", y_true="clicked", **kwargs)


@given(
    n_lists=st.integers(1, 6),
    length=st.integers(1, 7),
    data=st.data(),
)
@settings(max_examples=60, deadline=None)
def test_rank_bounds_both_paths_match_the_definition(
    n_lists: int, length: int, data: st.DataObject
) -> None:
    """b (strictly above) and t (tie block) per row: the matrix path and the sort path."""
    from lodestar_polars._report import ranking_report as _report

    values = np.array(
        data.draw(
            st.lists(
                st.sampled_from([0.0, -0.0, 0.5, 1.0]),
                min_size=n_lists * length,
                max_size=n_lists * length,
            )
        )
    )
    list_id = np.repeat(np.arange(n_lists, dtype=np.int64), length)
    want_b = np.array(
        [
            sum(1 for j in range(length) if values[i // length * length + j] > values[i])
            for i in range(values.size)
        ]
    )
    want_t = np.array(
        [
            sum(1 for j in range(length) if values[i // length * length + j] == values[i])
            for i in range(values.size)
        ]
    )
    assert _report._rectangle(list_id) == (n_lists, length)
    b, t = _report.rank_bounds(list_id, values)
    np.testing.assert_array_equal(b, want_b)
    np.testing.assert_array_equal(t, want_t)
    # the general path: drop the first row, so the lists are no longer one rectangle
    if n_lists > 1 and length > 1:
        ragged_ids, ragged_values = list_id[1:], values[1:]
        assert _report._rectangle(ragged_ids) is None
        rb, rt = _report.rank_bounds(ragged_ids, ragged_values)
        for i in range(ragged_values.size):
            same = ragged_ids == ragged_ids[i]
            assert rb[i] == np.sum(ragged_values[same] > ragged_values[i])
            assert rt[i] == np.sum(ragged_values[same] == ragged_values[i])


# ---------------------------------------------------------------------------
# every verdict right: one rule per option, on every path


def test_a_shrinkage_strength_shrinks_the_accuracy_block() -> None:
    """Decision 0013: a shrinkage_strength switches shrinkage on, in the report as in the transform.

    The accuracy block ranks the shrunk scores, not the raw ones.
    """
    log = _random_log(23)
    kw: dict[str, Any] = dict(
        by="user", item="item", y_score="score", y_true="clicked", k=3, n_resamples=20
    )
    state = lp.fit_comparability(log, by="user", item="item", y_score="score", y_true="clicked")
    shrunk = lp.transform_for_objective(
        log, "accuracy", state, by="user", item="item", y_score="score", shrinkage_strength=50.0
    )
    report = lp.ranking_report(log, objectives=("accuracy",), shrinkage_strength=50.0, **kw)
    alone = lp.ranking_report(shrunk, objectives=("accuracy",), **kw)
    raw = lp.ranking_report(log, objectives=("accuracy",), **kw)
    assert report["objectives"] == alone["objectives"]
    assert report["objectives"] != raw["objectives"]
    assert report["comparability"] == "fitted_on_scores"
    assert report["shrinkage_strength"] == 50.0
    assert raw["shrinkage_strength"] is None
    # shrinkage=True without a strength is the same rule at its default strength, 50
    on = lp.ranking_report(log, objectives=("accuracy",), shrinkage=True, **kw)
    assert on["objectives"] == report["objectives"]


@pytest.mark.parametrize("ragged", [False, True], ids=["matrix", "ragged"])
@pytest.mark.parametrize(
    ("dtype", "low"),
    [(pl.Int64, 2**53), (pl.UInt64, 2**64 - 2), (pl.Int64, -(2**63)), (pl.Int128, 2**100)],
)
def test_integer_scores_rank_as_integers(dtype: pl.DataType, low: int, *, ragged: bool) -> None:
    """2**53 + 1 ranks above 2**53 (lp.evaluate's rule): the clicked item is first, hit@1 is 1."""
    users = [1, 1, 2, 2] + ([2] if ragged else [])
    items = ["a", "b", "a", "b"] + (["c"] if ragged else [])
    values = [low, low + 1, low + 1, low] + ([low] if ragged else [])
    clicked = [False, True, True, False] + ([False] if ragged else [])
    log = pl.DataFrame({"user": users, "item": items, "clicked": clicked}).with_columns(
        pl.Series("score", values, dtype=dtype)
    )
    report = lp.ranking_report(
        log, by="user", item="item", y_score="score", y_true="clicked", k=1,
        objectives=("accuracy",), n_resamples=20,
    )  # fmt: skip
    micro = report["objectives"]["accuracy"]["micro"]
    # by hand: each list's clicked item has the strictly largest score, so it is at rank 1
    assert micro["hit@1"] == 1.0
    assert micro["mrr@1"] == 1.0
    assert micro["ndcg@1"] == 1.0
    if dtype != pl.Int128:  # lp.evaluate, which ranks integers as integers, agrees
        per_user = lp.evaluate(
            log.with_columns(pl.col("clicked").cast(pl.Int64)),
            ["rr@1"], by="user", y_true="clicked", y_score="score",
        )  # fmt: skip
        assert per_user["rr@1"].mean() == micro["mrr@1"]


def test_signed_scores_with_the_default_objectives_are_refused_before_any_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Logits and the coverage block (alpha 1): one sentence before any block, with the ways out."""
    from lodestar_polars._report.ranking_report import families
    from lodestar_polars._report.ranking_report import report as _report

    rng = np.random.default_rng(5)
    log = _random_log(24).with_columns(pl.Series("score", rng.normal(size=40 * 12)))
    kw: dict[str, Any] = dict(
        by="user", item="item", y_score="score", y_true="clicked", k=3, n_resamples=20
    )
    first = log.sort("user", "item").filter(pl.col("score") < 0).row(0, named=True)
    want = (
        "ranking_report: the objective 'coverage' (alpha 1) divides each score by its item's "
        "base rate ** alpha, which needs scores >= 0 (a negative score's order would reverse); "
        f"list {first['user']!r} has score={first['score']!r} for item {first['item']!r}. For "
        'signed scores such as logits, pass objectives=("accuracy",) (alpha 0: the scores as '
        "they are), or percentile=True (each score ranked within its item's score "
        "distribution, which needs no sign)."
    )
    scored: list[int] = []
    real = families.score_block

    def counting(*args: Any, **kwargs: Any) -> Any:
        scored.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(_report, "score_block", counting)
    with pytest.raises(ValueError, match=re.escape(want)):
        lp.ranking_report(log, **kw)
    assert scored == []  # refused before the accuracy block was scored
    # both ways out work: the accuracy block alone, and the percentile blocks
    alone = lp.ranking_report(log, objectives=("accuracy",), **kw)
    assert alone["objectives"]["accuracy"]["micro"]["hit@3"] > 0.0
    ranked = lp.ranking_report(log, percentile=True, **kw)
    assert ranked["objective_alpha"] == {"accuracy": None, "coverage": None}


def test_scores_outside_0_1_with_shrinkage_are_refused_before_any_work() -> None:
    """Shrinkage needs probabilities: refused up front even for the accuracy block alone."""
    log = _random_log(25).with_columns(pl.col("score") * 4)
    first = log.sort("user", "item").filter(pl.col("score") > 1).row(0, named=True)
    want = (
        "ranking_report: shrinkage (shrinkage_strength=50) pulls each score toward its item's "
        "base rate, a probability, and needs scores in [0, 1]; list "
        f"{first['user']!r} has score={first['score']!r} for item {first['item']!r}."
    )
    with pytest.raises(ValueError, match=re.escape(want)):
        lp.ranking_report(
            log, by="user", item="item", y_score="score", y_true="clicked", k=3,
            objectives=("accuracy",), shrinkage=True, n_resamples=20,
        )  # fmt: skip


@pytest.mark.parametrize("objectives", [("accuracy",), ("accuracy", "coverage")])
@pytest.mark.parametrize(
    ("kwargs", "msg"),
    [
        (
            {"shrinkage_strength": -1},
            "The 'shrinkage_strength' parameter of ranking_report must be a float in the range "
            "(0.0, inf). Got -1 instead.",
        ),
        (
            {"state": "x.json"},
            "The 'state' parameter of ranking_report must be a ComparabilityState or None. Got "
            "the path 'x.json': load it first, state=lp.ComparabilityState.load('x.json').",
        ),
        (
            {"state": {"a": 0.1}},
            "The 'state' parameter of ranking_report must be a ComparabilityState or None. "
            "Got dict instead.",
        ),
        (
            {"shrinkage_strength": 5.0, "percentile": True},
            "ranking_report: shrinkage and percentile are mutually exclusive",
        ),
    ],
    ids=["negative-strength", "state-path", "state-dict", "strength-with-percentile"],
)
def test_options_are_refused_on_every_path(
    objectives: tuple[Any, ...], kwargs: dict[str, Any], msg: str
) -> None:
    """The accuracy block alone (the identity) refuses what the transforms refuse, up front."""
    with pytest.raises(lp.InvalidParameterError, match=re.escape(msg)):
        lp.ranking_report(
            BASE, by="user", item="item", y_score="score", y_true="clicked",
            objectives=objectives, **kwargs,
        )  # fmt: skip


# ---------------------------------------------------------------------------
# the decision first; what no ordering can move is said, not given an interval


def _decided(log: pl.DataFrame, train: pl.DataFrame | None, **kw: Any) -> dict[str, Any]:
    return lp.ranking_report(
        log, by="user", item="item", y_score="score", y_true="clicked", train=train, **kw
    )


def test_the_decision_is_the_floor_gap_on_the_primary_metric() -> None:
    """decision: model vs floor on ndcg@k, the gap's interval and verdict, in one sentence."""
    n_users, n_items = 200, 10
    users = np.repeat(np.arange(n_users), n_items)
    items = np.tile(np.arange(n_items), n_users)
    target = users % n_items
    log = pl.DataFrame(
        {"user": users, "item": items, "score": (items == target) * 1.0, "clicked": items == target}
    )
    train = pl.DataFrame({"item": [0] * 50 + list(range(10))})
    report = _decided(log, train, k=3, objectives=("accuracy",), n_resamples=200)
    gap = report["uncertainty"]["baselines"]["global_pop"]["difference"]["ndcg@3"]
    model = report["objectives"]["accuracy"]["micro"]["ndcg@3"]
    floor = report["baselines"]["global_pop"]["micro"]["ndcg@3"]
    decision = report["decision"]
    assert decision["metric"] == "ndcg@3"
    assert decision["model"] == model
    assert decision["baseline_value"] == floor
    assert decision["difference"] == gap["estimate"]
    assert (decision["ci_low"], decision["ci_high"]) == (gap["ci_low"], gap["ci_high"])
    assert decision["verdict"] == gap["verdict"] == "model_ahead"
    # the truth is always first (ndcg 1); the floor ranks item 0 first, else ties items 1..9
    assert model == 1.0
    assert decision["sentence"] == (
        f"Model ahead: on ndcg@3 the model (accuracy ordering) scores {model:.4f} against the "
        f"popularity floor's {floor:.4f}, a difference of {model - floor:+.4f}, 95 % interval "
        f"[{gap['ci_low']:+.4f}, {gap['ci_high']:+.4f}] over {n_users} graded lists, which lies "
        "wholly above zero."
    )


def test_without_a_floor_there_is_no_verdict() -> None:
    """No train, no popularity: verdict None, and the sentence says what to pass."""
    report = _decided(_random_log(26), None, k=3, n_resamples=20)
    assert report["decision"]["verdict"] is None
    value = report["primary_score"]["value"]
    assert report["decision"]["sentence"] == (
        f"No verdict: the model's ndcg@3 (accuracy ordering) is {value:.4f}, but with no "
        "popularity floor nothing says it beats recommending the popular items; pass train= "
        "(training interactions) or popularity= for the popularity floor."
    )


def _bundled() -> pl.DataFrame:
    from importlib import resources

    return pl.read_csv(str(resources.files("lodestar_polars") / "data" / "example_implicit.csv"))


def test_k_at_least_every_list_length_is_said_not_given_an_interval() -> None:
    """The bundled example at the CLI's k=10: every list has 10 candidates, so hit@10 is 1."""
    log = _bundled()
    longest = log.group_by("user").len()["len"].max()
    assert longest == 10  # the bundled log: 10 candidates per list
    report = _decided(log, None, k=10, n_resamples=50)
    micro = report["objectives"]["accuracy"]["micro"]
    assert micro["hit@10"] == 1.0  # every truth is a candidate and the top 10 holds all 10
    assert report["max_list_length"] == longest
    assert report["by_construction"] == [
        "hit@10", "macro_recall@10", "catalog_coverage", "tail_hit@10", "entropy", "gini",
    ]  # fmt: skip
    assert len(report["notes"]) == 1
    assert "hit@10 is 1 by construction" in report["notes"][0]
    assert "A k below 10 makes them informative" in report["notes"][0]
    # k=3 (and hit@5, below 10): every metric depends on the order; no note
    informative = _decided(log, None, k=3, n_resamples=50)
    assert informative["by_construction"] == []
    assert informative["notes"] == []
    # hit@5 alone is fixed when every list has at most 5 candidates, at k=3
    short = log.filter(pl.col("item").is_in(["i01", "i02", "i03", "i04"]))
    fixed = _decided(short, None, k=3, n_resamples=50)
    assert fixed["max_list_length"] == 4
    assert fixed["by_construction"] == ["hit@5"]
    assert fixed["objectives"]["accuracy"]["micro"]["hit@5"] == 1.0
    assert fixed["notes"][0].startswith(
        "Every graded list has at most 4 candidates, so a top 5 already holds them all: hit@5 "
        "is 1 by construction"
    )


def test_one_candidate_per_list_fixes_every_metric() -> None:
    """One candidate: nothing is ranked; the decision cannot be other than undecided."""
    log = pl.DataFrame(
        {"user": [1, 2, 3], "item": ["a", "b", "a"], "score": [0.3, 0.2, 0.9],
         "clicked": [True, True, True]}
    )  # fmt: skip
    report = _decided(log, pl.DataFrame({"item": ["a", "b"]}), k=2, n_resamples=20)
    assert set(report["by_construction"]) >= {"hit@1", "hit@5", "hit@2", "mrr@2", "ndcg@2"}
    assert report["notes"][0].startswith("Every graded list has one candidate")
    assert report["decision"]["verdict"] == "undecided"
    assert "fixed by construction" in report["decision"]["sentence"]


def test_a_cutoff_past_every_list_builds_nothing_at_its_size() -> None:
    """k=10**20 is a valid cutoff (check_k's rule): every list is served whole, as at k=12."""
    log = _random_log(27)  # 12 candidates per list
    kw: dict[str, Any] = dict(
        by="user", item="item", y_score="score", y_true="clicked", objectives=("accuracy",),
        n_resamples=20,
    )  # fmt: skip
    huge = lp.ranking_report(log, k=10**20, **kw)
    whole = lp.ranking_report(log, k=12, **kw)
    rename = {"hit@12": "hit@100000000000000000000", "mrr@12": "mrr@100000000000000000000",
              "ndcg@12": "ndcg@100000000000000000000"}  # fmt: skip
    want = {rename.get(m, m): v for m, v in whole["objectives"]["accuracy"]["micro"].items()}
    assert huge["objectives"]["accuracy"]["micro"] == want
    assert huge["objectives"]["accuracy"]["macro"]["catalog_coverage"] == 1.0


def test_a_null_tail_hit_is_explained() -> None:
    """Every truth is a head item: tail_hit@k is null, and a note says why (no silent null)."""
    log = _random_log(28).with_columns(clicked=pl.col("item") == 0)
    train = pl.DataFrame({"item": [0] * 90 + list(range(12))})
    report = _decided(log, train, k=3, n_resamples=20, objectives=("accuracy",))
    assert report["objectives"]["accuracy"]["macro"]["tail_hit@3"] is None
    assert any(note.startswith("tail_hit@3 is null: no graded list's truth is a long-tail item")
               for note in report["notes"])  # fmt: skip


# ---------------------------------------------------------------------------
# one vocabulary (issue 19): y_true / y_score, `by` as names or expressions


def test_the_signature_shows_the_new_names_only() -> None:
    import inspect

    params = inspect.signature(lp.ranking_report).parameters
    assert {"by", "item", "y_true", "y_score"} <= set(params)
    assert not {"score", "truth"} & set(params)
    assert lp.ranking_report.__renamed__ == {"score": "y_score", "truth": "y_true"}  # type: ignore[attr-defined]


def test_the_old_names_warn_and_give_the_same_report() -> None:
    log = _random_log(31)
    new = lp.ranking_report(
        log, by="user", item="item", y_true="clicked", y_score="score", k=3, n_resamples=20
    )
    with pytest.warns(FutureWarning) as record:
        old = lp.ranking_report(
            log,
            by="user",
            item="item",
            score="score",  # type: ignore[call-arg]  # the old names, on purpose
            truth="clicked",
            k=3,
            n_resamples=20,
        )
    assert old == new
    said = [str(w.message) for w in record]
    assert len(said) == 2
    assert "ranking_report: the parameter `score` is renamed `y_score`" in said[0]
    assert "ranking_report: the parameter `truth` is renamed `y_true`" in said[1]
    with pytest.raises(lp.InvalidParameterError, match="pass `y_score` only"):
        lp.ranking_report(
            log,
            by="user",
            item="item",
            y_true="clicked",
            y_score="score",
            score="score",  # type: ignore[call-arg]  # both names, on purpose
        )


def test_by_takes_expressions_as_evaluate_does() -> None:
    """A key made by expressions grades the same lists as the column it stands for."""
    log = _random_log(32)
    args: dict[str, Any] = dict(item="item", y_score="score", k=3, n_resamples=50, seed=3)
    by_name = lp.ranking_report(log, by="user", y_true="clicked", **args)
    # entity = user // 3 and user % 3 together name each user once
    slot = (pl.col("user") % 3).alias("slot")
    keys: list[Any] = [pl.col("user"), [pl.col("user")], ["entity", slot], [pl.col("entity"), slot]]
    for by in keys:
        got = lp.ranking_report(log.lazy(), by=by, y_true="clicked", **args)
        assert got["objectives"] == by_name["objectives"], by
        assert got["uncertainty"] == by_name["uncertainty"], by
        assert got["n_lists"] == by_name["n_lists"]
    # the slow reference over the users
    rows = list(log.select("user", "item", "score", "clicked").iter_rows())
    want = reference(rows, 3)
    assert by_name["n_lists"] == want["n_lists"]
    _close(by_name["objectives"]["accuracy"]["micro"], want["micro"])
    # a y_true frame is keyed by the same expressions (it holds user, not slot)
    pairs = log.filter("clicked").select("user", "entity", "item")
    framed = lp.ranking_report(log.drop("clicked"), by=["entity", slot], y_true=pairs, **args)
    assert framed["objectives"] == by_name["objectives"]
    # a y_true frame that already holds the key is read as it is
    keyed = pairs.with_columns(slot).drop("user")
    again = lp.ranking_report(log.drop("clicked"), by=["entity", slot], y_true=keyed, **args)
    assert again["objectives"] == by_name["objectives"]


@pytest.mark.parametrize(
    ("kwargs", "error", "msg"),
    [
        (
            {"by": 3},
            lp.InvalidParameterError,
            "The 'by' parameter of ranking_report must be a column name, a Polars expression, "
            "or a non-empty sequence of them. Got 3 instead.",
        ),
        (
            {"by": []},
            lp.InvalidParameterError,
            "The 'by' parameter of ranking_report must be a column name, a Polars expression, "
            "or a non-empty sequence of them. Got [] instead.",
        ),
        (
            {"by": ["user", pl.col("user")]},
            lp.InvalidParameterError,
            "The 'by' parameter of ranking_report names a key column twice: ['user', 'user'].",
        ),
        (
            {"by": pl.all()},
            lp.InvalidParameterError,
            "has no output name; give it one with .alias().",
        ),
        (
            {"by": (pl.col("nope") % 2).alias("half")},
            ValueError,
            "ranking_report: scores has no column 'nope', which the `by` expression",
        ),
        (
            {"y_true": 1},
            lp.InvalidParameterError,
            "The 'y_true' parameter of ranking_report must be a column name of scores or a "
            "DataFrame/LazyFrame of realised (list, item) pairs. Got int.",
        ),
        (
            {"y_score": pl.all()},
            lp.InvalidParameterError,
            "The 'y_score' parameter of ranking_report must be a column name or a polars "
            "expression of one column.",
        ),
    ],
    ids=["by-int", "by-empty", "by-twice", "by-no-name", "by-missing-root", "y-true", "y-score"],
)
def test_bad_keys_and_roles_get_a_sentence(
    kwargs: dict[str, Any], error: type[Exception], msg: str
) -> None:
    args: dict[str, Any] = dict(by="user", item="item", y_true="clicked", y_score="score")
    args.update(kwargs)
    with pytest.raises(error, match=re.escape(msg)):
        lp.ranking_report(BASE, **args)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"by": 3},
        {"item": 3},
        {"y_score": 3},
        {"y_true": 3},
        {"k": 0},
        {"objectives": ()},
        {"objectives": ("speed",)},
        {"objectives": ("accuracy", "accuracy")},
        {"primary_objective": "balanced"},
        {"groups": 3},
        {"n_resamples": 0},
        {"seed": -1},
        {"confidence_level": 1.0},
        {"tail_share": 0.0},
        {"multi_positive": "all"},
        {"engine": "gpu"},
        {"percentile": 1},
        {"shrinkage": "yes"},
        {"shrinkage_strength": -1.0},
        {"state": "x.json"},
        {"popularity_discount": 2.0},
        {"popularity_discount": 0.5, "percentile": True},
    ],
    ids=lambda kwargs: ",".join(kwargs),
)
def test_every_option_is_checked_before_any_data_is_read(kwargs: dict[str, Any]) -> None:
    """A bad option: InvalidParameterError at the top, before the frame's schema is read.

    The frame would fail when read (it selects a column it does not have), so any other
    error than the option's means the option was checked too late.
    """
    unreadable = pl.LazyFrame({"user": [1]}).select(pl.col("nope"))
    args: dict[str, Any] = dict(by="user", item="item", y_true="clicked", y_score="score")
    args.update(kwargs)
    with pytest.raises(lp.InvalidParameterError):
        lp.ranking_report(unreadable, **args)
