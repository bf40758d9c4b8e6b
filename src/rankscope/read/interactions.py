"""Interaction logs (`Interactions`), read from files, DataFrames or dicts into columns of
integer codes; and what the recommender readers share (`rankscope.read.recommendations`,
`rankscope.read.features`): the user and item column names, header detection, the rows of
(user, item, values), a frame's column of a role.

Users and items are interned once into two `Vocabulary` objects shared by every input of an
evaluation (test, training, recommendations, features), so every join is an integer join.
Test interactions become `Qrels` (user = query, item = document), and the top-N accuracy
measures then go through the one order-and-join function, `rankscope.judge.judge`.

Text files (``.gz`` and ``-`` accepted): ``user item [rating [timestamp]]``, separated by
tabs, spaces, commas or ``::`` (MovieLens 100K ``u.data``/``u1.base``, MovieLens 1M
``ratings.dat``, CSV).  A header line (``userId,movieId,rating,timestamp``) is recognised by
its names and maps the columns; otherwise the columns are positional.  A file of ``user 0
item grade`` lines (second column always ``0`` or ``Q0``) is read as TREC qrels (``format=``
forces either).

Numbers (ratings, timestamps; TREC grades are integers) follow `rankscope.read.fields`, as
in every other reader.  Malformed input (a missing field, a delimited line with more or
fewer fields than the header or the first line — an unquoted decimal comma, ``4,5``, makes
one field too many —, a rating that is not a finite number in that syntax) is an
`InputError` naming the file and the line (the row, for frames and dicts).  A (user, item)
pair listed twice is a warning: `keep_latest` keeps a log's latest rating (by timestamp when
there is one, else the last line).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

import numpy as np

from ..errors import InputError, UsageError, warn
from ..model import Interactions, Vocabulary
from ..model.frames import column_names, is_frame
from . import delimited, frames
from .duplicates import first_repeated, group_key, kept_rows, where
from .fields import (
    PINNED_NOT_A_FINITE_NUMBER,
    Field,
    field_count_error,
    looks_numeric,
)
from .trec import GRADE

# tests/test_recsys.py pins "rating 'nan' is not a finite number"
RATING = Field("rating", not_finite=PINNED_NOT_A_FINITE_NUMBER)
TIMESTAMP = Field("timestamp", not_finite=PINNED_NOT_A_FINITE_NUMBER)

#: Header names of the user and item columns (every recommender input has them), ratings
#: and timestamps.
USER_NAMES = ("user", "user_id", "userid", "uid", "query", "query_id", "qid")
ITEM_NAMES = ("item", "item_id", "itemid", "iid", "movie", "movie_id", "movieid", "doc_id")
RATING_NAMES = ("rating", "ratings", "relevance", "grade", "value")
TIME_NAMES = ("timestamp", "time", "ts", "datetime", "date")


# -- text files ------------------------------------------------------------------------------


def is_header(fields: list[str], second: list[str] | None) -> bool:
    """Whether the first content line names the columns."""
    if (
        delimited.find(fields[:1], USER_NAMES) is not None
        or delimited.find(fields, ITEM_NAMES) is not None
    ):
        return True
    # a non-numeric third column above a numeric one
    return (
        len(fields) >= 3
        and second is not None
        and len(second) >= 3
        and not looks_numeric(fields[2])
        and looks_numeric(second[2])
    )


#: The second field of TREC qrels (``user 0 item grade``): what tells them from a log.
_TREC_ITERATION = ("0", "Q0", "q0")


def _trec_qrels_like(rows: list[tuple[int, list[str]]]) -> bool:
    """TREC qrels (``user 0 item grade``): four fields, the second always ``0`` or ``Q0``."""
    head = rows[:1000]
    return all(len(f) == 4 and f[1] in _TREC_ITERATION for _, f in head)


def read_interactions(
    source: Any,
    *,
    users: Vocabulary | None = None,
    items: Vocabulary | None = None,
    columns: Mapping[str, str] | None = None,
    format: str = "auto",
) -> Interactions:
    """An interaction log from a file, a DataFrame/Arrow table, a Parquet file or a
    ``{user: {item: rating}}`` dict (``{user: [items]}`` for implicit feedback).

    ``columns`` names the DataFrame (or header) columns: ``{"user": ..., "item": ...,
    "rating": ..., "timestamp": ...}``; by default common names are recognised (``user``,
    ``user_id``, ``userId``, ``item``, ``movieId``, ``rating``, ...).  ``format``: ``auto``,
    ``delimited`` or ``trec`` (qrels: ``user 0 item grade``).
    """
    users = Vocabulary() if users is None else users
    items = Vocabulary() if items is None else items
    if isinstance(source, Interactions):
        if source.users is users and source.items is items:
            return source
        return _recode(source, users, items)
    if isinstance(source, Mapping):
        return _interactions_from_dict(source, users, items)
    if is_frame(source):
        return _interactions_from_frame(source, users, items, columns, "<interactions frame>")
    if frames.is_parquet(source):
        return _interactions_from_frame(
            frames.read_parquet(source), users, items, columns, str(source)
        )
    if format not in ("auto", "delimited", "trec"):
        raise UsageError(f"unknown format {format!r}: choose auto, delimited or trec")
    data, name = delimited.load(source)
    plain = delimited.table(data, is_header, name) if format != "trec" else None
    if plain is not None:
        fast = _interactions_from_table(plain, users, items, columns, format == "auto")
        if fast is not None:
            return fast
    name, header, rows, _ = delimited.rows(
        source, min_fields=2, what="interactions", is_header=is_header, data=(data, name)
    )
    if format == "trec" or (format == "auto" and header is None and _trec_qrels_like(rows)):
        for n, f in rows:
            if len(f) != 4:
                raise field_count_error(name, n, "4", len(f), " ".join(f), "user 0 item grade")
        positions: _Positions = {"user": 0, "item": 2, "rating": 3, "timestamp": None}
        return _interactions_from_rows(rows, positions, users, items, name, GRADE)
    positions = _positions(header, columns, name)
    return _interactions_from_rows(rows, positions, users, items, name)


def _interactions_from_table(
    table: delimited.Table, users: Vocabulary, items: Vocabulary,
    columns: Mapping[str, str] | None, detect_trec: bool,
) -> Interactions | None:  # fmt: skip
    """The interactions of a plain delimited file (`rankscope.read.delimited.table`), read
    column-wise: the same as the line-by-line reader gives; None for TREC qrels (when
    ``detect_trec``), which that reader reads."""
    width = table.width
    if table.header is None and detect_trec and width == 4:
        second = table.head(1, 1000)
        if all(f in _TREC_ITERATION for f in second):
            return None
    positions = _positions(table.header, columns, table.source)
    user, item = table.codes(positions["user"], users), table.codes(positions["item"], items)
    r_at, t_at = positions["rating"], positions["timestamp"]
    return Interactions(
        users, items, user, item,
        table.numbers(r_at, RATING) if r_at is not None and r_at < width else None,
        table.numbers(t_at, TIMESTAMP) if t_at is not None and t_at < width else None,
        table.source, table.lines,
    )  # fmt: skip


class _Positions(TypedDict):
    """Where each field is in a delimited line (None: the file has no such field)."""

    user: int
    item: int
    rating: int | None
    timestamp: int | None


def _positions(header, columns, source) -> _Positions:
    if header is None:
        return {"user": 0, "item": 1, "rating": 2, "timestamp": 3}
    columns = dict(columns or {})

    def pick(role, candidates, required):
        if role in columns:
            idx = delimited.find(header, [columns[role].lower()])
            if idx is None:
                raise InputError(f"{source}: no column {columns[role]!r} in the header")
            return idx
        idx = delimited.find(header, candidates)
        if idx is None and required:
            raise InputError(
                f"{source}: cannot tell which header column holds the {role} "
                f"({', '.join(header)}); name it with columns={{'{role}': ...}}"
            )
        return idx

    user = pick("user", USER_NAMES, False)
    item = pick("item", ITEM_NAMES, False)
    user = 0 if user is None else user
    item = 1 if item is None else item
    return {
        "user": user,
        "item": item,
        "rating": pick("rating", RATING_NAMES, False),
        "timestamp": pick("timestamp", TIME_NAMES, False),
    }


def _interactions_from_rows(
    rows, positions, users, items, source, rating: Field = RATING
) -> Interactions:
    u_at, i_at, r_at, t_at = (positions[k] for k in ("user", "item", "rating", "timestamp"))
    has_rating = r_at is not None and all(len(f) > r_at for _, f in rows[:1])
    has_time = t_at is not None and all(len(f) > t_at for _, f in rows[:1])
    columns = {"rating": r_at if has_rating else None, "timestamp": t_at if has_time else None}
    us, its, values = user_item_rows(rows, u_at, i_at, columns, source)
    rs, ts = values["rating"], values["timestamp"]
    lines = [n for n, _ in rows]
    return Interactions(
        users, items, users.intern_many(us), items.intern_many(its),
        rating.tokens(rs, source, lines).astype(np.float64) if has_rating else None,
        TIMESTAMP.tokens(ts, source, lines) if has_time else None,
        source, np.asarray(lines, dtype=np.int64),
    )  # fmt: skip


def user_item_rows(
    rows: list[tuple[int, list[str]]],
    user_at: int,
    item_at: int,
    columns: dict[str, int | None],
    source: str,
) -> tuple[list[str], list[str], dict[str, list[str]]]:
    """The user and item fields of delimited ``rows``, and the tokens of each named column
    (``{name: position}``; None: the file has no such column)."""
    users, items = [], []
    values: dict[str, list[str]] = {name: [] for name in columns}
    wanted = [(name, at) for name, at in columns.items() if at is not None]
    for n, f in rows:
        if len(f) <= max(user_at, item_at):
            raise InputError(f"{source}:{n}: expected a user and an item: {' '.join(f)!r}")
        users.append(f[user_at])
        items.append(f[item_at])
        for name, at in wanted:
            if len(f) <= at:
                raise InputError(f"{source}:{n}: missing {name}")
            values[name].append(f[at])
    return users, items, values


def frame_column(names, columns, role, candidates, source) -> str | None:
    """The frame column of ``role``: the one ``columns`` names, else the first of
    ``candidates`` among ``names``; None if there is none."""
    if columns and role in columns:
        if columns[role] not in names:
            raise InputError(f"{source}: no column {columns[role]!r} (columns: {names})")
        return columns[role]
    idx = delimited.find(names, candidates)
    return None if idx is None else names[idx]


def frame_role(names, columns, role, candidates, source) -> str:
    """The frame column of a role every frame has (`frame_column`, or an error)."""
    found = frame_column(names, columns, role, candidates, source)
    if found is None:
        raise InputError(
            f"{source}: no {role} column among {', '.join(names)}; name it with "
            f"columns={{'{role}': ...}}"
        )
    return found


def _interactions_from_frame(frame, users, items, columns, source) -> Interactions:
    names = column_names(frame)
    u = frame_role(names, columns, "user", USER_NAMES, source)
    i = frame_role(names, columns, "item", ITEM_NAMES, source)
    r = frame_column(names, columns, "rating", RATING_NAMES, source)
    t = frame_column(names, columns, "timestamp", TIME_NAMES, source)
    wanted = [c for c in (u, i, r, t) if c is not None]
    cols = dict(zip(wanted, frames.frame_columns(frame, wanted, source), strict=True))
    if len(cols[u]) == 0:
        raise InputError(f"{source}: no interactions")
    rating = RATING.values(cols[r], source) if r else None
    timestamp = None
    if t is not None:
        tcol = cols[t]
        if np.issubdtype(tcol.dtype, np.datetime64):
            tcol = tcol.astype("datetime64[ns]").astype(np.int64)
        timestamp = TIMESTAMP.values(tcol, source)
    return Interactions(
        users, items,
        frames.intern_ids(users, cols[u], source, "user id"),
        frames.intern_ids(items, cols[i], source, "item id"),
        rating, timestamp, source, np.arange(len(cols[u]), dtype=np.int64),
    )  # fmt: skip


def _interactions_from_dict(mapping, users, items) -> Interactions:
    source = "<interactions dict>"
    us, its, rs = [], [], []
    implicit = None
    for user, inner in mapping.items():
        if isinstance(inner, Mapping):
            pairs = list(inner.items())
            kind = False
        elif isinstance(inner, Iterable) and not isinstance(inner, str):
            pairs = [(i, None) for i in inner]
            kind = True
        else:
            raise InputError(f"{source}: user {user!r}: expected {{item: rating}} or [items]")
        if implicit is not None and kind != implicit and pairs:
            raise InputError(f"{source}: mixes rated ({{item: rating}}) and unrated users")
        implicit = kind if pairs else implicit
        for item, rating in pairs:
            us.append(str(user))
            its.append(str(item))
            rs.append(rating)
    if not us:
        raise InputError(f"{source}: no interactions")
    rating = None
    if not implicit:
        rating = RATING.values(np.asarray(rs, dtype=object), source)
    return Interactions(
        users, items, users.intern_many(us), items.intern_many(its), rating, None, source,
        np.arange(len(us), dtype=np.int64),
    )  # fmt: skip


def _recode(log: Interactions, users: Vocabulary, items: Vocabulary) -> Interactions:
    return Interactions(
        users, items,
        users.intern_many(log.users.strings_of(log.user)),
        items.intern_many(log.items.strings_of(log.item)),
        log.rating, log.timestamp, log.source, log.line,
    )  # fmt: skip


def keep_latest(log: Interactions) -> Interactions:
    """One row per (user, item) pair: the latest (by timestamp, then input order), with a
    warning naming how many rows were dropped and the first repeated pair."""
    pair = first_repeated(log.user, log.item)
    if pair is None:
        return log
    when = log.timestamp if log.timestamp is not None else np.zeros(len(log))
    kept = kept_rows(group_key(log.user, log.item), "latest", when)
    dropped = len(log) - len(kept)
    a, b = pair
    user = log.users.strings[log.user[a]]
    item = log.items.strings_of(log.item[a : a + 1])[0]
    warn(
        f"{log.source}: {dropped} repeated (user, item) pair{'s' if dropped > 1 else ''}, "
        f"e.g. user '{user}' item '{item}'{where(log, a, b)}; the latest rating of each is kept"
    )
    return log.take(kept)
