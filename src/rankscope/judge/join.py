"""The one function that orders runs and joins them with judgments: `judge`.

Every evaluation follows one path::

    Qrels, Run --judge()--> Judged --batches()--> Ranked --measure kernels--> per-query values

`judge` is the only place where a run is ordered (score descending, then the tie policy)
and joined with the judgments; measures never re-sort or re-join.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from ..errors import InputError, UsageError
from ..model import Qrels, Run, compiled
from ..read.duplicates import first_repeated, where
from .aspects import build_aspects
from .judged import UNJUDGED, Judged

_join: ModuleType | None
try:  # an optional compiled extension: absent, numpy makes the same passes
    from . import _join  # type: ignore[no-redef,attr-defined]
except ImportError:
    _join = None

#: Tie policies for documents with equal scores within a query.
TIE_POLICIES = ("docno-desc", "docno-asc", "input-order")


@dataclass
class JoinReport:
    """What `judge` noticed: queries present on one side only."""

    run_only: list[str] = field(default_factory=list)
    qrels_only: list[str] = field(default_factory=list)
    # False: leave qrels_only empty (a block of a run, which ranks few of the judged queries)
    with_qrels_only: bool = True

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


@dataclass(frozen=True)
class JoinOptions:
    """How runs are ordered and joined with judgments: the options of `judge` that every
    evaluation passes on (trec_eval's ``-l``, ``-M``, ``-J``, ``-c``; the tie order; document
    lengths).  ``ties=None`` stands for the judgment format's own order (see
    `rankscope.table.formats`)."""

    relevance_level: int = 1
    ties: str | None = None
    max_docs: int | None = None
    judged_only: bool = False
    complete: bool = False
    doc_lengths: Mapping[str, float] | None = None

    def judge(
        self, qrels: Qrels, run: Run, report: JoinReport | None = None, **changes: Any
    ) -> Judged:
        """`judge` with these options (``changes`` overriding some)."""
        options = dataclasses.replace(self, **changes) if changes else self
        return judge(
            qrels, run, relevance_level=options.relevance_level,
            ties=options.ties or "docno-desc", max_docs=options.max_docs,
            judged_only=options.judged_only, complete=options.complete, report=report,
            doc_lengths=options.doc_lengths,
        )  # fmt: skip


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
        starts = np.cumsum(counts) - counts  # (no query: nothing to keep)
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
        kernel = compiled(_join)
        if kernel is not None:
            out = np.empty(int(self.lengths.sum()), dtype=column.dtype)
            kernel.pieces(np.ascontiguousarray(column), self.starts, self.lengths, out)
            return out
        pieces = zip(self.starts.tolist(), self.lengths.tolist(), strict=True)
        return np.concatenate([column[a : a + n] for a, n in pieces])


def _rank_rows(
    run: Run, key_of_query: np.ndarray, ties: str, facts: _RankedFacts | None = None
) -> _Ranking:
    """Rows of queries with ``key_of_query[code] >= 0``, ordered by that key, then score
    descending, then ``ties`` (``facts``: the run's `_RankedFacts`, if known)."""
    if ties not in TIE_POLICIES:
        raise UsageError(f"unknown tie policy {ties!r}; choose one of {', '.join(TIE_POLICIES)}")
    q, s = run.query, run.score
    n = len(q)
    if n == 0:
        return _Ranking(order=np.zeros(0, dtype=np.int64))
    facts = facts or _RankedFacts(run)
    starts = facts.starts
    block_query = q[starts]
    # (no query code twice; np.unique's first call would import numpy.ma, a tenth of
    # `rankscope eval`'s cold start)
    contiguous = int(np.bincount(block_query).max()) <= 1
    if contiguous and facts.best_first:
        # Usual case: each query's lines together, best first. Reorder the tied stretches
        # inside the blocks, then list the blocks in key order; no sort of the rows.
        fixes = None
        if ties != "input-order":
            fixes = _tie_fixes(run, None, facts.tied(), ties)
        block_key = key_of_query[block_query]
        by_key = np.argsort(block_key, kind="stable")
        by_key = by_key[block_key[by_key] >= 0]
        lengths = np.diff(np.append(starts, n))
        return _Ranking(starts=starts[by_key], lengths=lengths[by_key], fixes=fixes)
    key = key_of_query[q]
    rows = np.flatnonzero(key >= 0)
    k, sc = key[rows], s[rows]
    order = rows[np.lexsort((-sc, k))]
    if ties != "input-order":
        ko, so = key[order], s[order]
        tied = np.flatnonzero((ko[1:] == ko[:-1]) & (so[1:] == so[:-1]))
        fixes = _tie_fixes(run, order, tied, ties)
        if fixes is not None:
            order[fixes[0]] = fixes[1]
    return _Ranking(order=order)


def _tie_fixes(run: Run, order: np.ndarray | None, pairs: np.ndarray, ties: str):
    """Where the rows of each tied stretch go when ordered by document id.

    ``order`` lists rows by position (None: position = row); ``pairs``: the positions i,
    ascending, where the rows at i and i + 1 have equal query and score.  Returns
    (positions, rows) or None.
    """
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
    by_doc = run.docs.order_of(run.doc[members])
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
        raise UsageError(
            f"relevance_level must be >= 0 (got {relevance_level})",
            cli=f"relevance_level must be >= 0 (-l {relevance_level})",
        )
    if max_docs is not None and max_docs < 1:  # an empty ranking everywhere: all zeros
        raise UsageError(
            f"max_docs must be at least 1 (got {max_docs})",
            cli=f"-M must be at least 1 (got {max_docs})",
        )
    diversity = qrels if qrels.subtopic is not None else None
    qrels = qrels.collapse()
    judgments = _checked(qrels)
    judged_q = judgments.judged_q
    # Queries: those of the qrels, in output order (ids sorted as strings).
    q_map = qrels.queries.translate(run.queries)  # run query code -> qrels query code
    facts = _RankedFacts(run)
    per_run_query = _query_sizes(run, facts.starts)
    ranked_q = per_run_query > 0
    present = np.zeros(len(qrels.queries), dtype=bool)
    present[q_map[ranked_q & (q_map >= 0)]] = True
    present &= judged_q
    if report is not None:
        ranked = np.flatnonzero(ranked_q)
        mapped = q_map[ranked]
        alone = ranked[(mapped < 0) | ~judged_q[np.maximum(mapped, 0)]]
        report.run_only = sorted(run.queries.strings_of(alone))
        if report.with_qrels_only:
            report.qrels_only = sorted(
                qrels.queries.strings_of(np.flatnonzero(judged_q & ~present))
            )
    codes, query_ids, slot = output_order(qrels, np.flatnonzero(judged_q & (present | complete)))
    nq = len(codes)

    # Judgment counts per grade.
    levels = judgments.levels[codes]

    # Rank the run's rows query by query, in output order.
    slot_of_run_query = np.where(q_map >= 0, slot[np.maximum(q_map, 0)], -1)
    ranking = _rank_rows(run, slot_of_run_query, ties, facts)
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
    shared = qrels.docs.shared_codes(run.docs)
    kernel = compiled(_join)
    if shared is not None and kernel is not None:  # (below: the same in numpy)
        cand = np.frombuffer(
            kernel.candidates(np.ascontiguousarray(docs, dtype=np.int32), shared,
                              judgments.in_qrels), dtype=np.int64,
        )  # fmt: skip
        cand_docs = docs[cand]
    elif shared is not None:  # the run's codes below ``shared`` are the judgments' own
        cand = np.flatnonzero(docs < shared)
        cand = cand[judgments.in_qrels[docs[cand]]]
        cand_docs = docs[cand]
    else:
        qdocs = qrels.docs.translate(run.docs)[docs]
        cand = np.flatnonzero(judgments.in_qrels[qdocs])
        cand_docs = qdocs[cand]
    cand_slot = np.searchsorted(offsets, cand, side="right") - 1
    rows = judgments.rows(codes[cand_slot], cand_docs)  # each candidate's judgment
    found = rows >= 0
    cand, cand_slot, rows = cand[found], cand_slot[found], rows[found]
    hit = qrels.grade[rows]
    grades = np.where(hit >= 0, hit, UNJUDGED).astype(np.int64)
    aspects = None
    if diversity is not None:
        # the judged (query slot, document) keys, sorted, and each judged entry's among them
        ndocs = np.int64(max(len(qrels.docs), 1))
        qslot = slot[qrels.query]
        sel = qslot >= 0
        qkeys = np.sort(qslot[sel] * ndocs + qrels.doc[sel])
        entry_key = np.searchsorted(qkeys, cand_slot * ndocs + qrels.doc[rows])
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
            raise InputError("document lengths must be finite and non-negative")
        table[known[known >= 0]] = words[known >= 0]
        lengths = table[docs]
    return Judged(
        run_name=run.name,
        query_ids=query_ids,
        offsets=offsets,
        judged_positions=cand.astype(np.int64),
        judged_grades=grades,
        doc=docs.astype(np.int32, copy=False),
        rel_levels=levels,
        num_nonpool=nonpool.astype(np.int64),
        num_unjudged=unjudged,
        missing=~present[codes],
        relevance_level=relevance_level,
        docs=run.docs,
        aspects=aspects,
        lengths=lengths,
        runid=run.runid,
    )


def output_order(qrels: Qrels, codes: np.ndarray) -> tuple[np.ndarray, list[str], np.ndarray]:
    """The query ``codes`` of ``qrels`` in output order (ids sorted as strings, trec_eval's
    order), their ids, and the slot of every query code in that order (-1: not listed)."""
    names = qrels.queries.strings_of(codes)
    order = sorted(range(len(codes)), key=names.__getitem__)
    codes = codes[order]
    slot = np.full(len(qrels.queries), -1, dtype=np.int64)
    slot[codes] = np.arange(len(codes))
    return codes, [names[i] for i in order], slot


class _RankedFacts:
    """What one pass over a run's rows tells of their order: the rows where the query
    changes (``starts``, row 0 first), whether each query's rows come best first (no score
    above the one before it within a query; none is NaN), and the rows ``i`` whose query
    and score are row ``i + 1``'s (`tied`)."""

    def __init__(self, run: Run) -> None:
        self.run = run
        q, s = run.query, run.score
        self._tied: np.ndarray | None = None
        kernel = compiled(_join)
        if not len(q):
            self.starts, self.best_first = np.zeros(0, dtype=np.int64), True
            self._tied = np.zeros(0, dtype=np.int64)
        elif kernel is not None:
            found, self.best_first, tied = kernel.ranked_facts(
                np.ascontiguousarray(q, dtype=np.int32), np.ascontiguousarray(s, dtype=np.float64)
            )
            self.starts = np.frombuffer(found, dtype=np.int64)
            self._tied = np.frombuffer(tied, dtype=np.int64)
        else:
            self.starts = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))
            # where a score is not at most the one before (a NaN too): only at a new query
            rising = np.flatnonzero(~(s[1:] <= s[:-1])) + 1
            self.best_first = bool(np.isin(rising, self.starts, assume_unique=True).all())

    def tied(self) -> np.ndarray:
        if self._tied is None:
            q, s = self.run.query, self.run.score
            tied = np.flatnonzero(s[1:] == s[:-1])  # rows i, i + 1 of one score
            self._tied = tied[q[tied] == q[tied + 1]]  # and one query
        return self._tied


def _query_sizes(run: Run, starts: np.ndarray) -> np.ndarray:
    """Number of rows of each query code of ``run`` (``starts``: `_RankedFacts.starts`)."""
    sizes = np.zeros(len(run.queries), dtype=np.int64)
    np.add.at(sizes, run.query[starts], np.diff(np.append(starts, len(run.query))))
    return sizes


# Per judgments judged against (the blocks of a large run judge one block at a time against
# the same qrels): what every block would otherwise work out again from all of them.
_CHECKED: weakref.WeakKeyDictionary[Qrels, _Judgments] = weakref.WeakKeyDictionary()


class _Judgments:
    """What `judge` needs of ``qrels`` whatever the run, worked out once per qrels: which
    queries it judges (a mask of their codes) and which documents (a mask of their codes and
    one False more, for the code -1), each query's count of judgments per grade, and where
    each document's judgment is (its row when it is judged for one query only, as most are;
    the sorted (query, document) keys of the others' rows).  The duplicates are checked
    first.  The arrays are read-only."""

    def __init__(self, qrels: Qrels) -> None:
        _check_qrels_duplicates(qrels)
        self.sizes = (len(qrels.queries), len(qrels.docs))
        q, d, g = qrels.query, qrels.doc, qrels.grade
        self.judged_q = np.zeros(len(qrels.queries), dtype=bool)
        self.judged_q[q] = True
        self.in_qrels = np.zeros(len(qrels.docs) + 1, dtype=bool)
        self.in_qrels[d] = True
        width = max(int(g.max(initial=0)), 0) + 1  # (grades 0 .. the highest)
        keep = g >= 0
        self.levels = np.bincount(
            q[keep].astype(np.int64) * width + g[keep], minlength=len(qrels.queries) * width
        ).reshape(len(qrels.queries), width)
        # a document's row when one query judges it; -2 when several do (see `rows`)
        times = np.bincount(d, minlength=len(qrels.docs) + 1)
        self.row = np.full(len(qrels.docs) + 1, -1, dtype=np.int64)
        self.row[d] = np.where(times[d] == 1, np.arange(len(d)), -2)
        self.query = q
        self.ndocs = np.int64(max(len(qrels.docs), 1))
        several = np.flatnonzero(times[d] > 1)
        keys = q[several].astype(np.int64) * self.ndocs + d[several]
        by_key = np.argsort(keys, kind="stable")
        self.keys, self.key_rows = keys[by_key], several[by_key]
        for a in (self.judged_q, self.in_qrels, self.levels, self.row, self.keys, self.key_rows):
            a.flags.writeable = False

    def rows(self, query: np.ndarray, doc: np.ndarray) -> np.ndarray:
        """The row of the judgment of each (``query``, ``doc``) code pair (``doc`` judged
        for some query), -1 where that query does not judge it."""
        kernel = compiled(_join)
        if kernel is not None and self.query.dtype == np.int32:
            rows = np.frombuffer(
                kernel.judged_rows(
                    np.ascontiguousarray(query, dtype=np.int64),
                    np.ascontiguousarray(doc, dtype=np.int32), self.row, self.query,
                ),
                dtype=np.int64,
            )  # (writable: a bytearray)
            shared = np.flatnonzero(rows == -2)
        else:
            rows = self.row[doc]
            alone = rows >= 0
            shared = np.flatnonzero(~alone)
            alone = np.flatnonzero(alone)
            rows[alone[self.query[rows[alone]] != query[alone]]] = -1
        if len(shared):
            keys = query[shared] * self.ndocs + doc[shared]
            at = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
            rows[shared] = np.where(self.keys[at] == keys, self.key_rows[at], -1)
        return rows


def _checked(qrels: Qrels) -> _Judgments:
    """`_Judgments` of ``qrels``: once per qrels (while its vocabularies do not grow), not
    once per block of a run."""
    known = _CHECKED.get(qrels)
    if known is not None and known.sizes == (len(qrels.queries), len(qrels.docs)):
        return known
    known = _CHECKED[qrels] = _Judgments(qrels)
    return known


def _check_qrels_duplicates(qrels: Qrels) -> None:
    pair = first_repeated(qrels.query, qrels.doc)
    if pair is not None:
        a, b = pair
        doc = qrels.docs.strings_of(qrels.doc[a : a + 1])[0]
        raise InputError(
            f"{qrels.source}: document '{doc}' is judged twice "
            f"for query '{qrels.queries.strings[qrels.query[a]]}'{where(qrels, a, b)}"
        )
