"""What an entry is: `MetricSpec`, `Name`, `Range`, `TrecMeasure`, and core adapters."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
import polars as pl

from lodestar_polars._core.dcg import ideal_dcg_segments
from lodestar_polars._core.ir import (
    Gains,
    Judged,
    exponential_gain,
)
from lodestar_polars._core.threads import map_parts, parts
from lodestar_polars._metrics.expr import Metric

Tool = Literal["lodestar_polars", "scikit-learn", "trec_eval", "ranx", "ir_measures", "rectools"]


Cutoff = Literal["none", "optional", "required"]


InputRole = Literal["popularity", "feature", "popularity_rank", "n_items"]


"""The ``lp.evaluate`` inputs a metric may read besides ``y_true`` and ``y_score``
(:attr:`MetricSpec.inputs`); ``n_items`` is a number, the others columns."""


COLUMN_INPUTS: tuple[InputRole, ...] = ("popularity", "feature", "popularity_rank")


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
    inputs: Mapping[str, np.ndarray] = field(default_factory=lambda: MappingProxyType({}))
    """The other per-row input columns asked for (``lp.evaluate(popularity=, feature=,
    popularity_rank=)``: :attr:`MetricSpec.inputs`), in the rows' ranked order; an
    embedding is a matrix, one row per row."""

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
        inputs = MappingProxyType({role: v[a:b] for role, v in self.inputs.items()})
        return Sorted(
            self.gain[a:b], self.score[a:b], self.length[first:end], n_relevant, judged, inputs
        )


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
``judged_*`` functions; a text measure's, :mod:`lodestar_polars._core.trec_text`'s,
gives one ``str`` per query); ``param`` is the cutoff ``k`` (or None), a recall level or
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
    def is_text(self) -> bool:
        """A text measure (``relstring``): a string per query, no ``all`` row."""
        return self.aggregate == "none"

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
    higher_is_better: bool | None = field(kw_only=True)
    """Whether a larger value is a better ranking or model (False for the losses and
    errors: ``coverage_error``, ``label_ranking_loss``, ``log_loss``, ``brier_score``;
    None where neither way is better: ARP, how popular the served items are, a bias to
    read, not a score).  Given for every entry; :func:`direction` and ``lp.compare`` read it."""
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
    inputs: tuple[InputRole, ...] = ()
    """The ``lp.evaluate`` inputs besides ``y_true`` and ``y_score`` the metric reads
    (``popularity``, ``feature``, ``popularity_rank``: per-row columns, given to the
    builder by that keyword and to the core in :attr:`Sorted.inputs`; ``n_items``: a
    number, given to both as an option).  A name of it without them is refused, naming
    the role; nothing else decides which metric reads what."""
    page: str | None = None
    """Its docs page, relative to ``docs/`` (an anchor may follow ``#``); None:
    ``metrics/<expression>.md``.  The beyond-accuracy entries share one page."""
    reads_y_true: bool = True
    """Whether the expression and the builder take ``y_true`` first (False: novelty,
    ARP and ILD read only the scores and their inputs: ``novelty(y_score, *, popularity)``)."""
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

    @property
    def docs_page(self) -> str:
        """Its docs page, relative to ``docs/``: :attr:`page`, or ``metrics/<expression>.md``."""
        return self.page or f"metrics/{self.expression.__name__}.md"

    @property
    def direction(self) -> Direction | None:
        """``"higher"``, ``"lower"``, or None where neither way is better (ARP)."""
        if self.higher_is_better is None:
            return None
        return _way(higher_is_better=self.higher_is_better)

    def display(self, k: int | None = None) -> str:
        """The label with the number written after ``@`` (``ndcg`` at 10: ``"NDCG@10"``).

        Without ``k``, the metric's default cutoff where it has one and the
        number is a cutoff (``top_k_accuracy``: ``"top-2 accuracy"``), else the
        plain label (``"NDCG"``, ``"ECE"``).

        Examples
        --------
        >>> from lodestar_polars._registry import BY_NAME
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


Direction = Literal["higher", "lower"]


"""Which way a metric improves: larger values better, or smaller."""


def _way(*, higher_is_better: bool) -> Direction:
    return "higher" if higher_is_better else "lower"
