"""One run evaluated block by block (`rankscope.read.blocks`): each block of whole queries
judged and evaluated on its own, the blocks' per-query values then put together into the
`RunEvaluation` that evaluating the whole run gives, value for value and warning for
warning.

Per-query values depend on the query's rows and judgments only, so a block's are the whole
run's; what depends on every query is worked out once the blocks are in: the queries in
output order, the judged queries no block ranks (left out, or scored 0 under ``-c``), the
summaries, and the warnings about queries on one side only and about a run nothing of which
is judged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import warn
from ..judge import JoinOptions, JoinReport
from ..measures import Request
from ..model import Qrels, Run
from .evaluation import (
    RunEvaluation,
    judge_and_evaluate,
    nothing_judged,
    summarise,
    warn_if_nothing_judged,
)


@dataclass
class BlockResult:
    """What one block of a run gives: its judged queries' values, and what the run's
    warnings and checks are told from."""

    query_ids: list[str]  # the block's judged queries, in output order
    values: list[np.ndarray]  # per request: one value per query
    run_only: list[str]  # the block's queries without judgments
    retrieved: int  # see `nothing_judged`
    judged: int
    first: tuple[str, str] | None
    tag: str | None  # the tag of its last line
    rows: int


def evaluate_block(
    qrels: Qrels,
    run: Run,
    requests: Sequence[Request],
    options: JoinOptions,
    num_docs: int = 0,
) -> BlockResult:
    """Judge and evaluate the rows of one block (``run``, holding whole queries), telling
    nothing: `merge_blocks` tells the run's warnings once."""
    report = JoinReport(with_qrels_only=False)
    result, judged = judge_and_evaluate(
        qrels, run, requests, dataclasses.replace(options, complete=False), num_docs=num_docs,
        report=report,
    )  # fmt: skip
    retrieved, judged_count, first = nothing_judged(judged, run)
    return BlockResult(
        result.query_ids, result.values, report.run_only, retrieved, judged_count,
        first, run.tag, len(run),
    )  # fmt: skip


def merge_blocks(
    qrels: Qrels,
    parts: Sequence[BlockResult],
    requests: Sequence[Request],
    options: JoinOptions,
    *,
    source: str,
    name: str | None = None,
    num_docs: int = 0,
) -> RunEvaluation:
    """The evaluation of the run file ``source`` from its blocks' results (in file order,
    each query in one block, at least one row in all), with the warnings `evaluate_run`
    gives; ``name``: the run's name if not its tag."""
    tag = next((p.tag for p in reversed(parts) if p.rows), None)
    run_name = name or tag or Path(source).name
    query_ids = [q for p in parts for q in p.query_ids]
    values = [
        np.concatenate([p.values[i] for p in parts]) if parts else np.zeros(0)
        for i in range(len(requests))
    ]
    missing = np.zeros(len(query_ids), dtype=bool)
    judged_ids = set(qrels.query_ids)
    unranked = sorted(judged_ids.difference(query_ids))
    complete_num_rel = None
    if options.complete:  # the judged queries no block ranks, scored as -c scores them
        empty = Run(
            run_name, qrels.queries, qrels.docs, np.zeros(0, np.int32), np.zeros(0, np.int32),
            np.zeros(0), source=source, tag=tag,
        )  # fmt: skip
        alone, _ = judge_and_evaluate(qrels, empty, requests, options, num_docs=num_docs)
        complete_num_rel = alone.complete_num_rel
        take = np.flatnonzero(np.isin(alone.query_ids, unranked))
        query_ids += [alone.query_ids[i] for i in take.tolist()]
        values = [np.concatenate((v, a[take])) for v, a in zip(values, alone.values, strict=True)]
        missing = np.concatenate((missing, alone.missing[take]))
    order = np.asarray(sorted(range(len(query_ids)), key=query_ids.__getitem__), dtype=np.int64)
    query_ids = [query_ids[i] for i in order.tolist()]
    values = [v[order] for v in values]
    runid = tag or run_name
    report = JoinReport(sorted({q for p in parts for q in p.run_only}), unranked)  # fmt: skip
    for line in report.summary(run_name, options.complete):
        warn(line)
    firsts = [p.first for p in parts if p.first is not None]
    warn_if_nothing_judged(
        run_name, sum(p.retrieved for p in parts), sum(p.judged for p in parts),
        min(firsts) if firsts else None, qrels,
    )  # fmt: skip
    return RunEvaluation(
        run_name, query_ids, list(requests), values,
        [summarise(r, v, runid, complete_num_rel) for r, v in zip(requests, values, strict=True)],
        missing[order], complete_num_rel, runid=runid,
    )  # fmt: skip
