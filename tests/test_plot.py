"""lodestar_polars.plot: every figure renders to a PNG that is not blank (Agg backend)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp

plot = pytest.importorskip("lodestar_polars.plot")
image = pytest.importorskip("matplotlib.image")


def _pixels(figure: object) -> np.ndarray:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=60)  # type: ignore[attr-defined]
    assert buffer.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"
    buffer.seek(0)
    return np.asarray(image.imread(buffer, format="png"))


def _assert_drawn(figure: object) -> None:
    """Not blank: many distinct colours, and a good share of non-white pixels."""
    pixels = _pixels(figure)
    rgb = pixels[..., :3].reshape(-1, 3)
    assert len(np.unique(rgb, axis=0)) > 20
    assert (rgb < 0.95).any(axis=1).mean() > 0.03


def _log(seed: int = 0, n: int = 400) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 3, n)
    return pl.DataFrame(
        {
            "run": np.where(np.arange(n) < n // 2, "a", "b"),
            "y": (rng.random(n) < p).astype(int),
            "p": p,
        }
    )


def test_metric_at_k() -> None:
    """One line per run, its points the frame's values."""
    curves = pl.DataFrame(
        {
            "run": ["bm25"] * 4 + ["dense"] * 4,
            "k": [1, 3, 5, 10] * 2,
            "value": [0.3, 0.38, 0.42, 0.47, 0.35, 0.45, 0.49, 0.55],
        }
    )
    figure = plot.metric_at_k(curves)
    _assert_drawn(figure)
    lines = figure.axes[0].get_lines()
    assert [list(line.get_ydata()) for line in lines] == [
        [0.3, 0.38, 0.42, 0.47],
        [0.35, 0.45, 0.49, 0.55],
    ]


def test_per_query_distribution() -> None:
    """Box plot, then the sorted per-query differences to the baseline."""
    rng = np.random.default_rng(1)
    per_query = pl.DataFrame(
        {
            "run": ["a"] * 50 + ["b"] * 50,
            "query": list(range(50)) * 2,
            "ndcg": np.concatenate([rng.random(50), rng.random(50)]),
        }
    )
    _assert_drawn(plot.per_query_distribution(per_query, metric="ndcg"))
    figure = plot.per_query_distribution(per_query, metric="ndcg", baseline="a")
    _assert_drawn(figure)
    (line,) = figure.axes[1].get_lines()[:1]
    joined = per_query.pivot("run", index="query", values="ndcg")
    expected = np.sort((joined["b"] - joined["a"]).to_numpy())[::-1]
    np.testing.assert_array_equal(line.get_ydata(), expected)
    with pytest.raises(ValueError, match=r"baseline 'z' is not a run \(runs: \['a', 'b'\]\)"):
        plot.per_query_distribution(per_query, metric="ndcg", baseline="z")
    with pytest.raises(ValueError, match="the frame has no column 'map'"):
        plot.per_query_distribution(per_query, metric="map")


def test_precision_recall_curve() -> None:
    """One curve per run; the legend's AP is average_precision_score's."""
    log = _log()
    figure = plot.precision_recall_curve(log, "y", "p", by="run")
    _assert_drawn(figure)
    labels = figure.axes[0].get_legend_handles_labels()[1]
    for name, label in zip(["a", "b"], labels, strict=True):
        part = log.filter(pl.col("run") == name)
        ap = lp.arrays.average_precision_score(part["y"].to_numpy(), part["p"].to_numpy())
        assert label == f"{name} (AP {ap:.3f})"
    with pytest.raises(ValueError, match="'run' must be 0/1 with at least one positive"):
        plot.precision_recall_curve(log, "run", "p")


def test_calibration_diagram() -> None:
    """The points are lp.calibration_curve's."""
    log = _log(2)
    figure = plot.calibration_diagram(log, "y", "p", n_bins=8, by="run")
    _assert_drawn(figure)
    table = lp.calibration_curve(log.filter(pl.col("run") == "a"), "y", "p", n_bins=8)
    line = figure.axes[0].get_lines()[1]
    np.testing.assert_allclose(line.get_xdata(), table["prob_pred"].to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(line.get_ydata(), table["prob_true"].to_numpy(), rtol=1e-12)
    _assert_drawn(plot.calibration_diagram(log, "y", "p", strategy="quantile"))


def test_comparison_chart() -> None:
    """One axes per metric; significant runs starred."""
    table = pl.DataFrame(
        {
            "run": ["bm25", "dense", "hybrid"] * 2,
            "metric": ["ndcg@10"] * 3 + ["recall@100"] * 3,
            "mean": [0.40, 0.43, 0.44, 0.70, 0.69, 0.75],
            "difference": [0.0, 0.03, 0.04, 0.0, -0.01, 0.05],
            "ci_low": [0.0, 0.01, -0.01, 0.0, -0.03, 0.02],
            "ci_high": [0.0, 0.05, 0.09, 0.0, 0.01, 0.08],
            "p_value": [1.0, 0.004, 0.12, 1.0, 0.4, 0.001],
            "significant": [False, True, False, False, False, True],
        }
    )
    figure = plot.comparison_chart(table, alpha=0.05)
    _assert_drawn(figure)
    assert [ax.get_title() for ax in figure.axes] == ["ndcg@10", "recall@100"]
    ticks = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    assert ticks == ["bm25", "dense *", "hybrid"]
    with pytest.raises(ValueError, match="the frame has no column 'p_value'"):
        plot.comparison_chart(table.drop("p_value"))
    with pytest.raises(TypeError, match="expected a polars DataFrame, got dict"):
        plot.comparison_chart({"run": []})  # type: ignore[arg-type]


def test_import_does_not_load_matplotlib() -> None:
    """``import lodestar_polars`` imports neither matplotlib nor the plot module."""
    code = (
        "import sys, lodestar_polars; "
        "print('matplotlib' in sys.modules, 'lodestar_polars.plot' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_every_plot_has_a_section() -> None:
    """docs/plot.md has a section and a figure for every function of the module."""
    page = (Path(__file__).resolve().parents[1] / "docs" / "plot.md").read_text()
    for name in plot.__all__:
        assert f"## {name}" in page, name
        assert getattr(plot, name).__doc__, name
    for figure in ("metric_at_k", "per_query", "precision_recall", "calibration", "comparison"):
        assert f"figures/{figure}.png" in page
        assert (Path(__file__).resolve().parents[1] / "docs" / "figures" / f"{figure}.png").exists()
