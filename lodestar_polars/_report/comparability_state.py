"""``lp.ComparabilityState``: the fitted per-item base rates and score quantiles, saved and loaded.

The state :func:`lodestar_polars.fit_comparability` returns and
:func:`lodestar_polars.transform_for_objective` reads; its JSON and Parquet files, and the checks
that a loaded file is one this version wrote, whole.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import polars as pl

FORMAT = "lodestar_polars.ComparabilityState"
FORMAT_VERSION = 1
_INT_DTYPES = {
    str(d): d
    for d in (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32, pl.UInt64)
}
_ITEM_DTYPES: dict[str, Any] = {**_INT_DTYPES, "String": pl.String}


class ComparabilityState:
    """Per-item base rates and score quantiles, fitted by :func:`fit_comparability`.

    One row per catalogue item: ``n_positive`` (graded lists where the item is a realised
    positive), ``n_candidate`` (graded lists where it is a candidate), ``base_rate``
    (``n_positive / n_candidate``, 0.0 where it was never a candidate of a graded list) and
    ``quantiles`` (its scores at the levels ``quantile_levels``, over every row of ``scores``).
    Save it with :meth:`save` and read it back with :meth:`load` (JSON or Parquet, chosen by
    the file's suffix; never pickle).

    Parameters
    ----------
    table : polars.DataFrame
        Columns ``item``, ``n_positive``, ``n_candidate``, ``base_rate``, ``quantiles``, one row
        per catalogue item, sorted by item.
    quantile_levels : sequence of float
        The levels of ``quantiles``, from 0.0 to 1.0.
    item_column : str
        The name of the item column the state was fitted on (a record; not enforced).
    n_lists : int
        Graded lists (lists with at least one positive) the base rates come from.
    n_dropped : int
        Lists without a positive, left out of the base rates.
    """

    def __init__(
        self,
        table: pl.DataFrame,
        *,
        quantile_levels: Sequence[float],
        item_column: str,
        n_lists: int,
        n_dropped: int,
    ) -> None:
        self.table = table
        self.quantile_levels = tuple(float(q) for q in quantile_levels)
        self.item_column = item_column
        self.n_lists = int(n_lists)
        self.n_dropped = int(n_dropped)

    @property
    def catalogue(self) -> pl.Series:
        """The catalogue items, sorted."""
        return self.table["item"]

    def __repr__(self) -> str:
        return (
            f"ComparabilityState(items={self.table.height}, n_lists={self.n_lists}, "
            f"n_dropped={self.n_dropped}, quantiles={len(self.quantile_levels)})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ComparabilityState):
            return NotImplemented
        return (
            self.quantile_levels == other.quantile_levels
            and self.item_column == other.item_column
            and self.n_lists == other.n_lists
            and self.n_dropped == other.n_dropped
            and self.table.schema == other.table.schema
            and self.table.equals(other.table)
        )

    __hash__ = None  # type: ignore[assignment]

    def _meta(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "item_column": self.item_column,
            "item_dtype": str(self.table.schema["item"]),
            "n_lists": self.n_lists,
            "n_dropped": self.n_dropped,
            "quantile_levels": list(self.quantile_levels),
        }

    def save(self, path: str | Path) -> None:
        """Write the state to ``path``: ``.json``, or ``.parquet``/``.pq``.

        Parameters
        ----------
        path : str or pathlib.Path
            The file to write; its suffix picks the format.
        """
        path = Path(path)
        kind = _format_of(path, "save")
        if kind == "json":
            doc = self._meta()
            doc["items"] = self.table.to_dict(as_series=False)
            path.write_text(json.dumps(doc, allow_nan=False), encoding="utf-8")
            return
        self.table.write_parquet(path, metadata={"lodestar_polars": json.dumps(self._meta())})

    @classmethod
    def load(cls, path: str | Path) -> ComparabilityState:
        """Read a state written by :meth:`save`.

        Parameters
        ----------
        path : str or pathlib.Path
            A ``.json`` or ``.parquet``/``.pq`` file written by :meth:`save`.

        Returns
        -------
        ComparabilityState
        """
        path = Path(path)
        kind = _format_of(path, "load")
        where = f"ComparabilityState.load: {str(path)!r}"
        if not path.is_file():
            msg = f"{where}: no such file." if not path.exists() else f"{where}: not a file."
            raise ValueError(msg)
        try:
            if kind == "json":
                doc = json.loads(path.read_text(encoding="utf-8"))
                meta = doc
                columns = doc.get("items") if isinstance(doc, dict) else None
            else:
                raw = pl.read_parquet_metadata(path).get("lodestar_polars")
                meta = json.loads(raw) if raw is not None else {}
                columns = pl.read_parquet(path)
        except (OSError, ValueError, pl.exceptions.PolarsError) as err:
            first = next((ln for ln in str(err).splitlines() if ln.strip()), type(err).__name__)
            kind_name = "JSON" if kind == "json" else "Parquet"
            msg = f"{where} is not a readable {kind_name} file (truncated or damaged?): {first}"
            raise ValueError(msg) from err
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            msg = f"{where} is not a saved ComparabilityState."
            raise ValueError(msg)
        if meta.get("version") != FORMAT_VERSION:
            msg = (
                f"{where} has format version {meta.get('version')!r}; this lodestar_polars "
                f"reads version {FORMAT_VERSION}."
            )
            raise ValueError(msg)
        dtype, levels, records = _loaded_meta(meta, where)
        table = _loaded_table(columns, _table_schema(dtype), where)
        _check_loaded_table(table, levels, records, where)
        return cls(table, quantile_levels=levels, **records)


def _damaged(where: str, what: str) -> ValueError:
    return ValueError(f"{where} is damaged: {what}.")


def _loaded_meta(meta: Mapping[str, Any], where: str) -> tuple[Any, list[float], dict[str, Any]]:
    """The item dtype, the quantile levels and the records of a saved state, each checked."""
    missing = [
        k
        for k in ("item_column", "item_dtype", "n_lists", "n_dropped", "quantile_levels")
        if k not in meta
    ]
    if missing:
        raise _damaged(where, f"its records lack {', '.join(map(repr, missing))}")
    item_dtype = meta["item_dtype"]
    if not isinstance(item_dtype, str) or item_dtype not in _ITEM_DTYPES:
        raise _damaged(
            where,
            f"'item_dtype' must be one of {sorted(_ITEM_DTYPES)}; it is {item_dtype!r}",
        )
    if not isinstance(meta["item_column"], str):
        raise _damaged(where, f"'item_column' must be a str; it is {meta['item_column']!r}")
    records: dict[str, Any] = {"item_column": meta["item_column"]}
    for key in ("n_lists", "n_dropped"):
        value = meta[key]
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise _damaged(where, f"{key!r} must be an int >= 0; it is {value!r}")
        records[key] = value
    raw = meta["quantile_levels"]
    ok = (
        isinstance(raw, list)
        and len(raw) >= 2  # noqa: PLR2004  # at least the levels 0 and 1
        and all(isinstance(q, (int, float)) and not isinstance(q, bool) for q in raw)
    )
    levels = [float(q) for q in raw] if ok else []
    if (
        not ok
        or levels[0] != 0.0
        or levels[-1] != 1.0
        or any(b <= a for a, b in zip(levels, levels[1:], strict=False))
    ):
        raise _damaged(
            where,
            "'quantile_levels' must be a list of at least two increasing numbers from 0 to 1; "
            f"it is {raw!r}",
        )
    return _ITEM_DTYPES[item_dtype], levels, records


def _loaded_table(columns: object, schema: Mapping[str, Any], where: str) -> pl.DataFrame:
    """The items table of a saved state (JSON columns or a Parquet frame), typed as saved."""
    names = list(schema)
    if isinstance(columns, pl.DataFrame):
        have = list(columns.columns)
        if sorted(have) != sorted(names):
            raise _damaged(where, f"its table must have the columns {names}; it has {have}")
        for name, dtype in schema.items():
            got = columns.schema[name]
            if got != dtype:
                raise _damaged(where, f"its column {name!r} must be {dtype}; it is {got}")
        return columns.select(names)
    if not isinstance(columns, dict):
        raise _damaged(
            where, f"'items' must map each of the columns {names} to a list; it is {columns!r}"
        )
    have = list(columns)
    if sorted(have) != sorted(names):
        raise _damaged(where, f"'items' must have the columns {names}; it has {have}")
    series = []
    for name, dtype in schema.items():
        values = columns[name]
        if not isinstance(values, list):
            raise _damaged(where, f"'items' column {name!r} must be a list; it is {values!r}")
        try:
            series.append(pl.Series(name, values, dtype=dtype, strict=True))
        except (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError) as err:
            first = next((ln for ln in str(err).splitlines() if ln.strip()), type(err).__name__)
            raise _damaged(
                where, f"'items' column {name!r} must hold {dtype} values: {first}"
            ) from err
    lengths = {s.name: s.len() for s in series}
    if len(set(lengths.values())) > 1:
        raise _damaged(where, f"the 'items' columns have different lengths {lengths}")
    return pl.DataFrame(series)


def _check_loaded_table(
    table: pl.DataFrame, levels: Sequence[float], records: Mapping[str, Any], where: str
) -> None:
    """The table's values: what :func:`fit_comparability` can have written."""
    if table.height == 0:
        raise _damaged(where, "it holds no items (a fitted state has one row per catalogue item)")
    for name in table.columns:
        n = table[name].null_count()
        if n:
            raise _damaged(where, f"its column {name!r} holds {n} null value(s)")
    if table["item"].is_duplicated().any():
        dup = table.filter(pl.col("item").is_duplicated())["item"][0]
        raise _damaged(where, f"it names item {dup!r} more than once")
    width = len(levels)
    rules = [
        (
            (pl.col("n_positive") < 0) | (pl.col("n_candidate") < pl.col("n_positive")),
            "needs 0 <= n_positive <= n_candidate",
        ),
        (
            ~pl.col("base_rate").is_finite()
            | (pl.col("base_rate") < 0)
            | (pl.col("base_rate") > 1),
            "needs a base_rate in [0, 1]",
        ),
        (
            pl.col("quantiles").list.len() != width,
            f"needs {width} quantiles, one per level of 'quantile_levels'",
        ),
        (
            ~pl.col("quantiles").list.eval(pl.element().is_finite()).list.all()
            | ~pl.col("quantiles").list.eval(pl.element().diff().fill_null(0.0) >= 0.0).list.all(),
            "needs finite, non-decreasing quantiles",
        ),
    ]
    for bad, rule in rules:
        rows = table.filter(bad)
        if rows.height:
            row = rows.row(0, named=True)
            shown = {k: row[k] for k in ("n_positive", "n_candidate", "base_rate")}
            n_q = len(row["quantiles"])
            raise _damaged(
                where,
                f"item {row['item']!r} {rule} (it has {shown} and {n_q} quantiles; "
                f"{rows.height} such item(s))",
            )
    if records["n_lists"] < table["n_positive"].max():
        raise _damaged(where, f"'n_lists' is {records['n_lists']}, below an item's n_positive")


def _table_schema(item_dtype: Any) -> dict[str, Any]:
    return {
        "item": item_dtype,
        "n_positive": pl.Int64,
        "n_candidate": pl.Int64,
        "base_rate": pl.Float64,
        "quantiles": pl.List(pl.Float64),
    }


def _format_of(path: Path, verb: str) -> Literal["json", "parquet"]:
    suffix = path.suffix.lower()
    if suffix == ".json":
        return "json"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    msg = (
        f"ComparabilityState.{verb}: the file's suffix picks the format and must be .json, "
        f".parquet or .pq; got {str(path)!r}."
    )
    raise ValueError(msg)
