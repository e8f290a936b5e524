"""Shared test machinery: long frames, and one metric run through every path.

A *path* is one way a user evaluates a metric expression per group:

``group_by``
    eager ``df.group_by("query", maintain_order=True).agg(metric)``;
``lazy``
    the same on ``df.lazy()``, collected with the default engine;
``streaming``
    the same, collected with ``engine="streaming"``;
``over``
    ``metric.over("query")`` next to every row (the value must be constant
    within a group; one value per group is kept);
``select``
    ``select(metric)`` on each group's rows alone (the whole frame is one group);
``evaluate``
    ``lp.evaluate(df, [name], by="query", ..., strict=False)``, only where the
    options can be written as an evaluate name (``"ndcg@3"``, ``"rr"``, ...):
    evaluate has no ``log_base`` or ``ignore_ties``.  Its rows are sorted by
    the key (checked), and are put back in group order;
``evaluate_lazy``
    the same on ``df.lazy()``, collected.

Helpers are handed out by session-scoped fixtures (the test modules are
imported with ``--import-mode=importlib``, so they cannot import this file),
which also keeps them usable inside hypothesis tests.

Spark: a test marked ``@pytest.mark.spark`` skips, with the reason, only where pyspark or Java
is missing (the dependency-floor job installs no pyspark); with ``LODESTAR_REQUIRE_SPARK=1``, as
the main CI run sets it, it fails instead. The ``spark`` fixture is one ``local[2]`` session for
the whole test session (tests/test_spark.py and tests/test_spark_report.py share it).
"""

from __future__ import annotations

import importlib.util
import inspect
import math
import os
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import polars as pl
import pytest

import lodestar_polars as lp
from lodestar_polars._registry import REGISTRY

PATHS = ("group_by", "lazy", "streaming", "over", "select", "evaluate", "evaluate_lazy")

QUERY, Y_TRUE, Y_SCORE = "query", "y_true", "y_score"

Metric = Callable[..., pl.Expr]


def _keyword_defaults(function: Metric) -> dict[str, Any]:
    """The keyword-only options of an expression with a default, and the default."""
    return {
        p.name: p.default
        for p in inspect.signature(function).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is not inspect.Parameter.empty
    }


#: evaluate's name of each public expression, and the options its name can carry,
#: read from the metric registry (a name that fixes options, ndcg_burges, is left out, and
#: so are the beyond-accuracy entries, which read inputs besides y_true and y_score:
#: tests/test_beyond_accuracy.py runs them on every path)
_EVALUATE_NAMES: dict[Metric, tuple[str, dict[str, Any]]] = {
    spec.expression: (spec.name, _keyword_defaults(spec.expression))
    for spec in REGISTRY
    if not spec.fixed and not spec.inputs
}

ALL_METRICS: tuple[Metric, ...] = tuple(_EVALUATE_NAMES)


def evaluate_name(metric: Metric, options: dict[str, Any]) -> str | None:
    """The :func:`lodestar_polars.evaluate` name of ``metric(**options)``, or None.

    ``k`` becomes ``@k``; any other option must sit at its default (``log_base=2``
    counts as default whether written as int or float, but ``True``/``1`` do not
    stand in for anything).
    """
    name, defaults = _EVALUATE_NAMES[metric]
    if set(options) - set(defaults) - {"k"}:
        return None
    for key, value in options.items():
        if key == "k":
            continue
        default = defaults[key]
        if type(value) is bool or type(default) is bool:
            if value is not default:
                return None
        elif value != default:
            return None
    k = options.get("k", defaults.get("k"))
    if k is None:
        return name
    if type(k) is not int:  # k=True and numpy ints cannot be written after '@'
        return None
    return f"{name}@{k}"


def long_frame(
    rows_true: Sequence[Sequence[Any]],
    rows_score: Sequence[Sequence[Any]],
    *,
    queries: Sequence[int] | None = None,
) -> pl.DataFrame:
    """One row per (group, item): columns ``query`` (int), ``y_true``, ``y_score``.

    Inside each group the rows keep the column order of the input row (this
    matters: with ``ignore_ties`` and in ``top_k_accuracy`` a tie ranks the
    later row first).  Groups are numbered 0, 1, ... unless ``queries`` names
    them.  Rows may have different lengths (ragged input).
    """
    if len(rows_true) != len(rows_score):
        msg = f"{len(rows_true)} y_true rows but {len(rows_score)} y_score rows"
        raise ValueError(msg)
    if queries is None:
        queries = range(len(rows_true))
    query: list[int] = []
    truth: list[Any] = []
    score: list[Any] = []
    for q, t, s in zip(queries, rows_true, rows_score, strict=True):
        if len(t) != len(s):
            msg = f"group {q}: {len(t)} y_true values but {len(s)} y_score values"
            raise ValueError(msg)
        query += [q] * len(t)
        truth += list(t)
        score += list(s)
    return pl.DataFrame(
        {
            QUERY: pl.Series(QUERY, query, dtype=pl.Int64),
            Y_TRUE: pl.Series(Y_TRUE, truth, strict=False),
            Y_SCORE: pl.Series(Y_SCORE, score, strict=False),
        }
    )


def case_frame(case: dict[str, Any]) -> pl.DataFrame:
    """The long frame of a corpus case whose ``y_true``/``y_score`` are rows (dense or ragged)."""
    kwargs = case["kwargs"] if isinstance(case, dict) else case.kwargs
    return long_frame(kwargs["y_true"], kwargs["y_score"])


def _group_keys(frame: pl.DataFrame) -> list[Any]:
    return frame.get_column(QUERY).unique(maintain_order=True).to_list()


def run_path(
    path: str, frame: pl.DataFrame, metric: Metric, **options: Any
) -> list[float | None] | None:
    """Per-group values of ``metric(y_true, y_score, **options)`` on ``path``, in group order.

    Groups are ordered by first appearance in ``frame`` (every path but
    ``evaluate`` must give them in that order itself).  Returns None when
    ``path`` cannot express the options (``evaluate`` with ``log_base`` or
    ``ignore_ties``).
    """
    expr = metric(Y_TRUE, Y_SCORE, **options)
    name = expr.meta.output_name()
    if path == "group_by":
        out = frame.group_by(QUERY, maintain_order=True).agg(expr)
    elif path == "lazy":
        out = frame.lazy().group_by(QUERY, maintain_order=True).agg(expr).collect()
    elif path == "streaming":
        out = (
            frame.lazy().group_by(QUERY, maintain_order=True).agg(expr).collect(engine="streaming")
        )
    elif path == "over":
        out = (
            frame.lazy()
            .select(QUERY, expr.over(QUERY))
            .group_by(QUERY, maintain_order=True)
            .agg(pl.col(name).first(), pl.col(name).n_unique().alias("__distinct"))
            .collect()
        )
        varying = out.filter(pl.col("__distinct") != 1)
        assert varying.is_empty(), f".over gave several values within a group:\n{varying}"
    elif path == "select":
        values = []
        for group in frame.partition_by(QUERY, maintain_order=True):
            one = group.select(expr)
            assert one.shape == (1, 1), f"select gave shape {one.shape} on\n{group}"
            values.append(one.item())
        return values
    elif path in ("evaluate", "evaluate_lazy"):
        text = evaluate_name(metric, options)
        if text is None:
            return None
        options_in: dict[str, Any] = dict(by=QUERY, y_true=Y_TRUE, y_score=Y_SCORE, strict=False)
        if path == "evaluate_lazy":
            out = lp.evaluate(frame.lazy(), [text], **options_in).collect()
        else:
            out = lp.evaluate(frame, [text], **options_in)
        assert out.columns == [QUERY, text], out.columns
        assert out.schema[text] == pl.Float64, f"evaluate: dtype {out.schema[text]}"
        keys = out.get_column(QUERY).to_list()
        assert keys == sorted(_group_keys(frame)), f"evaluate: rows not sorted by key: {keys}"
        by_key = dict(zip(keys, out.get_column(text).to_list(), strict=True))
        return [by_key[key] for key in _group_keys(frame)]
    else:  # pragma: no cover
        msg = f"unknown path {path!r}"
        raise ValueError(msg)
    assert out.get_column(QUERY).to_list() == _group_keys(frame), f"{path}: group order"
    assert out.schema[name] == pl.Float64, f"{path}: dtype {out.schema[name]}"
    return out.get_column(name).to_list()


def run_paths(frame: pl.DataFrame, metric: Metric, **options: Any) -> dict[str, list[float | None]]:
    """``{path: per-group values}`` over every path that can express ``options``."""
    results = {}
    for path in PATHS:
        values = run_path(path, frame, metric, **options)
        if values is not None:
            results[path] = values
    return results


def close(actual: float | None, expected: float | None, *, rel: float, abs_: float) -> bool:
    """Equal within ``rel``/``abs_``; null only equals null, NaN only NaN."""
    if actual is None or expected is None:
        return actual is None and expected is None
    if math.isnan(expected) or math.isnan(actual):
        return math.isnan(expected) and math.isnan(actual)
    if math.isinf(expected) or math.isinf(actual):
        return actual == expected
    return abs(actual - expected) <= max(abs_, rel * abs(expected))


def assert_paths(
    frame: pl.DataFrame,
    metric: Metric,
    expected: Sequence[float | None],
    *,
    rel: float = 1e-12,
    abs_: float = 1e-12,
    **options: Any,
) -> dict[str, list[float | None]]:
    """Assert every path gives ``expected`` per group (in group order); return the runs."""
    results = run_paths(frame, metric, **options)
    expected = list(expected)
    wrong = {}
    for path, values in results.items():
        if len(values) != len(expected) or not all(
            close(a, e, rel=rel, abs_=abs_) for a, e in zip(values, expected, strict=True)
        ):
            wrong[path] = values
    assert not wrong, f"{metric.__name__}({options}) expected {expected}, but got\n" + "\n".join(
        f"  {path}: {values}" for path, values in wrong.items()
    )
    return results


class Paths:
    """The helpers above, as one object handed out by the ``paths`` fixture."""

    PATHS = PATHS
    ALL_METRICS = ALL_METRICS
    QUERY, Y_TRUE, Y_SCORE = QUERY, Y_TRUE, Y_SCORE

    long_frame = staticmethod(long_frame)
    case_frame = staticmethod(case_frame)
    run_path = staticmethod(run_path)
    run_paths = staticmethod(run_paths)
    assert_paths = staticmethod(assert_paths)
    evaluate_name = staticmethod(evaluate_name)
    close = staticmethod(close)


@pytest.fixture(scope="session")
def paths() -> type[Paths]:
    """Long-frame builders and the every-path runner (see the module docstring)."""
    return Paths


# --------------------------------------------------------------------------- Spark


def _spark_missing() -> str | None:
    """Why the Spark tests cannot run here (no pyspark, no Java), or None."""
    if importlib.util.find_spec("pyspark") is None:
        return 'pyspark is not installed (pip install -e ".[test,spark]")'
    java_home = os.environ.get("JAVA_HOME")
    if shutil.which("java") is None and not (
        java_home and os.path.exists(os.path.join(java_home, "bin", "java"))
    ):
        return "no Java runtime (java on PATH or JAVA_HOME): Spark needs a JVM"
    return None


SPARK_MISSING = _spark_missing()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "spark: needs pyspark and a Java runtime (skipped without them; "
        "failed under LODESTAR_REQUIRE_SPARK=1)",
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("spark") is None or SPARK_MISSING is None:
        return
    if os.environ.get("LODESTAR_REQUIRE_SPARK") == "1":
        pytest.fail(f"LODESTAR_REQUIRE_SPARK=1 but the Spark tests cannot run: {SPARK_MISSING}")
    pytest.skip(SPARK_MISSING)


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local[2] session for the test session, its workers running this interpreter."""
    from pyspark.sql import SparkSession

    before = os.environ.get("PYSPARK_PYTHON")
    # the workers must run this interpreter, which has polars and lodestar_polars
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("lodestar_polars tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    if before is None:
        os.environ.pop("PYSPARK_PYTHON", None)
    else:
        os.environ["PYSPARK_PYTHON"] = before
