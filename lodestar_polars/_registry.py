"""The metric registry: the one home of every metric's names, cutoff, options and implementations.

Each :class:`MetricSpec` holds, for one metric that :func:`lodestar_polars.evaluate`
computes:

* its canonical name and every other name it answers to (:class:`Name`), with
  the tool that spells it so (scikit-learn, trec_eval, ranx, ir_measures), how
  a cutoff is written after it (``@k``; trec_eval's ``.k`` and ``_k``) and
  whether the name matches in any case or only as written (``AP`` is
  ir_measures' AP cut at k, ``ap`` scikit-learn's average precision);
* whether it takes a cutoff (``"none"``, ``"optional"``, ``"required"``), the
  option the number after ``@`` sets (the cutoff ``k``; the bins ``n_bins`` of
  ``ece@15``) and the options its name fixes (``gain="exponential"`` for
  ``ndcg_burges``, ``strategy="quantile"`` for ``ece_quantile``);
* the public Polars expression, the :class:`~lodestar_polars._metrics.expr.Metric`
  builder behind it (rules and value), and the NumPy segment core that
  :func:`~lodestar_polars.evaluate` runs over the sorted frame;
* its direction, its display label (``NDCG@10``, ``P@10``, ``MRR@10``, ``ECE``)
  and its value range (``[0, 1]``, ``[0, inf)``);
* the trec_eval measures it is (:class:`TrecMeasure`: ``ndcg`` and
  ``ndcg_cut``), each with how it is written, its default cutoffs, its sets
  (``official``, ``all_trec``), how ``all`` aggregates it and its core over
  judged runs, for :mod:`lodestar_polars.trec`.

trec_eval's measures that are no metric here (the counts, and those not
offered yet) are :class:`TrecMeasure` entries of their own (:data:`TREC_ONLY`);
:data:`TREC_MEASURES` gathers every one in trec_eval's print order.

:func:`resolve` reads a name (``"nDCG@10"``, ``"P.10"``, ``"map_cut.100"``);
``lp.evaluate``'s parser, ``lp.trec`` (its measure table, sets, names and
cores), the ``trec`` command, :func:`direction` (``lp.compare``, the plots),
the test suite's name tables and the docs' tables (:func:`names_table` and
:func:`trec_table`, each checked by a test against its page) all read this
module.  A new metric is added here, once (docs/adding-a-metric.md;
docs/decisions/0009-metric-registry.md, 0016-registry-defines-each-metric.md).
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
import polars as pl

from lodestar_polars._base.deprecation import REMOVED_IN, RENAMED_IN
from lodestar_polars._core.beyond import (
    category_diversity_segments,
    mean_popularity_segments,
    novelty_segments,
    personalisation_value,
    serendipity_segments,
)
from lodestar_polars._core.calibration import (
    brier_segments,
    expected_calibration_error_segments,
    log_loss_segments,
    roc_auc_segments,
)
from lodestar_polars._core.dcg import dcg_segments, ideal_dcg_segments, ndcg_segments
from lodestar_polars._core.ir import (
    Gains,
    Judged,
    average_precision_at_k_segments,
    exponential_gain,
    hit_rate_segments,
    judged_average_precision,
    judged_ndcg,
    judged_num_q,
    judged_num_rel,
    judged_num_rel_ret,
    judged_num_ret,
    judged_precision,
    judged_r_precision,
    judged_recall,
    judged_reciprocal_rank,
    judged_success,
    precision_segments,
    r_precision_segments,
    recall_segments,
)
from lodestar_polars._core.label_ranking import (
    average_precision_segments,
    coverage_segments,
    lrap_segments,
    ranking_loss_segments,
)
from lodestar_polars._core.reciprocal_rank import reciprocal_rank_segments
from lodestar_polars._core.threads import map_parts, parts
from lodestar_polars._core.top_k import top_k_segments
from lodestar_polars._core.trec_more import (
    IPREC_LEVELS,
    RPREC_MULTIPLES,
    SET_F_DEFAULT,
    UTILITY_DEFAULT,
    bpref_core,
    inferred_average_precision_core,
    interpolated_precision_core,
    judged_11pt_avg,
    judged_bin_g,
    judged_bpref,
    judged_g,
    judged_gm_bpref,
    judged_gm_map,
    judged_infap,
    judged_iprec_at_recall,
    judged_ndcg_rel,
    judged_num_nonrel_judged_ret,
    judged_relative_p,
    judged_rndcg,
    judged_rprec_mult,
    judged_set_f,
    judged_set_map,
    judged_set_p,
    judged_set_recall,
    judged_set_relative_p,
    judged_utility,
)
from lodestar_polars._core.trec_user import (
    UNJ_CUTOFFS,
    judged_rbp,
    judged_rbp_resid,
    judged_unj,
)
from lodestar_polars._core.user_models import err_segments, judged_segments, rbp_segments
from lodestar_polars._metrics.across_lists import personalisation
from lodestar_polars._metrics.beyond import (
    average_recommended_popularity,
    intra_list_diversity,
    novelty,
    serendipity,
)
from lodestar_polars._metrics.calibration import (
    brier_score,
    brier_score_metric,
    expected_calibration_error,
    expected_calibration_error_metric,
    log_loss,
    log_loss_metric,
    roc_auc,
    roc_auc_metric,
)
from lodestar_polars._metrics.dcg import dcg, dcg_metric, ndcg, ndcg_metric
from lodestar_polars._metrics.expr import Metric
from lodestar_polars._metrics.ir import (
    average_precision_at_k,
    average_precision_at_k_metric,
    hit_rate,
    hit_rate_metric,
    precision,
    precision_metric,
    r_precision,
    r_precision_metric,
    recall,
    recall_metric,
)
from lodestar_polars._metrics.label_ranking import (
    average_precision,
    average_precision_metric,
    coverage_error,
    coverage_error_metric,
    label_ranking_average_precision,
    label_ranking_average_precision_metric,
    label_ranking_loss,
    label_ranking_loss_metric,
)
from lodestar_polars._metrics.reciprocal_rank import reciprocal_rank, reciprocal_rank_metric
from lodestar_polars._metrics.top_k_accuracy import top_k_accuracy, top_k_accuracy_metric
from lodestar_polars._metrics.trec_measures import (
    bpref,
    bpref_metric,
    inferred_average_precision,
    inferred_average_precision_metric,
    interpolated_precision,
    interpolated_precision_metric,
)
from lodestar_polars._metrics.user_models import (
    check_max_grade,
    check_persistence,
    err,
    err_metric,
    judged,
    judged_metric,
    rbp,
    rbp_metric,
)
from lodestar_polars.exceptions import InvalidParameterError

Tool = Literal["lodestar_polars", "scikit-learn", "trec_eval", "ranx", "ir_measures"]
Cutoff = Literal["none", "optional", "required"]


@dataclass(frozen=True)
class Sorted:
    """The sorted frame's columns as NumPy arrays, segment by segment (``lp.evaluate``)."""

    gain: np.ndarray
    score: np.ndarray
    length: np.ndarray
    n_relevant: np.ndarray | None = None
    """Judged relevant documents per segment (``lp.evaluate(n_relevant=)``), if given."""
    judged: tuple[np.ndarray, np.ndarray] | None = None
    """Every judged relevance, segment after segment, and how many per segment
    (``lp.evaluate(judged=)``), if given."""

    def part(self, first: int, end: int) -> Sorted:
        """Segments ``first .. end - 1`` (views of the arrays, no copy)."""
        start = np.concatenate(([0], np.cumsum(self.length)))
        a, b = int(start[first]), int(start[end])
        judged = None
        if self.judged is not None:
            values, lengths = self.judged
            judged_start = np.concatenate(([0], np.cumsum(lengths)))
            ja, jb = int(judged_start[first]), int(judged_start[end])
            judged = (values[ja:jb], lengths[first:end])
        n_relevant = None if self.n_relevant is None else self.n_relevant[first:end]
        return Sorted(self.gain[a:b], self.score[a:b], self.length[first:end], n_relevant, judged)


Core = Callable[[Sorted, dict[str, Any]], np.ndarray]


def run_core(core: Core, arrays: Sorted, options: dict[str, Any]) -> np.ndarray:
    """``core(arrays, options)``, the segments cut into parts scored in threads at once.

    A segment's value reads only its own rows, so the parts' values, end to
    end, are the whole call's; NumPy releases the GIL in its loops, so the
    parts use the cores Polars uses.
    """
    bounds = parts(arrays.length)
    if bounds.size == 2:
        return core(arrays, options)
    pieces = map_parts(
        lambda i: core(arrays.part(int(bounds[i]), int(bounds[i + 1])), options), bounds.size - 1
    )
    return np.concatenate(pieces)


def segmented(
    fn: Callable[..., np.ndarray],
    truth: Callable[[np.ndarray], np.ndarray],
    *,
    judged: bool = False,
    judged_ideal: bool = False,
    **fixed: Any,
) -> Core:
    """A segment core over presorted arrays: ``fn(truth(gain), score, length, **options)``.

    With ``judged``, ``fn`` also takes the judged ``n_relevant`` per segment;
    with ``judged_ideal``, the ``ideal`` DCG of the judged relevances.
    """

    def core(a: Sorted, options: dict[str, Any]) -> np.ndarray:
        if judged and a.n_relevant is not None:
            options = {**options, "n_relevant": a.n_relevant}
        if judged_ideal and a.judged is not None:
            values, lengths = a.judged
            gains = truth(values)
            positive = np.where(gains > 0, gains, 0.0)  # trec_eval's ideal: positive gains
            d = options.get("discount", "log")
            ideal = ideal_dcg_segments(positive, lengths, k=options.get("k"), discount=d)
            options = {**options, "ideal": ideal}
        return fn(truth(a.gain), a.score, a.length, presorted=True, **fixed, **options)

    return core


def _gain(g: np.ndarray) -> np.ndarray:
    return g


def _positive(g: np.ndarray) -> np.ndarray:
    return g > 0


def _true(g: np.ndarray) -> np.ndarray:
    true: np.ndarray = g == 1.0
    return true


def _exponential(g: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        gain = exponential_gain(g)
    return np.where(np.isfinite(gain), gain, 0.0)  # an overflow refuses the group


@dataclass(frozen=True)
class Name:
    """A name a metric answers to, and how it is written."""

    text: str
    tool: Tool
    exact_case: bool = False
    """Matched only as written (``AP``, ``nDCG``); otherwise in any case."""
    trec_cutoff: bool = False
    """The cutoff may also follow a dot or an underscore, as trec_eval writes it (``P.10``)."""
    cutoff: Cutoff | None = None
    """Overrides the metric's own rule for this name (``ndcg_cut`` requires a cutoff)."""
    dot_option: str | None = None
    """The option the digits after a dot set, read as a fraction, as this tool writes it
    (ranx's ``rbp.95``: ``p=0.95``); the dot is then no cutoff."""


@dataclass(frozen=True)
class Option:
    """An option a metric's name may set in parentheses (``rbp(p=0.8)``, ``RBP(p=0.8)@10``).

    The value is read as a Python literal would be (``0.8``, ``3``, ``true``) and
    given to ``check``, the builder's own check of that option, whose sentence a
    bad value gets.
    """

    name: str
    check: Callable[[Any], Any]
    """The option's check (a helper of ``_base/validation.py``): the value, or a raise."""
    summary: str
    """What the option is, as the docs' names table says it."""


@dataclass(frozen=True)
class Range:
    """The values a metric can take: from ``low`` to ``high``, each end included where finite."""

    low: float
    high: float

    def __contains__(self, value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)):
            return False
        return bool(self.low <= value <= self.high)

    def __str__(self) -> str:
        def end(x: float) -> str:
            return ("-inf" if x < 0 else "inf") if math.isinf(x) else f"{x:g}"

        left = "(" if math.isinf(self.low) else "["
        right = ")" if math.isinf(self.high) else "]"
        return f"{left}{end(self.low)}, {end(self.high)}{right}"


UNIT = Range(0.0, 1.0)
"""``[0, 1]``: a fraction, a chance, a normalised score."""
NON_NEGATIVE = Range(0.0, math.inf)
"""``[0, inf)``: a loss without a bound, a count of positions."""
REAL = Range(-math.inf, math.inf)
"""Any number: DCG, whose gains (the relevance) may be negative (scikit-learn's ``dcg_score``)."""

TrecCore = Callable[[Judged, Any, Gains], np.ndarray]
"""A trec_eval measure's core: ``core(judged, param, gains)``, one value per query
(:mod:`lodestar_polars._core.ir`'s and :mod:`lodestar_polars._core.trec_more`'s
``judged_*`` functions); ``param`` is the cutoff ``k`` (or None), a recall level or
multiple of R (``params="levels"``), or the tuple of values (``params="values"``)."""
TrecParams = Literal["none", "cutoffs", "gains", "levels", "values"]
Aggregate = Literal["mean", "sum", "gmean", "none"]

DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
"""trec_eval's default cutoffs (``P``, ``recall``, ``ndcg_cut``, ``map_cut``, ...)."""


@dataclass(frozen=True, kw_only=True)
class TrecMeasure:
    """One trec_eval measure: how it is written, its core, how ``all`` aggregates it.

    A measure that is an :func:`lodestar_polars.evaluate` metric is held by its
    :class:`MetricSpec` (``MetricSpec.trec_eval``); the others (the counts, and
    the measures not offered here) are in :data:`TREC_ONLY`.
    """

    name: str
    """trec_eval's name, as ``-m`` takes it and as it prints it (``P``, ``ndcg_cut``)."""
    summary: str
    """What the measure is, as the docs' measure table says it."""
    core: TrecCore | None = None
    """The values per query; None for a measure not offered here (it is refused)."""
    params: TrecParams = "none"
    """What may follow the name after ``.``: nothing, cutoffs (``P.5,10``, also
    ``P_5``) or gains per relevance level (``ndcg.1=3,2=9``)."""
    default_cutoffs: tuple[int, ...] = ()
    """The cutoffs of the bare name (``P`` is ``P.5,10,...,1000``)."""
    aggregate: Aggregate = "mean"
    """The ``all`` row: the mean over queries, or the sum (the counts; printed as
    integers), or trec_eval's geometric mean (``gm_map``); ``none`` for text."""
    per_query: bool = True
    """Whether it has per-query rows (``num_q`` is printed in ``all`` only)."""
    official: bool = False
    """In trec_eval's default set (``-m official``)."""
    all_trec: bool = True
    """In ``-m all_trec`` (trec_eval's ``-J`` measures are not)."""
    higher_is_better: bool | None = True
    """Its direction; None for a count or text (how many, not how good)."""
    peers_cut: bool = False
    """A ranx / ir_measures cutoff cuts it though trec_eval writes none
    (``RR@10`` is ``recip_rank`` cut at 10)."""
    default_values: tuple[float, ...] = ()
    """The parameters of the bare name where they are numbers: the recall levels or
    multiples of R of ``params="levels"`` (``iprec_at_recall_0.00`` ... ``_1.00``, one
    row each, printed ``%3.2f``), the values of ``params="values"`` (``utility``'s four
    coefficients, ``set_F``'s beta, ``11pt_avg``'s levels; one row, printed with the
    parameters as written: ``utility_2,-1,0,0``)."""
    n_values: int | None = None
    """How many values ``params="values"`` takes (``utility``: 4, ``set_F``: 1; None: any)."""
    increasing: bool = False
    """Whether the values must be given in increasing order (``11pt_avg``'s levels, which
    trec_eval walks in the order written)."""

    @property
    def offered(self) -> bool:
        """Whether ``lp.trec.evaluate`` computes it."""
        return self.core is not None

    @property
    def is_count(self) -> bool:
        """A count: summed in ``all`` and printed as an integer."""
        return self.aggregate == "sum"

    @property
    def order(self) -> int:
        """Its place in trec_eval's print order (:data:`TREC_PRINT_ORDER`)."""
        return TREC_PRINT_ORDER.index(self.name)


@dataclass(frozen=True)
class MetricSpec:
    """One metric of the registry (see the module docstring)."""

    name: str
    expression: Callable[..., pl.Expr]
    builder: Callable[..., Metric]
    core: Core
    cutoff: Cutoff
    names: tuple[Name, ...]
    summary: str
    """What the metric is, as the docs' name table says it."""
    higher_is_better: bool = field(kw_only=True)
    """Whether a larger value is a better ranking or model (False for the losses and
    errors: ``coverage_error``, ``label_ranking_loss``, ``log_loss``, ``brier_score``).
    Given for every entry; :func:`direction` and ``lp.compare`` read it."""
    label: str = field(kw_only=True)
    """The name shown in tables and plots (``"NDCG"``, ``"P"``, ``"MRR"``, ``"ECE"``);
    :meth:`display` writes it with a cutoff."""
    value_range: Range = field(kw_only=True)
    """The values the metric can take (``[0, 1]``; ``[0, inf)`` for ``log_loss``)."""
    label_cut: str = field(default="{label}@{k}", kw_only=True)
    """How :meth:`display` writes the label with the number after ``@``
    (``"{label}@{k}"``: ``NDCG@10``; ``"ECE ({k} bins)"``)."""
    fixed: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Options of ``expression`` the name fixes (``builder`` has them bound already)."""
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    """Other options of ``expression`` with a closed set of values, the default first
    (``discount``, ``denominator``: LensKit's and RecTools' conventions); the builder
    and the core both take them (docs/coming-from-lenskit.md)."""
    default_k: int | None = None
    """The cutoff used when the name has none (``top_k_accuracy``: 2; ECE's 10 bins)."""
    cutoff_option: str = "k"
    """The option the number after ``@`` sets: the cutoff ``k``, or ECE's ``n_bins``
    (``ece@15`` is ``expected_calibration_error(n_bins=15)``); the builder checks it."""
    row_order: bool = False
    """Whether the core reads which row sits where inside a tie (equal scores
    ranked later row first); metrics that average over ties do not, and the
    frame is then sorted without the row-index key, which is cheaper."""
    trec_eval: tuple[TrecMeasure, ...] = ()
    """The trec_eval measures this metric is (``map`` and ``map_cut``), each with
    its core over judged runs: :mod:`lodestar_polars.trec` reads them from here."""
    ties: bool = False
    """Whether the metric takes a tie rule (``ties=``, ``item=``) other than averaging."""
    judged: bool = False
    """Whether the metric reads ``n_relevant`` (judged relevant documents not retrieved)."""
    judged_ideal: bool = False
    """Whether the metric reads ``judged`` (every judged relevance: NDCG's ideal, bpref's
    count of judged irrelevant documents)."""
    averaged_ties: bool = True
    """Whether ``ties="average"`` is offered (False: the expectation over tied orderings has
    no closed form, as for infAP; the metric ranks ties by trec_eval's rule or row order
    only, and ``lp.evaluate`` needs ``ties="trec_eval"`` or ``"input"`` for it)."""
    name_options: tuple[Option, ...] = field(default=(), kw_only=True)
    """The options a name may set in parentheses (``rbp(p=0.8)``), each with its check."""
    top_k_only: bool = False
    """Whether, cut at ``k``, the metric reads only the rows ranked in the top ``k``
    (with the whole tie block at the cut), the ``k`` largest gains (its ideal) and
    the count of relevant rows: then a group too large for one task can be scored
    in two stages (``lodestar_polars.spark``, ``lodestar_polars._evaluate.two_stage``)."""

    @property
    def trec(self) -> tuple[str | None, str | None]:
        """The trec_eval measure this metric is, without a cutoff and with one (its name)."""
        uncut, cut = self.trec_measure(cut=False), self.trec_measure(cut=True)
        return (None if uncut is None else uncut.name, None if cut is None else cut.name)

    def trec_measure(self, *, cut: bool) -> TrecMeasure | None:
        """The trec_eval measure a name of the metric means, with a cutoff or without.

        ``ndcg@10`` is ``ndcg_cut`` at 10, ``ndcg`` is ``ndcg``; ``RR@10`` is
        ``recip_rank`` cut at 10 (:attr:`TrecMeasure.peers_cut`).
        """
        for measure in self.trec_eval:
            takes_cutoff = measure.params == "cutoffs"
            if (takes_cutoff or measure.peers_cut) if cut else not takes_cutoff:
                return measure
        return None

    def display(self, k: int | None = None) -> str:
        """The label with the number written after ``@`` (``ndcg`` at 10: ``"NDCG@10"``).

        Without ``k``, the metric's default cutoff where it has one and the
        number is a cutoff (``top_k_accuracy``: ``"top-2 accuracy"``), else the
        plain label (``"NDCG"``, ``"ECE"``).

        Examples
        --------
        >>> [BY_NAME[n].display(10) for n in ("ndcg", "precision", "reciprocal_rank")]
        ['NDCG@10', 'P@10', 'MRR@10']
        >>> BY_NAME["expected_calibration_error"].display(), BY_NAME["top_k_accuracy"].display()
        ('ECE', 'top-2 accuracy')
        """
        if self.cutoff == "none":
            return self.label
        if k is None:
            if self.cutoff_option != "k" or self.default_k is None:
                return self.label
            k = self.default_k
        return self.label_cut.format(label=self.label, k=k)

    def options(self, k: float | None) -> dict[str, Any]:
        """The builder's and the core's options for the cutoff ``k`` (None: no cutoff written)."""
        if self.cutoff == "none":
            return {}
        return {self.cutoff_option: self.default_k if k is None else k}


def _names(*names: Name) -> tuple[Name, ...]:
    return names


REGISTRY: tuple[MetricSpec, ...] = (
    MetricSpec(
        "dcg",
        dcg,
        dcg_metric,
        segmented(dcg_segments, _gain, log_base=2, ignore_ties=False),
        "optional",
        _names(Name("dcg_score", "scikit-learn")),
        "discounted cumulative gain, ties averaged",
        higher_is_better=True,
        label="DCG",
        value_range=REAL,
        choices=MappingProxyType({"discount": ("log", "lenskit")}),
        ties=True,
        top_k_only=True,
    ),
    MetricSpec(
        "ndcg",
        ndcg,
        ndcg_metric,
        segmented(ndcg_segments, _gain, judged_ideal=True, ignore_ties=False),
        "optional",
        _names(
            Name("ndcg_score", "scikit-learn"),
            Name("nDCG", "ir_measures", exact_case=True),
            Name("ndcg_cut", "trec_eval", trec_cutoff=True, cutoff="required"),
        ),
        "normalized DCG, ties averaged",
        higher_is_better=True,
        label="NDCG",
        value_range=UNIT,
        trec_eval=(
            TrecMeasure(
                name="ndcg",
                summary="NDCG over the whole run, the ideal from every judged document",
                core=judged_ndcg,
                params="gains",
            ),
            TrecMeasure(
                name="ndcg_cut",
                summary="NDCG at k (the gain: the relevance)",
                core=judged_ndcg,
                params="cutoffs",
                default_cutoffs=DEFAULT_CUTOFFS,
            ),
        ),
        choices=MappingProxyType({"discount": ("log", "lenskit"), "denominator": ("ideal", "k")}),
        ties=True,
        judged_ideal=True,
        top_k_only=True,
    ),
    MetricSpec(
        "reciprocal_rank",
        reciprocal_rank,
        reciprocal_rank_metric,
        segmented(reciprocal_rank_segments, _positive, ignore_ties=False),
        "optional",
        _names(
            Name("rr", "lodestar_polars"),
            Name("mrr", "ranx"),
            Name("recip_rank", "trec_eval"),
            Name("RR", "ir_measures", exact_case=True),
        ),
        "reciprocal rank of the first relevant row, its expectation over ties",
        higher_is_better=True,
        label="MRR",
        value_range=UNIT,
        trec_eval=(
            TrecMeasure(
                name="recip_rank",
                summary="1 / rank of the first relevant document",
                core=judged_reciprocal_rank,
                official=True,
                peers_cut=True,
            ),
        ),
        ties=True,
        top_k_only=True,
    ),
    MetricSpec(
        "top_k_accuracy",
        top_k_accuracy,
        top_k_accuracy_metric,
        segmented(top_k_segments, _true),
        "optional",
        _names(Name("top_k_accuracy_score", "scikit-learn")),
        "whether the true class is in the top k (without @k, k=2)",
        higher_is_better=True,
        label="top-k accuracy",
        label_cut="top-{k} accuracy",
        value_range=UNIT,
        default_k=2,
        row_order=True,
    ),
    MetricSpec(
        "average_precision",
        average_precision,
        average_precision_metric,
        segmented(average_precision_segments, _true),
        "none",
        _names(
            Name("ap", "lodestar_polars"),
            Name("average_precision_score", "scikit-learn"),
        ),
        "scikit-learn's binary average precision (AP cut at k is 'map@k')",
        higher_is_better=True,
        label="AP",
        value_range=UNIT,
    ),
    MetricSpec(
        "coverage_error",
        coverage_error,
        coverage_error_metric,
        segmented(coverage_segments, _true),
        "none",
        _names(Name("coverage_error", "scikit-learn")),
        "how far down one reads to see every relevant label",
        higher_is_better=False,
        label="coverage error",
        value_range=NON_NEGATIVE,
    ),
    MetricSpec(
        "label_ranking_loss",
        label_ranking_loss,
        label_ranking_loss_metric,
        segmented(ranking_loss_segments, _true),
        "none",
        _names(Name("label_ranking_loss", "scikit-learn")),
        "fraction of (relevant, irrelevant) pairs ranked wrongly",
        higher_is_better=False,
        label="ranking loss",
        value_range=UNIT,
    ),
    MetricSpec(
        "label_ranking_average_precision",
        label_ranking_average_precision,
        label_ranking_average_precision_metric,
        segmented(lrap_segments, _true),
        "none",
        _names(
            Name("lrap", "lodestar_polars"),
            Name("label_ranking_average_precision_score", "scikit-learn"),
        ),
        "label ranking average precision",
        higher_is_better=True,
        label="LRAP",
        value_range=UNIT,
    ),
    MetricSpec(
        "dcg_burges",
        dcg,
        partial(dcg_metric, gain="exponential"),
        segmented(dcg_segments, _exponential, log_base=2, ignore_ties=False),
        "optional",
        _names(Name("dcg_burges", "ranx")),
        "DCG with the gain 2^rel - 1 (ranx's Burges DCG)",
        higher_is_better=True,
        label="Burges DCG",
        value_range=REAL,
        fixed=MappingProxyType({"gain": "exponential"}),
        choices=MappingProxyType({"discount": ("log", "lenskit")}),
        ties=True,
        top_k_only=True,
    ),
    MetricSpec(
        "ndcg_burges",
        ndcg,
        partial(ndcg_metric, gain="exponential"),
        segmented(ndcg_segments, _exponential, judged_ideal=True, ignore_ties=False),
        "optional",
        _names(Name("ndcg_burges", "ranx")),
        "NDCG with the gain 2^rel - 1 (ranx's Burges NDCG)",
        higher_is_better=True,
        label="Burges NDCG",
        value_range=UNIT,
        fixed=MappingProxyType({"gain": "exponential"}),
        choices=MappingProxyType({"discount": ("log", "lenskit"), "denominator": ("ideal", "k")}),
        ties=True,
        judged_ideal=True,
        top_k_only=True,
    ),
    MetricSpec(
        "precision",
        precision,
        precision_metric,
        segmented(precision_segments, _positive),
        "optional",
        _names(
            Name("precision", "ranx"),
            Name("P", "trec_eval", trec_cutoff=True),
            Name("P", "ir_measures"),
        ),
        "relevant rows in the top k over k (without @k, the whole group)",
        higher_is_better=True,
        label="P",
        value_range=UNIT,
        trec_eval=(
            TrecMeasure(
                name="P",
                summary="relevant documents in the top k, over k",
                core=judged_precision,
                params="cutoffs",
                default_cutoffs=DEFAULT_CUTOFFS,
                official=True,
            ),
        ),
        choices=MappingProxyType({"denominator": ("k", "retrieved")}),
        ties=True,
        top_k_only=True,
    ),
    MetricSpec(
        "recall",
        recall,
        recall_metric,
        segmented(recall_segments, _positive, judged=True),
        "optional",
        _names(
            Name("recall", "ranx"),
            Name("recall", "trec_eval", trec_cutoff=True),
            Name("R", "ir_measures"),
        ),
        "relevant rows in the top k over all relevant rows (without @k, the whole group)",
        higher_is_better=True,
        label="Recall",
        value_range=UNIT,
        trec_eval=(
            TrecMeasure(
                name="recall",
                summary="relevant documents in the top k, over `num_rel`",
                core=judged_recall,
                params="cutoffs",
                default_cutoffs=DEFAULT_CUTOFFS,
            ),
        ),
        choices=MappingProxyType({"denominator": ("relevant", "min_k")}),
        ties=True,
        judged=True,
        top_k_only=True,
    ),
    MetricSpec(
        "hit_rate",
        hit_rate,
        hit_rate_metric,
        segmented(hit_rate_segments, _positive),
        "required",
        _names(
            Name("hit_rate", "ranx"),
            Name("success", "trec_eval", trec_cutoff=True),
            Name("Success", "ir_measures"),
        ),
        "chance of a relevant row in the top k",
        higher_is_better=True,
        label="HR",
        value_range=UNIT,
        trec_eval=(
            TrecMeasure(
                name="success",
                summary="1 if a relevant document is in the top k",
                core=judged_success,
                params="cutoffs",
                default_cutoffs=(1, 5, 10),
            ),
        ),
        ties=True,
        top_k_only=True,
    ),
    MetricSpec(
        "r_precision",
        r_precision,
        r_precision_metric,
        segmented(r_precision_segments, _positive, judged=True),
        "none",
        _names(
            Name("Rprec", "trec_eval"),
            Name("Rprec", "ir_measures"),
            Name("r-precision", "ranx"),
        ),
        "precision at R, the number of relevant rows",
        higher_is_better=True,
        label="R-Prec",
        value_range=UNIT,
        trec_eval=(
            TrecMeasure(
                name="Rprec",
                summary="precision at R = `num_rel`",
                core=judged_r_precision,
                official=True,
            ),
        ),
        ties=True,
        judged=True,
    ),
    MetricSpec(
        "average_precision_at_k",
        average_precision_at_k,
        average_precision_at_k_metric,
        segmented(average_precision_at_k_segments, _positive, judged=True, denominator="relevant"),
        "optional",
        _names(
            Name("map", "ranx"),
            Name("map", "trec_eval"),
            Name("map_cut", "trec_eval", trec_cutoff=True, cutoff="required"),
            Name("AP", "ir_measures", exact_case=True),
        ),
        "AP over the top k, denominator the relevant rows (trec_eval's map_cut)",
        higher_is_better=True,
        label="MAP",
        value_range=UNIT,
        trec_eval=(
            TrecMeasure(
                name="map",
                summary="AP over `num_rel` (an unretrieved relevant document adds 0)",
                core=judged_average_precision,
                official=True,
            ),
            TrecMeasure(
                name="map_cut",
                summary="AP over the top k, over `num_rel`",
                core=judged_average_precision,
                params="cutoffs",
                default_cutoffs=DEFAULT_CUTOFFS,
            ),
        ),
        ties=True,
        judged=True,
        top_k_only=True,
    ),
    MetricSpec(
        "roc_auc",
        roc_auc,
        roc_auc_metric,
        segmented(roc_auc_segments, _true),
        "none",
        _names(Name("auc", "lodestar_polars"), Name("roc_auc_score", "scikit-learn")),
        "ROC AUC of the group, a tie scoring one half (null for one class)",
        higher_is_better=True,
        label="ROC AUC",
        value_range=UNIT,
    ),
    MetricSpec(
        "log_loss",
        log_loss,
        log_loss_metric,
        segmented(log_loss_segments, _true),
        "none",
        _names(),
        "mean log loss of probabilities, clipped as scikit-learn clips them",
        higher_is_better=False,
        label="log loss",
        value_range=NON_NEGATIVE,
    ),
    MetricSpec(
        "brier_score",
        brier_score,
        brier_score_metric,
        segmented(brier_segments, _true),
        "none",
        _names(Name("brier", "lodestar_polars"), Name("brier_score_loss", "scikit-learn")),
        "mean squared error of probabilities (scikit-learn's brier_score_loss)",
        higher_is_better=False,
        label="Brier score",
        value_range=UNIT,
    ),
    MetricSpec(
        "expected_calibration_error",
        expected_calibration_error,
        expected_calibration_error_metric,
        segmented(expected_calibration_error_segments, _true, strategy="uniform"),
        "optional",
        _names(Name("ece", "lodestar_polars")),
        "expected calibration error over equal-width bins",
        default_k=10,
        cutoff_option="n_bins",
        higher_is_better=False,
        label="ECE",
        label_cut="ECE ({k} bins)",
        value_range=UNIT,
    ),
    MetricSpec(
        "expected_calibration_error_quantile",
        expected_calibration_error,
        partial(expected_calibration_error_metric, strategy="quantile"),
        segmented(expected_calibration_error_segments, _true, strategy="quantile"),
        "optional",
        _names(Name("ece_quantile", "lodestar_polars")),
        "ECE over bins at each group's quantiles of the probability",
        fixed=MappingProxyType({"strategy": "quantile"}),
        default_k=10,
        cutoff_option="n_bins",
        higher_is_better=False,
        label="quantile ECE",
        label_cut="quantile ECE ({k} bins)",
        value_range=UNIT,
    ),
    MetricSpec(
        "bpref",
        bpref,
        bpref_metric,
        bpref_core,
        "none",
        _names(Name("Bpref", "ir_measures", exact_case=True)),
        "binary preference: judged irrelevant rows above each relevant one (y_true < 0: unjudged)",
        higher_is_better=True,
        label="bpref",
        value_range=UNIT,
        trec_eval=(
            TrecMeasure(
                name="bpref",
                summary="binary preference: judged irrelevant documents above each relevant one",
                core=judged_bpref,
                official=True,
            ),
        ),
        ties=True,
        judged=True,
        judged_ideal=True,
    ),
    MetricSpec(
        "inferred_average_precision",
        inferred_average_precision,
        inferred_average_precision_metric,
        inferred_average_precision_core,
        "none",
        _names(Name("infAP", "trec_eval"), Name("infAP", "ir_measures")),
        "inferred AP over judged and in-pool unjudged rows (y_true -2), trec_eval's order",
        higher_is_better=True,
        label="infAP",
        value_range=UNIT,
        trec_eval=(
            TrecMeasure(
                name="infAP",
                summary="inferred AP, from judged and in-pool unjudged documents (relevance < 0)",
                core=judged_infap,
            ),
        ),
        ties=True,
        judged=True,
        averaged_ties=False,
    ),
    MetricSpec(
        "interpolated_precision",
        interpolated_precision,
        interpolated_precision_metric,
        interpolated_precision_core,
        "required",
        _names(
            Name("iprec_at_recall", "trec_eval", trec_cutoff=True),
            Name("IPrec", "ir_measures", exact_case=True),
        ),
        "the best precision at or after the recall level written after @ (0 to 1)",
        higher_is_better=True,
        label="iP",
        label_cut="iP@{k}",
        value_range=UNIT,
        cutoff_option="recall",
        trec_eval=(
            TrecMeasure(
                name="iprec_at_recall",
                summary="interpolated precision at recall levels (default 0, 0.1, ..., 1)",
                core=judged_iprec_at_recall,
                params="levels",
                default_values=IPREC_LEVELS,
                official=True,
            ),
        ),
        ties=True,
        judged=True,
        averaged_ties=False,
    ),
    MetricSpec(
        "err",
        err,
        err_metric,
        segmented(err_segments, _gain),
        "optional",
        _names(Name("ERR", "ir_measures", exact_case=True)),
        "expected reciprocal rank: where a user stops, from graded gains (gdeval's, grades to 4)",
        higher_is_better=True,
        label="ERR",
        value_range=UNIT,
        name_options=(
            Option("max_grade", check_max_grade, "the grade of the highest stopping chance (4)"),
        ),
        ties=True,
        averaged_ties=False,
        top_k_only=True,
    ),
    MetricSpec(
        "rbp",
        rbp,
        rbp_metric,
        segmented(rbp_segments, _gain),
        "optional",
        _names(
            Name("rbp", "ranx", dot_option="p"),
            Name("RBP", "ir_measures", exact_case=True),
        ),
        "rank-biased precision, graded gains, persistence p (y_true < 0: unjudged)",
        higher_is_better=True,
        label="RBP",
        value_range=NON_NEGATIVE,
        name_options=(Option("p", check_persistence, "the persistence, in (0, 1) (0.8)"),),
        ties=True,
        top_k_only=True,
    ),
    MetricSpec(
        "judged",
        judged,
        judged_metric,
        segmented(judged_segments, _gain),
        "optional",
        _names(Name("Judged", "ir_measures", exact_case=True)),
        "share of the top k rows that is judged (y_true >= 0), over min(k, rows)",
        higher_is_better=True,
        label="Judged",
        value_range=UNIT,
        ties=True,
        top_k_only=True,
    ),
)
"""Every metric :func:`lodestar_polars.evaluate` computes, in the docs' order."""

BY_NAME: Mapping[str, MetricSpec] = MappingProxyType({spec.name: spec for spec in REGISTRY})

TREC_PRINT_ORDER: tuple[str, ...] = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel",
    "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "prefs_num_prefs_poss",
    "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg",
    "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
    "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid", "unj",
)  # fmt: skip
"""trec_eval 10.0's measure table (``te_trec_measures`` in its measures.c), the
order it prints measures in, whatever order ``-m`` names them; ``runid`` (the
run's tag) is printed by the ``trec`` command."""


def _not_offered(name: str, summary: str, **facts: Any) -> TrecMeasure:
    return TrecMeasure(name=name, summary=summary, **facts)


TREC_ONLY: tuple[TrecMeasure, ...] = (
    TrecMeasure(
        name="num_q",
        summary="the queries evaluated",
        core=judged_num_q,
        aggregate="sum",
        per_query=False,
        official=True,
        higher_is_better=None,
    ),
    TrecMeasure(
        name="num_ret",
        summary="documents ranked",
        core=judged_num_ret,
        aggregate="sum",
        official=True,
        higher_is_better=None,
    ),
    TrecMeasure(
        name="num_rel",
        summary="judged relevant documents, retrieved or not",
        core=judged_num_rel,
        aggregate="sum",
        official=True,
        higher_is_better=None,
    ),
    TrecMeasure(
        name="num_rel_ret",
        summary="relevant documents ranked",
        core=judged_num_rel_ret,
        aggregate="sum",
        official=True,
        higher_is_better=None,
    ),
    # trec_eval's measures not offered here (no core): refused by lp.trec, named by
    # the trec command's note, and their direction known to lp.compare
    # trec_eval's other measures (lodestar_polars._core.trec_more); bpref, infAP and
    # iprec_at_recall are metrics too (their MetricSpec entries hold them)
    TrecMeasure(
        name="gm_map",
        summary="AP per query; `all` is its geometric mean (each value floored at 1e-5)",
        core=judged_gm_map,
        aggregate="gmean",
        per_query=False,
        official=True,
    ),
    TrecMeasure(
        name="relstring",
        summary="the top ranks' relevance",
        aggregate="none",
        higher_is_better=None,
    ),
    TrecMeasure(
        name="gm_bpref",
        summary="bpref per query; `all` is its geometric mean (each value floored at 1e-5)",
        core=judged_gm_bpref,
        aggregate="gmean",
        per_query=False,
    ),
    TrecMeasure(
        name="Rprec_mult",
        summary="precision at `(long)(m R + 0.9)` documents, for multiples m of R",
        core=judged_rprec_mult,
        params="levels",
        default_values=RPREC_MULTIPLES,
    ),
    TrecMeasure(
        name="utility",
        summary=(
            "a rel_ret + b (ret - rel_ret) + c (rel - rel_ret) + d (rel_ret - ret - rel), "
            "the collection size 0"
        ),
        core=judged_utility,
        params="values",
        default_values=UTILITY_DEFAULT,
        n_values=4,
    ),
    TrecMeasure(
        name="11pt_avg",
        summary="interpolated precision averaged over the recall levels",
        core=judged_11pt_avg,
        params="values",
        default_values=IPREC_LEVELS,
        increasing=True,
    ),
    TrecMeasure(
        name="binG",
        summary="1 / log2(2 + irrelevant documents above) per relevant document, over R",
        core=judged_bin_g,
    ),
    TrecMeasure(
        name="G",
        summary="normalized cumulative gain (G), a rank costing its ideal gain or 1",
        core=judged_g,
        params="gains",
    ),
    TrecMeasure(
        name="ndcg_rel",
        summary="NDCG at each relevant document, averaged over the relevant documents",
        core=judged_ndcg_rel,
        params="gains",
    ),
    TrecMeasure(
        name="Rndcg",
        summary="NDCG at each rank where the ideal gain drops, averaged",
        core=judged_rndcg,
        params="gains",
    ),
    TrecMeasure(
        name="relative_P",
        summary="relevant documents in the top k, over min(k, `num_rel`)",
        core=judged_relative_p,
        params="cutoffs",
        default_cutoffs=DEFAULT_CUTOFFS,
    ),
    TrecMeasure(
        name="set_P",
        summary="relevant retrieved over retrieved",
        core=judged_set_p,
    ),
    TrecMeasure(
        name="set_relative_P",
        summary="relevant retrieved over min(retrieved, `num_rel`)",
        core=judged_set_relative_p,
    ),
    TrecMeasure(
        name="set_recall",
        summary="relevant retrieved over `num_rel`",
        core=judged_set_recall,
    ),
    TrecMeasure(
        name="set_map",
        summary="set precision times set recall",
        core=judged_set_map,
    ),
    TrecMeasure(
        name="set_F",
        summary="(b + 1) P R / (b P + R) of set precision and recall, b = 1 (`set_F.0.5`)",
        core=judged_set_f,
        params="values",
        default_values=SET_F_DEFAULT,
        n_values=1,
    ),
    TrecMeasure(
        name="num_nonrel_judged_ret",
        summary="judged irrelevant documents ranked",
        core=judged_num_nonrel_judged_ret,
        aggregate="sum",
        higher_is_better=None,
    ),
    # trec_eval's user-model measures (lodestar_polars._core.trec_user); lp.rbp is RBP with
    # ranx's gains and a residual over the top k, so trec_eval's own are entries of their own
    TrecMeasure(
        name="rbp",
        summary="rank-biased precision, p = 0.9, gains over the query's largest grade past 1",
        core=judged_rbp,
    ),
    TrecMeasure(
        name="rbp_resid",
        summary="RBP's residual (p = 0.9): unjudged ranks and the tail; 0 with none unjudged",
        core=judged_rbp_resid,
        higher_is_better=None,
    ),
    TrecMeasure(
        name="unj",
        summary="unjudged documents in the top k, over k",
        core=judged_unj,
        params="cutoffs",
        default_cutoffs=UNJ_CUTOFFS,
        higher_is_better=None,
    ),
    _not_offered("map_avgjg", "AP over judgment sets (-J)", all_trec=False),
    _not_offered("P_avgjg", "precision over judgment sets (-J)", all_trec=False),
    _not_offered("Rprec_mult_avgjg", "Rprec_mult over judgment sets (-J)", all_trec=False),
    _not_offered("yaap", "yet another AP (-J)", all_trec=False),
)
"""trec_eval's measures that are no :func:`lodestar_polars.evaluate` metric: the
counts, and the measures not offered here (``core=None``)."""


def _trec_measures() -> dict[str, TrecMeasure]:
    found: dict[str, TrecMeasure] = {}
    for measure in (*TREC_ONLY, *(m for spec in REGISTRY for m in spec.trec_eval)):
        if measure.name in found:  # pragma: no cover - a registry bug
            msg = f"the trec_eval measure {measure.name!r} is defined twice"
            raise AssertionError(msg)
        if measure.name not in TREC_PRINT_ORDER:  # pragma: no cover - a registry bug
            msg = f"{measure.name!r} is not a trec_eval measure (TREC_PRINT_ORDER)"
            raise AssertionError(msg)
        found[measure.name] = measure
    return dict(sorted(found.items(), key=lambda item: item[1].order))


TREC_MEASURES: Mapping[str, TrecMeasure] = MappingProxyType(_trec_measures())
"""Every trec_eval measure known here, by name, in trec_eval's print order: those
of the registry's metrics and :data:`TREC_ONLY`.  ``lp.trec``'s table, the
``trec`` command's help and note, :func:`direction` and the docs read it."""

TREC_METRIC: Mapping[str, MetricSpec] = MappingProxyType(
    {m.name: spec for spec in REGISTRY for m in spec.trec_eval}
)
"""The :func:`lodestar_polars.evaluate` metric each trec_eval measure is, where one is."""


def trec_offered() -> list[TrecMeasure]:
    """The trec_eval measures ``lp.trec.evaluate`` computes, in trec_eval's print order."""
    return [m for m in TREC_MEASURES.values() if m.offered]


NOT_OFFERED: Mapping[str, str] = MappingProxyType(
    {
        "hits": (
            "ranx's 'hits' is the number of relevant rows in the top k, not the hit rate: "
            "write 'hit_rate@k' for the chance of a hit, or 'precision@k' (times k) for the count"
        ),
    }
)
"""Names of other tools that mean something lodestar_polars does not compute (lowercase)."""

DEPRECATED_NAMES: Mapping[str, str] = MappingProxyType({"top_k": "top_k_accuracy"})
"""Old names still read, with a ``FutureWarning``, until 0.3.0 (lowercase): ``"top_k"``
clashed with :func:`lodestar_polars.top_k`, which serves top-k lists."""


def _lookups() -> tuple[dict[str, tuple[MetricSpec, Name]], dict[str, tuple[MetricSpec, Name]]]:
    exact: dict[str, tuple[MetricSpec, Name]] = {}
    folded: dict[str, tuple[MetricSpec, Name]] = {}
    for spec in REGISTRY:
        for name in (Name(spec.name, "lodestar_polars"), *spec.names):
            table, key = (exact, name.text) if name.exact_case else (folded, name.text.lower())
            dotted = name.trec_cutoff or name.dot_option is not None
            kept = key in table and (table[key][1].trec_cutoff or table[key][1].dot_option)
            if key not in table or (dotted and not kept):
                # two tools spelling a name alike: the one that takes trec_eval's
                # dotted cutoff ("recall.100") is kept
                if key in table and table[key][0] is not spec:  # pragma: no cover
                    msg = f"the name {name.text!r} is given to {table[key][0].name} and {spec.name}"
                    raise AssertionError(msg)
                table[key] = (spec, name)
            elif table[key][0] is not spec:  # pragma: no cover - a registry bug
                msg = f"the name {name.text!r} is given to {table[key][0].name} and {spec.name}"
                raise AssertionError(msg)
    return exact, folded


_EXACT, _FOLDED = _lookups()
_PATTERN = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z_\-]*?)(?:\((?P<options>[^()]*)\))?"
    r"((?P<sep>[@._])(?P<k>[0-9]+(?:\.[0-9]+)?|\.[0-9]+))?$"
)
_OPTION = re.compile(r"^\s*(?P<key>[A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?P<value>[^,=\s]+)\s*$")


def metric_names() -> list[str]:
    """Every name :func:`~lodestar_polars.evaluate` accepts (aliases included), sorted."""
    return sorted(
        {n.text for spec in REGISTRY for n in (Name(spec.name, "lodestar_polars"), *spec.names)}
    )


@dataclass(frozen=True)
class Resolved:
    """A metric name read: the metric, the name as it matched, and the cutoff written."""

    spec: MetricSpec
    name: Name
    k: int | None
    level: float | None = None
    """The number written after the name where it is a level, not a cutoff (the recall
    of ``iprec_at_recall@0.5``: ``cutoff_option="recall"``)."""
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """The options the name sets (``rbp(p=0.8)``, ranx's ``rbp.95``), each checked."""

    def builder_options(self) -> dict[str, Any]:
        """The builder's and the core's options: the cutoff (or level), then the name's own."""
        return {**self.spec.options(self.k if self.level is None else self.level), **self.options}


def _literal(text: str) -> Any:
    """An option's value as written: an int, a float, a bool (``true``), else the text."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _name_options(text: str, spec: MetricSpec, written: str | None) -> dict[str, Any]:
    """The options written in parentheses (``p=0.8, k=3``), each checked by its :class:`Option`."""
    declared = {option.name: option for option in spec.name_options}
    takes = f"its options: {', '.join(repr(n) for n in declared)}" if declared else "it takes none"
    out: dict[str, Any] = {}
    if written is None:
        return out
    for part in written.split(",") if written.strip() else []:
        match = _OPTION.match(part)
        if match is None:
            msg = (
                f"metric {text!r}: {part.strip()!r} is not an option written as name=value "
                f"(e.g. 'rbp(p=0.8)'); {spec.name}: {takes}"
            )
            raise InvalidParameterError(msg)
        key = match["key"]
        if key not in declared:
            msg = f"metric {text!r}: {spec.name} has no option {key!r} in its name; {takes}"
            raise InvalidParameterError(msg)
        if key in out:
            msg = f"metric {text!r}: the option {key!r} is written twice"
            raise InvalidParameterError(msg)
        try:
            out[key] = declared[key].check(_literal(match["value"]))
        except InvalidParameterError as error:
            msg = f"metric {text!r}: {error}"
            raise InvalidParameterError(msg) from None
    return out


def _cutoff_rule(resolved: Resolved) -> Cutoff:
    return resolved.name.cutoff or resolved.spec.cutoff


def resolve(text: str) -> Resolved | None:
    """The metric a name stands for (``"nDCG@10"``, ``"P.10"``), or None when it names nothing.

    Raises :class:`~lodestar_polars.InvalidParameterError` for a name of
    another tool that means something not computed here, a cutoff on a metric
    that takes none, and a missing cutoff where one is needed.
    """
    match = _PATTERN.match(text.strip())
    if not match:
        return None
    written = match["name"]
    if written.lower() in NOT_OFFERED:
        msg = f"metric {text!r}: {NOT_OFFERED[written.lower()]}"
        raise InvalidParameterError(msg)
    if written.lower() in DEPRECATED_NAMES:
        new = DEPRECATED_NAMES[written.lower()]
        cut = "" if match["k"] is None else f"@{match['k']}"
        warnings.warn(
            f"metric {text!r}: the name {written!r} is renamed {new!r} (lodestar_polars "
            f"{RENAMED_IN}; lp.top_k serves top-k lists); write {new + cut!r}. {written!r} "
            f"will be removed in {REMOVED_IN}",
            FutureWarning,
            stacklevel=2,
        )
        written = new
    found = _EXACT.get(written) or _FOLDED.get(written.lower())
    if found is None:
        return None
    spec, name = found
    options = _name_options(text, spec, match["options"])
    if name.dot_option is not None and match["sep"] == ".":
        # ranx's rbp.95: the digits are a fraction (p = 0.95), not a cutoff
        if "." in match["k"] or name.dot_option in options:
            return None
        fraction = f"0.{match['k']}"
        option = next(o for o in spec.name_options if o.name == name.dot_option)
        options[name.dot_option] = option.check(float(fraction))
        return Resolved(spec, name, None, None, MappingProxyType(options))
    if match["sep"] is not None and match["sep"] != "@" and not name.trec_cutoff:
        return None
    if spec.cutoff_option == "recall":  # a recall level (0.5), not a cutoff
        level = None if match["k"] is None else float(match["k"])
        resolved = Resolved(spec, name, None, level, MappingProxyType(options))
    elif match["k"] is not None and "." in match["k"]:
        return None
    else:
        k = None if match["k"] is None else int(match["k"])
        resolved = Resolved(spec, name, k, None, MappingProxyType(options))
    rule = _cutoff_rule(resolved)
    if rule == "required" and resolved.k is None and resolved.level is None:
        example = f"{written}.10" if name.cutoff == "required" else f"{written}@10"
        if spec.cutoff_option == "recall":
            example = f"{written}@0.5"
        msg = f"metric {text!r}: {written} needs a cutoff, write it as {example!r} (say)"
        raise InvalidParameterError(msg)
    if rule == "none" and resolved.k is not None:
        msg = f"metric {text!r}: {spec.name} takes no cutoff, write it without '@{match['k']}'"
        if spec.name == "average_precision":
            msg += " (AP cut at k is 'map@k')"
        raise InvalidParameterError(msg)
    return resolved


Direction = Literal["higher", "lower"]
"""Which way a metric improves: larger values better, or smaller."""

_TREC_PARAMS = re.compile(r"^(?P<base>.+?)[._](?P<params>[-.0-9][-0-9.,=]*)$")


def _way(*, higher_is_better: bool) -> Direction:
    return "higher" if higher_is_better else "lower"


def direction(column: str) -> Direction | None:
    """Whether larger (``"higher"``) or smaller (``"lower"``) values of a column are better.

    ``column`` is read as :func:`lodestar_polars.evaluate` writes it, through
    :func:`resolve` (``"ndcg@10"``, ``"brier"``, ``"brier_score_loss"``, ``"P.10"``,
    ``"map_cut.100"``: the metric's :attr:`MetricSpec.higher_is_better`); as
    :func:`lodestar_polars.trec.evaluate` and trec_eval write it (``"map"``,
    ``"P_10"``, ``"ndcg_cut_10"``, ``"bpref"``, ``"iprec_at_recall_0.10"``, from
    :data:`TREC_MEASURES`: its parameters after ``_`` or ``.`` are digits, dots,
    commas and ``=``); or as :func:`lodestar_polars.ranking_report` writes it
    (``"hit@10"``, ``"catalog_coverage"``, ``"gini"``: :data:`REPORT_METRICS`); or a
    beyond-accuracy measure by name, with or without ``@k`` (``"novelty@10"``:
    :data:`LIST_MEASURES`; ARP has no direction).  None for a count (``num_ret``)
    and for any other column: a name is never guessed from its ending (``_loss``,
    ``_error``).

    Examples
    --------
    >>> [direction(c) for c in ["ndcg@10", "brier", "P_10", "num_ret", "my_loss"]]
    ['higher', 'lower', 'higher', None, None]
    >>> [direction(c) for c in ["hit@10", "tail_hit@10", "entropy", "gini"]]
    ['higher', 'higher', 'higher', 'lower']
    >>> [direction(c) for c in ["novelty@10", "ILD", "average_recommended_popularity"]]
    ['higher', None, None]
    """
    if not isinstance(column, str):
        return None
    try:
        found = resolve(column)
    except InvalidParameterError:  # a name of another tool, a cutoff where none goes
        found = None
    if found is not None:
        return _way(higher_is_better=found.spec.higher_is_better)
    text = column.strip()
    report = report_metric(text)
    if report is not None:
        return report.direction
    listed = LIST_MEASURES_BY_NAME.get(text.split("@")[0].lower())
    if listed is not None:
        return listed.direction
    measure = TREC_MEASURES.get(text)
    params = _TREC_PARAMS.match(text)
    if measure is None and params is not None:
        measure = TREC_MEASURES.get(params["base"])
    if measure is None or measure.higher_is_better is None:
        return None
    return _way(higher_is_better=measure.higher_is_better)


def unknown_metric_message(text: object) -> str:
    """The sentence for a name :func:`resolve` does not know."""
    return (
        f"unknown metric {text!r}: expected a name among {metric_names()}, "
        "optionally followed by @k for a cutoff (e.g. 'ndcg@10'), or a trec_eval name "
        "with its cutoff after a dot (e.g. 'P.10', 'ndcg_cut.10')"
    )


def names_table() -> str:
    """The docs' table of :func:`~lodestar_polars.evaluate`'s names (docs/evaluate.md).

    A test checks that the page holds this table as it is, so the docs cannot
    drift from the names :func:`resolve` reads.
    """
    cutoff = {"none": "no", "optional": "yes", "required": "required"}

    def takes(spec: MetricSpec) -> str:
        if spec.cutoff_option == "k":
            out = cutoff[spec.cutoff]
        else:
            out = f"`@n`: `{spec.cutoff_option}=n` (default {spec.default_k})"
        for option in spec.name_options:
            out += f"; `{spec.name}({option.name}=...)`: {option.summary}"
        return out

    lines = [
        "| name | expression | what | label | range | better | other names (tool) | takes `@k` "
        "| equal scores |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for spec in REGISTRY:
        tools: dict[str, list[str]] = {}
        notes: dict[str, str] = {}
        for name in spec.names:
            tools.setdefault(name.text, []).append(name.tool)
            if name.trec_cutoff:
                notes[name.text] = " `.k`" + (" required" if name.cutoff == "required" else "")
            if name.dot_option is not None:
                notes[name.text] = f" `.95`: `{name.dot_option}=0.95`"
        others = "; ".join(
            f"`{text}`{notes.get(text, '')} ({', '.join(by)})" for text, by in tools.items()
        )
        function = spec.expression.__name__
        expression = f"[`lp.{function}`](metrics/{function}.md)"
        expression += "".join(f", `{key}={value!r}`" for key, value in spec.fixed.items())
        # the peers' names of a metric that averages ties by default give the peer's
        # number only on untied scores (or with ties="trec_eval" where the peer is trec_eval)
        ties = "averaged; `ties=` to order them" if spec.ties else "scikit-learn's rule"
        if not spec.averaged_ties:
            ties = "ordered: `ties='trec_eval'` or `'input'`"
        better = "higher" if spec.higher_is_better else "lower"
        lines.append(
            f"| `{spec.name}` | {expression} | {spec.summary} | {_labels(spec)} "
            f"| {spec.value_range} | {better} | {others} | {takes(spec)} | {ties} |"
        )
    return "\n".join(lines)


def _labels(spec: MetricSpec) -> str:
    """The label a table shows, without the number after ``@`` and with it (as ``k`` or ``n``)."""
    shown = [] if spec.cutoff == "required" else [spec.display()]
    if spec.cutoff != "none":
        shown.append(spec.label_cut.format(label=spec.label, k=spec.cutoff_option[0]))
    return ", ".join(f"`{label}`" for label in dict.fromkeys(shown))


def trec_peer_names(measure: TrecMeasure) -> list[str]:
    """The ranx, ir_measures and lp.evaluate names ``lp.trec`` reads as ``measure``.

    ``@k`` stands for any cutoff (``ndcg@k`` is ``ndcg_cut`` at ``k``); empty for
    a measure that is no :func:`lodestar_polars.evaluate` metric (the counts).
    """
    spec = TREC_METRIC.get(measure.name)
    if spec is None:
        return []
    names = [spec.name] + [
        n.text for n in spec.names if n.tool in ("ranx", "ir_measures") and n.cutoff is None
    ]
    names = list(dict.fromkeys(names))
    out = []
    if spec.trec_measure(cut=False) is measure and spec.cutoff != "required":
        out += names
    if spec.trec_measure(cut=True) is measure:
        out += [f"{name}@k" for name in names]
    return out


def trec_table() -> str:
    """The docs' table of ``lp.trec``'s measures (docs/coming-from-trec_eval.md).

    One row per trec_eval measure offered, in trec_eval's print order, then
    trec_eval's two sets and the sentence naming the measures not offered; a
    test checks that the page holds it as it is.
    """
    aggregate = {"mean": "mean", "sum": "sum", "gmean": "geometric mean", "none": ""}
    lines = [
        "| trec_eval | what | written | `all` row | better | also read as (ranx / ir_measures) |",
        "|---|---|---|---|---|---|",
    ]
    for m in trec_offered():
        if m.params == "cutoffs":
            defaults = ", ".join(map(str, m.default_cutoffs))
            written = f"`{m.name}`, `{m.name}.5,10`, `{m.name}_5` (cutoffs; default {defaults})"
        elif m.params == "gains":
            written = f"`{m.name}`, `{m.name}.1=3,2=9` (a gain per relevance level)"
        elif m.params in ("levels", "values"):
            defaults = ",".join(f"{v:g}" for v in m.default_values)
            if m.params == "levels":
                low = m.default_values[1]
                written = (
                    f"`{m.name}`, `{m.name}.{low:g},1` (a row per level, `{m.name}_{low:3.2f}`; "
                    f"default {defaults})"
                )
            else:
                written = (
                    f"`{m.name}`, `{m.name}.{defaults}` (one row, `{m.name}_{defaults}`; "
                    "the bare name is the default)"
                )
        else:
            written = f"`{m.name}`"
        total = aggregate[m.aggregate] + ("" if m.per_query else " (no per-query row)")
        better = "—" if m.higher_is_better is None else _way(higher_is_better=m.higher_is_better)
        peers = ", ".join(f"`{name}`" for name in trec_peer_names(m))
        if m.peers_cut:
            peers += " (`@k` cuts it at k)"
        lines.append(f"| `{m.name}` | {m.summary} | {written} | {total} | {better} | {peers} |")
    official = [m for m in TREC_MEASURES.values() if m.official]
    lines.append(
        "| `official` | trec_eval's default set, less what is not offered: "
        + " ".join(f"`{m.name}`" for m in official if m.offered)
        + " | | | | |"
    )
    lines.append("| `all_trec` | every measure above, at trec_eval's default cutoffs | | | | |")
    missing = [m.name for m in TREC_MEASURES.values() if m.all_trec and not m.offered]
    return "\n".join(lines) + (
        "\n\nNot offered (refused by name): " + ", ".join(f"`{n}`" for n in missing) + "."
    )


# ---------------------------------------------------------------------------
# the ranking report's metric keys (lp.ranking_report, its HTML page, direction())

ReportFamily = Literal["micro", "macro", "coverage", "value"]
"""The seed's two views, the second split in two: ``micro`` (accuracy, pooled over graded
lists), ``macro`` (per true item, then over the items) and ``coverage`` (catalogue-wide, from
the expected exposure).  ``macro`` and ``coverage`` share the payload's ``"macro"`` block."""
ReportTerm = Literal["hit", "rr", "dcg"]


@dataclass(frozen=True, kw_only=True)
class ReportMetric:
    """One key of :func:`lodestar_polars.ranking_report`'s families (seed 004).

    ``key`` and ``label`` are templates: ``{k}`` stands for the report's cutoff
    (``"ndcg@{k}"`` is ``ndcg@10`` at ``k=10``).  A micro key is an
    :func:`~lodestar_polars.evaluate` metric (``metric``) with averaged ties, and takes its
    direction, label and range from that metric's :class:`MetricSpec`.
    """

    key: str
    """The payload key, as the seed spells it (``"hit@1"``, ``"hit@{k}"``, ``"gini"``)."""
    family: ReportFamily
    summary: str
    """What it is, as docs/report.md's table says it."""
    higher_is_better: bool
    label: str
    """The name a table or chart shows (``"NDCG@{k}"``, ``"Gini"``)."""
    value_range: Range
    term: ReportTerm | None = None
    """A micro key's gain per rank: a hit, the reciprocal rank, the DCG discount."""
    cutoff: int | None = None
    """A fixed cutoff (``hit@1``, ``hit@5``: emitted whatever ``k``); None: the report's ``k``."""
    metric: str | None = None
    """The :data:`REGISTRY` metric a micro key equals (averaged ties), by its name."""

    @property
    def block(self) -> Literal["micro", "macro", "value"]:
        """The payload block it is written in (``objectives[o]``: micro, macro or value)."""
        if self.family == "micro":
            return "micro"
        return "value" if self.family == "value" else "macro"

    @property
    def direction(self) -> Direction:
        """``"higher"`` or ``"lower"``: which way it is better."""
        return _way(higher_is_better=self.higher_is_better)

    def name(self, k: int) -> str:
        """The payload key at cutoff ``k`` (``ndcg@{k}`` at 10: ``"ndcg@10"``)."""
        return self.key.format(k=k)

    def display(self, k: int) -> str:
        """The label at cutoff ``k`` (``ndcg@{k}`` at 10: ``"NDCG@10"``)."""
        return self.label.format(k=k)

    def cut(self, k: int) -> int:
        """The cutoff it is computed at: its fixed one, or the report's ``k``."""
        return k if self.cutoff is None else self.cutoff


def _report_micro(
    key: str, metric: str, term: ReportTerm, cutoff: int | None, summary: str
) -> ReportMetric:
    spec = BY_NAME[metric]
    return ReportMetric(
        key=key,
        family="micro",
        summary=summary,
        higher_is_better=spec.higher_is_better,
        label=spec.label_cut.format(label=spec.label, k="{k}" if cutoff is None else cutoff),
        value_range=spec.value_range,
        term=term,
        cutoff=cutoff,
        metric=metric,
    )


REPORT_METRICS: tuple[ReportMetric, ...] = (
    _report_micro("hit@1", "hit_rate", "hit", 1, "P(truth in the top 1), always emitted"),
    _report_micro("hit@5", "hit_rate", "hit", 5, "P(truth in the top 5), always emitted"),
    _report_micro("hit@{k}", "hit_rate", "hit", None, "P(truth in the top k)"),
    _report_micro("mrr@{k}", "reciprocal_rank", "rr", None, "E[1/R · 1{R ≤ k}]"),
    _report_micro(
        "ndcg@{k}",
        "ndcg",
        "dcg",
        None,
        "E[1/log2(R+1) · 1{R ≤ k}] (one relevant item: the ideal DCG is 1)",
    ),  # fmt: skip
    ReportMetric(
        key="macro_recall@{k}",
        family="macro",
        summary="`hit@{k}` averaged within each true item, then over those items unweighted",
        higher_is_better=True,
        label="macro recall@{k}",
        value_range=UNIT,
    ),
    ReportMetric(
        key="catalog_coverage",
        family="coverage",
        summary="mean over catalogue items of `1 − Π_l (1 − P_l(item in top k))`, exact",
        higher_is_better=True,
        label="catalogue coverage",
        value_range=UNIT,
    ),
    ReportMetric(
        key="tail_hit@{k}",
        family="macro",
        summary="`hit@{k}` over graded lists whose truth is a long-tail item (null when none, "
        "and a note in `notes` says so)",
        higher_is_better=True,
        label="tail HR@{k}",
        value_range=UNIT,
    ),
    # entropy and Gini measure how evenly the expected exposure spreads over the catalogue;
    # the coverage view exists to catch popularity collapse (exposure piled on the head), so
    # an even spread is the better one: high entropy, low Gini (decision 0012, 13)
    ReportMetric(
        key="entropy",
        family="coverage",
        summary="Shannon entropy (nats) of the expected exposure shares",
        higher_is_better=True,
        label="exposure entropy",
        value_range=NON_NEGATIVE,
    ),
    ReportMetric(
        key="gini",
        family="coverage",
        summary="Gini index of the expected exposure over the catalogue (0 even, near 1 "
        "concentrated)",
        higher_is_better=False,
        label="exposure Gini",
        value_range=UNIT,
    ),
    # the value family (issue 21): written only when the report is given value=, a
    # column of an item's price or margin; expectations over tie orders, no interval (seed 004)
    ReportMetric(
        key="value@{k}",
        family="value",
        summary="expected value of the realised positives in the top k, summed per list, "
        "averaged over lists (written with `value=`)",
        higher_is_better=True,
        label="value@{k}",
        value_range=NON_NEGATIVE,
    ),
    ReportMetric(
        key="value_share@{k}",
        family="value",
        summary="`value@{k}` over the list's realised value, averaged over lists with a "
        "positive realised value",
        higher_is_better=True,
        label="value share@{k}",
        value_range=UNIT,
    ),
    ReportMetric(
        key="value_ndcg@{k}",
        family="value",
        summary="NDCG@k with the realised positives' value as the gain (`lp.ndcg` with the "
        "value as `y_true`), over lists with a positive realised value",
        higher_is_better=True,
        label="value NDCG@{k}",
        value_range=UNIT,
    ),
)
"""The report's families in payload order; :func:`lodestar_polars.ranking_report` writes
these keys, its HTML page labels them and :func:`direction` reads their direction."""


def report_metrics(
    k: int, block: Literal["micro", "macro", "value"] | None = None
) -> list[ReportMetric]:
    """The keys the report writes at cutoff ``k`` (of one payload block), in payload order.

    A key written twice at this ``k`` is written once, first come first
    (``hit@{k}`` at ``k=5`` is ``hit@5``).

    Examples
    --------
    >>> [m.name(5) for m in report_metrics(5, "micro")]
    ['hit@1', 'hit@5', 'mrr@5', 'ndcg@5']
    >>> [(m.name(10), m.direction) for m in report_metrics(10, "macro")][-2:]
    [('entropy', 'higher'), ('gini', 'lower')]
    """
    seen: dict[str, ReportMetric] = {}
    for metric in REPORT_METRICS:
        if block is None or metric.block == block:
            seen.setdefault(metric.name(k), metric)
    return list(seen.values())


_REPORT_CUT = re.compile(r"^(?P<base>[a-z][a-z_]*)@(?P<k>[0-9]+)$")


def report_metric(column: str) -> ReportMetric | None:
    """The report metric a column name is (any case; ``@`` and digits for ``{k}``), or None.

    Examples
    --------
    >>> report_metric("hit@10").key, report_metric("Gini").key, report_metric("gini@10")
    ('hit@{k}', 'gini', None)
    """
    if not isinstance(column, str):
        return None
    text = column.strip().lower()
    by_key = {metric.key: metric for metric in REPORT_METRICS}
    if text in by_key:
        return by_key[text]
    match = _REPORT_CUT.match(text)
    if match is None:
        return None
    return by_key.get(match["base"] + "@{k}")


def report_table() -> str:
    """The docs' table of the report's keys (docs/report.md); a test checks the page holds it."""
    family = {
        "micro": "`micro` (accuracy)",
        "macro": "`macro` (per item)",
        "coverage": "`coverage` (catalogue)",
        "value": "`value` (price or margin)",
    }
    lines = ["| key | family | what | label | range | better |", "|---|---|---|---|---|---|"]
    for m in REPORT_METRICS:
        lines.append(
            f"| `{m.key}` | {family[m.family]} | {m.summary} | `{m.label}` | {m.value_range} "
            f"| {m.direction} |"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# beyond accuracy: measures of the served lists themselves (docs/beyond-accuracy.md)


@dataclass(frozen=True, kw_only=True)
class ListMeasure:
    """A beyond-accuracy measure of served lists: novelty, ARP, ILD, serendipity, personalisation.

    Not an :func:`lodestar_polars.evaluate` metric (yet): each reads input
    columns besides ``y_true`` and ``y_score`` (``inputs``: the popularity, an
    item feature, the popularity rank), which ``lp.evaluate`` has no role for.
    The per-list ones are expressions used in ``group_by(user).agg(...)``;
    personalisation is a function of a frame of lists (it is across users).
    """

    name: str
    function: Callable[..., Any]
    summary: str
    higher_is_better: bool | None
    """None where neither way is better (ARP: how popular, a bias to read, not a score)."""
    label: str
    """Shown in tables and plots, with ``{k}`` for the cutoff (``"ILD@{k}"``)."""
    value_range: Range
    inputs: tuple[str, ...]
    """The parameters naming the extra input columns it reads (``popularity``, ``feature``)."""
    per_list: bool
    """One value per list (an expression); False: one value over every list (a function)."""
    rectools: str | None = None
    """The RecTools class whose numbers it reproduces (tests/test_beyond_accuracy.py)."""
    core: Callable[..., Any] | None = None
    """The NumPy segment core over flat arrays (:mod:`lodestar_polars._core.beyond`), the
    same numbers as the expression: what an ``lp.evaluate`` path would run."""

    @property
    def direction(self) -> Direction | None:
        """``"higher"``, ``"lower"`` or None (no better way)."""
        if self.higher_is_better is None:
            return None
        return _way(higher_is_better=self.higher_is_better)

    def display(self, k: int | None = None) -> str:
        """The label at cutoff ``k`` (``"ILD@10"``); without one, the plain name (``"ILD"``)."""
        return self.label.replace("@{k}", "") if k is None else self.label.format(k=k)


LIST_MEASURES: tuple[ListMeasure, ...] = (
    ListMeasure(
        name="novelty",
        function=novelty,
        summary="mean self-information -log2 p of the served items (p: share of training users)",
        higher_is_better=True,
        label="novelty@{k}",
        value_range=NON_NEGATIVE,
        inputs=("popularity",),
        per_list=True,
        rectools="MeanInvUserFreq",
        core=novelty_segments,
    ),
    ListMeasure(
        name="average_recommended_popularity",
        function=average_recommended_popularity,
        summary="mean training popularity of the served items (ARP)",
        higher_is_better=None,
        label="ARP@{k}",
        value_range=NON_NEGATIVE,
        inputs=("popularity",),
        per_list=True,
        rectools="AvgRecPopularity",
        core=mean_popularity_segments,
    ),
    ListMeasure(
        name="intra_list_diversity",
        function=intra_list_diversity,
        summary="mean distance of the pairs of served items (category: differ; embedding: cosine)",
        higher_is_better=True,
        label="ILD@{k}",
        value_range=Range(0.0, 2.0),
        inputs=("feature",),
        per_list=True,
        rectools="IntraListDiversity",
        core=category_diversity_segments,  # embedding_diversity_segments with dim=
    ),
    ListMeasure(
        name="serendipity",
        function=serendipity,
        summary="relevant items served above their popularity rank (RecTools' definition)",
        higher_is_better=True,
        label="serendipity@{k}",
        value_range=UNIT,
        inputs=("popularity_rank",),
        per_list=True,
        rectools="Serendipity",
        core=serendipity_segments,
    ),
    ListMeasure(
        name="personalisation",
        function=personalisation,
        summary="one minus the mean overlap of two users' lists, over every pair (exact)",
        higher_is_better=True,
        label="personalisation@{k}",
        value_range=UNIT,
        inputs=(),
        per_list=False,
        core=personalisation_value,
    ),
)
"""The beyond-accuracy measures; :func:`direction` reads their direction by name."""

LIST_MEASURES_BY_NAME: Mapping[str, ListMeasure] = MappingProxyType(
    {m.name: m for m in LIST_MEASURES}
)
