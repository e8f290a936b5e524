"""Beyond-accuracy metrics against RecTools (corpus/beyond_accuracy.json) and hand arithmetic."""

from __future__ import annotations

import inspect
import itertools
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._core.beyond import (
    category_diversity_segments,
    embedding_diversity_segments,
    mean_popularity_segments,
    novelty_segments,
    serendipity_segments,
)
from lodestar_polars._metrics.beyond import (
    average_recommended_popularity_metric,
    intra_list_diversity_metric,
    novelty_metric,
    serendipity_metric,
)
from lodestar_polars._metrics.expr import Metric

CORPUS = json.loads((Path(__file__).parents[1] / "corpus" / "beyond_accuracy.json").read_text())
KS = sorted(int(k) for k in CORPUS["results"])
TOL = 1e-12


def _served() -> pl.DataFrame:
    """The example's served rows with every per-row input joined on."""
    train = pl.DataFrame(CORPUS["train"], schema=["user", "item"], orient="row")
    test = pl.DataFrame(CORPUS["test"], schema=["user", "item"], orient="row")
    reco = pl.DataFrame(CORPUS["reco"], schema=["user", "item", "rank"], orient="row")
    n_users = train["user"].n_unique()
    n_items = CORPUS["n_items"]
    pop = lp.item_popularity(train, by="user", item="item")
    items = pl.DataFrame(
        {
            "item": range(n_items),
            "category": CORPUS["category"],
            "embedding": CORPUS["embedding"],
        }
    )
    return (
        reco.join(pop, on="item", how="left")
        .join(items, on="item")
        .join(test.with_columns(hit=pl.lit(1)), on=["user", "item"], how="left")
        .with_columns(
            score=-pl.col("rank"),
            hit=pl.col("hit").fill_null(0),
            users=pl.col("users").fill_null(0),
            # RecTools' novelty counts a cold item as one user, its ARP as none
            p_novelty=pl.col("popularity").fill_null(1 / n_users),
            count=pl.col("users").fill_null(0).cast(pl.Float64),
            popularity_rank=pl.col("popularity_rank").fill_null(n_items + 1),
        )
        .sort("user", "rank")
    )


SERVED = _served()


def _per_user(*exprs: pl.Expr) -> pl.DataFrame:
    return SERVED.group_by("user").agg(*exprs).sort("user")


def _close(got: list[float], want: list[float]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert abs(g - w) <= TOL, (got, want)


@pytest.mark.parametrize("k", KS)
def test_novelty_is_rectools_mean_inv_user_freq(k: int) -> None:
    got = _per_user(lp.novelty("score", popularity="p_novelty", k=k))["novelty"].to_list()
    _close(got, CORPUS["results"][str(k)]["novelty"])


@pytest.mark.parametrize("k", KS)
def test_arp_is_rectools_avg_rec_popularity(k: int) -> None:
    got = _per_user(lp.average_recommended_popularity("score", popularity="count", k=k))
    _close(got["average_recommended_popularity"].to_list(), CORPUS["results"][str(k)]["arp_counts"])


@pytest.mark.parametrize("k", KS)
def test_ild_by_category_is_rectools_hamming_ild(k: int) -> None:
    got = _per_user(lp.intra_list_diversity("score", feature="category", k=k))
    _close(got["intra_list_diversity"].to_list(), CORPUS["results"][str(k)]["ild_category"])


@pytest.mark.parametrize("k", KS)
def test_ild_by_embedding_is_the_mean_pairwise_cosine_distance(k: int) -> None:
    got = _per_user(lp.intra_list_diversity("score", feature="embedding", k=k, dim=4))
    _close(got["intra_list_diversity"].to_list(), CORPUS["results"][str(k)]["ild_cosine_pdist"])


@pytest.mark.parametrize("k", KS)
def test_serendipity_is_rectools(k: int) -> None:
    s = lp.serendipity(
        "hit", "score", popularity_rank="popularity_rank", n_items=CORPUS["n_items"], k=k
    )
    _close(_per_user(s)["serendipity"].to_list(), CORPUS["results"][str(k)]["serendipity"])


@pytest.mark.parametrize("k", KS)
def test_personalisation_is_the_pairwise_set_overlap(k: int) -> None:
    got = lp.personalisation(SERVED, by="user", item="item", y_score="score", k=k)
    assert abs(got - CORPUS["results"][str(k)]["personalisation_sets"]) <= TOL


@pytest.mark.parametrize("k", KS)
def test_numpy_cores_equal_the_expressions(k: int) -> None:
    data = SERVED.sort("user")
    length = data.group_by("user", maintain_order=True).len()["len"].to_numpy()
    score = data["score"].to_numpy()
    res = CORPUS["results"][str(k)]
    _close(
        novelty_segments(data["p_novelty"].to_numpy(), score, length, k=k).tolist(), res["novelty"]
    )
    _close(
        mean_popularity_segments(data["count"].to_numpy(), score, length, k=k).tolist(),
        res["arp_counts"],
    )
    _close(
        category_diversity_segments(data["category"].to_numpy(), score, length, k=k).tolist(),
        res["ild_category"],
    )
    emb = np.asarray(data["embedding"].to_list())
    _close(embedding_diversity_segments(emb, score, length, k=k).tolist(), res["ild_cosine_pdist"])
    n = CORPUS["n_items"]
    got = serendipity_segments(
        data["hit"].to_numpy(), data["popularity_rank"].to_numpy(), score, length, k=k, n_items=n
    )
    _close(got.tolist(), res["serendipity"])


# --- ties: the expectation over the orderings, against every ordering enumerated


def _tied_frame(seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for user in range(5):
        n = int(rng.integers(1, 7))
        items = rng.choice(12, size=n, replace=False)
        for item, s in zip(items, rng.integers(0, 3, size=n), strict=True):
            rows.append((user, int(item), float(s)))
    frame = pl.DataFrame(rows, schema=["user", "item", "score"], orient="row")
    pop = rng.uniform(0.05, 1.0, size=12)
    emb = rng.normal(size=(12, 3))
    return frame.with_columns(
        p=pl.col("item").map_elements(lambda i: float(pop[i]), return_dtype=pl.Float64),
        category=pl.col("item") % 3,
        embedding=pl.col("item").map_elements(
            lambda i: emb[i].tolist(), return_dtype=pl.List(pl.Float64)
        ),
        hit=(pl.col("item") % 2).cast(pl.Int64),
        rank=pl.col("item") % 7 + 1,
    )


def _orderings(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Every ordering of the rows by score descending (ties in every order)."""
    out = []
    for perm in itertools.permutations(rows):
        scores = [r["score"] for r in perm]
        if all(a >= b for a, b in itertools.pairwise(scores)):
            out.append(list(perm))
    return out


def _brute(rows: list[dict[str, Any]], k: int | None, n_items: int) -> dict[str, float]:
    totals = {"novelty": 0.0, "arp": 0.0, "ild_cat": 0.0, "ild_cos": 0.0, "serendipity": 0.0}
    orders = _orderings(rows)
    for order in orders:
        top = order[:k]
        m = len(top)
        totals["novelty"] += sum(-math.log2(r["p"]) for r in top) / m
        totals["arp"] += float(sum(r["p"] for r in top)) / m
        pairs = list(itertools.combinations(top, 2))
        if pairs:
            totals["ild_cat"] += sum(a["category"] != b["category"] for a, b in pairs) / len(pairs)
            cos = []
            for a, b in pairs:
                u, v = np.asarray(a["embedding"]), np.asarray(b["embedding"])
                cos.append(1.0 - float(u @ v) / float(np.linalg.norm(u) * np.linalg.norm(v)))
            totals["ild_cos"] += sum(cos) / len(pairs)
        totals["serendipity"] += (
            sum(r["hit"] * max(r["rank"] - (pos + 1), 0) / n_items for pos, r in enumerate(top)) / m
        )
    return {key: value / len(orders) for key, value in totals.items()}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 2, 3, 5, None])
def test_ties_are_the_expectation_over_orderings(seed: int, k: int | None) -> None:
    frame = _tied_frame(seed)
    got = (
        frame.group_by("user")
        .agg(
            lp.novelty("score", popularity="p", k=k),
            lp.average_recommended_popularity("score", popularity="p", k=k),
            lp.intra_list_diversity("score", feature="category", k=k).alias("ild_cat"),
            lp.intra_list_diversity("score", feature="embedding", k=k, dim=3).alias("ild_cos"),
            lp.serendipity("hit", "score", popularity_rank="rank", n_items=7, k=k),
        )
        .sort("user")
    )
    for user_row in got.iter_rows(named=True):
        rows = frame.filter(pl.col("user") == user_row["user"]).to_dicts()
        want = _brute(rows, k, 7)
        assert abs(user_row["novelty"] - want["novelty"]) <= TOL
        assert abs(user_row["average_recommended_popularity"] - want["arp"]) <= TOL
        assert abs(user_row["ild_cat"] - want["ild_cat"]) <= TOL
        assert abs(user_row["ild_cos"] - want["ild_cos"]) <= TOL
        assert abs(user_row["serendipity"] - want["serendipity"]) <= TOL


@pytest.mark.parametrize("k", [1, 2, 3, None])
def test_personalisation_ties_are_the_expected_overlap(k: int | None) -> None:
    frame = _tied_frame(7)
    users = frame["user"].unique().sort().to_list()
    lists = [frame.filter(pl.col("user") == u).to_dicts() for u in users]
    orders = [_orderings(rows) for rows in lists]
    total = 0.0
    for a, b in itertools.combinations(range(len(users)), 2):
        expected = 0.0
        for oa in orders[a]:
            for ob in orders[b]:
                sa, sb = {r["item"] for r in oa[:k]}, {r["item"] for r in ob[:k]}
                expected += len(sa & sb) / math.sqrt(len(sa) * len(sb))
        total += expected / (len(orders[a]) * len(orders[b]))
    want = 1.0 - total / math.comb(len(users), 2)
    got = lp.personalisation(frame, by="user", item="item", y_score="score", k=k)
    assert abs(got - want) <= TOL


# --- hand arithmetic, written out


def test_hand_arithmetic() -> None:
    df = pl.DataFrame(
        {
            "user": [1, 1, 1, 1],
            "p": [0.5, 0.25, 0.125, 1.0],
            "genre": ["a", "b", "a", "a"],
            "emb": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]],
            "hit": [1, 0, 1, 1],
            "pop_rank": [4, 1, 5, 2],
            "score": [4.0, 3.0, 2.0, 2.0],  # the last two tie at positions 3 and 4
        }
    )
    out = df.group_by("user").agg(
        lp.novelty("score", popularity="p", k=3),
        lp.average_recommended_popularity("score", popularity="p", k=3),
        lp.intra_list_diversity("score", feature="genre", k=3).alias("ild"),
        lp.intra_list_diversity("score", feature="emb", k=2, dim=2).alias("ild_emb"),
        lp.serendipity("hit", "score", popularity_rank="pop_rank", n_items=10, k=3),
    )
    row = out.row(0, named=True)
    # top 3: rows 1, 2 in; rows 3, 4 tie for the last slot, each in with chance 1/2
    # novelty: (1 + 2 + (3 + 0) / 2) / 3 = 4.5 / 3
    assert abs(row["novelty"] - 1.5) <= TOL
    # ARP: (0.5 + 0.25 + (0.125 + 1.0) / 2) / 3 = 1.3125 / 3
    assert abs(row["average_recommended_popularity"] - 1.3125 / 3) <= TOL
    # ILD: 3 pairs; {a, b} differ; with row 3 or 4 (both "a"): (a, a) same, (b, a) differs
    # 2 of 3 pairs differ either way
    assert abs(row["ild"] - 2 / 3) <= TOL
    # embeddings, top 2: (1, 0) and (0, 1): cosine 0, distance 1
    assert abs(row["ild_emb"] - 1.0) <= TOL
    # serendipity: row 1 at position 1: max(4 - 1, 0) = 3; row 2 no hit; rows 3, 4 each at
    # position 3 with chance 1/2: row 3 max(5 - 3, 0) = 2, row 4 max(2 - 3, 0) = 0
    # (3 + (2 + 0) / 2) / 10 / 3 = 4 / 30
    assert abs(row["serendipity"] - 4 / 30) <= TOL


def test_personalisation_hand_arithmetic() -> None:
    df = pl.DataFrame(
        {
            "user": [1, 1, 2, 2, 3],
            "item": ["x", "y", "x", "z", "x"],
            "score": [2, 1, 2, 1, 1],
        }
    )
    # pairs: (1, 2) share x: 1 / sqrt(2 * 2) = 1/2; (1, 3): 1 / sqrt(2) ; (2, 3): 1 / sqrt(2)
    want = 1 - (0.5 + 2 / math.sqrt(2)) / 3
    assert abs(lp.personalisation(df, by="user", item="item", y_score="score") - want) <= TOL
    # k=1: lists {x}, {x}, {x}: every pair overlaps fully
    assert abs(lp.personalisation(df, by="user", item="item", y_score="score", k=1)) <= TOL


def test_item_popularity() -> None:
    train = pl.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [7, 8, 7, 8, 7, 9]})
    got = lp.item_popularity(train.lazy(), by="user", item="item").collect().sort("item")
    assert got.rows() == [(7, 3, 1.0, 1), (8, 2, 2 / 3, 2), (9, 1, 1 / 3, 3)]


# --- refusals


def test_refusals() -> None:
    with pytest.raises(lp.InvalidParameterError, match="'k' parameter of novelty"):
        lp.novelty("score", popularity="p", k=0)
    with pytest.raises(lp.InvalidParameterError, match="'dim' parameter of intra_list_diversity"):
        lp.intra_list_diversity("score", feature="emb", dim=0)
    with pytest.raises(lp.InvalidParameterError, match="'n_items' parameter of serendipity"):
        lp.serendipity("hit", "score", popularity_rank="rank", n_items=0)
    with pytest.raises(
        lp.InvalidParameterError,
        match="'frame' parameter of personalisation must hold at least two lists. Got 1",
    ):
        lp.personalisation(
            pl.DataFrame({"u": [1], "i": [1], "s": [1.0]}), by="u", item="i", y_score="s"
        )
    with pytest.raises(
        lp.InvalidParameterError,
        match="'item' column of personalisation must hold each item at most once",
    ):
        lp.personalisation(
            pl.DataFrame({"u": [1, 1, 2], "i": [1, 1, 2], "s": [1.0, 2.0, 1.0]}),
            by="u",
            item="i",
            y_score="s",
        )
    with pytest.raises(lp.InvalidParameterError, match="'frame' parameter of personalisation"):
        lp.personalisation([1, 2], by="u", item="i", y_score="s")


def test_refused_lists_are_null() -> None:
    df = pl.DataFrame(
        {
            "user": [1, 1, 2, 2],
            "p": [0.5, 0.0, 0.5, 0.5],
            "emb": [[1.0, 0.0], [0.0, 0.0], [1.0], [1.0, 2.0]],
            "score": [2.0, 1.0, 2.0, 1.0],
        }
    )
    out = df.group_by("user", maintain_order=True).agg(
        lp.novelty("score", popularity="p"), lp.intra_list_diversity("score", feature="emb", dim=2)
    )
    assert out["novelty"].to_list() == [None, 1.0]  # popularity 0 has no self-information
    assert out["intra_list_diversity"].to_list() == [None, None]  # a zero vector; a wrong dim


# --- the registry's entries, and lp.evaluate


def test_the_registry_entries_are_the_public_functions() -> None:
    from lodestar_polars._registry import ACROSS_LISTS, BEYOND_ENTRIES, BY_NAME, direction

    assert [spec.name for spec in BEYOND_ENTRIES] == [
        "novelty",
        "average_recommended_popularity",
        "intra_list_diversity",
        "serendipity",
    ]
    for spec in BEYOND_ENTRIES:
        assert BY_NAME[spec.name] is spec
        assert getattr(lp, spec.name) is spec.expression
        assert direction(f"{spec.name}@10") == spec.direction
        parameters = inspect.signature(spec.expression).parameters
        for role in spec.inputs:
            assert role in parameters
        assert ("y_true" in parameters) == spec.reads_y_true
    assert BY_NAME["intra_list_diversity"].display(10) == "ILD@10"
    assert BY_NAME["average_recommended_popularity"].display() == "ARP"
    assert BY_NAME["average_recommended_popularity"].direction is None
    # RecTools' class names and the short ones read as the entries
    for name, canonical in [
        ("MeanInvUserFreq@10", "novelty"),
        ("AvgRecPopularity@10", "average_recommended_popularity"),
        ("arp@10", "average_recommended_popularity"),
        ("IntraListDiversity@10", "intra_list_diversity"),
        ("ILD@10", "intra_list_diversity"),
        ("Serendipity@10", "serendipity"),
    ]:
        assert direction(name) == BY_NAME[canonical].direction, name
    # personalisation is one number over every list: a function, not an lp.evaluate name
    (across,) = ACROSS_LISTS.values()
    assert across.function is lp.personalisation
    assert direction("personalisation@10") == "higher"
    assert across.display(10) == "personalisation@10"
    with pytest.raises(lp.InvalidParameterError, match="unknown metric 'personalisation@10'"):
        lp.evaluate(SERVED, ["personalisation@10"], by="user", y_true="hit", y_score="score")


@pytest.mark.parametrize("k", KS)
def test_values_lie_in_the_registry_range(k: int) -> None:
    from lodestar_polars._registry import ACROSS_LISTS, BY_NAME

    res = CORPUS["results"][str(k)]
    checks = {
        "novelty": res["novelty"],
        "intra_list_diversity": res["ild_category"] + res["ild_cosine_pdist"],
        "serendipity": res["serendipity"],
        "average_recommended_popularity": res["arp_counts"],
    }
    for name, values in checks.items():
        assert all(v in BY_NAME[name].value_range for v in values), name
    assert res["personalisation_sets"] in ACROSS_LISTS["personalisation"].value_range


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("k", KS)
def test_evaluate_is_rectools(k: int, *, lazy: bool) -> None:
    """lp.evaluate's names, RecTools' spellings included, give RecTools' numbers."""
    res = CORPUS["results"][str(k)]
    frame: pl.DataFrame | pl.LazyFrame = SERVED.lazy() if lazy else SERVED
    names = [f"MeanInvUserFreq@{k}", f"IntraListDiversity@{k}", f"Serendipity@{k}"]
    out = lp.evaluate(
        frame,
        names,
        by="user",
        y_true="hit",
        y_score="score",
        popularity="p_novelty",
        feature="category",
        popularity_rank="popularity_rank",
        n_items=CORPUS["n_items"],
    )
    got = out.collect() if isinstance(out, pl.LazyFrame) else out
    assert got["user"].to_list() == sorted(SERVED["user"].unique().to_list())
    _close(got[names[0]].to_list(), res["novelty"])
    _close(got[names[1]].to_list(), res["ild_category"])
    _close(got[names[2]].to_list(), res["serendipity"])
    # ARP from the counts, given as an expression; the embedding as a list (dim in the
    # name) and as an array (its width)
    arp = lp.evaluate(
        SERVED,
        [f"AvgRecPopularity@{k}", f"ild(dim=4)@{k}"],
        by="user",
        y_true="hit",
        y_score="score",
        popularity=pl.col("users").fill_null(0).cast(pl.Float64).alias("n_users"),
        feature="embedding",
    )
    _close(arp[f"AvgRecPopularity@{k}"].to_list(), res["arp_counts"])
    _close(arp[f"ild(dim=4)@{k}"].to_list(), res["ild_cosine_pdist"])
    array = SERVED.with_columns(pl.col("embedding").list.to_array(4))
    cosine = lp.evaluate(
        array, [f"ild@{k}"], by="user", y_true="hit", y_score="score", feature="embedding"
    )
    _close(cosine[f"ild@{k}"].to_list(), res["ild_cosine_pdist"])


def _random_lists(seed: int, layout: str) -> pl.DataFrame:
    """300 lists of 1 to 8 rows with tied scores, laid out three ways for lp.evaluate's paths.

    ``ranked``: each list's rows by score descending (read as they are); ``runs``: each
    list one run, unranked (ordered per run); ``shuffled``: rows anywhere (sorted per group).
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=300)
    n = int(sizes.sum())
    item = rng.integers(0, 40, size=n)
    emb = rng.normal(size=(40, 3))
    frame = pl.DataFrame(
        {
            "user": np.repeat(np.arange(300), sizes),
            "score": rng.integers(0, 4, size=n).astype(np.float64),
            "hit": rng.integers(0, 2, size=n),
            "p": rng.uniform(0.01, 1.0, size=40)[item],
            "genre": np.asarray(["a", "b", "c", "d"])[item % 4],
            "rank": item % 9 + 1,
            "v": emb[item].tolist(),
        }
    )
    if layout == "ranked":
        return frame.sort(["user", "score"], descending=[False, True], maintain_order=True)
    if layout == "shuffled":
        return frame.sample(fraction=1.0, shuffle=True, seed=seed)
    return frame


@pytest.mark.parametrize("layout", ["ranked", "runs", "shuffled"])
@pytest.mark.parametrize("k", [1, 3, None])
def test_evaluate_equals_the_expressions_on_random_tied_lists(layout: str, k: int | None) -> None:
    """lp.evaluate's NumPy cores give the expressions' values, on every path of the frame."""
    frame = _random_lists(5, layout)
    cut = "" if k is None else f"@{k}"
    names = [f"novelty{cut}", f"ARP{cut}", f"ild{cut}", f"serendipity{cut}", f"rr{cut}"]
    got = lp.evaluate(
        frame,
        names,
        by="user",
        y_true="hit",
        y_score="score",
        popularity="p",
        feature="genre",
        popularity_rank="rank",
        n_items=9,
    )
    embedded = lp.evaluate(
        frame, [f"ild(dim=3){cut}"], by="user", y_true="hit", y_score="score", feature="v"
    )
    want = (
        frame.group_by("user")
        .agg(
            lp.novelty("score", popularity="p", k=k).alias(names[0]),
            lp.average_recommended_popularity("score", popularity="p", k=k).alias(names[1]),
            lp.intra_list_diversity("score", feature="genre", k=k).alias(names[2]),
            lp.serendipity("hit", "score", popularity_rank="rank", n_items=9, k=k).alias(names[3]),
            lp.intra_list_diversity("score", feature="v", k=k, dim=3).alias("cosine"),
        )
        .sort("user")
    )
    for name in names[:4]:
        np.testing.assert_allclose(got[name].to_numpy(), want[name].to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(
        embedded[f"ild(dim=3){cut}"].to_numpy(), want["cosine"].to_numpy(), rtol=1e-12, atol=1e-15
    )


def test_evaluate_refuses_a_missing_or_unread_input() -> None:
    frame = SERVED
    common: dict[str, Any] = {"by": "user", "y_true": "hit", "y_score": "score"}
    cases: list[tuple[list[str], dict[str, Any], str]] = [
        (
            ["ndcg@10", "novelty@10"],
            {},
            "metric 'novelty@10': novelty reads `popularity` (each served item's training "
            "popularity, a column): give it as evaluate(popularity=...)",
        ),
        (
            ["serendipity@10"],
            {"popularity_rank": "popularity_rank"},
            "metric 'serendipity@10': serendipity reads `n_items` (the catalogue's size, a "
            "number): give it as evaluate(n_items=...)",
        ),
        (
            ["ild@10"],
            {},
            "metric 'ild@10': intra_list_diversity reads `feature`",
        ),
        (
            ["ndcg@10"],
            {"popularity": "p_novelty"},
            "`popularity` is read by ['novelty', 'average_recommended_popularity'] only, and "
            "no metric asked for is one of them",
        ),
        (
            ["ild@10"],
            {"feature": "embedding"},
            "metric 'ild@10': `feature` column 'embedding' holds lists (embeddings): write their "
            "length in the name, as 'ild(dim=4)@10', or cast the column to an Array",
        ),
        (
            ["ild(dim=2)"],
            {"feature": "category"},
            "metric 'ild(dim=2)': dim= is an embedding's length, but `feature` column "
            "'category' holds Int64, not lists",
        ),
        (
            ["ild(dim=0)"],
            {"feature": "embedding"},
            "The 'dim' parameter of intra_list_diversity must be an int in the range [1, inf). "
            "Got 0 instead.",
        ),
    ]
    for names, given, sentence in cases:
        with pytest.raises(lp.InvalidParameterError) as info:
            lp.evaluate(frame, names, **common, **given)
        assert sentence in str(info.value), (names, str(info.value))
    with pytest.raises(lp.InvalidParameterError, match="'n_items' parameter of evaluate"):
        lp.evaluate(frame, ["serendipity"], **common, popularity_rank="rank", n_items=0)
    with pytest.raises(ValueError, match="`popularity` column 'item' must be numeric"):
        lp.evaluate(frame.with_columns(pl.col("item").cast(pl.String)), ["arp"], **common,
                    popularity="item")  # fmt: skip
    array = frame.with_columns(pl.col("embedding").list.to_array(4))
    with pytest.raises(lp.InvalidParameterError, match="dim=3, but `feature` column 'embedding'"):
        lp.evaluate(array, ["ild(dim=3)"], **common, feature="embedding")


def test_evaluate_names_a_refused_list() -> None:
    df = pl.DataFrame(
        {
            "user": [1, 1, 2, 2],
            "t": [1, 0, 0, 1],
            "p": [0.5, 0.0, 0.5, 0.25],
            "v": [[1.0, 0.0], [0.0, 0.0], [1.0, 2.0], [2.0, 1.0]],
            "s": [2.0, 1.0, 2.0, 1.0],
        }
    )
    common: dict[str, Any] = {"by": "user", "y_true": "t", "y_score": "s"}
    with pytest.raises(lp.RefusedGroupError) as info:
        lp.evaluate(df, ["novelty"], **common, popularity="p")
    assert "user=1: novelty needs a popularity in (0, 1] (a share of users). Got 0.0" in str(
        info.value
    )
    out = lp.evaluate(
        df, ["novelty", "ild(dim=2)"], **common, popularity="p", feature="v", strict=False
    )
    assert out["novelty"].to_list() == [None, 1.5]
    assert out["ild(dim=2)"][0] is None
    assert abs(out["ild(dim=2)"][1] - (1 - 4 / 5)) <= TOL  # cos((1, 2), (2, 1)) = 4 / 5


REFUSALS_PAGE = (Path(__file__).parents[1] / "docs" / "refusals.md").read_text(encoding="utf-8")


def _why(metric: Metric, frame: pl.DataFrame) -> str:
    out = frame.group_by("u").agg(metric.reason().alias("why"))["why"].item()
    assert isinstance(out, str)
    return out


def _raised(call: Callable[[], object]) -> str:
    with pytest.raises(lp.InvalidParameterError) as info:
        call()
    return str(info.value)


ONE = pl.DataFrame({"u": [1, 1], "p": [0.5, 0.0], "s": [2.0, 1.0]})
EMB = pl.DataFrame({"u": [1, 1], "v": [[1.0, 0.0], [0.0, 0.0]], "s": [2.0, 1.0]})


def _evaluated(names: list[str], **given: Any) -> str:
    frame = pl.DataFrame(
        {"u": [1, 1], "t": [1, 0], "s": [2.0, 1.0], "p": [0.5, 0.5], "g": ["a", "b"]}
    ).with_columns(v=pl.lit([1.0, 0.0]))
    return _raised(lambda: lp.evaluate(frame, names, by="u", y_true="t", y_score="s", **given))


REFUSAL_CASES: dict[str, Callable[[], str]] = {
    "novelty popularity": lambda: _why(novelty_metric("s", popularity="p"), ONE),
    "arp popularity": lambda: _why(
        average_recommended_popularity_metric("s", popularity="p"),
        ONE.with_columns(p=pl.lit(-1.0)),
    ),
    "null popularity": lambda: _why(
        novelty_metric("s", popularity="p"), ONE.with_columns(p=pl.lit(None, pl.Float64))
    ),
    "popularity rank": lambda: _why(
        serendipity_metric("p", "s", popularity_rank="p", n_items=3),
        ONE.with_columns(p=pl.lit(0.0)),
    ),
    "null feature": lambda: _why(
        intra_list_diversity_metric("s", feature="p"), ONE.with_columns(p=pl.lit(None))
    ),
    "dim": lambda: _why(
        intra_list_diversity_metric("s", feature="v", dim=2),
        EMB.with_columns(v=pl.Series([[1.0], [1.0, 2.0]])),
    ),
    "zero norm": lambda: _why(intra_list_diversity_metric("s", feature="v", dim=2), EMB),
    "evaluate missing popularity": lambda: _evaluated(["novelty@10"]),
    "evaluate missing n_items": lambda: _evaluated(["serendipity@10"], popularity_rank="p"),
    "evaluate unread popularity": lambda: _evaluated(["ndcg"], popularity="p"),
    "evaluate list without dim": lambda: _evaluated(["ild@10"], feature="v"),
    "evaluate dim on a category": lambda: _evaluated(["ild(dim=2)"], feature="g"),
    "dim option": lambda: _raised(lambda: lp.intra_list_diversity("s", feature="v", dim=0)),
    "one list": lambda: _raised(lambda: lp.personalisation(ONE, by="u", item="p", y_score="s")),
    "repeated item": lambda: _raised(
        lambda: lp.personalisation(
            pl.DataFrame({"u": [1, 1, 2], "i": [1, 1, 2], "s": [1.0, 2.0, 1.0]}),
            by="u",
            item="i",
            y_score="s",
        )
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSAL_CASES))
def test_refusals_page_quotes_the_sentence(case: str) -> None:
    sentence = REFUSAL_CASES[case]()
    assert sentence in REFUSALS_PAGE, f"docs/refusals.md does not quote: {sentence}"


# --- every column role takes a name or an expression

ROLE_CASES: dict[str, tuple[Callable[..., pl.Expr], dict[str, Any]]] = {
    "novelty": (lp.novelty, {"y_score": "score", "popularity": "p"}),
    "arp": (lp.average_recommended_popularity, {"y_score": "score", "popularity": "p"}),
    "ild": (lp.intra_list_diversity, {"y_score": "score", "feature": "genre"}),
    "ild_embedding": (lp.intra_list_diversity, {"y_score": "score", "feature": "v", "dim": 3}),
    "serendipity": (
        lp.serendipity,
        {"y_true": "hit", "y_score": "score", "popularity_rank": "rank", "n_items": 9},
    ),
}
_ROLES = [
    (case, role)
    for case, (_, kwargs) in ROLE_CASES.items()
    for role, value in kwargs.items()
    if isinstance(value, str)
]


@pytest.mark.parametrize(("case", "role"), _ROLES)
def test_an_expression_role_takes_an_expression(case: str, role: str) -> None:
    """A role given as an expression of a renamed column gives the value by name."""
    function, kwargs = ROLE_CASES[case]
    frame = _random_lists(3, "runs")
    want = frame.group_by("user").agg(function(**kwargs).alias("v")).sort("user")
    column = kwargs[role]
    renamed = frame.rename({column: f"{column}_src"})
    given = {**kwargs, role: pl.col(f"{column}_src").alias(column)}
    got = renamed.group_by("user").agg(function(**given).alias("v")).sort("user")
    assert got["v"].to_list() == want["v"].to_list()
    with pytest.raises(lp.InvalidParameterError, match=f"'{role}' parameter of"):
        function(**{**kwargs, role: 3})


def test_evaluate_input_roles_take_expressions() -> None:
    frame = _random_lists(4, "shuffled")
    names = ["novelty@3", "ild@3", "serendipity@3"]
    common: dict[str, Any] = {"by": "user", "y_true": "hit", "y_score": "score", "n_items": 9}
    inputs: dict[str, Any] = {"popularity": "p", "feature": "genre", "popularity_rank": "rank"}
    want = lp.evaluate(frame, names, **common, **inputs)
    renamed = frame.rename({"p": "p_src", "genre": "g_src", "rank": "r_src"})
    got = lp.evaluate(
        renamed,
        names,
        **common,
        popularity=pl.col("p_src") * 1.0,  # an expression of no column of its own: a working one
        feature=pl.col("g_src").alias("genre"),
        popularity_rank=pl.col("r_src") + 0,
    )
    assert got.equals(want)


def test_frame_functions_take_expressions_and_several_keys() -> None:
    # each item ("rank" here) once in a list, as personalisation needs
    frame = _random_lists(6, "shuffled").unique(["user", "rank"], maintain_order=True)
    by_name = lp.personalisation(frame, by="user", item="rank", y_score="score", k=3)
    given = lp.personalisation(
        frame.rename({"user": "u", "rank": "r", "score": "s"}),
        by=[(pl.col("u") // 7).alias("week"), pl.col("u") % 7],  # the same lists, two keys
        item=pl.col("r").alias("rank"),
        y_score=-pl.col("s") * -1,
        k=3,
    )
    assert given == by_name
    pop = lp.item_popularity(frame, by="user", item="rank").sort("rank")
    keyed = lp.item_popularity(
        frame.rename({"user": "u"}),
        by=[(pl.col("u") // 7).alias("w"), pl.col("u") % 7],
        item="rank",
    ).sort("rank")
    assert keyed.equals(pop)
    by_expression = lp.item_popularity(frame, by="user", item=pl.col("rank").alias("r"))
    assert by_expression.sort("r").rename({"r": "rank"}).equals(pop)
    with pytest.raises(lp.InvalidParameterError, match="'by' parameter of item_popularity"):
        lp.item_popularity(frame, by=3, item="rank")  # type: ignore[arg-type]
    with pytest.raises(lp.InvalidParameterError, match="'item' parameter of personalisation"):
        lp.personalisation(frame, by="user", item=3, y_score="score")  # type: ignore[arg-type]
    with pytest.raises(lp.InvalidParameterError, match="names 'nope', which is not a column"):
        lp.personalisation(frame, by="user", item="nope", y_score="score")


@pytest.mark.parametrize("layout", ["grouped", "shuffled"])
def test_evaluate_in_parts_reads_the_inputs_of_each_part(
    layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A LazyFrame read in parts of whole groups, a frame cut in parts: one call's values."""
    from lodestar_polars._evaluate import parted

    frame = _random_lists(8, "runs" if layout == "grouped" else "shuffled")
    names = ["novelty@3", "ild@3", "serendipity@3", "ild(dim=3)"]
    common: dict[str, Any] = {"by": "user", "y_true": "hit", "y_score": "score", "n_items": 9}
    whole = lp.evaluate(frame, names[:3], **common, popularity="p", feature="genre",
                        popularity_rank="rank")  # fmt: skip
    parts: dict[str, Any] = {"batch_rows": 200, "layout": layout, "temp_dir": str(tmp_path)}
    lazy = lp.evaluate(
        frame.lazy(),
        names[:3],
        **common,
        popularity="p",
        feature="genre",
        popularity_rank="rank",
        **parts,
    ).collect()
    assert lazy["user"].to_list() == whole["user"].to_list()
    for name in names[:3]:  # a partitioned part holds a group's rows in another order:
        # the sums over a tie add in another order, equal within rounding
        np.testing.assert_allclose(lazy[name].to_numpy(), whole[name].to_numpy(), rtol=1e-12)
    embedded = lp.evaluate(frame, names[3:], by="user", y_true="hit", y_score="score", feature="v")
    monkeypatch.setattr(parted, "_PART_ROWS", 150)
    cut = lp.evaluate(frame, names[3:], by="user", y_true="hit", y_score="score", feature="v")
    assert cut["user"].to_list() == embedded["user"].to_list()
    np.testing.assert_allclose(
        cut[names[3]].to_numpy(), embedded[names[3]].to_numpy(), rtol=1e-12, atol=1e-15
    )
