"""Judgments in judgment groups (trec_eval ``-R qrels_jg``) and the measures averaged over them.

A judgment group (JG) is one complete set of judgments for a query — typically one user's.
``map_avgjg``, ``P_avgjg`` and ``Rprec_mult_avgjg`` compute AP, P@k and P@(m·R) against each
group of the query separately, then average over the query's groups (a query with one group
scores as with ordinary qrels).

The evaluation follows the usual path: each (query, group) pair becomes a query of its own
(its judgments, and the run's ranking of the query), `judge` orders and joins once, the
measure kernels compute one value per pair, and the pairs of each query are averaged, in the
order of the groups' names, as trec_eval adds them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .data import JoinReport, Qrels, Run, Vocabulary, _Rows, judge, warn
from .evaluation import RunEvaluation, summarise
from .measures import Request

#: Joins a query id and a group name into the id of the pair; sorts before any character, so
#: pairs sort by query, then group.
_SEP = "\x00"


@dataclass(frozen=True, eq=False)
class GroupedQrels(_Rows):
    """Judgments ``qid jg docno grade``: one row per (query, judgment group, document)."""

    queries: Vocabulary
    docs: Vocabulary
    query: np.ndarray  # int32 codes into `queries`
    doc: np.ndarray  # int32 codes into `docs`
    grade: np.ndarray  # int64
    groups: Vocabulary  # judgment group names
    group: np.ndarray  # int32 codes into `groups`
    source: str = "<qrels_jg>"
    line: np.ndarray | None = None

    def pairs(self) -> tuple[Qrels, dict[str, list[str]]]:
        """Qrels whose queries are the (query, group) pairs, and each query's pair ids."""
        qs, gs = self.queries.strings, self.groups.strings
        pair_ids = [
            qs[q] + _SEP + gs[g]
            for q, g in zip(self.query.tolist(), self.group.tolist(), strict=True)
        ]
        vocabulary = Vocabulary()
        codes = vocabulary.intern_many(pair_ids)
        of_query: dict[str, list[str]] = {}
        for pair in vocabulary.strings:
            of_query.setdefault(pair.split(_SEP, 1)[0], []).append(pair)
        qrels = Qrels(
            vocabulary, self.docs, codes, self.doc, self.grade, source=self.source, line=self.line
        )
        return qrels, of_query


def _expand_run(run: Run, pairs: Vocabulary, of_query: dict[str, list[str]]) -> Run:
    """The run with each query's ranking repeated for each of its judgment groups."""
    pair_codes = [pairs.lookup_many(of_query.get(qid, [])).tolist() for qid in run.queries.strings]
    sizes = np.array([len(p) for p in pair_codes], dtype=np.int64)
    flat = np.array([c for p in pair_codes for c in p], dtype=np.int32)
    first = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    copies = sizes[run.query]
    rows = np.repeat(np.arange(len(run)), copies)
    nth = np.arange(len(rows)) - np.repeat(np.cumsum(copies) - copies, copies)
    query = flat[first[run.query[rows]] + nth] if len(rows) else np.zeros(0, dtype=np.int32)
    return Run(
        run.name, pairs, run.docs, query, run.doc[rows], run.score[rows], source=run.source,
        line=None if run.line is None else run.line[rows],
    )  # fmt: skip


def evaluate_judgment_groups(
    qrels: GroupedQrels,
    run: Run,
    requests: Sequence[Request],
    *,
    relevance_level: int = 1,
    ties: str = "docno-desc",
    max_docs: int | None = None,
    judged_only: bool = False,
    complete: bool = False,
) -> RunEvaluation:
    """Evaluate ``run`` against judgments in groups: each request's per-query value is the
    mean over the query's groups (``runid`` and ``num_q`` as usual)."""
    pair_qrels, of_query = qrels.pairs()
    expanded = _expand_run(run, pair_qrels.queries, of_query)
    report = JoinReport()
    judged = judge(
        pair_qrels, expanded, relevance_level=relevance_level, ties=ties, max_docs=max_docs,
        judged_only=judged_only, complete=complete, report=report,
    )  # fmt: skip
    owner = [pair.split(_SEP, 1)[0] for pair in judged.query_ids]
    query_ids = list(dict.fromkeys(owner))
    starts = np.flatnonzero([i == 0 or owner[i] != owner[i - 1] for i in range(len(owner))])
    groups = np.diff(np.append(starts, len(owner)))
    _report(run, qrels, sorted({p.split(_SEP, 1)[0] for p in report.qrels_only}), complete)

    values = []
    for req in requests:
        if req.measure.aggregate == "runid":
            values.append(np.full(len(query_ids), "", dtype=object))
            continue
        if req.measure.aggregate == "count":
            values.append(np.ones(len(query_ids)))
            continue
        per_pair = np.zeros(judged.num_queries)
        for rows, ranked in judged.batches():
            per_pair[rows] = req.compute(ranked)
        per_pair[judged.missing] = 0.0
        column = np.zeros(len(query_ids))
        for i, (start, count) in enumerate(zip(starts.tolist(), groups.tolist(), strict=True)):
            total = 0.0
            for v in per_pair[start : start + count].tolist():
                total += v  # trec_eval adds the groups in order, then divides
            column[i] = total / count if count > 1 else total
        values.append(column)
    missing = np.zeros(len(query_ids), dtype=bool)
    if len(owner):
        missing[np.searchsorted(starts, np.flatnonzero(judged.missing), side="right") - 1] = True
    summary = [summarise(r, col, run.name) for r, col in zip(requests, values, strict=True)]
    return RunEvaluation(run.name, query_ids, list(requests), values, summary, missing)


def _report(run: Run, qrels: GroupedQrels, qrels_only: list[str], complete: bool) -> None:
    """Warn about queries on one side only, as for ordinary qrels."""
    judged_ids = set(qrels.query_ids)
    ranked_ids = run.queries.strings_of(np.unique(run.query))
    run_only = sorted(s for s in ranked_ids if s not in judged_ids)
    for line in JoinReport(run_only, qrels_only).summary(run.name, complete):
        warn(line)
