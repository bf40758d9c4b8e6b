"""A planned experiment (`rankscope.experiment.Plan`) as a table, Markdown, CSV or JSON, through
the one renderer (`rankscope.report.tables`)."""

from __future__ import annotations

from ..experiment.plan import Plan
from .tables import (
    cell,
    csv_text,
    json_text,
    markdown_table,
    text_table,
    transpose,
    without_nan,
)

FORMATS = ("table", "markdown", "csv", "json")

#: The rows of the table and Markdown formats (a column per treatment), by the records' keys.
LABELS = {
    "kind": "metric", "solved": "solved for", "alternative": "alternative",
    "alpha": "alpha (all comparisons)", "comparison_alpha": "alpha per comparison",
    "baseline": "control's value", "sd": "sd per unit", "value": "treatment's value",
    "effect": "effect", "relative_effect": "relative effect", "power": "power",
    "share": "treatment's share", "control_units": "control units",
    "units": "treatment units", "total_units": "total units",
}  # fmt: skip


def format_plan(plan: Plan, fmt: str = "table") -> str:
    """The plan in ``fmt``: ``json``, its ``to_dict()``; ``csv``, one row per treatment at
    full precision (``records()``); ``table`` and ``markdown``, a row per quantity and a
    column per treatment, four decimals."""
    if fmt == "json":
        return json_text(without_nan(plan.to_dict()))  # (a relative effect of a control at 0)
    records = plan.records()
    if fmt == "csv":
        columns = plan.TABLES["comparisons"]
        return csv_text([list(columns), *([cell(r[c], True) for c in columns] for r in records)])
    rows = [["variant", *LABELS.values()]]
    rows += [[r["variant"], *(cell(r[key], False) for key in LABELS)] for r in records]
    table = transpose(rows, corner="")
    return markdown_table(table) if fmt == "markdown" else text_table(table)
