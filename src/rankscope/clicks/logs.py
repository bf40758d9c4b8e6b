"""Click logs out: `write_clicks` writes an `ImpressionLog` as a tab-separated file with a
header, or Parquet, which `rankscope.read.impressions.read_impressions` reads back to the
same log."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..atomic import atomic_path, write_atomically
from ..errors import UsageError
from ..model import ImpressionLog


def write_clicks(log: ImpressionLog, path: str | os.PathLike) -> None:
    """Write ``log`` to ``path``: Parquet for a ``.parquet`` name (polars or pandas with
    pyarrow), else tab-separated text with a header line (``-``: standard output), columns
    ``session query position doc clicked`` and the optional columns present (timestamp,
    ranking, team, propensities)."""
    columns = log.columns()
    if str(path).endswith((".parquet", ".pq")):
        try:
            import polars as pl
        except ImportError:
            import pandas as pd

            with atomic_path(path) as temporary:
                pd.DataFrame(columns).to_parquet(temporary)
            return
        with atomic_path(path) as temporary:
            pl.DataFrame(columns).write_parquet(Path(temporary))
        return
    names = list(columns)
    for name, values in columns.items():
        if name in ("session", "query", "doc", "ranking", "team"):
            bad = next((v for v in values if any(ch in v for ch in "\t\n\r")), None)
            if bad is not None:
                raise UsageError(
                    f"the {name} id {bad!r} holds a tab or line break: write the log to "
                    "Parquet instead"
                )
    lines = ["\t".join(names)]
    lines.extend("\t".join(str(v) for v in row) for row in zip(*columns.values(), strict=True))
    text = "\n".join(lines) + "\n"
    if str(path) == "-":
        sys.stdout.write(text)
        return
    write_atomically(path, text, newline="\n")
