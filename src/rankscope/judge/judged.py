"""What `judge` produces: `Judged` (a run ordered and joined with the judgments) and its
`Ranked` batches, the measure kernels' input.

Relevance values in a ranking follow trec_eval's conventions:

* a grade ``>= 0`` from the qrels,
* ``NONPOOL`` (-1) for a retrieved document the qrels do not mention,
* ``UNJUDGED`` (-2) for a document the qrels list with a negative grade (in the pool but not
  judged, as infAP's sampled pools use),
* ``PAD`` (-9) only in the rectangular `Ranked` batches, for ranks beyond the end of a ranking.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model import Vocabulary
from .aspects import Aspects

NONPOOL = -1

UNJUDGED = -2

PAD = -9


@dataclass(frozen=True, eq=False)
class Judged:
    """A run ordered and joined with the judgments, for the queries to be evaluated.

    Queries are in output order (ids sorted as strings, trec_eval's order).  Per query ``i``
    the ranked relevance values are ``grade[offsets[i]:offsets[i+1]]``.
    """

    run_name: str
    query_ids: list[str]
    offsets: np.ndarray  # int64, len = nq + 1: query i ranks offsets[i] .. offsets[i+1]-1
    judged_positions: np.ndarray  # int64, ascending: flat ranks of documents in the qrels
    judged_grades: np.ndarray  # int64: their grade (>= 0) or UNJUDGED
    doc: np.ndarray  # int32 flat: document code per rank
    rel_levels: np.ndarray  # int64 (nq, G): number of judged documents with grade g >= 0
    num_nonpool: np.ndarray  # int64 (nq,)
    num_unjudged: np.ndarray  # int64 (nq,)
    missing: np.ndarray  # bool (nq,): query has judgments but the run has no ranking for it
    relevance_level: int = 1
    docs: Vocabulary | None = None
    aspects: Aspects | None = None  # per-subtopic judgments (diversity qrels only)
    lengths: np.ndarray | None = None  # float per rank: document length in words (NaN unknown)
    runid: str | None = None  # trec_eval's runid (the run's tag; None: its name)

    @functools.cached_property
    def grade(self) -> np.ndarray:
        """Flat grade per rank: the judgment, `NONPOOL` or `UNJUDGED`."""
        out = np.full(int(self.offsets[-1]), NONPOOL, dtype=np.int64)
        out[self.judged_positions] = self.judged_grades
        return out

    @property
    def num_queries(self) -> int:
        return len(self.query_ids)

    @property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.offsets)

    def num_rel(self, level: int | None = None) -> np.ndarray:
        level = self.relevance_level if level is None else level
        return self.rel_levels[:, max(level, 0) :].sum(axis=1)

    def ranking(self, i: int) -> np.ndarray:
        return self.grade[self.offsets[i] : self.offsets[i + 1]]

    def batches(self, max_cells: int = 1 << 20) -> Iterator[tuple[slice, Ranked]]:
        """`Ranked` views over consecutive queries, each of at most about ``max_cells`` cells
        (counting the dense rectangle a measure may ask for)."""
        n = self.num_queries
        lengths = np.maximum(self.num_ret, 1)
        start = 0
        while start < n:
            # the widest ranking of the batch times its number of queries stays under budget
            width = np.maximum.accumulate(lengths[start:])
            rows = np.arange(1, n - start + 1)
            fits = np.flatnonzero(width * rows <= max_cells)
            stop = start + (int(fits[-1]) + 1 if len(fits) else 1)
            yield slice(start, stop), Ranked.from_judged(self, start, stop)
            start = stop


def _columns(rows: np.ndarray, nq: int) -> np.ndarray:
    """Column of each entry in its row's run of ``rows`` (sorted row indices)."""
    counts = np.bincount(rows, minlength=nq)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    return np.arange(len(rows)) - starts[rows]


#: Rank given to the padding of the sparse rectangles (beyond any real rank).
BEYOND = 1 << 40


class Ranked:
    """A batch of rankings for the measure kernels.

    Only the retrieved documents that appear in the qrels carry information (every other
    retrieved document is ``NONPOOL``), so a batch holds, per query, those documents' ranks
    and grades in rank order (a rectangle padded with rank `BEYOND` and grade `PAD`), and the
    counts: ranking length, judged documents per grade, non-pool and unjudged retrieved.
    Work is proportional to the judged documents retrieved, not to the ranking length.
    `dense` rebuilds the full rectangle of grades for the few measures that need every rank.

    Derived arrays (relevance masks, cumulative counts) are computed once per batch and
    shared by every measure that asks for them.
    """

    def __init__(
        self,
        rank: np.ndarray,
        grade: np.ndarray,
        num_ret: np.ndarray,
        rel_levels: np.ndarray,
        num_nonpool: np.ndarray,
        num_unjudged: np.ndarray,
        relevance_level: int = 1,
        aspects: np.ndarray | None = None,
        aspect_count: np.ndarray | None = None,
        aspect_pool: np.ndarray | None = None,
    ) -> None:
        self.rank = rank  # (b, J) int64, 1-based, ascending; BEYOND as padding
        self.grade = grade  # (b, J) int64: grade >= 0 or UNJUDGED; PAD as padding
        self.num_ret = num_ret
        self.rel_levels = rel_levels
        self.num_nonpool = num_nonpool
        self.num_unjudged = num_unjudged
        self.relevance_level = relevance_level
        # Diversity judgments (see `rankscope.judge.aspects`): the (b, J, S) subtopic relevance of
        # each entry, relevant documents per subtopic (b, S), the ideal's candidates (b, D, S).
        self.aspects = aspects
        self.aspect_count = aspect_count
        self.aspect_pool = aspect_pool
        # Document lengths (time-biased gain): flat lengths per rank and per-query offsets.
        self.lengths: tuple[np.ndarray, np.ndarray] | None = None
        self.rank_f = rank.astype(np.float64)
        self._cache: dict[tuple, object] = {}

    def __len__(self) -> int:
        return len(self.num_ret)

    @classmethod
    def from_judged(cls, judged: Judged, start: int, stop: int) -> Ranked:
        offsets = judged.offsets[start : stop + 1]
        known = judged.judged_positions
        a, b = np.searchsorted(known, [offsets[0], offsets[-1]])
        pos = known[a:b]
        rows = np.searchsorted(offsets, pos, side="right") - 1
        ranks = pos - offsets[rows] + 1
        out = cls._rectangle(
            rows, ranks, judged.judged_grades[a:b], stop - start, judged.num_ret[start:stop],
            judged.rel_levels[start:stop], judged.num_nonpool[start:stop],
            judged.num_unjudged[start:stop], judged.relevance_level,
        )  # fmt: skip
        asp = judged.aspects
        if asp is not None:
            cells = np.zeros((*out.rank.shape, asp.count.shape[1]), dtype=bool)
            if len(rows):
                cells[rows, _columns(rows, stop - start)] = asp.entry[a:b]
            out.aspects = cells
            out.aspect_count = asp.count[start:stop]
            out.aspect_pool = asp.pool[start:stop]
        if judged.lengths is not None:
            out.lengths = (judged.lengths[offsets[0] : offsets[-1]], offsets - offsets[0])
        return out

    @classmethod
    def _rectangle(cls, rows, ranks, grades, nq, num_ret, levels, nonpool, unjudged, level):
        counts = np.bincount(rows, minlength=nq)
        width = max(int(counts.max(initial=0)), 1)
        rank = np.full((nq, width), BEYOND, dtype=np.int64)
        grade = np.full((nq, width), PAD, dtype=np.int64)
        if len(rows):
            cols = _columns(rows, nq)
            rank[rows, cols] = ranks
            grade[rows, cols] = grades
        return cls(rank, grade, num_ret, levels, nonpool, unjudged, level)

    @classmethod
    def from_lists(
        cls,
        rankings: Sequence[Sequence[int]],
        judged_grades: Sequence[Sequence[int]] | None = None,
        relevance_level: int = 1,
    ) -> Ranked:
        """Build a batch by hand (tests, examples) from the grade at each rank.

        Grades: ``>= 0`` judged, `NONPOOL` (-1) not in the qrels, `UNJUDGED` (-2) in the pool
        but unjudged.  ``judged_grades[i]`` lists the grade of every judged document of query
        ``i``, retrieved or not; by default, the non-negative grades of the ranking.
        """
        nq = len(rankings)
        if judged_grades is None:
            judged_grades = [[g for g in r if g >= 0] for r in rankings]
        top = max([max(j, default=0) for j in judged_grades] + [0])
        levels = np.zeros((nq, top + 1), dtype=np.int64)
        for i, j in enumerate(judged_grades):
            for g in j:
                if g >= 0:
                    levels[i, g] += 1
        rows, ranks, grades = [], [], []
        for i, r in enumerate(rankings):
            for k, g in enumerate(r):
                if g != NONPOOL:
                    rows.append(i)
                    ranks.append(k + 1)
                    grades.append(g)
        num_ret = np.array([len(r) for r in rankings], dtype=np.int64)
        nonpool = np.array([sum(1 for g in r if g == NONPOOL) for r in rankings], dtype=np.int64)
        unjudged = np.array([sum(1 for g in r if g == UNJUDGED) for r in rankings], dtype=np.int64)
        return cls._rectangle(
            np.asarray(rows, dtype=np.int64), np.asarray(ranks, dtype=np.int64),
            np.asarray(grades, dtype=np.int64), nq, num_ret, levels, nonpool, unjudged,
            relevance_level,
        )  # fmt: skip

    def cached(self, key: tuple, make: Callable[[], Any]) -> Any:
        """``make()`` computed once per batch under ``key``."""
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def level(self, level: int | None) -> int:
        return self.relevance_level if level is None else int(level)

    @property
    def valid(self) -> np.ndarray:
        """Mask of real entries (not padding)."""
        return self.cached(("valid",), lambda: self.grade != PAD)

    @property
    def max_rank(self) -> int:
        return max(int(self.num_ret.max(initial=0)), 1)

    def rel(self, level: int | None = None) -> np.ndarray:
        """Mask of relevant entries (grade >= level)."""
        level = self.level(level)
        return self.cached(("rel", level), lambda: self.grade >= level)

    def rel_cum(self, level: int | None = None) -> np.ndarray:
        """Number of relevant documents at or above each entry's rank."""
        level = self.level(level)
        return self.cached(("rel_cum", level), lambda: np.cumsum(self.rel(level), axis=1))

    def count_at(self, mask: np.ndarray, k: int | np.ndarray) -> np.ndarray:
        """Number of entries in ``mask`` within the top ``k`` (a number or one per query)."""
        k = np.asarray(k)
        limit = k[:, None] if k.ndim else k
        return (mask & (self.rank <= limit)).sum(axis=1)

    def num_rel(self, level: int | None = None) -> np.ndarray:
        level = self.level(level)
        return self.rel_levels[:, max(level, 0) :].sum(axis=1)

    def num_rel_ret(self, level: int | None = None) -> np.ndarray:
        return self.rel_cum(level)[:, -1]

    @property
    def num_rel_levels(self) -> np.ndarray:
        """Per query, 1 + the highest grade with at least one judged document (0 if none)."""
        present = self.rel_levels > 0
        top = present.shape[1] - np.argmax(present[:, ::-1], axis=1)
        return np.where(present.any(axis=1), top, 0)

    def dense(self) -> np.ndarray:
        """The grade at every rank, (queries x longest ranking): `NONPOOL` where the qrels do
        not know the document, `PAD` past the end of a ranking."""

        def make() -> np.ndarray:
            width = self.max_rank
            out = np.where(np.arange(width)[None, :] < self.num_ret[:, None], NONPOOL, PAD).astype(
                np.int64
            )
            rows, cols = np.nonzero(self.valid)
            out[rows, self.rank[rows, cols] - 1] = self.grade[rows, cols]
            return out

        return self.cached(("dense",), make)

    def doc_lengths(self) -> np.ndarray | None:
        """Document length at every rank, shaped like `dense` (NaN: unknown or padding)."""
        if self.lengths is None:
            return None

        lengths = self.lengths

        def make() -> np.ndarray:
            flat, offsets = lengths
            out = np.full((len(self), self.max_rank), np.nan)
            counts = np.diff(offsets)
            rows = np.repeat(np.arange(len(self)), counts)
            out[rows, _columns(rows, len(self))] = flat
            return out

        return self.cached(("doc_lengths",), make)

    def entries(self, dense: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(ranks, grades) of the judged entries, or of every rank when ``dense``."""
        if not dense:
            return self.rank, self.grade
        d = self.dense()
        ranks = np.broadcast_to(np.arange(1, d.shape[1] + 1), d.shape)
        return ranks, d
