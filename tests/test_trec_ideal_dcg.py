"""The ideal DCG on every pattern of gains: none positive, all equal, one row, empty segments.

``ideal_dcg_segments`` counts the rows of each gain value (every value but the
smallest, whose rows fill the positions left) when there are few values, and
sorts otherwise; both paths are checked against a plain per-group loop here,
and the trec path end to end against pytrec_eval and the CLI.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._core.dcg import _FEW_GAINS, ideal_dcg_segments, ndcg_segments
from lodestar_polars.cli import run as cli_run


# --------------------------------------------------------------------------- reference
def _discount(position: int, k: int | None) -> float:
    return 0.0 if k is not None and position >= k else 1.0 / math.log2(position + 2)


def _ideal(gains: list[float], k: int | None) -> float:
    ordered = sorted(gains, reverse=True)
    return sum(g * _discount(i, k) for i, g in enumerate(ordered))


def _dcg(gains: list[float], scores: list[float], k: int | None) -> float:
    """Tie-averaged DCG: each tie group's mean gain times the discounts it occupies."""
    total, above = 0.0, 0
    for s in sorted(set(scores), reverse=True):
        members = [g for g, t in zip(gains, scores, strict=True) if t == s]
        through = above + len(members)
        discounts = sum(_discount(i, k) for i in range(above, through))
        total += sum(members) / len(members) * discounts
        above = through
    return total


def _ndcg(gains: list[float], scores: list[float], k: int | None) -> float:
    best = _ideal(gains, k)
    return 0.0 if best == 0 else _dcg(gains, scores, k) / best


def _split(flat: np.ndarray, length: np.ndarray) -> list[list[float]]:
    ends = np.cumsum(length)
    return [flat[e - n : e].tolist() for e, n in zip(ends, length, strict=True)]


def _close(got: np.ndarray, want: list[float]) -> None:
    assert got.shape == (len(want),)
    for g, w in zip(got.tolist(), want, strict=True):
        assert abs(g - w) <= 1e-12 * max(1.0, abs(w)), (got, want)


# --------------------------------------------------------------------------- patterns
# segments (as lists of gains), each pattern in the first, middle and last place
PATTERNS: dict[str, list[list[float]]] = {
    "no positive gain": [[0.0, 0.0], [0.0]],
    "all zero with negatives": [[0.0, -1.0, 0.0], [-2.0]],
    "all equal positive": [[2.0, 2.0, 2.0], [2.0]],
    "single rows": [[3.0], [0.0], [1.0]],
    "empty segments": [[], [1.0, 0.0], [], [], [2.0], []],
    "only empty": [[], []],
    "mixed": [[3.0, 0.0, 1.0, 3.0], [0.0, 0.0], [], [1.0], [2.0, 2.0, 0.5], [5.0]],
    "smallest value missing from a segment": [[0.0, 0.0, 1.0], [2.0, 1.0], [2.0]],
    "a positive smallest value": [[1.0, 1.0, 2.0], [2.0], [1.0, 3.0]],
}


def _layouts(segments: list[list[float]]) -> list[list[list[float]]]:
    """The segments as given, and with a plain segment before and after them."""
    return [segments, [[1.0, 2.0], *segments], [*segments, [1.0, 0.0, 4.0]]]


@pytest.mark.parametrize("name", list(PATTERNS))
@pytest.mark.parametrize("k", [None, 1, 2, 5])
@pytest.mark.parametrize("path", ["count", "sort"])
def test_ideal_dcg_segments_on_every_gain_pattern(name: str, k: int | None, path: str) -> None:
    for segments in _layouts(PATTERNS[name]):
        if path == "sort":
            # more distinct gains than the counting path takes: the sorting path
            segments = [*segments, [float(v) + 0.5 for v in range(40)]]
        length = np.array([len(s) for s in segments], dtype=np.int64)
        flat = np.array([g for s in segments for g in s], dtype=np.float64)
        assert (np.unique(flat).size > _FEW_GAINS) == (path == "sort")  # the path under test
        got = ideal_dcg_segments(flat, length, k=k)
        _close(got, [_ideal(s, k) for s in segments])


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("k", [None, 1, 3])
def test_ndcg_segments_random_patterns(seed: int, k: int | None) -> None:
    rng = np.random.default_rng(seed)
    n_segments = int(rng.integers(1, 12))
    length = rng.integers(1, 7, size=n_segments)  # ndcg_segments ranks rows: no empty segment
    n = int(length.sum())
    choices = [
        np.zeros(n),
        np.full(n, 2.0),
        rng.integers(0, 3, size=n).astype(np.float64),
        rng.integers(0, 50, size=n).astype(np.float64) / 7.0,  # many distinct values
    ]
    gain = choices[seed % len(choices)]
    score = rng.integers(0, 3, size=n).astype(np.float64)  # heavy ties
    got = ndcg_segments(gain, score, length, k=k, ignore_ties=False)
    gains, scores = _split(gain, length), _split(score, length)
    _close(got, [_ndcg(g, s, k) for g, s in zip(gains, scores, strict=True)])
    # the ideal of each segment's gains, given from elsewhere, is the same number
    given = ideal_dcg_segments(gain, length, k=k)
    _close(ndcg_segments(gain, score, length, k=k, ignore_ties=False, ideal=given), got.tolist())


# --------------------------------------------------------------------------- trec, end to end
QRELS = "q0 0 d1 0\nq0 0 d2 1\nq1 0 d1 -1\n"
RUN = "q0 Q0 d1 1 0.0 r\nq1 Q0 d1 1 0.0 r\n"


def test_cli_ndcg_on_a_query_judged_only_negative(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    assert cli_run(["trec", str(qrels), str(run), "-m", "ndcg", "-q"]) == 0
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    # q0: d1 (gain 0) is retrieved, d2 (gain 1) is not: DCG 0. q1: judged -1 only,
    # nothing relevant: trec_eval reports 0
    assert lines == [["ndcg", "q0", "0.0000"], ["ndcg", "q1", "0.0000"], ["ndcg", "all", "0.0000"]]


def _pytrec(
    run: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]], measures: set[str]
) -> dict[tuple[str, str], float]:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    out = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    return {(q, m): v for q, values in out.items() for m, v in values.items()}


def _frames(
    run: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    r = pl.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        schema={"qid": pl.String, "docno": pl.String, "score": pl.Float64},
        orient="row",
    )
    j = pl.DataFrame(
        [(q, d, v) for q, docs in qrels.items() for d, v in docs.items()],
        schema={"qid": pl.String, "docno": pl.String, "rel": pl.Int64},
        orient="row",
    )
    return r, j


@pytest.mark.parametrize("seed", range(8))
def test_trec_evaluate_matches_pytrec_eval_with_queries_judged_only_non_positive(
    seed: int,
) -> None:
    """Queries judged only -1 (no judged row for the ideal), only 0, or all one grade."""
    rng = np.random.default_rng(seed)
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    kinds = [[-1], [0], [0, -1], [2], [0, 1, 2, 3], [-1, 0, 1]]
    for q in range(18):
        qid = f"q{q:02d}"
        levels = kinds[int(rng.integers(0, len(kinds)))]
        pool = [f"d{i}" for i in range(int(rng.integers(1, 9)))]
        judged = rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)
        qrels[qid] = {str(d): int(rng.choice(levels)) for d in judged}
        retrieved = rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)
        run[qid] = {str(d): float(rng.integers(0, 3)) for d in retrieved}
    measures = {"ndcg", "ndcg_cut_1", "ndcg_cut_3", "map"}
    theirs = _pytrec(run, qrels, measures)
    r, j = _frames(run, qrels)
    result = lp.trec.evaluate(j, r, ["ndcg", "ndcg_cut.1,3", "map"], per_query=True)
    ours = {(q, m): v for q, m, v in result.filter(pl.col("qid") != "all").iter_rows()}
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        assert abs(ours[key] - value) <= 1e-12 * max(1.0, abs(value)), key
