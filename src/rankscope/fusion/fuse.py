"""Several runs into one, by a method of `METHODS` after a normalisation of
`NORMALISATIONS`, with given or tuned weights (`fuse_pool`, on a `Pool` of runs already
read; the front door `rankscope.fuse` is `rankscope.api.fusion`'s); the result, `Fusion`, a
ranked `Run` ready to write."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..atomic import write_atomically
from ..errors import UsageError
from ..judge import TIE_POLICIES, order_run
from ..model import Qrels, Run
from ..read.fields import excerpt
from .methods import FusionMethod, fusion_method, weighted_sum
from .normalise import Normalisation, normalisation
from .pool import Pool
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
        """Write `to_trec`'s text to ``path`` (atomically: `write_atomically`)."""
        write_atomically(path, self.to_trec())


def fusion_options(
    method: str, norm: str | None, k: float, depth: int | None, ties: str, search: str
) -> tuple[FusionMethod, Normalisation]:
    """The fusion method and normalisation named, after checking the options every fusion
    takes (a `UsageError` naming the one that is wrong)."""
    how = fusion_method(method)
    scale = _normalisation(how, norm)
    if not math.isfinite(k) or k < 0:
        raise UsageError(f"rrf_k must be a finite number >= 0 (got {k})", cli=f"--rrf-k {k}: >= 0")
    if depth is not None and depth < 1:
        raise UsageError(f"depth must be at least 1 (got {depth})", cli=f"--depth {depth}")
    if ties not in TIE_POLICIES:
        raise UsageError(f"unknown tie policy {ties!r}; choose one of {', '.join(TIE_POLICIES)}")
    if search not in SEARCHES:
        raise UsageError(f"search must be one of {', '.join(SEARCHES)} (got {search!r})")
    return how, scale


def fuse_pool(
    pool: Pool,
    how: FusionMethod,
    scale: Normalisation,
    *,
    weights: Sequence[float] | Mapping[str, float] | None,
    k: float,
    depth: int | None,
    tag: str | None,
    optimize: str | None,
    judgments: Qrels | None,
    train: Sequence[str] | None,
    train_fraction: float,
    search: str,
    step: float,
    seed: int,
    restarts: int,
) -> Fusion:
    """The candidates of ``pool`` fused by ``how`` after ``scale`` (`fusion_options`), with
    the weights given or tuned on ``judgments``: the kernel of `rankscope.fuse` (in
    `rankscope.api.fusion`, which reads the runs and judgments, and documents the options
    and their defaults)."""
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


def _weights(
    how: FusionMethod, weights: Sequence[float] | Mapping[str, float] | None,
    names: Sequence[str], optimize: str | None,
) -> np.ndarray | None:  # fmt: skip
    """The weights as an array in run order (None: unweighted)."""
    if optimize is not None:
        if weights is not None:
            raise UsageError("give run_weights= or optimize=, not both",
                             cli="give --run-weights or --optimize, not both")  # fmt: skip
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
                f"{how.name} needs weights (run_weights=, one per run) or optimize=",
                cli=f"--method {how.name} needs --run-weights or --optimize",
            )
        return None
    if how.weights == "no":
        raise UsageError(
            f"{how.name} takes no weights (rrf, sum, wsum and borda do)",
            cli=f"--method {how.name} takes no --run-weights (rrf, sum, wsum and borda do)",
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
        if scale.non_negative:
            _refuse_negative(pool, r, scale)
        out[r, present] = scale.function(
            pool.scores[r, present], pool.ranks[r, present], group, pool.num_groups
        )
    return out


def _refuse_negative(pool: Pool, r: int, scale: Normalisation) -> None:
    """`UsageError` naming run ``r``, a query and the score when the run has a negative
    score that ``scale`` (a normalisation of non-negative scores) cannot take."""
    negative = np.flatnonzero(pool.present[r] & (pool.scores[r] < 0))
    if negative.size == 0:
        return
    first = int(negative[0])
    query = pool.queries.strings_of(pool.query[first : first + 1])[0]
    told = (
        f"run {excerpt(pool.names[r])} has negative scores ({negative.size:,}, e.g. "
        f"{float(pool.scores[r, first])!r} in query {excerpt(str(query))}): the {scale.name} "
        "normalisation divides by the query's highest score and needs scores >= 0 (a "
        "query-likelihood run's log scores are negative)"
    )
    raise UsageError(
        f"{told}; use norm='min-max', which shifts them", cli=f"{told}; use --norm min-max"
    )


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
