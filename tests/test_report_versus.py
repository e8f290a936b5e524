"""Model A against model B in one report (issue 21): ``y_score_b``, ``versus``.

B == A gives zero differences and ``undecided``; a strictly better B gives ``b_ahead``; the
differences are those of the two single-model reports; the interval is the paired bootstrap
(the same draws for A and B), checked against a loop written out here; parts == whole.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._report.versus import verdict


def _log(seed: int, n_lists: int = 60, n_items: int = 8) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    lists = np.repeat(np.arange(n_lists), n_items)
    items = np.tile(np.arange(n_items), n_lists)
    truth = np.repeat(rng.integers(0, n_items, n_lists), n_items)
    clicked = items == truth
    a = rng.integers(0, 4, lists.size) / 4.0  # ties
    return pl.DataFrame(
        {
            "list": lists,
            "entity": lists // 3,
            "item": items,
            "a": a,
            "b": np.where(clicked, 2.0, a),  # B: the truth always first
            "clicked": clicked,
            "price": rng.integers(1, 20, lists.size).astype(np.float64),
        }
    )


KW: dict[str, Any] = dict(
    by="list", item="item", y_true="clicked", y_score="a", k=3, objectives=("accuracy",),
    n_resamples=200,
)  # fmt: skip


def test_b_equal_to_a_gives_zero_differences_and_undecided() -> None:
    report = lp.ranking_report(_log(0), y_score_b="a", value="price", **KW)
    versus = report["versus"]
    a = report["objectives"]["accuracy"]
    assert versus["model_b"] == {"micro": a["micro"], "macro": a["macro"], "value": a["value"]}
    for family in ("micro", "macro", "value"):
        for name, entry in versus["difference"][family].items():
            assert entry["estimate"] in (0.0, None), name
    for entry in versus["difference"]["micro"].values():
        assert entry["ci_low"] == 0.0
        assert entry["ci_high"] == 0.0
        assert entry["verdict"] == "undecided"
    assert versus["decision"]["verdict"] == "undecided"


def test_a_strictly_better_b_is_b_ahead() -> None:
    report = lp.ranking_report(_log(1), y_score_b="b", **KW)
    diff = report["versus"]["difference"]["micro"]
    for name in ("hit@1", "mrr@3", "ndcg@3"):
        assert diff[name]["ci_low"] > 0.0, name
        assert diff[name]["verdict"] == "b_ahead", name
    assert report["versus"]["model_b"]["micro"]["ndcg@3"] == 1.0
    assert report["versus"]["decision"]["verdict"] == "b_ahead"
    assert "B ahead" in report["versus"]["decision"]["sentence"]
    swapped = lp.ranking_report(_log(1), **{**KW, "y_score": "b"}, y_score_b="a")
    assert swapped["versus"]["difference"]["micro"]["ndcg@3"]["verdict"] == "a_ahead"


@pytest.mark.parametrize("objectives", [("accuracy",), ("coverage", "accuracy")])
def test_the_differences_are_those_of_the_two_single_model_reports(objectives: Any) -> None:
    frame = _log(2)
    train = pl.DataFrame({"item": np.arange(8).repeat(np.arange(1, 9))})
    kw = {**KW, "objectives": objectives, "train": train, "value": "price"}
    both = lp.ranking_report(frame, y_score_b="b", **kw)
    only_a = lp.ranking_report(frame, **kw)
    only_b = lp.ranking_report(frame, **{**kw, "y_score": "b"})
    primary = objectives[0]
    assert both["versus"]["objective"] == primary
    for family in ("micro", "macro", "value"):
        a = only_a["objectives"][primary][family]
        b = only_b["objectives"][primary][family]
        assert both["versus"]["model_b"][family] == b  # B's own state when it needs one
        for name, entry in both["versus"]["difference"][family].items():
            if a[name] is None:
                assert entry["estimate"] is None
            else:
                assert entry["estimate"] == pytest.approx(b[name] - a[name], abs=1e-15), name
    # A's report is unchanged by y_score_b
    assert {k: v for k, v in both.items() if k != "versus"} == dict(only_a)


def test_the_interval_is_the_paired_bootstrap_written_out() -> None:
    """Units (entities) drawn by default_rng(seed).integers, one draw for A and B: the
    resampled micro mean of each, their difference, its 2.5% and 97.5% quantiles.
    """
    frame = _log(3, n_lists=24)
    report = lp.ranking_report(frame, y_score_b="b", groups="entity", seed=7, **KW)
    versus = report["versus"]
    assert versus["unit"] == "entity"
    assert versus["n_units"] == 8

    def per_list_hit1(score: str) -> dict[int, float]:
        # hit@1 per list, ties averaged: 1/t when the truth is in the top tie block
        out = {}
        for (lst,), rows in frame.group_by(["list"], maintain_order=True):
            top = rows[score].max()
            tied = rows.filter(pl.col(score) == top)
            hit = tied["clicked"].any()
            out[lst] = (1.0 / tied.height) if hit else 0.0
        return out

    a1, b1 = per_list_hit1("a"), per_list_hit1("b")
    units = sorted({lst // 3 for lst in a1})
    a_sum = np.array([sum(v for lst, v in a1.items() if lst // 3 == u) for u in units])
    b_sum = np.array([sum(v for lst, v in b1.items() if lst // 3 == u) for u in units])
    count = np.array([sum(1 for lst in a1 if lst // 3 == u) for u in units], dtype=float)
    draws = np.random.default_rng(7).integers(0, len(units), (200, len(units)))
    diffs = []
    for row in draws:
        w = np.bincount(row, minlength=len(units)).astype(float)
        diffs.append((w @ b_sum) / (w @ count) - (w @ a_sum) / (w @ count))
    lo, hi = np.quantile(diffs, [0.025, 0.975], method="linear")
    entry = versus["difference"]["micro"]["hit@1"]
    assert entry["ci_low"] == pytest.approx(lo, abs=1e-12)
    assert entry["ci_high"] == pytest.approx(hi, abs=1e-12)
    assert entry["estimate"] == pytest.approx(b_sum.sum() / count.sum() - a_sum.sum() / 24)


@pytest.mark.parametrize("objectives", [("accuracy",), ("coverage", "accuracy")])
def test_parts_equal_the_whole_path(objectives: Any) -> None:
    frame = _log(4, n_lists=150).sample(fraction=1.0, shuffle=True, seed=4)
    kw = {**KW, "objectives": objectives, "groups": "entity", "value": "price", "n_resamples": 50}
    whole = lp.ranking_report(frame, y_score_b="b", **kw)
    parted = lp.ranking_report(frame.lazy(), y_score_b="b", batch_rows=250, **kw)
    w, p = whole["versus"], parted["versus"]
    assert p["difference"]["micro"] == w["difference"]["micro"]  # per-list values: bit for bit
    assert p["model_b"]["micro"] == w["model_b"]["micro"]
    for family in ("macro", "value"):
        assert p["model_b"][family] == pytest.approx(w["model_b"][family], rel=1e-12)
        for name, entry in w["difference"][family].items():
            assert p["difference"][family][name]["estimate"] == pytest.approx(
                entry["estimate"], rel=1e-9, abs=1e-12
            )
    assert p["decision"] == w["decision"]


def test_the_verdict_follows_each_metrics_direction() -> None:
    assert verdict("ndcg@10", 0.1, 0.2) == "b_ahead"
    assert verdict("ndcg@10", -0.2, -0.1) == "a_ahead"
    assert verdict("gini", 0.1, 0.2) == "a_ahead"  # lower is better
    assert verdict("gini", -0.2, -0.1) == "b_ahead"
    assert verdict("hit@1", -0.1, 0.1) == "undecided"


def test_one_unit_has_no_interval() -> None:
    frame = _log(5, n_lists=1)
    report = lp.ranking_report(frame, y_score_b="b", **KW)
    entry = report["versus"]["difference"]["micro"]["ndcg@3"]
    assert entry["ci_low"] is None
    assert entry["verdict"] == "undecided"
    assert "no interval" in report["versus"]["decision"]["sentence"]


def test_to_frame_has_model_b_and_versus_rows() -> None:
    report = lp.ranking_report(_log(1), y_score_b="b", value="price", **KW)
    frame = report.to_frame()
    versus = frame.filter(pl.col("subject") == "versus")
    assert set(versus["family"]) == {"micro", "macro", "value"}
    row = versus.filter(pl.col("metric") == "ndcg@3").row(0, named=True)
    entry = report["versus"]["difference"]["micro"]["ndcg@3"]
    assert (row["value"], row["ci_low"], row["ci_high"], row["verdict"]) == (
        entry["estimate"], entry["ci_low"], entry["ci_high"], "b_ahead",
    )  # fmt: skip
    assert frame.filter(pl.col("subject") == "model_b").height == 5 + 5 + 3


def test_refusals() -> None:
    frame = _log(0).with_columns(b=pl.when(pl.col("list") == 3).then(None).otherwise("b"))
    with pytest.raises(ValueError, match="y_score_b .model B's scores. must be finite and not"):
        lp.ranking_report(frame, y_score_b="b", **KW)
    signed = _log(0).with_columns(b=pl.col("b") - 5.0)
    with pytest.raises(ValueError, match="needs scores >= 0"):
        lp.ranking_report(signed, y_score_b="b", **{**KW, "objectives": ("coverage",)})
    with pytest.raises(ValueError, match="bb"):
        lp.ranking_report(_log(0), y_score_b="bb", **KW)
    with pytest.raises(lp.InvalidParameterError, match="y_score_b"):
        lp.ranking_report(_log(0), y_score_b=3, **KW)  # type: ignore[arg-type]


def test_the_page_and_the_notebook_table_show_value_and_versus(tmp_path: Any) -> None:
    pytest.importorskip("matplotlib")
    report = lp.ranking_report(_log(1), y_score_b="b", value="price", **KW)
    page = report.to_html(tmp_path / "r.html").read_text(encoding="utf-8")
    assert '<table id="value">' in page
    assert '<table id="versus">' in page
    assert report["versus"]["decision"]["sentence"] in page
    assert "<td>value_ndcg@3</td><td>value NDCG@3</td><td>higher</td>" in page
    assert '<td class="b_ahead">b_ahead</td>' in page
    fragment = report._repr_html_()
    assert "value_share@3" in fragment
    assert "B − A" in fragment
    plain = lp.ranking_report(_log(1), **KW).to_html(tmp_path / "p.html").read_text("utf-8")
    assert 'id="versus"' not in plain
    assert 'id="value"' not in plain


def test_the_summary_says_the_versus_sentence() -> None:
    report = lp.ranking_report(_log(1), y_score_b="b", **KW)
    assert report["versus"]["decision"]["sentence"] in repr(report)
    assert "Model B against model A" not in repr(lp.ranking_report(_log(1), **KW))


def test_one_column_in_several_roles() -> None:
    """value and y_score_b naming the same column, or y_score's: one column, read once each."""
    frame = _log(2).with_columns(w=pl.col("price"))
    same = lp.ranking_report(frame, y_score_b="price", value="price", **KW)
    apart = lp.ranking_report(frame, y_score_b="w", value="price", **KW)
    assert same["versus"]["difference"] == apart["versus"]["difference"]
    parted = lp.ranking_report(frame.lazy(), y_score_b="price", value="price", batch_rows=100, **KW)
    assert parted["versus"]["difference"]["micro"] == same["versus"]["difference"]["micro"]


@pytest.mark.parametrize("path", ["memory", "parts"])
def test_the_bootstrap_draws_once_for_uncertainty_and_versus(path: str, monkeypatch: Any) -> None:
    """With ``y_score_b`` the resampling happens once (the uncertainty block's draws serve the
    paired bootstrap), and the uncertainty block is bit for bit the one without model B.
    """
    from lodestar_polars._core import bootstrap

    calls: list[int] = []
    original = bootstrap.draw_indices

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(bootstrap, "draw_indices", counted)
    log = _log(3, n_lists=90)
    frame: Any = log if path == "memory" else log.lazy()
    extra: dict[str, Any] = {} if path == "memory" else {"batch_rows": 200}
    kw = {**KW, "groups": "entity", "train": log.select("item"), **extra}
    alone = lp.ranking_report(frame, **kw)
    assert len(calls) == 1
    calls.clear()
    both = lp.ranking_report(frame, y_score_b="b", **kw)
    assert len(calls) == 1  # one generator's stream, drawn once for both
    assert both["uncertainty"] == alone["uncertainty"]
    assert both["versus"]["n_units"] == 30


def test_shared_bootstrap_means_equal_separate_calls(monkeypatch: Any) -> None:
    """Each set of sums on the shared draws is bit for bit its own call, over several blocks."""
    from lodestar_polars._core import bootstrap
    from lodestar_polars._report.ranking_report import bootstrap_means, bootstrap_means_shared

    monkeypatch.setattr(bootstrap, "block_rows", lambda n, block=0: 7)  # 7 resamples a block
    rng = np.random.default_rng(5)
    counts = rng.integers(1, 5, 40).astype(np.float64)
    first, second = rng.random((40, 3)), rng.random((40, 2))
    shared = bootstrap_means_shared([first, second], counts, 50, 9)
    assert np.array_equal(shared[0], bootstrap_means(first, counts, 50, 9))
    assert np.array_equal(shared[1], bootstrap_means(second, counts, 50, 9))
    assert shared[0].shape == (50, 3)
