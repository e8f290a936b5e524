"""Reading a metric's name: `resolve`, `direction`, the unknown-name sentence."""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from lodestar_polars._base.deprecation import REMOVED_IN, RENAMED_IN
from lodestar_polars._registry.beyond_entries import ACROSS_LISTS
from lodestar_polars._registry.entries import REGISTRY
from lodestar_polars._registry.report import report_metric
from lodestar_polars._registry.spec import Cutoff, Direction, MetricSpec, Name, _way
from lodestar_polars._registry.trec import NOT_OFFERED, TREC_MEASURES
from lodestar_polars.exceptions import InvalidParameterError

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


_TREC_PARAMS = re.compile(r"^(?P<base>.+?)[._](?P<params>[-.0-9][-0-9.,=]*)$")


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
    beyond-accuracy measure (``"novelty@10"``, ``"ILD@10"``: the entries, read as any
    name is; ``"personalisation@10"``: :data:`ACROSS_LISTS`; ARP has no direction).
    None for a count (``num_ret``) and for any other column: a name is never guessed
    from its ending (``_loss``, ``_error``).

    Examples
    --------
    >>> [direction(c) for c in ["ndcg@10", "brier", "P_10", "num_ret", "my_loss"]]
    ['higher', 'lower', 'higher', None, None]
    >>> [direction(c) for c in ["hit@10", "tail_hit@10", "entropy", "gini"]]
    ['higher', 'higher', 'higher', 'lower']
    >>> [direction(c) for c in ["novelty@10", "ILD", "arp@10", "personalisation@10"]]
    ['higher', 'higher', None, 'higher']
    """
    if not isinstance(column, str):
        return None
    try:
        found = resolve(column)
    except InvalidParameterError:  # a name of another tool, a cutoff where none goes
        found = None
    if found is not None:
        return found.spec.direction
    text = column.strip()
    report = report_metric(text)
    if report is not None:
        return report.direction
    listed = ACROSS_LISTS.get(text.split("@")[0].lower())
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
