"""The delimited-text tokenizer every log reader shares: a file's bytes checked as every text
reader checks them, its content lines, the field separator, fields, header names, and the
error of a line whose field count is not the file's.

Text files (``.gz`` and ``-`` accepted) are separated by tabs, ``::``, semicolons, commas
(CSV quoting) or runs of white space; the first content line decides.  Blank lines and lines
starting with ``#`` are skipped.  Used by the interaction, recommendation and item-feature
readers and by `rankscope.read.impressions`.

A plain text (one separator between fields, the same number on every line, nothing to skip
or strip) is also read column-wise: `columns` splits it into strings at once, and `table`
locates its fields in the bytes (`Table`), so that a log of millions of lines becomes codes
and numbers without a Python string per field.  Both give what `rows` gives, and leave any
other text, and any error, to it.
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
from ..model import Vocabulary
from .fields import Field, excerpt, field_count_error, nul_error, nul_line, text_start
from .frames import intern_distinct
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


def split_lines(
    content: Sequence[tuple[int, str]], sep: str | None, source: str
) -> list[tuple[int, list[str]]]:
    """(line number, fields) of each content line; a line CSV cannot split (a carriage
    return inside an unquoted field) is an error naming the file and the line."""
    try:
        return [(n, split(s, sep)) for n, s in content]
    except csv.Error:
        n, s = next((n, s) for n, s in content if not _splits(s, sep))
        problem = "a carriage return (\\r) inside the line" if "\r" in s else "not CSV"
        raise InputError(f"{source}:{n}: {problem}: {excerpt(s)}") from None


def _splits(line: str, sep: str | None) -> bool:
    try:
        split(line, sep)
    except csv.Error:
        return False
    return True


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
    table = split_lines(kept, sep, source)
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
_PLAIN_SEPARATORS = {"\t": "\t", ",": ",", ";": ";", None: " ", "::": "\x1f"}
_STRIPPED = {
    sep: re.compile(r"[^\S\n" + ("\t" if sep == "\t" else " " if sep is None else "") + "]")
    for sep in _PLAIN_SEPARATORS
}
#: ASCII white space but the line break: the check of an ASCII text, faster than the pattern's
_STRIPPED_BYTES = b" \t\r\x0b\x0c\x1c\x1d\x1e\x1f"


def _plain(data: bytes) -> tuple[bytes, int, str | None, int, np.ndarray] | None:
    """(text, its length without the final line break, separator, fields per line, where
    each field ends) of a plain delimited text (see `columns`): the text with a ``::``
    separator replaced by the unit separator (``\x1f``, which no plain text holds), and the
    end of each field (a separator, a line break or the end), row by row; None for any
    other text.  Lines may end in CRLF (a Windows file): every carriage return before a
    line feed is taken out, which `rows` strips with the line, and so are blank lines at the
    end (a copy of the text)."""
    if b"\r" in data:
        crlf = data.count(b"\r\n")
        if crlf != data.count(b"\r"):
            return None
        data = data.replace(b"\r\n", b"\n")
    if data.endswith(b"\n\n"):  # blank lines at the end (an editor's), which `rows` skips
        data = data.rstrip(b"\n") + b"\n"
    size = len(data) - data.endswith(b"\n")
    if not size or b"\n\n" in data or b"#" in data or b'"' in data:
        return None
    ascii_ = data.isascii()
    try:
        newline = data.find(b"\n", 0, size)
        first = data[: size if newline < 0 else newline].decode("utf-8")
        text = None if ascii_ else data[:size].decode("utf-8")
    except UnicodeDecodeError:
        return None
    sep = separator(first)
    if sep not in _PLAIN_SEPARATORS:
        return None
    others = _STRIPPED_BYTES.replace(b" " if sep is None else b"\t" if sep == "\t" else b"", b"")
    if any(byte in data for byte in others):
        return None
    if text is not None and _STRIPPED[sep].search(text):  # Unicode white space
        return None
    del text
    if sep == "::":  # split as str.split("::") does: from the left, without overlaps
        data, first = data.replace(b"::", b"\x1f"), first.replace("::", "\x1f")
        size = len(data) - data.endswith(b"\n")
    mark = _PLAIN_SEPARATORS[sep].encode()
    if data[:1] in (b"\n", mark) or data[size - 1 : size] == mark or b"\n" + mark in data or (
        mark + b"\n" in data
    ):
        return None
    if sep is None and b"  " in data:
        return None
    width = first.count(_PLAIN_SEPARATORS[sep]) + 1
    # width - 1 separators on every line: every width-th break (a separator or a line's end)
    # ends a line, and no other does
    raw = np.frombuffer(data, np.uint8, size)
    dtype = np.int32 if size < 2**31 - 1 else np.int64
    breaks = np.concatenate(
        [np.flatnonzero((raw[at : at + _CHUNK] == mark[0]) | (raw[at : at + _CHUNK] == 10))
         .astype(dtype) + at for at in range(0, size, _CHUNK)]
        + [np.asarray([size], dtype=dtype)]
    )  # fmt: skip
    if width < 2 or len(breaks) % width:
        return None
    lines = breaks[width - 1 :: width]
    if (raw[lines[:-1]] != 10).any() or len(breaks) - len(lines) != data.count(mark, 0, size):
        return None
    return data, size, sep, width, breaks


def columns(
    data: bytes, is_header: Callable[[list[str], list[str] | None], bool]
) -> tuple[list[str] | None, list[list[str]], int] | None:
    """(header or None, the fields of each column, the line number of the first row) of a
    plain delimited text, read column-wise: what `rows` gives for it, without going line by
    line (several times faster on a file of millions of lines).

    Plain: UTF-8; every line of the same number (≥ 2) of fields separated by one tab, comma,
    semicolon, space or ``::``, none at either end of a line (lines may end in CRLF); no
    blank line, comment (``#``), CSV quote or other white space.  None for any other text:
    `rows` reads it, and reports its errors by line.  `table` reads the same texts without
    making a string of each field."""
    plain = _plain(data)
    if plain is None:
        return None
    data, size, sep, width, breaks = plain
    ends = len(breaks) // width
    del breaks
    mark = _PLAIN_SEPARATORS[sep]
    flat = data[:size].decode("utf-8").replace("\n", mark).split(mark)
    fields = [flat[j::width] for j in range(width)]
    del flat
    second = [column[1] for column in fields] if ends > 1 else None
    if not is_header([column[0] for column in fields], second):
        return None, fields, 1
    if ends == 1:
        return None
    return [column.pop(0) for column in fields], fields, 2


def table(
    data: bytes, is_header: Callable[[list[str], list[str] | None], bool], source: str
) -> Table | None:
    """The plain delimited text ``data`` (the texts `columns` reads) as a `Table`: its fields
    located, not copied; None for any other text, or a header without rows."""
    plain = _plain(data)
    if plain is None:
        return None
    data, _, _, width, breaks = plain
    out = Table(data, breaks, width, source)
    second = out.row(1) if out.rows > 1 else None
    if not is_header(out.row(0), second):
        return out
    if out.rows == 1:
        return None
    return Table(data, breaks[width:], width, source, header=out.row(0))


#: Bytes of the file scanned at once by `_plain`, and rows of a column parsed at once by
#: `Table.numbers` (bound their temporary arrays).
_CHUNK = 1 << 26
_ROWS = 1 << 20
#: The most digits a number read column-wise may have: below 2**53, so that the number
#: without its decimal point and the power of ten of the point are exact floats, and their
#: quotient is the float ``float()`` makes of the text (correctly rounded); longer numbers,
#: and exponents, go through `rankscope.read.fields.Field.tokens`.
_DIGITS = 15
_POWERS = np.asarray([float(10**k) for k in range(_DIGITS + 1)])
#: Ids of at most this many bytes are compared as one 64-bit integer.
_PACKED = 8


class Table:
    """A plain delimited text (`table`) located column by column: each field is a span of
    the text's bytes, and a column becomes codes or numbers without a Python string per
    field (a log of millions of lines has far fewer distinct ids than lines).  The same
    values, and the same errors (by line), as the fields `rows` gives."""

    def __init__(
        self, data: bytes, breaks: np.ndarray, width: int, source: str,
        header: list[str] | None = None,
    ) -> None:  # fmt: skip
        self.data, self.breaks, self.width, self.source = data, breaks, width, source
        self.header = header
        self.rows = len(breaks) // width
        #: the line number of the first row, and where it starts
        self.first = 1 if header is None else 2
        self.begin = 0 if header is None else data.index(b"\n") + 1

    @property
    def lines(self) -> np.ndarray:
        """The line number of each row."""
        return np.arange(self.first, self.first + self.rows, dtype=np.int64)

    def spans(self, j: int, rows: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Where the fields of column ``j`` (of its first ``rows`` rows) start, and where
        they end (past the last byte)."""
        breaks = self.breaks if rows is None else self.breaks[: rows * self.width]
        ends = breaks[j :: self.width]
        if j:
            return breaks[j - 1 :: self.width] + 1, ends
        starts = np.empty_like(ends)
        starts[:1] = self.begin
        starts[1:] = breaks[self.width - 1 : -1 : self.width] + 1
        return starts, ends

    def row(self, i: int) -> list[str]:
        """The fields of row ``i`` (from 0)."""
        ends = self.breaks[i * self.width : (i + 1) * self.width].tolist()
        starts = [self.begin if i == 0 else int(self.breaks[i * self.width - 1]) + 1]
        starts += [end + 1 for end in ends[:-1]]
        return [self.data[s:e].decode("utf-8") for s, e in zip(starts, ends, strict=True)]

    def head(self, j: int, rows: int) -> list[str]:
        """The first ``rows`` fields of column ``j``."""
        starts, ends = self.spans(j, rows)
        data = self.data
        return [data[s:e].decode("utf-8") for s, e in zip(starts.tolist(), ends.tolist(),
                                                          strict=True)]  # fmt: skip

    def column(self, j: int) -> list[str]:
        """The fields of column ``j``, as strings."""
        return self.head(j, self.rows)

    def _matrix(self, starts: np.ndarray, lengths: np.ndarray, width: int) -> np.ndarray:
        """The first ``width`` bytes of each field, a row each (0 past its end)."""
        raw = np.frombuffer(self.data, np.uint8)
        if len(raw) < width:
            raw = np.frombuffer(self.data + b"\0" * width, np.uint8)
        last = len(raw) - width
        windows = np.lib.stride_tricks.as_strided(raw, (last + 1, width), (1, 1))
        out = windows[np.minimum(starts, last)]
        for i in np.flatnonzero(starts > last).tolist():  # (the fields in the last bytes)
            tail = self.data[starts[i] : starts[i] + lengths[i]]
            out[i] = np.frombuffer(tail.ljust(width, b"\0"), np.uint8)
        out[np.arange(width) >= lengths[:, None]] = 0
        return out

    def codes(self, j: int, vocabulary: Vocabulary) -> np.ndarray:
        """The codes of column ``j``'s ids in ``vocabulary``, as ``vocabulary.intern_many``
        gives them for `column` (`rankscope.read.frames.intern_distinct`): a column of
        decimal integers (no sign, no leading zero) by their values, else by their bytes."""
        starts, ends = self.spans(j)
        lengths = ends - starts
        widest = max(int(lengths.max()), 1)
        numbers = self._integers(starts, lengths, widest, ids=True)
        if numbers is not None:
            return intern_distinct(vocabulary, numbers, lambda distinct: [
                str(number) for number in distinct])  # fmt: skip
        if widest <= _PACKED:  # each id as one integer, its first byte the lowest
            keys = self._words(starts) & _LOW[lengths]  # its low ``lengths`` bytes
            return intern_distinct(vocabulary, keys, lambda distinct: [
                int(key).to_bytes(_PACKED, "little").rstrip(b"\0").decode("utf-8")
                for key in distinct])  # fmt: skip
        keys = self._matrix(starts, lengths, widest).view(f"S{widest}").reshape(-1)
        return intern_distinct(vocabulary, keys, lambda distinct: [
            key.decode("utf-8") for key in distinct])  # fmt: skip

    def numbers(self, j: int, field: Field) -> np.ndarray:
        """Column ``j`` as ``field``'s numbers (float64), as `Field.tokens` reads `column`,
        or its `InputError` naming the line of the first bad one.  Plain decimals (a sign,
        digits and, for a real, one decimal point; at most 15 digits) are read column-wise;
        a column holding anything else goes through `Field.tokens`."""
        starts, ends = self.spans(j)
        lengths = ends - starts
        widest = int(lengths.max())
        integers = self._integers(starts, lengths, widest, ids=False)
        if integers is not None:
            return integers.astype(np.float64)
        out = np.empty(len(starts), dtype=np.float64)
        plain = 0 < widest <= _DIGITS + 2  # (digits, a sign and a decimal point)
        for at in range(0, len(starts), _ROWS) if plain else ():
            size = lengths[at : at + _ROWS]
            matrix = self._matrix(starts[at : at + _ROWS], size, widest)
            signed, mantissa, count, dots, scale, ok = _scan(matrix, size)
            negative = signed & (matrix[:, 0] == ord("-"))
            if not (
                ok.all() and ((count >= 1) & (count <= _DIGITS)).all()
                and (dots <= (0 if field.integer else 1)).all()
                and not (field.non_negative and negative.any())
            ):  # fmt: skip
                plain = False
                break
            if field.integer:
                out[at : at + _ROWS] = np.where(negative, -mantissa, mantissa)
            else:
                values = mantissa.astype(np.float64) / _POWERS[scale]
                out[at : at + _ROWS] = np.where(negative, -values, values)
        if plain:
            return out
        return field.tokens(self.column(j), self.source, self.lines.tolist())

    def _integers(
        self, starts: np.ndarray, lengths: np.ndarray, widest: int, ids: bool
    ) -> np.ndarray | None:
        """The fields as integers (int64) when each is 1 to 16 digits and nothing else
        (``ids``: and no leading zero, so that ``str()`` gives the field back); else None.
        The common case, read eight bytes at a time: a field's last eight digits and the
        digits before them, each an integer of the bytes (`_eight_digits`)."""
        if not 0 < widest <= 2 * _PACKED:
            return None
        out = np.empty(len(starts), dtype=np.int64)
        for at in range(0, len(starts), _ROWS):
            start, size = starts[at : at + _ROWS], lengths[at : at + _ROWS]
            if not size.all():
                return None
            first = self._words(start)
            if ids and (((first & np.uint64(0xFF)) == ord("0")) & (size > 1)).any():
                return None
            if widest <= _PACKED:
                number, ok = _eight_digits(first, size)
            else:  # the digits before the last eight, and the last eight
                head = np.clip(size - _PACKED, 0, _PACKED)
                high, ok = _eight_digits(first, head)
                number, low_ok = _eight_digits(self._words(start + head), np.minimum(size, 8))
                number += high * np.uint64(10**_PACKED)
                ok &= low_ok
            if not ok.all():
                return None
            out[at : at + _ROWS] = number.view(np.int64)
        return out

    def _words(self, starts: np.ndarray) -> np.ndarray:
        """The eight bytes from each of ``starts`` (increasing) as an integer, the first
        byte lowest (bytes past the end of the text 0)."""
        data = self.data if len(self.data) >= _PACKED else self.data.ljust(_PACKED, b"\0")
        count = len(data) - _PACKED + 1
        inside = int(np.searchsorted(starts, count))  # (the others: in the last 7 bytes)
        out = np.empty(len(starts), dtype=np.uint64)
        out[:inside] = np.ndarray((count,), dtype="<u8", buffer=data, strides=(1,))[
            starts[:inside]]  # fmt: skip
        for i, at in enumerate(starts[inside:].tolist(), start=inside):
            out[i] = int.from_bytes(data[at : at + _PACKED], "little")
        return out

_ZEROS = np.uint64(0x3030303030303030)  # eight "0"
#: By length (0 to 8): the mask of that many low bytes of a 64-bit word, what moves them to
#: its top (a multiplier), and the "0"s put below them.
_LOW = np.asarray([(1 << 8 * n) - 1 for n in range(_PACKED + 1)], dtype=np.uint64)
_UP = np.asarray([1 << 8 * (_PACKED - n) if n else 0 for n in range(_PACKED + 1)],
                 dtype=np.uint64)  # fmt: skip
_FILL = np.asarray([0x3030303030303030 & ((1 << 8 * (_PACKED - n)) - 1)
                    for n in range(_PACKED + 1)], dtype=np.uint64)  # fmt: skip


def _eight_digits(words: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The number written by the first ``lengths`` (0 to 8) bytes of each of ``words`` (the
    first byte lowest; 0 for none), and whether those bytes are all ASCII digits: the bytes
    moved up and "0"s put before them, each byte checked (its high half 3, and still 3 with
    6 added), then digits paired, pairs paired and so on, by multiplying and shifting."""
    if lengths.min() == lengths.max():  # (one length: scalars)
        lengths = lengths[:1].reshape(())
    padded = (words & _LOW[lengths]) * _UP[lengths] | _FILL[lengths]
    high = np.uint64(0xF0F0F0F0F0F0F0F0)
    ok = ((padded & high) | (((padded + np.uint64(0x0606060606060606)) & high) >> np.uint64(4))
          ) == np.uint64(0x3333333333333333)  # fmt: skip
    x = padded - _ZEROS
    x = (x * np.uint64(10) + (x >> np.uint64(8))) & np.uint64(0x00FF00FF00FF00FF)
    x = (x * np.uint64(100) + (x >> np.uint64(16))) & np.uint64(0x0000FFFF0000FFFF)
    x = (x * np.uint64(10000) + (x >> np.uint64(32))) & np.uint64(0xFFFFFFFF)
    return x, ok


def _scan(
    matrix: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Of each field (``matrix``: its bytes, a row each, ``lengths`` of them): whether it
    starts with a sign, its digits as an integer (meaningless past 18 digits), how many
    digits and decimal points it has, how many digits follow its point, and whether it
    holds nothing else (a sign first, digits, points)."""
    columns = np.ascontiguousarray(matrix.T)
    signed = (columns[0] == ord("-")) | (columns[0] == ord("+"))
    mantissa = np.zeros(len(lengths), dtype=np.int64)
    count = np.zeros(len(lengths), dtype=np.int64)
    dots = np.zeros(len(lengths), dtype=np.int64)
    after = np.zeros(len(lengths), dtype=np.int64)
    ok = np.ones(len(lengths), dtype=bool)
    for k, byte in enumerate(columns):
        inside = lengths > k
        if k == 0:
            inside &= ~signed
        value = byte - np.uint8(ord("0"))
        digit = inside & (value < 10)
        dot = inside & (byte == ord("."))
        ok &= ~inside | digit | dot
        mantissa = np.where(digit, mantissa * 10 + value, mantissa)
        after += digit & (dots > 0)
        dots += dot
        count += digit
    return signed, mantissa, count, dots, after, ok
