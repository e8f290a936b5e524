"""The rules' machinery: per-row ranges met into one test, the same refusals and reasons."""

from __future__ import annotations

import itertools
import math

import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._metrics.calibration.expressions import brier_score_metric
from lodestar_polars._metrics.dcg.expressions import ndcg_metric
from lodestar_polars._metrics.expr import Closed, Within, _met

INF = math.inf
VALUES = [float("nan"), -INF, -1.0, 0.0, 0.5, 1.0, 2.0, INF, None]
BOUNDS = [(-INF, INF), (0.0, INF), (-INF, 1.0), (0.0, 1.0), (1.0, 2.0)]
CLOSED: list[Closed] = ["none", "left", "right", "both"]
RANGES = [Within(pl.col("x"), lo, hi, c) for (lo, hi), c in itertools.product(BOUNDS, CLOSED)]


@pytest.mark.parametrize(
    ("a", "b"),
    list(itertools.product(RANGES, RANGES)),
    ids=lambda r: f"{r.lower},{r.upper},{r.closed}",
)
def test_a_met_range_keeps_the_rows_both_keep(a: Within, b: Within) -> None:
    # every value, NaN, the infinities, the bounds themselves and null: one test is the two
    frame = pl.DataFrame({"x": VALUES}, schema={"x": pl.Float64})
    met = a.meet(b)
    got = frame.select(met.test().fill_null(False)).to_series().to_list()
    both = frame.select((a.test() & b.test()).fill_null(False)).to_series().to_list()
    assert got == both


def test_a_range_by_hand() -> None:
    # finite (-inf, inf) and at least 0 [0, inf]: [0, inf), NDCG's gains
    finite = Within(pl.col("g"), -INF, INF, "none")
    met = finite.meet(Within(pl.col("g"), 0.0, INF, "both"))
    assert (met.lower, met.upper, met.closed) == (0.0, INF, "left")
    # finite, at most 1, at least 0: [0, 1], Brier's probabilities
    met = finite.meet(Within(pl.col("g"), -INF, 1.0, "both")).meet(
        Within(pl.col("g"), 0.0, INF, "both")
    )
    assert (met.lower, met.upper, met.closed) == (0.0, 1.0, "both")


def test_ranges_on_the_same_input_are_one_test() -> None:
    # NDCG: y_true finite and not negative met into one range; y_score's finite range its own
    checks = ndcg_metric("t", "s", k=10).checks
    ranges = _met([c.within for c in checks if c.within is not None])
    assert [(r.lower, r.upper, r.closed) for r in ranges] == [
        (0.0, INF, "left"),
        (-INF, INF, "none"),
    ]
    checks = brier_score_metric("t", "p").checks
    ranges = _met([c.within for c in checks if c.within is not None])
    assert [(r.lower, r.upper, r.closed) for r in ranges] == [
        (-INF, INF, "none"),
        (0.0, 1.0, "both"),
    ]


NDCG_GROUPS = {
    "null": (None, "Input y_true contains null."),
    "nan": (float("nan"), "Input y_true contains NaN."),
    "inf": (INF, "Input y_true contains infinity or a value too large for dtype('float64')."),
    "minus_inf": (
        -INF,
        "Input y_true contains infinity or a value too large for dtype('float64').",
    ),
    "negative": (-1.0, "ndcg_score should not be used on negative y_true values."),
}


@pytest.mark.parametrize("case", list(NDCG_GROUPS))
def test_ndcg_refuses_each_rule_with_its_own_reason(case: str) -> None:
    # one bad relevance beside good rows: the group is null, the first rule it breaks is named,
    # and the good group beside it keeps its value (1/log2(2) over the same: 1.0)
    bad, reason = NDCG_GROUPS[case]
    frame = pl.DataFrame(
        {"q": [1, 1, 1, 2, 2], "t": [1.0, bad, 0.0, 1.0, 0.0], "s": [0.9, 0.5, 0.1, 0.9, 0.1]},
        schema={"q": pl.Int64, "t": pl.Float64, "s": pl.Float64},
    )
    metric = ndcg_metric("t", "s", k=10)
    out = (
        frame.group_by("q")
        .agg(lp.ndcg("t", "s", k=10).alias("v"), metric.reason().alias("why"))
        .sort("q")
    )
    assert out["v"].to_list() == [None, 1.0]
    assert out["why"].to_list() == [reason, None]


@pytest.mark.parametrize(
    ("p", "reason"),
    [
        (1.5, "y_prob contains values greater than 1: 1.5"),
        (-0.5, "y_prob contains values less than 0: -0.5"),
        (float("nan"), "Input y_prob contains NaN."),
        (None, "Input y_prob contains null."),
    ],
)
def test_brier_refuses_each_rule_with_its_own_reason(p: float | None, reason: str) -> None:
    # the good group: ((0.8 - 1)^2 + (0.2 - 0)^2) / 2 = 0.04
    frame = pl.DataFrame(
        {"q": [1, 1, 2, 2], "t": [1, 0, 1, 0], "p": [p, 0.2, 0.8, 0.2]},
        schema={"q": pl.Int64, "t": pl.Int64, "p": pl.Float64},
    )
    metric = brier_score_metric("t", "p")
    out = frame.group_by("q").agg(metric.expr().alias("v"), metric.reason().alias("why")).sort("q")
    assert out["v"][0] is None
    assert out["v"][1] == pytest.approx(0.04, rel=1e-12)
    assert out["why"].to_list() == [reason, None]


def test_err_grades_over_the_maximum_are_refused_in_its_sentence() -> None:
    # ERR's grade rule is a range of y_true, met with its finite range: -inf < grade <= 4
    from lodestar_polars._metrics.user_models import err_metric

    metric = err_metric("t", "s", ties="input")
    ranges = _met([c.within for c in metric.checks if c.within is not None])
    assert [(r.lower, r.upper, r.closed) for r in ranges] == [
        (-INF, 4.0, "right"),
        (-INF, INF, "none"),
    ]
    frame = pl.DataFrame({"q": [1, 1, 2, 2], "t": [5.0, 0.0, 4.0, 0.0], "s": [0.9, 0.1, 0.9, 0.1]})
    out = frame.group_by("q").agg(metric.expr().alias("v"), metric.reason().alias("why")).sort("q")
    # the good group: its first row stops the user with (2^4 - 1) / 2^4 = 15/16, at rank 1
    assert out["v"].to_list() == [None, 15 / 16]
    assert out["why"].to_list() == [
        "err's grades must be at most max_grade=4.0 (the grade of the highest stopping chance). "
        "Got 5.0 instead.",
        None,
    ]


def test_decimal_scores_are_ranked_on_every_path() -> None:
    # docs/refusals.md, "What is not refused": lp.evaluate reads a Decimal score as Float64, the
    # expressions rank it as Decimal; the tie-pattern path (averaged ties, k <= 10) reads its
    # last tie block from the scaled integers (Polars has no list arithmetic on Decimal)
    from decimal import Decimal

    scores = ["0.5", "0.2", "0.9", "0.9"]
    frame = pl.DataFrame({"q": [1, 1, 1, 1], "t": [1, 0, 2, 0], "s": [Decimal(x) for x in scores]})
    floats = frame.with_columns(pl.col("s").cast(pl.Float64))
    # the rows 0.9 (gains 2 and 0, tied), 0.5 (1), 0.2 (0): DCG (2 + 0) / 2 * (1 + 1/log2(3))
    # + 1 / 2 over the ideal 2 + 1 / log2(3)
    third = 1 / math.log2(3)
    expected = ((1 + third) + 0.5) / (2 + third)
    for f in (frame, floats):
        for k in (None, 10, 3):
            got = f.group_by("q").agg(lp.ndcg("t", "s", k=k)).get_column("ndcg").item()
            assert got == pytest.approx(expected, rel=1e-12)
        evaluated = lp.evaluate(f, ["ndcg@10"], by="q", y_true="t", y_score="s")
        assert evaluated.get_column("ndcg@10").item() == pytest.approx(expected, rel=1e-12)


def test_decimal_scores_of_38_digits_keep_their_ties_apart() -> None:
    # neighbours that differ in the 38th digit are two scores (as Float64 they would be one):
    # the last tie block past k is read exactly. Scores b > a > c, b twice, a three times, c
    # seven times; k = 3 cuts inside a's block (positions 2-4 of a's three rows: ranks 3-5).
    from decimal import Decimal

    a, b, c = Decimal("9" * 37 + "8"), Decimal("9" * 38), Decimal("-" + "9" * 38)
    frame = pl.DataFrame(
        {
            "q": [1] * 12,
            "t": [1, 0, 2, 0, 1, 1, 0, 0, 0, 0, 0, 3],
            "s": [b, b, a, c, a, a, c, c, c, c, c, c],
        },
        schema={"q": pl.Int64, "t": pl.Int64, "s": pl.Decimal(38, 0)},
    )
    d = [1 / math.log2(i + 2) for i in range(3)]
    # b's block (gains 1, 0) at ranks 1-2: mean 1/2 over d0 + d1; a's block (gains 2, 1, 1) at
    # ranks 3-5, cut at 3: mean 4/3 over d2; the ideal 3, 2, 1
    dcg = 0.5 * (d[0] + d[1]) + (4 / 3) * d[2]
    ideal = 3 * d[0] + 2 * d[1] + 1 * d[2]
    got = frame.group_by("q").agg(lp.ndcg("t", "s", k=3)).get_column("ndcg").item()
    assert got == pytest.approx(dcg / ideal, rel=1e-12)
