"""Judgments and runs from DataFrames (pandas, polars), Arrow tables, Parquet files and dicts.

Default column names: ``query_id``, ``doc_id`` and ``relevance`` (qrels) or ``score`` (runs);
others are named by role with ``columns={"query": "qid", ...}`` (`role_columns`, the one way
every frame reader of judgments, runs, labels and labelled pairs names its columns).
``{qid: {docno: value}}`` dicts (pytrec_eval's and ranx's shape) are accepted as well.
Validation is the same as for TREC files (`rankscope.read.fields`): missing or non-numeric
values, NaN or infinite scores, non-integer grades and strings that TREC files would reject
(``"1_000"``) are errors naming the row (counted from 0).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, UsageError
from ..model import Qrels, Run, Vocabulary
from ..model.frames import column_names, is_frame, is_spark_frame
from .duplicates import resolve_duplicates
from .fields import NOT_A_NUMBER, PINNED_NOT_A_FINITE_NUMBER, Field, at_row, vocabularies

# tests/test_io.py::test_dict_values_are_validated pins "... is not a finite number" and
# "relevance 'x' is not a number"
RELEVANCE = Field("relevance", integer=True, not_a_number=NOT_A_NUMBER)
SCORE = Field("score", not_finite=PINNED_NOT_A_FINITE_NUMBER)
#: The roles of a judgments frame's and of a run frame's columns, each with its default
#: column name (``columns=`` names others, `role_columns`).
QRELS_COLUMNS = {"query": "query_id", "doc": "doc_id", "relevance": "relevance"}
RUN_COLUMNS = {"query": "query_id", "doc": "doc_id", "score": "score"}


def role_columns(roles: Mapping[str, str], columns: Mapping[str, str] | None) -> list[str]:
    """The column name of each of ``roles`` (role -> default name), in their order: the one
    ``columns`` (role -> name) gives, else the default.  A role ``columns`` gives that is
    not one of ``roles`` is a `UsageError` listing them."""
    given = dict(columns or {})
    unknown = sorted(set(given) - set(roles))
    if unknown:
        raise UsageError(
            f"unknown column role(s) {', '.join(map(repr, unknown))} in columns=: the roles "
            f"are {', '.join(roles)}"
        )
    return [given.get(role, default) for role, default in roles.items()]


def frame_columns(
    frame: Any, names: list[str], source: str, roles: Mapping[str, str] | None = None
) -> list[np.ndarray]:
    """Columns of a pandas/polars DataFrame or Arrow table as numpy arrays.  ``roles``: the
    roles the names stand for (`role_columns`), for the error when one is missing."""
    if is_spark_frame(frame):
        raise UsageError(
            f"{source} is a Spark DataFrame: an input of backend='spark' only, with the test "
            "log and every list given as Spark DataFrames"
        )
    available = column_names(frame)
    missing = [n for n in names if n not in available]
    if missing:
        hint = f" (name others with columns={{role: name}}, roles {', '.join(roles or ())})"
        raise InputError(
            f"{source}: missing column(s) {', '.join(map(repr, missing))}; columns are "
            f"{', '.join(map(repr, available))}{hint if roles else ''}"
        )
    out = []
    for n in names:
        col = frame[n]
        if hasattr(col, "to_numpy"):
            arr = col.to_numpy()
        else:  # pyarrow ChunkedArray
            arr = np.asarray(col.to_pylist(), dtype=object)
        out.append(np.asarray(arr))
    return out


def intern_ids(vocabulary: Vocabulary, values: np.ndarray, source: str, what: str) -> np.ndarray:
    """The codes of a column of ids in ``vocabulary`` (interned there when new), as
    ``vocabulary.intern_many(id_strings(...))`` gives them.  A column of integers (user and
    item ids of a large log) is interned one distinct id at a time, in the order of first
    appearance, so that the codes are the same."""
    if values.dtype.kind not in "iu" or len(values) < 2:
        return vocabulary.intern_many(id_strings(values, source, what))
    return intern_distinct(vocabulary, values, lambda distinct: [str(v) for v in distinct])


def intern_distinct(
    vocabulary: Vocabulary, keys: np.ndarray, texts: Callable[[list[Any]], list[str]]
) -> np.ndarray:
    """The codes of a column of ids given as ``keys`` (numbers or byte strings, one key per
    id), as ``vocabulary.intern_many`` gives them for the ids themselves: the distinct keys
    are interned in the order of their first appearance, each as the id ``texts`` makes of
    it (``texts``: the distinct keys, a list, to their ids), and no other id is made a
    Python string (a column of millions of rows has far fewer distinct ids)."""
    if keys.dtype.kind in "iu" and len(keys) and 0 <= keys.min() and keys.max() < 4 * len(keys):
        # small integers (the ids of a large log): indexed, not sorted
        first = np.full(int(keys.max()) + 1, len(keys), dtype=np.int64)
        np.minimum.at(first, keys, np.arange(len(keys)))
        distinct = np.flatnonzero(first < len(keys))
        seen = distinct[np.argsort(first[distinct], kind="stable")]
        codes = np.empty(len(first), dtype=np.int32)
        codes[seen] = vocabulary.intern_many(texts(seen.tolist()))
        return codes[keys]
    distinct, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    seen = np.argsort(first, kind="stable")  # the distinct ids in order of first appearance
    codes = np.empty(len(distinct), dtype=np.int32)
    codes[seen] = vocabulary.intern_many(texts(distinct[seen].tolist()))
    return codes[inverse.reshape(-1)]


def id_strings(values: np.ndarray, source: str, what: str) -> list[str]:
    """A column of ids as strings; a missing one (None, NaN) is an error naming the row."""
    out = []
    for i, v in enumerate(values.tolist()):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            raise InputError(f"{at_row(source, i)}: missing {what}")
        out.append(v if isinstance(v, str) else str(v))
    return out


def _coded_rows(
    frame: Any,
    roles: Mapping[str, str],
    columns: Mapping[str, str] | None,
    field: Field,
    queries: Vocabulary | None,
    docs: Vocabulary | None,
    source: str,
    what: str,
) -> tuple[Vocabulary, Vocabulary, np.ndarray, np.ndarray, np.ndarray]:
    """A frame's query and document columns as codes, and its value column checked as
    ``field`` (a frame without rows is an error: no ``what``)."""
    q, d, v = frame_columns(frame, role_columns(roles, columns), source, roles)
    queries, docs = vocabularies(queries, docs)
    values = field.values(v, source)
    qc = intern_ids(queries, q, source, "query id")
    dc = intern_ids(docs, d, source, "document id")
    if len(qc) == 0:
        raise InputError(f"{source}: no {what}")
    return queries, docs, qc, dc, values


def qrels_from_frame(
    frame: Any,
    columns: Mapping[str, str] | None = None,
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
    source: str = "<qrels frame>",
) -> Qrels:
    """Judgments from a frame's query, document and relevance columns (`QRELS_COLUMNS`,
    others named by ``columns``)."""
    queries, docs, qc, dc, grade = _coded_rows(
        frame, QRELS_COLUMNS, columns, RELEVANCE, queries, docs, source, "judgments"
    )
    return Qrels(queries, docs, qc, dc, grade, source=source)


def run_from_frame(
    frame: Any,
    columns: Mapping[str, str] | None = None,
    name: str = "run",
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
    duplicates: str = "error",
    source: str | None = None,
) -> Run:
    """The run ``name`` from a frame's query, document and score columns (`RUN_COLUMNS`,
    others named by ``columns``), its repeated documents resolved by ``duplicates``."""
    source = source or f"<run frame {name}>"
    queries, docs, qc, dc, score = _coded_rows(
        frame, RUN_COLUMNS, columns, SCORE, queries, docs, source, "ranked documents"
    )
    line = np.arange(len(qc), dtype=np.int64)
    run = Run(name, queries, docs, qc, dc, score, source=source, line=line)
    return resolve_duplicates(run, duplicates)


def _flatten(mapping: Mapping, source: str, what: str) -> tuple[list[str], list[str], list[Any]]:
    qs, ds, vs = [], [], []
    for q, inner in mapping.items():
        if not isinstance(inner, Mapping):
            raise InputError(f"{source}: query {q!r}: expected a {{doc_id: {what}}} mapping")
        for d, v in inner.items():
            qs.append(str(q))
            ds.append(str(d))
            vs.append(v)
    return qs, ds, vs


def _dict_rows(
    mapping: Mapping, field: Field, queries: Vocabulary | None, docs: Vocabulary | None,
    source: str, value: str, what: str,
) -> tuple[Vocabulary, Vocabulary, np.ndarray, np.ndarray, np.ndarray]:
    """The rows of a ``{query_id: {doc_id: value}}`` dict: the vocabularies (new ones unless
    given), the query and document codes and the values read as ``field``; an empty dict is
    an `InputError` saying it has no ``what``."""
    qs, ds, vs = _flatten(mapping, source, value)
    values = field.values(np.asarray(vs, dtype=object), source)
    queries, docs = vocabularies(queries, docs)
    if not qs:
        raise InputError(f"{source}: no {what}")
    return queries, docs, queries.intern_many(qs), docs.intern_many(ds), values


def qrels_from_dict(
    mapping: Mapping, queries: Vocabulary | None = None, docs: Vocabulary | None = None
) -> Qrels:
    source = "<qrels dict>"
    queries, docs, qc, dc, grade = _dict_rows(
        mapping, RELEVANCE, queries, docs, source, "relevance", "judgments"
    )
    return Qrels(queries, docs, qc, dc, grade, source=source)


def run_from_dict(
    mapping: Mapping,
    name: str = "run",
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
) -> Run:
    source = f"<run dict {name}>"
    queries, docs, qc, dc, score = _dict_rows(
        mapping, SCORE, queries, docs, source, "score", "ranked documents"
    )
    line = np.arange(len(qc), dtype=np.int64)
    return Run(name, queries, docs, qc, dc, score, source, line)


def is_parquet(source: Any) -> bool:
    """Whether ``source`` is the path of a Parquet file (``.parquet``, ``.pq``): how every
    reader tells a Parquet file from a text file before it reads either."""
    return isinstance(source, str | os.PathLike) and str(source).endswith((".parquet", ".pq"))


def given_frame(source: Any, name: str) -> tuple[Any, str] | None:
    """The table ``source`` gives and the name its errors are to use: a DataFrame or Arrow
    table as it is (named ``name``), a Parquet file read (named by its path); None when
    ``source`` is neither."""
    if is_frame(source):
        return source, name
    if is_parquet(source):
        return read_parquet(source), str(source)
    return None


def read_parquet(path: str | os.PathLike) -> Any:
    """A Parquet file as a polars DataFrame (or pandas, if polars is not installed)."""
    try:
        import polars as pl
    except ImportError:
        try:
            import pandas as pd
        except ImportError:
            raise ImportError(
                "reading Parquet needs polars or pandas+pyarrow: pip install 'rankscope[frames]'"
            ) from None
        return pd.read_parquet(path)
    # polars reads a str or a pathlib.Path, not any os.PathLike (pandas reads all three)
    return pl.read_parquet(path if isinstance(path, str | Path) else Path(path))
