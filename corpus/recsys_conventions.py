"""Generate corpus/recsys_conventions.json: LensKit's and RecTools' per-user numbers.

tests/test_conventions.py reads the file and checks that lodestar_polars' options
(``discount="lenskit"``, ``denominator=...``, ``judged=``, ``n_relevant=``) and the
join recipe for users with no list reproduce them to 1e-12; it never imports either
library.  Run it in a venv of its own (LensKit pulls torch; RecTools pins NumPy 1,
so pyarrow must be one built for NumPy 1):

    python3 -m venv /work/venvs/recsys
    /work/venvs/recsys/bin/pip install lenskit==2025.8.1 rectools==0.19.0 "pyarrow>=20,!=21.*,<22"
    /work/venvs/recsys/bin/python corpus/recsys_conventions.py

What it holds: ``users``, 80 random users, each with a test set (``test``: rows
``[item, rating]``, ratings 1 to 5; 1 to 12 items) and a recommendation list
(``list``: rows ``[item, score]`` in list order).  The scores are small integers
with ties, the list ordered by score descending with equal scores in the order
drawn (what LensKit's ordered ``ItemList`` and RecTools' ``rank`` column see is the
list order, so ``ties="input"`` is the rule that matches).  Six users have an
empty list (no recommendations); the others hold 1 to 15 items, many shorter
than the cutoff 10.  Then ``lenskit`` and ``rectools``: for each metric and
cutoff, one value per user in the order of ``users`` (``null`` for NaN), plus
each LensKit metric's ``default`` (the value ``RunAnalysis`` fills in for a NaN).

LensKit's metrics are called one list at a time (``measure_list``), as its
``RunAnalysis`` calls them; an empty list is measured as an empty ``ItemList``
(what ``RunAnalysis`` does for a user whose recommendations are an empty list).
RecTools' are ``calc_per_user`` over the whole frame: its users are those of
``interactions`` (the test set), a user without recommendations scoring 0.
"""

from __future__ import annotations

import json
import math
import platform
import sys
from pathlib import Path
from typing import Any

import lenskit
import numpy as np
import pandas as pd
import rectools
from lenskit.data import ItemList
from lenskit.metrics import DCG, NDCG, Hit, Precision, Recall, RecipRank
from rectools import Columns
from rectools.metrics import MAP, MRR, HitRate
from rectools.metrics import NDCG as RtNDCG
from rectools.metrics import Precision as RtPrecision
from rectools.metrics import Recall as RtRecall

SEED = 20260521
N_USERS = 80
N_ITEMS = 40
EMPTY = 6
KS = (3, 10)
OUT = Path(__file__).resolve().parent / "recsys_conventions.json"


def _users(rng: np.random.Generator) -> list[dict[str, Any]]:
    users = []
    empty = set(rng.choice(N_USERS, size=EMPTY, replace=False).tolist())
    for u in range(N_USERS):
        n_test = int(rng.integers(1, 13))
        test_items = rng.choice(N_ITEMS, size=n_test, replace=False)
        ratings = rng.integers(1, 6, size=n_test)
        test = [[int(i), float(r)] for i, r in zip(test_items, ratings, strict=True)]
        if u in empty:
            listed: list[list[float]] = []
        else:
            n = int(rng.integers(1, 16))
            # about half drawn from the test set, so lists have hits
            pool = np.unique(np.concatenate([test_items, rng.choice(N_ITEMS, size=n)]))
            items = rng.choice(pool, size=min(n, pool.size), replace=False)
            scores = rng.integers(0, 6, size=items.size)
            order = np.argsort(-scores, kind="stable")  # ties: in the order drawn
            listed = [[int(items[i]), float(scores[i])] for i in order]
        users.append({"user": u, "list": listed, "test": test})
    return users


def _value(x: Any) -> float | None:
    x = float(x)
    return None if math.isnan(x) else x


def _lenskit(users: list[dict[str, Any]]) -> dict[str, Any]:
    metrics: dict[str, Any] = {}
    for k in (*KS, None):
        at = "" if k is None else f"@{k}"
        metrics[f"ndcg_binary{at}"] = NDCG(n=k)
        metrics[f"ndcg_graded{at}"] = NDCG(n=k, gain="rating")
        metrics[f"dcg_binary{at}"] = DCG(n=k)
        metrics[f"dcg_graded{at}"] = DCG(n=k, gain="rating")
        metrics[f"precision{at}"] = Precision(n=k)
        metrics[f"recall{at}"] = Recall(n=k)
        metrics[f"recip_rank{at}"] = RecipRank(n=k)
        metrics[f"hit{at}"] = Hit(n=k)
    out: dict[str, Any] = {"values": {}, "default": {}}
    for name, metric in metrics.items():
        values = []
        for user in users:
            ids = np.array([int(i) for i, _ in user["list"]], dtype=np.int64)
            recs = ItemList(item_ids=ids, ordered=True)
            test = ItemList(
                item_ids=np.array([i for i, _ in user["test"]], dtype=np.int64),
                rating=np.array([r for _, r in user["test"]], dtype=np.float64),
            )
            values.append(_value(metric.measure_list(recs, test)))
        out["values"][name] = values
        out["default"][name] = metric.default
    return out


def _rectools(users: list[dict[str, Any]]) -> dict[str, Any]:
    reco = pd.DataFrame(
        [
            (user["user"], int(item), rank)
            for user in users
            for rank, (item, _) in enumerate(user["list"], start=1)
        ],
        columns=[Columns.User, Columns.Item, Columns.Rank],
    )
    interactions = pd.DataFrame(
        [(user["user"], int(item), 1.0, 0) for user in users for item, _ in user["test"]],
        columns=[Columns.User, Columns.Item, Columns.Weight, Columns.Datetime],
    )
    values: dict[str, list[float | None]] = {}
    for k in KS:
        metrics = {
            f"ndcg@{k}": RtNDCG(k=k),
            f"ndcg_achievable@{k}": RtNDCG(k=k, divide_by_achievable=True),
            f"precision@{k}": RtPrecision(k=k),
            f"r_precision@{k}": RtPrecision(k=k, r_precision=True),
            f"recall@{k}": RtRecall(k=k),
            f"mrr@{k}": MRR(k=k),
            f"hitrate@{k}": HitRate(k=k),
            f"map@{k}": MAP(k=k),
            f"map_divide_by_k@{k}": MAP(k=k, divide_by_k=True),
        }
        for name, metric in metrics.items():
            per_user = metric.calc_per_user(reco, interactions)
            values[name] = [_value(per_user.loc[user["user"]]) for user in users]
    return {"values": values}


def main() -> None:
    """Draw the users, measure them with both libraries, write the file."""
    rng = np.random.default_rng(SEED)
    users = _users(rng)
    data = {
        "versions": {
            "lenskit": lenskit.__version__,
            "rectools": rectools.__version__,
            "numpy": np.__version__,
            "pandas": pd.__version__,
            "python": platform.python_version(),
        },
        "seed": SEED,
        "ks": list(KS),
        "users": users,
        "lenskit": _lenskit(users),
        "rectools": _rectools(users),
    }
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    OUT.write_text(text + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(text)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
