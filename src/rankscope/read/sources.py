"""From what the user has to the model: paths (``.gz``, ``-``), directories, Parquet files,
DataFrames, Arrow tables and dicts → `Qrels` and `Run`, and the runs' names."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import UsageError
from ..model import Qrels, Run, Vocabulary
from ..model.frames import is_frame
from . import frames, irds
from . import trec as trec_io
from .duplicates import resolve_duplicates
from .runs import file_stem, run_names

QrelsLike = Qrels | str | os.PathLike | Mapping | Any

RunLike = Run | str | os.PathLike | Mapping | Any


def read_qrels(
    source: QrelsLike,
    *,
    columns: Mapping[str, str] | None = None,
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
    diversity: bool = False,
) -> Qrels:
    """Judgments from a TREC qrels file (``.gz``, ``-``), a Parquet file, a pandas/polars
    DataFrame or Arrow table, a ``{query_id: {doc_id: grade}}`` dict, or an ir_datasets
    dataset, ``"ir_datasets:ID"`` (`rankscope.read.irds`; the ``irds`` extra).

    ``columns`` names a frame's columns by role where they are not ``query_id``, ``doc_id``
    and ``relevance`` (``{"query": "qid", "doc": "docno"}``; roles `frames.QRELS_COLUMNS`).
    ``diversity=True`` reads a TREC file as diversity judgments, ``qid subtopic docno grade``.
    """
    if isinstance(source, Qrels):
        return source
    if irds.is_dataset(source):
        if diversity:
            raise UsageError(
                f"diversity judgments are read from TREC files, not from {source} (its "
                "qrels are read as ad hoc judgments)"
            )
        return irds.read_qrels(source, queries, docs)
    if diversity:
        if not isinstance(source, str | os.PathLike):
            raise UsageError("diversity judgments are read from TREC files (a path)")
        return trec_io.read_diversity_qrels(source, queries, docs)
    if isinstance(source, Mapping):
        return frames.qrels_from_dict(source, queries, docs)
    given = frames.given_frame(source, "<qrels frame>")
    if given is not None:
        frame, name = given
        return frames.qrels_from_frame(frame, columns, queries, docs, source=name)
    return trec_io.read_qrels(source, queries, docs)


def read_run(
    source: RunLike,
    *,
    name: str | None = None,
    columns: Mapping[str, str] | None = None,
    duplicates: str = "error",
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
    order: str = "score",
) -> Run:
    """A run from a TREC run file (``.gz``, ``-``), a Parquet file, a DataFrame or Arrow
    table, or a ``{query_id: {doc_id: score}}`` dict.

    ``columns`` names a frame's columns by role where they are not ``query_id``, ``doc_id``
    and ``score`` (roles `frames.RUN_COLUMNS`).  ``duplicates`` decides what a document
    listed twice for one query does: ``error`` (default), ``first`` or ``max-score``.
    ``order="rank"`` ranks a TREC file by its rank column instead of its scores (ndeval's
    default).
    """
    if isinstance(source, Run):
        return source if duplicates == "error" else resolve_duplicates(source, duplicates)
    if isinstance(source, Mapping):
        return resolve_duplicates(
            frames.run_from_dict(source, name or "run", queries, docs), duplicates
        )
    if is_frame(source):
        return frames.run_from_frame(source, columns, name or "run", queries, docs, duplicates)
    if frames.is_parquet(source):
        return frames.run_from_frame(
            frames.read_parquet(source), columns, name or Path(source).stem, queries, docs,
            duplicates, source=str(source),
        )  # fmt: skip
    if order != "score" and not isinstance(source, str | os.PathLike):
        raise UsageError("order='rank' needs a TREC run file (the rank column)")
    return trec_io.read_run(source, queries, docs, name, duplicates, order)


@dataclasses.dataclass(frozen=True)
class RunSource:
    """One run still to be read: what the user gave (a path, ``-``, a frame, a dict, a
    `Run`) and the name it is to have (None: its tag, or the source's own)."""

    given: Any
    name: str | None = None

    def read(
        self, queries: Vocabulary, docs: Vocabulary, duplicates: str = "error", order: str = "score"
    ) -> Run:
        """The run, its ids interned into ``queries`` and ``docs``."""
        return read_run(
            self.given, name=self.name, duplicates=duplicates, queries=queries, docs=docs,
            order=order,
        )  # fmt: skip


def run_sources(runs: Any, judgments: str | None = None, names: str = "file") -> list[RunSource]:
    """The runs in ``runs`` (one run, a list, a ``{name: run}`` dict, directories of run
    files), not read yet; ``judgments`` is the judgments' file, never taken for a run in a
    directory.  ``names`` as `resolve_runs`."""
    if names not in ("tag", "file"):
        raise UsageError(f"names must be 'tag' or 'file' (got {names!r})")
    if isinstance(runs, Run | str | os.PathLike) or is_frame(runs):
        runs = [runs]
    elif isinstance(runs, Mapping):
        first = next(iter(runs.values()), None)
        if (
            isinstance(first, Mapping)
            and first
            and not isinstance(next(iter(first.values())), Mapping)
        ):
            # {qid: {docno: score}}: a single run as a dict
            runs = [runs]
        else:
            return [RunSource(v, str(k)) for k, v in runs.items()]
    out: list[RunSource] = []
    for r in runs:
        is_path = isinstance(r, str | os.PathLike) and str(r) != "-"
        if is_path and Path(r).is_dir():
            out.extend(run_sources(trec_io.run_files([r], judgments=judgments), judgments, names))
        else:
            out.append(RunSource(r, file_stem(str(r)) if names == "file" and is_path else None))
    return out


def resolve_runs(
    runs: Any,
    qrels: Qrels | Any,
    duplicates: str = "error",
    order: str = "score",
    names: str = "file",
    distinct_for: str | None = None,
) -> list[Run]:
    """Runs from one run, a list, a ``{name: run}`` dict or directories of run files, read
    with the judgments' vocabularies (so that the join is on integer codes).

    ``distinct_for`` (say ``"a comparison"``): runs must have distinct names, one file given
    twice being a `UsageError` that names the purpose; by default (evaluation) it is a
    warning, and the runs are told apart by position.

    ``names="tag"``: a run file is named by its tag column, and runs whose tags collide by
    their files (`unique_run_names`); ``names="file"``: by its file name without ``.gz`` and
    a ``.txt``/``.run``/``.trec``/``.tsv`` extension, two files of one name being an error."""
    sources = run_sources(runs, getattr(qrels, "source", None), names)
    out = [s.read(qrels.queries, qrels.docs, duplicates, order) for s in sources]
    final = run_names([(r.name, r.source) for r in out], names, distinct_for)
    return [
        r if r.name == n else dataclasses.replace(r, name=n)
        for r, n in zip(out, final, strict=True)
    ]


def read_doc_lengths(source: Any) -> dict[str, float] | None:
    """Document lengths in words from ``{docno: words}`` or a file of ``docno words``
    lines; the numbers checked as every reader checks them."""
    if source is None:
        return None
    if isinstance(source, Mapping):
        words = trec_io.LENGTH.values(np.asarray(list(source.values()), dtype=object),
                                      "<doc lengths dict>")  # fmt: skip
        return dict(zip(map(str, source), words.tolist(), strict=True))
    return trec_io.read_doc_lengths(source)
