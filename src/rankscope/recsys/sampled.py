"""Sampled evaluation: each relevant test item ranked among N sampled negatives, as RecBole's
``uni100`` / ``pop100`` protocols do, with the corrections of Krichene & Rendle (KDD 2020).

Input: a system's scores for every item of the catalog — a `ScoreMatrix` (users × items; a
``(user_ids, item_ids, matrix)`` triple or a pandas DataFrame indexed by user with one column
per item are accepted too), or a ``{name: scores}`` dict of several systems scoring the same
items.  A higher score ranks an item higher.  From the scores both rankings follow:

* the **full rank** r of a relevant test item (the *target*) among the user's candidates: the
  target and every catalog item the user has not interacted with in the training or the
  test data (its *negatives*), n = negatives + 1;
* the **sampled rank** r̃ among the target and N negatives drawn for it (``uniform``: each
  negative alike; ``popularity``: in proportion to the number of training users of the
  item), without replacement, from ``numpy.random.default_rng(seed)``.  The same negatives
  serve every system.

Ties: a negative with the target's score ranks above it (``tie_breaking="pessimistic"``, default:
a system never gains from a tie, a constant scorer gets the worst rank) or below it
(``"optimistic"``).

Measures of one target at rank r (one relevant item per ranking): ``HR@k`` = 1[r ≤ k];
``nDCG@k`` = 1[r ≤ k] / log2(r + 1); ``MRR`` = 1/r (``MRR@k``: 0 beyond k); ``AUC`` =
(n − r)/(n − 1), the share of negatives ranked below the target.  Estimators of the full
value M(r) from r̃ (m = the number of negatives drawn):

* ``full``: M(r), the exact value (no sampling);
* ``sampled``: M(r̃) on the list of m + 1 items (AUC: (m + 1 − r̃)/m), what RecBole reports;
* ``minimal-bias`` and ``bv``: Krichene & Rendle's corrected metrics M̂(r̃), see
  `corrected_metric`.

Every summary is the mean over the targets (the paper's average).  See docs/recsys.md,
"Sampled evaluation", for the formulas and the warning about the bias.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, Unpack

import numpy as np

from ..errors import InputError, UsageError, shown, warn
from ..model import Interactions, Run, Vocabulary
from ..model.frames import is_frame, records_frame, to_frame
from ..read.interactions import keep_latest, read_interactions

ESTIMATORS = ("full", "sampled", "minimal-bias", "bv")
SAMPLING = ("uniform", "popularity")
DEFAULT_MEASURES = ("HR@10", "nDCG@10", "MRR", "AUC")
_MEASURE = re.compile(r"^(HR|HitRate|Recall|nDCG|NDCG|MRR|RR|AUC)(?:@(\d+))?$")
_CANONICAL = {"HR": "HR", "HitRate": "HR", "Recall": "HR", "nDCG": "nDCG", "NDCG": "nDCG",
              "MRR": "MRR", "RR": "MRR", "AUC": "AUC"}  # fmt: skip


@dataclass(frozen=True)
class ScoreMatrix:
    """One system's scores: ``values[i, j]`` for user ``users[i]`` and item ``items[j]``."""

    users: list[str]
    items: list[str]
    values: np.ndarray

    @classmethod
    def of(cls, source: Any, name: str) -> ScoreMatrix:
        """A `ScoreMatrix` from itself, a ``(users, items, values)`` triple, a DataFrame
        (index: users, columns: items) or scores read as a `Run` (`from_run`); every score a
        number, NaN refused."""
        if isinstance(source, Run):
            return cls.from_run(source, name)
        if isinstance(source, ScoreMatrix):
            users, items, values = source.users, source.items, source.values
        elif isinstance(source, tuple) and len(source) == 3:
            users, items, values = source
        elif is_frame(source) and hasattr(source, "index"):
            users, items, values = list(source.index), list(source.columns), source.to_numpy()
        else:
            raise UsageError(
                f"{name}: scores must be a ScoreMatrix, a (user_ids, item_ids, matrix) triple "
                f"or a pandas DataFrame (users × items), not {type(source).__name__}"
            )
        users, items = [str(u) for u in users], [str(i) for i in items]
        try:
            matrix = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError(f"{name}: the scores are not all numbers") from None
        if matrix.shape != (len(users), len(items)):
            raise InputError(
                f"{name}: the score matrix is {matrix.shape[0] if matrix.ndim else 0} × "
                f"{matrix.shape[1] if matrix.ndim > 1 else 0}, but {len(users)} users and "
                f"{len(items)} items are named"
            )
        for what, ids in (("user", users), ("item", items)):
            twice = [i for i, count in Counter(ids).items() if count > 1]
            if twice:
                raise InputError(f"{name}: {what} {twice[0]!r} has two rows/columns of scores")
        bad = np.isnan(matrix)
        if bad.any():
            i, j = (int(x[0]) for x in np.nonzero(bad))
            raise InputError(f"{name}: the score of user {users[i]!r}, item {items[j]!r} is NaN")
        return cls(users, items, matrix)


    @classmethod
    def from_run(cls, run: Run, name: str) -> ScoreMatrix:
        """The scores of ``user item score`` rows (`rankscope.recsys.read_recommendations`)
        as a matrix over the users and the items they name.  A (user, item) pair without a
        row scores minus infinity, below every scored item (a system that does not score a
        user's training items, say), told in one warning."""
        user_codes, user_row = np.unique(run.query, return_inverse=True)
        item_codes, item_col = np.unique(run.doc, return_inverse=True)
        values = np.full((len(user_codes), len(item_codes)), -np.inf)
        values[user_row.reshape(-1), item_col.reshape(-1)] = run.score
        unscored = values.size - len(run)
        if unscored:
            warn(
                f"{name}: {unscored} of the {values.size} (user, item) scores of its "
                f"{len(user_codes)} users and {len(item_codes)} items are missing; they rank "
                "below every scored item"
            )
        return cls(run.queries.strings_of(user_codes), run.docs.strings_of(item_codes), values)


@dataclass(frozen=True)
class SampledResult:
    """One system's sampled evaluation: one entry per target (user, relevant test item).

    ``candidates`` is n (the target and its negatives), ``negatives`` m (those drawn).
    """

    name: str
    users: list[str]
    items: list[str]
    candidates: np.ndarray
    negatives: np.ndarray
    full_rank: np.ndarray
    sampled_rank: np.ndarray
    gamma: float = 0.1

    def values(self, measure: str, estimator: str = "sampled") -> np.ndarray:
        """The per-target values of ``measure`` by ``estimator`` (see the module)."""
        name, k = parse_measure(measure)
        if estimator not in ESTIMATORS:
            raise UsageError(f"unknown estimator {estimator!r}: one of {', '.join(ESTIMATORS)}")
        if estimator == "full":
            return metric(name, k, self.full_rank, self.candidates)
        if estimator == "sampled":
            return metric(name, k, self.sampled_rank, self.negatives + 1)
        out = np.empty(len(self.full_rank))
        gamma = 0.0 if estimator == "minimal-bias" else self.gamma
        pairs = np.stack([self.candidates, self.negatives], axis=1)
        for n, m in np.unique(pairs, axis=0).tolist():
            at = (self.candidates == n) & (self.negatives == m)
            out[at] = _correction(measure, n, m, gamma)[self.sampled_rank[at] - 1]
        return out

    def mean(self, measure: str, estimator: str = "sampled") -> float:
        """The mean over the targets (NaN without targets)."""
        values = self.values(measure, estimator)
        return float(values.mean()) if len(values) else float("nan")

    def records(self) -> list[dict[str, Any]]:
        """One row per target: run, user, item, candidates (n), negatives (m), full_rank
        and sampled_rank."""
        return [
            {"run": self.name, "user": user, "item": item, "candidates": n, "negatives": m,
             "full_rank": full, "sampled_rank": sampled}
            for user, item, n, m, full, sampled in zip(
                self.users, self.items, self.candidates.tolist(), self.negatives.tolist(),
                self.full_rank.tolist(), self.sampled_rank.tolist(), strict=True,
            )
        ]  # fmt: skip

    def to_frame(self, output: str = "pandas") -> Any:
        """`records` as a DataFrame (pandas, polars) or a dict of columns."""
        return records_frame(self.records(), _TARGET_COLUMNS, output)

    def to_dict(self) -> dict[str, Any]:
        """The system's name, the correction's gamma and the targets (JSON-ready)."""
        return {"run": self.name, "gamma": self.gamma, "targets": self.records()}


#: The columns of `SampledResult.records`.
_TARGET_COLUMNS = (
    "run", "user", "item", "candidates", "negatives", "full_rank", "sampled_rank",
)  # fmt: skip


def parse_measure(measure: str) -> tuple[str, int | None]:
    """(canonical name, cutoff) of ``HR@k``, ``nDCG@k``, ``MRR``, ``MRR@k`` or ``AUC``
    (``HitRate``, ``Recall``, ``NDCG``, ``RR`` understood; HR and nDCG need their ``@k``)."""
    found = _MEASURE.match(measure.strip())
    if not found:
        raise UsageError(f"unknown sampled measure {measure!r}: HR@k, nDCG@k, MRR, MRR@k or AUC")
    name, k = _CANONICAL[found.group(1)], found.group(2)
    if name in ("HR", "nDCG") and k is None:
        raise UsageError(f"{measure!r} needs a cutoff: {name}@10, say")
    if name == "AUC" and k is not None:
        raise UsageError(f"AUC takes no cutoff (got {measure!r})")
    if k is not None and int(k) < 1:
        raise UsageError(f"the cutoff of {measure!r} must be >= 1")
    return name, None if k is None else int(k)


def metric(name: str, k: int | None, ranks: np.ndarray, size: np.ndarray | int) -> np.ndarray:
    """M(r) for ranks r (1-based) of one relevant item in lists of ``size`` items."""
    r = np.asarray(ranks, dtype=np.float64)
    inside = np.ones(r.shape, dtype=bool) if k is None else r <= k
    if name == "HR":
        return inside.astype(np.float64)
    if name == "nDCG":
        return np.where(inside, 1.0 / np.log2(r + 1.0), 0.0)
    if name == "MRR":
        return np.where(inside, 1.0 / r, 0.0)
    n = np.broadcast_to(np.asarray(size, dtype=np.float64), r.shape)
    with np.errstate(invalid="ignore", divide="ignore"):  # n = 1: nothing to rank against
        return np.where(n > 1, (n - r) / (n - 1.0), 1.0)


def sampled_rank_distribution(n: int, m: int) -> np.ndarray:
    """P(r̃ = s | r): row r − 1, column s − 1, for a target at full rank r among ``n``
    candidates and ``m`` of its n − 1 negatives drawn uniformly without replacement.

    r̃ − 1 counts the drawn negatives ranked above the target: r − 1 of the n − 1 negatives
    are, so r̃ − 1 is hypergeometric, P(r̃ = s | r) = C(r−1, s−1) C(n−r, m−s+1) / C(n−1, m).
    (Krichene & Rendle draw with replacement, a binomial B(m, (r−1)/(n−1)); without
    replacement, as RecBole and this module sample, r̃ = r exactly when m = n − 1.)
    """
    from scipy.special import gammaln

    if n < 1 or not 0 <= m <= n - 1:
        raise UsageError(f"need n >= 1 candidates and 0 <= m <= n - 1 negatives (n={n}, m={m})")
    r = np.arange(1, n + 1, dtype=np.float64)[:, None]
    s = np.arange(1, m + 2, dtype=np.float64)[None, :]
    above, below = r - 1, n - r
    take_above, take_below = s - 1, m - s + 1
    valid = (take_above <= above) & (take_below <= below)

    def log_choose(a, b):
        return gammaln(a + 1) - gammaln(b + 1) - gammaln(np.maximum(a - b, 0) + 1)

    with np.errstate(invalid="ignore"):
        log_p = (
            log_choose(above, np.minimum(take_above, above))
            + log_choose(below, np.minimum(take_below, below))
            - log_choose(float(n - 1), float(m))
        )
    return np.where(valid, np.exp(log_p), 0.0)


def corrected_metric(
    measure: str, n: int, m: int, *, gamma: float = 0.1, prior: np.ndarray | None = None
) -> np.ndarray:
    """Krichene & Rendle's corrected metric: the value M̂(s) to report for sampled rank s =
    1..m + 1 (an array of m + 1 values) so that, over the full ranks r = 1..n weighted by
    ``prior`` p(r) (default uniform, as in the paper),

        Σ_r p(r) [ (E[M̂(r̃) | r] − M(r))² + γ · Var[M̂(r̃) | r] ]

    is smallest (Krichene & Rendle, "On Sampled Metrics for Item Recommendation", KDD 2020,
    §5: γ = 0 the minimal-bias estimator, 0 < γ the bias–variance trade-off "BV γ", γ = 1
    the posterior mean Σ_r p(r | s) M(r)).  With P(s | r) from `sampled_rank_distribution`,
    A = D^½ P, b = D^½ M, D = diag(p) and c_s = Σ_r p(r) P(s | r):

        M̂ = ((1 − γ) AᵀA + γ diag(c))⁻¹ Aᵀ b,

    For γ = 0 the problem is a least-squares fit of ``b`` by ``A`` whose columns are nearly
    dependent: its unconstrained solution swings over many orders of magnitude (the
    oscillation of the paper's Figure 4, here made worse by rounding), so rankscope bounds
    each M̂(s) to the metric's range, min_r M(r) ≤ M̂(s) ≤ max_r M(r) (bounded-variable least
    squares, ``scipy.optimize.lsq_linear(method="bvls")``).  With m = n − 1 (every negative
    drawn) r̃ = r and M̂ = M for every γ.  A sampled rank s that no full rank can give
    (c_s = 0, possible only with a ``prior`` that is 0 somewhere) gets the value of the
    nearest rank that can.
    """
    name, k = parse_measure(measure)
    if not 0.0 <= gamma <= 1.0:
        raise UsageError(f"gamma must lie in [0, 1] (got {shown(gamma)})")
    table = sampled_rank_distribution(n, m)
    if prior is None:
        weights = np.full(n, 1.0 / n)
    else:
        weights = np.asarray(prior, dtype=np.float64)
        if weights.shape != (n,) or (weights < 0).any() or not weights.sum() > 0:
            raise UsageError(f"prior must be {n} non-negative weights, not all 0")
        weights = weights / weights.sum()
    target = metric(name, k, np.arange(1, n + 1), n)
    root = np.sqrt(weights)[:, None]
    a, b = root * table, root[:, 0] * target
    reach = weights @ table
    if gamma == 0.0:
        from scipy.optimize import lsq_linear

        bounds = (float(target.min()), float(target.max()))
        if bounds[0] == bounds[1]:  # a constant metric (n = 1, say) is its own estimate
            return np.full(m + 1, bounds[0])
        solution = lsq_linear(a, b, bounds=bounds, method="bvls").x
    else:
        lhs = (1.0 - gamma) * (a.T @ a) + gamma * np.diag(reach)
        usable = reach > 0
        solution = np.zeros(m + 1)
        solution[usable] = np.linalg.solve(lhs[np.ix_(usable, usable)], (a.T @ b)[usable])
    if not (reach > 0).all():
        usable = np.flatnonzero(reach > 0)
        nearest = usable[np.abs(np.arange(m + 1)[:, None] - usable[None, :]).argmin(axis=1)]
        solution = solution[nearest]
    return solution


@functools.lru_cache(maxsize=4096)
def _correction(measure: str, n: int, m: int, gamma: float) -> np.ndarray:
    """`corrected_metric` with the uniform prior, computed once per (measure, n, m, γ) (the
    users of a log share few candidate counts, the systems all of them); read-only."""
    values = corrected_metric(measure, n, m, gamma=gamma)
    values.setflags(write=False)
    return values


class SampledOptions(TypedDict, total=False):
    """The options of `sampled_evaluate_systems`, which `sampled_evaluate` takes too."""

    train: Any
    negatives: int
    sampling: str
    seed: int
    threshold: float | None
    tie_breaking: str
    gamma: float
    columns: Mapping[str, str] | None


def sampled_evaluate_systems(
    test_log: Any,
    scores: Any,
    *,
    train: Any = None,
    negatives: int = 100,
    sampling: str = "uniform",
    seed: int = 0,
    threshold: float | None = 4.0,
    tie_breaking: str = "pessimistic",
    gamma: float = 0.1,
    columns: Mapping[str, str] | None = None,
) -> list[SampledResult]:
    """The sampled ranks of every target for each system; see `sampled_evaluate`."""
    if isinstance(negatives, bool) or not isinstance(negatives, int | np.integer) or negatives < 1:
        raise UsageError(f"negatives must be an integer >= 1 (got {shown(negatives)})")
    if sampling not in SAMPLING:
        raise UsageError(f"sampling must be 'uniform' or 'popularity', not {sampling!r}")
    if tie_breaking not in ("pessimistic", "optimistic"):
        raise UsageError(
            f"tie_breaking must be 'pessimistic' or 'optimistic', not {tie_breaking!r}"
        )
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise UsageError(f"seed must be an integer >= 0 (got {seed!r})")
    if not 0.0 <= gamma <= 1.0:
        raise UsageError(f"gamma must lie in [0, 1] (got {shown(gamma)})")
    if sampling == "popularity" and train is None:
        raise UsageError(
            "sampling='popularity' needs the training interactions (train=...)",
            cli="--sampling popularity needs the training interactions (--train FILE)",
        )
    systems = _systems(scores)
    users, items = Vocabulary(), Vocabulary()
    test_log = keep_latest(read_interactions(test_log, users=users, items=items, columns=columns))
    train_log = None
    if train is not None:
        train_log = keep_latest(read_interactions(train, users=users, items=items, columns=columns))
    catalog = sorted(systems[0][1].items)
    for name, matrix in systems[1:]:
        if sorted(matrix.items) != catalog:
            raise UsageError(
                f"{name} scores other items than {systems[0][0]}: every system must score "
                "the same catalog (the negatives are drawn once, for all of them)"
            )
    catalog_codes = items.intern_many(catalog).astype(np.int64)
    in_catalog = np.zeros(len(items), dtype=bool)
    in_catalog[catalog_codes] = True
    targets = _targets(test_log, threshold, in_catalog, systems)
    seen = _seen_items(test_log, train_log, len(items))
    popularity = None
    if sampling == "popularity" and train_log is not None:
        popularity = train_log.popularity(len(items)).astype(np.float64)
    rng = np.random.default_rng(int(seed))
    # per user (sorted ids), its targets (sorted ids), negatives and the draws for each target
    plan = []
    for user in sorted(targets):
        code = users.code(user)
        negative_codes = catalog_codes[~np.isin(catalog_codes, seen.get(code, ()))]
        draws = [
            _draw(rng, negative_codes, negatives, popularity) for _ in targets[user]
        ]  # fmt: skip
        plan.append((user, targets[user], negative_codes, draws))
    results = []
    for name, matrix in systems:
        row = {u: i for i, u in enumerate(matrix.users)}
        column = np.full(len(items), -1, dtype=np.int64)
        column[items.intern_many(matrix.items)] = np.arange(len(matrix.items))
        out: dict[str, list] = {"user": [], "item": [], "n": [], "m": [], "full": [], "sampled": []}
        for user, target_ids, negative_codes, draws in plan:
            s = matrix.values[row[user]]
            negative_scores = s[column[negative_codes]]
            for item, drawn in zip(target_ids, draws, strict=True):
                target_score = s[column[items.code(item)]]
                out["user"].append(user)
                out["item"].append(item)
                out["n"].append(len(negative_codes) + 1)
                out["m"].append(len(drawn))
                out["full"].append(1 + _above(negative_scores, target_score, tie_breaking))
                out["sampled"].append(1 + _above(s[column[drawn]], target_score, tie_breaking))
        results.append(
            SampledResult(
                name,
                out["user"],
                out["item"],
                np.array(out["n"], dtype=np.int64),
                np.array(out["m"], dtype=np.int64),
                np.array(out["full"], dtype=np.int64),
                np.array(out["sampled"], dtype=np.int64),
                gamma,
            )  # fmt: skip
        )
    return results


def sampled_evaluate(
    test_log: Any,
    scores: Any,
    measures: str | Sequence[str] = DEFAULT_MEASURES,
    *,
    estimators: str | Sequence[str] = ESTIMATORS,
    output: str = "pandas",
    **options: Unpack[SampledOptions],
) -> Any:
    """Sampled evaluation (RecBole's ``uni100`` / ``pop100``) with Krichene & Rendle's
    corrected estimators, beside the full-ranking value it estimates.

    Each relevant test item of a user (rating >= ``threshold``; every test interaction
    when ``threshold`` is None or the log has no ratings) is a target.  Its negatives are
    the catalog items (those the systems score) the user has not interacted with in
    ``train`` or ``test_log``; ``negatives`` of them (default 100; all when the user has fewer)
    are drawn for the target, ``uniform``-ly or in proportion to ``popularity`` (training
    users per item; items no training user has are drawn only when the others run out),
    without replacement, from ``numpy.random.default_rng(seed)``, users and targets in id
    order: the same seed gives the same negatives, for every system.  The target's rank
    among them gives the ``sampled`` values, its rank among all its negatives the ``full``
    ones, and `corrected_metric` the ``minimal-bias`` and ``bv`` (``gamma``, default 0.1)
    estimates of the full values from the sampled ranks.  The corrections assume uniform
    sampling; under popularity sampling they are reported but do not estimate the full
    metric.

    Parameters
    ----------
    test_log, train:
        Interaction logs, anything `rankscope.recsys.read_interactions` reads.
    scores:
        A `ScoreMatrix`, a ``(user_ids, item_ids, matrix)`` triple, a pandas DataFrame
        (users × items), or a ``{name: ...}`` dict of them scoring the same items.  Higher
        scores rank higher; ``tie_breaking="pessimistic"`` (default) ranks a negative with the
        target's score above it, ``"optimistic"`` below.
    measures:
        ``HR@k``, ``nDCG@k``, ``MRR``, ``MRR@k``, ``AUC`` (default HR@10, nDCG@10, MRR, AUC).
    estimators:
        Any of ``full``, ``sampled``, ``minimal-bias``, ``bv`` (default all).
    output:
        ``pandas`` (default), ``polars`` or ``dict``: the columns run, measure, estimator,
        value (the mean over the targets), targets (their number).

    Test users or targets the systems do not score are left out, with a warning.

    Examples
    --------
    >>> from rankscope import recsys
    >>> test = {"u": {"a": 5}}
    >>> scores = (["u"], ["a", "b", "c", "d"], [[0.9, 1.0, 0.1, 0.2]])
    >>> table = recsys.sampled_evaluate(test, scores, ["HR@1", "MRR"], negatives=3,
    ...                                 estimators=["full", "sampled"], output="dict")
    >>> table["value"]   # every negative drawn: the sampled rank is the full rank, 2
    [0.0, 0.0, 0.5, 0.5]
    """
    specs = [measures] if isinstance(measures, str) else list(measures)
    chosen = [estimators] if isinstance(estimators, str) else list(estimators)
    for spec in specs:
        parse_measure(spec)
    for estimator in chosen:
        if estimator not in ESTIMATORS:
            raise UsageError(f"unknown estimator {estimator!r}: one of {', '.join(ESTIMATORS)}")
    results = sampled_evaluate_systems(test_log, scores, **options)
    table: dict[str, list] = {"run": [], "measure": [], "estimator": [], "value": [], "targets": []}
    for result in results:
        for spec in specs:
            for estimator in chosen:
                table["run"].append(result.name)
                table["measure"].append(spec)
                table["estimator"].append(estimator)
                table["value"].append(result.mean(spec, estimator))
                table["targets"].append(len(result.full_rank))
    return to_frame(table, output)


def _systems(scores: Any) -> list[tuple[str, ScoreMatrix]]:
    if isinstance(scores, Mapping):
        if not scores:
            raise UsageError("no systems: the scores dict is empty")
        return [(str(name), ScoreMatrix.of(value, str(name))) for name, value in scores.items()]
    return [("system", ScoreMatrix.of(scores, "system"))]


def _targets(
    test_log: Interactions, threshold: float | None, in_catalog: np.ndarray,
    systems: list[tuple[str, ScoreMatrix]],
) -> dict[str, list[str]]:  # fmt: skip
    """{user: its target item ids, sorted} for the users every system scores."""
    relevant = np.ones(len(test_log), dtype=bool)
    if test_log.rating is not None and threshold is not None:
        relevant = test_log.rating >= threshold
    outside = relevant & ~in_catalog[test_log.item]
    if outside.any():
        example = test_log.items.strings[int(test_log.item[np.flatnonzero(outside)[0]])]
        warn(
            f"{int(outside.sum())} relevant test items are not scored by the systems (such "
            f"as {example!r}); left out"
        )
    keep = relevant & ~outside
    scored = set.intersection(*(set(m.users) for _, m in systems))
    by_user: dict[str, list[str]] = {}
    users = test_log.users.strings_of(test_log.user[keep])
    items = test_log.items.strings_of(test_log.item[keep])
    for user, item in zip(users, items, strict=True):
        by_user.setdefault(user, []).append(item)
    missing = sorted(u for u in by_user if u not in scored)
    if missing:
        warn(
            f"{len(missing)} test users with relevant items are not scored by every system "
            f"(such as {missing[0]!r}); left out"
        )
    targets = {u: sorted(items) for u, items in by_user.items() if u in scored}
    if not targets:
        raise InputError(
            f"{test_log.source}: no relevant test item to rank (rating >= {threshold}) "
            "that the systems score"
        )
    return targets


def _seen_items(
    test_log: Interactions, train_log: Interactions | None, num_items: int
) -> dict[int, np.ndarray]:
    """{user code: the item codes of its test and training interactions}."""
    users = [test_log.user]
    items = [test_log.item]
    if train_log is not None:
        users.append(train_log.user)
        items.append(train_log.item)
    key = np.unique(np.concatenate(users).astype(np.int64) * num_items + np.concatenate(items))
    user, item = key // num_items, key % num_items
    cuts = np.flatnonzero(np.diff(user)) + 1
    return {int(u[0]): i for u, i in zip(np.split(user, cuts), np.split(item, cuts), strict=True)}


def _draw(
    rng: np.random.Generator, pool: np.ndarray, count: int, popularity: np.ndarray | None
) -> np.ndarray:
    """``count`` distinct items of ``pool`` (all of them when it is smaller), uniformly or in
    proportion to ``popularity``; items of popularity 0 only once the others run out."""
    if len(pool) <= count:
        return pool
    if popularity is None:
        return rng.choice(pool, size=count, replace=False)
    weights = popularity[pool]
    positive = pool[weights > 0]
    if len(positive) <= count:
        rest = rng.choice(pool[weights <= 0], size=count - len(positive), replace=False)
        return np.concatenate([positive, rest])
    return rng.choice(pool, size=count, replace=False, p=weights / weights.sum())


def _above(negative_scores: np.ndarray, target: float, tie_breaking: str) -> int:
    if tie_breaking == "pessimistic":
        return int((negative_scores >= target).sum())
    return int((negative_scores > target).sum())
