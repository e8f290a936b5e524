"""Hypothesis properties of the metric expressions on random ragged long frames.

Groups are small (at most 6 rows, at most 4 groups) and scores are drawn from
a short list of values, so ties, -0.0 against 0.0, and groups of one row come
up often.  Each example runs on one path drawn from the ``paths`` fixture's
paths; the hand and corpus tests run every path on every case.

The references are:

* a slow, obviously-correct loop per metric (below), which averages over
  every ordering of the tied rows instead of using any closed form;
* the NumPy segmented evaluators of ``lodestar_polars._core``;
* ``lodestar_polars.arrays`` (scikit-learn's dense surface), per row and in the mean
  (skipped for a function it does not have).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import lodestar_polars as lp
from lodestar_polars._core.dcg import dcg_segments, ndcg_segments
from lodestar_polars._core.label_ranking import (
    average_precision_segments,
    coverage_segments,
    lrap_segments,
    ranking_loss_segments,
)
from lodestar_polars._core.reciprocal_rank import reciprocal_rank_segments
from lodestar_polars._core.top_k import top_k_segments

SETTINGS = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
#: loop references sum in another order (and over every ordering of a tie)
REF_REL, REF_ABS = 1e-10, 1e-12
#: the same algorithm in NumPy: only summation order may differ
CORE_REL, CORE_ABS = 1e-12, 1e-12

Rows = list[list[Any]]

# --------------------------------------------------------------------------- loop references


def _orderings(score: Sequence[float]) -> list[list[int]]:
    """Every ranking: score descending, the rows of each tie group in every order."""
    blocks: dict[float, list[int]] = {}
    for i, s in enumerate(score):
        blocks.setdefault(s, []).append(i)  # -0.0 and 0.0 share a key
    ordered = [blocks[v] for v in sorted(blocks, reverse=True)]
    return [
        [i for block in combo for i in block]
        for combo in itertools.product(*(itertools.permutations(b) for b in ordered))
    ]


def _fixed_order(score: Sequence[float]) -> list[int]:
    """The ranking ``ignore_ties`` and top-k use: score descending, later row first."""
    return sorted(range(len(score)), key=lambda i: (-score[i], -i))


def _mean_over(orders: list[list[int]], value: Callable[[list[int]], float]) -> float:
    return math.fsum(value(o) for o in orders) / len(orders)


def loop_dcg(
    g: Sequence[float],
    s: Sequence[float],
    *,
    k: int | None = None,
    log_base: float = 2,
    ignore_ties: bool = False,
) -> float:
    """DCG averaged over every ordering of the ties (or the fixed order, ``ignore_ties``)."""

    def plain(order: list[int]) -> float:
        return math.fsum(
            g[i] / (math.log(p + 2) / math.log(log_base))
            for p, i in enumerate(order)
            if k is None or p < k
        )

    if ignore_ties:
        return plain(_fixed_order(s))
    return _mean_over(_orderings(s), plain)


def loop_ndcg(
    g: Sequence[float], s: Sequence[float], *, k: int | None = None, ignore_ties: bool = False
) -> float:
    """DCG over the DCG of the gains in their own best order; 0 with nothing relevant."""
    ideal = loop_dcg(g, g, k=k, ignore_ties=True)
    return 0.0 if ideal == 0 else loop_dcg(g, s, k=k, ignore_ties=ignore_ties) / ideal


def loop_rr(
    g: Sequence[float], s: Sequence[float], *, k: int | None = None, ignore_ties: bool = False
) -> float:
    """1/rank of the first row above 0, averaged over every ordering of the ties."""

    def plain(order: list[int]) -> float:
        for p, i in enumerate(order):
            if g[i] > 0:
                return 1 / (p + 1) if k is None or p < k else 0.0
        return 0.0

    if ignore_ties:
        return plain(_fixed_order(s))
    return _mean_over(_orderings(s), plain)


def loop_top_k(t: Sequence[int], s: Sequence[float], *, k: int = 2) -> float:
    """Whether the true row is among the first ``k`` (ties: later row first)."""
    (true_row,) = [i for i, v in enumerate(t) if v]
    return float(_fixed_order(s).index(true_row) < k)


def loop_ap(t: Sequence[int], s: Sequence[float]) -> float:
    """Step sum of the precision-recall curve over the distinct scores; 0 with no positive."""
    n_pos = sum(1 for v in t if v)
    if n_pos == 0:
        return 0.0
    total, recall_before = [], 0.0
    for threshold in sorted(set(s), reverse=True):
        tp = sum(1 for v, x in zip(t, s, strict=True) if v and x >= threshold)
        fp = sum(1 for v, x in zip(t, s, strict=True) if not v and x >= threshold)
        recall = tp / n_pos
        total.append((recall - recall_before) * tp / (tp + fp))
        recall_before = recall
    return math.fsum(total)


def loop_coverage(t: Sequence[int], s: Sequence[float]) -> float:
    """Rows scoring at least as high as the worst relevant row; 0 with none."""
    return float(max((sum(1 for x in s if x >= s[p]) for p in range(len(t)) if t[p]), default=0))


def loop_lrl(t: Sequence[int], s: Sequence[float]) -> float:
    """Share of (relevant, irrelevant) pairs with the irrelevant one scoring at least as high."""
    pos = [i for i, v in enumerate(t) if v]
    neg = [i for i, v in enumerate(t) if not v]
    if not pos or not neg:
        return 0.0
    return sum(1 for p in pos for q in neg if s[q] >= s[p]) / (len(pos) * len(neg))


def loop_lrap(t: Sequence[int], s: Sequence[float]) -> float:
    """Mean over relevant rows of relevant-at-least-as-high / all-at-least-as-high."""
    pos = [i for i, v in enumerate(t) if v]
    if len(pos) in (0, len(t)):
        return 1.0
    return math.fsum(
        sum(1 for q in pos if s[q] >= s[p]) / sum(1 for x in s if x >= s[p]) for p in pos
    ) / len(pos)


# --------------------------------------------------------------------------- data

#: one group: (truth, score) per row.  Few distinct scores, so ties are common,
#: and -0.0 ties with 0.0.  Each metric turns the raw truth into its own kind.
RAW_TRUTH = st.sampled_from([0, 0, 1, 2, 3, -1, 0.5, 2.25])
RAW_SCORE = st.one_of(
    st.sampled_from([0.0, -0.0, 0.25, 0.5, 1.0, 3.0, -2.0]),
    st.floats(-100, 100, allow_nan=False, allow_infinity=False),
)
RawFrame = list[list[tuple[Any, float]]]
RAW_FRAME = st.lists(
    st.lists(st.tuples(RAW_TRUTH, RAW_SCORE), min_size=1, max_size=6), min_size=1, max_size=4
)
#: untied scores inside each group
RAW_FRAME_UNTIED = st.lists(
    st.lists(
        st.tuples(RAW_TRUTH, st.integers(-50, 50).map(lambda x: x / 4)),
        min_size=1,
        max_size=6,
        unique_by=lambda row: row[1],
    ),
    min_size=1,
    max_size=4,
)
RAW_OPTIONS = st.fixed_dictionaries(
    {
        "k": st.one_of(st.none(), st.integers(1, 7)),
        "ignore_ties": st.booleans(),
        "log_base": st.sampled_from([2, 2.0, 10, math.e, 0.5, 3.7]),
    }
)
PATH = st.sampled_from(
    ["group_by", "lazy", "streaming", "over", "select", "evaluate", "evaluate_lazy"]
)

# edge cases pinned below with @example
SEED_ROW: RawFrame = [[(3, 0.5), (2, 0.5), (1, 0.5), (0, 0.5)]]  # the seed: all tied
STRADDLE: RawFrame = [[(3, 1.0), (2, 0.5), (1, 0.5), (0, 0.0)]]  # k=2 cuts the tie
SIGNED_ZERO: RawFrame = [[(1, 0.0), (0, -0.0), (2, -0.0)], [(0, -0.0), (1, 0.0)]]
SINGLE_ROWS: RawFrame = [[(1, 0.5)], [(0, 0.5)], [(2, -1.0)]]
DEFAULTS = {"k": None, "ignore_ties": False, "log_base": 2}
K2 = {"k": 2, "ignore_ties": False, "log_base": 2}


@dataclass(frozen=True)
class Spec:
    """How one metric reads the raw data and options, and its references."""

    metric: Callable[..., Any]
    truth: str  # "graded", "nonnegative", "binary" or "one_hot"
    option_keys: tuple[str, ...]
    loop: Callable[..., float]
    core: Callable[..., np.ndarray]

    @property
    def name(self) -> str:
        """The metric's function name."""
        return self.metric.__name__

    @property
    def min_size(self) -> int:
        """The fewest rows a group of this metric may hold."""
        # dcg/ndcg need 2 documents; coverage and ranking loss refuse a single label
        two = (lp.dcg, lp.ndcg, lp.coverage_error, lp.label_ranking_loss)
        return 2 if self.metric in two else 1

    def rows(self, raw: RawFrame) -> tuple[Rows, Rows]:
        """Per-group (y_true, y_score) rows of this metric's kind from a raw frame."""
        rows_true, rows_score = [], []
        for grp in raw:
            if len(grp) < self.min_size:  # a refused single row: add a second
                grp = [*grp, (0, 0.0)]
            truth = [t for t, _ in grp]
            if self.truth == "nonnegative":
                truth = [abs(t) for t in truth]
            elif self.truth == "binary":
                truth = [int(t > 0) for t in truth]
            elif self.truth == "one_hot":
                hot = truth.index(max(truth))
                truth = [int(i == hot) for i in range(len(truth))]
            rows_true.append(truth)
            rows_score.append([s for _, s in grp])
        if any(isinstance(v, float) for t in rows_true for v in t):
            rows_true = [[float(v) for v in t] for t in rows_true]  # one dtype per column
        return rows_true, rows_score

    def options(self, raw: dict[str, Any]) -> dict[str, Any]:
        """The options of this metric, taken from the raw options."""
        out = {key: raw[key] for key in self.option_keys}
        if self.metric is lp.top_k_accuracy and out["k"] is None:
            del out["k"]  # top-k has no k=None: its default, 2
        return out


def _core_dcg(t: np.ndarray, s: np.ndarray, n: np.ndarray, **o: Any) -> np.ndarray:
    return dcg_segments(t, s, n, k=o["k"], log_base=o["log_base"], ignore_ties=o["ignore_ties"])


def _core_ndcg(t: np.ndarray, s: np.ndarray, n: np.ndarray, **o: Any) -> np.ndarray:
    return ndcg_segments(t, s, n, k=o["k"], ignore_ties=o["ignore_ties"])


def _core_rr(t: np.ndarray, s: np.ndarray, n: np.ndarray, **o: Any) -> np.ndarray:
    return reciprocal_rank_segments(t > 0, s, n, k=o["k"], ignore_ties=o["ignore_ties"])


def _core_top_k(t: np.ndarray, s: np.ndarray, n: np.ndarray, **o: Any) -> np.ndarray:
    return top_k_segments(t == 1, s, n, k=o.get("k", 2))


def _binary_core(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    def core(t: np.ndarray, s: np.ndarray, n: np.ndarray) -> np.ndarray:
        return fn(t == 1, s, n)

    return core


SPECS = [
    Spec(lp.dcg, "graded", ("k", "log_base", "ignore_ties"), loop_dcg, _core_dcg),
    Spec(lp.ndcg, "nonnegative", ("k", "ignore_ties"), loop_ndcg, _core_ndcg),
    Spec(lp.reciprocal_rank, "graded", ("k", "ignore_ties"), loop_rr, _core_rr),
    Spec(lp.top_k_accuracy, "one_hot", ("k",), loop_top_k, _core_top_k),
    Spec(lp.average_precision, "binary", (), loop_ap, _binary_core(average_precision_segments)),
    Spec(lp.coverage_error, "binary", (), loop_coverage, _binary_core(coverage_segments)),
    Spec(lp.label_ranking_loss, "binary", (), loop_lrl, _binary_core(ranking_loss_segments)),
    Spec(lp.label_ranking_average_precision, "binary", (), loop_lrap, _binary_core(lrap_segments)),
]
SPEC_IDS = [spec.name for spec in SPECS]
BY_NAME = {spec.name: spec for spec in SPECS}


def _values(
    paths: Any,
    path: str,
    spec: Spec,
    rows_true: Rows,
    rows_score: Rows,
    options: dict[str, Any],
    queries: Sequence[int] | None = None,
) -> list[Any]:
    """Per-group values on ``path`` (``group_by`` where evaluate cannot name the options)."""
    frame = paths.long_frame(rows_true, rows_score, queries=queries)
    values: list[Any] | None = paths.run_path(path, frame, spec.metric, **options)
    if values is None:
        values = paths.run_path("group_by", frame, spec.metric, **options)
    assert values is not None  # group_by names every option
    return values


def _assert_close(
    actual: Sequence[Any], expected: Sequence[Any], *, rel: float, abs_: float, what: str
) -> None:
    assert len(actual) == len(expected), (what, actual, expected)
    for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
        assert a is not None, (what, i, actual)
        assert math.isclose(a, e, rel_tol=rel, abs_tol=abs_), (
            what,
            i,
            list(actual),
            list(expected),
        )


# --------------------------------------------------------------------------- properties


def _core_values(
    spec: Spec, rows_true: Rows, rows_score: Rows, options: dict[str, Any]
) -> list[float]:
    """The NumPy segmented core on the flat columns of the same groups."""
    length = np.array([len(t) for t in rows_true], dtype=np.int64)
    flat_true = np.array([v for t in rows_true for v in t], dtype=np.float64)
    flat_score = np.array([v for s in rows_score for v in s], dtype=np.float64)
    return spec.core(flat_true, flat_score, length, **options).tolist()  # type: ignore[no-any-return]


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
@SETTINGS
@given(raw=RAW_FRAME, raw_options=RAW_OPTIONS, path=PATH)
@example(raw=SEED_ROW, raw_options=DEFAULTS, path="group_by")  # the seed row, all tied
@example(raw=SEED_ROW, raw_options={**DEFAULTS, "ignore_ties": True}, path="lazy")
@example(raw=STRADDLE, raw_options=K2, path="over")  # k=2 cuts a tie of two
@example(raw=SIGNED_ZERO, raw_options=K2, path="streaming")  # -0.0 ties with 0.0
@example(raw=SINGLE_ROWS, raw_options=DEFAULTS, path="select")  # groups of one row
@example(raw=SEED_ROW, raw_options={**DEFAULTS, "k": 7}, path="evaluate")  # k past the end
def test_matches_loop_reference_and_numpy_core(
    paths: Any, spec: Spec, raw: RawFrame, raw_options: dict[str, Any], path: str
) -> None:
    """Every metric equals its slow loop and the NumPy segmented core.

    The loop averages over every ordering of the ties; the core is
    ``lodestar_polars._core``'s segmented evaluator on the same ragged groups.
    """
    rows_true, rows_score = spec.rows(raw)
    options = spec.options(raw_options)
    got = _values(paths, path, spec, rows_true, rows_score, options)
    loop = [spec.loop(t, s, **options) for t, s in zip(rows_true, rows_score, strict=True)]
    _assert_close(got, loop, rel=REF_REL, abs_=REF_ABS, what=f"loop, {path} {options}")
    core = _core_values(spec, rows_true, rows_score, options)
    _assert_close(got, core, rel=CORE_REL, abs_=CORE_ABS, what=f"core, {path} {options}")


def _shuffle_ties(
    rnd: random.Random, t: list[Any], s: list[float], *, keep_true: bool
) -> tuple[list[Any], list[float]]:
    """Shuffle the rows of every tie group (only its false rows, with ``keep_true``)."""
    order = list(range(len(s)))
    blocks: dict[float, list[int]] = {}
    for i, x in enumerate(s):
        if not (keep_true and t[i]):
            blocks.setdefault(x, []).append(i)
    for members in blocks.values():
        shuffled = members[:]
        rnd.shuffle(shuffled)
        for dst, src in zip(members, shuffled, strict=True):
            order[dst] = src
    return [t[i] for i in order], [s[i] for i in order]


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
@SETTINGS
@given(raw=RAW_FRAME, raw_options=RAW_OPTIONS, path=PATH, rnd=st.randoms(use_true_random=False))
@example(raw=SEED_ROW, raw_options=DEFAULTS, path="group_by", rnd=random.Random(0))  # seed row
@example(raw=STRADDLE, raw_options=K2, path="over", rnd=random.Random(1))  # k cuts the tie
@example(raw=SIGNED_ZERO, raw_options=DEFAULTS, path="lazy", rnd=random.Random(2))  # -0.0
def test_permuting_a_tie_group_changes_nothing(
    paths: Any,
    spec: Spec,
    raw: RawFrame,
    raw_options: dict[str, Any],
    path: str,
    rnd: random.Random,
) -> None:
    """Default mode: a tie has no order, so shuffling tied rows keeps every value.

    top_k_accuracy is the exception by design (scikit-learn ranks the later
    tied class first): there only the false rows of a tie are shuffled, which
    leaves the true row's position unchanged.
    """
    rows_true, rows_score = spec.rows(raw)
    options = {key: v for key, v in spec.options(raw_options).items() if key != "ignore_ties"}
    keep_true = spec.metric is lp.top_k_accuracy
    shuffled = [
        _shuffle_ties(rnd, t, s, keep_true=keep_true)
        for t, s in zip(rows_true, rows_score, strict=True)
    ]
    before = _values(paths, path, spec, rows_true, rows_score, options)
    after = _values(paths, path, spec, [t for t, _ in shuffled], [s for _, s in shuffled], options)
    _assert_close(after, before, rel=CORE_REL, abs_=CORE_ABS, what=str(options))


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
@SETTINGS
@given(raw=RAW_FRAME, raw_options=RAW_OPTIONS, path=PATH, rnd=st.randoms(use_true_random=False))
@example(  # a group of one row between longer ones
    raw=[SEED_ROW[0], SINGLE_ROWS[0], STRADDLE[0]],
    raw_options=DEFAULTS,
    path="streaming",
    rnd=random.Random(0),
)
def test_permuting_groups_changes_nothing(
    paths: Any,
    spec: Spec,
    raw: RawFrame,
    raw_options: dict[str, Any],
    path: str,
    rnd: random.Random,
) -> None:
    """Each group's value depends on that group alone, wherever its rows sit in the frame.

    The groups are put in another order, and their rows interleaved (each
    group's own rows keep their order, which ``ignore_ties`` and top-k read).
    """
    rows_true, rows_score = spec.rows(raw)
    options = spec.options(raw_options)
    keys = list(range(100, 100 + len(rows_true)))
    before = dict(
        zip(keys, _values(paths, path, spec, rows_true, rows_score, options, keys), strict=True)
    )
    order = list(range(len(keys)))
    rnd.shuffle(order)
    frame = paths.long_frame(
        [rows_true[i] for i in order],
        [rows_score[i] for i in order],
        queries=[keys[i] for i in order],
    )
    # a random merge of the groups' rows: shuffle the key sequence, then give
    # each occurrence of a key that group's next row
    rows_of: dict[int, list[int]] = {}
    for row, key in enumerate(frame["query"].to_list()):
        rows_of.setdefault(key, []).append(row)
    sequence = frame["query"].to_list()
    rnd.shuffle(sequence)
    taken = {key: 0 for key in rows_of}
    merged = []
    for key in sequence:
        merged.append(rows_of[key][taken[key]])
        taken[key] += 1
    frame = frame[merged]
    after = paths.run_path(path, frame, spec.metric, **options)
    if after is None:
        after = paths.run_path("group_by", frame, spec.metric, **options)
    first_seen = frame["query"].unique(maintain_order=True).to_list()
    _assert_close(
        after, [before[key] for key in first_seen], rel=CORE_REL, abs_=CORE_ABS, what=str(options)
    )


@pytest.mark.parametrize("name", ["dcg", "ndcg", "reciprocal_rank"])
@SETTINGS
@given(raw=RAW_FRAME_UNTIED, raw_options=RAW_OPTIONS, path=PATH)
@example(raw=[[(3, 1.0), (0, 0.5), (2, 0.25), (1, 0.0)]], raw_options=K2, path="group_by")
def test_ignore_ties_is_the_default_on_untied_scores(
    paths: Any, name: str, raw: RawFrame, raw_options: dict[str, Any], path: str
) -> None:
    """Without ties, ``ignore_ties=True`` changes nothing."""
    spec = BY_NAME[name]
    rows_true, rows_score = spec.rows(raw)
    options = spec.options(raw_options)
    assume_untied = all(len(set(s)) == len(s) for s in rows_score)  # min-size padding may tie
    if not assume_untied:
        return
    default = _values(paths, path, spec, rows_true, rows_score, {**options, "ignore_ties": False})
    ignoring = _values(paths, path, spec, rows_true, rows_score, {**options, "ignore_ties": True})
    _assert_close(ignoring, default, rel=CORE_REL, abs_=CORE_ABS, what=str(options))


@SETTINGS
@given(raw=RAW_FRAME, raw_options=RAW_OPTIONS, path=PATH)
@example(raw=[[(2, 2.0), (3, 3.0), (3, 3.0)]], raw_options=DEFAULTS, path="group_by")  # ndcg(y, y)
@example(raw=[[(0, 0.5), (0, 0.1)]], raw_options=DEFAULTS, path="group_by")  # nothing relevant
def test_ndcg_is_in_the_unit_interval(
    paths: Any, raw: RawFrame, raw_options: dict[str, Any], path: str
) -> None:
    """NDCG lies in [0, 1] (1 + 1e-12: a perfect ranking may round above)."""
    spec = BY_NAME["ndcg"]
    rows_true, rows_score = spec.rows(raw)
    values = _values(paths, path, spec, rows_true, rows_score, spec.options(raw_options))
    assert all(v is not None and 0.0 <= v <= 1.0 + 1e-12 for v in values), values


@SETTINGS
@given(raw=RAW_FRAME_UNTIED, path=PATH)
@example(raw=[[(0, 0.5)], [(1, 0.25), (0, 0.5), (0, 0.0)]], path="select")  # one row; rank 2
def test_reciprocal_rank_is_lrap_with_one_relevant_row(
    paths: Any, raw: RawFrame, path: str
) -> None:
    """On untied scores with exactly one relevant row, RR equals scikit-learn's LRAP."""
    one_hot = BY_NAME["top_k_accuracy"]  # its rows hold exactly one 1
    rows_true, rows_score = one_hot.rows(raw)
    rr = _values(paths, path, BY_NAME["reciprocal_rank"], rows_true, rows_score, {})
    lrap = _values(
        paths, path, BY_NAME["label_ranking_average_precision"], rows_true, rows_score, {}
    )
    _assert_close(rr, lrap, rel=CORE_REL, abs_=CORE_ABS, what="rr against lrap")


# --------------------------------------------------------------------------- arrays surface

ARRAYS = {
    "dcg": "dcg_score",
    "ndcg": "ndcg_score",
    "reciprocal_rank": "reciprocal_rank_score",
    "top_k_accuracy": "top_k_accuracy_score",
    "average_precision": "average_precision_score",
    "coverage_error": "coverage_error",
    "label_ranking_loss": "label_ranking_loss",
    "label_ranking_average_precision": "label_ranking_average_precision_score",
}


def _arrays_function(name: str) -> Callable[..., float] | None:
    return getattr(lp.arrays, ARRAYS[name], None)


@st.composite
def rectangular(draw: st.DrawFn) -> RawFrame:
    """2 to 5 rows of 3 to 6 columns, every row the same length."""
    n_cols = draw(st.integers(3, 6))
    row = st.lists(st.tuples(RAW_TRUTH, RAW_SCORE), min_size=n_cols, max_size=n_cols)
    return draw(st.lists(row, min_size=2, max_size=5))


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
@SETTINGS
@given(raw=rectangular(), raw_options=RAW_OPTIONS)
@example(raw=[SEED_ROW[0], STRADDLE[0]], raw_options=K2)  # ties, k cutting one
def test_matches_arrays_surface(
    paths: Any, spec: Spec, raw: RawFrame, raw_options: dict[str, Any]
) -> None:
    """On rectangular data the expressions give ``lodestar_polars.arrays``'s numbers.

    The mean over groups is the arrays function's value, and so is each
    group's value, read through a one-hot ``sample_weight``.
    """
    fn = _arrays_function(spec.name)
    if fn is None:
        pytest.skip(f"lodestar_polars.arrays has no {ARRAYS[spec.name]} yet")
    rows_true, rows_score = spec.rows(raw)
    options = spec.options(raw_options)
    kwargs: dict[str, Any] = dict(options)
    y_true: Any = np.array(rows_true)
    if spec.metric is lp.top_k_accuracy:
        n_cols = len(rows_true[0])
        kwargs["k"] = min(options.get("k", 2), n_cols - 1)  # k >= n_classes warns
        options = {"k": kwargs["k"]}
        y_true = np.array([row.index(1) for row in rows_true])
        kwargs["labels"] = list(range(n_cols))
    elif spec.metric is lp.average_precision:
        kwargs["average"] = "samples"
        # a row without a positive warns ("No positive class found"): give it one
        rows_true = [row if any(row) else [1, *row[1:]] for row in rows_true]
        y_true = np.array(rows_true)
    got = _values(paths, "group_by", spec, rows_true, rows_score, options)
    y_score = np.array(rows_score, dtype=np.float64)
    want = fn(y_true, y_score, **kwargs)
    assert math.isclose(float(np.mean(got)), want, rel_tol=CORE_REL, abs_tol=CORE_ABS), (got, want)
    # each row alone: a one-hot sample_weight makes the mean that row's value
    for i, value in enumerate(got):
        weight = np.zeros(len(got))
        weight[i] = 1.0
        row = fn(y_true, y_score, sample_weight=weight, **kwargs)
        assert math.isclose(value, row, rel_tol=CORE_REL, abs_tol=CORE_ABS), (i, got, row)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=RAW_FRAME, raw_options=RAW_OPTIONS)
@example(raw=SIGNED_ZERO + SEED_ROW, raw_options=K2)  # ties everywhere, k cutting them
def test_metrics_together_equal_each_alone(
    paths: Any, raw: RawFrame, raw_options: dict[str, Any]
) -> None:
    """All metrics in one ``agg`` (or one ``with_columns`` of windows) equal each one alone.

    Guards against the metrics' shared sub-expressions interfering when Polars
    plans them together.
    """
    rows_true, rows_score = BY_NAME["coverage_error"].rows(raw)  # binary, 2+ rows per group
    one_hot, _ = BY_NAME["top_k_accuracy"].rows(raw)
    one_hot = [
        row if len(row) == len(t) else [*row, 0] for row, t in zip(one_hot, rows_true, strict=True)
    ]
    frame = paths.long_frame(rows_true, rows_score).with_columns(
        hot=pl.Series([v for row in one_hot for v in row], dtype=pl.Int64)
    )
    exprs = []
    for i, spec in enumerate(SPECS):
        truth = "hot" if spec.metric is lp.top_k_accuracy else "y_true"
        for j, options in enumerate([spec.options(raw_options), {}]):
            exprs.append(spec.metric(truth, "y_score", **options).alias(f"m{i}_{j}"))
    together = frame.group_by("query", maintain_order=True).agg(exprs)
    windows = (
        frame.with_columns(e.over("query") for e in exprs)
        .group_by("query", maintain_order=True)
        .agg(pl.col("^m.*$").first())
    )
    for expr in exprs:
        name = expr.meta.output_name()
        alone = frame.group_by("query", maintain_order=True).agg(expr)[name]
        assert together[name].equals(alone), name
        assert windows[name].equals(alone), name


@pytest.mark.parametrize(
    ("gains", "k"),
    [("few", None), ("few", 3), ("many", None), ("many", 3)],
)
def test_ideal_dcg_counted_or_sorted(gains: str, k: int | None) -> None:
    """The ideal DCG is counted value by value when the gains take at most 32
    values in the frame, and sorted within segments otherwise: both give the
    loop reference's NDCG on every query.
    """
    rng = np.random.default_rng(7)
    n_queries, n_docs = 40, 6
    if gains == "few":
        rel = rng.integers(0, 4, size=n_queries * n_docs).astype(np.float64)
    else:
        rel = rng.random(n_queries * n_docs) * 3  # 240 distinct values
    score = rng.permutation(n_queries * n_docs).astype(np.float64)  # no ties
    frame = pl.DataFrame(
        {"query": np.repeat(np.arange(n_queries), n_docs), "rel": rel, "score": score}
    )
    assert (np.unique(rel).size <= 32) == (gains == "few")
    name = "ndcg" if k is None else f"ndcg@{k}"
    got = lp.evaluate(frame, [name], by="query", y_true="rel", y_score="score")[name]
    for q, value in enumerate(got):
        g = rel[q * n_docs : (q + 1) * n_docs].tolist()
        s = score[q * n_docs : (q + 1) * n_docs].tolist()
        assert value == pytest.approx(loop_ndcg(g, s, k=k), rel=1e-12, abs=1e-15)


# ------------------------------------------------- integer scores and non-finite relevance
# Issue 8 found wrong numbers in dtypes and values the properties above never drew:
# integer scores beyond 2**53 (merged into ties by a cast to Float64) and infinite
# relevances under the exponential gain.  These properties draw them.

#: (Polars dtype, NumPy dtype, base): scores are ``base + offset``, offsets 0..7, so
#: neighbouring scores differ by 1 where Float64 cannot tell them apart
INTEGER_BASES = [
    (pl.Int64, np.int64, 2**53),
    (pl.Int64, np.int64, 2**63 - 8),
    (pl.Int64, np.int64, -(2**63)),
    (pl.UInt64, np.uint64, 2**64 - 8),
    (pl.UInt64, np.uint64, 2**53 + 1),
    (pl.UInt32, np.uint32, 2**32 - 8),
    (pl.Int8, np.int8, -128),
]
INTEGER_FRAME = st.lists(
    st.lists(st.tuples(RAW_TRUTH, st.integers(0, 7)), min_size=1, max_size=6),
    min_size=1,
    max_size=4,
)


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
@pytest.mark.parametrize(
    ("dtype", "np_dtype", "base"), INTEGER_BASES, ids=[f"{d}{b:+d}" for d, _, b in INTEGER_BASES]
)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=INTEGER_FRAME, raw_options=RAW_OPTIONS, path=PATH)
@example(raw=[[(0, 0), (1, 1)]], raw_options=DEFAULTS, path="group_by")  # the pair
def test_integer_scores_match_the_loop_in_their_own_dtype(
    paths: Any,
    spec: Spec,
    dtype: pl.DataType,
    np_dtype: type,
    base: int,
    raw: RawFrame,
    raw_options: dict[str, Any],
    path: str,
) -> None:
    """Integer scores are ranked as integers on every path, as scikit-learn ranks int64.

    The loop reference reads the scores as Python ints (exact); the frame holds
    them in ``dtype``, one apart where Float64 would merge them.
    """
    rows_true, offsets = spec.rows(raw)
    offsets = [[int(o) for o in row] for row in offsets]  # rows() pads with a 0.0
    rows_score = [[base + o for o in row] for row in offsets]
    options = spec.options(raw_options)
    frame = paths.long_frame(rows_true, offsets).with_columns(
        (pl.lit(base, dtype=dtype) + pl.col(paths.Y_SCORE).cast(dtype)).alias(paths.Y_SCORE)
    )
    assert frame.schema[paths.Y_SCORE] == dtype
    got = paths.run_path(path, frame, spec.metric, **options)
    if got is None:
        got = paths.run_path("group_by", frame, spec.metric, **options)
    loop = [spec.loop(t, s, **options) for t, s in zip(rows_true, rows_score, strict=True)]
    _assert_close(got, loop, rel=REF_REL, abs_=REF_ABS, what=f"loop, {path} {options}")
    length = np.array([len(t) for t in rows_true], dtype=np.int64)
    flat_true = np.array([v for t in rows_true for v in t], dtype=np.float64)
    flat_score: np.ndarray = np.array([v for s in rows_score for v in s], dtype=np_dtype)
    core = spec.core(flat_true, flat_score, length, **options).tolist()
    _assert_close(got, core, rel=CORE_REL, abs_=CORE_ABS, what=f"core, {path} {options}")


NON_FINITE_TRUTH = st.sampled_from([math.inf, -math.inf, math.nan])


@pytest.mark.parametrize("metric", [lp.dcg, lp.ndcg], ids=["dcg", "ndcg"])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    raw=RAW_FRAME,
    spoil=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 5), NON_FINITE_TRUTH), max_size=3),
    path=PATH,
)
@example(raw=[[(1, 0.5), (0, 0.1)]], spoil=[(0, 0, -math.inf)], path="evaluate")  # issue 8
def test_non_finite_relevance_refuses_its_group_under_every_gain(
    paths: Any,
    metric: Callable[..., pl.Expr],
    gain: str,
    raw: RawFrame,
    spoil: list[tuple[int, int, float]],
    path: str,
) -> None:
    """A group holding an infinite or NaN relevance is null; every other group is scored.

    ``2 ** -inf - 1`` is a finite -1: the rule reads the relevance, not the gain.
    """
    rows_true, rows_score = BY_NAME[metric.__name__].rows(raw)
    rows_true = [[float(v) for v in row] for row in rows_true]
    spoiled = set()
    for group, row, value in spoil:
        if group < len(rows_true) and row < len(rows_true[group]):
            rows_true[group][row] = value
            spoiled.add(group)
    frame = paths.long_frame(rows_true, rows_score)
    options = {"gain": gain}
    got = paths.run_path(path, frame, metric, **options)
    if got is None:  # evaluate names the exponential gain "_burges"
        name = f"{metric.__name__}_burges" if gain == "exponential" else metric.__name__
        source = frame.lazy() if path == "evaluate_lazy" else frame
        out = lp.evaluate(
            source, [name], by=paths.QUERY, y_true=paths.Y_TRUE, y_score=paths.Y_SCORE, strict=False
        )
        out = out.collect() if isinstance(out, pl.LazyFrame) else out
        got = dict(zip(out[paths.QUERY], out[name], strict=True))
        got = [got[q] for q in range(len(rows_true))]
    for group, (t, s) in enumerate(zip(rows_true, rows_score, strict=True)):
        if group in spoiled:
            assert got[group] is None, (group, got)
            continue
        g = [2.0**v - 1.0 for v in t] if gain == "exponential" else t
        if metric is lp.ndcg and min(g) < 0:
            assert got[group] is None, (group, got)  # ndcg refuses negative gains
            continue
        want = loop_dcg(g, s) if metric is lp.dcg else loop_ndcg(g, s)
        assert got[group] is not None
        assert math.isclose(got[group], want, rel_tol=REF_REL, abs_tol=REF_ABS), (group, got, want)
