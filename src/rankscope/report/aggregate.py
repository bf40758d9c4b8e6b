"""An aggregation (`rankscope.table.aggregate.Aggregation`) as the commands print it after
their own output (``--weights``, ``--segments``): an aligned table, CSV, Markdown or JSON.

Text formats (``table``, ``trec``, ``markdown``, ``latex``): the command's output, a blank
line, the aggregates and, after another blank line, the gaps between segments.  CSV: the
same blocks, each with its header.  JSON: one object, ``{"results": <the command's JSON>,
"aggregates": [...], "gaps": [...]}``.
"""

from __future__ import annotations

import json
from typing import Any

from ..table.aggregate import Aggregation
from .tables import cell, csv_text, json_text, markdown_table, text_table, without_nan

_AGGREGATE_HEADER = [
    "run", "measure", "segmentation", "segment", "value", "ci_low", "ci_high", "queries",
    "weight_share",
]  # fmt: skip
_GAP_HEADER = [
    "run", "measure", "segmentation", "highest", "highest_value", "lowest", "lowest_value",
    "gap", "ratio",
]  # fmt: skip


def _rows(result: Aggregation, exact: bool) -> tuple[list[list[str]], list[list[str]]]:
    aggregates = [[cell(getattr(r, f), exact) for f in _AGGREGATE_HEADER] for r in result.rows]
    gaps = [[cell(getattr(g, f), exact) for f in _GAP_HEADER] for g in result.gaps]
    return aggregates, gaps


def title(result: Aggregation) -> str:
    """What the aggregates are: the statistic and its intervals."""
    label = result.rows[0].aggregate if result.rows else result.how
    kinds = sorted({r.interval for r in result.rows} - {"none"})
    interval = "t" if kinds == ["t"] else "bootstrap percentile"
    return f"{label} per segment, {result.level:.0%} {interval} interval"


def format_aggregation(result: Aggregation, fmt: str = "table") -> str:
    """The aggregation alone: ``csv``, ``json``, ``markdown`` or an aligned ``table`` (any
    other format), the gaps after the aggregates."""
    if fmt == "json":
        return json_text(_json(result))
    exact = fmt == "csv"
    aggregates, gaps = _rows(result, exact)
    header = [*_AGGREGATE_HEADER]
    header[4] = result.rows[0].aggregate.replace(" ", "_") if result.rows else "value"
    if fmt == "csv":
        text = csv_text([header, *aggregates])
        return text + ("\n" + csv_text([_GAP_HEADER, *gaps]) if gaps else "")
    write = markdown_table if fmt == "markdown" else text_table
    text = f"{title(result)}\n\n" + write([header, *aggregates])
    if gaps:
        text += "\ngaps between the highest and the lowest segment\n\n"
        text += write([_GAP_HEADER, *gaps])
    return text


def _json(result: Aggregation) -> dict[str, Any]:
    """Both tables of ``result`` (NaN as null)."""
    return {table: without_nan(result.records(table)) for table in result.TABLES}


def with_aggregation(output: str, result: Aggregation, fmt: str) -> str:
    """A command's ``output`` (in format ``fmt``) followed by the aggregation (see the
    module)."""
    if fmt == "json":
        return json_text({"results": json.loads(output), **_json(result)})
    return output + "\n" + format_aggregation(result, fmt)
