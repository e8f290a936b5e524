"""`lp.ranking_report`: the public function, in memory or in parts."""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import polars as pl

from lodestar_polars._base.deprecation import renamed
from lodestar_polars._base.progress import check_progress, progress_callback
from lodestar_polars._base.validation import (
    check_bool,
    check_column,
    check_int,
    check_k,
    check_open_interval,
    check_option,
    names_of,
)
from lodestar_polars._evaluate.partition import LAYOUTS, Layout, check_temp_dir
from lodestar_polars._report.beyond import train_information
from lodestar_polars._report.comparability import check_exclusive, check_state, resolve_shrinkage
from lodestar_polars._report.diversity import check_feature_column, memory_features
from lodestar_polars._report.extras import check_extras, memory_block_b, memory_extras
from lodestar_polars._report.inputs import computed, scores_frame, with_item, with_roles
from lodestar_polars._report.serving import (
    check_frame,
    require_columns,
)
from lodestar_polars.exceptions import InvalidParameterError

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.dataset as pads

    from lodestar_polars._evaluate.evaluate import Progress

from lodestar_polars._report.ranking_report.common import (
    _TRUTH,
    CALLER,
    ENGINES,
    MULTI_POSITIVE,
    OBJECTIVES,
    Engine,
    MultiPositive,
    Objective,
    weighted_count,
)
from lodestar_polars._report.ranking_report.families import (
    Block,
    _popularity,
    score_block,
    tail_items,
)
from lodestar_polars._report.ranking_report.fitting import _fit_lazy as _fit_lazy
from lodestar_polars._report.ranking_report.fitting import _fit_parts
from lodestar_polars._report.ranking_report.grading import (
    _check_domain,
    _grade,
    _keys_of,
    _objective_scores,
    _with_keys,
)
from lodestar_polars._report.ranking_report.payload import finish_payload
from lodestar_polars._report.ranking_report.result import RankingReport
from lodestar_polars._report.ranking_report.uncertainty import uncertainty_and_paired

DEFAULT_PART_ROWS = 5_000_000


"""A ``LazyFrame`` of more rows is graded in parts (``lp.evaluate``'s ``DEFAULT_BATCH_ROWS``)."""


def _objective_alphas() -> Mapping[str, float]:
    from lodestar_polars._report.comparability import OBJECTIVE_ALPHA

    return OBJECTIVE_ALPHA


@renamed(score="y_score", truth="y_true")
def ranking_report(
    scores: pl.DataFrame
    | pl.LazyFrame
    | str
    | os.PathLike[str]
    | Sequence[str | os.PathLike[str]]
    | pa.Table
    | pa.RecordBatch
    | pa.RecordBatchReader
    | pads.Dataset,
    *,
    by: str | pl.Expr | Sequence[str | pl.Expr],
    item: str | pl.Expr,
    y_true: str | pl.Expr | pl.DataFrame | pl.LazyFrame,
    y_score: str | pl.Expr,
    k: int = 10,
    objectives: Sequence[Objective] = ("accuracy", "coverage"),
    train: pl.DataFrame | pl.LazyFrame | None = None,
    popularity: pl.DataFrame | pl.LazyFrame | None = None,
    groups: str | pl.Expr | None = None,
    value: str | pl.Expr | None = None,
    feature: str | pl.Expr | None = None,
    y_score_b: str | pl.Expr | None = None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    seed: int = 0,
    multi_positive: MultiPositive = "each",
    tail_share: float = 0.2,
    primary_objective: Objective | None = None,
    popularity_discount: float | None = None,
    shrinkage: bool = False,
    shrinkage_strength: float | None = None,
    percentile: bool = False,
    state: Any = None,
    engine: Engine = "auto",
    batch_rows: int | None = None,
    layout: Layout = "auto",
    temp_dir: str | os.PathLike[str] | None = None,
    progress: bool | Callable[[Progress], None] | None = None,
) -> RankingReport:
    r"""The recommendation ranking report: micro and macro families, baseline, bootstrap verdict.

    Every number is an expectation over the orderings of tied scores: a
    truth item with ``b`` candidates strictly above it and ``t`` in its tie
    block has its rank uniform on ``[b+1, b+t]``, and each metric is
    ``E[f(R)]``.  A constant model over ``C`` items gives ``hit@k = min(k, C)/C``.

    Parameters
    ----------
    scores : polars.DataFrame, polars.LazyFrame, Parquet path(s) or Arrow data
        One row per (list, candidate item) with the model's score.  A Parquet
        path (``str`` or ``os.PathLike``: a file, a directory or a glob), or a
        list of them, is scanned as a ``LazyFrame`` (so a log over
        ``batch_rows`` is read once in parts, never whole); Arrow data is read
        as :func:`lodestar_polars.evaluate` reads it: a ``pyarrow.Table`` or
        ``RecordBatch`` without a copy, a ``RecordBatchReader`` whole, a
        ``pyarrow.dataset.Dataset`` scanned as a ``LazyFrame``.
    by : str, polars.Expr or sequence of str or polars.Expr
        The group key naming the evaluation unit (an entity, or an (entity,
        occasion) pair): column names or expressions, one or several, as in
        :func:`lodestar_polars.evaluate`.  An expression's output name is the
        key's name (``(pl.col("user") % 10).alias("bucket")``); a ``y_true``
        frame is given the same keys by the same expressions.
    item : str or polars.Expr
        The candidate item (class) column.  This role, ``y_score`` and
        ``groups`` take a name or an expression, which plays its role under
        its output name (``pl.col("sku").alias("item")``); an ``item``
        expression also gives a ``y_true``, ``train`` or ``popularity`` frame
        its column where it reads columns that frame has and lacks the output.
    y_true : str, polars.Expr, polars.DataFrame or polars.LazyFrame
        A Boolean or 0/1 column of ``scores`` (a name or an expression), or a frame of realised
        (``by``, ``item``) pairs.  A realised item that is not among its list's
        candidates is a miss, counted in ``n_unseen_truth``.
    y_score : str or polars.Expr
        The score column; higher ranks first; must be finite.
    k : int, default=10
        The cutoff of ``hit@k``, ``mrr@k``, ``ndcg@k`` and the macro family
        (``hit@1`` and ``hit@5`` are always emitted).
    objectives : sequence of {'accuracy', 'balanced', 'coverage'}, default=('accuracy', 'coverage')
        The blocks to score; each ranks by its popularity discount α.
    train : polars.DataFrame or polars.LazyFrame, default=None
        Training interactions with an ``item`` column (one row per positive):
        the popularity floor, the tail rule's popularity, and the coverage
        family's ``novelty@k``, ``average_recommended_popularity@k``,
        ``serendipity@k`` and ``personalisation@k`` (docs/report.md).
    popularity : polars.DataFrame or polars.LazyFrame, default=None
        An already fitted floor: ``item`` and ``popularity`` (non-negative)
        columns.  Pass it or ``train``, not both.
    groups : str or polars.Expr, default=None
        A column of ``scores``, constant within a list: the bootstrap's
        cluster unit (the entity).  Without it each graded list is a unit.
    value : str or polars.Expr, default=None
        A numeric, non-negative column of ``scores`` (an item's price or
        margin): adds the value family (``value@k``, ``value_share@k``,
        ``value_ndcg@k``, no interval) to every block, the floor and model B
        (docs/report.md, "The value family").
    feature : str or polars.Expr, default=None
        A column of ``scores``: each item's category (a string, integer or
        Boolean) or embedding (a list or array of floats, cosine distance), one
        per item: adds ``intra_list_diversity@k`` (``lp.intra_list_diversity``
        of the top k, averaged over lists) to the coverage family of every
        block, the floor and model B (docs/report.md, "Intra-list diversity").
    y_score_b : str or polars.Expr, default=None
        Model B's scores (a second column of ``scores``): every family of
        model B under the primary objective, and each difference B − A with
        the paired cluster bootstrap interval (micro) and a verdict
        (``a_ahead``, ``b_ahead``, ``undecided``) under ``versus``
        (docs/report.md, "Model A against model B").
    n_resamples : int, default=1000
    confidence_level : float, default=0.95
    seed : int, default=0
        The bootstrap's resamples, level and seed.
    multi_positive : {'each', 'first'}, default='each'
        A list with several positives: one graded list per (list, positive),
        or only the first positive in input order (the others are then not
        graded at all, which biases the metric down for the most active lists).
    tail_share : float, default=0.2
        The tail rule: the least popular items that together hold at most this
        share of the training positives (whole popularity ties at once).
        Without training data the popularity is the evaluation's own truth counts.
    primary_objective : str, default=None
        The operating block (the first objective when None): its ``ndcg@k`` is
        ``primary_score`` and its micro family carries the intervals.
    popularity_discount : float, default=None
        A configured α: applies to the primary block only.
    shrinkage, shrinkage_strength, percentile, state
        Passed to :func:`lodestar_polars.transform_for_objective`, for every
        block (the accuracy block included): a ``shrinkage_strength`` switches
        shrinkage on, as there (decision 0013).  ``state`` is a
        :class:`~lodestar_polars.ComparabilityState` (load a saved one with
        :meth:`~lodestar_polars.ComparabilityState.load`); without one the
        blocks that need it fit it on ``scores`` and ``y_true``.
    engine : {'auto', 'in-memory', 'streaming'}, default='auto'
        How a ``LazyFrame`` input is collected (when it is read whole).
    batch_rows : int, default=None
        A ``LazyFrame`` of more rows than this (5,000,000 when None, as
        :func:`lodestar_polars.evaluate`) with a ``y_true`` column is read
        once, in parts of whole lists of about this many rows, and never
        held whole: the same payload (to about 1e-15 where a per-item sum
        runs in another order).  A ``DataFrame`` is always graded whole.
    layout : {'auto', 'grouped', 'shuffled'}, default='auto'
        How a large ``LazyFrame``'s rows lie, as in
        :func:`lodestar_polars.evaluate`: a log sorted by one ``by`` column
        is streamed in parts cut between lists; any other is partitioned
        once by a hash of ``by`` into temporary Arrow IPC files.
    temp_dir : str or os.PathLike, default=None
        Where those temporary files go (the system's temporary directory
        when None); they take about the input's columns' size, uncompressed,
        and are removed as they are read.
    progress : bool or callable, default=None
        ``True`` shows rows graded, rows a second and the time left: one
        line rewritten on stderr in a terminal, an updated output in a
        Jupyter notebook, nothing anywhere else.  A callable is called with
        a :class:`lodestar_polars.Progress` after each step instead: each
        part of a ``LazyFrame`` read in parts, then the merge and the
        bootstrap (``parts_total`` an estimate until the last part); in
        memory, the grading, each objective's block, the popularity floor
        and the bootstrap.  ``rows_done`` counts the input rows graded,
        ``groups_in_part`` the lists graded in the step (0 in a later step).
        ``None`` or ``False``: nothing.

    Returns
    -------
    RankingReport
        A ``dict`` holding the JSON-serialisable payload: ``schema_version``,
        ``k``, ``objectives`` → {objective: {``micro``, ``macro``}},
        ``objective_alpha``, ``primary_objective``, ``primary_score``,
        ``baselines``, ``uncertainty``, ``n_lists``, ``n_dropped``,
        ``n_unseen_truth``, ``n_items``, ``multi_positive``, ``ties``,
        ``tail_rule``, ``popularity_source``, ``comparability``,
        ``shrinkage_strength``, ``max_list_length``, ``by_construction``,
        ``notes``, ``decision`` (docs/report.md), with
        :meth:`~RankingReport.to_frame`, :meth:`~RankingReport.to_json`,
        :meth:`~RankingReport.to_html` and a notebook display.

    Raises
    ------
    ValueError
        Missing columns, a list with an item twice, non-finite or null scores,
        a ``y_true`` frame naming lists not in ``scores``, ``train`` with
        ``popularity``, no positive at all.
    InvalidParameterError
        An option out of its domain (``k``, an unknown objective, ...).

    See Also
    --------
    top_k : the served lists (ties broken by item order).
    hit_rate, reciprocal_rank, ndcg : the same micro numbers per group.

    Notes
    -----
    Lists with no positive are dropped, not scored as zero (``n_dropped``).
    ``catalog_coverage`` is the mean over catalogue items of
    :math:`1 - \prod_{l}(1 - P_l(\text{item in top-}k))`, entropy (nats) and
    Gini come from the expected exposure counts, which sum to ``n_lists·k``
    when every list has at least ``k`` candidates.  Each key's family, label,
    range and direction (``gini`` is lower-is-better) are in the registry's
    ``REPORT_METRICS`` (docs/report.md).

    ``y_score`` and ``y_true`` were named ``score`` and ``truth`` before
    0.2.0: the old names still work until 0.3.0, with a ``FutureWarning``.

    Examples
    --------
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
    >>> report["objectives"]["accuracy"]["micro"]
    {'hit@1': 0.1666..., 'hit@5': 1.0, 'hit@2': 0.5833..., 'mrr@2': 0.375, 'ndcg@2': 0.42...}
    >>> report["n_lists"], report["baselines"], report["uncertainty"]["unit"]
    (2, {}, 'row')
    """
    kk = check_k(k, CALLER, allow_none=False)
    assert kk is not None
    scores = scores_frame(scores, CALLER)  # Parquet paths scanned, Arrow data read
    check_frame(scores, "scores", CALLER)
    for extra, extra_name in ((train, "train"), (popularity, "popularity")):
        if extra is not None:
            check_frame(extra, extra_name, CALLER)
    keys, key_exprs = _keys_of(by)
    item_expr = check_column(item, "item", CALLER)
    score_expr = check_column(y_score, "y_score", CALLER)
    groups_expr = check_column(groups, "groups", CALLER, allow_none=True)
    value_expr = check_column(value, "value", CALLER, allow_none=True)
    feature_expr = check_column(feature, "feature", CALLER, allow_none=True)
    score_b_expr = check_column(y_score_b, "y_score_b", CALLER, allow_none=True)
    role_exprs = computed(
        {
            "item": (item, item_expr),
            "y_score": (y_score, score_expr),
            "groups": (groups, groups_expr),
            "value": (value, value_expr),
            "feature": (feature, feature_expr),
            "y_score_b": (y_score_b, score_b_expr),
        }
    )
    value_name = None if value_expr is None else value_expr.meta.output_name()
    score_b = None if score_b_expr is None else score_b_expr.meta.output_name()
    feature_name = None if feature_expr is None else feature_expr.meta.output_name()
    extra_cols = [c for c in (value_name, score_b) if c is not None]
    item, score = names_of([item_expr, score_expr])  # type: ignore[list-item]
    groups = None if groups_expr is None else groups_expr.meta.output_name()
    truth = y_true
    if isinstance(truth, pl.Expr):  # a column of scores, as an expression
        truth_expr = check_column(truth, "y_true", CALLER)
        assert truth_expr is not None
        role_exprs.update(computed({"y_true": (truth, truth_expr)}))
        truth = truth_expr.meta.output_name()
    if not isinstance(truth, (str, pl.DataFrame, pl.LazyFrame)):
        msg = (
            f"The 'y_true' parameter of {CALLER} must be a column name of scores or a "
            f"DataFrame/LazyFrame of realised (list, item) pairs. Got {type(truth).__name__}. "
            "(A column may be given as a Polars expression of one column too.)"
        )
        raise InvalidParameterError(msg)
    if isinstance(objectives, str) or not objectives:
        msg = (
            f"The 'objectives' parameter of {CALLER} must be a non-empty sequence of "
            f"objective names. Got {objectives!r} instead."
        )
        raise InvalidParameterError(msg)
    names = [check_option(o, "objectives", CALLER, OBJECTIVES) for o in objectives]
    if len(set(names)) != len(names):
        msg = f"The 'objectives' parameter of {CALLER} names an objective twice: {names!r}."
        raise InvalidParameterError(msg)
    primary = names[0] if primary_objective is None else primary_objective
    if primary not in names:
        msg = (
            f"The 'primary_objective' parameter of {CALLER} must be one of the objectives "
            f"{names!r}. Got {primary!r} instead."
        )
        raise InvalidParameterError(msg)
    n_resamples = cast("int", check_int(n_resamples, "n_resamples", CALLER, allow_none=False))
    seed = cast("int", check_int(seed, "seed", CALLER, allow_none=False, low=0))
    confidence_level = check_open_interval(confidence_level, "confidence_level", CALLER, 0.0, 1.0)
    tail_share = check_open_interval(tail_share, "tail_share", CALLER, 0.0, 1.0)
    mp = check_option(multi_positive, "multi_positive", CALLER, MULTI_POSITIVE)
    eng: Engine = check_option(engine, "engine", CALLER, ENGINES)  # type: ignore[assignment]
    part_rows = check_int(batch_rows, "batch_rows", CALLER, low=1)
    lay: Layout = check_option(layout, "layout", CALLER, LAYOUTS)  # type: ignore[assignment]
    temp = check_temp_dir(temp_dir, CALLER)
    check_progress(progress, CALLER)
    # decision 0013's rule, read from the one place transform_for_objective reads it:
    # a shrinkage_strength switches shrinkage on
    shrink, strength = resolve_shrinkage(shrinkage, shrinkage_strength, CALLER)
    percentile = check_bool(percentile, "percentile", CALLER)
    check_exclusive(shrinkage=shrink, percentile=percentile, caller=CALLER)
    state = check_state(state, CALLER)
    if popularity_discount is not None and (
        not isinstance(popularity_discount, numbers.Real)
        or isinstance(popularity_discount, (bool, np.bool_))
        or not 0.0 <= float(popularity_discount) <= 1.0  # also refuses nan
    ):
        msg = (
            f"The 'popularity_discount' parameter of {CALLER} must be a float in [0, 1] (the "
            f"popularity discount alpha) or None. Got {popularity_discount!r} instead."
        )
        raise InvalidParameterError(msg)

    if percentile and popularity_discount is not None:
        msg = (
            f"{CALLER}: popularity_discount={popularity_discount!r} cannot be combined with "
            f"percentile=True: a block ranked by percentile applies no popularity discount."
        )
        raise InvalidParameterError(msg)
    alphas = _objective_alphas()
    block_alpha = {name: float(alphas[name]) for name in names}
    if popularity_discount is not None:
        block_alpha[primary] = float(popularity_discount)
    transforms = {
        "shrinkage": shrink,
        "shrinkage_strength": shrinkage_strength,
        "percentile": percentile,
    }
    limit = DEFAULT_PART_ROWS if part_rows is None else int(part_rows)
    if role_exprs:  # roles given as expressions: computed into their columns, once
        scores = with_roles(scores, role_exprs, CALLER)
        if "item" in role_exprs:
            truth = with_item(truth, item_expr)
            train, popularity = with_item(train, item_expr), with_item(popularity, item_expr)
    if extra_cols:  # issue 21: the value column and model B's scores, checked before any grading
        check_extras(scores, key_exprs, keys, item, value_name, score_b)
    if feature_name is not None:  # issue 21: the items' category or embedding column
        check_feature_column(scores, feature_name)
    if isinstance(scores, pl.LazyFrame) and isinstance(truth, str):
        lazy = _with_keys(scores, key_exprs, "scores")
        wanted = [*extra_cols, *([] if feature_name is None else [feature_name])]
        require_columns(
            lazy.collect_schema(),
            [*keys, item, score, truth, *([] if groups is None else [groups]), *wanted],
            "scores",
            CALLER,
        )
        total = lazy.select(pl.len()).collect().item()
        if total > limit:
            from lodestar_polars._report.parts import report_in_parts

            parted = (total, limit, lay, temp)
            return report_in_parts(
                lazy, total, keys=keys, item=item, score=score, truth=truth, groups=groups, mp=mp,
                kk=kk, names=names, primary=primary, block_alpha=block_alpha,
                transforms=transforms, state=state,
                fit=lambda: _fit_parts(
                    lazy, keys, item, score, truth, mp, parted, quantiles=percentile
                ), train=train,
                popularity=popularity, tail_share=tail_share, shrink=shrink, strength=strength,
                percentile=percentile, n_resamples=n_resamples,
                confidence_level=confidence_level, seed=seed, part_rows=limit, layout=lay,
                temp_dir=temp, progress=progress_callback(progress), value=value_name,
                score_b=score_b, feature=feature_name,
                fit_b=None if score_b is None
                else lambda: _fit_parts(
                    lazy, keys, item, score_b, truth, mp, parted, quantiles=percentile
                ),
            )  # fmt: skip
    tick = progress_callback(progress, step="step")
    g, base = _grade(
        scores,
        keys=keys,
        item=item,
        score=score,
        truth=truth,
        groups=groups,
        multi_positive=mp,
        engine=eng,
        key_exprs=key_exprs,
        extra=[*extra_cols, *([] if feature_name is None else [feature_name])],
    )
    # before any block is scored: the transforms' domains, in the report's words
    _check_domain(
        base, keys, item, score, block_alpha, shrinkage=strength if shrink else None,
        percentile=percentile,
    )  # fmt: skip
    if score_b is not None:  # model B is ranked by the primary block's transform
        _check_domain(
            base, keys, item, score_b, {primary: block_alpha[primary]},
            shrinkage=strength if shrink else None, percentile=percentile,
        )  # fmt: skip
    pop, others, total, source = _popularity(g, item, train, popularity)
    if pop is None:
        tail_pop = weighted_count(g.g_item, minlength=g.items.len()).astype(np.float64)
        tail_total = float(tail_pop.sum())
        tail_source: str | None = "truth"
    else:
        tail_pop, tail_total, tail_source = pop, total, source
    tail = tail_items(tail_pop, tail_total, tail_share, others)
    info = None if train is None else train_information(train, keys, item, g.items)  # issue 21
    feats = None if feature_name is None else memory_features(base, item, feature_name)
    # steps: the grading, each objective's block, the popularity floor, the bootstrap
    steps = 1 + len(names) + (pop is not None) + 1
    rows = base.height

    def step(done: int, lists: int = 0) -> None:
        if tick is not None:
            from lodestar_polars._evaluate.evaluate import Progress

            tick(Progress(done, steps, rows, lists))

    step(1, int(g.g_list.size))

    def fit() -> Any:
        from lodestar_polars._report.comparability import fit_comparability

        flags = np.zeros(base.height, dtype=bool)
        flags[g.g_row[g.g_row >= 0]] = True
        frame = base.with_columns(pl.Series(_TRUTH, flags))
        return fit_comparability(frame, by=keys, item=item, y_score=score, y_true=_TRUTH)

    def fit_b() -> Any:  # model B's own state, when none is given (issue 21)
        from lodestar_polars._report.comparability import fit_comparability

        assert score_b is not None
        flags = np.zeros(base.height, dtype=bool)
        flags[g.g_row[g.g_row >= 0]] = True
        frame = base.with_columns(pl.Series(_TRUTH, flags))
        return fit_comparability(frame, by=keys, item=item, y_score=score_b, y_true=_TRUTH)

    blocks: dict[str, Block] = {}
    objective_alpha: dict[str, float | None] = {}
    comparability = None if state is None else "given"
    for name in names:
        alpha = block_alpha[name]
        fitted_before = state
        values, state = _objective_scores(
            base,
            objective=name,
            alpha=alpha,
            keys=keys,
            item=item,
            score=score,
            transforms=transforms,
            state=state,
            fit=fit,
        )
        if fitted_before is None and state is not None:
            comparability = "fitted_on_scores"
        blocks[name] = score_block(g, values, kk, tail, info, feats)
        objective_alpha[name] = None if percentile else alpha
        step(1 + len(blocks))

    floor = None
    if pop is not None:
        floor = score_block(g, pop[g.item_id], kk, tail, info, feats)
        step(steps - 1)
    model = blocks[primary]
    block_b = memory_block_b(
        g, None if score_b is None else lambda state_b: _objective_scores(
            base, objective=primary, alpha=block_alpha[primary], keys=keys, item=item,
            score=score_b, transforms=transforms, state=state_b, fit=fit_b,
        )[0],
        None if comparability == "fitted_on_scores" else state, kk, tail, info, feats,
    )  # fmt: skip
    # one set of bootstrap draws: the uncertainty block's and the paired one of B − A
    uncertainty, versus_dist = uncertainty_and_paired(
        g.unit, int(g.g_list.size), model, floor, block_b, n_resamples=n_resamples,
        confidence_level=confidence_level, seed=seed, objective=primary,
    )  # fmt: skip
    step(steps)
    longest = int(np.bincount(g.list_id)[g.g_list].max())
    extras = memory_extras(
        g, base, blocks, floor, kk=kk, primary=primary, value=value_name, score_b=score_b,
        block_b=block_b, versus_dist=versus_dist, n_resamples=n_resamples,
        confidence_level=confidence_level, seed=seed,
    )  # fmt: skip
    return finish_payload(
        kk=kk,
        blocks=blocks,
        floor=floor,
        primary=primary,
        uncertainty=uncertainty,
        objective_alpha=objective_alpha,
        longest=longest,
        tail=tail,
        tail_share=tail_share,
        tail_source=tail_source,
        n_lists=int(g.g_list.size),
        n_dropped=g.n_dropped,
        n_unseen_truth=int(np.count_nonzero(g.g_row < 0)),
        n_items=g.n_catalogue,
        mp=mp,
        source=source,
        comparability=comparability,
        strength=strength if shrink else None,
        extras=extras,
    )
