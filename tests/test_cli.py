"""The ``lodestar-polars`` command (run in-process through ``cli.run``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import cast

import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars.cli import example_path, run


def test_bundled_example_prints_means_and_weakest(capsys: pytest.CaptureFixture[str]) -> None:
    assert run([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("bundled example: 24 queries")
    assert "weakest 5 queries by ndcg@10:" in out
    # the printed mean is the mean of the per-query expression values
    log = pl.read_csv(example_path())
    expected = cast(
        float, log.group_by("query").agg(v=lp.ndcg("relevance", "score", k=10))["v"].mean()
    )
    assert f"{expected:.6f}" in out


def test_file_options_and_per_query_output(tmp_path: Path) -> None:
    log = pl.DataFrame(
        {
            "qid": [1, 1, 1, 2, 2],
            "rel": [1, 0, 0, 0, 1],
            "s": [0.2, 0.9, 0.1, 0.5, 0.4],
        }
    )
    src = tmp_path / "log.parquet"
    log.write_parquet(src)
    dest = tmp_path / "per_query.csv"
    status = run(
        [
            str(src),
            "--by",
            "qid",
            "--y-true",
            "rel",
            "--y-score",
            "s",
            "-m",
            "rr",
            "-m",
            "ap",
            "--per-query",
            str(dest),
        ]
    )
    assert status == 0
    got = pl.read_csv(dest)
    # query 1: the relevant row ranks 2nd of 3; query 2: 2nd of 2
    assert got["rr"].to_list() == [1 / 2, 1 / 2]
    # AP = precision at the only positive = 1/2 in both queries
    assert got["ap"].to_list() == [1 / 2, 1 / 2]


def test_refused_group_is_an_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "log.csv"
    pl.DataFrame(
        {"query": ["a", "b", "b"], "relevance": [1, 0, 1], "score": [0.1, 0.2, 0.3]}
    ).write_csv(src)
    assert run([str(src), "-m", "ndcg"]) == 2
    err = capsys.readouterr().err
    sentence = "Computing NDCG is only meaningful when there is more than 1 document. Got 1 instead"
    assert f"query='a': {sentence}" in err
    assert "--no-strict" in err
    assert run([str(src), "-m", "ndcg", "--no-strict"]) == 0


def test_unknown_file_type_and_metric(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([str(tmp_path / "log.json")]) == 2
    assert "expected a .parquet, .csv or .tsv file" in capsys.readouterr().err
    assert run(["-m", "ndcg@ten"]) == 2
    assert "unknown metric 'ndcg@ten'" in capsys.readouterr().err


def test_python_dash_m_runs_the_same_command() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "lodestar_polars", "-m", "ndcg@3"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout.startswith("bundled example: 24 queries")
    assert "weakest 5 queries by ndcg@3:" in proc.stdout


def test_progress_line_reports_parts_rows_rate_and_time_left() -> None:
    import io

    from lodestar_polars.cli import ProgressLine

    stream = io.StringIO()
    line = ProgressLine(stream)
    line(lp.Progress(parts_done=1, parts_total=4, rows_done=1_000, groups_in_part=100))
    line(lp.Progress(parts_done=4, parts_total=4, rows_done=4_000, groups_in_part=100))
    text = stream.getvalue()
    assert "\rpart 1/4  1,000 rows  " in text
    assert "rows/s  ~" in text
    assert " s left" in text
    assert text.endswith("\n")  # the finished line is closed


def test_quiet_when_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    # pytest's captured stderr is not a terminal: no progress line is written
    assert run([]) == 0
    assert capsys.readouterr().err == ""
