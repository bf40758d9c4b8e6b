"""Weights tuned on training queries: the weights of a linear fusion (rrf, sum, wsum, borda)
that maximise a measure's mean over the training queries, by a grid over the simplex or by
seeded coordinate ascent."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from ..errors import UsageError
from ..judge import judge
from ..measures import PreferenceMeasure, Request
from ..model import Qrels, Run
from ..table import as_requests, evaluate_judged
from .methods import weighted_sum
from .pool import Pool

SEARCHES = ("grid", "coordinate")
#: The most weight vectors a grid search tries (beyond: coordinate ascent).
MAX_GRID = 100_000
#: Passes over the coordinates at most, per start of the coordinate ascent.
MAX_PASSES = 20


@dataclass(frozen=True)
class Tuning:
    """How the weights were tuned: the measure, the search, the queries on each side, the
    training mean at the tuned weights and at equal weights, and how many weight vectors
    were tried."""

    measure: str
    search: str
    step: float
    seed: int
    train_queries: tuple[str, ...]
    test_queries: tuple[str, ...]
    score: float
    equal_weights_score: float
    evaluated: int


def objective_request(measure: str) -> Request:
    """The one per-query measure ``measure`` names, which tuning maximises."""
    requests = as_requests([measure])
    if len(requests) != 1:
        raise UsageError(f"optimize= takes one measure, and {measure!r} names {len(requests)}")
    request = requests[0]
    m = request.measure
    if isinstance(m, PreferenceMeasure) or m.reads_subtopics or m.value != "float" or (
        m.aggregate != "mean"
    ):
        raise UsageError(
            f"optimize={measure!r}: tuning maximises the mean over queries of a measure of "
            "one ranking with ad hoc judgments (AP, nDCG@10, P@10, RR, ...)",
            cli=f"--optimize {measure!r}: tuning maximises the mean over queries of a "
            "measure of one ranking with ad hoc judgments (AP, nDCG@10, P@10, RR, ...)",
        )
    return request


class Objective:
    """The training mean of ``request`` of the fusion Σ_r w_r c_r over ``pool``'s
    candidates (the training queries'), cut at ``depth``."""

    def __init__(
        self, qrels: Qrels, pool: Pool, contributions: np.ndarray, request: Request,
        depth: int | None,
    ) -> None:  # fmt: skip
        self.qrels, self.pool, self.request, self.depth = qrels, pool, request, depth
        self.contributions = contributions
        self.evaluated = 0

    def __call__(self, weights: np.ndarray) -> float:
        self.evaluated += 1
        pool = self.pool
        run = Run(
            "tuning", pool.queries, pool.docs, pool.query, pool.doc,
            weighted_sum(self.contributions, weights),
        )  # fmt: skip
        judged = judge(self.qrels, run, max_docs=self.depth)
        values = evaluate_judged(judged, [self.request]).values[0]
        return float(np.mean(values)) if len(values) else 0.0


def grid_units(step: float) -> int:
    """How many steps of ``step`` make 1 (`UsageError` unless a whole number)."""
    if not (0 < step <= 1) or not math.isfinite(step):
        raise UsageError(f"step must lie in (0, 1] (got {step})", cli=f"--step {step}: in (0, 1]")
    units = round(1 / step)
    if abs(units * step - 1) > 1e-9:
        raise UsageError(
            f"step must divide 1 (0.1, 0.05, 0.25, ...; got {step})",
            cli=f"--step must divide 1 (0.1, 0.05, 0.25, ...; got {step})",
        )
    return units


def _simplex(units: int, n: int) -> Iterator[tuple[int, ...]]:
    """Every way of sharing ``units`` among ``n`` runs, in lexicographic order (stars and
    bars)."""
    for bars in itertools.combinations(range(units + n - 1), n - 1):
        edges = (-1, *bars, units + n - 1)
        yield tuple(b - a - 1 for a, b in itertools.pairwise(edges))


def grid_search(objective: Callable[[np.ndarray], float], n: int, units: int) -> np.ndarray:
    """The best weights on the grid of the simplex (weights multiples of 1/units summing to
    1); among equal bests, the first in lexicographic order of the units."""
    count = math.comb(units + n - 1, n - 1)
    if count > MAX_GRID:
        raise UsageError(
            f"a grid of step 1/{units} over {n} runs has {count:,} points (at most "
            f"{MAX_GRID:,}): use search='coordinate' or a larger step",
            cli=f"a grid of step 1/{units} over {n} runs has {count:,} points (at most "
            f"{MAX_GRID:,}): use --search coordinate or a larger --step",
        )
    best, best_score = None, -math.inf
    for shares in _simplex(units, n):
        weights = np.asarray(shares, dtype=np.float64) / units
        score = objective(weights)
        if score > best_score:
            best, best_score = weights, score
    assert best is not None  # (the simplex has a point for any n >= 1)
    return best


def coordinate_ascent(
    objective: Callable[[np.ndarray], float], n: int, units: int, seed: int, restarts: int
) -> np.ndarray:
    """Coordinate ascent from equal weights, then from ``restarts`` random points of the
    grid (seeded): one run's weight at a time set to the best of 0, 1/units, ..., 1 (the
    others kept, the vector rescaled to sum 1), the runs in a seeded random order, until a
    pass over them improves nothing.  The best weights found."""
    rng = np.random.default_rng(seed)
    levels = np.arange(units + 1, dtype=np.float64) / units
    starts = [np.full(n, 1.0 / n)]
    for _ in range(restarts):
        shares = rng.multinomial(units, np.full(n, 1.0 / n)).astype(np.float64)
        starts.append(shares / units)
    best, best_score = starts[0], -math.inf
    for weights in starts:
        score = objective(weights)
        for _ in range(MAX_PASSES):
            improved = False
            for r in rng.permutation(n).tolist():
                for level in levels:
                    trial = weights.copy()
                    trial[r] = level
                    total = trial.sum()
                    if total <= 0 or np.allclose(trial / total, weights):
                        continue
                    trial /= total
                    value = objective(trial)
                    if value > score + 1e-12:
                        weights, score, improved = trial, value, True
            if not improved:
                break
        if score > best_score:
            best, best_score = weights, score
    return best


def split_queries(
    queries: list[str], train: list[str] | None, fraction: float, seed: int
) -> tuple[list[str], list[str]]:
    """Training and held-out query ids: ``train`` as given (the rest held out), else a
    seeded random ``fraction`` of ``queries`` (at least one each side)."""
    if train is not None:
        chosen = set(train)
        unknown = sorted(chosen.difference(queries))
        if unknown:
            raise UsageError(
                f"training queries not ranked by any run: {', '.join(unknown[:5])}"
                + (f", ... {len(unknown) - 5} more" if len(unknown) > 5 else "")
            )
        return [q for q in queries if q in chosen], [q for q in queries if q not in chosen]
    if not 0 < fraction < 1:
        raise UsageError(
            f"train_fraction must lie strictly between 0 and 1 (got {fraction})",
            cli=f"--train-fraction must lie strictly between 0 and 1 (got {fraction})",
        )
    if len(queries) < 2:
        raise UsageError("tuning needs at least two queries (training and held-out)")
    size = min(max(round(fraction * len(queries)), 1), len(queries) - 1)
    picked = set(np.random.default_rng(seed).permutation(len(queries))[:size].tolist())
    return (
        [q for i, q in enumerate(queries) if i in picked],
        [q for i, q in enumerate(queries) if i not in picked],
    )
