"""Rows of text cells written as an aligned table, CSV or JSON: the one writer behind every
command's ``--format table|csv|json``."""

from __future__ import annotations

from typing import Any


def number(value: float) -> str:
    """A value as the tables print it: four decimals (``nan`` for no value)."""
    return f"{float(value):.4f}"


def clean(text: str, keep: str = "") -> str:
    """Text from the user's files, safe to show: every control character (an ANSI escape,
    a bell, a carriage return, ...) written as its escape, ``\\x1b``, instead of sent raw to a
    terminal; printable text is unchanged.  ``keep``: characters let through (a message's
    newlines)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in keep else repr(c)[1:-1] for c in text)


def csv_cell(cell: str) -> str:
    """A CSV field (control characters escaped, `clean`), quoted only when it holds a comma
    or a quote (RFC 4180)."""
    cell = clean(cell)
    return f'"{cell.replace(chr(34), chr(34) * 2)}"' if any(c in cell for c in ',"') else cell


def csv_text(rows: list[list[str]]) -> str:
    """Rows (the header first) as CSV lines."""
    return "".join(",".join(csv_cell(c) for c in row) + "\n" for row in rows)


def text_table(rows: list[list[str]]) -> str:
    """Rows (the header first) as an aligned table: the first column left-aligned, the others
    right-aligned, a rule under the header."""
    rows = [[clean(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        lines.append(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
        )
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def transpose(rows: list[list[str]], corner: str = "measure") -> list[list[str]]:
    """A table with a row per system and a column per measure turned into one with a row per
    measure and a column per system (``corner`` heads the first column)."""
    header, body = rows[0], rows[1:]
    table = [[corner, *[r[0] for r in body]]]
    for j, label in enumerate(header[1:], start=1):
        table.append([label, *[r[j] for r in body]])
    return table


def json_text(value: Any) -> str:
    """``value`` as indented JSON, with a final newline."""
    import json  # here: only the json formats need it, and ``eval`` starts cold often

    return json.dumps(value, indent=1) + "\n"
