"""From what the user has to the model: paths (``.gz``, ``-``), directories, Parquet files,
DataFrames, Arrow tables and dicts → `Qrels` and `Run`, and the runs' names."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, UsageError, warn
from ..model import Qrels, Run, Vocabulary, check_distinct_names
from ..model.frames import is_frame
from . import frames, irds
from . import trec as trec_io
from .duplicates import resolve_duplicates

QrelsLike = Qrels | str | os.PathLike | Mapping | Any

RunLike = Run | str | os.PathLike | Mapping | Any


def _is_parquet(path: str | os.PathLike) -> bool:
    return str(path).endswith((".parquet", ".pq"))


def read_qrels(
    source: QrelsLike,
    *,
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    relevance_col: str = "relevance",
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
    diversity: bool = False,
) -> Qrels:
    """Judgments from a TREC qrels file (``.gz``, ``-``), a Parquet file, a pandas/polars
    DataFrame or Arrow table, a ``{query_id: {doc_id: grade}}`` dict, or an ir_datasets
    dataset, ``"ir_datasets:ID"`` (`rankscope.read.irds`; the ``irds`` extra).

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
    if is_frame(source):
        return frames.qrels_from_frame(source, query_col, doc_col, relevance_col, queries, docs)
    if _is_parquet(source):
        return frames.qrels_from_frame(
            frames.read_parquet(source), query_col, doc_col, relevance_col, queries, docs,
            source=str(source),
        )  # fmt: skip
    return trec_io.read_qrels(source, queries, docs)


def read_run(
    source: RunLike,
    *,
    name: str | None = None,
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    score_col: str = "score",
    duplicates: str = "error",
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
    order: str = "score",
) -> Run:
    """A run from a TREC run file (``.gz``, ``-``), a Parquet file, a DataFrame or Arrow
    table, or a ``{query_id: {doc_id: score}}`` dict.

    ``duplicates`` decides what a document listed twice for one query does: ``error``
    (default), ``first`` or ``max-score``.  ``order="rank"`` ranks a TREC file by its rank
    column instead of its scores (ndeval's default).
    """
    if isinstance(source, Run):
        return source if duplicates == "error" else resolve_duplicates(source, duplicates)
    if isinstance(source, Mapping):
        return resolve_duplicates(
            frames.run_from_dict(source, name or "run", queries, docs), duplicates
        )
    if is_frame(source):
        return frames.run_from_frame(
            source, query_col, doc_col, score_col, name or "run", queries, docs, duplicates
        )
    if _is_parquet(source):
        return frames.run_from_frame(
            frames.read_parquet(source), query_col, doc_col, score_col,
            name or Path(source).stem, queries, docs, duplicates, source=str(source),
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


@dataclasses.dataclass(frozen=True)
class _Named:
    name: str
    source: str


def run_names(
    runs: Sequence[tuple[str, str]], names: str = "file", distinct_for: str | None = None
) -> list[str]:
    """The names of runs read as ``(name, source)`` (see `resolve_runs`): tags that collide
    replaced by file names (``names="tag"``), two files of one name an error
    (``names="file"``), one file given twice a warning, or an error with ``distinct_for``."""
    named = [_Named(n, s) for n, s in runs]
    if distinct_for is not None:
        files = [r.source for r in named if not r.source.startswith("<")]
        twice = next((f for f in files if files.count(f) > 1), None)
        if twice is not None:
            raise UsageError(f"{twice} is given twice: runs must be distinct for {distinct_for}")
    if names == "tag":
        named = unique_run_names(named)
        if distinct_for is not None:
            check_distinct_names(named, distinct_for)
        return [r.name for r in named]
    seen: dict[str, _Named] = {}
    for run in named:
        if run.name in seen and seen[run.name].source == run.source:
            warn(f"{run.source} is given twice; its runs are told apart by position")
        elif run.name in seen:
            raise UsageError(
                f"two runs are named {run.name!r}: {seen[run.name].source} and {run.source} "
                "(rename a file, or name the runs by their tags: --names tag, names='tag')"
            )
        seen[run.name] = run
    return [r.name for r in named]


def check_common_queries(judgments: Any, runs: list[Run]) -> None:
    """Raise `InputError` for a run that ranks queries, none of them judged: nothing can be
    compared (usually the wrong file), where the evaluation would print a table of zeros.
    ``judgments``: `Qrels` or any judgments with ``queries`` and ``query`` codes."""
    for run in runs:
        ranked = run.queries.strings_of(np.unique(run.query))
        error = no_common_query(judgments, run.name, run.source, ranked)
        if error is not None:
            raise error


def no_common_query(
    judgments: Any, name: str, source: str, ranked: Sequence[str]
) -> InputError | None:
    """`check_common_queries`'s error for the run ``name`` read from ``source``, which ranks
    the queries ``ranked``; None when it shares a query with the judgments (or either side
    has none)."""
    judged = set(judgments.queries.strings_of(np.unique(judgments.query)))
    ranked = sorted(ranked)
    if not judged or not ranked or not judged.isdisjoint(ranked):
        return None
    shown = sorted(judged)
    return InputError(
        f"run '{name}' ({source}) and the judgments "
        f"({getattr(judgments, 'source', 'given')}) have no query in common: nothing "
        f"to compare (the run ranks {_few(ranked)}; the judgments are for "
        f"{_few(shown)}); are these the right files?"
    )


def _few(ids: list[str], n: int = 3) -> str:
    return ", ".join(ids[:n]) + (f", ... {len(ids) - n} more" if len(ids) > n else "")


def file_stem(source: str) -> str:
    """A system's name from its file: the file name without ``.gz`` and one extension of
    a run or a list (``.txt``, ``.run``, ``.trec``, ``.tsv``, ``.csv``, ``.dat``; and
    ``.parquet``, as `read_run` names a Parquet run)."""
    name = Path(source).name.removesuffix(".gz")
    for suffix in (".txt", ".run", ".trec", ".tsv", ".csv", ".dat", ".parquet"):
        name = name.removesuffix(suffix)
    return name


def unique_run_names(runs: list[Any]) -> list[Any]:
    """Runs (or anything with a ``name`` and a ``source``) whose tags collide are named
    after their files instead (and said so)."""
    names = [r.name for r in runs]
    clash = {n for n in names if names.count(n) > 1}
    if not clash:
        return runs
    out = []
    for r in runs:
        if r.name in clash and not r.source.startswith("<"):
            r = dataclasses.replace(r, name=file_stem(r.source))
        out.append(r)
    renamed = [r.name for r in out]
    if len(set(renamed)) != len(renamed):
        dup = sorted({n for n in renamed if renamed.count(n) > 1})
        warn(f"several runs share a name ({', '.join(dup)}); rows are told apart by position")
    else:
        warn(
            f"runs tagged {', '.join(sorted(clash))} come from several files; "
            "they are named after their files"
        )
    return out


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
