"""Click logs of interleaved result lists: one row per shown document of an impression.

Columns (a header names them; any order; the first name listed is the canonical one):

* ``impression`` (also ``impression_id``, ``session``, ``session_id``): the impression, any id;
* ``query`` (also ``query_id``, ``qid``; optional): the query, needed to look up the two
  rankings of a balanced or probabilistic comparison;
* ``position`` (also ``rank``, ``pos``): the 1-based position in the shown list;
* ``doc`` (also ``doc_id``, ``docno``, ``document``, ``item``, ``item_id``): the document shown;
* ``clicked`` (also ``click``, ``clicks``): ``1``/``0`` (``true``/``false``);
* ``team`` (also ``side``, ``assignment``; optional): ``a`` or ``b``, the ranking that placed
  the document (team draft: the team that picked it; probabilistic: the ranker drawn); an
  empty cell is allowed (balanced logs need no team), team-draft credit refuses it.

Text files (``.gz`` and ``-`` accepted) are separated by tabs, commas, semicolons or white
space, with the header on the first line; ``.parquet`` files, pandas/polars DataFrames and
Arrow tables are read by column name.  Each impression's positions must be 1..L, each once,
and one impression has one query and lists a document once.  A malformed value, a missing
column or an impression breaking these rules is an `InputError` naming the file and the
line (the row, counted from 0, for frames).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..model.frames import column_names, is_frame
from . import delimited
from .fields import Field, at_line, at_row, excerpt
from .frames import frame_columns, read_parquet

#: Column names recognised in a header, canonical name first.
COLUMNS: dict[str, tuple[str, ...]] = {
    "impression": ("impression", "impression_id", "session", "session_id"),
    "query": ("query", "query_id", "qid"),
    "position": ("position", "rank", "pos"),
    "doc": ("doc", "doc_id", "docno", "document", "item", "item_id"),
    "clicked": ("clicked", "click", "clicks"),
    "team": ("team", "side", "assignment"),
}
REQUIRED = ("impression", "position", "doc", "clicked")

POSITION = Field("position", integer=True)
_CLICK_VALUES = {"1": True, "0": False, "true": True, "false": False}
_TEAM_VALUES = {"a": 1, "b": -1}


@dataclass(frozen=True, eq=False)
class InterleavedLog:
    """The rows of an interleaved click log, as read (one row per shown document).

    ``impression``, ``query`` (None when the log has no query column), ``doc``: id strings;
    ``position``: int64 (1-based); ``clicked``: bool; ``team``: int8, +1 for a, −1 for b and
    0 for an empty cell (None without a team column).  ``where[i]`` says where row i came
    from, for messages.
    """

    source: str
    impression: list[str]
    query: list[str] | None
    position: np.ndarray
    doc: list[str]
    clicked: np.ndarray
    team: np.ndarray | None
    where: list[str]

    def __len__(self) -> int:
        return len(self.doc)


def _match(names: Sequence[str], source: str) -> dict[str, int]:
    lowered = [n.strip().lower() for n in names]
    found: dict[str, int] = {}
    for key, aliases in COLUMNS.items():
        hits = [i for i, n in enumerate(lowered) if n in aliases]
        if len(hits) > 1:
            raise InputError(
                f"{source}: columns {', '.join(repr(names[i]) for i in hits)} all name the "
                f"{key}; keep one"
            )
        if hits:
            found[key] = hits[0]
    missing = [k for k in REQUIRED if k not in found]
    if missing:
        raise InputError(
            f"{source}: no {', '.join(missing)} column; an interleaved click log needs columns "
            f"impression, position, doc, clicked (and team, query as needed); columns are "
            f"{', '.join(map(repr, names))}"
        )
    return found


def _clicked(value: Any, where: str) -> bool:
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer) and value in (0, 1):
        return bool(value)
    if isinstance(value, float | np.floating) and value in (0.0, 1.0):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _CLICK_VALUES:
        return _CLICK_VALUES[value.strip().lower()]
    raise InputError(f"{where}: clicked {excerpt(str(value))} is not 0, 1, true or false")


def _team(value: Any, where: str) -> int:
    """+1 (a), −1 (b), or 0 when the cell is empty (a log whose team column is filled only
    where it matters; team-draft credit then refuses the impression)."""
    if value is None or (isinstance(value, float) and value != value):
        return 0
    if isinstance(value, str) and not value.strip():
        return 0
    if isinstance(value, str) and value.strip().lower() in _TEAM_VALUES:
        return _TEAM_VALUES[value.strip().lower()]
    raise InputError(f"{where}: team {excerpt(str(value))} is not 'a' or 'b'")


def _position(value: Any, where: str) -> int:
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        number = int(value)
    elif isinstance(value, float | np.floating) and float(value).is_integer():
        number = int(value)
    elif isinstance(value, str):
        problem = POSITION.problem(value.strip())
        if problem is not None:
            raise POSITION.error(where, value, problem)
        number = int(value.strip())
    else:
        raise POSITION.error(where, value, "is not an integer")
    if number < 1:
        raise POSITION.error(where, value, "is not a position (1, 2, ...)")
    return number


def _ident(value: Any, where: str, what: str) -> str:
    if value is None or (isinstance(value, float) and value != value):
        raise InputError(f"{where}: {what} is missing")
    text = str(value.item() if isinstance(value, np.generic) else value).strip()
    if not text:
        raise InputError(f"{where}: {what} is missing")
    return text


def _build(source: str, columns: dict[str, list[Any]], where: list[str]) -> InterleavedLog:
    n = len(where)
    if n == 0:
        raise InputError(f"{source}: no impressions")
    impression = [
        _ident(v, w, "impression") for v, w in zip(columns["impression"], where, strict=True)
    ]
    doc = [_ident(v, w, "doc") for v, w in zip(columns["doc"], where, strict=True)]
    query = None
    if "query" in columns:
        query = [_ident(v, w, "query") for v, w in zip(columns["query"], where, strict=True)]
    position = np.array(
        [_position(v, w) for v, w in zip(columns["position"], where, strict=True)], dtype=np.int64
    )
    clicked = np.array(
        [_clicked(v, w) for v, w in zip(columns["clicked"], where, strict=True)], dtype=bool
    )
    team = None
    if "team" in columns:
        team = np.array(
            [_team(v, w) for v, w in zip(columns["team"], where, strict=True)], dtype=np.int8
        )
    log = InterleavedLog(source, impression, query, position, doc, clicked, team, where)
    _check_impressions(log)
    return log


def _check_impressions(log: InterleavedLog) -> None:
    """Positions 1..L once each, one query, each document once, per impression."""
    rows: dict[str, list[int]] = {}
    for i, key in enumerate(log.impression):
        rows.setdefault(key, []).append(i)
    for key, members in rows.items():
        seen: dict[int, int] = {}
        docs: dict[str, int] = {}
        for i in members:
            p = int(log.position[i])
            if p in seen:
                raise InputError(
                    f"{log.where[i]}: impression {excerpt(key)} has position {p} twice "
                    f"(also {log.where[seen[p]]})"
                )
            seen[p] = i
            if log.doc[i] in docs:
                raise InputError(
                    f"{log.where[i]}: impression {excerpt(key)} shows document "
                    f"{excerpt(log.doc[i])} twice (also {log.where[docs[log.doc[i]]]})"
                )
            docs[log.doc[i]] = i
            if log.query is not None and log.query[i] != log.query[members[0]]:
                raise InputError(
                    f"{log.where[i]}: impression {excerpt(key)} has two queries, "
                    f"{excerpt(log.query[members[0]])} and {excerpt(log.query[i])}"
                )
        if max(seen) != len(seen):
            missing = min(set(range(1, len(seen) + 1)) - set(seen))
            raise InputError(
                f"{log.where[members[0]]}: impression {excerpt(key)} has no position "
                f"{missing} (positions run 1..{max(seen)})"
            )


def _from_text(path: str | os.PathLike) -> InterleavedLog:
    data, source = delimited.load(path)
    lines = delimited.lines(data)
    content = delimited.content(lines)
    if not content:
        raise InputError(f"{source}: no impressions")
    sep = delimited.separator(content[0][1])
    if sep is not None:  # keep a delimited line's empty last field (an empty team cell)
        content = [(n, lines[n - 1].rstrip("\r")) for n, _ in content]
    header = delimited.split(content[0][1], sep)
    found = _match(header, source)
    columns: dict[str, list[Any]] = {key: [] for key in found}
    where: list[str] = []
    for number, line in content[1:]:
        fields = delimited.split(line, sep)
        if len(fields) != len(header):
            raise InputError(
                f"{at_line(source, number)}: {len(fields)} fields, the header has "
                f"{len(header)}: {excerpt(line)}"
            )
        for key, index in found.items():
            columns[key].append(fields[index])
        where.append(at_line(source, number))
    return _build(source, columns, where)


def _from_frame(frame: Any, source: str) -> InterleavedLog:
    names = column_names(frame)
    found = _match(names, source)
    arrays = frame_columns(frame, [names[i] for i in found.values()], source)
    columns = {key: array.tolist() for key, array in zip(found, arrays, strict=True)}
    rows = len(arrays[0]) if arrays else 0
    return _build(source, columns, [at_row(source, r) for r in range(rows)])


def read_interleaved_log(source: Any) -> InterleavedLog:
    """An interleaved click log from a text file (``.tsv``, ``.csv``, ``.gz``, ``-``), a
    ``.parquet`` file, or a pandas/polars DataFrame or Arrow table (see the module
    documentation for the columns)."""
    if isinstance(source, InterleavedLog):
        return source
    if is_frame(source):
        return _from_frame(source, "<frame>")
    if isinstance(source, str | os.PathLike):
        if str(source).lower().endswith(".parquet"):
            if not Path(source).exists():
                raise InputError(f"{source}: no such file")
            return _from_frame(read_parquet(source), str(source))
        return _from_text(source)
    raise TypeError(
        "an interleaved click log is a file path, a DataFrame or an Arrow table, "
        f"not {type(source).__name__}"
    )


__all__ = ["COLUMNS", "InterleavedLog", "read_interleaved_log"]
