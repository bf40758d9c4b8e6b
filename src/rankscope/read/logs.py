"""Interaction logs, recommendation lists and item features, read from files, DataFrames or
dicts into columns of integer codes.

Users and items are interned once into two `Vocabulary` objects shared by every input of an
evaluation (test, training, recommendations, features), so every join is an integer join.
Test interactions become `Qrels` (user = query, item = document) and recommendation lists
become a `Run` (user = query, item = document, score), and the top-N accuracy measures
then go through the one order-and-join function, `rankscope.judge.judge`.

Text files (``.gz`` and ``-`` accepted):

* **interaction logs** ``user item [rating [timestamp]]``, separated by tabs, spaces, commas
  or ``::`` (MovieLens 100K ``u.data``/``u1.base``, MovieLens 1M ``ratings.dat``, CSV).  A
  header line (``userId,movieId,rating,timestamp``) is recognised by its names and maps the
  columns; otherwise the columns are positional.  A file of ``user 0 item grade`` lines
  (second column always ``0`` or ``Q0``) is read as TREC qrels (``format=`` forces either).
* **recommendation lists**: TREC runs (``user Q0 item rank score tag``, at least six fields:
  the score orders, as in trec_eval) or delimited ``user item [score]`` lines; a header may
  name a ``rank`` column instead of a score (rank 1 first), and with two columns the order of
  the lines is the order of each list.
* **item features**: MovieLens ``u.item`` (``id|title|date|video date|url|19 genre flags``),
  or a delimited table whose first column is the item and whose other columns are numbers,
  or ``|``-separated labels in a column named ``genres``, ``tags`` or ``labels``
  (MovieLens ``movies.csv``).

Numbers (ratings, timestamps, scores, features; ranks and TREC grades are integers) follow
`rankscope.read.fields`, as in every other reader.  Malformed input (a missing field, a
delimited line with more or fewer fields than the header or the first line — an unquoted
decimal comma, ``4,5``, makes one field too many —, a rating or score that is not a finite
number in that syntax) is an `InputError` naming the file and the line (the row, for
frames and dicts).  A (user, item) pair listed twice is a
warning: `keep_latest` keeps a log's latest rating (by timestamp when there is one, else the
last line), a recommendation list keeps the pair's best score.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

from ..errors import InputError, UsageError, warn
from ..model import Interactions, ItemFeatures, Run, Vocabulary
from ..model.frames import column_names, is_frame
from . import delimited, frames
from .duplicates import first_repeated, group_key, kept_rows, resolve_duplicates, where
from .fields import (
    PINNED_NOT_A_FINITE_NUMBER,
    Field,
    field_count_error,
    looks_numeric,
)
from .sources import file_stem
from .trec import GRADE, RANK, parse_run_lines

# tests/test_recsys.py pins "rating 'nan' is not a finite number" (and the same for scores)
RATING = Field("rating", not_finite=PINNED_NOT_A_FINITE_NUMBER)
TIMESTAMP = Field("timestamp", not_finite=PINNED_NOT_A_FINITE_NUMBER)
SCORE = Field("score", not_finite=PINNED_NOT_A_FINITE_NUMBER)


def _feature(name: str) -> Field:
    return Field(f"feature {name}", not_finite=PINNED_NOT_A_FINITE_NUMBER)


USER_NAMES = ("user", "user_id", "userid", "uid", "query", "query_id", "qid")
ITEM_NAMES = ("item", "item_id", "itemid", "iid", "movie", "movie_id", "movieid", "doc_id")
RATING_NAMES = ("rating", "ratings", "relevance", "grade", "value")
TIME_NAMES = ("timestamp", "time", "ts", "datetime", "date")
SCORE_NAMES = ("score", "prediction", "predicted", "pred", "estimate", "rating")
RANK_NAMES = ("rank", "position", "pos")
LABEL_NAMES = ("genres", "genre", "tags", "labels")


# -- text files ------------------------------------------------------------------------------


def _header(fields: list[str], second: list[str] | None) -> bool:
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


def _trec_qrels_like(rows: list[tuple[int, list[str]]]) -> bool:
    """TREC qrels (``user 0 item grade``): four fields, the second always ``0`` or ``Q0``."""
    head = rows[:1000]
    return all(len(f) == 4 and f[1] in ("0", "Q0", "q0") for _, f in head)


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
    if str(source).endswith((".parquet", ".pq")):
        return _interactions_from_frame(
            frames.read_parquet(source), users, items, columns, str(source)
        )
    if format not in ("auto", "delimited", "trec"):
        raise UsageError(f"unknown format {format!r}: choose auto, delimited or trec")
    data, name = delimited.load(source)
    if format != "trec":
        fast = _fast_interactions(data, name, users, items, columns, format == "auto")
        if fast is not None:
            return fast
    name, header, rows, _ = delimited.rows(
        source, min_fields=2, what="interactions", is_header=_header, data=(data, name)
    )
    if format == "trec" or (format == "auto" and header is None and _trec_qrels_like(rows)):
        for n, f in rows:
            if len(f) != 4:
                raise field_count_error(name, n, "4", len(f), " ".join(f), "user 0 item grade")
        positions: _Positions = {"user": 0, "item": 2, "rating": 3, "timestamp": None}
        return _interactions_from_rows(rows, positions, users, items, name, GRADE)
    positions = _positions(header, columns, name)
    return _interactions_from_rows(rows, positions, users, items, name)


def _fast_interactions(data, source, users, items, columns, detect_trec) -> Interactions | None:
    """The same result as the line-by-line reader for a regular file (every line with the
    same number of fields, no comments, quotes or blank lines), column-wise; None for
    anything else, which the line-by-line reader then reads or reports."""
    lines = delimited.lines(data)
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) < 2 or "#" in lines[0] or b"#" in data or b'"' in data:
        return None
    sep = delimited.separator(lines[0])
    first = lines[0].split(sep) if sep else lines[0].split()
    second = lines[1].split(sep) if sep else lines[1].split()
    header = None
    if _header([f.strip() for f in first], [f.strip() for f in second]):
        header = [f.strip() for f in first]
        lines = lines[1:]
    width = len(first)
    if width < 2 or (
        header is None
        and detect_trec
        and _trec_qrels_like([(n, ln.split()) for n, ln in enumerate(lines[:1000], 1)])
    ):
        return None
    if sep is None:
        counts = [len(ln.split()) for ln in lines]
        tokens = " ".join(lines).split()
    else:
        counts = [ln.count(sep) + 1 for ln in lines]
        tokens = sep.join(lines).split(sep)
        if b" " in data or b"\r" in data:
            tokens = [t.strip() for t in tokens]
        if "" in tokens:
            return None
    if min(counts) != width or max(counts) != width:
        return None
    positions = _positions(header, columns, source)
    cols = [tokens[j::width] for j in range(width)]
    numbers = {}
    for role, at, field in (
        ("rating", positions["rating"], RATING),
        ("timestamp", positions["timestamp"], TIMESTAMP),
    ):
        if at is not None and at < width:
            values = field.fast_tokens(cols[at])
            if values is None:  # some value may be invalid: the line reader reports it
                return None
            numbers[role] = values
    offset = 2 if header is not None else 1
    return Interactions(
        users, items,
        users.intern_many(cols[positions["user"]]),
        items.intern_many(cols[positions["item"]]),
        numbers.get("rating"), numbers.get("timestamp"), source,
        np.arange(offset, offset + len(lines), dtype=np.int64),
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
    us, its, values = _user_item_rows(rows, u_at, i_at, columns, source)
    rs, ts = values["rating"], values["timestamp"]
    lines = [n for n, _ in rows]
    return Interactions(
        users, items, users.intern_many(us), items.intern_many(its),
        rating.tokens(rs, source, lines).astype(np.float64) if has_rating else None,
        TIMESTAMP.tokens(ts, source, lines) if has_time else None,
        source, np.asarray(lines, dtype=np.int64),
    )  # fmt: skip


def _user_item_rows(
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


def _frame_column(names, columns, role, candidates, source) -> str | None:
    """The frame column of ``role``: the one ``columns`` names, else the first of
    ``candidates`` among ``names``; None if there is none."""
    if columns and role in columns:
        if columns[role] not in names:
            raise InputError(f"{source}: no column {columns[role]!r} (columns: {names})")
        return columns[role]
    idx = delimited.find(names, candidates)
    return None if idx is None else names[idx]


def _frame_role(names, columns, role, candidates, source) -> str:
    """The frame column of a role every frame has (`_frame_column`, or an error)."""
    found = _frame_column(names, columns, role, candidates, source)
    if found is None:
        raise InputError(
            f"{source}: no {role} column among {', '.join(names)}; name it with "
            f"columns={{'{role}': ...}}"
        )
    return found


def _interactions_from_frame(frame, users, items, columns, source) -> Interactions:
    names = column_names(frame)
    u = _frame_role(names, columns, "user", USER_NAMES, source)
    i = _frame_role(names, columns, "item", ITEM_NAMES, source)
    r = _frame_column(names, columns, "rating", RATING_NAMES, source)
    t = _frame_column(names, columns, "timestamp", TIME_NAMES, source)
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


# -- recommendation lists --------------------------------------------------------------------


def read_recommendations(
    source: Any,
    *,
    users: Vocabulary | None = None,
    items: Vocabulary | None = None,
    name: str | None = None,
    columns: Mapping[str, str] | None = None,
    duplicates: str = "max-score",
) -> Run:
    """Recommendation lists (or rating predictions) as a `Run`: user = query, item =
    document, score (higher first).

    From a TREC run file, a delimited file (``user item [score]``), a DataFrame or Arrow
    table (``user``, ``item`` and ``score`` or ``rank`` columns; ``columns`` renames), a
    Parquet file, ``{user: {item: score}}`` or ``{user: [items, best first]}``.  A pair
    listed twice keeps its best score, with a warning (``duplicates="max-score"``); ``first``
    keeps its first occurrence, ``error`` refuses the list.
    """
    if duplicates not in ("max-score", "first", "error"):
        raise UsageError(
            f"duplicates must be 'max-score', 'first' or 'error', not {duplicates!r}"
        )

    def _deduplicated(run: Run) -> Run:
        return _one_per_pair(run, duplicates)

    users = Vocabulary() if users is None else users
    items = Vocabulary() if items is None else items
    if isinstance(source, Run):
        if source.queries is not users or source.docs is not items:
            source = Run(
                name or source.name, users, items,
                users.intern_many(source.queries.strings_of(source.query)),
                items.intern_many(source.docs.strings_of(source.doc)),
                source.score, source.source, source.line,
            )  # fmt: skip
        return _deduplicated(source)
    if isinstance(source, Mapping):
        return _deduplicated(_recs_from_dict(source, users, items, name or "recommendations"))
    if is_frame(source):
        return _deduplicated(
            _recs_from_frame(source, users, items, name or "recommendations", columns, None)
        )
    if str(source).endswith((".parquet", ".pq")):
        frame = frames.read_parquet(source)
        stem = name or Path(source).stem
        return _deduplicated(_recs_from_frame(frame, users, items, stem, columns, str(source)))
    data, src = delimited.load(source)
    first = next((s for _, s in delimited.content(delimited.lines(data[:65536]))), "")
    if delimited.separator(first) is None and len(first.split()) >= 6:
        # every line kept: a repeated pair is resolved below, with a warning
        return _deduplicated(parse_run_lines(data, src, users, items, name))
    _, header, rows, _ = delimited.rows(
        source, min_fields=2, what="recommendations", is_header=_header, data=(data, src)
    )
    return _deduplicated(_recs_from_rows(rows, header, columns, users, items, name, src))


def _recs_from_rows(rows, header, columns, users, items, name, source) -> Run:
    u_at, i_at, by_rank = 0, 1, False
    s_at: int | None = 2
    if header is not None:
        columns = dict(columns or {})
        u_found = delimited.find(header, [columns.get("user", "").lower()] + list(USER_NAMES))
        i_found = delimited.find(header, [columns.get("item", "").lower()] + list(ITEM_NAMES))
        u_at = 0 if u_found is None else u_found
        i_at = 1 if i_found is None else i_found
        s_at = delimited.find(header, [columns.get("score", "").lower()] + list(SCORE_NAMES))
        if s_at is None:
            s_at = delimited.find(header, [columns.get("rank", "").lower()] + list(RANK_NAMES))
            by_rank = s_at is not None
    has_score = s_at is not None and len(rows[0][1]) > s_at
    field = RANK if by_rank else SCORE
    scores = {field.name: s_at if has_score else None}
    us, its, values = _user_item_rows(rows, u_at, i_at, scores, source)
    ss, ls = values[field.name], [n for n, _ in rows]
    uc = users.intern_many(us)
    if has_score:
        score = field.tokens(ss, source, ls).astype(np.float64)
        score = -score if by_rank else score
    else:
        score = _order_scores(uc)
    return Run(
        name or file_stem(source), users, items, uc, items.intern_many(its), score,
        source=source, line=np.asarray(ls, dtype=np.int64),
    )  # fmt: skip


def _order_scores(user_codes: np.ndarray) -> np.ndarray:
    """Scores that rank each user's rows in input order: -(position within the user)."""
    n = len(user_codes)
    order = np.argsort(user_codes, kind="stable")
    sorted_users = user_codes[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_users[1:] != sorted_users[:-1])))
    sizes = np.diff(np.concatenate((starts, [n])))
    position = np.arange(n) - np.repeat(starts, sizes)
    score = np.empty(n, dtype=np.float64)
    score[order] = -(position + 1.0)
    return score


def _recs_from_frame(frame, users, items, name, columns, source) -> Run:
    source = source or f"<recommendations frame {name}>"
    names = column_names(frame)
    u = _frame_role(names, columns, "user", USER_NAMES, source)
    i = _frame_role(names, columns, "item", ITEM_NAMES, source)
    s = _frame_column(names, columns, "score", SCORE_NAMES, source)
    rank = None
    if s is None:
        rank = _frame_column(names, columns, "rank", RANK_NAMES, source)
    wanted = [c for c in (u, i, s, rank) if c is not None]
    cols = dict(zip(wanted, frames.frame_columns(frame, wanted, source), strict=True))
    if len(cols[u]) == 0:
        raise InputError(f"{source}: no recommendations")
    uc = frames.intern_ids(users, cols[u], source, "user id")
    if s is not None:
        score = SCORE.values(cols[s], source)
    elif rank is not None:
        score = -RANK.values(cols[rank], source).astype(np.float64)
    else:
        score = _order_scores(uc)
    return Run(
        name, users, items, uc, frames.intern_ids(items, cols[i], source, "item id"),
        score, source=source, line=np.arange(len(uc), dtype=np.int64),
    )  # fmt: skip


def _recs_from_dict(mapping, users, items, name) -> Run:
    source = f"<recommendations dict {name}>"
    us, its, ss = [], [], []
    for user, inner in mapping.items():
        if isinstance(inner, Mapping):
            for item, score in inner.items():
                us.append(str(user))
                its.append(str(item))
                ss.append(score)
        elif isinstance(inner, Iterable) and not isinstance(inner, str):
            for position, item in enumerate(inner, start=1):
                us.append(str(user))
                its.append(str(item))
                ss.append(-float(position))
        else:
            raise InputError(f"{source}: user {user!r}: expected {{item: score}} or [items]")
    score = SCORE.values(np.asarray(ss, dtype=object), source)
    return Run(
        name, users, items, users.intern_many(us), items.intern_many(its), score,
        source=source, line=np.arange(len(us), dtype=np.int64),
    )  # fmt: skip


def _one_per_pair(run: Run, policy: str) -> Run:
    """One row per (user, item): ``max-score`` keeps the best score, with a warning;
    ``first`` the first occurrence, silently (the user asked for it); ``error`` refuses."""
    pair = first_repeated(run.query, run.doc)
    if pair is None:
        return run
    if policy != "max-score":
        return resolve_duplicates(run, policy, option="--repeated-items")
    a, b = pair
    resolved = resolve_duplicates(run, "max-score")
    dropped = len(run) - len(resolved)
    item = run.docs.strings_of(run.doc[a : a + 1])[0]
    warn(
        f"{run.source}: {dropped} repeated (user, item) pair{'s' if dropped > 1 else ''}, "
        f"e.g. user '{run.queries.strings[run.query[a]]}' item '{item}'{where(run, a, b)}; "
        "the best score of each is kept"
    )
    return resolved


# -- item features ---------------------------------------------------------------------------


def read_item_features(
    source: Any, *, items: Vocabulary | None = None, columns: Mapping[str, str] | None = None
) -> ItemFeatures:
    """Item feature vectors from MovieLens ``u.item``, a delimited table (first column the
    item, numeric columns, or ``|``-separated labels in a ``genres``/``tags`` column), a
    DataFrame, ``{item: vector}``, ``{item: [labels]}`` or a tuple ``(item_ids, matrix)``."""
    items = Vocabulary() if items is None else items
    if isinstance(source, ItemFeatures):
        if source.items is items:
            return source
        codes = items.intern_many(source.items.strings_of(source.item))
        return ItemFeatures(items, codes, source.matrix, source.names, source.source)
    if isinstance(source, tuple) and len(source) == 2:
        ids, vectors = source
        ids = [str(i) for i in ids]
        matrix = _feature_matrix(vectors, "<features>")
        if matrix is None or matrix.shape[0] != len(ids):
            raise InputError("features: (item_ids, matrix) needs one matrix row per item id")
        names = [f"f{j}" for j in range(matrix.shape[1])]
        return _features(items, ids, matrix, names, "<features>")
    if isinstance(source, Mapping):
        return _features_from_dict(source, items)
    if is_frame(source):
        return _features_from_frame(source, items, columns, "<features frame>")
    raw, name = delimited.load(source)
    content = delimited.content(delimited.lines(raw))
    if not content:
        raise InputError(f"{name}: no item features found")
    if content[0][1].count("|") >= 5 and "," not in content[0][1].split("|")[0]:
        return _movielens_items(content, items, name)
    sep = delimited.separator(content[0][1])
    rows = [(n, delimited.split(s, sep)) for n, s in content]
    header = None
    if not all(looks_numeric(f) for f in rows[0][1][1:]):
        header = rows.pop(0)[1]
    return _features_from_rows(rows, header, items, name)


def _movielens_items(content, items, source) -> ItemFeatures:
    ids, vectors = [], []
    width = None
    for n, line in content:
        fields = line.split("|")
        flags = fields[5:]
        if len(fields) < 6 or not all(f in ("0", "1") for f in flags):
            raise InputError(
                f"{source}:{n}: expected MovieLens u.item fields "
                "(id|title|date|video date|url|genre flags 0/1)"
            )
        if width is None:
            width = len(flags)
        elif len(flags) != width:
            raise InputError(f"{source}:{n}: {len(flags)} genre flags, {width} on the first line")
        ids.append(fields[0])
        vectors.append([float(f) for f in flags])
    matrix = np.asarray(vectors, dtype=np.float64)
    genre = Path(source).with_name("u.genre") if source != "<stdin>" else None
    names = [f"genre{j}" for j in range(matrix.shape[1])]
    if genre is not None and genre.is_file():
        listed = [g.split("|")[0] for g in genre.read_text("latin-1").split("\n") if "|" in g]
        if len(listed) == matrix.shape[1]:
            names = listed
    return _features(items, ids, matrix, names, source)


def _features_from_rows(rows, header, items, source) -> ItemFeatures:
    width = len(header) if header is not None else len(rows[0][1])
    label_at = delimited.find(header, LABEL_NAMES) if header is not None else None
    numeric = []
    for j in range(1, width):
        if j == label_at:
            continue
        # a column most of whose values look like numbers holds numbers: its other values
        # (x, 1_000, nan, a missing one) are reported with their line, not read as text
        if 2 * sum(len(f) > j and looks_numeric(f[j]) for _, f in rows) > len(rows):
            numeric.append(j)
    ids = [f[0] for _, f in rows]
    lines = [n for n, _ in rows]
    parts = []
    names: list[str] = []
    if numeric:
        names += [header[j] if header else f"f{j}" for j in numeric]
        values = [
            _feature(names[k]).tokens([f[j] if len(f) > j else "" for _, f in rows], source, lines)
            for k, j in enumerate(numeric)
        ]
        parts.append(np.stack(values, axis=1))
    if label_at is not None:
        labels = [f[label_at].split("|") if len(f) > label_at else [] for _, f in rows]
        onehot, vocab = _one_hot(labels)
        parts.append(onehot)
        names += vocab
    if not parts:
        raise InputError(
            f"{source}: no numeric feature columns and no genres/tags column after the item id"
        )
    return _features(items, ids, np.hstack(parts), names, source)


def _one_hot(labels: list[list[str]]) -> tuple[np.ndarray, list[str]]:
    """One row per item, one column per distinct label (empty labels ignored)."""
    vocab = sorted({x for ls in labels for x in ls if x})
    index = {x: j for j, x in enumerate(vocab)}
    onehot = np.zeros((len(labels), len(vocab)))
    for r, ls in enumerate(labels):
        for x in ls:
            if x:
                onehot[r, index[x]] = 1.0
    return onehot, vocab


def _features_from_frame(frame, items, columns, source) -> ItemFeatures:
    names = column_names(frame)
    i = _frame_role(names, columns, "item", ITEM_NAMES, source)
    label = _frame_column(names, columns, "labels", LABEL_NAMES, source)
    cols = dict(zip(names, frames.frame_columns(frame, names, source), strict=True))
    ids = frames.id_strings(cols[i], source, "item id")
    parts, out_names = [], []
    for n in names:
        if n in (i, label):
            continue
        col = cols[n]
        if col.dtype.kind in "iufb":
            parts.append(_feature(n).values(col, source)[:, None])
            out_names.append(n)
    if label is not None:
        rows = [[] if v is None else str(v).split("|") for v in cols[label].tolist()]
        onehot, vocab = _one_hot(rows)
        parts.append(onehot)
        out_names += vocab
    if not parts:
        raise InputError(f"{source}: no numeric feature columns (columns: {names})")
    return _features(items, ids, np.hstack(parts), out_names, source)


def _features_from_dict(mapping, items) -> ItemFeatures:
    source = "<features dict>"
    ids = [str(k) for k in mapping]
    values = list(mapping.values())
    if values and all(isinstance(v, set | frozenset) or _is_labels(v) for v in values):
        vocab = sorted({str(x) for v in values for x in v})
        index = {x: j for j, x in enumerate(vocab)}
        matrix = np.zeros((len(ids), len(vocab)))
        for r, v in enumerate(values):
            for x in v:
                matrix[r, index[str(x)]] = 1.0
        return _features(items, ids, matrix, vocab, source)
    vectors = _feature_matrix(values, source)
    if vectors is None:
        raise InputError(f"{source}: expected {{item: vector}} or {{item: [labels]}}")
    return _features(items, ids, vectors, [f"f{j}" for j in range(vectors.shape[1])], source)


def _is_labels(v) -> bool:
    return isinstance(v, list | tuple) and all(isinstance(x, str) for x in v)


def _feature_matrix(vectors: Any, source: str) -> np.ndarray | None:
    """One row per vector, each column ``f{j}`` checked as every reader checks numbers (a bad
    one is an error naming its row); None when the vectors are not a matrix."""
    try:
        cells = np.asarray(vectors)
    except ValueError:  # ragged
        try:
            cells = np.asarray(vectors, dtype=object)
        except (TypeError, ValueError):
            return None
    if cells.ndim != 2:
        if cells.ndim == 1 and len({len(np.atleast_1d(v)) for v in cells.tolist()}) > 1:
            raise InputError(f"{source}: feature vectors must all have the same length")
        return None
    columns = [_feature(f"f{j}").values(cells[:, j], source) for j in range(cells.shape[1])]
    return np.stack(columns, axis=1) if columns else np.zeros(cells.shape)


def _features(items, ids, matrix, names, source) -> ItemFeatures:
    codes = items.intern_many(ids)
    pair = first_repeated(codes)
    if pair is not None:
        raise InputError(f"{source}: item '{ids[pair[1]]}' is described twice")
    return ItemFeatures(items, codes, matrix, list(names), source)
