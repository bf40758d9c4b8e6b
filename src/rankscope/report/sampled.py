"""A sampled evaluation (`rankscope.recsys.sampled.sampled_evaluate`'s table) as ``rankscope
sampled`` writes it: a row per system and measure with a column per estimator (an aligned
table, CSV at full precision), or JSON, an object per (system, measure, estimator)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import UsageError
from .tables import cell, csv_text, json_text, text_table

#: The formats of `format_sampled` (``rankscope sampled --format``).
FORMATS = ("table", "csv", "json")

_COLUMNS = ("run", "measure", "estimator", "value", "targets")


def format_sampled(
    table: Mapping[str, Sequence[Any]], estimators: Sequence[str], fmt: str = "table"
) -> str:
    """The text ``rankscope sampled`` prints for ``table`` (the dict of columns of
    `sampled_evaluate`: run, measure, estimator, value, targets; each (run, measure) a run
    of rows, one per estimator in the order of ``estimators``)."""
    columns = [table[c] for c in _COLUMNS]
    records = [dict(zip(_COLUMNS, row, strict=True)) for row in zip(*columns, strict=True)]
    if fmt == "json":
        return json_text(records)
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    exact = fmt == "csv"
    body = []
    for start in range(0, len(records), len(estimators)):
        group = records[start : start + len(estimators)]
        first = group[0]
        values = [cell(float(r["value"]), exact) for r in group]
        body.append([first["run"], first["measure"], *values, str(first["targets"])])
    rows = [["run", "measure", *estimators, "targets"], *body]
    return csv_text(rows) if exact else text_table(rows)
