"""Rows of text cells written as an aligned table, CSV, Markdown, LaTeX or JSON: the one
renderer behind every command's ``--format``.  A result gives its rows (``records()``);
a report module picks and labels the columns and hands the cells here.  CSV and JSON carry
full precision (`cell` with ``exact``: ``repr`` of floats, which reads back to the same
number); the aligned table and Markdown four decimals (`number`).  Only trec_eval's text
(`rankscope.report.trec`), ndeval's CSV (`rankscope.report.ndeval`) and the HTML report
(`rankscope.report.html`) are written elsewhere."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any


def number(value: float) -> str:
    """A value as the tables print it: four decimals (``nan`` for no value)."""
    return f"{float(value):.4f}"


def clean(text: str, keep: str = "", raw_bytes: bool = False) -> str:
    """Text from the user's files, safe to show: every control character (an ANSI escape,
    a bell, a carriage return, ...) written as its escape, ``\\x1b``, instead of sent raw to a
    terminal, and a byte that is not UTF-8 (read as Python's surrogate escape) as ``\\xe9``;
    printable text is unchanged.  ``keep``: characters let through (a message's newlines);
    ``raw_bytes``: undecodable bytes kept, to be written back as the bytes they were (as
    trec_eval prints ids, in its format)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in keep else _escape(c, raw_bytes) for c in text)


def _escape(c: str, raw_bytes: bool) -> str:
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:  # the byte code - 0xDC00, undecodable as UTF-8
        return c if raw_bytes else f"\\x{code - 0xDC00:02x}"
    return repr(c)[1:-1]


def cell(value: Any, exact: bool = True) -> str:
    """A value as a cell: nothing for None, a float ``repr``-exact (``exact``, for CSV) or
    with four decimals (`number`, for the aligned table), anything else as ``str``."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(float(value)) if exact else number(value)  # numpy's floats too
    return str(value)


def csv_cell(cell: str) -> str:
    """A CSV field (control characters escaped, `clean`), quoted only when it holds a comma
    or a quote (RFC 4180)."""
    cell = clean(cell)
    return f'"{cell.replace(chr(34), chr(34) * 2)}"' if any(c in cell for c in ',"') else cell


def csv_text(rows: list[list[str]]) -> str:
    """Rows (the header first) as CSV lines."""
    return "".join(",".join(csv_cell(c) for c in row) + "\n" for row in rows)


def markdown_cell(text: str) -> str:
    """The user's text as a Markdown table cell: control characters escaped (`clean`),
    backslashes and pipes escaped."""
    return clean(text).replace("\\", "\\\\").replace("|", "\\|")


def markdown_table(rows: list[list[str]]) -> str:
    """Rows (the header first) as a Markdown (GitHub) table, with a final newline; cells are
    written as given (`markdown_cell` escapes the user's text)."""
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    return "\n".join(lines) + "\n"


def latex_tabular(rows: list[list[str]], columns: str) -> str:
    """Rows (the header first) as a booktabs ``tabular`` with column spec ``columns``, with
    a final newline; cells are written as given (escaped by the caller)."""
    lines = [r"\begin{tabular}{" + columns + "}", r"\toprule", " & ".join(rows[0]) + r" \\"]
    lines.append(r"\midrule")
    lines += [" & ".join(row) + r" \\" for row in rows[1:]]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


#: LaTeX's special characters and what prints them.
_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    # in the default (OT1) font encoding these print as other glyphs
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped."""
    return "".join(_SPECIAL.get(char, char) for char in str(text))


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


def format_columns(columns: Mapping[str, Sequence[Any]], fmt: str) -> str:
    """A table given as a dict of columns (a result's ``to_frame(output="dict")``) in
    ``fmt``: ``json``, a list of objects (one per row); ``csv``, full precision; ``table``,
    aligned, floats with four decimals."""
    names = list(columns)
    rows = list(zip(*(columns[n] for n in names), strict=True))
    if fmt == "json":
        return json_text([dict(zip(names, row, strict=True)) for row in rows])
    exact = fmt == "csv"
    cells = [names, *([cell(value, exact) for value in row] for row in rows)]
    return csv_text(cells) if exact else text_table(cells)


def without_nan(value: Any) -> Any:
    """``value`` (a result's ``to_dict()`` or ``records()``) with every NaN or infinite
    float, in dicts and lists at any depth, written as None: JSON has neither (Python would
    write ``NaN`` and ``Infinity``, which strict parsers, jq and JavaScript's, reject), so a
    value that is not defined, or a bound that is none (an unbounded interval's), is
    ``null``."""
    if isinstance(value, float):
        return None if not math.isfinite(value) else value
    if isinstance(value, dict):
        return {key: without_nan(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [without_nan(item) for item in value]
    return value


def json_text(value: Any, ascii: bool = True) -> str:
    """``value`` as indented JSON, with a final newline (``ascii``: non-ASCII characters
    escaped)."""
    import json  # here: only the json formats need it, and ``eval`` starts cold often

    return json.dumps(value, indent=1, ensure_ascii=ascii) + "\n"
