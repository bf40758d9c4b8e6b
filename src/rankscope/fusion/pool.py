"""The candidates of a fusion: every (query, document) some run ranks, with each run's score
and rank for it, as (runs × candidates) matrices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import UsageError
from ..judge import order_run
from ..model import Run, Vocabulary


@dataclass(frozen=True, eq=False)
class Pool:
    """Every (query, document) that at least one run ranks: one column per candidate,
    candidates grouped by query (query code ascending, then document code).

    ``scores[r, c]`` is run ``r``'s score for candidate ``c`` (NaN: ``r`` does not rank
    it), ``ranks[r, c]`` its 1-based rank in ``r``'s ranking of the query (0: not ranked),
    ``lengths[r, c]`` the number of documents ``r`` ranks for the candidate's query, and
    ``size[c]`` the number of candidates of that query.  ``group[c]`` numbers the queries
    present 0, 1, ... in candidate order.
    """

    names: tuple[str, ...]
    queries: Vocabulary
    docs: Vocabulary
    query: np.ndarray  # int32 per candidate
    doc: np.ndarray  # int32 per candidate
    scores: np.ndarray  # float64 (runs, candidates), NaN where not ranked
    ranks: np.ndarray  # int64 (runs, candidates), 0 where not ranked
    lengths: np.ndarray  # int64 (runs, candidates)
    group: np.ndarray  # int64 per candidate: its query's group number
    size: np.ndarray  # int64 per candidate: the number of candidates of its query

    @property
    def present(self) -> np.ndarray:
        """``(runs, candidates)``: whether the run ranks the candidate."""
        return self.ranks > 0

    @property
    def num_groups(self) -> int:
        return int(self.group[-1]) + 1 if len(self.group) else 0

    def select(self, keep: np.ndarray) -> Pool:
        """The candidates where ``keep`` (a boolean mask over candidates) is true: whole
        queries, so that ranks, lengths and sizes stay those of the full rankings."""
        group = self.group[keep]
        renumbered = np.concatenate(([0], np.cumsum(group[1:] != group[:-1]))).astype(np.int64)
        return Pool(
            self.names, self.queries, self.docs, self.query[keep], self.doc[keep],
            self.scores[:, keep], self.ranks[:, keep], self.lengths[:, keep],
            renumbered if len(group) else group, self.size[keep],
        )  # fmt: skip


def _codes(run: Run, queries: Vocabulary, docs: Vocabulary) -> tuple[np.ndarray, np.ndarray]:
    """The run's query and document codes in the shared vocabularies."""
    if run.queries is queries:
        q = run.query
    else:
        q = queries.intern_many(run.queries.strings)[run.query]
    if run.docs is docs:
        d = run.doc
    else:
        d = docs.intern_many(run.docs.strings)[run.doc]
    return q.astype(np.int64), d.astype(np.int64)


def _ranks(run: Run, ties: str) -> np.ndarray:
    """Each row's 1-based rank within its query: by score, then the tie policy."""
    order = order_run(run, ties)
    query = run.query[order]
    first = np.concatenate(([True], query[1:] != query[:-1])) if len(query) else query
    starts = np.flatnonzero(first)
    counts = np.diff(np.append(starts, len(query)))
    rank = np.arange(len(query)) - np.repeat(starts, counts) + 1
    out = np.empty(len(run), dtype=np.int64)
    out[order] = rank
    return out


def build_pool(
    runs: Sequence[Run], queries: Vocabulary, docs: Vocabulary, ties: str = "docno-desc"
) -> Pool:
    """The candidates of ``runs`` (each ranks its queries by score, equal scores ordered by
    ``ties``), their ids in ``queries`` and ``docs``."""
    if len(runs) < 2:
        raise UsageError(f"fusion needs at least two runs (got {len(runs)})")
    coded = [_codes(run, queries, docs) for run in runs]
    width = max(len(docs), 1)
    keys = [q * width + d for q, d in coded]
    unique, inverse = np.unique(np.concatenate(keys), return_inverse=True)
    n_runs, n = len(runs), len(unique)
    scores = np.full((n_runs, n), np.nan)
    ranks = np.zeros((n_runs, n), dtype=np.int64)
    lengths = np.zeros((n_runs, n), dtype=np.int64)
    query = (unique // width).astype(np.int32)
    doc = (unique % width).astype(np.int32)
    n_queries = max(len(queries), 1)
    start = 0
    for r, (run, (q, _)) in enumerate(zip(runs, coded, strict=True)):
        columns = inverse[start : start + len(run)]
        start += len(run)
        scores[r, columns] = run.score
        ranks[r, columns] = _ranks(run, ties)
        lengths[r] = np.bincount(q, minlength=n_queries)[query]
    new_group = np.concatenate(([True], query[1:] != query[:-1])) if n else np.zeros(0, bool)
    group = np.cumsum(new_group).astype(np.int64) - 1
    size = np.bincount(group)[group] if n else np.zeros(0, np.int64)
    return Pool(
        tuple(run.name for run in runs), queries, docs, query, doc, scores, ranks, lengths,
        group, size.astype(np.int64),
    )  # fmt: skip
