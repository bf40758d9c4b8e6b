"""The preferences' front door: `preferences` reads judgments and runs from anything, builds
the relevance table once (`runs_relevance_table`: one run at a time, keeping only where it
ranks the relevant documents) and computes a preference method of `rankscope.preference` on
it."""

from __future__ import annotations

from functools import partial
from typing import Any

from ..errors import UsageError
from ..judge import (
    JoinOptions,
    RelevanceTable,
    relevance_table,
    relevant_docs,
    warn_unranked,
)
from ..measures import Request, compute_request, method_of, parse_method
from ..model import Qrels
from ..preference import Method, PreferenceResult
from ..preference.learned import LearnedWeights
from ..read.runs import check_common_queries
from ..read.sources import resolve_runs, run_sources
from ..table.evaluation import positions_table
from ..table.formats import FORMATS
from ..table.many import check_jobs, evaluate_many_runs
from .evaluation import read_qrels_for

__all__ = ["preferences"]


def preferences(
    qrels: Any,
    runs: Any,
    method: str | Request | Method | LearnedWeights = "RPP",
    *,
    relevance_level: int = 1,
    ties: str = "docno-desc",
    max_docs: int | None = None,
    duplicates: str = "error",
    names: str = "file",
    table: Any = None,
    jobs: int | None = None,
) -> PreferenceResult:
    """Preferences between every pair of runs on every query with relevant documents.

    Parameters
    ----------
    qrels, runs:
        Anything `rankscope.read_qrels` / `rankscope.read_run` accept; ``runs`` as for
        `rankscope.evaluate` (a list, a ``{name: run}`` dict, a directory), at least two.
        For ``stRPP`` a qrels file is read as diversity judgments (qid subtopic docno grade).
    method:
        A preference method, named as in `rankscope.evaluate` (`rankscope measures` lists
        them): ``RPP``, ``dcgRPP``, ``invRPP`` (binary at ``relevance_level``), ``gRPP``
        (graded; ``gRPP(p=dcg)``, ``gRPP(p=inverse)``), ``stRPP``, ``lexiprecision``,
        ``rrlexiprecision``, ``lexirecall``, ``OI`` (offline interleaving;
        ``OI(interleaving=balanced,browsing=dcg)``); ``RPP(rel=2)`` sets the level for one
        method.  A `rankscope.preference.Method` object, or weights learned from labelled
        preferences (`rankscope.clicks.LearnedWeights`, `rankscope.clicks.learn_weights`),
        is computed as it is.
    names:
        Run files named by ``file`` (default) or ``tag``, as in `rankscope.evaluate`.
    table:
        A `rankscope.judge.RelevanceTable` already built (then ``qrels`` and ``runs`` are
        not read; ``OI`` needs one built with ``keep_rankings=True``).
    jobs:
        Worker processes sharing the runs, read one at a time (`runs_relevance_table`;
        default: every core when the run files reach 32 MB, else one); ``OI`` reads every
        run whole, in this process.

    Examples
    --------
    >>> import rankscope
    >>> qrels = {"q": {"a": 1, "b": 1}}
    >>> runs = {"x": {"q": {"a": 3, "b": 2, "c": 1}}, "y": {"q": {"c": 3, "a": 2, "b": 1}}}
    >>> result = rankscope.preferences(qrels, runs, "RPP")
    >>> float(result.prefs[0, 0, 1])   # x finds the 1st and 2nd relevant documents first
    1.0
    """
    if isinstance(method, LearnedWeights):
        method = method.method()
    if isinstance(method, Method):
        compute, rankings, named = method.compute, method.rankings, []
    else:
        request = parse_method(method)
        compute = partial(compute_request, request=request)
        rankings, named = method_of(request).rankings, [request]
    if table is None:
        table = runs_relevance_table(
            read_qrels_for(qrels, named), runs, relevance_level=relevance_level, ties=ties,
            max_docs=max_docs, duplicates=duplicates, names=names, keep_rankings=rankings,
            jobs=jobs,
        )  # fmt: skip
    return compute(table)


def runs_relevance_table(
    judgments: Qrels,
    runs: Any,
    *,
    relevance_level: int = 1,
    ties: str = "docno-desc",
    max_docs: int | None = None,
    duplicates: str = "error",
    names: str = "file",
    keep_rankings: bool = False,
    check_common: bool = False,
    jobs: int | None = None,
) -> RelevanceTable:
    """The `rankscope.judge.relevance_table` of ``runs`` (as `preferences` takes them):
    each run read, judged and reduced to where it ranks the relevant documents one at a
    time (`rankscope.table.many.evaluate_many_runs`, ``jobs`` worker processes), so that
    memory stays flat in the number of runs; the table, its warnings and its errors are
    those of the runs read whole.  ``keep_rankings`` (offline interleaving needs whole
    rankings) and judgments without a relevant document read every run whole;
    ``check_common``: a run sharing no query with the judgments is an error
    (`rankscope.read.runs.check_common_queries`)."""
    check_jobs(jobs)
    if keep_rankings or not (judgments.grade >= relevance_level).any():
        found = resolve_runs(runs, judgments, duplicates, names=names, distinct_for="preferences")
        if check_common:
            check_common_queries(judgments, found)
        return relevance_table(
            judgments, found, relevance_level=relevance_level, ties=ties, max_docs=max_docs,
            keep_rankings=keep_rankings,
        )  # fmt: skip
    docs = relevant_docs(judgments, relevance_level)
    options = JoinOptions(relevance_level, ties, max_docs, complete=True)
    evaluated = evaluate_many_runs(
        judgments, run_sources(runs, getattr(judgments, "source", None), names), [],
        FORMATS["qrels"], options, duplicates=duplicates, names=names,
        check_common=check_common, jobs=jobs, distinct_for="preferences", positions=docs,
    )  # fmt: skip
    if len(evaluated) < 2:
        raise UsageError("preferences compare rankings: give at least two runs")
    for result in evaluated:
        warn_unranked(docs, result.run_name, result.query_ids, result.missing)
    return positions_table(docs, evaluated, "preferences")
