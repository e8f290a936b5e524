"""The beyond-accuracy entries in lp.evaluate: RecTools' numbers, the expressions', the roles."""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp


def _load_shared() -> Any:
    """``tests/_beyond.py``, by path (``--import-mode=importlib`` puts no test dir on sys.path)."""
    name = "_lodestar_tests_beyond"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("_beyond.py"))
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_shared = _load_shared()
CORPUS, KS, SERVED, TOL = _shared.CORPUS, _shared.KS, _shared.SERVED, _shared.TOL
_close, _random_lists = _shared._close, _shared._random_lists

# --- the registry's entries, and lp.evaluate


def test_the_registry_entries_are_the_public_functions() -> None:
    from lodestar_polars._registry import ACROSS_LISTS, BEYOND_ENTRIES, BY_NAME, direction

    assert [spec.name for spec in BEYOND_ENTRIES] == [
        "novelty",
        "average_recommended_popularity",
        "intra_list_diversity",
        "serendipity",
    ]
    for spec in BEYOND_ENTRIES:
        assert BY_NAME[spec.name] is spec
        assert getattr(lp, spec.name) is spec.expression
        assert direction(f"{spec.name}@10") == spec.direction
        parameters = inspect.signature(spec.expression).parameters
        for role in spec.inputs:
            assert role in parameters
        assert ("y_true" in parameters) == spec.reads_y_true
    assert BY_NAME["intra_list_diversity"].display(10) == "ILD@10"
    assert BY_NAME["average_recommended_popularity"].display() == "ARP"
    assert BY_NAME["average_recommended_popularity"].direction is None
    # RecTools' class names and the short ones read as the entries
    for name, canonical in [
        ("MeanInvUserFreq@10", "novelty"),
        ("AvgRecPopularity@10", "average_recommended_popularity"),
        ("arp@10", "average_recommended_popularity"),
        ("IntraListDiversity@10", "intra_list_diversity"),
        ("ILD@10", "intra_list_diversity"),
        ("Serendipity@10", "serendipity"),
    ]:
        assert direction(name) == BY_NAME[canonical].direction, name
    # personalisation is one number over every list: a function, not an lp.evaluate name
    (across,) = ACROSS_LISTS.values()
    assert across.function is lp.personalisation
    assert direction("personalisation@10") == "higher"
    assert across.display(10) == "personalisation@10"
    with pytest.raises(lp.InvalidParameterError, match="unknown metric 'personalisation@10'"):
        lp.evaluate(SERVED, ["personalisation@10"], by="user", y_true="hit", y_score="score")


@pytest.mark.parametrize("k", KS)
def test_values_lie_in_the_registry_range(k: int) -> None:
    from lodestar_polars._registry import ACROSS_LISTS, BY_NAME

    res = CORPUS["results"][str(k)]
    checks = {
        "novelty": res["novelty"],
        "intra_list_diversity": res["ild_category"] + res["ild_cosine_pdist"],
        "serendipity": res["serendipity"],
        "average_recommended_popularity": res["arp_counts"],
    }
    for name, values in checks.items():
        assert all(v in BY_NAME[name].value_range for v in values), name
    assert res["personalisation_sets"] in ACROSS_LISTS["personalisation"].value_range


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("k", KS)
def test_evaluate_is_rectools(k: int, *, lazy: bool) -> None:
    """lp.evaluate's names, RecTools' spellings included, give RecTools' numbers."""
    res = CORPUS["results"][str(k)]
    frame: pl.DataFrame | pl.LazyFrame = SERVED.lazy() if lazy else SERVED
    names = [f"MeanInvUserFreq@{k}", f"IntraListDiversity@{k}", f"Serendipity@{k}"]
    out = lp.evaluate(
        frame,
        names,
        by="user",
        y_true="hit",
        y_score="score",
        popularity="p_novelty",
        feature="category",
        popularity_rank="popularity_rank",
        n_items=CORPUS["n_items"],
    )
    got = out.collect() if isinstance(out, pl.LazyFrame) else out
    assert got["user"].to_list() == sorted(SERVED["user"].unique().to_list())
    _close(got[names[0]].to_list(), res["novelty"])
    _close(got[names[1]].to_list(), res["ild_category"])
    _close(got[names[2]].to_list(), res["serendipity"])
    # ARP from the counts, given as an expression; the embedding as a list (dim in the
    # name) and as an array (its width)
    arp = lp.evaluate(
        SERVED,
        [f"AvgRecPopularity@{k}", f"ild(dim=4)@{k}"],
        by="user",
        y_true="hit",
        y_score="score",
        popularity=pl.col("users").fill_null(0).cast(pl.Float64).alias("n_users"),
        feature="embedding",
    )
    _close(arp[f"AvgRecPopularity@{k}"].to_list(), res["arp_counts"])
    _close(arp[f"ild(dim=4)@{k}"].to_list(), res["ild_cosine_pdist"])
    array = SERVED.with_columns(pl.col("embedding").list.to_array(4))
    cosine = lp.evaluate(
        array, [f"ild@{k}"], by="user", y_true="hit", y_score="score", feature="embedding"
    )
    _close(cosine[f"ild@{k}"].to_list(), res["ild_cosine_pdist"])


@pytest.mark.parametrize("layout", ["ranked", "runs", "shuffled"])
@pytest.mark.parametrize("k", [1, 3, None])
def test_evaluate_equals_the_expressions_on_random_tied_lists(layout: str, k: int | None) -> None:
    """lp.evaluate's NumPy cores give the expressions' values, on every path of the frame."""
    frame = _random_lists(5, layout)
    cut = "" if k is None else f"@{k}"
    names = [f"novelty{cut}", f"ARP{cut}", f"ild{cut}", f"serendipity{cut}", f"rr{cut}"]
    got = lp.evaluate(
        frame,
        names,
        by="user",
        y_true="hit",
        y_score="score",
        popularity="p",
        feature="genre",
        popularity_rank="rank",
        n_items=9,
    )
    embedded = lp.evaluate(
        frame, [f"ild(dim=3){cut}"], by="user", y_true="hit", y_score="score", feature="v"
    )
    want = (
        frame.group_by("user")
        .agg(
            lp.novelty("score", popularity="p", k=k).alias(names[0]),
            lp.average_recommended_popularity("score", popularity="p", k=k).alias(names[1]),
            lp.intra_list_diversity("score", feature="genre", k=k).alias(names[2]),
            lp.serendipity("hit", "score", popularity_rank="rank", n_items=9, k=k).alias(names[3]),
            lp.intra_list_diversity("score", feature="v", k=k, dim=3).alias("cosine"),
        )
        .sort("user")
    )
    for name in names[:4]:
        np.testing.assert_allclose(got[name].to_numpy(), want[name].to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(
        embedded[f"ild(dim=3){cut}"].to_numpy(), want["cosine"].to_numpy(), rtol=1e-12, atol=1e-15
    )


def test_evaluate_refuses_a_missing_or_unread_input() -> None:
    frame = SERVED
    common: dict[str, Any] = {"by": "user", "y_true": "hit", "y_score": "score"}
    cases: list[tuple[list[str], dict[str, Any], str]] = [
        (
            ["ndcg@10", "novelty@10"],
            {},
            "metric 'novelty@10': novelty reads `popularity` (each served item's training "
            "popularity, a column): give it as evaluate(popularity=...)",
        ),
        (
            ["serendipity@10"],
            {"popularity_rank": "popularity_rank"},
            "metric 'serendipity@10': serendipity reads `n_items` (the catalogue's size, a "
            "number): give it as evaluate(n_items=...)",
        ),
        (
            ["ild@10"],
            {},
            "metric 'ild@10': intra_list_diversity reads `feature`",
        ),
        (
            ["ndcg@10"],
            {"popularity": "p_novelty"},
            "`popularity` is read by ['novelty', 'average_recommended_popularity'] only, and "
            "no metric asked for is one of them",
        ),
        (
            ["ild@10"],
            {"feature": "embedding"},
            "metric 'ild@10': `feature` column 'embedding' holds lists (embeddings): write their "
            "length in the name, as 'ild(dim=4)@10', or cast the column to an Array",
        ),
        (
            ["ild(dim=2)"],
            {"feature": "category"},
            "metric 'ild(dim=2)': dim= is an embedding's length, but `feature` column "
            "'category' holds Int64, not lists",
        ),
        (
            ["ild(dim=0)"],
            {"feature": "embedding"},
            "The 'dim' parameter of intra_list_diversity must be an int in the range [1, inf). "
            "Got 0 instead.",
        ),
    ]
    for names, given, sentence in cases:
        with pytest.raises(lp.InvalidParameterError) as info:
            lp.evaluate(frame, names, **common, **given)
        assert sentence in str(info.value), (names, str(info.value))
    with pytest.raises(lp.InvalidParameterError, match="'n_items' parameter of evaluate"):
        lp.evaluate(frame, ["serendipity"], **common, popularity_rank="rank", n_items=0)
    with pytest.raises(ValueError, match="`popularity` column 'item' must be numeric"):
        lp.evaluate(frame.with_columns(pl.col("item").cast(pl.String)), ["arp"], **common,
                    popularity="item")  # fmt: skip
    array = frame.with_columns(pl.col("embedding").list.to_array(4))
    with pytest.raises(lp.InvalidParameterError, match="dim=3, but `feature` column 'embedding'"):
        lp.evaluate(array, ["ild(dim=3)"], **common, feature="embedding")


def test_evaluate_names_a_refused_list() -> None:
    df = pl.DataFrame(
        {
            "user": [1, 1, 2, 2],
            "t": [1, 0, 0, 1],
            "p": [0.5, 0.0, 0.5, 0.25],
            "v": [[1.0, 0.0], [0.0, 0.0], [1.0, 2.0], [2.0, 1.0]],
            "s": [2.0, 1.0, 2.0, 1.0],
        }
    )
    common: dict[str, Any] = {"by": "user", "y_true": "t", "y_score": "s"}
    with pytest.raises(lp.RefusedGroupError) as info:
        lp.evaluate(df, ["novelty"], **common, popularity="p")
    assert "user=1: novelty needs a popularity in (0, 1] (a share of users). Got 0.0" in str(
        info.value
    )
    out = lp.evaluate(
        df, ["novelty", "ild(dim=2)"], **common, popularity="p", feature="v", strict=False
    )
    assert out["novelty"].to_list() == [None, 1.5]
    assert out["ild(dim=2)"][0] is None
    assert abs(out["ild(dim=2)"][1] - (1 - 4 / 5)) <= TOL  # cos((1, 2), (2, 1)) = 4 / 5


# --- every column role takes a name or an expression

ROLE_CASES: dict[str, tuple[Callable[..., pl.Expr], dict[str, Any]]] = {
    "novelty": (lp.novelty, {"y_score": "score", "popularity": "p"}),
    "arp": (lp.average_recommended_popularity, {"y_score": "score", "popularity": "p"}),
    "ild": (lp.intra_list_diversity, {"y_score": "score", "feature": "genre"}),
    "ild_embedding": (lp.intra_list_diversity, {"y_score": "score", "feature": "v", "dim": 3}),
    "serendipity": (
        lp.serendipity,
        {"y_true": "hit", "y_score": "score", "popularity_rank": "rank", "n_items": 9},
    ),
}
_ROLES = [
    (case, role)
    for case, (_, kwargs) in ROLE_CASES.items()
    for role, value in kwargs.items()
    if isinstance(value, str)
]


@pytest.mark.parametrize(("case", "role"), _ROLES)
def test_an_expression_role_takes_an_expression(case: str, role: str) -> None:
    """A role given as an expression of a renamed column gives the value by name."""
    function, kwargs = ROLE_CASES[case]
    frame = _random_lists(3, "runs")
    want = frame.group_by("user").agg(function(**kwargs).alias("v")).sort("user")
    column = kwargs[role]
    renamed = frame.rename({column: f"{column}_src"})
    given = {**kwargs, role: pl.col(f"{column}_src").alias(column)}
    got = renamed.group_by("user").agg(function(**given).alias("v")).sort("user")
    assert got["v"].to_list() == want["v"].to_list()
    with pytest.raises(lp.InvalidParameterError, match=f"'{role}' parameter of"):
        function(**{**kwargs, role: 3})


def test_evaluate_input_roles_take_expressions() -> None:
    frame = _random_lists(4, "shuffled")
    names = ["novelty@3", "ild@3", "serendipity@3"]
    common: dict[str, Any] = {"by": "user", "y_true": "hit", "y_score": "score", "n_items": 9}
    inputs: dict[str, Any] = {"popularity": "p", "feature": "genre", "popularity_rank": "rank"}
    want = lp.evaluate(frame, names, **common, **inputs)
    renamed = frame.rename({"p": "p_src", "genre": "g_src", "rank": "r_src"})
    got = lp.evaluate(
        renamed,
        names,
        **common,
        popularity=pl.col("p_src") * 1.0,  # an expression of no column of its own: a working one
        feature=pl.col("g_src").alias("genre"),
        popularity_rank=pl.col("r_src") + 0,
    )
    assert got.equals(want)


def test_frame_functions_take_expressions_and_several_keys() -> None:
    # each item ("rank" here) once in a list, as personalisation needs
    frame = _random_lists(6, "shuffled").unique(["user", "rank"], maintain_order=True)
    by_name = lp.personalisation(frame, by="user", item="rank", y_score="score", k=3)
    given = lp.personalisation(
        frame.rename({"user": "u", "rank": "r", "score": "s"}),
        by=[(pl.col("u") // 7).alias("week"), pl.col("u") % 7],  # the same lists, two keys
        item=pl.col("r").alias("rank"),
        y_score=-pl.col("s") * -1,
        k=3,
    )
    assert given == by_name
    pop = lp.item_popularity(frame, by="user", item="rank").sort("rank")
    keyed = lp.item_popularity(
        frame.rename({"user": "u"}),
        by=[(pl.col("u") // 7).alias("w"), pl.col("u") % 7],
        item="rank",
    ).sort("rank")
    assert keyed.equals(pop)
    by_expression = lp.item_popularity(frame, by="user", item=pl.col("rank").alias("r"))
    assert by_expression.sort("r").rename({"r": "rank"}).equals(pop)
    with pytest.raises(lp.InvalidParameterError, match="'by' parameter of item_popularity"):
        lp.item_popularity(frame, by=3, item="rank")  # type: ignore[arg-type]
    with pytest.raises(lp.InvalidParameterError, match="'item' parameter of personalisation"):
        lp.personalisation(frame, by="user", item=3, y_score="score")  # type: ignore[arg-type]
    with pytest.raises(lp.InvalidParameterError, match="names 'nope', which is not a column"):
        lp.personalisation(frame, by="user", item="nope", y_score="score")


@pytest.mark.parametrize("layout", ["grouped", "shuffled"])
def test_evaluate_in_parts_reads_the_inputs_of_each_part(
    layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A LazyFrame read in parts of whole groups, a frame cut in parts: one call's values."""
    from lodestar_polars._evaluate import parted

    frame = _random_lists(8, "runs" if layout == "grouped" else "shuffled")
    names = ["novelty@3", "ild@3", "serendipity@3", "ild(dim=3)"]
    common: dict[str, Any] = {"by": "user", "y_true": "hit", "y_score": "score", "n_items": 9}
    whole = lp.evaluate(frame, names[:3], **common, popularity="p", feature="genre",
                        popularity_rank="rank")  # fmt: skip
    parts: dict[str, Any] = {"batch_rows": 200, "layout": layout, "temp_dir": str(tmp_path)}
    lazy = lp.evaluate(
        frame.lazy(),
        names[:3],
        **common,
        popularity="p",
        feature="genre",
        popularity_rank="rank",
        **parts,
    ).collect()
    assert lazy["user"].to_list() == whole["user"].to_list()
    for name in names[:3]:  # a partitioned part holds a group's rows in another order:
        # the sums over a tie add in another order, equal within rounding
        np.testing.assert_allclose(lazy[name].to_numpy(), whole[name].to_numpy(), rtol=1e-12)
    embedded = lp.evaluate(frame, names[3:], by="user", y_true="hit", y_score="score", feature="v")
    monkeypatch.setattr(parted, "_PART_ROWS", 150)
    cut = lp.evaluate(frame, names[3:], by="user", y_true="hit", y_score="score", feature="v")
    assert cut["user"].to_list() == embedded["user"].to_list()
    np.testing.assert_allclose(
        cut[names[3]].to_numpy(), embedded[names[3]].to_numpy(), rtol=1e-12, atol=1e-15
    )
