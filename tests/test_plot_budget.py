"""lodestar_polars.plot.budget_curve: renders (Agg), draws the curve's numbers, refuses."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp

plot = pytest.importorskip("lodestar_polars.plot")
image = pytest.importorskip("matplotlib.image")

CANDS = pl.DataFrame(
    {
        "user": [1, 1, 1, 1, 2, 2, 2, 2],
        "source": ["pop", "pop", "ann", "ann"] * 2,
        "item": ["a", "b", "c", "a", "a", "b", "d", "c"],
        "score": [0.9, 0.8, 0.7, 0.6, 0.9, 0.8, 0.7, 0.6],
    }
)
RELEVANT = pl.DataFrame({"user": [1, 1, 2], "item": ["a", "c", "d"]})
COST: dict[str, Any] = {"pop": {1: 0.1, 2: 0.2}, "ann": lambda k: 1.0 + k}


def _curve() -> pl.DataFrame:
    curve: pl.DataFrame = lp.budget_curve(
        CANDS, by="user", item="item", source="source", y_score="score", relevant=RELEVANT,
        cost=COST,
    )  # fmt: skip
    return curve


def test_renders_and_draws_the_curve() -> None:
    figure = plot.budget_curve(_curve(), budgets=[1.0, 2.5], title="budget")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=60)
    buffer.seek(0)
    rgb = np.asarray(image.imread(buffer, format="png"))[..., :3].reshape(-1, 3)
    assert len(np.unique(rgb, axis=0)) > 20
    (axes,) = figure.axes
    assert axes.get_title() == "budget"
    lines = {line.get_label(): line for line in axes.get_lines()}
    ann = lines["ann"]
    assert ann.get_xdata().tolist() == [2.0, 3.0]
    assert ann.get_ydata().tolist() == [0.75, 1.0]
    front = lines["Pareto front"]  # pop@1 (0.1, 0.25), ann@1 (2, 0.75), ann@2 (3, 1)
    assert front.get_xdata().tolist() == [0.1, 2.0, 3.0]
    assert front.get_ydata().tolist() == [0.25, 0.75, 1.0]
    labels = [t.get_text() for t in axes.texts]
    assert labels == ["1: pop@1", "2.5: ann@1"]


def test_micro_and_log_axis() -> None:
    figure = plot.budget_curve(_curve().lazy(), average="micro", log_cost=True)
    (axes,) = figure.axes
    assert axes.get_xscale() == "log"
    assert "micro" in axes.get_ylabel()


def test_refusals() -> None:
    with pytest.raises(lp.InvalidParameterError, match="'average'"):
        plot.budget_curve(_curve(), average="mean")
    with pytest.raises(lp.InvalidParameterError, match="'budgets'"):
        plot.budget_curve(_curve(), budgets=[-1.0])
    with pytest.raises(lp.InvalidParameterError, match="'log_cost'"):
        plot.budget_curve(_curve(), log_cost=1)
    with pytest.raises(ValueError, match="no column 'cost'"):
        plot.budget_curve(_curve().drop("cost"))
    with pytest.raises(ValueError, match="every cost > 0"):
        plot.budget_curve(_curve().with_columns(cost=pl.lit(0.0)), log_cost=True)
