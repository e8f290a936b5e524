"""The plot functions' roles take a column name or a Polars expression (issue 19).

Each figure drawn with the roles given as expressions of renamed columns
(``pl.col("x_src").alias("x")``) draws the same data, labels and titles as the figure drawn
with the plain names; a plain ``pl.col("x")`` is the column itself; an expression reading a
column the frame lacks is refused naming the role.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp

pytest.importorskip("matplotlib")  # the test extra has it; the dependency floor may not

from lodestar_polars import plot  # noqa: E402


def _drawn(figure: Any) -> list[Any]:
    """What a figure shows: per axes its title, labels, lines' data, patches' heights."""
    out: list[Any] = []
    for axes in figure.axes:
        out.append((axes.get_title(), axes.get_xlabel(), axes.get_ylabel()))
        for line in axes.get_lines():
            out.append((list(np.asarray(line.get_xdata(), dtype=float)), line.get_label()))
            out.append(list(np.asarray(line.get_ydata(), dtype=float)))
        out.append([round(p.get_height(), 12) for p in axes.patches])
        legend = axes.get_legend()
        if legend is not None:
            out.append([t.get_text() for t in legend.get_texts()])
    return out


CURVES = pl.DataFrame(
    {
        "run": ["bm25"] * 3 + ["dense"] * 3,
        "k": [1, 5, 10] * 2,
        "value": [0.30, 0.42, 0.47, 0.35, 0.49, 0.55],
    }
)
PER_QUERY = pl.DataFrame(
    {"run": ["a"] * 3 + ["b"] * 3, "query": [1, 2, 3] * 2, "ndcg": [0.2, 0.5, 0.9, 0.4, 0.5, 0.7]}
)
LOG = pl.DataFrame(
    {
        "q": [1, 1, 1, 2, 2, 2, 3, 3],
        "run": ["x", "y"] * 4,
        "y": [1, 0, 1, 0, 1, 1, 0, 1],
        "p": [0.9, 0.2, 0.6, 0.3, 0.8, 0.7, 0.1, 0.4],
    }
)


def _renamed(frame: pl.DataFrame, roles: dict[str, str]) -> tuple[pl.DataFrame, dict[str, Any]]:
    columns = sorted(set(roles.values()))
    exprs = {role: pl.col(f"{c}_src").alias(c) for role, c in roles.items()}
    return frame.rename({c: f"{c}_src" for c in columns}), exprs


CASES: dict[str, tuple[Any, pl.DataFrame, dict[str, str], dict[str, Any]]] = {
    "metric_at_k": (
        plot.metric_at_k,
        CURVES,
        {"run": "run", "k": "k", "value": "value"},
        {},
    ),
    "per_query_distribution": (
        plot.per_query_distribution,
        PER_QUERY,
        {"metric": "ndcg", "run": "run", "by": "query"},
        {"baseline": "a"},
    ),
    "precision_recall_curve-interpolated": (
        plot.precision_recall_curve,
        LOG,
        {"y_true": "y", "y_score": "p", "by": "q", "run": "run"},
        {},
    ),
    "precision_recall_curve-pooled": (
        plot.precision_recall_curve,
        LOG,
        {"y_true": "y", "y_score": "p"},
        {},
    ),
    "calibration_diagram": (
        plot.calibration_diagram,
        LOG,
        {"y_true": "y", "y_prob": "p", "by": "run"},
        {"n_bins": 3},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_roles_as_expressions_draw_the_same_figure(case: str) -> None:
    function, frame, roles, options = CASES[case]
    expected = _drawn(function(frame, **roles, **options))
    renamed, exprs = _renamed(frame, roles)
    assert _drawn(function(renamed, **exprs, **options)) == expected
    plain = {role: pl.col(c) for role, c in roles.items()}
    assert _drawn(function(frame, **plain, **options)) == expected
    assert _drawn(function(frame.lazy(), **plain, **options)) == expected


def test_a_computed_role_is_drawn_under_its_output_name() -> None:
    """``value`` as an expression of two columns: the axis says the output name."""
    frame = CURVES.rename({"value": "hits"}).with_columns(n=pl.lit(2.0))
    figure = plot.metric_at_k(frame, value=(pl.col("hits") * pl.col("n")).alias("doubled"))
    axes = figure.axes[0]
    assert axes.get_ylabel() == "doubled"
    assert np.asarray(axes.get_lines()[0].get_ydata(), dtype=float).tolist() == [0.60, 0.84, 0.94]


def test_an_expression_of_a_missing_column_names_the_role() -> None:
    with pytest.raises(
        lp.InvalidParameterError,
        match=re.escape("The 'y_score' parameter of precision_recall_curve names 'nope'"),
    ):
        plot.precision_recall_curve(LOG, "y", pl.col("nope").alias("p"))
    with pytest.raises(lp.InvalidParameterError, match="The 'metric' parameter of"):
        plot.per_query_distribution(PER_QUERY, metric=3)  # type: ignore[arg-type]
    with pytest.raises(lp.InvalidParameterError, match="The 'by' parameter of calibration_diagram"):
        plot.calibration_diagram(LOG, "y", "p", by=pl.all())
