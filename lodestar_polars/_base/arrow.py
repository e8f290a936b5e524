"""Arrow data in: the one place a pyarrow object becomes a Polars frame."""

from __future__ import annotations

import polars as pl


def from_arrow(frame: object) -> pl.DataFrame | pl.LazyFrame | None:
    """An Arrow input as Polars, without a copy; None for anything else.

    A ``Table`` or ``RecordBatch`` becomes a ``DataFrame``; a ``pyarrow.dataset``
    ``Dataset`` (a Parquet directory, say) a ``LazyFrame`` read in parts, as
    any ``LazyFrame``; a ``RecordBatchReader`` can be read only once, so it is
    read whole into a ``DataFrame``.
    """
    if not type(frame).__module__.startswith("pyarrow"):
        return None
    import pyarrow as pa
    import pyarrow.dataset as pads

    if isinstance(frame, pads.Dataset):
        return pl.scan_pyarrow_dataset(frame)
    if isinstance(frame, pa.RecordBatchReader):
        frame = frame.read_all()
    if isinstance(frame, (pa.Table, pa.RecordBatch)):
        out = pl.from_arrow(frame)
        assert isinstance(out, pl.DataFrame)  # a table, not a single column
        return out
    return None
