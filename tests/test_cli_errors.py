"""The command line's bad paths end in one clean line and a non-zero status (issue 8, items 5-6)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lodestar_polars.cli import example_path, run

RUN = "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.4 t\n"
QRELS = "q1 0 d1 1\nq1 0 d2 0\n"


def _one_error_line(capsys: pytest.CaptureFixture[str], prefix: str) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(prefix), err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda d: d / "missing.csv", "missing.csv: no such file"),
        (lambda d: (d / "a_dir.csv").mkdir() or d / "a_dir.csv", "a_dir.csv: is a directory"),
    ],
    ids=["missing", "directory"],
)
def test_bad_log_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, expected: str
) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    assert run([str(path)]) == 2
    assert expected in _one_error_line(capsys, "lodestar-polars: error: ")


def test_paths_are_read_literally_not_as_globs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``log[1].csv`` is that file (Polars would read it as a pattern matching ``log1.csv``)."""
    path = tmp_path / "log[1].csv"
    shutil.copy(example_path(), path)
    assert run([str(path)]) == 0
    assert "24 queries" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("nowhere/x.csv", "--per-query {d}/nowhere/x.csv: no such directory"),
        ("", "--per-query {d}: is a directory"),
    ],
    ids=["no-folder", "a-folder"],
)
def test_unwritable_per_query_is_refused_before_the_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str, expected: str
) -> None:
    out = tmp_path / target if target else tmp_path
    assert run(["--per-query", str(out)]) == 2
    line = _one_error_line(capsys, "lodestar-polars: error: ")
    assert expected.format(d=tmp_path) in line


def test_closed_pipe_ends_quietly() -> None:
    """``lodestar-polars ... | head -1``: no traceback, a non-zero status."""
    proc = subprocess.run(
        f"{sys.executable} -m lodestar_polars --weakest 100000 | head -c 10",
        shell=True,
        capture_output=True,
        text=True,
        check=False,
        executable="/bin/bash",
    )
    assert proc.stdout == "bundled ex"
    assert "Traceback" not in proc.stderr
    assert "Broken pipe" not in proc.stderr


def test_trec_directory_run_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A directory given as the run was read as all its files merged, with status 0."""
    (tmp_path / "qrels.txt").write_text(QRELS)
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a.txt").write_text(RUN)
    assert run(["trec", str(tmp_path / "qrels.txt"), str(folder), "-m", "map"]) == 2
    line = _one_error_line(capsys, "lodestar-polars trec: error: ")
    assert line.endswith(f"{folder}: is a directory, not a run file")


def test_trec_non_utf8_names_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "qrels.txt").write_text(QRELS)
    bad = tmp_path / "run.txt"
    bad.write_bytes(RUN.encode() + b"q1 Q0 d\xff3 3 0.3 t\n")
    assert run(["trec", str(tmp_path / "qrels.txt"), str(bad), "-m", "map"]) == 2
    line = _one_error_line(capsys, "lodestar-polars trec: error: ")
    assert line.endswith(f"{bad}:3: not UTF-8 text (byte 0xff at column 8)")


def test_trec_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "run.txt").write_text(RUN)
    assert run(["trec", str(tmp_path / "nope.txt"), str(tmp_path / "run.txt"), "-m", "P.5"]) == 2
    assert _one_error_line(capsys, "lodestar-polars trec: error: ").endswith(
        "nope.txt: no such file"
    )


def test_trec_glob_characters_are_literal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "qrels[1].txt").write_text(QRELS)
    (tmp_path / "run[1].txt").write_text(RUN)
    assert run(["trec", str(tmp_path / "qrels[1].txt"), str(tmp_path / "run[1].txt")]) == 0
    assert "map" in capsys.readouterr().out


def test_weakest_queries_say_how_many_tie(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.csv"
    log.write_text(
        "query,relevance,score\n"
        + "".join(f"q{i},0,0.5\nq{i},1,0.1\n" for i in range(4))
        + "q9,1,0.9\nq9,0,0.1\n"
    )
    assert run([str(log), "-m", "rr", "--weakest", "2"]) == 0
    out = capsys.readouterr().out
    assert (
        "weakest 2 queries by rr (4 queries tie at the weakest value, 0.5; ties listed by key):"
        in out
    )


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--help"]) == 0
    out = capsys.readouterr().out
    assert "evaluate" in out
    assert "trec" in out


def test_evaluate_is_the_default_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["evaluate", "-m", "rr"]) == 0
    named = capsys.readouterr().out
    assert run(["-m", "rr"]) == 0
    assert capsys.readouterr().out == named


def test_trec_default_set_names_what_is_not_offered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """trec_eval's default set is offered whole (gm_map, bpref, iprec_at_recall): no note."""
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    assert run(["trec", str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")]) == 0
    captured = capsys.readouterr()
    assert "map" in captured.out
    assert "bpref" in captured.out
    assert "iprec_at_recall_0.50" in captured.out
    assert captured.err == ""
