"""The progress display: a terminal line, a notebook output, or nothing."""

from __future__ import annotations

import io
import sys
import types
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._base.progress import ProgressBar
from lodestar_polars._evaluate.evaluate import Progress
from lodestar_polars.cli import run


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self, *ticks: float) -> None:
        self.ticks = list(ticks)

    def __call__(self) -> float:
        return self.ticks.pop(0)


def frames(out: io.StringIO) -> list[str]:
    return out.getvalue().split("\r")[1:]


def test_terminal_line_rate_and_time_left_by_hand() -> None:
    out = Terminal()
    # start at 10 s; updates at 14 s and 20 s
    bar = ProgressBar(stream=out, clock=Clock(10.0, 14.0, 20.0))
    bar.update(2, 10, 2_000)  # 2,000 rows in 4 s = 500/s; 4 s for 2 parts, 8 left: 16 s
    bar.update(10, 10, 12_000)  # 12,000 rows in 10 s = 1,200/s
    bar.close()
    first, last = frames(out)
    assert first == "2,000 rows  500 rows/s  part 2/10  ~16 s left "
    assert last.rstrip(" \n") == "12,000 rows  1,200 rows/s  part 10/10  done"
    assert len(last.rstrip("\n")) >= len(first)  # the older, longer line is blanked out
    assert out.getvalue().endswith("\n")
    assert out.getvalue().count("\n") == 1


def test_minutes_left_and_unknown_total() -> None:
    out = Terminal()
    bar = ProgressBar("resamples", stream=out, clock=Clock(0.0, 30.0, 60.0))
    bar.update(1, 10, 300)  # 30 s a part, 9 left: 270 s = 4 min 30 s
    bar.update(5, None, 900)  # no total: no time left
    assert frames(out)[0] == "300 resamples  10 resamples/s  part 1/10  ~4 min 30 s left "
    assert frames(out)[1].rstrip() == "900 resamples  15 resamples/s"


def test_throttled_to_five_a_second_but_final_drawn() -> None:
    out = Terminal()
    bar = ProgressBar(stream=out, clock=Clock(0.0, 0.1, 0.15, 0.2, 0.35, 0.4, 0.41))
    for done in range(1, 7):
        bar.update(done, 6, done * 10)
    bar.close()
    # drawn: part 1 at 0.1 (first), part 4 at 0.35 (0.25 after), part 6 at 0.41 (final);
    # skipped: 0.15, 0.2, 0.4 (under 0.2 s after a redraw)
    drawn = [f.split(" rows")[0] for f in frames(out)]
    assert drawn == ["10", "40", "60"]


def test_nothing_written_when_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    out = io.StringIO()
    bar = ProgressBar(stream=out)
    bar.update(1, 2, 10)
    bar.update(2, 2, 20)
    bar.close()
    assert not bar.active
    assert out.getvalue() == ""
    assert "IPython" not in sys.modules  # never imported by us


def test_called_with_a_progress() -> None:
    out = Terminal()
    bar = ProgressBar(stream=out, clock=Clock(0.0, 1.0))
    bar(Progress(parts_done=1, parts_total=1, rows_done=7, groups_in_part=2))
    # the final update closes the line by itself
    assert frames(out) == ["7 rows  7 rows/s  done \n"]


def test_notebook_output_updated_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[tuple[str, object]] = []

    class Handle:
        def update(self, obj: object) -> None:
            shown.append(("update", repr(obj)))

    def display(obj: object, *, display_id: bool = False) -> Handle:
        assert display_id is True
        shown.append(("display", repr(obj)))  # shown by its repr: no quotes
        return Handle()

    class Shell:
        config: dict[str, object] = {"IPKernelApp": {}}

    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: Shell()  # type: ignore[attr-defined]
    ipython_display = types.ModuleType("IPython.display")
    ipython_display.display = display  # type: ignore[attr-defined]
    ipython.display = ipython_display  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", ipython_display)
    out = io.StringIO()
    bar = ProgressBar(stream=out, clock=Clock(0.0, 1.0, 2.0))
    bar.update(1, 2, 100)
    bar.update(2, 2, 300)
    bar.close()
    assert bar.mode == "notebook"
    assert out.getvalue() == ""
    assert shown == [
        ("display", "100 rows  100 rows/s  part 1/2  ~1 s left "),
        ("update", "300 rows  150 rows/s  part 2/2  done "),
    ]


def test_ipython_without_a_kernel_shows_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: None  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    assert not ProgressBar(stream=io.StringIO()).active


def test_evaluate_progress_true_draws_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    log = pl.DataFrame(
        {
            "query": [1, 1, 1, 2, 2, 3, 3, 3, 4, 4],
            "rel": [1, 0, 2, 0, 1, 1, 1, 0, 2, 0],
            "score": [0.9, 0.1, 0.5, 0.3, 0.3, 0.2, 0.8, 0.4, 0.6, 0.7],
        }
    )
    kwargs: dict[str, Any] = {"by": "query", "y_true": "rel", "y_score": "score"}
    expected = lp.evaluate(log, ["ndcg@2", "rr"], **kwargs)
    out = Terminal()
    monkeypatch.setattr(sys, "stderr", out)
    lazy = lp.evaluate(log.lazy(), ["ndcg@2", "rr"], batch_rows=4, progress=True, **kwargs)
    got = lazy.collect()
    assert got.equals(expected)
    text = out.getvalue()
    assert text.startswith("\r")
    assert text.endswith("\n")
    final = text.rstrip(" \n").rsplit("\r", 1)[1]
    assert final.startswith(f"{log.height} rows")
    assert final.endswith("done")


def test_evaluate_progress_true_silent_off_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    log = pl.DataFrame({"query": [1, 1, 2, 2], "rel": [1, 0, 0, 1], "score": [0.2, 0.1, 0.4, 0.3]})
    out = io.StringIO()
    monkeypatch.setattr(sys, "stderr", out)
    got = lp.evaluate(
        log.lazy(), "rr", by="query", y_true="rel", y_score="score", batch_rows=2, progress=True
    ).collect()
    assert got["rr"].to_list() == [1.0, 0.5]  # hand: query 1 relevant first, query 2 second
    assert out.getvalue() == ""


@pytest.mark.parametrize("bad", [3, "yes"])
def test_evaluate_progress_refuses_other_values(bad: Any) -> None:
    log = pl.DataFrame({"query": [1], "rel": [1], "score": [0.2]})
    with pytest.raises(lp.InvalidParameterError, match="'progress' parameter of evaluate"):
        lp.evaluate(log.lazy(), "rr", by="query", y_true="rel", y_score="score", progress=bad)


def _report_log(n_lists: int = 120, n_items: int = 9) -> pl.DataFrame:
    lists = [q for q in range(n_lists) for _ in range(n_items)]
    items = [i for _ in range(n_lists) for i in range(n_items)]
    return pl.DataFrame(
        {
            "list": lists,
            "item": items,
            "score": [(q * 7 + i * 3) % 5 / 4 for q, i in zip(lists, items, strict=True)],
            "clicked": [i == q % n_items for q, i in zip(lists, items, strict=True)],
        }
    )


REPORT: dict[str, Any] = {
    "by": "list",
    "item": "item",
    "y_true": "clicked",
    "y_score": "score",
    "k": 3,
    "n_resamples": 30,
}


@pytest.mark.parametrize("layout", ["grouped", "shuffled"])
def test_ranking_report_progress_per_part(layout: Any) -> None:
    frame = _report_log()
    seen: list[lp.Progress] = []
    quiet = lp.ranking_report(frame.lazy(), batch_rows=300, layout=layout, **REPORT)
    got = lp.ranking_report(
        frame.lazy(), batch_rows=300, layout=layout, progress=seen.append, **REPORT
    )
    assert dict(got) == dict(quiet)
    # 1,080 rows in parts of about 300: several parts, then the merge and the bootstrap
    assert len(seen) >= 3
    assert [p.parts_done for p in seen] == list(range(1, len(seen) + 1))
    assert seen[-1].parts_total == seen[-1].parts_done
    assert seen[-1].rows_done == frame.height
    assert seen[-2].rows_done == frame.height  # the last part read every row
    assert seen[-1].groups_in_part == 0
    assert sum(p.groups_in_part for p in seen) == got["n_lists"] == 120


def test_ranking_report_progress_in_memory_steps() -> None:
    frame = _report_log()
    seen: list[lp.Progress] = []
    train = pl.DataFrame({"item": [0, 0, 1, 2, 2, 2]})
    kw = {**REPORT, "objectives": ("accuracy", "coverage"), "train": train}
    got = lp.ranking_report(frame, progress=seen.append, **kw)
    assert dict(got) == dict(lp.ranking_report(frame, **kw))
    # the grading, 2 objectives' blocks, the popularity floor (from train), the bootstrap: 5
    assert [(p.parts_done, p.parts_total) for p in seen] == [(i, 5) for i in range(1, 6)]
    assert {p.rows_done for p in seen} == {frame.height}
    assert [p.groups_in_part for p in seen] == [120, 0, 0, 0, 0]


def test_ranking_report_progress_true_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _report_log()
    out = Terminal()
    monkeypatch.setattr(sys, "stderr", out)
    got = lp.ranking_report(frame.lazy(), batch_rows=300, progress=True, **REPORT)
    assert dict(got) == dict(lp.ranking_report(frame.lazy(), batch_rows=300, **REPORT))
    text = out.getvalue()
    assert text.startswith("\r")
    assert text.count("\n") == 1
    assert text.endswith("\n")
    assert text.rstrip(" \n").endswith("done")
    assert f"{frame.height:,} rows" in text.rsplit("\r", 1)[1]


def test_ranking_report_progress_true_silent_off_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    out = io.StringIO()
    monkeypatch.setattr(sys, "stderr", out)
    lp.ranking_report(_report_log(), progress=True, **REPORT)
    assert out.getvalue() == ""


def test_ranking_report_refuses_a_bad_progress() -> None:
    with pytest.raises(lp.InvalidParameterError, match="'progress' parameter of ranking_report"):
        lp.ranking_report(_report_log(), progress=3, **REPORT)  # type: ignore[arg-type]


@pytest.fixture
def scores_file(tmp_path: Path) -> Path:
    path = tmp_path / "scores.parquet"
    _report_log().rename({"list": "user", "score": "s"}).write_parquet(path)
    return path


CLI = ["--item", "item", "--y-true", "clicked", "--y-score", "s", "-k", "3", "--n-resamples", "30"]


@pytest.mark.parametrize("part_rows", [300, 5_000_000])  # the parts path, the whole path
def test_report_cli_draws_rows_graded_on_a_terminal(
    scores_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, part_rows: int
) -> None:
    monkeypatch.setattr("lodestar_polars._report.ranking_report.report.DEFAULT_PART_ROWS", part_rows)
    quiet, shown = tmp_path / "quiet.json", tmp_path / "shown.json"
    silenced = Terminal()
    monkeypatch.setattr(sys, "stderr", silenced)
    assert run(["report", str(scores_file), *CLI, "--json", str(quiet), "-q"]) == 0
    assert silenced.getvalue() == ""  # -q silences the line too
    out = Terminal()
    monkeypatch.setattr(sys, "stderr", out)
    assert run(["report", str(scores_file), *CLI, "--json", str(shown)]) == 0
    assert shown.read_text() == quiet.read_text()
    lines = out.getvalue().split("\n")
    drawn = [line for line in lines if line.startswith("\r")]
    assert len(drawn) == 1  # one rewritten line, ended before the next stage line
    final = drawn[0].rstrip().rsplit("\r", 1)[1]
    assert final.startswith("1,080 rows")  # 120 lists of 9 candidates
    assert final.endswith("done")
    index = lines.index(drawn[0])
    assert "grading" in lines[index - 1]
    assert "graded 120 lists" in lines[index + 1]


def test_report_cli_no_line_off_a_terminal(
    scores_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["report", str(scores_file), *CLI]) == 0
    err = capsys.readouterr().err
    assert "grading" in err  # the stage lines stay
    assert "\r" not in err


def _runs(n: int = 30) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "run": ["a"] * n + ["b"] * n,
            "query": list(range(n)) * 2,
            "ndcg@10": [(q * 37 % 11) / 11 for q in range(n)]
            + [(q * 53 % 13) / 13 for q in range(n)],
        }
    )


@pytest.mark.parametrize("test", ["bootstrap", "fisher"])  # 30 queries: Fisher's Monte Carlo
def test_compare_progress_per_block(monkeypatch: pytest.MonkeyPatch, test: Any) -> None:
    monkeypatch.setattr(
        "lodestar_polars._compare.compare._BLOCK", 30 * 100
    )  # 100 resamples a block
    seen: list[lp.Progress] = []
    kw: dict[str, Any] = {"baseline": "a", "test": test, "n_resamples": 450}
    quiet = lp.compare(_runs(), **kw)
    got = lp.compare(_runs(), progress=seen.append, **kw)
    assert got.table.equals(quiet.table)
    # 450 resamples in blocks of 100: 100, 200, 300, 400, 450
    assert [(p.parts_done, p.parts_total) for p in seen] == [(i, 5) for i in range(1, 6)]
    assert [p.rows_done for p in seen] == [100, 200, 300, 400, 450]


def test_compare_progress_true_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    out = Terminal()
    monkeypatch.setattr(sys, "stderr", out)
    kw: dict[str, Any] = {"baseline": "a", "test": "bootstrap", "n_resamples": 400}
    got = lp.compare(_runs(), progress=True, **kw)
    assert got.table.equals(lp.compare(_runs(), **kw).table)
    final = out.getvalue().rstrip(" \n").rsplit("\r", 1)[1]
    assert final.startswith("400 resamples")
    assert final.endswith("done")
    assert out.getvalue().count("\n") == 1


def test_compare_student_draws_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[lp.Progress] = []
    lp.compare(_runs(), baseline="a", progress=seen.append)
    lp.compare(_runs(10), baseline="a", test="fisher", progress=seen.append)  # exact
    assert seen == []
    out = Terminal()
    monkeypatch.setattr(sys, "stderr", out)
    lp.compare(_runs(), baseline="a", progress=True)
    assert out.getvalue() == ""


def test_compare_refuses_a_bad_progress() -> None:
    with pytest.raises(lp.InvalidParameterError, match="'progress' parameter of compare"):
        lp.compare(_runs(), baseline="a", progress="yes")  # type: ignore[arg-type]
