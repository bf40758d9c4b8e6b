"""Counterfactual (off-policy) evaluation of rankings: a new ranking policy's click-based
metric estimated from a log collected under another policy.

The log (`rankscope.model.ImpressionLog`, read by `rankscope.read.impressions`) holds, per
session *i* (an impression: context *xᵢ*, the query), the ranking the logging policy π₀ showed
(*aᵢ,ₖ* at position *k*), the clicks *cᵢ,ₖ* and π₀'s propensities.  The metric of a policy π
is its expected position-weighted clicks per session,

    V(π) = E_x E_{a∼π(·|x)} [ Σₖ αₖ c_k ]       (αₖ = 1: expected clicks per session),

over the positions each logged session shows.  The evaluation policy (`TargetPolicy`) is a
deterministic ranking per query (`ranking_policy`, from a run) or a stochastic policy given
by its probabilities (`stochastic_policy`).  With n sessions and the importance weights

    item-position  wᵢ,ₖ     = π(aᵢ,ₖ at k | xᵢ) / π₀(aᵢ,ₖ at k | xᵢ)
    prefix         wᵢ,₁:ₖ   = π(aᵢ,₁..aᵢ,ₖ | xᵢ) / π₀(aᵢ,₁..aᵢ,ₖ | xᵢ)
    slate          wᵢ       = π(aᵢ | xᵢ) / π₀(aᵢ | xᵢ)

the estimators (`ESTIMATORS`) are

* ``ips``   V̂ = 1/n Σᵢ wᵢ Σₖ αₖ cᵢ,ₖ  — unbiased whatever the click behaviour (the standard
  slate IPS; Horvitz & Thompson 1952, Li et al. 2018);
* ``snips`` the self-normalised ``ips``: Σᵢ wᵢ Σₖ αₖ cᵢ,ₖ / Σᵢ wᵢ (Swaminathan & Joachims
  2015); ``self_normalise=True`` does the same for ``iips`` and ``rips``, position by
  position;
* ``iips``  V̂ = 1/n Σᵢ Σₖ αₖ wᵢ,ₖ cᵢ,ₖ — unbiased when a click depends only on the document
  at its position (independent items; Li et al. 2018's item-position model);
* ``rips``  V̂ = 1/n Σᵢ Σₖ αₖ wᵢ,₁:ₖ cᵢ,ₖ — unbiased when a click depends only on the documents
  at and above it (cascade behaviour; Kiyohara et al. 2022's reward-interaction IPS);
* ``pbm``   V̂ = 1/n Σᵢ Σₖ cᵢ,ₖ · Σⱼ αⱼ θⱼ π(aᵢ,ₖ at j | xᵢ) / Σⱼ θⱼ π₀(aᵢ,ₖ at j | xᵢ) —
  unbiased under the position-based model with examination probabilities θ (Li et al. 2018's
  PBM estimator; with a deterministic logger, Joachims et al. 2017's propensity weighting);
* ``dm``    the direct method: V̂ = 1/n Σᵢ Σₖ αₖ Σ_d π(d at k | xᵢ) q̂(xᵢ, d, k), from a reward
  model q̂ (expected clicks of document d at position k for query x; `RewardModel`);
* ``dr``    doubly robust, item-position: ``dm`` + 1/n Σᵢ Σₖ αₖ wᵢ,ₖ (cᵢ,ₖ − q̂(xᵢ, aᵢ,ₖ, k))
  (Dudík et al. 2011, position by position) — unbiased if the weights or q̂ are right;
* ``cascade-dr`` doubly robust under the cascade (Kiyohara et al. 2022, with q̂ depending on
  the document and position): 1/n Σᵢ Σₖ αₖ [wᵢ,₁:ₖ (cᵢ,ₖ − q̂(xᵢ, aᵢ,ₖ, k)) +
  wᵢ,₁:ₖ₋₁ Σ_d π(d at k | xᵢ, aᵢ,₁:ₖ₋₁) q̂(xᵢ, d, k)], for a deterministic ranking policy.

``clip=M`` caps every importance weight at M (clipped IPS, Bottou et al. 2013: less variance,
a downward bias).  Each estimate comes with a percentile bootstrap interval over sessions
(seeded); with ``reward_model="empirical"`` the reward model is refitted on every resample,
so the interval includes its estimation error; a fitted model passed in is held fixed.

References: Horvitz & Thompson, JASA 1952; Dudík, Langford & Li, ICML 2011; Bottou et al.,
JMLR 2013; Swaminathan & Joachims, NeurIPS 2015; Joachims, Swaminathan & Schnabel, WSDM 2017;
Li, Abbasi-Yadkori, Kveton, Muthukrishnan, Vinay & Wen, KDD 2018 ("Offline evaluation of
ranking policies with click models"); McInerney et al., KDD 2020; Kiyohara, Saito,
Matsuhiro, Narita, Shimizu & Yamamoto, WSDM 2022 ("Doubly robust off-policy evaluation for
ranking policies under the cascade behavior model"); Saito et al., NeurIPS Datasets and
Benchmarks 2021 (Open Bandit Dataset and Pipeline).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import InputError, UsageError, warn
from ..judge.join import order_run
from ..model import ImpressionLog, Run, Vocabulary
from ..model.frames import column_names, is_frame, records_frame
from ..read import frames
from ..stats.intervals import percentile_interval
from .models import PBM

__all__ = [
    "ESTIMATORS",
    "EmpiricalRewardModel",
    "Estimate",
    "Estimator",
    "RewardModel",
    "SUPPORT_WARNING",
    "TargetPolicy",
    "estimate",
    "ranking_policy",
    "stochastic_policy",
    "unsupported_share",
]


# --------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class Estimator:
    """One estimator: its name, the weights it uses, what it needs, and its definition."""

    name: str
    weights: str | None  # "slate", "item", "prefix", "pbm" or None (direct method)
    model: bool  # needs a reward model
    doc: str
    reference: str
    self_normalised: bool = False


ESTIMATORS: dict[str, Estimator] = {
    e.name: e
    for e in (
        Estimator(
            "ips", "slate", False,
            "1/n Σᵢ wᵢ Σₖ αₖ cᵢ,ₖ with wᵢ = π(aᵢ|xᵢ)/π₀(aᵢ|xᵢ), the whole ranking's weight",
            "Horvitz & Thompson, JASA 1952; Li et al., KDD 2018",
        ),
        Estimator(
            "snips", "slate", False,
            "Σᵢ wᵢ Σₖ αₖ cᵢ,ₖ / Σᵢ wᵢ (self-normalised ips)",
            "Swaminathan & Joachims, NeurIPS 2015", self_normalised=True,
        ),
        Estimator(
            "iips", "item", False,
            "1/n Σᵢ Σₖ αₖ wᵢ,ₖ cᵢ,ₖ with wᵢ,ₖ = π(aᵢ,ₖ at k|xᵢ)/π₀(aᵢ,ₖ at k|xᵢ)",
            "Li et al., KDD 2018; Kiyohara et al., WSDM 2022",
        ),
        Estimator(
            "rips", "prefix", False,
            "1/n Σᵢ Σₖ αₖ wᵢ,₁:ₖ cᵢ,ₖ with wᵢ,₁:ₖ = π(aᵢ,₁:ₖ|xᵢ)/π₀(aᵢ,₁:ₖ|xᵢ)",
            "Kiyohara et al., WSDM 2022; McInerney et al., KDD 2020",
        ),
        Estimator(
            "pbm", "pbm", False,
            "1/n Σᵢ Σₖ cᵢ,ₖ Σⱼ αⱼ θⱼ π(aᵢ,ₖ at j|xᵢ) / Σⱼ θⱼ π₀(aᵢ,ₖ at j|xᵢ)",
            "Li et al., KDD 2018; Joachims, Swaminathan & Schnabel, WSDM 2017",
        ),
        Estimator(
            "dm", None, True,
            "1/n Σᵢ Σₖ αₖ Σ_d π(d at k|xᵢ) q̂(xᵢ, d, k)",
            "Dudík, Langford & Li, ICML 2011",
        ),
        Estimator(
            "dr", "item", True,
            "dm + 1/n Σᵢ Σₖ αₖ wᵢ,ₖ (cᵢ,ₖ − q̂(xᵢ, aᵢ,ₖ, k))",
            "Dudík, Langford & Li, ICML 2011; Kiyohara et al., WSDM 2022",
        ),
        Estimator(
            "cascade-dr", "prefix", True,
            "1/n Σᵢ Σₖ αₖ [wᵢ,₁:ₖ (cᵢ,ₖ − q̂(xᵢ,aᵢ,ₖ,k)) + wᵢ,₁:ₖ₋₁ Σ_d π(d at k|xᵢ,aᵢ,₁:ₖ₋₁) "
            "q̂(xᵢ,d,k)]",
            "Kiyohara et al., WSDM 2022",
        ),
    )
}  # fmt: skip


# --------------------------------------------------------------------------- reward models


@runtime_checkable
class RewardModel(Protocol):
    """What the direct method and the doubly robust estimators need of a click model: the
    expected click (reward) of document ``doc`` at position ``position`` for query
    ``query``, element-wise over arrays of the log's codes (``log.queries``, ``log.docs``;
    a document code at or beyond ``len(log.docs)`` is one the log never showed)."""

    def expected_clicks(
        self, query: np.ndarray, doc: np.ndarray, position: np.ndarray
    ) -> np.ndarray: ...


@dataclass(frozen=True, eq=False)
class EmpiricalRewardModel:
    """Smoothed click rates: q̂(x, d, k) = (clicks + m·p̄ₖ) / (shows + m), the click-through
    rate of document d at position k for query x, shrunk towards the position's rate p̄ₖ with
    the weight of ``prior`` (m) shows; p̄ₖ for a (query, document, position) never shown,
    and the log's overall rate at a position never shown."""

    keys: np.ndarray  # sorted int64 keys of the (query, doc, position) shown
    rates: np.ndarray  # float64, q̂ of each key
    position_rates: np.ndarray  # float64, p̄ₖ indexed by position (0 unused)
    overall: float
    num_docs: int
    max_position: int

    @classmethod
    def fit(
        cls,
        log: ImpressionLog,
        *,
        prior: float = 1.0,
        session_weight: np.ndarray | None = None,
    ) -> EmpiricalRewardModel:
        """Click rates of ``log`` (each session counted ``session_weight[i]`` times: 1)."""
        if not prior >= 0:
            raise UsageError(f"prior must be a non-negative number of shows, got {prior!r}")
        weight = (
            np.ones(len(log)) if session_weight is None
            else np.asarray(session_weight, dtype=np.float64)[log.session]
        )  # fmt: skip
        num_docs, max_position = len(log.docs), int(log.position.max())
        key = _key(log.query, log.doc, log.position, num_docs, max_position)
        keys, inverse = np.unique(key, return_inverse=True)
        shows = np.bincount(inverse, weights=weight, minlength=len(keys))
        clicks = np.bincount(inverse, weights=weight * log.click, minlength=len(keys))
        at = np.bincount(log.position, weights=weight, minlength=max_position + 1)
        clicked = np.bincount(log.position, weights=weight * log.click, minlength=max_position + 1)
        overall = float(clicked.sum() / at.sum()) if at.sum() > 0 else 0.0
        with np.errstate(invalid="ignore", divide="ignore"):
            position_rates = np.where(at > 0, clicked / at, overall)
        prior_rate = position_rates[keys % (max_position + 1)]
        with np.errstate(invalid="ignore", divide="ignore"):
            rates = np.where(
                shows + prior > 0, (clicks + prior * prior_rate) / (shows + prior), prior_rate
            )
        return cls(keys, rates, position_rates, overall, num_docs, max_position)

    def expected_clicks(
        self, query: np.ndarray, doc: np.ndarray, position: np.ndarray
    ) -> np.ndarray:
        """q̂ of each (query, doc, position), element-wise."""
        query, doc = np.asarray(query, dtype=np.int64), np.asarray(doc, dtype=np.int64)
        position = np.asarray(position, dtype=np.int64)
        known_position = (position >= 1) & (position <= self.max_position)
        out = np.where(
            known_position, self.position_rates[np.where(known_position, position, 0)],
            self.overall,
        )  # fmt: skip
        seen = known_position & (doc >= 0) & (doc < self.num_docs) & (query >= 0)
        if seen.any() and len(self.keys):
            key = _key(query[seen], doc[seen], position[seen], self.num_docs, self.max_position)
            at = np.minimum(np.searchsorted(self.keys, key), len(self.keys) - 1)
            hit = self.keys[at] == key
            values = out[seen]
            values[hit] = self.rates[at[hit]]
            out[seen] = values
        return out


@dataclass(frozen=True, eq=False)
class ClickModelReward:
    """A fitted position-based click model as the reward model of the direct method and the
    doubly robust estimators: q̂(x, d, k) = α_{x d} · γ_k (`PBM`, Chuklin et al. 2015), with
    the model's default attractiveness for a (query, document) it never saw (and for the
    documents the log never showed).  A reward model gives a document's expected click at
    a position whatever is ranked above it, which is the PBM's assumption; cascade models
    (CM, DBN, SDBN, UBM) make a click depend on the documents above and are refused."""

    attractiveness: np.ndarray  # α of (query code, doc code), queries × (docs + 1)
    examination: np.ndarray  # γ_k at positions 1..K (index 0 unused)

    @classmethod
    def of(cls, model: Any, log: ImpressionLog) -> ClickModelReward:
        """The reward model of ``model`` (a fitted `rankscope.clicks.PBM`) over the codes of
        ``log``."""
        if not isinstance(model, PBM):
            name = getattr(model, "name", type(model).__name__)
            raise UsageError(
                f"a reward model needs a position-based click model (pbm), not {name}: the "
                "direct method takes a document's expected click at a position whatever is "
                "ranked above it"
            )
        queries, docs = log.queries.strings, log.docs.strings
        alpha = np.full((len(queries), len(docs) + 1), model.attractiveness.default)
        if len(queries) and len(docs):
            qs = [q for q in queries for _ in docs]
            ds = [d for _ in queries for d in docs]
            index = model.attractiveness.lookup(qs, ds)
            alpha[:, : len(docs)] = model.attractiveness.of(index).reshape(len(queries), -1)
        return cls(alpha, np.concatenate(([0.0], np.asarray(model.examination, np.float64))))

    def expected_clicks(
        self, query: np.ndarray, doc: np.ndarray, position: np.ndarray
    ) -> np.ndarray:
        """α · γ of each (query, doc, position), element-wise."""
        query, doc = np.asarray(query, dtype=np.int64), np.asarray(doc, dtype=np.int64)
        position = np.asarray(position, dtype=np.int64)
        depth = len(self.examination) - 1
        if len(position) and int(position.max()) > depth:
            raise UsageError(
                f"the click model examines {depth} positions; the estimate needs position "
                f"{int(position.max())}: fit it on a log that shows as many"
            )
        doc = np.where((doc >= 0) & (doc < self.attractiveness.shape[1] - 1), doc, -1)
        return self.attractiveness[query, doc] * self.examination[position]


def _key(query, doc, position, num_docs: int, max_position: int) -> np.ndarray:
    query = np.asarray(query, dtype=np.int64)
    return (query * num_docs + np.asarray(doc, dtype=np.int64)) * (max_position + 1) + np.asarray(
        position, dtype=np.int64
    )


# --------------------------------------------------------------------------- policies


@dataclass(frozen=True, eq=False)
class TargetPolicy:
    """The evaluation policy π as the estimators see it, aligned with one log.

    ``item``, ``prefix`` and ``slate`` hold, per log row, π's probability of the logged
    document at its position, of the logged documents at positions 1..k, and of the whole
    logged ranking (None when not known).  ``dist_*`` list π's marginal distribution,
    π(d at k | x), as rows (query code, position, document code, probability) for the
    positions the log shows (document codes from ``len(log.docs)`` on are documents the log
    never showed).  ``deterministic``: π is one ranking per query (then the distribution's
    rows are its documents, with probability 1)."""

    name: str
    item: np.ndarray
    prefix: np.ndarray | None
    slate: np.ndarray | None
    dist_query: np.ndarray
    dist_position: np.ndarray
    dist_doc: np.ndarray
    dist_probability: np.ndarray
    deterministic: bool
    log: ImpressionLog


def _doc_codes(log: ImpressionLog, docs: Vocabulary | Sequence[str], codes: np.ndarray):
    """``codes`` (of ``docs``) as codes of the log's documents, documents the log lacks
    numbered from ``len(log.docs)`` on."""
    strings = docs.strings if isinstance(docs, Vocabulary) else list(docs)
    if isinstance(docs, Vocabulary) and docs is log.docs:
        return np.asarray(codes, dtype=np.int64)
    mapped = log.docs.lookup_many(strings).astype(np.int64)
    missing = mapped < 0
    mapped[missing] = len(log.docs) + np.arange(int(missing.sum()))
    return mapped[np.asarray(codes, dtype=np.int64)]


def _session_products(log: ImpressionLog, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(running product down each session, the session's whole product on each row)."""
    out = np.empty(len(values), dtype=np.float64)
    starts = np.flatnonzero(np.r_[True, log.session[1:] != log.session[:-1]])
    ends = np.r_[starts[1:], len(values)]
    for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
        out[s:e] = np.cumprod(values[s:e])
    whole = out[ends - 1][log.session]
    return out, whole


def _warn_unranked(log: ImpressionLog, covered: np.ndarray, name: str) -> None:
    """Warn of the logged queries ``covered`` (query codes of the policy's rows) lacks."""
    ranked = np.zeros(len(log.queries), dtype=bool)
    ranked[covered] = True
    unranked = np.unique(log.query[~ranked[log.query]])
    if unranked.size:
        ids = log.queries.strings_of(unranked[:3].astype(np.int32))
        warn(
            f"{unranked.size} of the log's {np.unique(log.query).size} queries have no ranking "
            f"in {name} (e.g. {', '.join(map(repr, ids))}): the policy shows nothing "
            f"there and their clicks count 0"
        )


def ranking_policy(
    log: ImpressionLog, run: Run, *, ties: str = "docno-desc", name: str | None = None
) -> TargetPolicy:
    """The deterministic policy that shows, for each query, ``run``'s ranking (ordered by
    score, ties by ``ties`` as in `rankscope.judge.order_run`) at the log's positions.

    A logged query the run does not rank is one where the policy shows nothing (its clicks
    count 0), with a warning; the run's other queries are ignored."""
    order = order_run(run, ties)
    query, doc = run.query[order], run.doc[order]
    starts = np.r_[True, query[1:] != query[:-1]]
    first = np.flatnonzero(starts)
    rank = np.arange(len(query)) - np.repeat(first, np.diff(np.r_[first, len(query)])) + 1
    log_query = log.queries.lookup_many(run.queries.strings).astype(np.int64)[query]
    max_position = int(log.position.max())
    keep = (log_query >= 0) & (rank <= max_position)
    dist_query, dist_position = log_query[keep], rank[keep].astype(np.int64)
    dist_doc = _doc_codes(log, run.docs, doc[keep])
    _warn_unranked(log, dist_query, run.name)
    num_docs = int(max(len(log.docs), dist_doc.max() + 1 if dist_doc.size else 0))
    shown = np.sort(_key(dist_query, dist_doc, dist_position, num_docs, max_position))
    key = _key(log.query, log.doc, log.position, num_docs, max_position)
    at = np.minimum(np.searchsorted(shown, key), max(len(shown) - 1, 0))
    item = (shown[at] == key).astype(np.float64) if len(shown) else np.zeros(len(log))
    prefix, slate = _session_products(log, item)
    return TargetPolicy(
        name or run.name, item, prefix, slate, dist_query, dist_position, dist_doc,
        np.ones(len(dist_doc)), True, log,
    )  # fmt: skip


def stochastic_policy(
    log: ImpressionLog,
    probabilities: Any,
    *,
    prefix: Sequence[float] | np.ndarray | None = None,
    slate: Sequence[float] | np.ndarray | None = None,
    name: str = "policy",
) -> TargetPolicy:
    """A stochastic evaluation policy given by its marginal probabilities π(d at k | x).

    ``probabilities``: a DataFrame or dict of columns ``query``, ``position``, ``doc``,
    ``probability`` (rows absent are 0; at each (query, position) they sum to at most 1);
    a log without a query column has the one query ``all``.  ``prefix`` and ``slate``: per
    log row, π's probability of the logged documents at positions 1..k and of the whole
    logged ranking, when known (``rips`` and ``ips`` need them)."""
    source = "<policy probabilities>"
    if is_frame(probabilities):
        names = column_names(probabilities)
        table = dict(zip(names, frames.frame_columns(probabilities, names, source), strict=True))
    elif isinstance(probabilities, Mapping):
        table = {k: np.asarray(v) for k, v in probabilities.items()}
    else:
        raise UsageError("probabilities must be a DataFrame or a dict of columns")
    missing = [c for c in ("position", "doc", "probability") if c not in table]
    if missing:
        raise InputError(f"{source}: no column(s) {', '.join(missing)} (columns: {list(table)})")
    n = len(table["doc"])
    queries = (
        [str(q) for q in np.asarray(table["query"]).tolist()] if "query" in table
        else ["all"] * n
    )  # fmt: skip
    position = np.asarray(table["position"], dtype=np.int64)
    probability = np.asarray(table["probability"], dtype=np.float64)
    bad = np.flatnonzero(~((probability >= 0) & (probability <= 1 + 1e-9)))
    if bad.size:
        row = int(bad[0])
        raise InputError(f"{source}: row {row}: probability {probability[row]!r} not in [0, 1]")
    if (position < 1).any():
        raise InputError(f"{source}: row {np.flatnonzero(position < 1)[0]}: position below 1")
    dist_query = log.queries.lookup_many(queries).astype(np.int64)
    _warn_unranked(log, dist_query[dist_query >= 0], name)
    doc_ids = [str(d) for d in np.asarray(table["doc"]).tolist()]
    dist_doc = _doc_codes(log, doc_ids, np.arange(n))
    max_position = int(log.position.max())
    keep = (dist_query >= 0) & (position <= max_position)
    dist_query, dist_doc = dist_query[keep], dist_doc[keep]
    position, probability = position[keep], probability[keep]
    num_docs = int(max(len(log.docs), dist_doc.max() + 1 if dist_doc.size else 0))
    slot = dist_query * (max_position + 1) + position
    total = np.bincount(slot, weights=probability) if slot.size else np.zeros(0)
    if (total > 1 + 1e-6).any():
        s = int(np.flatnonzero(total > 1 + 1e-6)[0])
        query_id = log.queries.strings_of(np.array([s // (max_position + 1)]))[0]
        raise InputError(
            f"{source}: the probabilities at query {query_id!r}, position "
            f"{s % (max_position + 1)} sum to {total[s]:.6g} > 1"
        )
    key = _key(dist_query, dist_doc, position, num_docs, max_position)
    keys, inverse = np.unique(key, return_inverse=True)
    if len(keys) < len(key):
        raise InputError(f"{source}: a (query, position, doc) is listed twice")
    values = probability[np.argsort(inverse)]
    logged = _key(log.query, log.doc, log.position, num_docs, max_position)
    at = np.minimum(np.searchsorted(keys, logged), max(len(keys) - 1, 0))
    item = np.where(keys[at] == logged, values[at], 0.0) if len(keys) else np.zeros(len(log))
    return TargetPolicy(
        name, item, _per_row(prefix, len(log), "prefix"), _per_row(slate, len(log), "slate"),
        dist_query, position, dist_doc, probability, False, log,
    )  # fmt: skip


def _per_row(values, n: int, what: str) -> np.ndarray | None:
    if values is None:
        return None
    array = np.asarray(values, dtype=np.float64)
    if array.shape != (n,):
        raise UsageError(f"{what} must hold one probability per log row ({n}), got {array.shape}")
    if not ((array >= 0) & (array <= 1 + 1e-9)).all():
        raise UsageError(f"{what} probabilities must lie in [0, 1]")
    return array


# --------------------------------------------------------------------------- estimation


@dataclass(frozen=True)
class Estimate:
    """An estimate of a policy's value with its percentile bootstrap interval.

    ``effective_sample_size``: (Σw)²/Σw² of the importance weights used (None for ``dm``),
    ``max_weight`` their largest; a small effective sample size warns of a high variance."""

    estimator: str
    policy: str
    value: float
    low: float
    high: float
    confidence: float
    standard_error: float
    sessions: int
    samples: int
    seed: int | None
    effective_sample_size: float | None
    max_weight: float | None

    def to_dict(self) -> dict[str, Any]:
        """The fields (JSON-ready, full precision)."""
        return dict(self.__dict__)

    def records(self) -> list[dict[str, Any]]:
        """The estimate as the one row a table of estimates holds."""
        return [self.to_dict()]

    def to_frame(self, output: str = "pandas") -> Any:
        """`records` as a one-row DataFrame (pandas, polars) or a dict of columns."""
        return records_frame(self.records(), list(self.__dataclass_fields__), output)


@dataclass(frozen=True)
class _Weights:
    row: np.ndarray | None  # per row (item, prefix, pbm), or per row of the session (slate)
    above: np.ndarray | None  # per row, the prefix weight of the rows above (cascade-dr)


def _check_propensity(log: ImpressionLog, kind: str, name: str) -> np.ndarray:
    values = {
        "item": log.propensity, "prefix": log.prefix_propensity, "slate": log.slate_propensity,
    }[kind]  # fmt: skip
    if values is None:
        column = {"item": "propensity", "prefix": "prefix_propensity",
                  "slate": "slate_propensity"}[kind]  # fmt: skip
        raise UsageError(f"{name} needs the logging policy's {column} column in {log.source}")
    return values


def _check_contiguous(log: ImpressionLog, name: str) -> None:
    starts = np.r_[True, log.session[1:] != log.session[:-1]]
    expected = np.arange(len(log)) - np.maximum.accumulate(np.where(starts, np.arange(len(log)), 0))
    if not np.array_equal(log.position, expected + 1):
        bad = int(np.flatnonzero(log.position != expected + 1)[0])
        raise UsageError(
            f"{name} needs every position from the top logged in each session; session "
            f"{log.sessions.strings_of(log.session[bad : bad + 1])[0]!r} of {log.source} lacks "
            f"position {int(expected[bad]) + 1}"
        )


def _weights(
    log, policy: TargetPolicy, spec: Estimator, clip, examination, logging_policy, alpha
) -> _Weights:
    kind = spec.weights
    if kind is None:
        return _Weights(None, None)
    if kind == "pbm":
        return _Weights(_pbm_weights(log, policy, examination, logging_policy, alpha), None)
    target = {"item": policy.item, "prefix": policy.prefix, "slate": policy.slate}[kind]
    if target is None:
        raise UsageError(
            f"{spec.name} needs the evaluation policy's {kind} probabilities of the logged "
            f"rankings (give {kind}= to stochastic_policy, or a ranking)",
            cli=f"{spec.name} needs the evaluation policy's {kind} probabilities of the "
            "logged rankings, which a --policy file of per-position probabilities does not "
            "give: use iips, pbm, dm or dr, or a run",
        )
    if kind == "prefix":
        _check_contiguous(log, spec.name)
    weight = target / _check_propensity(log, kind, spec.name)
    if clip is not None:
        weight = np.minimum(weight, clip)
    above = None
    if spec.name == "cascade-dr":
        starts = np.r_[True, log.session[1:] != log.session[:-1]]
        above = np.where(starts, 1.0, np.r_[1.0, weight[:-1]])
    return _Weights(weight, above)


# --------------------------------------------------------------------------- support

#: Above this share of the evaluation policy's probability on actions the log never showed,
#: `estimate` warns (the IPS family counts no clicks there: biased low).
SUPPORT_WARNING = 0.05

#: Each importance-weighted estimator's unit of support: what the logging policy must have
#: shown for π's probability to count (an action never logged has weight π/π₀ undefined).
SUPPORT_UNITS = {
    "item": "documents at their positions",
    "pbm": "documents (at any position)",
    "prefix": "top-k prefixes",
    "slate": "rankings",
}


def unsupported_share(log: ImpressionLog, policy: TargetPolicy, unit: str) -> float | None:
    """The share of ``policy``'s probability, over the log's (query, position) slots each
    weighted by the rows of the log there, on actions of ``unit`` (a key of
    `SUPPORT_UNITS`) that the log never shows for that query: a (document, position) for
    ``item``, a document at any position for ``pbm``, the documents at positions 1..k for
    ``prefix``, the whole ranking (one slot per session, at position 1) for ``slate``.
    None when ``policy`` puts no probability on the log's slots (its prefix or slate
    probabilities unknown, or no query in common)."""
    max_position = int(log.position.max())
    size = len(log.queries) * (max_position + 1)
    dist_slot = policy.dist_query * (max_position + 1) + policy.dist_position
    total = np.bincount(dist_slot, weights=policy.dist_probability, minlength=size)
    if unit in ("item", "pbm"):
        num_docs = int(max(len(log.docs), policy.dist_doc.max(initial=-1) + 1))
        position = log.position if unit == "item" else np.zeros(len(log), dtype=np.int64)
        dist_position = policy.dist_position if unit == "item" else np.zeros_like(dist_slot)
        logged = np.unique(_key(log.query, log.doc, position, num_docs, max_position))
        shown = np.isin(
            _key(policy.dist_query, policy.dist_doc, dist_position, num_docs, max_position), logged
        )
        supported = np.bincount(
            dist_slot[shown], weights=policy.dist_probability[shown], minlength=size
        )
        rows = log.query.astype(np.int64) * (max_position + 1) + log.position
    else:
        probability = policy.prefix if unit == "prefix" else policy.slate
        if probability is None:
            return None
        prefix, whole = _ranking_hashes(log, max_position)
        if unit == "prefix":
            rows = log.query.astype(np.int64) * (max_position + 1) + log.position
            action = np.stack([rows, prefix.view(np.int64)], axis=1)
            taken = np.arange(len(log))
        else:
            taken = np.flatnonzero(np.r_[True, log.session[1:] != log.session[:-1]])
            rows = log.query[taken].astype(np.int64) * (max_position + 1) + 1
            action = np.stack([rows, whole[taken].view(np.int64)], axis=1)
        _, first = np.unique(action, axis=0, return_index=True)
        supported = np.bincount(
            rows[first], weights=probability[taken][first], minlength=size
        )
    count = np.bincount(rows, minlength=size).astype(np.float64)
    mass = float(count @ total)
    if not mass > 0:
        return None
    return float(count @ np.maximum(total - supported, 0.0)) / mass


def _ranking_hashes(log: ImpressionLog, max_position: int) -> tuple[np.ndarray, np.ndarray]:
    """Per log row, a 64-bit hash of the session's documents at positions 1..k (its rows so
    far: ``prefix``, for logs whose sessions list every position from the top) and of the
    session's whole ranking (order-free: ``whole``); equal rankings hash equal, different
    ones collide with probability about 2⁻⁶⁴."""
    factor = np.random.default_rng(0).integers(1, 2**62, max_position + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        term = factor[log.position] * (log.doc.astype(np.uint64) + np.uint64(1))
        running = np.cumsum(term, dtype=np.uint64)
        starts = np.flatnonzero(np.r_[True, log.session[1:] != log.session[:-1]])
        before = np.r_[np.uint64(0), running][starts]
        length = np.diff(np.r_[starts, len(log)])
        prefix = running - np.repeat(before, length)
        ends = np.r_[starts[1:], len(log)] - 1
        whole = np.repeat(prefix[ends], length)
    return prefix, whole


def _check_support(log: ImpressionLog, policy: TargetPolicy, spec: Estimator) -> None:
    """Warn when more than `SUPPORT_WARNING` of ``policy``'s probability is on actions the
    log never showed (per the estimator's unit); refuse an estimator without a reward
    model when all of it is (every weight 0: a meaningless estimate of 0)."""
    if spec.weights is None:
        return
    share = unsupported_share(log, policy, spec.weights)
    if share is None or share <= SUPPORT_WARNING:
        return
    what = SUPPORT_UNITS[spec.weights]
    if share >= 1 - 1e-12 and not spec.model:
        raise UsageError(
            f"{spec.name}: {log.source} never shows any of the {what} {policy.name!r} shows "
            "(100% of its probability is on actions the logging policy never took): every "
            "importance weight is 0 and the estimate would be a meaningless 0; estimate "
            "with dm or dr and a reward model, or from a log that covers the policy",
            cli=f"{spec.name}: {log.source} never shows any of the {what} {policy.name!r} "
            "shows (100% of its probability is on actions the logging policy never took): "
            "every importance weight is 0 and the estimate would be a meaningless 0; use "
            "--estimator dm or dr with --reward-model, or a log that covers the policy",
        )
    told = (
        f"{spec.name}: {share:.1%} of the probability of {policy.name!r} is on {what} that "
        f"{log.source} never shows (the support check warns above "
        f"{SUPPORT_WARNING:.0%}): "
    )
    warn(
        told + (
            "the estimate rests on the reward model there"
            if spec.model else "no click is counted there: the estimate is biased low if "
            "the logging policy cannot show them, and rests on few sessions if it merely did not"
        )
    )  # fmt: skip


def _pbm_weights(log, policy: TargetPolicy, examination, logging_policy, alpha) -> np.ndarray:
    if examination is None:
        raise UsageError(
            "pbm needs examination= (θ₁, θ₂, ...: each position's examination)",
            cli="pbm needs --examination θ1,θ2,... (each position's examination)",
        )
    theta = np.asarray(examination, dtype=np.float64)
    max_position = int(log.position.max())
    if theta.ndim != 1 or len(theta) < max_position or not ((theta > 0) & (theta <= 1)).all():
        raise UsageError(
            f"examination must give a probability in (0, 1] for each of positions 1..{max_position}"
        )
    theta = np.r_[0.0, theta[:max_position]]
    if logging_policy is None:
        if log.propensity is None or not np.all(log.propensity == 1):
            raise UsageError(
                "pbm needs logging_policy= (the logging policy's probabilities, as for "
                "stochastic_policy) unless the log is deterministic (every propensity 1)",
                cli="pbm needs a deterministic log (every propensity 1) on the command line; "
                "the API takes the logging policy's probabilities (logging_policy=)",
            )
        lq, ld, lk, lp = log.query, log.doc, log.position, np.ones(len(log))
        pairs = np.unique(_key(lq, ld, lk, len(log.docs), max_position))
        lk = pairs % (max_position + 1)
        rest = pairs // (max_position + 1)
        lq, ld, lp = rest // len(log.docs), rest % len(log.docs), np.ones(len(pairs))
    else:
        lq, ld = logging_policy.dist_query, logging_policy.dist_doc
        lk, lp = logging_policy.dist_position, logging_policy.dist_probability
    num_docs = int(max(len(log.docs), policy.dist_doc.max(initial=-1) + 1, ld.max(initial=-1) + 1))
    pair = np.asarray(lq, dtype=np.int64) * num_docs + ld
    pairs, inverse = np.unique(pair, return_inverse=True)
    denominator = np.bincount(inverse, weights=theta[lk] * lp, minlength=len(pairs))
    target_pair = policy.dist_query * num_docs + policy.dist_doc
    at = np.minimum(np.searchsorted(pairs, target_pair), len(pairs) - 1)
    hit = pairs[at] == target_pair
    numerator = np.bincount(
        at[hit], weights=(alpha[policy.dist_position] * theta[policy.dist_position]
                          * policy.dist_probability)[hit], minlength=len(pairs),
    )  # fmt: skip
    logged = log.query.astype(np.int64) * num_docs + log.doc
    at = np.minimum(np.searchsorted(pairs, logged), len(pairs) - 1)
    if not (pairs[at] == logged).all():
        raise UsageError("logging_policy gives no probability to a document the log shows")
    return numerator[at] / denominator[at]


def _alpha(position_weights, max_position: int) -> np.ndarray:
    """α indexed by position (0 unused); positions beyond the given weights count 0."""
    if position_weights is None:
        return np.r_[0.0, np.ones(max_position)]
    alpha = np.asarray(position_weights, dtype=np.float64)
    if alpha.ndim != 1 or not np.isfinite(alpha).all():
        raise UsageError("position_weights must be a sequence of finite numbers (α₁, α₂, ...)")
    out = np.zeros(max_position + 1)
    length = min(len(alpha), max_position)
    out[1 : length + 1] = alpha[:length]
    return out


def _direct(log, policy: TargetPolicy, model: RewardModel, alpha) -> tuple[np.ndarray, np.ndarray]:
    """(per session Σₖ αₖ Σ_d π(d at k|x) q̂(x,d,k) over its positions, q̂ of each row)."""
    max_position = int(log.position.max())
    slot_of = policy.dist_query * (max_position + 1) + policy.dist_position
    q = np.asarray(
        model.expected_clicks(policy.dist_query, policy.dist_doc, policy.dist_position),
        dtype=np.float64,
    )
    size = (int(log.query.max(initial=0)) + 1) * (max_position + 1)
    slot_value = np.bincount(slot_of, weights=policy.dist_probability * q, minlength=size)
    row_slot = log.query.astype(np.int64) * (max_position + 1) + log.position
    row_direct = alpha[log.position] * slot_value[row_slot]
    fitted = np.asarray(model.expected_clicks(log.query, log.doc, log.position), dtype=np.float64)
    return row_direct, fitted


def _terms(log, spec: Estimator, weights: _Weights, alpha, model, policy, self_normalise):
    """(n × m per-session terms, combine(sums, total) -> value) of one estimator."""
    n = log.num_sessions
    reward = alpha[log.position] * log.click
    if spec.model:
        row_direct, fitted = _direct(log, policy, model, alpha)
    if spec.name == "dm":
        return np.bincount(log.session, weights=row_direct, minlength=n)[:, None], _mean
    if spec.name == "dr":
        assert weights.row is not None
        contribution = row_direct + weights.row * alpha[log.position] * (log.click - fitted)
        return np.bincount(log.session, weights=contribution, minlength=n)[:, None], _mean
    if spec.name == "cascade-dr":
        assert weights.row is not None and weights.above is not None
        contribution = weights.row * alpha[log.position] * (log.click - fitted)
        contribution = contribution + weights.above * row_direct
        return np.bincount(log.session, weights=contribution, minlength=n)[:, None], _mean
    assert weights.row is not None
    if not self_normalise:
        return np.bincount(log.session, weights=weights.row * reward, minlength=n)[:, None], _mean
    if spec.weights == "slate":
        first = np.r_[True, log.session[1:] != log.session[:-1]]
        numerator = np.bincount(log.session, weights=weights.row * reward, minlength=n)
        return np.c_[numerator, weights.row[first]], _ratio
    # position by position: (numerator, denominator, sessions showing it) per position
    max_position = int(log.position.max())
    column = log.position - 1
    terms = np.zeros((n, 3 * max_position))
    terms[log.session, column] = weights.row * reward
    terms[log.session, max_position + column] = weights.row
    terms[log.session, 2 * max_position + column] = 1.0
    return terms, _per_position_ratio


def _mean(sums: np.ndarray, total: float) -> np.ndarray:
    return sums[..., 0] / total


def _ratio(sums: np.ndarray, total: float) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(sums[..., 1] > 0, sums[..., 0] / sums[..., 1], 0.0)


def _per_position_ratio(sums: np.ndarray, total: float) -> np.ndarray:
    k = sums.shape[-1] // 3
    numerator, denominator, shown = sums[..., :k], sums[..., k : 2 * k], sums[..., 2 * k :]
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(denominator > 0, numerator / denominator, 0.0)
    return (ratio * shown).sum(axis=-1) / total


def estimate(
    log: ImpressionLog,
    policy: TargetPolicy,
    estimator: str = "ips",
    *,
    reward_model: RewardModel | str | None = None,
    examination: Sequence[float] | np.ndarray | None = None,
    logging_policy: TargetPolicy | None = None,
    position_weights: Sequence[float] | np.ndarray | None = None,
    clip: float | None = None,
    self_normalise: bool = False,
    confidence: float = 0.95,
    samples: int = 1000,
    seed: int | None = 0,
) -> Estimate:
    """The value of ``policy`` estimated from ``log`` by ``estimator`` (see `ESTIMATORS` and
    the module's formulas), with a percentile bootstrap interval over sessions.

    * ``reward_model``: for ``dm``, ``dr`` and ``cascade-dr``: a `RewardModel` (held fixed in
      the bootstrap) or ``"empirical"`` (`EmpiricalRewardModel`, refitted on every resample).
    * ``examination``: θ₁, θ₂, ... for ``pbm``; ``logging_policy`` the logging policy's
      marginal probabilities (a `stochastic_policy` on the same log) for ``pbm`` when the log
      is not deterministic.
    * ``position_weights``: α₁, α₂, ... (default 1 at every position: expected clicks per
      session); positions beyond them count 0 (``[1, 1, 1]``: clicks in the top 3).
    * ``clip``: cap on every importance weight; ``self_normalise``: for ``ips``, ``iips``,
      ``rips`` (``snips`` is ``ips`` self-normalised).
    * ``samples`` bootstrap resamples (0: no interval) drawn with ``seed``.

    >>> from rankscope.read.impressions import read_impressions
    >>> log = read_impressions({"session": [1, 1, 2, 2], "position": [1, 2, 1, 2],
    ...     "doc": ["a", "b", "b", "a"], "click": [1, 0, 0, 1],
    ...     "propensity": [0.5, 0.5, 0.5, 0.5]})
    >>> policy = stochastic_policy(log, {"position": [1, 2], "doc": ["a", "b"],
    ...     "probability": [1.0, 1.0]})
    >>> estimate(log, policy, "iips", samples=0).value   # (1/0.5·1 + 0) / 2 sessions
    1.0
    """
    spec = ESTIMATORS.get(estimator)
    if spec is None:
        raise UsageError(
            f"unknown estimator {estimator!r}; estimators are {', '.join(ESTIMATORS)}"
        )
    if policy.log is not log:
        raise UsageError("the policy was built for another log (build it from this one)")
    if not 0 < confidence < 1:
        raise UsageError(f"confidence must be in (0, 1), got {confidence!r}")
    if not (isinstance(samples, int) and samples >= 0):
        raise UsageError(f"samples must be a non-negative integer, got {samples!r}")
    if clip is not None and not (isinstance(clip, int | float) and clip > 0):
        raise UsageError(f"clip must be a positive number, got {clip!r}")
    if spec.self_normalised:
        self_normalise = True
    if self_normalise and (spec.model or spec.weights not in ("slate", "item", "prefix")):
        raise UsageError(f"self_normalise applies to ips, iips and rips, not {spec.name}")
    if spec.model and reward_model is None:
        raise UsageError(
            f"{spec.name} needs a reward model (reward_model='empirical' or a model)",
            cli=f"{spec.name} needs a reward model (--reward-model empirical)",
        )
    if not spec.model and reward_model is not None:
        raise UsageError(
            f"{spec.name} uses no reward model (reward_model= is for dm, dr, cascade-dr)"
        )
    if spec.name == "cascade-dr" and not policy.deterministic:
        raise UsageError(
            "cascade-dr needs a deterministic ranking policy (π's conditional distribution "
            "given the logged prefix is known there)"
        )
    if isinstance(reward_model, str) and reward_model != "empirical":
        raise UsageError(f"reward_model must be 'empirical' or a model, got {reward_model!r}")
    if examination is not None and spec.name != "pbm":
        raise UsageError("examination= is for the pbm estimator")
    alpha = _alpha(position_weights, int(log.position.max()))
    weights = _weights(log, policy, spec, clip, examination, logging_policy, alpha)
    _check_support(log, policy, spec)
    refit = reward_model == "empirical"

    def model_for(session_weight: np.ndarray | None) -> Any:
        if refit:
            return EmpiricalRewardModel.fit(log, session_weight=session_weight)
        return reward_model

    n = log.num_sessions
    terms, combine = _terms(log, spec, weights, alpha, model_for(None), policy, self_normalise)
    value = float(combine(terms.sum(axis=0), n))
    rng = np.random.default_rng(seed)
    values = np.empty(samples)
    if refit:
        for b in range(samples):
            counts = np.bincount(rng.integers(0, n, n), minlength=n).astype(np.float64)
            t, _ = _terms(log, spec, weights, alpha, model_for(counts), policy, self_normalise)
            values[b] = combine(counts @ t, n)
    else:
        chunk = max(1, min(samples, 4_000_000 // max(n, 1)))
        for start in range(0, samples, chunk):
            size = min(chunk, samples - start)
            rows = rng.integers(0, n, (size, n)) + n * np.arange(size)[:, None]
            resampled = np.bincount(rows.ravel(), minlength=size * n).reshape(size, n)
            values[start : start + size] = combine(resampled @ terms, n)
    low, high = percentile_interval(values, confidence) if samples else (math.nan, math.nan)
    ess = max_weight = None
    if weights.row is not None:
        w = weights.row
        if spec.weights == "slate":
            w = w[np.r_[True, log.session[1:] != log.session[:-1]]]
        ess = float(w.sum() ** 2 / (w**2).sum()) if (w**2).sum() > 0 else 0.0
        max_weight = float(w.max())
    return Estimate(
        spec.name, policy.name, value, low, high, confidence,
        float(values.std(ddof=1)) if samples > 1 else math.nan, n, samples, seed, ess,
        max_weight,
    )  # fmt: skip
