"""``lp.ranking_report`` of a large ``LazyFrame``, in parts of whole lists (issue 20).

The input is read once, in parts cut between lists (:mod:`lodestar_polars._evaluate.partition`, as
``lp.evaluate`` reads it: streamed when sorted by one key column, else partitioned once by a hash of
``by`` into temporary Arrow IPC files). Each part is graded by the in-memory code
(:func:`~lodestar_polars._report.ranking_report._grade`,
:func:`~lodestar_polars._report.ranking_report.block_terms`); what it keeps is small: per graded
list its key, truth item and the primary block's and the floor's micro values (the bootstrap's
units), per item the exposure, coverage terms and hit@k sums, per other block its micro sums. The
driver merges them: the per-list values in the in-memory order (so the primary block, the floor and
the bootstrap are bit for bit the in-memory ones), the per-item sums added part after part (equal to
about 1e-15 where the order of a sum changes).

A refusal names what the in-memory path names: every part is checked, and the first problem
in the in-memory order of checks (then of rows) is raised once all parts are read.

:func:`take_part` grades one part into a :class:`~lodestar_polars._report.parts_merge._Merged`
(with a picklable :class:`PartContext`),
:func:`~lodestar_polars._report.parts_merge.combine` folds two partial results into one (the
per-item terms over the union of their items), and
:func:`~lodestar_polars._report.parts_merge._merge` finishes the payload: the Spark report
(:mod:`lodestar_polars.spark._report`) runs the first on each partition, the second in a tree on
the executors and the third on the driver.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from lodestar_polars._core.threads import map_parts, thread_count
from lodestar_polars._evaluate.evaluate import Progress
from lodestar_polars._evaluate.parted import _release_freed_memory
from lodestar_polars._evaluate.partition import (
    Layout,
    NotGroupedError,
    grouped_parts,
    hashed_parts,
    read_ahead,
    sample_is_grouped,
)
from lodestar_polars._report.beyond import beyond_sums, information_on, information_table
from lodestar_polars._report.diversity import (
    ILD_SERVED,
    ILD_SUM,
    check_features,
    check_merged_features,
    feature_pairs,
    features_of,
    ild_sums,
)
from lodestar_polars._report.extras import check_extras
from lodestar_polars._report.parts_merge import (
    _GROUP,
    _TRUTH_ITEM,
    _TRUTH_VALUE,
    MODEL_B,
    _BlockSums,
    _keep_problem,
    _merge,
    _Merged,
)
from lodestar_polars._report.ranking_report import (
    _ROW,
    BASELINE,
    CALLER,
    RankingReport,
    Terms,
    _check_domain,
    _check_scores,
    _grade,
    _key_repr,
    _objective_scores,
    block_terms,
    micro_keys,
    popularity_on,
    popularity_table,
    weighted_count,
)
from lodestar_polars._report.serving import check_score_dtype
from lodestar_polars._report.value import truth_values

_GROW = "__lp_global_row"
_Scored = tuple[Terms, tuple[dict[str, float], Any] | None, tuple[float, int] | None]


def lazy_parts(
    lazy: pl.LazyFrame,
    keys: list[str],
    total: int,
    part_rows: int,
    layout: Layout,
    temp_dir: str | None,
    prepare: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
) -> Iterator[tuple[pl.DataFrame | None, bool]]:
    """Parts of whole lists, each with its global row number; ``(None, True)``: start again.

    A grouped input is streamed while each part's one key ascends past the last (no list can
    then be in two parts); anything else is partitioned once by a hash of ``keys``, each part
    read back and ``prepare``-d on a worker thread while the previous one is graded
    (:func:`~lodestar_polars._evaluate.partition.read_ahead`).
    """
    n_parts = max(1, -(-total // part_rows))
    if n_parts == 1:
        yield lazy.collect(engine="streaming"), False
        return
    if layout == "grouped" or (layout == "auto" and sample_is_grouped(lazy, keys)):
        streamed = grouped_parts(lazy, keys, part_rows)
        try:
            for part, ascending, _last in streamed:
                if not ascending:  # no sorted key: hashed, so that no list is in two parts
                    raise NotGroupedError(where="")
                yield part, False
            return
        except NotGroupedError as split:
            if layout == "grouped" and split.where:
                msg = (
                    f"layout='grouped' needs each list's rows in one contiguous run (a log "
                    f"sorted by `by`), but list {split.where} has rows in two places; pass "
                    "layout='shuffled' (or 'auto') to partition the input by a hash of `by`"
                )
                raise ValueError(msg) from None
        finally:
            streamed.close()
        yield None, True  # the parts read so far are dropped: hashed from the start
    hashed = hashed_parts(lazy, keys, n_parts, temp_dir)
    ahead = read_ahead(hashed, prepare or (lambda part: part))
    try:
        for part in ahead:
            yield part, False
    finally:
        ahead.close()  # closes the hashed parts on the worker: the temporary files go


_PAIR_DTYPES = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32)


def in_grading_order(part: pl.DataFrame, keys: list[str], item: str) -> pl.DataFrame:
    """A part in (list, item) order, sorted on one thread (a worker's, beside the grading).

    :func:`~lodestar_polars._report.ranking_report._grade` sorts every part into (list id,
    item id) order, ids that ascend with the key and the item; a part already in that order
    costs it a fifth of the sort of a shuffled one (5e6 rows: 0.08 s against 0.37 s), and the
    sort here, on one thread beside the grading of the previous part, takes two thirds of the
    CPU time of Polars' sort on every core.  One integer key and an integer item: one Int64
    key from their ranges, when it fits; else the part sorted by its keys, which halves the
    grading's sort.  The grading reads the input's order from the global row numbers, so
    nothing a refusal names or ``multi_positive="first"`` picks changes.
    """
    schema = part.schema
    if not part.height:
        return part
    if len(keys) == 1 and schema[keys[0]] in _PAIR_DTYPES and schema[item] in _PAIR_DTYPES:
        key, it = pl.col(keys[0]).cast(pl.Int64), pl.col(item).cast(pl.Int64)
        low_key, high_key, low_item, high_item = part.select(
            key.min().alias("a"), key.max().alias("b"), it.min().alias("c"), it.max().alias("d")
        ).row(0)
        if None not in (low_key, high_key, low_item, high_item):
            span = high_item - low_item + 1
            if (high_key - low_key + 1) * span < 2**63:
                pair = (key - low_key) * span + (it - low_item)
                return part.sort(pair, multithreaded=False)
    if all(
        schema[k].is_numeric() or schema[k].is_temporal() or schema[k] == pl.String for k in keys
    ):
        return part.sort(keys, maintain_order=True, multithreaded=False)
    return part


def _first_row(part: pl.DataFrame, mask: pl.Expr) -> int:
    return int(part.filter(mask)[_GROW].min())  # type: ignore[arg-type]


def _problem_key(
    part: pl.DataFrame, keys: list[str], item: str, score: str, truth: str, groups: str | None
) -> tuple[Any, ...]:
    """(check, row) of a part's first problem, in the order :func:`_grade` checks."""
    columns = [*keys, item, score, *([] if groups is None else [groups])]
    for stage, name in enumerate(columns):
        if part[name].null_count():
            return (stage, _first_row(part, pl.col(name).is_null()))
    n = len(columns)
    infinite = ~pl.col(score).cast(pl.Float64).is_finite()
    if part.filter(infinite).height:
        return (n, _first_row(part, infinite))
    duplicated = pl.struct([*keys, item]).is_duplicated()
    if part.filter(duplicated).height:
        return (n + 1, _first_row(part, duplicated))
    col = pl.col(truth)
    bad = col.is_null() if part.schema[truth] == pl.Boolean else col.is_null() | ~col.is_in([0, 1])
    if part.filter(bad).height:
        return (n + 2, _first_row(part, bad))
    return (n + 4, 0)  # groups not constant within a list: any list


def _mixed_group(part: pl.DataFrame, keys: list[str], groups: str | None) -> ValueError | None:
    """The whole path's refusal of a ``groups`` column varying within a list, or None."""
    if groups is None:
        return None
    per_list = part.group_by(keys).agg(pl.col(groups).n_unique().alias("__lp_n"))
    mixed = per_list.filter(pl.col("__lp_n") > 1).sort(keys)
    if not mixed.height:
        return None
    row = mixed.row(0, named=True)
    return ValueError(
        f"{CALLER}: groups column {groups!r} must be constant within a list; list "
        f"{_key_repr(row, keys)} has {row['__lp_n']} values."
    )


@dataclass(frozen=True)
class PartContext:
    """What grading a part needs, besides the part: the roles and the checked options.

    Picklable (a Spark task receives it with the function it runs on its partition).
    ``check_only``: a refusal is coming anyway, so a part is only checked, not graded.
    """

    keys: list[str]
    item: str
    score: str
    truth: str
    groups: str | None
    mp: str
    kk: int
    names: list[str]
    primary: str
    block_alpha: dict[str, float]
    transforms: dict[str, Any]
    state: Any
    table: tuple[pl.DataFrame, float, str] | None
    shrink: bool
    strength: float | None
    percentile: bool
    check_only: bool = False
    value: str | None = None  # issue 21: the value column
    score_b: str | None = None  # issue 21: model B's scores
    state_b: Any = None
    check_extras: bool = False  # Spark: the value and B columns checked per partition
    information: tuple[pl.DataFrame, float] | None = None  # issue 21: train's, per item
    feature: str | None = None  # issue 21: the items' category or embedding column


def _no_fit() -> Any:  # pragma: no cover - the state is fitted before the parts
    raise AssertionError


def take_part(merged: _Merged, part: pl.DataFrame, ctx: PartContext) -> None:
    """Grade one part of whole lists (with its ``_GROW`` row numbers), keeping its terms.

    Its first problem, in the in-memory order of checks, is kept in ``merged.problem`` instead.
    """
    keys, item, score, truth, groups = ctx.keys, ctx.item, ctx.score, ctx.truth, ctx.groups
    kk, names, primary, table = ctx.kk, ctx.names, ctx.primary, ctx.table
    micro = [key for key, _, _ in micro_keys(kk)]
    hit = f"hit@{kk}"
    if ctx.check_extras and (ctx.value is not None or ctx.score_b is not None):
        try:  # before any other check, as the whole path's check_extras
            check_extras(part, (), keys, item, ctx.value, ctx.score_b, row=_GROW)
        except ValueError as error:
            _keep_problem(merged, (-1, _extras_row(error)), error)
            return
    try:
        _check_scores(part.rename({_GROW: _ROW}), keys, item, score, groups)
        extra = [c for c in (ctx.value, ctx.score_b, ctx.feature) if c is not None]
        g, base = _grade(
            part, keys=keys, item=item, score=score, truth=truth, groups=groups,
            multi_positive=ctx.mp, engine="in-memory", extra=extra, order=_GROW,
        )  # fmt: skip
    except ValueError as error:
        if str(error).startswith(f"{CALLER}: no list of scores has a positive"):
            mixed = _mixed_group(part, keys, groups)
            if mixed is not None:  # the whole path checks it when any list is graded
                # the stage _problem_key gives it: after the truth check
                _keep_problem(merged, (len(keys) + 8, 0), mixed)
            merged.items.append(part[item].unique().sort())
            if ctx.feature is not None:  # checked with every part's on the driver
                merged.features.append(feature_pairs(part, item, ctx.feature))
            merged.n_dropped += part.select(pl.struct(keys).n_unique()).item()
            return
        _keep_problem(merged, _problem_key(part, keys, item, score, truth, groups), error)
        return
    try:
        _check_domain(
            base, keys, item, score, ctx.block_alpha,
            shrinkage=ctx.strength if ctx.shrink else None, percentile=ctx.percentile,
        )  # fmt: skip
        if ctx.score_b is not None:
            _check_domain(
                base, keys, item, ctx.score_b, {primary: ctx.block_alpha[primary]},
                shrinkage=ctx.strength if ctx.shrink else None, percentile=ctx.percentile,
            )  # fmt: skip
    except ValueError as error:
        scored = [score, *([] if ctx.score_b is None else [ctx.score_b])]
        bad = pl.concat(
            [
                base.filter(
                    (pl.col(s) < 0) | ((pl.col(s) > 1) if ctx.shrink else pl.lit(False))
                ).select(*keys, item)
                for s in scored
            ]
        ).row(0, named=True)
        _keep_problem(merged, (99, tuple(bad[k] for k in [*keys, item])), error)
        return
    if merged.problem is not None or ctx.check_only:
        return  # a refusal is coming: the other parts are only checked
    feats = None
    if ctx.feature is not None:  # the pairs are checked together on the driver (its refusal)
        pairs = feature_pairs(base, item, ctx.feature)
        merged.features = [pl.concat([*merged.features, pairs]).unique()]  # one frame of pairs
        try:
            check_features(pairs, item, ctx.feature)
            feats = features_of(base[ctx.feature])
        except ValueError:
            pass  # check_merged_features refuses with the whole path's sentence
    merged.graded.append(len(merged.items))
    merged.items.append(g.items)
    merged.n_dropped += g.n_dropped
    merged.n_unseen += int(np.count_nonzero(g.g_row < 0))
    merged.longest = max(merged.longest, int(np.bincount(g.list_id)[g.g_list].max()))
    lists = g.keys.select(keys)[g.g_list].with_columns(g.items.gather(g.g_item).alias(_TRUTH_ITEM))
    if groups is not None:
        first = part.group_by(keys).agg(pl.col(groups).first().alias(_GROUP))
        lists = lists.join(first, on=keys, how="left", maintain_order="left")
    if ctx.value is not None:
        per_row = np.asarray(base[ctx.value].cast(pl.Float64).to_numpy(), dtype=np.float64)
        lists = lists.with_columns(pl.Series(_TRUTH_VALUE, truth_values(per_row, g.g_row)))
    merged.lists.append(lists)
    n_ids = g.items.len()
    extra_blocks = [] if ctx.score_b is None else [MODEL_B]
    blocks = [*names, *([] if table is None else [BASELINE]), *extra_blocks]
    info = None if ctx.information is None else information_on(g.items, item, ctx.information)

    def score_block(name: str) -> _Scored:
        """One block's terms (and sums beyond accuracy) over the part: it reads, never writes."""
        if name == BASELINE:
            assert table is not None
            values = popularity_on(g.items, item, table[0])[0][g.item_id]
        elif name == MODEL_B:
            assert ctx.score_b is not None
            values, _ = _objective_scores(
                base, objective=primary, alpha=ctx.block_alpha[primary], keys=keys, item=item,
                score=ctx.score_b, transforms=ctx.transforms, state=ctx.state_b, fit=_no_fit,
            )  # fmt: skip
        else:
            values, _ = _objective_scores(
                base, objective=name, alpha=ctx.block_alpha[name], keys=keys, item=item,
                score=score, transforms=ctx.transforms, state=ctx.state, fit=_no_fit,
            )  # fmt: skip
        terms = block_terms(g, values, kk)
        del values
        beyond = ild = None
        if info is not None:  # issue 21: novelty, ARP, serendipity, ..., as sums
            assert terms.top is not None
            beyond = beyond_sums(g, terms.top, info, kk, terms.bounds)
        if feats is not None:  # issue 21: intra-list diversity, as sums
            assert terms.top is not None
            ild = ild_sums(g, terms.top, feats, kk)
        return terms, beyond, ild

    # the blocks two at a time, each in a thread: their NumPy work runs on one core each (the
    # GIL released), and one block alone left the other core idle; their sums are kept in the
    # blocks' order, so every number is the one of a block after the other
    width = max(1, min(2, thread_count()))
    for at in range(0, len(blocks), width):
        chunk = blocks[at : at + width]
        results = map_parts(_nth(score_block, chunk), len(chunk))
        for name, (terms, beyond, ild) in zip(chunk, results, strict=True):
            sums = merged.blocks.setdefault(name, _BlockSums())
            sums.exposure.append(terms.exposure)
            sums.covered.append(terms.covered)
            sums.miss.append(terms.miss)
            sums.hit_count.append(weighted_count(g.g_item, minlength=n_ids))
            sums.hit_sum.append(
                weighted_count(g.g_item, weights=terms.per_list[hit], minlength=n_ids)
            )
            if beyond is not None:
                more, by_cut = beyond
                sums.by_cut.append(by_cut)
                for key, add in more.items():
                    sums.micro_sum[key] = sums.micro_sum.get(key, 0.0) + add
            if ild is not None:
                for key, add in ((ILD_SUM, ild[0]), (ILD_SERVED, float(ild[1]))):
                    sums.micro_sum[key] = sums.micro_sum.get(key, 0.0) + add
            if name in (primary, BASELINE, MODEL_B) or ctx.value is not None:  # value: every
                for key in micro:
                    merged.per_list.setdefault(f"{name}:{key}", []).append(terms.per_list[key])
            else:
                for key in micro:
                    sums.micro_sum[key] = sums.micro_sum.get(key, 0.0) + float(
                        terms.per_list[key].sum()
                    )
        del results


def _nth(fn: Callable[[str], _Scored], names: list[str]) -> Callable[[int], _Scored]:
    """``fn`` of the ``i``-th name, for :func:`~lodestar_polars._core.threads.map_parts`."""
    return lambda i: fn(names[i])


def _extras_row(error: ValueError) -> int:
    """The row a value or y_score_b refusal names (its sentence's "row N"), for the order."""
    import re

    found = re.search(r"\brow (\d+)", str(error))
    return int(found.group(1)) if found else -1


def report_in_parts(
    lazy: pl.LazyFrame,
    total: int,
    *,
    keys: list[str],
    item: str,
    score: str,
    truth: str,
    groups: str | None,
    mp: str,
    kk: int,
    names: Sequence[str],
    primary: str,
    block_alpha: Mapping[str, float],
    transforms: Mapping[str, Any],
    state: Any,
    fit: Callable[[], Any] | None,
    train: Any,
    popularity: Any,
    tail_share: float,
    shrink: bool,
    strength: float | None,
    percentile: bool,
    n_resamples: int,
    confidence_level: float,
    seed: int,
    part_rows: int,
    layout: Layout,
    temp_dir: str | None,
    progress: Callable[[Progress], None] | None = None,
    value: str | None = None,
    score_b: str | None = None,
    fit_b: Callable[[], Any] | None = None,
    feature: str | None = None,
) -> RankingReport:
    """The report of ``lazy`` (its ``by`` keys already columns), read in parts of whole lists."""
    schema = lazy.collect_schema()
    extra = [c for c in (value, score_b, feature) if c is not None]
    wanted = list(dict.fromkeys([*keys, item, score, truth, *([groups] if groups else []), *extra]))
    source_lazy = lazy.select(wanted).with_row_index(_GROW)
    check_score_dtype(schema, score, CALLER)
    later: list[ValueError] = []  # refusals the in-memory path raises after the grading's
    table = None
    try:
        table = popularity_table(item, schema[item], train, popularity)
    except ValueError as error:
        later.append(error)
    comparability = None if state is None else "given"
    needs_state = any(
        not (block_alpha[n] == 0.0 and not transforms["shrinkage"] and not percentile)
        for n in names
    )
    if needs_state and state is None and fit is not None:
        try:
            state = fit()
            comparability = "fitted_on_scores"
        except ValueError as error:  # the grading's refusal, if any, comes first
            later.append(error)
    state_b = state if comparability == "given" else None
    primary_needs = not (
        block_alpha[primary] == 0.0 and not transforms["shrinkage"] and not percentile
    )
    if score_b is not None and primary_needs and state_b is None and fit_b is not None:
        try:
            state_b = fit_b()  # model B's own state, fitted on its scores (issue 21)
        except ValueError as error:
            later.append(error)

    context = PartContext(
        keys=keys, item=item, score=score, truth=truth, groups=groups, mp=mp, kk=kk,
        names=list(names), primary=primary, block_alpha=dict(block_alpha),
        transforms=dict(transforms), state=state, table=table, shrink=shrink,
        strength=strength, percentile=percentile, check_only=bool(later), value=value,
        score_b=score_b, state_b=state_b, feature=feature,
        information=None if train is None or later else information_table(train, keys, item),
    )  # fmt: skip
    merged = _Merged()

    def take(part: pl.DataFrame) -> None:
        take_part(merged, part, context)

    # steps: each part (an estimate until the last), then the merge and the bootstrap
    estimate = max(1, -(-total // part_rows))
    done = rows_done = 0
    parts = lazy_parts(
        source_lazy, keys, total, part_rows, layout, temp_dir,
        prepare=lambda part: in_grading_order(part, keys, item),
    )  # fmt: skip
    for part, restart in parts:
        if restart:
            merged = _Merged()
            done = rows_done = 0
            continue
        assert part is not None
        lists_before = len(merged.lists)
        if part.height:
            take(part)
        done += 1
        rows_done += part.height
        if progress is not None:
            lists = merged.lists[-1].height if len(merged.lists) > lists_before else 0
            progress(Progress(done, max(estimate, done) + 1, rows_done, lists))
        del part  # before the next part is read: one part in memory at a time
        _release_freed_memory()
    if merged.problem is not None:
        raise merged.problem[1]
    if not merged.lists:
        msg = f"{CALLER}: no list of scores has a positive, so there is nothing to grade."
        raise ValueError(msg)
    if later:
        raise later[0]
    check_merged_features(merged, item, feature)
    report = _merge(
        merged, keys=keys, item=item, groups=groups, kk=kk, names=names, primary=primary,
        table=table, tail_share=tail_share, mp=mp, comparability=comparability,
        strength=strength if shrink else None, percentile=percentile, block_alpha=block_alpha,
        n_resamples=n_resamples, confidence_level=confidence_level, seed=seed, value=value,
        score_b=score_b,
    )  # fmt: skip
    if progress is not None:
        progress(Progress(done + 1, done + 1, rows_done, 0))
    return report
