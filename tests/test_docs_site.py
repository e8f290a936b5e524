"""The documentation site: every public name reaches the API reference and the home page, every
metric page reaches the home page and the chooser, links stay inside the site, and the names the
"coming from" pages map agree with the metric registry.

``mkdocs build --strict`` (run by .ci/run) renders the site; these checks need no mkdocs, so they
also run under the dependency floors.
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import lodestar_polars as lp
from lodestar_polars import InvalidParameterError, arrays, spark, trec
from lodestar_polars._registry import resolve

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
API = DOCS / "api" / "index.md"
INDEX = DOCS / "index.md"
CHOOSING = DOCS / "choosing.md"
METRIC_PAGES = sorted((DOCS / "metrics").glob("*.md"))
COMING_FROM = sorted(DOCS.glob("coming-from-*.md"))
PEER_PAGES = [p for p in COMING_FROM if p.name != "coming-from-trec_eval.md"]
LINK = re.compile(r"\]\(([^)\s]+)\)")


API_NAMES = (
    [f"lodestar_polars.{n}" for n in lp.__all__ if not inspect.ismodule(getattr(lp, n))]
    + [f"lodestar_polars.arrays.{n}" for n in arrays.__all__]
    + [f"lodestar_polars.trec.{n}" for n in trec.__all__]
    + [f"lodestar_polars.spark.{n}" for n in spark.__all__]
)


def test_the_site_has_no_hand_written_nav() -> None:
    # Without a nav, mkdocs builds every page under docs/: a new page needs no edit of mkdocs.yml.
    config = (ROOT / "mkdocs.yml").read_text()
    assert not re.search(r"^nav\s*:", config, re.MULTILINE)
    assert re.search(r"^strict:\s*true$", config, re.MULTILINE)
    assert "docstring_style: numpy" in config


@pytest.mark.parametrize("dotted", API_NAMES)
def test_public_name_is_in_the_api_reference(dotted: str) -> None:
    lines = API.read_text().splitlines()
    assert f"::: {dotted}" in lines, f"add a line '::: {dotted}' to {API.relative_to(ROOT)}"


def test_api_reference_names_only_public_objects() -> None:
    for line in API.read_text().splitlines():
        if line.startswith(":::"):
            assert line[4:] in API_NAMES, f"{line!r} is not a public name"


@pytest.mark.parametrize("name", sorted(lp.__all__))
def test_public_name_is_on_the_home_page(name: str) -> None:
    assert re.search(rf"`(lp\.)?{name}\b", INDEX.read_text()), f"docs/index.md does not name {name}"


@pytest.mark.parametrize("page", METRIC_PAGES, ids=lambda p: p.stem)
def test_metric_page_is_linked_from_home_and_chooser(page: Path) -> None:
    target = f"](metrics/{page.name})"
    assert target in INDEX.read_text(), f"docs/index.md does not link metrics/{page.name}"
    assert target in CHOOSING.read_text(), f"docs/choosing.md does not link metrics/{page.name}"
    chart = CHOOSING.read_text().split("```mermaid", 1)[1].split("```", 1)[0]
    assert f"lp.{page.stem}" in chart, f"the chooser's chart has no leaf for lp.{page.stem}"


@pytest.mark.parametrize("page", COMING_FROM, ids=lambda p: p.stem)
def test_coming_from_page_is_linked_from_home(page: Path) -> None:
    assert f"]({page.name})" in INDEX.read_text()


@pytest.mark.parametrize("page", sorted(DOCS.rglob("*.md")), ids=lambda p: str(p.relative_to(DOCS)))
def test_links_stay_inside_the_site(page: Path) -> None:
    # mkdocs --strict refuses a link to a file outside docs/ or to a missing page; README.md is
    # the repository's table of contents and is not part of the site.
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.DOTALL)
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#", 1)[0]).resolve()
        assert path.is_relative_to(DOCS), f"{page.name}: {target} leaves docs/"
        assert path.exists(), f"{page.name}: {target} does not exist"
        if page.name != "README.md":
            assert path != DOCS / "README.md", f"{page.name}: README.md is not on the site"


def _mapping_rows(page: Path) -> list[tuple[str, str, str]]:
    """(peer name cell, lp.evaluate name cell, expression cell) of the page's name table."""
    rows: list[tuple[str, str, str]] = []
    header: list[str] | None = None
    for line in page.read_text().splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
            continue
        if set(line) <= set("|-: ") or "`lp.evaluate` name" not in header:
            continue
        name_at, expr_at = header.index("`lp.evaluate` name"), header.index("expression")
        rows.append((cells[0], cells[name_at], cells[expr_at] if expr_at < len(cells) else ""))
    return rows


@pytest.mark.parametrize("page", PEER_PAGES, ids=lambda p: p.stem)
def test_coming_from_names_agree_with_the_registry(page: Path) -> None:
    rows = _mapping_rows(page)
    assert rows, f"{page.name} has no name table"
    for peer, names, expression in rows:
        written = re.findall(r"`([^`]+)`", names)
        functions = re.findall(r"`lp\.(\w+)`", expression)
        if not functions:  # a name refused here
            with pytest.raises(InvalidParameterError):
                resolve(re.findall(r"`([^`]+)`", peer)[0].replace("@k", "@10"))
            continue
        assert written, f"{page.name}: {peer} names no lp.evaluate metric"
        for name in written:
            resolved = resolve(name.replace("@k", "@10"))
            assert resolved is not None, f"{page.name}: lp.evaluate does not read {name!r}"
            assert resolved.spec.expression.__name__ == functions[0], (page.name, name)


# --------------------------------------------------------------------------- formulas
# docs/hooks/formulas.py turns TeX into MathML when the site is built. These checks need the
# docs extra (mkdocs, latex2mathml), which the dependency-floor job does not install.
HOOK = DOCS / "hooks" / "formulas.py"
SOURCES = sorted((ROOT / "lodestar_polars").rglob("*.py"))
MATH = re.compile(r"<math\b[^>]*>.*?</math>", re.DOTALL)


def _hook() -> types.ModuleType:  # the hook module, loaded from its file as mkdocs loads it
    pytest.importorskip("mkdocs", reason="the docs extra (mkdocs, latex2mathml) is not installed")
    import importlib.util

    spec = importlib.util.spec_from_file_location("lp_docs_formulas", HOOK)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _assert_clean_mathml(fragment: str, where: str) -> None:
    # a formula latex2mathml could not read shows as <merror> or as a TeX command kept as text
    assert "merror" not in fragment, where
    assert "\\" not in fragment, f"{where}: a TeX command was not converted: {fragment[:200]}"


def _outside_code(markdown: str) -> str:
    return re.sub(r"`[^`\n]*`", "", re.sub(r"```.*?```", "", markdown, flags=re.DOTALL))


@pytest.mark.parametrize(
    "page",
    [p for p in sorted(DOCS.rglob("*.md")) if "$$" in _outside_code(p.read_text())],
    ids=lambda p: str(p.relative_to(DOCS)),
)
def test_page_formulas_become_mathml(page: Path) -> None:
    hook = _hook()
    text = page.read_text()
    blocks = len(re.findall(r"^\s*\$\$", _outside_code(text), re.MULTILINE)) // 2
    converted = hook.convert(text)
    assert "$$" not in _outside_code(converted)
    found = MATH.findall(converted)
    assert len(found) == blocks >= 1
    for fragment in found:
        assert 'display="block"' in fragment
        _assert_clean_mathml(fragment, page.name)
    # the code blocks are left as they are (a LaTeX table in a code block keeps its $)
    assert re.findall(r"```.*?```", converted, re.DOTALL) == re.findall(
        r"```.*?```", text, re.DOTALL
    )


@pytest.mark.parametrize(
    "source",
    [p for p in SOURCES if ".. math::" in p.read_text() or ":math:" in p.read_text()],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_docstring_formulas_become_mathml(source: Path) -> None:
    hook = _hook()
    text = source.read_text()
    converted = hook.convert(text)
    assert ".. math::" not in converted
    assert ":math:" not in converted
    found = MATH.findall(converted)
    assert len(found) == text.count(".. math::") + text.count(":math:")
    for fragment in found:
        _assert_clean_mathml(fragment, source.name)


def test_formula_forms_by_hand() -> None:
    hook = _hook()
    ns = 'xmlns="http://www.w3.org/1998/Math/MathML"'
    x2 = "<mrow><msup><mi>x</mi><mn>2</mn></msup></mrow>"
    assert (
        hook.convert("a\n\n$$\nx^2\n$$\n\nb")
        == f'a\n\n\n<math {ns} display="block">{x2}</math>\n\n\nb'
    )
    # the directive, its formula on the next lines (indented), and the text after it
    doc = "Sum.\n\n.. math::\n\n    x^2\n\nwhere x."
    assert hook.convert(doc) == f'Sum.\n\n\n<math {ns} display="block">{x2}</math>\n\nwhere x.'
    assert hook.convert("is :math:`x^2` here") == (
        f'is <span class="math"><math {ns} display="inline">{x2}</math></span> here'
    )
    # fenced code is left alone
    fenced = "```text\n$$\nx^2\n$$\n.. math:: y\n```"
    assert hook.convert(fenced) == fenced
    assert hook.leftover("<p>$$x$$ and \\(y\\)</p><pre>$$z$$</pre><code>:math:</code>") == [
        "$$",
        "$$",
        "\\(",
    ]


def _build(config: Path, out: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable,
        "-m",
        "mkdocs",
        "build",
        "--strict",
        "-f",
        str(config),
        "-d",
        str(out),
    ]
    return subprocess.run(command, cwd=config.parent, capture_output=True, text=True, env=env)


def test_the_built_site_shows_mathml_and_no_tex(tmp_path: Path) -> None:
    """The whole site, built as CI builds it: every formula is MathML, no TeX is left."""
    hook = _hook()
    done = _build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stderr[-3000:]
    pages = sorted((tmp_path / "site").rglob("*.html"))
    with_math = {}
    for html in pages:
        text = html.read_text()
        assert not hook.leftover(text), (html, hook.leftover(text)[:5])
        assert not re.search(r"mathjax|katex", text, re.IGNORECASE), html
        if "<math" in text:
            with_math[str(html.relative_to(tmp_path / "site"))] = len(MATH.findall(text))
    expected = {
        f"{p.relative_to(DOCS).with_suffix('')}/index.html"
        for p in DOCS.rglob("*.md")
        if "$$" in _outside_code(p.read_text())
    }
    assert expected <= with_math.keys()
    # the API reference renders the docstrings: their formulas are there as MathML too
    assert with_math["api/index.html"] >= 10


def test_a_formula_left_as_tex_fails_the_strict_build(tmp_path: Path) -> None:
    _hook()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(
        "# A\n\nAn inline $$\\frac{a}{b}$$ the hook leaves.\n"
    )
    config = tmp_path / "mkdocs.yml"
    config.write_text(f"site_name: t\nhooks:\n  - {HOOK}\n")
    done = _build(config, tmp_path / "site")
    assert done.returncode != 0
    assert "index.md: TeX left unconverted on the page" in done.stderr


@pytest.mark.parametrize(
    ("link", "words"),
    [
        ("[`lp.compare`](compare.md)", ["baseline", "confidence interval", "lp.Comparison"]),
        ("[`lp.ranking_report`](report.md)", ["accuracy", "coverage", "popularity floor"]),
    ],
)
def test_home_page_says_what_compare_and_ranking_report_do(link: str, words: list[str]) -> None:
    # a paragraph of its own on the home page, opening with the link to the function's page
    paragraphs = [p.replace("\n", " ") for p in INDEX.read_text().split("\n\n")]
    (paragraph,) = [p for p in paragraphs if p.startswith(link)]
    assert len(paragraph.split()) >= 40
    for word in words:
        assert word in paragraph
