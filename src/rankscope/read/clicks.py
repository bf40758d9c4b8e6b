"""Click logs from delimited text files, DataFrames (pandas, polars, Arrow) and Parquet.

A click log has one row per result shown to a user: ``session query position doc clicked``,
then optionally ``timestamp`` and the id of the shown ranking (``ranking``).  Text files
(``.gz`` and ``-`` accepted) are separated by tabs, commas, semicolons or runs of spaces;
a first line naming the columns (``session``, ``query``, ``position``, ``doc``,
``clicked``, ``timestamp``, ``ranking`` and their common variants: `COLUMN_NAMES`) maps
them, otherwise they are in that order.  Lines starting with ``#`` and blank lines are
skipped.  Every text file is checked as the other readers check theirs (a byte-order mark
skipped with a warning, CR-only line endings and NUL bytes are errors).

Checks, each an `InputError` naming the file and line (the row, counted from 0, for frames):

* a line with fewer than five fields, or (delimited) not as many as the header or first line;
* ``position`` not an integer >= 1; ``clicked`` not ``0``/``1``/``true``/``false``;
  ``timestamp`` not a finite number;
* a position listed twice in one session (both lines named);
* a session whose positions do not run 1, 2, ..., n (a gap: the first missing position);
* a document shown twice in one session (both lines named);
* a session listed under two queries, or two shown-ranking ids (both lines named);
* no rows at all.

Rows of a session need not be adjacent or in position order: the log is ordered by
session (in order of first appearance), then position.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import InputError, UsageError
from ..model import ClickLog, Vocabulary
from ..model.frames import column_names, is_frame
from . import delimited, frames
from .fields import PINNED_NOT_A_FINITE_NUMBER, Field, at_line, at_row, excerpt

POSITION = Field("position", integer=True)
TIMESTAMP = Field("timestamp", not_finite=PINNED_NOT_A_FINITE_NUMBER)

#: The columns of a click log, in their headerless order, and the header names that map
#: each (case-insensitive).  The first five are required.
COLUMN_NAMES: dict[str, tuple[str, ...]] = {
    "session": ("session", "session_id", "sessionid", "sid"),
    "query": ("query", "query_id", "queryid", "qid"),
    "position": ("position", "pos", "rank"),
    "doc": ("doc", "doc_id", "docid", "docno", "document", "url", "item"),
    "clicked": ("clicked", "click", "clicks"),
    "timestamp": ("timestamp", "time", "ts"),
    "ranking": ("ranking", "ranking_id", "shown_ranking", "list_id", "impression"),
}
REQUIRED = ("session", "query", "position", "doc", "clicked")
_TRUE = ("1", "true")
_FALSE = ("0", "false")


def read_clicks(source: Any, *, columns: Mapping[str, str] | None = None) -> ClickLog:
    """A click log from a text file (``.gz``, ``-``), a Parquet file, a pandas/polars
    DataFrame or Arrow table (or a `ClickLog`, returned as is).

    ``columns`` names the columns when the header or frame uses other names than
    `COLUMN_NAMES` knows: ``{"session": "sess", "doc": "url", ...}``.  The checks are listed
    in this module's docstring.
    """
    if isinstance(source, ClickLog):
        return source
    if columns is not None:
        unknown = sorted(set(columns) - set(COLUMN_NAMES))
        if unknown:
            raise UsageError(
                f"unknown click-log column role(s) {', '.join(map(repr, unknown))}: the roles "
                f"are {', '.join(COLUMN_NAMES)}"
            )
    if is_frame(source):
        return _from_frame(source, columns, "<click log frame>")
    if isinstance(source, str | os.PathLike) and str(source).endswith((".parquet", ".pq")):
        return _from_frame(frames.read_parquet(source), columns, str(source))
    if not isinstance(source, str | os.PathLike):
        raise UsageError(
            f"cannot read a click log from {type(source).__name__}: give a file, a Parquet "
            "file or a DataFrame"
        )
    return _from_text(source, columns)


# -- text files ------------------------------------------------------------------------------


def _from_text(path: str | os.PathLike, columns: Mapping[str, str] | None) -> ClickLog:
    data, source = delimited.load(path)
    content = delimited.content(delimited.lines(data))
    if not content:
        raise InputError(f"{source}: no clicks found (an empty click log)")
    sep = delimited.separator(content[0][1])
    rows = [(n, delimited.split(s, sep)) for n, s in content]
    header = None
    first = rows[0][1]
    if delimited.find(first, [n for names in COLUMN_NAMES.values() for n in names]) is not None or (
        len(first) > 2 and POSITION.problem(first[2]) is not None
    ):
        header = rows.pop(0)[1]
        if not rows:
            raise InputError(f"{source}: no clicks found after the header")
    width = len(header) if header is not None else len(rows[0][1])
    at = _positions(header, columns, source, width)
    for n, fields in rows:
        if len(fields) < len(REQUIRED):
            raise InputError(
                f"{at_line(source, n)}: expected at least 5 fields (session query position "
                f"doc clicked), found {len(fields)}: {excerpt(' '.join(fields))}"
            )
        if len(fields) != width and sep is not None:
            raise delimited.width_error(
                source, n, fields, width, sep, header is not None, rows[0][0]
            )
    lines = np.asarray([n for n, _ in rows], dtype=np.int64)

    def column(role: str) -> list[str] | None:
        j = at.get(role)
        if j is None:
            return None
        out = []
        for n, f in rows:
            if len(f) <= j:
                raise InputError(f"{at_line(source, n)}: {role} is missing")
            out.append(f[j])
        return out

    def where(i: int) -> str:
        return at_line(source, int(lines[i]))

    tokens = column("position") or []
    position = np.asarray(
        [POSITION.parse(t, source, n) for t, n in zip(tokens, lines.tolist(), strict=True)],
        dtype=np.int64,
    )
    clicked = _clicks(column("clicked") or [], where)
    stamps = column("timestamp")
    timestamp = None if stamps is None else TIMESTAMP.tokens(stamps, source, lines.tolist())
    return click_log(
        column("session") or [], column("query") or [], position, column("doc") or [],
        clicked, timestamp, column("ranking"), source=source, lines=lines, where=where,
    )  # fmt: skip


def _positions(
    header: list[str] | None, columns: Mapping[str, str] | None, source: str, width: int
) -> dict[str, int | None]:
    """Where each role's field is in a line (None: the log has no such column)."""
    roles = list(COLUMN_NAMES)
    if header is None:
        if columns:
            raise UsageError(f"{source}: columns= names header columns, and it has no header")
        return {role: (j if j < width else None) for j, role in enumerate(roles)}
    out: dict[str, int | None] = {}
    for role in roles:
        wanted = [columns[role].lower()] if columns and role in columns else COLUMN_NAMES[role]
        out[role] = delimited.find(header, wanted)
        if out[role] is None and role in REQUIRED:
            raise InputError(
                f"{source}: no {role} column in the header ({', '.join(header)}); name it "
                f"with columns={{'{role}': ...}}"
            )
    return out


def _clicks(tokens: Sequence[Any], where: Callable[[int], str]) -> np.ndarray:
    out = np.empty(len(tokens), dtype=bool)
    for i, t in enumerate(tokens):
        if isinstance(t, bool | np.bool_):
            out[i] = bool(t)
            continue
        if isinstance(t, int | np.integer) or (isinstance(t, float) and math.isfinite(t)):
            if t in (0, 1):
                out[i] = t == 1
                continue
        s = t.strip().lower() if isinstance(t, str) else None
        if s in _TRUE or s in _FALSE:
            out[i] = s in _TRUE
            continue
        shown = excerpt(t) if isinstance(t, str) else repr(t)
        raise InputError(f"{where(i)}: clicked {shown} is not 0, 1, true or false")
    return out


# -- frames ----------------------------------------------------------------------------------


def _from_frame(frame: Any, columns: Mapping[str, str] | None, source: str) -> ClickLog:
    available = column_names(frame)
    names: dict[str, str] = {}
    for role, candidates in COLUMN_NAMES.items():
        if columns and role in columns:
            if columns[role] not in available:
                raise InputError(f"{source}: no column {columns[role]!r}")
            names[role] = columns[role]
            continue
        lowered = {c.lower(): c for c in available}
        found = next((lowered[c] for c in candidates if c in lowered), None)
        if found is not None:
            names[role] = found
        elif role in REQUIRED:
            raise InputError(
                f"{source}: no {role} column (columns are {', '.join(map(repr, available))}); "
                f"name it with columns={{'{role}': ...}}"
            )
    arrays = frames.frame_columns(frame, list(names.values()), source)
    values = dict(zip(names, arrays, strict=True))

    def where(i: int) -> str:
        return at_row(source, i)

    position = POSITION.values(values["position"], source)
    clicked = _clicks(values["clicked"].tolist(), where)
    timestamp = TIMESTAMP.values(values["timestamp"], source) if "timestamp" in values else None
    ids = {
        role: frames.id_strings(values[role], source, f"{role} id")
        for role in ("session", "query", "doc", "ranking")
        if role in values
    }
    return click_log(
        ids["session"], ids["query"], position, ids["doc"], clicked, timestamp,
        ids.get("ranking"), source=source, lines=np.arange(len(position), dtype=np.int64),
        where=where,
    )  # fmt: skip


# -- the checks ------------------------------------------------------------------------------


def click_log(
    session: Sequence[str],
    query: Sequence[str],
    position: np.ndarray,
    doc: Sequence[str],
    clicked: np.ndarray,
    timestamp: np.ndarray | None = None,
    ranking: Sequence[str] | None = None,
    *,
    source: str = "<click log>",
    lines: np.ndarray | None = None,
    where: Callable[[int], str] | None = None,
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
) -> ClickLog:
    """A `ClickLog` from its columns (row ``i`` at ``where(i)`` in messages), checked as
    this module's docstring says and ordered by session, then position."""
    if len(position) == 0:
        raise InputError(f"{source}: no clicks found (an empty click log)")
    if where is None:
        where = lambda i: at_row(source, i)  # noqa: E731
    position = np.asarray(position, dtype=np.int64)
    low = np.flatnonzero(position < 1)
    if len(low):
        i = int(low[0])
        raise InputError(f"{where(i)}: position {int(position[i])} is not 1 or more")
    sessions = Vocabulary()
    queries = Vocabulary() if queries is None else queries
    docs = Vocabulary() if docs is None else docs
    s = sessions.intern_many(list(session))
    q = queries.intern_many(list(query))
    d = docs.intern_many(list(doc))
    rankings = None if ranking is None else Vocabulary()
    r = None if ranking is None or rankings is None else rankings.intern_many(list(ranking))
    order = np.lexsort((position, s))
    ss, pos = s[order], position[order]
    same = ss[1:] == ss[:-1]

    def both(k: int) -> str:
        a, b = sorted((int(order[k]), int(order[k + 1])))
        return f"{where(a)} and {where(b)}"

    def sid(k: int) -> str:
        return excerpt(sessions.strings_of(ss[k : k + 1])[0])

    twice = np.flatnonzero(same & (pos[1:] == pos[:-1]))
    if len(twice):
        k = int(twice[0])
        raise InputError(f"{both(k)}: position {int(pos[k])} is listed twice in session {sid(k)}")
    for name, codes in (("query", q), ("shown ranking", r)):
        if codes is None:
            continue
        c = codes[order]
        other = np.flatnonzero(same & (c[1:] != c[:-1]))
        if len(other):
            k = int(other[0])
            raise InputError(f"{both(k)}: session {sid(k)} is listed under two {name} ids")
    starts = np.concatenate(([0], np.flatnonzero(~same) + 1))
    expected = np.arange(len(ss)) - np.repeat(starts, np.diff(np.append(starts, len(ss)))) + 1
    gap = np.flatnonzero(pos != expected)
    if len(gap):
        k = int(gap[0])
        raise InputError(
            f"{where(int(order[k]))}: session {sid(k)} has no position {int(expected[k])} "
            f"(its positions must run 1, 2, ..., n; found {int(pos[k])} next)"
        )
    by_doc = np.lexsort((d, s))
    dup = np.flatnonzero((s[by_doc][1:] == s[by_doc][:-1]) & (d[by_doc][1:] == d[by_doc][:-1]))
    if len(dup):
        k = int(dup[0])
        a, b = sorted((int(by_doc[k]), int(by_doc[k + 1])))
        raise InputError(
            f"{where(a)} and {where(b)}: document "
            f"{excerpt(docs.strings_of(d[a : a + 1])[0])} is shown twice in session "
            f"{excerpt(sessions.strings_of(s[a : a + 1])[0])}"
        )
    return ClickLog(
        sessions, queries, docs, ss, q[order], pos, d[order], np.asarray(clicked, bool)[order],
        None if timestamp is None else np.asarray(timestamp, np.float64)[order],
        None if r is None else r[order], rankings, source,
        None if lines is None else np.asarray(lines, np.int64)[order],
    )  # fmt: skip
