"""The ``evaluate`` command's beyond-accuracy inputs (run in-process through ``cli.run``).

``--popularity``, ``--feature``, ``--popularity-rank`` and ``--n-items`` are ``lp.evaluate``'s
input roles: the per-query values equal ``lp.evaluate``'s on the same frame (1e-12), and a
metric without its input is refused with ``lp.evaluate``'s sentence naming the flag to pass.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._evaluate.inputs import WHAT
from lodestar_polars.cli import INPUT_FLAGS, run

TOL = 1e-12


def _load_shared() -> Any:
    """``tests/_beyond.py``, by path (``--import-mode=importlib`` puts no test dir on sys.path)."""
    name = "_lodestar_tests_beyond"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("_beyond.py"))
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# user, score, hit, p, genre, rank, v (an embedding of 3 floats)
SERVED: pl.DataFrame = _load_shared()._random_lists(3, "shuffled")
OPTIONS = ["--by", "user", "--y-true", "hit", "--y-score", "score"]


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    """The one line on stderr, without the ``lodestar-polars: error:`` prefix."""
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1, err
    prefix = "lodestar-polars: error: "
    assert lines[0].startswith(prefix), err
    return lines[0][len(prefix) :]


def _assert_close(got: pl.DataFrame, want: pl.DataFrame) -> None:
    assert got.columns == want.columns
    assert got["user"].to_list() == want["user"].to_list()
    for name in want.columns[1:]:
        g, w = got[name], want[name]
        assert g.is_null().to_list() == w.is_null().to_list(), name
        assert ((g - w).abs().max() or 0.0) <= TOL, name  # type: ignore[operator]


def test_every_input_role_has_its_flag() -> None:
    assert set(INPUT_FLAGS) == set(WHAT)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_the_four_metrics_equal_lp_evaluate(tmp_path: Path, suffix: str) -> None:
    """A category feature, from a CSV and a Parquet file; the values of lp.evaluate."""
    log = SERVED.drop("v")
    src = tmp_path / f"served{suffix}"
    if suffix == ".csv":
        log.write_csv(src)
    else:
        log.write_parquet(src)
    dest = tmp_path / "per_user.parquet"
    names = ["novelty@5", "arp@3", "ild@5", "serendipity@5", "ndcg@5"]
    flags = ["--popularity", "p", "--feature", "genre", "--popularity-rank", "rank"]
    metrics = [arg for name in names for arg in ("-m", name)]
    argv = [str(src), *OPTIONS, *metrics, *flags, "--n-items", "40", "--no-strict"]
    assert run([*argv, "--per-query", str(dest)]) == 0
    want = lp.evaluate(
        log,
        names,
        by="user",
        y_true="hit",
        y_score="score",
        popularity="p",
        feature="genre",
        popularity_rank="rank",
        n_items=40,
        strict=False,
    )
    assert want.null_count().sum_horizontal().item() > 0  # one-row lists: ndcg refuses them
    _assert_close(pl.read_parquet(dest), want)


def test_an_embedding_from_parquet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A list column of floats (the name gives its length) and an array column (it has one)."""
    src = tmp_path / "served.parquet"
    SERVED.write_parquet(src)
    dest = tmp_path / "per_user.parquet"
    argv = [str(src), *OPTIONS, "-m", "ild(dim=3)@4", "--feature", "v"]
    assert run([*argv, "--per-query", str(dest)]) == 0
    want = lp.evaluate(
        SERVED, ["ild(dim=3)@4"], by="user", y_true="hit", y_score="score", feature="v"
    )
    _assert_close(pl.read_parquet(dest), want)
    as_array = tmp_path / "array.parquet"
    SERVED.with_columns(pl.col("v").list.to_array(3)).write_parquet(as_array)
    argv = [str(as_array), *OPTIONS, "-m", "ild@4", "--feature", "v", "--per-query", str(dest)]
    assert run(argv) == 0
    _assert_close(pl.read_parquet(dest), want.rename({"ild(dim=3)@4": "ild@4"}))
    capsys.readouterr()
    assert run([str(src), *OPTIONS, "-m", "ild@4", "--feature", "v"]) == 2
    assert _error(capsys) == (
        "metric 'ild@4': `feature` column 'v' holds lists (embeddings): write their length in "
        "the name, as 'ild(dim=4)@10', or cast the column to an Array"
    )


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (
            ["-m", "novelty@10"],
            "metric 'novelty@10': novelty reads `popularity` (each served item's training "
            "popularity, a column): pass --popularity COL",
        ),
        (
            ["-m", "ndcg@5", "-m", "arp@10"],
            "metric 'arp@10': average_recommended_popularity reads `popularity` (each served "
            "item's training popularity, a column): pass --popularity COL",
        ),
        (
            ["-m", "ild@10"],
            "metric 'ild@10': intra_list_diversity reads `feature` (each served item's category "
            "or embedding, a column): pass --feature COL",
        ),
        (
            ["-m", "serendipity@10", "--n-items", "40"],
            "metric 'serendipity@10': serendipity reads `popularity_rank` (each served item's "
            "popularity rank in training, a column): pass --popularity-rank COL",
        ),
        (
            ["-m", "serendipity@10", "--popularity-rank", "rank"],
            "metric 'serendipity@10': serendipity reads `n_items` (the catalogue's size, a "
            "number): pass --n-items N",
        ),
        (
            ["-m", "ndcg@10", "--popularity", "p"],
            "--popularity is read by ['novelty', 'average_recommended_popularity'] only, and no "
            "metric asked for is one of them",
        ),
        (
            ["-m", "ndcg@10", "--n-items", "40"],
            "--n-items is read by ['serendipity'] only, and no metric asked for is one of them",
        ),
        (
            ["-m", "ndcg@10", "--feature", "genre", "--popularity-rank", "rank"],
            "--feature is read by ['intra_list_diversity'] only, and no metric asked for is one "
            "of them",
        ),
        (
            ["-m", "serendipity", "--popularity-rank", "rank", "--n-items", "0"],
            "--n-items must be an int >= 1, got 0",
        ),
        (
            ["-m", "novelty", "--popularity", "pop"],
            "`popularity` column 'pop' is not in the frame (columns: ['user', 'score', 'hit', "
            "'p', 'genre', 'rank'])",
        ),
        (
            ["-m", "novelty", "--popularity", "genre"],
            "`popularity` column 'genre' must be numeric, found dtype String",
        ),
    ],
    ids=[
        "novelty",
        "arp",
        "ild",
        "serendipity-rank",
        "serendipity-n-items",
        "unread-popularity",
        "unread-n-items",
        "unread-feature",
        "n-items-below-1",
        "missing-column",
        "not-numeric",
    ],
)
def test_refusals_name_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], sentence: str
) -> None:
    src = tmp_path / "served.csv"
    SERVED.drop("v").write_csv(src)
    assert run([str(src), *OPTIONS, *args]) == 2
    assert _error(capsys) == sentence


@pytest.mark.parametrize(
    "args",
    [
        ["-m", "novelty@10"],
        ["-m", "serendipity@10", "--popularity-rank", "rank"],
        ["-m", "ndcg@10", "--popularity", "p"],
        ["-m", "serendipity", "--popularity-rank", "rank", "--n-items", "0"],
    ],
)
def test_the_refusals_page_quotes_the_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "refusals.md").read_text()
    src = tmp_path / "served.csv"
    SERVED.drop("v").write_csv(src)
    assert run([str(src), *OPTIONS, *args]) == 2
    sentence = _error(capsys)
    assert sentence in page, f"docs/refusals.md does not quote: {sentence}"


def test_a_refused_list_names_the_group(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "served.csv"
    SERVED.drop("v").with_columns(
        p=pl.when(pl.col("user") == 4).then(0.0).otherwise(pl.col("p"))
    ).write_csv(src)
    assert run([str(src), *OPTIONS, "-m", "novelty@5", "--popularity", "p"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lodestar-polars: error: metric 'novelty@5' refused 1 group(s):\n")
    assert (
        "user=4: novelty needs a popularity in (0, 1] (a share of users). Got 0.0 instead." in err
    )
    assert err.rstrip().endswith("(pass --no-strict to get null for these groups instead)")


def test_help_lists_the_input_flags(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        run(["evaluate", "--help"])
    out = capsys.readouterr().out
    assert "beyond-accuracy inputs" in out
    for flag in INPUT_FLAGS.values():
        assert flag in out, flag
