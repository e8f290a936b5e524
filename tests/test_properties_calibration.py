"""Hypothesis properties of the calibration metrics on random groups of probabilities and labels.

Groups are small (at most 5 groups of at most 10 rows) and probabilities are
drawn from a short list (0, 1, ties, the smallest and largest floats below 1)
or from [0, 1], so ties, one-class groups and clipped log losses come up often.

The references are independent of the package:

* scikit-learn 1.9.1, per group: ``log_loss(labels=[0, 1])``,
  ``brier_score_loss``, ``roc_auc_score`` (NaN, with its warning, for one
  class), and the sentence it raises or warns for a group it refuses;
* a hand-written ECE below (``np.percentile`` for the quantile edges, as
  ``calibration_curve`` places them; ``math.fsum`` per bin);
* ``lp.evaluate``'s NumPy cores are checked against the expressions.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, roc_auc_score
from sklearn.metrics import log_loss as sk_log_loss

import lodestar_polars as lp
from lodestar_polars.exceptions import RefusedGroupError

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
#: scikit-learn sums in another order than Polars and NumPy
REL, ABS = 1e-12, 1e-15

PROBABILITY = st.one_of(
    st.sampled_from([0.0, 1.0, 0.5, 0.1, 0.3, 0.7, 0.9, 5e-324, 1e-300, 1 - 2**-53, 2**-53]),
    st.floats(min_value=0.0, max_value=1.0),
)
ROW = st.tuples(st.sampled_from([0, 1]), PROBABILITY)
GROUPS = st.lists(st.lists(ROW, min_size=1, max_size=10), min_size=1, max_size=5)
N_BINS = st.integers(min_value=1, max_value=12)

EXPRESSIONS = {"roc_auc": lp.roc_auc, "log_loss": lp.log_loss, "brier_score": lp.brier_score}


def _frame(groups: list[list[tuple[float, float | None]]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "g": [i for i, rows in enumerate(groups) for _ in rows],
            "y": [float(y) for rows in groups for y, _ in rows],
            "p": pl.Series([p for rows in groups for _, p in rows], dtype=pl.Float64),
        }
    )


def _sklearn(function: str, y: list[float], p: list[float]) -> float | str:
    """scikit-learn's value for one group, or the sentence it raises (or warns with, for NaN)."""
    call: Callable[[], Any] = {
        "log_loss": lambda: sk_log_loss(y, p, labels=[0, 1]),
        "brier_score": lambda: brier_score_loss(y, p),
        "roc_auc": lambda: roc_auc_score(y, p),
        "ece": lambda: calibration_curve(y, p),
    }[function]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = call()
        except ValueError as error:
            return str(error)
    if function == "ece":
        return math.nan  # calibration_curve's bins are checked in tests/test_calibration.py
    if math.isnan(value):
        return str(caught[-1].message)
    return float(value)


def ece_reference(y: list[float], p: list[float], n_bins: int, strategy: str) -> float:
    """ECE by hand: the bins of ``calibration_curve`` (an edge value in the lower bin)."""
    if strategy == "uniform":
        edges = list(np.linspace(0.0, 1.0, n_bins + 1)[1:-1])  # linspace's own roundings
    else:
        edges = list(np.percentile(p, np.linspace(0, 1, n_bins + 1) * 100)[1:-1])
    bins: dict[int, list[int]] = {}
    for i, value in enumerate(p):
        bins.setdefault(sum(1 for edge in edges if edge < value), []).append(i)
    gaps = []
    for rows in bins.values():
        accuracy = math.fsum(y[i] for i in rows) / len(rows)
        confidence = math.fsum(p[i] for i in rows) / len(rows)
        gaps.append(len(rows) / len(p) * abs(accuracy - confidence))
    return math.fsum(gaps)


def _close(actual: float | None, expected: float | None) -> bool:
    if expected is None:
        return actual is None
    return actual is not None and math.isclose(actual, expected, rel_tol=REL, abs_tol=ABS)


def _collect(out: Any) -> pl.DataFrame:
    return out.collect() if isinstance(out, pl.LazyFrame) else out


def _per_group(frame: pl.DataFrame, expr: pl.Expr) -> list[float | None]:
    return frame.group_by("g").agg(expr.alias("v")).sort("g")["v"].to_list()


# --------------------------------------------------------------------------- valid groups


@SETTINGS
@given(groups=GROUPS, n_bins=N_BINS, lazy=st.booleans())
def test_valid_groups_equal_scikit_learn_and_evaluate(
    groups: list[list[tuple[int, float]]], n_bins: int, *, lazy: bool
) -> None:
    """Each group's value is scikit-learn's (ECE: the hand reference); lp.evaluate agrees."""
    frame = _frame(groups)  # type: ignore[arg-type]
    source = frame.lazy() if lazy else frame
    names = ["roc_auc", "log_loss", "brier_score", f"ece@{n_bins}", f"ece_quantile@{n_bins}"]
    evaluated = _collect(lp.evaluate(source, names, by="g", y_true="y", y_score="p", strict=False))
    assert evaluated["g"].to_list() == list(range(len(groups)))
    for function, make in EXPRESSIONS.items():
        got = _per_group(frame, make("y", "p"))
        for rows, value, by_evaluate in zip(groups, got, evaluated[function], strict=True):
            y, p = [float(r[0]) for r in rows], [r[1] for r in rows]
            expected = _sklearn(function, y, p)
            if isinstance(expected, str):  # roc_auc of one class only
                assert function == "roc_auc"
                assert expected.startswith("Only one class is present in y_true.")
                assert value is None, (function, rows)
            else:
                assert _close(value, expected), (function, rows, value, expected)
            assert _close(by_evaluate, value), (function, rows, by_evaluate, value)
    for strategy, name in (("uniform", f"ece@{n_bins}"), ("quantile", f"ece_quantile@{n_bins}")):
        expr = lp.expected_calibration_error("y", "p", n_bins=n_bins, strategy=strategy)  # type: ignore[arg-type]
        got = _per_group(frame, expr)
        for rows, value, by_evaluate in zip(groups, got, evaluated[name], strict=True):
            y, p = [float(r[0]) for r in rows], [r[1] for r in rows]
            expected = ece_reference(y, p, n_bins, strategy)
            assert _close(value, expected), (name, rows, value, expected)
            assert _close(by_evaluate, value), (name, rows, by_evaluate, value)


# --------------------------------------------------------------------------- refused groups

BINARY = "{} needs a binary y_true (bool, or 0 and 1). Got {} instead."

#: a way to break a group: (what is changed, the metrics that refuse it)
BREAKS = {
    "above-1": ("p", ("log_loss", "brier_score", "ece")),
    "below-0": ("p", ("log_loss", "brier_score", "ece")),
    "label": ("y", ("roc_auc", "log_loss", "brier_score", "ece")),
    "nan": ("p", ("roc_auc", "log_loss", "brier_score", "ece")),
    "null": ("p", ("roc_auc", "log_loss", "brier_score", "ece")),
    "one-class": ("y", ("roc_auc",)),
}
EVALUATE_NAME = {"roc_auc": "auc", "log_loss": "log_loss", "brier_score": "brier", "ece": "ece@4"}
EXPRESSION: dict[str, Callable[..., pl.Expr]] = {
    **EXPRESSIONS,
    "ece": lambda y, p: lp.expected_calibration_error(y, p, n_bins=4),
}


@st.composite
def broken(draw: st.DrawFn) -> tuple[str, int, list[list[tuple[float, float | None]]]]:
    """Groups that every metric scores (both classes), one of them broken one way."""
    kind = draw(st.sampled_from(sorted(BREAKS)))
    groups: list[list[tuple[float, float | None]]] = [
        [(0.0, draw(PROBABILITY)), (1.0, draw(PROBABILITY)), *draw(st.lists(ROW, max_size=6))]
        for _ in range(draw(st.integers(min_value=2, max_value=4)))
    ]
    bad = draw(st.integers(min_value=0, max_value=len(groups) - 1))
    rows = list(groups[bad])
    at = draw(st.integers(min_value=0, max_value=len(rows) - 1))
    y, p = rows[at]
    if kind == "above-1":
        value = draw(st.floats(min_value=1.0, max_value=1e300, exclude_min=True))
        rows[at] = (y, value)
    elif kind == "below-0":
        rows[at] = (y, -draw(st.floats(min_value=5e-324, max_value=1e300)))
    elif kind == "label":
        rows[at] = (draw(st.sampled_from([2.0, -1.0, 0.5, 3.0])), p)
    elif kind == "nan":
        rows[at] = (y, math.nan)
    elif kind == "null":
        rows[at] = (y, None)
    else:
        label = draw(st.sampled_from([0.0, 1.0]))
        rows = [(label, q) for _, q in rows]
    groups[bad] = rows
    return kind, bad, groups


def _expected_sentence(function: str, kind: str, rows: list[tuple[float, float | None]]) -> str:
    """scikit-learn's sentence where it has one for the rule, else ours."""
    y = [r[0] for r in rows]
    role = "y_score" if function == "roc_auc" else "y_prob"
    if kind == "nan":
        return f"Input {role} contains NaN."
    if kind == "null":
        return f"Input {role} contains null."
    if kind == "label":
        name = "expected_calibration_error" if function == "ece" else function
        return BINARY.format(name, next(v for v in y if v not in (0.0, 1.0)))
    sentence = _sklearn(function, y, [float(r[1]) for r in rows])  # type: ignore[arg-type]
    assert isinstance(sentence, str), (function, rows, sentence)
    return sentence


@SETTINGS
@given(case=broken(), lazy=st.booleans())
def test_broken_group_is_named_by_strict_evaluate_and_null(
    case: tuple[str, int, list[list[tuple[float, float | None]]]], *, lazy: bool
) -> None:
    """Strict lp.evaluate names the group and the rule; the expression and strict=False: null."""
    kind, bad, groups = case
    _, refusing = BREAKS[kind]
    frame = _frame(groups)
    source = frame.lazy() if lazy else frame
    for function, name in EVALUATE_NAME.items():
        values = _per_group(frame, EXPRESSION[function]("y", "p"))
        out = _collect(lp.evaluate(source, [name], by="g", y_true="y", y_score="p", strict=False))
        if function not in refusing:
            assert all(v is not None for v in values), (function, kind, values)
            _collect(lp.evaluate(source, [name], by="g", y_true="y", y_score="p"))
            continue
        assert values[bad] is None, (function, kind, values)
        assert out[name][bad] is None, (function, kind)
        assert [v is None for v in values] == [i == bad for i in range(len(groups))]
        for i, value in enumerate(values):
            if i != bad:
                assert _close(out[name][i], value), (function, i, out[name][i], value)
        sentence = _expected_sentence(function, kind, groups[bad])
        expected = (
            f"metric {name!r} refused 1 group(s):\n  g={bad}: {sentence}\n"
            "(pass strict=False to get null for these groups instead)"
        )
        with pytest.raises(RefusedGroupError, match=f"^{re.escape(expected)}$"):
            _collect(lp.evaluate(source, [name], by="g", y_true="y", y_score="p"))
