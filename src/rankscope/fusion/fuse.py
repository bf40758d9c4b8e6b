"""`fuse`: several runs into one, by a method of `METHODS` after a normalisation of
`NORMALISATIONS`, with given or tuned weights; the result a ranked `Run` ready to write."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UsageError
from ..judge import TIE_POLICIES, order_run
from ..model import Qrels, Run, Vocabulary
from ..read.sources import read_qrels, run_names, run_sources
from .methods import RRF_K, FusionMethod, fusion_method, weighted_sum
from .normalise import Normalisation, normalisation
from .pool import Pool, build_pool
from .tune import (
    SEARCHES,
    Objective,
    Tuning,
    coordinate_ascent,
    grid_search,
    grid_units,
    objective_request,
    split_queries,
)

#: Documents kept per query by default (a TREC run's usual depth).
DEPTH = 1000


@dataclass(frozen=True)
class Fusion:
    """A fused run and how it was made.

    ``run`` ranks each query's documents by fused score, equal scores by document id
    descending (trec_eval's order, so that trec_eval reads the ranks written), at most
    ``depth`` per query, queries in id order; when the weights were tuned, on the held-out
    queries only.  ``weights`` maps each input run's name to its weight (None: unweighted);
    ``tuning`` says how they were tuned (None: given)."""

    run: Run
    method: str
    norm: str
    k: float | None
    weights: dict[str, float] | None
    tuning: Tuning | None

    def to_trec(self) -> str:
        """The fused run as TREC run text: ``qid Q0 docno rank score tag``, ranks 1..n per
        query, scores printed exactly (``repr``)."""
        run = self.run
        qs, ds = run.queries.strings_of(run.query), run.docs.strings_of(run.doc)
        lines, previous, rank = [], None, 0
        for q, d, s in zip(qs, ds, run.score.tolist(), strict=True):
            rank = rank + 1 if q == previous else 1
            previous = q
            lines.append(f"{q} Q0 {d} {rank} {s!r} {run.name}\n")
        return "".join(lines)

    def write(self, path: str | os.PathLike) -> None:
        """Write `to_trec`'s text to ``path``."""
        with open(path, "w", encoding="utf-8") as out:
            out.write(self.to_trec())


def fuse(
    runs: Any,
    method: str = "rrf",
    *,
    norm: str | None = None,
    weights: Sequence[float] | Mapping[str, float] | None = None,
    k: float = RRF_K,
    depth: int | None = DEPTH,
    tag: str | None = None,
    ties: str = "docno-desc",
    duplicates: str = "error",
    names: str = "tag",
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
        default), ``max``, ``sum``, ``zscore``, ``rank``, ``none``.  Rank-based methods
        (rrf, borda, condorcet) read ranks only, and take none.
    weights:
        One weight per run (in order, or ``{name: weight}``) for ``rrf``, ``sum``, ``wsum``
        (which needs them, or ``optimize``) and ``borda``.
    k:
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
        ``max-score``); runs named by ``tag`` or ``file``.
    optimize:
        Tune the weights to maximise this measure's mean (``"nDCG@10"``, ``"AP"``, any
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

    Examples
    --------
    >>> import rankscope
    >>> a = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    >>> b = {"q1": {"d2": 0.9, "d3": 0.8}}
    >>> fused = rankscope.fuse({"a": a, "b": b}, "rrf", k=1)   # d2: 1/(1+2) + 1/(1+1)
    >>> print(fused.to_trec(), end="")
    q1 Q0 d2 1 0.8333333333333333 rrf
    q1 Q0 d3 2 0.5833333333333333 rrf
    q1 Q0 d1 3 0.5 rrf
    """
    how = fusion_method(method)
    scale = _normalisation(how, norm)
    if not math.isfinite(k) or k < 0:
        raise UsageError(f"k must be a finite number >= 0 (got {k})", cli=f"-k {k}: >= 0")
    if depth is not None and depth < 1:
        raise UsageError(f"depth must be at least 1 (got {depth})", cli=f"--depth {depth}")
    if ties not in TIE_POLICIES:
        raise UsageError(f"unknown tie policy {ties!r}; choose one of {', '.join(TIE_POLICIES)}")
    if search not in SEARCHES:
        raise UsageError(f"search must be one of {', '.join(SEARCHES)} (got {search!r})")
    judgments = None if qrels is None else read_qrels(qrels)
    pool = _pool(runs, judgments, ties, duplicates, names)
    given = _weights(how, weights, pool.names, optimize)
    scores = normalised(pool, scale)
    tag = tag or how.name
    if optimize is None:
        fused = combine(how, pool, scores, given, k)
        return Fusion(
            ranked(pool, fused, np.ones(len(fused), bool), depth, tag), how.name, scale.name,
            k if how.name == "rrf" else None, _named(pool, given), None,
        )  # fmt: skip
    if judgments is None:
        raise UsageError("optimize= needs qrels= (the judgments of the training queries)",
                         cli="--optimize needs --qrels")  # fmt: skip
    request = objective_request(optimize)
    units = grid_units(step)
    query_ids = sorted(set(pool.queries.strings_of(np.unique(pool.query))))
    train_ids, test_ids = split_queries(
        query_ids, None if train is None else [str(q) for q in train], train_fraction, seed
    )
    if not test_ids:
        raise UsageError("every query is a training query: none is left to fuse")
    judged = set(judgments.queries.strings_of(np.unique(judgments.query)))
    if judged.isdisjoint(train_ids):
        raise UsageError("no training query is judged: nothing to tune the weights on")
    codes = pool.queries.lookup_many(train_ids)
    is_train = np.isin(pool.query, codes)
    assert how.contributions is not None  # (`_weights` refused the others)
    contributions = how.contributions(pool, scores, k)
    training = pool.select(is_train)
    objective = Objective(judgments, training, contributions[:, is_train], request, depth)
    n = len(pool.names)
    if search == "grid":
        tuned = grid_search(objective, n, units)
    else:
        tuned = coordinate_ascent(objective, n, units, seed, restarts)
    tried = objective.evaluated
    tuning = Tuning(
        request.label, search, step, seed, tuple(train_ids), tuple(test_ids),
        objective(tuned), objective(np.full(n, 1.0 / n)), tried,
    )  # fmt: skip
    fused = weighted_sum(contributions, tuned)
    return Fusion(
        ranked(pool, fused, ~is_train, depth, tag), how.name, scale.name,
        k if how.name == "rrf" else None, _named(pool, tuned), tuning,
    )  # fmt: skip


def _normalisation(how: FusionMethod, norm: str | None) -> Normalisation:
    if how.reads == "ranks":
        if norm is not None and normalisation(norm).name != "none":
            raise UsageError(
                f"{how.name} fuses ranks: a score normalisation ({norm}) does not apply",
                cli=f"--method {how.name} fuses ranks: --norm {norm} does not apply",
            )
        return normalisation("none")
    return normalisation("min-max" if norm is None else norm)


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
    import dataclasses

    return dataclasses.replace(run, name=name)


def _weights(
    how: FusionMethod, weights: Sequence[float] | Mapping[str, float] | None,
    names: Sequence[str], optimize: str | None,
) -> np.ndarray | None:  # fmt: skip
    """The weights as an array in run order (None: unweighted)."""
    if optimize is not None:
        if weights is not None:
            raise UsageError("give weights= or optimize=, not both",
                             cli="give --weights or --optimize, not both")  # fmt: skip
        if how.contributions is None or how.weights == "no":
            raise UsageError(
                f"{how.name} takes no weights: optimize= tunes the weights of rrf, sum, "
                "wsum or borda",
                cli=f"--method {how.name} takes no weights: --optimize tunes the weights of "
                "rrf, sum, wsum or borda",
            )
        return None
    if weights is None:
        if how.weights == "required":
            raise UsageError(
                f"{how.name} needs weights= (one per run) or optimize=",
                cli=f"--method {how.name} needs --weights or --optimize",
            )
        return None
    if how.weights == "no":
        raise UsageError(
            f"{how.name} takes no weights (rrf, sum, wsum and borda do)",
            cli=f"--method {how.name} takes no --weights (rrf, sum, wsum and borda do)",
        )
    if isinstance(weights, Mapping):
        unknown = sorted(set(map(str, weights)).difference(names))
        missing = [n for n in names if n not in weights]
        if unknown or missing:
            raise UsageError(
                "weights must name every run once: "
                + "; ".join(
                    part for part in (
                        f"no run is named {', '.join(unknown)}" if unknown else "",
                        f"no weight for {', '.join(missing)}" if missing else "",
                    ) if part
                )  # fmt: skip
                + f" (the runs: {', '.join(names)})"
            )
        values = [weights[n] for n in names]
    else:
        values = list(weights)
        if len(values) != len(names):
            raise UsageError(
                f"{len(values)} weights for {len(names)} runs: give one per run, in order"
            )
    array = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(array)) or np.any(array < 0) or not array.sum() > 0:
        raise UsageError(
            f"weights must be finite, >= 0 and not all 0 (got {', '.join(map(str, values))})"
        )
    return array


def _named(pool: Pool, weights: np.ndarray | None) -> dict[str, float] | None:
    if weights is None:
        return None
    return dict(zip(pool.names, weights.tolist(), strict=True))


def normalised(pool: Pool, scale: Normalisation) -> np.ndarray:
    """``(runs, candidates)``: each run's scores normalised per query (NaN where the run
    does not rank the candidate)."""
    out = np.full(pool.scores.shape, np.nan)
    for r in range(len(pool.names)):
        present = pool.present[r]
        group = pool.group[present]
        out[r, present] = scale.function(
            pool.scores[r, present], pool.ranks[r, present], group, pool.num_groups
        )
    return out


def combine(
    how: FusionMethod, pool: Pool, scores: np.ndarray, weights: np.ndarray | None, k: float
) -> np.ndarray:
    """The fused score of each candidate."""
    with np.errstate(over="ignore", invalid="ignore"):  # (told below, in one error)
        if how.contributions is not None:
            fused = weighted_sum(how.contributions(pool, scores, k), weights)
        else:
            assert how.combine is not None
            fused = how.combine(pool, scores, weights)
    if len(fused) and not np.all(np.isfinite(fused)):
        raise UsageError(
            f"{how.name} fusion overflows: the runs' scores are too large to add (normalise "
            "them: norm='min-max')",
            cli=f"{how.name} fusion overflows: the runs' scores are too large to add "
            "(--norm min-max)",
        )
    return fused


def ranked(pool: Pool, fused: np.ndarray, keep: np.ndarray, depth: int | None, tag: str) -> Run:
    """The candidates where ``keep`` as a run named ``tag``: its rows in ranked order (query
    ids ascending, fused score descending, document id descending), ``depth`` per query."""
    run = Run(tag, pool.queries, pool.docs, pool.query[keep], pool.doc[keep], fused[keep],
              source="<fused>", tag=tag)  # fmt: skip
    order = order_run(run, "docno-desc")
    query = run.query[order]
    present = np.unique(query)
    names = pool.queries.strings_of(present)
    position = np.empty(len(pool.queries), dtype=np.int64)
    position[present[np.argsort(np.array(names, dtype=object), kind="stable")]] = np.arange(
        len(present)
    )
    order = order[np.argsort(position[query], kind="stable")]
    if depth is not None and len(order):
        query = run.query[order]
        first = np.concatenate(([True], query[1:] != query[:-1]))
        starts = np.flatnonzero(first)
        counts = np.diff(np.append(starts, len(query)))
        rank = np.arange(len(query)) - np.repeat(starts, counts)
        order = order[rank < depth]
    return Run(
        tag, pool.queries, pool.docs, run.query[order], run.doc[order], run.score[order],
        source="<fused>", tag=tag,
    )  # fmt: skip
