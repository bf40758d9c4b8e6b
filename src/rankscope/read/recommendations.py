"""Recommendation lists, read from files, DataFrames or dicts into a `Run` (user = query,
item = document, score), with the users and items interned into the evaluation's shared
vocabularies (`rankscope.read.interactions`).

Text files (``.gz`` and ``-`` accepted): TREC runs (``user Q0 item rank score tag``, at least
six fields: the score orders, as in trec_eval) or delimited ``user item [score]`` lines; a
header may name a ``rank`` column instead of a score (rank 1 first), and with two columns
the order of the lines is the order of each list.  Scores (ranks are integers) follow
`rankscope.read.fields`; a malformed line is an `InputError` naming the file and line.  A
(user, item) pair listed twice is a warning, and the list keeps the pair's best score
(``duplicates=``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, UsageError, warn
from ..model import Run, Vocabulary
from ..model.frames import column_names, is_frame
from . import delimited, frames
from .duplicates import first_repeated, resolve_duplicates, where
from .fields import (
    PINNED_NOT_A_FINITE_NUMBER,
    Field,
)
from .interactions import (
    ITEM_NAMES,
    USER_NAMES,
    frame_column,
    frame_role,
    is_header,
    user_item_rows,
)
from .runs import file_stem
from .trec import RANK, parse_run_lines

# tests/test_recsys.py pins "score 'nan' is not a finite number"
SCORE = Field("score", not_finite=PINNED_NOT_A_FINITE_NUMBER)

SCORE_NAMES = ("score", "prediction", "predicted", "pred", "estimate", "rating")
RANK_NAMES = ("rank", "position", "pos")


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
    if frames.is_parquet(source):
        frame = frames.read_parquet(source)
        stem = name or Path(source).stem
        return _deduplicated(_recs_from_frame(frame, users, items, stem, columns, str(source)))
    data, src = delimited.load(source)
    first = next((s for _, s in delimited.content(delimited.lines(data[:65536]))), "")
    if delimited.separator(first) is None and len(first.split()) >= 6:
        # every line kept: a repeated pair is resolved below, with a warning
        return _deduplicated(parse_run_lines(data, src, users, items, name))
    plain = delimited.table(data, is_header, src)
    if plain is not None:  # read column-wise
        u_at, i_at, s_at, by_rank = _layout(plain.header, columns)
        if max(u_at, i_at) < plain.width:
            uc = plain.codes(u_at, users)
            score = None
            if s_at is not None and s_at < plain.width:
                score = plain.numbers(s_at, RANK if by_rank else SCORE)
            ic = plain.codes(i_at, items)
            return _deduplicated(
                _recs(uc, ic, score, plain.lines, by_rank, users, items, name, src)
            )
    _, header, rows, _ = delimited.rows(
        source, min_fields=2, what="recommendations", is_header=is_header, data=(data, src)
    )
    return _deduplicated(_recs_from_rows(rows, header, columns, users, items, name, src))


def _layout(
    header: list[str] | None, columns: Mapping[str, str] | None
) -> tuple[int, int, int | None, bool]:
    """The positions of the user, the item and the score (or rank) fields, and whether the
    last is a rank: ``user item score`` without a header, else by the header's names."""
    if header is None:
        return 0, 1, 2, False
    columns = dict(columns or {})
    u_found = delimited.find(header, [columns.get("user", "").lower()] + list(USER_NAMES))
    i_found = delimited.find(header, [columns.get("item", "").lower()] + list(ITEM_NAMES))
    s_at = delimited.find(header, [columns.get("score", "").lower()] + list(SCORE_NAMES))
    by_rank = False
    if s_at is None:
        s_at = delimited.find(header, [columns.get("rank", "").lower()] + list(RANK_NAMES))
        by_rank = s_at is not None
    return 0 if u_found is None else u_found, 1 if i_found is None else i_found, s_at, by_rank


def _recs_from_rows(rows, header, columns, users, items, name, source) -> Run:
    u_at, i_at, s_at, by_rank = _layout(header, columns)
    has_score = s_at is not None and len(rows[0][1]) > s_at
    field = RANK if by_rank else SCORE
    scores = {field.name: s_at if has_score else None}
    us, its, values = user_item_rows(rows, u_at, i_at, scores, source)
    lines = [n for n, _ in rows]
    uc = users.intern_many(us)
    score = field.tokens(values[field.name], source, lines) if has_score else None
    ic = items.intern_many(its)
    return _recs(uc, ic, score, lines, by_rank, users, items, name, source)


def _recs(uc, ic, score, lines, by_rank, users, items, name, source) -> Run:
    """The `Run` of the user and item codes and the scores (or ranks: ``by_rank``) of lines
    ``lines`` (no scores: each user's lines in order)."""
    if score is not None:
        score = score.astype(np.float64)
        score = -score if by_rank else score
    else:
        score = _order_scores(uc)
    return Run(
        name or file_stem(source), users, items, uc, ic, score,
        source=source, line=np.asarray(lines, dtype=np.int64),
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
    u = frame_role(names, columns, "user", USER_NAMES, source)
    i = frame_role(names, columns, "item", ITEM_NAMES, source)
    s = frame_column(names, columns, "score", SCORE_NAMES, source)
    rank = None
    if s is None:
        rank = frame_column(names, columns, "rank", RANK_NAMES, source)
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
