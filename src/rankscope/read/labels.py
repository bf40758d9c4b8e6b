"""Several assessors' labels: ``qid assessor docno grade`` text files and DataFrames →
`rankscope.model.Labels`.

A labels file has the layout of a TREC qrels file whose second column names the assessor:
one line per judgment, fields separated by any run of blanks, blank lines and lines whose
first non-blank character is ``#`` skipped, ``.gz`` and ``-`` (standard input) read, grades
integers in the syntax of `rankscope.read.fields`.  A malformed line is an `InputError`
naming the file, the line and the field; a (query, assessor, document) given twice is an
error naming both lines.  A negative grade is TREC's "in the pool, not judged": it is no
label, and such lines are left out with a warning.

DataFrames (pandas, polars, Arrow; Parquet files) have the columns ``query_id``,
``assessor``, ``doc_id`` and ``relevance`` (others named by role with ``columns=``,
`COLUMNS`), one row per label; errors name the row (from 0).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import InputError, warn
from ..model import Labels, Vocabulary
from .duplicates import first_repeated
from .frames import RELEVANCE, frame_columns, given_frame, intern_ids, role_columns
from .trec import graded_rows, read_bytes, source_name

LAYOUT = "qid assessor docno grade"
#: The roles of a labels frame's columns, each with its default column name.
COLUMNS = {"query": "query_id", "assessor": "assessor", "doc": "doc_id", "relevance": "relevance"}

LabelsLike = Labels | str | os.PathLike | Any


def parse_labels(data: bytes, source: str = "<labels>") -> Labels:
    """Labels from the text of a ``qid assessor docno grade`` file."""
    qs, assessors, ds, grades, lines = graded_rows(data, source, LAYOUT, "labels")
    return _labels(
        _coded(qs), _coded(assessors), _coded(ds), np.asarray(grades, dtype=np.int64), source,
        lines,
    )  # fmt: skip


Coded = tuple[Vocabulary, np.ndarray]  # a column of ids: its vocabulary and its codes


def _labels(
    qs: Coded, assessors: Coded, ds: Coded, grades: np.ndarray, source: str, lines: Any
) -> Labels:
    """Labels of the given columns, checked: each (query, assessor, document) once, negative
    grades left out (with a warning)."""
    q, a, d = qs[1], assessors[1], ds[1]
    vocabularies = (qs[0], assessors[0], ds[0])
    line = np.asarray(lines, dtype=np.int64)
    pair = first_repeated(q, a, d)
    if pair is not None:
        i, j = pair
        what = "lines" if not source.startswith("<") else "rows"
        raise InputError(
            f"{source}: assessor '{vocabularies[1].strings[a[i]]}' labels document "
            f"'{vocabularies[2].strings[d[i]]}' of query '{vocabularies[0].strings[q[i]]}' "
            f"twice ({what} {line[i]} and {line[j]})"
        )
    unjudged = np.flatnonzero(grades < 0)
    if len(unjudged):
        where = "line" if not source.startswith("<") else "row"
        warn(
            f"{source}: {len(unjudged)} label(s) with a negative grade (TREC's 'not judged', "
            f"first at {where} {line[unjudged[0]]}) are left out"
        )
        kept = grades >= 0
        if not kept.any():
            raise InputError(f"{source}: no labels found (every grade is negative)")
        q, a, d, grades, line = q[kept], a[kept], d[kept], grades[kept], line[kept]
    return Labels(*vocabularies, q, a, d, grades, source=source, line=line)


def _coded(strings: list[str]) -> Coded:
    vocabulary = Vocabulary()
    return vocabulary, vocabulary.intern_many(strings)


def read_labels(source: LabelsLike, *, columns: Mapping[str, str] | None = None) -> Labels:
    """Several assessors' labels from a ``qid assessor docno grade`` file (``.gz``, ``-``),
    a Parquet file, or a pandas/polars DataFrame or Arrow table (one row per label, its
    columns named by role in ``columns`` where they are not `COLUMNS`' defaults)."""
    if isinstance(source, Labels):
        return source
    given = given_frame(source, "<labels frame>")
    if given is not None:
        frame, name = given
        return labels_from_frame(frame, columns, source=name)
    if not isinstance(source, str | os.PathLike):
        raise InputError(f"labels must be a file or a DataFrame, got {type(source).__name__}")
    return parse_labels(read_bytes(source), source_name(source))


def labels_from_frame(
    frame: Any, columns: Mapping[str, str] | None = None, source: str = "<labels frame>"
) -> Labels:
    """Labels from a frame's four columns (`COLUMNS`, others named by role in ``columns``;
    ids as strings or integers, integer grades)."""
    q, a, d, v = frame_columns(frame, role_columns(COLUMNS, columns), source, COLUMNS)
    grades = RELEVANCE.values(v, source)
    vocabularies = [Vocabulary(), Vocabulary(), Vocabulary()]
    codes = [
        intern_ids(vocabulary, column, source, what)
        for vocabulary, column, what in zip(
            vocabularies, (q, a, d), ("query id", "assessor", "document id"), strict=True
        )
    ]
    if len(codes[0]) == 0:
        raise InputError(f"{source}: no labels")
    rows = np.arange(len(grades))
    return _labels(
        (vocabularies[0], codes[0]), (vocabularies[1], codes[1]), (vocabularies[2], codes[2]),
        np.asarray(grades, dtype=np.int64), source, rows,
    )  # fmt: skip
