"""LensKit's and RecTools' conventions (issue 21): the options, by hand and against the references.

The options: ``discount="lenskit"`` on ``lp.dcg`` / ``lp.ndcg`` (LensKit's
``1 / log2(max(rank, 2))``), ``denominator="k"`` on ``lp.ndcg`` (RecTools' ideal,
``k`` slots of gain 1) and ``denominator="retrieved"`` on ``lp.precision``
(LensKit's precision over a short list's length).  The hand tests write the
arithmetic out; the corpus tests read the per-user numbers LensKit 2025.8.1 and
RecTools 0.19.0 returned, frozen by ``corpus/recsys_conventions.py`` into
``corpus/recsys_conventions.json`` (these tests never import either).
"""

from __future__ import annotations

import inspect
import math

import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._core.discount import DISCOUNTS
from lodestar_polars._metrics.dcg import NDCG_DENOMINATORS
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
    known = {"discount": DISCOUNTS, "denominator": None}
    declared = {spec.name: dict(spec.choices) for spec in REGISTRY if spec.choices}
    assert declared == {
        "dcg": {"discount": DISCOUNTS},
        "ndcg": {"discount": DISCOUNTS, "denominator": NDCG_DENOMINATORS},
        "dcg_burges": {"discount": DISCOUNTS},
        "ndcg_burges": {"discount": DISCOUNTS, "denominator": NDCG_DENOMINATORS},
        "precision": {"denominator": PRECISION_DENOMINATORS},
    }
    frame = pl.DataFrame({"rel": [1, 0, 2], "score": [3.0, 2.0, 1.0]})
    for spec in REGISTRY:
        for option, values in spec.choices.items():
            assert option in known
            default = inspect.signature(spec.expression).parameters[option].default
            assert default == values[0], (spec.name, option)
            for value in values:
                expr = spec.expression("rel", "score", k=2, **spec.fixed, **{option: value})
                assert math.isfinite(_one(frame, expr))
