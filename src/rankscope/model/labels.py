"""Several assessors' relevance labels: one row per (query, assessor, document) with a grade,
the input of assessor agreement (`rankscope.agreement`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .frames import to_frame
from .tables import _Rows
from .vocabulary import Vocabulary


@dataclass(frozen=True, eq=False)
class Labels(_Rows):
    """Relevance labels of several assessors: one row per (query, assessor, document), an
    integer grade each; an item is a (query, document) pair."""

    queries: Vocabulary
    assessors: Vocabulary
    docs: Vocabulary
    query: np.ndarray  # int32 codes into `queries`
    assessor: np.ndarray  # int32 codes into `assessors`
    doc: np.ndarray  # int32 codes into `docs`
    grade: np.ndarray  # int64
    source: str = "<labels>"
    line: np.ndarray | None = None  # 1-based input line of each row (0-based row for frames)

    def items(self, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Each row's item (a number per distinct (query, document), in the order of the
        pairs' codes) and each item's row of first appearance; ``rows``: a subset of rows."""
        query, doc = (self.query, self.doc) if rows is None else (self.query[rows], self.doc[rows])
        key = query.astype(np.int64) * max(len(self.docs), 1) + doc
        _, first, item = np.unique(key, return_index=True, return_inverse=True)
        return item.reshape(-1), first

    def matrix(
        self, rows: np.ndarray | None = None, by_assessor: bool = True
    ) -> tuple[np.ndarray, np.ndarray]:
        """The labels as a matrix of items × assessors (float, ``NaN`` where an assessor did
        not label an item), with each item's row of first appearance (an index into ``rows``,
        or into the labels).  ``rows``: a subset of rows (e.g. one query's).

        ``by_assessor=False``: column j holds each item's (j+1)-th label in input order
        instead of an assessor's, so that there are as many columns as the most labels of
        an item, not as many as assessors: enough for statistics that see each item's labels
        as a set (percent agreement, Fleiss' kappa, Krippendorff's alpha)."""
        selected = np.arange(len(self)) if rows is None else np.asarray(rows)
        item, first = self.items(selected)
        if by_assessor:
            _, column = np.unique(self.assessor[selected], return_inverse=True)
            column = column.reshape(-1)
        else:  # the rank of each row among its item's rows, in input order
            order = np.argsort(item, kind="stable")
            starts = np.searchsorted(item[order], np.arange(len(first)))
            column = np.empty(len(item), dtype=np.int64)
            column[order] = np.arange(len(item)) - starts[item[order]]
        width = int(column.max()) + 1 if len(column) else 0
        out = np.full((len(first), width), np.nan)
        out[item, column] = self.grade[selected]
        return out, first

    def to_frame(self, output: str = "pandas") -> Any:
        """A DataFrame with columns query_id, assessor, doc_id, relevance (pandas, polars or
        dict)."""
        columns = {
            "query_id": self.queries.strings_of(self.query),
            "assessor": self.assessors.strings_of(self.assessor),
            "doc_id": self.docs.strings_of(self.doc),
            "relevance": self.grade,
        }
        return to_frame(columns, output)
