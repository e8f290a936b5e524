"""The report's comparability state fitted from a lazy log in parts (issue 20).

The reference is ``fit_comparability`` on the whole log (the report's ``_fit_lazy``: its truths
read as the grading reads them): the state from the parts equals it bit for bit (the table,
quantiles included, the levels, ``n_lists``, ``n_dropped``); the report of a lazy log read in
parts, its state fitted in parts, equals the in-memory report (to 1e-12 where per-item sums run
in another order, as tests/test_report_parts.py compares; the state-dependent blocks bit for bit
through the state).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._report import comparability_parts
from lodestar_polars._report.comparability_parts import fit_lazy_in_parts
from lodestar_polars._report.ranking_report.report import _fit_lazy


def _log(
    seed: int,
    n_lists: int = 240,
    n_items: int = 11,
    *,
    integer: bool = False,
    shuffle: bool = False,
) -> pl.DataFrame:
    """tests/test_report_parts.py's log: heavy ties, lists without a positive, some with two."""
    rng = np.random.default_rng(seed)
    lists = np.repeat(np.arange(n_lists), n_items)
    items = np.tile(np.arange(n_items), n_lists)
    truth = rng.integers(0, n_items, n_lists)
    raw = rng.integers(0, 6, lists.size)
    frame = pl.DataFrame({
        "list": lists, "entity": lists // 7, "item": items,
        "score": raw if integer else raw / 5.0, "clicked": items == np.repeat(truth, n_items),
    })  # fmt: skip
    frame = frame.filter(~((pl.col("list") % 13 == 0) & pl.col("clicked")))
    frame = frame.with_columns(
        clicked=pl.col("clicked") | ((pl.col("list") % 11 == 0) & (pl.col("item") == 0))
    )
    return frame.sample(fraction=1.0, shuffle=True, seed=seed) if shuffle else frame


def _same(a: Any, b: Any, path: str = "") -> None:
    """Equal, floats to 1e-12 (per-item sums in another order)."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for key in a:
            _same(a[key], b[key], f"{path}/{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15), (path, a, b)
    else:
        assert a == b, (path, a, b)


def _no_whole() -> Any:
    msg = "fitted whole"
    raise AssertionError(msg)


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("multi_positive", ["each", "first"])
@pytest.mark.parametrize("integer", [False, True])
def test_the_state_from_parts_is_the_whole_fit(
    multi_positive: str, *, shuffle: bool, integer: bool
) -> None:
    log = _log(3, integer=integer, shuffle=shuffle)
    if integer:  # string items
        log = log.with_columns(pl.format("i{}", "item").alias("item"))
    lazy = log.lazy()
    whole = _fit_lazy(lazy, ["list"], "item", "score", "clicked", multi_positive)
    parted = fit_lazy_in_parts(
        lazy, ["list"], "item", "score", "clicked", multi_positive, total=log.height,
        part_rows=300, temp_dir=None, whole=_no_whole,
    )  # fmt: skip
    assert parted == whole
    assert parted.table.equals(whole.table)
    assert parted.n_dropped == whole.n_dropped > 0
    assert (parted.n_lists, parted.quantile_levels) == (whole.n_lists, whole.quantile_levels)


@pytest.mark.parametrize("part_rows", [300, 10_000])
def test_equal_zeros_of_two_signs_keep_the_whole_fits_order(part_rows: int) -> None:
    # -0.0 == 0.0: only here could a part's row order show, in a quantile's sign (a part
    # keeps the input's order as read; one holding signed zeros is also sorted back into it)
    log = _log(5, shuffle=True).with_columns(
        score=pl.when(pl.col("score") == 0.0)
        .then(pl.when(pl.int_range(pl.len()) % 3 == 0).then(-0.0).otherwise(0.0))
        .otherwise(pl.col("score"))
    )
    assert log.filter(pl.col("score") == 0.0)["score"].to_numpy().view(np.int64).min() < 0
    lazy = log.lazy()
    whole = _fit_lazy(lazy, ["list"], "item", "score", "clicked", "each")
    parted = fit_lazy_in_parts(
        lazy, ["list"], "item", "score", "clicked", "each", total=log.height,
        part_rows=part_rows, temp_dir=None, whole=_no_whole,
    )  # fmt: skip
    assert parted.table.equals(whole.table)
    signs = [np.signbit(q).tolist() for q in whole.table["quantiles"].to_list()]
    assert signs == [np.signbit(q).tolist() for q in parted.table["quantiles"].to_list()]
    assert any(any(s) for s in signs)  # some quantile is -0.0: the order was tested


def test_a_problem_is_fitted_whole_for_its_sentence() -> None:
    log = _log(1).with_columns(
        score=pl.when(pl.int_range(pl.len()) == 700).then(float("inf")).otherwise("score")
    )
    calls: list[int] = []

    def whole() -> Any:
        calls.append(1)
        return _fit_lazy(log.lazy(), ["list"], "item", "score", "clicked", "each")

    with pytest.raises(ValueError, match="fit_comparability: scores must be finite"):
        fit_lazy_in_parts(
            log.lazy(), ["list"], "item", "score", "clicked", "each", total=log.height,
            part_rows=300, temp_dir=None, whole=whole,
        )  # fmt: skip
    assert calls == [1]


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("objectives", [("accuracy", "coverage"), ("balanced",)])
def test_the_report_in_parts_fits_its_state_in_parts(
    objectives: Any, monkeypatch: Any, *, shuffle: bool
) -> None:
    log = _log(5, shuffle=shuffle)
    kw: dict[str, Any] = dict(
        by="list", item="item", y_true="clicked", y_score="score", k=3, groups="entity",
        train=log.filter("clicked").select("item"), objectives=objectives, n_resamples=200,
    )  # fmt: skip
    memory = lp.ranking_report(log, **kw)
    fits: list[int] = []
    original = comparability_parts.fit_lazy_in_parts

    def counted(*args: Any, **kwargs: Any) -> Any:
        fits.append(1)
        return original(*args, whole=_no_whole, **{k: v for k, v in kwargs.items() if k != "whole"})

    monkeypatch.setattr(comparability_parts, "fit_lazy_in_parts", counted)
    parts = lp.ranking_report(log.lazy(), batch_rows=400, **kw)
    assert fits == [1]
    assert parts["comparability"] == memory["comparability"]
    a, b = parts.to_dict(), memory.to_dict()
    primary = a["primary_objective"]  # bit for bit: the primary block, the floor, the bootstrap
    assert a["objectives"][primary]["micro"] == b["objectives"][primary]["micro"]
    assert a["baselines"]["global_pop"]["micro"] == b["baselines"]["global_pop"]["micro"]
    assert a["uncertainty"] == b["uncertainty"]
    _same(a, b)


@pytest.mark.parametrize("multi_positive", ["each", "first"])
def test_without_quantiles_the_counts_are_the_whole_fits(multi_positive: str) -> None:
    # the report without percentile=True reads no quantile: the fit skips their pass
    log = _log(7, shuffle=True)
    whole = _fit_lazy(log.lazy(), ["list"], "item", "score", "clicked", multi_positive)
    counts = fit_lazy_in_parts(
        log.lazy(), ["list"], "item", "score", "clicked", multi_positive, total=log.height,
        part_rows=300, temp_dir=None, whole=_no_whole, quantiles=False,
    )  # fmt: skip
    assert counts.quantile_levels == ()
    assert counts.table["quantiles"].to_list() == [[]] * whole.table.height
    assert counts.table.drop("quantiles").equals(whole.table.drop("quantiles"))
    assert (counts.n_lists, counts.n_dropped) == (whole.n_lists, whole.n_dropped)
    new = log.head(30)
    for objective in ("coverage", "balanced"):  # the discount reads the counts only
        assert lp.transform_for_objective(
            new, objective, counts, by="list", item="item", y_score="score"
        ).equals(
            lp.transform_for_objective(
                new, objective, whole, by="list", item="item", y_score="score"
            )
        )
    with pytest.raises(ValueError, match="percentile ranking reads the items' score quantiles"):
        lp.transform_for_objective(
            new, "accuracy", counts, by="list", item="item", y_score="score", percentile=True
        )


@pytest.mark.parametrize("column", ["list", "item", "score", "clicked"])
def test_a_null_is_fitted_whole(column: str) -> None:
    log = _log(2).with_columns(
        pl.when(pl.int_range(pl.len()) == 500).then(None).otherwise(pl.col(column)).alias(column)
    )
    calls: list[int] = []

    def whole() -> Any:
        calls.append(1)
        return lp.ComparabilityState(
            pl.DataFrame(), quantile_levels=[], item_column="item", n_lists=0, n_dropped=0
        )

    fit_lazy_in_parts(
        log.lazy(), ["list"], "item", "score", "clicked", "each", total=log.height,
        part_rows=300, temp_dir=None, whole=whole,
    )  # fmt: skip
    assert calls == [1]


def test_a_percentile_report_in_parts_fits_the_quantiles(monkeypatch: Any) -> None:
    log = _log(4, shuffle=True)
    kw: dict[str, Any] = dict(
        by="list", item="item", y_true="clicked", y_score="score", k=3, n_resamples=50,
        objectives=("accuracy",), percentile=True,
    )  # fmt: skip
    asked: list[bool] = []
    original = comparability_parts.fit_lazy_in_parts

    def counted(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs["quantiles"])
        return original(*args, **kwargs)

    monkeypatch.setattr(comparability_parts, "fit_lazy_in_parts", counted)
    parts = lp.ranking_report(log.lazy(), batch_rows=400, **kw).to_dict()
    assert asked == [True]
    _same(parts, lp.ranking_report(log, **kw).to_dict())


@pytest.mark.parametrize("graded", ["some", "every"])
@pytest.mark.parametrize("multi_positive", ["each", "first"])
@pytest.mark.parametrize("n_keys", [1, 2])
def test_the_counts_of_graded_lists_by_one_key_or_two(
    n_keys: int, multi_positive: str, graded: str
) -> None:
    # the counts read only the rows of a graded list (a hash set of one key, a semi join of
    # two); the lists are counted from the other rows only when there are some
    log = _log(9, shuffle=True).with_columns(half=pl.col("list") // 2, odd=pl.col("list") % 2)
    if graded == "every":
        log = log.filter(pl.col("clicked").any().over("list"))
    else:  # and an item seen in ungraded lists only: in the catalogue, with no count
        extra = log.head(3).with_columns(
            (pl.col(["list", "half"]) * 0 - 1), odd=pl.col("odd") * 0 + 1,
            item=pl.col("item") * 0 + 99 + pl.int_range(pl.len()).cast(log.schema["item"]),
            clicked=pl.lit(False),
        )  # fmt: skip
        log = pl.concat([log, extra])
    keys = ["list"] if n_keys == 1 else ["half", "odd"]
    whole = _fit_lazy(log.lazy(), keys, "item", "score", "clicked", multi_positive)
    parted = fit_lazy_in_parts(
        log.lazy(), keys, "item", "score", "clicked", multi_positive, total=log.height,
        part_rows=300, temp_dir=None, whole=_no_whole,
    )  # fmt: skip
    assert parted.table.equals(whole.table)
    assert (parted.n_lists, parted.n_dropped) == (whole.n_lists, whole.n_dropped)
    assert (parted.n_dropped == 0) == (graded == "every")
    if graded == "some":
        assert whole.table.filter(pl.col("item") == 99)["n_candidate"].item() == 0
