"""docs/refusals.md quotes sentences the code really produces: each is triggered here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._metrics.calibration import (
    brier_score_metric,
    expected_calibration_error_metric,
    log_loss_metric,
    roc_auc_metric,
)
from lodestar_polars._metrics.dcg import ndcg_metric
from lodestar_polars._metrics.expr import Metric
from lodestar_polars._metrics.ir import recall_metric
from lodestar_polars._metrics.label_ranking import coverage_error_metric
from lodestar_polars._metrics.top_k_accuracy import top_k_accuracy_metric
from lodestar_polars._metrics.user_models import err_metric

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "refusals.md").read_text(encoding="utf-8")


def _reason(metric: Metric, frame: pl.DataFrame) -> str:
    out = frame.group_by("q").agg(metric.reason().alias("why"))["why"].item()
    assert isinstance(out, str)
    return out


def _raised(call: Callable[[], object]) -> str:
    with pytest.raises((ValueError, TypeError, ZeroDivisionError)) as info:
        call()
    return str(info.value)


F = pl.DataFrame({"q": [1, 1], "rel": [1, 0], "s": [0.5, 0.1]})

CASES: dict[str, Callable[[], str]] = {
    "no rows": lambda: F.clear().select(ndcg_metric("rel", "s").reason()).item(),
    "infinite y_true": lambda: _reason(
        ndcg_metric("rel", "s", gain="exponential"), F.with_columns(rel=pl.lit(float("-inf")))
    ),
    "negative": lambda: _reason(ndcg_metric("rel", "s"), F.with_columns(rel=pl.lit(-1))),
    "one document": lambda: _reason(ndcg_metric("rel", "s"), F.head(1)),
    "binary": lambda: _reason(coverage_error_metric("rel", "s"), F.with_columns(rel=pl.lit(2))),
    "one label": lambda: _reason(coverage_error_metric("rel", "s"), F.head(1)),
    "one true": lambda: _reason(top_k_accuracy_metric("rel", "s"), F.with_columns(rel=pl.lit(1))),
    "n_relevant whole": lambda: _reason(
        recall_metric("rel", "s", n_relevant="n"), F.with_columns(n=pl.lit(2.5))
    ),
    "n_relevant below": lambda: _reason(
        recall_metric("rel", "s", n_relevant="n"), F.with_columns(rel=pl.lit(1), n=pl.lit(1.0))
    ),
    "prob above 1": lambda: _reason(log_loss_metric("rel", "s"), F.with_columns(s=pl.lit(1.3))),
    "prob below 0 (log_loss)": lambda: _reason(
        log_loss_metric("rel", "s"), F.with_columns(s=pl.lit(-0.1))
    ),
    "prob below 0 (brier)": lambda: _reason(
        brier_score_metric("rel", "s"), F.with_columns(s=pl.lit(-0.1))
    ),
    "prob outside (ece)": lambda: _reason(
        expected_calibration_error_metric("rel", "s"), F.with_columns(s=pl.lit(1.3))
    ),
    "one class": lambda: _reason(roc_auc_metric("rel", "s"), F.with_columns(rel=pl.lit(1))),
    "prob NaN": lambda: _reason(
        brier_score_metric("rel", "s"), F.with_columns(s=pl.lit(float("nan")))
    ),
    "n_bins": lambda: _raised(lambda: lp.evaluate(F, ["ece@0"], by="q", y_true="rel", y_score="s")),
    "strategy": lambda: _raised(
        lambda: lp.expected_calibration_error("rel", "s", strategy="x")  # type: ignore[arg-type]
    ),
    "k": lambda: _raised(lambda: lp.ndcg("rel", "s", k=0)),
    "log_base": lambda: _raised(lambda: lp.dcg("rel", "s", log_base=-2)),
    "ties": lambda: _raised(lambda: lp.ndcg("rel", "s", ties="random")),
    "discount": lambda: _raised(lambda: lp.dcg("rel", "s", discount="ln")),
    "denominator k without k": lambda: _raised(lambda: lp.ndcg("rel", "s", denominator="k")),
    "denominator k with judged": lambda: _raised(
        lambda: lp.ndcg("rel", "s", k=3, denominator="k", judged="j")
    ),
    "relevance_level": lambda: _raised(
        lambda: lp.precision("rel", "s", k=1, relevance_level=float("nan"))
    ),
    "strict": lambda: _raised(
        lambda: lp.evaluate(F, ["rr"], by="q", y_true="rel", y_score="s", strict="no")  # type: ignore[call-overload]
    ),
    "batch_rows": lambda: _raised(
        lambda: lp.evaluate(F, ["rr"], by="q", y_true="rel", y_score="s", batch_rows=0)
    ),
    "layout": lambda: _raised(
        lambda: lp.evaluate(F, ["rr"], by="q", y_true="rel", y_score="s", layout="sorted")  # type: ignore[call-overload]
    ),
    "temp_dir": lambda: _raised(
        lambda: lp.evaluate(F, ["rr"], by="q", y_true="rel", y_score="s", temp_dir="no/such/dir")
    ),
    "layout grouped, not grouped": lambda: _raised(
        lambda: lp.evaluate(
            pl.LazyFrame({"q": [1, 2, 1, 2], "rel": [1, 0, 0, 1], "s": [0.5, 0.1, 0.2, 0.3]}),
            ["rr"],
            by="q",
            y_true="rel",
            y_score="s",
            batch_rows=2,
            layout="grouped",
        ).collect()
    ),
    "item repeats": lambda: _reason(
        ndcg_metric("rel", "s", ties="trec_eval", item="doc"), F.with_columns(doc=pl.lit("d1"))
    ),
    "item null": lambda: _reason(
        ndcg_metric("rel", "s", ties="trec_eval", item="doc"),
        F.with_columns(doc=pl.Series([None, "d2"], dtype=pl.String)),
    ),
    "trec_eval without item (expression)": lambda: _raised(
        lambda: lp.ndcg("rel", "s", ties="trec_eval")
    ),
    "trec_eval without item": lambda: _raised(
        lambda: lp.evaluate(F, ["rr"], by="q", y_true="rel", y_score="s", ties="trec_eval")
    ),
    "cutoff": lambda: _raised(lambda: lp.evaluate(F, ["ap@3"], by="q", y_true="rel", y_score="s")),
    "needs cutoff": lambda: _raised(
        lambda: lp.evaluate(F, ["hit_rate"], by="q", y_true="rel", y_score="s")
    ),
    "err grade": lambda: _reason(
        err_metric("rel", "s", ties="input"), F.with_columns(rel=pl.lit(5))
    ),
    "rbp p": lambda: _raised(lambda: lp.rbp("rel", "s", p=1.5)),
    "err max_grade": lambda: _raised(lambda: lp.err("rel", "s", max_grade=0, ties="input")),
    "rbp residual": lambda: _raised(lambda: lp.rbp("rel", "s", residual=1)),  # type: ignore[arg-type]
    "err average": lambda: _raised(lambda: lp.err("rel", "s", ties="average")),
    "err average (evaluate)": lambda: _raised(
        lambda: lp.evaluate(F, ["err@3"], by="q", y_true="rel", y_score="s")
    ),
    "name option unknown": lambda: _raised(
        lambda: lp.evaluate(F, ["rbp(q=1)"], by="q", y_true="rel", y_score="s")
    ),
    "name option form": lambda: _raised(
        lambda: lp.evaluate(F, ["rbp(p)"], by="q", y_true="rel", y_score="s")
    ),
    "name option twice": lambda: _raised(
        lambda: lp.evaluate(F, ["rbp(p=0.5,p=0.5)"], by="q", y_true="rel", y_score="s")
    ),
    "name option check": lambda: _raised(
        lambda: lp.evaluate(F, ["rbp(p=2)"], by="q", y_true="rel", y_score="s")
    ),
    "filtered input": lambda: _raised(
        lambda: lp.ndcg(pl.col("rel").filter(pl.col("split") == "test"), "score")
    ),
    "weights": lambda: _raised(
        lambda: lp.evaluate(
            F.with_columns(w=pl.lit(0.0)),
            ["rr"],
            by="q",
            y_true="rel",
            y_score="s",
            weight="w",
            mean=True,
        )
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_page_quotes_the_sentence(case: str) -> None:
    sentence = CASES[case]()
    assert sentence in PAGE, f"docs/refusals.md does not quote: {sentence}"
