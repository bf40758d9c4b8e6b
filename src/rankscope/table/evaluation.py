"""Evaluation: `Judged` rankings x measure requests -> per-query values and summaries.

Policies (trec_eval's by default):

* Ties: equal scores are ordered by document id descending (``ties="docno-desc"``);
  ``docno-asc`` and ``input-order`` are options.
* A query with judgments but no ranking in the run is left out of the averages, or, with
  ``complete=True`` (trec_eval ``-c``), scores 0 on every measure (``num_rel`` keeps its
  count) and counts in the averages.
* A query ranked by the run but absent from the judgments is ignored.
* A query without relevant documents scores 0 on measures that divide by R.
* An empty ranking (possible after ``judged_only``) scores 0 everywhere.
Both one-sided cases are reported as warnings, one line per run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..errors import UsageError, warn
from ..judge import JoinOptions, JoinReport, Judged, RelevanceTable, RelevantDocs
from ..measures import Request, parse_measures
from ..model import Qrels, Run
from ..model.frames import plain, records_frame

MIN_GEO_MEAN = 0.00001


@dataclass(frozen=True)
class RunEvaluation:
    """Per-query values and summary of one run, for each request (in output order).  A
    value: code that adds measures builds a new one (`dataclasses.replace`)."""

    run_name: str
    query_ids: list[str]
    requests: list[Request]
    values: list[np.ndarray]  # per request: one value per query (float, or object for text)
    summary: list[float | int | str | None]  # per request: the summary value (None if none)
    missing: np.ndarray  # per query: judged but not ranked by the run
    complete_num_rel: int | None = None  # under -c: num_rel's summary (trec_eval's count)
    zscores: bool = False  # values are z-scores (trec_eval -Z): printed as Z<name>
    runid: str | None = None  # trec_eval's runid, the run's tag (None: its name)
    # where the run ranks the relevant documents of a `rankscope.judge.RelevantDocs`, in its
    # order (`judged_positions`): runs read one at a time for preferences and recall levels
    positions: np.ndarray | None = None

    def value(self, label: str) -> np.ndarray:
        for r, v in zip(self.requests, self.values, strict=True):
            if r.label == label:
                return v
        raise KeyError(label)

    def summary_of(self, label: str) -> float | int | str | None:
        for r, v in zip(self.requests, self.summary, strict=True):
            if r.label == label:
                return v
        raise KeyError(label)

    def records(self, per_query: bool = True) -> list[dict[str, Any]]:
        """The tidy rows (run, query, measure, value), measures in request order: one per
        (query, measure) with ``per_query``, else one summary row per measure with query
        ``all``; the run-name pseudo-measure (``runid``) left out."""
        out: list[dict[str, Any]] = []
        if per_query:
            for req, col in zip(self.requests, self.values, strict=True):
                if req.measure.is_run_name:
                    continue
                out.extend(
                    {"run": self.run_name, "query": qid, "measure": req.label, "value": v}
                    for qid, v in zip(self.query_ids, col.tolist(), strict=True)
                )
            return out
        for req, v in zip(self.requests, self.summary, strict=True):
            if v is None or req.measure.is_run_name:
                continue
            out.append({"run": self.run_name, "query": "all", "measure": req.label, "value": v})
        return out

    def to_frame(self, output: str = "pandas", per_query: bool = True) -> Any:
        """`records` as a DataFrame (pandas, polars) or a dict of columns."""
        return records_frame(self.records(per_query), RECORD_COLUMNS, output)

    def to_dict(self) -> dict[str, Any]:
        """The run's name, its summary and per-query values by measure label (full
        precision, JSON-ready)."""
        return {
            "run": self.run_name,
            "runid": self.runid,
            "summary": {
                r.label: plain(v) for r, v in zip(self.requests, self.summary, strict=True)
            },
            "per_query": {
                r.label: dict(zip(self.query_ids, plain(col), strict=True))
                for r, col in zip(self.requests, self.values, strict=True)
            },
        }


#: The columns of `RunEvaluation.records`.
RECORD_COLUMNS = ("run", "query", "measure", "value")


def as_requests(measures: str | Sequence[str | Request] | None) -> list[Request]:
    if measures is None:
        measures = ["official"]
    if isinstance(measures, str):
        measures = [measures]
    return parse_measures(measures)


def evaluate_judged(
    judged: Judged,
    requests: Sequence[Request],
    *,
    num_docs: int = 0,
    complete: bool = False,
) -> RunEvaluation:
    """Compute every request on every query of ``judged`` and summarise."""
    nq = judged.num_queries
    columns: list[np.ndarray] = []
    kwargs_list = []
    for req in requests:
        kwargs = req.kwargs
        if "num_docs" in kwargs and not kwargs["num_docs"]:
            kwargs["num_docs"] = num_docs
        kwargs_list.append(kwargs)
        dtype = object if req.measure.value == "str" else np.float64
        columns.append(np.zeros(nq, dtype=dtype))
    for rows, ranked in judged.batches():
        for req, kwargs, col in zip(requests, kwargs_list, columns, strict=True):
            col[rows] = req.measure.kernel(ranked, **kwargs)
    missing = judged.missing
    if missing.any():
        for req, col in zip(requests, columns, strict=True):
            if req.measure.zero_when_missing:
                col[missing] = "" if req.measure.value == "str" else 0.0
    # trec_eval -c: num_rel's summary counts every judged document with grade > 0, whatever
    # the level
    complete_num_rel = int(judged.rel_levels[:, 1:].sum()) if complete else None
    summary = [
        summarise(req, col, judged.runid or judged.run_name, complete_num_rel)
        for req, col in zip(requests, columns, strict=True)
    ]
    return RunEvaluation(
        judged.run_name, judged.query_ids, list(requests), columns, summary, missing,
        complete_num_rel, runid=judged.runid,
    )  # fmt: skip


def _sequential(values: np.ndarray) -> float:
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def summarise(
    req: Request, col: np.ndarray, run_name: str, complete_num_rel: int | None = None
) -> float | int | str | None:
    """The summary of one request's per-query values (``complete_num_rel``: num_rel's
    summary under ``-c``)."""
    how = req.measure.aggregate
    n = len(col)
    if how == "none":
        return None
    if how == "runid":
        return run_name
    if how == "count":
        return n
    if how == "sum":
        return _sequential(col)
    if how == "num_rel":
        return complete_num_rel if complete_num_rel is not None else _sequential(col)
    if how == "mean":
        return _sequential(col) / n if n else 0.0
    if how == "gmean":
        if not n:
            return 0.0
        logs = np.log(np.maximum(col.astype(np.float64), MIN_GEO_MEAN))
        return math.exp(_sequential(logs) / n)
    raise UsageError(f"unknown aggregate {how!r}")


def nothing_judged(judged: Judged, run: Run) -> tuple[int, int, tuple[str, str] | None]:
    """What `warn_if_nothing_judged` reads of ``judged``: the documents retrieved on the
    evaluated queries, how many of them the judgments mention, and the first query and
    document ranked (None when nothing is)."""
    first = None
    if len(judged.doc) and judged.num_queries:
        at = int(np.searchsorted(judged.offsets, 0, side="right")) - 1
        first = (judged.query_ids[at], run.docs.strings_of(judged.doc[:1])[0])
    return int(judged.num_ret.sum()), len(judged.judged_positions), first


def warn_if_nothing_judged(
    name: str, retrieved: int, judged: int, first: tuple[str, str] | None, qrels: Qrels
) -> None:
    """A run none of whose retrieved documents the judgments mention scores 0 everywhere:
    usually document ids spelled otherwise (case, a prefix), the commonest silent mistake.
    ``retrieved``, ``judged``, ``first``: as `nothing_judged` gives them (summed over the
    blocks of a run read block by block, ``first`` the earliest in output order)."""
    message = nothing_judged_warning(name, retrieved, judged, first, qrels)
    if message is not None:
        warn(message)


def nothing_judged_warning(
    name: str, retrieved: int, judged: int, first: tuple[str, str] | None, qrels: Qrels
) -> str | None:
    """What `warn_if_nothing_judged` says (None: nothing), for a caller that tells it later
    (`rankscope.table.study.Joins`, its runs joined while the next is read)."""
    if retrieved == 0 or judged or first is None:
        return None
    judged_sample = qrels.docs.strings_of(qrels.doc[:1])[0]
    return (
        f"run '{name}': none of its {retrieved} retrieved documents on the judged queries "
        f"is in the judgments, so every measure is 0; are the document ids spelled as in "
        f"{qrels.source} (the run has {first[1]!r}, the judgments {judged_sample!r})?"
    )


def evaluate_run(
    qrels: Qrels,
    run: Run,
    measures: str | Sequence[str | Request] | None = None,
    options: JoinOptions | None = None,
    *,
    num_docs: int = 0,
    report: JoinReport | None = None,
) -> RunEvaluation:
    """Evaluate one run: judge it, then compute the requested measures.

    Requests marked ``judged_only`` (``nDCG(judged_only=True)@10``) are computed on the
    condensed rankings, without their unjudged documents; the others on the rankings as
    given (or condensed for all, with ``judged_only=True``, trec_eval's ``-J``).
    """
    options = JoinOptions() if options is None else options
    report = JoinReport() if report is None else report
    result, judged = judge_and_evaluate(
        qrels, run, as_requests(measures), options, num_docs=num_docs, report=report
    )
    for line in report.summary(run.name, options.complete):
        warn(line)
    warn_if_nothing_judged(run.name, *nothing_judged(judged, run), qrels)
    return result


def judge_and_evaluate(
    qrels: Qrels,
    run: Run,
    requests: Sequence[Request],
    options: JoinOptions,
    *,
    num_docs: int = 0,
    report: JoinReport | None = None,
) -> tuple[RunEvaluation, Judged]:
    """`evaluate_run` without its warnings: the evaluation, and the rankings as judged for
    the requests that are not ``judged_only`` (what the warnings are told from)."""
    complete, judged_only = options.complete, options.judged_only
    judged = options.judge(qrels, run, report)
    plain = [r for r in requests if not r.judged_only or judged_only]
    if len(plain) == len(requests):
        return evaluate_judged(judged, requests, num_docs=num_docs, complete=complete), judged
    condensed = [r for r in requests if r.judged_only and not judged_only]
    first = evaluate_judged(judged, plain, num_docs=num_docs, complete=complete)
    second = evaluate_judged(
        options.judge(qrels, run, judged_only=True), condensed, num_docs=num_docs,
        complete=complete,
    )  # fmt: skip
    both = replace(
        first, requests=[*first.requests, *second.requests],
        values=[*first.values, *second.values], summary=[*first.summary, *second.summary],
    )  # fmt: skip
    return in_order(both, requests), judged


def in_order(result: RunEvaluation, requests: Sequence[Request]) -> RunEvaluation:
    """``result`` with its columns in the order of ``requests`` (which it holds, each once):
    the order asked, when parts of the evaluation were computed apart."""
    at = {r: i for i, r in enumerate(result.requests)}
    return replace(
        result, requests=[result.requests[at[r]] for r in requests],
        values=[result.values[at[r]] for r in requests],
        summary=[result.summary[at[r]] for r in requests],
    )  # fmt: skip


def evaluation_table(results: Sequence[RunEvaluation], per_query: bool = True) -> dict[str, list]:
    """The tidy table (run, query, measure, value) of evaluated runs as a dict of columns:
    their `RunEvaluation.records`, one run after another."""
    records = [record for res in results for record in res.records(per_query)]
    return records_frame(records, RECORD_COLUMNS, "dict")


def positions_table(
    docs: RelevantDocs, evaluated: Sequence[RunEvaluation], what: str
) -> RelevanceTable:
    """The table of the ``evaluated`` runs from the positions of ``docs`` they kept;
    `UsageError` naming ``what`` needs them when they did not keep them."""
    positions = [
        r.positions for r in evaluated if r.positions is not None and len(r.positions) == docs.count
    ]
    if len(positions) < len(evaluated):
        raise UsageError(f"{what} of evaluated runs need their ranks")
    return docs.table([r.run_name for r in evaluated], positions)
