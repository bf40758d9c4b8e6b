"""Tables whose columns are found by role: the one way the readers of delimited logs (shown
results, `rankscope.read.impressions`; a policy's probabilities, `rankscope.read.policy`; an
online experiment's units, `rankscope.read.experiments`) find their columns.

A reader declares a table of `Role`s — each column it knows, the header names that map it
(case ignored, in order of preference) and what it holds — and `locate` finds them in a
header, or among a frame's or a dict's column names, with ``columns={role: name}`` naming
any other; a required role without a column is an error telling how to name it
(``columns={'role': ...}`` in the API, ``--columns role=NAME`` on the command line).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from ..errors import InputError, UsageError
from ..model import Vocabulary
from . import delimited, frames
from .fields import Field, at_line, at_row


@dataclass(frozen=True)
class Role:
    """A column of a table: the header names that map it (lower case, in order of
    preference) and what it holds: ``id`` (interned), ``number`` (``field``'s grammar),
    ``click`` (a number, or ``true``/``false``) or ``team`` (``a``, ``b``, empty)."""

    names: tuple[str, ...]
    kind: str
    field: Field | None = None


def check_roles(roles: Mapping[str, Role], given: Sequence[str], what: str) -> None:
    """A `UsageError` when ``given`` (the roles of ``columns=`` and ``require=``) names a
    role that is not one of ``roles``."""
    unknown = sorted(set(given) - set(roles))
    if unknown:
        raise UsageError(
            f"unknown {what} column role(s) {', '.join(map(repr, unknown))}: the roles are "
            f"{', '.join(roles)}"
        )


def locate(
    names: Sequence[str],
    roles: Mapping[str, Role],
    *,
    source: str,
    header: bool,
    columns: Mapping[str, str] | None = None,
    require: Sequence[str] = (),
    label: Callable[[str], str] = lambda role: role.replace("_", " "),
) -> dict[str, int]:
    """role -> index into ``names`` (a text file's header when ``header``, else a frame's or
    a dict's column names), for the roles present.  ``columns`` names a role's column
    explicitly (a header matches it case-insensitively, a frame exactly); a role it names
    must be there.  A role of ``require`` without a column is an `InputError`; ``label``
    words a role in messages."""
    given = dict(columns or {})
    found: dict[str, int] = {}
    for role, spec in roles.items():
        if role in given:
            wanted = given[role]
            at = delimited.find(names, [wanted.lower()]) if header else None
            if not header and wanted in names:
                at = list(names).index(wanted)
            if at is None:
                raise InputError(
                    f"{source}: no column {wanted!r} for {role} (columns: "
                    f"{', '.join(map(repr, names))})"
                )
            found[role] = at
            continue
        at = delimited.find(names, spec.names)
        if at is not None:
            found[role] = at
        elif role in require:
            listed = ", ".join(names) if header else ", ".join(map(repr, names))
            missing = f"{source}: no {label(role)} column " + (
                f"in the header ({listed})" if header else f"(columns are {listed})"
            )
            raise InputError(
                f"{missing}; name it with columns={{'{role}': ...}}",
                cli=f"{missing}; name it with --columns {role}=NAME",
            )
    return found


def known_names(roles: Mapping[str, Role], columns: Mapping[str, str] | None = None) -> list[str]:
    """Every header name ``roles`` recognise, and those ``columns`` gives (lower case): a
    first line holding one of them is a header."""
    return [n for spec in roles.values() for n in spec.names] + [
        name.lower() for name in (columns or {}).values()
    ]


def header_columns(
    path: Any,
    roles: Mapping[str, Role],
    *,
    columns: Mapping[str, str] | None = None,
    min_fields: int,
    what: str,
    expected: str,
) -> tuple[str, list[str], list[list[str]], list[int]]:
    """(source, header, the fields of each column, the line number of each row) of a
    delimited text file whose first line must be a header naming at least one column of
    ``roles`` (or of ``columns``); without one, an `InputError` asking for it
    (``expected``: the columns to name, in words).  A plain file is split column-wise
    (`rankscope.read.delimited.columns`, several times faster on millions of lines), any
    other line by line, with its errors by line."""
    known = known_names(roles, columns)

    def is_header(first: list[str], second: list[str] | None) -> bool:
        return delimited.find(first, known) is not None

    data = delimited.load(path)
    plain = delimited.columns(data[0], is_header)
    if plain is not None:
        header, fields, first = plain
        if header is not None and len(header) >= min_fields:
            return data[1], header, fields, list(range(first, first + len(fields[0])))
    source, found, rows, _ = delimited.rows(
        path, min_fields=min_fields, what=what, is_header=is_header, data=data
    )  # fmt: skip
    if found is None:
        raise InputError(f"{source}: no header line; name the columns ({expected}) in the first "
                         "line")  # fmt: skip
    fields = [[row[j] if j < len(row) else "" for _, row in rows] for j in range(len(found))]
    return source, found, fields, [n for n, _ in rows]


class Columns:
    """The columns of one input of a log reader, by name — a delimited text's fields
    (``lines``: the line of each row) or a frame's or a dict's arrays (``lines`` None) —
    with the one way they become numbers or codes, and where each row came from (``file:
    line`` or ``source: row``) for the reader's messages."""

    def __init__(self, table: Mapping[str, Any], source: str, lines: np.ndarray | None) -> None:
        self.table, self.source, self.lines = table, source, lines
        self.line_list = None if lines is None else lines.tolist()
        self.rows = len(next(iter(table.values()))) if table else 0

    def where(self, row: int) -> str:
        if self.line_list is not None:
            return at_line(self.source, self.line_list[row])
        return at_row(self.source, row)

    def numbers(self, name: str, field: Field) -> np.ndarray:
        """Column ``name`` as ``field``'s numbers: float64, int64 for an integer field (each
        text token parsed exactly), or the `InputError` naming the first bad one."""
        values = self.table[name]
        if self.line_list is None:
            return field.values(np.asarray(values), self.source)
        if field.integer:
            return np.asarray([field.parse(t, self.source, k)
                               for t, k in zip(values, self.line_list, strict=True)],
                              dtype=np.int64)  # fmt: skip
        return field.tokens(values, self.source, self.line_list)

    def codes(self, name: str, vocabulary: Vocabulary, what: str) -> np.ndarray:
        """The codes of column ``name``'s ids (``what``, in messages) in ``vocabulary``."""
        values = self.table[name]
        if self.line_list is not None:
            return vocabulary.intern_many(list(values))
        return frames.intern_ids(vocabulary, np.asarray(values), self.source, what)

    def timestamps(self, name: str, field: Field) -> np.ndarray:
        """Column ``name`` as seconds: ``field``'s numbers, else ISO 8601 date-times
        (`datetimes`; the Open Bandit Dataset's), else the numbers' error."""
        try:
            return self.numbers(name, field)
        except InputError:
            stamps = datetimes(self.table[name])
            if stamps is None:
                raise
            return stamps


def datetimes(values: Any) -> np.ndarray | None:
    """Seconds since 1970-01-01 UTC of a column of ISO 8601 date-times (a date-time without
    a zone taken as UTC), or None when any value is not one."""
    array = np.asarray(values)
    if array.dtype.kind == "M":
        return array.astype("datetime64[us]").astype(np.int64) / 1e6
    out = np.empty(len(array), dtype=np.float64)
    for i, value in enumerate(array.tolist()):
        if isinstance(value, datetime):
            stamp = value
        else:
            try:
                stamp = datetime.fromisoformat(str(value).strip())
            except ValueError:
                return None
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=UTC)
        out[i] = stamp.timestamp()
    return out


def first_line_names(path: Any, names: Sequence[str]) -> bool:
    """Whether ``path`` is a delimited text file whose first content line holds one of
    ``names`` (a header naming that column); False for anything else (Parquet, not a
    file, unreadable, empty)."""
    if not isinstance(path, str | os.PathLike) or str(path).endswith((".parquet", ".pq")):
        return False
    try:
        data, _ = delimited.load(path)
    except (InputError, OSError):
        return False
    first = next((text for _, text in delimited.content(delimited.lines(data[:65536]))), None)
    if first is None:
        return False
    try:
        fields = delimited.split(first, delimited.separator(first))
    except csv.Error:  # not a header; the reader says what is wrong with the line
        return False
    return delimited.find(fields, names) is not None


__all__ = [
    "Columns", "Role", "check_roles", "datetimes", "first_line_names", "header_columns",
    "known_names", "locate",
]  # fmt: skip
