"""The data model: `Qrels`, `Run`, `Judged`, and the one function that orders and joins.

Every evaluation follows one path::

    Qrels, Run --judge()--> Judged --batches()--> Ranked --measure kernels--> per-query values

Ids are interned once into dense integer codes (`Vocabulary`); everything else is numpy
columns.  `judge` is the only place where a run is ordered (score descending, then the tie
policy) and joined with the judgments; measures never re-sort or re-join.

Relevance values in a ranking follow trec_eval's conventions:

* a grade ``>= 0`` from the qrels,
* ``NONPOOL`` (-1) for a retrieved document the qrels do not mention,
* ``UNJUDGED`` (-2) for a document the qrels list with a negative grade (in the pool but not
  judged, as infAP's sampled pools use),
* ``PAD`` (-9) only in the rectangular `Ranked` batches, for ranks beyond the end of a ranking.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .aspects import Aspects, build_aspects

NONPOOL = -1
UNJUDGED = -2
PAD = -9

#: Tie policies for documents with equal scores within a query.
TIE_POLICIES = ("docno-desc", "docno-asc", "input-order")


class RankscopeWarning(UserWarning):
    """A surprising but recoverable situation in the input (reported, never silent)."""


class InputError(ValueError):
    """Malformed or inconsistent input; the message names the source, line and problem."""


class Vocabulary:
    """Interns string ids to dense ``int32`` codes, in first-seen order.

    Shared between qrels and runs, so that the join is integer-based.  Backed by the compiled
    interner when it is built (ids then live in one byte arena, and Python strings are made
    only on request), else by a dict; both behave the same.
    """

    __slots__ = ("_native", "_index", "_strings")

    def __init__(self, strings: Iterable[str] = (), *, pure: bool | None = None) -> None:
        from .io._native import native

        module = None if pure else native()
        self._native = module.Interner() if module is not None else None
        self._index: dict[str, int] = {}
        self._strings: list[str] = []
        if strings:
            self.intern_many(list(strings))

    @property
    def native(self):
        """The compiled interner, or None for the pure-Python backend."""
        return self._native

    def __len__(self) -> int:
        return len(self._native) if self._native is not None else len(self._strings)

    def __contains__(self, s: object) -> bool:
        if self._native is not None:
            return isinstance(s, str) and self._native.lookup(s) >= 0
        return s in self._index

    def intern(self, s: str) -> int:
        if self._native is not None:
            return self._native.intern(s)
        code = self._index.get(s)
        if code is None:
            code = len(self._strings)
            self._index[s] = code
            self._strings.append(s)
        return code

    def intern_many(self, strings: Sequence[str]) -> np.ndarray:
        if self._native is not None:
            return np.frombuffer(self._native.intern_many(strings), dtype=np.int32)
        index = self._index
        out = []
        append = out.append
        for s in strings:
            code = index.get(s)
            if code is None:
                code = len(self._strings)
                index[s] = code
                self._strings.append(s)
            append(code)
        return np.asarray(out, dtype=np.int32)

    def lookup_many(self, strings: Sequence[str], missing: int = -1) -> np.ndarray:
        if self._native is not None:
            codes = np.frombuffer(self._native.lookup_many(strings), dtype=np.int32)
            return codes if missing == -1 else np.where(codes < 0, missing, codes)
        get = self._index.get
        return np.asarray([get(s, missing) for s in strings], dtype=np.int32)

    def code(self, s: str) -> int:
        if self._native is not None:
            c = self._native.lookup(s)
            if c < 0:
                raise KeyError(s)
            return c
        return self._index[s]

    @property
    def strings(self) -> list[str]:
        """The id of each code (index = code).  Do not modify."""
        if self._native is not None:
            return self._native.strings()
        return self._strings

    def strings_of(self, codes: np.ndarray) -> list[str]:
        """The ids of ``codes`` (without making every id a Python string)."""
        if self._native is not None:
            return self._native.strings_of(np.ascontiguousarray(codes, dtype=np.int32))
        strings = self._strings
        return [strings[c] for c in np.asarray(codes).tolist()]

    def translate(self, other: Vocabulary) -> np.ndarray:
        """Array mapping each code of ``other`` to this vocabulary's code (-1 if absent)."""
        if other is self:
            return np.arange(len(self), dtype=np.int32)
        if self._native is not None and other._native is not None:
            return np.frombuffer(self._native.translate(other._native), dtype=np.int32)
        return self.lookup_many(other.strings)


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
        present = np.unique(self.query)
        return sorted(self.queries.strings[c] for c in present.tolist())

    def _nested(self, values: np.ndarray) -> dict[str, dict]:
        qs, ds = self.queries.strings, self.docs.strings
        out: dict[str, dict] = {}
        rows = zip(self.query.tolist(), self.doc.tolist(), values.tolist(), strict=True)
        for q, d, v in rows:
            out.setdefault(qs[q], {})[ds[d]] = v
        return out


@dataclass(frozen=True, eq=False)
class Qrels(_Rows):
    """Relevance judgments: one row per (query, document) with an integer grade.

    A negative grade marks a document that is in the pool but was not judged.
    """

    queries: Vocabulary
    docs: Vocabulary
    query: np.ndarray  # int32 codes into `queries`
    doc: np.ndarray  # int32 codes into `docs`
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

    def to_frame(self, output: str = "pandas"):
        """A DataFrame with columns query_id, doc_id, relevance (pandas, polars or dict)."""
        from .io.frames import qrels_to_frame

        return qrels_to_frame(self, output)

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

    def to_frame(self, output: str = "pandas"):
        """A DataFrame with columns query_id, doc_id, score (pandas, polars or dict)."""
        from .io.frames import run_to_frame

        return run_to_frame(self, output)

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query_id: {doc_id: score}}``."""
        return self._nested(self.score)


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
        # Diversity judgments (see `rankscope.aspects`): the (b, J, S) subtopic relevance of
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

    def cached(self, key: tuple, make):
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

    def count_at(self, mask: np.ndarray, k) -> np.ndarray:
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

        def make() -> np.ndarray:
            flat, offsets = self.lengths
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


@dataclass
class JoinReport:
    """What `judge` noticed: queries present on one side only."""

    run_only: list[str] = field(default_factory=list)
    qrels_only: list[str] = field(default_factory=list)

    def summary(self, run_name: str, complete: bool) -> list[str]:
        lines = []
        if self.run_only:
            lines.append(
                f"run '{run_name}': {len(self.run_only)} "
                f"quer{'y' if len(self.run_only) == 1 else 'ies'} without judgments ignored "
                f"({_first_few(self.run_only)})"
            )
        if self.qrels_only:
            what = "scored 0 (-c)" if complete else "left out of the averages"
            lines.append(
                f"run '{run_name}': {len(self.qrels_only)} judged "
                f"quer{'y' if len(self.qrels_only) == 1 else 'ies'} not in the run, {what} "
                f"({_first_few(self.qrels_only)})"
            )
        return lines


def _first_few(ids: Sequence[str], n: int = 5) -> str:
    shown = ", ".join(ids[:n])
    return shown + (f", ... {len(ids) - n} more" if len(ids) > n else "")


def order_run(run: Run, ties: str = "docno-desc") -> np.ndarray:
    """Row order of ``run``: by query code, then score descending, then the tie policy.

    * ``docno-desc`` (default): equal scores ordered by document id descending, as trec_eval.
    * ``docno-asc``: by document id ascending.
    * ``input-order``: as they appear in the input.
    """
    ranking = _rank_rows(run, np.arange(len(run.queries), dtype=np.int64), ties)
    return ranking.take(np.arange(len(run), dtype=np.int64))


class _Ranking:
    """The ranked order of a run's rows, without materialising it when it is cheap to avoid.

    Either an explicit row index array, or the run's blocks of rows (each query's rows,
    already best-first) listed in output order, with tied stretches reordered (``fixes``:
    rows going to positions).
    """

    def __init__(self, order=None, starts=None, lengths=None, fixes=None) -> None:
        self.order, self.starts, self.lengths, self.fixes = order, starts, lengths, fixes

    def truncate(self, counts: np.ndarray, depth: int) -> None:
        """Keep the first ``depth`` rows of each query (``counts``: rows per query, in order)."""
        if self.order is None:
            self.lengths = np.minimum(self.lengths, depth)
            return
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        rank0 = np.arange(len(self.order)) - np.repeat(starts, counts)
        self.order = self.order[rank0 < depth]

    def take(self, column: np.ndarray) -> np.ndarray:
        """``column`` (one value per row of the run) in ranked order."""
        if self.order is not None:
            return column[self.order]
        if self.fixes is not None:
            column = column.copy()
            column[self.fixes[0]] = column[self.fixes[1]]
        if len(self.starts) == 1 or (
            np.all(self.starts[1:] == self.starts[:-1] + self.lengths[:-1])
        ):
            a = int(self.starts[0]) if len(self.starts) else 0
            return column[a : a + int(self.lengths.sum())]
        pieces = zip(self.starts.tolist(), self.lengths.tolist(), strict=True)
        return np.concatenate([column[a : a + n] for a, n in pieces])


def _rank_rows(run: Run, key_of_query: np.ndarray, ties: str) -> _Ranking:
    """Rows of queries with ``key_of_query[code] >= 0``, ordered by that key, then score
    descending, then ``ties``."""
    if ties not in TIE_POLICIES:
        raise ValueError(f"unknown tie policy {ties!r}; choose one of {', '.join(TIE_POLICIES)}")
    q, s = run.query, run.score
    n = len(q)
    if n == 0:
        return _Ranking(order=np.zeros(0, dtype=np.int64))
    change = q[1:] != q[:-1]
    starts = np.flatnonzero(np.concatenate(([True], change)))
    block_query = q[starts]
    contiguous = len(np.unique(block_query)) == len(block_query)
    if contiguous and bool(np.all(change | (s[1:] <= s[:-1]))):
        # Usual case: each query's lines together, best first. Reorder the tied stretches
        # inside the blocks, then list the blocks in key order; no sort of the rows.
        fixes = None
        if ties != "input-order":
            fixes = _tie_fixes(run, None, ~change & (s[1:] == s[:-1]), ties)
        block_key = key_of_query[block_query]
        by_key = np.argsort(block_key, kind="stable")
        by_key = by_key[block_key[by_key] >= 0]
        lengths = np.diff(np.concatenate((starts, [n])))
        return _Ranking(starts=starts[by_key], lengths=lengths[by_key], fixes=fixes)
    key = key_of_query[q]
    rows = np.flatnonzero(key >= 0)
    k, sc = key[rows], s[rows]
    order = rows[np.lexsort((-sc, k))]
    if ties != "input-order":
        ko, so = key[order], s[order]
        fixes = _tie_fixes(run, order, (ko[1:] == ko[:-1]) & (so[1:] == so[:-1]), ties)
        if fixes is not None:
            order[fixes[0]] = fixes[1]
    return _Ranking(order=order)


def _tie_fixes(run: Run, order: np.ndarray | None, tied: np.ndarray, ties: str):
    """Where the rows of each tied stretch go when ordered by document id.

    ``order`` lists rows by position (None: position = row); ``tied[i]``: the rows at
    positions i and i + 1 have equal query and score.  Returns (positions, rows) or None.
    """
    pairs = np.flatnonzero(tied)
    if not len(pairs):
        return None
    # stretches of consecutive tied pairs: positions first .. last
    new_run = np.concatenate(([True], pairs[1:] != pairs[:-1] + 1))
    first = pairs[new_run]
    last = np.append(pairs[np.flatnonzero(new_run)[1:] - 1], pairs[-1]) + 1
    sizes = last - first + 1
    stretch = np.repeat(np.arange(len(first)), sizes)
    positions = np.repeat(first - np.concatenate(([0], np.cumsum(sizes)[:-1])), sizes)
    positions += np.arange(len(positions))
    members = positions if order is None else order[positions]
    keys = np.array(run.docs.strings_of(run.doc[members]))
    by_doc = np.argsort(keys, kind="stable")
    if ties == "docno-desc":
        by_doc = by_doc[::-1]
    rearranged = by_doc[np.argsort(stretch[by_doc], kind="stable")]
    return positions, members[rearranged]


def judge(
    qrels: Qrels,
    run: Run,
    *,
    relevance_level: int = 1,
    ties: str = "docno-desc",
    max_docs: int | None = None,
    judged_only: bool = False,
    complete: bool = False,
    report: JoinReport | None = None,
    doc_lengths: Mapping[str, float] | None = None,
) -> Judged:
    """Order ``run`` and join it with ``qrels``: the one place where this happens.

    Parameters
    ----------
    relevance_level:
        Minimum grade counted as relevant (trec_eval ``-l``).
    ties:
        Tie policy for equal scores (see `order_run`).
    max_docs:
        Keep only the first ``max_docs`` documents of each ranking (trec_eval ``-M``).
    judged_only:
        Drop documents without a judgment (>= 0) after truncation (trec_eval ``-J``).
    complete:
        Evaluate every query of the qrels; queries missing from the run get an empty
        ranking and ``missing`` set, and score 0 (trec_eval ``-c``).  Otherwise they are
        left out (as trec_eval 9 and pytrec_eval do).
    report:
        Filled with the queries found on one side only.
    doc_lengths:
        Document lengths in words, ``{docno: words}``, for measures that model reading time
        (time-biased gain); documents it does not list have an unknown length.
    """
    if relevance_level < 0:
        raise ValueError("relevance_level must be >= 0")
    diversity = qrels if qrels.subtopic is not None else None
    qrels = qrels.collapse()
    _check_qrels_duplicates(qrels)
    # Queries: those of the qrels, in output order (ids sorted as strings).
    q_map = qrels.queries.translate(run.queries)  # run query code -> qrels query code
    judged_q = np.zeros(len(qrels.queries), dtype=bool)
    judged_q[qrels.query] = True
    per_run_query = _query_sizes(run)
    ranked_q = per_run_query > 0
    present = np.zeros(len(qrels.queries), dtype=bool)
    present[q_map[ranked_q & (q_map >= 0)]] = True
    present &= judged_q
    if report is not None:
        strings = run.queries.strings
        report.run_only = sorted(
            strings[c]
            for c in np.flatnonzero(ranked_q).tolist()
            if q_map[c] < 0 or not judged_q[q_map[c]]
        )
        report.qrels_only = sorted(
            qrels.queries.strings[c] for c in np.flatnonzero(judged_q & ~present).tolist()
        )
    codes = np.flatnonzero(judged_q & (present | complete))
    names = [qrels.queries.strings[c] for c in codes.tolist()]
    out_order = sorted(range(len(codes)), key=names.__getitem__)
    codes = codes[out_order]
    query_ids = [names[i] for i in out_order]
    nq = len(codes)
    slot = np.full(len(qrels.queries), -1, dtype=np.int64)
    slot[codes] = np.arange(nq)

    # Judgment counts per grade.
    g = qrels.grade
    top = max(int(g.max(initial=0)), 0)
    qslot = slot[qrels.query]
    keep = (qslot >= 0) & (g >= 0)
    levels = np.bincount(qslot[keep] * (top + 1) + g[keep], minlength=nq * (top + 1)).reshape(
        nq, top + 1
    )

    # Rank the run's rows query by query, in output order.
    slot_of_run_query = np.where(q_map >= 0, slot[np.maximum(q_map, 0)], -1)
    ranking = _rank_rows(run, slot_of_run_query, ties)
    counts = np.zeros(nq, dtype=np.int64)
    kept = slot_of_run_query >= 0
    counts[slot_of_run_query[kept]] = per_run_query[kept]
    if max_docs is not None:
        ranking.truncate(counts, max(max_docs, 0))
        counts = np.minimum(counts, max(max_docs, 0))
    docs = ranking.take(run.doc)
    offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])

    # Join: only documents the qrels mention can have a grade.
    in_qrels = np.zeros(len(qrels.docs) + 1, dtype=bool)
    in_qrels[qrels.doc] = True
    qdocs = docs if run.docs is qrels.docs else qrels.docs.translate(run.docs)[docs]
    cand = np.flatnonzero(in_qrels[qdocs])
    cand_slot = np.searchsorted(offsets, cand, side="right") - 1
    grades = np.zeros(0, dtype=np.int64)
    entry_key = np.zeros(0, dtype=np.int64)  # per judged entry: its row of the sorted keys
    if len(cand) or diversity is not None:
        # the judged (query slot, document) keys, sorted
        ndocs = np.int64(max(len(qrels.docs), 1))
        sel = qslot >= 0
        qkeys = qslot[sel] * ndocs + qrels.doc[sel]
        qgrades = g[sel]
        by_key = np.argsort(qkeys, kind="stable")
        qkeys, qgrades = qkeys[by_key], qgrades[by_key]
    if len(cand):
        rkeys = cand_slot * ndocs + qdocs[cand]
        pos = np.minimum(np.searchsorted(qkeys, rkeys), len(qkeys) - 1)
        found = qkeys[pos] == rkeys
        cand, cand_slot = cand[found], cand_slot[found]
        hit = qgrades[pos[found]]
        grades = np.where(hit >= 0, hit, UNJUDGED).astype(np.int64)
        entry_key = pos[found]
    else:
        cand, cand_slot = cand[:0], cand_slot[:0]
    aspects = None
    if diversity is not None:
        dslot = slot[diversity.query]
        aspects = build_aspects(diversity, dslot, nq, qkeys, entry_key, relevance_level)
    unjudged = np.bincount(cand_slot[grades == UNJUDGED], minlength=nq).astype(np.int64)
    nonpool = counts - np.bincount(cand_slot, minlength=nq)

    if judged_only:
        keepj = grades >= 0
        cand, cand_slot, grades = cand[keepj], cand_slot[keepj], grades[keepj]
        if aspects is not None:
            aspects = aspects.select(keepj)
        docs = docs[cand]
        counts = np.bincount(cand_slot, minlength=nq)
        np.cumsum(counts, out=offsets[1:])
        cand = np.arange(len(grades), dtype=np.int64)
        nonpool = np.zeros(nq, dtype=np.int64)
        unjudged = np.zeros(nq, dtype=np.int64)
    lengths = None
    if doc_lengths is not None:
        table = np.full(len(run.docs) + 1, np.nan)
        names = list(doc_lengths)
        known = run.docs.lookup_many(names, missing=-1)
        words = np.asarray([float(doc_lengths[n]) for n in names], dtype=np.float64)
        if np.any(~np.isfinite(words) | (words < 0)):
            raise ValueError("document lengths must be finite and non-negative")
        table[known[known >= 0]] = words[known >= 0]
        lengths = table[docs]
    return Judged(
        run_name=run.name,
        query_ids=query_ids,
        offsets=offsets,
        judged_positions=cand.astype(np.int64),
        judged_grades=grades,
        doc=docs.astype(np.int32, copy=False),
        rel_levels=levels.astype(np.int64),
        num_nonpool=nonpool.astype(np.int64),
        num_unjudged=unjudged,
        missing=~present[codes],
        relevance_level=relevance_level,
        docs=run.docs,
        aspects=aspects,
        lengths=lengths,
    )


def _query_sizes(run: Run) -> np.ndarray:
    """Number of rows of each query code of ``run``."""
    q = run.query
    if len(q) == 0:
        return np.zeros(len(run.queries), dtype=np.int64)
    starts = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))
    sizes = np.zeros(len(run.queries), dtype=np.int64)
    np.add.at(sizes, q[starts], np.diff(np.concatenate((starts, [len(q)]))))
    return sizes


def _check_qrels_duplicates(qrels: Qrels) -> None:
    if len(qrels) < 2:
        return
    key = qrels.query.astype(np.int64) * max(len(qrels.docs), 1) + qrels.doc
    order = np.argsort(key, kind="stable")
    dup = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(dup):
        a, b = order[dup[0]], order[dup[0] + 1]
        where = ""
        if qrels.line is not None:
            where = f" (lines {qrels.line[a]} and {qrels.line[b]})"
        doc = qrels.docs.strings_of(qrels.doc[a : a + 1])[0]
        raise InputError(
            f"{qrels.source}: document '{doc}' is judged twice "
            f"for query '{qrels.queries.strings[qrels.query[a]]}'{where}"
        )


def warn(message: str) -> None:
    warnings.warn(message, RankscopeWarning, stacklevel=3)
