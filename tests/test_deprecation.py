"""The one deprecation decorator for renamed parameters (lodestar_polars._base.deprecation)."""

from __future__ import annotations

import inspect

import pytest

from lodestar_polars import InvalidParameterError
from lodestar_polars._base.deprecation import REMOVED_IN, RENAMED_IN, renamed


@renamed(score="y_score", truth="y_true")
def _graded(frame: str, *, y_true: str, y_score: str = "s") -> tuple[str, str, str]:
    """Doc kept."""
    return frame, y_true, y_score


def test_new_names_run_without_warning() -> None:
    assert _graded("f", y_true="t", y_score="x") == ("f", "t", "x")


def test_an_old_name_warns_naming_the_new_one_and_runs() -> None:
    with pytest.warns(FutureWarning) as record:
        # the old names are not in the signature (@renamed maps them): ignored on purpose
        got = _graded("f", truth="t", score="x")  # type: ignore[call-arg]
    assert got == ("f", "t", "x")
    assert [str(w.message) for w in record] == [
        f"_graded: the parameter `score` is renamed `y_score` (lodestar_polars {RENAMED_IN}); "
        f"`score` will be removed in {REMOVED_IN}",
        f"_graded: the parameter `truth` is renamed `y_true` (lodestar_polars {RENAMED_IN}); "
        f"`truth` will be removed in {REMOVED_IN}",
    ]
    assert record[0].filename == __file__  # the warning points at the caller's line


def test_both_names_is_an_error() -> None:
    with pytest.raises(InvalidParameterError, match="pass `y_score` only"):
        _graded("f", y_true="t", y_score="x", score="x")  # type: ignore[call-arg]


def test_the_signature_shows_only_the_new_names() -> None:
    assert list(inspect.signature(_graded).parameters) == ["frame", "y_true", "y_score"]
    assert _graded.__doc__ == "Doc kept."
    assert _graded.__renamed__ == {"score": "y_score", "truth": "y_true"}  # type: ignore[attr-defined]


def test_a_rename_to_an_unknown_parameter_is_a_code_error() -> None:
    with pytest.raises(AssertionError, match="cannot rename"):

        @renamed(old="missing")
        def f(*, new: int) -> int:
            return new
