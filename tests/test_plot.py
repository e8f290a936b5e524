"""lodestar_polars.plot: every figure renders to a PNG that is not blank (Agg backend)."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

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
    """Pooled, one curve per run; the legend's AP is average_precision_score's."""
    log = _log()
    figure = plot.precision_recall_curve(log, "y", "p", run="run")
    _assert_drawn(figure)
    assert figure.axes[0].get_title() == "precision-recall curve, all rows pooled"
    labels = figure.axes[0].get_legend_handles_labels()[1]
    for name, label in zip(["a", "b"], labels, strict=True):
        part = log.filter(pl.col("run") == name)
        ap = lp.arrays.average_precision_score(part["y"].to_numpy(), part["p"].to_numpy())
        assert label == f"{name} (AP {ap:.3f})"
    with pytest.raises(ValueError, match="'run' must be 0/1 with at least one positive"):
        plot.precision_recall_curve(log, "run", "p")


def _hand_log() -> pl.DataFrame:
    """Four queries, rows listed best score first."""
    rows = [
        # A: R = 2, ranked 1 0 1 0 0
        *[("A", y, s) for y, s in zip([1, 0, 1, 0, 0], [5.0, 4.0, 3.0, 2.0, 1.0], strict=True)],
        # B: R = 3, ranked 0 1 0 0 1 1
        *[("B", y, s) for y, s in zip([0, 1, 0, 0, 1, 1], [6, 5, 4, 3, 2, 1], strict=True)],
        # C: R = 2, scores 3, 2, 2, 1: the tie (one positive of two rows) is one cut
        *[("C", y, s) for y, s in zip([0, 1, 0, 1], [3.0, 2.0, 2.0, 1.0], strict=True)],
        # D: no positive
        *[("D", y, s) for y, s in zip([0, 0], [2.0, 1.0], strict=True)],
    ]
    return pl.DataFrame(rows, schema=["query", "y", "score"], orient="row").sample(
        fraction=1.0, shuffle=True, seed=3
    )


def test_precision_recall_curve_interpolated_by_hand() -> None:
    """trec_eval's iprec_at_recall, hand-computed, averaged over the 4 queries."""
    # A: precision at ranks 1..5 is 1, 1/2, 2/3, 2/4, 2/5. Recall >= r needs int(2r + 0.9)
    # positives: r <= 0.5 one (first at rank 1), r >= 0.6 two (first at rank 3).
    # Interpolated: the largest precision at that rank or later.
    a = [1.0] * 6 + [max(2 / 3, 2 / 4, 2 / 5)] * 5
    # B: precision 0, 1/2, 1/3, 1/4, 2/5, 3/6; positives at ranks 2, 5, 6: the largest
    # precision from rank 2 on, from 5 on, from 6 on is 1/2 every time
    b = [max(1 / 2, 1 / 3, 1 / 4, 2 / 5, 3 / 6)] * 11
    # C: cuts after rank 1 (precision 0), 3 (1/3, the tie in at once), 4 (2/4)
    c = [max(0.0, 1 / 3, 2 / 4)] * 11
    d = [0.0] * 11  # no positive: 0 at every level, as trec_eval counts it
    expected = [(a[i] + b[i] + c[i] + d[i]) / 4 for i in range(11)]
    log = _hand_log()
    figure = plot.precision_recall_curve(log, "y", "score", by="query", run=None)
    _assert_drawn(figure)
    axes = figure.axes[0]
    (line,) = axes.get_lines()
    np.testing.assert_allclose(line.get_xdata(), [i / 10 for i in range(11)], rtol=0, atol=0)
    np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-12)
    assert axes.get_title() == (
        "interpolated precision, mean over queries\n(trec_eval iprec_at_recall, 11 recall levels)"
    )
    assert axes.get_legend_handles_labels()[1] == [f"11-pt avg {sum(expected) / 11:.3f}"]
    assert axes.get_legend().get_title().get_text() == "4 queries, 1 with no positive (0)"
    # by runs: one curve each, the same numbers for the same queries
    two = pl.concat([log.with_columns(run=pl.lit("x")), log.with_columns(run=pl.lit("y"))])
    lines = plot.precision_recall_curve(two, "y", "score", by="query", run="run").axes[0]
    for line in lines.get_lines():
        np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-12)
    assert lines.get_legend_handles_labels()[1] == [
        f"{run}: 11-pt avg {sum(expected) / 11:.3f}" for run in ["x", "y"]
    ]
    assert lines.get_legend().get_title().get_text() == "4 queries, 1 with no positive (0)"
    # runs over different queries: a line each
    fewer = pl.concat(
        [
            log.with_columns(run=pl.lit("x")),
            log.filter(pl.col("query") != "D").with_columns(run=pl.lit("y")),
        ]
    )
    legend = plot.precision_recall_curve(fewer, "y", "score", by="query", run="run")
    assert legend.axes[0].get_legend().get_title().get_text() == (
        "x: 4 queries, 1 with no positive (0)\ny: 3 queries"
    )


def test_precision_recall_curve_interpolated_matches_pytrec_eval() -> None:
    """Distinct scores (no tie): trec_eval's numbers, query by query averaged."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(7)
    rows = []
    for q in range(12):
        n = int(rng.integers(1, 30))
        labels = (rng.random(n) < rng.random()).astype(int)
        scores = rng.permutation(n) + rng.random()
        rows += [(f"q{q}", f"d{i}", int(labels[i]), float(scores[i])) for i in range(n)]
    log = pl.DataFrame(rows, schema=["query", "doc", "y", "score"], orient="row")
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for qid, d, y, s in rows:
        qrels.setdefault(qid, {})[d] = y
        run.setdefault(qid, {})[d] = s
    out = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)
    keys = [f"iprec_at_recall_{i / 10:.2f}" for i in range(11)]
    theirs = [sum(values[k] for values in out.values()) / len(out) for k in keys]
    figure = plot.precision_recall_curve(log, "y", "score", by="query", run=None)
    (line,) = figure.axes[0].get_lines()
    np.testing.assert_allclose(line.get_ydata(), theirs, rtol=1e-12, atol=1e-15)


def test_precision_recall_curve_pooled_is_an_option() -> None:
    """curve='pooled' with a query column is the curve drawn without one."""
    log = _hand_log()
    pooled = plot.precision_recall_curve(log, "y", "score", by="query", run=None, curve="pooled")
    plain = plot.precision_recall_curve(log, "y", "score")
    for figure in (pooled, plain):
        assert figure.axes[0].get_title() == "precision-recall curve, all rows pooled"
    (a,), (b,) = pooled.axes[0].get_lines(), plain.axes[0].get_lines()
    np.testing.assert_array_equal(a.get_ydata(), b.get_ydata())
    ap = lp.arrays.average_precision_score(log["y"].to_numpy(), log["score"].to_numpy())
    assert pooled.axes[0].get_legend_handles_labels()[1] == [f"AP {ap:.3f}"]


@pytest.mark.parametrize(
    ("column", "kwargs", "error", "msg"),
    [
        (
            [0.1, float("nan"), 0.3, 0.2],
            {},
            ValueError,
            "Input contains NaN. precision_recall_curve: the score column 'p' has 1 null or NaN "
            "value(s); such a row has no place in a ranking: drop it or give it a score.",
        ),
        (
            [0.1, None, 0.3, 0.2],
            {"run": "run"},
            ValueError,
            "Input contains NaN. precision_recall_curve: the score column 'p' has 1 null or NaN "
            "value(s), the first in group 'a'",
        ),
        (
            [0.1, 0.2, 0.3, float("inf")],
            {"by": "q", "run": None},
            ValueError,
            "Input contains infinity or a value too large for dtype('float64'). "
            "precision_recall_curve: the score column 'p' has 1 infinite value(s)",
        ),
        (
            [0.1, 0.2, 0.3, 0.4],
            {"curve": "interpolated"},
            lp.InvalidParameterError,
            "The 'curve' parameter of precision_recall_curve is 'interpolated', which needs "
            "the query column 'by'",
        ),
        (
            [0.1, 0.2, 0.3, 0.4],
            {"curve": "11pt"},
            lp.InvalidParameterError,
            "The 'curve' parameter of precision_recall_curve must be one of ['interpolated', "
            "'pooled']. Got '11pt' instead.",
        ),
    ],
)
def test_precision_recall_curve_refusals(
    column: list[float | None], kwargs: dict[str, Any], error: type[Exception], msg: str
) -> None:
    log = pl.DataFrame(
        {"run": ["a", "a", "b", "b"], "q": [1, 1, 2, 2], "y": [1, 0, 1, 0], "p": column}
    )
    with pytest.raises(error, match=re.escape(msg)):
        plot.precision_recall_curve(log, "y", "p", **kwargs)
    strings = log.with_columns(pl.col("p").cast(pl.String))
    with pytest.raises(ValueError, match="the score column 'p' must be numeric; it is String"):
        plot.precision_recall_curve(strings, "y", "p")
    nulls = log.with_columns(q=pl.Series([1, None, 2, 2]), p=pl.Series([0.1, 0.2, 0.3, 0.4]))
    with pytest.raises(ValueError, match="the query column 'q' has 1 null value"):
        plot.precision_recall_curve(nulls, "y", "p", by="q", run=None)


def test_precision_recall_curve_old_calls_warn() -> None:
    """``query`` is ``by``'s old name; ``by`` named the runs before: each old call warns."""
    log = _hand_log()
    two = pl.concat([log.with_columns(run=pl.lit("x")), log.with_columns(run=pl.lit("y"))])

    def ydata(figure: Any) -> list[list[float]]:
        return [list(line.get_ydata()) for line in figure.axes[0].get_lines()]

    new = ydata(plot.precision_recall_curve(two, "y", "score", by="query", run="run"))
    with pytest.warns(
        FutureWarning, match="`query` is renamed `by`.*Read as run='run', by='query'"
    ):
        old = plot.precision_recall_curve(two, "y", "score", by="run", query="query")
    assert ydata(old) == new
    alone = ydata(plot.precision_recall_curve(log, "y", "score", by="query", run=None))
    with pytest.warns(FutureWarning, match="`query` is renamed `by`"):
        renamed = plot.precision_recall_curve(log, "y", "score", query="query")
    assert ydata(renamed) == alone
    with pytest.warns(FutureWarning, match="`by` names the query column since"):
        changed = plot.precision_recall_curve(log, "y", "score", by="query")
    assert ydata(changed) == alone


def test_per_query_distribution_old_name_query_warns() -> None:
    """``query`` is ``by``'s old name: the same differences, with a FutureWarning."""
    per_query = pl.DataFrame(
        {"run": ["a"] * 3 + ["b"] * 3, "q": [1, 2, 3] * 2, "ndcg": [0.2, 0.5, 0.9, 0.4, 0.5, 0.7]}
    )
    new = plot.per_query_distribution(per_query, metric="ndcg", by="q", baseline="a")
    with pytest.warns(FutureWarning, match="`query` is renamed `by`"):
        old = plot.per_query_distribution(per_query, metric="ndcg", query="q", baseline="a")
    (a,), (b,) = new.axes[1].get_lines()[:1], old.axes[1].get_lines()[:1]
    np.testing.assert_array_equal(a.get_ydata(), b.get_ydata())
    np.testing.assert_allclose(a.get_ydata(), [0.2, 0.0, -0.2], rtol=1e-12)  # b - a, sorted


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


def _chart_table() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "run": ["bm25", "dense", "hybrid"] * 2,
            "metric": ["ndcg@10"] * 3 + ["brier"] * 3,
            "mean": [0.40, 0.43, 0.44, 0.20, 0.25, 0.17],
            "difference": [0.0, 0.03, 0.04, 0.0, 0.05, -0.03],
            "ci_low": [None, 0.01, -0.01, None, 0.02, -0.05],
            "ci_high": [None, 0.05, 0.09, None, 0.08, -0.01],
            "p_value": [None, 0.004, 0.12, None, 0.001, 0.003],
            "significant": [False, True, False, False, True, True],
        }
    )


def _bar_colours(axes: object) -> list[tuple[float, ...]]:
    (bars,) = [c for c in axes.containers if type(c).__name__ == "BarContainer"]  # type: ignore[attr-defined]
    return [tuple(patch.get_facecolor()) for patch in bars.patches]


def test_comparison_chart() -> None:
    """One axes per metric; bars the differences, intervals the table's, a star per win or loss."""
    colors = pytest.importorskip("matplotlib.colors")
    table = _chart_table()
    figure = plot.comparison_chart(table, alpha=0.05)
    _assert_drawn(figure)
    assert [ax.get_title() for ax in figure.axes] == [
        "ndcg@10 (higher is better)",
        "brier (lower is better)",
    ]
    ticks = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    assert ticks == ["bm25\n(baseline)", "dense", "hybrid"]
    for ax, metric in zip(figure.axes, ["ndcg@10", "brier"], strict=True):
        part = table.filter(pl.col("metric") == metric)
        (bars,) = [c for c in ax.containers if type(c).__name__ == "BarContainer"]
        assert [p.get_width() for p in bars.patches] == part["difference"].to_list()
        stars = [t for t in ax.texts if t.get_text() == "*"]
        assert len(stars) == part["significant"].sum()
    green, red, grey = (colors.to_rgba(c) for c in ("tab:green", "tab:red", "tab:gray"))
    # ndcg@10: dense up, significant (a win); hybrid up, not significant
    assert _bar_colours(figure.axes[0]) == [grey, green, grey]
    # brier, lower is better: dense up (a significant loss), hybrid down (a significant win)
    assert _bar_colours(figure.axes[1]) == [grey, red, green]
    (legend,) = figure.legends
    assert [t.get_text() for t in legend.get_texts()] == [
        "significantly better than the baseline",
        "significantly worse than the baseline",
        "not significant",
    ]
    handles = legend.legend_handles
    assert [tuple(h.get_facecolor()) for h in handles] == [green, red, grey]
    with pytest.raises(ValueError, match="the frame has no column 'p_value'"):
        plot.comparison_chart(table.drop("p_value"))
    with pytest.raises(
        lp.InvalidParameterError,
        match="The 'frame' parameter of comparison_chart must be a polars DataFrame or LazyFrame",
    ):
        plot.comparison_chart({"run": []})
    lazy = plot.comparison_chart(table.lazy())  # a LazyFrame is collected to draw
    assert len(lazy.axes) == len(plot.comparison_chart(table).axes)


def test_comparison_chart_reads_compare_directions() -> None:
    """A Comparison's directions (the user's lists included) colour the bars."""
    colors = pytest.importorskip("matplotlib.colors")
    x = np.linspace(0.1, 0.7, 10)
    per_query = pl.concat(
        pl.DataFrame({"run": r, "query": list(range(10)), "latency": v, "log_loss": v})
        for r, v in (("a", x), ("b", x + 0.2))
    )
    green, red, blue = (colors.to_rgba(c) for c in ("tab:green", "tab:red", "tab:blue"))
    result = lp.compare(per_query, baseline="a")
    figure = plot.comparison_chart(result)
    # latency: direction unknown (blue); log_loss: b's higher loss is a significant loss (red)
    assert [_bar_colours(ax)[1] for ax in figure.axes] == [blue, red]
    assert figure.get_suptitle() == f"* significant at alpha = {result.alpha}"
    assert "significant, direction unknown" in [t.get_text() for t in figure.legends[0].get_texts()]
    named = lp.compare(per_query, baseline="a", higher_is_better=["latency"])
    assert [_bar_colours(ax)[1] for ax in plot.comparison_chart(named).axes] == [green, red]
    # a bare table: the registry's direction, and the lists as compare takes them
    figure = plot.comparison_chart(result.table, lower_is_better="latency")
    assert [_bar_colours(ax)[1] for ax in figure.axes] == [red, red]
    with pytest.raises(
        lp.InvalidParameterError,
        match=re.escape(
            "comparison_chart: higher_is_better names 'latency@10', which is not a metric of "
            "the table (['latency', 'log_loss'])"
        ),
    ):
        plot.comparison_chart(result.table, higher_is_better=["latency@10"])


def test_comparison_chart_labels_do_not_overlap() -> None:
    """Long run and metric names, many runs and metrics: no two texts overlap once drawn."""
    runs = [
        "bm25",
        "dense-retriever-with-a-very-long-name-v2",
        "hybrid_bm25_plus_dense_reranked_by_a_cross_encoder",
        *[f"ablation run number {i} without the query expansion" for i in range(5)],
    ]
    metrics = ["ndcg@10", "brier", "recall@1000", "a_metric_with_a_rather_long_descriptive_name"]
    rng = np.random.default_rng(0)
    rows = []
    for m in metrics:
        for i, r in enumerate(runs):
            d = 0.0 if i == 0 else float(rng.normal(0, 0.05))
            rows.append(
                {
                    "run": r,
                    "metric": m,
                    "mean": 0.5 + d,
                    "difference": d,
                    "ci_low": None if i == 0 else d - 0.02,
                    "ci_high": None if i == 0 else d + 0.02,
                    "p_value": None if i == 0 else 0.01,
                    "significant": i > 0,
                }
            )
    figure = plot.comparison_chart(pl.DataFrame(rows), alpha=0.05)
    agg = pytest.importorskip("matplotlib.backends.backend_agg")
    canvas = agg.FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()

    def drawn(ax: object, axis: str) -> list[object]:
        """The tick labels drawn: visible, their tick inside the view limits."""
        low, high = sorted(getattr(ax, f"get_{axis}lim")())
        ticks = getattr(ax, f"{axis}axis").get_major_ticks()
        return [
            tick.label1
            for tick in ticks
            if tick.label1.get_visible() and low - 1e-12 <= tick.get_loc() <= high + 1e-12
        ]

    texts = [figure._suptitle, *figure.legends]
    for ax in figure.axes:
        texts += [ax.title, ax.xaxis.label, *drawn(ax, "x"), *drawn(ax, "y")]
    boxes = [
        (t, t.get_window_extent(renderer))
        for t in texts
        if t is not None and (not hasattr(t, "get_text") or t.get_text())
    ]
    assert len(boxes) > 30
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            assert not box_a.overlaps(box_b), (a, b)
    # the run names are written once, on the first column of axes
    assert [t.get_text() for t in figure.axes[0].get_yticklabels()][0] == "bm25\n(baseline)"
    assert not any(t.get_visible() and t.get_text() for t in figure.axes[1].get_yticklabels())


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
