"""Judgments and runs: rows of (query code, document code, value), as numpy columns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UsageError
from .frames import to_frame
from .vocabulary import Vocabulary


class _Rows:
    """What judgments and runs share: rows of (query code, document code, value)."""

    query: np.ndarray
    doc: np.ndarray
    queries: Vocabulary
    docs: Vocabulary

    def __len__(self) -> int:
        return len(self.query)

    @property
    def query_ids(self) -> list[str]:
        """The ids of the queries with at least one row, sorted as strings."""
        present = np.flatnonzero(np.bincount(self.query))  # (np.unique: 8 times longer)
        return sorted(self.queries.strings_of(present))

    def _frame(self, name: str, values: np.ndarray, output: str) -> Any:
        """Columns query_id, doc_id and ``name`` as a frame of kind ``output``."""
        qs, ds = self.queries.strings, self.docs.strings
        columns = {
            "query_id": [qs[c] for c in self.query.tolist()],
            "doc_id": [ds[c] for c in self.doc.tolist()],
            name: values,
        }
        return to_frame(columns, output)

    def _nested(self, values: np.ndarray) -> dict[str, dict]:
        qs, ds = self.queries.strings, self.docs.strings
        out: dict[str, dict] = {}
        rows = zip(self.query.tolist(), self.doc.tolist(), values.tolist(), strict=True)
        for q, d, v in rows:
            out.setdefault(qs[q], {})[ds[d]] = v
        return out


@dataclass(frozen=True, eq=False)
class _Judged(_Rows):
    """What every kind of judgments starts with (`Qrels`, `model.judgments`' `Prefs` and
    `GroupedQrels`): the two vocabularies, then each row's query and document codes; the
    subclasses add what a row judges."""

    queries: Vocabulary
    docs: Vocabulary
    query: np.ndarray  # int32 codes into `queries`
    doc: np.ndarray  # int32 codes into `docs`


@dataclass(frozen=True, eq=False)
class Qrels(_Judged):
    """Relevance judgments: one row per (query, document) with an integer grade.

    A negative grade marks a document that is in the pool but was not judged.
    """

    grade: np.ndarray  # int64
    source: str = "<qrels>"
    line: np.ndarray | None = None  # 1-based input line of each row, for messages
    subtopic: np.ndarray | None = None  # diversity qrels: the subtopic of each row

    def collapse(self) -> Qrels:
        """Ad hoc judgments from diversity ones: a document's grade is its highest grade over
        the query's subtopics (the general relevance)."""
        if self.subtopic is None:
            return self
        key = self.query.astype(np.int64) * max(len(self.docs), 1) + self.doc
        order = np.lexsort((-self.grade, key))
        first = np.concatenate(([True], key[order][1:] != key[order][:-1]))
        keep = np.sort(order[first])
        return Qrels(
            self.queries, self.docs, self.query[keep], self.doc[keep], self.grade[keep],
            source=self.source, line=None if self.line is None else self.line[keep],
        )  # fmt: skip

    def to_frame(self, output: str = "pandas") -> Any:
        """A DataFrame with columns query_id, doc_id, relevance (pandas, polars or dict)."""
        return self._frame("relevance", self.grade, output)

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{query_id: {doc_id: grade}}``."""
        return self._nested(self.grade)


@dataclass(frozen=True, eq=False)
class Run(_Rows):
    """A system's output: one row per (query, document) with a score (higher ranks first)."""

    name: str
    queries: Vocabulary
    docs: Vocabulary
    query: np.ndarray  # int32
    doc: np.ndarray  # int32
    score: np.ndarray  # float64
    source: str = "<run>"
    line: np.ndarray | None = None  # 1-based input line of each row (0-based row for frames)
    tag: str | None = None  # a TREC run file's tag column (trec_eval's runid), if any

    @property
    def runid(self) -> str:
        """What trec_eval prints as ``runid``: the tag column, else the run's name."""
        return self.tag or self.name

    def to_frame(self, output: str = "pandas") -> Any:
        """A DataFrame with columns query_id, doc_id, score (pandas, polars or dict)."""
        return self._frame("score", self.score, output)

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query_id: {doc_id: score}}``."""
        return self._nested(self.score)


def check_distinct_names(runs: Sequence[Any], what: str = "a comparison") -> None:
    """`UsageError` unless every run (anything with a ``name`` and a ``source``) has its own
    name: ``what`` (a comparison, preferences) tells systems apart by name, so one file
    given twice, or two runs of one name, is a mistake the message names."""
    seen: dict[str, Any] = {}
    for run in runs:
        first = seen.setdefault(run.name, run)
        if first is run:
            continue
        if first.source == run.source:
            raise UsageError(f"{run.source} is given twice: runs must be distinct for {what}")
        raise UsageError(
            f"two runs are named {run.name!r} ({first.source} and {run.source}): names must "
            f"be distinct for {what} (rename a file, or name the runs by file or tag: --names)"
        )
