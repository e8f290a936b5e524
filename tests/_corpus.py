"""Loader for the frozen scikit-learn reference corpus (``corpus/data/*.json``).

Self-contained on purpose: no scikit-learn, no conftest, works with
``--import-mode=importlib`` (``from tests._corpus import load`` or by path).

    from tests._corpus import load, ids, assert_close

    CASES = load("dcg_score")

    @pytest.mark.parametrize("case", CASES, ids=ids(CASES))
    def test_dcg(case):
        if case.raises:
            with pytest.raises(ValueError, match=re.escape(case.raises["message"])):
                dcg_score(**case.kwargs)
        else:
            assert_close(dcg_score(**case.kwargs), case.expected)

Encoding (see ``corpus/README.md``): non-finite floats are stored as the strings
``"nan"``, ``"inf"`` and ``"-inf"`` and decoded here, in ``kwargs``, ``expected``,
``per_row`` and ``trapezoid`` only.  JSON keeps ``1`` (int), ``1.0`` (float) and
``true`` (bool) apart, and so does this loader.
"""

import json
import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "corpus" / "data"
MANIFEST = DATA.parent / "manifest.json"

FUNCTIONS = (
    "dcg_score",
    "ndcg_score",
    "top_k_accuracy_score",
    "average_precision_score",
    "coverage_error",
    "label_ranking_loss",
    "label_ranking_average_precision_score",
    "reciprocal_rank_score",
    "roc_auc_score",
    "log_loss",
    "brier_score_loss",
    "calibration_curve",
)

REL = 1e-12
ABS = 1e-12

_SPECIAL = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _decode(x: Any) -> Any:
    if isinstance(x, list):
        return [_decode(v) for v in x]
    if isinstance(x, dict):
        return {k: _decode(v) for k, v in x.items()}
    if isinstance(x, str) and x in _SPECIAL:
        return _SPECIAL[x]
    return x


@dataclass(frozen=True)
class Case:
    """One frozen call: ``function(**kwargs)`` returns ``expected`` or raises ``raises``."""

    function: str
    id: str
    kwargs: dict[str, Any]
    expected: Any = None
    expected_type: str | None = None  # "float" | "float64" | "int" | "ndarray" | "tuple" | None
    per_row: list[float] | None = None
    raises: dict[str, Any] | None = None  # {"type", "is_invalid_parameter_error", "message"}
    warns: list[dict[str, str]] = field(default_factory=list)  # [{"category", "message"}]
    tags: tuple[str, ...] = ()
    trapezoid: float | None = None  # binary average_precision_score only

    @property
    def is_error(self) -> bool:
        return self.raises is not None

    @property
    def is_ragged(self) -> bool:
        return "ragged" in self.tags

    def has(self, *tags: str) -> bool:
        """True if the case carries every one of ``tags``."""
        return all(t in self.tags for t in tags)


@cache
def _load(function: str) -> tuple[Case, ...]:
    path = DATA / f"{function}.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for c in raw:
        out.append(
            Case(
                function=function,
                id=c["id"],
                kwargs=_decode(c["kwargs"]),
                expected=_decode(c["expected"]),
                expected_type=c["expected_type"],
                per_row=_decode(c["per_row"]),
                raises=c["raises"],
                warns=list(c["warns"]),
                tags=tuple(c["tags"]),
                trapezoid=_decode(c.get("trapezoid")),
            )
        )
    return tuple(out)


def load(function: str) -> list[Case]:
    """All cases of one function, in file order (a fresh list; the cases are frozen,
    but their ``kwargs`` dicts are shared: copy before mutating).
    """
    if function not in FUNCTIONS:
        msg = f"no corpus for {function!r}; known: {', '.join(FUNCTIONS)}"
        raise KeyError(msg)
    return list(_load(function))


def ids(cases: list[Case]) -> list[str]:
    """pytest ids for ``parametrize``."""
    return [c.id for c in cases]


def manifest() -> dict[str, Any]:
    out: dict[str, Any] = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return out


def _flatten(x: Any) -> Any:
    tolist = getattr(x, "tolist", None)  # numpy arrays / scalars, without importing numpy
    if tolist is not None and not isinstance(x, (int, float)):
        x = tolist()
    if isinstance(x, tuple):
        x = list(x)
    return x


def _close(a: Any, e: Any, rel: float, abs_: float, path: str) -> None:
    a, e = _flatten(a), _flatten(e)
    if isinstance(e, list):
        assert isinstance(a, list), f"{path}: expected a sequence of {len(e)}, got {a!r}"
        assert len(a) == len(e), f"{path}: length {len(a)} != expected {len(e)}"
        for i, (x, y) in enumerate(zip(a, e, strict=False)):
            _close(x, y, rel, abs_, f"{path}[{i}]")
        return
    if e is None:
        assert a is None, f"{path}: expected None, got {a!r}"
        return
    assert not isinstance(a, (list, str)), f"{path}: expected {e!r}, got {a!r}"
    assert a is not None, f"{path}: expected {e!r}, got {a!r}"
    a, e = float(a), float(e)
    if math.isnan(e):
        assert math.isnan(a), f"{path}: expected nan, got {a!r}"
        return
    if math.isinf(e):
        assert a == e, f"{path}: expected {e!r}, got {a!r}"
        return
    assert math.isclose(a, e, rel_tol=rel, abs_tol=abs_), (
        f"{path}: got {a!r}, expected {e!r} (diff {abs(a - e):.3g}, rel={rel}, abs={abs_})"
    )


def assert_close(actual: Any, expected: Any, *, rel: float = REL, abs: float = ABS) -> None:  # noqa: A002
    """Compare a result with a corpus value: floats with ``math.isclose`` (rel and abs
    1e-12), NaN equal to NaN, infinities exactly, lists/arrays element-wise.
    """
    _close(actual, expected, rel, abs, "value")
