"""trec_eval's measure names: `-m` arguments parsed into `Measure`s."""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from lodestar_polars._core.ir import Judged
from lodestar_polars._registry import (
    TREC_MEASURES,
    TrecMeasure,
    resolve,
    trec_offered,
)

# --------------------------------------------------------------------------- measures
MEASURES: dict[str, tuple[int, ...] | None] = {
    m.name: m.default_cutoffs or None for m in trec_offered()
}


"""The trec_eval measures offered, in trec_eval's print order, with their default cutoffs
(read from the metric registry, ``lodestar_polars._registry.TREC_MEASURES``)."""


Written = Literal["params", "name", "set", "peer"]


@dataclass(frozen=True)
class Measure:
    """One measure to compute: trec_eval's measure, a cutoff, ndcg gains, and its printed name."""

    measure: TrecMeasure
    k: int | None
    gains: tuple[tuple[int, float], ...] | None
    label: str
    values: tuple[float, ...] = ()
    """The numbers of ``params="levels"`` (one level) and ``params="values"`` measures."""
    written: Written = "peer"
    """How it was asked for: a trec_eval name with parameters (``P.5``, ``P_5``:
    ``"params"``) or without (``P``: ``"name"``), a measure of ``official`` /
    ``all_trec`` (``"set"``: replaced by the measure written with parameters, as in
    trec_eval), or a ranx / ir_measures name (``"peer"``)."""

    @property
    def kind(self) -> str:
        """trec_eval's name of the measure (``P`` for ``P_10``)."""
        return self.measure.name

    @property
    def order(self) -> tuple[int, float]:
        """Sort key: trec_eval's print order, then the cutoff."""
        return self.measure.order, self.k or (self.values[0] if self.values else 0)

    @property
    def param(self) -> Any:
        """What the core takes after the data: the cutoff, the level, or the values."""
        if self.measure.params == "levels":
            return self.values[0]
        if self.measure.params == "values":
            return self.values
        return self.k


def _check_positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        msg = f"`{name}` must be an int >= 1, got {value!r}"
        raise ValueError(msg)
    return int(value)


def _cutoffs(text: str, measure: str) -> list[int]:
    out = []
    for part in text.split(","):
        try:
            value = float(part)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value >= 1):
            msg = f"measure {measure!r}: cutoff {part!r} is not a number >= 1"
            raise ValueError(msg)
        # trec_eval reads '23.4' as 23 (its own test suite asks for ndcg_cut.10,20,23.4); an
        # exponent ('1e3') is refused rather than read one way or the other
        if not re.fullmatch(r"\s*[0-9]+(\.[0-9]*)?\s*", part):
            msg = f"measure {measure!r}: cutoff {part!r} must be written in digits, as 10 or 23.4"
            raise ValueError(msg)
        out.append(math.floor(value))
    if len(set(out)) != len(out):
        msg = f"measure {measure!r}: a cutoff is given twice"
        raise ValueError(msg)
    return sorted(out)


def _gains(text: str, measure: str) -> tuple[tuple[int, float], ...]:
    pairs = []
    for part in text.split(","):
        level, _, gain = part.partition("=")
        try:
            pairs.append((int(level), float(gain)))
        except ValueError:
            msg = f"measure {measure!r}: expected gains as `level=gain,...`, got {part!r}"
            raise ValueError(msg) from None
        if pairs[-1][0] < 0:
            msg = f"measure {measure!r}: relevance level {level!r} must be >= 0"
            raise ValueError(msg)
        if not math.isfinite(pairs[-1][1]):
            msg = f"measure {measure!r}: gain {gain!r} is not a finite number"
            raise ValueError(msg)
    return tuple(pairs)


def _numbers(text: str, measure: str) -> list[float]:
    """trec_eval's comma-separated numbers (``.10,.20``), each a finite decimal."""
    out = []
    for part in text.split(","):
        if not re.fullmatch(r"\s*-?([0-9]+\.?[0-9]*|\.[0-9]+)\s*", part):
            msg = f"measure {measure!r}: parameter {part!r} is not a number written in digits"
            raise ValueError(msg)
        out.append(float(part))
    return out


def _numbered(measure: TrecMeasure, params: str, text: str) -> list[Measure]:
    """A measure with numeric parameters: recall levels or multiples of R, or values."""
    base = measure.name
    if measure.params == "levels":
        levels = sorted(_numbers(params, text)) if params else list(measure.default_values)
        if len(set(levels)) != len(levels):
            msg = f"measure {text!r}: a level is given twice"
            raise ValueError(msg)
        return [
            Measure(measure, None, None, f"{base}_{v:3.2f}", (v,), written=_written(params))
            for v in levels
        ]
    values = tuple(_numbers(params, text)) if params else measure.default_values
    if measure.n_values is not None and len(values) != measure.n_values:
        msg = (
            f"measure {text!r}: {base} takes {measure.n_values} "
            f"value{'s' if measure.n_values > 1 else ''}, got {len(values)}"
        )
        raise ValueError(msg)
    if measure.increasing and list(values) != sorted(set(values)):
        msg = (
            f"measure {text!r}: {base}'s levels must increase (trec_eval walks them in the "
            "order written)"
        )
        raise ValueError(msg)
    label = f"{base}_{params}" if params else base
    return [Measure(measure, None, None, label, values, written=_written(params))]


def _written(params: str) -> Written:
    return "params" if params else "name"


def _parse_one(text: str) -> list[Measure]:
    if text in ("official", "all_trec"):
        # trec_eval's sets, as the registry flags them (of the measures offered here)
        chosen = [m for m in trec_offered() if (m.official if text == "official" else m.all_trec)]
        return [
            dataclasses.replace(parsed, written="set")
            for m in chosen
            for parsed in _parse_one(m.name)
        ]
    # trec_eval names: "P", "P.5,10", "P_5", "ndcg.1=3,2=9", "ndcg_cut.10"
    base, dot, params = text.partition(".")
    if not dot:
        match = re.fullmatch(r"(.+)_([0-9]+)", text)
        found_cut = TREC_MEASURES.get(match[1]) if match else None
        if match and found_cut is not None and found_cut.params == "cutoffs":
            base, params = match[1], match[2]
    measure = TREC_MEASURES.get(base)
    if measure is not None and measure.offered:
        if measure.params == "gains":
            gains = _gains(params, text) if params else None
            label = f"{base}_{params}" if params else base
            return [Measure(measure, None, gains, label, written=_written(params))]
        if measure.params in ("levels", "values"):
            return _numbered(measure, params, text)
        if measure.params == "none":
            if params:
                msg = f"measure {text!r}: {base} takes no parameters"
                raise ValueError(msg)
            return [Measure(measure, None, None, base, written="name")]
        cutoffs = _cutoffs(params, text) if params else list(measure.default_cutoffs)
        return [Measure(measure, k, None, f"{base}_{k}", written=_written(params)) for k in cutoffs]
    # ranx / ir_measures names ("ndcg@10", "nDCG@10", "AP@100", "hit_rate@5", "Rprec"),
    # read through the metric registry: the trec_eval measure each metric is
    found = resolve(text)
    if found is not None:
        if found.k is not None and found.k < 1:
            msg = f"measure {text!r}: cutoff {str(found.k)!r} is not a number >= 1"
            raise ValueError(msg)
        measure = found.spec.trec_measure(cut=found.k is not None)
        if measure is not None:
            values = () if found.level is None else (found.level,)
            return [Measure(measure, found.k, None, text, values)]
        trec_names = [m.name for m in found.spec.trec_eval]
        msg = (
            f"measure {text!r}: {found.spec.name} (lp.{found.spec.expression.__name__}) is not "
            f"a trec_eval measure{' with a cutoff' if found.k is not None else ''}"
            + (f"; trec_eval's is {trec_names[0]!r}" if trec_names else "")
            + (
                " (trec_eval's AP is 'map', ir_measures' 'AP')"
                if found.spec.name == "average_precision"
                else ""
            )
        )
        raise ValueError(msg)
    known = TREC_MEASURES.get(base)
    not_offered = f" (trec_eval's {known.summary}, not offered here)" if known else ""
    msg = (
        f"unknown measure {text!r}{not_offered}: expected a trec_eval measure among "
        f"{list(MEASURES)} "
        "(with `.k1,k2` cutoffs, or `ndcg.level=gain,...`), 'official', 'all_trec', or a "
        "ranx / ir_measures name such as 'ndcg@10', 'P@10', 'AP@100', 'RR@10', 'R@100', "
        "'Success@10', 'Rprec'"
    )
    raise ValueError(msg)


def _computed(m: Measure, data: Judged) -> np.ndarray:
    """The measure's values per query, by the core its registry entry carries."""
    core = m.measure.core
    assert core is not None  # parse_measures gives the offered measures only
    return core(data, m.param, m.gains)


def parse_measures(measures: str | Sequence[str]) -> list[Measure]:
    """The :class:`Measure` s named by trec_eval, ranx or ir_measures names, in print order.

    Examples
    --------
    >>> [m.label for m in parse_measures(["P.10,5", "map", "ndcg@10", "num_q"])]
    ['num_q', 'map', 'P_5', 'P_10', 'ndcg@10']

    A measure of ``official`` or ``all_trec`` written with parameters too is
    computed with those only, as in trec_eval (``-m all_trec -m relstring.20``
    prints ``relstring_20`` and no ``relstring``); a bare name and parameters,
    both written, give both:

    >>> labels = [m.label for m in parse_measures(["all_trec", "relstring.20", "P.7"])]
    >>> [x for x in labels if x.startswith(("P_", "relstring"))]
    ['P_7', 'relstring_20']
    >>> [m.label for m in parse_measures(["relstring", "relstring.20"])]
    ['relstring', 'relstring_20']
    """
    if not isinstance(measures, (str, Sequence)):
        msg = f"`measures` must be a str or a list of str, got {measures!r}"
        raise TypeError(msg)
    names = [measures] if isinstance(measures, str) else list(measures)
    if not names:
        msg = "`measures` must name at least one measure"
        raise ValueError(msg)
    found: dict[str, Measure] = {}
    for text in names:
        if not isinstance(text, str):
            msg = f"a measure name must be a str, got {text!r}"
            raise TypeError(msg)
        for m in _parse_one(text.strip()):
            if m.written != "set" or m.label not in found:
                found[m.label] = m
    # as trec_eval: a measure of a set that is also written with parameters is computed
    # with those only (`all_trec` and `relstring.20`: relstring_20, no relstring)
    given = {m.kind for m in found.values() if m.written == "params"}
    kept = [m for m in found.values() if not (m.written == "set" and m.kind in given)]
    return sorted(kept, key=lambda m: m.order)
