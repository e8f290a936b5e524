"""The beyond-accuracy tests' data: RecTools' example, random lists."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl

import lodestar_polars as lp

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
