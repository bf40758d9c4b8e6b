"""The recall-level view's front door (``rankscope explain``): `recall_levels` reads the
judgments and two runs from anything, checks the measures named, builds the relevance table
and hands it to `rankscope.preference.recall.level_view`."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ..errors import UsageError
from ..judge import relevance_table
from ..preference.recall import DEFAULT_MEASURES, RecallLevels, level_measure, level_view
from ..read.sources import check_common_queries, read_qrels, resolve_runs

__all__ = ["recall_levels"]


def recall_levels(
    qrels: Any,
    run_a: Any,
    run_b: Any,
    query: str | None = None,
    measures: Sequence[str] = DEFAULT_MEASURES,
    *,
    ties: str = "docno-desc",
    max_docs: int | None = None,
    duplicates: str = "error",
    names: str = "file",
) -> RecallLevels:
    """The contribution of each recall level to the difference of AP, nDCG, RBP and RR
    between run A and run B, beside RPP's preference at that level (Diaz & Ferraro 2022, §2
    and Table 1a; the formulas and the kernel, `level_view`, are in `rankscope.preference.recall`).

    Parameters
    ----------
    qrels, run_a, run_b:
        Anything `rankscope.read_qrels` / `rankscope.read_run` accept (a run each).
    query:
        A judged query id: that query's levels, with the ranks of each run's i-th relevant
        document.  None (default): the mean over every judged query, a run that did not rank
        one scoring 0 there, as in `rankscope.compare`.
    measures:
        Among ``AP``, ``nDCG``, ``RBP`` (``RBP(p=0.5)``: another persistence than 0.9) and
        ``RR``; a document is relevant from grade 1 on (nDCG and RBP use the grades as gains).
    ties, max_docs, duplicates, names:
        As in `rankscope.compare` (runs are named after their files by default).

    Returns
    -------
    `RecallLevels`: ``levels`` (a `RecallLevel` per recall level i: the ranks, RPP's sign and
    share, and each metric's Δμ_i), ``values_a``/``values_b``/``difference`` per metric
    (the difference is the sum of its Δμ_i), ``rpp`` and ``to_frame()``.

    Examples
    --------
    >>> from rankscope import recall_levels
    >>> qrels = {"q": {"r1": 1, "r2": 1}}
    >>> a = {"q": {"r1": 4, "x": 3, "y": 2, "r2": 1}}   # relevant at ranks 1 and 4
    >>> b = {"q": {"x": 4, "r1": 3, "r2": 2}}           # relevant at ranks 2 and 3
    >>> view = recall_levels(qrels, a, b, "q", ["AP"])
    >>> [(x.rank_a, x.rank_b, x.sign, round(x.delta["AP"], 4)) for x in view.levels]
    [(1, 2, 1.0, 0.25), (4, 3, -1.0, -0.0833)]
    >>> round(view.difference["AP"], 4), view.rpp   # AP prefers A, RPP neither
    (0.1667, 0.0)
    """
    chosen = [level_measure(name) for name in measures]
    if not chosen:
        raise UsageError("name at least one measure to decompose (AP, nDCG, RBP, RR)")
    labels = [m.label for m in chosen]
    if len(set(labels)) < len(labels):
        raise UsageError(f"a measure is named twice: {', '.join(labels)}")
    judgments = read_qrels(qrels)
    runs = [_one_run(run, judgments, duplicates, names, which) for run, which in
            ((run_a, "run_a"), (run_b, "run_b"))]  # fmt: skip
    check_common_queries(judgments, runs)
    if runs[0].name == runs[1].name:  # one file twice, or two unnamed frames: A and B
        runs = [_renamed(runs[0], f"{runs[0].name} (A)"), _renamed(runs[1], f"{runs[1].name} (B)")]
    query_ids = list(judgments.query_ids)
    if query is not None and str(query) not in set(query_ids):
        raise UsageError(f"query {query!r} is not in the judgments ({judgments.source})")
    table = relevance_table(judgments, runs, ties=ties, max_docs=max_docs)
    return level_view(table, 0, 1, query_ids, chosen, None if query is None else str(query))


def _one_run(run: Any, judgments: Any, duplicates: str, names: str, which: str) -> Any:
    found = resolve_runs(run, judgments, duplicates, names=names)
    if len(found) != 1:
        raise UsageError(
            f"{which} must be one run (got {len(found)}: a directory?)",
            cli=f"{which.upper()} must be one run file (got {len(found)} runs: a directory?)",
        )
    return found[0]


def _renamed(run: Any, name: str) -> Any:
    return dataclasses.replace(run, name=name)
