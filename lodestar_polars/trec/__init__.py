"""TREC files and trec_eval's measures: ``lp.trec``.

A *run* is a ranking per query, one line per retrieved document,
``qid Q0 docno rank score tag``; *qrels* are the judgments,
``qid iter docno rel``.  :func:`read_run` and :func:`read_qrels` scan them
lazily, :func:`write_run` writes a run, and :func:`evaluate` scores a run
against its judgments exactly as ``trec_eval`` 10.0 does:

* the ranking is by score descending, then document id descending byte-wise
  (trec_eval ignores the rank column and the line order);
* the judgments are the whole truth: a document absent from the qrels, or
  judged below 0, is not relevant; relevant documents the run did not
  retrieve count in recall, average precision and the ideal DCG;
* queries: every judged query the run ranks; a run query without judgments is
  skipped, a judged query the run misses is scored 0 only with
  ``complete=True`` (``-c``).

Scoring a run joined with judgments as a plain long frame (with
:func:`lodestar_polars.evaluate`) would treat the rows given as the whole
truth, which is scikit-learn's view, not trec_eval's.  This module takes the
two files (or frames) separately so that the two views cannot be mixed up.

>>> import polars as pl
>>> import lodestar_polars as lp
>>> run = pl.DataFrame(
...     {"qid": ["q1"] * 3, "docno": ["d1", "d2", "d3"], "score": [0.9, 0.8, 0.7]}
... )
>>> qrels = pl.DataFrame({"qid": ["q1", "q1"], "docno": ["d2", "d9"], "rel": [1, 1]})
>>> lp.trec.evaluate(qrels, run, ["P.2", "recall.3", "map"])
shape: (3, 3)
┌─────┬──────────┬───────┐
│ qid ┆ measure  ┆ value │
│ --- ┆ ---      ┆ ---   │
│ str ┆ str      ┆ f64   │
╞═════╪══════════╪═══════╡
│ all ┆ map      ┆ 0.25  │
│ all ┆ P_2      ┆ 0.5   │
│ all ┆ recall_3 ┆ 0.5   │
└─────┴──────────┴───────┘
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from lodestar_polars._base.arrow import from_arrow
from lodestar_polars._base.validation import check_bool
from lodestar_polars._core.ir import Judged
from lodestar_polars._core.trec_more import gmean
from lodestar_polars._registry import (
    TREC_MEASURES,
    TrecMeasure,
    resolve,
    trec_offered,
)

__all__ = [
    "MEASURES",
    "evaluate",
    "parse_measures",
    "read_qrels",
    "read_run",
    "write_run",
]

Source = str | Path | pl.DataFrame | pl.LazyFrame

RUN_SCHEMA = pl.Schema(
    {"qid": pl.String, "docno": pl.String, "rank": pl.Int64, "score": pl.Float64, "tag": pl.String}
)
QRELS_SCHEMA = pl.Schema({"qid": pl.String, "iter": pl.String, "docno": pl.String, "rel": pl.Int64})

_LINE, _TEXT = "__lodestar_line", "__lodestar_text"
_FIELD = r"(\S+)"
# trec_eval reads six fields and ignores the rest of a run line
_RUN_LINE = r"^\s*" + r"\s+".join([_FIELD] * 6) + r"(?:\s.*)?$"
_QRELS_LINE = r"^\s*" + r"\s+".join([_FIELD] * 4) + r"\s*$"


# --------------------------------------------------------------------------- reading
def input_file(path: str | Path, what: str) -> Path:
    """``path`` as a file to read: it exists and is not a directory.

    Paths are read literally, never as glob patterns: ``log[1].csv`` is that
    file, and a directory is refused rather than read as all its files merged.
    """
    if not isinstance(path, (str, Path)):
        msg = f"`path` must be a str or a path, got {type(path).__name__}"
        raise TypeError(msg)
    file = Path(path)
    if file.is_dir():
        msg = f"{file}: is a directory, not a {what} file"
        raise ValueError(msg)
    if not file.exists():
        msg = f"{file}: no such file"
        raise ValueError(msg)
    return file


def output_file(path: str | Path, what: str) -> Path:
    """``path`` as a file to write: not a directory, in a directory that exists."""
    if not isinstance(path, (str, Path)):
        msg = f"`path` must be a str or a path, got {type(path).__name__}"
        raise TypeError(msg)
    file = Path(path)
    if file.is_dir():
        msg = f"{file}: is a directory, not a {what} file"
        raise ValueError(msg)
    folder = file.parent
    if not folder.is_dir():
        msg = f"{file}: no such directory {str(folder)!r}"
        raise ValueError(msg)
    return file


def first_non_utf8(path: str | Path) -> str | None:
    """``path:line: ...`` for the first byte of ``path`` that is not UTF-8, or None.

    Read only when Polars has refused the file, so that the sentence can name
    the line (Polars says "invalid utf8" and no more).
    """
    data = Path(path).read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return f"{path}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column})"
    return None


def _scan_fields(path: str | Path, pattern: str, names: Sequence[str]) -> pl.LazyFrame:
    fields = pl.col(_TEXT).str.extract_groups(pattern)
    return (
        pl.scan_lines(path, name=_TEXT, row_index_name=_LINE, row_index_offset=1, glob=False)
        .filter(pl.col(_TEXT).str.strip_chars() != "")
        .with_columns(fields.struct.field(str(i + 1)).alias(n) for i, n in enumerate(names))
    )


def _first_duplicate(frame: pl.DataFrame) -> dict[str, Any] | None:
    """The second line of the first (qid, docno) pair listed twice, with the first line."""
    dup = frame.with_columns(
        pl.col(_LINE).min().over("qid", "docno").alias("__first"),
    ).filter(pl.col(_LINE) != pl.col("__first"))
    if dup.is_empty():
        return None
    return dup.sort(_LINE).row(0, named=True)


def _validator(path: str | Path, checks: Sequence[tuple[str, pl.Expr, str]]) -> Any:
    """A ``map_batches`` function raising ``ValueError`` at the first bad line of the file."""

    def validate(frame: pl.DataFrame) -> pl.DataFrame:
        for column, bad, rule in checks:
            hit = frame.filter(bad)
            if not hit.is_empty():
                row = hit.sort(_LINE).row(0, named=True)
                what = rule.format(value=row[column], text=row[_TEXT])
                msg = f"{path}:{row[_LINE]}: {what}"
                raise ValueError(msg)
        dup = _first_duplicate(frame)
        if dup is not None:
            msg = (
                f"{path}:{dup[_LINE]}: document {dup['docno']!r} is listed twice for query "
                f"{dup['qid']!r} (first on line {dup['__first']})"
            )
            raise ValueError(msg)
        return frame

    return validate


def read_run(path: str | Path) -> pl.LazyFrame:
    r"""Scan a TREC run file lazily: ``qid Q0 docno rank score tag``, one line per document.

    Parameters
    ----------
    path
        The file.  Fields are separated by any whitespace (spaces or tabs, any
        number); blank lines are skipped; fields after the sixth are ignored,
        as trec_eval ignores them.  Query and document ids are kept as text,
        whatever their form.

    Returns
    -------
    polars.LazyFrame
        Columns ``qid`` (str), ``docno`` (str), ``rank`` (i64), ``score``
        (f64), ``tag`` (str), in the file's line order.  The second column
        (``Q0``) is not kept.

    Raises
    ------
    ValueError
        When collected: a line with fewer than six fields, a rank that is not
        an integer, a score that is not a finite number, or a document listed
        twice for one query.  The message starts with ``path:line:``.

    See Also
    --------
    read_qrels, write_run, evaluate

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import lodestar_polars as lp
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "run.txt").write_text(
    ...     "301 Q0 FR940202-2-00150 1 2.129133 STANDARD\n"
    ...     "301\tQ0\tFR940202-2-00151\t2\t1.72476\tSTANDARD\n"
    ... )
    >>> lp.trec.read_run(folder / "run.txt").collect()
    shape: (2, 5)
    ┌─────┬──────────────────┬──────┬──────────┬──────────┐
    │ qid ┆ docno            ┆ rank ┆ score    ┆ tag      │
    │ --- ┆ ---              ┆ ---  ┆ ---      ┆ ---      │
    │ str ┆ str              ┆ i64  ┆ f64      ┆ str      │
    ╞═════╪══════════════════╪══════╪══════════╪══════════╡
    │ 301 ┆ FR940202-2-00150 ┆ 1    ┆ 2.129133 ┆ STANDARD │
    │ 301 ┆ FR940202-2-00151 ┆ 2    ┆ 1.72476  ┆ STANDARD │
    └─────┴──────────────────┴──────┴──────────┴──────────┘
    >>> _ = (folder / "bad.txt").write_text("301 Q0 d1 1 0.5 t\n301 Q0 d1 2 0.4 t\n")
    >>> lp.trec.read_run(folder / "bad.txt").collect()
    Traceback (most recent call last):
    ...
    ValueError: .../bad.txt:2: document 'd1' is listed twice for query '301' (first on line 1)
    """
    path = input_file(path, "run")
    names = ("qid", "q0", "docno", "rank_text", "score_text", "tag")
    lf = _scan_fields(path, _RUN_LINE, names).with_columns(
        rank=pl.col("rank_text").cast(pl.Int64, strict=False),
        score=pl.col("score_text").cast(pl.Float64, strict=False),
    )
    checks = (
        (
            _TEXT,
            pl.col(_TEXT).str.contains(_QRELS_LINE),
            "{text!r} is a qrels line (`qid iter docno rel`), not a run line: "
            "the qrels come first, then the run, as in trec_eval",
        ),
        (
            _TEXT,
            pl.col("qid").is_null(),
            "malformed run line {text!r}: expected 6 fields `qid Q0 docno rank score tag`",
        ),
        ("rank_text", pl.col("rank").is_null(), "rank {value!r} is not an integer"),
        (
            "score_text",
            pl.col("score").is_null() | ~pl.col("score").is_finite(),
            "score {value!r} is not a finite number",
        ),
    )
    return lf.map_batches(_validator(path, checks)).select(
        pl.col(name).cast(dtype) for name, dtype in RUN_SCHEMA.items()
    )


def read_qrels(path: str | Path) -> pl.LazyFrame:
    r"""Scan a TREC qrels file lazily: ``qid iter docno rel``, one line per judgment.

    Parameters
    ----------
    path
        The file.  Fields are separated by any whitespace; blank lines are
        skipped.  ``rel`` is an integer: above 0 (at least the relevance
        level) is relevant, 0 judged not relevant, below 0 unjudged.

    Returns
    -------
    polars.LazyFrame
        Columns ``qid`` (str), ``iter`` (str), ``docno`` (str), ``rel`` (i64).

    Raises
    ------
    ValueError
        When collected: a line without exactly four fields, a relevance that
        is not an integer (trec_eval would silently truncate ``1.5`` to 1), or
        a document judged twice for one query; the message starts with
        ``path:line:``.

    See Also
    --------
    read_run, evaluate

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import lodestar_polars as lp
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> _ = path.write_text("301 0 CR93E-10279 0\n301 0 CR93E-1282 1\n301 0 x 1.5\n")
    >>> lp.trec.read_qrels(path).head(2).collect()
    Traceback (most recent call last):
    ...
    ValueError: .../qrels.txt:3: relevance '1.5' is not an integer
    >>> _ = path.write_text("301 0 CR93E-10279 0\n301 0 CR93E-1282 1\n")
    >>> lp.trec.read_qrels(path).collect()
    shape: (2, 4)
    ┌─────┬──────┬─────────────┬─────┐
    │ qid ┆ iter ┆ docno       ┆ rel │
    │ --- ┆ ---  ┆ ---         ┆ --- │
    │ str ┆ str  ┆ str         ┆ i64 │
    ╞═════╪══════╪═════════════╪═════╡
    │ 301 ┆ 0    ┆ CR93E-10279 ┆ 0   │
    │ 301 ┆ 0    ┆ CR93E-1282  ┆ 1   │
    └─────┴──────┴─────────────┴─────┘
    """
    path = input_file(path, "qrels")
    names = ("qid", "iter", "docno", "rel_text")
    lf = _scan_fields(path, _QRELS_LINE, names).with_columns(
        rel=pl.col("rel_text").cast(pl.Int64, strict=False)
    )
    checks = (
        (
            _TEXT,
            pl.col(_TEXT).str.contains(_RUN_LINE),
            "{text!r} is a run line (`qid Q0 docno rank score tag`), not a qrels line: "
            "the qrels come first, then the run, as in trec_eval",
        ),
        (
            _TEXT,
            pl.col("qid").is_null(),
            "malformed qrels line {text!r}: expected 4 fields `qid iter docno rel`",
        ),
        ("rel_text", pl.col("rel").is_null(), "relevance {value!r} is not an integer"),
    )
    return lf.map_batches(_validator(path, checks)).select(
        pl.col(name).cast(dtype) for name, dtype in QRELS_SCHEMA.items()
    )


# --------------------------------------------------------------------------- writing
def write_run(
    frame: pl.DataFrame | pl.LazyFrame,
    path: str | Path,
    *,
    tag: str = "lodestar",
    max_docs: int | None = None,
) -> None:
    """Write a run file ``qid Q0 docno rank score tag``, ranked as trec_eval ranks.

    Parameters
    ----------
    frame
        Columns ``qid``, ``docno`` and ``score`` (any other is ignored, but a
        ``tag`` column, when present, gives each line's tag).  Ids of any type
        are written as text; they must not contain whitespace.
    path
        The file to write (replaced if it exists).
    tag : str, default="lodestar"
        The run tag, where ``frame`` has no ``tag`` column.
    max_docs : int, default=None
        Keep only the first ``max_docs`` documents of each query.

    Raises
    ------
    ValueError
        A missing column, a score column that is not numeric, an id or tag
        with whitespace (or empty), a null or non-finite score, a document
        listed twice for one query, or a ``path`` that is a directory or in a
        directory that does not exist (the path is written literally).
    TypeError
        ``frame`` not a Polars frame, or ``tag`` not a str.

    Notes
    -----
    Queries are written in id order; within a query the documents are ranked
    by score descending, then document id descending (byte-wise), which is
    the order trec_eval uses, so the written ``rank`` agrees with the order
    trec_eval evaluates.  Scores are written in the shortest form that reads
    back to the same double.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> run = pl.DataFrame({"qid": [7, 7, 7], "docno": ["a", "b", "c"], "score": [0.5, 0.9, 0.5]})
    >>> lp.trec.write_run(run, path, tag="bm25")
    >>> print(path.read_text(), end="")
    7 Q0 b 1 0.9 bm25
    7 Q0 c 2 0.5 bm25
    7 Q0 a 3 0.5 bm25
    >>> lp.trec.read_run(path).collect()["score"].to_list() == [0.9, 0.5, 0.5]
    True
    """
    if not isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        msg = f"`frame` must be a polars DataFrame or LazyFrame, got {type(frame).__name__}"
        raise TypeError(msg)
    if not isinstance(tag, str):
        msg = f"`tag` must be a str, got {tag!r}"
        raise TypeError(msg)
    path = output_file(path, "run")
    lf = _check_frame_values(frame.lazy(), "frame", "score")
    schema = lf.collect_schema()
    for column in ("qid", "docno", "score"):
        if column not in schema:
            msg = f"`frame` has no {column!r} column (columns: {list(schema)})"
            raise ValueError(msg)
    if max_docs is not None:
        max_docs = _check_positive_int(max_docs, "max_docs")
    tags = pl.col("tag").cast(pl.String) if "tag" in schema else pl.lit(tag, dtype=pl.String)
    df = (
        lf.select(
            pl.col("qid").cast(pl.String),
            pl.col("docno").cast(pl.String),
            pl.col("score").cast(pl.Float64),
            tags.alias("tag"),
        )
        .sort(["qid", "score", "docno"], descending=[False, True, True])
        .collect()
    )
    _check_frame(df, "frame")
    for column in ("qid", "docno", "tag"):
        bad = df.filter(
            pl.col(column).is_null() | pl.col(column).str.contains(r"\s") | (pl.col(column) == "")
        )
        if not bad.is_empty():
            msg = (
                f"cannot write a run: {column} {bad[column][0]!r} is empty or holds whitespace, "
                "which the TREC format cannot hold"
            )
            raise ValueError(msg)
    rank = pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("qid")
    if max_docs is not None:
        df = df.filter(rank <= max_docs)
    lines = df.select(
        pl.concat_str(
            [
                pl.col("qid"),
                pl.lit("Q0"),
                pl.col("docno"),
                rank.cast(pl.String),
                pl.col("score").cast(pl.String),
                pl.col("tag"),
            ],
            separator=" ",
        ).alias("line")
    )
    lines.write_csv(path, include_header=False, quote_style="never")


# --------------------------------------------------------------------------- measures
MEASURES: dict[str, tuple[int, ...] | None] = {
    m.name: m.default_cutoffs or None for m in trec_offered()
}
"""The trec_eval measures offered, in trec_eval's print order, with their default cutoffs
(read from the metric registry, ``lodestar_polars._registry.TREC_MEASURES``)."""


@dataclass(frozen=True)
class Measure:
    """One measure to compute: trec_eval's measure, a cutoff, ndcg gains, and its printed name."""

    measure: TrecMeasure
    k: int | None
    gains: tuple[tuple[int, float], ...] | None
    label: str
    values: tuple[float, ...] = ()
    """The numbers of ``params="levels"`` (one level) and ``params="values"`` measures."""

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
        return [Measure(measure, None, None, f"{base}_{v:3.2f}", (v,)) for v in levels]
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
    return [Measure(measure, None, None, f"{base}_{params}" if params else base, values)]


def _parse_one(text: str) -> list[Measure]:
    if text in ("official", "all_trec"):
        # trec_eval's sets, as the registry flags them (of the measures offered here)
        chosen = [m for m in trec_offered() if (m.official if text == "official" else m.all_trec)]
        return [parsed for m in chosen for parsed in _parse_one(m.name)]
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
            return [Measure(measure, None, gains, label)]
        if measure.params in ("levels", "values"):
            return _numbered(measure, params, text)
        if measure.params == "none":
            if params:
                msg = f"measure {text!r}: {base} takes no parameters"
                raise ValueError(msg)
            return [Measure(measure, None, None, base)]
        cutoffs = _cutoffs(params, text) if params else list(measure.default_cutoffs)
        return [Measure(measure, k, None, f"{base}_{k}") for k in cutoffs]
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
            found[m.label] = m
    return sorted(found.values(), key=lambda m: m.order)


# --------------------------------------------------------------------------- evaluating
def _lazy(source: Source, reader: Callable[[str | Path], pl.LazyFrame], role: str) -> pl.LazyFrame:
    arrow = from_arrow(source)
    if arrow is not None:
        source = arrow
    if isinstance(source, (str, Path)):
        return reader(source)
    if isinstance(source, (pl.DataFrame, pl.LazyFrame)):
        return _check_frame_values(source.lazy(), role, "score" if role == "run" else "rel")
    msg = (
        f"`{role}` must be a path, a polars DataFrame/LazyFrame or Arrow data (Table, "
        f"RecordBatch, RecordBatchReader, Dataset), got {type(source).__name__}"
    )
    raise TypeError(msg)


def _select(lf: pl.LazyFrame, role: str, columns: dict[str, Any]) -> pl.LazyFrame:
    schema = lf.collect_schema()
    for column in columns:
        if column not in schema:
            msg = f"`{role}` has no {column!r} column (columns: {list(schema)})"
            raise ValueError(msg)
    return lf.select(pl.col(c).cast(dtype) for c, dtype in columns.items())


def _check_frame_values(lf: pl.LazyFrame, role: str, value: str) -> pl.LazyFrame:
    """A frame's score and relevance, under the rules a file's are read by.

    A score must be a number, and a relevance an integer: a relevance of 0.5
    in a file is refused with ``path:line:``, so in a frame it is refused with
    ``row N`` (1-based), never truncated by a cast.  Only the column read is
    checked (``value``: ``score`` in a run, ``rel`` in qrels); the ids are
    checked to be scalars.
    """
    schema = lf.collect_schema()
    for column in ("qid", "docno"):
        if column in schema and (schema[column].is_nested() or schema[column] == pl.Object):
            msg = (
                f"`{role}` column {column!r} must hold ids (text or numbers), "
                f"found dtype {schema[column]}"
            )
            raise ValueError(msg)
    dtype = schema.get(value)
    if dtype is not None and not (dtype.is_numeric() or dtype == pl.Boolean):
        rule = "numbers" if value == "score" else "integers"
        msg = f"`{role}` column {value!r} must hold {rule}, found dtype {dtype}"
        raise ValueError(msg)
    if value != "rel" or dtype is None or dtype == pl.Boolean:
        return lf
    if dtype.is_integer() and dtype != pl.UInt64:
        return lf
    rel = pl.col("rel")
    if dtype == pl.UInt64:
        bad_value, rule = rel > 2**63 - 1, "does not fit in a 64-bit integer"
    elif dtype.is_float():
        bad_value, rule = ~rel.is_finite() | (rel != rel.floor()), "is not an integer"
    else:  # Decimal: its fraction would be cut by the cast to Int64
        bad_value, rule = rel != rel.floor(), "is not an integer"
    bad = (
        lf.with_row_index("__row", offset=1)
        .filter(rel.is_not_null() & bad_value)
        .select("__row", "rel")
        .head(1)
        .collect()
    )
    if not bad.is_empty():
        row, value = bad.row(0)
        msg = f"`{role}` row {row}: relevance {value!r} {rule}"
        raise ValueError(msg)
    return lf


def _check_frame(df: pl.DataFrame, role: str) -> None:
    """Nulls, bad scores and documents listed twice in one query."""
    for column in df.columns:
        nulls = df.filter(pl.col(column).is_null())
        if not nulls.is_empty():
            msg = f"`{role}` has a null {column} (query {nulls['qid'][0]!r})"
            raise ValueError(msg)
    if "score" in df.columns:
        bad = df.filter(~pl.col("score").is_finite())
        if not bad.is_empty():
            row = bad.row(0, named=True)
            msg = (
                f"`{role}`: score {row['score']!r} of document {row['docno']!r} in query "
                f"{row['qid']!r} is not a finite number"
            )
            raise ValueError(msg)
    dup = df.filter(pl.struct("qid", "docno").is_duplicated())
    if not dup.is_empty():
        row = dup.row(0, named=True)
        msg = f"`{role}` lists document {row['docno']!r} twice for query {row['qid']!r}"
        raise ValueError(msg)


@dataclass(frozen=True)
class _Prepared:
    queries: list[str]
    data: Judged


def _prepare(
    run: Source,
    qrels: Source,
    *,
    complete: bool,
    relevance_level: int,
    max_docs: int | None,
    float32_scores: bool,
) -> _Prepared:
    run_lf = _select(
        _lazy(run, read_run, "run"),
        "run",
        {"qid": pl.String, "docno": pl.String, "score": pl.Float64},
    )
    qrels_lf = _select(
        _lazy(qrels, read_qrels, "qrels"),
        "qrels",
        {"qid": pl.String, "docno": pl.String, "rel": pl.Int64},
    )
    try:
        run_df, qrels_df = pl.collect_all([run_lf, qrels_lf])
    except pl.exceptions.ComputeError as exc:
        # Polars says "invalid utf8" and no more: name the file and the line
        for source in (run, qrels):
            if "utf8" in str(exc).lower() and isinstance(source, (str, Path)):
                where = first_non_utf8(source)
                if where is not None:
                    raise ValueError(where) from None
        raise
    _check_frame(run_df, "run")
    _check_frame(qrels_df, "qrels")
    judged = qrels_df.select(pl.col("qid").unique())
    if not complete:
        judged = judged.join(run_df.select(pl.col("qid").unique()), on="qid", how="semi")
    queries = judged.sort("qid")
    if queries.is_empty():
        msg = (
            "no query to evaluate: no query of the run has judgments"
            if not complete
            else "no query to evaluate: the qrels are empty"
        )
        raise ValueError(msg)
    score = pl.col("score")
    if float32_scores:
        score = score.cast(pl.Float32).cast(pl.Float64)
    ranked = (
        run_df.lazy()
        .join(queries.lazy(), on="qid", how="semi")
        .join(qrels_df.lazy().select("qid", "docno", "rel"), on=["qid", "docno"], how="left")
        .with_columns(
            score.alias("score") + 0.0,
            # trec_eval's RELVALUE_NONPOOL (-1, not in the qrels) and RELVALUE_UNJUDGED
            # (-2, judged below 0: in the pool, unjudged), which infAP tells apart
            pl.when(pl.col("rel").is_null())
            .then(-1)
            .when(pl.col("rel") < 0)
            .then(-2)
            .otherwise(pl.col("rel"))
            .alias("rel"),
        )
        .sort(["qid", "score", "docno"], descending=[False, True, True])
    )
    if max_docs is not None:
        ranked = ranked.filter(pl.int_range(pl.len()).over("qid") < max_docs)
    ideal = (
        qrels_df.lazy()
        .join(queries.lazy(), on="qid", how="semi")
        .filter(pl.col("rel") >= 0)
        .sort(["qid", "rel"], descending=[False, True])
    )
    ranked_df, ideal_df = pl.collect_all([ranked, ideal])

    def per_query(frame: pl.DataFrame, value: pl.Expr) -> np.ndarray:
        counts = frame.group_by("qid").agg(value.alias("__v"))
        return (
            queries.join(counts, on="qid", how="left", maintain_order="left")["__v"]
            .fill_null(0)
            .to_numpy()
            .astype(np.int64)
        )

    data = Judged(
        relevance=ranked_df["rel"].to_numpy().astype(np.int64),
        length=per_query(ranked_df, pl.len()),
        n_relevant=per_query(qrels_df, (pl.col("rel") >= relevance_level).sum()),
        ideal_relevance=ideal_df["rel"].to_numpy().astype(np.int64),
        ideal_length=per_query(ideal_df, pl.len()),
        relevance_level=relevance_level,
    )
    return _Prepared(queries["qid"].to_list(), data)


def _columns(source: object) -> set[str] | None:
    """The column names of a frame (Polars or Arrow), without reading it; None for a path."""
    if isinstance(source, pl.DataFrame):
        return set(source.columns)
    if isinstance(source, pl.LazyFrame):
        return set(source.collect_schema().names())
    schema = getattr(source, "schema", None)
    if type(source).__module__.startswith("pyarrow") and schema is not None:
        return set(schema.names)
    return None


def _in_old_order(first: object, second: object) -> bool:
    """Whether ``evaluate(run, qrels)`` (the order of 0.1) was meant, beyond doubt.

    Only frames can tell: the first has a ``score`` column and no ``rel``, the
    second a ``rel`` column and no ``score``.  The new order would refuse such
    a call (no ``rel`` in the qrels), so reading it in the old order changes no
    call that the new order accepts.  Files are not read ahead to tell: a run
    file given as the qrels is refused at its first line, saying the order.
    """
    a, b = _columns(first), _columns(second)
    if a is None or b is None:
        return False
    return "score" in a and "rel" not in a and "rel" in b and "score" not in b


def evaluate(
    qrels: Source,
    run: Source,
    measures: str | Sequence[str] = "official",
    *,
    per_query: bool = False,
    complete: bool = False,
    relevance_level: int = 1,
    max_docs: int | None = None,
    float32_scores: bool = False,
    wide: bool = False,
) -> pl.DataFrame:
    """Score a run against its judgments exactly as trec_eval 10.0 does.

    Parameters
    ----------
    qrels
        The judgments, first, as in trec_eval, ranx and ir_measures: a qrels
        file (read with :func:`read_qrels`), or a frame with columns ``qid``,
        ``docno`` and ``rel`` (an integer; ids of any type are compared as
        text): a Polars ``DataFrame`` / ``LazyFrame``, or Arrow data (a
        ``pyarrow`` ``Table``, ``RecordBatch``, ``RecordBatchReader`` or
        ``Dataset``), read without a copy.  The result is a Polars frame
        (``.to_arrow()`` hands it back as Arrow).
    run
        A run file (read with :func:`read_run`), or a frame with columns
        ``qid``, ``docno`` and ``score``, of the same kinds.
    measures : str or list of str, default="official"
        trec_eval measure names: every measure of trec_eval's ``all_trec``
        but ``relstring`` (``num_q``, ``rbp``, ``rbp_resid``, ``unj``,
        ``map``, ``gm_map``, ``Rprec``, ``bpref``, ``recip_rank``,
        ``infAP``, ``G``, ``set_F``, ``utility``, ``num_nonrel_judged_ret``,
        ...: :data:`MEASURES`), and the cutoff measures ``P``, ``recall``,
        ``ndcg_cut``, ``map_cut``, ``relative_P``, ``success`` (``"P"`` is
        trec_eval's default cutoffs, ``"P.5,10"`` or ``"P_5"`` chosen ones);
        ``"iprec_at_recall..25,.5"`` and ``"Rprec_mult.0.2,2"`` take levels,
        ``"utility.2,-1,0,0"``, ``"set_F.0.5"`` and ``"11pt_avg..25,.5"``
        values, ``"ndcg.1=3,2=9"`` (and ``G``, ``ndcg_rel``, ``Rndcg``)
        gains per relevance level; ``"official"`` is trec_eval's default set
        and ``"all_trec"`` every measure offered.  ``gm_map`` and ``gm_bpref``
        have no per-query row; their ``all`` is trec_eval's geometric mean
        (each value floored at 1e-5).  ranx and
        ir_measures names are read too (``"ndcg@10"``, ``"map@100"``,
        ``"AP@100"``, ``"mrr@10"``, ``"RR@10"``, ``"P@10"``,
        ``"precision@10"``, ``"recall@100"``, ``"R@100"``, ``"hit_rate@10"``,
        ``"Success@10"``, ``"r-precision"``, ``"Rprec"``, ``"nDCG"``) and keep
        their names in the output.
    per_query : bool, default=False
        Also return one row per query and measure (trec_eval ``-q``).
    complete : bool, default=False
        Score judged queries that the run does not rank, as 0 (trec_eval ``-c``).
    relevance_level : int, default=1
        A document is relevant when judged at least this (trec_eval ``-l``).
        NDCG ignores it, as in trec_eval: its gain is the judged relevance.
    max_docs : int, default=None
        Keep only the first ``max_docs`` ranked documents of each query
        (trec_eval ``-M``); the ideal DCG and the relevant count are not cut.
    float32_scores : bool, default=False
        Round scores to float32 before ranking, as trec_eval 9 (and
        pytrec_eval) store them; trec_eval 10.0 keeps doubles.
    wide : bool, default=False
        One row per query (and ``all``) with a column per measure, instead of
        the long ``qid, measure, value`` frame.

    Returns
    -------
    polars.DataFrame
        Long: ``qid`` (str), ``measure`` (str), ``value`` (f64); per-query rows
        by query id, then the ``all`` rows.  ``all`` is the mean over the
        evaluated queries, except ``num_ret``, ``num_rel``, ``num_rel_ret``
        (sums) and ``num_q`` (the count, ``all`` only).

    Raises
    ------
    ValueError
        An unknown measure or bad cutoff, a malformed file line (naming
        ``file:line``; a run file given as the qrels, or the reverse, is named
        so), a document listed twice in one query, a null or non-finite score,
        or no query to evaluate.

    Warns
    -----
    FutureWarning
        Frames given in the order of 0.1, ``evaluate(run, qrels)``, where
        the columns leave no doubt (a ``score`` column and no ``rel`` first, a
        ``rel`` column and no ``score`` second): read in that order for this
        release only.  Files in that order are refused (see
        ``docs/decisions/0011-qrels-first.md``).

    Notes
    -----
    The ranking is by score descending, then document id descending
    byte-wise; the run's rank column and line order are ignored.  A document
    not in the qrels, or judged below 0, is not relevant and gains 0.
    ``num_rel`` counts every judged document at the relevance level, retrieved
    or not; recall, AP and R-precision divide by it (0 when it is 0); the
    ideal DCG ranks every judged document (``ndcg_cut.k`` cuts it at ``k``).
    ``P.k`` divides by ``k`` even when fewer documents were retrieved.

    Queries: every judged query that the run ranks is evaluated, a run query
    without judgments is skipped, and with ``complete=True`` every judged
    query is (the missing ones score 0).  trec_eval 10.0 stops with an
    error when a judged query is missing from the run and ``-c`` is not
    given; trec_eval 9 and pytrec_eval skip it, as done here.

    Examples
    --------
    >>> import polars as pl
    >>> import lodestar_polars as lp
    >>> run = pl.DataFrame(
    ...     {
    ...         "qid": ["q1", "q1", "q1", "q2", "q2"],
    ...         "docno": ["a", "b", "c", "a", "b"],
    ...         "score": [3.0, 2.0, 2.0, 1.0, 0.5],
    ...     }
    ... )
    >>> qrels = pl.DataFrame(
    ...     {"qid": ["q1", "q1", "q2", "q3"], "docno": ["c", "z", "b", "a"], "rel": [2, 1, 1, 1]}
    ... )
    >>> lp.trec.evaluate(qrels, run, ["recip_rank", "P.2", "ndcg_cut.3"], per_query=True, wide=True)
    shape: (3, 4)
    ┌─────┬────────────┬─────┬────────────┐
    │ qid ┆ recip_rank ┆ P_2 ┆ ndcg_cut_3 │
    │ --- ┆ ---        ┆ --- ┆ ---        │
    │ str ┆ f64        ┆ f64 ┆ f64        │
    ╞═════╪════════════╪═════╪════════════╡
    │ q1  ┆ 0.5        ┆ 0.5 ┆ 0.479625   │
    │ q2  ┆ 0.5        ┆ 0.5 ┆ 0.63093    │
    │ all ┆ 0.5        ┆ 0.5 ┆ 0.555277   │
    └─────┴────────────┴─────┴────────────┘

    In q1, ``b`` and ``c`` tie: ``c`` ranks first (document id descending),
    at rank 2.  Its ideal DCG counts ``z``, judged but not retrieved.  q3 is
    judged but not ranked: skipped, unless ``complete=True`` scores it 0:

    >>> lp.trec.evaluate(qrels, run, ["num_q", "recip_rank"], complete=True)
    shape: (2, 3)
    ┌─────┬────────────┬──────────┐
    │ qid ┆ measure    ┆ value    │
    │ --- ┆ ---        ┆ ---      │
    │ str ┆ str        ┆ f64      │
    ╞═════╪════════════╪══════════╡
    │ all ┆ num_q      ┆ 3.0      │
    │ all ┆ recip_rank ┆ 0.333333 │
    └─────┴────────────┴──────────┘
    """
    if _in_old_order(qrels, run):
        warnings.warn(
            "lp.trec.evaluate takes the qrels first, then the run, as trec_eval, ranx and "
            "ir_measures do: evaluate(qrels, run, ...). These frames are in the old order "
            "(a run with 'score' first, qrels with 'rel' second) and are read so in this "
            "release only",
            FutureWarning,
            stacklevel=2,
        )
        qrels, run = run, qrels
    parsed = parse_measures(measures)
    for flag, value in (
        ("per_query", per_query),
        ("complete", complete),
        ("float32_scores", float32_scores),
        ("wide", wide),
    ):
        check_bool(value, flag, "evaluate")
    relevance_level = _check_level(relevance_level)
    if max_docs is not None:
        max_docs = _check_positive_int(max_docs, "max_docs")
    prepared = _prepare(
        run,
        qrels,
        complete=bool(complete),
        relevance_level=relevance_level,
        max_docs=max_docs,
        float32_scores=bool(float32_scores),
    )
    queries, data = prepared.queries, prepared.data
    # each measure's core, as its registry entry carries it: one value per query
    values = np.array([_computed(m, data) for m in parsed], dtype=np.float64).reshape(
        len(parsed), len(queries)
    )
    summary = [_aggregated(m.measure, column) for m, column in zip(parsed, values, strict=True)]
    labels = [m.label for m in parsed]
    per_q = [i for i, m in enumerate(parsed) if m.measure.per_query]
    if wide:
        columns: dict[str, Any] = {"qid": [*queries, "all"] if per_query else ["all"]}
        for i, (m, total) in enumerate(zip(parsed, summary, strict=True)):
            if not per_query:
                column_values: list[float | None] = []
            elif m.measure.per_query:
                column_values = values[i].tolist()
            else:  # num_q: the all row only
                column_values = [None] * len(queries)
            columns[m.label] = pl.Series([*column_values, total], dtype=pl.Float64)
        return pl.DataFrame(columns)
    all_rows = pl.DataFrame(
        {"qid": ["all"] * len(labels), "measure": labels, "value": summary},
        schema={"qid": pl.String, "measure": pl.String, "value": pl.Float64},
    )
    if not per_query:
        return all_rows
    q_rows = pl.DataFrame(
        {
            "qid": np.repeat(np.array(queries, dtype=object), len(per_q)),
            "measure": [labels[i] for i in per_q] * len(queries),
            "value": values[per_q].T.ravel(),
        },
        schema={"qid": pl.String, "measure": pl.String, "value": pl.Float64},
    )
    return pl.concat([q_rows, all_rows])


def _aggregated(measure: TrecMeasure, values: np.ndarray) -> float:
    """The ``all`` row: the sum of a count, trec_eval's geometric mean (``gm_*``), or the mean."""
    if measure.is_count:
        return float(values.sum())
    if measure.aggregate == "gmean":
        return gmean(values)
    return float(values.mean())


def _check_level(level: object) -> int:
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or level < 0:
        msg = f"`relevance_level` must be an int >= 0, got {level!r}"
        raise ValueError(msg)
    return int(level)
