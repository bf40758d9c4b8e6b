"""Judgments and runs from DataFrames (pandas, polars), Arrow tables, Parquet files and dicts.

Default column names: ``query_id``, ``doc_id`` and ``relevance`` (qrels) or ``score`` (runs);
others can be named.  ``{qid: {docno: value}}`` dicts (pytrec_eval's and ranx's shape) are
accepted as well.  Validation is the same as for TREC files: missing or non-numeric values,
NaN or infinite scores and non-integer grades are errors naming the row.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import InputError
from ..model import Qrels, Run, Vocabulary
from ..model.frames import column_names
from .trec import resolve_duplicates


def _columns(frame: Any, names: list[str], source: str) -> list[np.ndarray]:
    """Columns of a pandas/polars DataFrame or Arrow table as numpy arrays."""
    available = column_names(frame)
    missing = [n for n in names if n not in available]
    if missing:
        raise InputError(
            f"{source}: missing column(s) {', '.join(map(repr, missing))}; columns are "
            f"{', '.join(map(repr, available))} (name others with query_col=, doc_col=, ...)"
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


def _ids(values: np.ndarray, source: str, what: str) -> list[str]:
    out = []
    for i, v in enumerate(values.tolist()):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            raise InputError(f"{source}: row {i}: missing {what}")
        out.append(v if isinstance(v, str) else str(v))
    return out


def _numbers(values: np.ndarray, source: str, what: str, integer: bool) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        for i, v in enumerate(values.tolist()):
            try:
                float(v)
            except (TypeError, ValueError):
                raise InputError(f"{source}: row {i}: {what} {v!r} is not a number") from None
        raise
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"{source}: row {i}: {what} {values[i]!r} is not a finite number")
    if integer:
        frac = arr != np.floor(arr)
        if frac.any():
            i = int(np.flatnonzero(frac)[0])
            raise InputError(f"{source}: row {i}: {what} {values[i]!r} is not an integer")
        return arr.astype(np.int64)
    return arr


def qrels_from_frame(
    frame: Any,
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    relevance_col: str = "relevance",
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
    source: str = "<qrels frame>",
) -> Qrels:
    q, d, g = _columns(frame, [query_col, doc_col, relevance_col], source)
    queries = Vocabulary() if queries is None else queries
    docs = Vocabulary() if docs is None else docs
    grade = _numbers(g, source, "relevance", integer=True)
    qc = queries.intern_many(_ids(q, source, "query id"))
    dc = docs.intern_many(_ids(d, source, "document id"))
    if len(qc) == 0:
        raise InputError(f"{source}: no judgments")
    return Qrels(queries, docs, qc, dc, grade, source=source)


def run_from_frame(
    frame: Any,
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    score_col: str = "score",
    name: str = "run",
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
    duplicates: str = "error",
    source: str | None = None,
) -> Run:
    source = source or f"<run frame {name}>"
    q, d, s = _columns(frame, [query_col, doc_col, score_col], source)
    queries = Vocabulary() if queries is None else queries
    docs = Vocabulary() if docs is None else docs
    score = _numbers(s, source, "score", integer=False)
    qc = queries.intern_many(_ids(q, source, "query id"))
    dc = docs.intern_many(_ids(d, source, "document id"))
    if len(qc) == 0:
        raise InputError(f"{source}: no ranked documents")
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


def qrels_from_dict(
    mapping: Mapping, queries: Vocabulary | None = None, docs: Vocabulary | None = None
) -> Qrels:
    source = "<qrels dict>"
    qs, ds, vs = _flatten(mapping, source, "relevance")
    grade = _numbers(np.asarray(vs, dtype=object), source, "relevance", integer=True)
    queries = Vocabulary() if queries is None else queries
    docs = Vocabulary() if docs is None else docs
    if not qs:
        raise InputError(f"{source}: no judgments")
    return Qrels(queries, docs, queries.intern_many(qs), docs.intern_many(ds), grade, source=source)


def run_from_dict(
    mapping: Mapping,
    name: str = "run",
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
) -> Run:
    source = f"<run dict {name}>"
    qs, ds, vs = _flatten(mapping, source, "score")
    score = _numbers(np.asarray(vs, dtype=object), source, "score", integer=False)
    queries = Vocabulary() if queries is None else queries
    docs = Vocabulary() if docs is None else docs
    if not qs:
        raise InputError(f"{source}: no ranked documents")
    line = np.arange(len(qs), dtype=np.int64)
    return Run(
        name, queries, docs, queries.intern_many(qs), docs.intern_many(ds), score, source, line
    )


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
    return pl.read_parquet(path)
