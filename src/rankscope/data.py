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

import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

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


@dataclass(frozen=True, eq=False)
class Qrels:
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

    def __len__(self) -> int:
        return len(self.query)

    @property
    def query_ids(self) -> list[str]:
        """The ids of the queries that have at least one judgment, sorted as strings."""
        present = np.unique(self.query)
        return sorted(self.queries.strings[c] for c in present)

    def to_dict(self) -> dict[str, dict[str, int]]:
        qs, ds = self.queries.strings, self.docs.strings
        out: dict[str, dict[str, int]] = {}
        for q, d, g in zip(
            self.query.tolist(), self.doc.tolist(), self.grade.tolist(), strict=True
        ):
            out.setdefault(qs[q], {})[ds[d]] = g
        return out


@dataclass(frozen=True, eq=False)
class Run:
    """A system's output: one row per (query, document) with a score (higher ranks first)."""

    name: str
    queries: Vocabulary
    docs: Vocabulary
    query: np.ndarray  # int32
    doc: np.ndarray  # int32
    score: np.ndarray  # float64
    source: str = "<run>"
    line: np.ndarray | None = None  # 1-based input line of each row

    def __len__(self) -> int:
        return len(self.query)

    @property
    def query_ids(self) -> list[str]:
        present = np.unique(self.query)
        return sorted(self.queries.strings[c] for c in present)

    def to_dict(self) -> dict[str, dict[str, float]]:
        qs, ds = self.queries.strings, self.docs.strings
        out: dict[str, dict[str, float]] = {}
        for q, d, s in zip(
            self.query.tolist(), self.doc.tolist(), self.score.tolist(), strict=True
        ):
            out.setdefault(qs[q], {})[ds[d]] = s
        return out


@dataclass(frozen=True, eq=False)
class Judged:
    """A run ordered and joined with the judgments, for the queries to be evaluated.

    Queries are in output order (ids sorted as strings, trec_eval's order).  Per query ``i``
    the ranked relevance values are ``grade[offsets[i]:offsets[i+1]]``.
    """

    run_name: str
    query_ids: list[str]
    offsets: np.ndarray  # int64, len = nq + 1
    grade: np.ndarray  # int64 flat: grade, NONPOOL or UNJUDGED per rank
    doc: np.ndarray  # int32 flat: document code per rank
    rel_levels: np.ndarray  # int64 (nq, G): number of judged documents with grade g >= 0
    num_nonpool: np.ndarray  # int64 (nq,)
    num_unjudged: np.ndarray  # int64 (nq,)
    missing: np.ndarray  # bool (nq,): query has judgments but the run has no ranking for it
    relevance_level: int = 1
    docs: Vocabulary | None = None

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

    def batches(self, max_cells: int = 1 << 21) -> Iterator[tuple[slice, Ranked]]:
        """Rectangular views over consecutive queries, each at most about ``max_cells`` cells."""
        n = self.num_queries
        lengths = self.num_ret
        start = 0
        while start < n:
            stop = start + 1
            width = max(int(lengths[start]), 1)
            while stop < n:
                w = max(width, int(lengths[stop]))
                if w * (stop + 1 - start) > max_cells:
                    break
                width = w
                stop += 1
            yield slice(start, stop), Ranked.from_judged(self, start, stop, width)
            start = stop


class Ranked:
    """A batch of rankings as a rectangle (queries x ranks), padded with `PAD`.

    Derived arrays (relevance masks, cumulative counts) are computed once per batch and
    shared by every measure that asks for them.
    """

    def __init__(
        self,
        grade: np.ndarray,
        num_ret: np.ndarray,
        rel_levels: np.ndarray,
        num_nonpool: np.ndarray,
        num_unjudged: np.ndarray,
        relevance_level: int = 1,
    ) -> None:
        self.grade = grade
        self.num_ret = num_ret
        self.rel_levels = rel_levels
        self.num_nonpool = num_nonpool
        self.num_unjudged = num_unjudged
        self.relevance_level = relevance_level
        self.width = grade.shape[1]
        self.ranks = np.arange(1, self.width + 1, dtype=np.float64)
        self._cache: dict[tuple, np.ndarray] = {}

    @classmethod
    def from_judged(cls, judged: Judged, start: int, stop: int, width: int) -> Ranked:
        offsets = judged.offsets[start : stop + 1]
        lengths = np.diff(offsets)
        nq = stop - start
        grade = np.full((nq, width), PAD, dtype=np.int64)
        if len(judged.grade):
            rows = np.repeat(np.arange(nq), lengths)
            cols = np.arange(offsets[-1] - offsets[0]) - np.repeat(
                offsets[:-1] - offsets[0], lengths
            )
            grade[rows, cols] = judged.grade[offsets[0] : offsets[-1]]
        return cls(
            grade,
            lengths,
            judged.rel_levels[start:stop],
            judged.num_nonpool[start:stop],
            judged.num_unjudged[start:stop],
            judged.relevance_level,
        )

    @classmethod
    def from_lists(
        cls,
        rankings: Sequence[Sequence[int]],
        judged_grades: Sequence[Sequence[int]] | None = None,
        relevance_level: int = 1,
    ) -> Ranked:
        """Build a batch by hand (tests, examples): ranked grades and the qrels' grades.

        ``judged_grades[i]`` lists the grade of every judged document of query ``i``
        (retrieved or not); by default, the non-negative grades of the ranking.
        """
        nq = len(rankings)
        width = max([len(r) for r in rankings] + [1])
        grade = np.full((nq, width), PAD, dtype=np.int64)
        for i, r in enumerate(rankings):
            grade[i, : len(r)] = r
        if judged_grades is None:
            judged_grades = [[g for g in r if g >= 0] for r in rankings]
        top = max([max(j, default=0) for j in judged_grades] + [0])
        levels = np.zeros((nq, top + 1), dtype=np.int64)
        for i, j in enumerate(judged_grades):
            for g in j:
                if g >= 0:
                    levels[i, g] += 1
        num_ret = np.array([len(r) for r in rankings], dtype=np.int64)
        nonpool = np.array([sum(1 for g in r if g == NONPOOL) for r in rankings], dtype=np.int64)
        unjudged = np.array([sum(1 for g in r if g == UNJUDGED) for r in rankings], dtype=np.int64)
        return cls(grade, num_ret, levels, nonpool, unjudged, relevance_level)

    def level(self, level: int | None) -> int:
        return self.relevance_level if level is None else int(level)

    def rel(self, level: int | None = None) -> np.ndarray:
        """Boolean mask of relevant ranks (grade >= level)."""
        level = self.level(level)
        key = ("rel", level)
        if key not in self._cache:
            self._cache[key] = self.grade >= level
        return self._cache[key]

    def rel_cum(self, level: int | None = None) -> np.ndarray:
        """Number of relevant documents at ranks 1..i (column i-1)."""
        level = self.level(level)
        key = ("rel_cum", level)
        if key not in self._cache:
            self._cache[key] = np.cumsum(self.rel(level), axis=1)
        return self._cache[key]

    def count_at(self, mask_cum: np.ndarray, k: int) -> np.ndarray:
        """Value of a cumulative count at rank ``k`` (ranks beyond the end add nothing)."""
        if k <= 0:
            return np.zeros(len(self.grade), dtype=mask_cum.dtype)
        return mask_cum[:, min(k, self.width) - 1]

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
    if ties not in TIE_POLICIES:
        raise ValueError(f"unknown tie policy {ties!r}; choose one of {', '.join(TIE_POLICIES)}")
    q, s = run.query, run.score
    n = len(q)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    # Fast path: files are usually grouped by query (codes are first-seen, so grouped means
    # non-decreasing) and written best-first.
    same_q = q[1:] == q[:-1]
    if np.all(q[1:] >= q[:-1]) and np.all(~same_q | (s[1:] <= s[:-1])):
        order = np.arange(n, dtype=np.int64)
    else:
        order = np.lexsort((-s, q)).astype(np.int64)
    if ties == "input-order":
        # lexsort is stable and the fast path keeps input order, but input order must follow
        # the line numbers when the rows did not come from a file in order
        if run.line is not None and np.any(np.diff(run.line) < 0):
            order = np.lexsort((run.line, -s, q)).astype(np.int64)
        return order
    qo, so = q[order], s[order]
    tied = (qo[1:] == qo[:-1]) & (so[1:] == so[:-1])
    if not tied.any():
        return order
    # Order each block of equal (query, score) by document id; only tied rows are touched.
    starts = np.flatnonzero(np.concatenate(([True], ~tied)))
    ends = np.concatenate((starts[1:], [n]))
    multi = ends - starts > 1
    reverse = ties == "docno-desc"
    for a, b in zip(starts[multi].tolist(), ends[multi].tolist(), strict=True):
        block = order[a:b]
        keys = run.docs.strings_of(run.doc[block])
        idx = sorted(range(b - a), key=keys.__getitem__, reverse=reverse)
        order[a:b] = block[idx]
    return order


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
    """
    if relevance_level < 0:
        raise ValueError("relevance_level must be >= 0")
    # Map the run's codes into the qrels' vocabularies.
    q_map = qrels.queries.translate(run.queries)
    d_map = qrels.docs.translate(run.docs)
    order = order_run(run, ties)
    run_q = q_map[run.query[order]] if len(order) else np.zeros(0, dtype=np.int32)
    run_d = d_map[run.doc[order]] if len(order) else np.zeros(0, dtype=np.int32)
    run_doc_codes = run.doc[order]

    qrels_queries = np.unique(qrels.query)
    run_queries_all = np.unique(run.query)
    run_query_in_qrels = q_map[run_queries_all]
    if report is not None:
        judged_set = set(qrels_queries.tolist())
        report.run_only = sorted(
            run.queries.strings[c]
            for c, m in zip(run_queries_all.tolist(), run_query_in_qrels.tolist(), strict=True)
            if m < 0 or m not in judged_set
        )
        in_run = set(run_query_in_qrels[run_query_in_qrels >= 0].tolist())
        report.qrels_only = sorted(
            qrels.queries.strings[c] for c in qrels_queries.tolist() if c not in in_run
        )

    present = np.zeros(len(qrels.queries), dtype=bool)
    present[run_query_in_qrels[run_query_in_qrels >= 0]] = True
    judged_q = np.zeros(len(qrels.queries), dtype=bool)
    judged_q[qrels_queries] = True
    selected = judged_q & (present | complete)
    codes = np.flatnonzero(selected)
    names = [qrels.queries.strings[c] for c in codes.tolist()]
    out_order = sorted(range(len(codes)), key=names.__getitem__)
    codes = codes[out_order]
    query_ids = [names[i] for i in out_order]
    nq = len(codes)
    slot = np.full(len(qrels.queries), -1, dtype=np.int64)
    slot[codes] = np.arange(nq)

    # Judgment counts per grade, and the lookup (query, doc) -> grade.
    _check_qrels_duplicates(qrels)
    g = qrels.grade
    top = int(g.max()) if len(g) else 0
    levels = np.zeros((nq, max(top, 0) + 1), dtype=np.int64)
    qs = slot[qrels.query]
    keep = (qs >= 0) & (g >= 0)
    np.add.at(levels, (qs[keep], g[keep]), 1)

    # Keep run rows of selected queries, in ranked order (queries stay grouped).
    row_slot = np.where(run_q >= 0, slot[np.maximum(run_q, 0)], -1)
    keep_rows = row_slot >= 0
    row_slot, run_d, run_doc_codes = row_slot[keep_rows], run_d[keep_rows], run_doc_codes[keep_rows]
    # Stable sort by output slot keeps each query's ranked order.
    by_slot = np.argsort(row_slot, kind="stable")
    row_slot, run_d, run_doc_codes = row_slot[by_slot], run_d[by_slot], run_doc_codes[by_slot]
    counts = np.bincount(row_slot, minlength=nq)
    offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    if max_docs is not None:
        rank0 = np.arange(len(row_slot)) - offsets[row_slot]
        cut = rank0 < max_docs
        row_slot, run_d, run_doc_codes = row_slot[cut], run_d[cut], run_doc_codes[cut]

    # Join: grade of each retrieved document.
    ndocs = max(len(qrels.docs), 1)
    qkeys = qs.astype(np.int64) * ndocs + qrels.doc
    sel = qs >= 0
    qkeys, qgrades = qkeys[sel], g[sel]
    key_order = np.argsort(qkeys, kind="stable")
    qkeys, qgrades = qkeys[key_order], qgrades[key_order]
    rkeys = row_slot.astype(np.int64) * ndocs + np.maximum(run_d, 0)
    pos = np.searchsorted(qkeys, rkeys)
    pos_c = np.minimum(pos, max(len(qkeys) - 1, 0))
    found = (run_d >= 0) & (len(qkeys) > 0)
    if len(qkeys):
        found &= qkeys[pos_c] == rkeys
    grade = np.full(len(rkeys), NONPOOL, dtype=np.int64)
    if len(qkeys):
        grade[found] = np.where(qgrades[pos_c[found]] >= 0, qgrades[pos_c[found]], UNJUDGED)

    if judged_only:
        keepj = grade >= 0
        row_slot, grade, run_doc_codes = row_slot[keepj], grade[keepj], run_doc_codes[keepj]
    counts = np.bincount(row_slot, minlength=nq)
    offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    nonpool = np.bincount(row_slot[grade == NONPOOL], minlength=nq).astype(np.int64)
    unjudged = np.bincount(row_slot[grade == UNJUDGED], minlength=nq).astype(np.int64)
    return Judged(
        run_name=run.name,
        query_ids=query_ids,
        offsets=offsets,
        grade=grade,
        doc=run_doc_codes.astype(np.int32),
        rel_levels=levels,
        num_nonpool=nonpool,
        num_unjudged=unjudged,
        missing=~present[codes] if nq else np.zeros(0, dtype=bool),
        relevance_level=relevance_level,
        docs=run.docs,
    )


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
