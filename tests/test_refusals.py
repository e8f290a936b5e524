"""Options and names refused with a sentence (issue 8, items 8 and 9), never a quiet change.

Each sentence names the parameter, states the rule and echoes the value, in
scikit-learn's words where scikit-learn has them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._metrics import ir as _ir
from lodestar_polars._metrics.expr import Metric

LOG = pl.DataFrame({"q": [1, 1, 2, 2], "t": [1, 0, 0, 1], "s": [0.5, 0.2, 0.3, 0.1]})


def _bool_msg(name: str, value: Any) -> str:
    return (
        f"The {name!r} parameter of evaluate must be an instance of 'bool' or an instance of "
        f"'numpy.bool'. Got {value!r} instead."
    )


def _batch_msg(value: Any) -> str:
    return (
        "The 'batch_rows' parameter of evaluate must be an int in the range [1, inf) or None. "
        f"Got {value!r} instead."
    )


@pytest.mark.parametrize(
    ("options", "msg"),
    [
        ({"batch_rows": 0}, _batch_msg(0)),
        ({"batch_rows": -1}, _batch_msg(-1)),
        ({"batch_rows": 2.5}, _batch_msg(2.5)),
        ({"batch_rows": "10"}, _batch_msg("10")),
        ({"strict": "no"}, _bool_msg("strict", "no")),
        ({"strict": 0}, _bool_msg("strict", 0)),
        ({"mean": 1}, _bool_msg("mean", 1)),
        (
            {"progress": 3},
            "The 'progress' parameter of evaluate must be a bool, a callable or None. "
            "Got 3 instead.",
        ),
    ],
    ids=str,
)
@pytest.mark.parametrize("lazy", [False, True])
def test_evaluate_options(options: dict[str, Any], msg: str, *, lazy: bool) -> None:
    frame = LOG.lazy() if lazy else LOG
    with pytest.raises(lp.InvalidParameterError, match=re.escape(msg)):
        lp.evaluate(frame, ["rr"], by="q", y_true="t", y_score="s", **options)


@pytest.mark.parametrize("batch_rows", [1, np.int64(3), 10**18])
def test_evaluate_batch_rows_accepts_any_positive_integer(batch_rows: Any) -> None:
    out = lp.evaluate(LOG.lazy(), ["rr"], by="q", y_true="t", y_score="s", batch_rows=batch_rows)
    assert out.collect()["rr"].to_list() == [1.0, 0.5]


@pytest.mark.parametrize(
    ("by", "metrics", "weight", "msg"),
    [
        (
            "ndcg",
            ["ndcg"],
            None,
            "metric 'ndcg' and `by` column 'ndcg' would both be the result's column 'ndcg'",
        ),
        ("q", ["rr", "w"], "w", "metric 'w' and `weight` column 'w' would both be"),
        (["q", "q"], ["rr"], None, "`by` column 'q' and `by` column 'q' would both be"),
        ("q", ["rr"], "q", "`weight` column 'q' and `by` column 'q' would both be"),
    ],
)
def test_evaluate_output_names_do_not_collide(
    by: Any, metrics: list[str], weight: str | None, msg: str
) -> None:
    frame = LOG.with_columns(ndcg=pl.col("q"), w=pl.lit(1.0))
    with pytest.raises(ValueError, match=re.escape(msg)):
        lp.evaluate(frame, metrics, by=by, y_true="t", y_score="s", weight=weight)


def test_evaluate_metric_named_like_a_key_has_another_spelling() -> None:
    """The way out the sentence offers works: the same metric under another of its names."""
    frame = LOG.rename({"q": "ndcg"})
    out = lp.evaluate(frame, ["nDCG"], by="ndcg", y_true="t", y_score="s")
    assert out.columns == ["ndcg", "nDCG"]
    assert out["nDCG"].to_list() == [1.0, pytest.approx(1 / np.log2(3))]


def test_evaluate_refuses_its_own_working_column_names() -> None:
    frame = LOG.rename({"q": "__lodestar_row"})
    with pytest.raises(ValueError, match="lp.evaluate's own working columns"):
        lp.evaluate(frame, ["rr"], by="__lodestar_row", y_true="t", y_score="s")


# ------------------------------------------------------------- IR options (item 9)


@pytest.mark.parametrize("level", [float("nan"), float("inf"), True, "1", [1]], ids=repr)
@pytest.mark.parametrize("metric", [lp.precision, lp.recall, lp.hit_rate], ids=lambda m: m.__name__)
def test_relevance_level_must_be_a_finite_number(metric: Any, level: Any) -> None:
    msg = (
        f"The 'relevance_level' parameter of {metric.__name__} must be a finite real number or "
        f"None. Got {level!r} instead."
    )
    with pytest.raises(lp.InvalidParameterError, match=re.escape(msg)):
        metric("t", "s", k=1, relevance_level=level)


@pytest.mark.parametrize("level", [np.int64(2), np.int32(2), 2, 2.0, np.float32(2.0)], ids=repr)
def test_relevance_level_of_any_numeric_type(level: Any) -> None:
    frame = pl.DataFrame({"q": [1, 1, 1], "t": [2, 1, 0], "s": [0.1, 0.9, 0.5]})
    out = frame.group_by("q").agg(lp.precision("t", "s", k=3, relevance_level=level))
    assert out["precision"].item() == pytest.approx(1 / 3)  # only the row of relevance 2


@pytest.mark.parametrize(
    ("n_relevant", "shown"),
    [(2.5, "2.5"), (float("inf"), "inf"), (-1.0, "-1.0")],
    ids=["fraction", "infinite", "negative"],
)
@pytest.mark.parametrize("name", ["recall", "r_precision", "average_precision_at_k"])
def test_n_relevant_must_be_a_whole_count(name: str, n_relevant: float, shown: str) -> None:
    """``n_relevant=2.5`` gave R-precision values that differed between tie rules."""
    frame = pl.DataFrame({"q": [1, 1, 1], "t": [1, 0, 1], "s": [0.9, 0.5, 0.1], "n": n_relevant})
    options = {"k": 2} if name != "r_precision" else {}
    metric = getattr(lp, name)("t", "s", n_relevant="n", **options)
    out = frame.group_by("q").agg(metric.alias("v"))
    assert out["v"].to_list() == [None]
    builders: dict[str, Callable[..., Metric]] = {
        "recall": _ir.recall_metric,
        "r_precision": _ir.r_precision_metric,
        "average_precision_at_k": _ir.average_precision_at_k_metric,
    }
    built = builders[name]("t", "s", n_relevant="n", **options)
    reason = frame.group_by("q").agg(built.reason().alias("why"))["why"].item()
    assert reason == (
        f"n_relevant must be a whole number of relevant documents (0, 1, 2, ...). Got {shown} "
        "instead."
    )


def test_n_relevant_whole_float_is_accepted() -> None:
    frame = pl.DataFrame({"q": [1, 1, 1], "t": [1, 0, 1], "s": [0.9, 0.5, 0.1], "n": 4.0})
    out = frame.group_by("q").agg(lp.recall("t", "s", k=1, n_relevant="n"))
    assert out["recall"].item() == 0.25  # 1 of the 4 judged relevant documents


@pytest.mark.parametrize("k", [np.int64(2), np.uint8(2), np.int32(2)], ids=repr)
@pytest.mark.parametrize("metric", [lp.ndcg, lp.precision, lp.reciprocal_rank, lp.top_k_accuracy])
def test_k_of_any_integer_type(metric: Any, k: Any) -> None:
    frame = pl.DataFrame({"q": [1, 1, 1], "t": [0, 1, 0], "s": [0.9, 0.5, 0.1]})
    out = frame.group_by("q").agg(metric("t", "s", k=k).alias("v"))
    same = frame.group_by("q").agg(metric("t", "s", k=2).alias("v"))
    assert out["v"].to_list() == same["v"].to_list()
