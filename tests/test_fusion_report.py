"""``lp.optimize_fusion(report=True)``: ranx 0.3.21's optimization report.

Frozen: corpus/data/fusion_report.json (corpus/generate_fusion_report.py, the ``corpus``
extra) holds ranx's ``optimize_fusion(..., return_optimization_report=True)`` on
fusion.json's ``uniform`` dataset: every configuration tried, in ranx's order, with its
score; the tests compare each row to 1e-12. Live: the same against ranx itself, skipped
where ranx is not importable.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import lodestar_polars as lp

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "data"
WEIGHTED = {"wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet"}
PARAMETER = {"rrf": "k", "rbc": "phi", "logn_isr": "sigma", "gmnz": "gamma"}
PARAMETER |= {"probfuse": "n_segments", "slidefuse": "w"}


@cache
def _fusion() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((CORPUS / "fusion.json").read_text())
    return loaded


REPORTS: list[dict[str, Any]] = json.loads((CORPUS / "fusion_report.json").read_text())["cases"]


def _runs() -> pl.DataFrame:
    rows = _fusion()["datasets"]["uniform"]
    return pl.DataFrame(rows, schema=["run", "query", "doc", "score"], orient="row")


def _qrels() -> pl.DataFrame:
    return pl.DataFrame(_fusion()["qrels"], schema=["query", "doc", "rel"], orient="row")


def _report(method: str, norm: str | None, metric: str, step: float | None) -> Any:
    return lp.optimize_fusion(
        _qrels(),
        _runs(),
        method=method,
        norm=norm,
        metric=metric,
        step=step,
        by="query",
        item="doc",
        y_score="score",
        y_true="rel",
        report=True,
    )


def _configs(method: str, frame: pl.DataFrame, metric: str) -> list[Any]:
    if method in WEIGHTED:
        return [list(row) for row in frame.drop(metric).rows()]
    return frame[PARAMETER[method]].to_list()


def _close(got: list[float], want: list[float]) -> None:
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want, strict=True)):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12), (i, a, b)


@pytest.mark.parametrize(
    "case", REPORTS, ids=[f"{c['method']}-{c['norm']}-{c['metric']}-{c['step']}" for c in REPORTS]
)
def test_the_report_equals_ranx(case: dict[str, Any]) -> None:
    best, frame = _report(case["method"], case["norm"], case["metric"], case["step"])
    assert isinstance(frame, pl.DataFrame)
    assert frame.columns[-1] == case["metric"]
    assert _configs(case["method"], frame, case["metric"]) == case["configs"]
    _close(frame[case["metric"]].to_list(), case["results"])
    for key, value in case["best"].items():  # the best as without the report
        assert best[key] == value


def test_the_report_columns_and_dtypes() -> None:
    best, frame = _report("wsum", "min-max", "ndcg@5", None)
    assert all(dtype == pl.Float64 for dtype in frame.dtypes)
    runs = _runs()["run"].unique(maintain_order=True).to_list()
    assert frame.columns == [*runs, "ndcg@5"]
    assert best == lp.optimize_fusion(
        _qrels(), _runs(), method="wsum", metric="ndcg@5", by="query", item="doc",
        y_score="score", y_true="rel",
    )  # fmt: skip
    # ranx's rule: the best is the last configuration of the highest score
    top = frame.with_row_index().filter(pl.col("ndcg@5") == pl.col("ndcg@5").max()).tail(1)
    assert [top[r].item() for r in runs] == [best["weights"][r] for r in runs]
    _, rrf = _report("rrf", None, "map@10", None)
    assert rrf.schema == pl.Schema({"k": pl.Int64, "map@10": pl.Float64})
    assert rrf["k"].to_list() == list(range(10, 101, 10))
    _, probfuse = _report("probfuse", None, "mrr", None)
    assert probfuse.schema == pl.Schema({"n_segments": pl.Int64, "mrr": pl.Float64})
    assert probfuse.height == 100


@pytest.mark.parametrize("method", ["posfuse", "mapfuse", "segfuse", "bayesfuse"])
def test_a_training_without_search_has_no_report(method: str) -> None:
    with pytest.raises(lp.InvalidParameterError, match="'report'") as info:
        _report(method, "min-max", "ndcg", None)
    assert method in str(info.value)


def test_report_must_be_a_bool_and_the_names_distinct() -> None:
    with pytest.raises(lp.InvalidParameterError, match="report"):
        lp.optimize_fusion(
            _qrels(), _runs(), method="rrf", by="query", item="doc", y_score="score",
            y_true="rel", report="yes",  # type: ignore[call-overload]
        )  # fmt: skip
    renamed = _runs().with_columns(pl.col("run").replace({_runs()["run"][0]: "mrr"}))
    with pytest.raises(lp.InvalidParameterError, match="'mrr'"):
        lp.optimize_fusion(
            _qrels(), renamed, method="wsum", metric="mrr", by="query", item="doc",
            y_score="score", y_true="rel", report=True,
        )  # fmt: skip


LIVE = [c for c in REPORTS if c["method"] in {"wsum", "wmnz", "rrf", "rbc", "slidefuse"}][:5]


@pytest.mark.filterwarnings("ignore::Warning")  # numba's compile-time casts inside ranx
@pytest.mark.parametrize("case", LIVE, ids=[f"{c['method']}-{c['metric']}" for c in LIVE])
def test_the_report_equals_live_ranx(case: dict[str, Any]) -> None:
    ranx = pytest.importorskip("ranx")
    by_run: dict[str, dict[str, dict[str, float]]] = {}
    for r, q, d, s in _fusion()["datasets"]["uniform"]:
        by_run.setdefault(r, {}).setdefault(q, {})[d] = s
    judged: dict[str, dict[str, int]] = {}
    for q, d, rel in _fusion()["qrels"]:
        judged.setdefault(q, {})[d] = rel
    kwargs: dict[str, Any] = {"show_progress": False}
    if case["step"] is not None:
        kwargs["step"] = case["step"]
    _, want = ranx.optimize_fusion(
        ranx.Qrels.from_dict(judged),
        [ranx.Run.from_dict(d, name=n) for n, d in by_run.items()],
        norm=case["norm"],
        method=case["method"],
        metric=case["metric"],
        return_optimization_report=True,
        **kwargs,
    )
    _, frame = _report(case["method"], case["norm"], case["metric"], case["step"])
    configs = _configs(case["method"], frame, case["metric"])
    assert [str(tuple(c)) if isinstance(c, list) else str(c) for c in configs] == [
        c.replace("np.float64(", "").replace(")", "") + (")" if c.startswith("(") else "")
        for c in want.configs
    ]
    _close(frame[case["metric"]].to_list(), [float(v) for v in want.results])


@pytest.mark.parametrize("method", ["w_bordafuse", "wsum", "probfuse"])
def test_the_fused_order_is_the_same_every_call(method: str) -> None:
    """Each document's runs are added in run order: equal sums are one float, one order.

    Polars' groups come in no fixed order; summed in it, w_bordafuse's equal scores came
    one last bit apart and reordered a tie from one call to the next (and its report).
    """
    runs = _runs()
    names = runs["run"].unique(maintain_order=True).to_list()
    kwargs: dict[str, Any] = {"weights": dict(zip(names, [0.2, 0.3, 0.5], strict=True))}
    if method == "probfuse":
        kwargs = {"probs": {r: [0.5, 0.3, 0.2] for r in names}}
    first = lp.fuse(
        runs, method=method, norm=None, by="query", item="doc", y_score="score", **kwargs
    )
    for _ in range(8):
        again = lp.fuse(
            runs, method=method, norm=None, by="query", item="doc", y_score="score", **kwargs,
        )  # fmt: skip
        assert again.rows() == first.rows()
    _, report = _report("w_bordafuse", None, "mrr", None)
    for _ in range(3):
        assert _report("w_bordafuse", None, "mrr", None)[1].equals(report)


@pytest.mark.parametrize("method", ["probfuse", "segfuse", "bayesfuse", "mapfuse"])
def test_a_training_is_the_same_every_call(method: str) -> None:
    """The trainings' sums over queries are added in query order: the same floats each call.

    (A group_by's sum added them in no fixed order: segfuse's and bayesfuse's learned
    values moved in the last bit, and probfuse's report with its ties.)
    """

    def trained() -> str:
        return repr(
            lp.optimize_fusion(
                _qrels(), _runs(), method=method, metric="ndcg@5", by="query", item="doc",
                y_score="score", y_true="rel",
            )
        )  # fmt: skip

    first = trained()
    for _ in range(5):
        assert trained() == first
