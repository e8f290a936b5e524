"""``lp.evaluate``: many metrics, one row per group, with bad groups named.

The public function: its options checked, the metric names parsed and the roles resolved
(:mod:`lodestar_polars._evaluate.roles`), then the path for the input taken. An in-memory frame
is scored whole (:mod:`lodestar_polars._evaluate.frame`: a single group-by for the refusal
rules, one sort, every metric's NumPy core over the sorted columns, segment by segment). A frame
of more than ``_PART_ROWS`` rows is evaluated in parts of whole groups, and a ``LazyFrame`` is
read once, in parts of whole groups (:mod:`lodestar_polars._evaluate.parted`: streamed when its
groups are contiguous runs, partitioned into temporary files by a hash of the keys otherwise), so
that memory stays bounded.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, overload

import polars as pl

from lodestar_polars._base.arrow import from_arrow
from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.progress import ProgressBar
from lodestar_polars._base.validation import check_bool, check_int, check_option
from lodestar_polars._evaluate.inputs import check_input_columns, check_inputs_read
from lodestar_polars._evaluate.parted import Progress, _evaluate_lazy, _evaluate_parted, _source
from lodestar_polars._evaluate.partition import (
    LAYOUTS,
    Layout,
    check_temp_dir,
)
from lodestar_polars._evaluate.roles import (
    _as_columns,
    _check_columns,
    _check_output_names,
    _parse,
    _Roles,
)
from lodestar_polars._metrics.ties import TIES, TieRule
from lodestar_polars._registry import (
    REGISTRY,
    metric_names,
)
from lodestar_polars.exceptions import InvalidParameterError

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.dataset as pads

__all__ = ["Progress", "evaluate", "mean_of_groups", "metric_names"]


def mean_of_groups(result: pl.DataFrame, names: Sequence[str], weight: str | None) -> pl.DataFrame:
    """One row: each metric's mean over its scored (non-null) groups, weighted by ``weight``.

    The weighted mean is ``sum(v * w) / sum(w)``, NumPy's ``np.average``, which
    is how scikit-learn averages per-sample values with ``sample_weight``.
    """
    if weight is None:
        return result.select(pl.col(name).mean() for name in names)
    w = pl.col(weight).cast(pl.Float64)
    totals = result.select(w.filter(pl.col(name).is_not_null()).sum().alias(name) for name in names)
    for name in names:
        if totals[name].item() == 0:
            msg = f"metric {name!r}: Weights sum to zero, can't be normalized"
            raise ZeroDivisionError(msg)
    return result.select(
        ((pl.col(name) * w).sum() / totals[name].item()).alias(name) for name in names
    )


@overload
def evaluate(
    frame: pl.DataFrame,
    metrics: Sequence[str],
    *,
    by: str | pl.Expr | Sequence[str | pl.Expr],
    y_true: str | pl.Expr,
    y_score: str | pl.Expr,
    weight: str | pl.Expr | None = ...,
    ties: TieRule = ...,
    item: str | pl.Expr | None = ...,
    n_relevant: str | pl.Expr | None = ...,
    judged: str | pl.Expr | None = ...,
    popularity: str | pl.Expr | None = ...,
    feature: str | pl.Expr | None = ...,
    popularity_rank: str | pl.Expr | None = ...,
    n_items: int | None = ...,
    strict: bool = ...,
    mean: bool = ...,
    batch_rows: int | None = ...,
    progress: bool | Callable[[Progress], None] | None = ...,
    layout: Layout = ...,
    temp_dir: str | os.PathLike[str] | None = ...,
) -> pl.DataFrame: ...


@overload
def evaluate(
    frame: pa.Table | pa.RecordBatch | pa.RecordBatchReader | pads.Dataset,
    metrics: Sequence[str],
    *,
    by: str | pl.Expr | Sequence[str | pl.Expr],
    y_true: str | pl.Expr,
    y_score: str | pl.Expr,
    weight: str | pl.Expr | None = ...,
    ties: TieRule = ...,
    item: str | pl.Expr | None = ...,
    n_relevant: str | pl.Expr | None = ...,
    judged: str | pl.Expr | None = ...,
    popularity: str | pl.Expr | None = ...,
    feature: str | pl.Expr | None = ...,
    popularity_rank: str | pl.Expr | None = ...,
    n_items: int | None = ...,
    strict: bool = ...,
    mean: bool = ...,
    batch_rows: int | None = ...,
    progress: bool | Callable[[Progress], None] | None = ...,
    layout: Layout = ...,
    temp_dir: str | os.PathLike[str] | None = ...,
) -> pa.Table: ...


@overload
def evaluate(
    frame: pl.LazyFrame,
    metrics: Sequence[str],
    *,
    by: str | pl.Expr | Sequence[str | pl.Expr],
    y_true: str | pl.Expr,
    y_score: str | pl.Expr,
    weight: str | pl.Expr | None = ...,
    ties: TieRule = ...,
    item: str | pl.Expr | None = ...,
    n_relevant: str | pl.Expr | None = ...,
    judged: str | pl.Expr | None = ...,
    popularity: str | pl.Expr | None = ...,
    feature: str | pl.Expr | None = ...,
    popularity_rank: str | pl.Expr | None = ...,
    n_items: int | None = ...,
    strict: bool = ...,
    mean: bool = ...,
    batch_rows: int | None = ...,
    progress: bool | Callable[[Progress], None] | None = ...,
    layout: Layout = ...,
    temp_dir: str | os.PathLike[str] | None = ...,
) -> pl.LazyFrame: ...


@renamed(doc_id="item")
def evaluate(
    frame: pl.DataFrame
    | pl.LazyFrame
    | pa.Table
    | pa.RecordBatch
    | pa.RecordBatchReader
    | pads.Dataset,
    metrics: Sequence[str],
    *,
    by: str | pl.Expr | Sequence[str | pl.Expr],
    y_true: str | pl.Expr,
    y_score: str | pl.Expr,
    weight: str | pl.Expr | None = None,
    ties: TieRule = "average",
    item: str | pl.Expr | None = None,
    n_relevant: str | pl.Expr | None = None,
    judged: str | pl.Expr | None = None,
    popularity: str | pl.Expr | None = None,
    feature: str | pl.Expr | None = None,
    popularity_rank: str | pl.Expr | None = None,
    n_items: int | None = None,
    strict: bool = True,
    mean: bool = False,
    batch_rows: int | None = None,
    progress: bool | Callable[[Progress], None] | None = None,
    layout: Layout = "auto",
    temp_dir: str | os.PathLike[str] | None = None,
) -> pl.DataFrame | pl.LazyFrame | pa.Table:
    """Evaluate several metrics per group of a long frame.

    Parameters
    ----------
    frame
        A long frame: one row per (group, item).  A ``DataFrame`` gives a
        ``DataFrame``; a ``LazyFrame`` gives a ``LazyFrame``.  Arrow data is
        read without a copy and gives a ``pyarrow.Table``: a ``Table`` or
        ``RecordBatch``; a ``pyarrow.dataset.Dataset`` (a Parquet directory),
        read in parts as a ``LazyFrame`` is; a ``RecordBatchReader``, read
        once, whole.
    metrics
        Metric names, each optionally with a cutoff after ``@``:
        ``"dcg"``, ``"ndcg"``, ``"reciprocal_rank"`` (``"rr"``, ``"mrr"``),
        ``"average_precision"`` (``"ap"``), ``"top_k_accuracy"``,
        ``"coverage_error"``, ``"label_ranking_loss"``,
        ``"label_ranking_average_precision"`` (``"lrap"``), ``"precision"``,
        ``"recall"``, ``"hit_rate@k"``, ``"r_precision"``,
        ``"average_precision_at_k"`` (``"map"``), ``"dcg_burges"``,
        ``"ndcg_burges"``, and the names of trec_eval, ranx and ir_measures as
        they write them (``"P.10"``, ``"nDCG@10"``, ``"map_cut.100"``,
        ``"AP@100"``, ``"Rprec"``, ``"success.5"``, ...), and the
        beyond-accuracy measures of served lists with their inputs
        (``"novelty@10"``, ``"arp@10"``, ``"ild@10"``, ``"serendipity@10"``:
        ``popularity=``, ``feature=``, ``popularity_rank=``, ``n_items=``); e.g.
        ``["ndcg@10", "rr@10", "ap"]``.  Each becomes a column of that name.
        The IR names see the rows as the whole truth, ties averaged
        (scikit-learn's view), not trec_eval's qrels denominators or tie
        order: for those, :func:`lodestar_polars.trec.evaluate`.
    by
        The column(s) that identify a group (a query, a sample): names or
        Polars expressions (an expression's output name names its column).
    y_true, y_score
        The relevance (or truth) and score columns, as names or expressions
        (``pl.col("rel") >= 2``).
    weight : str or polars.Expr, default=None
        A per-group weight column (one value per group), carried into the
        result and used by ``mean=True``, as scikit-learn's ``sample_weight``.
    ties : {'average', 'trec_eval', 'input'}, default='average'
        The rule for equal scores: averaged over every ordering
        (scikit-learn's), trec_eval's order (score, then ``item``
        descending) or row order.  Only metrics that take ``ties=`` accept
        another rule.
    item : str or polars.Expr, default=None
        The id of the ranked item (a document): trec_eval's tie-break,
        read by ``ties='trec_eval'``.  Called ``doc_id`` before 0.2.0 (the
        old name warns until 0.3.0).
    n_relevant : str or polars.Expr, default=None
        Per group, the judged relevant documents, retrieved or not: the
        denominator of ``recall``, ``r_precision``,
        ``average_precision_at_k``, ``bpref``, ``inferred_average_precision``
        and ``interpolated_precision``, as in trec_eval.
    judged : str or polars.Expr, default=None
        A list column, per group the relevance of every judged document,
        retrieved or not: the ideal DCG of ``ndcg`` (and ``ndcg_burges``), as
        in trec_eval and ir_measures, and the judged irrelevant count of
        ``bpref`` (its relevances equal to 0).
    popularity, feature, popularity_rank : str or polars.Expr, default=None
        Per row, the served item's training popularity (``novelty``: a share
        of users in (0, 1]; ``average_recommended_popularity``), its category
        or embedding (``intra_list_diversity``: a list or array column of
        floats; a list's length is written in the name, ``ild(dim=4)@10``) and
        its dense popularity rank (``serendipity``), as
        :func:`lodestar_polars.item_popularity` gives them
        (docs/beyond-accuracy.md).  A metric that reads one refuses to run
        without it, and one given that no metric reads is refused.
    n_items : int, default=None
        The catalogue's size, read by ``serendipity``.
    strict : bool, default=True
        Raise :class:`RefusedGroupError` naming the groups a metric cannot
        score (and why, in scikit-learn's sentence where it has one).  With
        ``False`` those groups get null.
    mean : bool, default=False
        Return one row: each metric's mean over the groups (weighted by
        ``weight`` when given), which is scikit-learn's number on the same
        data.  Null (refused) groups are left out of the mean.
    batch_rows : int, default=None
        For a ``LazyFrame``: hold about this many rows in memory at once
        (default 5,000,000, about half a gigabyte).  A larger input is read
        once, in parts of whole groups (see ``layout``).  Ignored for a
        ``DataFrame``, which is in memory already.
    progress : bool or callable, default=None
        For a ``LazyFrame``: ``True`` shows rows done, rows a second and the
        time left while the parts are evaluated: one line rewritten on
        stderr in a terminal, an updated output in a Jupyter notebook, and
        nothing anywhere else (a pipe, a log file).  A callable is called
        with a :class:`Progress` after each part instead (the command line
        uses it).  ``None`` or ``False``: nothing.  Ignored for a
        ``DataFrame``, which is evaluated in one step.
    layout : {'auto', 'grouped', 'shuffled'}, default='auto'
        For a ``LazyFrame`` larger than ``batch_rows``: how its rows lie.
        ``'grouped'``: each group's rows are one contiguous run (a log sorted
        by ``by``); the input is streamed in parts cut between groups, with no
        hashing and nothing written, and a group found in two runs raises a
        ``ValueError``.  ``'shuffled'``: the input is partitioned once, by a
        hash of the ``by`` columns, into temporary files under ``temp_dir``,
        and each part read back from its own.  ``'auto'`` looks at the
        leading rows (about a million): grouped, it streams, and goes over to
        the partition if a later part is not; otherwise it partitions.
        Ignored for a ``DataFrame``.
    temp_dir : str or os.PathLike, default=None
        An existing directory for the temporary files of a shuffled
        ``LazyFrame`` (by default the system's, :func:`tempfile.gettempdir`):
        about the in-memory size of the columns read (17 bytes a row for an
        Int64 key, a Float64 score and an Int8 relevance), removed when the
        parts are read, also on an error.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        One row per group, sorted by the ``by`` columns: the ``by`` columns,
        the weight column if given, and one Float64 column per metric.  With
        ``mean=True``, one row of Float64 means.

    Raises
    ------
    InvalidParameterError
        An unknown metric name, or a cutoff on a metric that takes none; an
        option outside its domain (``ties``, ``strict``, ``layout``, ...); a
        column role (``by``, ``y_true``, ``item``, ...) that is not a name or
        an expression.
    ValueError
        A missing column, a non-numeric ``y_true``/``y_score``/``weight``, or
        a weight that varies within a group.
    RefusedGroupError
        With ``strict=True``, a group some metric refuses (raised when a lazy
        result is collected).
    ZeroDivisionError
        With ``mean=True`` and ``weight``, weights that sum to zero.

    Notes
    -----
    The whole frame is evaluated at once rather than group by group: one
    group-by evaluates the rules a group must pass and lists each group's row
    indices by score descending (row descending too only for
    ``top_k_accuracy``, the one metric that reads the order inside a tie);
    the two value columns are gathered in that order, and the NumPy core runs
    over the sorted columns, segment by segment (docs/decisions/0006).  The
    numbers equal the expressions' (within floating-point rounding); the rules
    and sentences are the expressions' own.  Metric names are read through
    the metric registry (docs/decisions/0009).  A frame of more than 2^21
    rows is evaluated in parts of whole groups, so that the ranked columns
    and temporaries are those of one part (docs/performance.md, "Memory of
    an in-memory frame"); the values are those of one call, bit for bit
    (the beyond-accuracy metrics to rounding: their ties sum extra inputs in
    row order).
    A ``LazyFrame`` is read once, streamed or partitioned (see ``layout``;
    docs/decisions/0017).

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> log = pl.DataFrame(
    ...     {
    ...         "query": ["q1", "q1", "q1", "q2", "q2", "q2"],
    ...         "rel": [3, 0, 1, 0, 0, 2],
    ...         "score": [0.9, 0.8, 0.1, 0.7, 0.7, 0.3],
    ...     }
    ... )
    >>> lp.evaluate(log, ["ndcg@2", "rr", "ap"], by="query", y_true="rel", y_score="score")
    Traceback (most recent call last):
    ...
    lodestar_polars.exceptions.RefusedGroupError: metric 'ap' refused 2 group(s):
      query='q1': average_precision needs a binary y_true (bool, or 0 and 1). Got 3.0 instead.
      query='q2': average_precision needs a binary y_true (bool, or 0 and 1). Got 2.0 instead.
    (pass strict=False to get null for these groups instead)
    >>> lp.evaluate(log, ["ndcg@2", "rr", "dcg"], by="query", y_true="rel", y_score="score")
    shape: (2, 4)
    ┌───────┬──────────┬──────────┬─────┐
    │ query ┆ ndcg@2   ┆ rr       ┆ dcg │
    │ ---   ┆ ---      ┆ ---      ┆ --- │
    │ str   ┆ f64      ┆ f64      ┆ f64 │
    ╞═══════╪══════════╪══════════╪═════╡
    │ q1    ┆ 0.826235 ┆ 1.0      ┆ 3.5 │
    │ q2    ┆ 0.0      ┆ 0.333333 ┆ 1.0 │
    └───────┴──────────┴──────────┴─────┘
    >>> lp.evaluate(
    ...     log, ["ndcg@2", "rr"], by="query", y_true="rel", y_score="score", mean=True
    ... )
    shape: (1, 2)
    ┌──────────┬──────────┐
    │ ndcg@2   ┆ rr       │
    │ ---      ┆ ---      │
    │ f64      ┆ f64      │
    ╞══════════╪══════════╡
    │ 0.413117 ┆ 0.666667 │
    └──────────┴──────────┘
    """
    arrow = from_arrow(frame)
    if arrow is not None:
        out = evaluate(
            arrow,
            metrics,
            by=by,
            y_true=y_true,
            y_score=y_score,
            weight=weight,
            ties=ties,
            item=item,
            n_relevant=n_relevant,
            judged=judged,
            popularity=popularity,
            feature=feature,
            popularity_rank=popularity_rank,
            n_items=n_items,
            strict=strict,
            mean=mean,
            batch_rows=batch_rows,
            progress=progress,
            layout=layout,
            temp_dir=temp_dir,
        )
        return (out.collect() if isinstance(out, pl.LazyFrame) else out).to_arrow()
    if not isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        msg = (
            "`frame` must be a polars DataFrame or LazyFrame, or a pyarrow Table, "
            f"RecordBatch, RecordBatchReader or Dataset, got {type(frame).__name__}"
        )
        raise TypeError(msg)
    given = {"popularity": popularity, "feature": feature, "popularity_rank": popularity_rank}
    frame, keys, y_true, y_score, weight, item, n_relevant, judged, inputs = _as_columns(
        frame, by, y_true, y_score, weight, item, n_relevant, judged, given
    )
    if not keys:
        msg = "`by` must name at least one column"
        raise ValueError(msg)
    if not isinstance(metrics, (str, Sequence)) or isinstance(metrics, bytes):
        msg = (
            "The 'metrics' parameter of evaluate must be a metric name or a sequence of them. "
            f"Got {metrics!r} instead."
        )
        raise InvalidParameterError(msg)
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        msg = "`metrics` must name at least one metric"
        raise ValueError(msg)
    if len(set(names)) != len(names):
        msg = f"`metrics` names a metric twice: {names!r}"
        raise ValueError(msg)
    strict = check_bool(strict, "strict", "evaluate")
    mean = check_bool(mean, "mean", "evaluate")
    batch_rows = check_int(batch_rows, "batch_rows", "evaluate")
    n_items = check_int(n_items, "n_items", "evaluate")
    if progress is not None and not isinstance(progress, bool) and not callable(progress):
        msg = (
            "The 'progress' parameter of evaluate must be a bool, a callable or None. "
            f"Got {progress!r} instead."
        )
        raise InvalidParameterError(msg)
    layout = check_option(layout, "layout", "evaluate", LAYOUTS)  # type: ignore[assignment]
    temp_dir = check_temp_dir(temp_dir, "evaluate")
    rule: TieRule = check_option(ties, "ties", "evaluate", TIES)  # type: ignore[assignment]
    if rule == "trec_eval" and item is None:
        msg = "evaluate(ties='trec_eval') needs `item=`: trec_eval breaks ties by document id"
        raise InvalidParameterError(msg)
    _check_output_names(keys, weight, names)
    lazy = frame.lazy()
    columns = {f"by[{i}]": key for i, key in enumerate(keys)}
    columns.update(y_true=y_true, y_score=y_score)
    if weight is not None:
        columns["weight"] = weight
    if item is not None and rule == "trec_eval":
        columns["item"] = item
    if n_relevant is not None:
        columns["n_relevant"] = n_relevant
    if judged is not None:
        columns["judged"] = judged
    columns.update(inputs)
    schema = lazy.collect_schema()
    _check_columns(schema, columns)
    check_input_columns(schema, inputs)
    feature_dtype = schema[inputs["feature"]] if "feature" in inputs else None
    roles = _Roles(
        keys, y_true, y_score, weight, columns.get("item"), n_relevant, rule, judged,
        MappingProxyType(inputs), n_items, feature_dtype,
    )  # fmt: skip
    parsed = [_parse(name, roles) for name in names]
    check_inputs_read(roles, [p.spec for p in parsed])
    if n_relevant is not None and not any(p.spec.judged for p in parsed):
        reads = [s.name for s in REGISTRY if s.judged]
        msg = f"`n_relevant` is read by {reads} only, and no metric asked for is one of them"
        raise InvalidParameterError(msg)
    if judged is not None and not any(p.spec.judged_ideal for p in parsed):
        reads = [s.name for s in REGISTRY if s.judged_ideal]
        msg = f"`judged` is read by {reads} only, and no metric asked for is one of them"
        raise InvalidParameterError(msg)
    needed = list(dict.fromkeys(columns.values()))

    if isinstance(frame, pl.DataFrame):
        result = _evaluate_parted(frame.select(needed), parsed, roles, strict=strict)
        return mean_of_groups(result, names, weight) if mean else result

    group_schema = {
        **{key: schema[key] for key in keys},
        **({weight: schema[weight]} if weight else {}),
        **{m: pl.Float64 for m in names},
    }

    source = lazy.select(needed)
    limit = DEFAULT_BATCH_ROWS if batch_rows is None else batch_rows

    def batches() -> Iterator[pl.DataFrame]:
        bar = ProgressBar() if progress is True else None
        callback = None if isinstance(progress, bool) else progress
        try:
            result = _evaluate_lazy(
                source,
                parsed,
                roles,
                strict=strict,
                part_rows=limit,
                layout=layout,
                temp_dir=temp_dir,
                progress=bar if bar is not None else callback,
            )
        finally:
            if bar is not None:
                bar.close()
        if result is not None:
            yield result

    per_group = _source(batches, group_schema)  # sorted by the keys (_evaluate_lazy)
    if not mean:
        return per_group
    return per_group.map_batches(
        lambda df: mean_of_groups(df, names, weight),
        schema=pl.Schema({m: pl.Float64 for m in names}),
    )


DEFAULT_BATCH_ROWS = 5_000_000
"""Rows :func:`evaluate` holds in memory at once for a ``LazyFrame`` (about 0.5 GB)."""
