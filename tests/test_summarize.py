"""lp.summarize: micro vs macro means by cohort, seed 003 section 5 (issue 11)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp


def _loop_reference(
    rows: list[dict[str, Any]], metric: str, cohort: str | None, weight: str | None
) -> dict[object, tuple[float, float, int, int]]:
    """Micro and macro means by plain Python loops: {cohort: (micro, macro, queries, users)}."""
    groups: dict[object, list[dict[str, Any]]] = {}
    for row in rows:
        if row[metric] is None:
            continue
        groups.setdefault(row[cohort] if cohort else None, []).append(row)
        if cohort:
            groups.setdefault("__whole__", []).append(row)
    out = {}
    for key, members in groups.items():
        num = sum(float(r[metric]) * (float(r[weight]) if weight else 1.0) for r in members)
        den = sum(float(r[weight]) if weight else 1.0 for r in members)
        per_user: dict[object, list[dict[str, Any]]] = {}
        for r in members:
            per_user.setdefault(r["user"], []).append(r)
        user_means = []
        for rs in per_user.values():
            un = sum(float(r[metric]) * (float(r[weight]) if weight else 1.0) for r in rs)
            ud = sum(float(r[weight]) if weight else 1.0 for r in rs)
            user_means.append(un / ud)
        out[None if key == "__whole__" else key] = (
            num / den,
            sum(user_means) / len(user_means),
            len(members),
            len(per_user),
        )
    return out


@pytest.mark.parametrize("cohort", [None, "cohort"])
@pytest.mark.parametrize("weight", [None, "w"])
def test_equals_loop_reference(cohort: str | None, weight: str | None) -> None:
    """Micro, macro, divergence and counts equal a loop reference (nulls skipped)."""
    rng = np.random.default_rng(0)
    n = 60
    users = rng.integers(0, 12, n)
    values = rng.random(n)
    frame = pl.DataFrame(
        {
            "user": [f"u{u}" for u in users],
            "cohort": ["new" if u < 5 else "active" for u in users],
            "ndcg": [None if i % 13 == 0 else float(v) for i, v in enumerate(values)],
            "w": rng.integers(1, 4, n),
        }
    )
    result = lp.summarize(frame, metrics="ndcg", cohort=cohort, weight=weight)
    expected = _loop_reference(frame.to_dicts(), "ndcg", cohort, weight)
    assert result.height == len(expected)
    for row in result.iter_rows(named=True):
        micro, macro, queries, users_n = expected[row[cohort] if cohort else None]
        assert row["micro"] == pytest.approx(micro, rel=1e-12)
        assert row["macro"] == pytest.approx(macro, rel=1e-12)
        assert row["divergence"] == pytest.approx(macro - micro, rel=1e-12, abs=1e-15)
        assert (row["queries"], row["users"]) == (queries, users_n)


def _log(*, newcomer_quality: bool, active_quality: bool = True) -> pl.DataFrame:
    """A long eval log with seed 003's activity skew.

    100 newcomers with one query each and 100 active users with 40 queries each: the
    newcomers are half the users and 100 / 4100 = 2.4% of the queries. Each query has 5
    documents, one relevant at a random position; "no quality" means nothing relevant was
    shown (NDCG 0).
    """
    rng = np.random.default_rng(3)
    rows: dict[str, list[object]] = {"user": [], "cohort": [], "query": [], "rel": [], "score": []}
    q = 0
    for u in range(200):
        newcomer = u < 100
        good = newcomer_quality if newcomer else active_quality
        for _ in range(1 if newcomer else 40):
            hit = rng.integers(0, 5)
            for doc in range(5):
                rows["user"].append(f"u{u}")
                rows["cohort"].append("newcomer" if newcomer else "active")
                rows["query"].append(q)
                rows["rel"].append(int(good and doc == hit))
                rows["score"].append(float(5 - doc))
            q += 1
    log = pl.DataFrame(rows)
    return lp.evaluate(log, ["ndcg"], by=["cohort", "user", "query"], y_true="rel", y_score="score")


def _whole(summary: pl.DataFrame) -> dict[str, float]:
    return summary.filter(pl.col("cohort").is_null()).row(0, named=True)


def test_seed_003_newcomers_move_macro_by_tenths_micro_by_hundredths() -> None:
    """Seed 003 section 5: a release that kills onboarding looks neutral in micro."""
    before = lp.summarize(_log(newcomer_quality=True), metrics="ndcg", cohort="cohort")
    after = lp.summarize(_log(newcomer_quality=False), metrics="ndcg", cohort="cohort")
    shares = before.filter(pl.col("cohort") == "newcomer").row(0, named=True)
    whole = _whole(before)
    assert shares["users"] / whole["users"] == 0.5  # half the audience by headcount
    assert shares["queries"] / whole["queries"] == pytest.approx(100 / 4100)  # 2.4% of queries
    micro_drop = _whole(before)["micro"] - _whole(after)["micro"]
    macro_drop = _whole(before)["macro"] - _whole(after)["macro"]
    assert 0.01 <= micro_drop < 0.1  # hundredths
    assert 0.1 <= macro_drop < 1.0  # tenths
    # exactly: the newcomers' mean NDCG times their share of queries / of users
    newcomer_ndcg = shares["micro"]
    assert micro_drop == pytest.approx(newcomer_ndcg * 100 / 4100, rel=1e-12)
    assert macro_drop == pytest.approx(newcomer_ndcg * 0.5, rel=1e-12)
    # the divergence is the diagnosis: after the release macro sits well below micro
    assert _whole(after)["divergence"] < -0.1


def test_seed_003_dropping_the_active_moves_both() -> None:
    """The opposite case: both means fall, so it is noticed without cutting by cohort."""
    before = _whole(lp.summarize(_log(newcomer_quality=True), metrics="ndcg", cohort="cohort"))
    after = _whole(
        lp.summarize(
            _log(newcomer_quality=True, active_quality=False), metrics="ndcg", cohort="cohort"
        )
    )
    assert before["micro"] - after["micro"] > 0.5
    assert before["macro"] - after["macro"] > 0.2


def _frame() -> pl.DataFrame:
    return pl.DataFrame(
        {"user": ["a", "a", "b"], "ndcg": [0.5, 1.0, 0.0], "w": [1.0, 2.0, 1.0], "c": ["x"] * 3}
    )


@pytest.mark.parametrize(
    ("make", "kwargs", "msg"),
    [
        (
            _frame,
            {"metrics": "map"},
            "The 'metrics' parameter of summarize names 'map', which is not a column of "
            "per_query (its columns: ['user', 'ndcg', 'w', 'c']).",
        ),
        (
            _frame,
            {"metrics": "ndcg", "by": "session"},
            "The 'by' parameter of summarize names 'session', which is not a column",
        ),
        (
            lambda: _frame().with_columns(ndcg=pl.Series([0.5, float("nan"), 0.0])),
            {"metrics": "ndcg"},
            "metric 'ndcg' has 1 NaN value(s) (first for user 'a'): a NaN would silently "
            "poison both means; use null for a query that could not be scored.",
        ),
        (
            lambda: _frame().with_columns(w=pl.Series([1.0, -2.0, 1.0])),
            {"metrics": "ndcg", "weight": "w"},
            "The 'weight' column 'w' must be finite and >= 0 on every row; 1 row(s) are not "
            "(e.g. -2.0).",
        ),
        (
            lambda: _frame().with_columns(user=pl.Series(["a", None, "b"])),
            {"metrics": "ndcg"},
            "The 'by' column 'user' has 1 null value(s).",
        ),
        (_frame, {"metrics": "c"}, "column 'c' must be numeric; it is String."),
        (
            lambda: _frame().with_columns(ndcg=pl.Series([0.5, float("inf"), 0.0])),
            {"metrics": "ndcg"},
            "metric 'ndcg' has 1 infinite value(s) (first for user 'a': inf): an infinity would "
            "make both means infinite or NaN; a metric value is finite, or null for a query "
            "that could not be scored.",
        ),
        (
            lambda: _frame().with_columns(ndcg=pl.Series([0.5, 0.1, -float("inf")])),
            {"metrics": "ndcg"},
            "metric 'ndcg' has 1 infinite value(s) (first for user 'b': -inf)",
        ),
        (
            lambda: _frame().with_columns(w=pl.Series([1.0, 2.0, 0.0])),
            {"metrics": "ndcg", "weight": "w"},
            "The 'weight' column 'w' sums to 0 over the scored queries of user 'b' for metric "
            "'ndcg' (1 such group(s)): that mean would be 0 / 0. Give those queries a positive "
            "weight or leave the rows out.",
        ),
        (
            lambda: _frame().with_columns(w=pl.Series([0.0, 0.0, 0.0])),
            {"metrics": "ndcg", "weight": "w", "cohort": "c"},
            "The 'weight' column 'w' sums to 0 over the scored queries of user 'a' (cohort 'x') "
            "for metric 'ndcg' (2 such group(s))",
        ),
    ],
)
def test_bad_input(make: object, kwargs: dict[str, object], msg: str) -> None:
    """Each rule, one sentence."""
    with pytest.raises(ValueError, match=re.escape(msg)):
        lp.summarize(make(), **kwargs)  # type: ignore[operator, arg-type]


@pytest.mark.parametrize(
    ("kwargs", "msg"),
    [
        (
            {"metrics": "ndcg", "cohort": "user"},
            "The 'cohort' parameter of summarize names 'user', the column already given as "
            "by: each column plays one role.",
        ),
        (
            {"metrics": "ndcg", "weight": "user"},
            "The 'weight' parameter of summarize names 'user', the column already given as by",
        ),
        (
            {"metrics": ["ndcg", "w"], "weight": "w"},
            "The 'weight' parameter of summarize names 'w', the column already given as metrics",
        ),
        (
            {"metrics": "ndcg", "by": "ndcg"},
            "The 'by' parameter of summarize names 'ndcg', the column already given as metrics",
        ),
        (
            {"metrics": "ndcg", "cohort": "c", "weight": "c"},
            "The 'weight' parameter of summarize names 'c', the column already given as cohort",
        ),
        (
            {"metrics": 5},
            "The 'metrics' parameter of summarize must be a column name or a polars expression, "
            "or a non-empty sequence of them. Got 5 instead.",
        ),
        ({"metrics": None}, "or a non-empty sequence of them. Got None"),
        ({"metrics": ["ndcg", 1]}, "Got ['ndcg', 1] instead."),
        ({"metrics": []}, "The 'metrics' parameter of summarize must be a column name"),
        ({"metrics": ["ndcg", "ndcg"]}, "names a column twice: ['ndcg']"),
        (
            {"metrics": "ndcg", "by": None},
            "The 'by' parameter of summarize must be a column name or a polars expression, or a "
            "non-empty sequence of them. Got None instead.",
        ),
        (
            {"metrics": "ndcg", "cohort": ["c"]},
            "The 'cohort' parameter of summarize must be a column name or a polars expression of "
            "one column or None. Got ['c'] instead.",
        ),
        ({"metrics": "ndcg", "weight": 1.0}, "The 'weight' parameter of summarize must be a"),
        ({"metrics": "ndcg", "cohort": "nope"}, "The 'cohort' parameter of summarize names 'nope'"),
    ],
)
def test_bad_options(kwargs: dict[str, object], msg: str) -> None:
    """An option outside its domain: lp.InvalidParameterError, one sentence."""
    with pytest.raises(lp.InvalidParameterError, match=re.escape(msg)):
        lp.summarize(_frame(), **kwargs)  # type: ignore[arg-type]
    with pytest.raises(lp.InvalidParameterError, match=re.escape(msg)):
        lp.summarize(_frame().lazy(), **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["metric", "micro", "macro", "divergence", "queries", "users"])
def test_a_cohort_named_as_a_result_column_is_refused(name: str) -> None:
    frame = _frame().rename({"c": name})
    with pytest.raises(lp.InvalidParameterError, match=f"names '{name}', a column of the result"):
        lp.summarize(frame, metrics="ndcg", cohort=name)


def test_not_a_frame() -> None:
    with pytest.raises(
        lp.InvalidParameterError,
        match="The 'per_query' parameter of summarize must be a polars DataFrame",
    ):
        lp.summarize({"user": ["a"], "ndcg": [1.0]}, metrics="ndcg")  # type: ignore[type-var]


def test_a_cohort_with_no_scored_value_keeps_its_row() -> None:
    """Every cohort gets a row per metric: null means and zero counts where nothing scored."""
    frame = pl.DataFrame(
        {
            "user": ["a", "a", "b", "c", "d"],
            "c": ["x", "x", "y", "y", "z"],
            "ndcg": [0.5, 1.0, None, None, 0.25],
            "map": [None, None, 0.3, None, None],
        }
    )
    result = lp.summarize(frame, metrics=["ndcg", "map"], cohort="c")
    got = {(r["c"], r["metric"]): r for r in result.iter_rows(named=True)}
    assert result["c"].to_list() == ["x", "x", "y", "y", "z", "z", None, None]
    assert result["metric"].to_list() == ["ndcg", "map"] * 4
    for metric in ["ndcg", "map"]:
        expected = _loop_reference(frame.to_dicts(), metric, "c", None)
        for key in ["x", "y", "z", None]:
            row = got[(key, metric)]
            if key in expected:
                micro, macro, queries, users = expected[key]
                assert row["micro"] == pytest.approx(micro, rel=1e-12)
                assert row["macro"] == pytest.approx(macro, rel=1e-12)
                assert (row["queries"], row["users"]) == (queries, users)
            else:  # nothing of this metric scored in the cohort
                assert (row["micro"], row["macro"], row["divergence"]) == (None, None, None)
                assert (row["queries"], row["users"]) == (0, 0)
    # the branches above both ran: y has no ndcg, x and z no map
    assert "y" not in _loop_reference(frame.to_dicts(), "ndcg", "c", None)
    assert {"x", "z"}.isdisjoint(_loop_reference(frame.to_dicts(), "map", "c", None))


def test_role_columns_named_like_the_working_columns() -> None:
    """A user column called 'w' and a weight called 'queries' are only names."""
    frame = _frame().rename({"user": "w", "w": "queries"})
    renamed = lp.summarize(frame, metrics="ndcg", by="w", weight="queries", cohort="c")
    plain = lp.summarize(_frame(), metrics="ndcg", weight="w", cohort="c")
    assert renamed.to_dicts() == plain.to_dicts()


def test_a_zero_weight_leaves_the_query_out_of_the_means() -> None:
    frame = _frame().with_columns(w=pl.Series([0.0, 2.0, 1.0]))
    row = lp.summarize(frame, metrics="ndcg", weight="w").row(0, named=True)
    # ann: (0.5 * 0 + 1.0 * 2) / 2 = 1.0; bob 0.0. micro (0 + 2 + 0) / 3
    assert row["micro"] == pytest.approx(2 / 3, rel=1e-12)
    assert row["macro"] == pytest.approx(0.5, rel=1e-12)
    assert (row["queries"], row["users"]) == (3, 2)


def test_the_old_name_average_over_warns() -> None:
    """``average_over`` is the old name of ``by``: the same table, with a FutureWarning."""
    new = lp.summarize(_frame(), metrics="ndcg", by="user", cohort="c")
    with pytest.warns(FutureWarning, match="`average_over` is renamed `by`"):
        # the old name is no longer in the signature: @renamed maps it to `by`
        old = lp.summarize(_frame(), metrics="ndcg", average_over="user", cohort="c")  # type: ignore[call-arg]
    assert old.to_dicts() == new.to_dicts()


def test_a_lazyframe_gives_a_lazyframe() -> None:
    """A LazyFrame in, a LazyFrame out: the same rows once collected."""
    eager = lp.summarize(_frame(), metrics="ndcg", weight="w", cohort="c")
    lazy = lp.summarize(_frame().lazy(), metrics="ndcg", weight="w", cohort="c")
    assert isinstance(eager, pl.DataFrame)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().to_dicts() == eager.to_dicts()


def test_expressions_play_every_role() -> None:
    """Each role takes an expression: the same as summarizing the computed columns."""
    frame = _frame()
    computed = frame.with_columns(
        user=pl.col("user").str.to_uppercase(),
        ndcg=pl.col("ndcg") / 2,
        c=pl.col("c").str.to_uppercase(),
        w=pl.col("w") + 1,
    )
    want = lp.summarize(computed, metrics="ndcg", weight="w", cohort="c")
    got = lp.summarize(
        frame,
        metrics=pl.col("ndcg") / 2,
        by=pl.col("user").str.to_uppercase(),
        cohort=pl.col("c").str.to_uppercase(),
        weight=pl.col("w") + 1,
    )
    assert got.to_dicts() == want.to_dicts()
    assert got.columns[0] == "c"


def test_several_by_columns_average_over_their_pairs() -> None:
    """``by`` with two columns: each (user, device) pair is one unit of the macro mean."""
    frame = pl.DataFrame(
        {
            "user": ["a", "a", "a", "b"],
            "device": ["p", "p", "t", "p"],
            "ndcg": [1.0, 0.0, 1.0, 0.25],
        }
    )
    row = lp.summarize(frame, metrics="ndcg", by=["user", "device"]).row(0, named=True)
    # pairs (a, p): 0.5, (a, t): 1.0, (b, p): 0.25; micro over the 4 queries
    assert row["macro"] == pytest.approx((0.5 + 1.0 + 0.25) / 3, rel=1e-12)
    assert row["micro"] == pytest.approx(2.25 / 4, rel=1e-12)
    assert (row["queries"], row["users"]) == (4, 3)


@pytest.mark.parametrize("seed", range(20))
def test_sums_run_in_row_order_to_the_bit(seed: int) -> None:
    """Every sum adds the rows one after the other in their order (Python's ``sum``): the
    same bits eager or lazy, on every call, whatever the optimizer does with the order.
    """
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    frame = pl.DataFrame(
        {
            "user": rng.choice(["u0", "u1", "u2", "u3", "u4"], n),
            "ndcg": rng.random(n),
            "w": rng.random(n) + 0.1,
        }
    )
    wv: dict[str, float] = {}
    w: dict[str, float] = {}
    for row in frame.iter_rows(named=True):  # users in first-appearance order
        wv[row["user"]] = wv.get(row["user"], 0.0) + row["ndcg"] * row["w"]
        w[row["user"]] = w.get(row["user"], 0.0) + row["w"]
    micro = sum(wv.values()) / sum(w.values())
    macro = sum(wv[u] / w[u] for u in wv) / len(wv)
    for _ in range(3):
        eager = lp.summarize(frame, metrics="ndcg", weight="w").row(0, named=True)
        lazy = lp.summarize(frame.lazy(), metrics="ndcg", weight="w").collect().row(0, named=True)
        assert eager == lazy
        assert (eager["micro"], eager["macro"]) == (micro, macro)
