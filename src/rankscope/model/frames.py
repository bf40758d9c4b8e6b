"""Columns in and out of DataFrames: what a frame is, its column names, and a frame (pandas,
polars or a plain dict of columns) from columns.  Reading judgments and runs *from* frames,
with validation, is `rankscope.read.frames`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol

from ..errors import UsageError


def is_frame(obj: Any) -> bool:
    """A pandas/polars DataFrame or an Arrow table."""
    return hasattr(obj, "columns") or hasattr(obj, "column_names")


def is_spark_frame(value: Any) -> bool:
    """Whether ``value`` is a Spark DataFrame (told without importing pyspark): an input of
    the Spark backend only, never read into one process."""
    kind = type(value)
    return kind.__name__ == "DataFrame" and kind.__module__.startswith("pyspark.")


def column_names(frame: Any) -> list[str]:
    """The column names of a pandas/polars DataFrame or Arrow table."""
    present: Any = getattr(frame, "column_names", None)  # Arrow tables (.columns are arrays)
    if present is None:
        present = getattr(frame, "columns", ())
    return [str(c) for c in present]


def to_frame(columns: dict[str, Any], output: str = "pandas") -> Any:
    """A DataFrame of the given kind from a dict of equal-length columns."""
    if output == "pandas":
        try:
            import pandas as pd
        except ImportError:
            raise ImportError(
                "output='pandas' needs pandas: pip install 'rankscope[frames]', or use "
                "output='polars' or output='dict'"
            ) from None
        return pd.DataFrame(columns)
    if output == "polars":
        try:
            import polars as pl
        except ImportError:
            raise ImportError("output='polars' needs polars: pip install polars") from None
        return pl.DataFrame(columns, strict=False)
    if output == "dict":
        return columns
    raise ValueError(f"unknown output {output!r}: choose pandas, polars or dict")


def records_frame(
    records: Sequence[Mapping[str, Any]], columns: Sequence[str], output: str = "pandas"
) -> Any:
    """A result's rows (its ``records()``, one dict per row) as a DataFrame of ``columns``
    (pandas, polars or a dict of columns): the one way every result derives ``to_frame``
    from the rows its renderer reads, so the two never disagree."""
    return to_frame({name: [record[name] for record in records] for name in columns}, output)


class _Tabled(Protocol):
    TABLES: ClassVar[dict[str, tuple[str, ...]]]

    def records(self, table: str) -> list[dict[str, Any]]: ...


class NamedTables:
    """What a result of several tables shares (`Aggregation`, `Study`, `FoldsEvaluation`):
    ``TABLES`` maps each table's name to its columns, the first table being the default;
    ``records(table)`` gives a table's rows, and `to_frame` derives its frame from them."""

    TABLES: ClassVar[dict[str, tuple[str, ...]]]

    def check_table(self, table: str) -> str:
        """``table`` if it names one of the tables; a `UsageError` naming them otherwise."""
        if table not in self.TABLES:
            raise UsageError(f"unknown table {table!r}: choose {' or '.join(self.TABLES)}")
        return table

    def to_frame(self: _Tabled, output: str = "pandas", table: str | None = None) -> Any:
        """The rows of ``table`` (`records`; default: the first of ``TABLES``) as a
        DataFrame (pandas, polars) or a dict of columns."""
        name = next(iter(self.TABLES)) if table is None else table
        return records_frame(self.records(name), self.TABLES[name], output)


def plain(value: Any) -> Any:
    """``value`` with numpy scalars and arrays turned into Python numbers and lists (dicts,
    lists and tuples walked), so that a result's ``to_dict()`` is ready for ``json.dumps`` at
    full precision."""
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    tolist = getattr(value, "tolist", None)  # numpy arrays and scalars
    return tolist() if callable(tolist) else value
