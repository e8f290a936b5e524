"""`lp.RankingReport`: the payload as a mapping, a tidy frame, JSON, HTML."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

import polars as pl

if TYPE_CHECKING:
    pass

from lodestar_polars._report.ranking_report.decision import decision_of

FRAME_SCHEMA: dict[str, Any] = {
    "subject": pl.String,
    "objective": pl.String,
    "baseline": pl.String,
    "family": pl.String,
    "metric": pl.String,
    "value": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "verdict": pl.String,
    "by_construction": pl.Boolean,
}


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


class RankingReport(dict[str, Any]):
    """What :func:`lodestar_polars.ranking_report` returns: the payload, and ways to read it.

    A ``dict`` (so a :class:`collections.abc.Mapping`) holding exactly the JSON-serialisable
    payload of docs/report.md: ``report["objectives"]["accuracy"]["micro"]``, ``dict(report)``,
    ``json.dumps(report)`` and ``report == payload`` all work as on a plain dict, and every
    value inside is a plain ``dict``, ``list``, ``str``, number or ``None``.  It adds
    :meth:`to_frame` (one tidy row per number), :meth:`to_dict`, :meth:`to_json`,
    :meth:`to_html` (the static page of :func:`lodestar_polars.report_html`), a short text
    summary as its ``repr`` (opening with the decision sentence) and a compact HTML table in
    a notebook.  A payload read back from JSON is wrapped again with
    ``RankingReport(json.loads(text))``.

    Examples
    --------
    >>> import json
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> scores = pl.DataFrame(
    ...     {
    ...         "user": [1, 1, 1, 2, 2, 2],
    ...         "item": ["a", "b", "c", "a", "b", "c"],
    ...         "score": [0.9, 0.5, 0.5, 0.2, 0.2, 0.2],
    ...         "clicked": [False, True, False, True, False, False],
    ...     }
    ... )
    >>> report = lp.ranking_report(
    ...     scores, by="user", item="item", y_true="clicked", y_score="score", k=2,
    ...     objectives=("accuracy",),
    ... )
    >>> report["objectives"]["accuracy"]["micro"]["mrr@2"]
    0.375
    >>> report == json.loads(report.to_json())
    True
    >>> frame = report.to_frame()
    >>> frame.filter(pl.col("family") == "micro").select("objective", "metric", "value")
    shape: (5, 3)
    ┌───────────┬────────┬──────────┐
    │ objective ┆ metric ┆ value    │
    │ ---       ┆ ---    ┆ ---      │
    │ str       ┆ str    ┆ f64      │
    ╞═══════════╪════════╪══════════╡
    │ accuracy  ┆ hit@1  ┆ 0.166667 │
    │ accuracy  ┆ hit@5  ┆ 1.0      │
    │ accuracy  ┆ hit@2  ┆ 0.583333 │
    │ accuracy  ┆ mrr@2  ┆ 0.375    │
    │ accuracy  ┆ ndcg@2 ┆ 0.429554 │
    └───────────┴────────┴──────────┘
    >>> print(report)  # doctest: +ELLIPSIS
    No verdict: the model's ndcg@2 (accuracy ordering) is 0.4296, but with no popularity floor ...
    note: Every graded list has at most 3 candidates, so a top 5 already holds them all: ...
    2 graded lists (0 dropped, 0 unseen truth), 3 items, k=2; objectives: accuracy (alpha 0)
    primary score: ndcg@2 = 0.4296
    ...
    """

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """The payload as a plain ``dict`` (a deep copy: changing it leaves the report alone)."""
        return copy.deepcopy(dict(self))

    @overload
    def to_json(self, path: None = None, *, indent: int | None = 2) -> str: ...

    @overload
    def to_json(self, path: str | Path, *, indent: int | None = 2) -> Path: ...

    def to_json(self, path: str | Path | None = None, *, indent: int | None = 2) -> str | Path:
        """The payload as strict JSON (no ``NaN``): the text, or written to ``path``.

        Parameters
        ----------
        path : str or pathlib.Path, default=None
            The file to write (overwritten, with a final newline); None returns the text.
        indent : int or None, default=2
            Passed to :func:`json.dumps`.

        Returns
        -------
        str or pathlib.Path
            The JSON text when ``path`` is None, else ``path``.
        """
        text = json.dumps(self, indent=indent, allow_nan=False)
        if path is None:
            return text
        out = Path(path)
        out.write_text(text + "\n", encoding="utf-8")
        return out

    def to_html(self, path: str | Path, *, title: str = "Ranking report") -> Path:
        """Write the report as one static HTML page: :func:`lodestar_polars.report_html`.

        Needs matplotlib (the ``report`` extra) for the figures; returns ``path``.
        """
        from lodestar_polars._report.html import report_html

        return report_html(self, path, title=title)

    def to_frame(self) -> pl.DataFrame:
        """Every number of the report as one tidy row.

        Returns
        -------
        polars.DataFrame
            One row per (subject, objective or baseline, family, metric), with the columns
            ``subject`` (``"model"``, ``"baseline"``: the popularity floor, or
            ``"difference"``: model − floor; with ``y_score_b``, ``"model_b"``: model B's
            families, and ``"versus"``: B − A, with ``a_ahead``/``b_ahead``/``undecided``
            verdicts on the micro rows), ``objective`` (the model's block; for a
            difference the primary objective; null for a floor), ``baseline`` (the floor's
            name, ``"global_pop"``; null for the model), ``family`` (``"micro"``: accuracy,
            ``"macro"``: coverage, ``"value"``: with ``value=``), ``metric``, ``value``,
            ``ci_low`` and ``ci_high`` (the
            bootstrap interval, null where the payload has none: only the primary objective's
            micro family, the floor's and the differences carry one), ``verdict`` (on
            difference rows: ``model_ahead``, ``baseline_ahead`` or ``undecided``; null
            elsewhere) and ``by_construction`` (the metric is one no ordering of the
            candidates can move, so its interval and verdict say nothing).  Difference rows
            exist only where the payload has intervals (two units or more); a ``tail_hit@k``
            with no tail truth is a null value.
        """
        fixed = set(self.get("by_construction") or ())
        unc: Mapping[str, Any] = self.get("uncertainty") or {}
        unc_objective = unc.get("objective", self.get("primary_objective"))
        unc_model: Mapping[str, Any] = unc.get("model") or {}
        unc_baselines: Mapping[str, Any] = unc.get("baselines") or {}
        rows: list[tuple[Any, ...]] = []

        def add(
            subject: str,
            objective: Any,
            baseline: Any,
            family: str,
            metric: str,
            value: Any,
            interval: Mapping[str, Any] | None,
            verdict: Any = None,
        ) -> None:
            interval = interval or {}
            rows.append(
                (
                    subject,
                    objective,
                    baseline,
                    family,
                    metric,
                    _float(value),
                    _float(interval.get("ci_low")),
                    _float(interval.get("ci_high")),
                    verdict,
                    metric in fixed,
                )
            )

        for name, block in (self.get("objectives") or {}).items():
            for family in ("micro", "macro", "value"):  # value: issue 21, with value=
                for metric, value in (block.get(family) or {}).items():
                    carries = name == unc_objective and family == "micro"
                    add("model", name, None, family, metric, value,
                        unc_model.get(metric) if carries else None)  # fmt: skip
        for base, block in (self.get("baselines") or {}).items():
            floor: Mapping[str, Any] = (unc_baselines.get(base) or {}).get("floor") or {}
            for family in ("micro", "macro", "value"):
                for metric, value in (block.get(family) or {}).items():
                    add("baseline", None, base, family, metric, value,
                        floor.get(metric) if family == "micro" else None)  # fmt: skip
        for base, part in unc_baselines.items():
            for metric, entry in ((part or {}).get("difference") or {}).items():
                add("difference", unc_objective, base, "micro", metric, entry.get("estimate"),
                    entry, entry.get("verdict"))  # fmt: skip
        versus: Mapping[str, Any] = self.get("versus") or {}  # issue 21: model B, B − A
        for family, part in (versus.get("model_b") or {}).items():
            for metric, value in part.items():
                add("model_b", versus.get("objective"), None, family, metric, value, None)
        for family, part in (versus.get("difference") or {}).items():
            for metric, entry in part.items():
                add("versus", versus.get("objective"), None, family, metric,
                    entry.get("estimate"), entry, entry.get("verdict"))  # fmt: skip
        return pl.DataFrame(rows, schema=FRAME_SCHEMA, orient="row")

    def _decision(self) -> Mapping[str, Any] | None:
        decision = self.get("decision")
        if isinstance(decision, Mapping) and "sentence" in decision:
            return decision
        try:  # an older payload: the decision from its parts
            return decision_of(self)
        except (KeyError, TypeError, ValueError, AttributeError):
            return None

    def _summary(self) -> str:
        lines = []
        decision = self._decision()
        if decision is not None:
            lines.append(str(decision["sentence"]))
        lines += [f"note: {note}" for note in self.get("notes") or ()]
        alphas: Mapping[str, Any] = self.get("objective_alpha") or {}
        shown = ", ".join(
            f"{n} ({'percentile' if a is None else f'alpha {a:g}'})" for n, a in alphas.items()
        )
        n = self.get("n_lists")
        if isinstance(n, int):
            lines.append(
                f"{n:,} graded list{'' if n == 1 else 's'} ({self.get('n_dropped', 0):,} "
                f"dropped, {self.get('n_unseen_truth', 0):,} unseen truth), "
                f"{self.get('n_items', 0):,} items, k={self.get('k')}; objectives: {shown}"
            )
        primary = self.get("primary_score")
        if isinstance(primary, Mapping) and primary.get("value") is not None:
            lines.append(f"primary score: {primary.get('metric')} = {primary['value']:.4f}")
        versus = self.get("versus")  # issue 21: model B against model A, in one sentence
        if isinstance(versus, Mapping) and isinstance(versus.get("decision"), Mapping):
            lines.append(str(versus["decision"].get("sentence", "")))
        lines.append(
            "RankingReport: report[key] reads the payload; .to_frame(), .to_html(path), "
            ".to_json(path), .to_dict()"
        )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self._summary()

    __str__ = __repr__

    def _repr_html_(self) -> str:
        from lodestar_polars._report.html import report_fragment

        return report_fragment(self)
