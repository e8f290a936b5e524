"""mkdocs hook: Sphinx cross-reference roles in the docstrings read as code on the site.

The docstrings write ``:func:`read_qrels``` and ``:class:`~lodestar_polars.InvalidParameterError```
(numpydoc's convention); mkdocstrings renders them as the role's name followed by code. This
hook keeps the code and drops the role (and, after ``~``, the module path), as Sphinx would show it.

>>> roles(':class:<code>~lodestar_polars.Progress</code> and :func:<code>read_run</code>')
'<code>Progress</code> and <code>read_run</code>'
"""

from __future__ import annotations

import re
from typing import Any

_ROLE = re.compile(
    r":(?:py:)?(?:func|class|meth|attr|data|mod|exc|obj|const):<code>(~?)([^<]*)</code>"
)


def roles(html: str) -> str:
    """The page's HTML with each Sphinx role replaced by its target as code."""
    return _ROLE.sub(lambda m: f"<code>{m[2].rsplit('.', 1)[-1] if m[1] else m[2]}</code>", html)


def on_page_content(html: str, **kwargs: Any) -> str:
    """mkdocs' hook, called with each page's HTML."""
    return roles(html)
