"""Hypothesis properties of ``lp.summarize`` on random per-query frames.

Frames are small (at most 30 queries, 5 users, 3 cohorts, 2 metrics) with null
values, weights that may be 0 and cohorts that need not be constant per user,
so empty cohorts, users with nothing scored and zero total weights (a weight is 0
one time in 13) come up often.  The reference is NumPy, written here from the definitions: the micro
mean is the weighted mean of every scored query, the macro mean the plain mean
of each user's weighted mean; each cohort and the whole frame (the null cohort,
last) get a row per metric, its means null and counts 0 when nothing is scored.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lodestar_polars as lp

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
METRICS = ["ndcg", "rr"]
VALUES = st.one_of(st.none(), st.floats(0.0, 1.0), st.sampled_from([0.0, 0.5, 1.0]))


@st.composite
def frames(draw: Any) -> pl.DataFrame:
    n = draw(st.integers(0, 30))
    return pl.DataFrame(
        {
            "user": draw(
                st.lists(st.sampled_from(["u0", "u1", "u2", "u3", "u4"]), min_size=n, max_size=n)
            ),
            "cohort": draw(
                st.lists(st.sampled_from(["new", "old", "vip"]), min_size=n, max_size=n)
            ),
            "ndcg": draw(st.lists(VALUES, min_size=n, max_size=n)),
            "rr": draw(st.lists(VALUES, min_size=n, max_size=n)),
            "w": draw(
                st.lists(st.sampled_from([0.0] + [0.25, 1.0, 2.0, 3.5] * 3), min_size=n, max_size=n)
            ),
        },
        schema={
            "user": pl.String,
            "cohort": pl.String,
            "ndcg": pl.Float64,
            "rr": pl.Float64,
            "w": pl.Float64,
        },
    )


def _reference(
    frame: pl.DataFrame, cohort: str | None, weight: str | None
) -> tuple[list[dict[str, Any]], bool]:
    """The expected rows, and whether a user's scored queries weigh 0 in all (a refusal)."""
    users = frame["user"].to_numpy()
    cohorts = frame["cohort"].to_numpy()
    w = frame[weight].to_numpy() if weight else np.ones(frame.height)
    keys: list[Any] = sorted(set(cohorts.tolist())) + [None] if cohort else [None]
    rows, zero = [], False
    for key in keys:
        in_key = np.ones(frame.height, bool) if key is None else cohorts == key
        for metric in METRICS:
            value = frame[metric].to_numpy().astype(np.float64)  # null -> NaN
            scored = in_key & ~np.isnan(value)
            row: dict[str, Any] = {"metric": metric, "queries": int(scored.sum())}
            if cohort:
                row[cohort] = key
            names = np.unique(users[scored])
            row["users"] = names.size
            if not names.size:
                row.update(micro=None, macro=None, divergence=None)
                rows.append(row)
                continue
            user_means = []
            for name in names:
                mine = scored & (users == name)
                total = w[mine].sum()
                zero |= total == 0
                user_means.append((value[mine] * w[mine]).sum() / total if total else np.nan)
            micro = (
                (value[scored] * w[scored]).sum() / w[scored].sum() if w[scored].sum() else np.nan
            )
            macro = float(np.mean(user_means))
            row.update(micro=float(micro), macro=macro, divergence=macro - float(micro))
            rows.append(row)
    return rows, zero


def _close(got: Any, want: Any) -> bool:
    if want is None or got is None:
        return got is None and want is None
    return bool(abs(got - want) <= 1e-12 * max(1.0, abs(want)))


@SETTINGS
@given(
    frame=frames(), cohort=st.sampled_from([None, "cohort"]), weight=st.sampled_from([None, "w"])
)
def test_summarize_equals_the_numpy_reference(
    frame: pl.DataFrame, cohort: str | None, weight: str | None
) -> None:
    expected, zero = _reference(frame, cohort, weight)
    if zero:
        # a user whose scored queries of a metric weigh 0 in all: refused, the user named
        with pytest.raises(ValueError, match=r"sums to 0 over the scored queries of user 'u\d'"):
            lp.summarize(frame, metrics=METRICS, cohort=cohort, weight=weight)
        return
    got = lp.summarize(frame, metrics=METRICS, cohort=cohort, weight=weight)
    lazy = lp.summarize(frame.lazy(), metrics=METRICS, cohort=cohort, weight=weight)
    assert got.to_dicts() == lazy.collect().to_dicts()
    assert got.columns == [
        *([cohort] if cohort else []),
        "metric",
        "micro",
        "macro",
        "divergence",
        "queries",
        "users",
    ]
    assert got.height == len(expected)
    for row, want in zip(got.iter_rows(named=True), expected, strict=True):
        assert (row["metric"], row["queries"], row["users"]) == (
            want["metric"],
            want["queries"],
            want["users"],
        )
        if cohort:
            assert row[cohort] == want[cohort]
        for column in ("micro", "macro", "divergence"):
            assert _close(row[column], want[column]), (column, row, want)


@SETTINGS
@given(
    frame=frames().filter(lambda f: f.height > 0),
    where=st.integers(0, 29),
    bad=st.sampled_from([float("inf"), -float("inf"), float("nan")]),
    metric=st.sampled_from(METRICS),
)
def test_summarize_refuses_infinities_and_nan(
    frame: pl.DataFrame, where: int, bad: float, metric: str
) -> None:
    row = where % frame.height
    poisoned = frame.with_columns(
        pl.when(pl.int_range(pl.len()) == row).then(bad).otherwise(pl.col(metric)).alias(metric)
    )
    word = "NaN" if np.isnan(bad) else "infinite"
    user = frame["user"][row]
    with pytest.raises(
        ValueError,
        match=re.escape(f"metric {metric!r} has 1 {word} value(s) (first for user {user!r}"),
    ):
        lp.summarize(poisoned, metrics=METRICS, cohort="cohort")


@SETTINGS
@given(
    frame=frames(),
    options=st.sampled_from(
        [
            (
                {"cohort": "user"},
                "The 'cohort' parameter of summarize names 'user', the column already given as by",
            ),
            (
                {"weight": "ndcg"},
                "The 'weight' parameter of summarize names 'ndcg', the column already given as "
                "metrics",
            ),
            (
                {"by": "rr"},
                "The 'by' parameter of summarize names 'rr', the column already given as metrics",
            ),
            (
                {"cohort": "cohort", "weight": "cohort"},
                "The 'weight' parameter of summarize names 'cohort', the column already given as "
                "cohort",
            ),
            (
                {"metrics": ["ndcg", "rr", "ndcg"]},
                "The 'metrics' parameter of summarize names a column twice",
            ),
        ]
    ),
)
def test_summarize_refuses_one_column_in_two_roles(
    frame: pl.DataFrame, options: tuple[dict[str, Any], str]
) -> None:
    kwargs, message = options
    with pytest.raises(lp.InvalidParameterError, match=re.escape(message)):
        lp.summarize(frame, **{"metrics": METRICS, **kwargs})
