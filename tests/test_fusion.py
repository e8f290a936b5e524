"""``lp.fuse`` and ``lp.optimize_fusion`` against ranx 0.3.21, frozen in corpus/data/fusion.json.

corpus/generate_fusion.py (the ``corpus`` extra) wrote ranx's fused runs for every
method x normalisation on small datasets (missing documents, equal scores, negative
and constant scores, several queries) and ranx's ``optimize_fusion`` results; these
tests only read the file.
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

DATA = Path(__file__).resolve().parents[1] / "corpus" / "data" / "fusion.json"


@cache
def _corpus() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DATA.read_text())
    return loaded


def _frame(dataset: str) -> pl.DataFrame:
    rows = _corpus()["datasets"][dataset]
    return pl.DataFrame(rows, schema=["run", "query", "doc", "score"], orient="row")


def _fused(frame: pl.DataFrame) -> dict[tuple[str, str], float]:
    return {(q, d): s for q, d, s in frame.rows()}


FUSE = _corpus()["fuse"]


@pytest.mark.parametrize(
    "case", FUSE, ids=[f"{c['dataset']}-{c['method']}-{c['norm']}-{c['params']}" for c in FUSE]
)
def test_fuse_equals_ranx(case: dict[str, Any]) -> None:
    got = lp.fuse(
        _frame(case["dataset"]),
        method=case["method"],
        norm=case["norm"],
        by="query",
        item="doc",
        y_score="score",
        **case["params"],
    )
    expected = {(q, d): s for q, d, s in case["expected"]}
    fused = _fused(got)
    assert fused.keys() == expected.keys()
    for key, value in expected.items():
        close = math.isclose(fused[key], value, rel_tol=1e-12, abs_tol=1e-12)
        assert close, (key, fused[key], value)


OPTIMIZE = _corpus()["optimize"]


@pytest.mark.parametrize(
    "case", OPTIMIZE, ids=[f"{c['method']}-{c['norm']}-{c['metric']}-{c['step']}" for c in OPTIMIZE]
)
def test_optimize_fusion_equals_ranx(case: dict[str, Any]) -> None:
    qrels = pl.DataFrame(_corpus()["qrels"], schema=["query", "doc", "rel"], orient="row")
    best = lp.optimize_fusion(
        qrels,
        _frame(case["dataset"]),
        method=case["method"],
        norm=case["norm"],
        metric=case["metric"],
        step=case["step"],
        by="query",
        item="doc",
        y_score="score",
        y_true="rel",
    )
    assert best == case["expected"]
