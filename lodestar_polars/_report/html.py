"""``report_html``: a ranking report payload as one static HTML page.

The page holds everything inline (styles and SVG figures): it needs no server and fetches
nothing when viewed.  The figures are drawn with matplotlib, an optional extra
(``pip install 'lodestar-polars[report]'``), imported only inside :func:`report_html`.
"""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lodestar_polars._registry import report_metric
from lodestar_polars._report.html_versus import versus_section
from lodestar_polars._report.ranking_report import decision_of

__all__ = ["report_fragment", "report_html"]

CALLER = "report_html"
REQUIRED = ("objectives", "objective_alpha", "baselines", "uncertainty", "primary_score")
PROTOCOL = (
    ("n_lists", "graded lists"),
    ("n_dropped", "lists dropped (no positive)"),
    ("n_unseen_truth", "graded lists whose truth was not a candidate (misses)"),
    ("n_items", "catalogue items"),
    ("k", "cutoff k"),
    ("multi_positive", "lists with several positives"),
    ("ties", "ties"),
    ("popularity_source", "popularity floor from"),
    ("comparability", "comparability state"),
    ("schema_version", "payload schema version"),
)
VERDICT_TEXT = {
    "model_ahead": "model ahead",
    "baseline_ahead": "baseline ahead",
    "undecided": "undecided",
}
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; color: #222; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
thead th { background: #f3f3f3; }
td.model_ahead { background: #e3f4e1; } td.baseline_ahead { background: #fbe3e1; }
td.undecided { background: #f6f1dc; } td.by-construction { color: #777; }
p.decision { font-size: 1.1rem; padding: 0.6rem 0.8rem; border-left: 0.3rem solid #999; }
p.model_ahead { border-color: #2e8b57; } p.baseline_ahead { border-color: #c0392b; }
p.undecided { border-color: #b8860b; }
figure { margin: 1rem 0; } figcaption { font-size: 0.9rem; color: #555; max-width: 60rem; }
p.note { color: #555; max-width: 60rem; }
"""


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _num(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4f}"
    return _esc(value)


def _table(
    table_id: str, header: Sequence[str], rows: Sequence[Sequence[str]], caption: str
) -> str:
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(cells) + "</tr>" for cells in rows)
    ident = f' id="{table_id}"' if table_id else ""  # none in a notebook's fragment
    return (
        f"<table{ident}><caption>{_esc(caption)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def _alpha_label(alpha: object) -> str:
    return "percentile" if alpha is None else f"α = {float(alpha):g}"  # type: ignore[arg-type]


def _display(metric: str) -> str:
    """The registry's label of a payload key (``ndcg@10``: ``NDCG@10``); the key if none."""
    found = report_metric(metric)
    if found is None:
        return metric
    return found.label.replace("{k}", metric.rpartition("@")[2])  # the key's own cutoff


def _direction(metric: str) -> str:
    """The registry's direction of a payload key; ``neither`` where no way is better (ARP)."""
    found = report_metric(metric)
    if found is None:
        return ""
    return found.direction or "neither"


def _check(payload: object) -> Mapping[str, Any]:
    if not isinstance(payload, Mapping):
        kind = type(payload).__name__
        msg = f"{CALLER}: 'payload' must be the dict lp.ranking_report returns; got {kind}."
        raise TypeError(msg)
    missing = [key for key in REQUIRED if key not in payload]
    if missing:
        msg = (
            f"{CALLER}: the payload lacks {', '.join(map(repr, missing))}; pass the dict "
            "lp.ranking_report returns."
        )
        raise ValueError(msg)
    objectives = payload["objectives"]
    if not isinstance(objectives, Mapping) or not objectives:
        msg = f"{CALLER}: the payload's 'objectives' must map each objective to its families."
        raise ValueError(msg)
    for name, block in objectives.items():
        if not isinstance(block, Mapping) or not {"micro", "macro"} <= set(block):
            msg = f"{CALLER}: the payload's objective {name!r} must hold 'micro' and 'macro'."
            raise ValueError(msg)
    return payload


def _family_table(payload: Mapping[str, Any], family: str, *, table_id: str | None = None) -> str:
    objectives: Mapping[str, Any] = payload["objectives"]
    baselines: Mapping[str, Any] = payload["baselines"] or {}
    alphas: Mapping[str, Any] = payload["objective_alpha"] or {}
    metrics: list[str] = []
    for block in [*objectives.values(), *baselines.values()]:
        for metric in block.get(family, {}):
            if metric not in metrics:
                metrics.append(metric)
    header = ["metric", "label", "better"]
    header += [f"{_esc(n)}<br><small>{_alpha_label(alphas.get(n))}</small>" for n in objectives]
    header += [f"{_esc(n)}<br><small>baseline</small>" for n in baselines]
    columns = [*objectives.values(), *baselines.values()]
    fixed = set(payload.get("by_construction") or ())

    def label(m: str) -> str:
        mark = ' <small class="by-construction">by construction</small>' if m in fixed else ""
        # the key as the payload holds it, then the registry's label and direction
        return f"<td>{_esc(m)}{mark}</td><td>{_esc(_display(m))}</td><td>{_esc(_direction(m))}</td>"

    rows = [
        [label(m)] + [f"<td>{_num(c.get(family, {}).get(m))}</td>" for c in columns]
        for m in metrics
    ]
    caption = {
        "micro": "Accuracy (micro): pooled over graded lists, expectations over tie orders.",
        "macro": "Coverage (macro): per item and catalogue-wide, expectations over tie orders.",
        "value": "Value: the realised positives' value captured, per list, expectations over "
        "tie orders; no interval.",
    }[family]
    return _table(family if table_id is None else table_id, header, rows, caption)


def _interval(entry: Mapping[str, Any] | None) -> str:
    if not entry:
        return "—"
    return (
        f"{_num(entry.get('estimate'))} [{_num(entry.get('ci_low'))}, {_num(entry.get('ci_high'))}]"
    )


def _uncertainty_section(payload: Mapping[str, Any], *, ids: bool = True) -> str:
    unc = payload["uncertainty"]
    if not unc:
        ident = ' id="no-uncertainty"' if ids else ""
        return (
            f'<p class="note"{ident}>No intervals: the report had fewer than two '
            "resampling units.</p>"
        )
    level = unc.get("confidence_level", 0.95)
    intro = (
        f'<p class="note">Paired percentile bootstrap over {_num(unc.get("n_units"))} '
        f"{_esc(unc.get('unit', 'unit'))} units, {_num(unc.get('n_resamples'))} resamples, "
        f"{100 * float(level):g} % intervals, seed {_esc(unc.get('seed'))}, for the "
        f"{_esc(unc.get('objective', ''))} ordering. The verdict says whether the whole "
        "interval of the difference is above zero (model ahead), below (baseline ahead), or "
        "straddles it (undecided).</p>"
    )
    model: Mapping[str, Any] = unc.get("model") or {}
    baselines: Mapping[str, Any] = unc.get("baselines") or {}
    header = ["metric", "model"]
    for name in baselines:
        header += [f"{_esc(name)}", f"model − {_esc(name)}", "verdict"]
    fixed = set(payload.get("by_construction") or ())
    rows = []
    for metric, entry in model.items():
        if metric in fixed:  # no interval for a value no ordering can move: say so instead
            cells = [f"<td>{_esc(metric)}</td>", f"<td>{_num(entry.get('estimate'))}</td>"]
            for part in baselines.values():
                floor = (part.get("floor") or {}).get(metric) or {}
                diff = (part.get("difference") or {}).get(metric) or {}
                cells += [
                    f"<td>{_num(floor.get('estimate'))}</td>",
                    f"<td>{_num(diff.get('estimate'))}</td>",
                    '<td class="by-construction">by construction</td>',
                ]
            rows.append(cells)
            continue
        cells = [f"<td>{_esc(metric)}</td>", f"<td>{_interval(entry)}</td>"]
        for part in baselines.values():
            floor = (part.get("floor") or {}).get(metric)
            diff = (part.get("difference") or {}).get(metric) or {}
            verdict = str(diff.get("verdict", ""))
            cells += [
                f"<td>{_interval(floor)}</td>",
                f"<td>{_interval(diff)}</td>",
                f'<td class="{_esc(verdict)}">{_esc(VERDICT_TEXT.get(verdict, verdict))}</td>',
            ]
        rows.append(cells)
    table = _table(
        "uncertainty" if ids else "", header, rows, "Micro metrics with bootstrap intervals."
    )
    return intro + table


def _svg(figure: Any) -> str:
    buffer = io.StringIO()
    figure.savefig(
        buffer,
        format="svg",
        bbox_inches="tight",
        metadata={"Date": None, "Creator": None, "Format": None, "Type": None},
    )
    text = buffer.getvalue()
    start = text.find("<svg")
    return re.sub(r"<metadata>.*?</metadata>", "", text[start:], flags=re.DOTALL)


def _tradeoff_figure(payload: Mapping[str, Any], figure_cls: Any) -> str:
    """Accuracy (primary metric) against catalogue coverage, one point per block."""
    metric = str(payload["primary_score"].get("metric", "ndcg@10"))
    alphas: Mapping[str, Any] = payload["objective_alpha"] or {}
    points: list[tuple[float | None, str, float, float]] = []
    for name, block in payload["objectives"].items():
        y = block["micro"].get(metric)
        x = block["macro"].get("catalog_coverage")
        if x is not None and y is not None:
            alpha = alphas.get(name)
            points.append((None if alpha is None else float(alpha), str(name), float(x), float(y)))
    curve = sorted((p for p in points if p[0] is not None), key=lambda p: p[0] or 0.0)
    fig = figure_cls(figsize=(6.4, 4.2))
    ax = fig.add_subplot()
    if curve:
        ax.plot(
            [p[2] for p in curve], [p[3] for p in curve], "-o", color="#1f6fb2", label="α sweep"
        )
    for alpha, name, x, y in points:
        marker = "o" if alpha is not None else "D"
        ax.plot([x], [y], marker, color="#1f6fb2" if alpha is not None else "#8e44ad")
        ax.annotate(
            f"{name} ({_alpha_label(alpha)})", (x, y), textcoords="offset points", xytext=(6, 6)
        )
    for name, block in (payload["baselines"] or {}).items():
        y = block.get("micro", {}).get(metric)
        x = block.get("macro", {}).get("catalog_coverage")
        if x is not None and y is not None:
            ax.plot([x], [y], "s", color="#c0392b", label=f"{name} (baseline)")
            ax.annotate(str(name), (x, y), textcoords="offset points", xytext=(6, -12))
    ax.set_xlabel(f"{_display('catalog_coverage')} (coverage)")
    ax.set_ylabel(f"{_display(metric)} (accuracy)")
    ax.set_title("Accuracy vs coverage over the popularity discount α")
    ax.grid(visible=True, alpha=0.3)
    ax.margins(0.15)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best", fontsize="small")
    caption = (
        "Each point is one objective block, at the α it was ranked with (a diamond: ranked by "
        "percentile, no α). Up is more accurate, right covers more of the catalogue."
    )
    return f'<figure id="tradeoff">{_svg(fig)}<figcaption>{_esc(caption)}</figcaption></figure>'


def _interval_figure(payload: Mapping[str, Any], figure_cls: Any) -> str:
    """Model − baseline difference intervals per micro metric, against zero."""
    unc = payload["uncertainty"] or {}
    rows = []
    fixed = set(payload.get("by_construction") or ())
    for base, part in (unc.get("baselines") or {}).items():
        for metric, entry in (part.get("difference") or {}).items():
            if metric not in fixed:  # a [0, 0] interval by construction is no evidence
                rows.append((f"{_display(metric)} vs {base}", entry))
    if not rows:
        return ""
    fig = figure_cls(figsize=(6.4, 0.5 + 0.45 * len(rows)))
    ax = fig.add_subplot()
    colours = {"model_ahead": "#2e8b57", "baseline_ahead": "#c0392b", "undecided": "#b8860b"}
    for i, (_, entry) in enumerate(rows):
        lo, hi, est = float(entry["ci_low"]), float(entry["ci_high"]), float(entry["estimate"])
        colour = colours.get(str(entry.get("verdict")), "#555555")
        ax.plot([lo, hi], [i, i], "-", color=colour, linewidth=3)
        ax.plot([est], [i], "o", color=colour)
    ax.axvline(0.0, color="#333333", linewidth=1)
    ax.set_yticks(range(len(rows)), [label for label, _ in rows])
    ax.invert_yaxis()
    ax.set_xlabel("model − baseline (bootstrap interval)")
    ax.grid(visible=True, axis="x", alpha=0.3)
    caption = (
        "Green: the whole interval is above zero (model ahead); red: below (baseline ahead); "
        "amber: it straddles zero (undecided)."
    )
    return f'<figure id="intervals">{_svg(fig)}<figcaption>{_esc(caption)}</figcaption></figure>'


def report_fragment(payload: Mapping[str, Any]) -> str:
    """The report as a compact HTML fragment, for a notebook: no figures, no matplotlib.

    The decision sentence first, then the notes, the protocol in one line, the micro and macro
    families per objective next to the baselines, and the bootstrap intervals with their
    verdicts (the tables of the page, without its ids, styles and figures).  It is what
    :class:`lodestar_polars.RankingReport` shows in Jupyter (``_repr_html_``).
    """
    data = _check(payload)
    decision = data.get("decision") or decision_of(data)
    verdict_class = _esc(decision["verdict"] or "no-verdict")
    notes = "".join(f'<p class="note">{_esc(note)}</p>' for note in data.get("notes") or ())
    alphas: Mapping[str, Any] = data["objective_alpha"] or {}
    shown = ", ".join(f"{_esc(n)} ({_alpha_label(alphas.get(n))})" for n in data["objectives"])
    protocol = (
        f"<p>{_num(data.get('n_lists'))} graded lists ({_num(data.get('n_dropped'))} dropped, "
        f"{_num(data.get('n_unseen_truth'))} unseen truth), {_num(data.get('n_items'))} items, "
        f"k = {_num(data.get('k'))}; objectives: {shown}.</p>"
    )
    parts = [
        '<div class="lodestar-ranking-report">',
        f'<p class="decision {verdict_class}"><strong>{_esc(decision["sentence"])}</strong></p>',
        notes,
        protocol,
        _family_table(data, "micro", table_id=""),
        _family_table(data, "macro", table_id=""),
        _family_table(data, "value", table_id="") if "value_rule" in data else "",
        versus_section(data, ids=False),
        _uncertainty_section(data, ids=False),
        "</div>",
    ]
    return "".join(parts)


def report_html(
    payload: Mapping[str, Any], path: str | Path, *, title: str = "Ranking report"
) -> Path:
    """Write a ranking report payload as one static, self-contained HTML page.

    The page opens with the decision, in one sentence: the model against the popularity floor
    on the primary metric, the interval of the difference and the verdict (model ahead, baseline
    ahead, undecided; or no verdict without a floor), then any note on metrics fixed by
    construction (``k`` at least every list's length).  It then shows the protocol (what was
    graded), the accuracy (micro) and coverage (macro)
    families for every objective next to the baselines, the bootstrap intervals and verdicts of
    the model against each baseline, and two inline SVG figures: the accuracy-vs-coverage
    trade-off over the popularity discount α (one point per objective block of the payload) and
    the model − baseline intervals.  Nothing is fetched when the page is viewed.

    Parameters
    ----------
    payload : RankingReport or dict
        What :func:`lodestar_polars.ranking_report` returns (a
        :class:`~lodestar_polars.RankingReport`, whose ``to_html`` calls this function), or the
        same payload as a plain dict, such as one read back from JSON.
    path : str or pathlib.Path
        The ``.html`` file to write (overwritten).
    title : str, default "Ranking report"
        The page's title and heading.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    ImportError
        When matplotlib (the ``report`` extra) is not installed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> log = pl.DataFrame({
    ...     "user": [1, 1, 1, 2, 2, 2, 3, 3, 3],
    ...     "item": ["a", "b", "c"] * 3,
    ...     "score": [0.9, 0.5, 0.1, 0.2, 0.8, 0.4, 0.3, 0.6, 0.7],
    ...     "clicked": [1, 0, 0, 0, 1, 0, 0, 0, 1],
    ... })
    >>> payload = lp.ranking_report(
    ...     log, by="user", item="item", y_true="clicked", y_score="score", k=2, n_resamples=50
    ... )
    >>> page = lp.report_html(payload, pathlib.Path(tempfile.mkdtemp()) / "report.html")
    >>> "<svg" in page.read_text()
    True
    """
    data = _check(payload)
    try:
        import matplotlib as mpl
        from matplotlib.figure import Figure
    except ImportError as err:
        msg = (
            f"{CALLER} draws its figures with matplotlib, an optional extra: "
            "pip install 'lodestar-polars[report]'"
        )
        raise ImportError(msg) from err
    out = Path(path)
    with mpl.rc_context({"svg.fonttype": "none", "svg.hashsalt": "lodestar-polars"}):
        tradeoff = _tradeoff_figure(data, Figure)
        intervals = _interval_figure(data, Figure)

    protocol_rows = [
        [f"<td>{_esc(label)}</td>", f"<td>{_num(data[key])}</td>"]
        for key, label in PROTOCOL
        if key in data
    ]
    tail = data.get("tail_rule")
    if isinstance(tail, Mapping):
        text = ", ".join(f"{_esc(k)} {_num(v)}" for k, v in tail.items())
        protocol_rows.append(["<td>long-tail rule</td>", f"<td>{text}</td>"])
    primary = data["primary_score"]
    decision = data.get("decision") or decision_of(data)  # an older payload: from its parts
    verdict_class = _esc(decision["verdict"] or "no-verdict")
    decision_html = (
        f'<p id="decision" class="decision {verdict_class}"><strong>'
        f"{_esc(decision['sentence'])}</strong></p>"
    )
    notes_html = "".join(
        f'<p class="note by-construction-note">{_esc(note)}</p>' for note in data.get("notes") or ()
    )
    headline = (
        f"<p>Primary score: <strong>{_esc(primary.get('metric'))} = "
        f"{_num(primary.get('value'))}</strong> ({_esc(data.get('primary_objective', ''))} "
        "ordering).</p>"
    )
    if data["baselines"]:
        baseline_note = ""
    else:
        baseline_note = (
            '<p class="note" id="no-baseline">No baseline: the report was given no training '
            "interactions or popularity floor, so nothing says whether these numbers beat "
            "“recommend the popular items”.</p>"
        )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_esc(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{_esc(title)}</h1>",
        decision_html,
        notes_html,
        headline,
        "<h2>What was graded</h2>",
        _table("protocol", ["field", "value"], protocol_rows, "The evaluation protocol."),
        "<h2>Accuracy and coverage per objective</h2>",
        baseline_note,
        _family_table(data, "micro"),
        _family_table(data, "macro"),
        _family_table(data, "value") if "value_rule" in data else "",
        "<h2>Model A against model B</h2>" if data.get("versus") else "",
        versus_section(data),
        "<h2>The trade-off</h2>",
        tradeoff,
        "<h2>How sure is the lift?</h2>",
        _uncertainty_section(data),
        intervals,
        "</body></html>",
    ]
    out.write_text("\n".join(p for p in parts if p) + "\n", encoding="utf-8")
    return out
