"""A reproduction (`rankscope.table.reproduce.Reproduction`) as ``rankscope reproduce``
writes it: an aligned table, CSV (full precision) or JSON (`Reproduction.to_dict`, with the
per-topic KTU and RBO)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import UsageError
from .marks import p_value
from .tables import cell, csv_text, json_text, number, text_table, without_nan

if TYPE_CHECKING:  # pragma: no cover
    from ..table.reproduce import Reproduction

#: The formats of `format_reproduction` (``rankscope reproduce --format``).
FORMATS = ("table", "csv", "json")


def _cell(quantity: str, value: float | None) -> str:
    """A table cell: p-values written as every text table writes them (`p_value`), other
    quantities with four decimals; nothing where the quantity has no such value."""
    if value is None:
        return ""
    return p_value(value) if quantity.startswith("p (") else number(value)


def format_reproduction(result: Reproduction, fmt: str = "table") -> str:
    """The text ``rankscope reproduce`` prints for ``result`` in format ``fmt``."""
    rows = result.records()
    if fmt == "json":
        return json_text(without_nan(result.to_dict()))
    header = ["measure", "quantity", "baseline", "advanced"]
    if fmt == "csv":
        cells = [[r["measure"], r["quantity"], *(cell(r[k]) for k in ("baseline", "advanced"))]
                 for r in rows]  # fmt: skip
        return csv_text([header, *cells])
    if fmt != "table":
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    cells = [[r["measure"], r["quantity"], *(_cell(r["quantity"], r[k])
              for k in ("baseline", "advanced"))] for r in rows]  # fmt: skip
    top = (
        f"{result.kind}: original {result.original[0]} -> {result.original[1]}, "
        f"reproduced {result.reproduced[0]} -> {result.reproduced[1]}; "
        f"{len(result.original_topics)} topics"
        + ("" if result.kind == "reproduction" else f" / {len(result.reproduced_topics)} topics")
    )
    return top + "\n\n" + text_table([header, *cells])
