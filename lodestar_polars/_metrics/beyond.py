"""Beyond-accuracy measures of served lists as Polars expressions (docs/beyond-accuracy.md).

Per list (one user's served items, used in ``df.group_by("user").agg(...)``):
:func:`novelty`, :func:`average_recommended_popularity`,
:func:`intra_list_diversity`, :func:`serendipity`.  Across lists (in
:mod:`lodestar_polars._metrics.across_lists`): :func:`personalisation`, a function of a frame of
lists, and :func:`item_popularity`.  The top ``k`` of a
list with tied scores is the expectation over the tie's orderings, as in
:mod:`lodestar_polars._core.beyond`, whose NumPy cores compute the same
numbers.
"""

from __future__ import annotations

import polars as pl

from lodestar_polars._base.validation import (
    check_column,
    check_int,
    check_k,
)
from lodestar_polars._metrics.expr import (
    Check,
    Fields,
    Metric,
    as_float,
    as_score,
    empty_check,
    finite_checks,
    let,
    over_rows,
    ranks_as_counts,
)
from lodestar_polars.typing import IntoExprColumn


def _weights(score: pl.Expr, k: int | None) -> tuple[pl.Expr, pl.Expr]:
    """``(w, m)``: each row's chance to be in the top ``k``, and the top's size."""
    if k is None:
        return pl.repeat(1.0, pl.len(), dtype=pl.Float64), pl.len().cast(pl.Float64)
    above, through = ranks_as_counts(score)
    block = (through - above).cast(pl.Float64)
    w = (pl.lit(float(k)) - above).clip(lower_bound=0.0) / block
    return w.clip(upper_bound=1.0), pl.min_horizontal(pl.len(), pl.lit(k)).cast(pl.Float64)


def _range_check(x: pl.Expr, bad: pl.Expr, text: str) -> Check:
    return Check.any_row(bad.fill_null(False), pl.format(text, x.filter(bad).first()))


def _popularity_metric(
    y_score: IntoExprColumn,
    *,
    popularity: IntoExprColumn,
    k: int | None,
    name: str,
    caller: str,
    information: bool,
) -> Metric:
    k = check_k(k, caller)
    check_column(popularity, "popularity", caller)
    check_column(y_score, "y_score", caller)
    p, score = as_float(popularity), as_score(y_score)
    w, m = _weights(score, k)
    if information:
        bad = (p <= 0.0) | (p > 1.0)
        rule = f"{caller} needs a popularity in (0, 1] (a share of users). Got {{}} instead."
        value = (w * -(p.log(2.0))).sum() / m
    else:
        bad = p < 0.0
        rule = f"{caller} needs a popularity of at least 0. Got {{}} instead."
        value = (w * p).sum() / m
    checks = (
        empty_check(),
        *finite_checks(p, "popularity"),
        *finite_checks(score, "y_score"),
        _range_check(p, bad, rule),
    )
    return Metric(name, value, checks)


def novelty_metric(
    y_score: IntoExprColumn,
    *,
    popularity: IntoExprColumn,
    k: int | None = None,
    name: str = "novelty",
) -> Metric:
    """The :class:`Metric` behind :func:`novelty`."""
    return _popularity_metric(
        y_score, popularity=popularity, k=k, name=name, caller="novelty", information=True
    )


def novelty(
    y_score: IntoExprColumn, *, popularity: IntoExprColumn, k: int | None = None
) -> pl.Expr:
    r"""Mean self-information of a list's top ``k`` items (RecTools' ``MeanInvUserFreq``).

    .. math:: \mathrm{novelty@k} = \frac{1}{m} \sum_{i \in \mathrm{top}\,k} -\log_2 p_i,
              \quad m = \min(k, n)

    ``p_i``: the share of training users who interacted with item ``i``
    (:func:`lodestar_polars.item_popularity` gives it).  Log base 2 (bits).
    Equal scores at the cut count as the expectation over their orderings:
    the tie block at the cut contributes its mean times the slots it fills.
    In :func:`lodestar_polars.evaluate`: ``"novelty@k"`` with ``popularity=``.

    Parameters
    ----------
    popularity : str or polars.Expr
        Per row, the served item's share of training users, in (0, 1].  A
        cold item (no training user) has none: RecTools counts it as one user,
        ``1 / n_users``; give it that, or any share you choose.
    y_score : str or polars.Expr
        The scores the list was ranked by (a rank column: ``-pl.col("rank")``).
    k : int, default=None
        The top ``k`` rows; None: the whole list.

    Returns
    -------
    polars.Expr
        Float64 named ``novelty``, one value per list, in [0, inf); null for a
        list with a null, NaN or infinite value or a popularity outside (0, 1].

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame({"user": [1, 1, 1], "p": [0.5, 0.25, 1.0], "score": [3, 2, 1]})
    >>> df.group_by("user").agg(lp.novelty("score", popularity="p", k=2))["novelty"].to_list()
    [1.5]

    ``(-log2 0.5 - log2 0.25) / 2 = (1 + 2) / 2``.
    """
    return novelty_metric(y_score, popularity=popularity, k=k).expr()


def average_recommended_popularity_metric(
    y_score: IntoExprColumn,
    *,
    popularity: IntoExprColumn,
    k: int | None = None,
    name: str = "average_recommended_popularity",
) -> Metric:
    """The :class:`Metric` behind :func:`average_recommended_popularity`."""
    return _popularity_metric(
        y_score,
        popularity=popularity,
        k=k,
        name=name,
        caller="average_recommended_popularity",
        information=False,
    )


def average_recommended_popularity(
    y_score: IntoExprColumn, *, popularity: IntoExprColumn, k: int | None = None
) -> pl.Expr:
    r"""Average recommended popularity (ARP): the mean popularity of a list's top ``k``.

    .. math:: \mathrm{ARP@k} = \frac{1}{m} \sum_{i \in \mathrm{top}\,k} p_i,
              \quad m = \min(k, n)

    With ``p`` the share of training users who interacted, this is RecTools'
    ``AvgRecPopularity`` (``normalize=False``, which counts interaction rows:
    users, where no user-item pair repeats) divided by the number of training
    users; give the counts (``users``) to get RecTools' number.
    Ties at the cut: the expectation over their orderings, as :func:`novelty`.
    In :func:`lodestar_polars.evaluate`: ``"arp@k"`` with ``popularity=``.

    Parameters
    ----------
    popularity : str or polars.Expr
        Per row, the served item's popularity, at least 0 (cold items: 0, as RecTools).
    y_score : str or polars.Expr
        The scores the list was ranked by.
    k : int, default=None
        The top ``k`` rows; None: the whole list.

    Returns
    -------
    polars.Expr
        Float64 named ``average_recommended_popularity``, one value per list.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame({"user": [1, 1, 1], "p": [0.5, 0.2, 0.2], "score": [2, 1, 1]})
    >>> arp = lp.average_recommended_popularity("score", popularity="p", k=2)
    >>> df.group_by("user").agg(arp)["average_recommended_popularity"].to_list()
    [0.35]
    """
    return average_recommended_popularity_metric(y_score, popularity=popularity, k=k).expr()


def _sum_sq_counts(feature: pl.Expr, chosen: pl.Expr) -> pl.Expr:
    return feature.filter(chosen).unique_counts().cast(pl.Float64).pow(2).sum()


def intra_list_diversity_metric(
    y_score: IntoExprColumn,
    *,
    feature: IntoExprColumn,
    k: int | None = None,
    dim: int | None = None,
    name: str = "intra_list_diversity",
) -> Metric:
    """The :class:`Metric` behind :func:`intra_list_diversity`."""
    caller = "intra_list_diversity"
    k = check_k(k, caller)
    dim = check_int(dim, "dim", caller)
    check_column(feature, "feature", caller)
    check_column(y_score, "y_score", caller)
    score = as_score(y_score)
    f = pl.col(feature) if isinstance(feature, str) else feature
    checks: list[Check] = [
        empty_check(),
        *finite_checks(score, "y_score"),
        Check(f.is_null().any(), pl.lit("Input feature contains null.")),
    ]
    if dim is not None:
        values = f.list.eval(pl.element().cast(pl.Float64))
        norm = values.list.eval(pl.element().pow(2)).list.sum().sqrt()
        wrong = f.list.len() != dim
        checks += [
            Check.any_row(
                wrong.fill_null(False),
                pl.format(
                    f"intra_list_diversity needs embeddings of dim={dim} values. "
                    "Got one of {} instead.",
                    f.list.len().filter(wrong).first(),
                ),
            ),
            Check(
                (~values.list.explode().is_finite()).any(),
                pl.lit("Input feature contains NaN, infinity or a null value in an embedding."),
            ),
            Check(
                (norm == 0.0).any(),
                pl.lit("intra_list_diversity needs embeddings of nonzero norm (cosine distance)."),
            ),
        ]
    value = over_rows({"score": score, "f": f}, lambda r: _ild_rows(r, k, dim)).list.first()
    return Metric(name, value, tuple(checks))


def _ild_rows(rows: Fields, k: int | None, dim: int | None) -> pl.Expr:
    """ILD of one list's rows (fields ``score`` and ``f``), inside :func:`over_rows`.

    The top-k chances ``w`` (and, for embeddings, the unit vectors' components)
    are held by :func:`let`, computed once however often the sums read them.
    """
    w, m = _weights(rows["score"], k)
    if dim is None:
        return let({"w": w, "f": rows["f"], "m": m}, _category_similarity)
    values = rows["f"].list.eval(pl.element().cast(pl.Float64))
    norm = values.list.eval(pl.element().pow(2)).list.sum().sqrt()

    def unit(x: Fields) -> pl.Expr:
        parts = {f"u{j}": x["v"].list.get(j, null_on_oob=True) / x["norm"] for j in range(dim)}
        return let({"w": x["w"], "m": x["m"], **parts}, lambda y: _cosine_similarity(y, dim))

    return let({"w": w, "m": m, "v": values, "norm": norm}, unit)


def _block(x: Fields) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """``(full, part, n_full, n_part, q, pair)`` of the top ``k`` from the chances ``w``."""
    w = x["w"]
    full, part = w == 1.0, (w > 0.0) & (w < 1.0)
    n_part = part.sum().cast(pl.Float64)
    q = w.filter(part).first().fill_null(0.0)  # s / c of the block at the cut
    pair = pl.when(n_part > 1).then(q * (q * n_part - 1.0) / (n_part - 1.0)).otherwise(0.0)
    return full, part, full.sum().cast(pl.Float64), n_part, q, pair


def _diversity(similar: pl.Expr, m: pl.Expr) -> pl.Expr:
    m = m.first()
    return pl.when(m >= 2.0).then(1.0 - similar / (m * (m - 1.0) / 2.0)).otherwise(0.0)


def _category_similarity(x: Fields) -> pl.Expr:
    full, part, n_full, n_part, q, pair = _block(x)
    f = x["f"]
    a2, b2 = _sum_sq_counts(f, full), _sum_sq_counts(f, part)
    u2 = _sum_sq_counts(f, full | part)
    same = (a2 - n_full) / 2.0 + q * (u2 - a2 - b2) / 2.0 + pair * (b2 - n_part) / 2.0
    return _diversity(same, x["m"])


def _cosine_similarity(x: Fields, dim: int) -> pl.Expr:
    full, part, n_full, n_part, q, pair = _block(x)
    s_a = [x[f"u{j}"].filter(full).sum() for j in range(dim)]
    s_b = [x[f"u{j}"].filter(part).sum() for j in range(dim)]
    sq_a = pl.sum_horizontal(*[a * a for a in s_a])
    sq_b = pl.sum_horizontal(*[b * b for b in s_b])
    cross = pl.sum_horizontal(*[a * b for a, b in zip(s_a, s_b, strict=True)])
    similar = (sq_a - n_full) / 2.0 + q * cross + pair * (sq_b - n_part) / 2.0
    return _diversity(similar, x["m"])


def intra_list_diversity(
    y_score: IntoExprColumn,
    *,
    feature: IntoExprColumn,
    k: int | None = None,
    dim: int | None = None,
) -> pl.Expr:
    r"""Intra-list diversity (ILD): the mean distance of the pairs of a list's top ``k``.

    .. math:: \mathrm{ILD@k} = \frac{2}{m (m - 1)} \sum_{i < j \in \mathrm{top}\,k} d(i, j),
              \quad m = \min(k, n)

    With ``dim=None`` the feature is a category (any dtype, compared by
    equality) and ``d(i, j) = 1`` where the categories differ: RecTools'
    ``IntraListDiversity`` with its Hamming distance over one feature.  It is
    computed from counts: ``1 - (same-category pairs) / (pairs)``.  With
    ``dim`` set, the feature is a list of ``dim`` floats (an embedding) and
    ``d`` is the cosine distance ``1 - cos``, computed from the norms of the
    sums of the unit vectors (``sum over pairs of u_i . u_j = (|sum u|^2 - m) / 2``).
    A list of one item scores 0, as RecTools.  Ties at the cut: the
    expectation over their orderings (a row of the block at the cut is in
    with chance ``s / c``, a pair of its rows with ``s (s - 1) / (c (c - 1))``).
    In :func:`lodestar_polars.evaluate`: ``"ild@k"`` with ``feature=`` (an
    embedding: an Array column, or a list column and ``"ild(dim=d)@k"``).

    Parameters
    ----------
    feature : str or polars.Expr
        Per row, the item's category, or its embedding (a list of ``dim`` floats).
    y_score : str or polars.Expr
        The scores the list was ranked by.
    k : int, default=None
        The top ``k`` rows; None: the whole list.
    dim : int, default=None
        The embedding's length; None: the feature is a category.

    Returns
    -------
    polars.Expr
        Float64 named ``intra_list_diversity``, one value per list, in [0, 1]
        for categories, [0, 2] for cosine distances.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame({"user": [1, 1, 1], "genre": ["a", "a", "b"], "score": [3, 2, 1]})
    >>> df.group_by("user").agg(lp.intra_list_diversity("score", feature="genre"))[
    ...     "intra_list_diversity"
    ... ].to_list()
    [0.6666666666666667]

    Three pairs, two of different genres.
    """
    return intra_list_diversity_metric(y_score, feature=feature, k=k, dim=dim).expr()


def serendipity_metric(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    popularity_rank: IntoExprColumn,
    n_items: int,
    k: int | None = None,
    name: str = "serendipity",
) -> Metric:
    """The :class:`Metric` behind :func:`serendipity`."""
    caller = "serendipity"
    k = check_k(k, caller)
    n = check_int(n_items, "n_items", caller, allow_none=False)
    check_column(popularity_rank, "popularity_rank", caller)
    check_column(y_true, "y_true", caller)
    check_column(y_score, "y_score", caller)
    rel = (as_float(y_true) > 0).cast(pl.Float64)
    score = as_score(y_score)
    rank = as_float(popularity_rank)
    value = over_rows(
        {"score": score, "rel": rel, "rank": rank},
        lambda r: _serendipity_rows(r, k, float(n)),  # type: ignore[arg-type]
    ).list.first()
    bad = rank < 1.0
    checks = (
        empty_check(),
        *finite_checks(as_float(y_true), "y_true"),
        *finite_checks(score, "y_score"),
        *finite_checks(rank, "popularity_rank"),
        _range_check(
            rank, bad, "serendipity needs a popularity_rank of at least 1. Got {} instead."
        ),
    )
    return Metric(name, value, checks)


def _serendipity_rows(rows: Fields, k: int | None, n_items: float) -> pl.Expr:
    """Serendipity of one list's rows (``score``, ``rel``, ``rank``), inside :func:`over_rows`."""
    above, through = ranks_as_counts(rows["score"])
    _, m = _weights(rows["score"], k)

    def value(x: Fields) -> pl.Expr:
        above_f, through_f, rank = x["above"], x["through"], x["rank"]
        lo = above_f + 1.0
        hi = through_f if k is None else pl.min_horizontal(through_f, pl.lit(float(k)))
        h = pl.min_horizontal(hi, rank - 1.0)
        count = (h - lo + 1.0).clip(lower_bound=0.0)
        series = (count * rank - (lo + h) * count / 2.0) / (through_f - above_f)
        return (x["rel"] * series).sum() / (n_items * x["m"].first())

    fields = {
        "above": above.cast(pl.Float64),
        "through": through.cast(pl.Float64),
        "rank": rows["rank"],
        "rel": rows["rel"],
        "m": m,
    }
    return let(fields, value)


def serendipity(
    y_true: IntoExprColumn,
    y_score: IntoExprColumn,
    *,
    popularity_rank: IntoExprColumn,
    n_items: int,
    k: int | None = None,
) -> pl.Expr:
    r"""Serendipity as RecTools defines it: relevant items ranked above their popularity.

    .. math:: \mathrm{serendipity@k} = \frac{1}{m} \sum_{i \in \mathrm{top}\,k}
              \mathrm{rel}_i \frac{\max(r_i - \mathrm{pos}_i, 0)}{N}

    (RecTools writes it ``max(p(i) - pu(i), 0) rel(i)`` with
    ``p(i) = (N + 1 - pos_i) / N`` and ``pu(i) = (N + 1 - r_i) / N``.)
    ``pos_i``: the item's 1-based position; ``r_i``: its dense popularity
    rank in training (1 the most interacted-with; a cold item ``N + 1``, so
    ``pu = 0``); ``N``: the catalogue's size; ``m = min(k, n)`` (RecTools'
    mean over the rows in the top ``k``).  Ties: each row of a tie block at
    positions ``a+1 .. a+c`` sits at each with chance ``1 / c``, only
    positions up to ``k`` counting (a sum in closed form).
    In :func:`lodestar_polars.evaluate`: ``"serendipity@k"`` with
    ``popularity_rank=`` and ``n_items=``.

    Parameters
    ----------
    y_true : str or polars.Expr
        Per row, whether the served item is in the user's test interactions (> 0 or True).
    y_score : str or polars.Expr
        The scores the list was ranked by.
    popularity_rank : str or polars.Expr
        Per row, the item's dense popularity rank (:func:`lodestar_polars.item_popularity`).
    n_items : int
        The catalogue's size ``N``.
    k : int, default=None
        The top ``k`` rows; None: the whole list.

    Returns
    -------
    polars.Expr
        Float64 named ``serendipity``, one value per list, in [0, 1].

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> df = pl.DataFrame(
    ...     {"user": [1, 1], "hit": [1, 1], "score": [2, 1], "pop_rank": [3, 1]}
    ... )
    >>> s = lp.serendipity("hit", "score", popularity_rank="pop_rank", n_items=4, k=2)
    >>> df.group_by("user").agg(s)["serendipity"].to_list()
    [0.25]

    ``(max(3 - 1, 0) / 4 + max(1 - 2, 0) / 4) / 2 = 0.25``.
    """
    return serendipity_metric(
        y_true, y_score, popularity_rank=popularity_rank, n_items=n_items, k=k
    ).expr()


__all__ = [
    "average_recommended_popularity",
    "intra_list_diversity",
    "novelty",
    "serendipity",
]
