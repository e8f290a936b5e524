"""trec_eval's text measure over judged runs: ``relstring``.

``judged_relstring(data, values, gains)`` writes, for every query of a
:class:`~lodestar_polars._core.ir.Judged` at once (no loop over queries), the
relevance of its first ``N`` ranked documents (``N = 10`` by default,
``relstring.20`` for 20) as trec_eval 10.0's ``m_relstring.c`` prints it, one
character per document:

* ``0`` ... ``9``: the judged relevance; ``>`` above 9;
* ``-``: not in the qrels (trec_eval's ``RELVALUE_NONPOOL``);
* ``.``: judged below 0, "in the pool, unjudged" (``RELVALUE_UNJUDGED``; trec_eval
  reads every negative judgment so, and so does :class:`Judged`).

``N`` is trec_eval's ``(long)`` of the number written (``relstring.20.7`` is 20);
a query with fewer documents gets a shorter string, one with none (``-c``) an
empty one.  The relevance level (``-l``) changes no character: the judged value
is written, not whether it is relevant.  ``-M`` cuts the list first.
"""

from __future__ import annotations

import math

import numpy as np

from lodestar_polars._core.ir import Gains, Judged

RELSTRING_DEFAULT = (10.0,)
"""trec_eval's length of ``relstring``: the first 10 ranked documents."""


def relstring_length(values: tuple[float, ...]) -> int:
    """The documents written: trec_eval's ``(long)`` of the parameter, at least 0."""
    return max(math.trunc(values[0]), 0)


def judged_relstring(data: Judged, values: tuple[float, ...], gains: Gains) -> np.ndarray:
    """``relstring``: the top ranks' relevance as text, one ``str`` per query."""
    n = relstring_length(values)
    rows = data.rows
    top = rows.position < n
    rel = data.relevance[top]
    chars = np.select(
        [rel > 9, rel >= 0, rel == -1, rel == -2],
        [ord(">"), ord("0") + np.clip(rel, 0, 9), ord("-"), ord(".")],
        default=ord("<"),  # unreachable: every other negative judgment is -2
    ).astype(np.uint8)
    import pyarrow as pa  # a runtime dependency; loaded where text is asked for

    # the characters of every query back to back, cut by offsets: Arrow's string layout
    offsets = np.concatenate(([0], np.cumsum(np.minimum(data.length, n)))).astype(np.int64)
    strings = pa.LargeStringArray.from_buffers(
        data.length.size, pa.py_buffer(offsets.tobytes()), pa.py_buffer(chars.tobytes())
    )
    text: np.ndarray = strings.to_numpy(zero_copy_only=False)
    return text
