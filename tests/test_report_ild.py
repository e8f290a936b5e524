"""The report's intra-list diversity (issue 21): ``intra_list_diversity@k`` with ``feature=``.

It equals ``lp.intra_list_diversity`` of the report's served lists (the lists carrying a graded
truth, each once), ranked as the block ranks them (the model's scores, the popularity floor's
training counts, model B's scores), ties at the cut as expectations, averaged over the lists.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._registry import direction, report_metric, report_metrics

KEY = "intra_list_diversity@2"


def _example() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Three users over a, b, c (genres x, x, y; embeddings), user 1's b/c and user 2's ties."""
    scores = pl.DataFrame(
        {
            "user": [1, 1, 1, 2, 2, 2, 3, 3, 3],
            "item": ["a", "b", "c"] * 3,
            "score": [0.9, 0.5, 0.5, 0.2, 0.2, 0.2, 0.1, 0.7, 0.3],
            "clicked": [False, True, False, True, False, False, False, True, False],
        }
    ).with_columns(
        genre=pl.col("item").replace_strict({"a": "x", "b": "x", "c": "y"}),
        emb=pl.col("item").replace_strict({"a": [1.0, 0.0], "b": [1.0, 1.0], "c": [0.0, 2.0]}),
    )
    train = pl.DataFrame({"user": [1, 1, 2, 3, 4], "item": ["a", "b", "a", "a", "c"]})
    return scores, train


def _report(scores: Any, **kw: Any) -> lp.RankingReport:
    base: dict[str, Any] = dict(
        by="user", item="item", y_true="clicked", y_score="score", k=2,
        objectives=("accuracy",), n_resamples=20,
    )  # fmt: skip
    base.update(kw)
    return lp.ranking_report(scores, **base)


def _served(scores: pl.DataFrame) -> pl.DataFrame:
    return scores.filter(pl.col("clicked").any().over("user"))


def _lp_ild(served: pl.DataFrame, y_score: str, feature: str, k: int, dim: int | None) -> float:
    per_list = served.group_by("user").agg(
        lp.intra_list_diversity(y_score, feature=feature, k=k, dim=dim)
    )
    return float(per_list["intra_list_diversity"].mean())  # type: ignore[arg-type]


def _with_floor(served: pl.DataFrame, train: pl.DataFrame) -> pl.DataFrame:
    """The floor's ranking: train's item counts (an unseen item: 0)."""
    counts = train.group_by("item").agg(pl.len().cast(pl.Float64).alias("count"))
    return served.join(counts, on="item", how="left").with_columns(pl.col("count").fill_null(0.0))


def test_hand_arithmetic_categories_k2() -> None:
    """Genres a: x, b: x, c: y. Top 2 of the model, ties as expectations.

    User 1: a, then one of the tied b, c (1/2 each): pair (a, b) the same genre, (a, c) not,
    so 1/2. User 2: three tied for two slots, each of the pairs ab, ac, bc with chance 1/3:
    ab same, ac and bc differ, so 2/3. User 3: b and c, differ: 1. Mean (1/2 + 2/3 + 1) / 3.
    The floor (train's counts a 3, b 1, c 1) serves a, then b or c to everyone: 1/2 each.
    """
    scores, train = _example()
    report = _report(scores, train=train, feature="genre")
    model = report["objectives"]["accuracy"]["macro"]
    assert model[KEY] == pytest.approx((1 / 2 + 2 / 3 + 1) / 3, abs=1e-12)
    assert report["baselines"]["global_pop"]["macro"][KEY] == pytest.approx(0.5, abs=1e-12)


def test_hand_arithmetic_embeddings_k2() -> None:
    """Unit vectors a (1, 0), b (1, 1)/sqrt 2, c (0, 1): cos ab = cos bc = 1/sqrt 2, ac = 0.

    User 1: a and half each of b, c: (1 - 1/sqrt 2 + 1) / 2. User 2: the three pairs, 1/3
    each: (2 (1 - 1/sqrt 2) + 1) / 3. User 3: b and c: 1 - 1/sqrt 2.
    """
    scores, _ = _example()
    report = _report(scores, feature="emb")
    d = 1 - 1 / math.sqrt(2)
    want = ((d + 1) / 2 + (2 * d + 1) / 3 + d) / 3
    assert report["objectives"]["accuracy"]["macro"][KEY] == pytest.approx(want, abs=1e-12)


def _by_enumeration(served: pl.DataFrame, y_score: str, feature: str, k: int) -> float:
    """Each list's ILD averaged over every order of its tied rows (brute force)."""
    values = []
    for _, rows in served.group_by("user"):
        score, feat = rows[y_score].to_list(), rows[feature].to_list()
        total, count = 0.0, 0
        for order in itertools.permutations(range(len(score))):
            # stable: ties keep the permutation's order, so every tie order counts equally often
            ranked = sorted(order, key=lambda i: -score[i])
            top = ranked[: min(k, len(score))]
            pairs = list(itertools.combinations(top, 2))
            if pairs:
                total += sum(_distance(feat[i], feat[j]) for i, j in pairs) / len(pairs)
            count += 1
        values.append(total / count)
    return float(np.mean(values))


def _distance(a: Any, b: Any) -> float:
    if isinstance(a, list):
        u, v = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        return float(1.0 - u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))
    return 0.0 if a == b else 1.0


@pytest.mark.parametrize("feature", ["genre", "emb"])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_ties_at_the_cut_equal_the_enumeration_of_their_orders(feature: str, k: int) -> None:
    """Lists of 3-5 rows with many ties: every permutation of a list's rows, ranked stably."""
    rng = np.random.default_rng(k)
    sizes = rng.integers(3, 6, 8)
    user = np.repeat(np.arange(8), sizes)
    item = np.concatenate([rng.choice(6, s, replace=False) for s in sizes])
    genres = np.array(["x", "y", "x", "z", "y", "x"])
    vectors = rng.normal(size=(6, 3))
    scores = pl.DataFrame(
        {
            "user": user,
            "item": item,
            "score": rng.integers(0, 2, user.size).astype(np.float64),
            "clicked": rng.random(user.size) < 0.4,
            "genre": genres[item],
            "emb": vectors[item].tolist(),
        }
    )
    report = _report(scores, k=k, feature=feature)
    want = _by_enumeration(_served(scores), "score", feature, k)
    got = report["objectives"]["accuracy"]["macro"][f"intra_list_diversity@{k}"]
    assert got == pytest.approx(want, abs=1e-12)


def _random_log(seed: int, n_lists: int = 40) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Lists of 3-8 candidates on a coarse score grid (ties at the cut), two models."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 9, n_lists)
    user = np.repeat(np.arange(n_lists), sizes)
    item = np.concatenate([rng.choice(15, s, replace=False) for s in sizes])
    vectors = rng.normal(size=(15, 4))
    scores = pl.DataFrame(
        {
            "user": user,
            "item": item,
            "score": rng.integers(0, 4, user.size).astype(np.float64),
            "score_b": rng.integers(0, 3, user.size).astype(np.float64),
            "clicked": rng.random(user.size) < 0.2,
            "genre": item % 4,  # an integer category
            "emb": vectors[item].tolist(),
        }
    )
    train = pl.DataFrame({"user": rng.integers(0, 30, 300), "item": rng.integers(0, 13, 300)})
    return scores, train


@pytest.mark.parametrize(("feature", "dim"), [("genre", None), ("emb", 4)])
@pytest.mark.parametrize("seed", [0, 1])
def test_every_block_equals_lp_intra_list_diversity(
    feature: str, dim: int | None, seed: int
) -> None:
    scores, train = _random_log(seed)
    report = _report(scores, k=3, train=train, feature=feature, y_score_b="score_b")
    served = _served(scores)
    key = "intra_list_diversity@3"
    model = report["objectives"]["accuracy"]["macro"][key]
    assert model == pytest.approx(_lp_ild(served, "score", feature, 3, dim), abs=1e-12)
    floor = report["baselines"]["global_pop"]["macro"][key]
    want = _lp_ild(_with_floor(served, train), "count", feature, 3, dim)
    assert floor == pytest.approx(want, abs=1e-12)
    b = report["versus"]["model_b"]["macro"][key]
    assert b == pytest.approx(_lp_ild(served, "score_b", feature, 3, dim), abs=1e-12)
    assert report["versus"]["difference"]["macro"][key]["estimate"] == pytest.approx(
        b - model, abs=1e-12
    )


def test_an_array_embedding_and_a_feature_expression() -> None:
    scores, _ = _example()
    as_array = scores.with_columns(pl.col("emb").list.to_array(2))
    listed = _report(scores, feature="emb")["objectives"]["accuracy"]["macro"][KEY]
    assert _report(as_array, feature="emb")["objectives"]["accuracy"]["macro"][KEY] == listed
    expr = pl.col("item").replace_strict({"a": "x", "b": "x", "c": "y"}).alias("g")
    by_expr = _report(scores.drop("genre"), feature=expr)["objectives"]["accuracy"]["macro"]
    by_name = _report(scores, feature="genre")["objectives"]["accuracy"]["macro"]
    assert by_expr[KEY] == by_name[KEY]


@pytest.mark.parametrize("feature", ["genre", "emb"])
@pytest.mark.parametrize("objectives", [("accuracy",), ("accuracy", "coverage")])
def test_parts_equal_the_whole_path(feature: str, objectives: Any) -> None:
    scores, train = _random_log(2)
    kw: dict[str, Any] = dict(
        k=3, train=train, feature=feature, objectives=objectives, y_score_b="score_b"
    )
    whole = _report(scores, **kw)
    parted = _report(scores.lazy(), batch_rows=50, **kw)
    key = "intra_list_diversity@3"
    pairs = [(whole["objectives"][n], parted["objectives"][n]) for n in objectives]
    pairs.append((whole["baselines"]["global_pop"], parted["baselines"]["global_pop"]))
    pairs.append((whole["versus"]["model_b"], parted["versus"]["model_b"]))
    for a, b in pairs:
        assert list(a["macro"]) == list(b["macro"])
        assert b["macro"][key] == pytest.approx(a["macro"][key], rel=0, abs=1e-12)


def test_only_with_feature_and_in_every_view(tmp_path: Path) -> None:
    scores, train = _example()
    without = _report(scores, train=train)
    assert KEY not in without["objectives"]["accuracy"]["macro"]
    report = _report(scores, train=train, feature="genre", objectives=("accuracy", "coverage"))
    keys = list(report["objectives"]["coverage"]["macro"])
    assert keys[-5:] == [
        "novelty@2", "average_recommended_popularity@2", "serendipity@2", "personalisation@2", KEY
    ]  # fmt: skip
    frame = report.to_frame().filter(pl.col("metric") == KEY)
    assert frame.height == 3  # two blocks and the floor
    assert frame["ci_low"].is_null().all()  # coverage metrics carry no interval
    assert json.loads(report.to_json())["objectives"]["accuracy"]["macro"][KEY] == pytest.approx(
        (1 / 2 + 2 / 3 + 1) / 3, abs=1e-15
    )
    html = report.to_html(tmp_path / "r.html").read_text(encoding="utf-8")
    assert f"<td>{KEY}</td>" in html
    # the registry's facts
    assert direction("intra_list_diversity@10") == "higher"
    metric = report_metric("intra_list_diversity@5")
    assert metric is not None
    assert (metric.family, metric.needs, metric.display(5)) == ("coverage", "feature", "ILD@5")
    assert (metric.value_range.low, metric.value_range.high) == (0.0, 2.0)
    assert [m.name(3) for m in report_metrics(3, "macro")][-1] == "intra_list_diversity@3"


ONE_PER_ITEM = (
    "ranking_report: feature 'genre' must be one category or embedding per item; item 'b' has "
    "two: 'x' and 'z'."
)


def _refusals() -> list[tuple[str, Any, str]]:
    scores, _ = _example()
    two = scores.with_columns(
        pl.when((pl.col("user") == 3) & (pl.col("item") == "b"))
        .then(pl.lit("z"))
        .otherwise(pl.col("genre"))
        .alias("genre")
    )
    null = scores.with_columns(
        pl.when(pl.col("item") == "c").then(None).otherwise(pl.col("genre")).alias("genre")
    )
    ragged = scores.with_columns(
        pl.when(pl.col("item") == "c")
        .then(pl.lit([0.0, 1.0, 2.0]))
        .otherwise(pl.col("emb"))
        .alias("emb")
    )
    zero = scores.with_columns(
        pl.when(pl.col("item") == "b")
        .then(pl.lit([0.0, 0.0]))
        .otherwise(pl.col("emb"))
        .alias("emb")
    )
    nan = scores.with_columns(
        pl.when(pl.col("item") == "a")
        .then(pl.lit([float("nan"), 1.0]))
        .otherwise(pl.col("emb"))
        .alias("emb")
    )
    floats = scores.with_columns(pl.col("score").alias("f"))
    return [
        ("genre", two, ONE_PER_ITEM),
        (
            "genre",
            null,
            "ranking_report: feature 'genre' is null for item 'c'; every candidate needs its "
            "item's category or embedding.",
        ),
        (
            "emb",
            ragged,
            "ranking_report: feature 'emb' must be embeddings of one length; item 'a' has 2 "
            "values and item 'c' 3.",
        ),
        (
            "emb",
            zero,
            "ranking_report: feature 'emb' of item 'b' is the zero vector; cosine distance needs "
            "embeddings of nonzero norm.",
        ),
        (
            "emb",
            nan,
            "ranking_report: feature 'emb' of item 'a' holds NaN, infinity or null; cosine "
            "distance needs finite embeddings.",
        ),
        (
            "f",
            floats,
            "The 'feature' parameter of ranking_report: column 'f' is Float64; a category is a "
            "string, integer or Boolean, an embedding a list or array of floats.",
        ),
    ]


@pytest.mark.parametrize("case", range(6))
def test_refusals_name_the_parameter_and_echo_the_value(case: int) -> None:
    feature, frame, sentence = _refusals()[case]
    with pytest.raises(ValueError, match="^" + _escaped(sentence) + "$"):
        _report(frame, feature=feature)
    with pytest.raises(ValueError, match="^" + _escaped(sentence) + "$"):  # the parts path
        _report(frame.lazy(), feature=feature, batch_rows=3)


def test_two_features_in_two_parts_are_refused_on_the_driver() -> None:
    """Each part alone is consistent: only the pairs of both name item b twice."""
    scores, _ = _example()
    two = scores.with_columns(
        pl.when((pl.col("user") == 3) & (pl.col("item") == "b"))
        .then(pl.lit("z"))
        .otherwise(pl.col("genre"))
        .alias("genre")
    ).sort("user")
    with pytest.raises(ValueError, match="^" + _escaped(ONE_PER_ITEM) + "$"):
        _report(two.lazy(), feature="genre", batch_rows=3)


def test_a_feature_of_no_category_dtype_is_an_invalid_parameter() -> None:
    scores, _ = _example()
    with pytest.raises(lp.InvalidParameterError, match="column 'score' is Float64"):
        _report(scores, feature="score")
    with pytest.raises(lp.InvalidParameterError, match="column 's' is Struct"):
        _report(scores.with_columns(s=pl.struct("item")), feature="s")


def test_the_feature_may_be_the_item_itself() -> None:
    """Every pair differs: ILD 1 for every list of two or more."""
    scores, _ = _example()
    assert _report(scores, feature="item")["objectives"]["accuracy"]["macro"][KEY] == 1.0


def test_a_missing_feature_column_is_refused() -> None:
    scores, _ = _example()
    sentence = (
        "The 'feature' parameter of ranking_report names no column of scores: 'nope' (its "
        "columns: ['user', 'item', 'score', 'clicked', 'genre', 'emb'])."
    )
    for frame in (scores, scores.lazy()):
        with pytest.raises(ValueError, match="^" + _escaped(sentence) + "$"):
            _report(frame, feature="nope", batch_rows=3)
    with pytest.raises(lp.InvalidParameterError, match="'feature'"):
        _report(scores, feature=3)


def _escaped(text: str) -> str:
    import re

    return re.escape(text)


def test_the_cli_flag(tmp_path: Path) -> None:
    from lodestar_polars._report.cli import run

    scores, train = _example()
    scores.write_parquet(tmp_path / "scores.parquet")
    train.write_parquet(tmp_path / "train.parquet")
    out = tmp_path / "report.json"
    argv = [
        str(tmp_path / "scores.parquet"), "--by", "user", "--item", "item", "--y-score", "score",
        "--y-true", "clicked", "--train", str(tmp_path / "train.parquet"), "-k", "2",
        "--objective", "accuracy", "--n-resamples", "20", "--feature", "genre", "--json",
        str(out), "-q", "--fail-below", f"{KEY}=0.7",
    ]  # fmt: skip
    assert run(argv) == 0
    payload = json.loads(out.read_text(encoding="utf-8"))
    want = _report(scores, train=train, feature="genre")
    assert payload["objectives"]["accuracy"]["macro"][KEY] == pytest.approx(
        want["objectives"]["accuracy"]["macro"][KEY], abs=1e-15
    )
    assert payload["baselines"]["global_pop"]["macro"][KEY] == pytest.approx(0.5, abs=1e-15)
    assert run([*argv[:-2], "--fail-below", f"{KEY}=0.8"]) == 1  # 0.7222 < 0.8


@pytest.mark.spark
@pytest.mark.parametrize("feature", ["genre", "emb"])
def test_spark_equals_the_single_machine_report(spark: Any, feature: str) -> None:
    import lodestar_polars.spark as lps

    scores, train = _random_log(3, n_lists=30)
    kw: dict[str, Any] = dict(
        by="user", item="item", y_true="clicked", y_score="score", k=3,
        objectives=("accuracy",), train=train, n_resamples=20, feature=feature,
        y_score_b="score_b",
    )  # fmt: skip
    local = lp.ranking_report(scores, **kw)
    on_spark = lps.ranking_report(spark.createDataFrame(scores.to_arrow()), num_partitions=3, **kw)
    key = "intra_list_diversity@3"

    def blocks(r: Any) -> list[Any]:
        return [r["objectives"]["accuracy"], r["baselines"]["global_pop"], r["versus"]["model_b"]]

    for a, b in zip(blocks(on_spark), blocks(local), strict=True):
        assert list(a["macro"]) == list(b["macro"])
        assert a["macro"][key] == pytest.approx(b["macro"][key], rel=0, abs=1e-12)


@pytest.mark.spark
def test_spark_refuses_two_features_with_the_same_sentence(spark: Any) -> None:
    import lodestar_polars.spark as lps

    frame = _refusals()[0][1].drop("emb")
    with pytest.raises(ValueError, match="^" + _escaped(ONE_PER_ITEM) + "$"):
        lps.ranking_report(
            spark.createDataFrame(frame.to_arrow()), by="user", item="item", y_true="clicked",
            y_score="score", k=2, objectives=("accuracy",), n_resamples=20, feature="genre",
            num_partitions=2,
        )  # fmt: skip
