"""`lp.trec.evaluate`: trec_eval's measures per query and over all queries."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from lodestar_polars._base.validation import check_bool
from lodestar_polars._core.ir import Judged
from lodestar_polars._core.trec_more import gmean
from lodestar_polars._registry import (
    TrecMeasure,
)
from lodestar_polars.trec._files import first_non_utf8, read_qrels, read_run
from lodestar_polars.trec._frames import Source, _check_frame, _lazy, _select
from lodestar_polars.trec._measures import (
    Measure,
    _check_positive_int,
    _computed,
    parse_measures,
)


@dataclass(frozen=True)
class _Prepared:
    queries: list[str]
    data: Judged


def _prepare(
    run: Source,
    qrels: Source,
    *,
    complete: bool,
    relevance_level: int,
    max_docs: int | None,
    float32_scores: bool,
) -> _Prepared:
    run_lf = _select(
        _lazy(run, read_run, "run"),
        "run",
        {"qid": pl.String, "docno": pl.String, "score": pl.Float64},
    )
    qrels_lf = _select(
        _lazy(qrels, read_qrels, "qrels"),
        "qrels",
        {"qid": pl.String, "docno": pl.String, "rel": pl.Int64},
    )
    try:
        run_df, qrels_df = pl.collect_all([run_lf, qrels_lf])
    except pl.exceptions.ComputeError as exc:
        # Polars says "invalid utf8" and no more: name the file and the line
        for source in (run, qrels):
            if "utf8" in str(exc).lower() and isinstance(source, (str, Path)):
                where = first_non_utf8(source)
                if where is not None:
                    raise ValueError(where) from None
        raise
    _check_frame(run_df, "run")
    _check_frame(qrels_df, "qrels")
    judged = qrels_df.select(pl.col("qid").unique())
    if not complete:
        judged = judged.join(run_df.select(pl.col("qid").unique()), on="qid", how="semi")
    queries = judged.sort("qid")
    if queries.is_empty():
        msg = (
            "no query to evaluate: no query of the run has judgments"
            if not complete
            else "no query to evaluate: the qrels are empty"
        )
        raise ValueError(msg)
    score = pl.col("score")
    if float32_scores:
        score = score.cast(pl.Float32).cast(pl.Float64)
    ranked = (
        run_df.lazy()
        .join(queries.lazy(), on="qid", how="semi")
        .join(qrels_df.lazy().select("qid", "docno", "rel"), on=["qid", "docno"], how="left")
        .with_columns(
            score.alias("score") + 0.0,
            # trec_eval's RELVALUE_NONPOOL (-1, not in the qrels) and RELVALUE_UNJUDGED
            # (-2, judged below 0: in the pool, unjudged), which infAP tells apart
            pl.when(pl.col("rel").is_null())
            .then(-1)
            .when(pl.col("rel") < 0)
            .then(-2)
            .otherwise(pl.col("rel"))
            .alias("rel"),
        )
        .sort(["qid", "score", "docno"], descending=[False, True, True])
    )
    if max_docs is not None:
        ranked = ranked.filter(pl.int_range(pl.len()).over("qid") < max_docs)
    ideal = (
        qrels_df.lazy()
        .join(queries.lazy(), on="qid", how="semi")
        .filter(pl.col("rel") >= 0)
        .sort(["qid", "rel"], descending=[False, True])
    )
    ranked_df, ideal_df = pl.collect_all([ranked, ideal])

    def per_query(frame: pl.DataFrame, value: pl.Expr) -> np.ndarray:
        counts = frame.group_by("qid").agg(value.alias("__v"))
        return (
            queries.join(counts, on="qid", how="left", maintain_order="left")["__v"]
            .fill_null(0)
            .to_numpy()
            .astype(np.int64)
        )

    data = Judged(
        relevance=ranked_df["rel"].to_numpy().astype(np.int64),
        length=per_query(ranked_df, pl.len()),
        n_relevant=per_query(qrels_df, (pl.col("rel") >= relevance_level).sum()),
        ideal_relevance=ideal_df["rel"].to_numpy().astype(np.int64),
        ideal_length=per_query(ideal_df, pl.len()),
        relevance_level=relevance_level,
    )
    return _Prepared(queries["qid"].to_list(), data)


def _columns(source: object) -> set[str] | None:
    """The column names of a frame (Polars or Arrow), without reading it; None for a path."""
    if isinstance(source, pl.DataFrame):
        return set(source.columns)
    if isinstance(source, pl.LazyFrame):
        return set(source.collect_schema().names())
    schema = getattr(source, "schema", None)
    if type(source).__module__.startswith("pyarrow") and schema is not None:
        return set(schema.names)
    return None


def _in_old_order(first: object, second: object) -> bool:
    """Whether ``evaluate(run, qrels)`` (the order of 0.1) was meant, beyond doubt.

    Only frames can tell: the first has a ``score`` column and no ``rel``, the
    second a ``rel`` column and no ``score``.  The new order would refuse such
    a call (no ``rel`` in the qrels), so reading it in the old order changes no
    call that the new order accepts.  Files are not read ahead to tell: a run
    file given as the qrels is refused at its first line, saying the order.
    """
    a, b = _columns(first), _columns(second)
    if a is None or b is None:
        return False
    return "score" in a and "rel" not in a and "rel" in b and "score" not in b


def evaluate(
    qrels: Source,
    run: Source,
    measures: str | Sequence[str] = "official",
    *,
    per_query: bool = False,
    complete: bool = False,
    relevance_level: int = 1,
    max_docs: int | None = None,
    float32_scores: bool = False,
    wide: bool = False,
) -> pl.DataFrame:
    """Score a run against its judgments exactly as trec_eval 10.0 does.

    Parameters
    ----------
    qrels
        The judgments, first, as in trec_eval, ranx and ir_measures: a qrels
        file (read with :func:`read_qrels`), or a frame with columns ``qid``,
        ``docno`` and ``rel`` (an integer; ids of any type are compared as
        text): a Polars ``DataFrame`` / ``LazyFrame``, or Arrow data (a
        ``pyarrow`` ``Table``, ``RecordBatch``, ``RecordBatchReader`` or
        ``Dataset``), read without a copy.  The result is a Polars frame
        (``.to_arrow()`` hands it back as Arrow).
    run
        A run file (read with :func:`read_run`), or a frame with columns
        ``qid``, ``docno`` and ``score``, of the same kinds.
    measures : str or list of str, default="official"
        trec_eval measure names: every measure of trec_eval's ``all_trec``
        (``num_q``, ``relstring``, ``rbp``, ``rbp_resid``, ``unj``,
        ``map``, ``gm_map``, ``Rprec``, ``bpref``, ``recip_rank``,
        ``infAP``, ``G``, ``set_F``, ``utility``, ``num_nonrel_judged_ret``,
        ...: :data:`MEASURES`), and the cutoff measures ``P``, ``recall``,
        ``ndcg_cut``, ``map_cut``, ``relative_P``, ``success`` (``"P"`` is
        trec_eval's default cutoffs, ``"P.5,10"`` or ``"P_5"`` chosen ones);
        ``"iprec_at_recall..25,.5"`` and ``"Rprec_mult.0.2,2"`` take levels,
        ``"utility.2,-1,0,0"``, ``"set_F.0.5"`` and ``"11pt_avg..25,.5"``
        values, ``"ndcg.1=3,2=9"`` (and ``G``, ``ndcg_rel``, ``Rndcg``)
        gains per relevance level; ``"official"`` is trec_eval's default set
        and ``"all_trec"`` every measure offered (a measure of a set written
        with parameters too, ``["all_trec", "relstring.20"]``, is computed
        with those only, as in trec_eval).  ``gm_map`` and ``gm_bpref``
        have no per-query row; their ``all`` is trec_eval's geometric mean
        (each value floored at 1e-5).  ranx and
        ir_measures names are read too (``"ndcg@10"``, ``"map@100"``,
        ``"AP@100"``, ``"mrr@10"``, ``"RR@10"``, ``"P@10"``,
        ``"precision@10"``, ``"recall@100"``, ``"R@100"``, ``"hit_rate@10"``,
        ``"Success@10"``, ``"r-precision"``, ``"Rprec"``, ``"nDCG"``) and keep
        their names in the output.
    per_query : bool, default=False
        Also return one row per query and measure (trec_eval ``-q``).
    complete : bool, default=False
        Score judged queries that the run does not rank, as 0 (trec_eval ``-c``).
    relevance_level : int, default=1
        A document is relevant when judged at least this (trec_eval ``-l``).
        NDCG ignores it, as in trec_eval: its gain is the judged relevance.
    max_docs : int, default=None
        Keep only the first ``max_docs`` ranked documents of each query
        (trec_eval ``-M``); the ideal DCG and the relevant count are not cut.
    float32_scores : bool, default=False
        Round scores to float32 before ranking, as trec_eval 9 (and
        pytrec_eval) store them; trec_eval 10.0 keeps doubles.
    wide : bool, default=False
        One row per query (and ``all``) with a column per measure, instead of
        the long ``qid, measure, value`` frame.

    Returns
    -------
    polars.DataFrame
        Long: ``qid`` (str), ``measure`` (str), ``value`` (f64); per-query rows
        by query id, then the ``all`` rows.  ``all`` is the mean over the
        evaluated queries, except ``num_ret``, ``num_rel``, ``num_rel_ret``
        (sums) and ``num_q`` (the count, ``all`` only).  Where ``measures``
        names a text measure (``relstring``, ``relstring.20``: the first
        ranked documents' relevance as text, per query only), a fourth column
        ``text`` (str) holds it, ``value`` null on its rows and ``text`` null
        on the others; with ``wide=True`` it is a str column.

    Raises
    ------
    ValueError
        An unknown measure or bad cutoff, a malformed file line (naming
        ``file:line``; a run file given as the qrels, or the reverse, is named
        so), a document listed twice in one query, a null or non-finite score,
        or no query to evaluate.

    Warns
    -----
    FutureWarning
        Frames given in the order of 0.1, ``evaluate(run, qrels)``, where
        the columns leave no doubt (a ``score`` column and no ``rel`` first, a
        ``rel`` column and no ``score`` second): read in that order for this
        release only.  Files in that order are refused (see
        ``docs/decisions/0011-qrels-first.md``).

    Notes
    -----
    The ranking is by score descending, then document id descending
    byte-wise; the run's rank column and line order are ignored.  A document
    not in the qrels, or judged below 0, is not relevant and gains 0.
    ``num_rel`` counts every judged document at the relevance level, retrieved
    or not; recall, AP and R-precision divide by it (0 when it is 0); the
    ideal DCG ranks every judged document (``ndcg_cut.k`` cuts it at ``k``).
    ``P.k`` divides by ``k`` even when fewer documents were retrieved.

    Queries: every judged query that the run ranks is evaluated, a run query
    without judgments is skipped, and with ``complete=True`` every judged
    query is (the missing ones score 0).  trec_eval 10.0 stops with an
    error when a judged query is missing from the run and ``-c`` is not
    given; trec_eval 9 and pytrec_eval skip it, as done here.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> run = pl.DataFrame(
    ...     {
    ...         "qid": ["q1", "q1", "q1", "q2", "q2"],
    ...         "docno": ["a", "b", "c", "a", "b"],
    ...         "score": [3.0, 2.0, 2.0, 1.0, 0.5],
    ...     }
    ... )
    >>> qrels = pl.DataFrame(
    ...     {"qid": ["q1", "q1", "q2", "q3"], "docno": ["c", "z", "b", "a"], "rel": [2, 1, 1, 1]}
    ... )
    >>> lp.trec.evaluate(qrels, run, ["recip_rank", "P.2", "ndcg_cut.3"], per_query=True, wide=True)
    shape: (3, 4)
    ┌─────┬────────────┬─────┬────────────┐
    │ qid ┆ recip_rank ┆ P_2 ┆ ndcg_cut_3 │
    │ --- ┆ ---        ┆ --- ┆ ---        │
    │ str ┆ f64        ┆ f64 ┆ f64        │
    ╞═════╪════════════╪═════╪════════════╡
    │ q1  ┆ 0.5        ┆ 0.5 ┆ 0.479625   │
    │ q2  ┆ 0.5        ┆ 0.5 ┆ 0.63093    │
    │ all ┆ 0.5        ┆ 0.5 ┆ 0.555277   │
    └─────┴────────────┴─────┴────────────┘

    In q1, ``b`` and ``c`` tie: ``c`` ranks first (document id descending),
    at rank 2.  Its ideal DCG counts ``z``, judged but not retrieved.  q3 is
    judged but not ranked: skipped, unless ``complete=True`` scores it 0:

    >>> lp.trec.evaluate(qrels, run, ["num_q", "recip_rank"], complete=True)
    shape: (2, 3)
    ┌─────┬────────────┬──────────┐
    │ qid ┆ measure    ┆ value    │
    │ --- ┆ ---        ┆ ---      │
    │ str ┆ str        ┆ f64      │
    ╞═════╪════════════╪══════════╡
    │ all ┆ num_q      ┆ 3.0      │
    │ all ┆ recip_rank ┆ 0.333333 │
    └─────┴────────────┴──────────┘
    """
    if _in_old_order(qrels, run):
        warnings.warn(
            "lp.trec.evaluate takes the qrels first, then the run, as trec_eval, ranx and "
            "ir_measures do: evaluate(qrels, run, ...). These frames are in the old order "
            "(a run with 'score' first, qrels with 'rel' second) and are read so in this "
            "release only",
            FutureWarning,
            stacklevel=2,
        )
        qrels, run = run, qrels
    parsed = parse_measures(measures)
    for flag, value in (
        ("per_query", per_query),
        ("complete", complete),
        ("float32_scores", float32_scores),
        ("wide", wide),
    ):
        check_bool(value, flag, "evaluate")
    relevance_level = _check_level(relevance_level)
    if max_docs is not None:
        max_docs = _check_positive_int(max_docs, "max_docs")
    prepared = _prepare(
        run,
        qrels,
        complete=bool(complete),
        relevance_level=relevance_level,
        max_docs=max_docs,
        float32_scores=bool(float32_scores),
    )
    queries, data = prepared.queries, prepared.data
    # each measure's core, as its registry entry carries it: one value (or text) per query
    computed = [_computed(m, data) for m in parsed]
    text = [m.measure.is_text for m in parsed]
    summary = [
        None if is_text else _aggregated(m.measure, column)
        for m, column, is_text in zip(parsed, computed, text, strict=True)
    ]
    labels = [m.label for m in parsed]
    if wide:
        return _wide(parsed, computed, summary, queries, per_query=per_query)
    has_text = any(text)
    in_all = [i for i, m in enumerate(parsed) if not m.measure.is_text]
    all_rows = _long(
        ["all"] * len(in_all),
        [labels[i] for i in in_all],
        [summary[i] for i in in_all],
        None,
        has_text=has_text,
    )
    if not per_query:
        return all_rows
    per_q = [i for i, m in enumerate(parsed) if m.measure.per_query]
    n = len(queries)
    values = np.zeros((len(per_q), n), dtype=np.float64)
    texts = np.full((len(per_q), n), None, dtype=object)
    for row, i in enumerate(per_q):  # one row per measure, not per query
        if text[i]:
            texts[row] = computed[i]
        else:
            values[row] = computed[i]
    is_text = np.repeat(np.array([text[i] for i in per_q], dtype=bool)[None, :], n, axis=0)
    q_rows = _long(
        np.repeat(np.array(queries, dtype=object), len(per_q)),
        [labels[i] for i in per_q] * n,
        pl.Series(values.T.ravel()).scatter(np.flatnonzero(is_text.ravel()), None),
        texts.T.ravel().tolist() if has_text else None,
        has_text=has_text,
    )
    return pl.concat([q_rows, all_rows])


def _long(qid: Any, measure: Any, value: Any, text: Any, *, has_text: bool) -> pl.DataFrame:
    """The long frame: ``qid, measure, value`` (and ``text`` where a text measure is asked)."""
    columns = {"qid": qid, "measure": measure, "value": value}
    schema = {"qid": pl.String, "measure": pl.String, "value": pl.Float64}
    if has_text:
        columns["text"] = [None] * len(measure) if text is None else text
        schema["text"] = pl.String
    return pl.DataFrame(columns, schema=schema)


def _wide(
    parsed: list[Measure],
    computed: list[np.ndarray],
    summary: list[float | None],
    queries: list[str],
    *,
    per_query: bool,
) -> pl.DataFrame:
    """One row per query (with ``per_query``) and ``all``; a column per measure."""
    columns: dict[str, Any] = {"qid": [*queries, "all"] if per_query else ["all"]}
    for m, values, total in zip(parsed, computed, summary, strict=True):
        column_values: list[Any]
        if not per_query:
            column_values = []
        elif m.measure.per_query:
            column_values = values.tolist()
        else:  # num_q: the all row only
            column_values = [None] * len(queries)
        dtype = pl.String if m.measure.is_text else pl.Float64
        columns[m.label] = pl.Series([*column_values, total], dtype=dtype)
    return pl.DataFrame(columns)


def _aggregated(measure: TrecMeasure, values: np.ndarray) -> float:
    """The ``all`` row: the sum of a count, trec_eval's geometric mean (``gm_*``), or the mean."""
    if measure.is_count:
        return float(values.sum())
    if measure.aggregate == "gmean":
        return gmean(values)
    return float(values.mean())


def _check_level(level: object) -> int:
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or level < 0:
        msg = f"`relevance_level` must be an int >= 0, got {level!r}"
        raise ValueError(msg)
    return int(level)
