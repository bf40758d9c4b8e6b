"""Columns in and out of DataFrames: what a frame is, its column names, and a frame (pandas,
polars or a plain dict of columns) from columns.  Reading judgments and runs *from* frames,
with validation, is `rankscope.read.frames`."""

from __future__ import annotations

from typing import Any


def is_frame(obj: Any) -> bool:
    """A pandas/polars DataFrame or an Arrow table."""
    return hasattr(obj, "columns") or hasattr(obj, "column_names")


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
