"""The package's layout (decision 0018): each capability a subpackage, imports only downwards.

The layers, lowest first; a module imports from its own layer or a lower one, never from a
higher one, at module level or inside a function:

0. ``exceptions``, ``typing``: what every layer names;
1. ``_core`` (the NumPy maths) and ``_base`` (checks, sentences, progress, Arrow);
2. ``_metrics``: the expressions, one module per family;
3. ``_registry``: a metric's facts, read by every surface;
4. ``arrays`` (scikit-learn's dense surface) and ``_evaluate`` (``lp.evaluate``);
5. ``trec``, ``_compare``, ``_report``, ``_budget``, ``_off_policy``, ``_fusion``: the surfaces
   built on ``lp.evaluate`` and the report;
6. ``plot``, ``spark``, ``cli`` and the two commands (``trec._cli``, ``_report.cli``), and the
   package's ``__init__``, which only re-exports.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import lodestar_polars

PACKAGE = Path(lodestar_polars.__file__).parent

#: the layer of each top-level name of the package (a module or a subpackage)
LAYERS = {
    "exceptions": 0,
    "typing": 0,
    "_core": 1,
    "_base": 1,
    "_metrics": 2,
    "_registry": 3,
    "arrays": 4,
    "_evaluate": 4,
    "trec": 5,
    "_compare": 5,
    "_report": 5,
    "_budget": 5,
    "_off_policy": 5,
    "_fusion": 5,
    "plot": 6,
    "spark": 6,
    "cli": 6,
    "__main__": 6,
    "__init__": 6,
}
#: modules whose layer is not their package's: the commands sit with ``cli``
COMMANDS = {"lodestar_polars.trec._cli": 6, "lodestar_polars._report.cli": 6}

MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


def _dotted(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _layer(dotted: str) -> int:
    if dotted in COMMANDS:
        return COMMANDS[dotted]
    parts = dotted.split(".")
    if len(parts) == 1:  # the package itself
        return LAYERS["__init__"]
    return LAYERS[parts[1]]


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every ``lodestar_polars`` module a file imports, with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "lodestar_polars":
                found += [(node.lineno, f"lodestar_polars.{a.name}") for a in node.names]
            elif node.module.startswith("lodestar_polars."):
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [
                (node.lineno, a.name) for a in node.names if a.name.startswith("lodestar_polars.")
            ]
    return found


def test_every_top_level_name_has_a_layer() -> None:
    names = {p.stem for p in PACKAGE.glob("*.py")} | {
        p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()
    }
    assert names == set(LAYERS)


def test_the_flat_modules_are_gone() -> None:
    # every private module lives in the subpackage of its capability (the registry too:
    # lodestar_polars/_registry/)
    private = sorted(
        p.name for p in PACKAGE.glob("_*.py") if p.stem not in {"__init__", "__main__"}
    )
    assert private == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_go_downwards(path: Path) -> None:
    here = _dotted(path)
    mine = _layer(here)
    upwards = [
        f"line {line}: {target} (layer {_layer(target)})"
        for line, target in _imports(path)
        if target.split(".")[1] in LAYERS and _layer(target) > mine
    ]
    assert not upwards, f"{here} (layer {mine}) imports from above: {upwards}"


#: the line budget of a module (STYLE: "keep files under ~600 lines; a new concern, a new module")
LINE_BUDGET = 600


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_modules_fit_the_line_budget() -> None:
    over = {
        str(p.relative_to(PACKAGE).as_posix()): _lines(p)
        for p in MODULES
        if _lines(p) > LINE_BUDGET
    }
    assert not over, (
        f"over {LINE_BUDGET} lines: {over}; split the module by concern (decision 0018)"
    )
