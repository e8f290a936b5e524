"""``lodestar-polars report``: the payload it writes is lp.ranking_report's; errors are one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars.cli import run


def _log(seed: int = 0, n: int = 30, m: int = 8) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "user": np.repeat([f"u{i:02d}" for i in range(n)], m),
            "item": np.tile([f"i{j}" for j in range(m)], n),
            "score": rng.integers(0, 8, n * m) / 8,
            "clicked": (rng.random(n * m) < 0.2).astype(np.int64),
            "region": np.repeat(rng.integers(0, 6, n), m),
        }
    )


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """The scores as CSV and Parquet, the truth pairs, and training interactions."""
    log = _log()
    out = {"csv": tmp_path / "scores.csv", "parquet": tmp_path / "scores.parquet"}
    log.write_csv(out["csv"])
    log.write_parquet(out["parquet"])
    out["truth"] = tmp_path / "truth.csv"
    log.filter(pl.col("clicked") == 1).select("user", "item").write_csv(out["truth"])
    out["train"] = tmp_path / "train.parquet"
    rng = np.random.default_rng(1)
    pl.DataFrame({"item": [f"i{j}" for j in rng.integers(0, 8, 200)]}).write_parquet(out["train"])
    return out


def _payload(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _same(report: dict[str, Any]) -> dict[str, Any]:
    back: dict[str, Any] = json.loads(json.dumps(report))
    return back


def test_json_equals_ranking_report(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--json writes exactly the payload of lp.ranking_report with the same options."""
    out = tmp_path / "r.json"
    argv = [
        "report", str(files["parquet"]), "--train", str(files["train"]), "--groups", "region",
        "-k", "5", "--objective", "accuracy", "--objective", "balanced", "--n-resamples", "200",
        "--seed", "3", "--json", str(out), "--quiet",
    ]  # fmt: skip
    assert run(argv) == 0
    expected = lp.ranking_report(
        _log(),
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=5,
        objectives=("accuracy", "balanced"),
        train=pl.read_parquet(files["train"]),
        groups="region",
        n_resamples=200,
        seed=3,
    )
    assert _payload(out) == _same(expected)
    captured = capsys.readouterr()
    assert captured.err == ""  # --quiet
    assert "primary score: ndcg@5 = " in captured.out
    assert f"{expected['primary_score']['value']:.4f}" in captured.out
    verdict = expected["uncertainty"]["baselines"]["global_pop"]["difference"]["hit@5"]["verdict"]
    assert "hit@5" in captured.out
    assert verdict in captured.out


def test_json_is_the_reports_to_json(files: dict[str, Path], tmp_path: Path) -> None:
    """--json writes the bytes RankingReport.to_json writes for the same call."""
    out, mine = tmp_path / "cli.json", tmp_path / "lib.json"
    argv = ["report", str(files["csv"]), "--train", str(files["train"]), "-k", "3",
            "--n-resamples", "50", "--json", str(out), "--quiet"]  # fmt: skip
    assert run(argv) == 0
    report = lp.ranking_report(
        pl.read_csv(files["csv"]), by="user", item="item", y_score="score", y_true="clicked", k=3,
        train=pl.read_parquet(files["train"]), n_resamples=50,
    )  # fmt: skip
    assert report.to_json(mine) == mine
    assert out.read_bytes() == mine.read_bytes()
    assert out.read_text() == json.dumps(report.to_dict(), indent=2, allow_nan=False) + "\n"
    assert lp.RankingReport(_payload(out)) == report


def test_truth_file_equals_truth_column(files: dict[str, Path], tmp_path: Path) -> None:
    """--truth FILE (realised pairs) gives the payload the 0/1 column gives (CSV in)."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    common = ["--n-resamples", "50", "--quiet"]
    assert run(["report", str(files["csv"]), "--json", str(a), *common]) == 0
    assert run(["report", str(files["csv"]), "--truth", str(files["truth"]), "--json", str(b),
                *common]) == 0  # fmt: skip
    pa, pb = _payload(a), _payload(b)
    assert pa["objectives"] == pb["objectives"]
    assert pa["n_lists"] == pb["n_lists"]
    assert pa["uncertainty"] == pb["uncertainty"]


def test_html_page_and_progress(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--html writes the static page; progress lines go to stderr."""
    page = tmp_path / "r.html"
    argv = ["report", str(files["parquet"]), "--train", str(files["train"]),
            "--n-resamples", "50", "--html", str(page)]  # fmt: skip
    assert run(argv) == 0
    text = page.read_text()
    assert text.count("<svg") == 2
    assert 'id="uncertainty"' in text
    assert "Ranking report: scores.parquet" in text
    err = capsys.readouterr().err.splitlines()
    assert any("grading" in line for line in err)
    assert any(f"wrote {page}" in line for line in err)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--y-score", "nope"], "scores has no column 'nope'"),
        (["--popularity-discount", "1.5"], "1.5"),
        (["--truth", "missing.csv"], "truth file 'missing.csv' does not exist"),
        (["--state", "state.pkl"], "must be .json, .parquet or .pq"),
        (["--by", "region"], "more than once; scores must hold one row per (list, item)"),
    ],
)
def test_errors_are_one_line(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    """A bad option or input: exit 2 and one line on stderr, no traceback."""
    assert run(["report", str(files["csv"]), "--quiet", "--n-resamples", "20", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("lodestar-polars report: error: ")
    assert message in err
    assert "Traceback" not in err


def test_a_missing_scores_file_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """The scores file must exist and be .parquet/.csv/.tsv."""
    assert run(["report", "nowhere.parquet", "--quiet"]) == 2
    assert capsys.readouterr().err == (
        "lodestar-polars report: error: scores file 'nowhere.parquet' does not exist\n"
    )


def test_a_saved_state_is_used(files: dict[str, Path], tmp_path: Path) -> None:
    """--state FILE loads a ComparabilityState; the payload records it as given."""
    state = lp.fit_comparability(_log(), by="user", item="item", y_score="score", y_true="clicked")
    state.save(tmp_path / "state.json")
    out = tmp_path / "r.json"
    argv = ["report", str(files["csv"]), "--state", str(tmp_path / "state.json"),
            "--n-resamples", "20", "--json", str(out), "--quiet"]  # fmt: skip
    assert run(argv) == 0
    assert _payload(out)["comparability"] == "given"


def test_the_installed_command(files: dict[str, Path]) -> None:
    """python -m lodestar_polars report ... runs the same code path end to end."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "lodestar_polars",
            "report",
            str(files["csv"]),
            "-q",
            "--n-resamples",
            "20",
            "--objective",
            "coverage",
        ],  # fmt: skip
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "objectives: coverage (alpha 1)" in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "lodestar_polars", "report", str(files["csv"]), "--objective", "x"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert bad.returncode == 2
    assert "invalid choice: 'x'" in bad.stderr


def _bundled() -> str:
    from importlib import resources

    return str(resources.files("lodestar_polars") / "data" / "example_implicit.csv")


def test_the_output_opens_with_the_decision(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The first line is the verdict sentence on the primary metric, in the command's words."""
    argv = ["report", str(files["csv"]), "--train", str(files["train"]), "-k", "3",
            "--n-resamples", "100", "--quiet"]  # fmt: skip
    assert run(argv) == 0
    out = capsys.readouterr().out.splitlines()
    payload = lp.ranking_report(
        _log(), by="user", item="item", y_score="score", y_true="clicked", k=3,
        train=pl.read_parquet(files["train"]), n_resamples=100,
    )  # fmt: skip
    assert out[0] == payload["decision"]["sentence"]
    gap = payload["uncertainty"]["baselines"]["global_pop"]["difference"]["ndcg@3"]
    assert f"[{gap['ci_low']:+.4f}, {gap['ci_high']:+.4f}]" in out[0]
    words = {"model_ahead": "Model ahead", "baseline_ahead": "Baseline ahead"}
    assert out[0].startswith(words.get(gap["verdict"], "Undecided") + ": on ndcg@3 ")
    assert out.index(out[0]) < next(i for i, line in enumerate(out) if "graded lists (" in line)
    # without --train: no verdict, and the sentence names the option that gives one
    assert run(["report", str(files["csv"]), "--n-resamples", "20", "--quiet"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("No verdict: the model's ndcg@10 (accuracy ordering) is ")
    assert first.endswith("; pass --train FILE for the popularity floor.")


def test_the_bundled_example_says_hit_at_10_is_1_by_construction(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Default k=10 on 10-candidate lists: a note, and no [1, 1] interval printed."""
    assert run(["report", _bundled(), "--n-resamples", "50", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "note: Every graded list has at most 10 candidates" in out
    assert "hit@10 is 1 by construction" in out
    assert "[1.0000, 1.0000]" not in out
    assert "  hit@10     1.0000  by construction, no interval" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "scores file '{path}' is empty"),
        ("user,item,score,clicked\n", "scores file '{path}' has no rows (its columns: "
         "['user', 'item', 'score', 'clicked'])"),
        # Polars 2.1 fails while grading; 2.0 already while reading the schema: either names it
        ('user,item,score,clicked\nu1,a,0.5,1\nu1,b,"x\n',
         "while reading {path}: |{path}: not a CSV file lodestar-polars can read: "),
    ],
    ids=["empty", "header-only", "unterminated-quote"],
)  # fmt: skip
def test_an_empty_or_broken_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    """Polars says "empty CSV"; the command says which file."""
    path = tmp_path / "scores.csv"
    path.write_text(content)
    assert run(["report", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    prefixes = ["lodestar-polars report: error: " + m.format(path=path) for m in message.split("|")]
    assert any(err.startswith(prefix) for prefix in prefixes), err
    assert err.count("\n") == 1


def test_signed_scores_get_the_commands_own_advice(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Logits: refused up front naming --objective accuracy and --percentile, which both work."""
    path = tmp_path / "logits.csv"
    _log().with_columns(pl.col("score") * 4 - 2).write_csv(path)
    assert run(["report", str(path), "--quiet", "--n-resamples", "20"]) == 2
    err = capsys.readouterr().err
    assert "pass --objective accuracy (alpha 0: the scores as they are), or --percentile" in err
    for extra in (["--objective", "accuracy"], ["--percentile"]):
        assert run(["report", str(path), "--quiet", "--n-resamples", "20", *extra]) == 0
    capsys.readouterr()


def test_an_output_in_a_missing_folder_is_refused_before_any_work(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """--html into a folder that does not exist: one line, before grading."""
    argv = ["report", str(files["csv"]), "--html", "/nonexistent-folder/r.html"]
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert err == (
        "lodestar-polars report: error: --html '/nonexistent-folder/r.html': no such directory "
        "'/nonexistent-folder'\n"
    )


def test_the_page_from_the_command_speaks_its_options(
    files: dict[str, Path], tmp_path: Path
) -> None:
    """Without --train the page's decision names --train FILE, as the printed one does."""
    page = tmp_path / "r.html"
    assert run(["report", str(files["csv"]), "--n-resamples", "20", "--html", str(page), "-q"]) == 0
    text = page.read_text()
    assert text.index('id="decision"') < text.index('id="protocol"')
    assert "pass --train FILE for the popularity floor." in text


def test_the_documented_flags_are_y_score_and_y_true(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--y-score / --y-true name the columns; the payload is lp.ranking_report's for them."""
    renamed = tmp_path / "renamed.parquet"
    _log().rename({"score": "s", "clicked": "hit"}).write_parquet(renamed)
    out = tmp_path / "r.json"
    argv = ["report", str(renamed), "--y-score", "s", "--y-true", "hit", "-k", "3",
            "--n-resamples", "50", "--json", str(out), "--quiet"]  # fmt: skip
    assert run(argv) == 0
    assert capsys.readouterr().err == ""
    expected = lp.ranking_report(
        pl.read_parquet(renamed), by="user", item="item", y_true="hit", y_score="s", k=3,
        n_resamples=50,
    )  # fmt: skip
    assert _payload(out) == _same(expected)
    with pytest.raises(SystemExit):
        run(["report", "--help"])
    help_text = capsys.readouterr().out
    assert "--y-score COL" in help_text
    assert "--y-true COL" in help_text
    assert "--score" not in help_text
    assert "--truth-column" not in help_text


def test_the_old_flags_still_work_and_say_so(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--score, --truth-column: the same payload, and a stderr line each naming the new flag."""
    renamed = tmp_path / "renamed.parquet"
    _log().rename({"score": "s", "clicked": "hit"}).write_parquet(renamed)
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    common = ["-k", "3", "--n-resamples", "50", "--quiet"]
    assert run(["report", str(renamed), "--y-score", "s", "--y-true", "hit", *common,
                "--json", str(new)]) == 0  # fmt: skip
    capsys.readouterr()
    assert run(["report", str(renamed), "--score", "s", "--truth-column", "hit", *common,
                "--json", str(old)]) == 0  # fmt: skip
    assert old.read_bytes() == new.read_bytes()
    assert capsys.readouterr().err.splitlines() == [
        "lodestar-polars report: warning: --score is renamed --y-score (lodestar_polars 0.2.0); "
        "--score will be removed in 0.3.0",
        "lodestar-polars report: warning: --truth-column is renamed --y-true (lodestar_polars "
        "0.2.0); --truth-column will be removed in 0.3.0",
    ]
