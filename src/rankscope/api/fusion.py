"""The fusion's front door: `fuse` reads the runs (and the judgments weights are tuned on)
from anything, names them, pools their candidates and hands the pool to
`rankscope.fusion.fuse.fuse_pool`."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ..fusion.fuse import DEPTH, Fusion, fuse_pool, fusion_options
from ..fusion.methods import RRF_K
from ..fusion.pool import Pool, build_pool
from ..model import Qrels, Run, Vocabulary
from ..read.runs import run_names
from ..read.sources import read_qrels, run_sources

__all__ = ["fuse"]


def fuse(
    runs: Any,
    method: str = "rrf",
    *,
    norm: str | None = None,
    run_weights: Sequence[float] | Mapping[str, float] | None = None,
    rrf_k: float = RRF_K,
    depth: int | None = DEPTH,
    tag: str | None = None,
    ties: str = "docno-desc",
    duplicates: str = "error",
    names: str = "file",
    optimize: str | None = None,
    qrels: Any = None,
    train: Sequence[str] | None = None,
    train_fraction: float = 0.5,
    search: str = "grid",
    step: float = 0.1,
    seed: int = 0,
    restarts: int = 3,
) -> Fusion:
    """Fuse runs into one: reciprocal rank fusion, CombSUM and its family, weighted sum,
    Borda or Condorcet fusion (docs/ecosystem.md, "Rank fusion", defines each).

    Parameters
    ----------
    runs:
        Two or more runs, as `rankscope.evaluate` takes them (a list, a ``{name: run}``
        dict, a directory; files, frames, dicts, `Run`).
    method:
        ``rrf`` (default), ``sum``, ``mnz``, ``max``, ``min``, ``med``, ``anz`` (Fox &
        Shaw's CombSUM ... CombANZ; ``CombMNZ`` is accepted too), ``wsum``, ``borda``,
        ``condorcet``.
    norm:
        The per-query score normalisation of the score-based methods: ``min-max`` (their
        default), ``max``, ``sum``, ``zscore``, ``rank``, ``none``.  ``max`` needs scores
        >= 0 (a run with a negative score is a `UsageError`; ``sum`` shifts each query's
        scores to start at 0 first).  Rank-based methods (rrf, borda, condorcet) read ranks
        only, and take none.
    run_weights:
        One weight per run (in order, or ``{name: weight}``) for ``rrf``, ``sum``, ``wsum``
        (which needs them, or ``optimize``) and ``borda``.
    rrf_k:
        Reciprocal rank fusion's constant (default 60).
    depth:
        Documents kept per query (default 1000; None: all).
    tag:
        The fused run's name and tag column (default: the method's name).
    ties:
        The order of a run's equally scored documents, which decides their ranks for the
        rank-based methods (trec_eval's ``docno-desc`` by default).
    duplicates, names:
        As for `rankscope.evaluate`: a document listed twice in a run (``error``, ``first``,
        ``max-score``); runs named by ``file`` (default) or ``tag``.
    optimize:
        Tune the run weights to maximise this measure's mean (``"nDCG@10"``, ``"AP"``, any
        per-query measure) over training queries judged in ``qrels``; the fused run then
        holds the held-out queries, fused with the tuned weights.
    train, train_fraction, seed:
        The training queries: the ids in ``train``, else a random ``train_fraction``
        (default half) of the queries the runs rank, drawn with ``seed``.
    search, step, restarts:
        ``grid`` (default): every weight vector of multiples of ``step`` summing to 1;
        ``coordinate``: coordinate ascent from equal weights and ``restarts`` random starts
        (seeded), one run's weight at a time set to the best multiple of ``step`` in [0, 1],
        the vector then rescaled to sum 1.  ``Fusion.tuning`` reports the tuned weights'
        training mean beside equal weights'.

    The runs are read into one pool of candidates (`rankscope.fusion.pool`), fused by
    `rankscope.fusion.fuse.fuse_pool`.

    Examples
    --------
    >>> import rankscope
    >>> a = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    >>> b = {"q1": {"d2": 0.9, "d3": 0.8}}
    >>> fused = rankscope.fuse({"a": a, "b": b}, "rrf", rrf_k=1)   # d2: 1/(1+2) + 1/(1+1)
    >>> print(fused.to_trec(), end="")
    q1 Q0 d2 1 0.8333333333333333 rrf
    q1 Q0 d3 2 0.5833333333333333 rrf
    q1 Q0 d1 3 0.5 rrf
    """
    how, scale = fusion_options(method, norm, rrf_k, depth, ties, search)
    judgments = None if qrels is None else read_qrels(qrels)
    return fuse_pool(
        _pool(runs, judgments, ties, duplicates, names), how, scale, weights=run_weights, k=rrf_k,
        depth=depth, tag=tag, optimize=optimize, judgments=judgments, train=train,
        train_fraction=train_fraction, search=search, step=step, seed=seed, restarts=restarts,
    )  # fmt: skip


def _pool(runs: Any, judgments: Qrels | None, ties: str, duplicates: str, names: str) -> Pool:
    if judgments is not None:  # the judgments' codes, so that tuning joins on integers
        queries, docs = judgments.queries.scoped(), judgments.docs.scoped()
    else:
        queries, docs = Vocabulary(), Vocabulary()
    sources = run_sources(runs, getattr(judgments, "source", None), names)
    read = [s.read(queries, docs, duplicates) for s in sources]
    final = run_names([(r.name, r.source) for r in read], names, distinct_for="fusion")
    named = [r if r.name == n else _renamed(r, n) for r, n in zip(read, final, strict=True)]
    return build_pool(named, queries, docs, ties)


def _renamed(run: Run, name: str) -> Run:
    return dataclasses.replace(run, name=name)
