"""The delimited-text tokenizer every log reader shares: a file's bytes checked as every text
reader checks them, its content lines, the field separator, fields, header names, and the
error of a line whose field count is not the file's.

Text files (``.gz`` and ``-`` accepted) are separated by tabs, ``::``, semicolons, commas
(CSV quoting) or runs of white space; the first content line decides.  Blank lines and lines
starting with ``#`` are skipped.  Used by the interaction, recommendation and item-feature
readers and by `rankscope.read.impressions`.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InputError
from .fields import excerpt, field_count_error, nul_error, nul_line, text_start
from .trec import read_bytes, source_name


def load(path: str | os.PathLike) -> tuple[bytes, str]:
    """The text of ``path`` and its name, its bytes checked as every text reader checks them
    (`rankscope.read.fields.text_start`: a byte-order mark skipped, CR-only line endings an
    error) and no line holding a NUL byte."""
    data, source = read_bytes(path), source_name(path)
    start = text_start(data, source)
    if start:
        data = data[start:]
    nul = nul_line(data)
    if nul:
        raise nul_error(source, nul)
    return data, source


def lines(data: bytes) -> list[str]:
    """The text's lines (UTF-8, else Latin-1: MovieLens u.item is Latin-1)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:  # MovieLens u.item is Latin-1
        text = data.decode("latin-1")
    return text.split("\n")


def content(text_lines: list[str]) -> list[tuple[int, str]]:
    """(line number from 1, stripped text) of each line that is neither blank nor a comment."""
    out = []
    for number, raw in enumerate(text_lines, start=1):
        s = raw.strip()
        if s and not s.startswith("#"):
            out.append((number, s))
    return out


def separator(first: str) -> str | None:
    """The field separator of a delimited line (None: runs of white space)."""
    if "::" in first:
        return "::"
    if "\t" in first:
        return "\t"
    if ";" in first and DECIMAL_COMMAS_ONLY.fullmatch(first):
        return ";"  # (European CSV: fields separated by ';', decimals written 4,5)
    if "," in first:
        return ","
    if ";" in first:
        return ";"
    return None


#: A line whose every comma stands between two digits: decimal commas, not separators.
DECIMAL_COMMAS_ONLY = re.compile(r"(?:[^,]|(?<=[0-9]),(?=[0-9]))*")


def split(line: str, sep: str | None) -> list[str]:
    """The fields of a line (``sep`` None: runs of white space; ``,``: CSV quoting)."""
    if sep == ",":
        return [f.strip() for f in next(csv.reader(io.StringIO(line)))]
    if sep is None:
        return line.split()
    return [f.strip() for f in line.split(sep)]


def find(names: Sequence[str], candidates: Sequence[str]) -> int | None:
    """The index of the first of ``candidates`` (lower case) among ``names``, case ignored."""
    lowered = [n.strip().lower() for n in names]
    for c in candidates:
        if c in lowered:
            return lowered.index(c)
    return None


def width_error(source, line, fields, width, sep, header, first) -> InputError:
    """A delimited line whose field count is not the file's: read on, its fields would
    shift (a decimal comma, ``4,5``, makes two fields of a rating: rating 4, timestamp 5)."""
    model = "the header" if header else f"line {first}"
    shown = sep.join(fields)
    hint = ""
    if sep == "," and any(
        a[-1:].isdigit() and b[:1].isdigit() for a, b in zip(fields, fields[1:], strict=False)
    ):
        hint = "; a decimal comma? rankscope reads numbers with a decimal point (4.5)"
    return InputError(
        f"{source}:{line}: expected {width} fields, as {model} has, found {len(fields)}: "
        f"{excerpt(shown)}{hint}"
    )


def rows(
    path: Any,
    *,
    min_fields: int,
    what: str,
    is_header: Callable[[list[str], list[str] | None], bool],
    data: tuple[bytes, str] | None = None,
) -> tuple[str, list[str] | None, list[tuple[int, list[str]]], str | None]:
    """(source, header or None, [(line number, fields)], separator) of a delimited file;
    ``is_header(first, second)`` says whether the first content line names the columns."""
    raw, source = load(path) if data is None else data
    kept = content(lines(raw))
    if not kept:
        raise InputError(f"{source}: no {what} found")
    sep = separator(kept[0][1])
    table = [(n, split(s, sep)) for n, s in kept]
    header = None
    if is_header(table[0][1], table[1][1] if len(table) > 1 else None):
        header = table.pop(0)[1]
        if not table:
            raise InputError(f"{source}: no {what} found after the header")
    width = len(header) if header is not None else len(table[0][1])
    for n, fields in table:
        if len(fields) < min_fields:
            raise field_count_error(source, n, f"at least {min_fields}", len(fields),
                                    " ".join(fields))  # fmt: skip
        if len(fields) != width and sep is not None:
            raise width_error(source, n, fields, width, sep, header is not None, table[0][0])
    return source, header, table, sep


#: The separators `columns` reads, and a pattern of the white space it leaves to `rows`
#: (which strips it from lines and fields): any but the line break and the separator.
_PLAIN_SEPARATORS = {"\t": "\t", ",": ",", ";": ";", None: " "}
_STRIPPED = {
    sep: re.compile(r"[^\S\n" + ("\t" if sep == "\t" else " " if sep is None else "") + "]")
    for sep in _PLAIN_SEPARATORS
}
#: ASCII white space but the line break: the check of an ASCII text, faster than the pattern's
_STRIPPED_BYTES = b" \t\r\x0b\x0c\x1c\x1d\x1e\x1f"


def columns(
    data: bytes, is_header: Callable[[list[str], list[str] | None], bool]
) -> tuple[list[str] | None, list[list[str]], int] | None:
    """(header or None, the fields of each column, the line number of the first row) of a
    plain delimited text, read column-wise: what `rows` gives for it, without going line by
    line (several times faster on a file of millions of lines).

    Plain: UTF-8; every line of the same number (≥ 2) of fields separated by one tab, comma,
    semicolon or space, none at either end of a line; no blank line, comment (``#``), CSV
    quote or other white space.  None for any other text: `rows` reads it, and reports its
    errors by line."""
    body = data[:-1] if data.endswith(b"\n") else data
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text or "\n\n" in text or "#" in text or '"' in text:
        return None
    first = text.partition("\n")[0]
    sep = separator(first)
    if sep not in _PLAIN_SEPARATORS:
        return None
    others = _STRIPPED_BYTES.replace(b" " if sep is None else b"\t" if sep == "\t" else b"", b"")
    if any(byte in body for byte in others):
        return None
    if not body.isascii() and _STRIPPED[sep].search(text):  # Unicode white space
        return None
    mark = _PLAIN_SEPARATORS[sep]
    if text[0] in "\n" + mark or text[-1] == mark or f"\n{mark}" in text or f"{mark}\n" in text:
        return None
    if sep is None and "  " in text:
        return None
    width = first.count(mark) + 1
    # width - 1 separators on every line: every width-th break (a separator or a line's end)
    # ends a line, and no other does
    raw = np.frombuffer(body, np.uint8)
    breaks = np.flatnonzero((raw == ord(mark)) | (raw == 10))
    ends = int(np.count_nonzero(raw[breaks] == 10)) + 1
    if width < 2 or len(breaks) + 1 != width * ends:
        return None
    if (raw[breaks[width - 1 :: width]] != 10).any():
        return None
    del raw, breaks
    flat = text.replace("\n", mark).split(mark)
    fields = [flat[j::width] for j in range(width)]
    del flat
    second = [column[1] for column in fields] if ends > 1 else None
    if not is_header([column[0] for column in fields], second):
        return None, fields, 1
    if ends == 1:
        return None
    return [column.pop(0) for column in fields], fields, 2
