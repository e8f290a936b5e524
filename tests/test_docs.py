"""Every public name has its docs page (STYLE practice 14)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import lodestar_polars as lp
from lodestar_polars import arrays

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = {
    "evaluate": DOCS / "evaluate.md",
    "arrays": DOCS / "arrays.md",
    "trec": DOCS / "coming-from-trec_eval.md",
    "ranking_report": DOCS / "report.md",
    "top_k": DOCS / "top_k.md",
    "fit_comparability": DOCS / "comparability.md",
    "transform_for_objective": DOCS / "comparability.md",
    "report_html": DOCS / "report_html.md",
    "compare": DOCS / "compare.md",
    "summarize": DOCS / "summarize.md",
    "budget_curve": DOCS / "budget.md",
    "recall_at_budget": DOCS / "budget.md",
    "off_policy": DOCS / "off-policy.md",
    "fuse": DOCS / "fusion.md",
    "optimize_fusion": DOCS / "fusion.md",
    "novelty": DOCS / "beyond-accuracy.md",
    "average_recommended_popularity": DOCS / "beyond-accuracy.md",
    "intra_list_diversity": DOCS / "beyond-accuracy.md",
    "serendipity": DOCS / "beyond-accuracy.md",
    "personalisation": DOCS / "beyond-accuracy.md",
    "item_popularity": DOCS / "beyond-accuracy.md",
}
CLASS_PAGES = {
    "UndefinedMetricWarning": DOCS / "arrays.md",
    "ComparabilityState": DOCS / "comparability.md",
    "Comparison": DOCS / "compare.md",
    "RankingReport": DOCS / "report.md",
}  # others: evaluate.md


@pytest.mark.parametrize("name", sorted(lp.__all__))
def test_public_name_has_a_page(name: str) -> None:
    obj = getattr(lp, name)
    if inspect.isclass(obj):
        assert name in CLASS_PAGES.get(name, DOCS / "evaluate.md").read_text(), name
        return
    page = PAGES.get(name, DOCS / "metrics" / f"{name}.md")
    assert page.exists(), f"lp.{name} has no docs page ({page.relative_to(DOCS.parent)})"
    assert f"lp.{name}" in page.read_text() or name in page.read_text()
    assert obj.__doc__, f"lp.{name} has no docstring"


@pytest.mark.parametrize("name", sorted(arrays.__all__))
def test_arrays_function_has_a_section(name: str) -> None:
    assert f"## {name}" in PAGES["arrays"].read_text()
