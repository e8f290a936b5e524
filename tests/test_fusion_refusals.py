"""Every refusal of ``lp.fuse`` and ``lp.optimize_fusion``: raised, and quoted in docs/refusals.md.

Each case triggers one sentence; the test checks the exception's type and that the
page quotes the sentence (a list of names in it written ``[...]`` on the page).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import lodestar_polars as lp

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "refusals.md").read_text(encoding="utf-8")

RUNS = pl.DataFrame(
    {
        "run": ["a", "a", "b"],
        "query": ["q1", "q1", "q1"],
        "doc": ["d1", "d2", "d1"],
        "score": [2.0, 1.0, 0.5],
    }
)
QRELS = pl.DataFrame({"query": ["q1"], "doc": ["d1"], "rel": [1]})
ROLES: dict[str, Any] = {"by": "query", "item": "doc", "y_score": "score"}


def _fuse(runs: Any = RUNS, **kw: Any) -> object:
    return lp.fuse(runs, **{"method": "sum", **ROLES, **kw})


def _optimize(**kw: Any) -> object:
    return lp.optimize_fusion(QRELS, RUNS, **{"method": "wsum", "y_true": "rel", **ROLES, **kw})


CASES: dict[str, tuple[type[Exception], Callable[[], object]]] = {
    "method": (lp.InvalidParameterError, lambda: _fuse(method="combsum")),
    "norm": (lp.InvalidParameterError, lambda: _fuse(norm="l2")),
    "borda with a positional method": (
        lp.InvalidParameterError,
        lambda: _fuse(method="rrf", norm="borda"),
    ),
    "a parameter of another method": (lp.InvalidParameterError, lambda: _fuse(k=10)),
    "a required parameter": (lp.InvalidParameterError, lambda: _fuse(method="rbc")),
    "k": (lp.InvalidParameterError, lambda: _fuse(method="rrf", k=-1)),
    "sigma": (lp.InvalidParameterError, lambda: _fuse(method="logn_isr", sigma=2.0)),
    "phi": (lp.InvalidParameterError, lambda: _fuse(method="rbc", phi="x")),
    "weights missing": (lp.InvalidParameterError, lambda: _fuse(method="wsum")),
    "weights not a mapping": (
        lp.InvalidParameterError,
        lambda: _fuse(method="wsum", weights=[0.5, 0.5]),
    ),
    "weights for an unweighted method": (
        lp.InvalidParameterError,
        lambda: _fuse(weights={"a": 0.5, "b": 0.5}),
    ),
    "a weight that is not a number": (
        lp.InvalidParameterError,
        lambda: _fuse(method="wsum", weights={"a": "x", "b": 0.5}),
    ),
    "a weight per run": (
        lp.InvalidParameterError,
        lambda: _fuse(method="wsum", weights={"a": 0.5, "c": 0.5}),
    ),
    "no runs": (lp.InvalidParameterError, lambda: _fuse({})),
    "distinct columns": (lp.InvalidParameterError, lambda: _fuse(run="doc")),
    "a score that is not a number": (
        ValueError,
        lambda: _fuse(RUNS.with_columns(pl.col("score").cast(pl.String))),
    ),
    "a NaN score": (ValueError, lambda: _fuse(RUNS.with_columns(score=pl.lit(float("nan"))))),
    "a null run": (
        ValueError,
        lambda: _fuse(RUNS.with_columns(run=pl.Series([None, None, "b"], dtype=pl.String))),
    ),
    "a document twice": (ValueError, lambda: _fuse(RUNS.with_columns(doc=pl.lit("d1")))),
    "learned values for another method": (
        lp.InvalidParameterError,
        lambda: _fuse(map_scores={"a": 0.5, "b": 0.5}),
    ),
    "learned values missing": (lp.InvalidParameterError, lambda: _fuse(method="posfuse")),
    "learned values not one per run": (
        lp.InvalidParameterError,
        lambda: _fuse(method="mapfuse", map_scores={"a": 0.5}),
    ),
    "a learned value that is not a number": (
        lp.InvalidParameterError,
        lambda: _fuse(method="posfuse", probs={"a": [0.5], "b": 0.5}),
    ),
    "probs given to another method": (
        lp.InvalidParameterError,
        lambda: _fuse(probs={"a": [0.5], "b": [0.5]}),
    ),
    "probfuse with no segment": (
        lp.InvalidParameterError,
        lambda: _fuse(method="probfuse", probs={"a": [0.5], "b": []}),
    ),
    "w given to another method": (lp.InvalidParameterError, lambda: _fuse(w=2)),
    "log_odds given to another method": (
        lp.InvalidParameterError,
        lambda: _fuse(log_odds={"a": [0.5], "b": [0.5]}),
    ),
    "nothing to search": (lp.InvalidParameterError, lambda: _optimize(method="sum")),
    "an unknown metric": (lp.InvalidParameterError, lambda: _optimize(metric="foo")),
    "step": (lp.InvalidParameterError, lambda: _optimize(step=0)),
    "step of rrf": (lp.InvalidParameterError, lambda: _optimize(method="rrf", step=2.5)),
    "report not a bool": (lp.InvalidParameterError, lambda: _optimize(report=1)),
    "report of a training without search": (
        lp.InvalidParameterError,
        lambda: _optimize(method="posfuse", report=True),
    ),
    "report with a run named as the metric": (
        lp.InvalidParameterError,
        lambda: lp.optimize_fusion(
            QRELS,
            RUNS.with_columns(pl.col("run").replace({"a": "mrr"})),
            **{"method": "wsum", "metric": "mrr", "y_true": "rel", "report": True, **ROLES},
        ),
    ),
}


def _on_the_page(sentence: str) -> str:
    """The sentence as docs/refusals.md writes it: each list of names shown as ``[...]``."""
    return re.sub(r"\[(?:'[^']*'(?:, )?)+\]", "[...]", sentence)


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_refusal_is_raised_and_quoted(case: str) -> None:
    kind, call = CASES[case]
    with pytest.raises(kind) as info:
        call()
    sentence = _on_the_page(str(info.value))
    assert sentence in PAGE, f"docs/refusals.md does not quote: {sentence}"


def test_the_parameter_errors_name_the_parameter() -> None:
    for case, (kind, call) in CASES.items():
        if kind is not lp.InvalidParameterError or case in ("distinct columns", "no runs"):
            continue
        with pytest.raises(lp.InvalidParameterError) as info:
            call()
        assert "parameter of fuse" in str(info.value) or "parameter of optimize_fusion" in str(
            info.value
        ), case
