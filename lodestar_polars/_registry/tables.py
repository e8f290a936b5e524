"""The tables printed from the registry: metric names, trec measures, report keys."""

from __future__ import annotations

from lodestar_polars._registry.entries import REGISTRY
from lodestar_polars._registry.report import REPORT_METRICS
from lodestar_polars._registry.spec import MetricSpec, TrecMeasure, _way
from lodestar_polars._registry.trec import TREC_MEASURES, TREC_METRIC, trec_offered


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
        expression = f"[`lp.{function}`]({spec.docs_page})"
        expression += "".join(f", `{key}={value!r}`" for key, value in spec.fixed.items())
        # the peers' names of a metric that averages ties by default give the peer's
        # number only on untied scores (or with ties="trec_eval" where the peer is trec_eval)
        ties = "averaged; `ties=` to order them" if spec.ties else "scikit-learn's rule"
        if spec.inputs:  # the beyond-accuracy entries: the top k's expectation over orderings
            ties = "averaged (closed form)"
        if not spec.averaged_ties:
            ties = "ordered: `ties='trec_eval'` or `'input'`"
        better = spec.direction or "neither"
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
    aggregate = {"mean": "mean", "sum": "sum", "gmean": "geometric mean", "none": "none (text)"}
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
    if not missing:
        return "\n".join(lines) + "\n\nEvery measure of trec_eval's `all_trec` is offered."
    return "\n".join(lines) + (
        "\n\nNot offered (refused by name): " + ", ".join(f"`{n}`" for n in missing) + "."
    )


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
            f"| {m.direction or 'neither'} |"
        )
    return "\n".join(lines)
