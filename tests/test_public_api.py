"""Every public function of ``lp.__all__`` speaks one vocabulary (issue 19).

As scikit-learn's ``test_public_functions`` walks its public functions, this walks
``lodestar_polars.__all__`` and checks, for each function:

(a) no parameter carries an old role name: the old names live only in the one
    deprecation decorator's ``__renamed__`` (``lodestar_polars._base.deprecation``);
(b) every option is keyword-only after the data and the column roles;
(c) for the functions that take a frame, a bad value of every option raises
    :class:`lodestar_polars.InvalidParameterError`, and a ``LazyFrame`` in gives a
    ``LazyFrame`` out where the result is a frame of rows or groups.

``lp.arrays`` (scikit-learn's own signatures, ``y_proba`` included) and ``lp.trec``
(trec_eval's qrels, run and measures) are modules of ``__all__``, not functions of it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import lodestar_polars as lp

#: the role names issue 19 retired: ``by``, ``item``, ``y_true``, ``y_score`` (``y_prob``
#: for a probability) and ``weight`` are the new ones
OLD_NAMES = frozenset(
    {"truth", "score", "query", "doc_id", "average_over", "y_proba", "rel", "relevance"}
)

#: the one table of functions that still carry an old name, and why (empty: every
#: function is renamed); the table must be exact, so an entry goes once it is renamed and
#: a function that takes an old name again fails until it is renamed (or listed, with why)
NOT_YET_RENAMED: dict[str, tuple[frozenset[str], str]] = {}

#: the expressions whose ``doc_id`` (the tie-break id of ``ties="trec_eval"``) became ``item``
RENAMED_EXPRESSIONS = (
    "average_precision_at_k",
    "dcg",
    "hit_rate",
    "ndcg",
    "precision",
    "r_precision",
    "recall",
    "reciprocal_rank",
)

#: parameters that may come positionally: the data, then the column roles
DATA = frozenset({"frame", "per_query", "scores", "payload", "runs", "qrels"})
ROLES = frozenset({"y_true", "y_score", "y_prob"})
#: a few functions take what they compute positionally too, after the data
POSITIONAL_BY_FUNCTION: dict[str, dict[str, str]] = {
    "evaluate": {"metrics": "what is computed: the metric names (lp.evaluate(log, ['ndcg@10']))"},
    "top_k": {"k": "the k of top k, the number the call is about (lp.top_k(frame, 10, ...))"},
    "transform_for_objective": {
        "objective": "what the scores are transformed for",
        "state": "the fitted state the transform reads (lp.fit_comparability's)",
    },
    "report_html": {"path": "where the page is written"},
}


def _public_functions() -> list[str]:
    names = []
    for name in lp.__all__:
        obj = getattr(lp, name)
        if inspect.isfunction(obj):
            names.append(name)
    return sorted(names)


PUBLIC = _public_functions()


def test_the_walk_sees_the_functions() -> None:
    """The walk is not empty, and sees the functions the tables below name."""
    named = {*NOT_YET_RENAMED, *RENAMED_EXPRESSIONS, *POSITIONAL_BY_FUNCTION, *FRAME_FUNCTIONS}
    assert named <= set(PUBLIC), sorted(named - set(PUBLIC))
    assert len(PUBLIC) >= 25


@pytest.mark.parametrize("name", PUBLIC)
def test_no_parameter_has_an_old_role_name(name: str) -> None:
    """(a) The signature shows only new names; an old one lives in ``__renamed__`` alone."""
    function = getattr(lp, name)
    parameters = set(inspect.signature(function).parameters)
    allowed = NOT_YET_RENAMED.get(name, (frozenset(), ""))[0]
    assert not (parameters & OLD_NAMES) - allowed, (
        f"lp.{name} has old role name(s) {sorted((parameters & OLD_NAMES) - allowed)}: rename "
        "them and keep the old ones working with @renamed (lodestar_polars._base.deprecation)"
    )
    renamed: dict[str, str] = getattr(function, "__renamed__", {})
    for old, new in renamed.items():
        assert old not in parameters, f"lp.{name}: {old!r} is renamed but still a parameter"
        assert new in parameters, f"lp.{name}: {old!r} is renamed to {new!r}, not a parameter"


def test_the_exceptions_table_is_exact() -> None:
    """``NOT_YET_RENAMED`` lists exactly the functions that carry an old name, and which.

    Once a function is renamed its entry must go; with the table empty, no public
    function may take an old role name at all.
    """
    carried = {
        name: frozenset(inspect.signature(getattr(lp, name)).parameters) & OLD_NAMES
        for name in PUBLIC
    }
    carried = {name: old for name, old in carried.items() if old}
    listed = {name: old for name, (old, _) in NOT_YET_RENAMED.items()}
    assert carried == listed, (
        f"functions with old role names {carried} differ from NOT_YET_RENAMED {listed}: "
        "rename them with @renamed (lodestar_polars._base.deprecation), then drop their entries"
    )


@pytest.mark.parametrize("name", RENAMED_EXPRESSIONS)
def test_the_expressions_take_item_and_rename_doc_id(name: str) -> None:
    """The tie-break id is ``item``; ``doc_id`` lives only in the decorator's ``__renamed__``."""
    function = getattr(lp, name)
    parameters = inspect.signature(function).parameters
    assert "item" in parameters
    assert parameters["item"].kind is inspect.Parameter.KEYWORD_ONLY
    assert parameters["item"].default is None
    assert getattr(function, "__renamed__", {}) == {"doc_id": "item"}


@pytest.mark.parametrize("name", PUBLIC)
def test_options_are_keyword_only_after_the_roles(name: str) -> None:
    """(b) Only the data, the column roles and the table's few arguments come positionally."""
    parameters = inspect.signature(getattr(lp, name)).parameters.values()
    extra = POSITIONAL_BY_FUNCTION.get(name, {})
    positional = [
        p.name
        for p in parameters
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    assert not any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters), name
    stray = [p for p in positional if p not in DATA | ROLES | set(extra)]
    assert not stray, f"lp.{name}: make {stray} keyword-only (after `*`)"
    # the data first, then the roles, then what is computed
    rank = {**dict.fromkeys(DATA, 0), **dict.fromkeys(ROLES, 1), **dict.fromkeys(extra, 2)}
    order = [rank[p] for p in positional]
    if name == "transform_for_objective":  # (scores, objective, state): no role positional
        assert positional == ["scores", "objective", "state"]
    else:
        assert order == sorted(order), f"lp.{name}: positional {positional} out of order"


# ---- (c) the frame-taking functions -------------------------------------------------------

LOG = pl.DataFrame(
    {
        "user": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4],
        "item": ["a", "b", "c"] * 4,
        "y": [1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1],
        "s": [0.9, 0.5, 0.2, 0.3, 0.6, 0.1, 0.8, 0.4, 0.7, 0.2, 0.3, 0.6],
    }
)
PER_QUERY = pl.DataFrame(
    {
        "run": ["a"] * 4 + ["b"] * 4,
        "query": ["q1", "q2", "q3", "q4"] * 2,
        "ndcg": [0.2, 0.4, 0.1, 0.5, 0.5, 0.6, 0.4, 0.7],
    }
)
RUNS = pl.concat(
    [LOG.with_columns(run=pl.lit("a")), LOG.with_columns(run=pl.lit("b"), s=1 - pl.col("s"))]
)
STATE = lp.fit_comparability(LOG, by="user", item="item", y_score="s", y_true="y")
#: candidates of two sources (lp.budget_curve, lp.recall_at_budget) and a log with the
#: logging and the new policy's propensities (lp.off_policy)
SOURCES = LOG.with_columns(src=pl.Series(["a", "b"] * 6))
SOURCE_COST = {"a": lambda k: 1.0 * k, "b": lambda k: 2.0 * k}
PROPENSITIES = LOG.with_columns(p_log=pl.lit(0.5), p_new=pl.col("s"))


class _Case:
    """One frame-taking function: its frame, valid keywords, a bad value per parameter."""

    def __init__(
        self,
        frame: pl.DataFrame,
        valid: dict[str, Any],
        bad: dict[str, Any],
        returns: type | None,
        why: str = "",
    ) -> None:
        self.frame, self.valid, self.bad = frame, valid, bad
        self.returns, self.why = returns, why  # None: a frame of rows or groups


NOT_A_COLUMN = 3  # a value that is neither a column name nor an expression

FRAME_FUNCTIONS: dict[str, _Case] = {
    "evaluate": _Case(
        LOG,
        {"metrics": ["ndcg", "rr"], "by": "user", "y_true": "y", "y_score": "s"},
        {
            "metrics": ["no_such_metric"],
            "by": NOT_A_COLUMN,
            "y_true": NOT_A_COLUMN,
            "y_score": NOT_A_COLUMN,
            "weight": NOT_A_COLUMN,
            "ties": "random",
            "item": NOT_A_COLUMN,
            "n_relevant": NOT_A_COLUMN,
            "judged": NOT_A_COLUMN,
            "popularity": NOT_A_COLUMN,
            "feature": NOT_A_COLUMN,
            "popularity_rank": NOT_A_COLUMN,
            "n_items": 0,
            "strict": "no",
            "mean": 1,
            "batch_rows": 0,
            "progress": 3,
            "layout": "sorted",
            "temp_dir": "no/such/dir",
        },
        None,
    ),
    "compare": _Case(
        PER_QUERY,
        {"baseline": "a"},
        {
            "baseline": 1,
            "metrics": 3,
            "test": "kruskal",
            "correction": "bh",
            "alpha": 1.5,
            "n_resamples": 0,
            "seed": -1,
            "run": None,
            "by": NOT_A_COLUMN,
            "missing": "drop",
            "lower_is_better": 3,
            "higher_is_better": 3,
            "progress": 3,
        },
        lp.Comparison,
        "a report of tests over runs, not a frame of rows (its .table and .pairs are frames)",
    ),
    "summarize": _Case(
        LOG,
        {"metrics": "s", "by": "user"},
        {
            "metrics": NOT_A_COLUMN,
            "by": NOT_A_COLUMN,
            "cohort": NOT_A_COLUMN,
            "weight": NOT_A_COLUMN,
        },
        None,
    ),
    "group_auc": _Case(
        LOG,
        {"y_true": "y", "y_score": "s", "by": "user"},
        {
            "y_true": NOT_A_COLUMN,
            "y_score": NOT_A_COLUMN,
            "by": NOT_A_COLUMN,
            "weighting": "users",
        },
        None,
    ),
    "calibration_curve": _Case(
        LOG,
        {"y_true": "y", "y_prob": "s"},
        {
            "y_true": NOT_A_COLUMN,
            "y_prob": NOT_A_COLUMN,
            "n_bins": 0,
            "strategy": "x",
            "by": NOT_A_COLUMN,
        },
        None,
    ),
    "top_k": _Case(
        LOG,
        {"k": 2, "by": "user", "item": "item", "y_score": "s"},
        {"k": 0, "by": NOT_A_COLUMN, "item": NOT_A_COLUMN, "y_score": NOT_A_COLUMN},
        None,
    ),
    "ranking_report": _Case(
        LOG,
        {
            "by": "user",
            "item": "item",
            "y_true": "y",
            "y_score": "s",
            "k": 2,
            "objectives": ("accuracy",),
            "n_resamples": 20,
        },
        {
            "by": NOT_A_COLUMN,
            "item": NOT_A_COLUMN,
            "y_true": NOT_A_COLUMN,
            "y_score": NOT_A_COLUMN,
            "k": 0,
            "objectives": ("nope",),
            "train": NOT_A_COLUMN,
            "popularity": NOT_A_COLUMN,
            "groups": NOT_A_COLUMN,
            "value": NOT_A_COLUMN,
            "feature": NOT_A_COLUMN,
            "y_score_b": NOT_A_COLUMN,
            "n_resamples": 0,
            "confidence_level": 1.5,
            "seed": -1,
            "multi_positive": "nope",
            "tail_share": 1.5,
            "primary_objective": "nope",
            "popularity_discount": -1.0,
            "shrinkage": "yes",
            "shrinkage_strength": -1,
            "percentile": "yes",
            "batch_rows": 0,
            "layout": "sorted",
            "temp_dir": "no/such/dir",
            "progress": 3,
            "state": "x.json",
            "engine": "nope",
        },
        lp.RankingReport,
        "a report (a mapping, JSON, .to_frame()), not a frame of rows",
    ),
    "fit_comparability": _Case(
        LOG,
        {"by": "user", "item": "item", "y_score": "s", "y_true": "y"},
        {
            "by": NOT_A_COLUMN,
            "item": NOT_A_COLUMN,
            "y_score": NOT_A_COLUMN,
            "y_true": NOT_A_COLUMN,
            "n_quantiles": 0,
        },
        lp.ComparabilityState,
        "a fitted state (per-item rates and quantiles) to save and apply, not a frame of rows",
    ),
    "fuse": _Case(
        RUNS,
        {
            "method": "wsum",
            "weights": {"a": 0.5, "b": 0.5},
            "by": "user",
            "item": "item",
            "y_score": "s",
        },
        {
            "method": "nope",
            "norm": "nope",
            "weights": 3,
            "by": NOT_A_COLUMN,
            "item": NOT_A_COLUMN,
            "y_score": NOT_A_COLUMN,
            "run": NOT_A_COLUMN,
            "k": 0,
            "phi": "x",
            "sigma": 2.0,
            "gamma": "x",
            "probs": {"a": [0.5], "b": [0.5]},  # posfuse's only
            "map_scores": {"a": 1.0, "b": 1.0},  # mapfuse's only
            "w": -1,
            "log_odds": {"a": [0.5], "b": [0.5]},  # bayesfuse's only
        },
        None,
    ),
    "transform_for_objective": _Case(
        LOG,
        {"objective": "coverage", "state": STATE, "by": "user", "item": "item", "y_score": "s"},
        {
            "objective": "nope",
            "state": "x.json",
            "by": NOT_A_COLUMN,
            "item": NOT_A_COLUMN,
            "y_score": NOT_A_COLUMN,
            "popularity_discount": -1.0,
            "shrinkage": "yes",
            "shrinkage_strength": -1,
            "percentile": "yes",
        },
        None,
    ),
    "budget_curve": _Case(
        SOURCES,
        {
            "by": "user",
            "item": "item",
            "source": "src",
            "y_score": "s",
            "y_true": "y",
            "cost": SOURCE_COST,
        },
        {
            "by": NOT_A_COLUMN,
            "item": NOT_A_COLUMN,
            "source": NOT_A_COLUMN,
            "cost": "cheap",
            "y_score": NOT_A_COLUMN,
            "rank": NOT_A_COLUMN,
            "relevant": "relevant.parquet",
            "y_true": NOT_A_COLUMN,
            "average": "weighted",
        },
        None,
    ),
    "recall_at_budget": _Case(
        SOURCES,
        {
            "budget": [1.0, 3.0],
            "by": "user",
            "item": "item",
            "source": "src",
            "y_score": "s",
            "y_true": "y",
            "cost": SOURCE_COST,
            "mix_ks": [1, 2],
        },
        {
            "budget": -1.0,
            "by": NOT_A_COLUMN,
            "item": NOT_A_COLUMN,
            "source": NOT_A_COLUMN,
            "cost": "cheap",
            "y_score": NOT_A_COLUMN,
            "rank": NOT_A_COLUMN,
            "relevant": "relevant.parquet",
            "y_true": NOT_A_COLUMN,
            "average": "weighted",
            "mix_ks": [0],
            "combine": "mean",
        },
        None,
    ),
    "item_popularity": _Case(
        LOG,
        {"by": "user", "item": "item"},
        {"by": NOT_A_COLUMN, "item": NOT_A_COLUMN},
        None,
    ),
    "personalisation": _Case(
        LOG,
        {"by": "user", "item": "item", "y_score": "s", "k": 2},
        {"by": NOT_A_COLUMN, "item": NOT_A_COLUMN, "y_score": NOT_A_COLUMN, "k": 0},
        float,
        "one number over every list (the lists compared with each other), not a frame of rows",
    ),
    "off_policy": _Case(
        PROPENSITIES,
        {"y_true": "y", "propensity": "p_log", "target": "p_new", "by": "user", "n_resamples": 20},
        {
            "y_true": NOT_A_COLUMN,
            "propensity": NOT_A_COLUMN,
            "target": NOT_A_COLUMN,
            "reward_model": NOT_A_COLUMN,
            "reward_model_target": NOT_A_COLUMN,
            "position": NOT_A_COLUMN,
            "by": NOT_A_COLUMN,
            "clip": -1.0,
            "estimators": ["nope"],
            "n_resamples": 0,
            "confidence_level": 1.5,
            "seed": -1,
        },
        None,
    ),
}

_BAD = [(name, option) for name, case in FRAME_FUNCTIONS.items() for option in case.bad]


def _call(name: str, frame: object, **kwargs: Any) -> Any:
    case = FRAME_FUNCTIONS[name]
    function: Callable[..., Any] = getattr(lp, name)
    return function(frame, **{**case.valid, **kwargs})


@pytest.mark.parametrize("name", sorted(FRAME_FUNCTIONS))
def test_the_table_has_a_bad_value_for_every_parameter(name: str) -> None:
    """Each parameter but the frame has its bad value below: a new option joins the table."""
    parameters = list(inspect.signature(getattr(lp, name)).parameters)[1:]
    assert sorted(FRAME_FUNCTIONS[name].bad) == sorted(parameters)


@pytest.mark.parametrize(("name", "option"), _BAD)
def test_a_bad_option_is_an_invalid_parameter_error(name: str, option: str) -> None:
    """(c) A bad value of any option: ``lp.InvalidParameterError``, naming the option or value.

    Raised by the call itself, on a ``LazyFrame`` too: an option is checked at the top
    of its function, not when the rows are read.
    """
    value = FRAME_FUNCTIONS[name].bad[option]
    with pytest.raises(lp.InvalidParameterError) as info:  # at the call, before any row
        _call(name, FRAME_FUNCTIONS[name].frame.lazy(), **{option: value})
    shown = [repr(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
    said = str(info.value)
    assert option in said or any(v in said for v in shown), said


@pytest.mark.parametrize("name", sorted(FRAME_FUNCTIONS))
def test_a_lazy_frame_in_gives_a_lazy_frame_out(name: str, tmp_path: Path) -> None:
    """(c) Where the result is a frame of rows or groups; the table says what else and why."""
    case = FRAME_FUNCTIONS[name]
    eager = _call(name, case.frame)
    lazy = _call(name, case.frame.lazy())
    if case.returns is None:
        assert isinstance(eager, pl.DataFrame)
        assert isinstance(lazy, pl.LazyFrame)
        assert_frame_equal(lazy.collect(), eager)
    else:
        assert case.why
        assert isinstance(eager, case.returns)
        assert isinstance(lazy, case.returns)


#: the parameters that play a column role (a name or a Polars expression, issue 19)
ROLE_PARAMETERS = frozenset(
    {
        "by",
        "item",
        "y_true",
        "y_score",
        "y_prob",
        "groups",
        "weight",
        "cohort",
        "metrics",
        "popularity",
        "feature",
        "popularity_rank",
    }
)
_ROLE_CASES = [
    (name, role)
    for name, case in FRAME_FUNCTIONS.items()
    for role, value in case.valid.items()
    if role in ROLE_PARAMETERS and isinstance(value, str) and value in case.frame.columns
]


def _without_sources(result: Any) -> Any:
    if isinstance(result, pl.LazyFrame):
        result = result.collect()
    if isinstance(result, pl.DataFrame):
        return result.select(sorted(c for c in result.columns if not c.endswith("_src")))
    return result


@pytest.mark.parametrize(("name", "role"), _ROLE_CASES)
def test_a_role_takes_an_expression(name: str, role: str) -> None:
    """A role given as an expression of another column plays it under its output name.

    The role's column is renamed ``<name>_src`` and the role given as
    ``pl.col("<name>_src").alias("<name>")``: the result equals the call by name.
    """
    case = FRAME_FUNCTIONS[name]
    column = case.valid[role]
    expected = _call(name, case.frame)
    renamed = case.frame.rename({column: f"{column}_src"})
    got = _call(name, renamed, **{role: pl.col(f"{column}_src").alias(column)})
    if isinstance(expected, pl.DataFrame):
        assert_frame_equal(_without_sources(got), _without_sources(expected))
    else:
        assert got == expected
