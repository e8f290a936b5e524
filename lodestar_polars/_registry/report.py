"""The ranking report's metric keys (`REPORT_METRICS`): family, direction, label, range."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from lodestar_polars._registry.entries import BY_NAME
from lodestar_polars._registry.spec import NON_NEGATIVE, UNIT, Direction, Range, _way

_COSINE = Range(0.0, 2.0)  # intra-list diversity: [0, 1] for categories, [0, 2] for cosine

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
    higher_is_better: bool | None
    """None where neither way is better (ARP, as :func:`lodestar_polars.evaluate`'s ``arp``)."""
    label: str
    """The name a table or chart shows (``"NDCG@{k}"``, ``"Gini"``)."""
    value_range: Range
    term: ReportTerm | None = None
    """A micro key's gain per rank: a hit, the reciprocal rank, the DCG discount."""
    cutoff: int | None = None
    """A fixed cutoff (``hit@1``, ``hit@5``: emitted whatever ``k``); None: the report's ``k``."""
    metric: str | None = None
    """The :data:`REGISTRY` metric a micro key equals (averaged ties), by its name."""
    needs: Literal["train", "feature"] | None = None
    """An input the key is written only with (``"train"``: the training interactions;
    ``"feature"``: an item's category or embedding, a column of ``scores``)."""

    @property
    def block(self) -> Literal["micro", "macro", "value"]:
        """The payload block it is written in (``objectives[o]``: micro, macro or value)."""
        if self.family == "micro":
            return "micro"
        return "value" if self.family == "value" else "macro"

    @property
    def direction(self) -> Direction | None:
        """``"higher"`` or ``"lower"``: which way it is better; None where neither is (ARP)."""
        if self.higher_is_better is None:
            return None
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
    if spec.higher_is_better is None:  # pragma: no cover - a registry bug
        msg = f"the report's micro key {key!r} reads {metric!r}, which has no direction"
        raise AssertionError(msg)
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
    # beyond accuracy (issue 21): the served top k's novelty against train's popularity and
    # the lists' personalisation; written only with train= (in memory), no interval
    ReportMetric(
        key="novelty@{k}",
        family="coverage",
        summary="mean self-information `-log2 p` of the top k, `p` the share of training users "
        "with the item (`lp.novelty`; a cold item one user), averaged over lists (with `train`)",
        higher_is_better=True,
        label="novelty@{k}",
        value_range=NON_NEGATIVE,
        needs="train",
    ),
    # ARP has no better way (a popular list is neither good nor bad), as lp.evaluate's arp
    ReportMetric(
        key="average_recommended_popularity@{k}",
        family="coverage",
        summary="mean training popularity `p` of the top k, `p` the share of training users "
        "with the item (`lp.average_recommended_popularity`; a cold item 0), averaged over "
        "lists (with `train`)",
        higher_is_better=None,
        label="ARP@{k}",
        value_range=UNIT,
        needs="train",
    ),
    ReportMetric(
        key="serendipity@{k}",
        family="coverage",
        summary="RecTools' serendipity of the top k (`lp.serendipity`): the graded positives' "
        "`max(r − pos, 0) / N` over the top's size, `r` the item's dense popularity rank in "
        "training (a cold item `N + 1`), `N` the scores' items, averaged over lists (with `train`)",
        higher_is_better=True,
        label="serendipity@{k}",
        value_range=UNIT,
        needs="train",
    ),
    ReportMetric(
        key="personalisation@{k}",
        family="coverage",
        summary="one minus the mean cosine overlap of two lists' top k, over every pair of "
        "lists (`lp.personalisation`; with `train`)",
        higher_is_better=True,
        label="personalisation@{k}",
        value_range=UNIT,
        needs="train",
    ),
    # intra-list diversity (issue 21): written only with feature= (an item's category or
    # embedding); higher is more diverse, declared higher-is-better as lp.intra_list_diversity
    ReportMetric(
        key="intra_list_diversity@{k}",
        family="coverage",
        summary="mean distance of the pairs of the top k (`lp.intra_list_diversity`: a "
        "category's pairs that differ, or an embedding's cosine distance), averaged over "
        "lists (with `feature`)",
        higher_is_better=True,
        label="ILD@{k}",
        value_range=_COSINE,
        needs="feature",
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
    >>> [(m.name(10), m.direction) for m in report_metrics(10, "macro")][-7:-5]
    [('entropy', 'higher'), ('gini', 'lower')]
    >>> [m.name(10) for m in report_metrics(10, "macro") if m.needs == "train"]
    ['novelty@10', 'average_recommended_popularity@10', 'serendipity@10', 'personalisation@10']
    >>> [m.name(10) for m in report_metrics(10, "macro") if m.needs == "feature"]
    ['intra_list_diversity@10']
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
