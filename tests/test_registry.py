"""The metric registry is the one home of the names: the parser, the docs and the tests read it."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._registry import (
    BY_NAME,
    REGISTRY,
    direction,
    metric_names,
    names_table,
    resolve,
)

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_docs_names_table_is_the_registry() -> None:
    """docs/evaluate.md holds the registry's table as it is: edit the registry, then paste."""
    page = (DOCS / "evaluate.md").read_text(encoding="utf-8")
    assert names_table() in page, (
        "docs/evaluate.md's metric names table differs from the registry; replace it with "
        "lodestar_polars._registry.names_table()"
    )


def _peer_rows() -> list[list[str]]:
    page = (DOCS / "evaluate.md").read_text(encoding="utf-8")
    section = page.split("## Names from trec_eval, ranx and ir_measures", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    header, *body = rows
    assert header.split("|")[1:-1] == [
        " measure ",
        " trec_eval ",
        " ranx ",
        " ir_measures ",
        " metric here ",
    ]
    return [[cell.strip() for cell in row.split("|")[1:-1]] for row in body]


def _first_code(cell: str) -> str | None:
    found = re.search(r"`([^`]+)`", cell)
    return found[1] if found else None


@pytest.mark.parametrize("row", _peer_rows(), ids=lambda row: row[0])
def test_docs_peer_names_resolve_to_the_metric_named(row: list[str]) -> None:
    """Each peer spelling in docs/evaluate.md's table reads as the metric in its last column."""
    here = _first_code(row[-1])
    assert here is not None
    expected = resolve(here.replace("@k", "@10"))
    assert expected is not None, here
    for cell in row[1:-1]:
        name = _first_code(cell)
        if name is None:
            continue
        found = resolve(name)
        assert found is not None, name
        assert found.spec is expected.spec, (name, found.spec.name, expected.spec.name)


@pytest.mark.parametrize("spec", REGISTRY, ids=lambda spec: spec.name)
def test_every_name_of_a_metric_resolves_to_it(spec: object) -> None:
    assert spec is BY_NAME[spec.name]  # type: ignore[attr-defined]
    for name in (spec.name, *(n.text for n in spec.names)):  # type: ignore[attr-defined]
        cutoff = "" if spec.cutoff != "required" else "@3"  # type: ignore[attr-defined]
        for written in {name + cutoff if "_cut" not in name else f"{name}.3"}:
            found = resolve(written)
            assert found is not None, written
            assert found.spec is spec, written


@pytest.mark.parametrize("spec", REGISTRY, ids=lambda spec: spec.name)
def test_every_metric_is_public_with_a_page(spec: object) -> None:
    function = spec.expression  # type: ignore[attr-defined]
    assert getattr(lp, function.__name__) is function
    assert (DOCS / "metrics" / f"{function.__name__}.md").is_file()


@pytest.mark.parametrize(
    ("written", "metric", "k"),
    [
        ("AP@100", "average_precision_at_k", 100),  # ir_measures: AP cut at 100
        ("ap", "average_precision", None),  # scikit-learn's AP
        ("Ap", "average_precision", None),
        ("P.10", "precision", 10),
        ("P_10", "precision", 10),
        ("p@10", "precision", 10),
        ("recall.100", "recall", 100),
        ("R@100", "recall", 100),
        ("ndcg_cut.10", "ndcg", 10),
        ("nDCG@10", "ndcg", 10),
        ("NDCG", "ndcg", None),
        ("map_cut.5", "average_precision_at_k", 5),
        ("map", "average_precision_at_k", None),
        ("success.5", "hit_rate", 5),
        ("Success@5", "hit_rate", 5),
        ("Rprec", "r_precision", None),
        ("r-precision", "r_precision", None),
        ("recip_rank", "reciprocal_rank", None),
        ("RR@10", "reciprocal_rank", 10),
        ("ndcg_score", "ndcg", None),
        ("top_k_accuracy_score@3", "top_k_accuracy", 3),
    ],
)
def test_resolve(written: str, metric: str, k: int | None) -> None:
    found = resolve(written)
    assert found is not None
    assert (found.spec.name, found.k) == (metric, k)


@pytest.mark.parametrize("written", ["ndcg.10", "rr_3", "foo", "ndcg@", "@3", "ap.3"])
def test_resolve_unknown(written: str) -> None:
    assert resolve(written) is None


def test_metric_names_come_from_the_registry() -> None:
    names = metric_names()
    assert names == sorted(names)
    for spec in REGISTRY:
        assert spec.name in names
        assert {n.text for n in spec.names} <= set(names)


def test_evaluate_reads_every_registry_name() -> None:
    """Every registered name runs through lp.evaluate and gives the canonical metric's number."""
    frame = pl.DataFrame(
        {"q": [1, 1, 1, 2, 2, 2], "t": [1, 0, 1, 0, 1, 0], "s": [0.3, 0.9, 0.1, 0.5, 0.5, 0.2]}
    )
    for spec in REGISTRY:
        cutoff = "@2" if spec.cutoff != "none" else ""
        canonical = lp.evaluate(
            frame, [spec.name + cutoff], by="q", y_true="t", y_score="s", strict=False
        )
        for name in spec.names:
            written = name.text + (".2" if name.cutoff == "required" else cutoff)
            out = lp.evaluate(frame, [written], by="q", y_true="t", y_score="s", strict=False)
            assert out[written].to_list() == canonical[spec.name + cutoff].to_list(), written


@pytest.mark.parametrize("spec", REGISTRY, ids=lambda spec: spec.name)
def test_trec_reads_the_registry(spec: object) -> None:
    """lp.trec's ranx / ir_measures names are the registry's, each the trec_eval measure it is."""
    uncut, cut = spec.trec  # type: ignore[attr-defined]
    for name in (spec.name, *(n.text for n in spec.names)):  # type: ignore[attr-defined]
        found = resolve(name + "@5") if spec.cutoff != "none" else None  # type: ignore[attr-defined]
        if found is not None and cut is not None and not name.endswith("_cut"):
            (measure,) = lp.trec.parse_measures(name + "@5")
            assert (measure.kind, measure.k) == (cut, 5), name


def test_ap_means_one_thing() -> None:
    """'ap' is scikit-learn's AP in lp.evaluate, and not trec_eval's map in lp.trec."""
    assert resolve("ap").spec.name == "average_precision"  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="trec_eval's AP is 'map', ir_measures' 'AP'"):
        lp.trec.parse_measures("ap")
    (measure,) = lp.trec.parse_measures("AP")
    assert measure.kind == "map"


@pytest.mark.parametrize("spec", REGISTRY, ids=lambda spec: spec.name)
def test_evaluate_core_equals_the_expression(spec: object) -> None:
    """Every metric's NumPy core (lp.evaluate) gives its expression's per-group values."""
    import numpy as np

    rng = np.random.default_rng(7)
    n = 400
    frame = pl.DataFrame(
        {
            "q": rng.integers(0, 25, n),
            "t": rng.integers(0, 2, n),
            "s": rng.choice([0.1, 0.2, 0.5, 0.7, 0.9], n),  # ties, and valid probabilities
        }
    )
    k = 3 if spec.cutoff != "none" else None  # type: ignore[attr-defined]
    options = dict(spec.fixed)  # type: ignore[attr-defined]
    if k is not None:
        options.update(spec.options(k))  # type: ignore[attr-defined]  # k, or ECE's n_bins
    name = spec.name + ("" if k is None else f"@{k}")  # type: ignore[attr-defined]
    got = lp.evaluate(frame, [name], by="q", y_true="t", y_score="s", strict=False)
    expr = spec.expression("t", "s", **options).alias("v")  # type: ignore[attr-defined]
    want = frame.group_by("q").agg(expr).sort("q")
    np.testing.assert_allclose(
        got[name].to_numpy().astype(float), want["v"].to_numpy().astype(float), rtol=1e-12
    )


# ---- direction: which way a metric improves ------------------------------------------------


@pytest.mark.parametrize("spec", REGISTRY, ids=lambda spec: spec.name)
def test_direction_is_the_way_a_better_ranking_moves(spec: object) -> None:
    """A perfect ranking (calibrated probabilities) scores better than its reverse.

    One relevant row of four: scores in the truth's order against the reversed scores,
    each metric at cutoff 1 where it takes one. ``higher_is_better`` must agree.
    """
    frame = pl.DataFrame(
        {
            "q": ["good"] * 4 + ["bad"] * 4,
            "t": [1, 0, 0, 0] * 2,
            "s": [0.9, 0.4, 0.3, 0.1, 0.1, 0.3, 0.4, 0.9],
        }
    )
    # a cutoff of 1 where the number after @ is a cutoff (ECE's is its bins: left at 10)
    cut = spec.cutoff != "none" and spec.cutoff_option == "k"  # type: ignore[attr-defined]
    name = spec.name + ("@1" if cut else "")  # type: ignore[attr-defined]
    out = lp.evaluate(frame, [name], by="q", y_true="t", y_score="s").sort("q")
    bad, good = out[name].to_list()
    assert good != bad, name
    assert spec.higher_is_better == (good > bad), name  # type: ignore[attr-defined]
    assert direction(name) == ("higher" if good > bad else "lower")


def test_direction_of_scikit_learn_names_is_its_scorers() -> None:
    """scikit-learn's scorers say it too: a negated scorer (``neg_log_loss``) is a loss."""
    metrics = pytest.importorskip("sklearn.metrics")
    signs = {}
    for scorer_name in metrics.get_scorer_names():
        scorer = metrics.get_scorer(scorer_name)
        function = getattr(scorer, "_score_func", None)
        if function is not None:
            signs[function.__name__] = scorer._sign
    checked = 0
    for spec in REGISTRY:
        for name in spec.names:
            if name.tool == "scikit-learn" and name.text in signs:
                expected = "higher" if signs[name.text] > 0 else "lower"
                assert direction(name.text) == expected, name.text
                checked += 1
    assert checked >= 4  # average_precision, roc_auc, top_k_accuracy, log_loss, brier_score_loss


@pytest.mark.parametrize(
    ("column", "expected"),
    [
        # lp.evaluate's columns, any spelling resolve reads
        ("brier", "lower"),
        ("brier_score", "lower"),
        ("brier_score_loss", "lower"),
        ("log_loss", "lower"),
        ("coverage_error", "lower"),
        ("label_ranking_loss", "lower"),
        ("ndcg@10", "higher"),
        ("P.10", "higher"),
        ("map_cut.100", "higher"),
        ("recall@1000", "higher"),
        ("auc", "higher"),
        # scikit-learn's expected calibration error, in lp.evaluate or not
        ("expected_calibration_error", "lower"),
        ("ece", "lower"),
        # the report's micro family
        ("hit@1", "higher"),
        ("mrr@10", "higher"),
        # trec_eval's printed names, lp.trec.evaluate's too
        ("P_10", "higher"),
        ("ndcg_cut_10", "higher"),
        ("Rprec", "higher"),
        ("bpref", "higher"),
        ("infAP", "higher"),
        ("iprec_at_recall_0.10", "higher"),
        ("ndcg_1=3,2=9", "higher"),
        ("num_q", None),
        ("num_ret", None),
        ("num_rel", None),
        ("num_rel_ret", None),
        # unknown: no guess from the ending
        ("my_loss", None),
        ("calibration_error", None),
        ("latency_ms", None),
        ("hits@10", None),  # ranx's count of hits: not offered here
        ("ap@10", None),  # a name lp.evaluate refuses
    ],
)
def test_direction(column: str, expected: str | None) -> None:
    assert direction(column) == expected


def test_direction_of_every_trec_label() -> None:
    """Every label lp.trec.evaluate writes has a direction, except the counts."""
    counts = {"num_q", "num_ret", "num_rel", "num_rel_ret"}
    for measure in lp.trec.parse_measures(["all_trec", "ndcg.1=3,2=9", "ndcg@10", "Success@5"]):
        expected = None if measure.kind in counts else "higher"
        assert direction(measure.label) == expected, measure.label
