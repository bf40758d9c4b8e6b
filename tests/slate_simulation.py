"""Simulated click logs whose truth is known, for the counterfactual estimators' tests and
bench/counterfactual.py.

Queries are drawn uniformly; each has ``num_docs`` documents with attractiveness A(q, d).
The logging and evaluation policies are Plackett-Luce policies over ``slate`` positions (or,
for the evaluation policy, optionally the deterministic top-``slate`` ranking by its scores);
every slate's probability is enumerated exactly, so the propensities (item-position, prefix,
slate) and the true value V(π) are exact.  Clicks follow

* ``pbm``: the position-based model, c_k ~ Bernoulli(θ_k A(q, a_k));
* ``cascade``: the cascade model, the user scans down and clicks a_k with probability
  A(q, a_k), stopping at the first click.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any

import numpy as np

from rankscope.clicks.estimators import TargetPolicy, ranking_policy, stochastic_policy
from rankscope.model import ImpressionLog
from rankscope.read import read_run
from rankscope.read.impressions import read_impressions

EXAMINATION = np.array([1.0, 0.6, 0.35, 0.25, 0.2])


@dataclass(frozen=True)
class World:
    """Queries, documents, attractiveness, the two policies and the click model."""

    attractiveness: np.ndarray  # (queries, docs)
    logging_scores: np.ndarray  # (queries, docs)
    target_scores: np.ndarray  # (queries, docs)
    slate: int
    clicks: str  # "pbm" or "cascade"
    deterministic_target: bool

    @property
    def slates(self) -> np.ndarray:
        """Every ordered choice of ``slate`` documents, (slates, slate)."""
        return np.array(list(permutations(range(self.attractiveness.shape[1]), self.slate)))

    def slate_probabilities(self, scores: np.ndarray) -> np.ndarray:
        """Plackett-Luce probability of every slate for every query, (queries, slates)."""
        slates, weights = self.slates, np.exp(scores)
        out = np.ones((scores.shape[0], len(slates)))
        for q in range(scores.shape[0]):
            w = weights[q]
            remaining = np.full(len(slates), w.sum())
            for k in range(self.slate):
                chosen = w[slates[:, k]]
                out[q] *= chosen / remaining
                remaining = remaining - chosen
        return out

    def target_probabilities(self) -> np.ndarray:
        if not self.deterministic_target:
            return self.slate_probabilities(self.target_scores)
        slates = self.slates
        out = np.zeros((self.target_scores.shape[0], len(slates)))
        for q, scores in enumerate(self.target_scores):
            top = np.argsort(-scores, kind="stable")[: self.slate]
            out[q, np.flatnonzero((slates == top).all(axis=1))] = 1.0
        return out

    def expected_clicks(self, q: int, slate: np.ndarray) -> np.ndarray:
        """E[c_k] at each position of ``slate`` for query ``q``."""
        a = self.attractiveness[q, slate]
        if self.clicks == "pbm":
            return EXAMINATION[: self.slate] * a
        survive = np.r_[1.0, np.cumprod(1 - a)[:-1]]
        return survive * a

    def truth(self, position_weights: np.ndarray | None = None) -> float:
        """V(π) of the evaluation policy, exactly."""
        alpha = np.ones(self.slate) if position_weights is None else position_weights
        probabilities = self.target_probabilities()
        slates = self.slates
        value = 0.0
        for q in range(probabilities.shape[0]):
            for s in np.flatnonzero(probabilities[q]):
                value += probabilities[q, s] * float(alpha @ self.expected_clicks(q, slates[s]))
        return value / probabilities.shape[0]


def world(
    seed: int = 0,
    *,
    queries: int = 10,
    docs: int = 5,
    slate: int = 3,
    clicks: str = "pbm",
    deterministic_target: bool = True,
) -> World:
    """A random world (attractiveness and both policies' scores) drawn with ``seed``; the
    evaluation policy's scores lean towards attractive documents, the logger's are weaker."""
    rng = np.random.default_rng(seed)
    attractiveness = rng.uniform(0.05, 0.6, (queries, docs))
    logging_scores = rng.normal(0, 0.5, (queries, docs))
    target_scores = 3 * attractiveness + rng.normal(0, 0.3, (queries, docs))
    return World(attractiveness, logging_scores, target_scores, slate, clicks, deterministic_target)


@dataclass(frozen=True)
class Simulated:
    log: ImpressionLog
    policy: TargetPolicy
    logging_policy: TargetPolicy  # the logger's marginals (for the pbm estimator)


def _marginals(w: World, probabilities: np.ndarray):
    """Rows (query, position, doc, probability) of the marginal π(d at k | q)."""
    slates, docs = w.slates, w.attractiveness.shape[1]
    rows = []
    for q in range(probabilities.shape[0]):
        for k in range(w.slate):
            mass = np.bincount(slates[:, k], weights=probabilities[q], minlength=docs)
            for d in np.flatnonzero(mass):
                rows.append((str(q), k + 1, str(d), mass[d]))
    query, position, doc, probability = zip(*rows, strict=True)
    return {"query": list(query), "position": list(position), "doc": list(doc),
            "probability": list(probability)}  # fmt: skip


def _prefixes(w: World, probabilities: np.ndarray) -> np.ndarray:
    """π(a₁..a_k | q) of every slate's prefixes, (queries, slates, slate)."""
    slates = w.slates
    out = np.empty(probabilities.shape + (w.slate,))
    for k in range(w.slate):
        _, group = np.unique(slates[:, : k + 1], axis=0, return_inverse=True)
        group = group.reshape(-1)
        for q in range(probabilities.shape[0]):
            out[q, :, k] = np.bincount(group, weights=probabilities[q])[group]
    return out


def _item_marginals(w: World, probabilities: np.ndarray) -> np.ndarray:
    """π(a_k at k | q) of every slate's documents, (queries, slates, slate)."""
    slates = w.slates
    docs = w.attractiveness.shape[1]
    out = np.empty(probabilities.shape + (w.slate,))
    for k in range(w.slate):
        for q in range(probabilities.shape[0]):
            out[q, :, k] = np.bincount(slates[:, k], weights=probabilities[q], minlength=docs)[
                slates[:, k]
            ]
    return out


def simulate(w: World, sessions: int, seed: int) -> Simulated:
    """A log of ``sessions`` sessions under the logging policy (seeded), and the evaluation
    policy aligned with it (a ranking from a run, or a stochastic policy)."""
    rng = np.random.default_rng(seed)
    slates = w.slates
    logging = w.slate_probabilities(w.logging_scores)
    target = w.target_probabilities()
    queries = rng.integers(0, logging.shape[0], sessions)
    cumulative = np.cumsum(logging / logging.sum(axis=1, keepdims=True), axis=1)
    chosen = np.minimum(
        (rng.random(sessions)[:, None] > cumulative[queries]).sum(axis=1), len(slates) - 1
    )
    shown = slates[chosen]  # (sessions, slate)
    a = w.attractiveness[queries[:, None], shown]
    uniforms = rng.random((sessions, w.slate))
    if w.clicks == "pbm":
        clicks = (uniforms < EXAMINATION[: w.slate] * a).astype(float)
    else:
        hits = uniforms < a
        first = np.where(hits.any(axis=1), hits.argmax(axis=1), -1)
        clicks = (np.arange(w.slate) == first[:, None]).astype(float)
    k = w.slate
    # (integer ids: query q is "q", document d is "d", as the reader names integers)
    columns = {
        "session": np.repeat(np.arange(sessions), k),
        "query": np.repeat(queries, k),
        "position": np.tile(np.arange(1, k + 1), sessions),
        "doc": shown.ravel(),
        "click": clicks.ravel(),
        "propensity": _item_marginals(w, logging)[queries, chosen].ravel(),
        "prefix_propensity": _prefixes(w, logging)[queries, chosen].ravel(),
        "slate_propensity": np.repeat(logging[queries, chosen], k),
    }
    log = read_impressions(columns)
    if w.deterministic_target:
        run = {
            str(q): {str(d): float(w.target_scores[q, d]) for d in range(w.target_scores.shape[1])}
            for q in range(w.target_scores.shape[0])
        }
        policy = ranking_policy(log, read_run(run, name="target"))
    else:
        # (the log keeps the rows' order: sessions in order of appearance, positions 1..K)
        policy = stochastic_policy(
            log, _marginals(w, target), prefix=_prefixes(w, target)[queries, chosen].ravel(),
            slate=np.repeat(target[queries, chosen], k), name="target",
        )  # fmt: skip
    return Simulated(log, policy, stochastic_policy(log, _marginals(w, logging), name="logging"))


class TrueRewardModel:
    """q̂ = the true E[c_k] of a document at a position under the PBM (for the direct
    method's tests), or that times ``bias`` (a wrong model)."""

    def __init__(self, w: World, log: ImpressionLog, bias: float = 1.0) -> None:
        queries = np.array([int(s) for s in log.queries.strings])
        docs = np.array([int(s) for s in log.docs.strings])
        self._a = w.attractiveness[queries][:, docs] * bias
        self._log = log

    def expected_clicks(self, query, doc, position):
        query, doc, position = (np.asarray(x, dtype=np.int64) for x in (query, doc, position))
        out = np.zeros(len(query))
        known = doc < self._a.shape[1]
        out[known] = EXAMINATION[position[known] - 1] * self._a[query[known], doc[known]]
        return out


@dataclass(frozen=True)
class Coverage:
    """Repeated simulations of one estimator: the share of intervals covering the truth,
    the mean error (estimate − truth) and its standard error, over ``reps`` logs."""

    estimator: str
    truth: float
    coverage: float
    mean_error: float
    error_se: float
    mean_width: float
    reps: int


def coverage(
    w: World,
    estimators: Sequence[str],
    *,
    sessions: int,
    reps: int,
    samples: int,
    seed: int = 0,
    models: Mapping[str, Callable[[World, Simulated], Any]] | None = None,
    **options: Any,
) -> dict[str, Coverage]:
    """Simulate ``reps`` logs of ``sessions`` sessions (seeds ``seed``, ``seed + 1``, ...)
    and estimate the evaluation policy's value on each with each estimator
    (``models[name](w, sim)`` gives the reward model of one that needs it)."""
    from rankscope.clicks import estimate

    truth = w.truth()
    errors: dict[str, list[float]] = {e: [] for e in estimators}
    covered = dict.fromkeys(estimators, 0)
    widths: dict[str, list[float]] = {e: [] for e in estimators}
    for r in range(reps):
        sim = simulate(w, sessions, seed + r)
        for name in estimators:
            extra = dict(options)
            if name == "pbm":
                extra.setdefault("examination", EXAMINATION[: w.slate])
                extra["logging_policy"] = sim.logging_policy
            if models and name in models:
                extra["reward_model"] = models[name](w, sim)
            result = estimate(sim.log, sim.policy, name, samples=samples, seed=r, **extra)
            errors[name].append(result.value - truth)
            covered[name] += result.low <= truth <= result.high
            widths[name].append(result.high - result.low)
    out = {}
    for name in estimators:
        e = np.asarray(errors[name])
        out[name] = Coverage(
            name, truth, covered[name] / reps, float(e.mean()),
            float(e.std(ddof=1) / np.sqrt(reps)), float(np.mean(widths[name])), reps,
        )  # fmt: skip
    return out
