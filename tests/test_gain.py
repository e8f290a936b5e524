"""``gain="exponential"`` on lp.dcg and lp.ndcg: 2^rel - 1, the textbook gain table."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._core.ir import exponential_gain


def _two_rankings() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "query": ["good"] * 5 + ["bad"] * 5,
            "rel": [3, 0, 0, 1, 1, 1, 1, 0, 0, 3],
            "score": [5.0, 4.0, 3.0, 2.0, 1.0] * 2,
        }
    )


def test_textbook_gain_table() -> None:
    """[3,0,0,1,1] vs [1,1,0,0,3]: 0.9241 / 0.6758 linear, 0.9615 / 0.5336 exponential."""
    out = (
        _two_rankings()
        .group_by("query", maintain_order=True)
        .agg(
            linear=lp.ndcg("rel", "score"),
            default=lp.ndcg("rel", "score", gain="linear"),
            exponential=lp.ndcg("rel", "score", gain="exponential"),
        )
    )
    assert [round(v, 4) for v in out["linear"]] == [0.9241, 0.6758]
    assert out["default"].to_list() == out["linear"].to_list()
    assert [round(v, 4) for v in out["exponential"]] == [0.9615, 0.5336]
    linear, exponential = out["linear"].to_list(), out["exponential"].to_list()
    assert round(linear[0] - linear[1], 4) == 0.2484
    assert round(exponential[0] - exponential[1], 4) == 0.4278


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [None, 1, 3])
@pytest.mark.parametrize("ignore_ties", [False, True])
def test_exponential_is_the_gain_applied_to_y_true(
    seed: int,
    k: int | None,
    ignore_ties: bool,  # noqa: FBT001
) -> None:
    """The option equals passing ``2 ** rel - 1`` as y_true, ties and cutoffs included."""
    rng = np.random.default_rng(seed)
    n = 40
    df = pl.DataFrame(
        {
            "query": rng.integers(0, 8, n),
            "rel": rng.integers(0, 5, n),
            "score": rng.integers(0, 3, n) / 2.0,  # ties
        }
    )
    exp_rel = exponential_gain(pl.col("rel"))
    out = df.group_by("query", maintain_order=True).agg(
        ndcg=lp.ndcg("rel", "score", k=k, ignore_ties=ignore_ties, gain="exponential"),
        ndcg_ref=lp.ndcg(exp_rel, "score", k=k, ignore_ties=ignore_ties),
        dcg=lp.dcg("rel", "score", k=k, ignore_ties=ignore_ties, gain="exponential", log_base=3),
        dcg_ref=lp.dcg(exp_rel, "score", k=k, ignore_ties=ignore_ties, log_base=3),
    )
    assert out["ndcg"].to_list() == out["ndcg_ref"].to_list()
    assert out["dcg"].to_list() == out["dcg_ref"].to_list()


def test_evaluate_burges_names_are_the_exponential_gain() -> None:
    """ranx's ``ndcg_burges``/``dcg_burges`` in lp.evaluate equal the expressions."""
    rng = np.random.default_rng(7)
    n = 300
    df = pl.DataFrame(
        {
            "query": rng.integers(0, 40, n),
            "rel": rng.integers(0, 4, n),
            "score": rng.integers(0, 4, n) / 4.0,
        }
    )
    got = lp.evaluate(
        df,
        ["ndcg_burges@5", "dcg_burges", "ndcg_burges"],
        by="query",
        y_true="rel",
        y_score="score",
        strict=False,
    )
    expected = (
        df.group_by("query")
        .agg(
            a=lp.ndcg("rel", "score", k=5, gain="exponential"),
            b=lp.dcg("rel", "score", gain="exponential"),
            c=lp.ndcg("rel", "score", gain="exponential"),
        )
        .sort("query")
    )
    for name, ref in [("ndcg_burges@5", "a"), ("dcg_burges", "b"), ("ndcg_burges", "c")]:
        assert got[name].to_list() == pytest.approx(expected[ref].to_list(), rel=1e-12)


@pytest.mark.parametrize("metric", [lp.dcg, lp.ndcg])
@pytest.mark.parametrize("bad", ["x", "Linear", "burges", None, 2])
def test_bad_gain_is_refused(metric, bad) -> None:  # type: ignore[no-untyped-def]
    """Only 'linear' and 'exponential', in the house sentence."""
    msg = (
        f"The 'gain' parameter of {metric.__name__} must be one of "
        f"['exponential', 'linear']. Got {bad!r} instead."
    )
    with pytest.raises(lp.InvalidParameterError, match=f"^{re.escape(msg)}$"):
        metric("rel", "score", gain=bad)


def test_an_overflowing_gain_refuses_its_group() -> None:
    """2 ** 1024 is not a float: the group is refused as an infinite y_true."""
    df = pl.DataFrame({"q": [1, 1, 2, 2], "rel": [1024, 0, 2, 0], "score": [1.0, 0.0, 1.0, 0.0]})
    out = df.group_by("q", maintain_order=True).agg(lp.ndcg("rel", "score", gain="exponential"))
    assert out["ndcg"].to_list() == [None, 1.0]
    with pytest.raises(lp.RefusedGroupError, match="Input y_true contains infinity"):
        lp.evaluate(df, ["ndcg_burges"], by="q", y_true="rel", y_score="score")
