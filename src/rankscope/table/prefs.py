"""Evaluation against preference judgments (trec_eval ``-R prefs`` and ``-R qrels_prefs``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import UsageError, warn
from ..judge import JoinOptions, JoinReport
from ..judge.prefs import byte_ranks, query_preferences
from ..measures import Request
from ..model import Prefs, Run
from .evaluation import RunEvaluation, summarise


def evaluate_prefs(
    prefs: Prefs,
    run: Run,
    requests: Sequence[Request],
    options: JoinOptions | None = None,
    report: JoinReport | None = None,
) -> RunEvaluation:
    """Evaluate ``run`` against preference judgments: the preference measures (family
    ``trec_prefs``), and ``runid`` and ``num_q``.

    A judged query the run does not rank is left out, or with ``complete`` evaluated on an
    empty ranking (trec_eval ``-c``: counts of possible preferences keep their values, every
    other measure is 0).  ``report``: where the queries on one side only are recorded (as
    `rankscope.table.evaluation.evaluate_run` records them; they are told either way).
    """
    options = JoinOptions(ties="docno-asc") if options is None else options
    complete = options.complete
    report = JoinReport() if report is None else report
    # every judged document counts: no relevance level, no condensed list, no lengths
    judged = options.judge(
        prefs.judged_documents(), run, report, relevance_level=1, judged_only=False,
        doc_lengths=None,
    )
    for line in report.summary(run.name, complete):
        warn(line)
    to_prefs_docs = prefs.docs.translate(run.docs)
    by_query = np.argsort(prefs.query, kind="stable")
    starts = np.searchsorted(prefs.query[by_query], np.arange(len(prefs.queries) + 1))
    label_ranks = byte_ranks(prefs.labels.strings)
    positions = judged.judged_positions
    for request in requests:
        if request.measure.family != "trec_prefs" and not request.measure.describes_run:
            raise UsageError(
                f"{request.label} is not computed from preference judgments (-R prefs)"
            )
    columns = [
        r.measure.run_facts(judged.num_queries)
        if r.measure.describes_run
        else np.zeros(judged.num_queries)
        for r in requests
    ]
    for i, qid in enumerate(judged.query_ids):
        code = prefs.queries.code(qid)
        rows = by_query[starts[code] : starts[code + 1]]
        lo, hi = np.searchsorted(positions, judged.offsets[i : i + 2])
        retrieved = to_prefs_docs[judged.doc[positions[lo:hi]]]
        query = query_preferences(prefs, rows, retrieved, label_ranks)
        for request, column in zip(requests, columns, strict=True):
            if request.measure.family == "trec_prefs":
                column[i] = request.measure.kernel(query)
    summary = [summarise(r, col, run.runid) for r, col in zip(requests, columns, strict=True)]
    return RunEvaluation(
        run.name, judged.query_ids, list(requests), columns, summary, judged.missing,
        runid=run.runid,
    )
