"""Labelled preferences between pairs of rankings: ``qid run_a run_b label`` files, DataFrames,
dicts and tuples → `LabelledPairs`.

A label says which of two runs' rankings of one query is better: +1 run_a's, −1 run_b's, 0
neither (a tie).  Labels come from editorial side-by-side judgments, from interleaving
experiments, or from a metric (`rankscope.preference.learned.pairs_from_scores`).

A file has one label per line, fields separated by any run of blanks, blank lines and lines
whose first non-blank character is ``#`` skipped, ``.gz`` and ``-`` (standard input) read.
The label is an integer in {−1, 0, 1}; anything else, or a pair of a run with itself, is an
`InputError` naming the file and line.  The same pair may be labelled more than once
(several assessors, several impressions): every label counts.  DataFrames (pandas, polars,
Arrow; Parquet files) have the columns ``query_id``, ``run_a``, ``run_b`` and ``label``
(others named by role with ``columns=``, `COLUMNS`); errors name the row (from 0).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError
from .fields import Field, at_line, at_row, content_lines, decode
from .frames import frame_columns, given_frame, id_strings, role_columns
from .trec import read_bytes, source_name

LAYOUT = "qid run_a run_b label"
LABEL = Field("label", integer=True)
#: The roles of a labelled pairs frame's (or dict's) columns, each with its default name.
COLUMNS = {"query": "query_id", "run_a": "run_a", "run_b": "run_b", "label": "label"}


@dataclass(frozen=True, eq=False)
class LabelledPairs:
    """Labelled preferences: row k says ``label[k]`` ∈ {−1, 0, +1} of run ``run_a[k]`` over
    run ``run_b[k]`` on query ``query[k]``."""

    query: list[str]
    run_a: list[str]
    run_b: list[str]
    label: np.ndarray  # int64, in {-1, 0, 1}
    source: str = "<labelled pairs>"

    def __len__(self) -> int:
        return len(self.query)

    def subset(self, rows: np.ndarray) -> LabelledPairs:
        """The labels of the given rows (indices or a boolean mask), in that order."""
        index = np.arange(len(self))[rows]
        pick = index.tolist()
        return LabelledPairs(
            [self.query[i] for i in pick], [self.run_a[i] for i in pick],
            [self.run_b[i] for i in pick], self.label[index], self.source,
        )  # fmt: skip


PairsLike = LabelledPairs | str | os.PathLike | Mapping[str, Any] | Iterable[Any] | Any


def read_pairs(source: PairsLike, *, columns: Mapping[str, str] | None = None) -> LabelledPairs:
    """Labelled preferences from a ``qid run_a run_b label`` file (``.gz``, ``-``), a Parquet
    file, a pandas/polars DataFrame or Arrow table, a dict of four columns (named by role in
    ``columns`` where they are not `COLUMNS`' defaults), or an iterable of
    ``(query, run_a, run_b, label)`` tuples."""
    if isinstance(source, LabelledPairs):
        return source
    names = role_columns(COLUMNS, columns)
    given = given_frame(source, "<labelled pairs frame>")
    if given is not None:
        frame, name = given
        return _from_columns(frame_columns(frame, names, name, COLUMNS), name)
    if isinstance(source, str | os.PathLike):
        return parse_pairs(read_bytes(source), source_name(source))
    if isinstance(source, Mapping):
        missing = [n for n in names if n not in source]
        if missing:
            raise InputError(
                f"<labelled pairs dict>: missing column(s) {', '.join(map(repr, missing))}"
            )
        given_columns = [np.asarray(list(source[n]), dtype=object) for n in names]
        return _from_columns(given_columns, "<labelled pairs dict>")
    if isinstance(source, Iterable):
        rows = list(source)
        for i, row in enumerate(rows):
            if not isinstance(row, tuple | list) or len(row) != 4:
                raise InputError(
                    f"{at_row('<labelled pairs>', i)}: expected (query, run_a, run_b, label)"
                )
        row_columns = [np.asarray([r[k] for r in rows], dtype=object) for k in range(4)]
        return _from_columns(row_columns, "<labelled pairs>")
    raise InputError(f"labelled pairs must be a file, a DataFrame or rows, got {type(source)}")


def parse_pairs(data: bytes, source: str = "<labelled pairs>") -> LabelledPairs:
    """Labelled preferences from the text of a ``qid run_a run_b label`` file."""
    qs, a, b, labels = [], [], [], []
    for number, fields in content_lines(data, source, 4, layout=LAYOUT):
        label = LABEL.parse(fields[3], source, number)
        _check(decode(fields[1]), decode(fields[2]), int(label), at_line(source, number))
        qs.append(decode(fields[0]))
        a.append(decode(fields[1]))
        b.append(decode(fields[2]))
        labels.append(int(label))
    if not qs:
        raise InputError(f"{source}: no labelled pairs found")
    return LabelledPairs(qs, a, b, np.asarray(labels, dtype=np.int64), source)


def _from_columns(columns: list[np.ndarray], source: str) -> LabelledPairs:
    q = id_strings(columns[0], source, "query id")
    a = id_strings(columns[1], source, "run name")
    b = id_strings(columns[2], source, "run name")
    labels = LABEL.values(columns[3], source).astype(np.int64)
    if not q:
        raise InputError(f"{source}: no labelled pairs")
    for i in range(len(q)):
        _check(a[i], b[i], int(labels[i]), at_row(source, i))
    return LabelledPairs(q, a, b, labels, source)


def _check(a: str, b: str, label: int, where: str) -> None:
    if label not in (-1, 0, 1):
        raise InputError(f"{where}: label {label} is not -1, 0 or 1")
    if a == b:
        raise InputError(f"{where}: run '{a}' is compared with itself")
