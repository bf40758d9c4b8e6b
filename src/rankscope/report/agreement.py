"""Assessor agreement (`rankscope.table.agreement.AgreementResult`) as ``rankscope agree``
writes it: an aligned table, CSV or JSON.

A statistic that does not apply (``None``: no pairable item, not exactly two assessors for
Cohen's kappa, items with different numbers of labels for Fleiss') prints as ``-`` in the
table, an empty field in CSV and ``null`` in JSON; one that applies but is undefined (``NaN``:
one category only) prints ``nan`` in the table and CSV and ``null`` in JSON (JSON has no
NaN; the ``undefined`` list of each row names them).
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import UsageError
from ..table.agreement import STATISTICS as _STATISTICS
from ..table.agreement import AgreementResult
from .tables import csv_text, json_text, number, text_table

#: The formats of `format_agreement` (``rankscope agree --format``).
FORMATS = ("table", "csv", "json")

_COUNTS = ("items", "assessors", "labels", "pairable")


def format_agreement(
    result: AgreementResult, fmt: str = "table", *, per_query: bool = False
) -> str:
    """The text ``rankscope agree`` prints: a row per query (with ``per_query``), then the
    row ``all`` of every item; columns query, items, assessors, labels, pairable, percent
    (agreement, a proportion), cohen, fleiss, alpha."""
    rows = result.records(per_query)
    if fmt == "json":
        return json_text(
            {
                "source": result.source,
                "level": result.level,
                "weights": result.weights,
                "rows": [_json_row(row) for row in rows],
            }
        )
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    table = fmt == "table"
    header = ["query", *_COUNTS, *_STATISTICS]
    if table:
        header[-3] += f" ({result.weights})" if result.weights else ""
        header[-1] += f" ({result.level})"
    cells = [
        [row["query"], *[str(row[name]) for name in _COUNTS]]
        + [_cell(row[name], table) for name in _STATISTICS]
        for row in rows
    ]
    return text_table([header, *cells]) if table else csv_text([header, *cells])


def _cell(value: float | None, table: bool) -> str:
    if value is None:
        return "-" if table else ""
    return number(value) if table else repr(float(value))


def _json_row(row: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"query": row["query"]}
    entry.update({name: row[name] for name in _COUNTS})
    undefined = []
    for name in _STATISTICS:
        value = row[name]
        if value is not None and math.isnan(value):
            undefined.append(name)
            value = None
        entry[name] = value
    entry["undefined"] = undefined
    return entry
