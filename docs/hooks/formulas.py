r"""Formulas written in TeX reach the site as MathML, converted when the site is built.

The pages write a display formula between two ``$$`` lines; the docstrings write
numpydoc's ``.. math::`` directive (the formula on its line, or indented below it)
and the inline ``:math:`` role.  Each is converted by ``latex2mathml`` (pure
Python, in the ``docs`` extra) into a ``<math>`` element, which browsers draw
natively: the site needs no JavaScript and no download to show a formula, and
reads offline.  The conversion runs before Markdown sees the text, which would
otherwise eat TeX's escapes (``\{``, ``\#``, ``\\``) and read ``_..._`` as
emphasis.

Two entry points share :func:`convert`:

* as an mkdocs hook (``hooks:`` in mkdocs.yml), ``on_page_markdown`` converts
  each page, and ``on_page_content`` fails the strict build if a TeX delimiter
  is left in a page's text (outside code);
* as a griffe extension (mkdocstrings' ``extensions:``), :class:`Formulas`
  converts each docstring before mkdocstrings renders it.

``latex2mathml`` is imported when a formula is converted, and the extension defined
only where ``griffe`` is installed, so the module imports (pytest collects it) without
the ``docs`` extra; ``tests/test_docs_site.py`` checks the conversion where it is.
"""

from __future__ import annotations

import logging
import re
from typing import Any

try:
    import griffe
except ImportError:  # no docs extra: the module is collected by pytest, never used
    griffe = None

log = logging.getLogger("mkdocs.plugins.formulas")

_FENCE = re.compile(r"^(\s*)(```|~~~)")
_DISPLAY = re.compile(r"^[ \t]*\$\$(.*?)\$\$[ \t]*$", re.DOTALL | re.MULTILINE)
_ROLE = re.compile(r":math:`([^`]+)`")
_DIRECTIVE = re.compile(r"^([ \t]*)\.\. math::[ \t]*(.*)$")
# left in a page's text (code removed), any of these is TeX that was not converted
_LEFT = re.compile(r"\$\$|\.\. math::|:math:|\\\(|\\\[|\\(?:frac|mathrm|sum|text)\b")
_CODE = re.compile(r"<pre\b.*?</pre>|<code\b.*?</code>", re.DOTALL)


def mathml(tex: str, *, display: bool) -> str:
    """One formula as a ``<math>`` element on one line (no blank line: Markdown's raw HTML)."""
    from latex2mathml.converter import convert as latex2mathml  # noqa: PLC0415

    out = latex2mathml(" ".join(tex.split()), display="block" if display else "inline")
    return out.replace("\n", "")


def _inline(tex: str) -> str:
    """An inline formula, in a ``<span>``.

    At the start of a line a bare ``<math>`` (a block-level tag to Markdown) would end
    the paragraph.
    """
    return f'<span class="math">{mathml(tex, display=False)}</span>'


def _display_blocks(text: str) -> str:
    """Each ``$$ ... $$`` formula as a block of its own, with a blank line either side."""
    return _DISPLAY.sub(lambda m: "\n" + mathml(m[1], display=True) + "\n", text)


def _directives(lines: list[str]) -> list[str]:
    """numpydoc's ``.. math::`` directives as display blocks."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _DIRECTIVE.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        indent, body = len(m[1]), [m[2]]
        i += 1
        # the formula: the directive's line, then the lines indented deeper (blank lines
        # inside or before them included), up to the first line back at the directive's level
        while i < len(lines) and (
            not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent
        ):
            body.append(lines[i])
            i += 1
        while body and not body[-1].strip():
            body.pop()
        out += ["", m[1] + mathml("\n".join(body), display=True), ""]
    return out


def convert(text: str) -> str:
    """Markdown or docstring text with every TeX formula outside code blocks as MathML."""
    out: list[str] = []
    chunk: list[str] = []  # lines outside code blocks, converted together
    fence: str | None = None

    def flush() -> None:
        if chunk:
            converted = _display_blocks("\n".join(_directives(chunk)))
            out.append(_ROLE.sub(lambda m: _inline(m[1]), converted))
            chunk.clear()

    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence is None and m:
            flush()
            fence = m[2]
            out.append(line)
        elif fence is not None:
            out.append(line)
            if line.strip().startswith(fence):
                fence = None
        else:
            chunk.append(line)
    flush()
    return "\n".join(out)


def leftover(html: str) -> list[str]:
    """TeX left in the text of a rendered page (code spans and blocks aside)."""
    return _LEFT.findall(_CODE.sub("", html))


# --------------------------------------------------------------------------- mkdocs
def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """mkdocs' hook: the page's Markdown with its formulas as MathML."""
    return convert(markdown)


def on_page_content(html: str, page: Any, **kwargs: Any) -> str:
    """mkdocs' hook: warn (an error under ``--strict``) if TeX is left on the page."""
    left = leftover(html)
    if left:
        log.warning("%s: TeX left unconverted on the page: %s", page.file.src_uri, left[:5])
    return html


# --------------------------------------------------------------------------- griffe
if griffe is not None:

    class Formulas(griffe.Extension):
        """Griffe extension: each docstring's formulas as MathML, before mkdocstrings renders."""

        def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
            """Convert the docstring of every object griffe loads."""
            if obj.docstring is not None:
                obj.docstring.value = convert(obj.docstring.value)
