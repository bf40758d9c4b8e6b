"""The syntax of a field, the same for every reader, and the error that names a bad one.

Every number rankscope reads — in TREC files (the compiled scanner, ``model/_trecio.c``,
implements the same grammar), trec_eval's other formats, interaction logs, recommendation
lists, item features, DataFrames and dicts — follows one grammar::

    integer := [+-]? [0-9]{1,18}                                    grades, subtopics, ranks
    real    := [+-]? ([0-9]+ [.]? [0-9]* | [.] [0-9]+) ([eE] [+-]? [0-9]+)?   finite

(ranks and document lengths also not negative).  Text formats split fields at blanks, or
trim them around a delimiter, so a field holds none.

ASCII digits only.  Rejected, whatever Python's ``float()`` or ``int()`` would make of them:
digit separators (``1_000``), decimal commas (``1,5``), hexadecimal (``0x10``), digits of
other scripts (``١``), blanks (in a frame's string), empty fields, ``nan`` and ``inf`` (and
reals that overflow to infinity, ``1e400``), integers with more than 18 digits.  A real that
underflows (``1e-400``) reads as 0, as C's ``strtod`` has it.  Values that are already
numbers (in frames and dicts: ``int``, ``float``, numpy) need only be finite, and whole and
within 18 digits for an integer field; strings among them follow the grammar.

A bad value is an `InputError` shaped ``{source}:{line}: {field} {token!r} {problem}`` for
text and ``{source}: row {row}: {field} {value} {problem}`` for frames and dicts (rows
count from 0), e.g. ``run.txt:12: score '1,5' is not a number``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from ..errors import InputError, warn
from ..model import Vocabulary

_K = TypeVar("_K")
_V = TypeVar("_V")

INTEGER_DIGITS = 18
INTEGER_LIMIT = 10**INTEGER_DIGITS  # |integer| < INTEGER_LIMIT

_REAL = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"  # no nested repeats: linear
_NONFINITE = r"[+-]?(?:inf|infinity|nan)"
_NAN = r"[+-]?nan"
_INTEGER = r"[+-]?[0-9]+"


class _Compiled(dict[_K, _V]):
    """Values made on first lookup, by ``make(key)``, then kept: the patterns below, which
    the compiled reader never needs (compiling them took ``rankscope eval`` ~1.5 ms at every
    start); a lookup once made is a plain dict's."""

    def __init__(self, make: Callable[[_K], _V]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, key: _K) -> _V:
        value = self[key] = self._make(key)
        return value


def _text(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.ASCII | re.IGNORECASE)


def _binary(pattern: str) -> re.Pattern[bytes]:
    return re.compile(pattern.encode(), re.IGNORECASE)


# _PATTERNS[kind] -> the kind's pattern for text, for bytes
_SYNTAX = {"real": _REAL, "nonfinite": _NONFINITE, "nan": _NAN, "int": _INTEGER}
_PATTERNS: _Compiled[str, tuple[re.Pattern[str], re.Pattern[bytes]]] = _Compiled(
    lambda kind: (_text(_SYNTAX[kind]), _binary(_SYNTAX[kind]))
)
_NUMBER_CHARS = b"0123456789+-.eE"
# The accepted tokens at once (the integer's digit limit included), for the common case:
# _VALID[integer field?, str token?](token)
_ACCEPTED = {True: r"[+-]?[0-9]{1,18}", False: _REAL}
_VALID: _Compiled[tuple[bool, bool], Callable[[Any], re.Match | None]] = _Compiled(
    lambda key: (_text if key[1] else _binary)(_ACCEPTED[key[0]]).fullmatch
)

# Problems, the end of every message.
NOT_A_NUMBER = "is not a number"
NOT_AN_INTEGER = "is not an integer"
NOT_FINITE = "is not finite"
OUT_OF_RANGE = "is out of range"
MISSING = "is missing"
# Older wordings that existing tests pin for some readers (tests/test_recsys.py,
# tests/test_io.py::test_dict_values_are_validated, tests/test_trec_prefs.py); the fields
# that use them say so.  One wording (NOT_FINITE) once those assertions are updated.
PINNED_NOT_A_FINITE_NUMBER = "is not a finite number"


def vocabularies(
    queries: Vocabulary | None, docs: Vocabulary | None
) -> tuple[Vocabulary, Vocabulary]:
    """The vocabularies a reader interns ids into: those given (shared with what it is
    joined with), or new ones."""
    return (Vocabulary() if queries is None else queries), (Vocabulary() if docs is None else docs)


def keyed(rows: Iterable[tuple[str, str, _V]], twice: str, none: str) -> dict[str, _V]:
    """``{key: value}`` of ``rows`` (where, key, value), in order, for a file that gives
    each id one value (topic titles, document lengths): a key given again is an
    `InputError` at its ``where`` saying ``twice`` (formatted with the key), no row at all
    the `InputError` ``none`` (an empty file named on purpose is a mistake)."""
    out: dict[str, _V] = {}
    for where, key, value in rows:
        if key in out:
            raise InputError(f"{where}: {twice.format(key)}")
        out[key] = value
    if not out:
        raise InputError(none)
    return out


def decode(token: bytes) -> str:
    """A field's text as rankscope shows and interns it (undecodable bytes kept)."""
    return token.decode("utf-8", "surrogateescape")


def at_line(source: str, line: int) -> str:
    return f"{source}:{line}"


def at_row(source: str, row: int) -> str:
    return f"{source}: row {row}"


#: The longest excerpt of a bad token or line a message quotes (a 10-million-digit score is
#: not echoed whole).
EXCERPT = 60


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """``repr(text)``, its middle elided past ``limit`` characters, with the full length."""
    if len(text) <= limit:
        return repr(text)
    head, tail = text[: limit * 2 // 3], text[-(limit // 3) :]
    return f"{head!r}…{tail!r} ({len(text):,} characters)"


def _shown(value: object) -> str:
    if isinstance(value, bytes):
        return excerpt(decode(value))
    if isinstance(value, np.generic):
        value = value.item()
    return excerpt(value) if isinstance(value, str) else repr(value)


@dataclass(frozen=True)
class Field:
    """A numeric field: its name in messages and the numbers it takes.

    ``integer``: the integer grammar (else real); ``non_negative``: no value below 0.
    ``not_finite``, ``nan`` and ``not_a_number`` (an integer field's token that is no number
    at all) only reword the problem for fields whose tests pin an older wording (see
    `PINNED_NOT_A_FINITE_NUMBER`); they change nothing of what is accepted.
    """

    name: str
    integer: bool = False
    non_negative: bool = False
    not_finite: str = NOT_FINITE
    nan: str | None = None
    not_a_number: str | None = None

    # -- messages --------------------------------------------------------------------------

    @property
    def syntax(self) -> str:
        """The problem of a token outside the grammar."""
        if self.non_negative:
            return f"is not a non-negative {'integer' if self.integer else 'number'}"
        return NOT_AN_INTEGER if self.integer else NOT_A_NUMBER

    def error(self, where: str, value: object, problem: str) -> InputError:
        """``{where}: {name} {value!r} {problem}`` (no value shown for a missing one)."""
        if problem == MISSING:
            return InputError(f"{where}: {self.name} {MISSING}")
        return InputError(f"{where}: {self.name} {_shown(value)} {problem}")

    def _nonfinite(self, value: object) -> str:
        if self.integer:
            return self.syntax
        if self.nan is not None and _is_nan(value):
            return self.nan
        return self.not_finite

    # -- one token -------------------------------------------------------------------------

    def problem(self, token: bytes | str) -> str | None:
        """Why ``token`` is not a value of this field; None if it is one."""
        try:
            self.value(token)
        except _Bad as bad:
            return bad.problem
        return None

    def value(self, token: bytes | str) -> int | float:
        """The number a text token stands for; `_Bad` (with the problem) if none."""
        if self.integer:
            if not _matches("int", token):
                if self.not_a_number and not _matches("real", token):
                    raise _Bad(self.not_a_number)
                raise _Bad(self.syntax)
            if len(token) - (token[:1] in ("+", "-", b"+", b"-")) > INTEGER_DIGITS:
                raise _Bad(OUT_OF_RANGE)
            number: int | float = int(token)
        else:
            if not _matches("real", token):
                nonfinite = _matches("nonfinite", token)
                raise _Bad(self._nonfinite(token) if nonfinite else self.syntax)
            number = float(token)
            if not math.isfinite(number):
                raise _Bad(self.not_finite)
        if self.non_negative and number < 0:
            raise _Bad(self.syntax)
        return number

    def parse(self, token: bytes | str, source: str, line: int) -> int | float:
        """The number of a text token at ``source:line``, or `InputError` naming both."""
        if not self.non_negative and _VALID[self.integer, isinstance(token, str)](token):
            if self.integer:
                return int(token)
            number = float(token)
            if math.isfinite(number):
                return number
        try:
            return self.value(token)
        except _Bad as bad:
            raise self.error(at_line(source, line), token, bad.problem) from None

    # -- columns ---------------------------------------------------------------------------

    def tokens(self, tokens: Sequence[str], source: str, lines: Sequence[int]) -> np.ndarray:
        """A column of text tokens (``lines[i]`` the line of ``tokens[i]``) as float64, or
        `InputError` naming the first bad one; column-wise when every token is valid."""
        out = self.fast_tokens(tokens)
        if out is not None:
            return out
        return np.asarray(
            [self.parse(t, source, n) for t, n in zip(tokens, lines, strict=True)],
            dtype=np.float64,
        )

    def fast_tokens(self, tokens: Sequence[str]) -> np.ndarray | None:
        """The column's values when every token is valid, computed column-wise (no regular
        expression per token); None when any token may not be, and the caller goes token
        by token to find and report it."""
        if self.integer or not tokens:
            return None
        joined = "".join(tokens)
        # Python's float() grammar restricted to these characters is `real` exactly; the
        # characters it takes beyond (_, blanks, letters, other digits) are what it adds.
        if not joined.isascii() or joined.encode().translate(None, _NUMBER_CHARS):
            return None
        try:
            out = np.asarray(tokens, dtype=np.float64)
        except ValueError:
            return None
        if not np.isfinite(out).all() or (self.non_negative and (out < 0).any()):
            return None
        return out

    def values(self, values: np.ndarray, source: str) -> np.ndarray:
        """A frame's or dict's column (numbers, or strings following the grammar) as float64
        (int64 for an integer field), or `InputError` naming the row (from 0) of the first
        bad value; column-wise when every value is valid."""
        values = np.asarray(values)
        numbers = _as_numbers(values)
        if numbers is None and values.dtype.kind in "OUS" and not self.integer:
            listed = values.tolist()
            if all(isinstance(v, str) for v in listed):
                numbers = self.fast_tokens(listed)
        if numbers is not None:
            bad = self._bad_numbers(numbers)
            if not bad.any():
                return numbers.astype(np.int64) if self.integer else numbers.astype(np.float64)
        out = [self._one_value(v, source, row) for row, v in enumerate(values.tolist())]
        return np.asarray(out, dtype=np.int64 if self.integer else np.float64)

    def _bad_numbers(self, numbers: np.ndarray) -> np.ndarray:
        if numbers.dtype.kind in "biu":
            bad = np.zeros(len(numbers), dtype=bool)
            if self.integer and numbers.dtype.kind != "b":
                bad |= (numbers >= INTEGER_LIMIT) | (numbers <= -INTEGER_LIMIT)
        else:
            bad = ~np.isfinite(numbers)
            if self.integer:
                with np.errstate(invalid="ignore"):
                    bad |= (numbers != np.floor(numbers)) | (np.abs(numbers) >= INTEGER_LIMIT)
        if self.non_negative:
            with np.errstate(invalid="ignore"):
                bad |= numbers < 0
        return bad

    def _one_value(self, value: object, source: str, row: int) -> int | float:
        where = at_row(source, row)
        if value is None or type(value).__name__ in ("NAType", "NaTType"):
            raise self.error(where, value, MISSING)
        if isinstance(value, str | bytes):
            try:
                return self.value(value)
            except _Bad as bad:
                raise self.error(where, value, bad.problem) from None
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, bool | int):
            number: int | float = int(value)
            if self.integer and abs(number) >= INTEGER_LIMIT:
                raise self.error(where, value, OUT_OF_RANGE)
        else:
            try:
                number = float(value)  # type: ignore[arg-type]
            except (TypeError, ValueError, OverflowError):
                raise self.error(where, value, self.syntax) from None
            if not math.isfinite(number):
                raise self.error(where, value, self._nonfinite(value))
            if self.integer:
                if number != math.floor(number):
                    raise self.error(where, value, NOT_AN_INTEGER)
                if abs(number) >= INTEGER_LIMIT:
                    raise self.error(where, value, OUT_OF_RANGE)
                number = int(number)
        if self.non_negative and number < 0:
            raise self.error(where, value, self.syntax)
        return number


class _Bad(Exception):
    def __init__(self, problem: str) -> None:
        self.problem = problem


def _matches(kind: str, token: bytes | str) -> bool:
    text, binary = _PATTERNS[kind]
    if isinstance(token, str):
        return text.fullmatch(token) is not None
    return binary.fullmatch(token) is not None


def _is_nan(value: object) -> bool:
    if isinstance(value, str | bytes):
        return _matches("nan", value)
    try:
        return math.isnan(value)  # type: ignore[arg-type]
    except TypeError:
        return False


def _as_numbers(values: np.ndarray) -> np.ndarray | None:
    """The column as a numeric numpy array when every value is already a number (no
    strings, no missing values); None otherwise."""
    if values.dtype.kind in "biuf":
        return values
    if values.dtype.kind != "O":
        return None
    listed = values.tolist()
    if not listed:
        return np.zeros(0)
    try:
        inferred = np.asarray(listed)
    except (ValueError, TypeError, OverflowError):
        return None
    return inferred if inferred.dtype.kind in "biuf" else None


def looks_numeric(token: str) -> bool:
    """Whether ``token`` is meant as a number, valid or not (``1_000``, ``1,5``, ``nan``,
    `` 1e3``).  Decides a file's layout (is the first line a header, which columns hold
    numbers); the strict grammar then reports the invalid ones instead of their column being
    taken for text."""
    try:
        float(token.replace("_", "").replace(",", "."))
    except ValueError:
        return False
    return True


def content_lines(
    data: bytes, source: str, count: int, at_least: bool = False, layout: str = ""
) -> Iterator[tuple[int, list[bytes]]]:
    """(line number, fields) of each line holding data, with ``count`` fields (at least,
    with ``at_least``) or `InputError`: fields are separated by runs of ASCII blanks (space,
    tab, CR, VT, FF); blank lines and lines whose first non-blank character is ``#`` are
    skipped (a ``#`` elsewhere belongs to its field).  The text is checked by `text_start`
    and a line holding a NUL byte is an error (`nul_error`), in line order with the others."""
    start = text_start(data, source)
    if start:
        data = data[start:]
    nul = nul_line(data)
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if number == nul:
            raise nul_error(source, number)
        fields = raw.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if (len(fields) < count) if at_least else (len(fields) != count):
            expected = f"at least {count}" if at_least else str(count)
            raise field_count_error(source, number, expected, len(fields), raw, layout)
        yield number, fields


def field_count_error(
    source: str, line: int, expected: str, found: int, text: bytes | str, layout: str = ""
) -> InputError:
    """``{source}:{line}: expected {expected} fields[ ({layout})], found {found}: {text!r}``."""
    shown = decode(text.strip()) if isinstance(text, bytes) else text.strip()
    what = f" ({layout})" if layout else ""
    return InputError(
        f"{at_line(source, line)}: expected {expected} fields{what}, found {found}: "
        f"{excerpt(shown)}"
        + ("" if layout else _swapped_hint(expected, found))
    )


#: The TREC layouts, and what a line of the other one means: the judgments and the run were
#: probably given in the wrong order.
_QRELS_LAYOUT = "qid iter docno grade"
_RUN_LAYOUT = "qid Q0 docno rank score tag"


def _swapped_hint(expected: str, found: int) -> str:
    """A hint when a TREC qrels line has a run's 6 fields, or a run line a qrels' 4."""
    if expected == "4" and found == 6:
        this, other = f"a run ({_RUN_LAYOUT})", f"judgments ({_QRELS_LAYOUT})"
    elif expected == "at least 6" and found == 4:
        this, other = f"judgments ({_QRELS_LAYOUT})", f"a run ({_RUN_LAYOUT})"
    else:
        return ""
    return (
        f"; this looks like {this}, not {other}: are the arguments swapped? "
        "The judgments come first, then the runs"
    )


# -- the bytes of a text file ----------------------------------------------------------------
# Every reader of text (the TREC readers, compiled and pure-Python, the other judgment
# formats, logs) applies these, so that they accept and reject the same bytes.

UTF8_BOM = b"\xef\xbb\xbf"


def text_start(data: bytes | bytearray | memoryview, source: str) -> int:
    """Where the text of a file starting with ``data`` begins: 3 past a UTF-8 byte-order
    mark (skipped with a warning, or it would become part of the first query id), else 0.

    Old-Mac line endings (CR alone) are an `InputError`: the whole file would read as one
    line.  They are recognised on the first line (the bytes up to the first LF): a CR
    followed by more text on it.  CRLF is fine (CR is a blank)."""
    start = 0
    if bytes(data[:3]) == UTF8_BOM:
        warn(f"{source}: starts with a UTF-8 byte-order mark (BOM): ignored")
        start = 3
    with memoryview(data) as view:
        head = bytes(view[start : start + 65536])
        newline = head.find(b"\n")
        if newline < 0:  # a first line longer than the head: look at all of it
            head = bytes(view[start:])
            newline = head.find(b"\n")
    end = newline if newline >= 0 else len(head)
    cr = head.find(b"\r", 0, end)
    if cr >= 0 and head[cr + 1 : end].strip():
        raise InputError(
            f"{source}: the line endings are CR-only (old Mac): the file would read as one "
            "line; convert them to LF (or CRLF), e.g. with `tr '\\r' '\\n'`"
        )
    return start


def nul_line(data: bytes) -> int:
    """The number of the first line of ``data`` holding a NUL byte; 0 if none."""
    nul = data.find(b"\0")
    return 0 if nul < 0 else data.count(b"\n", 0, nul) + 1


def nul_error(source: str, line: int) -> InputError:
    """A NUL byte in a line: no text format allows one (trec_eval refuses it too), and kept
    it would make a different id of the field (a binary or UTF-16 file?)."""
    return InputError(
        f"{at_line(source, line)}: holds a NUL byte (\\x00): not a text line "
        "(a binary or UTF-16 file?)"
    )
