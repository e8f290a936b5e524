"""fit_comparability, ComparabilityState and transform_for_objective against hand arithmetic."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._report.comparability import DEFAULT_SHRINKAGE_STRENGTH, OBJECTIVE_ALPHA

KW: dict[str, Any] = dict(by="user", item="item", y_score="score")


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
    state = lp.fit_comparability(_log(), y_true="clicked", **KW)
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
    state = lp.fit_comparability(log, y_true="clicked", n_quantiles=10, **KW)
    levels = np.linspace(0, 1, 11)
    assert state.quantile_levels == tuple(levels.tolist())
    for row in state.table.iter_rows(named=True):
        values = log.filter(pl.col("item") == row["item"])["score"].to_numpy()
        np.testing.assert_allclose(row["quantiles"], np.quantile(values, levels), rtol=1e-12)


def test_truth_frame_equals_truth_column() -> None:
    """A frame of realised (user, item) pairs fits the same state as the 0/1 column."""
    log = _random_log(2)
    pairs = log.filter(pl.col("clicked")).select("user", "item")
    by_column = lp.fit_comparability(log, y_true="clicked", **KW)
    by_frame = lp.fit_comparability(log.drop("clicked"), y_true=pairs.lazy(), **KW)
    assert by_column == by_frame


def test_fit_is_the_same_eager_lazy_and_shuffled() -> None:
    """Row order and laziness do not change the state."""
    log = _random_log(3)
    eager = lp.fit_comparability(log, y_true="clicked", **KW)
    lazy = lp.fit_comparability(log.lazy(), y_true="clicked", **KW)
    shuffled = lp.fit_comparability(
        log.sample(fraction=1.0, shuffle=True, seed=3), y_true="clicked", **KW
    )
    assert eager == lazy == shuffled


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (
            lambda f: f.drop("score"),
            r"The 'y_score' parameter of fit_comparability names 'score', which is not a column "
            r"of scores",
        ),
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
            r"the y_true column 'clicked' must be Boolean or 0/1",
        ),
    ],
)
def test_fit_bad_input_is_a_sentence(change: Any, match: str) -> None:
    """Missing columns, non-finite scores, duplicate items, a wrong truth dtype."""
    with pytest.raises(ValueError, match=match):
        lp.fit_comparability(change(_log()), y_true="clicked", **KW)


def test_fit_truth_frame_naming_unknown_lists_is_refused() -> None:
    """A realised pair whose list is not in scores is refused, naming it."""
    pairs = pl.DataFrame({"user": [1, 99], "item": ["a", "b"]})
    with pytest.raises(
        ValueError, match=r"names 1 list\(s\) that are not in scores, e\.g\. user=99"
    ):
        lp.fit_comparability(_log().drop("clicked"), y_true=pairs, **KW)


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
    state = lp.fit_comparability(log, y_true="clicked", **KW)
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
    state = lp.fit_comparability(_log(), y_true="clicked", **KW)
    log = _log().with_columns(pl.lit(1).alias("extra"))
    never = pl.DataFrame(
        {"user": [1, 1, 2], "item": ["a", "b", "a"], "score": [0.9, 0.2, 0.1], "clicked": [1, 0, 0]}
    )
    s2 = lp.fit_comparability(never, y_true="clicked", **KW)  # b: 0 positives in 1 graded list
    out = lp.transform_for_objective(never, 0.25, s2, **KW)["score"].to_list()
    assert out == pytest.approx([0.9 / 1.0**0.25, 0.2 / (1 / 1) ** 0.25, 0.1], rel=1e-12)
    by_alpha = lp.transform_for_objective(log, "accuracy", state, popularity_discount=0.25, **KW)
    by_objective = lp.transform_for_objective(log, 0.25, state, **KW)
    assert by_alpha.equals(by_objective)
    rate = {"a": 2 / 3, "b": 1 / 3, "c": 1 / 3}
    expected = [s / rate[i] ** 0.25 for s, i in zip(log["score"], log["item"], strict=True)]
    assert by_alpha["score"].to_list() == pytest.approx(expected, rel=1e-12)
    assert by_alpha.columns == log.columns
    assert by_alpha["extra"].to_list() == [1] * log.height


def test_shrinkage_by_hand() -> None:
    """(n s + m b) / (n + m), m 50 by default or the given strength (which switches it on)."""
    state = lp.fit_comparability(_log(), y_true="clicked", **KW)
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
    state = lp.fit_comparability(log, y_true="clicked", **KW)
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
    state = lp.fit_comparability(log, y_true="clicked", n_quantiles=n_quantiles, **KW)
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
    state = lp.fit_comparability(log, y_true="t", **KW)
    new = pl.DataFrame({"user": [1, 2, 3], "item": [7, 7, 7], "score": [0.3, 0.1, 0.9]})
    out = lp.transform_for_objective(new, "accuracy", state, percentile=True, **KW)
    assert out["score"].to_list() == [0.5, 0.0, 1.0]


def test_lazy_in_lazy_out_and_row_order_kept() -> None:
    """A LazyFrame comes back lazy and equal to the eager result, rows in input order."""
    log = _random_log(6).with_row_index("row")
    state = lp.fit_comparability(log, y_true="clicked", **KW)
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
    state = lp.fit_comparability(_log(), y_true="clicked", **KW)
    with pytest.raises(ValueError, match="shrinkage and percentile are mutually exclusive"):
        lp.transform_for_objective(_log(), "coverage", state, shrinkage=True, percentile=True, **KW)
    with pytest.raises(ValueError, match="shrinkage and percentile are mutually exclusive"):
        lp.transform_for_objective(
            _log(), "accuracy", state, shrinkage_strength=5.0, percentile=True, **KW
        )


def test_percentile_with_a_discount_raises() -> None:
    """A percentile block takes no alpha (the payload records null for it)."""
    state = lp.fit_comparability(_log(), y_true="clicked", **KW)
    with pytest.raises(ValueError, match=r"no popularity discount; got popularity_discount=0\.3"):
        lp.transform_for_objective(
            _log(), "coverage", state, popularity_discount=0.3, percentile=True, **KW
        )
    with pytest.raises(ValueError, match=r"got popularity_discount=1\.0 with percentile=True"):
        lp.transform_for_objective(_log(), 1.0, state, percentile=True, **KW)


@pytest.mark.parametrize(
    ("args", "needs"),
    [
        (
            dict(objective="coverage"),
            r"the popularity discount 1\.0 \(the items' base rates\)",
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
    lazy = lp.transform_for_objective(log.lazy(), 0.0, None, popularity_discount=0, **KW)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(out)


@pytest.mark.parametrize(
    ("objective", "alpha"), [(-0.1, None), (1.5, None), ("accuracy", 2.0), ("coverage", math.nan)]
)
def test_alpha_out_of_range_is_refused(objective: Any, alpha: Any) -> None:
    """alpha lives in [0, 1]; the value is echoed."""
    state = lp.fit_comparability(_log(), y_true="clicked", **KW)
    with pytest.raises(ValueError, match=r"\(popularity_discount\) must be in \[0, 1\] .*; got"):
        lp.transform_for_objective(_log(), objective, state, popularity_discount=alpha, **KW)


def test_unknown_objective_and_bad_options_are_refused() -> None:
    """Unknown names, a non-bool flag, a non-positive strength."""
    state = lp.fit_comparability(_log(), y_true="clicked", **KW)
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
    state = lp.fit_comparability(_log(), y_true="clicked", **KW)
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
    state = lp.fit_comparability(_log(), y_true="clicked", **KW)
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
    state = lp.fit_comparability(log, y_true="clicked", n_quantiles=20, **KW)
    path = tmp_path / f"state{suffix}"
    state.save(path)
    loaded = lp.ComparabilityState.load(path)
    assert loaded == state
    a = lp.transform_for_objective(log, "accuracy", state, percentile=True, **KW)
    b = lp.transform_for_objective(log, "accuracy", loaded, percentile=True, **KW)
    assert a.equals(b)


def test_saved_json_is_plain_json(tmp_path: Path) -> None:
    """No pickle: the JSON file is readable as JSON and names its format."""
    state = lp.fit_comparability(_log(), y_true="clicked", **KW)
    state.save(tmp_path / "s.json")
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["format"] == "lodestar_polars.ComparabilityState"
    assert doc["items"]["item"] == ["a", "b", "c"]
    assert doc["item_column"] == "item"


def test_save_load_refusals(tmp_path: Path) -> None:
    """Another suffix, a JSON file that is not a state."""
    state = lp.fit_comparability(_log(), y_true="clicked", **KW)
    with pytest.raises(ValueError, match=r"must be \.json, \.parquet or \.pq; got '.*s\.pkl'"):
        state.save(tmp_path / "s.pkl")
    (tmp_path / "x.json").write_text('{"a": 1}')
    with pytest.raises(ValueError, match="is not a saved ComparabilityState"):
        lp.ComparabilityState.load(tmp_path / "x.json")
    pl.DataFrame({"a": [1]}).write_parquet(tmp_path / "x.parquet")
    with pytest.raises(ValueError, match="is not a saved ComparabilityState"):
        lp.ComparabilityState.load(tmp_path / "x.parquet")


@pytest.mark.parametrize("objective", ["accuracy", "coverage"])
@pytest.mark.parametrize(
    ("kwargs", "msg"),
    [
        (
            {"shrinkage_strength": -1},
            "The 'shrinkage_strength' parameter of transform_for_objective must be a float in the "
            "range (0.0, inf). Got -1 instead.",
        ),
        (
            {"state": "x.json"},
            "The 'state' parameter of transform_for_objective must be a ComparabilityState or "
            "None. Got the path 'x.json': load it first, "
            "state=lp.ComparabilityState.load('x.json').",
        ),
    ],
    ids=["negative-strength", "state-path"],
)
def test_options_are_refused_on_every_path(
    objective: Any, kwargs: dict[str, Any], msg: str
) -> None:
    """The identity (accuracy) refuses a bad strength or a path for a state, as coverage does."""
    kwargs = dict(kwargs)
    state = kwargs.pop("state", lp.fit_comparability(_log(), y_true="clicked", **KW))
    with pytest.raises(lp.InvalidParameterError, match=re.escape(msg)):
        lp.transform_for_objective(_log(), objective, state, **kwargs, **KW)


@pytest.mark.parametrize(
    ("values", "shown"),
    [
        ([0, 2, 0, 0, 1, 0], "2 (1 row(s)), e.g. in the list user=1 for item='b'"),
        ([0.0, 0.5, 0.0, 0.0, 1.0, 0.5], "0.5 (2 row(s)), e.g. in the list user=1 for item='b'"),
        ([0, 1, 0, 0, -1, 3], "-1, 3 (2 row(s)), e.g. in the list user=2 for item='b'"),
        ([0, None, 0, 0, 1, 0], "null (1 row(s)), e.g. in the list user=1 for item='b'"),
        ([False, None, True, False, False, True], "null (1 row(s)), e.g. in the list user=1 "
         "for item='b'"),
    ],
    ids=["two", "half", "negative-and-three", "null", "boolean-null"],
)  # fmt: skip
def test_a_non_binary_truth_is_refused(values: list[Any], shown: str) -> None:
    """A 2 or a 0.5 is not "not 1": the sentence names the values and where the first is."""
    log = pl.DataFrame(
        {
            "user": [1, 1, 1, 2, 2, 2],
            "item": ["a", "b", "c"] * 2,
            "score": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
            "clicked": values,
        }
    )
    msg = (
        "fit_comparability: the y_true column 'clicked' must hold only True/False or 0/1; "
        f"it holds {shown}."
    )
    with pytest.raises(ValueError, match=re.escape(msg)):
        lp.fit_comparability(log, y_true="clicked", **KW)


def _saved(tmp_path: Path) -> tuple[lp.ComparabilityState, dict[str, Any]]:
    state = lp.fit_comparability(_log(), y_true="clicked", n_quantiles=4, **KW)
    state.save(tmp_path / "good.json")
    doc: dict[str, Any] = json.loads((tmp_path / "good.json").read_text())
    return state, doc


def _json_damage(case: str, doc: dict[str, Any], text: str) -> str:
    items = doc["items"]
    if case == "truncated":
        return text[: len(text) // 2]
    if case == "not-an-object":
        return "[1, 2, 3]"
    if case == "no-item-dtype":
        del doc["item_dtype"]
    elif case == "no-items":
        del doc["items"]
    elif case == "renamed-column":
        items["rate"] = items.pop("base_rate")
    elif case == "n-lists-str":
        doc["n_lists"] = "3"
    elif case == "unknown-item-dtype":
        doc["item_dtype"] = "Float64"
    elif case == "levels-str":
        doc["quantile_levels"] = "0,1"
    elif case == "float-count":
        items["n_positive"][0] = 1.5
    elif case == "items-a-list":
        doc["items"] = [1, 2]
    elif case == "empty-items":
        doc["items"] = {k: [] for k in items}
    elif case == "short-quantiles":
        items["quantiles"][1] = items["quantiles"][1][:-1]
    elif case == "ragged-columns":
        items["base_rate"] = items["base_rate"][:-1]
    return json.dumps(doc)


JSON_DAMAGE: list[tuple[str, str]] = [
    ("truncated", "is not a readable JSON file (truncated or damaged?): "),
    ("not-an-object", "is not a saved ComparabilityState."),
    ("no-item-dtype", "is damaged: its records lack 'item_dtype'."),
    (
        "no-items",
        "is damaged: 'items' must map each of the columns ['item', 'n_positive', "
        "'n_candidate', 'base_rate', 'quantiles'] to a list; it is None.",
    ),
    (
        "renamed-column",
        "is damaged: 'items' must have the columns ['item', 'n_positive', "
        "'n_candidate', 'base_rate', 'quantiles']; it has ['item', 'n_positive', "
        "'n_candidate', 'quantiles', 'rate'].",
    ),
    ("n-lists-str", "is damaged: 'n_lists' must be an int >= 0; it is '3'."),
    ("unknown-item-dtype", "is damaged: 'item_dtype' must be one of "),
    (
        "levels-str",
        "is damaged: 'quantile_levels' must be a list of at least two increasing "
        "numbers from 0 to 1; it is '0,1'.",
    ),
    ("float-count", "is damaged: 'items' column 'n_positive' must hold Int64 values: "),
    ("items-a-list", "is damaged: 'items' must map each of the columns"),
    (
        "empty-items",
        "is damaged: it holds no items (a fitted state has one row per catalogue item).",
    ),
    (
        "short-quantiles",
        "is damaged: item 'b' needs 5 quantiles, one per level of 'quantile_levels' (it has",
    ),
    ("ragged-columns", "is damaged: the 'items' columns have different lengths"),
]


@pytest.mark.parametrize(("case", "what"), JSON_DAMAGE, ids=[c for c, _ in JSON_DAMAGE])
def test_a_damaged_json_state_gets_one_clear_error(tmp_path: Path, case: str, what: str) -> None:
    """Every damage: a ValueError (never a KeyError or a raw Polars error) naming the file."""
    _, doc = _saved(tmp_path)
    path = tmp_path / "damaged.json"
    path.write_text(_json_damage(case, doc, (tmp_path / "good.json").read_text()))
    with pytest.raises(
        ValueError, match=re.escape(f"ComparabilityState.load: {str(path)!r} {what}")
    ) as info:
        lp.ComparabilityState.load(path)
    assert type(info.value) is ValueError


PARQUET_DAMAGE: list[tuple[str, str]] = [
    ("truncated", "is not a readable Parquet file (truncated or damaged?): "),
    ("no-item-dtype", "is damaged: its records lack 'item_dtype'."),
    ("no-records", "is not a saved ComparabilityState."),
    (
        "missing-column",
        "is damaged: its table must have the columns ['item', 'n_positive', "
        "'n_candidate', 'base_rate', 'quantiles']; it has ['item', 'n_positive', "
        "'n_candidate', 'quantiles'].",
    ),
    ("float-count", "is damaged: its column 'n_positive' must be Int64; it is Float64."),
    ("empty-items", "is damaged: it holds no items"),
    (
        "short-quantiles",
        "is damaged: item 'a' needs 5 quantiles, one per level of 'quantile_levels' (it has",
    ),
    ("bad-rate", "is damaged: item 'a' needs a base_rate in [0, 1]"),
    ("null-item", "is damaged: its column 'item' holds 1 null value(s)."),
]


@pytest.mark.parametrize(("case", "what"), PARQUET_DAMAGE, ids=[c for c, _ in PARQUET_DAMAGE])
def test_a_damaged_parquet_state_gets_one_clear_error(tmp_path: Path, case: str, what: str) -> None:
    """The same for Parquet: the file is named, and what is wrong."""
    state, _ = _saved(tmp_path)
    path = tmp_path / "damaged.parquet"
    meta = state._meta()
    table = state.table
    if case == "truncated":
        state.save(path)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    else:
        if case == "no-item-dtype":
            del meta["item_dtype"]
        elif case == "missing-column":
            table = table.drop("base_rate")
        elif case == "float-count":
            table = table.with_columns(pl.col("n_positive").cast(pl.Float64))
        elif case == "empty-items":
            table = table.head(0)
        elif case == "short-quantiles":
            table = table.with_columns(pl.col("quantiles").list.head(4))
        elif case == "bad-rate":
            table = table.with_columns(pl.col("base_rate") + 2.0)
        elif case == "null-item":
            table = table.with_columns(
                pl.when(pl.col("item") == "b").then(None).otherwise(pl.col("item")).alias("item")
            )
        records = {} if case == "no-records" else {"lodestar_polars": json.dumps(meta)}
        table.write_parquet(path, metadata=records)
    with pytest.raises(
        ValueError, match=re.escape(f"ComparabilityState.load: {str(path)!r} {what}")
    ) as info:
        lp.ComparabilityState.load(path)
    assert type(info.value) is ValueError


def test_fit_comparability_old_names_warn() -> None:
    """``score``/``truth`` are the old names of ``y_score``/``y_true``: same state, a warning."""
    new = lp.fit_comparability(_log(), by="user", item="item", y_score="score", y_true="clicked")
    with pytest.warns(FutureWarning) as record:
        # the old names are no longer in the signature: @renamed maps them
        old = lp.fit_comparability(  # type: ignore[call-arg]
            _log(), by="user", item="item", score="score", truth="clicked"
        )
    assert ["`score` is renamed `y_score`" in str(w.message) for w in record] == [True, False]
    assert "`truth` is renamed `y_true`" in str(record[1].message)
    assert old == new


def test_transform_for_objective_old_names_warn() -> None:
    """``score``/``alpha`` are the old names of ``y_score``/``popularity_discount``."""
    state = lp.fit_comparability(_log(), y_true="clicked", **KW)
    new = lp.transform_for_objective(_log(), "accuracy", state, popularity_discount=0.5, **KW)
    with pytest.warns(FutureWarning) as record:
        # the old names are no longer in the signature: @renamed maps them
        old = lp.transform_for_objective(  # type: ignore[call-arg]
            _log(), "accuracy", state, by="user", item="item", score="score", alpha=0.5
        )
    assert "`score` is renamed `y_score`" in str(record[0].message)
    assert "`alpha` is renamed `popularity_discount`" in str(record[1].message)
    assert old.equals(new)


def test_roles_take_expressions() -> None:
    """Every role an expression: the same state and transform as the computed columns."""
    log = _log()
    computed = log.with_columns(
        user=pl.col("user") * 10, item=pl.col("item").str.to_uppercase(), score=pl.col("score") / 2
    )
    kw: dict[str, Any] = dict(by="user", item="item", y_score="score")
    want = lp.fit_comparability(computed, y_true="clicked", **kw)
    exprs: dict[str, Any] = dict(
        by=(pl.col("user") * 10).alias("user"),
        item=pl.col("item").str.to_uppercase(),
        y_score=pl.col("score") / 2,
    )
    got = lp.fit_comparability(log, y_true=pl.col("clicked").cast(pl.Int8), **exprs)
    assert got == want
    assert want.catalogue.str.to_uppercase().equals(want.catalogue)  # the computed items
    frames: tuple[Any, ...] = (log, log.lazy())  # either kind, returned as it came
    for frame in frames:
        out = lp.transform_for_objective(frame, "coverage", want, **exprs)
        assert isinstance(out, type(frame))
        expected = lp.transform_for_objective(computed, "coverage", want, **kw)
        assert out.lazy().collect().equals(expected)


def test_bad_roles_and_frames_are_invalid_parameters() -> None:
    state = lp.fit_comparability(_log(), y_true="clicked", **KW)
    with pytest.raises(lp.InvalidParameterError, match="The 'item' parameter of"):
        lp.transform_for_objective(_log(), "coverage", state, by="user", item=3, y_score="score")  # type: ignore[arg-type]
    with pytest.raises(lp.InvalidParameterError, match="The 'scores' parameter of"):
        lp.fit_comparability({"user": [1]}, y_true="clicked", **KW)  # type: ignore[arg-type]
