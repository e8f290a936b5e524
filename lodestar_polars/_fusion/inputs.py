"""lp.fuse's methods, normalisations and options, and its runs read and checked."""

from __future__ import annotations

import functools
import operator
from collections.abc import Mapping, Sequence

import polars as pl

from lodestar_polars._base.validation import (
    check_column,
    check_columns,
    check_frame,
    check_int,
    check_option,
    check_real,
    names_of,
    select_roles,
)
from lodestar_polars._report.serving import check_one_row_per_item, check_score_dtype
from lodestar_polars.exceptions import InvalidParameterError

METHODS = (
    "min",
    "max",
    "med",
    "sum",
    "anz",
    "mnz",
    "gmnz",
    "isr",
    "log_isr",
    "logn_isr",
    "rrf",
    "rbc",
    "wsum",
    "wmnz",
    "mixed",
    "bordafuse",
    "w_bordafuse",
    "condorcet",
    "w_condorcet",
    "posfuse",
    "mapfuse",
    "probfuse",
    "segfuse",
    "slidefuse",
    "bayesfuse",
)
"""ranx's names of the fusion methods implemented here (its ``fusion_switch``)."""


NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda")
"""ranx's names of the normalisations implemented here (its ``norm_switch``)."""


WEIGHTED = frozenset({"wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet"})
"""The methods that read one weight per run."""


#: the methods that read each document's position in a run, not its score
POSITIONAL = frozenset(
    {"isr", "log_isr", "logn_isr", "rrf", "rbc", "bordafuse", "w_bordafuse"}
    | {
        "condorcet",
        "w_condorcet",
        "posfuse",
        "mapfuse",
        "probfuse",
        "segfuse",
        "slidefuse",
        "bayesfuse",
    }
)


#: each method's own parameter and its default (None: required, as in ranx)
PARAMETERS: dict[str, tuple[str, float | None]] = {
    "rrf": ("k", 60),
    "rbc": ("phi", None),
    "logn_isr": ("sigma", 0.01),
    "gmnz": ("gamma", None),
    "slidefuse": ("w", None),
}


#: ranx's floor of a normaliser's denominator, and its stand-ins for a missing score
_FLOOR = 1e-9
_MISSING_MIN = 1e9
_MISSING_MAX = -1e9

_P = "__lp_fuse_"
# working columns
_R, _S, _POS, _LEN, _W, _N, _FIRST = (f"{_P}{n}" for n in ("r", "s", "pos", "len", "w", "n", "1st"))


def _check_method(method: object, caller: str) -> str:
    return check_option(method, "method", caller, METHODS)


def _check_norm(norm: object, method: str, caller: str) -> str | None:
    if norm is None:
        return None
    value = check_option(norm, "norm", caller, NORMS)
    if value == "borda" and method in POSITIONAL:
        msg = (
            f"The 'norm' parameter of {caller} cannot be 'borda' with method={method!r}: "
            "that method reads each document's position in a run, and after borda's "
            "normalisation ranx orders a run by a Python set's iteration order (not "
            "reproducible). Got norm='borda' instead."
        )
        raise InvalidParameterError(msg)
    return value


def _check_parameters(method: str, given: Mapping[str, object], caller: str) -> dict[str, float]:
    """The method's own parameter (``k``, ``phi``, ``sigma`` or ``gamma``), checked."""
    own = PARAMETERS.get(method)
    out: dict[str, float] = {}
    for name, value in given.items():
        if value is None:
            continue
        if own is None or own[0] != name:
            which = [m for m, (p, _) in PARAMETERS.items() if p == name]
            msg = (
                f"The {name!r} parameter of {caller} applies to method={which[0]!r} only. "
                f"Got {name}={value!r} with method={method!r}."
            )
            raise InvalidParameterError(msg)
    if own is None:
        return out
    name, default = own
    value = given.get(name)
    if value is None:
        if default is None:
            msg = (
                f"The {name!r} parameter of {caller} is required with method={method!r} "
                f"(ranx has no default for it). Got None."
            )
            raise InvalidParameterError(msg)
        value = default
    if name in ("k", "w"):
        out[name] = float(check_int(value, name, caller, allow_none=False, low=0))  # type: ignore[arg-type]
    elif name == "sigma":
        sigma = check_real(value, "sigma", caller, allow_none=False)
        assert sigma is not None
        if not 0.0 <= sigma <= 1.0:  # ranx: assert 0.0 <= sigma <= 1.0
            msg = f"The 'sigma' parameter of {caller} must be in [0, 1]. Got {value!r} instead."
            raise InvalidParameterError(msg)
        out[name] = sigma
    else:
        real = check_real(value, name, caller, allow_none=False)
        assert real is not None
        out[name] = real
    return out


def _check_weights(
    weights: object, method: str, runs: Sequence[object], caller: str
) -> list[float] | None:
    """One finite weight per run, in the runs' order, or None for an unweighted method."""
    if weights is None:
        if method in WEIGHTED:
            msg = (
                f"The 'weights' parameter of {caller} is required with method={method!r}: "
                "a mapping of each run's name to its weight. Got None."
            )
            raise InvalidParameterError(msg)
        return None
    if not isinstance(weights, Mapping):
        msg = (
            f"The 'weights' parameter of {caller} must be a mapping of run name to weight "
            f"or None. Got {weights!r} instead."
        )
        raise InvalidParameterError(msg)
    if method not in WEIGHTED:
        msg = (
            f"The 'weights' parameter of {caller} applies to the weighted methods only "
            f"({sorted(WEIGHTED)}). Got weights with method={method!r}."
        )
        raise InvalidParameterError(msg)
    for value in weights.values():
        check_real(value, "weights", caller, allow_none=False)
    missing = [r for r in runs if r not in weights]
    extra = [r for r in weights if r not in runs]
    if missing or extra:
        msg = (
            f"The 'weights' parameter of {caller} must give one weight to each run and name "
            f"no other: runs without a weight {missing!r}, names that are not runs {extra!r}."
        )
        raise InvalidParameterError(msg)
    return [float(weights[r]) for r in runs]


def run_sum(x: pl.Expr, run: str, n_runs: int) -> pl.Expr:
    """A document's sum over its runs (in a ``group_by`` per document), in run order.

    ranx adds the runs in order. A group's rows come in no fixed order, and Polars may
    drop a sort before a sum, while equal sums added in another order can differ in the
    last bit and so reorder a tie from one call to the next: each run's term is taken
    apart (a document is at most once per run: its term is its one value plus zeros, the
    same float in any order), then the terms are added left to right.
    """
    terms = [pl.when(pl.col(run) == j).then(x).otherwise(0.0).sum() for j in range(n_runs)]
    return functools.reduce(operator.add, terms)


class _Input:
    """The runs as one long frame: key columns, item, a Float64 score, the run's index."""

    def __init__(
        self,
        runs: object,
        *,
        by: object,
        item: object,
        y_score: object,
        run: object,
        caller: str,
    ) -> None:
        by_exprs = check_columns(by, "by", caller)
        item_expr = check_column(item, "item", caller)
        score_expr = check_column(y_score, "y_score", caller)
        run_expr = check_column(run, "run", caller)
        assert item_expr is not None
        assert score_expr is not None
        assert run_expr is not None
        self.keys: list[str] = names_of(by_exprs)
        [self.item, self.score, self.run] = names_of([item_expr, score_expr, run_expr])
        if len({*self.keys, self.item, self.score, self.run}) != len(self.keys) + 3:
            msg = (
                f"{caller}: the 'by', 'item', 'y_score' and 'run' columns must be distinct. "
                f"Got by={self.keys}, item={self.item!r}, y_score={self.score!r}, "
                f"run={self.run!r}."
            )
            raise InvalidParameterError(msg)
        roles = {"by": by_exprs, "item": [item_expr], "y_score": [score_expr]}
        if isinstance(runs, Mapping):
            if len(runs) == 0:
                msg = f"The 'runs' parameter of {caller} must hold at least one run. Got {{}}."
                raise InvalidParameterError(msg)
            parts = []
            lazy = False
            for name, frame in runs.items():
                source, was_lazy = check_frame(frame, f"runs[{name!r}]", caller)
                lazy = lazy or was_lazy
                schema = select_roles(source, roles, f"runs[{name!r}]", caller)
                check_score_dtype(schema, self.score, caller)
                parts.append(
                    source.select(*by_exprs, item_expr, score_expr.cast(pl.Float64)).with_columns(
                        pl.lit(name).alias(self.run)
                    )
                )
            self.frame = pl.concat(parts, how="vertical_relaxed")
            self.lazy = lazy
        else:
            source, self.lazy = check_frame(runs, "runs", caller)
            schema = select_roles(source, {**roles, "run": [run_expr]}, "runs", caller)
            check_score_dtype(schema, self.score, caller)
            self.frame = source.select(*by_exprs, item_expr, score_expr.cast(pl.Float64), run_expr)
        # one read of the columns: the runs in order of first appearance, whether a score
        # is null or NaN, and whether a (query, run, document) may repeat (fewer distinct
        # hashes than rows; only then the exact check below, which also names the row)
        row_key = pl.struct(*self.keys, self.run, self.item).hash()
        facts = self.frame.select(
            pl.col(self.run).unique(maintain_order=True).implode().alias("runs"),
            (pl.col(self.score).is_null() | pl.col(self.score).is_nan()).sum().alias("bad"),
            (pl.len() - row_key.n_unique()).alias("repeats"),
        ).collect()
        self.runs: list[object] = facts["runs"][0].to_list()
        if facts["bad"][0]:
            bad = (
                self.frame.filter(pl.col(self.score).is_null() | pl.col(self.score).is_nan())
                .head(1)
                .collect()
                .row(0, named=True)
            )
            where = {k: bad[k] for k in (*self.keys, self.run)}
            msg = f"{caller}: a score is null or NaN ({where}); every score must be a number."
            raise ValueError(msg)
        if None in self.runs:
            msg = f"{caller}: the run column {self.run!r} holds a null; every row needs a run."
            raise ValueError(msg)
        if facts["repeats"][0]:
            check_one_row_per_item(self.frame, [*self.keys, self.run], self.item, caller, "runs")


def _prepared(data: _Input, norm: str | None) -> pl.LazyFrame:
    """The long frame with the run's index, the score, the 0-based position and run length.

    The position is ranx's: the order of ``argsort(-score)``, equal scores in row order
    (what ranx's sort does on lists of up to 15 documents; past that its order of a tie
    is unspecified). After ``norm="min-max-inverted"`` ranx sorts each run again by the
    inverted score, so there the position is the order of the score ascending (equal
    scores still in row order: the second sort keeps the first's order of a tie).
    """
    per_run = [*data.keys, _R]
    index = pl.col(data.run).replace_strict(
        data.runs, list(range(len(data.runs))), return_dtype=pl.UInt32
    )
    return (
        data.frame.with_columns(index.alias(_R))
        .select(*data.keys, data.item, pl.col(data.score).alias(_S), _R)
        .with_columns(
            (pl.col(_S).rank("ordinal", descending=norm != "min-max-inverted").over(per_run) - 1)
            .cast(pl.Int64)
            .alias(_POS),
            pl.len().over(per_run).cast(pl.Int64).alias(_LEN),
        )
    )
