"""More command-line paths that ended in a traceback or said nothing useful (issue 8, items 5-6).

Each error is one line on stderr naming the file (and the line where there is one), status 2.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lodestar_polars.cli import run

RUN = "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.4 t\n"
QRELS = "q1 0 d1 1\nq1 0 d2 0\n"


def _error(capsys: pytest.CaptureFixture[str], prog: str = "lodestar-polars") -> str:
    """The one line on stderr, without the ``prog: error:`` prefix."""
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1, err
    prefix = f"{prog}: error: "
    assert lines[0].startswith(prefix), err
    return lines[0][len(prefix) :]


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        (
            "ragged.csv",
            b"query,relevance,score\nq1,1,0.5\nq1,0,0.4,9\n",
            "{path}: not a CSV file lodestar-polars can read: "
            "found more fields than defined in 'Schema'",
        ),
        (
            "latin1.csv",
            b"query,relevance,score\nq1,1,0.5\nq\xe91,0,0.3\n",
            "{path}:3: not UTF-8 text (byte 0xe9 at column 2)",
        ),
        ("empty.csv", b"", "{path}: not a CSV file lodestar-polars can read: empty CSV"),
        (
            "header.csv",
            b"query,relevance,score\n",
            "{path}: has no rows (its columns: ['query', 'relevance', 'score'])",
        ),
        (
            "broken.parquet",
            b"garbage",
            "{path}: not a Parquet file lodestar-polars can read: parquet: File out of "
            "specification: A Parquet file must contain a header and footer with at least 12 bytes",
        ),
    ],
    ids=["ragged", "not-utf8", "empty", "header-only", "not-parquet"],
)
def test_unreadable_logs_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: bytes, expected: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    assert run([str(path)]) == 2
    assert _error(capsys) == expected.format(path=path)


def test_negative_weakest_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """``--weakest -1`` printed a table headed "weakest -1 queries", with status 0."""
    assert run(["--weakest", "-1"]) == 2
    assert _error(capsys) == "--weakest must be an int >= 0, got -1"


def test_per_query_suffix_is_checked_before_the_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--per-query out.json`` wrote CSV text into ``out.json``."""
    out = tmp_path / "out.json"
    assert run(["--per-query", str(out)]) == 2
    assert _error(capsys) == f"--per-query {out}: expected a .parquet, .csv or .tsv file"
    assert not out.exists()


def test_per_query_tsv_is_tab_separated(tmp_path: Path) -> None:
    out = tmp_path / "out.tsv"
    assert run(["-m", "rr", "--per-query", str(out)]) == 0
    header = out.read_text().splitlines()[0]
    assert header == "query\trr"


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda d: d / "nope.txt", "{run}: no such file"),
        (lambda d: d, "{run}: is a directory, not a run file"),
        (
            lambda d: (d / "bad.txt").write_bytes(b"q1 Q0 d\xff1 1 0.5 t\n") and d / "bad.txt",
            "{run}:1: not UTF-8 text (byte 0xff at column 8)",
        ),
    ],
    ids=["missing", "directory", "not-utf8"],
)
def test_trec_runid_alone_reads_the_run_safely(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, expected: str
) -> None:
    """``-m runid`` read the run's tag with ``open()``: a traceback for each of these."""
    (tmp_path / "qrels.txt").write_text(QRELS)
    path = make(tmp_path)  # type: ignore[operator]
    assert run(["trec", str(tmp_path / "qrels.txt"), str(path), "-m", "runid"]) == 2
    assert _error(capsys, "lodestar-polars trec") == expected.format(run=path)


def test_trec_error_is_the_only_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The note on trec_eval's default set came before the error: two lines on stderr."""
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    assert run(["trec", str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"), "-M", "0"]) == 2
    assert _error(capsys, "lodestar-polars trec") == "`max_docs` must be an int >= 1, got 0"


def test_trec_swapped_files_say_the_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``trec RUN QRELS`` (the order reversed): the error says which is which."""
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    assert run(["trec", str(tmp_path / "run.txt"), str(tmp_path / "qrels.txt"), "-m", "map"]) == 2
    assert _error(capsys, "lodestar-polars trec") == (
        f"{tmp_path / 'run.txt'}:1: 'q1 Q0 d1 1 0.5 t' is a run line (`qid Q0 docno rank score "
        "tag`), not a qrels line: the qrels come first, then the run, as in trec_eval"
    )


def test_closed_pipe_on_trec_output(tmp_path: Path) -> None:
    """``lodestar-polars trec ... -q | head -c 5``: no traceback, no "Broken pipe"."""
    (tmp_path / "qrels.txt").write_text("".join(f"q{i} 0 d1 1\n" for i in range(3000)))
    (tmp_path / "run.txt").write_text("".join(f"q{i} Q0 d1 1 0.5 t\n" for i in range(3000)))
    proc = subprocess.run(
        f"{sys.executable} -m lodestar_polars trec {tmp_path / 'qrels.txt'} "
        f"{tmp_path / 'run.txt'} -q -m all_trec | head -c 5",
        shell=True,
        capture_output=True,
        text=True,
        check=False,
        executable="/bin/bash",
    )
    assert proc.stdout == "num_r"
    assert proc.stderr == ""


def test_interrupt_ends_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C during a long evaluation: status 130 (128 + SIGINT), as a shell reports it."""
    from lodestar_polars import cli

    def interrupted(argv: object = None) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "run", interrupted)
    with pytest.raises(SystemExit) as info:
        cli.main()
    assert info.value.code == 130
    assert capsys.readouterr().err == "lodestar-polars: interrupted\n"


def test_csv_whose_column_type_changes_late(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Integer scores for 300 rows, then 0.5: Polars infers i64 from the first 100 rows and fails.

    The file is valid; it was refused as "could not parse `0.5` as dtype `i64`".
    """
    rows = ["query,relevance,score"]
    rows += [f"q{i % 20},{i % 2},{i}" for i in range(300)]
    rows += ["q0,1,0.5"]
    log = tmp_path / "late.csv"
    log.write_text("\n".join(rows) + "\n")
    assert run([str(log), "-m", "rr", "--per-query", str(tmp_path / "out.csv")]) == 0
    assert capsys.readouterr().err == ""
    # q0: rows 0, 20, ..., 280 (relevance 0, scores 0..280) and the last row (relevance 1, 0.5):
    # the relevant row ranks below every row but score 0, i.e. 15th of 16
    out = (tmp_path / "out.csv").read_text().splitlines()
    assert out[0] == "query,rr"
    assert "q0," + repr(1 / 15) in out
