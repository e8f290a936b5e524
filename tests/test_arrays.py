"""``lodestar_polars.arrays`` against the frozen scikit-learn 1.9.1 corpus, and by hand.

Corpus parity: every non-ragged case of every function is called with its
``kwargs``; the value (rel and abs 1e-12) and its type, or the exception (its
class, the ``InvalidParameterError`` flag and the exact message), and the list
of warnings (class and message, in order, repeats kept) must be
scikit-learn's.  Ragged cases (rows of different lengths) have no dense form
and are left out of the parametrisation.

The hand cases write the expected numbers as arithmetic.  scikit-learn is not
imported.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lodestar_polars import arrays
from lodestar_polars.exceptions import InvalidParameterError, UndefinedMetricWarning


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

EXCEPTIONS = {
    "ValueError": ValueError,
    "TypeError": TypeError,
    "ZeroDivisionError": ZeroDivisionError,
    "NotImplementedError": NotImplementedError,
}
WARNINGS = {
    "RuntimeWarning": RuntimeWarning,
    "UserWarning": UserWarning,
    "UndefinedMetricWarning": UndefinedMetricWarning,
}
RESULT_TYPES = {
    "float": float,
    "float64": np.float64,
    "int": int,
    "ndarray": np.ndarray,
    "tuple": tuple,
}

DENSE = [case for name in corpus.FUNCTIONS for case in corpus.load(name) if not case.is_ragged]
PER_ROW_FUNCTIONS = {
    "dcg_score",
    "ndcg_score",
    "coverage_error",
    "label_ranking_loss",
    "label_ranking_average_precision_score",
    "reciprocal_rank_score",
}
PER_ROW = [
    case
    for case in DENSE
    if case.function in PER_ROW_FUNCTIONS and not case.is_error and case.per_row is not None
]


def _ids(cases: list[Any]) -> list[str]:
    return [f"{case.function}/{case.id}" for case in cases]


def _recorded(call: Any) -> tuple[Any, BaseException | None, list[warnings.WarningMessage]]:
    """``call()``'s result or exception, and every warning it emitted (repeats kept)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return call(), None, caught
        except Exception as exc:  # noqa: BLE001 (compared with the corpus below)
            return None, exc, caught


def _assert_message(actual: str, expected: str, case: Any) -> None:
    if "hash-dependent" in case.tags:
        # a Python set in the text: its order follows PYTHONHASHSEED
        pattern = re.compile(r"\{(.*)\}")
        assert pattern.sub("{}", actual) == pattern.sub("{}", expected)
        items = pattern.search(actual)
        wanted = pattern.search(expected)
        assert items is not None
        assert wanted is not None
        assert sorted(items.group(1).split(", ")) == sorted(wanted.group(1).split(", "))
    else:
        assert actual == expected


def _assert_warnings(caught: list[warnings.WarningMessage], expected: list[dict[str, Any]]) -> None:
    # an UndefinedMetricWarning is raised as a subclass of scikit-learn's too once
    # scikit-learn is imported (lodestar_polars.exceptions): any test module may import it
    got = [(w.category, str(w.message)) for w in caught]
    want = [(WARNINGS[w["category"]], w["message"]) for w in expected]
    assert [message for _, message in got] == [message for _, message in want]
    assert all(issubclass(g, w) for (g, _), (w, _) in zip(got, want, strict=True)), (got, want)


# --------------------------------------------------------------------------- corpus parity


@pytest.mark.parametrize("case", DENSE, ids=_ids(DENSE))
def test_corpus_parity(case: Any) -> None:
    """scikit-learn's value and type, or its exception; and its warnings."""
    function = getattr(arrays, case.function)
    if case.is_error:
        exc_type: type[Exception] = InvalidParameterError
        if not case.raises["is_invalid_parameter_error"]:
            exc_type = EXCEPTIONS[case.raises["type"]]
        message = case.raises["message"]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            match = None if "hash-dependent" in case.tags else re.escape(message)
            with pytest.raises(exc_type, match=match) as info:
                function(**case.kwargs)
        assert isinstance(info.value, EXCEPTIONS[case.raises["type"]])
        assert (
            isinstance(info.value, InvalidParameterError)
            is case.raises["is_invalid_parameter_error"]
        )
        _assert_message(str(info.value), message, case)
        _assert_warnings(caught, case.warns)
        return
    result, exc, caught = _recorded(lambda: function(**case.kwargs))
    assert exc is None, f"raised {exc!r}"
    assert type(result) is RESULT_TYPES[case.expected_type]
    if isinstance(result, np.ndarray):
        assert result.dtype == np.float64
    corpus.assert_close(result, case.expected)
    _assert_warnings(caught, case.warns)


@pytest.mark.parametrize("case", PER_ROW, ids=_ids(PER_ROW))
def test_corpus_rows_alone(case: Any) -> None:
    """Each row, scored alone (no weight), gives the corpus's per-row value."""
    function = getattr(arrays, case.function)
    kwargs = {key: value for key, value in case.kwargs.items() if key != "sample_weight"}
    for i, expected in enumerate(case.per_row):
        one = dict(kwargs, y_true=[kwargs["y_true"][i]], y_score=[kwargs["y_score"][i]])
        result, exc, _ = _recorded(lambda one=one: function(**one))
        assert exc is None, f"row {i}: raised {exc!r}"
        corpus.assert_close(result, expected)


def test_corpus_is_covered() -> None:
    """Every function has corpus cases here, errors and values alike."""
    for name in corpus.FUNCTIONS:
        cases = [case for case in DENSE if case.function == name]
        assert any(case.is_error for case in cases), name
        assert sum(not case.is_error for case in cases) >= 20, name


@pytest.mark.parametrize(
    ("name", "tags"),
    [
        ("roc_auc_score", ("multilabel", "multiclass", "negative-weight", "labels")),
        ("log_loss", ("multilabel", "labels")),
        ("brier_score_loss", ("multilabel", "labels")),
    ],
)
def test_corpus_covers_matrices_and_classes(name: str, tags: tuple[str, ...]) -> None:
    """Label matrices, multiclass targets and ``labels=``: values and sentences both frozen."""
    cases = [case for case in DENSE if case.function == name]
    for tag in tags:
        tagged = [case for case in cases if case.has(tag)]
        assert sum(case.is_error for case in tagged) >= 2, (name, tag)
        assert sum(not case.is_error for case in tagged) >= 8, (name, tag)
    if name == "roc_auc_score":
        averages = {
            (case.kwargs.get("multi_class"), case.kwargs.get("average", "macro"))
            for case in cases
            if not case.is_error and case.has("multiclass")
        }
        wanted = {("ovr", a) for a in (None, "micro", "macro", "weighted")}
        assert wanted | {("ovo", "macro"), ("ovo", "weighted")} <= averages
        assert any(case.expected_type == "float64" for case in cases)
        assert any(case.raises and case.raises["type"] == "NotImplementedError" for case in cases)


# --------------------------------------------------------------------------- hand cases

LOG2_3 = math.log2(3)
LOG2_5 = math.log2(5)


def test_dcg_perfect_ranking() -> None:
    """The seed number: relevance 3, 2, 1, 0 in its own order."""
    expected = 3 + 2 / LOG2_3 + 1 / math.log2(4)
    assert arrays.dcg_score([[3, 2, 1, 0]], [[4, 3, 2, 1]]) == pytest.approx(expected, rel=1e-15)


def test_dcg_ties_share_their_discounts() -> None:
    """A tie gets its mean gain times its positions' discounts."""
    discounts = 1 + 1 / LOG2_3 + 1 / 2 + 1 / LOG2_5
    tied = [[0.5, 0.5, 0.5, 0.5]]
    assert arrays.dcg_score([[3, 2, 1, 0]], tied) == pytest.approx(1.5 * discounts, rel=1e-15)
    # ignore_ties: the later column first, so the relevances read 0, 1, 2, 3
    ordered = 1 / LOG2_3 + 2 / 2 + 3 / LOG2_5
    assert arrays.dcg_score([[3, 2, 1, 0]], tied, ignore_ties=True) == pytest.approx(ordered)


def test_dcg_tie_straddling_k() -> None:
    """A tie straddling k keeps only the discounts of its positions below k."""
    # [3, 2, 1, 0] scored [1, .5, .5, 0], k=2: the tie (mean gain 1.5) gets position 1 only
    value = arrays.dcg_score([[3, 2, 1, 0]], [[1, 0.5, 0.5, 0]], k=2)
    assert value == pytest.approx(3 + 1.5 / LOG2_3, rel=1e-15)


def test_dcg_log_base_and_weights() -> None:
    """Weighted mean of the rows; the base only rescales."""
    truth, score = [[3, 2, 1, 0], [0, 0, 1, 0]], [[4, 3, 2, 1], [4, 3, 2, 1]]
    rows = [3 + 2 / LOG2_3 + 1 / 2, 1 / 2]
    assert arrays.dcg_score(truth, score) == pytest.approx(sum(rows) / 2, rel=1e-15)
    weighted = arrays.dcg_score(truth, score, sample_weight=[1, 3])
    assert weighted == pytest.approx((rows[0] + 3 * rows[1]) / 4, rel=1e-15)
    base10 = arrays.dcg_score(truth, score, log_base=10)
    assert base10 == pytest.approx(sum(rows) / 2 * math.log(10) / math.log(2), rel=1e-14)


def test_ndcg_by_hand() -> None:
    """DCG over the ideal DCG; an all-zero row counts 0."""
    ideal = 3 + 2 / LOG2_3 + 1 / 2
    tied = (1.5 * (1 + 1 / LOG2_3 + 1 / 2 + 1 / LOG2_5)) / ideal
    assert arrays.ndcg_score([[3, 2, 1, 0]], [[0.5] * 4]) == pytest.approx(tied, rel=1e-15)
    # an all-irrelevant row scores 0 and still counts
    value = arrays.ndcg_score([[0, 0], [1, 0]], [[0.2, 0.1], [0.1, 0.2]])
    assert value == pytest.approx((0 + 1 / LOG2_3) / 2, rel=1e-15)


def test_coverage_error_by_hand() -> None:
    """Labels scoring at least the worst relevant one; none relevant: 0."""
    # row 0: its relevant label scores 0.75, two labels score at least that;
    # row 1: the relevant label scores lowest, all three
    truth, score = [[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]]
    assert arrays.coverage_error(truth, score) == (2 + 3) / 2
    assert arrays.coverage_error(truth, score, sample_weight=[1, 3]) == (2 + 3 * 3) / 4
    assert arrays.coverage_error([[0, 0, 0]], [[0.1, 0.2, 0.3]]) == 0.0


def test_label_ranking_loss_by_hand() -> None:
    """A tie between a relevant and an irrelevant label is a wrong pair."""
    # positives score .5 and .9, negatives .5 and .1: one of the 4 pairs is a tie
    assert arrays.label_ranking_loss([[1, 0, 1, 0]], [[0.5, 0.5, 0.9, 0.1]]) == 1 / 4
    assert arrays.label_ranking_loss([[1, 0], [0, 0]], [[0.5, 0.5], [0.1, 0.2]]) == (1 + 0) / 2


def test_lrap_by_hand() -> None:
    """Precision at each relevant label, ties pessimistic; degenerate rows 1.0."""
    truth, score = [[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]]
    assert arrays.label_ranking_average_precision_score(truth, score) == pytest.approx(
        (1 / 2 + 1 / 3) / 2, rel=1e-15
    )
    # degenerate rows score 1.0; a single column is accepted
    assert arrays.label_ranking_average_precision_score([[0, 0], [1, 1]], [[1, 2], [3, 4]]) == 1.0
    assert arrays.label_ranking_average_precision_score([[1], [0]], [[0.3], [0.2]]) == 1.0


def test_lrap_zero_weight_sum_is_not_an_error() -> None:
    """LRAP divides by the weight sum unchecked, as scikit-learn does."""
    truth, score = [[1, 0], [0, 1]], [[0.2, 0.1], [0.2, 0.1]]
    with pytest.warns(RuntimeWarning, match="invalid value encountered in scalar divide"):
        value = arrays.label_ranking_average_precision_score(truth, score, sample_weight=[0, 0])
    assert math.isnan(value)
    with pytest.warns(RuntimeWarning, match="divide by zero encountered in scalar divide"):
        value = arrays.label_ranking_average_precision_score(truth, score, sample_weight=[1, -1])
    assert value == math.inf


def test_average_precision_by_hand() -> None:
    """The step sum, not the trapezoid; zero-weight samples dropped."""
    # descending: .8 (pos), .4 (neg), .35 (pos), .1 (neg): precisions 1 and 2/3 at the hits
    assert arrays.average_precision_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == pytest.approx(
        (1 + 2 / 3) / 2, rel=1e-15
    )
    # all tied: AP is the prevalence (the trapezoid would give 0.75)
    assert arrays.average_precision_score([0, 1], [0.5, 0.5]) == 0.5
    # a zero-weight sample is dropped before the thresholds
    dropped = arrays.average_precision_score(
        [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], sample_weight=[1, 0, 1, 1]
    )
    assert dropped == 1.0


def test_average_precision_averages() -> None:
    """None, macro and weighted over the columns of a label matrix."""
    truth = [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 0]]
    score = [[0.9, 0.2, 0.1], [0.3, 0.6, 0.4], [0.4, 0.7, 0.5], [0.5, 0.1, 0.3]]
    with pytest.warns(UserWarning, match="No positive class found in y_true") as record:
        per_class = arrays.average_precision_score(truth, score, average=None)
    assert len(record) == 1
    assert isinstance(per_class, np.ndarray)
    np.testing.assert_allclose(per_class, [(1 + 2 / 3) / 2, 1.0, 0.0], rtol=1e-15)
    with pytest.warns(UserWarning, match="No positive class found in y_true"):
        macro = arrays.average_precision_score(truth, score)
    assert macro == pytest.approx(((1 + 2 / 3) / 2 + 1) / 3, rel=1e-15)
    with pytest.warns(UserWarning, match="No positive class found in y_true"):
        weighted = arrays.average_precision_score(truth, score, average="weighted")
    assert weighted == pytest.approx((2 * (1 + 2 / 3) / 2 + 2 * 1) / 4, rel=1e-15)
    zero = arrays.average_precision_score(
        [[0, 0], [0, 0]], [[0.1, 0.2], [0.3, 0.4]], average="weighted"
    )
    assert zero == 0
    assert type(zero) is int


def test_average_precision_pos_label() -> None:
    """pos_label picks the positive label of a binary target."""
    # the default pos_label=1 holds for {1, 2}: label 1 (scored .4 and .1) is the
    # positive, ranked 2nd and 4th
    assert (
        arrays.average_precision_score([1, 1, 2, 2], [0.1, 0.4, 0.35, 0.8]) == (1 / 2 + 2 / 4) / 2
    )
    assert arrays.average_precision_score(
        [1, 1, 2, 2], [0.1, 0.4, 0.35, 0.8], pos_label=2
    ) == pytest.approx((1 + 2 / 3) / 2, rel=1e-15)
    with pytest.raises(ValueError, match=re.escape("It should be one of [0 2]")):
        arrays.average_precision_score([0, 0, 2, 2], [0.1, 0.4, 0.35, 0.8])


def test_top_k_binary_threshold_is_strict() -> None:
    """Binary k=1 thresholds the whole vector at 0.5 (or 0), strictly."""
    # a score of exactly 0.5 predicts the negative class
    assert arrays.top_k_accuracy_score([0, 1], [0.5, 0.5], k=1) == 1 / 2
    # a score outside [0, 1] moves the threshold to 0 for the whole vector
    assert arrays.top_k_accuracy_score([0, 1], [0.3, 1.2], k=1) == 1 / 2
    assert arrays.top_k_accuracy_score(["a", "b"], [0.2, 0.9], k=1) == 1.0


def test_top_k_ties_rank_the_higher_class_first() -> None:
    """Among tied scores the class of higher index ranks first."""
    tied = [[0.5, 0.5, 0.5]] * 3
    assert arrays.top_k_accuracy_score([0, 1, 2], tied, k=1) == 1 / 3
    assert arrays.top_k_accuracy_score([0, 1, 2], tied, k=2) == 2 / 3
    assert arrays.top_k_accuracy_score([0, 1, 2], tied, k=1, normalize=False) == 1.0
    weighted = arrays.top_k_accuracy_score([0, 1, 2], tied, k=1, sample_weight=[1, 1, 2])
    assert weighted == 2 / 4


def test_top_k_meaningless_k_warns() -> None:
    """k >= n_classes warns and every sample is a hit."""
    message = (
        "'k' (3) greater than or equal to 'n_classes' (3) will result in a perfect score "
        "and is therefore meaningless."
    )
    with pytest.warns(UndefinedMetricWarning, match=re.escape(message)):
        value = arrays.top_k_accuracy_score([0, 1, 2], [[0.1, 0.2, 0.7]] * 3, k=3)
    assert value == 1.0


def test_reciprocal_rank_by_hand() -> None:
    """1/rank of the first relevant entity; ties averaged exactly."""
    truth = [[0, 0, 1], [1, 0, 0]]
    score = [[0.9, 0.5, 0.1], [0.9, 0.5, 0.1]]
    assert arrays.reciprocal_rank_score(truth, score) == (1 / 3 + 1) / 2
    assert arrays.reciprocal_rank_score(truth, score, k=2) == (0 + 1) / 2
    assert arrays.reciprocal_rank_score(truth, score, sample_weight=[3, 1]) == (3 / 3 + 1) / 4
    # one relevant among three tied at the top: ranks 1, 2, 3 equally likely
    value = arrays.reciprocal_rank_score([[0, 1, 0, 0]], [[0.5, 0.5, 0.5, 0.1]])
    assert value == pytest.approx((1 + 1 / 2 + 1 / 3) / 3, rel=1e-15)
    assert arrays.reciprocal_rank_score([[0, 1]], [[0.5, 0.5]], ignore_ties=True) == 1.0
    assert arrays.reciprocal_rank_score([[1], [0]], [[0.3], [0.2]]) == 1 / 2


def test_reciprocal_rank_refuses_what_ndcg_refuses() -> None:
    """Parameter and input checks in scikit-learn's sentences."""
    with pytest.raises(InvalidParameterError, match="reciprocal_rank_score must be an int"):
        arrays.reciprocal_rank_score([[1, 0]], [[0.2, 0.1]], k=0)
    with pytest.raises(ValueError, match=re.escape("Input contains NaN.")):
        arrays.reciprocal_rank_score([[1, 0]], [[math.nan, 0.1]])
    with pytest.raises(ValueError, match="needs y_true of shape"):
        arrays.reciprocal_rank_score([1, 0], [0.2, 0.1])
    with pytest.raises(ValueError, match="y_true and y_score have different shape"):
        arrays.reciprocal_rank_score([[1, 0]], [[0.2, 0.1, 0.3]])


# --------------------------------------------------------------------------- the surface

SIGNATURES = {
    "dcg_score": "(y_true, y_score, *, k=None, log_base=2, sample_weight=None, ignore_ties=False)",
    "ndcg_score": "(y_true, y_score, *, k=None, sample_weight=None, ignore_ties=False)",
    "top_k_accuracy_score": (
        "(y_true, y_score, *, k=2, normalize=True, sample_weight=None, labels=None)"
    ),
    "average_precision_score": (
        "(y_true, y_score, *, average='macro', pos_label=1, sample_weight=None)"
    ),
    "coverage_error": "(y_true, y_score, *, sample_weight=None)",
    "label_ranking_loss": "(y_true, y_score, *, sample_weight=None)",
    "label_ranking_average_precision_score": "(y_true, y_score, *, sample_weight=None)",
    "reciprocal_rank_score": (
        "(y_true, y_score, *, k=None, sample_weight=None, ignore_ties=False)"
    ),
    "roc_auc_score": (
        "(y_true, y_score, *, average='macro', sample_weight=None, max_fpr=None, "
        "multi_class='raise', labels=None)"
    ),
    # scikit-learn 1.9 also takes the deprecated y_pred (and y_proba=None): not offered
    "log_loss": "(y_true, y_proba, *, normalize=True, sample_weight=None, labels=None)",
    "brier_score_loss": (
        "(y_true, y_proba, *, sample_weight=None, pos_label=None, labels=None, "
        "scale_by_half='auto')"
    ),
    "calibration_curve": "(y_true, y_prob, *, pos_label=None, n_bins=5, strategy='uniform')",
}


def test_public_names_and_signatures() -> None:
    """scikit-learn's names, keyword-only options and defaults."""
    assert arrays.__all__ == sorted(SIGNATURES)
    for name, text in SIGNATURES.items():
        signature = inspect.signature(getattr(arrays, name))
        plain = signature.replace(
            parameters=[p.replace(annotation=p.empty) for p in signature.parameters.values()],
            return_annotation=inspect.Signature.empty,
        )
        assert str(plain) == text, name


def test_unexpected_keyword_reads_like_sklearn() -> None:
    """A wrong keyword fails with scikit-learn's text."""
    with pytest.raises(TypeError) as info:
        arrays.ndcg_score([[1, 0]], [[0.2, 0.1]], log_base=2)  # type: ignore[call-arg]
    assert str(info.value) == "got an unexpected keyword argument 'log_base'"


def test_invalid_parameter_error_is_value_and_type_error() -> None:
    """InvalidParameterError is caught as either."""
    with pytest.raises(InvalidParameterError) as info:
        arrays.dcg_score([[1, 0]], [[0.2, 0.1]], ignore_ties=1)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, TypeError)


def test_weights_summing_to_zero() -> None:
    """np.average's ZeroDivisionError; NaN weights give NaN."""
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero, can't be normalized"):
        arrays.coverage_error([[1, 0], [0, 1]], [[0.2, 0.1], [0.2, 0.1]], sample_weight=[1, -1])
    value = arrays.ndcg_score(
        [[1, 0], [0, 1]], [[0.2, 0.1], [0.2, 0.1]], sample_weight=[1, math.nan]
    )
    assert math.isnan(value)


def test_array_inputs_equal_list_inputs() -> None:
    """NumPy arrays and nested lists give the same float."""
    truth = [[3, 2, 1, 0], [0, 1, 0, 1]]
    score = [[0.1, 0.5, 0.5, 0.9], [0.3, 0.2, 0.2, 0.8]]
    for name in PER_ROW_FUNCTIONS:
        function = getattr(arrays, name)
        labels = np.asarray(truth) if name in {"dcg_score", "ndcg_score"} else np.asarray(truth) > 1
        from_lists = function(labels.tolist(), score)
        from_arrays = function(labels, np.asarray(score, dtype=np.float32).astype(np.float64))
        assert from_lists == from_arrays, name
        assert type(from_lists) is float


def test_dcg_mismatched_columns_fail_as_numpy_does() -> None:
    """scikit-learn has no shape check here: NumPy's errors."""
    with pytest.raises(ValueError, match="array is not broadcastable to correct shape"):
        arrays.dcg_score([[1, 0], [0, 1]], [[0.1, 0.2, 0.3], [0.1, 0.2, 0.3]])
    with pytest.raises(IndexError, match="out of bounds for axis 1 with size 2"):
        arrays.dcg_score([[1, 0], [0, 1]], [[0.1, 0.2, 0.3], [0.1, 0.2, 0.3]], ignore_ties=True)


# --------------------------------------------------------------------------- issue 8 siblings


def test_pair_counts_past_2_32() -> None:
    """A row of 65,536 true labels scored 0 and 65,537 false ones scored 1 (issue 8 item 1).

    65,536 x 65,537 wrongly ordered pairs pass 2**32: every pair is wrong, so the
    loss is 1.0; the coverage is every label; LRAP is n_true / n_labels (all tied
    at the last rank).
    """
    n_true, n_false = 2**16, 2**16 + 1
    y_true = np.r_[np.ones(n_true, dtype=np.int64), np.zeros(n_false, dtype=np.int64)][None, :]
    y_score = np.r_[np.zeros(n_true), np.ones(n_false)][None, :]
    assert arrays.label_ranking_loss(y_true, y_score) == 1.0
    assert arrays.coverage_error(y_true, y_score) == float(n_true + n_false)
    lrap = arrays.label_ranking_average_precision_score(y_true, y_score)
    assert lrap == pytest.approx(n_true / (n_true + n_false), rel=1e-12)


@pytest.mark.parametrize("k", [10**18, 2**70], ids=["1e18", "2^70"])
@pytest.mark.parametrize("name", ["dcg_score", "ndcg_score", "reciprocal_rank_score"])
def test_huge_k_scores_the_whole_row(name: str, k: int) -> None:
    """A k past the row scores the whole row at once, no table of k discounts (item 4)."""
    function = getattr(arrays, name)
    y_true, y_score = [[1, 0, 2]], [[0.1, 0.2, 0.3]]
    assert function(y_true, y_score, k=k) == function(y_true, y_score)


@pytest.mark.parametrize(
    "k", [np.int64(2), np.int32(2), np.uint8(2), np.int16(2)], ids=lambda k: type(k).__name__
)
def test_k_of_any_integer_type(k: Any) -> None:
    """k takes any integer type, as scikit-learn's ``Integral`` constraint does."""
    y_true, y_score = [[3, 2, 1, 0]], [[0.1, 0.4, 0.2, 0.3]]
    # ranked 2, 0, 1, 3: the first two are 2 / log2(2) + 0 / log2(3)
    assert arrays.dcg_score(y_true, y_score, k=k) == 2.0
    assert arrays.ndcg_score(y_true, y_score, k=k) == arrays.ndcg_score(y_true, y_score, k=2)
    assert arrays.reciprocal_rank_score([[0, 1, 0, 0]], y_score, k=k) == 1.0
    labels = [0, 1, 2, 3]
    assert arrays.top_k_accuracy_score([2], y_score, k=k, labels=labels) == 0.0
    assert arrays.top_k_accuracy_score([3], y_score, k=k, labels=labels) == 1.0


@pytest.mark.parametrize("gain", [math.inf, -math.inf])
@pytest.mark.parametrize("name", ["dcg_score", "ndcg_score"])
def test_infinite_relevance_is_refused(name: str, gain: float) -> None:
    """An infinite y_true is refused in scikit-learn's sentence (issue 8 item 3's sibling)."""
    msg = "Input contains infinity or a value too large for dtype('float64')."
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        getattr(arrays, name)([[gain, 0, 1]], [[0.1, 0.2, 0.3]])


def test_undefined_metric_warning_of_both_classes_pickles(monkeypatch: pytest.MonkeyPatch) -> None:
    """The warning raised as a subclass of scikit-learn's too survives pickling.

    A warning turned into an error in a worker process (joblib) is pickled back;
    the class made at run time failed there ("it's not the same object").
    scikit-learn is stood in for by modules holding a warning class of its name.
    """
    import pickle
    import types

    theirs = type("UndefinedMetricWarning", (UserWarning,), {})
    package = types.ModuleType("sklearn")
    module = types.ModuleType("sklearn.exceptions")
    module.UndefinedMetricWarning = theirs  # type: ignore[attr-defined]
    package.exceptions = module  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sklearn", package)
    monkeypatch.setitem(sys.modules, "sklearn.exceptions", module)
    y_score = np.array([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1], [0.1, 0.1, 0.8]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UndefinedMetricWarning) as info:
            arrays.top_k_accuracy_score([0, 1, 2], y_score, k=3)
    assert isinstance(info.value, theirs)
    assert type(info.value).__name__ == "UndefinedMetricWarning"
    loaded = pickle.loads(pickle.dumps(info.value))  # noqa: S301 (our own bytes)
    assert type(loaded) is type(info.value)
    assert loaded.args == info.value.args
