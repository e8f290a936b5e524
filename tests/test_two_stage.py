"""lodestar_polars._evaluate.two_stage: a group scored from its chunks' kept rows equals the
whole group.

The Spark path (tests/test_spark.py) runs these two functions on partitions;
here they run on Polars frames split at random, so the rule is tested without
a JVM, on many splits, tie-heavy scores and refused rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._evaluate import two_stage as _two_stage

METRICS = ["ndcg@10", "dcg@5", "ndcg_burges@3", "P@5", "recall@20", "hit_rate@3", "rr@10", "map@10"]


def _split(
    frame: pl.DataFrame, chunks: int, seed: int, *, strict: bool = True, **kwargs: Any
) -> pl.DataFrame:
    """Stage 1 on ``chunks`` random chunks of the frame, then stage 2."""
    chunk = pl.Series(np.random.default_rng(seed).integers(0, chunks, frame.height))
    kept = pl.concat(
        _two_stage.reduce_chunk(frame.filter(chunk == c), METRICS, **kwargs) for c in range(chunks)
    )
    return _two_stage.evaluate_reduced(kept, METRICS, strict=strict, **kwargs)


def test_hand_example_keeps_the_top_k_with_the_tie_block_at_the_cut() -> None:
    """k=2 on one chunk of 6 rows: scores 9, 8, 8, 8, 1, 0.

    The rows with fewer than 2 rows scored above them are 9 (0 above) and the
    three 8s (1 above): the whole tie block at the cut.  The 1 and the 0 go,
    but the 0 holds the largest relevance (3), which NDCG's ideal reads: kept.
    The chunk's relevant rows: rel > 0 in 1, 0, 2, 0, 1, 3 -> 4, on its first kept row.
    """
    frame = pl.DataFrame(
        {"q": "a", "rel": [1, 0, 2, 0, 1, 3], "score": [9.0, 8.0, 8.0, 8.0, 1.0, 0.0]}
    )
    kw: dict[str, Any] = {"by": ["q"], "y_true": "rel", "y_score": "score"}
    kept = _two_stage.reduce_chunk(frame, ["ndcg@2"], **kw)
    assert kept["score"].to_list() == [9.0, 8.0, 8.0, 8.0, 0.0]
    assert kept[_two_stage.RELEVANT].to_list() == [4, 0, 0, 0, 0]
    # precision has no ideal: the 0-scored row is not kept
    assert _two_stage.reduce_chunk(frame, ["P@2"], **kw)["score"].to_list() == [9.0, 8.0, 8.0, 8.0]
    # P@2 from the kept rows: 1 (the 9) + 1 * 1/3 (one of three 8s makes the cut, one is relevant)
    got = _two_stage.evaluate_reduced(kept, ["P@2"], **kw)
    assert got["P@2"].item() == pytest.approx((1 + 1 / 3) / 2, rel=1e-15)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("ties", ["average", "trec_eval"])
def test_split_groups_equal_whole_groups(seed: int, ties: str) -> None:
    """Random groups, tie-heavy scores, random chunks: the same values within rounding."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 3000))
    frame = pl.DataFrame(
        {
            "q": rng.integers(0, 4, n),
            "rel": rng.integers(0, 4, n) * (rng.random(n) < 0.3),
            "score": rng.integers(0, int(rng.integers(2, 200)), n).astype(np.float64),
            "doc": [f"d{i}" for i in rng.permutation(n)],
            "w": 2.0,
        }
    )
    kw: dict[str, Any] = {"by": ["q"], "y_true": "rel", "y_score": "score", "weight": "w"}
    kw |= {"ties": ties, "item": "doc" if ties == "trec_eval" else None}
    expected = lp.evaluate(frame, METRICS, **kw)
    got = _split(frame, int(rng.integers(1, 9)), seed, **kw)
    assert got.select("q", "w").equals(expected.select("q", "w"))
    for name in METRICS:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-12, atol=0, err_msg=name)


def test_few_rows_are_kept() -> None:
    """A 20,000-row group in 4 chunks keeps about 4 x (top 20 + top 20 by relevance) rows."""
    rng = np.random.default_rng(1)
    n = 20_000
    frame = pl.DataFrame({"q": 0, "rel": rng.integers(0, 3, n), "score": rng.random(n)})
    chunk = pl.Series(rng.integers(0, 4, n))
    kept = pl.concat(
        _two_stage.reduce_chunk(
            frame.filter(chunk == c), METRICS, by=["q"], y_true="rel", y_score="score"
        )
        for c in range(4)
    )
    assert kept.height <= 4 * 2 * 20
    assert kept[_two_stage.RELEVANT].sum() == (frame["rel"] > 0).sum()


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ({"rel": float("nan")}, "y_true"),
        ({"rel": -1.0}, "negative y_true"),
        ({"score": None}, "y_score"),
        ({"score": float("inf")}, "y_score"),
    ],
)
def test_a_refused_row_outside_every_top_k_is_kept(bad: dict[str, Any], reason: str) -> None:
    """The group is refused from its kept rows exactly as from all of them, for the same reason."""
    rng = np.random.default_rng(3)
    n = 2000
    frame = pl.DataFrame(
        {"q": rng.integers(0, 3, n), "rel": rng.integers(0, 3, n).astype(np.float64)}
    ).with_columns(score=pl.int_range(pl.len()).cast(pl.Float64))  # row 0 ranks last
    column, value = next(iter(bad.items()))
    frame = frame.with_columns(
        pl.when(pl.int_range(pl.len()) == 0).then(value).otherwise(pl.col(column)).alias(column)
    )
    kw: dict[str, Any] = {"by": ["q"], "y_true": "rel", "y_score": "score"}
    expected = lp.evaluate(frame, METRICS, strict=False, **kw)
    got = _split(frame, 5, 0, strict=False, **kw)
    assert expected["ndcg@10"].null_count() == 1
    assert got.select(pl.all().is_null()).equals(expected.select(pl.all().is_null()))
    with pytest.raises(lp.RefusedGroupError) as whole:
        lp.evaluate(frame, METRICS, **kw)
    with pytest.raises(lp.RefusedGroupError) as split:
        _split(frame, 5, 0, strict=True, **kw)
    assert str(split.value) == str(whole.value)
    assert reason in str(whole.value)


def test_a_weight_varying_outside_every_top_k_is_seen() -> None:
    """The first row of each distinct weight is kept: lp.evaluate's weight rule still fires."""
    frame = pl.DataFrame(
        {"q": 0, "rel": [1, 0] * 500, "score": np.arange(1000.0), "w": [1.0] * 999 + [2.0]}
    ).with_columns(w=pl.when(pl.col("score") == 0).then(2.0).otherwise(1.0))
    kw: dict[str, Any] = {"by": ["q"], "y_true": "rel", "y_score": "score", "weight": "w"}
    with pytest.raises(ValueError, match="must hold one non-null value per group") as whole:
        lp.evaluate(frame, METRICS, **kw)
    with pytest.raises(ValueError, match="must hold one non-null value per group") as split:
        _split(frame, 3, 0, **kw)
    assert str(split.value) == str(whole.value)


def test_what_cannot_be_split_says_why() -> None:
    assert _two_stage.refusal(METRICS, ties="average") is None
    assert _two_stage.refusal(["hit_rate@3", "success.1"], ties="trec_eval") is None
    assert "not ['ndcg', 'ap']" in str(_two_stage.refusal(["ndcg", "ap", "rr@3"], ties="average"))
    assert "row order" in str(_two_stage.refusal(["rr@3"], ties="input"))
    assert "n_relevant and judged" in str(_two_stage.refusal(["rr@3"], ties="average", judged="j"))
