"""Click models (Chuklin, Markov & de Rijke 2015, *Click Models for Web Search*): PBM, CM,
UBM, DBN and SDBN, fitted to a click log (an `ImpressionLog` with 0/1 clicks, each session's
positions 1..n: `rankscope.read.impressions.check_click_log`) by EM or in closed form.

Every model explains a session — a ranking of ``n`` documents ``d_1..d_n`` shown for query
``q``, and the clicks ``c_1..c_n`` — by examination (``E_r``: the user looked at position
``r``) and attractiveness (``A_r``: the snippet of ``d_r`` attracts a click), with
``C_r = 1 ⇔ E_r = 1 ∧ A_r = 1`` and ``P(A_r = 1) = α_{q d_r}``:

* **PBM**, position-based (Craswell et al. 2008; Chuklin et al. 2015 §3.3):
  ``P(E_r = 1) = γ_r``, independent of everything else.  Fitted by EM.
* **CM**, cascade (Craswell et al. 2008): the user scans top-down and stops at the first
  click: ``E_1 = 1``, ``E_{r+1} = E_r ∧ ¬C_r``.  Closed form: ``α_qd = clicks / examinations``
  with the positions up to the first click (all, without a click) examined; clicks after
  the first, which the model cannot explain, are left out of the estimate.
* **UBM**, user browsing (Dupret & Piwowarski 2008): ``P(E_r = 1) = γ_{r r'}`` where ``r'`` is
  the position of the last click above ``r`` (0: none).  Fitted by EM.
* **DBN**, dynamic Bayesian network (Chapelle & Zhang 2009): after examining ``d_r`` the
  user is satisfied with probability ``σ_{q d_r}`` if she clicked it (and stops), and
  otherwise goes on with probability ``γ``: ``E_{r+1} = E_r ∧ ¬S_r ∧ (continues)``.  Fitted by
  EM with the exact posteriors of the examination chain.
* **SDBN**, simplified DBN (γ = 1; Chuklin et al. 2015 §3.8): closed form, assuming the
  user examined every position down to the last click and was satisfied there:
  ``α_qd = clicks / examinations`` (positions up to the last click; all, without a click),
  ``σ_qd = last clicks / clicks``.

EM (Dempster et al. 1977) starts from α = σ = γ = 0.5 everywhere (deterministic, nothing
random) and stops when the mean log-likelihood per session improves by less than ``tol``
(default 1e-6 nats) or after ``max_iter`` iterations (default 200); each iteration cannot
lower the likelihood, and ``trace`` keeps it after each one.  A (query, document) pair the
training log never showed (or, for σ, never clicked) takes the model's default: the
maximum-likelihood estimate pooled over every pair (closed forms) or the mean of the
estimates weighted by impressions (EM; clicks for σ).

PBM's ``α γ`` is a product: scaling every α by ``c`` and every γ by ``1/c`` explains the log
as well, so only ``γ_r / γ_1`` (`PBM.propensities`, what inverse propensity scoring needs)
and ``α γ_1`` are identified by the log; UBM likewise.

Held-out comparison (Chuklin et al. 2015 §4): the log-likelihood of a session is
``Σ_r log P(C_r = c_r | C_<r)`` (natural log; `log_likelihood` is its mean per session),
and the perplexity at position ``r`` is ``2^(-(1/N_r) Σ_s [c log2 q + (1 - c) log2 (1 - q)])``
with ``q = P(C_r = 1)`` the model's unconditional click probability and ``N_r`` the sessions
showing position ``r``; the overall perplexity is the mean over positions (1 is perfect, 2
a coin).  Probabilities are clipped to [1e-10, 1 - 1e-10], so that a click the model deems
impossible (a second click under CM) costs log 1e-10 ≈ -23 nats, not -∞.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..errors import InputError, UsageError, warn
from ..model import ImpressionLog
from ..model.frames import records_frame
from ..read.impressions import check_click_log

#: Probabilities are clipped to [EPSILON, 1 - EPSILON] in likelihoods and perplexities.
EPSILON = 1e-10
#: EM's starting value of every parameter.
INITIAL = 0.5


# -- parameters of (query, document) pairs ---------------------------------------------------


@dataclass(frozen=True, eq=False)
class PairParameters:
    """One parameter per (query, document) pair (attractiveness or satisfaction): the
    pairs' ids, values and evidence (impressions or clicks in the training log), and the
    ``default`` of a pair not listed."""

    query_ids: list[str]
    doc_ids: list[str]
    values: np.ndarray  # float64
    evidence: np.ndarray  # int64
    default: float

    def __len__(self) -> int:
        return len(self.values)

    @functools.cached_property
    def _index(self) -> dict[tuple[str, str], int]:
        return {pair: i for i, pair in enumerate(zip(self.query_ids, self.doc_ids, strict=True))}

    def get(self, query: str, doc: str) -> float:
        """The parameter of ``(query, doc)`` (the default when the pair is not listed)."""
        i = self._index.get((query, doc))
        return self.default if i is None else float(self.values[i])

    def lookup(self, query_ids: Sequence[str], doc_ids: Sequence[str]) -> np.ndarray:
        """Indices of the pairs (-1: not listed)."""
        index = self._index
        return np.asarray(
            [index.get(p, -1) for p in zip(query_ids, doc_ids, strict=True)], dtype=np.int64
        )

    def of(self, indices: np.ndarray) -> np.ndarray:
        """The values of pair ``indices`` (-1: the default)."""
        return np.where(indices >= 0, self.values[np.maximum(indices, 0)], self.default)

    def to_dict(self) -> dict[str, Any]:
        return {
            "default": self.default,
            "pairs": [
                {"query": q, "doc": d, "value": float(v), "evidence": int(e)}
                for q, d, v, e in zip(
                    self.query_ids,
                    self.doc_ids,
                    self.values.tolist(),
                    self.evidence.tolist(),
                    strict=True,
                )
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str) -> PairParameters:
        try:
            pairs = data["pairs"]
            values = np.asarray([float(p["value"]) for p in pairs], dtype=np.float64)
            out = cls(
                [str(p["query"]) for p in pairs], [str(p["doc"]) for p in pairs], values,
                np.asarray([int(p.get("evidence", 0)) for p in pairs], dtype=np.int64),
                float(data["default"]),
            )  # fmt: skip
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{source}: malformed pair parameters ({exc})") from None
        _check_probabilities(np.append(values, out.default), source, "pair parameter")
        return out


def _check_probabilities(values: np.ndarray, source: str, what: str) -> None:
    bad = ~((values >= 0) & (values <= 1))
    if bad.any():
        raise InputError(f"{source}: {what} {values[bad][0]!r} is not a probability in [0, 1]")


# -- a log as cells ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Cells:
    """A log as (session, position) rectangles: the pair index of each cell (-1 past the
    session's end, or a pair the model does not list: see ``shown``), the clicks."""

    pair: np.ndarray  # int64 (S, K)
    clicked: np.ndarray  # bool (S, K)
    shown: np.ndarray  # bool (S, K)
    length: np.ndarray  # int64 (S,)

    @functools.cached_property
    def last_click(self) -> np.ndarray:
        """int64 (S,): the position (1-based) of each session's last click, 0 without one."""
        k = self.clicked.shape[1]
        ranks = np.where(self.clicked, np.arange(1, k + 1), 0)
        return ranks.max(axis=1) if k else np.zeros(len(self.length), dtype=np.int64)

    @functools.cached_property
    def first_click(self) -> np.ndarray:
        """int64 (S,): the position of each session's first click, 0 without one."""
        any_click = self.clicked.any(axis=1)
        return np.where(any_click, self.clicked.argmax(axis=1) + 1, 0)

    @functools.cached_property
    def previous_click(self) -> np.ndarray:
        """int64 (S, K): the position of the last click above each cell (0: none)."""
        s, k = self.clicked.shape
        out = np.zeros((s, k), dtype=np.int64)
        last = np.zeros(s, dtype=np.int64)
        for i in range(k):
            out[:, i] = last
            last = np.where(self.clicked[:, i], i + 1, last)
        return out


def _cells(log: ImpressionLog, pair_of_row: np.ndarray) -> _Cells:
    m = check_click_log(log).matrix()
    starts = log.starts
    row_session = np.repeat(np.arange(log.num_sessions), np.diff(starts))
    pair = np.full(m.doc.shape, -1, dtype=np.int64)
    pair[row_session, log.position - 1] = pair_of_row
    return _Cells(pair, m.clicked, m.shown, m.length)


def _training_pairs(log: ImpressionLog) -> tuple[_Cells, list[str], list[str]]:
    """The log's cells with its distinct (query, document) pairs numbered, and their ids."""
    if len(log) == 0:
        raise InputError(f"{log.source}: no sessions to fit a click model to")
    key = log.query.astype(np.int64) * max(len(log.docs), 1) + log.doc
    distinct, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    queries = log.queries.strings_of(log.query[first])
    docs = log.docs.strings_of(log.doc[first])
    return _cells(log, inverse.reshape(-1).astype(np.int64)), queries, docs


def _per_pair(cells: _Cells, where: np.ndarray, weights: np.ndarray, n: int) -> np.ndarray:
    return np.bincount(cells.pair[where], weights=weights[where], minlength=n)


def _ratio(num: np.ndarray, den: np.ndarray, default: float) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), default)


def _clip(p: np.ndarray) -> np.ndarray:
    return np.clip(p, EPSILON, 1 - EPSILON)


# -- the models -------------------------------------------------------------------------------


@dataclass(frozen=True)
class HeldOut:
    """A click model's fit to a log: the mean log-likelihood per session (natural log), the
    perplexity at each position (``perplexity_at[r - 1]``) and their mean, ``perplexity``."""

    model: str
    sessions: int
    log_likelihood: float
    perplexity: float
    perplexity_at: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        """Every field, JSON-ready (the perplexity at each position as a list)."""
        return {
            "model": self.model, "sessions": self.sessions,
            "log_likelihood": self.log_likelihood, "perplexity": self.perplexity,
            "perplexity_at": self.perplexity_at.tolist(),
        }  # fmt: skip

    def records(self) -> list[dict[str, Any]]:
        """One row per position (1-based): the model and its perplexity there."""
        return [
            {"model": self.model, "position": r, "perplexity": p}
            for r, p in enumerate(self.perplexity_at.tolist(), start=1)
        ]

    def to_frame(self, output: str = "pandas") -> Any:
        """`records` as a DataFrame (pandas, polars) or a dict of columns."""
        return records_frame(self.records(), ("model", "position", "perplexity"), output)


@dataclass(frozen=True, eq=False)
class ClickModel:
    """What every click model has: its attractiveness parameters, and how it was fitted
    (``iterations`` of EM, 0 for a closed form or a model built by hand; ``trace``: the
    mean training log-likelihood per session after each iteration)."""

    name: ClassVar[str] = ""
    attractiveness: PairParameters
    iterations: int = field(default=0, kw_only=True)
    converged: bool = field(default=True, kw_only=True)
    trace: tuple[float, ...] = field(default=(), kw_only=True)

    # -- what each model defines -------------------------------------------------------------

    @property
    def max_depth(self) -> int | None:
        """The longest ranking the model has parameters for (None: any)."""
        return None

    def _satisfaction(self, pair: np.ndarray) -> np.ndarray | None:
        return None

    def _full(self, alpha: np.ndarray, sigma: np.ndarray | None) -> np.ndarray:
        """(S, K) unconditional click probabilities ``P(C_r = 1)``."""
        raise NotImplementedError

    def _conditional(
        self, alpha: np.ndarray, sigma: np.ndarray | None, cells: _Cells
    ) -> np.ndarray:
        """(S, K) click probabilities given the clicks above: ``P(C_r = 1 | C_<r)``."""
        raise NotImplementedError

    def _sample(
        self, alpha: np.ndarray, sigma: np.ndarray | None, rng: np.random.Generator
    ) -> np.ndarray:
        """(S, K) clicks drawn from the model."""
        raise NotImplementedError

    def _position_parameters(self) -> dict[str, Any]:
        return {}

    # -- shared --------------------------------------------------------------------------------

    def _params(self, log: ImpressionLog) -> tuple[_Cells, np.ndarray, np.ndarray | None]:
        key = log.query.astype(np.int64) * max(len(log.docs), 1) + log.doc
        distinct, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        index = self.attractiveness.lookup(
            log.queries.strings_of(log.query[first]), log.docs.strings_of(log.doc[first])
        )
        cells = _cells(log, index[inverse.reshape(-1)])
        self._check_depth(cells.pair.shape[1])
        alpha = np.where(cells.shown, self.attractiveness.of(cells.pair), 0.0)
        sigma = self._satisfaction(cells.pair)
        if sigma is not None:
            sigma = np.where(cells.shown, sigma, 0.0)
        return cells, alpha, sigma

    def _check_depth(self, depth: int) -> None:
        if self.max_depth is not None and depth > self.max_depth:
            raise UsageError(
                f"the {self.name.upper()} model has examination parameters for {self.max_depth} "
                f"positions, and the ranking has {depth}"
            )

    def click_probabilities(self, query: str, docs: Sequence[str]) -> np.ndarray:
        """``P(C_r = 1)`` at each position of the ranking ``docs`` shown for ``query``."""
        self._check_depth(len(docs))
        index = self.attractiveness.lookup([query] * len(docs), list(docs))
        alpha = self.attractiveness.of(index)[None, :]
        sigma = self._satisfaction(index[None, :])
        return self._full(alpha, sigma)[0]

    def log_likelihood(self, log: ImpressionLog) -> float:
        """The mean log-likelihood per session of ``log`` (natural log)."""
        cells, alpha, sigma = self._params(log)
        return _log_likelihood(self._conditional(alpha, sigma, cells), cells)

    def evaluate(self, log: ImpressionLog) -> HeldOut:
        """Log-likelihood and perplexity (per position and mean) of a (held-out) log."""
        cells, alpha, sigma = self._params(log)
        ll = _log_likelihood(self._conditional(alpha, sigma, cells), cells)
        q = _clip(self._full(alpha, sigma))
        c = cells.clicked
        with np.errstate(invalid="ignore", divide="ignore"):
            bits = np.where(c, np.log2(q), np.log2(1 - q))
        bits = np.where(cells.shown, bits, 0.0)
        shown = cells.shown.sum(axis=0)
        at = 2.0 ** (-bits.sum(axis=0) / np.maximum(shown, 1))
        return HeldOut(self.name, int(len(cells.length)), ll, float(at.mean()), at)

    def sample(
        self, query: str, docs: Sequence[str], sessions: int, rng: np.random.Generator
    ) -> np.ndarray:
        """bool (sessions, len(docs)): clicks drawn from the model on one ranking."""
        self._check_depth(len(docs))
        index = self.attractiveness.lookup([query] * len(docs), list(docs))
        alpha = np.broadcast_to(self.attractiveness.of(index), (sessions, len(docs)))
        sigma = self._satisfaction(np.broadcast_to(index, (sessions, len(docs))))
        return self._sample(np.array(alpha), sigma, rng)

    def to_dict(self) -> dict[str, Any]:
        """The parameters as plain values (what ``rankscope clicks fit -o`` writes)."""
        out: dict[str, Any] = {
            "model": self.name, "iterations": self.iterations, "converged": self.converged,
            "trace": list(self.trace),
        }  # fmt: skip
        out.update(self._position_parameters())
        out["attractiveness"] = self.attractiveness.to_dict()
        return out


def _log_likelihood(conditional: np.ndarray, cells: _Cells) -> float:
    p = _clip(conditional)
    logs = np.where(cells.clicked, np.log(p), np.log1p(-p))
    return float(np.where(cells.shown, logs, 0.0).sum() / max(len(cells.length), 1))


def _em_attractiveness(
    queries: list[str], docs: list[str], alpha: np.ndarray, impressions: np.ndarray
) -> PairParameters:
    """The attractiveness EM found for each (query, document) pair, its evidence the pair's
    impressions, and the impression-weighted mean as the default of an unseen pair."""
    return PairParameters(
        queries, docs, alpha, impressions.astype(np.int64),
        float(np.average(alpha, weights=impressions)),
    )  # fmt: skip


def _em_loop(model_step, initial, max_iter: int, tol: float):
    """Run ``model_step(params) -> (new params, log-likelihood of params)`` until the
    log-likelihood improves by less than ``tol``."""
    if max_iter < 1:
        raise UsageError(f"max_iter must be 1 or more (got {max_iter})")
    if not tol > 0:
        raise UsageError(f"tol must be a positive number (got {tol})")
    params, trace, converged = initial, [], False
    for _ in range(max_iter):
        new, ll = model_step(params)
        trace.append(ll)
        params = new
        if len(trace) > 1 and trace[-1] - trace[-2] < tol:
            converged = True
            break
    return params, tuple(trace), converged


def _em_posteriors(
    a: np.ndarray, g: np.ndarray, cells: _Cells
) -> tuple[float, np.ndarray, np.ndarray]:
    """The E step of the examination models (PBM, UBM) for attractiveness ``a`` and
    examination ``g`` per cell: the log-likelihood, and each cell's posterior of being
    attractive and of being examined (1 for a clicked cell)."""
    p = a * g
    ll = _log_likelihood(p, cells)
    c = cells.clicked
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = np.where(1 - p > 0, 1 - p, 1.0)
        post_a = np.where(c, 1.0, a * (1 - g) / rest)
        post_e = np.where(c, 1.0, g * (1 - a) / rest)
    return ll, post_a, post_e


def _fitted_by_em(cls, step, start, max_iter: int, tol: float, queries, docs, impressions):
    """A model of examination ``gamma`` and attractiveness ``alpha`` (PBM, UBM) fitted by
    `_em_loop` from ``start = (alpha, gamma)``, with its iterations and likelihood trace."""
    (alpha, gamma), trace, converged = _em_loop(step, start, max_iter, tol)
    attractiveness = _em_attractiveness(queries, docs, alpha, impressions)
    return cls(attractiveness, examination=gamma, iterations=len(trace),
               converged=converged, trace=trace)  # fmt: skip


# PBM ----------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PBM(ClickModel):
    """Position-based model: ``P(C_r = 1) = α_{q d_r} · γ_r``."""

    name: ClassVar[str] = "pbm"
    examination: np.ndarray = field(default_factory=lambda: np.ones(0))  # γ_r, (K,)

    @property
    def max_depth(self) -> int | None:
        return len(self.examination)

    @property
    def propensities(self) -> np.ndarray:
        """``γ_r / γ_1``: examination relative to the first position (identified by a log)."""
        return self.examination / self.examination[0]

    def _full(self, alpha, sigma):
        return alpha * self.examination[None, : alpha.shape[1]]

    def _conditional(self, alpha, sigma, cells):
        return self._full(alpha, sigma)

    def _sample(self, alpha, sigma, rng):
        return rng.random(alpha.shape) < self._full(alpha, sigma)

    def _position_parameters(self):
        return {"examination": self.examination.tolist()}

    @classmethod
    def fit(cls, log: ImpressionLog, *, max_iter: int = 200, tol: float = 1e-6) -> PBM:
        """EM (Chuklin et al. 2015 §4.2): with ``a = α``, ``g = γ_r`` of an unclicked cell,
        ``P(A = 1 | C = 0) = a(1 - g)/(1 - ag)`` and ``P(E = 1 | C = 0) = g(1 - a)/(1 - ag)``;
        ``α`` is the mean over the pair's impressions and ``γ_r`` over the sessions showing
        ``r`` of these posteriors (1 for a clicked cell)."""
        cells, queries, docs = _training_pairs(log)
        n, k = len(queries), cells.pair.shape[1]
        shown = cells.shown
        impressions = _per_pair(cells, shown, np.ones(shown.shape), n)
        per_position = shown.sum(axis=0)

        def step(params):
            alpha_p, gamma = params
            a = np.where(shown, alpha_p[np.maximum(cells.pair, 0)], 0.0)
            g = np.broadcast_to(gamma, a.shape)
            ll, post_a, post_e = _em_posteriors(a, g, cells)
            new_alpha = _per_pair(cells, shown, post_a, n) / impressions
            new_gamma = np.where(shown, post_e, 0.0).sum(axis=0) / np.maximum(per_position, 1)
            return (new_alpha, new_gamma), ll

        start = (np.full(n, INITIAL), np.full(k, INITIAL))
        return _fitted_by_em(cls, step, start, max_iter, tol, queries, docs, impressions)


# CM -----------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CM(ClickModel):
    """Cascade model: ``P(C_r = 1) = α_{q d_r} Π_{j<r} (1 - α_{q d_j})``."""

    name: ClassVar[str] = "cm"

    def _full(self, alpha, sigma):
        reach = np.cumprod(np.hstack([np.ones((len(alpha), 1)), 1 - alpha[:, :-1]]), axis=1)
        return alpha * reach

    def _conditional(self, alpha, sigma, cells):
        clicked_above = cells.previous_click > 0
        return np.where(clicked_above, 0.0, alpha)

    def _sample(self, alpha, sigma, rng):
        out = np.zeros(alpha.shape, dtype=bool)
        looking = np.ones(len(alpha), dtype=bool)
        for i in range(alpha.shape[1]):
            out[:, i] = looking & (rng.random(len(alpha)) < alpha[:, i])
            looking &= ~out[:, i]
        return out

    @classmethod
    def fit(cls, log: ImpressionLog) -> CM:
        """Closed form: ``α_qd`` = first clicks on the pair / its examinations, a position
        examined when it is at or above the session's first click (every position of a
        session without a click)."""
        cells, queries, docs = _training_pairs(log)
        n, k = len(queries), cells.pair.shape[1]
        first = cells.first_click
        ranks = np.arange(1, k + 1)[None, :]
        examined = cells.shown & ((first[:, None] == 0) | (ranks <= first[:, None]))
        clicks = _per_pair(cells, examined & cells.clicked, np.ones(examined.shape), n)
        views = _per_pair(cells, examined, np.ones(examined.shape), n)
        default = float(clicks.sum() / views.sum())
        attractiveness = PairParameters(
            queries, docs, _ratio(clicks, views, default), views.astype(np.int64), default
        )
        return cls(attractiveness)


# UBM ----------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class UBM(ClickModel):
    """User browsing model: ``P(C_r = 1 | last click above at r') = α_{q d_r} · γ_{r r'}``."""

    name: ClassVar[str] = "ubm"
    #: γ[r - 1, r'] for r' = 0 (no click above) .. r - 1; (K, K), zero above the diagonal
    examination: np.ndarray = field(default_factory=lambda: np.ones((0, 0)))

    @property
    def max_depth(self) -> int | None:
        return len(self.examination)

    def _full(self, alpha, sigma):
        s, k = alpha.shape
        last = np.zeros((s, k + 1))  # P(the last click so far is at j), j = 0 (none) .. k
        last[:, 0] = 1.0
        out = np.zeros((s, k))
        for i in range(k):
            p = alpha[:, i : i + 1] * self.examination[i, : i + 1][None, :]  # (S, i + 1)
            joint = last[:, : i + 1] * p
            out[:, i] = joint.sum(axis=1)
            last[:, : i + 1] -= joint
            last[:, i + 1] = out[:, i]
        return out

    def _conditional(self, alpha, sigma, cells):
        k = alpha.shape[1]
        rows = np.broadcast_to(np.arange(k), alpha.shape)
        return alpha * self.examination[rows, cells.previous_click]

    def _sample(self, alpha, sigma, rng):
        s, k = alpha.shape
        out = np.zeros((s, k), dtype=bool)
        last = np.zeros(s, dtype=np.int64)
        for i in range(k):
            out[:, i] = rng.random(s) < alpha[:, i] * self.examination[i, last]
            last = np.where(out[:, i], i + 1, last)
        return out

    def _position_parameters(self):
        k = len(self.examination)
        return {"examination": [self.examination[i, : i + 1].tolist() for i in range(k)]}

    @classmethod
    def fit(cls, log: ImpressionLog, *, max_iter: int = 200, tol: float = 1e-6) -> UBM:
        """EM as PBM's, with the examination of a cell indexed by its position and the
        position of the last click above it (Chuklin et al. 2015 §4.2)."""
        cells, queries, docs = _training_pairs(log)
        n, k = len(queries), cells.pair.shape[1]
        shown = cells.shown
        impressions = _per_pair(cells, shown, np.ones(shown.shape), n)
        slot = np.arange(k)[None, :] * k + cells.previous_click  # γ's flat index per cell
        per_slot = np.bincount(slot[shown], minlength=k * k)

        def step(params):
            alpha_p, gamma = params
            a = np.where(shown, alpha_p[np.maximum(cells.pair, 0)], 0.0)
            g = gamma.reshape(-1)[slot]
            ll, post_a, post_e = _em_posteriors(a, g, cells)
            new_alpha = _per_pair(cells, shown, post_a, n) / impressions
            sums = np.bincount(slot[shown], weights=post_e[shown], minlength=k * k)
            new_gamma = np.where(per_slot > 0, sums / np.maximum(per_slot, 1), INITIAL)
            return (new_alpha, np.tril(new_gamma.reshape(k, k))), ll

        start = (np.full(n, INITIAL), np.tril(np.full((k, k), INITIAL)))
        return _fitted_by_em(cls, step, start, max_iter, tol, queries, docs, impressions)


# DBN and SDBN -------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class DBN(ClickModel):
    """Dynamic Bayesian network: ``P(C_r = 1) = α_{q d_r} ε_r`` with ``ε_1 = 1`` and
    ``ε_{r+1} = ε_r γ (1 - α_{q d_r} σ_{q d_r})``."""

    name: ClassVar[str] = "dbn"
    satisfaction: PairParameters = field(
        default_factory=lambda: PairParameters([], [], np.zeros(0), np.zeros(0, np.int64), 0.0)
    )
    continuation: float = 1.0  # γ

    def _satisfaction(self, pair):
        # satisfaction is listed for the pairs of `attractiveness`, in the same order
        return self.satisfaction.of(pair)

    def _full(self, alpha, sigma):
        out = np.empty(alpha.shape)
        reach = np.ones(len(alpha))
        for i in range(alpha.shape[1]):
            out[:, i] = alpha[:, i] * reach
            reach = reach * self.continuation * (1 - alpha[:, i] * sigma[:, i])
        return out

    def _conditional(self, alpha, sigma, cells):
        out = np.empty(alpha.shape)
        reach = np.ones(len(alpha))  # P(E_r = 1 | clicks above)
        g = self.continuation
        for i in range(alpha.shape[1]):
            a = alpha[:, i]
            out[:, i] = a * reach
            with np.errstate(invalid="ignore", divide="ignore"):
                unclicked = g * reach * (1 - a) / np.where(1 - a * reach > 0, 1 - a * reach, 1)
            reach = np.where(cells.clicked[:, i], g * (1 - sigma[:, i]), unclicked)
        return out

    def _sample(self, alpha, sigma, rng):
        s, k = alpha.shape
        out = np.zeros((s, k), dtype=bool)
        looking = np.ones(s, dtype=bool)
        for i in range(k):
            out[:, i] = looking & (rng.random(s) < alpha[:, i])
            satisfied = out[:, i] & (rng.random(s) < sigma[:, i])
            looking &= ~satisfied & (rng.random(s) < self.continuation)
        return out

    def _position_parameters(self):
        return {"continuation": self.continuation, "satisfaction": self.satisfaction.to_dict()}

    @classmethod
    def fit(cls, log: ImpressionLog, *, max_iter: int = 200, tol: float = 1e-6) -> DBN:
        """EM with the exact posteriors of the examination chain given the clicks.  With
        ``l`` the last click, every position down to ``l`` was examined and the user was not
        satisfied at a click above ``l``; below ``l``, with ``Q(r) = (1 - γ) + γ(1 - α_r)Q(r+1)``
        (``Q(n+1) = 1``) the probability of no click from ``r`` on, the session's tail has
        probability ``Z = σ_l + (1 - σ_l) Q(l+1)`` (``(1 - α_1) Q(2)`` without a click),
        ``P(S_l = 1 | clicks) = σ_l / Z``, and ``P(E_r = 1 | clicks) = f_r (1 - α_r) Q(r+1) / Z``
        for ``r > l`` with ``f_{l+1} = (1 - σ_l) γ`` (1 for ``r = 1`` without a click) and
        ``f_{r+1} = f_r (1 - α_r) γ``.  α is the mean posterior attractiveness over the pair's
        impressions (``α_r (1 - P(E_r = 1 | clicks))`` below the last click), σ the mean
        posterior satisfaction over its clicks, γ the expected continuations over the
        expected decisions to continue."""
        cells, queries, docs = _training_pairs(log)
        n, k = len(queries), cells.pair.shape[1]
        shown, c = cells.shown, cells.clicked
        s_count = len(cells.length)
        last = cells.last_click
        ranks = np.arange(1, k + 1)[None, :]
        length = cells.length[:, None]
        impressions = _per_pair(cells, shown, np.ones(shown.shape), n)
        clicks = _per_pair(cells, shown & c, np.ones(shown.shape), n)
        rows = np.arange(s_count)
        at_last = np.maximum(last - 1, 0)

        def step(params):
            alpha_p, sigma_p, g = params
            a = np.where(shown, alpha_p[np.maximum(cells.pair, 0)], 0.0)
            s = np.where(shown, sigma_p[np.maximum(cells.pair, 0)], 0.0)
            q = np.ones((s_count, k + 1))  # q[:, j] = Q(j + 1)
            for j in range(k - 1, -1, -1):
                q[:, j] = (1 - g) + g * (1 - a[:, j]) * q[:, j + 1]
            sigma_l = np.where(last > 0, s[rows, at_last], 0.0)
            z = np.where(
                last > 0, sigma_l + (1 - sigma_l) * q[rows, np.minimum(last, k)],
                (1 - a[:, 0]) * q[:, 1],
            )  # fmt: skip
            # the log-likelihood: the clicks down to l, the continuations above l, the tail
            above = shown & (ranks <= last[:, None])
            head = np.where(above, np.where(c, np.log(_clip(a)), np.log(_clip(1 - a))), 0.0)
            cont = shown & (ranks < last[:, None])
            moves = np.where(cont, np.log(_clip(g * np.where(c, 1 - s, 1.0))), 0.0)
            ll = float((head.sum() + moves.sum() + np.log(_clip(z)).sum()) / s_count)
            # P(E_r = 1 | clicks)
            exam = np.where(ranks <= last[:, None], 1.0, 0.0)
            fwd = np.zeros(s_count)
            for j in range(k):
                r = j + 1
                fwd = np.where(r == last + 1, np.where(last > 0, (1 - sigma_l) * g, 1.0), fwd)
                below = (r > last) & (r <= cells.length)
                with np.errstate(invalid="ignore", divide="ignore"):
                    e = fwd * (1 - a[:, j]) * q[:, j + 1] / np.where(z > 0, z, 1)
                exam[:, j] = np.where(below, e, exam[:, j])
                fwd = fwd * (1 - a[:, j]) * g
            post_a = np.where(c, 1.0, np.where(ranks > last[:, None], a * (1 - exam), 0.0))
            with np.errstate(invalid="ignore", divide="ignore"):
                satisfied = np.where(z > 0, sigma_l / np.where(z > 0, z, 1), 0.0)
            post_s = np.where(c & (ranks == last[:, None]), satisfied[:, None], 0.0)
            # decisions to go on from r (r < n) and continuations (examined r + 1)
            decide = shown & (ranks < length)
            not_satisfied = np.where(
                ranks == last[:, None], (1 - satisfied)[:, None], exam
            )  # fmt: skip
            decisions = np.where(decide, not_satisfied, 0.0).sum()
            nxt = np.hstack([exam[:, 1:], np.zeros((s_count, 1))])
            continued = np.where(decide, nxt, 0.0).sum()
            new_alpha = _per_pair(cells, shown, post_a, n) / impressions
            post_sigma = _per_pair(cells, shown & c, post_s, n)
            new_sigma = _ratio(post_sigma, clicks, INITIAL)
            new_g = float(continued / decisions) if decisions > 0 else g
            return (new_alpha, new_sigma, new_g), ll

        start = (np.full(n, INITIAL), np.full(n, INITIAL), INITIAL)
        (alpha, sigma, gamma), trace, converged = _em_loop(step, start, max_iter, tol)
        return cls._built(queries, docs, alpha, impressions, sigma, clicks, gamma,
                          iterations=len(trace), converged=converged, trace=trace)  # fmt: skip

    @classmethod
    def _built(cls, queries, docs, alpha, impressions, sigma, clicks, gamma, **fit):
        attractiveness = _em_attractiveness(queries, docs, alpha, impressions)
        clicked = clicks > 0
        default = float(np.average(sigma, weights=clicks)) if clicked.any() else INITIAL
        sigma = np.where(clicked, sigma, default)
        satisfaction = PairParameters(queries, docs, sigma, clicks.astype(np.int64), default)
        return cls(attractiveness, satisfaction=satisfaction, continuation=float(gamma), **fit)


@dataclass(frozen=True, eq=False)
class SDBN(DBN):
    """Simplified DBN: a DBN with ``γ = 1``, fitted in closed form."""

    name: ClassVar[str] = "sdbn"

    @classmethod
    def fit(cls, log: ImpressionLog, **_: Any) -> SDBN:
        """Closed form (Chuklin et al. 2015 §4.1): positions down to the session's last
        click are examined (all, without a click); ``α_qd`` = clicks / examinations,
        ``σ_qd`` = (times the pair's click was the session's last) / clicks."""
        cells, queries, docs = _training_pairs(log)
        n, k = len(queries), cells.pair.shape[1]
        last = cells.last_click
        ranks = np.arange(1, k + 1)[None, :]
        examined = cells.shown & ((last[:, None] == 0) | (ranks <= last[:, None]))
        ones = np.ones(examined.shape)
        clicks = _per_pair(cells, examined & cells.clicked, ones, n)
        views = _per_pair(cells, examined, ones, n)
        lasts = _per_pair(cells, cells.clicked & (ranks == last[:, None]), ones, n)
        default = float(clicks.sum() / views.sum())
        attractiveness = PairParameters(
            queries, docs, _ratio(clicks, views, default), views.astype(np.int64), default
        )
        sigma_default = float(lasts.sum() / clicks.sum()) if clicks.sum() else INITIAL
        satisfaction = PairParameters(
            queries, docs, _ratio(lasts, clicks, sigma_default), clicks.astype(np.int64),
            sigma_default,
        )  # fmt: skip
        return cls(attractiveness, satisfaction=satisfaction, continuation=1.0)


#: The click models by name.
MODELS: dict[str, type[ClickModel]] = {"pbm": PBM, "cm": CM, "ubm": UBM, "dbn": DBN, "sdbn": SDBN}


def model_class(name: str) -> type[ClickModel]:
    """The click model class named ``name`` (``pbm``, ``cm``, ``ubm``, ``dbn``, ``sdbn``)."""
    try:
        return MODELS[name.lower()]
    except (KeyError, AttributeError):
        raise UsageError(f"unknown click model {name!r}: choose {', '.join(MODELS)}") from None


def fit(
    log: ImpressionLog, model: str = "pbm", *, max_iter: int = 200, tol: float = 1e-6
) -> ClickModel:
    """A click model fitted to a click log (`rankscope.read.impressions.read_impressions`
    reads one; the log is checked by `check_click_log`).

    ``model``: ``pbm``, ``ubm`` or ``dbn`` (EM: ``max_iter`` iterations at most, stopping when
    the mean log-likelihood per session gains less than ``tol``), ``cm`` or ``sdbn`` (closed
    form).  Formulas, initial values and defaults: this module's docstring and each class's
    ``fit``.

    >>> import rankscope.clicks as clicks
    >>> log = clicks.read_impressions(                   # doctest: +SKIP
    ...     "clicks.tsv", require=clicks.CLICK_ROLES, binary=True)
    >>> model = clicks.fit(log, model="pbm")             # doctest: +SKIP
    >>> model.propensities                               # doctest: +SKIP
    """
    cls: Any = model_class(model)  # (each class's fit takes its own options)
    fitted = cls.fit(log) if cls in (CM, SDBN) else cls.fit(log, max_iter=max_iter, tol=tol)
    if not np.any(log.click):
        warn(
            f"{log.source} has no clicks: a {cls.name} model fitted to it learns only that "
            "nothing is clicked (every attractiveness 0; its other parameters rest on no "
            "evidence)"
        )
    return fitted


def from_dict(data: Mapping[str, Any], source: str = "<click model>") -> ClickModel:
    """A click model from the parameters `ClickModel.to_dict` wrote."""
    if not isinstance(data, Mapping) or "model" not in data:
        raise InputError(f"{source}: not a click model's parameters (no 'model' key)")
    cls = model_class(str(data["model"]))
    if "attractiveness" not in data:
        raise InputError(f"{source}: no 'attractiveness' parameters")
    alpha = PairParameters.from_dict(data["attractiveness"], source)
    try:
        if cls is PBM:
            gamma = np.asarray(data["examination"], dtype=np.float64)
            _check_probabilities(gamma, source, "examination")
            return PBM(alpha, examination=gamma)
        if cls is UBM:
            rows = data["examination"]
            k = len(rows)
            gamma = np.zeros((k, k))
            for i, row in enumerate(rows):
                if len(row) != i + 1:
                    raise InputError(f"{source}: UBM examination row {i + 1} needs {i + 1} values")
                gamma[i, : i + 1] = row
            _check_probabilities(gamma.reshape(-1), source, "examination")
            return UBM(alpha, examination=gamma)
        if cls in (DBN, SDBN):
            sigma = PairParameters.from_dict(data["satisfaction"], source)
            if sigma.query_ids != alpha.query_ids or sigma.doc_ids != alpha.doc_ids:
                raise InputError(f"{source}: satisfaction must list the attractiveness pairs")
            g = float(data.get("continuation", 1.0))
            _check_probabilities(np.asarray([g]), source, "continuation")
            return cls(alpha, satisfaction=sigma, continuation=g)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"{source}: malformed {cls.name} parameters ({exc!r})") from None
    return CM(alpha)
