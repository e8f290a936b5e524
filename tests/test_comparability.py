"""fit_comparability, ComparabilityState and transform_for_objective against hand arithmetic."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._comparability import DEFAULT_SHRINKAGE_STRENGTH, OBJECTIVE_ALPHA

KW: dict[str, Any] = dict(by="user", item="item", score="score")


def _log() -> pl.DataFrame:
    """Four users over items a, b, c; user 4 has no positive (dropped from base rates)."""
    return pl.DataFrame(
        {
            "user": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4],
            "item": ["a", "b", "c"] * 4,
            "score": [0.9, 0.2, 0.1, 0.6, 0.3, 0.3, 0.8, 0.1, 0.7, 0.4, 0.5, 0.0],
            "clicked": [1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0],
        }
    )


def _random_log(seed: int, n_users: int = 40, n_items: int = 7) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = n_users * n_items
    truth = rng.random(n) < 0.2
    return pl.DataFrame(
        {
            "user": np.repeat(np.arange(n_users), n_items),
            "item": np.tile(np.arange(n_items), n_users),
            "score": rng.integers(0, 6, n) / 5.0,  # heavy ties, in [0, 1]
            "clicked": truth,
        }
    )


# ---------------------------------------------------------------------------
# fit


def test_fit_base_rates_by_hand() -> None:
    """Base rates over graded lists: a 2/3, b 1/3, c 1/3; user 4 is dropped."""
    state = lp.fit_comparability(_log(), truth="clicked", **KW)
    table = state.table
    assert table["item"].to_list() == ["a", "b", "c"]
    assert table["n_positive"].to_list() == [2, 1, 1]
    assert table["n_candidate"].to_list() == [3, 3, 3]
    assert table["base_rate"].to_list() == [2 / 3, 1 / 3, 1 / 3]
    assert (state.n_lists, state.n_dropped) == (3, 1)
    assert state.catalogue.to_list() == ["a", "b", "c"]


def test_fit_quantiles_equal_numpy_over_every_row() -> None:
    """Per item, NumPy's linear quantiles at 0, 1/n, ..., 1 of all its rows (dropped lists too)."""
    log = _random_log(1)
    state = lp.fit_comparability(log, truth="clicked", n_quantiles=10, **KW)
    levels = np.linspace(0, 1, 11)
    assert state.quantile_levels == tuple(levels.tolist())
    for row in state.table.iter_rows(named=True):
        values = log.filter(pl.col("item") == row["item"])["score"].to_numpy()
        np.testing.assert_allclose(row["quantiles"], np.quantile(values, levels), rtol=1e-12)


def test_truth_frame_equals_truth_column() -> None:
    """A frame of realised (user, item) pairs fits the same state as the 0/1 column."""
    log = _random_log(2)
    pairs = log.filter(pl.col("clicked")).select("user", "item")
    by_column = lp.fit_comparability(log, truth="clicked", **KW)
    by_frame = lp.fit_comparability(log.drop("clicked"), truth=pairs.lazy(), **KW)
    assert by_column == by_frame


def test_fit_is_the_same_eager_lazy_and_shuffled() -> None:
    """Row order and laziness do not change the state."""
    log = _random_log(3)
    eager = lp.fit_comparability(log, truth="clicked", **KW)
    lazy = lp.fit_comparability(log.lazy(), truth="clicked", **KW)
    shuffled = lp.fit_comparability(
        log.sample(fraction=1.0, shuffle=True, seed=3), truth="clicked", **KW
    )
    assert eager == lazy == shuffled


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda f: f.drop("score"), r"'scores' has no column 'score'"),
        (
            lambda f: f.with_columns(
                pl.when(pl.col("user") == 2)
                .then(float("nan"))
                .otherwise(pl.col("score"))
                .alias("score")
            ),
            r"scores must be finite; the list user=2 has score=nan",
        ),
        (
            lambda f: pl.concat([f, f.head(1)]),
            r"each list must hold an item once; the list user=1 holds item='a' more than once",
        ),
        (
            lambda f: f.with_columns(pl.col("clicked").cast(pl.String)),
            r"the truth column 'clicked' must be Boolean or 0/1",
        ),
    ],
)
def test_fit_bad_input_is_a_sentence(change: Any, match: str) -> None:
    """Missing columns, non-finite scores, duplicate items, a wrong truth dtype."""
    with pytest.raises(ValueError, match=match):
        lp.fit_comparability(change(_log()), truth="clicked", **KW)


def test_fit_truth_frame_naming_unknown_lists_is_refused() -> None:
    """A realised pair whose list is not in scores is refused, naming it."""
    pairs = pl.DataFrame({"user": [1, 99], "item": ["a", "b"]})
    with pytest.raises(
        ValueError, match=r"names 1 list\(s\) that are not in scores, e\.g\. user=99"
    ):
        lp.fit_comparability(_log().drop("clicked"), truth=pairs, **KW)


# ---------------------------------------------------------------------------
# transforms, by hand


def test_named_objectives_and_their_alpha() -> None:
    """accuracy 0, balanced 0.5, coverage 1 (the seed's three presets)."""
    assert dict(OBJECTIVE_ALPHA) == {"accuracy": 0.0, "balanced": 0.5, "coverage": 1.0}
    assert DEFAULT_SHRINKAGE_STRENGTH == 50.0


def test_the_seeds_claim_a_rare_items_04_beats_a_common_items_04() -> None:
    """0.4 at a 1 % base rate outranks 0.4 at 30 % under coverage; accuracy keeps the tie."""
    n = 100
    rows = []
    for u in range(n):
        rows.append((u, "rare", 0.5, u == 0))  # 1 positive in 100 lists
        rows.append((u, "head", 0.5, 1 <= u <= 30))  # 30 positives in 100 lists
        rows.append((u, "other", 0.5, u > 30))  # every list is graded
    log = pl.DataFrame(rows, schema=["user", "item", "score", "clicked"], orient="row")
    state = lp.fit_comparability(log, truth="clicked", **KW)
    assert state.table["base_rate"].to_list() == [0.3, 0.69, 0.01]  # head, other, rare
    new = pl.DataFrame({"user": [7, 7], "item": ["rare", "head"], "score": [0.4, 0.4]})
    accuracy = lp.transform_for_objective(new, "accuracy", state, **KW)["score"].to_list()
    coverage = lp.transform_for_objective(new, "coverage", state, **KW)["score"].to_list()
    balanced = lp.transform_for_objective(new, "balanced", state, **KW)["score"].to_list()
    assert accuracy == [0.4, 0.4]
    assert coverage == pytest.approx([0.4 / 0.01, 0.4 / 0.3], rel=1e-12)
    assert balanced == pytest.approx([0.4 / 0.01**0.5, 0.4 / 0.3**0.5], rel=1e-12)
    assert coverage[0] > coverage[1]


def test_raw_alpha_and_the_never_positive_item() -> None:
    """A raw alpha (objective or alpha=); an item never positive counts as one positive."""
    state = lp.fit_comparability(_log(), truth="clicked", **KW)
    log = _log().with_columns(pl.lit(1).alias("extra"))
    never = pl.DataFrame(
        {"user": [1, 1, 2], "item": ["a", "b", "a"], "score": [0.9, 0.2, 0.1], "clicked": [1, 0, 0]}
    )
    s2 = lp.fit_comparability(never, truth="clicked", **KW)  # b: 0 positives in 1 graded list
    out = lp.transform_for_objective(never, 0.25, s2, **KW)["score"].to_list()
    assert out == pytest.approx([0.9 / 1.0**0.25, 0.2 / (1 / 1) ** 0.25, 0.1], rel=1e-12)
    by_alpha = lp.transform_for_objective(log, "accuracy", state, alpha=0.25, **KW)
    by_objective = lp.transform_for_objective(log, 0.25, state, **KW)
    assert by_alpha.equals(by_objective)
    rate = {"a": 2 / 3, "b": 1 / 3, "c": 1 / 3}
    expected = [s / rate[i] ** 0.25 for s, i in zip(log["score"], log["item"], strict=True)]
    assert by_alpha["score"].to_list() == pytest.approx(expected, rel=1e-12)
    assert by_alpha.columns == log.columns
    assert by_alpha["extra"].to_list() == [1] * log.height


def test_shrinkage_by_hand() -> None:
    """(n s + m b) / (n + m), m 50 by default or the given strength (which switches it on)."""
    state = lp.fit_comparability(_log(), truth="clicked", **KW)
    new = pl.DataFrame({"user": [5, 5, 5], "item": ["a", "b", "c"], "score": [0.9, 0.5, 0.0]})
    out = lp.transform_for_objective(new, "accuracy", state, shrinkage=True, **KW)
    assert out["score"].to_list() == pytest.approx(
        [(2 * 0.9 + 50 * 2 / 3) / 52, (1 * 0.5 + 50 / 3) / 51, (0.0 + 50 / 3) / 51], rel=1e-12
    )
    strong = lp.transform_for_objective(new, "accuracy", state, shrinkage_strength=2.0, **KW)
    assert strong["score"].to_list() == pytest.approx(
        [(2 * 0.9 + 2 * 2 / 3) / 4, (0.5 + 2 / 3) / 3, (2 / 3) / 3], rel=1e-12
    )
    chained = lp.transform_for_objective(new, "coverage", state, shrinkage_strength=2.0, **KW)
    assert chained["score"].to_list() == pytest.approx(
        [(2 * 0.9 + 2 * 2 / 3) / 4 / (2 / 3), (0.5 + 2 / 3) / 3 * 3, (2 / 3) / 3 * 3], rel=1e-12
    )


def test_shrinkage_keeps_each_items_order() -> None:
    """The seed's reason shrinkage+percentile is pointless: shrinkage is monotone per item."""
    log = _random_log(4)
    state = lp.fit_comparability(log, truth="clicked", **KW)
    out = lp.transform_for_objective(log, "accuracy", state, shrinkage=True, **KW)
    both = log.with_columns(out["score"].alias("shrunk"))
    for _, part in both.group_by("item"):
        raw = part["score"].rank("dense").to_list()
        shrunk = part["shrunk"].rank("dense").to_list()
        assert raw == shrunk


def _percentile_by_loop(quants: list[float], levels: list[float], s: float) -> float:
    """The mid-CDF of s within one item's quantiles, one comparison at a time."""
    equal = [j for j, v in enumerate(quants) if v == s]
    if equal:
        return (levels[equal[0]] + levels[equal[-1]]) / 2
    if s < quants[0]:
        return 0.0
    if s > quants[-1]:
        return 1.0
    for j in range(len(quants) - 1):
        if quants[j] < s < quants[j + 1]:
            frac = (s - quants[j]) / (quants[j + 1] - quants[j])
            return levels[j] + frac * (levels[j + 1] - levels[j])
    raise AssertionError  # pragma: no cover


@pytest.mark.parametrize("n_quantiles", [1, 4, 10, 100])
def test_percentile_equals_a_loop_reference(n_quantiles: int) -> None:
    """Percentile of fitted and unseen scores (ties, out of range) against the loop."""
    log = _random_log(5 + n_quantiles)
    state = lp.fit_comparability(log, truth="clicked", n_quantiles=n_quantiles, **KW)
    rng = np.random.default_rng(n_quantiles)
    new = pl.concat(
        [
            log.drop("clicked"),
            log.drop("clicked").with_columns(
                pl.Series("score", rng.uniform(-0.2, 1.2, log.height)), pl.col("user") + 1000
            ),
        ]
    )
    out = lp.transform_for_objective(new, "coverage", state, percentile=True, **KW)
    quants = dict(zip(state.table["item"], state.table["quantiles"].to_list(), strict=True))
    levels = list(state.quantile_levels)
    expected = [
        _percentile_by_loop(quants[i], levels, s)
        for i, s in zip(new["item"], new["score"], strict=True)
    ]
    np.testing.assert_allclose(out["score"].to_numpy(), expected, rtol=1e-12, atol=0)
    assert out["score"].min() >= 0.0  # type: ignore[operator]
    assert out["score"].max() <= 1.0  # type: ignore[operator]


def test_percentile_of_a_constant_item_is_one_half() -> None:
    """An item whose scores are all 0.3: 0.3 sits at the middle, below 0, above 1."""
    log = pl.DataFrame({"user": [1, 2, 3], "item": [7, 7, 7], "score": [0.3] * 3, "t": [1, 0, 0]})
    state = lp.fit_comparability(log, truth="t", **KW)
    new = pl.DataFrame({"user": [1, 2, 3], "item": [7, 7, 7], "score": [0.3, 0.1, 0.9]})
    out = lp.transform_for_objective(new, "accuracy", state, percentile=True, **KW)
    assert out["score"].to_list() == [0.5, 0.0, 1.0]


def test_lazy_in_lazy_out_and_row_order_kept() -> None:
    """A LazyFrame comes back lazy and equal to the eager result, rows in input order."""
    log = _random_log(6).with_row_index("row")
    state = lp.fit_comparability(log, truth="clicked", **KW)
    shuffled = log.sample(fraction=1.0, shuffle=True, seed=1)
    eager = lp.transform_for_objective(shuffled, "balanced", state, shrinkage=True, **KW)
    lazy = lp.transform_for_objective(shuffled.lazy(), "balanced", state, shrinkage=True, **KW)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(eager)
    assert eager["row"].to_list() == shuffled["row"].to_list()


# ---------------------------------------------------------------------------
# refusals


def test_shrinkage_with_percentile_raises() -> None:
    """The seed: requesting both raises."""
    state = lp.fit_comparability(_log(), truth="clicked", **KW)
    with pytest.raises(ValueError, match="shrinkage and percentile are mutually exclusive"):
        lp.transform_for_objective(_log(), "coverage", state, shrinkage=True, percentile=True, **KW)
    with pytest.raises(ValueError, match="shrinkage and percentile are mutually exclusive"):
        lp.transform_for_objective(
            _log(), "accuracy", state, shrinkage_strength=5.0, percentile=True, **KW
        )


def test_percentile_with_a_discount_raises() -> None:
    """A percentile block takes no alpha (the payload records null for it)."""
    state = lp.fit_comparability(_log(), truth="clicked", **KW)
    with pytest.raises(ValueError, match=r"takes no popularity discount; got alpha=0\.3"):
        lp.transform_for_objective(_log(), "coverage", state, alpha=0.3, percentile=True, **KW)
    with pytest.raises(ValueError, match=r"got alpha=1\.0 with percentile=True"):
        lp.transform_for_objective(_log(), 1.0, state, percentile=True, **KW)


@pytest.mark.parametrize(
    ("args", "needs"),
    [
        (
            dict(objective="coverage"),
            r"the popularity discount alpha=1\.0 \(the items' base rates\)",
        ),
        (dict(objective="accuracy", shrinkage=True), r"shrinkage \(the items' base rates\)"),
        (dict(objective="accuracy", percentile=True), r"percentile ranking \(the item's score"),
    ],
)
def test_no_state_raises_naming_what_needed_it(args: dict[str, Any], needs: str) -> None:
    """The seed: no state is a refusal naming what needed it, never a state from the batch."""
    objective = args.pop("objective")
    with pytest.raises(ValueError, match=needs + r".* needs a ComparabilityState .*state=None"):
        lp.transform_for_objective(_log(), objective, None, **args, **KW)


def test_the_identity_needs_no_state() -> None:
    """alpha 0, no shrinkage, no percentile: the scores, as Float64, eager or lazy."""
    log = _log().with_columns(pl.col("score").cast(pl.Float32))
    out = lp.transform_for_objective(log, "accuracy", None, **KW)
    assert out.equals(log.with_columns(pl.col("score").cast(pl.Float64)))
    lazy = lp.transform_for_objective(log.lazy(), 0.0, None, alpha=0, **KW)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(out)


@pytest.mark.parametrize(
    ("objective", "alpha"), [(-0.1, None), (1.5, None), ("accuracy", 2.0), ("coverage", math.nan)]
)
def test_alpha_out_of_range_is_refused(objective: Any, alpha: Any) -> None:
    """alpha lives in [0, 1]; the value is echoed."""
    state = lp.fit_comparability(_log(), truth="clicked", **KW)
    with pytest.raises(ValueError, match=r"alpha must be in \[0, 1\] .*; got"):
        lp.transform_for_objective(_log(), objective, state, alpha=alpha, **KW)


def test_unknown_objective_and_bad_options_are_refused() -> None:
    """Unknown names, a non-bool flag, a non-positive strength."""
    state = lp.fit_comparability(_log(), truth="clicked", **KW)
    with pytest.raises(ValueError, match=r"unknown objective 'novelty'; use one of 'accuracy'"):
        lp.transform_for_objective(_log(), "novelty", state, **KW)  # type: ignore[arg-type]
    with pytest.raises(lp.InvalidParameterError, match="'shrinkage' parameter"):
        lp.transform_for_objective(_log(), "accuracy", state, shrinkage=1, **KW)  # type: ignore[arg-type]
    with pytest.raises(
        lp.InvalidParameterError,
        match=r"'shrinkage_strength' parameter of transform_for_objective must be a float in "
        r"the range \(0\.0, inf\)\. Got 0\.0 instead\.",
    ):
        lp.transform_for_objective(_log(), "accuracy", state, shrinkage_strength=0.0, **KW)


def test_a_state_from_another_catalogue_is_refused() -> None:
    """Items the state never saw, or items of another type, are refused with a sentence."""
    state = lp.fit_comparability(_log(), truth="clicked", **KW)
    other = _log().with_columns(pl.col("item").replace({"c": "z"}))
    with pytest.raises(
        ValueError, match=r"catalogue \(3 items\) lacks 1 item\(s\) of scores, e\.g\. 'z'"
    ):
        lp.transform_for_objective(other, "coverage", state, **KW)
    numeric = _log().with_columns(pl.col("item").replace_strict({"a": 1, "b": 2, "c": 3}))
    with pytest.raises(ValueError, match=r"catalogue of String items; .* holds Int64"):
        lp.transform_for_objective(numeric, "coverage", state, **KW)


def test_scores_outside_a_transforms_domain_are_refused() -> None:
    """Shrinkage needs [0, 1]; the discount needs >= 0; non-finite scores are refused."""
    state = lp.fit_comparability(_log(), truth="clicked", **KW)
    high = _log().with_columns(pl.col("score") * 2)
    with pytest.raises(ValueError, match=r"needs scores in \[0, 1\]; the list user=1 has item='a'"):
        lp.transform_for_objective(high, "accuracy", state, shrinkage=True, **KW)
    negative = _log().with_columns(pl.col("score") - 0.5)
    with pytest.raises(ValueError, match=r"needs scores >= 0; the list user=1 has item='b'"):
        lp.transform_for_objective(negative, "coverage", state, **KW)
    inf = _log().with_columns(pl.lit(math.inf).alias("score"))
    with pytest.raises(ValueError, match="scores must be finite"):
        lp.transform_for_objective(inf, "coverage", state, **KW)


# ---------------------------------------------------------------------------
# save / load


@pytest.mark.parametrize("suffix", [".json", ".parquet", ".pq"])
@pytest.mark.parametrize("items", ["str", "int"])
def test_save_load_round_trip(tmp_path: Path, suffix: str, items: str) -> None:
    """JSON and Parquet give back an equal state, which transforms identically."""
    log = _random_log(7)
    if items == "str":
        log = log.with_columns(pl.format("item-{}", "item").alias("item"))
    state = lp.fit_comparability(log, truth="clicked", n_quantiles=20, **KW)
    path = tmp_path / f"state{suffix}"
    state.save(path)
    loaded = lp.ComparabilityState.load(path)
    assert loaded == state
    a = lp.transform_for_objective(log, "accuracy", state, percentile=True, **KW)
    b = lp.transform_for_objective(log, "accuracy", loaded, percentile=True, **KW)
    assert a.equals(b)


def test_saved_json_is_plain_json(tmp_path: Path) -> None:
    """No pickle: the JSON file is readable as JSON and names its format."""
    state = lp.fit_comparability(_log(), truth="clicked", **KW)
    state.save(tmp_path / "s.json")
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["format"] == "lodestar_polars.ComparabilityState"
    assert doc["items"]["item"] == ["a", "b", "c"]
    assert doc["item_column"] == "item"


def test_save_load_refusals(tmp_path: Path) -> None:
    """Another suffix, a JSON file that is not a state."""
    state = lp.fit_comparability(_log(), truth="clicked", **KW)
    with pytest.raises(ValueError, match=r"must be \.json, \.parquet or \.pq; got '.*s\.pkl'"):
        state.save(tmp_path / "s.pkl")
    (tmp_path / "x.json").write_text('{"a": 1}')
    with pytest.raises(ValueError, match="is not a saved ComparabilityState"):
        lp.ComparabilityState.load(tmp_path / "x.json")
    pl.DataFrame({"a": [1]}).write_parquet(tmp_path / "x.parquet")
    with pytest.raises(ValueError, match="is not a saved ComparabilityState"):
        lp.ComparabilityState.load(tmp_path / "x.parquet")
