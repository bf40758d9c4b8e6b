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

import numpy as np

from ..errors import warn
from ..judge import JoinOptions, JoinReport
from ..judge.groups import expand_run
from ..measures import Request
from ..model import GroupedQrels, Run
from ..model.judgments import PAIR_SEPARATOR
from .evaluation import RunEvaluation, summarise


def evaluate_judgment_groups(
    qrels: GroupedQrels,
    run: Run,
    requests: Sequence[Request],
    options: JoinOptions | None = None,
    report: JoinReport | None = None,
) -> RunEvaluation:
    """Evaluate ``run`` against judgments in groups: each request's per-query value is the
    mean over the query's groups (``runid`` and ``num_q`` as usual).  ``report``: where
    the queries on one side only are recorded (they are told either way)."""
    pair_qrels, of_query = qrels.pairs()
    expanded = expand_run(run, pair_qrels.queries, of_query)
    options = JoinOptions() if options is None else options
    complete = options.complete
    pairs = JoinReport()
    judged = options.judge(pair_qrels, expanded, pairs, doc_lengths=None)
    owner = [pair.split(PAIR_SEPARATOR, 1)[0] for pair in judged.query_ids]
    query_ids = list(dict.fromkeys(owner))
    starts = np.flatnonzero([i == 0 or owner[i] != owner[i - 1] for i in range(len(owner))])
    groups = np.diff(np.append(starts, len(owner)))
    qrels_only = sorted({p.split(PAIR_SEPARATOR, 1)[0] for p in pairs.qrels_only})
    _report(run, qrels, qrels_only, complete, report)

    values = []
    for req in requests:
        if req.measure.describes_run:
            values.append(req.measure.run_facts(len(query_ids)))
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
    summary = [summarise(r, col, run.runid) for r, col in zip(requests, values, strict=True)]
    return RunEvaluation(
        run.name, query_ids, list(requests), values, summary, missing, runid=run.runid
    )


def _report(run: Run, qrels: GroupedQrels, qrels_only: list[str], complete: bool,
            report: JoinReport | None) -> None:  # fmt: skip
    """Warn about queries on one side only, as for ordinary qrels (and record them in
    ``report``)."""
    judged_ids = set(qrels.query_ids)
    ranked_ids = run.queries.strings_of(np.unique(run.query))
    run_only = sorted(s for s in ranked_ids if s not in judged_ids)
    if report is not None:
        report.run_only.extend(run_only)
        report.qrels_only.extend(qrels_only)
    for line in JoinReport(run_only, qrels_only).summary(run.name, complete):
        warn(line)
