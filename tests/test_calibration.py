"""AUC and calibration (issue 11, seed 003 §4): the expressions and the frame functions.

* corpus parity: every corpus case of ``roc_auc_score``, ``log_loss``,
  ``brier_score_loss`` and ``calibration_curve`` that a long frame can hold
  (0/1 or bool labels, a 1-D score, no weights, no option the expression has
  not) is one group of a frame, and every path (``group_by``, lazy,
  streaming, ``.over``, ``select`` per group) gives scikit-learn 1.9.1's value;
  the refused groups give null and scikit-learn's sentence;
* ECE, which scikit-learn lacks: hand arithmetic and a slow loop reference;
* seed 003 §4: AUC unchanged under a monotone transform while log loss and
  ECE move;
* group AUC: hand arithmetic, a loop reference, the one-class users skipped
  and counted, refused users named.
"""

from __future__ import annotations

import importlib.util
import math
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._base.validation import BinStrategy
from lodestar_polars._metrics.calibration import (
    GroupWeight,
    brier_score_metric,
    expected_calibration_error_metric,
    log_loss_metric,
    roc_auc_metric,
)
from lodestar_polars.exceptions import InvalidParameterError, RefusedGroupError


def _load_corpus_module() -> Any:
    name = "_lodestar_tests_corpus"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("_corpus.py"))
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


corpus = _load_corpus_module()

EXPRESSIONS = {
    "roc_auc_score": (lp.roc_auc, roc_auc_metric, "y_score"),
    "log_loss": (lp.log_loss, log_loss_metric, "y_proba"),
    "brier_score_loss": (lp.brier_score, brier_score_metric, "y_proba"),
}
PATHS = ("group_by", "lazy", "streaming", "over", "select")


def _flat(values: list[Any]) -> list[Any]:
    return [v[0] if isinstance(v, list) and len(v) == 1 else v for v in values]


def _long_form(case: Any, score_key: str, allowed: set[str]) -> tuple[list[Any], list[Any]] | None:
    """``(y_true, score)`` of a case a long frame can hold, else None."""
    kwargs = case.kwargs
    extra = set(kwargs) - {"y_true", score_key} - allowed
    if extra - {"labels"} or ("labels" in extra and kwargs["labels"] != [0, 1]):
        return None
    y_true, score = _flat(kwargs["y_true"]), _flat(kwargs[score_key])
    if any(isinstance(v, list) for v in score) or len(y_true) != len(score):
        return None
    if not all(type(v) in (int, bool) and v in (0, 1) for v in y_true):
        return None
    return y_true, score


def _frame(groups: list[tuple[list[Any], list[Any]]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "g": [i for i, (t, _) in enumerate(groups) for _ in t],
            "y": [float(v) for t, _ in groups for v in t],
            "s": [float(v) for _, s in groups for v in s],
        }
    )


def _run(path: str, frame: pl.DataFrame, expr: pl.Expr) -> list[Any]:
    """Per-group values of ``expr`` on ``path``, in group order."""
    name = expr.meta.output_name()
    if path == "group_by":
        out = frame.group_by("g", maintain_order=True).agg(expr)
    elif path == "lazy":
        out = frame.lazy().group_by("g", maintain_order=True).agg(expr).collect()
    elif path == "streaming":
        out = frame.lazy().group_by("g", maintain_order=True).agg(expr).collect(engine="streaming")
    elif path == "over":
        out = (
            frame.select("g", expr.over("g"))
            .group_by("g", maintain_order=True)
            .agg(pl.col(name).first(), pl.col(name).n_unique().alias("distinct"))
        )
        assert out["distinct"].to_list() == [1] * out.height
    else:
        return [part.select(expr).item() for part in frame.partition_by("g", maintain_order=True)]
    assert out.schema[name] == pl.Float64
    return out[name].to_list()


def _close(actual: Any, expected: Any) -> bool:
    if expected is None or (isinstance(expected, float) and math.isnan(expected)):
        return actual is None
    return actual is not None and math.isclose(actual, expected, rel_tol=1e-12, abs_tol=1e-12)


# --------------------------------------------------------------------------- corpus parity


@pytest.mark.parametrize("function", sorted(EXPRESSIONS))
def test_corpus_values_on_every_path(function: str) -> None:
    """Every case a long frame can hold, one group each, on every path."""
    make, _, score_key = EXPRESSIONS[function]
    cases, groups = [], []
    for case in corpus.load(function):
        form = _long_form(case, score_key, set())
        if form is not None and not case.is_error:
            cases.append(case)
            groups.append(form)
    assert len(cases) >= 25, len(cases)
    frame = _frame(groups)
    for path in PATHS:
        values = _run(path, frame, make("y", "s"))
        wrong = [
            (case.id, value, case.expected)
            for case, value in zip(cases, values, strict=True)
            if not _close(value, case.expected)
        ]
        assert not wrong, (path, wrong)


@pytest.mark.parametrize("function", sorted(EXPRESSIONS))
def test_corpus_refusals_carry_the_sentence(function: str) -> None:
    """A case scikit-learn refuses (or answers NaN) is a null group with its sentence."""
    _, metric, score_key = EXPRESSIONS[function]
    checked = 0
    for case in corpus.load(function):
        form = _long_form(case, score_key, set())
        if form is None or "non-finite" in case.tags:
            continue
        if case.id == "error-one-class":
            continue  # log_loss's labels are fixed to [0, 1]: "one-class-with-labels" scores it
        if case.is_error:
            sentence = case.raises["message"]
        elif isinstance(case.expected, float) and math.isnan(case.expected):
            sentence = case.warns[0]["message"]
        else:
            continue
        m = metric("y", "s")
        out = _frame([form]).select(m.expr(), m.reason().alias("reason"))
        assert out[m.name].to_list() == [None], case.id
        assert out["reason"].to_list() == [sentence], case.id
        checked += 1
    assert checked >= 2, checked


def test_non_finite_refused_in_our_words() -> None:
    """NaN and infinity: null, the sentence naming the input (scikit-learn's says "Input")."""
    frame = _frame([([0, 1], [math.nan, 0.2]), ([0, 1], [0.1, math.inf])])
    m = log_loss_metric("y", "s")
    out = frame.group_by("g", maintain_order=True).agg(m.expr(), m.reason().alias("why"))
    assert out["log_loss"].to_list() == [None, None]
    assert out["why"].to_list() == [
        "Input y_prob contains NaN.",
        "Input y_prob contains infinity or a value too large for dtype('float64').",
    ]
    r = roc_auc_metric("y", "s")
    assert frame.head(2).select(r.reason()).item() == "Input y_score contains NaN."


def test_calibration_curve_frame_matches_corpus() -> None:
    """``lp.calibration_curve`` on each case (and on all at once with ``by``)."""
    cases, groups, options = [], [], []
    for case in corpus.load("calibration_curve"):
        form = _long_form(case, "y_prob", {"n_bins", "strategy"})
        if form is None or case.is_error:
            continue
        kwargs = {k: case.kwargs[k] for k in ("n_bins", "strategy") if k in case.kwargs}
        frame = _frame([form])
        out = lp.calibration_curve(frame, "y", "s", **kwargs)
        corpus.assert_close(out["prob_true"].to_list(), case.expected[0])
        corpus.assert_close(out["prob_pred"].to_list(), case.expected[1])
        assert out["count"].sum() == len(form[0])
        cases.append(case)
        groups.append(form)
        options.append(kwargs)
    assert len(cases) >= 30
    # with by: the cases of the same options are the groups of one frame
    for ref in {tuple(sorted(o.items())) for o in options}:
        kept = [j for j, o in enumerate(options) if tuple(sorted(o.items())) == ref]
        frame = _frame([groups[j] for j in kept])
        out = lp.calibration_curve(frame, "y", "s", by="g", **dict(ref))
        for g, j in enumerate(kept):
            part = out.filter(pl.col("g") == g)
            corpus.assert_close(part["prob_true"].to_list(), cases[j].expected[0])
            corpus.assert_close(part["prob_pred"].to_list(), cases[j].expected[1])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"n_bins": 0},
            "The 'n_bins' parameter of calibration_curve must be an int in the range [1, inf). "
            "Got 0 instead.",
        ),
        (
            {"n_bins": 2.0},
            "The 'n_bins' parameter of calibration_curve must be an int in the range [1, inf). "
            "Got 2.0 instead.",
        ),
        (
            {"strategy": "x"},
            "The 'strategy' parameter of calibration_curve must be a str among "
            "{'quantile', 'uniform'}. Got 'x' instead.",
        ),
    ],
)
def test_calibration_curve_options(kwargs: dict[str, Any], message: str) -> None:
    """``n_bins`` and ``strategy`` in scikit-learn's sentences, for both functions."""
    frame = _frame([([0, 1], [0.1, 0.2])])
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        lp.calibration_curve(frame, "y", "s", **kwargs)
    ece_message = message.replace("calibration_curve", "expected_calibration_error")
    with pytest.raises(InvalidParameterError, match=re.escape(ece_message)):
        lp.expected_calibration_error("y", "s", **kwargs)


def test_calibration_curve_refuses_bad_groups() -> None:
    """Outside [0, 1], in scikit-learn's sentence, naming the group."""
    frame = _frame([([0, 1], [0.1, 0.2]), ([0, 1], [0.1, 1.2])])
    message = "g=1: y_prob has values outside [0, 1]."
    with pytest.raises(RefusedGroupError, match=re.escape(message)):
        lp.calibration_curve(frame, "y", "s", by="g")
    with pytest.raises(RefusedGroupError, match=re.escape("the frame: y_prob has values outside")):
        lp.calibration_curve(frame, "y", "s")
    with pytest.raises(
        lp.InvalidParameterError,
        match="The 'frame' parameter of calibration_curve must be a polars DataFrame or "
        "LazyFrame \\(or Arrow data\\). Got dict instead.",
    ):
        lp.calibration_curve({"y": [0]}, "y", "s")  # type: ignore[type-var]
    with pytest.raises(
        lp.InvalidParameterError,
        match="The 'y_prob' parameter of calibration_curve names 'p', which is not a column",
    ):
        lp.calibration_curve(frame, "y", "p")


# --------------------------------------------------------------------------- ECE


def _ece_loop(y: Sequence[float], p: Sequence[float], n_bins: int, strategy: str) -> float:
    """The textbook ECE, one row and one bin at a time."""
    if strategy == "uniform":
        edges = list(np.linspace(0.0, 1.0, n_bins + 1))
    else:
        edges = list(np.percentile(p, np.linspace(0, 1, n_bins + 1) * 100))
    inner = edges[1:-1]
    total = 0.0
    for b in range(n_bins):
        rows = [i for i in range(len(p)) if sum(1 for e in inner if e < p[i]) == b]
        if rows:
            accuracy = sum(y[i] for i in rows) / len(rows)
            confidence = sum(p[i] for i in rows) / len(rows)
            total += len(rows) / len(p) * abs(accuracy - confidence)
    return total


def test_ece_by_hand() -> None:
    """Two bins of three rows: |1/3 - 0.2| / 2 + |2/3 - 2.3/3| / 2."""
    frame = _frame([([0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.6, 0.8, 0.9])])
    expected = abs(1 / 3 - 0.6 / 3) / 2 + abs(2 / 3 - 2.3 / 3) / 2
    got = frame.select(lp.expected_calibration_error("y", "s", n_bins=2)).item()
    assert got == pytest.approx(expected, rel=1e-14)
    # a perfectly calibrated bin: 0.5 predicted, one of two positive
    frame = _frame([([0, 1], [0.5, 0.5])])
    assert frame.select(lp.expected_calibration_error("y", "s")).item() == 0.0
    # the edge 0.5 belongs to the lower bin: 0.5 with n_bins=2 sits with 0.1
    frame = _frame([([1, 0, 1], [0.1, 0.5, 0.9])])
    expected = 2 / 3 * abs(0.5 - 0.3) + 1 / 3 * abs(1 - 0.9)
    got = frame.select(lp.expected_calibration_error("y", "s", n_bins=2)).item()
    assert got == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_ece_against_the_loop(strategy: BinStrategy) -> None:
    """Random groups of 1 to 40 rows, tied probabilities, every path."""
    rng = np.random.default_rng(11)
    groups, options = [], []
    for _ in range(40):
        n = int(rng.integers(1, 40))
        p = [round(float(v), int(rng.integers(1, 4))) for v in rng.random(n)]
        y = [int(v < q) for v, q in zip(rng.random(n), p, strict=True)]
        groups.append((y, p))
        options.append(int(rng.integers(1, 12)))
    for n_bins in sorted(set(options)):
        chosen = [g for g, o in zip(groups, options, strict=True) if o == n_bins]
        frame = _frame(chosen)
        expected = [_ece_loop(y, p, n_bins, strategy) for y, p in chosen]
        expr = lp.expected_calibration_error("y", "s", n_bins=n_bins, strategy=strategy)
        for path in PATHS:
            values = _run(path, frame, expr)
            assert all(_close(v, e) for v, e in zip(values, expected, strict=True)), (path, n_bins)


def test_ece_equals_the_calibration_curve_table() -> None:
    """ECE is the count-weighted gap of ``lp.calibration_curve``'s rows."""
    rng = np.random.default_rng(3)
    p = rng.random(500) ** 2
    y = (rng.random(500) < p).astype(int)
    frame = pl.DataFrame({"y": y, "s": p})
    for strategy in ("uniform", "quantile"):
        table = lp.calibration_curve(frame, "y", "s", n_bins=10, strategy=strategy)
        by_table = (table["count"] / 500 * (table["prob_true"] - table["prob_pred"]).abs()).sum()
        ece = frame.select(lp.expected_calibration_error("y", "s", strategy=strategy)).item()
        assert ece == pytest.approx(by_table, rel=1e-12)


def test_ece_refusals() -> None:
    """Out-of-range probabilities and non-binary labels: null and the sentence."""
    m = expected_calibration_error_metric("y", "s")
    frame = _frame([([0, 1], [0.1, 1.5]), ([0, 2], [0.1, 0.5])])
    out = frame.group_by("g", maintain_order=True).agg(m.expr(), m.reason().alias("why"))
    assert out["expected_calibration_error"].to_list() == [None, None]
    assert out["why"].to_list() == [
        "y_prob has values outside [0, 1].",
        "expected_calibration_error needs a binary y_true (bool, or 0 and 1). Got 2.0 instead.",
    ]


# --------------------------------------------------------------------------- seed 003 §4


def test_monotone_transform_moves_calibration_not_auc() -> None:
    """Seed 003 §4: a monotone transform moves LogLoss and ECE, not AUC.

    Square the probabilities, or push their logits through a steeper sigmoid:
    the order is the same, so AUC (and group AUC) stay to the bit.
    """
    rng = np.random.default_rng(2026)
    users = 200
    n = 5000
    p = rng.beta(2, 5, n)
    frame = pl.DataFrame(
        {
            "user": rng.integers(0, users, n),
            "click": (rng.random(n) < p).astype(int),
            "calibrated": p,
        }
    ).with_columns(
        squared=pl.col("calibrated") ** 2,
        steeper=1 / (1 + (-3 * (pl.col("calibrated") / (1 - pl.col("calibrated"))).log()).exp()),
    )
    metrics = []
    for column in ("calibrated", "squared", "steeper"):
        metrics.append(
            frame.select(
                auc=lp.roc_auc("click", column),
                log_loss=lp.log_loss("click", column),
                ece=lp.expected_calibration_error("click", column),
                gauc=pl.lit(lp.group_auc(frame, "click", column, by="user")["group_auc"].item()),
            ).row(0, named=True)
        )
    base, squared, steeper = metrics
    for moved in (squared, steeper):
        assert moved["auc"] == base["auc"]  # the same ranks: the same number, to the bit
        assert moved["gauc"] == base["gauc"]
        assert moved["ece"] > 4 * base["ece"]
        assert moved["log_loss"] > base["log_loss"] + 0.05
    assert base["ece"] < 0.03


# --------------------------------------------------------------------------- AUC


def _auc_pairs(y: list[int], s: list[float]) -> float:
    """Every (positive, negative) pair, a tie counting one half."""
    won = 0.0
    pos = [si for yi, si in zip(y, s, strict=True) if yi == 1]
    neg = [si for yi, si in zip(y, s, strict=True) if yi == 0]
    for a in pos:
        for b in neg:
            won += 1.0 if a > b else 0.5 if a == b else 0.0
    return won / (len(pos) * len(neg))


def test_auc_against_pair_counting() -> None:
    """Heavily tied scores, one-class groups null, every path."""
    rng = np.random.default_rng(5)
    groups = []
    for _ in range(60):
        n = int(rng.integers(2, 30))
        y = [int(v) for v in rng.integers(0, 2, n)]
        s = [float(v) for v in rng.integers(0, 5, n)]  # many ties
        groups.append((y, s))
    frame = _frame(groups)
    expected = [_auc_pairs(y, s) if 0 < sum(y) < len(y) else None for y, s in groups]
    for path in PATHS:
        values = _run(path, frame, lp.roc_auc("y", "s"))
        assert all(_close(v, e) for v, e in zip(values, expected, strict=True)), path


def _group_auc_loop(frame: pl.DataFrame, *, uniform: bool) -> tuple[float, int, int]:
    total = weight = 0.0
    scored = skipped = 0
    for part in frame.partition_by("g"):
        y = [int(v) for v in part["y"]]
        if 0 < sum(y) < len(y):
            w = 1.0 if uniform else float(part.height)
            total += w * _auc_pairs(y, part["s"].to_list())
            weight += w
            scored += 1
        else:
            skipped += 1
    return total / weight, scored, skipped


def test_group_auc() -> None:
    """Hand arithmetic, then a loop reference, both weightings."""
    frame = _frame(
        [([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), ([1, 0], [0.2, 0.6]), ([1, 1], [0.5, 0.4])]
    )
    out = lp.group_auc(frame, "y", "s", by="g")
    assert out.row(0) == (0.5, 2, 1, 6)
    lazy_out = lp.group_auc(frame.lazy(), "y", "s", by=["g"], weighting="uniform")
    assert isinstance(lazy_out, pl.LazyFrame)
    assert lazy_out.collect().row(0) == (0.375, 2, 1, 6)
    rng = np.random.default_rng(8)
    groups = []
    for _ in range(50):
        n = int(rng.integers(1, 12))
        groups.append(([int(v) for v in rng.integers(0, 2, n)], [float(v) for v in rng.random(n)]))
    frame = _frame(groups)
    for uniform in (False, True):
        expected, scored, skipped = _group_auc_loop(frame, uniform=uniform)
        weight: GroupWeight = "uniform" if uniform else "impressions"
        row = lp.group_auc(frame, "y", "s", by="g", weighting=weight).row(0, named=True)
        assert row["group_auc"] == pytest.approx(expected, rel=1e-12)
        assert (row["users"], row["skipped_one_class"]) == (scored, skipped)


def test_group_auc_bad_input() -> None:
    """Refused users named; bad options; no scorable user gives null."""
    frame = _frame([([0, 1], [0.1, math.nan]), ([0, 1], [0.1, 0.2]), ([1, 1], [0.1, 0.2])])
    with pytest.raises(
        RefusedGroupError, match=re.escape("group_auc refused 1 group(s):\n  g=0: Input y_score")
    ):
        lp.group_auc(frame, "y", "s", by="g")
    with pytest.raises(
        lp.InvalidParameterError,
        match=re.escape(
            "The 'weighting' parameter of group_auc must be one of ['impressions', 'uniform']. "
            "Got 'clicks' instead."
        ),
    ):
        lp.group_auc(frame, "y", "s", by="g", weighting="clicks")  # type: ignore[arg-type]
    with pytest.raises(
        lp.InvalidParameterError,
        match="The 'by' parameter of group_auc must be a column name or a polars expression",
    ):
        lp.group_auc(frame, "y", "s", by=[])
    with pytest.raises(
        lp.InvalidParameterError,
        match="The 'y_true' parameter of group_auc must be a column name or a polars expression "
        "of one column. Got 3 instead.",
    ):
        lp.group_auc(frame, 3, "s", by="g")  # type: ignore[arg-type]
    with pytest.raises(
        lp.InvalidParameterError, match="The 'by' parameter of group_auc names 'user'"
    ):
        lp.group_auc(frame, "y", "s", by="user")
    only_one_class = _frame([([1, 1], [0.1, 0.2])])
    assert lp.group_auc(only_one_class, "y", "s", by="g").row(0) == (None, 0, 1, 0)


def test_probability_metrics_score_one_class_groups() -> None:
    """Labels fixed to 0 and 1: a group of clicks only still has a log loss and a Brier score."""
    frame = _frame([([1, 1, 1], [0.9, 0.6, 0.2])])
    out = frame.select(lp.log_loss("y", "s"), lp.brier_score("y", "s"), lp.roc_auc("y", "s"))
    expected_ll = -(math.log(0.9) + math.log(0.6) + math.log(0.2)) / 3
    expected_brier = (0.1**2 + 0.4**2 + 0.8**2) / 3
    expected = (pytest.approx(expected_ll, rel=1e-15), pytest.approx(expected_brier), None)
    assert out.row(0) == expected


# --------------------------------------------------------------------------- lp.evaluate refusals


def _sklearn_sentence(function: str, y: list[float], p: list[float]) -> str:
    """scikit-learn 1.9.1's own sentence for a group it refuses (or warns on, for AUC)."""
    import warnings

    from sklearn.metrics import brier_score_loss, roc_auc_score
    from sklearn.metrics import log_loss as sk_log_loss

    call: Callable[[], Any] = {
        "log_loss": lambda: sk_log_loss(y, p, labels=[0, 1]),
        "brier_score": lambda: brier_score_loss(y, p),
        "roc_auc": lambda: roc_auc_score(y, p),
    }[function]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = call()
        except ValueError as error:
            return str(error)
    assert math.isnan(value), (function, y, p, value)
    return str(caught[-1].message)


def _collect(out: Any) -> pl.DataFrame:
    return out.collect() if isinstance(out, pl.LazyFrame) else out


#: groups scikit-learn refuses, with the metrics that refuse them
BAD_GROUPS = {
    "above-1": ([0.0, 1.0], [0.2, 1.3], ("log_loss", "brier_score")),
    "far-above-1": ([0.0, 1.0], [1e20, 0.5], ("log_loss", "brier_score")),
    "below-0": ([0.0, 1.0], [-0.1, 0.5], ("log_loss", "brier_score")),
    "one-class": ([1.0, 1.0], [0.4, 0.6], ("roc_auc",)),
    "above-1-and-label-2": ([0.0, 2.0], [0.2, 1.3], ("log_loss",)),
}


@pytest.mark.parametrize("case", sorted(BAD_GROUPS))
@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_strict_evaluate_names_the_group_in_scikit_learns_words(case: str, *, lazy: bool) -> None:
    """A refused group is named with scikit-learn's sentence; strict=False gives it null."""
    y, p, functions = BAD_GROUPS[case]
    good_y, good_p = [0.0, 1.0, 1.0], [0.3, 0.6, 0.9]
    frame = pl.DataFrame({"g": [1] * 3 + [2] * len(y), "y": good_y + y, "s": good_p + p})
    source = frame.lazy() if lazy else frame
    for function in functions:
        sentence = _sklearn_sentence(function, y, p)
        expected = (
            f"metric {function!r} refused 1 group(s):\n  g=2: {sentence}\n"
            "(pass strict=False to get null for these groups instead)"
        )
        with pytest.raises(RefusedGroupError, match=f"^{re.escape(expected)}$"):
            _collect(lp.evaluate(source, [function], by="g", y_true="y", y_score="s"))
        out = _collect(
            lp.evaluate(source, [function], by="g", y_true="y", y_score="s", strict=False)
        )
        expr = {"log_loss": lp.log_loss, "brier_score": lp.brier_score, "roc_auc": lp.roc_auc}
        by_expr = frame.group_by("g").agg(expr[function]("y", "s").alias("v")).sort("g")
        assert out[function][1] is None
        assert by_expr["v"][1] is None
        assert out[function][0] == pytest.approx(by_expr["v"][0], rel=1e-12)


@pytest.mark.parametrize("function", ["log_loss", "brier_score", "roc_auc"])
@pytest.mark.parametrize(
    ("y", "p", "sentence"),
    [
        ([0.0, 2.0], [0.2, 0.5], "{} needs a binary y_true (bool, or 0 and 1). Got 2.0 instead."),
        ([0.0, 1.0], [math.nan, 0.5], "Input {role} contains NaN."),
        ([0.0, math.nan], [0.1, 0.5], "Input y_true contains NaN."),
        ([0.0, 1.0], [0.3, None], "Input {role} contains null."),
        (
            [0.0, 1.0],
            [math.inf, 0.5],
            "Input {role} contains infinity or a value too large for dtype('float64').",
        ),
    ],
    ids=["label-2", "nan-prob", "nan-label", "null-prob", "inf-prob"],
)
def test_strict_evaluate_names_our_rules(
    function: str, y: list[float], p: list[float | None], sentence: str
) -> None:
    """The rules scikit-learn words otherwise (labels other than 0/1, nulls): our sentences."""
    role = "y_score" if function == "roc_auc" else "y_prob"
    expected = sentence.format(function, role=role)
    frame = pl.DataFrame({"g": [1, 1, 2, 2], "y": [0.0, 1.0, *y], "s": [0.2, 0.7, *p]})
    with pytest.raises(RefusedGroupError, match=re.escape(f"  g=2: {expected}\n")):
        lp.evaluate(frame, [function], by="g", y_true="y", y_score="s")
    out = lp.evaluate(frame, [function], by="g", y_true="y", y_score="s", strict=False)
    assert out[function][1] is None
    assert out[function][0] is not None


# --------------------------------------------------------------------------- ECE in lp.evaluate


@pytest.mark.parametrize(
    ("name", "n_bins", "strategy"),
    [
        ("ece", 10, "uniform"),
        ("expected_calibration_error@3", 3, "uniform"),
        ("ECE@1", 1, "uniform"),
        ("ece_quantile", 10, "quantile"),
        ("expected_calibration_error_quantile@4", 4, "quantile"),
    ],
)
@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_evaluate_ece_equals_the_expression_and_the_loop(
    name: str, n_bins: int, strategy: str, *, lazy: bool
) -> None:
    """lp.evaluate's ECE (its NumPy core) gives the expression's values and the loop's."""
    rng = np.random.default_rng(n_bins)
    groups = []
    for _ in range(60):
        n = int(rng.integers(1, 30))
        p = [round(float(v), int(rng.integers(1, 4))) for v in rng.random(n)]
        groups.append(([int(v < q) for v, q in zip(rng.random(n), p, strict=True)], p))
    frame = _frame(groups)
    source = frame.lazy() if lazy else frame
    out = _collect(lp.evaluate(source, [name], by="g", y_true="y", y_score="s"))
    expr = lp.expected_calibration_error("y", "s", n_bins=n_bins, strategy=strategy)  # type: ignore[arg-type]
    by_expr = frame.group_by("g").agg(expr).sort("g")["expected_calibration_error"].to_numpy()
    loop = [_ece_loop([float(v) for v in y], p, n_bins, strategy) for y, p in groups]
    np.testing.assert_allclose(out[name].to_numpy(), by_expr, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out[name].to_numpy(), loop, rtol=1e-12, atol=1e-15)


def test_evaluate_ece_refusals_and_options() -> None:
    """A bad group is named with calibration_curve's sentence; a bad n_bins is refused."""
    frame = _frame([([0, 1], [0.1, 0.9]), ([0, 1], [0.1, 1.2]), ([0, 3], [0.1, 0.5])])
    expected = (
        "metric 'ece@5' refused 2 group(s):\n"
        "  g=1: y_prob has values outside [0, 1].\n"
        "  g=2: expected_calibration_error needs a binary y_true (bool, or 0 and 1). "
        "Got 3.0 instead.\n"
        "(pass strict=False to get null for these groups instead)"
    )
    with pytest.raises(RefusedGroupError, match=f"^{re.escape(expected)}$"):
        lp.evaluate(frame, ["ece@5"], by="g", y_true="y", y_score="s")
    out = lp.evaluate(frame, ["ece@5"], by="g", y_true="y", y_score="s", strict=False)
    assert out["ece@5"].to_list() == [pytest.approx(0.1, rel=1e-15), None, None]
    message = (
        "The 'n_bins' parameter of expected_calibration_error must be an int in the range "
        "[1, inf). Got 0 instead."
    )
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        lp.evaluate(frame, ["ece_quantile@0"], by="g", y_true="y", y_score="s")
    with pytest.raises(InvalidParameterError, match="unknown metric 'ece.5'"):
        lp.evaluate(frame, ["ece.5"], by="g", y_true="y", y_score="s")
    with pytest.raises(InvalidParameterError, match="has no tie rule but its own"):
        lp.evaluate(frame, ["ece"], by="g", y_true="y", y_score="s", ties="input")


def test_ece_core_reads_any_row_order() -> None:
    """The segment core gives the same values on rows presorted (descending) or as they come."""
    from lodestar_polars._core.calibration import expected_calibration_error_segments

    rng = np.random.default_rng(4)
    length = rng.integers(1, 25, 200)
    p = np.round(rng.random(length.sum()), 2)
    y = (rng.random(p.size) < p).astype(float)
    segment = np.repeat(np.arange(length.size), length)
    order = np.lexsort((-p, segment))
    for strategy in ("uniform", "quantile"):
        shuffled = expected_calibration_error_segments(y, p, length, n_bins=7, strategy=strategy)
        presorted = expected_calibration_error_segments(
            y[order], p[order], length, n_bins=7, strategy=strategy, presorted=True
        )
        loop = [
            _ece_loop(list(y[segment == i]), list(p[segment == i]), 7, strategy)
            for i in range(length.size)
        ]
        np.testing.assert_allclose(shuffled, loop, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(presorted, loop, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", ["log_loss", "brier", "ece", "ece_quantile@3"])
def test_evaluate_far_out_probability_is_refused_without_numpy_warning(name: str) -> None:
    """A probability of 1e308 overflows the core's square or sum: null, no RuntimeWarning."""
    frame = _frame([([0, 1, 1], [1e308, -1e308, 1e308]), ([0, 1, 1], [0.2, 0.6, 0.9])])
    out = lp.evaluate(frame, [name], by="g", y_true="y", y_score="s", strict=False)
    expected = {
        "log_loss": -(math.log(0.8) + math.log(0.6) + math.log(0.9)) / 3,
        "brier": (0.2**2 + 0.4**2 + 0.1**2) / 3,
        "ece": (0.2 + 0.4 + 0.1) / 3,  # one row per bin
        "ece_quantile@3": (0.2 + 0.4 + 0.1) / 3,
    }[name]
    assert out[name][0] is None
    assert out[name][1] == pytest.approx(expected, rel=1e-12)


def test_group_auc_old_name_weight_warns() -> None:
    """``weight`` (a mode, not a column) is the old name of ``weighting``."""
    frame = _frame([([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), ([1, 0], [0.2, 0.6])])
    new = lp.group_auc(frame, "y", "s", by="g", weighting="uniform")
    with pytest.warns(FutureWarning, match="`weight` is renamed `weighting`"):
        # the old name is no longer in the signature: @renamed maps it to `weighting`
        old = lp.group_auc(frame, "y", "s", by="g", weight="uniform")  # type: ignore[call-arg]
    assert old.rows() == new.rows() == [(0.375, 2, 0, 6)]  # (0.75 + 0) / 2


def test_group_auc_and_calibration_curve_take_expressions() -> None:
    """Every role an expression: the same as the computed columns; lazy stays lazy."""
    frame = _frame(
        [([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), ([1, 0], [0.2, 0.6]), ([1, 0, 1], [0.5, 0.4, 0.9])]
    )
    computed = frame.with_columns(user=pl.col("g") % 2, click=pl.col("y") == 1, p=pl.col("s") / 2)
    want = lp.group_auc(computed, "click", "p", by="user")
    got = lp.group_auc(
        frame.lazy(),
        (pl.col("y") == 1).alias("click"),
        pl.col("s") / 2,
        by=(pl.col("g") % 2).alias("user"),
    )
    assert isinstance(got, pl.LazyFrame)
    assert got.collect().rows() == want.rows()
    want_curve = lp.calibration_curve(computed, "click", "p", n_bins=3, by="user")
    got_curve = lp.calibration_curve(
        frame.lazy(),
        pl.col("y").cast(pl.Boolean),
        pl.col("s") / 2,
        n_bins=3,
        by=(pl.col("g") % 2).alias("user"),
    )
    assert isinstance(got_curve, pl.LazyFrame)
    assert got_curve.collect().rows() == want_curve.rows()
    assert want_curve.columns == ["user", "bin", "prob_true", "prob_pred", "count"]
