"""Logged rankings with their logging policy's propensities (`LoggedSlates`), read from a
delimited file (CSV, TSV; ``.gz`` and ``-`` accepted), a Parquet file, a DataFrame or Arrow
table, or a dict of columns.

The columns are found by name in the header (any of the names listed, case ignored), or
named with ``columns={"role": "column"}``:

========================  ================================================================
role                      names recognised
========================  ================================================================
``session`` (optional)    session, session_id, slate_id, impression, impression_id
``query`` (optional)      query, query_id, qid, context, context_id
``position``              position, pos, rank, slot (integers from 1, the top)
``doc``                   doc, doc_id, docid, docno, item, item_id, action
``click``                 click, clicked, clicks, reward (a finite number)
``propensity``            propensity, propensity_score, pscore_item_position, action_prob
``prefix_propensity``     prefix_propensity, pscore_cascade
``slate_propensity``      slate_propensity, pscore
========================  ================================================================

Without a session column each row is its own session (one position shown per impression, as
in the Open Bandit Dataset, whose ``propensity_score`` is the item-position propensity);
without a query column every session has the one query ``all``.  Propensities lie in (0, 1].

Errors name the file and line (the row, from 0, for frames and dicts): a field that is not a
number in `rankscope.read.fields`' grammar, a position below 1, a propensity outside (0, 1],
a position listed twice in a session, a session whose rows name two queries or two slate
propensities, a prefix propensity that grows down the ranking.  A delimited file needs a
header (its columns are found by name).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import InputError, UsageError
from ..model import Vocabulary
from ..model.frames import column_names, is_frame
from ..model.slates import LoggedSlates
from . import delimited, frames
from .fields import Field

#: role -> the column names it is recognised by (lower case), in order of preference.
ROLES: dict[str, tuple[str, ...]] = {
    "session": ("session", "session_id", "slate_id", "impression", "impression_id"),
    "query": ("query", "query_id", "qid", "context", "context_id"),
    "position": ("position", "pos", "rank", "slot"),
    "doc": ("doc", "doc_id", "docid", "docno", "item", "item_id", "action"),
    "click": ("click", "clicked", "clicks", "reward"),
    "propensity": ("propensity", "propensity_score", "pscore_item_position", "action_prob"),
    "prefix_propensity": ("prefix_propensity", "pscore_cascade"),
    "slate_propensity": ("slate_propensity", "pscore"),
}
REQUIRED = ("position", "doc", "click")
PROPENSITIES = ("propensity", "prefix_propensity", "slate_propensity")
#: the one query of a log without a query column
DEFAULT_QUERY = "all"

_FIELDS = {
    "position": Field("position", integer=True),
    "click": Field("click"),
    **{role: Field(role.replace("_", " ")) for role in PROPENSITIES},
}


def read_logged_slates(
    source: Any,
    *,
    columns: Mapping[str, str] | None = None,
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
) -> LoggedSlates:
    """A log of rankings shown under a logging policy, with its propensities.

    ``source``: a path (delimited text with a header, or ``.parquet``), ``-``, a DataFrame or
    Arrow table, a dict of equal-length columns, or a `LoggedSlates` (returned as is).
    ``columns`` maps roles (session, query, position, doc, click, propensity,
    prefix_propensity, slate_propensity) to column names where the header's names are not
    among those recognised (see the module's table).  ``queries`` and ``docs``: vocabularies
    to intern the ids into (new ones by default).
    """
    if isinstance(source, LoggedSlates):
        return source
    unknown = sorted(set(columns or ()) - set(ROLES))
    if unknown:
        raise UsageError(
            f"columns= names unknown role(s) {', '.join(map(repr, unknown))}; roles are "
            f"{', '.join(ROLES)}"
        )
    queries = Vocabulary() if queries is None else queries
    docs = Vocabulary() if docs is None else docs
    if isinstance(source, Mapping):
        return _from_columns(dict(source), "<log dict>", columns, queries, docs, None)
    if is_frame(source):
        return _from_frame(source, "<log frame>", columns, queries, docs)
    if isinstance(source, str | os.PathLike) and str(source).lower().endswith(".parquet"):
        return _from_frame(frames.read_parquet(source), str(source), columns, queries, docs)
    return _from_text(source, columns, queries, docs)


def _from_frame(frame, source, columns, queries, docs) -> LoggedSlates:
    names = column_names(frame)
    found = _roles(names, columns, source)
    arrays = frames.frame_columns(frame, list(found.values()), source)
    return _from_columns(
        dict(zip(found.values(), arrays, strict=True)), source, found, queries, docs, None
    )


def _from_text(path, columns, queries, docs) -> LoggedSlates:
    raw, source = delimited.load(path)
    content = delimited.content(delimited.lines(raw))
    if not content:
        raise InputError(f"{source}: no logged rankings found")
    sep = delimited.separator(content[0][1])
    header = delimited.split(content[0][1], sep)
    known = {name for names in ROLES.values() for name in names} | set((columns or {}).values())
    if not any(field.strip().lower() in known or field in known for field in header):
        raise InputError(
            f"{source}: no header line; a log of rankings names its columns (session, query, "
            f"position, doc, click, propensity, ...) in its first line"
        )
    rows = [(n, delimited.split(s, sep)) for n, s in content[1:]]
    if not rows:
        raise InputError(f"{source}: no logged rankings found after the header")
    for n, fields in rows:
        if len(fields) != len(header):
            raise delimited.width_error(source, n, fields, len(header), sep, True, content[0][0])
    found = _roles(header, columns, source)
    index = {column: header.index(column) for column in found.values()}
    lines = np.asarray([n for n, _ in rows], dtype=np.int64)
    table = {column: [fields[i] for _, fields in rows] for column, i in index.items()}
    return _from_columns(table, source, found, queries, docs, lines)


def _roles(names: Sequence[str], columns: Mapping[str, str] | None, source: str) -> dict:
    """role -> column name, for the roles present (an error if a required one is not)."""
    found: dict[str, str] = {}
    for role, candidates in ROLES.items():
        if columns and role in columns:
            if columns[role] not in names:
                raise InputError(
                    f"{source}: no column {columns[role]!r} for {role} (columns: "
                    f"{', '.join(map(repr, names))})"
                )
            found[role] = columns[role]
            continue
        i = delimited.find(names, candidates)
        if i is not None:
            found[role] = names[i]
        elif role in REQUIRED:
            raise InputError(
                f"{source}: no {role} column among {', '.join(map(repr, names))}; name it "
                f"with columns={{'{role}': ...}} (--columns {role}=NAME)"
            )
    return found


def _from_columns(
    table: dict[str, Any],
    source: str,
    found: Mapping[str, str] | None,
    queries: Vocabulary,
    docs: Vocabulary,
    lines: np.ndarray | None,
) -> LoggedSlates:
    found = _roles(list(table), found, source)
    n = len(next(iter(table.values()))) if table else 0
    if n == 0:
        raise InputError(f"{source}: no logged rankings")
    for column in found.values():
        if len(table[column]) != n:
            raise InputError(f"{source}: columns of different lengths ({column!r})")

    def where(row: int) -> str:
        return f"{source}:{lines[row]}" if lines is not None else f"{source}: row {row}"

    def numbers(role: str) -> np.ndarray | None:
        if role not in found:
            return None
        field, values = _FIELDS[role], table[found[role]]
        if lines is not None:
            out = field.tokens(values, source, lines.tolist())
            return out.astype(np.int64) if field.integer else out
        return field.values(np.asarray(values), source)

    def codes(role: str, vocabulary: Vocabulary) -> np.ndarray | None:
        if role not in found:
            return None
        values = table[found[role]]
        if lines is not None:
            return vocabulary.intern_many(list(values))
        return frames.intern_ids(vocabulary, np.asarray(values), source, f"{role} id")

    position = numbers("position")
    assert position is not None  # (a required role)
    low = np.flatnonzero(position < 1)
    if low.size:
        raise InputError(f"{where(int(low[0]))}: position {int(position[low[0]])} is below 1")
    click = numbers("click")
    propensity = {role: numbers(role) for role in PROPENSITIES}
    for role, values in propensity.items():
        if values is None:
            continue
        values[(values > 1) & (values <= 1 + 1e-9)] = 1.0  # (rounding in a sum of products)
        bad = np.flatnonzero(~((values > 0) & (values <= 1)))
        if bad.size:
            row = int(bad[0])
            raise InputError(
                f"{where(row)}: {role.replace('_', ' ')} {float(values[row])!r} is not in (0, 1]"
            )
    sessions = Vocabulary()
    session = codes("session", sessions)
    if session is None:
        session = np.arange(n, dtype=np.int64)
        session_ids = tuple(str(r) for r in (lines if lines is not None else range(n)))
    else:
        session_ids = tuple(sessions.strings)
    query = codes("query", queries)
    if query is None:
        query = np.full(n, queries.intern(DEFAULT_QUERY), dtype=np.int32)
    doc = codes("doc", docs)
    assert doc is not None and click is not None

    order = np.lexsort((position, session))
    session, position = np.asarray(session, dtype=np.int64)[order], position[order]
    same = (session[1:] == session[:-1]) & (position[1:] == position[:-1])
    if same.any():
        i = int(np.flatnonzero(same)[0])
        raise InputError(
            f"{where(int(order[i + 1]))}: session {session_ids[session[i]]!r} lists position "
            f"{int(position[i])} twice (also at {where(int(order[i])).split(': ')[-1]})"
        )
    query = np.asarray(query, dtype=np.int32)[order]
    within = session[1:] == session[:-1]
    _constant(query, within, order, where, session_ids, session, "two queries")
    slate = propensity["slate_propensity"]
    if slate is not None:
        slate = slate[order]
        _constant(slate, within, order, where, session_ids, session, "two slate propensities")
    prefix = propensity["prefix_propensity"]
    if prefix is not None:
        prefix = prefix[order]
        grows = within & (prefix[1:] > prefix[:-1] * (1 + 1e-9))
        if grows.any():
            i = int(np.flatnonzero(grows)[0])
            raise InputError(
                f"{where(int(order[i + 1]))}: prefix propensity {prefix[i + 1]!r} exceeds the "
                f"one above it ({prefix[i]!r}): the probability of a longer prefix cannot be "
                f"larger"
            )
    item = propensity["propensity"]
    # dense session codes in sorted order (first appearance in the input)
    starts = np.concatenate(([True], ~within))
    dense = np.cumsum(starts) - 1
    kept_ids = tuple(session_ids[s] for s in session[starts].tolist())
    return LoggedSlates(
        queries, docs, dense.astype(np.int64), query, position,
        np.asarray(doc, dtype=np.int32)[order], np.asarray(click, dtype=np.float64)[order],
        None if item is None else item[order], prefix, slate, kept_ids,
        source,
    )  # fmt: skip


def _constant(values, within, order, where, session_ids, session, what) -> None:
    """InputError if ``values`` changes within a session (rows sorted by session)."""
    differs = within & (values[1:] != values[:-1])
    if differs.any():
        i = int(np.flatnonzero(differs)[0])
        raise InputError(
            f"{where(int(order[i + 1]))}: session {session_ids[session[i]]!r} has {what} "
            f"(see also {where(int(order[i])).split(': ')[-1]})"
        )
