"""Corpus parity: every expression gives scikit-learn 1.9.1's per-row numbers.

Each corpus case that scikit-learn answers with per-row values (``per_row``)
becomes a long frame, one group per row (a query, a sample), and every path
of the ``paths`` fixture must give those values (rel and abs 1e-12, the
corpus tolerance).  Cases whose input has no long-frame form are left out,
each with its reason in :data:`LEFT_OUT` (checked to be the only reasons):

* weighted binary ``average_precision_score``: the weights act inside the PR
  curve, and the expression has none;
* ``average_precision_score`` averaged other than per sample (micro, macro,
  weighted, None): no per-sample value;
* binary ``top_k_accuracy_score`` (1-D ``y_score``): a global threshold, not a
  ranking per sample.

``lp.evaluate(..., weight=..., mean=True)`` must also give the case's
``expected`` (scikit-learn's weighted mean).
"""

from __future__ import annotations

import importlib.util
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import lodestar_polars as lp


def _load_corpus_module() -> Any:
    """``tests/_corpus.py``, by path (``--import-mode=importlib`` puts no test dir on sys.path)."""
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

METRICS = {
    "dcg_score": lp.dcg,
    "ndcg_score": lp.ndcg,
    "top_k_accuracy_score": lp.top_k_accuracy,
    "average_precision_score": lp.average_precision,
    "coverage_error": lp.coverage_error,
    "label_ranking_loss": lp.label_ranking_loss,
    "label_ranking_average_precision_score": lp.label_ranking_average_precision,
    "reciprocal_rank_score": lp.reciprocal_rank,
}

#: options each expression takes from a case's kwargs
OPTIONS = {
    "dcg_score": ("k", "log_base", "ignore_ties"),
    "ndcg_score": ("k", "ignore_ties"),
    "reciprocal_rank_score": ("k", "ignore_ties"),
    "top_k_accuracy_score": ("k",),
}

#: the reasons a case with per-row values may be left out (see the module docstring)
LEFT_OUT_REASONS = {
    "weighted binary AP",
    "AP not averaged per sample",
    "binary top-k",
}


@dataclass(frozen=True)
class Mapped:
    """A corpus case in long form: one group per row, and the expression's options."""

    rows_true: list[list[Any]]
    rows_score: list[list[Any]]
    options: dict[str, Any]


def _is_matrix(x: Any) -> bool:
    return isinstance(x, list) and len(x) > 0 and isinstance(x[0], list)


def _flat(x: list[Any]) -> list[Any]:
    """A 1-D list, or an (n, 1) column made 1-D."""
    return [v[0] for v in x] if _is_matrix(x) else list(x)


def _nonzero_truth(rows: list[list[Any]]) -> list[list[Any]]:
    """scikit-learn's multilabel rule: any nonzero entry is relevant.

    A {0, 1}/bool matrix is kept as it is; other values ({-1, 1}, {0, 5}) are
    turned into booleans, because the expressions refuse a non-binary y_true
    (reported to the lead as a deliberate divergence).
    """
    if all(v in (0, 1) for row in rows for v in row):
        return rows
    return [[v != 0 for v in row] for row in rows]


def map_case(function: str, case: Any) -> Mapped | str:
    """The long form of ``case``, or the reason it has none."""
    kwargs = case.kwargs
    options = {key: kwargs[key] for key in OPTIONS.get(function, ()) if key in kwargs}
    y_true, y_score = kwargs["y_true"], kwargs["y_score"]
    if function == "top_k_accuracy_score":
        if not (_is_matrix(y_score) and len(y_score[0]) >= 2):
            return "binary top-k"
        labels = _flat(y_true)
        classes = kwargs.get("labels") or sorted(set(labels))
        assert all(len(row) == len(classes) for row in y_score), case.id
        rows_true = [[int(c == label) for c in classes] for label in labels]
        return Mapped(rows_true, y_score, options)
    if function == "average_precision_score":
        average = kwargs.get("average", "macro")
        if not (_is_matrix(y_true) and len(y_true[0]) > 1):  # 1-D or (n, 1): binary/multiclass
            flat, flat_score = _flat(y_true), y_score
            if not _is_matrix(y_score) or len(y_score[0]) == 1:  # binary
                if "sample_weight" in kwargs:
                    return "weighted binary AP"
                pos_label = kwargs.get("pos_label", 1)
                truth = [int(v == pos_label) for v in flat]
                return Mapped([truth], [_flat(flat_score)], {})
            if average != "samples":
                return "AP not averaged per sample"
            classes = sorted(set(flat))  # multiclass: binarised over the present labels
            return Mapped([[int(c == v) for c in classes] for v in flat], y_score, {})
        if average != "samples":
            return "AP not averaged per sample"
        # multilabel: a label is positive where it equals 1
        return Mapped([[int(v == 1) for v in row] for row in y_true], y_score, {})
    if function in (
        "coverage_error",
        "label_ranking_loss",
        "label_ranking_average_precision_score",
    ):
        return Mapped(_nonzero_truth(y_true), y_score, options)
    return Mapped(y_true, y_score, options)


def _cases() -> tuple[list[Any], dict[str, list[tuple[str, str]]]]:
    params: list[Any] = []
    left_out: dict[str, list[tuple[str, str]]] = {}
    for function in METRICS:
        left_out[function] = []
        for case in corpus.load(function):
            if case.per_row is None or case.raises is not None:
                continue
            mapped = map_case(function, case)
            if isinstance(mapped, str):
                left_out[function].append((case.id, mapped))
                continue
            params.append(pytest.param(function, case, mapped, id=f"{function}:{case.id}"))
    return params, left_out


CASES, LEFT_OUT = _cases()


def test_every_function_has_mapped_cases() -> None:
    """The mapping keeps most cases, and leaves out only for the documented reasons."""
    counts = {function: 0 for function in METRICS}
    for param in CASES:
        counts[param.values[0]] += 1
    assert all(n >= 20 for n in counts.values()), counts
    assert sum(1 for p in CASES if "ragged" in p.values[1].tags) >= 50
    reasons = {reason for items in LEFT_OUT.values() for _, reason in items}
    assert reasons <= LEFT_OUT_REASONS, reasons
    assert {f for f, items in LEFT_OUT.items() if items} <= {
        "average_precision_score",
        "top_k_accuracy_score",
    }, LEFT_OUT


@pytest.mark.parametrize(("function", "case", "mapped"), CASES)
def test_per_row_values(paths: Any, function: str, case: Any, mapped: Mapped) -> None:
    """Every path gives scikit-learn's per-row values, one group per row."""
    frame = paths.long_frame(mapped.rows_true, mapped.rows_score)
    paths.assert_paths(frame, METRICS[function], case.per_row, **mapped.options)


# --------------------------------------------------------------------------- weighted means

MEAN_FUNCTIONS = {
    "dcg_score",
    "ndcg_score",
    "coverage_error",
    "label_ranking_loss",
    "label_ranking_average_precision_score",
    "reciprocal_rank_score",
    "top_k_accuracy_score",
    "average_precision_score",
}


def _nameable(function: str, options: dict[str, Any]) -> bool:
    """Whether ``lp.evaluate`` can name these options: only an int ``k`` (``@k``)."""
    if options.get("log_base", 2) != 2 or type(options.get("log_base", 2)) is bool:
        return False
    if options.get("ignore_ties", False) is not False:
        return False
    return type(options.get("k", 1)) is int or options.get("k", 1) is None


def _mean_params() -> list[Any]:
    out = []
    for param in CASES:
        function, case, mapped = param.values
        if function not in MEAN_FUNCTIONS or not _nameable(function, mapped.options):
            continue
        if function == "top_k_accuracy_score" and case.kwargs.get("normalize") is False:
            continue  # a count, not a mean
        marks = []
        weights = case.kwargs.get("sample_weight")
        if (
            function == "label_ranking_average_precision_score"
            and weights is not None
            and math.fsum(weights) == 0
        ):
            marks.append(
                pytest.mark.xfail(
                    reason="known divergence: scikit-learn's LRAP returns nan/inf for "
                    "weights summing to zero; lp.evaluate raises ZeroDivisionError "
                    "like every np.average-based metric",
                    raises=ZeroDivisionError,
                    strict=True,
                )
            )
        out.append(pytest.param(function, case, mapped, id=param.id, marks=marks))
    return out


@pytest.mark.parametrize(("function", "case", "mapped"), _mean_params())
def test_evaluate_weighted_mean(paths: Any, function: str, case: Any, mapped: Mapped) -> None:
    """``lp.evaluate(weight=..., mean=True)`` is scikit-learn's (weighted) average."""
    name = paths.evaluate_name(METRICS[function], mapped.options)
    assert name is not None, mapped.options
    frame = paths.long_frame(mapped.rows_true, mapped.rows_score)
    weights = case.kwargs.get("sample_weight")
    weight = None
    if weights is not None:
        weight = "w"
        per_group = pl.DataFrame(
            {"query": range(len(weights)), "w": [float(w) for w in weights]},
            schema={"query": pl.Int64, "w": pl.Float64},
        )
        frame = frame.join(per_group, on="query", how="left", maintain_order="left")
    out = lp.evaluate(
        frame, [name], by="query", y_true="y_true", y_score="y_score", weight=weight, mean=True
    )
    assert out.shape == (1, 1)
    corpus.assert_close(out.item(), case.expected)


# --------------------------------------------------------------------------- AP vs trapezoid


def _trapezoid_params() -> list[Any]:
    return [
        p
        for p in CASES
        if p.values[0] == "average_precision_score" and p.values[1].trapezoid is not None
    ]


def test_ap_trapezoid_cases_exist() -> None:
    """The corpus holds enough binary cases where AP and the trapezoid differ."""
    apart = [p for p in _trapezoid_params() if p.values[1].trapezoid != p.values[1].expected]
    assert len(apart) >= 20


@pytest.mark.parametrize(("function", "case", "mapped"), _trapezoid_params())
def test_ap_held_apart_from_trapezoid(paths: Any, function: str, case: Any, mapped: Mapped) -> None:
    """AP is the step sum: it differs from ``auc(recall, precision)`` wherever they differ."""
    frame = paths.long_frame(mapped.rows_true, mapped.rows_score)
    for path, values in paths.run_paths(frame, lp.average_precision).items():
        (value,) = values
        corpus.assert_close(value, case.expected)
        if case.trapezoid != case.expected:
            assert not math.isclose(value, case.trapezoid, rel_tol=1e-12, abs_tol=1e-12), (
                path,
                value,
                case.trapezoid,
            )
