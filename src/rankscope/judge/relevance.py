"""The input of every preference: where each run ranked each relevant document.

For one query with ``m`` relevant documents and ``R`` runs, `RelevanceTable` holds an
``R x m`` array of ranks (`NOT_RETRIEVED` for a relevant document a run did not return) and
the documents' grades.  Recall-paired preferences and lexicographic preferences read the
sorted rows of it ("the position of the i-th relevant document"), graded and subtopic
variants select columns first.  It is built from `judge`, the one place where runs are
ordered and joined with judgments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, UsageError, warn
from ..model import Qrels, Run, Vocabulary, check_distinct_names
from .join import judge, output_order
from .judged import Judged

#: Rank given to a relevant document a run did not retrieve: below every retrieved one.
#: All unretrieved documents share it, so two runs that both miss the i-th relevant
#: document tie at that recall level (the worst-case bottom-of-the-corpus placement).
NOT_RETRIEVED = np.int64(1) << np.int64(40)


@dataclass(frozen=True, eq=False)
class RelevanceTable:
    """Per query: grades of the relevant documents, and each run's rank for each."""

    run_names: list[str]
    query_ids: list[str]
    grades: list[np.ndarray]  # per query: (m,) grades >= the relevance level
    ranks: list[np.ndarray]  # per query: (runs, m) int64 ranks, NOT_RETRIEVED if missed
    relevance_level: int = 1
    # diversity judgments: per query, (m, subtopics) True where the document is relevant
    # (grade >= the level) to the subtopic; None without subtopic judgments
    subtopics: list[np.ndarray] | None = None
    # with keep_rankings: per query, each run's ranked document codes, and the query's
    # judgments {document code: grade} (offline interleaving needs whole rankings)
    rankings: list[list[np.ndarray]] | None = None
    judgments: list[dict[int, int]] | None = None

    @property
    def num_runs(self) -> int:
        return len(self.run_names)

    @property
    def num_queries(self) -> int:
        return len(self.query_ids)

    def positions(self, q: int, level: int | None = None) -> np.ndarray:
        """Sorted ranks of the relevant documents with grade >= ``level`` in query ``q``:
        row r, column i = f_i of run r (the rank of its i-th such document)."""
        key = (q, level)
        cache = self.__dict__.setdefault("_sorted", {})
        if key not in cache:
            ranks = self.ranks[q]
            if level is not None:
                ranks = ranks[:, self.grades[q] >= level]
            cache[key] = np.sort(ranks, axis=1)
        return cache[key]

    def levels(self, q: int) -> np.ndarray:
        """The distinct grades of query ``q``'s relevant documents, ascending."""
        return np.unique(self.grades[q])


@dataclass(frozen=True, eq=False)
class RelevantDocs:
    """The relevant documents of judgments (grade >= ``relevance_level``), grouped by query
    in output order: what a `RelevanceTable` holds each run's ranks of.  A run's ranks of them
    (`judged_positions`) are one small flat array in this order (``starts[q]`` to
    ``starts[q + 1]``: query ``q``'s documents), so that runs read one at a time keep only
    that (`rankscope.table.many.evaluate_many_runs`' ``positions``) and the table is put
    together at the end (`table`)."""

    qrels: Qrels  # the judgments, collapsed (one grade per document)
    relevance_level: int
    query_ids: list[str]  # the queries with relevant documents, in output order
    slot: np.ndarray  # per query code of the judgments: its position in query_ids (-1: none)
    starts: np.ndarray  # (queries + 1,) each query's first document in the flat order
    keys: np.ndarray  # (documents,) query slot * ndocs + document code, ascending
    grades: np.ndarray  # (documents,)
    diversity: Qrels | None  # the judgments with subtopics, when they have them

    @property
    def count(self) -> int:
        """The number of relevant documents (the length of a run's positions)."""
        return len(self.keys)

    def table(
        self,
        names: list[str],
        positions: Sequence[np.ndarray],
        rankings: list[list[np.ndarray]] | None = None,
        judgments: list[dict[int, int]] | None = None,
    ) -> RelevanceTable:
        """The `RelevanceTable` of runs ``names`` from their ``positions`` (one
        `judged_positions` array each, in the same order)."""
        ranks_flat = np.stack(positions) if positions else np.zeros((0, self.count), dtype=np.int64)
        nq, starts = len(self.query_ids), self.starts
        ndocs = np.int64(max(len(self.qrels.docs), 1))
        subtopics = None
        if self.diversity is not None:
            subtopics = _subtopic_membership(
                self.diversity, self.slot, self.keys, starts, ndocs, self.relevance_level
            )
        return RelevanceTable(
            list(names), self.query_ids,
            [self.grades[starts[q] : starts[q + 1]] for q in range(nq)],
            [ranks_flat[:, starts[q] : starts[q + 1]] for q in range(nq)],
            self.relevance_level, subtopics, rankings, judgments,
        )  # fmt: skip


def relevant_docs(qrels: Qrels, relevance_level: int = 1) -> RelevantDocs:
    """The relevant documents of ``qrels`` at ``relevance_level`` (`RelevantDocs`);
    `InputError` when there are none (a preference needs relevant documents)."""
    diversity = qrels if qrels.subtopic is not None else None
    qrels = qrels.collapse()
    relevant = qrels.grade >= relevance_level
    rq, rd, rg = qrels.query[relevant], qrels.doc[relevant], qrels.grade[relevant]
    codes, query_ids, slot = output_order(qrels, np.unique(rq))
    nq = len(codes)
    if nq == 0:  # nothing to prefer: say so rather than order the runs on no evidence
        top = int(qrels.grade.max(initial=-1))
        raise InputError(
            f"{qrels.source}: no judged document is relevant (the highest grade is {top}, the "
            f"relevance level {relevance_level}): a preference needs relevant documents",
            cli=f"{qrels.source}: no judged document is relevant (the highest grade is {top}, "
            f"-l {relevance_level}): a preference needs relevant documents",
        )
    # relevant documents grouped by query (column = position within the query's group)
    qs = slot[rq]
    by = np.lexsort((rd, qs))
    qs, rd, rg = qs[by], rd[by], rg[by]
    starts = np.searchsorted(qs, np.arange(nq + 1))
    ndocs = np.int64(max(len(qrels.docs), 1))
    keys = qs.astype(np.int64) * ndocs + rd
    return RelevantDocs(qrels, relevance_level, query_ids, slot, starts, keys, rg, diversity)


def judged_positions(
    docs: RelevantDocs, run: Run, *, ties: str = "docno-desc", max_docs: int | None = None
) -> tuple[np.ndarray, Judged]:
    """Where ``run`` ranks each of ``docs``' relevant documents (flat, in their order;
    `NOT_RETRIEVED` for one it did not return), and the run judged against every query of
    the judgments (``complete``: its ``missing`` says which it did not rank)."""
    qrels, slot, ndocs = docs.qrels, docs.slot, np.int64(max(len(docs.qrels.docs), 1))
    level = docs.relevance_level
    judged = judge(qrels, run, relevance_level=level, ties=ties, max_docs=max_docs, complete=True)
    pos = judged.judged_positions
    pos = pos[judged.judged_grades >= level]
    jslot = np.searchsorted(judged.offsets, pos, side="right") - 1
    rank = pos - judged.offsets[jslot] + 1
    # judged's queries -> table queries (judged also holds queries with no relevant doc)
    to_table = np.array([slot[qrels.queries.code(qid)] for qid in judged.query_ids], dtype=np.int64)
    tq = to_table[jslot] if len(jslot) else np.zeros(0, dtype=np.int64)
    found = judged.doc[pos]
    if run.docs is not qrels.docs:  # judged.doc holds codes of run.docs
        found = qrels.docs.translate(run.docs)[found]
    out = np.full(docs.count, NOT_RETRIEVED, dtype=np.int64)
    out[np.searchsorted(docs.keys, tq * ndocs + found)] = rank
    return out, judged


def warn_unranked(
    docs: RelevantDocs, name: str, judged_ids: Sequence[str], missing: np.ndarray
) -> None:
    """Warn that run ``name`` ranks nothing for queries with relevant documents, given the
    judged queries ``judged_ids`` and which of them it did not rank (``missing``, a
    `Judged`'s or a `RunEvaluation`'s)."""
    relevant = set(docs.query_ids)
    unranked = [q for q, m in zip(judged_ids, missing.tolist(), strict=True) if m and q in relevant]
    if unranked:
        warn(
            f"run '{name}' ranks nothing for {len(unranked)} quer"
            f"{'y' if len(unranked) == 1 else 'ies'} with relevant documents "
            f"({', '.join(unranked[:5])}{', ...' if len(unranked) > 5 else ''})"
        )


def relevance_table(
    qrels: Qrels,
    runs: Sequence[Run],
    *,
    relevance_level: int = 1,
    ties: str = "docno-desc",
    max_docs: int | None = None,
    keep_rankings: bool = False,
) -> RelevanceTable:
    """Where each run ranks each relevant document, for the queries with relevant documents.

    Queries of the qrels with at least one document of grade >= ``relevance_level`` are
    kept (a preference needs relevant documents); a run that did not rank such a query
    retrieves none of its relevant documents (reported as a warning).  Queries ranked by
    runs but absent from the qrels are ignored.
    """
    if len(runs) < 2:
        raise UsageError("preferences compare rankings: give at least two runs")
    names = [r.name for r in runs]
    check_distinct_names(runs, "preferences")
    docs = relevant_docs(qrels, relevance_level)
    query_ids, nq = docs.query_ids, len(docs.query_ids)
    positions = []
    rankings: list[list[np.ndarray]] = [[] for _ in range(nq)]
    unjudged: dict[str, int] = {}  # documents the qrels lack: one code each, for every run
    for run in runs:
        found, judged = judged_positions(docs, run, ties=ties, max_docs=max_docs)
        warn_unranked(docs, run.name, judged.query_ids, judged.missing)
        positions.append(found)
        if keep_rankings:
            shared = _shared_codes(run.docs, docs.qrels.docs, unjudged)
            by_query = dict(zip(judged.query_ids, range(len(judged.query_ids)), strict=True))
            for q, qid in enumerate(query_ids):
                i = by_query.get(qid)
                ranked: np.ndarray | list[int] = (
                    judged.doc[judged.offsets[i] : judged.offsets[i + 1]] if i is not None else []
                )
                rankings[q].append(
                    np.array(ranked, dtype=np.int64)
                    if shared is None
                    else shared[np.asarray(ranked, dtype=np.int64)]
                )
    judgments: list[dict[int, int]] | None = None
    if keep_rankings:
        judgments = [{} for _ in range(nq)]
        collapsed = docs.qrels
        qslot = docs.slot[collapsed.query]
        for q, d, g in zip(
            qslot.tolist(), collapsed.doc.tolist(), collapsed.grade.tolist(), strict=True
        ):
            if q >= 0:
                judgments[q][d] = g
    return docs.table(names, positions, rankings if keep_rankings else None, judgments)


def _shared_codes(
    docs: Vocabulary, qrels_docs: Vocabulary, unjudged: dict[str, int]
) -> np.ndarray | None:
    """Each code of a run's document vocabulary in one space shared by every run: the qrels'
    code (the judgments are keyed by it), or, for a document the qrels lack, a code after
    theirs that is the same in every run (interleaving merges rankings by document).  None
    when the run was read with the qrels' vocabulary: its codes are those already (a table
    of every code read so far, per run, cost time and memory growing with the runs)."""
    if docs is qrels_docs:
        return None
    codes = qrels_docs.translate(docs).astype(np.int64)
    missing = np.flatnonzero(codes < 0)
    for i, doc in zip(missing.tolist(), docs.strings_of(missing), strict=True):
        codes[i] = unjudged.setdefault(doc, len(qrels_docs) + len(unjudged))
    return codes


def _subtopic_membership(diversity: Qrels, slot, keys, starts, ndocs, level) -> list[np.ndarray]:
    """Per query: (relevant documents x subtopics) membership, subtopics in ascending id."""
    assert diversity.subtopic is not None  # diversity judgments have subtopics
    rows = (diversity.grade >= level) & (diversity.subtopic != 0)
    qs = slot[diversity.query[rows]]
    ok = qs >= 0
    qs, docs, topics = qs[ok], diversity.doc[rows][ok], diversity.subtopic[rows][ok]
    column = np.searchsorted(keys, qs.astype(np.int64) * ndocs + docs)
    out = []
    for q in range(len(starts) - 1):
        mine = qs == q
        ids, which = np.unique(topics[mine], return_inverse=True)
        member = np.zeros((starts[q + 1] - starts[q], len(ids)), dtype=bool)
        member[column[mine] - starts[q], which.reshape(-1)] = True
        out.append(member)
    return out
