"""Logs of shown results (`rankscope.model.ImpressionLog`) from delimited text files (TSV, CSV,
``.gz`` and ``-`` accepted), Parquet files, DataFrames or Arrow tables, and dicts of columns:
click logs for the click models, logs of rankings with their logging policy's propensities
for the counterfactual estimators, logs of interleaved lists for interleaving.

One table, `ROLES`, says what a column may hold and the names a header may give it (case
ignored; ``columns={"role": "name"}`` names others):

=====================  ==========================================================================
role                   names recognised
=====================  ==========================================================================
``session``            session, session_id, sessionid, sid, impression, impression_id, slate_id
``query``              query, query_id, queryid, qid, context, context_id
``position``           position, pos, rank, slot (an integer from 1, the top)
``doc``                doc, doc_id, docid, docno, document, url, item, item_id, action
``click``              click, clicked, clicks, reward (a finite number; ``true``/``false``)
``timestamp``          timestamp, time, ts (a finite number, or an ISO 8601 date-time)
``ranking``            ranking, ranking_id, shown_ranking, list, list_id
``team``               team, side, assignment (``a``, ``b``, or empty)
``propensity``         propensity, propensity_score, pscore_item_position, action_prob
``prefix_propensity``  prefix_propensity, pscore_cascade
``slate_propensity``   slate_propensity, pscore
=====================  ==========================================================================

Words: a *session* (an *impression*) is one showing of a list to a user; the *ranking* is the
id of the list shown, which many sessions may show.  Propensities lie in (0, 1] (see
`rankscope.model.impressions`).

A text file's first line is a header when it names a role or its third field is not a
position; a file without one lists ``session query position doc click [timestamp]
[ranking]`` in that order.  Lines starting with ``#`` and blank lines are skipped; the bytes
are checked as every text reader checks them (`rankscope.read.delimited`).  Without a
session column each row is its own session (one position shown per impression, as in the
Open Bandit Dataset); without a query column every session has the one query ``all``.

Checks, each an `InputError` naming the file and line (the row, counted from 0, for frames
and dicts): a line with fewer fields than the five of a headerless log, or (delimited) not
as many as the header or first line; a required role (``require``) without a column; a
number outside `rankscope.read.fields`' grammar; a position below 1; a propensity outside
(0, 1]; a position listed twice in a session; a session listed under two queries, two
ranking ids or two slate propensities; a prefix propensity that grows down a session; no
rows at all.  What a consumer needs beyond that it checks itself: `check_click_log` (click
models, interleaving) wants positions 1, 2, ..., n and each document once per session.

Rows need not be adjacent or in order: the log is ordered by session (in order of first
appearance), then position.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError, UsageError
from ..model import ImpressionLog, Vocabulary
from ..model.frames import column_names, is_frame
from . import delimited, frames
from .fields import PINNED_NOT_A_FINITE_NUMBER, Field, at_line, excerpt
from .roles import Columns, Role, check_roles, first_line_names, known_names, locate

POSITION = Field("position", integer=True)
TIMESTAMP = Field("timestamp", not_finite=PINNED_NOT_A_FINITE_NUMBER)
PROPENSITIES = ("propensity", "prefix_propensity", "slate_propensity")

#: The roles of an impression log's columns, in their headerless order.
ROLES: dict[str, Role] = {
    "session": Role(
        ("session", "session_id", "sessionid", "sid", "impression", "impression_id", "slate_id"),
        "id",
    ),
    "query": Role(("query", "query_id", "queryid", "qid", "context", "context_id"), "id"),
    "position": Role(("position", "pos", "rank", "slot"), "number", POSITION),
    "doc": Role(
        ("doc", "doc_id", "docid", "docno", "document", "url", "item", "item_id", "action"),
        "id",
    ),
    "click": Role(("click", "clicked", "clicks", "reward"), "click", Field("click")),
    "timestamp": Role(("timestamp", "time", "ts"), "number", TIMESTAMP),
    "ranking": Role(("ranking", "ranking_id", "shown_ranking", "list", "list_id"), "id"),
    "team": Role(("team", "side", "assignment"), "team"),
    "propensity": Role(
        ("propensity", "propensity_score", "pscore_item_position", "action_prob"),
        "number",
        Field("propensity"),
    ),
    "prefix_propensity": Role(
        ("prefix_propensity", "pscore_cascade"), "number", Field("prefix propensity")
    ),
    "slate_propensity": Role(("slate_propensity", "pscore"), "number", Field("slate propensity")),
}
#: A headerless text log's columns, in order (the first five required there).
HEADERLESS = ("session", "query", "position", "doc", "click", "timestamp", "ranking")
#: The roles every log has (``require`` names more).
REQUIRED = ("position", "doc", "click")
#: The roles a click log has (click models, interleaving).
CLICK_ROLES = ("session", "query", "position", "doc", "click")
#: The one query of a log without a query column.
DEFAULT_QUERY = "all"

_TRUE, _FALSE = ("1", "true"), ("0", "false")
_TEAMS = {"a": 1, "b": -1}

Where = Callable[[int], str]


def read_impressions(
    source: Any,
    *,
    columns: Mapping[str, str] | None = None,
    require: Sequence[str] = (),
    binary: bool = False,
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
    clicks: bool = True,
) -> ImpressionLog:
    """A log of shown results from a text file (``.gz``, ``-``), a Parquet file, a
    pandas/polars DataFrame or Arrow table, or a dict of equal-length columns (an
    `ImpressionLog` is returned as is).

    ``columns`` maps roles to column names the header does not use (`ROLES`); ``require``:
    roles that must have a column besides `REQUIRED` (`CLICK_ROLES` for a click log);
    ``binary``: clicks are ``0``/``1``/``true``/``false`` (the column then called
    ``clicked`` in messages), not any real reward.  ``queries`` and ``docs``: vocabularies to
    intern the ids into (new ones by default).  ``clicks=False``: lists shown without clicks
    yet (``clicks interleave --lists`` writes them), read with every click 0 when they have
    no click column.  The checks are listed in the module's docstring.
    """
    if isinstance(source, ImpressionLog):
        return source
    check_roles(ROLES, [*(columns or ()), *require], "click-log")
    reader = _Reader(
        columns or {},
        tuple(dict.fromkeys((*(r for r in REQUIRED if clicks or r != "click"), *require))),
        binary,
        Vocabulary() if queries is None else queries, Vocabulary() if docs is None else docs,
    )  # fmt: skip
    if isinstance(source, Mapping):
        return reader.from_columns(
            {k: np.asarray(v) for k, v in source.items()}, "<impression log dict>"
        )
    if is_frame(source):
        return reader.from_frame(source, "<impression log frame>")
    if isinstance(source, str | os.PathLike) and str(source).lower().endswith((".parquet", ".pq")):
        return reader.from_frame(frames.read_parquet(source), str(source))
    if not isinstance(source, str | os.PathLike):
        raise UsageError(
            f"cannot read an impression log from {type(source).__name__}: give a file, a "
            "Parquet file, a DataFrame or a dict of columns"
        )
    return reader.from_text(source)


def _name(role: str, binary: bool) -> str:
    """A role's name in messages (binary clicks are ``clicked``)."""
    return "clicked" if role == "click" and binary else role.replace("_", " ")


@dataclass(frozen=True)
class _Reader:
    columns: Mapping[str, str]
    require: tuple[str, ...]
    binary: bool
    queries: Vocabulary
    docs: Vocabulary

    def find(self, names: Sequence[str], source: str, header: bool) -> dict[str, int]:
        """role -> index into ``names``, for the roles present."""
        return locate(
            names, ROLES, source=source, header=header, columns=self.columns,
            require=self.require, label=lambda role: _name(role, self.binary),
        )  # fmt: skip

    # -- text ------------------------------------------------------------------------------

    def from_text(self, path: str | os.PathLike) -> ImpressionLog:
        data, source = delimited.load(path)
        text_lines = delimited.lines(data)
        content = delimited.content(text_lines)
        if not content:
            raise InputError(f"{source}: no clicks found (an empty log)")
        sep = delimited.separator(content[0][1])
        if sep is not None:  # keep a delimited line's empty last field (an empty team cell)
            content = [(n, text_lines[n - 1].rstrip("\r")) for n, _ in content]
        rows = delimited.split_lines(content, sep, source)
        first = rows[0][1]
        names_role = delimited.find(first, known_names(ROLES, self.columns)) is not None
        header = None
        if names_role or (len(first) > 2 and POSITION.problem(first[2]) is not None):
            if not names_role:
                raise InputError(
                    f"{source}: no header line; name the columns (session, query, position, "
                    "doc, click, propensity, ...) in the first line, or give session query "
                    "position doc click [timestamp] [ranking] in that order"
                )
            header = rows.pop(0)[1]
            if not rows:
                raise InputError(f"{source}: no clicks found after the header")
        width = len(header) if header is not None else len(rows[0][1])
        for n, fields in rows:
            if header is None and len(fields) < len(CLICK_ROLES):
                raise InputError(
                    f"{at_line(source, n)}: expected at least 5 fields (session query "
                    f"position doc click), found {len(fields)}: {excerpt(' '.join(fields))}"
                )
            if len(fields) != width and sep is not None:
                raise delimited.width_error(
                    source, n, fields, width, sep, header is not None, rows[0][0]
                )
        if header is None:
            if self.columns:
                raise UsageError(
                    f"{source}: columns= names header columns, and it has no header",
                    cli=f"{source}: --columns names header columns, and it has no header",
                )
            at = {role: j for j, role in enumerate(HEADERLESS) if j < width}
        else:
            at = self.find(header, source, True)
        lines = np.asarray([n for n, _ in rows], dtype=np.int64)
        table: dict[str, list[str]] = {}
        for role, j in at.items():
            column = []
            for n, fields in rows:
                if len(fields) <= j:
                    raise InputError(f"{at_line(source, n)}: {role} is missing")
                column.append(fields[j])
            table[role] = column
        return self.build(table, source, lines, True)

    # -- frames and dicts ------------------------------------------------------------------

    def from_frame(self, frame: Any, source: str) -> ImpressionLog:
        names = column_names(frame)
        at = self.find(names, source, False)
        arrays = frames.frame_columns(frame, [names[j] for j in at.values()], source)
        return self.build(dict(zip(at, arrays, strict=True)), source, None, False)

    def from_columns(self, table: dict[str, np.ndarray], source: str) -> ImpressionLog:
        names = list(table)
        at = self.find(names, source, False)
        values = {role: table[names[j]] for role, j in at.items()}
        n = len(next(iter(values.values()))) if values else 0
        for role, column in values.items():
            if len(column) != n:
                raise InputError(f"{source}: columns of different lengths ({role!r})")
        return self.build(values, source, None, False)

    # -- values and checks -----------------------------------------------------------------

    def build(
        self, table: Mapping[str, Any], source: str, lines: np.ndarray | None, text: bool
    ) -> ImpressionLog:
        n = len(next(iter(table.values()))) if table else 0
        if n == 0:
            raise InputError(f"{source}: no clicks found (an empty log)")
        data = Columns(table, source, lines)
        line_list, where = data.line_list, data.where

        def numbers(role: str) -> np.ndarray | None:
            field = ROLES[role].field
            return None if role not in table or field is None else data.numbers(role, field)

        def codes(role: str, vocabulary: Vocabulary) -> np.ndarray | None:
            return None if role not in table else data.codes(role, vocabulary, f"{role} id")

        position = numbers("position")
        assert position is not None  # (a required role)
        low = np.flatnonzero(position < 1)
        if len(low):
            i = int(low[0])
            raise InputError(f"{where(i)}: position {int(position[i])} is not 1 or more")
        click = (
            self.clicks(table["click"], where, source, line_list) if "click" in table
            else np.zeros(n, dtype=np.float64)
        )  # fmt: skip
        timestamp = None if "timestamp" not in table else data.timestamps("timestamp", TIMESTAMP)
        propensity = {role: numbers(role) for role in PROPENSITIES}
        for role, values in propensity.items():
            if values is None:
                continue
            values[(values > 1) & (values <= 1 + 1e-9)] = 1.0  # (rounding in a product)
            bad = np.flatnonzero(~((values > 0) & (values <= 1)))
            if bad.size:
                row = int(bad[0])
                raise InputError(f"{where(row)}: {_name(role, False)} {float(values[row])!r} "
                                 "is not in (0, 1]")  # fmt: skip
        team = None if "team" not in table else _teams(table["team"], where)
        sessions = Vocabulary()
        session = codes("session", sessions)
        if session is None:  # each row its own session, named by its line (row)
            ids = [str(k) for k in (line_list if line_list is not None else range(n))]
            session = sessions.intern_many(ids)
        query = codes("query", self.queries)
        if query is None:
            query = np.full(n, self.queries.intern(DEFAULT_QUERY), dtype=np.int32)
        doc = codes("doc", self.docs)
        assert doc is not None  # (a required role)
        rankings = None if "ranking" not in table else Vocabulary()
        ranking = None if rankings is None else codes("ranking", rankings)

        order = np.lexsort((position, session))
        ss, pos = session[order], position[order]
        same = ss[1:] == ss[:-1]

        def both(k: int) -> str:
            a, b = sorted((int(order[k]), int(order[k + 1])))
            return f"{where(a)} and {where(b)}"

        def sid(k: int) -> str:
            return excerpt(sessions.strings_of(ss[k : k + 1])[0])

        twice = np.flatnonzero(same & (pos[1:] == pos[:-1]))
        if len(twice):
            k = int(twice[0])
            raise InputError(
                f"{both(k)}: position {int(pos[k])} is listed twice in session {sid(k)}"
            )
        slate = propensity["slate_propensity"]
        for what, values in (
            ("is listed under two query ids", query), ("is listed under two shown ranking ids",
            ranking), ("has two slate propensities", slate),
        ):  # fmt: skip
            if values is None:
                continue
            sorted_values = values[order]
            other = np.flatnonzero(same & (sorted_values[1:] != sorted_values[:-1]))
            if len(other):
                k = int(other[0])
                raise InputError(f"{both(k)}: session {sid(k)} {what}")
        prefix = propensity["prefix_propensity"]
        if prefix is not None:
            prefix = prefix[order]
            grows = np.flatnonzero(same & (prefix[1:] > prefix[:-1] * (1 + 1e-9)))
            if len(grows):
                k = int(grows[0])
                raise InputError(
                    f"{where(int(order[k + 1]))}: prefix propensity {prefix[k + 1]!r} exceeds "
                    f"the one above it ({prefix[k]!r}): the probability of a longer prefix "
                    "cannot be larger"
                )

        def pick(values: np.ndarray | None, dtype: Any) -> np.ndarray | None:
            return None if values is None else np.asarray(values, dtype=dtype)[order]

        return ImpressionLog(
            sessions, self.queries, self.docs, ss.astype(np.int32),
            np.asarray(query, dtype=np.int32)[order], pos.astype(np.int64),
            np.asarray(doc, dtype=np.int32)[order], click[order],
            timestamp=pick(timestamp, np.float64), ranking=pick(ranking, np.int32),
            rankings=rankings, team=pick(team, np.int8),
            propensity=pick(propensity["propensity"], np.float64), prefix_propensity=prefix,
            slate_propensity=pick(slate, np.float64), source=source,
            line=lines[order] if lines is not None else order.astype(np.int64),
            from_text=text,
        )  # fmt: skip

    def clicks(
        self, values: Any, where: Where, source: str, lines: list[int] | None
    ) -> np.ndarray:
        """The click column as float64: 0/1 (``true``/``false``), or any finite reward."""
        listed = values if isinstance(values, list) else np.asarray(values).tolist()
        if self.binary:
            return _binary(listed, where).astype(np.float64)
        words = [v.strip().lower() if isinstance(v, str) else None for v in listed]
        field = ROLES["click"].field
        assert field is not None
        if any(w in ("true", "false") for w in words):
            listed = [
                ("1" if w == "true" else "0") if w in ("true", "false") else v
                for v, w in zip(listed, words, strict=True)
            ]
            values = np.asarray(listed, dtype=object)
        if lines is not None:
            return field.tokens(listed, source, lines)
        return field.values(np.asarray(values), source)


def _binary(tokens: Sequence[Any], where: Where) -> np.ndarray:
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


def _teams(values: Any, where: Where) -> np.ndarray:
    """+1 (a), −1 (b), or 0 for an empty cell (a log whose team column is filled only where
    it matters)."""
    listed = values if isinstance(values, list) else np.asarray(values).tolist()
    out = np.zeros(len(listed), dtype=np.int8)
    for i, value in enumerate(listed):
        if _missing(value):
            continue
        text = str(value).strip().lower()
        if not text:
            continue
        if text not in _TEAMS:
            raise InputError(f"{where(i)}: team {excerpt(str(value))} is not 'a' or 'b'")
        out[i] = _TEAMS[text]
    return out


def _missing(value: Any) -> bool:
    """An empty cell of a frame: None, NaN, or pandas' NA (whose comparisons are NA)."""
    if value is None:
        return True
    try:
        return bool(value != value)
    except TypeError:  # pandas.NA: bool(NA) is ambiguous
        return True


def names_column(path: Any, role: str) -> bool:
    """Whether ``path`` is a delimited text file whose first content line is a header
    naming a column of ``role`` (a key of `ROLES`) — how the front doors tell the lists of
    an interleaving experiment (a ``team`` column) from a run; False for anything else."""
    return first_line_names(path, ROLES[role].names)


def check_click_log(log: ImpressionLog) -> ImpressionLog:
    """``log`` if it is a click log as click models and interleaving need one (0/1 clicks,
    each session's positions 1, 2, ..., n and each document once per session), else an
    `InputError` naming the line (or row) of the first row that is not."""
    bad = np.flatnonzero((log.click != 0) & (log.click != 1))
    if len(bad):
        i = int(bad[0])
        raise InputError(f"{log.where(i)}: clicked {float(log.click[i])!r} is not 0 or 1")
    starts = log.starts
    expected = np.arange(len(log)) - np.repeat(starts[:-1], np.diff(starts)) + 1
    gap = np.flatnonzero(log.position != expected)

    def sid(i: int) -> str:
        return excerpt(log.sessions.strings_of(log.session[i : i + 1])[0])

    if len(gap):
        k = int(gap[0])
        raise InputError(
            f"{log.where(k)}: session {sid(k)} has no position {int(expected[k])} "
            f"(its positions must run 1, 2, ..., n; found {int(log.position[k])} next)"
        )
    by_doc = np.lexsort((log.doc, log.session))
    dup = np.flatnonzero(
        (log.session[by_doc][1:] == log.session[by_doc][:-1])
        & (log.doc[by_doc][1:] == log.doc[by_doc][:-1])
    )
    if len(dup):
        k = int(dup[0])
        a, b = sorted((int(by_doc[k]), int(by_doc[k + 1])), key=lambda r: int(log.line[r])
                      if log.line is not None else r)  # fmt: skip
        raise InputError(
            f"{log.where(a)} and {log.where(b)}: document "
            f"{excerpt(log.docs.strings_of(log.doc[a : a + 1])[0])} is shown twice in session "
            f"{sid(a)}"
        )
    return log
