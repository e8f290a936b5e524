"""trec_eval's files: reading runs and qrels, writing runs, with their checks."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from lodestar_polars.trec._frames import _LINE, _TEXT, _check_frame, _check_frame_values
from lodestar_polars.trec._measures import _check_positive_int

RUN_SCHEMA = pl.Schema(
    {"qid": pl.String, "docno": pl.String, "rank": pl.Int64, "score": pl.Float64, "tag": pl.String}
)


QRELS_SCHEMA = pl.Schema({"qid": pl.String, "iter": pl.String, "docno": pl.String, "rel": pl.Int64})


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
