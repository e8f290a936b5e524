"""Freeze RecTools' beyond-accuracy numbers on a small random example (corpus/beyond_accuracy.json).

Run with a venv holding RecTools (``pip install rectools``; 0.19.0 made the frozen file):

    /work/venvs/beyond/bin/python corpus/beyond_accuracy.py

RecTools ranks by a ``rank`` column with no ties, so the example's scores are
``-rank``.  What RecTools has no metric for is computed here by brute force
over every pair, independently of the library's closed forms: intra-list
diversity as the mean cosine distance of embeddings (SciPy's ``pdist``) and
personalisation (one minus the mean over pairs of lists of
``|a & b| / sqrt(|a| |b|)``, from Python sets).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import rectools
from rectools import Columns
from rectools.metrics import (
    AvgRecPopularity,
    IntraListDiversity,
    MeanInvUserFreq,
    Serendipity,
)
from rectools.metrics.distances import PairwiseHammingDistanceCalculator
from scipy.spatial.distance import pdist

OUT = Path(__file__).with_name("beyond_accuracy.json")
KS = (1, 3, 5, 8)


def example(seed: int = 21) -> dict[str, object]:
    """The small random example: training and test interactions, served lists, features."""
    rng = np.random.default_rng(seed)
    n_users, n_items, dim = 9, 14, 4
    # training interactions: each user a distinct set of items (no repeated pair)
    train = [
        (u, int(i))
        for u in range(n_users)
        for i in rng.choice(n_items - 2, size=int(rng.integers(1, 7)), replace=False)
    ]  # items 12 and 13 are cold: never in training
    test = [
        (u, int(i))
        for u in range(n_users)
        for i in rng.choice(n_items, size=int(rng.integers(1, 5)), replace=False)
    ]
    reco = [
        (u, int(i), r + 1)
        for u in range(n_users)
        for r, i in enumerate(rng.choice(n_items, size=int(rng.integers(1, 8)), replace=False))
    ]
    category = [int(c) for c in rng.integers(0, 3, size=n_items)]
    embedding = rng.normal(size=(n_items, dim)).round(3).tolist()
    return {
        "n_items": n_items,
        "train": train,
        "test": test,
        "reco": reco,
        "category": category,
        "embedding": embedding,
    }


def main() -> None:
    """Compute every reference number and write the JSON file."""
    data = example()
    train = pd.DataFrame(data["train"], columns=[Columns.User, Columns.Item])
    test = pd.DataFrame(data["test"], columns=[Columns.User, Columns.Item])
    reco = pd.DataFrame(data["reco"], columns=[Columns.User, Columns.Item, Columns.Rank])
    n_items = int(data["n_items"])  # type: ignore[call-overload]
    features = pd.DataFrame({"category": data["category"]}, index=range(n_items))
    hamming = PairwiseHammingDistanceCalculator(features)
    embedding = np.asarray(data["embedding"])
    catalog = list(range(n_items))
    users = sorted(reco[Columns.User].unique().tolist())

    def per_user(series: pd.Series) -> list[float]:
        return [float(series.loc[u]) for u in users]

    out: dict[str, object] = {"rectools": rectools.__version__, "users": users, **data}
    results: dict[str, dict[str, list[float] | float]] = {}
    for k in KS:
        top = reco[reco[Columns.Rank] <= k]
        lists = {u: top[top[Columns.User] == u].sort_values(Columns.Rank) for u in users}
        ild_cos = []
        for u in users:
            items = lists[u][Columns.Item].to_numpy()
            ild_cos.append(
                float(pdist(embedding[items], "cosine").mean()) if items.size > 1 else 0.0
            )
        item_sets = [set(lists[u][Columns.Item].tolist()) for u in users]
        overlaps = [
            len(a & b) / np.sqrt(len(a) * len(b)) for a, b in itertools.combinations(item_sets, 2)
        ]
        results[str(k)] = {
            "novelty": per_user(MeanInvUserFreq(k=k).calc_per_user(reco, train)),
            "arp_counts": per_user(AvgRecPopularity(k=k).calc_per_user(reco, train)),
            "ild_category": per_user(
                IntraListDiversity(k=k, distance_calculator=hamming).calc_per_user(reco)
            ),
            "serendipity": per_user(Serendipity(k=k).calc_per_user(reco, test, train, catalog)),
            "ild_cosine_pdist": ild_cos,
            "personalisation_sets": float(1.0 - np.mean(overlaps)),
        }
    out["results"] = results
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
