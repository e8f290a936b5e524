"""The metric registry is the one home of the names: the parser, the docs and the tests read it."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._registry import (
    BY_NAME,
    REGISTRY,
    TREC_MEASURES,
    TREC_METRIC,
    TREC_ONLY,
    TREC_PRINT_ORDER,
    MetricSpec,
    Range,
    TrecMeasure,
    direction,
    metric_names,
    names_table,
    resolve,
    trec_offered,
    trec_peer_names,
    trec_table,
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


def _cut(spec: MetricSpec, k: int) -> str:
    """What follows a metric's name at cutoff ``k``: ``@k``, or a recall level (``@0.5``)."""
    return "@0.5" if spec.cutoff_option == "recall" else f"@{k}"


def _tie_rule(spec: MetricSpec) -> dict[str, Any]:
    """``ties="input"`` for a metric with no averaged ties (infAP), else nothing."""
    return {} if spec.averaged_ties else {"ties": "input"}


#: the columns of the inputs a beyond-accuracy entry reads besides y_true and y_score
#: (MetricSpec.inputs: novelty's popularity, ILD's feature, serendipity's popularity rank
#: and catalogue size); every other entry reads none, and is given none
INPUTS = {"popularity": "pop", "feature": "feat", "popularity_rank": "prank"}
N_ITEMS = 6


def _inputs(spec: MetricSpec) -> dict[str, Any]:
    """``lp.evaluate``'s keywords for the inputs the metric reads (none for most)."""
    return {role: N_ITEMS if role == "n_items" else INPUTS[role] for role in spec.inputs}


def _input_columns(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with a popularity in (0, 1], a category and a popularity rank per row."""
    row = pl.int_range(pl.len())
    return frame.with_columns(pop=((row * 7) % 10 + 1) / 10, feat=row % 3, prank=row % N_ITEMS + 1)


def _expression(spec: MetricSpec, **options: Any) -> pl.Expr:
    """The metric's public expression over ``t``, ``s`` and its inputs' columns.

    The beyond-accuracy expressions that read no truth take the scores first
    (``lp.novelty(y_score, *, popularity=)``: ``reads_y_true=False``).
    """
    data = ("t", "s") if spec.reads_y_true else ("s",)
    return spec.expression(*data, **options, **_inputs(spec))


@pytest.mark.parametrize("spec", REGISTRY, ids=lambda spec: spec.name)
def test_every_name_of_a_metric_resolves_to_it(spec: MetricSpec) -> None:
    assert spec is BY_NAME[spec.name]
    for name in (spec.name, *(n.text for n in spec.names)):
        cutoff = "" if spec.cutoff != "required" else _cut(spec, 3)
        for written in {name + cutoff if "_cut" not in name else f"{name}.3"}:
            found = resolve(written)
            assert found is not None, written
            assert found.spec is spec, written


@pytest.mark.parametrize("spec", REGISTRY, ids=lambda spec: spec.name)
def test_every_metric_is_public_with_a_page(spec: MetricSpec) -> None:
    function = spec.expression
    assert getattr(lp, function.__name__) is function
    page, _, anchor = spec.docs_page.partition("#")
    assert (DOCS / page).is_file()
    if anchor:  # a shared page (the beyond-accuracy entries): the section is the function's
        assert f"## `lp.{function.__name__}`" in (DOCS / page).read_text(encoding="utf-8")


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
    frame = _input_columns(frame)
    for spec in REGISTRY:
        cutoff = _cut(spec, 2) if spec.cutoff != "none" else ""
        rule = {**_tie_rule(spec), **_inputs(spec)}
        canonical = lp.evaluate(
            frame, [spec.name + cutoff], by="q", y_true="t", y_score="s", strict=False, **rule
        )
        for name in spec.names:
            written = name.text + (".2" if name.cutoff == "required" else cutoff)
            out = lp.evaluate(
                frame, [written], by="q", y_true="t", y_score="s", strict=False, **rule
            )
            assert out[written].to_list() == canonical[spec.name + cutoff].to_list(), written


@pytest.mark.parametrize("spec", REGISTRY, ids=lambda spec: spec.name)
def test_trec_reads_the_registry(spec: MetricSpec) -> None:
    """lp.trec's ranx / ir_measures names are the registry's, each the trec_eval measure it is."""
    uncut, cut = spec.trec
    for name in (spec.name, *(n.text for n in spec.names)):
        found = resolve(name + "@5") if spec.cutoff != "none" else None
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
def test_evaluate_core_equals_the_expression(spec: MetricSpec) -> None:
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
    frame = _input_columns(frame)
    k = 3 if spec.cutoff != "none" else None
    options: dict[str, Any] = dict(spec.fixed)
    if k is not None:
        options.update(spec.options(0.5 if spec.cutoff_option == "recall" else k))
    name = spec.name + ("" if k is None else _cut(spec, k))
    rule = _tie_rule(spec)
    got = lp.evaluate(
        frame, [name], by="q", y_true="t", y_score="s", strict=False, **rule, **_inputs(spec)
    )
    expr = _expression(spec, **options, **rule).alias("v")
    want = frame.group_by("q").agg(expr).sort("q")
    np.testing.assert_allclose(
        got[name].to_numpy().astype(float), want["v"].to_numpy().astype(float), rtol=1e-12
    )


# ---- direction: which way a metric improves ------------------------------------------------


@pytest.mark.parametrize("spec", REGISTRY, ids=lambda spec: spec.name)
def test_direction_is_the_way_a_better_ranking_moves(spec: MetricSpec) -> None:
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
    # the beyond-accuracy entries read no relevance but their inputs: the good ranking
    # puts a rare (novelty), relevant and unpopular (serendipity) row first and two
    # unlike rows (ILD) in its top 2; the bad one two popular rows of one category
    frame = frame.with_columns(
        pop=pl.Series([0.1, 0.5, 0.5, 0.5] * 2),
        feat=pl.Series([0, 1, 2, 2] * 2),
        prank=pl.Series([4, 1, 1, 1] * 2),
    )
    if spec.name == "judged":
        # Judged@k reads whether rows are judged, not their relevance: the irrelevant rows
        # unjudged (-1), the good ranking puts its one judged row first
        frame = frame.with_columns(t=pl.col("t") * 2 - 1)
    # a cutoff of 1 where the number after @ is a cutoff (ECE's is its bins: left at 10)
    # (ILD's pairs need two rows: cut at 2)
    cut = spec.cutoff != "none" and spec.cutoff_option in ("k", "recall")
    name = spec.name + (_cut(spec, 2 if spec.inputs else 1) if cut else "")
    out = lp.evaluate(
        frame, [name], by="q", y_true="t", y_score="s", **_tie_rule(spec), **_inputs(spec)
    )
    out = out.sort("q")
    bad, good = out[name].to_list()
    assert good != bad, name
    if spec.higher_is_better is None:
        # ARP differs: how popular the served items are, a bias to read, not a score; the
        # good ranking's is lower here, and neither way is better
        assert direction(name) is None
        return
    assert spec.higher_is_better == (good > bad), name
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
    counts = {"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
    counts |= {"rbp_resid", "unj"}  # how much is unjudged: no better way to move
    counts |= {"relstring"}  # text
    written = ["all_trec", "ndcg.1=3,2=9", "ndcg@10", "Success@5", "utility.2,-1,0,0"]
    for measure in lp.trec.parse_measures([*written, "11pt_avg..25,.5,.75", "set_F.0.5"]):
        expected = None if measure.kind in counts else "higher"
        assert direction(measure.label) == expected, measure.label


# ---- labels and value ranges ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("metric", "k", "expected"),
    [
        ("ndcg", 10, "NDCG@10"),
        ("precision", 10, "P@10"),
        ("reciprocal_rank", 10, "MRR@10"),
        ("average_precision_at_k", 100, "MAP@100"),
        ("hit_rate", 5, "HR@5"),
        ("ndcg", None, "NDCG"),
        ("average_precision", 10, "AP"),  # takes no cutoff: the number is not shown
        ("top_k_accuracy", None, "top-2 accuracy"),  # its default k, which the name means
        ("top_k_accuracy", 3, "top-3 accuracy"),
        ("expected_calibration_error", None, "ECE"),
        ("expected_calibration_error", 15, "ECE (15 bins)"),
    ],
)
def test_display_label(metric: str, k: int | None, expected: str) -> None:
    assert BY_NAME[metric].display(k) == expected


def test_labels_tell_the_metrics_apart() -> None:
    """A table or plot never shows two metrics under one label."""
    for k in (None, 10):
        labels = [spec.display(k) for spec in REGISTRY]
        assert len(set(labels)) == len(labels), labels


@pytest.mark.parametrize("spec", REGISTRY, ids=lambda spec: spec.name)
def test_values_lie_in_the_range(spec: MetricSpec) -> None:
    """Every value of every metric, on random groups with ties and graded truth, is in its range."""
    import numpy as np

    rng = np.random.default_rng(11)
    n = 600
    graded = spec.name in ("dcg", "ndcg", "dcg_burges", "ndcg_burges")
    frame = pl.DataFrame(
        {
            "q": rng.integers(0, 40, n),
            "t": rng.integers(-1 if spec.name.startswith("dcg") else 0, 4 if graded else 2, n),
            "s": rng.choice([0.05, 0.2, 0.5, 0.7, 0.95], n),
        }
    )
    if spec.name == "top_k_accuracy":
        # one true class per group, as top-k accuracy needs
        frame = frame.with_columns(t=(pl.int_range(pl.len()).over("q") == 0).cast(pl.Int64))
    frame = _input_columns(frame)
    cut = spec.cutoff != "none"
    name = spec.name + (_cut(spec, 3) if cut else "")
    column = lp.evaluate(
        frame,
        [name],
        by="q",
        y_true="t",
        y_score="s",
        strict=False,
        **_tie_rule(spec),
        **_inputs(spec),
    )[name]
    values = column.drop_nulls().to_list()
    assert values, name
    outside = [v for v in values if v not in spec.value_range]
    assert not outside, (name, str(spec.value_range), outside[:3])


@pytest.mark.parametrize(
    ("metric", "truth", "score", "value"),
    [
        # gain -1 at rank 1, 0 at rank 2: DCG = -1 / log2(2) + 0 / log2(3) = -1, below 0
        ("dcg", [-1, 0], [0.9, 0.1], -1.0),
        # three relevant labels of three: read all three to see them, past 1
        ("coverage_error", [1, 1, 1], [0.9, 0.5, 0.1], 3.0),
        # a positive given probability 0.1: -ln(0.1), past 1
        ("log_loss", [1, 0], [0.1, 0.1], -(math.log(0.1) + math.log(0.9)) / 2),
    ],
)
def test_a_range_past_one_is_reached(
    metric: str, truth: list[int], score: list[float], value: float
) -> None:
    """The ranges that are not [0, 1] are so because such values occur (hand arithmetic)."""
    frame = pl.DataFrame({"q": [1] * len(truth), "t": truth, "s": score})
    got = lp.evaluate(frame, [metric], by="q", y_true="t", y_score="s")[metric][0]
    assert got == pytest.approx(value, rel=1e-12)
    assert got in BY_NAME[metric].value_range
    assert got not in Range(0.0, 1.0)


# ---- trec_eval's measures: one entry each, checked against trec_eval's own output ------------

TREC_DATA = Path(__file__).parent / "data" / "trec_eval"
_PARAMS = re.compile(r"^(?P<base>.+?)[._](?P<params>[0-9][0-9.,=]*)$")


def _printed(file: str) -> list[tuple[str, str, str]]:
    """(measure name, qid, value) of each line of one of trec_eval's expected outputs."""
    rows = []
    for line in (TREC_DATA / file).read_text().splitlines():
        label, qid, value = line.split("\t")
        label = label.strip()
        match = _PARAMS.match(label)
        rows.append(
            (label if label in TREC_PRINT_ORDER or not match else match["base"], qid, value)
        )
    return rows


def _in_order(names: list[str]) -> list[str]:
    return list(dict.fromkeys(names))


def test_trec_print_order_is_trec_eval_s() -> None:
    """TREC_PRINT_ORDER orders every measure as trec_eval prints it (per query, then all)."""
    for file in ("out.test", "out.test.a", "out.test.aq"):
        rows = _printed(file)
        for part in ([r for r in rows if r[1] != "all"], [r for r in rows if r[1] == "all"]):
            names = _in_order([name for name, _, _ in part])
            places = [TREC_PRINT_ORDER.index(name) for name in names]
            assert places == sorted(places), (file, names)


def test_trec_sets_are_trec_eval_s() -> None:
    """`official` and `all_trec` are the measures trec_eval prints for them (runid: the command)."""
    official = {name for name, _, _ in _printed("out.test")}
    all_trec = {name for file in ("out.test.a", "out.test.aq") for name, _, _ in _printed(file)}
    assert official == {"runid"} | {m.name for m in TREC_MEASURES.values() if m.official}
    assert all_trec == {"runid"} | {m.name for m in TREC_MEASURES.values() if m.all_trec}


def test_trec_aggregation_and_per_query_rows_are_trec_eval_s() -> None:
    """Which measures have per-query rows, and how `all` sums or averages them: trec_eval's."""
    by_label: dict[str, list[tuple[str, str]]] = {}
    for line in (TREC_DATA / "out.test.aq").read_text().splitlines():
        label, qid, value = line.split("\t")
        by_label.setdefault(label.strip(), []).append((qid, value))
    checked = set()
    for label, rows in by_label.items():
        match = _PARAMS.match(label)
        name = label if label in TREC_PRINT_ORDER or not match else match["base"]
        if name == "runid":
            continue
        measure = TREC_MEASURES[name]
        per_query = [value for qid, value in rows if qid != "all"]
        totals = [value for qid, value in rows if qid == "all"]
        assert bool(per_query) == measure.per_query, label
        assert bool(totals) == (measure.aggregate != "none"), label
        if measure.is_text:  # relstring: text per query, quoted, and no `all` line
            assert all(v.startswith("'") and v.endswith("'") for v in per_query), label
            checked.add(name)
            continue
        if not per_query or not totals:
            continue
        values = [float(v) for v in per_query]
        if measure.aggregate == "sum":  # a count: printed as an integer, the sum
            assert totals == [str(round(sum(values)))], label
        elif measure.aggregate == "mean":  # of values printed to 4 decimals, within their rounding
            assert abs(sum(values) / len(values) - float(totals[0])) <= 1e-4 + 1e-12, label
        checked.add(name)
    assert checked >= {m.name for m in trec_offered() if m.per_query}


def test_every_trec_measure_is_one_entry() -> None:
    """Each trec_eval measure known is defined once, in trec_eval's table, with its direction."""
    entries = [*TREC_ONLY, *(m for spec in REGISTRY for m in spec.trec_eval)]
    assert len({m.name for m in entries}) == len(entries)
    assert list(TREC_MEASURES) == sorted(TREC_MEASURES, key=TREC_PRINT_ORDER.index)
    assert set(lp.trec.MEASURES) == {m.name for m in entries if m.offered}
    for m in entries:
        expected = (
            None if m.higher_is_better is None else ("higher" if m.higher_is_better else "lower")
        )
        assert direction(m.name) == expected, m.name
        spec = TREC_METRIC.get(m.name)
        if spec is not None:  # a measure that is a metric goes its metric's way
            assert m.higher_is_better == spec.higher_is_better, m.name


@pytest.mark.parametrize("measure", trec_offered(), ids=lambda m: m.name)
def test_trec_measure_is_written_as_its_entry_says(measure: TrecMeasure) -> None:
    """The bare name, `.k1,k2` and `_k` for cutoffs, `.level=gain` for gains, and nothing else."""
    name = measure.name
    bare = lp.trec.parse_measures(name)
    assert all(m.measure is measure for m in bare)
    if measure.params == "cutoffs":
        assert [m.k for m in bare] == list(measure.default_cutoffs)
        assert [(m.label, m.k) for m in lp.trec.parse_measures(f"{name}.7,3")] == [
            (f"{name}_3", 3),
            (f"{name}_7", 7),
        ]
        assert [(m.label, m.k) for m in lp.trec.parse_measures(f"{name}_7")] == [(f"{name}_7", 7)]
    elif measure.params == "gains":
        (m,) = lp.trec.parse_measures(f"{name}.1=3,2=9")
        assert (m.label, m.gains) == (f"{name}_1=3,2=9", ((1, 3.0), (2, 9.0)))
    elif measure.params == "levels":  # recall levels, multiples of R: one row each
        assert [m.values for m in bare] == [(v,) for v in measure.default_values]
        assert [(m.label, m.values) for m in lp.trec.parse_measures(f"{name}..5,0.25")] == [
            (f"{name}_0.25", (0.25,)),
            (f"{name}_0.50", (0.5,)),
        ]
    elif measure.params == "values":  # one row, the values as written in its name
        assert [(m.label, m.values) for m in bare] == [(name, measure.default_values)]
        given = ".25,.5" if measure.increasing else ",".join(["0.5"] * (measure.n_values or 2))
        (m,) = lp.trec.parse_measures(f"{name}.{given}")
        assert (m.label, m.values) == (f"{name}_{given}", tuple(float(v) for v in given.split(",")))
    else:
        assert [(m.label, m.k) for m in bare] == [(name, None)]
        with pytest.raises(ValueError, match=f"{name} takes no parameters"):
            lp.trec.parse_measures(f"{name}.7")


def test_not_offered_trec_measures_are_named_so() -> None:
    for measure in TREC_MEASURES.values():
        if not measure.offered:
            with pytest.raises(ValueError, match=f"'{measure.name}' .*not offered here"):
                lp.trec.parse_measures(measure.name)


def test_docs_trec_table_is_the_registry() -> None:
    """docs/coming-from-trec_eval.md holds the registry's measure table as it is."""
    page = (DOCS / "coming-from-trec_eval.md").read_text(encoding="utf-8")
    assert trec_table() in page, (
        "docs/coming-from-trec_eval.md's measure table differs from the registry; replace it "
        "with lodestar_polars._registry.trec_table()"
    )


@pytest.mark.parametrize("measure", trec_offered(), ids=lambda m: m.name)
def test_trec_table_peer_names_read_as_the_measure(measure: object) -> None:
    """Each ranx / ir_measures name the table gives for a measure is read by lp.trec as it."""
    for name in trec_peer_names(measure):  # type: ignore[arg-type]
        (parsed,) = lp.trec.parse_measures(name.replace("@k", "@10"))
        assert parsed.measure is measure, name
        assert parsed.k == (10 if name.endswith("@k") else None), name


# ---- docs/adding-a-metric.md: what it claims ----------------------------------------------

ADDING = DOCS / "adding-a-metric.md"


def test_adding_a_metric_page_lists_every_field_of_an_entry() -> None:
    """The page's table of MetricSpec fields is the dataclass's, and its example sets only those."""
    import dataclasses

    from lodestar_polars._registry import MetricSpec

    page = ADDING.read_text(encoding="utf-8")
    table = page.split("| field of `MetricSpec` |", 1)[1].split("\n\n", 1)[0]
    listed = {
        name for row in table.splitlines()[2:] for name in re.findall(r"`(\w+)`", row.split("|")[1])
    }
    assert listed == {f.name for f in dataclasses.fields(MetricSpec)}
    entry = page.split("MetricSpec(\n", 1)[1].split("```", 1)[0]
    assert set(re.findall(r"^\s+(\w+)=", entry, re.MULTILINE)) <= listed


def test_adding_a_metric_page_names_tests_that_take_every_entry() -> None:
    """The tests the page says a new entry gets without an edit exist and read the registry."""
    import inspect
    import sys

    page = ADDING.read_text(encoding="utf-8")
    named = re.findall(r"`tests/test_registry\.py::(\w+)`", page)
    assert len(named) >= 5
    module = sys.modules[__name__]
    for name in named:
        test = getattr(module, name)
        marks = getattr(test, "pytestmark", [])
        over_entries = any(
            m.name == "parametrize" and list(m.args[1]) == list(REGISTRY) for m in marks
        )
        source = inspect.getsource(test)
        assert over_entries or "in REGISTRY" in source or "names_table()" in source, name


def test_adding_a_metric_page_paths_exist() -> None:
    """Every file the page points to exists (ERR's own files included: it is in the library)."""
    root = DOCS.parent
    page = ADDING.read_text(encoding="utf-8")
    paths = set(re.findall(r"`((?:lodestar_polars|docs|tests)/[\w/.-]+\.(?:py|md))`", page))
    assert len(paths) >= 8
    for path in paths:
        assert (root / path).is_file(), path


def test_the_old_metric_name_top_k_warns_and_reads_as_top_k_accuracy() -> None:
    """``"top_k"`` clashed with lp.top_k (serving): it still reads, with a FutureWarning."""
    frame = pl.DataFrame(
        {"q": [1, 1, 1, 2, 2, 2], "t": [0, 1, 0, 1, 0, 0], "s": [0.9, 0.5, 0.1, 0.2, 0.3, 0.8]}
    )
    new = lp.evaluate(frame, ["top_k_accuracy@2"], by="q", y_true="t", y_score="s")
    with pytest.warns(FutureWarning, match="write 'top_k_accuracy@2'"):
        old = lp.evaluate(frame, ["top_k@2"], by="q", y_true="t", y_score="s")
    # q1: the positive (0.5) is 2nd of 3: in the top 2; q2: 0.2 is 3rd: not
    assert old["top_k@2"].to_list() == new["top_k_accuracy@2"].to_list() == [1.0, 0.0]
    assert "top_k" not in metric_names()
