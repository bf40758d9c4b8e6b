"""Per-subtopic ("aspect") judgments carried alongside a judged run, for diversity measures.

Diversity qrels (``qid subtopic docno grade``) judge a document once per subtopic (intent) of
the query.  `judge` collapses them to ad hoc grades for the ordinary measures and, through
`build_aspects`, keeps what the intent-aware measures need:

* ``entry``: for every retrieved document the qrels mention (the judged entries of a
  `Judged`, in the same order), whether it is relevant to each of the query's subtopics;
* ``count``: per query and subtopic, the number of relevant documents (retrieved or not);
* ``pool``: per query, every document relevant to at least one subtopic with its subtopic
  vector, ordered by docno descending: the candidates an ideal ranking is built from.

Only the subtopics with at least one relevant document count (ndeval's "actual subtopics");
each query's are numbered 0, 1, ... in increasing subtopic id.  A document is relevant to a
subtopic when its grade there is at least the relevance level (default 1): higher grades are
not distinguished, as ndeval, and negative grades are not relevant.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Aspects:
    """Diversity judgments as the measures read them: which subtopics each judged entry of
    the ranking is relevant to, and each query's relevant documents per subtopic (arrays:
    no generated ``==`` or hash, which could not compare them)."""

    entry: np.ndarray  # bool (n_entries, S): judged entry relevant to subtopic slot s
    count: np.ndarray  # int64 (nq, S): relevant documents per subtopic slot
    pool: np.ndarray  # bool (nq, D, S): relevant documents' subtopic vectors, docno descending

    def select(self, keep: np.ndarray) -> Aspects:
        """The same judgments for a subset of the judged entries."""
        return Aspects(self.entry[keep], self.count, self.pool)


def build_aspects(
    qrels, qslot: np.ndarray, nq: int, qkeys: np.ndarray, entry_key: np.ndarray, level: int
) -> Aspects:
    """Aspects of ``nq`` evaluated queries.

    ``qrels`` are the diversity qrels (one row per query, subtopic, document), ``qslot`` the
    evaluated query slot of each of their rows (-1: not evaluated); ``qkeys`` the sorted
    distinct keys ``slot * ndocs + doc`` of the judged documents and ``entry_key`` the index
    into ``qkeys`` of each judged entry of the ranking.
    """
    ndocs = np.int64(max(len(qrels.docs), 1))
    rel = (qslot >= 0) & (qrels.grade >= max(level, 1))
    slot = qslot[rel].astype(np.int64)
    sub = qrels.subtopic[rel].astype(np.int64)
    key = slot * ndocs + qrels.doc[rel]
    # Number each query's relevant subtopics 0, 1, ...
    pairs, pair_of = np.unique(np.stack([slot, sub], axis=1), axis=0, return_inverse=True)
    pair_of = pair_of.reshape(-1)
    first = np.searchsorted(pairs[:, 0], np.arange(nq)) if len(pairs) else np.zeros(nq, int)
    column = np.arange(len(pairs)) - first[pairs[:, 0]] if len(pairs) else np.zeros(0, int)
    width = int(np.bincount(pairs[:, 0], minlength=nq).max(initial=0)) if len(pairs) else 0
    width = max(width, 1)
    count = np.zeros((nq, width), dtype=np.int64)
    col = column[pair_of]
    np.add.at(count, (slot, col), 1)

    vectors = np.zeros((len(qkeys), width), dtype=bool)
    at = np.searchsorted(qkeys, key)
    vectors[at, col] = True
    entry = vectors[entry_key] if len(entry_key) else np.zeros((0, width), dtype=bool)

    # The ideal ranking's candidates: documents relevant to some subtopic, docno descending.
    useful = np.flatnonzero(vectors.any(axis=1))
    q_of = qkeys[useful] // ndocs
    names = np.array(
        [s.encode() for s in qrels.docs.strings_of(qkeys[useful] % ndocs)], dtype=object
    )
    by_name = np.argsort(np.argsort(names, kind="stable"), kind="stable")
    order = np.lexsort((-by_name, q_of))
    useful, q_of = useful[order], q_of[order]
    per_q = np.bincount(q_of, minlength=nq)
    depth = max(int(per_q.max(initial=0)), 1)
    pool = np.zeros((nq, depth, width), dtype=bool)
    if len(useful):
        starts = np.concatenate(([0], np.cumsum(per_q)[:-1]))
        pool[q_of, np.arange(len(useful)) - starts[q_of]] = vectors[useful]
    return Aspects(entry, count, pool)
