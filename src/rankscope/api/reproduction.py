"""The reproducibility front door: `reproduce` reads the judgments and the four runs from
anything and hands them to `rankscope.table.reproduce`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ..errors import UsageError
from ..model import Qrels
from ..read.sources import QrelsLike, resolve_runs
from ..table.reproduce import DEFAULT_MEASURES as REPRODUCTION_MEASURES
from ..table.reproduce import reproduce_runs
from .evaluation import measure_specs, read_qrels_for

__all__ = ["reproduce"]


def reproduce(
    qrels: QrelsLike,
    original: Sequence[Any],
    reproduced: Sequence[Any],
    measures: str | Sequence[str] | None = None,
    *,
    replication_qrels: QrelsLike | None = None,
    p: float = 0.95,
    depth: int = 1000,
    ties: str = "docno-desc",
    rbo_ties: str | None = None,
    relevance_level: int = 1,
    duplicates: str = "error",
) -> Any:
    """Has a reproduction reproduced?  The measures of Breuer et al. (SIGIR 2020).

    ``original`` = (baseline, advanced) and ``reproduced`` = (baseline′, advanced′): two
    runs each (files, frames, dicts or `Run`).  Per measure (default AP, nDCG@10, P@10, RR,
    R@100): the four means, the effect ratio ER, the delta relative improvement ΔRI and
    Student's t-test of each original run against its reproduction — paired, with the RMSE
    of the per-topic scores, for a reproduction (the same ``qrels``); unpaired, when
    ``replication_qrels`` scores the reproduced runs on other topics (a replication).  For
    a reproduction also the per-topic Kendall's τ Union and rank-biased overlap (RBO_ext
    with persistence ``p``) of each pair's rankings, cut at ``depth``; ``rbo_ties`` (``a``,
    ``b``, ``w``) treats equal scores as ties in RBO (Corsi & Urbano 2024).

    Returns a `rankscope.table.reproduce.Reproduction` (``rows()``: one row per measure and
    quantity; ``rankings``: the per-topic KTU and RBO).

    Examples
    --------
    >>> import rankscope
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    >>> bm25 = {"q1": {"a": 2, "c": 1}, "q2": {"c": 2, "b": 1}}
    >>> dense = {"q1": {"a": 2, "c": 1}, "q2": {"b": 2, "c": 1}}
    >>> result = rankscope.reproduce(qrels, (bm25, dense), (bm25, dense), ["AP"])
    >>> m = result.measures[0]
    >>> m.effect_ratio, m.delta_ri, m.rmse_advanced
    (1.0, 0.0, 0.0)
    """
    if len(original) != 2 or len(reproduced) != 2:
        raise UsageError(
            "original and reproduced are pairs of runs: (baseline, advanced)",
            cli="--original and --reproduced each take two runs: BASELINE ADVANCED",
        )
    specs = [
        str(m) for m in (REPRODUCTION_MEASURES if measures is None else measure_specs(measures))
    ]
    judgments = read_qrels_for(qrels, specs)
    other = judgments if replication_qrels is None else read_qrels_for(replication_qrels, specs)

    def one(run: Any, role: str, against: Qrels) -> Any:
        # one at a time: a file may play two roles (the same baseline reproduced) untold
        named = run if isinstance(run, str | os.PathLike) else {role: run}
        return resolve_runs(named, against, duplicates, names="file")[0]

    roles = ("baseline", "advanced")
    orig = [one(r, f"original {n}", judgments) for r, n in zip(original, roles, strict=True)]
    rep = [one(r, f"reproduced {n}", other) for r, n in zip(reproduced, roles, strict=True)]
    return reproduce_runs(
        judgments, (orig[0], orig[1]), (rep[0], rep[1]), specs,
        replication_qrels=None if replication_qrels is None else other,
        p=p, depth=depth, ties=ties, rbo_ties=rbo_ties, relevance_level=relevance_level,
    )  # fmt: skip
