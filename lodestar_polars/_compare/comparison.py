"""``lp.Comparison``, the result of ``lp.compare``: its two tables and their rendering.

:func:`baseline_table` and :func:`pair_table` build ``Comparison.table`` and
``Comparison.pairs`` from the tests' arrays; the class writes them as Markdown
(:meth:`Comparison.to_markdown`, also its ``print`` and notebook forms) and LaTeX
(:meth:`Comparison.to_latex`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import polars as pl

from lodestar_polars._compare.inputs import fail
from lodestar_polars._compare.paired import Correction, adjust
from lodestar_polars._registry import Direction

_SUPERSCRIPT = dict(zip("abcdefghijklmnopqrstuvwxyz", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖᑫʳˢᵗᵘᵛʷˣʸᶻ", strict=True))

Array = npt.NDArray[np.float64]


def _letters(k: int) -> list[str]:
    letters = list("abcdefghijklmnopqrstuvwxyz")
    if k > len(letters):
        msg = f"the report labels at most {len(letters)} runs with letters; got {k}."
        raise fail(msg)
    return letters[:k]


@dataclass(frozen=True, eq=False)
class Comparison:
    """The result of :func:`lodestar_polars.compare`.

    Attributes
    ----------
    table : polars.DataFrame
        One row per run and metric: ``run``, ``metric``, ``mean``, ``difference`` (run minus
        baseline), ``ci_low``, ``ci_high``, ``p_value``, ``significant``.
    pairs : polars.DataFrame
        Every ordered pair of runs: ``run``, ``other``, ``metric``, ``difference``,
        ``p_value``, ``p_adjusted``, ``better`` (``run`` significantly better than ``other``;
        null for a metric whose direction is unknown), ``wins``, ``ties``, ``losses`` (the
        queries where ``run`` is better than ``other``, equal, worse, in the metric's
        direction; wins and losses null where it is unknown). The source of the report's
        superscripts and its wins/ties/losses table.
    baseline, test, correction, alpha, n_queries
        The options the comparison ran with and the number of queries compared.
    directions : mapping of str to "higher", "lower" or None
        Each metric's direction (larger values better, or smaller): the user's
        ``lower_is_better`` / ``higher_is_better``, else the metric registry's; None
        where neither knows it.
    n_resamples : int or None
        The resamples (random sign patterns) the p-values come from: the bootstrap's, and
        the Fisher test's above 20 queries; None for Student's test and the exact Fisher test.

    ``print(comparison)`` prints the report (:meth:`to_markdown`), and a notebook renders
    it as a Markdown table.
    """

    table: pl.DataFrame
    pairs: pl.DataFrame
    baseline: str
    test: str
    correction: str | None
    alpha: float
    n_queries: int
    directions: Mapping[str, Direction | None] = field(default_factory=dict)
    n_resamples: int | None = None

    def __repr__(self) -> str:
        """A line saying what this is, then the report (:meth:`to_markdown`)."""
        runs = self.table["run"].n_unique()
        head = (
            f"<lp.Comparison of {runs} runs against {self.baseline!r} over {self.n_queries} "
            "queries; the numbers in .table and .pairs>"
        )
        return head + "\n" + self.to_markdown()

    def __str__(self) -> str:
        """The report, as :meth:`to_markdown` writes it (ranx's ``Report`` prints its table)."""
        return self.to_markdown()

    def _repr_markdown_(self) -> str:
        """A notebook shows the report as a rendered Markdown table."""
        return self.to_markdown()

    def _cells(
        self,
        digits: int,
        sup: Callable[[str], str],
        bold: Callable[[str], str] | None = None,
    ) -> tuple[list[str], list[list[str]]]:
        """The report's rows: letter, run, then each metric's mean with its superscripts.

        With ``bold``, the best mean of each metric with a direction (as printed: every run
        that prints the best value) goes through ``bold``.
        """
        runs = self.table["run"].unique(maintain_order=True).to_list()
        metrics = self.table["metric"].unique(maintain_order=True).to_list()
        label = dict(zip(runs, _letters(len(runs)), strict=True))
        better = self.pairs.filter(pl.col("better"))
        beaten: dict[tuple[str, str], str] = {}
        for r, other, m in better.select("run", "other", "metric").iter_rows():
            beaten[(r, m)] = beaten.get((r, m), "") + label[other]
        means = {(r, m): v for r, m, v in self.table.select("run", "metric", "mean").iter_rows()}
        best: dict[str, str] = {}
        for m in metrics:
            way = self.directions.get(m)
            if bold is not None and way is not None:
                pick = max if way == "higher" else min
                best[m] = f"{pick(means[(r, m)] for r in runs):.{digits}f}"
        rows = []
        for r in runs:
            cells = [label[r], r]
            for m in metrics:
                marks = "".join(sorted(beaten.get((r, m), "")))
                value = f"{means[(r, m)]:.{digits}f}"
                if bold is not None and best.get(m) == value:
                    value = bold(value)
                cells.append(value + (sup(marks) if marks else ""))
            rows.append(cells)
        return metrics, rows

    def _win_tie_loss(self) -> tuple[list[str], list[tuple[str, list[str]]]]:
        """Each other run's wins/ties/losses against the baseline, per metric, as cells.

        ``W/T/L``: the queries where the run is better than the baseline, equal, worse,
        in the metric's direction; ``–/T/–`` where the direction is unknown.
        """
        metrics = self.table["metric"].unique(maintain_order=True).to_list()
        runs = [r for r in self.table["run"].unique(maintain_order=True) if r != self.baseline]
        against = self.pairs.filter(pl.col("other") == self.baseline)
        cell = {
            (r, m): f"{'–' if w is None else w}/{t}/{'–' if lo is None else lo}"
            for r, m, w, t, lo in against.select(
                "run", "metric", "wins", "ties", "losses"
            ).iter_rows()
        }
        return metrics, [(r, [cell[(r, m)] for m in metrics]) for r in runs]

    def _legend(self) -> str:
        corr = "no correction" if self.correction is None else f"{self.correction} correction"
        if self.test == "tukey":
            corr = "family-wise by Tukey's studentized range"
        return (
            f"Superscripts: significantly better than the runs with those letters "
            f"({self.test} test, two-sided, alpha={self.alpha}, {corr} over the pairs of runs "
            f"per metric; {self.n_queries} queries)."
        )

    def _undirected(self) -> str:
        """The note on the metrics without a direction (no superscripts); empty if none."""
        metrics = self.table["metric"].unique(maintain_order=True).to_list()
        unknown = [m for m in metrics if self.directions.get(m) is None]
        if not unknown:
            return ""
        names = ", ".join(repr(m) for m in unknown)
        return (
            f"No superscripts on {names}: whether higher or lower is better is not known "
            "(name it in compare's higher_is_better= or lower_is_better=)."
        )

    def to_markdown(self, *, digits: int = 4, win_tie_loss: bool = True) -> str:
        """The means as a Markdown table, ranx-style superscripts marking significance.

        Each cell carries the letters of the runs it is significantly better than. With
        ``win_tie_loss`` (the default), a second table gives each other run's wins, ties
        and losses against the baseline over the queries, in each metric's direction.
        """
        metrics, rows = self._cells(digits, lambda s: "".join(_SUPERSCRIPT[c] for c in s))
        lines = [
            "| # | run | " + " | ".join(metrics) + " |",
            "|---|---|" + "---:|" * len(metrics),
            *("| " + " | ".join(r) + " |" for r in rows),
        ]
        if win_tie_loss:
            _, counted = self._win_tie_loss()
            lines += [
                "",
                f"Wins/ties/losses against {self.baseline} (queries where the run is better, "
                "equal, worse in the metric's direction):",
                "",
                "| run | " + " | ".join(metrics) + " |",
                "|---|" + "---:|" * len(metrics),
                *("| " + " | ".join([r, *cells]) + " |" for r, cells in counted),
            ]
        lines += [
            "",
            self._legend(),
        ]
        if note := self._undirected():
            lines.append(note)
        return "\n".join(lines)

    def _caption(self) -> str:
        """The LaTeX caption: the test, the correction, alpha, what the marks mean."""
        if self.test == "student":
            test = "Paired t-test"
        elif self.test == "wilcoxon":
            test = "Wilcoxon signed-rank test"
        elif self.test == "tukey":
            test = "Tukey's HSD test"
        elif self.test == "fisher":
            test = "Fisher's randomization (sign-flip) test, " + (
                f"exact over all $2^{{{self.n_queries}}}$ sign patterns"
                if self.n_resamples is None
                else f"{self.n_resamples:,} random sign patterns"
            )
        else:
            test = f"Paired bootstrap test, {self.n_resamples:,} resamples"
        corr = (
            "no correction"
            if self.correction is None
            else f"{self.correction.capitalize()}-corrected over the pairs of runs per metric"
        )
        if self.test == "tukey":
            corr = "family-wise over the pairs of runs per metric (the studentized range)"
        return (
            rf"{test}, two-sided, {corr}, $\alpha = {self.alpha}$; {self.n_queries} queries. "
            "Superscripts mark runs significantly better than the run of that letter; the "
            "best mean of each metric, in its direction, is in bold."
        )

    def to_latex(
        self,
        *,
        digits: int = 4,
        caption: bool | str = True,
        label: str | None = None,
        win_tie_loss: bool = True,
    ) -> str:
        r"""The means as a LaTeX table (booktabs), superscripts as ``$^{ab}$``, best in bold.

        Each metric's best mean, in the metric's direction (the lowest for a loss), is in
        bold, every run that prints it when several do; a metric of unknown direction has
        none in bold, and a note under the table says it has no superscripts either.

        Parameters
        ----------
        digits : int, default=4
            Decimals of the means.
        caption : bool or str, default=True
            True: a ``table`` float whose caption names the test, the correction and alpha
            ("Paired t-test, two-sided, Holm-corrected over the pairs of runs per metric,
            $\alpha = 0.05$; 8 queries. Superscripts mark ..."); a str: that caption, as
            LaTeX; False: the bare ``tabular``.
        label : str, default=None
            A ``\label`` for the table float.
        win_tie_loss : bool, default=True
            Rows under the means (after a ``\midrule``): each other run's wins, ties and
            losses against the baseline over the queries, ``W/T/L`` in each metric's
            direction (``–/T/–`` where it is unknown).
        """

        def esc(s: str) -> str:
            for a, b in (
                ("\\", r"\textbackslash{}"),
                ("_", r"\_"),
                ("&", r"\&"),
                ("%", r"\%"),
                ("#", r"\#"),
                ("$", r"\$"),
                ("{", r"\{"),
                ("}", r"\}"),
            ):
                s = s.replace(a, b)
            return s

        metrics, rows = self._cells(digits, lambda s: f"$^{{{s}}}$", lambda v: rf"\textbf{{{v}}}")
        lines = [
            r"\begin{tabular}{ll" + "r" * len(metrics) + "}",
            r"\toprule",
            r"\# & Run & " + " & ".join(esc(m) for m in metrics) + r" \\",
            r"\midrule",
            *(" & ".join([r[0], esc(r[1]), *r[2:]]) + r" \\" for r in rows),
        ]
        if win_tie_loss:
            _, counted = self._win_tie_loss()
            lines.append(r"\midrule")
            lines += [
                " & ".join(["", rf"{esc(r)}: W/T/L vs.\ {esc(self.baseline)}", *cells]) + r" \\"
                for r, cells in counted
            ]
        lines.append(r"\bottomrule")
        if note := self._undirected():
            width = 2 + len(metrics)
            lines.append(rf"\multicolumn{{{width}}}{{l}}{{\footnotesize {esc(note)}}} \\")
        lines.append(r"\end{tabular}")
        if caption is False:
            return "\n".join(lines)
        text = self._caption() if caption is True else str(caption)
        head = [r"\begin{table}[ht]", r"\centering", rf"\caption{{{text}}}"]
        if label is not None:
            head.append(rf"\label{{{label}}}")
        return "\n".join([*head, *lines, r"\end{table}"])


def baseline_table(
    runs: list[str],
    names: list[str],
    means: Array,
    pairs: list[tuple[int, int]],
    tested: tuple[Array, Array, Array, Array],
    correction: Correction | None,
    alpha: float,
) -> pl.DataFrame:
    """``Comparison.table``: each run against the baseline (``runs[0]``), per metric."""
    mean_diff, p, low, high = tested
    k, n_metrics = means.shape
    # Pairs (0, j) are "baseline minus run j": flip them to "run j minus baseline".
    base_rows = [pairs.index((0, j)) for j in range(1, k)]
    table_rows: list[tuple[object, ...]] = []
    adjusted_base = np.stack(
        [adjust(p[base_rows, m], correction) for m in range(n_metrics)], axis=1
    )
    for r in range(k):
        for m in range(n_metrics):
            if r == 0:
                table_rows.append((runs[0], names[m], means[0, m], 0.0, None, None, None, False))
                continue
            row = base_rows[r - 1]
            table_rows.append(
                (
                    runs[r],
                    names[m],
                    float(means[r, m]),
                    float(-mean_diff[row, m]),
                    float(-high[row, m]),
                    float(-low[row, m]),
                    float(p[row, m]),
                    bool(adjusted_base[r - 1, m] <= alpha),
                )
            )
    return pl.DataFrame(
        table_rows,
        schema={
            "run": pl.String,
            "metric": pl.String,
            "mean": pl.Float64,
            "difference": pl.Float64,
            "ci_low": pl.Float64,
            "ci_high": pl.Float64,
            "p_value": pl.Float64,
            "significant": pl.Boolean,
        },
        orient="row",
    )


def pair_table(
    runs: list[str],
    names: list[str],
    pairs: list[tuple[int, int]],
    mean_diff: Array,
    p: Array,
    correction: Correction | None,
    alpha: float,
    directions: Mapping[str, Direction | None],
    counts: tuple[npt.NDArray[np.int64], ...],
) -> pl.DataFrame:
    """``Comparison.pairs``: every ordered pair of runs, per metric, corrected over pairs.

    With each pair's wins, ties and losses over the queries in the metric's direction
    (wins and losses null where the direction is unknown).
    """
    n_metrics = len(names)
    adjusted_all = np.stack([adjust(p[:, m], correction) for m in range(n_metrics)], axis=1)
    pair_rows: list[tuple[object, ...]] = []
    above, equal, below = counts
    for idx, (i, j) in enumerate(pairs):
        for m in range(n_metrics):
            up, tie, down = int(above[idx, m]), int(equal[idx, m]), int(below[idx, m])
            delta = float(mean_diff[idx, m])
            sig = bool(adjusted_all[idx, m] <= alpha)
            way = directions[names[m]]
            pv, pa = float(p[idx, m]), float(adjusted_all[idx, m])
            i_better: bool | None = None  # unknown direction: a difference, not a win
            j_better: bool | None = None
            if way is not None:
                gain = delta if way == "higher" else -delta  # i's gain over j
                i_better, j_better = sig and gain > 0, sig and gain < 0
            i_wins: int | None = None
            i_losses: int | None = None
            if way is not None:
                i_wins, i_losses = (up, down) if way == "higher" else (down, up)
            pair_rows.append(
                (runs[i], runs[j], names[m], delta, pv, pa, i_better, i_wins, tie, i_losses)
            )
            pair_rows.append(
                (runs[j], runs[i], names[m], -delta, pv, pa, j_better, i_losses, tie, i_wins)
            )
    return pl.DataFrame(
        pair_rows,
        schema={
            "run": pl.String,
            "other": pl.String,
            "metric": pl.String,
            "difference": pl.Float64,
            "p_value": pl.Float64,
            "p_adjusted": pl.Float64,
            "better": pl.Boolean,
            "wins": pl.Int64,
            "ties": pl.Int64,
            "losses": pl.Int64,
        },
        orient="row",
    )
