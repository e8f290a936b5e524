"""``lodestar-polars report --value COL --y-score-b COL`` and the A/B release gates (issue 21)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars.cli import run


def _scores(path: Path) -> Path:
    rng = np.random.default_rng(0)
    n, m = 40, 6
    lists, items = np.repeat(np.arange(n), m), np.tile(np.arange(m), n)
    clicked = items == np.repeat(rng.integers(0, m, n), m)
    a = rng.integers(0, 4, n * m) / 4
    frame = pl.DataFrame(
        {
            "user": lists,
            "item": items,
            "score": a,
            "new": np.where(clicked, 2.0, a),  # B: the truth first
            "clicked": clicked,
            "price": rng.integers(1, 9, n * m) * 1.0,
        }
    )
    out = path / "scores.csv"
    frame.write_csv(out)
    return out


BASE = ["-k", "3", "--n-resamples", "100", "-q", "--objective", "accuracy"]


def test_the_json_is_the_librarys_and_the_summary_shows_versus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scores = _scores(tmp_path)
    out = tmp_path / "r.json"
    argv = ["report", str(scores), *BASE, "--value", "price", "--y-score-b", "new"]
    assert run([*argv, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    want = lp.ranking_report(
        pl.scan_csv(scores), by=["user"], item="item", y_true="clicked", y_score="score", k=3,
        objectives=("accuracy",), n_resamples=100, value="price", y_score_b="new",
    )  # fmt: skip
    assert json.loads(out.read_text()) == json.loads(want.to_json())
    assert want["versus"]["decision"]["sentence"] in printed
    assert "value_share@3" in printed
    assert "B minus A (accuracy; B: new)" in printed


def test_fail_if_b_ahead_fails_and_says_by_how_much(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scores = _scores(tmp_path)
    argv = ["report", str(scores), *BASE, "--y-score-b", "new"]
    assert run([*argv, "--fail-if-b-ahead"]) == 1
    err = capsys.readouterr().err
    assert "gate failed: --fail-if-b-ahead primary: model B is ahead on ndcg@3 (accuracy)" in err
    assert run([*argv, "--fail-if-a-ahead"]) == 0  # A is not ahead
    assert "gates passed: --fail-if-a-ahead primary" in capsys.readouterr().err
    # B as the baseline (--y-score new, --y-score-b score): A ahead
    swapped = ["report", str(scores), *BASE, "--y-score", "new", "--y-score-b", "score"]
    assert run([*swapped, "--fail-if-a-ahead", "hit@1"]) == 1
    assert "model A is ahead on hit@1" in capsys.readouterr().err


def test_the_gate_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scores = _scores(tmp_path)
    assert run(["report", str(scores), *BASE, "--fail-if-b-ahead"]) == 2
    assert "compares model A with model B: pass --y-score-b COL" in capsys.readouterr().err
    argv = ["report", str(scores), *BASE, "--y-score-b", "new", "--fail-if-a-ahead", "gini"]
    assert run(argv) == 2
    assert "'gini' has none" in capsys.readouterr().err
    value = ["report", str(scores), *BASE, "--value", "price", "--fail-below", "value@3=100"]
    assert run(value) == 1  # a value key is a threshold gate's metric too
    assert "value@3" in capsys.readouterr().err
