"""``lp.compare``: paired significance tests between runs over their per-query values.

Five tests, each vectorised over every (pair of runs, metric) at once and, for the
resampling tests, over blocks of resamples (no Python loop per resample):

- ``"student"``: the paired t-test, ``scipy.stats.ttest_rel``, with its t interval. The t
  distribution comes from :mod:`lodestar_polars._compare.stats` (NumPy only).
- ``"fisher"``: the randomization (sign-flip) test on the mean difference,
  ``scipy.stats.permutation_test(..., permutation_type="samples")``. Exact, over all
  ``2**n`` sign patterns, when ``n <= EXACT_MAX``; otherwise ``n_resamples`` random
  patterns drawn from ``seed``. Its interval is Student's (a randomization test has none).
- ``"bootstrap"``: the paired bootstrap of the mean difference; the interval is the
  percentile interval of ``scipy.stats.bootstrap(..., method="percentile")`` and the
  p-value the share of the bootstrap means, centred on the observed mean, at least as
  far from 0 as the observed mean (Efron and Tibshirani's shifted test). Its draws and
  count matrices are :mod:`lodestar_polars._core.bootstrap`, shared with the report.
- ``"wilcoxon"``: Wilcoxon's signed-rank test, ``scipy.stats.wilcoxon`` with its defaults
  (:mod:`lodestar_polars._compare.wilcoxon`); its interval is Student's.
- ``"tukey"``: Tukey's HSD over all the runs of a metric, ``scipy.stats.tukey_hsd`` as
  ranx calls it (:mod:`lodestar_polars._compare.tukey`): family-wise already, so no correction on
  top; its interval is ``tukey_hsd``'s.

Each pair also counts its wins, ties and losses over the queries (:func:`win_tie_loss`).

A resampled mean within :func:`tolerance` of the observed one ties with it (scaled to the
values, not to the differences: scipy's tolerance misses such ties). Which run is better
on a metric is the metric's direction (:func:`lodestar_polars._registry.direction`, or
the user's ``lower_is_better`` / ``higher_is_better``); on a metric of unknown direction
no run is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.progress import ProgressBar, check_progress, progress_callback
from lodestar_polars._base.validation import check_columns, check_int, check_open_interval
from lodestar_polars._compare.comparison import Comparison, baseline_table, pair_table
from lodestar_polars._compare.inputs import Frame, Missing, collect
from lodestar_polars._compare.paired import EXACT_MAX, Correction, Test, run_tests, win_tie_loss
from lodestar_polars._evaluate.evaluate import Progress
from lodestar_polars._registry import Direction, direction
from lodestar_polars.exceptions import InvalidParameterError

_TESTS = ("bootstrap", "fisher", "student", "tukey", "wilcoxon")
_CORRECTIONS = ("bonferroni", "holm", None)
_MISSING = ("intersect", "raise")


def _check_option(value: object, name: str, allowed: Sequence[object]) -> None:
    if value not in allowed:
        shown = sorted((a for a in allowed if a is not None), key=str)
        extra = " or None" if None in allowed else ""
        msg = (
            f"The {name!r} parameter of compare must be one of {shown}{extra}. "
            f"Got {value!r} instead."
        )
        raise InvalidParameterError(msg)


def _metric_names(value: object, name: str, what: str = "metric column names") -> list[str]:
    """An option naming columns: a column name or a sequence of them."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return list(value)
    msg = (
        f"The {name!r} parameter of compare must be a str or a sequence of str ({what}). "
        f"Got {value!r} instead."
    )
    raise InvalidParameterError(msg)


def _directions(
    metrics: Sequence[str], lower: Sequence[str], higher: Sequence[str]
) -> dict[str, Direction | None]:
    """Each metric's direction: the user's lists (exact names), else the registry's."""
    for option, names in (("lower_is_better", lower), ("higher_is_better", higher)):
        for m in names:
            if m not in metrics:
                msg = (
                    f"The {option!r} parameter of compare names {m!r}, which is not a "
                    f"compared metric (the metrics are {list(metrics)}; names match exactly)."
                )
                raise InvalidParameterError(msg)
    out: dict[str, Direction | None] = {}
    for m in metrics:
        out[m] = "lower" if m in lower else "higher" if m in higher else direction(m)
    return out


@renamed(query="by")
def compare(
    per_query: Frame | Mapping[str, Frame],
    *,
    baseline: str,
    metrics: str | Sequence[str] | None = None,
    test: Test = "student",
    correction: Correction | None = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int | None = 0,
    run: str = "run",
    by: str | pl.Expr | Sequence[str | pl.Expr] | None = None,
    missing: Missing = "raise",
    lower_is_better: str | Sequence[str] = (),
    higher_is_better: str | Sequence[str] = (),
    progress: bool | Callable[[Progress], None] | None = None,
) -> Comparison:
    """Paired significance tests of several runs against a baseline, over per-query values.

    Parameters
    ----------
    per_query : polars.DataFrame, LazyFrame, or mapping of str to one
        Per-query metric values of several runs: a frame with a ``run`` column, or a mapping
        run name -> frame. Each frame is ``lp.evaluate``'s output (query column(s), one
        column per metric) or ``lp.trec.evaluate(..., per_query=True)``'s, long (``qid``,
        ``measure``, ``value``) or ``wide=True``; its ``all`` rows are left out.
    baseline : str
        The run every other run is compared with.
    metrics : str or sequence of str, default=None
        The metric columns (measures) to compare; by default every numeric column that is
        not a query or run column.
    test : {"student", "fisher", "bootstrap", "wilcoxon", "tukey"}, default="student"
        Paired t-test; randomization (sign-flip) test, exact up to 20 queries; paired
        bootstrap; Wilcoxon's signed-rank test (``scipy.stats.wilcoxon``'s defaults);
        Tukey's HSD over all the runs (ranx's ``"tukey"``, ``scipy.stats.tukey_hsd``:
        the runs as unpaired groups, family-wise over the pairs, so ``correction`` is not
        applied on top and ``Comparison.correction`` is None).
    correction : {"holm", "bonferroni"} or None, default="holm"
        Family-wise correction, per metric, over the comparisons with the baseline (for
        ``table``) and over all pairs of runs (for ``pairs`` and the report).
    alpha : float, default=0.05
        Significance level; the confidence intervals are ``1 - alpha`` (uncorrected).
    n_resamples : int, default=10_000
        Resamples of the bootstrap and of the Fisher test above 20 queries.
    seed : int or None, default=0
        Seed of ``numpy.random.default_rng`` for the resampling tests.
    run : str, default="run"
        The run column of a single frame.
    by : str, polars.Expr or sequence of them, default=None
        The column(s) identifying a query, as names or expressions (an expression's
        output name names its column): by default ``qid`` or else ``query``. Called
        ``query`` before 0.2.0 (the old name warns until 0.3.0).
    missing : {"raise", "intersect"}, default="raise"
        Queries that some runs lack: ``"raise"`` refuses, naming the run, the count and
        examples; ``"intersect"`` compares on the queries every run has.
    lower_is_better : str or sequence of str, default=()
        Metric columns where lower is better, named exactly as written (``"recall@100"``
        names that column and no other). A metric's direction otherwise comes from the
        metric registry (:func:`lodestar_polars._registry.direction`): the losses and
        errors (``log_loss``, ``brier``, ``brier_score_loss``, ``coverage_error``,
        ``label_ranking_loss``, ``ece``) are lower-is-better, every other metric
        ``lp.evaluate``, ``lp.trec.evaluate`` or trec_eval writes higher-is-better, and a
        count (``num_ret``) or an unknown column has no direction.
    higher_is_better : str or sequence of str, default=()
        Metric columns where higher is better, for columns the registry does not know.
        A metric of unknown direction that neither list names is compared (p-value,
        interval, ``significant``) but no run is called better on it: ``better`` is null
        in ``.pairs`` and the report puts no superscript on it, and says so.
    progress : bool or callable, default=None
        For the resampling tests (the bootstrap, and the Fisher test above 20 queries):
        ``True`` shows resamples done, resamples a second and the time left, on one line
        rewritten on stderr in a terminal or an updated output in a Jupyter notebook, and
        nothing anywhere else.  A callable is called with a
        :class:`lodestar_polars.Progress` after each block of resamples instead
        (``rows_done``: the resamples drawn so far, ``groups_in_part``: 0).  ``None`` or
        ``False``: nothing.  Student's, the exact Fisher, Wilcoxon's and Tukey's tests draw
        nothing and show nothing.

    Returns
    -------
    Comparison
        ``.table``: a polars.DataFrame, one row per run and metric (the baseline's first),
        columns ``run`` (str), ``metric`` (str), ``mean``, ``difference`` (run minus
        baseline), ``ci_low``, ``ci_high``, ``p_value`` (f64; null on the baseline's rows)
        and ``significant`` (bool, after correction); ``.pairs`` all pairs of runs, with
        each pair's ``wins``, ``ties`` and ``losses`` over the queries;
        ``.to_markdown()`` and ``.to_latex()`` the report; ``print(result)`` prints the
        Markdown report.

    Raises
    ------
    InvalidParameterError
        An option outside its domain (a ``ValueError``): an unknown ``test``, ``alpha``
        outside (0, 1), a ``seed`` that is not None or an int >= 0, a ``by`` that is not
        a name or expression (or a sequence of them), a metric named in both
        ``lower_is_better`` and ``higher_is_better`` or in either but not compared.
    ValueError
        Runs with different query sets (with ``missing="raise"``), a metric missing in one
        run, a null, NaN or infinite value, fewer than 2 queries or runs, a query listed
        twice.

    Notes
    -----
    ``student`` equals ``scipy.stats.ttest_rel`` (p-value and ``confidence_interval``);
    ``fisher`` equals ``scipy.stats.permutation_test`` with ``permutation_type="samples"``
    and the mean difference as statistic (exact up to 20 queries, Monte Carlo beyond,
    ``(count + 1) / (n_resamples + 1)``), its interval Student's; ``bootstrap``'s interval
    is ``scipy.stats.bootstrap``'s percentile interval on the same resamples;
    ``wilcoxon`` equals ``scipy.stats.wilcoxon(run, baseline)`` (exact up to 50 queries
    without ties or zeros, every sign pattern up to 13 with them, else the normal
    approximation), its interval Student's; ``tukey`` equals ``scipy.stats.tukey_hsd`` and
    its ``confidence_interval``. Two identical runs get p = 1 (scipy: NaN).

    A resampled mean counts as tied with the observed one (as extreme) when the two
    differ by at most ``256 * eps * mean(|run_i| + |baseline_i|)``: the rounding of the
    differences is at the size of the values, not of the differences. scipy's tolerance,
    ``100 * eps * |observed|``, misses such ties when the differences are small next to
    the values, and there its p-value is smaller (docs/compare.md, "Ties and rounding").

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "run": ["bm25"] * 4 + ["dense"] * 4,
    ...         "query": ["q1", "q2", "q3", "q4"] * 2,
    ...         "ndcg@10": [0.2, 0.4, 0.1, 0.5, 0.5, 0.6, 0.4, 0.7],
    ...     }
    ... )
    >>> result = lp.compare(per_query, baseline="bm25", test="fisher")
    >>> result.table.select("run", "mean", "difference", "p_value")
    shape: (2, 4)
    ┌───────┬──────┬────────────┬─────────┐
    │ run   ┆ mean ┆ difference ┆ p_value │
    │ ---   ┆ ---  ┆ ---        ┆ ---     │
    │ str   ┆ f64  ┆ f64        ┆ f64     │
    ╞═══════╪══════╪════════════╪═════════╡
    │ bm25  ┆ 0.3  ┆ 0.0        ┆ null    │
    │ dense ┆ 0.55 ┆ 0.25       ┆ 0.125   │
    └───────┴──────┴────────────┴─────────┘
    """
    alpha, n_resamples, seed = _check_options(
        test, correction, missing, alpha, n_resamples, seed, baseline=baseline, run=run
    )
    check_progress(progress, "compare")
    metric_list = None if metrics is None else _metric_names(metrics, "metrics")
    by_exprs = None if by is None else check_columns(by, "by", "compare")
    lower, higher = _direction_lists(lower_is_better, higher_is_better)
    data = collect(
        per_query,
        run=run,
        by=by_exprs,
        metrics=metric_list,
        baseline=baseline,
        missing=missing,
    )
    names, values = data.metrics, data.values
    directions = _directions(names, lower, higher)
    k = len(data.runs)
    # Put the baseline first; every ordered pair (i, j), i < j, of that order is compared.
    order = [data.runs.index(baseline)] + [i for i in range(k) if data.runs[i] != baseline]
    runs = [data.runs[i] for i in order]
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    tick = progress_callback(progress, step="block")
    if isinstance(tick, ProgressBar):
        tick.what = "resamples"
    try:
        mean_diff, p, low, high = run_tests(
            values, order, pairs, test=test, alpha=alpha, n_resamples=n_resamples, seed=seed,
            progress=tick,
        )  # fmt: skip
    finally:
        if isinstance(tick, ProgressBar):
            tick.close()
    means = values.mean(axis=2)[order]  # (runs, metrics)
    # Tukey's p-values are family-wise over the pairs already: no correction on top.
    applied = None if test == "tukey" else correction
    table = baseline_table(runs, names, means, pairs, (mean_diff, p, low, high), applied, alpha)
    counts = win_tie_loss(values, order, pairs)
    pair_frame = pair_table(runs, names, pairs, mean_diff, p, applied, alpha, directions, counts)
    n = values.shape[2]
    resampled = test == "bootstrap" or (test == "fisher" and n > EXACT_MAX)
    return Comparison(
        table,
        pair_frame,
        baseline,
        test,
        applied,
        float(alpha),
        n,
        directions,
        n_resamples if resampled else None,
    )


def _check_options(
    test: object,
    correction: object,
    missing: object,
    alpha: object,
    n_resamples: object,
    seed: object,
    *,
    baseline: object,
    run: object,
) -> tuple[float, int, int | None]:
    """Every option in its domain before any data is read: (alpha, n_resamples, seed)."""
    _check_option(test, "test", _TESTS)
    _check_option(correction, "correction", _CORRECTIONS)
    _check_option(missing, "missing", _MISSING)
    alpha_ = check_open_interval(alpha, "alpha", "compare", 0, 1)
    resamples = check_int(n_resamples, "n_resamples", "compare", allow_none=False)
    assert resamples is not None  # allow_none=False
    seed_ = check_int(seed, "seed", "compare", low=0)  # for every test: one rule, one sentence
    for option, value in (("baseline", baseline), ("run", run)):
        if not isinstance(value, str):
            msg = (
                f"The {option!r} parameter of compare must be a str (a run name or column). "
                f"Got {value!r} instead."
            )
            raise InvalidParameterError(msg)
    return alpha_, resamples, seed_


def _direction_lists(
    lower_is_better: object, higher_is_better: object
) -> tuple[list[str], list[str]]:
    """The user's lower- and higher-is-better metrics; none in both."""
    lower = _metric_names(lower_is_better, "lower_is_better")
    higher = _metric_names(higher_is_better, "higher_is_better")
    both = [m for m in lower if m in higher]
    if both:
        msg = (
            f"The 'lower_is_better' and 'higher_is_better' parameters of compare both name "
            f"{both[0]!r}: a metric improves one way."
        )
        raise InvalidParameterError(msg)
    return lower, higher
