"""Release gates on the command line (issue 21): exit status 1 and one sentence per failed rule.

``lodestar-polars trec ... [--compare] --fail-if-worse M --fail-below M=V --fail-above M=V``
and the same flags on ``lodestar-polars report``. The numbers the sentences quote are checked
against the library (``lp.compare``, ``lp.trec.evaluate``, ``lp.ranking_report``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars.cli import run

N_QUERIES = 30


def _trec(tmp_path: Path) -> dict[str, Path]:
    """qrels of 30 queries, a good run (relevant documents first) and a bad one (last)."""
    rng = np.random.default_rng(0)
    qrels, good, bad = [], [], []
    for q in range(N_QUERIES):
        relevant = set(rng.choice(20, 4, replace=False).tolist())
        for d in range(20):
            qrels.append(f"q{q} 0 d{d} {int(d in relevant)}")
        order = sorted(range(20), key=lambda d: (d not in relevant, rng.random()))
        for rank, d in enumerate(order):
            good.append(f"q{q} Q0 d{d} {rank + 1} {20 - rank} good")
        for rank, d in enumerate(order[::-1]):
            bad.append(f"q{q} Q0 d{d} {rank + 1} {20 - rank} bad")
    out = {"qrels": tmp_path / "qrels", "good": tmp_path / "good.run", "bad": tmp_path / "bad.run"}
    for name, lines in (("qrels", qrels), ("good", good), ("bad", bad)):
        out[name].write_text("\n".join(lines) + "\n")
    return out


@pytest.fixture
def trec(tmp_path: Path) -> dict[str, Path]:
    return _trec(tmp_path)


def _call(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = run(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def test_worse_run_fails_the_gate_with_the_numbers(
    trec: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Baseline good, candidate bad: --fail-if-worse map exits 1 and says by how much."""
    argv = ["trec", str(trec["qrels"]), str(trec["good"]), str(trec["bad"]), "-m", "map",
            "-m", "P.5", "--compare"]  # fmt: skip
    status, out, err = _call([*argv, "--fail-if-worse", "map"], capsys)
    per_query = {
        name: lp.trec.evaluate(qrels=trec["qrels"], run=trec[key], measures=["map", "P.5"],
                               per_query=True)
        for name, key in (("good.run", "good"), ("bad.run", "bad"))
    }  # fmt: skip
    result = lp.compare(per_query, baseline="good.run")
    assert status == 1
    assert out == result.to_markdown() + "\n"  # the report is printed either way
    mean = {(r, m): v for r, m, v in result.table.select("run", "metric", "mean").iter_rows()}
    row = result.pairs.filter(
        (pl.col("run") == "good.run") & (pl.col("other") == "bad.run") & (pl.col("metric") == "map")
    ).row(0, named=True)
    assert row["better"] is True
    assert err == (
        "lodestar-polars trec: gate failed: --fail-if-worse map: the baseline 'good.run' is "
        f"significantly ahead of 'bad.run' on map: {mean[('bad.run', 'map')]:.4f} against "
        f"{mean[('good.run', 'map')]:.4f} ({-row['difference']:+.4f}; p = "
        f"{row['p_adjusted']:.3g} after holm, student test, alpha 0.05)\n"
    )
    # the other way round the candidate is better: the gate passes, exit 0, said on stderr
    flipped = ["trec", str(trec["qrels"]), str(trec["bad"]), str(trec["good"]), "-m", "map",
               "--compare", "--fail-if-worse", "primary", "--test", "wilcoxon"]  # fmt: skip
    status, _, err = _call(flipped, capsys)
    assert status == 0
    assert err == "lodestar-polars trec: gates passed: --fail-if-worse primary\n"


def test_thresholds_on_the_candidates(
    trec: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """--fail-below on each run but the baseline; every failed rule is a line."""
    argv = ["trec", str(trec["qrels"]), str(trec["good"]), str(trec["bad"]), "-m", "map",
            "-m", "P.5", "--compare", "--fail-below", "P.5=0.5", "--fail-below", "map=0.01",
            "--fail-if-worse", "P.5"]  # fmt: skip
    status, _, err = _call(argv, capsys)
    p5 = lp.trec.evaluate(qrels=trec["qrels"], run=trec["bad"], measures=["P.5"])
    value = p5.filter(pl.col("qid") == "all")["value"][0]
    lines = err.splitlines()
    assert status == 1
    assert lines[0].startswith(
        "lodestar-polars trec: gate failed: --fail-if-worse P.5: the baseline 'good.run' is "
        "significantly ahead of 'bad.run' on P_5: "
    )
    assert lines[1] == (
        f"lodestar-polars trec: gate failed: --fail-below P.5=0.5: run 'bad.run' has P_5 = "
        f"{value:.4f}, {0.5 - value:.4f} below 0.5"
    )
    assert len(lines) == 2  # map = 0.01 holds


def test_threshold_on_a_single_run(
    trec: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --compare a threshold reads the run's 'all' line, in every output format."""
    ap = lp.trec.evaluate(qrels=trec["qrels"], run=trec["good"], measures=["map"])
    value = ap.filter(pl.col("qid") == "all")["value"][0]
    for fmt in ("trec", "csv", "json"):
        argv = ["trec", str(trec["qrels"]), str(trec["good"]), "-m", "map", "--format", fmt]
        status, out, err = _call([*argv, "--fail-below", f"map={value + 0.01}"], capsys)
        assert status == 1
        assert err == (
            f"lodestar-polars trec: gate failed: --fail-below map={value + 0.01:g}: run "
            f"'good.run' has map = {value:.4f}, {0.01:.4f} below {value + 0.01:g}\n"
        )
        assert out  # printed before the verdict
        status, _, err = _call([*argv, "--fail-below", f"map={value - 0.01}"], capsys)
        assert status == 0
        assert err.startswith("lodestar-polars trec: gates passed: --fail-below map=")
    # no rule: exit 0 and nothing on stderr but trec_eval's own lines
    status, _, err = _call(["trec", str(trec["qrels"]), str(trec["good"]), "-m", "map"], capsys)
    assert (status, err) == (0, "")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--fail-if-worse", "map"], "--fail-if-worse map needs --compare: a baseline run to be "
         "worse than"),
        (["--compare", "--fail-below", "P.10=0.3"], "--fail-below P.10=0.3: 'P_10' is not among "
         "the measures given with -m (map); add -m P.10"),
        (["--compare", "--fail-if-worse", "num_ret"], "--fail-if-worse num_ret: 'num_ret' is a "
         "count; counts are not gated or compared"),
        (["--compare", "--fail-above", "map=0.3"], "--fail-above map=0.3: higher 'map' is better, "
         "so this rule would fail on improvement; use --fail-below map=0.3"),
        (["--compare", "--fail-below", "map=x"], "--fail-below 'map=x': expected METRIC=VALUE "
         "with a finite number (e.g. ndcg_cut.10=0.45)"),
        (["--compare", "--fail-below", "map=nan"], "--fail-below 'map=nan': expected "
         "METRIC=VALUE with a finite number (e.g. ndcg_cut.10=0.45)"),
        (["--compare", "--fail-below", "=0.3"], "--fail-below '=0.3': expected METRIC=VALUE with "
         "a finite number (e.g. ndcg_cut.10=0.45)"),
        (["--compare", "--fail-if-worse", "ndcg@x"], "--fail-if-worse ndcg@x: "),
    ],
)  # fmt: skip
def test_rules_that_cannot_be_checked_are_errors(
    trec: dict[str, Path], capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    """A rule that cannot be checked: exit 2, one line, before any run is scored."""
    argv = ["trec", str(trec["qrels"]), str(trec["good"]), str(trec["bad"]), "-m", "map"]
    if "--compare" not in extra:
        argv = argv[:3] + argv[4:]
    status, out, err = _call([*argv, *extra], capsys)
    assert status == 2
    assert out == ""
    assert err.startswith(f"lodestar-polars trec: error: {message}")
    assert err.count("\n") == 1


def test_unknown_direction_is_not_guessed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The registry's direction only: 'worse' on a measure of unknown direction is refused."""
    from lodestar_polars._compare import gates as _gates

    gate = _gates.Gate(_gates.WORSE, "latency")
    with pytest.raises(_gates.GateError, match="not known to the metric registry"):
        _gates.way_of(gate, "latency")
    # thresholds on it are literal: both flags accepted
    assert _gates.way_of(_gates.Gate(_gates.BELOW, "latency", 1.0), "latency") is None
    assert _gates.way_of(_gates.Gate(_gates.ABOVE, "latency", 1.0), "latency") is None
    loss = _gates.Gate(_gates.BELOW, "gini", 0.2)
    with pytest.raises(_gates.GateError, match="use --fail-above gini=0.2"):
        _gates.way_of(loss, "gini")


# ---- the report command -----------------------------------------------------------------


def _report_files(tmp_path: Path, *, against: bool) -> dict[str, Path]:
    """300 users, 25 items; clicks on the 3 popular items.

    The model ranks them last (``against``) or first.
    """
    n_users, n_items = 300, 25
    rng = np.random.default_rng(5)
    item = np.tile(np.arange(n_items), n_users)
    score = item.astype(np.float64) if against else n_items - item.astype(np.float64)
    log = pl.DataFrame(
        {
            "user": np.repeat(np.arange(n_users), n_items),
            "item": item,
            "score": score + rng.random(item.size) * 0.1,
        }
    ).with_columns(clicked=pl.col("item") == pl.col("user") % 3)
    out = {"scores": tmp_path / "scores.csv", "train": tmp_path / "train.csv"}
    log.write_csv(out["scores"])
    pl.DataFrame({"item": rng.integers(0, 3, 2000)}).write_csv(out["train"])
    return out


def test_report_fails_when_the_floor_is_ahead(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _report_files(tmp_path, against=True)
    payload_path = tmp_path / "payload.json"
    argv = ["report", str(files["scores"]), "--train", str(files["train"]), "-q",
            "--json", str(payload_path)]  # fmt: skip
    status, out, err = _call([*argv, "--fail-if-worse", "primary", "--fail-below",
                              "hit@10=0.5", "--fail-above", "gini=0.99"], capsys)  # fmt: skip
    payload = json.loads(payload_path.read_text())
    diff = payload["uncertainty"]["baselines"]["global_pop"]["difference"]["ndcg@10"]
    hit = payload["objectives"][payload["primary_objective"]]["micro"]["hit@10"]
    assert diff["verdict"] == "baseline_ahead"
    assert status == 1
    assert out.startswith("Baseline ahead: ")
    assert err.splitlines() == [
        "lodestar-polars report: gate failed: --fail-if-worse primary: the global_pop floor is "
        f"ahead of the model on ndcg@10: model minus floor {diff['estimate']:+.4f}, 95 % "
        f"interval [{diff['ci_low']:+.4f}, {diff['ci_high']:+.4f}] wholly on the floor's side",
        f"lodestar-polars report: gate failed: --fail-below hit@10=0.5: the model (accuracy) "
        f"has hit@10 = {hit:.4f}, {0.5 - hit:.4f} below 0.5",
    ]


def test_report_passes_when_the_model_is_ahead(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _report_files(tmp_path, against=False)
    argv = ["report", str(files["scores"]), "--train", str(files["train"]), "-q",
            "--fail-if-worse", "ndcg@10", "--fail-if-worse", "hit@1"]  # fmt: skip
    status, _, err = _call(argv, capsys)
    assert status == 0
    assert err == (
        "lodestar-polars report: gates passed: --fail-if-worse ndcg@10, --fail-if-worse hit@1\n"
    )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--fail-if-worse", "primary"], "--fail-if-worse primary needs the popularity floor to "
         "be worse than: pass --train FILE"),
        (["--train", "TRAIN", "--fail-if-worse", "gini"], "--fail-if-worse gini: the report's "
         "intervals (model minus the floor) are on hit@1, hit@5, hit@10, mrr@10, ndcg@10; "
         "'gini' has none"),
        (["--fail-below", "ndcg@5=0.2"], "--fail-below ndcg@5=0.2: the report has no metric "
         "'ndcg@5' at -k 10 (hit@1, hit@5, hit@10, mrr@10, ndcg@10, macro_recall@10, "
         "catalog_coverage, tail_hit@10, entropy, gini)"),
        (["--fail-below", "gini=0.2"], "--fail-below gini=0.2: lower 'gini' is better, so this "
         "rule would fail on improvement; use --fail-above gini=0.2"),
    ],
)  # fmt: skip
def test_report_rules_that_cannot_be_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    files = _report_files(tmp_path, against=True)
    extra = [str(files["train"]) if e == "TRAIN" else e for e in extra]
    status, out, err = _call(["report", str(files["scores"]), "-q", *extra], capsys)
    assert (status, out) == (2, "")
    assert err == f"lodestar-polars report: error: {message}\n"
