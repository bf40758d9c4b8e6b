"""The preferences' front door: `preferences` reads judgments and runs from anything, builds
the relevance table once and computes a preference method of `rankscope.preference` on it."""

from __future__ import annotations

from functools import partial
from typing import Any

from ..judge import relevance_table
from ..measures import Request, compute_request, method_of, parse_method
from ..preference import Method, PreferenceResult
from ..preference.learned import LearnedWeights
from ..read.sources import resolve_runs
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
        judgments = read_qrels_for(qrels, named)
        table = relevance_table(
            judgments,
            resolve_runs(runs, judgments, duplicates, names=names, distinct_for="preferences"),
            relevance_level=relevance_level, ties=ties, max_docs=max_docs,
            keep_rankings=rankings,
        )  # fmt: skip
    return compute(table)
