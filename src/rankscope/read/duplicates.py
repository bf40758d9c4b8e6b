"""Repeated keys: the one place that finds a row repeating an earlier row's key — a document
twice for a query, a judgment twice in a subtopic or a judgment group, a (user, item) pair
twice in a log — and what a run does about it (``duplicates=`` error, first, max-score)."""

from __future__ import annotations

import numpy as np

from ..errors import InputError, UsageError
from ..model import Run, native

DUPLICATE_POLICIES = ("error", "first", "max-score")


def group_key(*columns: np.ndarray) -> np.ndarray:
    """One int64 per row, equal for two rows exactly when every column is."""
    if len(columns) == 1 and columns[0].dtype.kind in "iu":
        return columns[0].astype(np.int64)
    key = np.zeros(len(columns[0]), dtype=np.int64)
    span = 1
    for column in columns:
        column = np.asarray(column).astype(np.int64)
        low = int(column.min(initial=0))
        size = int(column.max(initial=0)) - low + 1
        span *= size
        if span >= 1 << 62:  # the mixed-radix key would overflow: number the keys instead
            stacked = np.stack([np.asarray(c).astype(np.int64) for c in columns])
            return np.unique(stacked, axis=1, return_inverse=True)[1].reshape(-1)
        key = key * size + (column - low)
    return key


def first_repeated(*columns: np.ndarray) -> tuple[int, int] | None:
    """Rows (i, j), i < j: j is the first row, in input order, whose key (its values in
    ``columns``) an earlier row i already had; None when every key is unique."""
    n = len(columns[0])
    if n < 2:
        return None
    fast = native()
    if fast is not None and len(columns) == 2 and all(c.dtype.kind in "iu" for c in columns):
        low = min(int(c.min()) for c in columns)
        sizes = [int(c.max()) + 1 for c in columns]
        if low >= 0 and max(sizes) < 1 << 31:
            # O(rows), no sort: what keeps reading a 7M-line run fast
            first, second = (np.ascontiguousarray(c, dtype=np.int32) for c in columns)
            return fast.first_duplicate(first, second, *sizes)
    key = group_key(*columns)
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[order][1:] == key[order][:-1])
    if not len(same):
        return None
    later = order[same + 1]
    k = int(np.argmin(later))
    return int(order[same[k]]), int(later[k])


def check_judged_once(
    pair: tuple[int, int] | None,
    source: str,
    queries: list[str],
    docs: list[str],
    lines: list[int],
    within: list[str],
) -> None:
    """Raise for the repeated judgment ``pair`` (rows i, j of a reader's lists) found by
    `first_repeated`, naming the document, the query, where within the query (``within``:
    per row, e.g. "subtopic 2") and both lines; nothing when ``pair`` is None."""
    if pair is not None:
        a, b = pair
        raise InputError(
            f"{source}: document '{docs[a]}' is judged twice for query '{queries[a]}' "
            f"{within[a]} (lines {lines[a]} and {lines[b]})"
        )


def resolve_duplicates(
    run: Run, policy: str = "error", option: str = "--duplicates",
    repeated: tuple[int, ...] | None = None,
) -> Run:  # fmt: skip
    """Deal with a document listed twice for one query.

    ``error`` (default) raises naming query, document and both lines (trec_eval refuses
    such runs too); ``first`` keeps the first occurrence; ``max-score`` keeps the
    highest-scored one (the first among equals).  ``option``: the command-line option the
    error names (``recsys --repeated-items`` for recommendation lists).  ``repeated``:
    what `first_repeated` gives for the run's rows (``()`` for None) when the reader found
    it already (`RunShape.repeated`); None: found here.
    """
    if policy not in DUPLICATE_POLICIES:
        raise UsageError(
            f"unknown duplicates policy {policy!r}; choose one of {', '.join(DUPLICATE_POLICIES)}"
        )
    if repeated is None:
        pair = first_repeated(run.query, run.doc)
    else:
        pair = (repeated[0], repeated[1]) if repeated else None
    if pair is None:
        return run
    if policy == "error":
        a, b = pair
        problem = (
            f"{run.source}: document '{run.docs.strings_of(run.doc[a : a + 1])[0]}' appears "
            f"twice for query '{run.queries.strings[run.query[a]]}'{where(run, a, b, ' at ')}"
        )
        raise InputError(
            f"{problem} (use duplicates='first' or 'max-score' to keep one)",
            cli=f"{problem} (use {option} first or {option} max-score to keep one)",
        )
    return take(run, kept_rows(group_key(run.query, run.doc), policy, run.score))


def kept_rows(key: np.ndarray, policy: str, value: np.ndarray | None = None) -> np.ndarray:
    """The rows kept, in input order, when rows sharing a key are merged: ``first`` (the
    first row of each key), ``max-score`` (the highest ``value``, the first among equals) or
    ``latest`` (the highest ``value``, the last among equals)."""
    n = len(key)
    position = np.arange(n)
    value = np.zeros(n) if value is None else value
    if policy == "first":
        order = np.argsort(key, kind="stable")
        keep = np.concatenate(([True], key[order][1:] != key[order][:-1]))
    elif policy == "max-score":
        order = np.lexsort((position, -value, key))
        keep = np.concatenate(([True], key[order][1:] != key[order][:-1]))
    elif policy == "latest":
        order = np.lexsort((position, value, key))
        keep = np.concatenate((key[order][1:] != key[order][:-1], [True]))
    else:
        raise UsageError(f"unknown policy {policy!r}")
    return np.sort(order[keep])


def where(rows, a: int, b: int, before: str = " (") -> str:
    """`` (lines 3 and 7)`` — rows for frames and dicts —, or nothing without line numbers;
    ``before=' at '`` gives `` at lines 3 and 7``."""
    if rows.line is None:
        return ""
    what = "rows" if rows.source.startswith("<") else "lines"
    after = ")" if before.endswith("(") else ""
    return f"{before}{what} {rows.line[a]} and {rows.line[b]}{after}"


def take(run: Run, rows: np.ndarray) -> Run:
    return Run(
        run.name, run.queries, run.docs, run.query[rows], run.doc[rows], run.score[rows],
        source=run.source, line=None if run.line is None else run.line[rows], tag=run.tag,
    )  # fmt: skip
