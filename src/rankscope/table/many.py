"""Many runs against one set of judgments: read, judge and evaluate one run at a time, on
every core, keeping only each run's per-query values.

The judgments are read once.  Each run is then read into vocabularies *scoped* to it (the
judgments' ids under their codes, plus the run's own, dropped with the run), evaluated, and
forgotten: peak memory is that of the judgments and the largest run, whatever the number of
runs.  With ``jobs`` > 1 the runs are shared among worker processes (forked, so that the
judgments are not copied or pickled); the results, their warnings and the first error come
back in the order of the runs, so the output is the same for every number of jobs.

Measures that compare runs with each other (preference win rates) need every run at once:
`evaluate_many_runs` is not for them (see `streams`).
"""

from __future__ import annotations

import dataclasses
import os
import threading
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import RankscopeError, RankscopeWarning, UsageError
from ..judge import JoinOptions
from ..measures import Request
from ..model import Qrels, ZScores
from ..read.sources import RunSource, check_common_queries, run_names
from .evaluation import RunEvaluation
from .formats import JudgmentFormat, evaluation_options
from .zscores import to_zscores

# Below this many bytes of run files, a pool costs more than it saves: ``jobs=None`` runs
# them in this process (an explicit ``jobs`` is always obeyed).
PARALLEL_BYTES = 32 << 20


def streams(requests: Sequence[Request]) -> bool:
    """Whether runs can be evaluated one at a time for these requests (no measure compares
    one run with the others)."""
    return not any(r.measure.family == "preference" for r in requests)


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def check_jobs(jobs: int | None) -> None:
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise UsageError(
            f"jobs must be a whole number >= 1 (got {jobs!r})",
            cli=f"--jobs must be a whole number >= 1 (got {jobs!r})",
        )


@dataclass(frozen=True)
class _Task:
    judgments: Any
    sources: Sequence[RunSource]
    requests: Sequence[Request]
    fmt: JudgmentFormat
    options: JoinOptions
    num_docs: int
    zscores: ZScores | None
    duplicates: str
    order: str
    check_common: bool


@dataclass
class _Outcome:
    result: RunEvaluation | None
    name: str
    source: str
    warnings: list[Warning]
    error: RankscopeError | None


_TASK: _Task | None = None  # what forked workers evaluate (set before the pool forks)


def _evaluate_one(index: int) -> _Outcome:
    """Read, judge and evaluate run ``index`` of the task; its warnings and a user error are
    kept, to be told by the caller in the runs' order."""
    task = _TASK
    assert task is not None
    source = task.sources[index]
    name, where = source.name or "", ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            judgments = task.judgments
            if isinstance(judgments, Qrels):
                queries, docs = judgments.queries.scoped(), judgments.docs.scoped()
            else:
                queries, docs = judgments.queries, judgments.docs
            run = source.read(queries, docs, task.duplicates, task.order)
            name, where = run.name, run.source
            if task.check_common:
                check_common_queries(judgments, [run])
            [result] = task.fmt.evaluate(
                judgments, [run], task.requests, task.options, task.num_docs
            )
            if task.zscores is not None:
                result = to_zscores(result, task.zscores)
            # the requests (whose measures hold functions) go back as their positions
            position = {id(r): i for i, r in enumerate(task.requests)}
            kept = [position[id(r)] for r in result.requests]
            result = dataclasses.replace(result, requests=kept)  # type: ignore[arg-type]
            error = None
        except RankscopeError as e:
            result, error = None, e
    told = [w.message for w in caught if isinstance(w.message, Warning)]
    return _Outcome(result, name, where, told, error)


def evaluate_many_runs(
    judgments: Any,
    sources: Sequence[RunSource],
    requests: Sequence[Request],
    fmt: JudgmentFormat,
    options: JoinOptions | None = None,
    *,
    num_docs: int = 0,
    zscores: ZScores | None = None,
    duplicates: str = "error",
    order: str = "score",
    names: str = "tag",
    check_common: bool = False,
    jobs: int | None = None,
) -> list[RunEvaluation]:
    """Evaluate the runs of ``sources`` one at a time (see the module), as `evaluate_runs`
    would evaluate them all at once; ``jobs``: worker processes (None: every core when the
    runs are big enough to pay for them, else this process alone).  Runs are named as
    `resolve_runs` names them; ``check_common``: a run sharing no query with the judgments
    is an error (`check_common_queries`)."""
    global _TASK
    check_jobs(jobs)
    if not streams(requests):
        raise UsageError("preference measures compare the runs: evaluate them all at once")
    options = evaluation_options(judgments, requests, fmt, options, num_docs)
    task = _Task(
        judgments, sources, requests, fmt, options, num_docs, zscores, duplicates, order,
        check_common,
    )  # fmt: skip
    workers = _workers(sources, jobs)
    outcomes: list[_Outcome] = []
    _TASK = task
    try:
        for outcome in _outcomes(len(sources), workers):
            if outcome.error is not None:
                raise outcome.error
            outcomes.append(outcome)
    finally:
        _TASK = None
    # Named as resolve_runs names runs read all at once, then each run's warnings told
    # under its final name, in the runs' order.
    final = run_names([(o.name, o.source) for o in outcomes], names)
    results = []
    for o, name in zip(outcomes, final, strict=True):
        for message in o.warnings:
            warnings.warn(_renamed(message, o.name, name), stacklevel=2)
        assert o.result is not None
        used = [requests[i] for i in o.result.requests]  # type: ignore[call-overload]
        results.append(dataclasses.replace(o.result, run_name=name, requests=used))
    return results


def _renamed(message: Warning, old: str, new: str) -> Warning:
    """A run's warning naming it ``new`` where it was read as ``old`` (its tag, until runs
    of one tag were named after their files)."""
    if old == new or not isinstance(message, RankscopeWarning):
        return message
    text, cli = str(message), message.cli_message
    was, now = f"run '{old}'", f"run '{new}'"
    return RankscopeWarning(
        text.replace(was, now), cli=cli.replace(was, now) if cli != text else None
    )


def _workers(sources: Sequence[RunSource], jobs: int | None) -> int:
    if len(sources) < 2 or jobs == 1:
        return 1
    import multiprocessing  # (not at start-up: one run, or small ones, need no pool)

    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    if jobs is None:
        size = 0
        for s in sources:
            try:
                size += os.path.getsize(s.given) if isinstance(s.given, str | os.PathLike) else 0
            except OSError:
                pass
        # forking a process that runs other threads (a notebook's, a Dask worker's) may
        # deadlock the children: the default pool is for single-threaded callers
        alone = threading.active_count() == 1
        jobs = available_cores() if size >= PARALLEL_BYTES and alone else 1
    return min(jobs, len(sources))


def _outcomes(count: int, workers: int) -> Iterator[_Outcome]:
    """Each run's outcome, in the runs' order."""
    if workers == 1:
        for i in range(count):
            yield _evaluate_one(i)
        return
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(workers) as pool:
        yield from pool.imap(_evaluate_one, range(count), chunksize=1)
