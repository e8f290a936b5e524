"""LensKit's and RecTools' conventions (issue 21): the options, by hand and against the references.

The options: ``discount="lenskit"`` on ``lp.dcg`` / ``lp.ndcg`` (LensKit's
``1 / log2(max(rank, 2))``), ``denominator="k"`` on ``lp.ndcg`` (RecTools' ideal,
``k`` slots of gain 1) and ``denominator="retrieved"`` on ``lp.precision``
(LensKit's precision over a short list's length), ``denominator="min_k"`` on
``lp.recall`` (LensKit's recall over ``min(relevant, k)``).  The hand tests write the
arithmetic out; the corpus tests read the per-user numbers LensKit 2025.8.1 and
RecTools 0.19.0 returned, frozen by ``corpus/recsys_conventions.py`` into
``corpus/recsys_conventions.json`` (these tests never import either).
"""

from __future__ import annotations

import inspect
import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._core.dcg import dcg_segments, ndcg_segments
from lodestar_polars._core.discount import DISCOUNTS
from lodestar_polars._core.ir import precision_segments, recall_segments
from lodestar_polars._metrics.dcg import NDCG_DENOMINATORS
from lodestar_polars._metrics.ir import DENOMINATORS as RECALL_DENOMINATORS
from lodestar_polars._metrics.ir import PRECISION_DENOMINATORS
from lodestar_polars._registry import REGISTRY

LOG2_3 = math.log(3) / math.log(2)


def _one(frame: pl.DataFrame, expr: pl.Expr) -> float:
    value = frame.select(expr).item()
    assert isinstance(value, float)
    return value


# ---------------------------------------------------------------- discount="lenskit"

PERFECT = pl.DataFrame({"rel": [3, 2, 1, 0], "score": [4.0, 3.0, 2.0, 1.0]})


@pytest.mark.parametrize("ties", ["average", "input"])
def test_lenskit_discount_dcg_by_hand(ties: str) -> None:
    # ranks 1 and 2 both weigh 1 / log2(2) = 1, rank 3 weighs 1 / log2(3)
    expected = 3.0 + 2.0 + 1.0 / LOG2_3
    got = _one(PERFECT, lp.dcg("rel", "score", discount="lenskit", ties=ties))
    assert got == pytest.approx(expected, abs=1e-12)
    # the default discount: 3 + 2 / log2(3) + 1 / 2
    default = _one(PERFECT, lp.dcg("rel", "score", ties=ties))
    assert default == pytest.approx(3.0 + 2.0 / LOG2_3 + 0.5, abs=1e-12)


def test_lenskit_discount_with_log_base_and_k() -> None:
    # base 10: ln(10) / ln(max(rank, 2)); k=2 keeps ranks 1 and 2
    got = _one(PERFECT, lp.dcg("rel", "score", discount="lenskit", log_base=10, k=2))
    weight = math.log(10) / math.log(2)
    assert got == pytest.approx(3.0 * weight + 2.0 * weight, abs=1e-12)
    ignored = _one(PERFECT, lp.dcg("rel", "score", discount="lenskit", ignore_ties=True, k=3))
    assert ignored == pytest.approx(3.0 + 2.0 + 1.0 / LOG2_3, abs=1e-12)


TIED = pl.DataFrame({"rel": [1, 0, 1], "score": [3.0, 3.0, 1.0]})


@pytest.mark.parametrize("k", [None, 3, 5, 40, 5000])
def test_lenskit_discount_ties_averaged_ndcg(k: int | None) -> None:
    # the tie of ranks 1-2 holds one relevant row: mean gain 1/2 at weights 1 and 1,
    # the last relevant row at rank 3 weighs 1 / log2(3); ideal: ranks 1 and 2, 1 + 1
    dcg = 0.5 * (1.0 + 1.0) + 1.0 / LOG2_3
    got = _one(TIED, lp.ndcg("rel", "score", k=k, discount="lenskit"))
    assert got == pytest.approx(dcg / 2.0, abs=1e-12)
    # the default discount: tie weights 1 and 1 / log2(3), ideal 1 + 1 / log2(3)
    default = _one(TIED, lp.ndcg("rel", "score", k=k))
    d = 0.5 * (1.0 + 1.0 / LOG2_3) + 0.5
    assert default == pytest.approx(d / (1.0 + 1.0 / LOG2_3), abs=1e-12)


def test_lenskit_discount_ndcg_input_order_and_judged() -> None:
    # input order: the relevant row first (rank 1), then rank 3: (1 + 1 / log2 3) / 2
    got = _one(TIED, lp.ndcg("rel", "score", ties="input", discount="lenskit"))
    assert got == pytest.approx((1.0 + 1.0 / LOG2_3) / 2.0, abs=1e-12)
    # judged: three relevant items in the truth, ideal 1 + 1 + 1 / log2(3)
    frame = TIED.with_columns(judged=pl.lit([1, 1, 1]))
    got = _one(frame, lp.ndcg("rel", "score", ties="input", discount="lenskit", judged="judged"))
    assert got == pytest.approx((1.0 + 1.0 / LOG2_3) / (2.0 + 1.0 / LOG2_3), abs=1e-12)


# ---------------------------------------------------------------- denominator="k"

ONE = pl.DataFrame({"rel": [1, 0, 0, 0], "score": [4.0, 3.0, 2.0, 1.0]})


@pytest.mark.parametrize("ties", ["average", "input"])
def test_ndcg_denominator_k_by_hand(ties: str) -> None:
    # RecTools' ideal at k=3: 1 + 1 / log2(3) + 1 / log2(4), whatever the group holds
    got = _one(ONE, lp.ndcg("rel", "score", k=3, denominator="k", ties=ties))
    assert got == pytest.approx(1.0 / (1.0 + 1.0 / LOG2_3 + 0.5), abs=1e-12)
    # k past the group's length: slots 5 and 6 count in the ideal all the same
    ideal6 = sum(1.0 / math.log2(r + 1) for r in range(1, 7))
    got = _one(ONE, lp.ndcg("rel", "score", k=6, denominator="k", ties=ties))
    assert got == pytest.approx(1.0 / ideal6, abs=1e-12)
    lenskit = _one(ONE, lp.ndcg("rel", "score", k=3, denominator="k", discount="lenskit"))
    assert lenskit == pytest.approx(1.0 / (2.0 + 1.0 / LOG2_3), abs=1e-12)


def test_ndcg_denominator_k_nothing_relevant_and_graded() -> None:
    zero = pl.DataFrame({"rel": [0, 0], "score": [2.0, 1.0]})
    assert _one(zero, lp.ndcg("rel", "score", k=2, denominator="k")) == 0.0
    # a gain above 1 is not capped: 3 / (1 + 1 / log2(3))
    graded = pl.DataFrame({"rel": [3, 0], "score": [2.0, 1.0]})
    got = _one(graded, lp.ndcg("rel", "score", k=2, denominator="k"))
    assert got == pytest.approx(3.0 / (1.0 + 1.0 / LOG2_3), abs=1e-12)


def test_ndcg_denominator_k_per_group() -> None:
    frame = pl.DataFrame(
        {
            "user": [1, 1, 2, 2, 2],
            "rel": [0, 1, 1, 1, 0],
            "score": [2.0, 1.0, 3.0, 2.0, 1.0],
        }
    )
    got = frame.group_by("user", maintain_order=True).agg(
        v=lp.ndcg("rel", "score", k=2, denominator="k")
    )
    ideal = 1.0 + 1.0 / LOG2_3
    assert got["v"].to_list() == pytest.approx([(1.0 / LOG2_3) / ideal, 1.0], abs=1e-12)


# ---------------------------------------------------------------- precision denominator="retrieved"

SHORT = pl.DataFrame({"rel": [1, 0, 1], "score": [3.0, 2.0, 1.0]})


@pytest.mark.parametrize("ties", ["average", "input"])
def test_precision_retrieved_by_hand(ties: str) -> None:
    def p(k: int | None, denominator: str) -> float:
        return _one(SHORT, lp.precision("rel", "score", k=k, ties=ties, denominator=denominator))

    assert p(5, "retrieved") == pytest.approx(2.0 / 3.0, abs=1e-12)  # 2 hits over 3 rows
    assert p(5, "k") == pytest.approx(2.0 / 5.0, abs=1e-12)  # over k
    assert p(2, "retrieved") == p(2, "k") == 0.5  # the list is longer than k
    assert p(None, "retrieved") == p(None, "k") == pytest.approx(2.0 / 3.0, abs=1e-12)


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize("fn", [lp.dcg, lp.ndcg])
def test_unknown_discount_refused(fn: object) -> None:
    with pytest.raises(lp.InvalidParameterError) as info:
        fn("rel", "score", discount="ln")  # type: ignore[operator]
    name = getattr(fn, "__name__", "")
    assert str(info.value) == (
        f"The 'discount' parameter of {name} must be one of ['lenskit', 'log']. Got 'ln' instead."
    )


def test_ndcg_denominator_refusals() -> None:
    with pytest.raises(lp.InvalidParameterError, match=r"The 'denominator' parameter of ndcg"):
        lp.ndcg("rel", "score", k=3, denominator="slots")
    with pytest.raises(lp.InvalidParameterError) as info:
        lp.ndcg("rel", "score", denominator="k")
    assert str(info.value) == (
        "ndcg(denominator='k') needs `k=`: the ideal DCG is that of k rows of gain 1"
    )
    with pytest.raises(lp.InvalidParameterError, match="cannot be combined"):
        lp.ndcg("rel", "score", k=3, denominator="k", judged="judged")


def test_precision_denominator_refused() -> None:
    with pytest.raises(lp.InvalidParameterError) as info:
        lp.precision("rel", "score", k=3, denominator="relevant")
    assert str(info.value) == (
        "The 'denominator' parameter of precision must be one of ['k', 'retrieved']. "
        "Got 'relevant' instead."
    )


# ---------------------------------------------------------------- the registry


def test_registry_declares_the_options() -> None:
    """Every declared choice is the module's, is accepted, and its first value is the default."""
    declared = {spec.name: dict(spec.choices) for spec in REGISTRY if spec.choices}
    assert declared == {
        "dcg": {"discount": DISCOUNTS},
        "ndcg": {"discount": DISCOUNTS, "denominator": NDCG_DENOMINATORS},
        "dcg_burges": {"discount": DISCOUNTS},
        "ndcg_burges": {"discount": DISCOUNTS, "denominator": NDCG_DENOMINATORS},
        "precision": {"denominator": PRECISION_DENOMINATORS},
        "recall": {"denominator": RECALL_DENOMINATORS},
    }
    frame = pl.DataFrame({"rel": [1, 0, 2], "score": [3.0, 2.0, 1.0]})
    for spec in REGISTRY:
        for option, values in spec.choices.items():
            assert option in {"discount", "denominator"}
            default = inspect.signature(spec.expression).parameters[option].default
            assert default == values[0], (spec.name, option)
            for value in values:
                expr = spec.expression("rel", "score", k=2, **spec.fixed, **{option: value})
                assert math.isfinite(_one(frame, expr))


# ---------------------------------------------------------------- LensKit and RecTools, frozen

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "recsys_conventions.json"


@cache
def _corpus() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(CORPUS.read_text(encoding="utf-8"))
    return loaded


@cache
def _rows() -> pl.DataFrame:
    """The lists as a long frame joined with the test sets: the shape lodestar_polars reads.

    ``rel`` is the item's rating (0 when not in the test set), ``hit`` whether it is
    in the test set; ``n_test`` and the ``judged_*`` lists are each user's whole test
    set (LensKit's ideal and recall read it, as trec_eval's do).
    """
    users = _corpus()["users"]
    lists = pl.DataFrame(
        [(u["user"], int(i), s) for u in users for i, s in u["list"]],
        schema={"user": pl.Int64, "item": pl.Int64, "score": pl.Float64},
        orient="row",
    )
    test = pl.DataFrame(
        [(u["user"], int(i), r) for u in users for i, r in u["test"]],
        schema={"user": pl.Int64, "item": pl.Int64, "rating": pl.Float64},
        orient="row",
    )
    truth = test.group_by("user").agg(
        n_test=pl.len(),
        judged_graded=pl.col("rating"),
        judged_binary=pl.lit(1.0).repeat_by(pl.len()).first(),
    )
    return (
        lists.join(test, on=["user", "item"], how="left", maintain_order="left")
        .with_columns(rel=pl.col("rating").fill_null(0.0), hit=pl.col("rating").is_not_null())
        .join(truth, on="user", how="left", maintain_order="left")
    )


def _per_user(exprs: dict[str, pl.Expr]) -> pl.DataFrame:
    """Each expression per user, joined onto every test user, a missing list 0: the recipe."""
    scored = _rows().group_by("user", maintain_order=True).agg(**exprs)
    users = pl.DataFrame({"user": [u["user"] for u in _corpus()["users"]]})
    return users.join(scored, on="user", how="left", maintain_order="left").fill_null(0.0)


def _one_item_dcg(gain: str, dcg: pl.Expr) -> pl.Expr:
    """The recipe for a one-item list, which ``lp.dcg`` refuses: its DCG is its gain (weight 1)."""
    return pl.when(pl.len() == 1).then(pl.col(gain).first().cast(pl.Float64)).otherwise(dcg)


def _lenskit_exprs(k: int | None) -> dict[str, pl.Expr]:
    at = "" if k is None else f"@{k}"
    kw: dict[str, Any] = {"k": k, "ties": "input"}
    lk: dict[str, Any] = {**kw, "discount": "lenskit"}
    exprs = {
        f"ndcg_binary{at}": lp.ndcg("hit", "score", **lk, judged="judged_binary"),
        f"ndcg_graded{at}": lp.ndcg("rel", "score", **lk, judged="judged_graded"),
        f"dcg_binary{at}": _one_item_dcg("hit", lp.dcg("hit", "score", **lk)),
        f"dcg_graded{at}": _one_item_dcg("rel", lp.dcg("rel", "score", **lk)),
        f"precision{at}": lp.precision("hit", "score", **kw, denominator="retrieved"),
        f"recall{at}": lp.recall("hit", "score", **kw, n_relevant="n_test", denominator="min_k"),
        f"recip_rank{at}": lp.reciprocal_rank("hit", "score", **kw),
    }
    # LensKit's Hit without a cutoff is a hit anywhere in the list: k past every list
    exprs[f"hit{at}"] = lp.hit_rate("hit", "score", k=k or 1000, ties="input")
    return exprs


def _assert_matches(
    ours: pl.DataFrame, theirs: dict[str, list[float | None]], defaults: dict[str, float] | None
) -> None:
    for name in ours.columns[1:]:
        expected = [(defaults[name] if defaults else 0.0) if v is None else v for v in theirs[name]]
        got = ours[name].to_list()
        assert got == pytest.approx(expected, abs=1e-12, rel=0), name


def test_corpus_shape() -> None:
    data = _corpus()
    assert data["versions"]["lenskit"] == "2025.8.1"
    assert data["versions"]["rectools"] == "0.19.0"
    users = data["users"]
    assert len(users) == 80
    lengths = [len(u["list"]) for u in users]
    assert lengths.count(0) == 6  # users with no list
    assert lengths.count(1) >= 3  # one-item lists
    assert sum(0 < n < 10 for n in lengths) >= 20  # short lists
    ties = sum(len({s for _, s in u["list"]}) < len(u["list"]) for u in users)
    assert ties >= 40  # lists with equal scores


@pytest.mark.parametrize("k", [3, 10, None])
def test_lenskit_per_user(k: int | None) -> None:
    """LensKit 2025.8.1's per-user values, NaN filled with the metric's default."""
    lenskit = _corpus()["lenskit"]
    ours = _per_user(_lenskit_exprs(k))
    _assert_matches(ours, lenskit["values"], lenskit["default"])


@pytest.mark.parametrize("k", [3, 10])
def test_rectools_per_user(k: int) -> None:
    """RecTools 0.19.0's per-user values (its users: the test set's; no list scores 0)."""
    kw: dict[str, Any] = {"k": k, "ties": "input"}
    n: dict[str, Any] = {"n_relevant": "n_test"}
    map_k = lp.average_precision_at_k("hit", "score", **kw, **n)
    exprs = {
        f"ndcg@{k}": lp.ndcg("hit", "score", **kw, denominator="k"),
        f"ndcg_achievable@{k}": lp.ndcg("hit", "score", **kw, judged="judged_binary"),
        f"precision@{k}": lp.precision("hit", "score", **kw),
        # r_precision=True divides by min(k, |test|): LensKit's recall
        f"r_precision@{k}": lp.recall("hit", "score", **kw, **n, denominator="min_k"),
        f"recall@{k}": lp.recall("hit", "score", **kw, **n),
        f"mrr@{k}": lp.reciprocal_rank("hit", "score", **kw),
        f"hitrate@{k}": lp.hit_rate("hit", "score", **kw),
        f"map@{k}": map_k,
        # the recipe for divide_by_k=True: AP's numerator over k, not over the relevant
        f"map_divide_by_k@{k}": map_k * pl.col("n_test").first() / k,
    }
    _assert_matches(_per_user(exprs), _corpus()["rectools"]["values"], None)


def test_the_defaults_do_not_reproduce_them() -> None:
    """Without the options the numbers differ: each option is needed, none is a no-op."""
    lenskit, rectools = _corpus()["lenskit"]["values"], _corpus()["rectools"]["values"]
    kw: dict[str, Any] = {"k": 10, "ties": "input"}
    ours = _per_user(
        {
            "ndcg_binary@10": lp.ndcg("hit", "score", **kw, judged="judged_binary"),
            "precision@10": lp.precision("hit", "score", **kw),
            "recall@10": lp.recall("hit", "score", **kw, n_relevant="n_test"),
            "ndcg@10": lp.ndcg("hit", "score", **kw, judged="judged_binary"),
        }
    )
    for name, theirs in [
        ("ndcg_binary@10", lenskit),
        ("precision@10", lenskit),
        ("recall@10", lenskit),
        ("ndcg@10", rectools),
    ]:
        expected = [0.0 if v is None else v for v in theirs[name]]
        differ = sum(abs(a - b) > 1e-9 for a, b in zip(ours[name].to_list(), expected, strict=True))
        assert differ >= 5, name


# ---------------------------------------------------------------- the cores take the options


def _random_groups() -> pl.DataFrame:
    rng = np.random.default_rng(21)
    lengths = rng.integers(2, 14, size=60)
    q = np.repeat(np.arange(lengths.size), lengths)
    return pl.DataFrame(
        {
            "q": q,
            "rel": rng.integers(0, 4, size=q.size).astype(np.float64),
            "score": rng.integers(0, 5, size=q.size).astype(np.float64),  # ties
        }
    )


@pytest.mark.parametrize("k", [1, 3, 10, None])
def test_cores_agree_with_the_expressions(k: int | None) -> None:
    """The NumPy segment cores (``lp.evaluate``'s path) take the options, ties averaged."""
    frame = _random_groups()
    length = frame.group_by("q", maintain_order=True).len()["len"].to_numpy()
    rel, score = frame["rel"].to_numpy(), frame["score"].to_numpy()
    hit = (rel > 0).astype(np.float64)
    cases: list[tuple[np.ndarray, pl.Expr]] = [
        (
            dcg_segments(
                rel, score, length, k=k, log_base=2, ignore_ties=False, discount="lenskit"
            ),
            lp.dcg("rel", "score", k=k, discount="lenskit"),
        ),
        (
            ndcg_segments(rel, score, length, k=k, ignore_ties=False, discount="lenskit"),
            lp.ndcg("rel", "score", k=k, discount="lenskit"),
        ),
        (
            precision_segments(hit, score, length, k=k, denominator="retrieved"),
            lp.precision("rel", "score", k=k, denominator="retrieved"),
        ),
        (
            recall_segments(hit, score, length, k=k, denominator="min_k"),
            lp.recall("rel", "score", k=k, denominator="min_k"),
        ),
    ]
    if k is not None:
        cases.append(
            (
                ndcg_segments(rel, score, length, k=k, ignore_ties=False, denominator="k"),
                lp.ndcg("rel", "score", k=k, denominator="k"),
            )
        )
    for core, expr in cases:
        want = frame.group_by("q", maintain_order=True).agg(v=expr)["v"].to_numpy()
        np.testing.assert_allclose(core, want, rtol=0, atol=1e-12)


def test_one_row_ndcg_with_an_outside_ideal() -> None:
    """One row scores when the ideal is not the row itself (judged= or k slots), else null."""
    one = pl.DataFrame({"rel": [1.0], "score": [1.0], "judged": [[1.0, 1.0]]})
    got = one.select(
        judged=lp.ndcg("rel", "score", judged="judged", discount="lenskit"),
        slots=lp.ndcg("rel", "score", k=3, denominator="k"),
        own=lp.ndcg("rel", "score"),
    ).row(0)
    # LensKit: 1 / (1 + 1); RecTools: 1 / (1 + 1 / log2(3) + 1 / 2); scikit-learn's rule: null
    assert got[0] == pytest.approx(0.5, abs=1e-12)
    assert got[1] == pytest.approx(1.0 / (1.0 + 1.0 / LOG2_3 + 0.5), abs=1e-12)
    assert got[2] is None


def test_recall_min_k_by_hand() -> None:
    frame = pl.DataFrame({"rel": [1, 1, 0, 1], "score": [4.0, 3.0, 2.0, 1.0], "n": [5, 5, 5, 5]})

    def r(k: int | None, denominator: str) -> float:
        expr = lp.recall("rel", "score", k=k, n_relevant="n", denominator=denominator)
        return _one(frame, expr)

    assert r(2, "min_k") == 1.0  # 2 hits over min(5, 2)
    assert r(2, "relevant") == pytest.approx(2.0 / 5.0, abs=1e-12)
    assert r(10, "min_k") == r(10, "relevant") == pytest.approx(3.0 / 5.0, abs=1e-12)
    assert r(None, "min_k") == pytest.approx(3.0 / 5.0, abs=1e-12)  # no k: no cap
    with pytest.raises(lp.InvalidParameterError) as info:
        lp.recall("rel", "score", k=2, denominator="k")
    assert str(info.value) == (
        "The 'denominator' parameter of recall must be one of ['min_k', 'relevant']. "
        "Got 'k' instead."
    )
