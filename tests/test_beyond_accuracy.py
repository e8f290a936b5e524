"""Beyond-accuracy metrics against RecTools (corpus/beyond_accuracy.json) and hand arithmetic."""

from __future__ import annotations

import importlib.util
import itertools
import math
import sys
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


def _load_shared() -> Any:
    """``tests/_beyond.py``, by path (``--import-mode=importlib`` puts no test dir on sys.path)."""
    name = "_lodestar_tests_beyond"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("_beyond.py"))
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_shared = _load_shared()
CORPUS, KS, SERVED, TOL = _shared.CORPUS, _shared.KS, _shared.SERVED, _shared.TOL
_close, _per_user = _shared._close, _shared._per_user


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
