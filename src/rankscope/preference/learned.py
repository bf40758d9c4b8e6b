"""Pseudo-population weights p(i) (and p(i, λ)) learned from labelled preferences.

Diaz & Ferraro (SIGIR 2022, §7) suggest learning RPP's weights over recall levels from
labelled preferences between rankings: editorial side-by-side judgments, interleaving
outcomes, or a metric's own preferences.  This module fits them.

The weights
-----------
Recall levels are grouped into bins by ``edges`` (default 1, 2, 3, 4, 8, 16, 32, 64: the bins
{1}, {2}, {3}, {4}, 5–8, 9–16, 17–32, 33–64 and 65+, the last open-ended, so that the weights
apply to queries with any number of relevant documents).  Each bin b (and, with
``graded=True``, each grade threshold λ) has one per-level weight w_{b,λ} > 0, and the
learned RPP of ranking π over π' on a query is

    RPP_w(π, π') = Σ_λ Σ_{i=1..m_λ} w_{b(i),λ} sgn(f'_{i,λ} − f_{i,λ}) / Σ_λ Σ_{i=1..m_λ} w_{b(i),λ}

that is, RPP (eq. 5) with p(i, λ) ∝ w_{b(i),λ}, normalised over the query's m_λ levels of each
grade λ present.  Binary (the default) uses the one threshold ``level``.  Uniform weights give
RPP (and, graded, gRPP) exactly; dcgRPP and invRPP are close to step functions of these bins.

The model
---------
The weights are a softmax, w = softmax(θ) over the cells (b, λ) (so they sum to 1: their scale
does not change RPP), and a labelled pair (π, π', y), y ∈ {−1, 0, +1}, is modelled as

    P(y = +1) = σ(β · RPP_w(π, π')),  β ∈ (0, 100]

fitted by minimising the mean cross-entropy with target t = (y + 1)/2 (a tie, t = 1/2, asks for
RPP near 0) plus (α/2)·‖θ‖², with L-BFGS-B.  The penalty pulls θ to 0, the uniform weights:
with little evidence, learned RPP is RPP.  α is chosen by k-fold cross-validation over
queries (``folds``, shuffled with ``seed``): the α in ``alphas`` with the lowest held-out
cross-entropy (ties go to the larger α), then the weights are refitted on every query.
Agreement is the share of labelled pairs whose label equals RPP's sign (|RPP| ≤ 1e-12 counts
as 0, a tie).  `assess` measures it on held-out queries (an outer cross-validation around
the inner one), against uniform, dcg and inverse weights.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..atomic import write_atomically
from ..errors import InputError, UsageError, warn
from ..judge import RelevanceTable
from ..model.frames import records_frame
from ..read.pairs import LabelledPairs, PairsLike, read_pairs
from ..read.trec import read_bytes, source_name
from ..stats.meta import discriminative_power
from .methods import Method
from .rpp import Weights, _clip, graded_rpp, graded_sums, rpp

#: Upper edges of the recall-level bins: {1}, {2}, {3}, {4}, 5–8, 9–16, 17–32, 33–64, 65+.
DEFAULT_EDGES: tuple[int, ...] = (1, 2, 3, 4, 8, 16, 32, 64)
#: The L2 penalties cross-validation chooses from.
DEFAULT_ALPHAS: tuple[float, ...] = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0)
#: The largest scale β of the logistic model (separable labels would send it to infinity).
BETA_MAX = 100.0
#: |RPP| at most this counts as a tie when comparing RPP's sign with a label.
TIE = 1e-12
#: The baseline weightings `assess` compares with.
BASELINES = ("uniform", "dcg", "inverse")
_FORMAT = "rankscope learned RPP weights"


@dataclass(frozen=True)
class CrossValidation:
    """One penalty's cross-validation: mean held-out cross-entropy and agreement."""

    alpha: float
    loss: float
    agreement: float


@dataclass(frozen=True, eq=False)
class LearnedWeights:
    """RPP weights learned from labelled preferences (`learn_weights`).

    ``weights[b, g]`` is the per-level weight of recall-level bin b (`bins`) at grade
    threshold ``grades[g]``; they sum to 1.  ``beta`` is the fitted logistic scale, ``alpha``
    the L2 penalty cross-validation chose, ``cv`` each candidate penalty's result.
    """

    edges: tuple[int, ...]
    grades: tuple[int, ...]
    weights: np.ndarray
    beta: float
    alpha: float
    graded: bool = False
    level: int | None = None  # binary: the relevance level learned at (None: the table's)
    cv: tuple[CrossValidation, ...] = ()
    name: str = "learnedRPP"
    pairs: int = 0  # labelled pairs fitted on
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def bins(self) -> list[str]:
        """The bins' recall levels as text: ``1``, ``5-8``, ``65+``."""
        return bin_labels(self.edges)

    def level_weights(self, m: int, grade: int | None = None) -> np.ndarray:
        """The (unnormalised) weights of recall levels i = 1..m at grade threshold ``grade``
        (binary: the one threshold): a grade not learned takes the column of the largest
        learned grade below it (the smallest learned one if none is below)."""
        column = self.weights[:, self._column(grade)]
        return column[bin_of(np.arange(1, m + 1), self.edges)]

    def recall_weights(self, m: int, grade: int | None = None) -> np.ndarray:
        """p(i) for i = 1..m, normalised: usable as ``weights=`` of `rankscope.preference.rpp`."""
        w = self.level_weights(m, grade)
        return w / w.sum() if m else w

    def _column(self, grade: int | None) -> int:
        if grade is None or not self.graded:
            return 0
        below = [g for g, lam in enumerate(self.grades) if lam <= grade]
        return below[-1] if below else 0

    def preferences(self, table: RelevanceTable) -> np.ndarray:
        """P[q, a, b]: the learned RPP of every run over every other on every query."""
        if not self.graded:
            return rpp(table, weights=lambda m: self.recall_weights(m).tolist(), level=self.level)

        def level(m: int, lam: int) -> tuple[float, Weights]:
            w = self.level_weights(m, lam)
            return float(w.sum()), w.tolist()

        out = np.zeros((table.num_queries, table.num_runs, table.num_runs))
        for q, total, mass in graded_sums(table, level):
            out[q] = _clip(total / mass) if mass > 0 else total
        return out

    def method(self, name: str | None = None) -> Method:
        """These weights as a preference method (`rankscope.preferences(..., method)`,
        `rankscope.preference.compute`)."""
        bins = ", ".join(
            f"{label}: {', '.join(f'{w:.3g}' for w in row)}"
            for label, row in zip(self.bins, self.weights, strict=True)
        )
        return Method(
            name or self.name,
            lambda table: self.preferences(table),
            "RPP with learned weights: Σ_λ Σ_i w_{b(i),λ} sgn(f'_{i,λ} − f_{i,λ}) / "
            f"Σ_λ Σ_i w_{{b(i),λ}} over recall-level bins (per-level weights by bin: {bins}; "
            f"grades {list(self.grades) if self.graded else 'binary'}).\n\nUser model: "
            "the share of users wanting i relevant documents is learned from labelled "
            "preferences.",
            "Diaz & Ferraro, Offline Retrieval Evaluation Without Evaluation Metrics, SIGIR "
            "2022 (§7: learning the pseudo-population weights from labelled preferences).",
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description (what `save` writes)."""
        return {
            "format": _FORMAT, "version": 1, "name": self.name, "edges": list(self.edges),
            "bins": self.bins, "graded": self.graded, "grades": list(self.grades),
            "level": self.level, "weights": self.weights.tolist(), "beta": self.beta,
            "alpha": self.alpha, "pairs": self.pairs,
            "cv": [vars(c) for c in self.cv],
        }  # fmt: skip

    def save(self, path: str | os.PathLike) -> None:
        """Write the weights as JSON (`load` reads them back), atomically
        (`write_atomically`)."""
        write_atomically(path, json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def from_dict(cls, data: Any, source: str = "<learned weights>") -> LearnedWeights:
        """The weights `to_dict` describes (an `InputError` naming ``source`` if malformed)."""
        try:
            if data.get("format") != _FORMAT:
                raise ValueError("not a rankscope learned-weights file")
            edges = tuple(int(e) for e in data["edges"])
            grades = tuple(int(g) for g in data["grades"])
            weights = np.asarray(data["weights"], dtype=np.float64)
            level = data.get("level")
            _check_edges(edges)
            if weights.shape != (len(edges) + 1, len(grades)) or not grades:
                raise ValueError(f"weights have shape {weights.shape}")
            if not np.all(np.isfinite(weights)) or np.any(weights <= 0):
                raise ValueError("weights must be finite and positive")
            return cls(
                edges, grades, weights / weights.sum(), float(data["beta"]),
                float(data["alpha"]), bool(data["graded"]),
                None if level is None else int(level),
                tuple(CrossValidation(**c) for c in data.get("cv", [])),
                str(data.get("name", "learnedRPP")), int(data.get("pairs", 0)),
            )  # fmt: skip
        except (AttributeError, KeyError, TypeError, ValueError, UsageError) as error:
            detail = f"missing {error}" if isinstance(error, KeyError) else str(error)
            raise InputError(f"{source}: not learned RPP weights ({detail})") from None

    @classmethod
    def load(cls, path: str | os.PathLike) -> LearnedWeights:
        """Weights written by `save` (or ``rankscope clicks learn --save``)."""
        source = source_name(path)
        try:
            data = json.loads(read_bytes(path).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise InputError(f"{source}: not JSON ({error})") from None
        return cls.from_dict(data, source)


def bin_labels(edges: Sequence[int]) -> list[str]:
    """``1``, ``2``, ``5-8``, ``65+``: the recall levels of each bin."""
    out, low = [], 1
    for e in edges:
        out.append(str(e) if e == low else f"{low}-{e}")
        low = e + 1
    return [*out, f"{low}+"]


def bin_of(levels: np.ndarray, edges: Sequence[int]) -> np.ndarray:
    """The bin of each recall level (1-based): the first edge at or above it."""
    return np.searchsorted(np.asarray(edges), levels, side="left")


def _check_edges(edges: Sequence[int]) -> None:
    if not edges or edges[0] < 1 or any(b <= a for a, b in zip(edges, edges[1:], strict=False)):
        raise UsageError(f"bin edges must be increasing positive integers, got {list(edges)}")


# -- labelled pairs on a relevance table --------------------------------------------------


@dataclass(frozen=True)
class _Pairs:
    """Labelled pairs located in a table: query, run a, run b indices and targets."""

    q: np.ndarray
    a: np.ndarray
    b: np.ndarray
    label: np.ndarray

    def take(self, rows: np.ndarray) -> _Pairs:
        return _Pairs(self.q[rows], self.a[rows], self.b[rows], self.label[rows])


def _locate(table: RelevanceTable, pairs: LabelledPairs) -> _Pairs:
    runs = {name: i for i, name in enumerate(table.run_names)}
    queries = {qid: i for i, qid in enumerate(table.query_ids)}
    unknown = sorted({r for r in pairs.run_a + pairs.run_b if r not in runs})
    if unknown:
        raise UsageError(
            f"{pairs.source}: run(s) {', '.join(map(repr, unknown[:5]))} not among the runs "
            f"({', '.join(table.run_names)})"
        )
    q = np.array([queries.get(qid, -1) for qid in pairs.query], dtype=np.int64)
    missing = int((q < 0).sum())
    if missing:
        warn(
            f"{pairs.source}: {missing} labelled pair(s) on queries without relevant documents "
            "(or not in the judgments) are left out"
        )
    keep = q >= 0
    if not keep.any():
        raise UsageError(f"{pairs.source}: no labelled pair is on a query with relevant documents")
    a = np.array([runs[r] for r in pairs.run_a], dtype=np.int64)
    b = np.array([runs[r] for r in pairs.run_b], dtype=np.int64)
    return _Pairs(q[keep], a[keep], b[keep], pairs.label[keep].astype(np.float64))


def _thresholds(table: RelevanceTable, graded: bool, level: int | None) -> tuple[int, ...]:
    if not graded:
        return (table.relevance_level if level is None else level,)
    grades = sorted({int(g) for q in range(table.num_queries) for g in table.levels(q).tolist()})
    return tuple(grades)


def _features(
    table: RelevanceTable, pairs: _Pairs, edges: tuple[int, ...], grades: tuple[int, ...],
    graded: bool,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """X[k, cell] = Σ of sgn(f_b,i − f_a,i) over the levels i of the cell's bin and grade;
    C[k, cell] = how many levels of the query fall in the cell (cell = bin · G + grade)."""
    bins, g_count = len(edges) + 1, len(grades)
    x = np.zeros((len(pairs.q), bins * g_count))
    c = np.zeros((len(pairs.q), bins * g_count))
    for q in np.unique(pairs.q).tolist():
        rows = np.flatnonzero(pairs.q == q)
        lams = table.levels(q).tolist() if graded else [grades[0]]
        for lam in lams:
            f = table.positions(q, lam)
            m = f.shape[1]
            if m == 0:
                continue
            below = [g for g, t in enumerate(grades) if t <= lam]
            g = below[-1] if below else 0
            cells = bin_of(np.arange(1, m + 1), edges) * g_count + g
            onehot = np.zeros((m, bins * g_count))
            onehot[np.arange(m), cells] = 1.0
            signs = np.sign(f[pairs.b[rows]] - f[pairs.a[rows]]).astype(np.float64)
            x[rows] += signs @ onehot
            c[rows] += onehot.sum(axis=0)
    return x, c


# -- the logistic model ---------------------------------------------------------------------


def _softmax(theta: np.ndarray) -> np.ndarray:
    e = np.exp(theta - theta.max())
    return e / e.sum()


def _value(w: np.ndarray, x: np.ndarray, c: np.ndarray) -> np.ndarray:
    d = c @ w
    return np.divide(x @ w, d, out=np.zeros(len(x)), where=d > 0)


def _loss(z: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Cross-entropy of σ(z) against targets t: t·softplus(−z) + (1 − t)·softplus(z)."""
    return t * np.logaddexp(0.0, -z) + (1.0 - t) * np.logaddexp(0.0, z)


def _fit(x: np.ndarray, c: np.ndarray, t: np.ndarray, alpha: float) -> tuple[np.ndarray, float]:
    from scipy.optimize import minimize  # scipy waits for a fit (the command line's start-up)

    cells = x.shape[1]
    n = len(t)

    def objective(params: np.ndarray) -> tuple[float, np.ndarray]:
        theta, beta = params[:cells], params[cells]
        w = _softmax(theta)
        d = c @ w
        safe = np.where(d > 0, d, 1.0)
        r = np.where(d > 0, (x @ w) / safe, 0.0)
        z = beta * r
        loss = float(_loss(z, t).mean() + 0.5 * alpha * theta @ theta)
        gz = (1.0 / (1.0 + np.exp(-z)) - t) / n
        grad_beta = float(gz @ r)
        gw = ((gz * beta / safe)[:, None] * (x - r[:, None] * c)).sum(axis=0)
        grad_theta = w * (gw - w @ gw) + alpha * theta
        return loss, np.append(grad_theta, grad_beta)

    start = np.append(np.zeros(cells), 10.0)
    bounds = [(None, None)] * cells + [(1e-6, BETA_MAX)]
    result = minimize(
        objective, start, jac=True, method="L-BFGS-B", bounds=bounds,
        options={"maxiter": 2000, "gtol": 1e-9, "ftol": 1e-13},
    )  # fmt: skip
    return _softmax(result.x[:cells]), float(result.x[cells])


def _signs(values: np.ndarray) -> np.ndarray:
    return np.where(np.abs(values) <= TIE, 0.0, np.sign(values))


def _folds(queries: np.ndarray, folds: int, seed: int) -> list[np.ndarray]:
    """The distinct queries shuffled with ``seed`` and cut into ``folds`` parts."""
    distinct = np.unique(queries)
    if folds < 2:
        raise UsageError(f"cross-validation needs at least 2 folds, got {folds}")
    if len(distinct) < folds:
        raise UsageError(
            f"{folds}-fold cross-validation over queries needs at least {folds} labelled "
            f"queries, got {len(distinct)}"
        )
    order = np.random.default_rng(seed).permutation(distinct)
    return [np.sort(part) for part in np.array_split(order, folds)]


def learn_weights(
    table: RelevanceTable,
    pairs: PairsLike,
    *,
    graded: bool = False,
    relevance_level: int | None = None,
    edges: Sequence[int] = DEFAULT_EDGES,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    folds: int = 5,
    seed: int = 0,
    name: str = "learnedRPP",
) -> LearnedWeights:
    """Learn RPP's weights over recall-level bins (and grades) from labelled preferences.

    ``table``: the runs' relevant positions (`rankscope.judge.relevance_table`); ``pairs``:
    labelled preferences ``(query, run_a, run_b, label)`` in anything `read_pairs` reads,
    naming runs of the table.  Binary RPP at ``relevance_level`` (default the table's), or
    over every grade threshold with ``graded``.  The L2 penalty is chosen from ``alphas`` by
    ``folds``-fold cross-validation over queries shuffled with ``seed`` (a single penalty
    skips it).  The module's docstring gives the model.
    """
    labelled = read_pairs(pairs)
    edges = tuple(int(e) for e in edges)
    _check_edges(edges)
    alphas = [float(a) for a in alphas]
    if not alphas or any(a < 0 or not math.isfinite(a) for a in alphas):
        raise UsageError(f"penalties must be finite and non-negative, got {alphas}")
    located = _locate(table, labelled)
    grades = _thresholds(table, graded, relevance_level)
    x, c = _features(table, located, edges, grades, graded)
    t = (located.label + 1.0) / 2.0
    cv: list[CrossValidation] = []
    if len(alphas) > 1:
        parts = _folds(located.q, folds, seed)
        for alpha in alphas:
            losses, agree = np.zeros(len(t)), np.zeros(len(t))
            for part in parts:
                test = np.isin(located.q, part)
                w, beta = _fit(x[~test], c[~test], t[~test], alpha)
                value = _value(w, x[test], c[test])
                losses[test] = _loss(beta * value, t[test])
                agree[test] = _signs(value) == located.label[test]
            cv.append(CrossValidation(alpha, float(losses.mean()), float(agree.mean())))
        best = min(cv, key=lambda r: (round(r.loss, 12), -r.alpha))
        alpha = best.alpha
    else:
        alpha = alphas[0]
    w, beta = _fit(x, c, t, alpha)
    return LearnedWeights(
        edges, grades, w.reshape(len(edges) + 1, len(grades)), beta, alpha, graded,
        None if graded else grades[0], tuple(cv), name, len(t),
    )  # fmt: skip


def agreement(prefs: np.ndarray, table: RelevanceTable, pairs: PairsLike) -> float:
    """Share of labelled pairs whose label equals the sign of ``prefs[q, a, b]`` (P from a
    preference method on ``table``; |P| ≤ 1e-12 counts as a tie)."""
    located = _locate(table, read_pairs(pairs))
    value = prefs[located.q, located.a, located.b]
    return float((_signs(value) == located.label).mean())


def pairs_from_scores(
    scores: np.ndarray,
    run_names: Sequence[str],
    query_ids: Sequence[str],
    *,
    tolerance: float = 0.0,
    source: str = "<metric preferences>",
) -> LabelledPairs:
    """Metric-defined preferences: for every query and every pair of runs a < b, the label
    sgn(score_a − score_b), 0 when they differ by at most ``tolerance``.  ``scores``: runs ×
    queries (a NaN score leaves the query's pairs with that run out)."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.shape != (len(run_names), len(query_ids)):
        raise UsageError(
            f"scores have shape {scores.shape}, not runs × queries "
            f"({len(run_names)} × {len(query_ids)})"
        )
    qs: list[str] = []
    ra: list[str] = []
    rb: list[str] = []
    labels: list[int] = []
    n = len(run_names)
    for j, qid in enumerate(query_ids):
        for a in range(n):
            for b in range(a + 1, n):
                d = scores[a, j] - scores[b, j]
                if math.isnan(d):
                    continue
                qs.append(qid)
                ra.append(run_names[a])
                rb.append(run_names[b])
                labels.append(0 if abs(d) <= tolerance else (1 if d > 0 else -1))
    return LabelledPairs(qs, ra, rb, np.asarray(labels, dtype=np.int64), source)


# -- held-out assessment -------------------------------------------------------------------


@dataclass(frozen=True)
class Assessment:
    """Learned weights against fixed ones on held-out queries (`assess`).

    ``agreement``: method → share of held-out labelled pairs agreeing with its sign (the
    learned method's for each pair is the model not trained on its query); ``power``:
    method → discriminative power (paired t-test, Bonferroni, α = 0.05) over the labelled
    queries, the learned method's preferences on each query from the model not trained on
    it; ``models``: each outer fold's learned weights; ``full``: weights learned on every
    query.
    """

    agreement: dict[str, float]
    power: dict[str, float]
    pairs: int
    queries: int
    folds: int
    models: tuple[LearnedWeights, ...]
    full: LearnedWeights

    def records(self) -> list[dict[str, Any]]:
        """One row per method: its held-out agreement and discriminative power."""
        return [
            {"method": name, "agreement": self.agreement[name], "power": self.power[name]}
            for name in self.agreement
        ]

    def to_frame(self, output: str = "pandas") -> Any:
        """`records` as a DataFrame (pandas, polars) or a dict of columns."""
        return records_frame(self.records(), ("method", "agreement", "power"), output)

    def to_dict(self) -> dict[str, Any]:
        """The held-out assessment, JSON-ready (``rankscope clicks learn``'s ``held_out``):
        folds, pairs, queries, each method's agreement and discriminative power, and the
        penalty each outer fold chose."""
        return {
            "folds": self.folds, "pairs": self.pairs, "queries": self.queries,
            "agreement": self.agreement, "discriminative_power": self.power,
            "fold_alphas": [m.alpha for m in self.models],
        }  # fmt: skip


def baseline_names(graded: bool) -> dict[str, str]:
    """The names of the fixed weightings compared with: RPP, dcgRPP, invRPP (gRPP(p=...))."""
    if graded:
        return {w: "gRPP" if w == "uniform" else f"gRPP(p={w})" for w in BASELINES}
    return {"uniform": "RPP", "dcg": "dcgRPP", "inverse": "invRPP"}


def assess(
    table: RelevanceTable,
    pairs: PairsLike,
    *,
    folds: int = 5,
    seed: int = 0,
    graded: bool = False,
    relevance_level: int | None = None,
    edges: Sequence[int] = DEFAULT_EDGES,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    inner_folds: int = 5,
    name: str = "learnedRPP",
) -> Assessment:
    """Held-out agreement and discriminative power of learned weights against uniform, dcg
    and inverse ones: queries are cut into ``folds`` (shuffled with ``seed``); on each, the
    weights are learned on the other folds (`learn_weights`, its penalty chosen by
    ``inner_folds``-fold cross-validation) and scored on it."""
    labelled = read_pairs(pairs)
    located = _locate(table, labelled)  # says which pairs are left out, once
    queries = np.array(table.query_ids, dtype=object)
    labelled = labelled.subset(np.isin(np.array(labelled.query, dtype=object), queries))
    options: dict[str, Any] = dict(
        graded=graded, relevance_level=relevance_level, edges=edges, alphas=alphas, seed=seed,
        name=name,
    )  # fmt: skip
    parts = _folds(located.q, folds, seed)
    held = np.zeros((table.num_queries, table.num_runs, table.num_runs))
    learned_value = np.zeros(len(located.q))
    models = []
    for part in parts:
        train = ~np.isin(located.q, part)
        train_pairs = labelled.subset(np.isin(labelled.query, queries[np.unique(located.q[train])]))
        inner = min(inner_folds, len(np.unique(located.q[train])))
        model = learn_weights(table, train_pairs, folds=inner, **options)
        models.append(model)
        prefs = model.preferences(table)
        held[part] = prefs[part]
        test = ~train
        learned_value[test] = prefs[located.q[test], located.a[test], located.b[test]]
    used = np.unique(located.q)
    agree = {name: float((_signs(learned_value) == located.label).mean())}
    power = {name: discriminative_power(held[used])}
    level_used = None if graded else _thresholds(table, False, relevance_level)[0]
    for weights, label in baseline_names(graded).items():
        prefs = graded_rpp(table, weights) if graded else rpp(table, weights, level_used)
        value = prefs[located.q, located.a, located.b]
        agree[label] = float((_signs(value) == located.label).mean())
        power[label] = discriminative_power(prefs[used])
    full = learn_weights(table, labelled, folds=min(inner_folds, len(used)), **options)
    return Assessment(agree, power, len(located.q), len(used), folds, tuple(models), full)
