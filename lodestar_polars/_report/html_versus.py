"""The HTML page's and notebook table's sections for ``value=`` and ``y_score_b=`` (issue 21)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def versus_section(payload: Mapping[str, Any], *, ids: bool = True) -> str:
    """Model B against model A: the sentence, then B − A per key, its interval and verdict."""
    from lodestar_polars._report.html import _direction, _display, _esc, _num, _table

    versus: Mapping[str, Any] | None = payload.get("versus")
    if not versus:
        return ""
    decision = versus.get("decision") or {}
    fixed = set(payload.get("by_construction") or ())
    objective = versus.get("objective", "")
    a_block = (payload.get("objectives") or {}).get(objective) or {}
    level = 100 * float(versus.get("confidence_level", 0.95))
    intro = (
        f'<p class="decision {_esc(decision.get("verdict") or "no-verdict")}"><strong>'
        f"{_esc(decision.get('sentence', ''))}</strong></p>"
        f'<p class="note">Model B is the column {_esc(versus.get("y_score_b"))}, ranked by the '
        f"{_esc(objective)} ordering. Paired percentile bootstrap of B − A over "
        f"{_num(versus.get('n_units'))} {_esc(versus.get('unit', 'unit'))} units (the same "
        f"draws for both models), {_num(versus.get('n_resamples'))} resamples, {level:g} % "
        "intervals, on the accuracy family; the other families' differences carry none.</p>"
    )
    header = ["family", "metric", "label", "better", "A", "B", "B − A", "interval", "verdict"]
    rows = []
    for family, part in (versus.get("difference") or {}).items():
        for metric, entry in part.items():
            a = (a_block.get(family) or {}).get(metric)
            b = ((versus.get("model_b") or {}).get(family) or {}).get(metric)
            if metric in fixed:
                interval, verdict = "by construction", "—"
            elif entry.get("ci_low") is None:
                interval, verdict = "—", entry.get("verdict") or "—"
            else:
                interval = f"[{_num(entry['ci_low'])}, {_num(entry['ci_high'])}]"
                verdict = entry.get("verdict") or "—"
            rows.append(
                [
                    f"<td>{_esc(family)}</td>",
                    f"<td>{_esc(metric)}</td>",
                    f"<td>{_esc(_display(metric))}</td>",
                    f"<td>{_esc(_direction(metric))}</td>",
                    f"<td>{_num(a)}</td>",
                    f"<td>{_num(b)}</td>",
                    f"<td>{_num(entry.get('estimate'))}</td>",
                    f"<td>{_esc(interval)}</td>",
                    f'<td class="{_esc(verdict)}">{_esc(verdict)}</td>',
                ]
            )
    table = _table("versus" if ids else "", header, rows, "Model B against model A: B − A.")
    return intro + table
