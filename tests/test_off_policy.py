"""lp.off_policy: IPS, SNIPS, DM, DR, SNDR, clipped, per position, with bootstrap intervals.

The references:

- hand arithmetic written out below;
- Open Bandit Pipeline 0.5.7's estimators, frozen in corpus/off_policy_obp.json by
  corpus/off_policy_obp.py (obp does not install on this Python: the script runs obp's own
  source; the test never imports obp);
- scipy.stats.bootstrap's paired percentile intervals (the resamples are scipy's).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp

CORPUS = Path(__file__).parents[1] / "corpus" / "off_policy_obp.json"

TINY = pl.DataFrame(
    {
        "click": [1, 0, 1, 0],
        "p_log": [0.5, 0.5, 0.25, 0.8],
        "p_new": [1.0, 0.0, 0.5, 0.2],
        "q": [0.6, 0.2, 0.4, 0.1],
        "v": [0.5, 0.3, 0.3, 0.2],
    }
)
ROLES: dict[str, Any] = {"y_true": "click", "propensity": "p_log", "target": "p_new"}


def _est(frame: pl.DataFrame, estimator: str, clip: float | None = None) -> float:
    row = frame.filter(pl.col("estimator") == estimator)
    row = row.filter(pl.col("clip").is_null() if clip is None else pl.col("clip") == clip)
    value = row["estimate"].item()
    assert isinstance(value, float)
    return value


def test_by_hand() -> None:
    """w = p_new / p_log = (2, 0, 2, 0.25); r = (1, 0, 1, 0); clip 1.5: (1.5, 0, 1.5, 0.25).

    ips = (2 + 0 + 2 + 0) / 4 = 1.0; clipped (1.5 + 1.5) / 4 = 0.75.
    snips = 4 / 4.25; clipped 3 / 3.25.
    dm = mean(v) = (0.5 + 0.3 + 0.3 + 0.2) / 4 = 0.325.
    dr = dm + mean(w (r - q)) = 0.325 + (2 * 0.4 + 0 + 2 * 0.6 + 0.25 * -0.1) / 4
       = 0.325 + 1.975 / 4 = 0.81875.
    sndr = dm + 1.975 / 4.25.
    ess = 4.25**2 / (4 + 0 + 4 + 0.0625); clipped 3.25**2 / (2.25 + 2.25 + 0.0625).
    """
    got = lp.off_policy(
        TINY, **ROLES, reward_model="q", reward_model_target="v", clip=1.5, n_resamples=None
    )
    assert got["estimator"].to_list() == [
        "ips", "ips", "snips", "snips", "dm", "dr", "dr", "sndr", "sndr",
    ]  # fmt: skip
    assert _est(got, "ips") == 1.0
    assert _est(got, "ips", 1.5) == 0.75
    assert _est(got, "snips") == pytest.approx(4 / 4.25, rel=1e-15)
    assert _est(got, "snips", 1.5) == pytest.approx(3 / 3.25, rel=1e-15)
    assert _est(got, "dm") == pytest.approx(0.325, rel=1e-15)
    assert _est(got, "dr") == pytest.approx(0.325 + 1.975 / 4, rel=1e-15)
    clipped_res = 1.5 * 0.4 + 1.5 * 0.6 + 0.25 * -0.1
    assert _est(got, "dr", 1.5) == pytest.approx(0.325 + clipped_res / 4, rel=1e-15)
    assert _est(got, "sndr") == pytest.approx(0.325 + 1.975 / 4.25, rel=1e-15)
    assert _est(got, "sndr", 1.5) == pytest.approx(0.325 + clipped_res / 3.25, rel=1e-15)
    ess = got.filter(estimator="ips")["ess"].to_list()
    assert ess == pytest.approx([4.25**2 / 8.0625, 3.25**2 / 4.5625], rel=1e-15)
    assert got.filter(estimator="dm")["ess"].item() is None
    assert got["n_rows"].unique().to_list() == [4]
    assert got["ci_low"].null_count() == got.height  # n_resamples=None: no interval


def test_by_hand_per_position() -> None:
    """Positions 1 (rows 0, 2) and 2 (rows 1, 3): ips_1 = (2 + 2) / 2 = 2, ips_2 = 0; the
    slate's total (position null) is their sum, 2.
    """
    log = TINY.with_columns(pos=pl.Series([1, 2, 1, 2]))
    got = lp.off_policy(log, **ROLES, position="pos", estimators=["ips", "snips"], n_resamples=None)
    ips = got.filter(estimator="ips")
    assert ips["position"].to_list() == [1, 2, None]
    assert ips["estimate"].to_list() == [2.0, 0.0, 2.0]
    assert ips["n_rows"].to_list() == [2, 2, 4]
    snips = got.filter(estimator="snips")  # (2 + 2) / 4 = 1; 0 / 0.25 = 0; total 1
    assert snips["estimate"].to_list() == [1.0, 0.0, 1.0]


def test_snips_with_no_weight_is_null() -> None:
    log = TINY.with_columns(p_new=pl.lit(0.0))
    got = lp.off_policy(log, **ROLES, estimators=["snips"], n_resamples=None)
    assert got["estimate"].item() is None


def _corpus() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(CORPUS.read_text())
    assert data["obp"] == "0.5.7"
    return data


def _obp_key(row: dict[str, Any]) -> str:
    return str(row["estimator"]) + ("" if row["clip"] is None else f"@{row['clip']:g}")


def test_equals_open_bandit_pipeline() -> None:
    """obp's InverseProbabilityWeighting (lambda_ 2), SelfNormalizedInverseProbabilityWeighting,
    DirectMethod, DoublyRobust (lambda_ 2) and SelfNormalizedDoublyRobust, on the log, and
    on the rows of each position (obp's per-position value).
    """
    data = _corpus()
    log = pl.DataFrame(data["log"])
    roles: dict[str, Any] = {
        "y_true": "reward",
        "propensity": "propensity",
        "target": "target",
        "reward_model": "reward_model",
        "reward_model_target": "reward_model_target",
        "clip": 2.0,
        "n_resamples": None,
    }
    whole = lp.off_policy(log, **roles)
    compared = 0
    for row in whole.iter_rows(named=True):
        key = _obp_key(row)
        if key in data["obp_all"]:  # obp clips ips and dr only
            assert row["estimate"] == pytest.approx(data["obp_all"][key], rel=1e-12)
            compared += 1
    assert compared == 7
    per = lp.off_policy(log, **roles, position="position")
    compared = 0
    for row in per.filter(pl.col("position").is_not_null()).iter_rows(named=True):
        ref = data["obp_by_position"][str(row["position"])]
        key = _obp_key(row)
        if key in ref:
            assert row["estimate"] == pytest.approx(ref[key], rel=1e-12)
            compared += 1
    assert compared == 21


def test_slate_total_equals_slate_independent_ips() -> None:
    """The sum over positions is obp's SlateIndependentIPS on slates with each position once."""
    s = _corpus()["slates"]
    log = pl.DataFrame({k: v for k, v in s.items() if k != "slate_independent_ips"})
    got = lp.off_policy(
        log,
        y_true="reward",
        propensity="propensity",
        target="target",
        position="position",
        by="slate_id",
        estimators=["ips"],
        n_resamples=None,
    )
    total = got.filter(pl.col("position").is_null())["estimate"].item()
    assert total == pytest.approx(s["slate_independent_ips"], rel=1e-12)


def _random_log(seed: int, n: int = 150) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "session": rng.integers(0, 40, n),
            "pos": rng.integers(1, 4, n),
            "click": rng.binomial(1, 0.3, n),
            "p_log": rng.uniform(0.1, 1.0, n),
            "p_new": rng.uniform(0.0, 1.0, n),
        }
    )


def test_intervals_equal_scipy_bootstrap() -> None:
    """Rows resampled (no by): ips and snips are scipy's paired percentile bootstrap of
    sum(a) / sum(b) with (a, b) = (w r, 1) and (w r, w).
    """
    stats = pytest.importorskip("scipy.stats")
    log = _random_log(1)
    got = lp.off_policy(
        log, **ROLES, estimators=["ips", "snips"], n_resamples=400, confidence_level=0.9, seed=5
    )
    w = (log["p_new"] / log["p_log"]).to_numpy()
    r = log["click"].to_numpy().astype(float)

    def ratio(a: Any, b: Any, axis: int = -1) -> Any:
        return a.sum(axis=axis) / b.sum(axis=axis)

    for est, data in (("ips", (w * r, np.ones_like(w))), ("snips", (w * r, w))):
        ref = stats.bootstrap(
            data,
            ratio,
            paired=True,
            vectorized=True,
            n_resamples=400,
            confidence_level=0.9,
            method="percentile",
            rng=np.random.default_rng(5),
        )
        row = got.filter(estimator=est).row(0, named=True)
        assert row["ci_low"] == pytest.approx(ref.confidence_interval.low, rel=1e-12)
        assert row["ci_high"] == pytest.approx(ref.confidence_interval.high, rel=1e-12)
        assert row["ci_low"] <= row["estimate"] <= row["ci_high"]


def test_clustered_per_position_intervals_equal_scipy() -> None:
    """by=session resamples sessions whole; the slate's total sums the positions' ratios in
    each resample: scipy's bootstrap of sum_p sum(w r [pos = p]) / sum([pos = p]) over
    per-session sums.
    """
    stats = pytest.importorskip("scipy.stats")
    log = _random_log(2)
    got = lp.off_policy(
        log, **ROLES, position="pos", by="session", estimators=["ips"], n_resamples=300, seed=3
    )
    sessions = log["session"].unique().sort().to_list()
    index = {s: i for i, s in enumerate(sessions)}
    unit = np.array([index[s] for s in log["session"].to_list()])
    w = (log["p_new"] / log["p_log"]).to_numpy()
    r = log["click"].to_numpy().astype(float)
    pos = log["pos"].to_numpy()
    cols = []
    for p in (1, 2, 3):
        cols.append(np.bincount(unit, weights=w * r * (pos == p), minlength=len(sessions)))
        cols.append(np.bincount(unit, weights=(pos == p).astype(float), minlength=len(sessions)))

    def total(*c: Any, axis: int = -1) -> Any:
        return sum(c[2 * j].sum(axis=axis) / c[2 * j + 1].sum(axis=axis) for j in range(3))

    ref = stats.bootstrap(
        tuple(cols),
        total,
        paired=True,
        vectorized=True,
        n_resamples=300,
        confidence_level=0.95,
        method="percentile",
        rng=np.random.default_rng(3),
    )
    row = got.filter(pl.col("position").is_null()).row(0, named=True)
    assert row["ci_low"] == pytest.approx(ref.confidence_interval.low, rel=1e-12)
    assert row["ci_high"] == pytest.approx(ref.confidence_interval.high, rel=1e-12)
    assert row["estimate"] == pytest.approx(float(total(*cols)), rel=1e-12)


def test_the_seeds_inflated_recall() -> None:
    """The log was collected by the old policy, so read as it is it measures the old policy.

    Ten items with click probabilities c_a from 0.05 to 0.5; the old policy shows item a
    with probability pi_b(a), popular (low-click) items first; the new policy always shows
    item 9, whose true value is c_9 = 0.5. The log's click rate is the old policy's value,
    far below; IPS and SNIPS reweight the rows the new policy agrees with and find 0.5
    within their intervals.
    """
    rng = np.random.default_rng(7)
    n = 50_000
    clicks = np.linspace(0.05, 0.5, 10)
    pi_b = np.linspace(10, 3, 10)
    pi_b /= pi_b.sum()
    action = rng.choice(10, size=n, p=pi_b)
    reward = rng.binomial(1, clicks[action])
    log = pl.DataFrame(
        {
            "click": reward,
            "p_log": pi_b[action],
            "p_new": (action == 9).astype(float),
        }
    )
    got = lp.off_policy(log, **ROLES, estimators=["ips", "snips"], n_resamples=200)
    truth = clicks[9]
    logged_rate = float(reward.mean())  # the old policy's value: what the log says as it is
    assert logged_rate < truth - 0.1
    for row in got.iter_rows(named=True):
        assert row["ci_low"] <= truth <= row["ci_high"], row
        assert abs(row["estimate"] - truth) < 0.25 * abs(logged_rate - truth)


def test_lazy_in_lazy_out() -> None:
    lazy = lp.off_policy(TINY.lazy(), **ROLES, n_resamples=20)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(lp.off_policy(TINY, **ROLES, n_resamples=20))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"reward_model": "q"}, "give both or neither"),
        ({"estimators": ["dr"]}, "need a reward model"),
        ({"estimators": ["ipw"]}, "'estimators'"),
        ({"estimators": []}, "'estimators'"),
        ({"clip": 0.0}, "'clip'"),
        ({"clip": [1.0, -2.0]}, "'clip'"),
        ({"clip": []}, "'clip'"),
        ({"clip": "1"}, "'clip'"),
        ({"n_resamples": 0}, "'n_resamples'"),
        ({"confidence_level": 1.0}, "'confidence_level'"),
        ({"seed": -1}, "'seed'"),
        ({"propensity": 3}, "'propensity'"),
        ({"position": "nope"}, "'position'"),
        ({"by": 3}, "'by'"),
    ],
)
def test_option_refusals(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(lp.InvalidParameterError, match=match):
        lp.off_policy(TINY, **{**ROLES, **kwargs})


@pytest.mark.parametrize(
    ("column", "value", "match"),
    [
        ("p_log", 0.0, r"'propensity' column must hold probabilities in \(0, 1\]"),
        ("p_log", 1.5, r"'propensity' column must hold probabilities in \(0, 1\]"),
        ("p_log", None, r"'propensity' column"),
        ("p_new", -0.1, r"'target' column must hold probabilities in \[0, 1\]"),
        ("click", float("nan"), "'y_true' column must hold a finite reward"),
    ],
)
def test_data_refusals(column: str, value: Any, match: str) -> None:
    bad = TINY.with_columns(
        pl.when(pl.int_range(pl.len()) == 2).then(value).otherwise(pl.col(column)).alias(column)
    )
    with pytest.raises(ValueError, match=match):
        lp.off_policy(bad, **ROLES)


def test_empty_and_non_numeric_refused() -> None:
    with pytest.raises(ValueError, match="no rows"):
        lp.off_policy(TINY.head(0), **ROLES)
    with pytest.raises(ValueError, match="must be numeric"):
        lp.off_policy(TINY.with_columns(click=pl.lit("yes")), **ROLES)
