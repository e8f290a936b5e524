"""lp.RankingReport: the payload read as before, plus a tidy frame, JSON, HTML and a summary."""

from __future__ import annotations

import copy
import html
import json
import pickle
import sys
from collections.abc import Callable, Mapping
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp

PAYLOAD_KEYS = [
    "schema_version", "k", "objectives", "objective_alpha", "primary_objective", "primary_score",
    "baselines", "uncertainty", "n_lists", "n_dropped", "n_unseen_truth", "n_items",
    "multi_positive", "ties", "tail_rule", "popularity_source", "comparability",
    "shrinkage_strength", "max_list_length", "by_construction", "notes", "decision",
]  # fmt: skip
COLUMNS = [
    "subject", "objective", "baseline", "family", "metric", "value", "ci_low", "ci_high",
    "verdict", "by_construction",
]  # fmt: skip


def _small(**options: Any) -> lp.RankingReport:
    """docs/report.md's example: user 1 clicked b (tied with c behind a), user 2 tied all."""
    scores = pl.DataFrame(
        {
            "user": [1, 1, 1, 2, 2, 2, 3, 3, 3],
            "item": ["a", "b", "c"] * 3,
            "score": [0.9, 0.5, 0.5, 0.2, 0.2, 0.2, 0.1, 0.7, 0.3],
            "clicked": [False, True, False, True, False, False, False, False, False],
        }
    )
    options.setdefault("objectives", ("accuracy",))
    return lp.ranking_report(
        scores, by="user", item="item", y_score="score", y_true="clicked", k=2, n_resamples=200,
        **options,
    )  # fmt: skip


def _big(*, train: bool = True) -> lp.RankingReport:
    """Three objectives, the floor, a bootstrap over 40 users with 12 candidates each."""
    rng = np.random.default_rng(7)
    n, m = 40, 12
    log = pl.DataFrame(
        {
            "user": np.repeat(np.arange(n), m),
            "item": np.tile(np.arange(m), n),
            "score": rng.integers(0, 10, n * m) / 10,
            "clicked": rng.random(n * m) < 0.15,
        }
    )
    floor = pl.DataFrame({"item": rng.integers(0, m, 300)}) if train else None
    return lp.ranking_report(
        log, by="user", item="item", y_score="score", y_true="clicked", k=5,
        objectives=("accuracy", "balanced", "coverage"), train=floor, n_resamples=100,
    )  # fmt: skip


def _plain(value: Any) -> None:
    """Every value inside the payload is a plain JSON type (no subclass leaks in)."""
    if isinstance(value, dict):
        assert type(value) is dict
        for key, inner in value.items():
            assert type(key) is str
            _plain(inner)
    elif isinstance(value, list):
        assert type(value) is list
        for inner in value:
            _plain(inner)
    else:
        assert value is None or type(value) in (str, int, float, bool), type(value)


def _walk(payload: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """The rows to_frame promises, written out from the nested payload (docs/report.md)."""
    fixed = set(payload["by_construction"])
    unc = payload["uncertainty"]
    rows: list[tuple[Any, ...]] = []
    for objective in payload["objectives"]:
        for family in ("micro", "macro"):
            for metric in payload["objectives"][objective][family]:
                value = payload["objectives"][objective][family][metric]
                low = high = None
                if unc is not None and family == "micro" and objective == unc["objective"]:
                    low = unc["model"][metric]["ci_low"]
                    high = unc["model"][metric]["ci_high"]
                rows.append(("model", objective, None, family, metric, value, low, high, None,
                             metric in fixed))  # fmt: skip
    for name in payload["baselines"]:
        for family in ("micro", "macro"):
            for metric in payload["baselines"][name][family]:
                value = payload["baselines"][name][family][metric]
                low = high = None
                if unc is not None and family == "micro":
                    low = unc["baselines"][name]["floor"][metric]["ci_low"]
                    high = unc["baselines"][name]["floor"][metric]["ci_high"]
                rows.append(("baseline", None, name, family, metric, value, low, high, None,
                             metric in fixed))  # fmt: skip
    if unc is not None:
        for name in unc["baselines"]:
            for metric in unc["baselines"][name]["difference"]:
                gap = unc["baselines"][name]["difference"][metric]
                rows.append(("difference", unc["objective"], name, "micro", metric,
                             gap["estimate"], gap["ci_low"], gap["ci_high"], gap["verdict"],
                             metric in fixed))  # fmt: skip
    return rows


# ---------------------------------------------------------------------------
# the mapping: the payload, as before


@pytest.mark.parametrize("make", [_small, _big], ids=["small", "big"])
def test_the_report_reads_as_the_payload(make: Callable[[], lp.RankingReport]) -> None:
    """Mapping access, keys, JSON, pickle and copies all behave as the plain payload dict."""
    report = make()
    payload = report.to_dict()
    assert type(report) is lp.RankingReport
    assert isinstance(report, Mapping)
    assert isinstance(report, dict)
    assert type(payload) is dict
    assert list(report) == PAYLOAD_KEYS == list(payload)
    assert report == payload
    assert payload == report
    assert dict(report) == payload
    assert len(report) == len(payload)
    assert all(report[key] == payload[key] for key in payload)
    assert report.get("nope") is None
    assert "objectives" in report
    _plain(payload)
    _plain(dict(report))
    # JSON: directly, through to_dict, and through to_json, all the same text
    assert json.dumps(report) == json.dumps(payload)
    assert report.to_json() == json.dumps(payload, indent=2, allow_nan=False)
    assert report.to_json(indent=None) == json.dumps(payload)
    assert json.loads(report.to_json()) == report
    # pickle and copies keep the class and the contents
    for again in (pickle.loads(pickle.dumps(report)), copy.deepcopy(report), copy.copy(report)):
        assert type(again) is lp.RankingReport
        assert again == report
    # to_dict is a deep copy: changing it leaves the report alone
    payload["objectives"]["accuracy"]["micro"]["hit@1"] = -1.0
    payload["notes"].append("changed")
    assert report["objectives"]["accuracy"]["micro"]["hit@1"] != -1.0
    assert "changed" not in report["notes"]


def test_the_numbers_are_the_hand_computed_ones() -> None:
    """docs/report.md's arithmetic: hit@2 = (1/2 + 2/3)/2, mrr@2 = (1/4 + 1/2)/2, coverage 8/9."""
    report = _small(train=pl.DataFrame({"item": ["a", "a", "a", "b", "c"]}))
    frame = report.to_frame()

    def value(subject: str, metric: str) -> float:
        row = frame.filter(pl.col("subject") == subject, pl.col("metric") == metric)
        assert row.height == 1
        return float(row["value"][0])

    assert value("model", "hit@2") == pytest.approx((1 / 2 + 2 / 3) / 2, rel=1e-12)
    assert value("model", "mrr@2") == pytest.approx((1 / 4 + 1 / 2) / 2, rel=1e-12)
    assert value("model", "catalog_coverage") == pytest.approx(8 / 9, rel=1e-12)
    # the floor ranks a first and ties b with c: user 1 (clicked b) rank 2 or 3, user 2 rank 1
    assert value("baseline", "hit@2") == pytest.approx((1 / 2 + 1) / 2, rel=1e-12)
    assert value("baseline", "mrr@2") == pytest.approx((1 / 4 + 1) / 2, rel=1e-12)
    assert value("difference", "hit@2") == pytest.approx(
        (1 / 2 + 2 / 3) / 2 - (1 / 2 + 1) / 2, rel=1e-12
    )


# ---------------------------------------------------------------------------
# to_frame: one tidy row per number of the payload


@pytest.mark.parametrize(
    "make",
    [
        _small,
        lambda: _small(train=pl.DataFrame({"item": ["a", "a", "a", "b", "c"]})),
        _big,
        lambda: _big(train=False),
    ],
    ids=["small", "small-floor", "big", "big-no-floor"],
)
def test_to_frame_rows_are_the_payloads_numbers(make: Callable[[], lp.RankingReport]) -> None:
    """Row for row, in the payload's order: values, intervals, verdicts, by-construction flags."""
    report = make()
    frame = report.to_frame()
    assert frame.columns == COLUMNS
    assert frame.dtypes == [pl.String] * 5 + [pl.Float64] * 3 + [pl.String, pl.Boolean]
    assert frame.rows() == _walk(report)
    # the same frame from the payload read back from JSON
    back = lp.RankingReport(json.loads(report.to_json()))
    assert back.to_frame().equals(frame)


def test_to_frame_difference_is_model_minus_floor() -> None:
    """The difference rows' values are the model's micro numbers less the floor's."""
    frame = _big().to_frame()
    model = frame.filter(pl.col("subject") == "model", pl.col("objective") == "accuracy")
    floor = frame.filter(pl.col("subject") == "baseline")
    gaps = frame.filter(pl.col("subject") == "difference")
    assert gaps.height == 4  # hit@1, hit@5 (= hit@k), mrr@5, ndcg@5
    for metric, gap, low, high, verdict in gaps.select(
        "metric", "value", "ci_low", "ci_high", "verdict"
    ).iter_rows():
        m = model.filter(pl.col("metric") == metric, pl.col("family") == "micro")["value"][0]
        f = floor.filter(pl.col("metric") == metric, pl.col("family") == "micro")["value"][0]
        assert gap == pytest.approx(m - f, rel=1e-12, abs=1e-15)
        expected = "model_ahead" if low > 0 else "baseline_ahead" if high < 0 else "undecided"
        assert verdict == expected
    # intervals only where the payload has them: the primary block's micro family, the floor's
    with_ci = frame.filter(pl.col("ci_low").is_not_null())
    assert set(with_ci["subject"]) == {"model", "baseline", "difference"}
    assert set(with_ci.filter(pl.col("subject") == "model")["objective"]) == {"accuracy"}
    assert set(with_ci["family"]) == {"micro"}
    assert frame.filter(pl.col("subject") != "difference")["verdict"].null_count() == (
        frame.height - gaps.height
    )


def test_to_frame_without_intervals_or_tail_truth() -> None:
    """One unit: no intervals, no difference rows; no tail truth: tail_hit's value is null."""
    scores = pl.DataFrame(
        {"user": [1, 1, 1], "item": ["a", "b", "c"], "score": [0.3, 0.2, 0.1],
         "clicked": [0, 1, 0]}
    )  # fmt: skip
    train = pl.DataFrame({"item": ["b"] * 8 + ["a", "c"]})
    report = lp.ranking_report(
        scores, by="user", item="item", y_score="score", y_true="clicked", k=1,
        objectives=("accuracy",), train=train,
    )  # fmt: skip
    assert report["uncertainty"] is None
    assert report["objectives"]["accuracy"]["macro"]["tail_hit@1"] is None
    frame = report.to_frame()
    assert frame.rows() == _walk(report)
    assert frame["ci_low"].null_count() == frame.height
    assert frame["verdict"].null_count() == frame.height
    assert set(frame["subject"]) == {"model", "baseline"}
    tail = frame.filter(pl.col("metric") == "tail_hit@1")
    assert tail.height == 2
    assert tail["value"].null_count() == 2
    # rank 2 of 3 at k=1: hit@1 0 for the model; the floor ranks b (8 of 10 positives) first
    assert frame.filter(pl.col("subject") == "model", pl.col("metric") == "hit@1")["value"][0] == 0
    assert frame.filter(pl.col("subject") == "baseline", pl.col("metric") == "hit@1")["value"][
        0
    ] == pytest.approx(1.0, rel=1e-12)


def test_to_frame_flags_the_metrics_fixed_by_construction() -> None:
    """k at least every list's length: hit@k and the coverage family are flagged, nothing else."""
    scores = pl.DataFrame(
        {
            "user": np.repeat(np.arange(6), 3),
            "item": np.tile(["a", "b", "c"], 6),
            "score": np.random.default_rng(3).random(18),
            "clicked": np.tile([True, False, False], 6),
        }
    )
    report = lp.ranking_report(
        scores, by="user", item="item", y_score="score", y_true="clicked", k=3,
        objectives=("accuracy",), train=pl.DataFrame({"item": ["a", "b", "b", "c"]}),
        n_resamples=50,
    )  # fmt: skip
    fixed = set(report["by_construction"])
    assert {"hit@5", "hit@3", "catalog_coverage", "entropy", "gini"} <= fixed
    frame = report.to_frame()
    flagged = set(frame.filter(pl.col("by_construction"))["metric"])
    assert flagged == fixed & set(frame["metric"])
    assert "ndcg@3" not in flagged
    assert "mrr@3" not in flagged
    assert frame.filter(pl.col("metric") == "hit@3", pl.col("subject") == "model")["value"][0] == 1


# ---------------------------------------------------------------------------
# the text summary and the notebook table


def test_repr_opens_with_the_decision_and_stays_short() -> None:
    """print(report) and repr(report): the decision sentence first, then notes and protocol."""
    report = _small(train=pl.DataFrame({"item": ["a", "a", "a", "b", "c"]}))
    text = repr(report)
    assert str(report) == text
    lines = text.splitlines()
    assert lines[0] == report["decision"]["sentence"]
    assert lines[0].startswith("Undecided: on ndcg@2 the model (accuracy ordering) scores 0.4296")
    assert [line[len("note: ") :] for line in lines if line.startswith("note: ")] == report["notes"]
    assert "2 graded lists (1 dropped, 0 unseen truth), 3 items, k=2" in text
    assert f"primary score: ndcg@2 = {report['primary_score']['value']:.4f}" in lines
    assert len(lines) <= 6
    # a payload read back from an older JSON, without its decision: the same sentence
    older = lp.RankingReport({k: v for k, v in report.items() if k != "decision"})
    assert repr(older).splitlines()[0] == report["decision"]["sentence"]


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.opened: dict[str, int] = {}
        self.closed: dict[str, int] = {}
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.opened[tag] = self.opened.get(tag, 0) + 1
        self.ids += [str(v) for k, v in attrs if k == "id"]

    def handle_endtag(self, tag: str) -> None:
        self.closed[tag] = self.closed.get(tag, 0) + 1


def test_repr_html_is_a_compact_table_with_the_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    """The notebook display: the decision, the notes, three tables, no figure, no matplotlib."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # not needed for the notebook view
    report = _big()
    fragment = report._repr_html_()
    assert html.escape(report["decision"]["sentence"], quote=True) in fragment
    assert fragment.index("decision") < fragment.index("<table")
    for note in report["notes"]:
        assert html.escape(note, quote=True) in fragment
    tags = _Tags()
    tags.feed(fragment)
    assert tags.opened["table"] == tags.closed["table"] == 3  # micro, macro, intervals
    assert tags.opened == tags.closed | {"br": tags.opened.get("br", 0)}
    assert "svg" not in tags.opened
    assert tags.ids == []  # several reports in one notebook share no ids
    assert f"{report['objectives']['coverage']['macro']['catalog_coverage']:.4f}" in fragment
    gap = report["uncertainty"]["baselines"]["global_pop"]["difference"]["ndcg@5"]
    assert f"[{gap['ci_low']:.4f}, {gap['ci_high']:.4f}]" in fragment
    # without a floor, the sentence says what to pass
    alone = _big(train=False)
    assert "No verdict" in alone._repr_html_()
    assert "pass train=" in alone._repr_html_()


def test_to_json_writes_the_file(tmp_path: Path) -> None:
    """to_json(path) writes the text and a newline, to a str or a Path, and returns the path."""
    report = _small()
    out = report.to_json(str(tmp_path / "r.json"))
    assert out == tmp_path / "r.json"
    assert out.read_text(encoding="utf-8") == report.to_json() + "\n"
    assert json.loads(out.read_text(encoding="utf-8")) == report


def test_ranking_report_is_public() -> None:
    assert "RankingReport" in lp.__all__
    assert lp.RankingReport.__doc__
