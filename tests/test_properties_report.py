"""Properties of lp.ranking_report and lp.top_k on random small logs, against brute force.

The reference enumerates, for every graded list, each ordering of its candidates that sorts the
scores from high to low (every way of breaking its ties), and averages each metric over them:
the expectation over tie orders the report promises (docs/ties.md).  Scores are Python ints
(compared exactly, 2**53 + 1 above 2**53) or floats, with many ties.  top_k is compared with a
sort written here: score descending, then item ascending.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import lodestar_polars as lp

# ties on purpose; the integers include neighbours a Float64 cast would merge
INT_SCORES = [0, 1, 2, 2**53, 2**53 + 1, -(2**63), 2**63 - 1]
FLOAT_SCORES = [-1.5, 0.0, 0.25, 0.5, 1.0, 1e300]

Row = tuple[int, int, Any, bool]  # (list, item, score, clicked)


@st.composite
def logs(draw: st.DrawFn) -> tuple[str, list[Row]]:
    """A few lists of 1..5 distinct items, scores from a small pool, rows in any order."""
    kind = draw(st.sampled_from(["int", "float"]))
    pool = INT_SCORES if kind == "int" else FLOAT_SCORES
    rows: list[Row] = []
    for key in range(draw(st.integers(1, 4))):
        items = draw(st.lists(st.integers(0, 6), min_size=1, max_size=5, unique=True))
        rows += [(key, it, draw(st.sampled_from(pool)), draw(st.booleans())) for it in items]
    order = draw(st.permutations(range(len(rows))))
    return kind, [rows[i] for i in order]


def _frame(kind: str, rows: list[Row]) -> pl.DataFrame:
    return pl.DataFrame(
        rows,
        schema={
            "user": pl.Int64,
            "item": pl.Int64,
            "score": pl.Int64 if kind == "int" else pl.Float64,
            "clicked": pl.Boolean,
        },
        orient="row",
    )


def _terms(k: int) -> dict[str, Callable[[int], float]]:
    """The micro family by its definitions, as functions of the truth's rank r (1-based)."""
    out: dict[str, Callable[[int], float]] = {
        "hit@1": lambda r: 1.0 if r <= 1 else 0.0,
        "hit@5": lambda r: 1.0 if r <= 5 else 0.0,  # noqa: PLR2004
        f"hit@{k}": lambda r: 1.0 if r <= k else 0.0,
        f"mrr@{k}": lambda r: 1.0 / r if r <= k else 0.0,
        # one relevant item: the ideal DCG is 1, so ndcg is the discount at the truth's rank
        f"ndcg@{k}": lambda r: 1.0 / math.log2(r + 1) if r <= k else 0.0,
    }
    return out


def brute_force_micro(rows: list[Row], k: int) -> dict[str, float]:
    """Each graded list (list, positive): the metric averaged over every tie-breaking order."""
    lists: dict[int, list[tuple[int, Any]]] = {}
    positives: dict[int, list[int]] = {}
    for key, item, score, clicked in rows:
        lists.setdefault(key, []).append((item, score))
        if clicked:
            positives.setdefault(key, []).append(item)
    terms = _terms(k)
    per_list: dict[str, list[float]] = {name: [] for name in terms}
    for key, candidates in lists.items():
        orders = [
            [item for item, _ in order]
            for order in itertools.permutations(candidates)
            if all(order[i][1] >= order[i + 1][1] for i in range(len(order) - 1))
        ]
        for truth in positives.get(key, []):
            ranks = [order.index(truth) + 1 for order in orders]
            for name, f in terms.items():
                per_list[name].append(sum(f(r) for r in ranks) / len(ranks))
    return {name: sum(values) / len(values) for name, values in per_list.items()}


def sorted_top_k(rows: list[Row], k: int) -> list[tuple[int, int, Any, int]]:
    """Per list in key order: score descending, then item ascending; the first k, ranked."""
    out = []
    for key in sorted({row[0] for row in rows}):
        mine = sorted((row for row in rows if row[0] == key), key=lambda r: (-r[2], r[1]))
        out += [(key, item, score, rank) for rank, (_, item, score, _) in enumerate(mine[:k], 1)]
    return out


@given(log=logs(), k=st.integers(1, 6))
@settings(max_examples=80, deadline=None)
@example(  # the 2**53 pair: a Float64 cast ties them and hit@1 would be 0.5
    log=("int", [(0, 1, 2**53, False), (0, 2, 2**53 + 1, True)]), k=1
)
def test_report_micro_equals_brute_force_over_tie_orders(
    log: tuple[str, list[Row]], k: int
) -> None:
    """hit@1, hit@5, hit@k, mrr@k and ndcg@k: the report's expectation is the brute-force mean."""
    kind, rows = log
    assume(any(row[3] for row in rows))  # the report needs a positive to grade
    report = lp.ranking_report(
        _frame(kind, rows),
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=k,
        objectives=("accuracy",),
        n_resamples=10,
    )
    got = report["objectives"]["accuracy"]["micro"]
    want = brute_force_micro(rows, k)
    assert set(got) == set(want)
    for name, value in want.items():
        assert got[name] == pytest.approx(value, rel=1e-12, abs=1e-15), name
    assert report["n_lists"] == sum(row[3] for row in rows)


@given(log=logs(), k=st.integers(1, 6), lazy=st.booleans())
@settings(max_examples=80, deadline=None)
@example(log=("int", [(0, 1, 2**53, False), (0, 2, 2**53 + 1, True)]), k=1, lazy=False)
def test_top_k_serves_what_a_sort_serves(log: tuple[str, list[Row]], k: int, lazy: bool) -> None:  # noqa: FBT001
    """The served rows are exactly those of a sort by (score descending, item), k per list."""
    kind, rows = log
    frame = _frame(kind, rows).drop("clicked")
    source: Any = frame.lazy() if lazy else frame  # either kind, as parametrized
    served = lp.top_k(source, k, by="user", item="item", y_score="score")
    if lazy:
        assert isinstance(served, pl.LazyFrame)
        served = served.collect()
    assert isinstance(served, pl.DataFrame)
    assert served.rows() == sorted_top_k(rows, k)
    assert served.schema["score"] == frame.schema["score"]
