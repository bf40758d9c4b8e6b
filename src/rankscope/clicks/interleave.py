"""Interleaving from clicks: outcomes of online interleaving experiments read from a click log.

An interleaving experiment shows, for each impression (a query issued by a user), one list
merged from two rankings a and b, records the clicks, and credits each click to a, to b or
to both; the ranking with more credited clicks wins the impression.  This module is the
online counterpart of the offline interleaving of `rankscope.preference.interleaving` (which
simulates the user from judgments) and shares its interleaving and credit code.

Methods and credit, as the papers define them (h_a, h_b: the clicks credited to a and b; the
impression's outcome is sgn(h_a − h_b): +1 a wins, −1 b wins, 0 a tie):

* ``team-draft`` (Radlinski, Kurup & Joachims 2008): each shown document was picked by one
  team; a click counts for the team that picked the document.  The log's ``team`` column.
* ``balanced`` (Joachims 2003; Chapelle, Joachims, Radlinski & Yue 2012, §3.1): with c_max
  the lowest clicked position and j = min(rank_a(I[c_max]), rank_b(I[c_max])), h_a counts
  the clicked documents among a's top j and h_b those among b's top j (a document in both
  counts for both).  Needs the two rankings of the impression's query.
* ``probabilistic`` (Hofmann, Whiteson & de Rijke 2011): each ranking is a softmax over its
  documents, P_s(d) ∝ 1/r_s(d)^τ (τ = 3); at each position a fair coin picks a ranking and
  the document is drawn from its softmax over the documents not shown yet (a ranking with
  none left yields to the other).  The outcome *with marginalisation* (their §4, the default)
  does not use the coins that were drawn: it is the expectation of sgn(h_a − h_b) over the
  assignments a_1..a_L given the shown list,

      E[o | L, clicks] = Σ_assignments P(assignments | L) · sgn(h_a − h_b),

  where, because the list's probability factorises over positions, the posterior is
  independent per position: P(a_i = a | L) = P_a(L_i | L_<i) / (P_a(L_i | L_<i) +
  P_b(L_i | L_<i)).  The expectation is computed exactly (the distribution of h_a − h_b over
  the clicked positions).  ``marginalise=False`` credits the drawn assignment (the ``team``
  column), as team draft does.  A document a ranking does not hold has probability 0 under
  it.  Outcomes then lie in [−1, 1]; an impression counts as a win when its outcome is > 0.

Totals: wins, ties, losses; the win rate wins / (wins + losses) (impressions without a
decision left out); the preference, the mean outcome over all impressions, in [−1, 1]
(Chapelle et al.'s Δ_AB = (wins + ties/2)/impressions − 1/2 is half of it for the discrete
methods); and the two-sided exact sign test of H0: P(a wins | decided) = 1/2 (`sign_test`,
ties left out).  `sign_test_power` and `impressions_needed` give the power of that test and
the impressions needed to detect a given win rate.

The uniform-p(k) variant (Diaz & Ferraro 2022, §7)
--------------------------------------------------
Diaz & Ferraro write the interleaving preference as I = E_k[sgn(ν_k(a) − ν_k(b))], where the
cutoff k is set by the position of the last click and p(k) comes from the users: skewed to
the top of the list, so that differences deeper down are under-weighted, and suggest that a
more uniform p(k) could make interleaving more sensitive.  `uniform_depth` re-weights the
impressions so that the last-click depths are uniform: with p̂(k) the share of clicked
impressions whose last click is at position k and K the set of depths observed,

    w_i = (1/|K|) / p̂(k_i),    I_u = (1/n_c) Σ_i w_i o_i = (1/|K|) Σ_{k ∈ K} ō_k,

the average over the observed depths of the mean outcome at each depth (n_c: impressions
with a click; impressions without one are ties under any p(k)).  Its test is the sign-flip
randomisation test of T = Σ w_i o_i (under H0 each outcome is as likely to be negated, given
the depths): exact by enumeration up to 16 non-zero outcomes, otherwise the normal
approximation z = T / sqrt(Σ w_i² o_i²), p = 2 Φ(−|z|).  Whether it is more sensitive than
the standard test depends on where the rankings differ: bench/interleave_sensitivity.py
measures it on simulated users (docs/clicks.md, "Interleaving from clicks").

References
----------
* T. Joachims. Evaluating retrieval performance using clickthrough data. In *Text Mining*,
  Physica/Springer, 2003.
* F. Radlinski, M. Kurup, T. Joachims. How does clickthrough data reflect retrieval
  quality? CIKM 2008.
* K. Hofmann, S. Whiteson, M. de Rijke. A probabilistic method for inferring preferences
  from click data. CIKM 2011.
* O. Chapelle, T. Joachims, F. Radlinski, Y. Yue. Large-scale validation and analysis of
  interleaved search evaluation. ACM TOIS 30(1), 2012.
* F. Diaz, A. Ferraro. Offline retrieval evaluation without evaluation metrics. SIGIR 2022.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError, UsageError
from ..judge import order_run
from ..model import Run
from ..model.frames import to_frame
from ..preference.interleaving import Interleaving, balanced, sign_test, team_draft
from ..read.fields import excerpt
from ..read.interleaved import InterleavedLog, read_interleaved_log
from ..read.sources import read_run

METHODS = ("team-draft", "balanced", "probabilistic")

#: Hofmann et al.'s softmax exponent.
TAU = 3.0

#: Up to this many non-zero outcomes the uniform-depth test enumerates every sign flip.
EXACT_FLIPS = 16

_ALIASES = {
    "team-draft": "team-draft",
    "team_draft": "team-draft",
    "teamdraft": "team-draft",
    "td": "team-draft",
    "balanced": "balanced",
    "probabilistic": "probabilistic",
    "pi": "probabilistic",
}


def _method(method: str) -> str:
    try:
        return _ALIASES[method.lower()]
    except (KeyError, AttributeError):
        raise UsageError(
            f"unknown interleaving method {method!r}: team-draft, balanced or probabilistic"
        ) from None


def _tau(tau: Any) -> float:
    if isinstance(tau, bool) or not isinstance(tau, int | float) or not math.isfinite(tau):
        raise UsageError(f"tau must be a finite number > 0, got {tau!r}")
    if tau <= 0:
        raise UsageError(f"tau must be a finite number > 0, got {tau!r}")
    return float(tau)


def _probability(value: Any, name: str, *, low: float = 0.0, high: float = 1.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise UsageError(f"{name} must be a number in ({low}, {high}), got {value!r}")
    if not low < value < high:
        raise UsageError(f"{name} must be a number in ({low}, {high}), got {value!r}")
    return float(value)


# --------------------------------------------------------------------------------------
# Rankings


Rankings = Mapping[str, Sequence[Hashable]]


def rankings_of(run: Any, *, ties: str = "docno-desc") -> dict[str, list[str]]:
    """Each query's ranking (document ids, best first) of a run: a `Run`, a TREC run file,
    a Parquet file or DataFrame (as `rankscope.read_run` reads them, ordered by score with
    the tie policy ``ties``), or a mapping ``{query: [doc, ...]}`` taken as given."""
    if isinstance(run, Mapping):
        out: dict[str, list[str]] = {}
        for query, ranking in run.items():
            if isinstance(ranking, str | bytes) or not isinstance(ranking, Sequence | np.ndarray):
                raise TypeError(f"rankings: query {query!r} needs a sequence of document ids")
            out[str(query)] = [str(d) for d in ranking]
        return out
    if not isinstance(run, Run):
        run = read_run(run)
    order = order_run(run, ties)
    queries = run.queries.strings_of(run.query[order])
    docs = run.docs.strings_of(run.doc[order])
    out = {}
    for query, doc in zip(queries, docs, strict=True):
        out.setdefault(query, []).append(doc)
    return out


# --------------------------------------------------------------------------------------
# Generating interleaved lists


@dataclass(frozen=True, eq=False)
class InterleavedList:
    """One interleaved result list: ``docs`` shown, best first, and per position ``team``,
    +1 when ranking a placed the document and −1 when b did (team draft: the picking team;
    balanced: whose turn placed it; probabilistic: the ranking the coin drew)."""

    docs: tuple[Hashable, ...]
    team: np.ndarray
    method: str

    def __len__(self) -> int:
        return len(self.docs)


def _generator(seed: Any) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, int | np.integer) and not isinstance(seed, bool)):
        return np.random.default_rng(seed)
    raise UsageError(f"seed must be an integer, a numpy Generator or None, got {seed!r}")


def _softmax_weights(ranking: Sequence[Hashable], tau: float) -> dict[Hashable, float]:
    return {doc: 1.0 / (rank**tau) for rank, doc in enumerate(ranking, start=1)}


def probabilistic_interleave(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    rng: np.random.Generator,
    *,
    tau: float = TAU,
    length: int | None = None,
) -> InterleavedList:
    """Probabilistic interleaving of rankings ``a`` and ``b`` (Hofmann et al. 2011).

    At each position a fair coin picks a ranking s (a ranking with no document left yields
    to the other) and the document is drawn with probability ∝ 1/r_s(d)^τ among s's
    documents not shown yet.  ``length``: the list's length (default |a ∪ b|).
    """
    tau = _tau(tau)
    weights_a, weights_b = _softmax_weights(a, tau), _softmax_weights(b, tau)
    left_a, left_b = list(a), list(b)
    shown: list[Hashable] = []
    teams: list[int] = []
    placed: set[Hashable] = set()
    limit = len(set(left_a) | set(left_b)) if length is None else length
    while len(shown) < limit:
        left_a = [d for d in left_a if d not in placed]
        left_b = [d for d in left_b if d not in placed]
        if not (left_a or left_b):
            break
        from_a = bool(rng.integers(0, 2)) if (left_a and left_b) else bool(left_a)
        left, weights = (left_a, weights_a) if from_a else (left_b, weights_b)
        p = np.array([weights[d] for d in left])
        doc = left[int(rng.choice(len(left), p=p / p.sum()))]
        shown.append(doc)
        teams.append(1 if from_a else -1)
        placed.add(doc)
    return InterleavedList(tuple(shown), np.array(teams, dtype=np.int8), "probabilistic")


def interleaved_list(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    *,
    method: str = "team-draft",
    seed: int | np.random.Generator | None = 0,
    length: int | None = None,
    tau: float = TAU,
) -> InterleavedList:
    """One interleaved list of rankings ``a`` and ``b`` (best first), seeded.

    ``method``: ``team-draft`` (Radlinski et al. 2008), ``balanced`` (Joachims 2003; a coin
    decides which ranking starts) or ``probabilistic`` (Hofmann et al. 2011, softmax
    exponent ``tau``).  ``length``: keep the first ``length`` documents (default all of
    a ∪ b).  The same integer seed gives the same list.

    >>> interleaved_list(["d1", "d2", "d3"], ["d2", "d1", "d4"], method="balanced", seed=1).docs
    ('d2', 'd1', 'd4', 'd3')
    """
    method = _method(method)
    if length is not None and (
        isinstance(length, bool) or not isinstance(length, int) or length < 1
    ):
        raise UsageError(f"length must be an integer >= 1, got {length!r}")
    rng = _generator(seed)
    if method == "probabilistic":
        return probabilistic_interleave(a, b, rng, tau=tau, length=length)
    made: Interleaving
    if method == "team-draft":
        made = team_draft(a, b, rng)
    else:
        made = balanced(a, b, "a" if rng.integers(0, 2) else "b")
    end = len(made.docs) if length is None else length
    return InterleavedList(made.docs[:end], made.team[:end].copy(), method)


def interleaved_lists(
    run_a: Any,
    run_b: Any,
    *,
    method: str = "team-draft",
    impressions: int = 1,
    depth: int = 10,
    seed: int | np.random.Generator | None = 0,
    tau: float = TAU,
    ties: str = "docno-desc",
    output: str = "dict",
) -> Any:
    """Interleaved lists for every query two runs share, to build an experiment (seeded).

    ``impressions`` lists per query, each of the first ``depth`` documents of an
    interleaving of the two runs' rankings (see `interleaved_list`), queries in id order.  The
    result is a table with one row per shown document, columns ``impression``
    (``query/number``), ``query``, ``position`` (1-based), ``doc`` and ``team`` (``a`` or
    ``b``) — a click log once a ``clicked`` column is added — as a dict of lists
    (``output="dict"``) or a pandas / polars DataFrame.
    """
    method = _method(method)
    for value, name in ((impressions, "impressions"), (depth, "depth")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise UsageError(f"{name} must be an integer >= 1, got {value!r}")
    rng = _generator(seed)
    first, second = rankings_of(run_a, ties=ties), rankings_of(run_b, ties=ties)
    shared = sorted(set(first) & set(second))
    if not shared:
        raise InputError("the two runs have no query in common: nothing to interleave")
    columns: dict[str, list[Any]] = {
        k: [] for k in ("impression", "query", "position", "doc", "team")
    }
    for query in shared:
        for number in range(1, impressions + 1):
            made = interleaved_list(
                first[query], second[query], method=method, seed=rng, length=depth, tau=tau
            )
            for position, (doc, team) in enumerate(zip(made.docs, made.team.tolist(), strict=True)):
                columns["impression"].append(f"{query}/{number}")
                columns["query"].append(query)
                columns["position"].append(position + 1)
                columns["doc"].append(str(doc))
                columns["team"].append("a" if team > 0 else "b")
    return to_frame(columns, output)


def write_lists(lists: Mapping[str, Sequence[Any]], path: str | os.PathLike) -> None:
    """Write `interleaved_lists`' table (``output="dict"``) as a tab-separated file with a
    header (``-``: standard output)."""
    names = list(lists)
    rows = zip(*(lists[n] for n in names), strict=True)
    text = "\t".join(names) + "\n" + "".join("\t".join(map(str, r)) + "\n" for r in rows)
    if str(path) == "-":
        import sys

        sys.stdout.write(text)
    else:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)


# --------------------------------------------------------------------------------------
# Credit on one impression


def team_draft_credit(
    team: Sequence[int] | np.ndarray, clicked: Sequence[bool] | np.ndarray
) -> tuple[int, int]:
    """(h_a, h_b) of a team-draft impression: the clicks on documents a's team picked
    (``team`` +1) and b's (−1); ``clicked``: one boolean per position.

    >>> team_draft_credit([1, -1, -1, 1], [True, False, True, True])
    (2, 1)
    """
    team, clicked = _per_position(team, clicked)
    return int(np.sum(clicked & (team > 0))), int(np.sum(clicked & (team < 0)))


def _per_position(team: Any, clicked: Any) -> tuple[np.ndarray, np.ndarray]:
    team_array = np.asarray(team, dtype=np.int64)
    clicked_array = np.asarray(clicked, dtype=bool)
    if team_array.shape != clicked_array.shape or team_array.ndim != 1:
        raise UsageError("team and clicked need one entry per position each")
    return team_array, clicked_array


def _ranks(shown: Sequence[Hashable], ranking: Sequence[Hashable]) -> np.ndarray:
    where = {doc: rank for rank, doc in enumerate(ranking, start=1)}
    return np.array([where.get(d, math.inf) for d in shown], dtype=np.float64)


def balanced_credit(
    shown: Sequence[Hashable],
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    clicked: Sequence[bool] | np.ndarray,
) -> tuple[int, int]:
    """(h_a, h_b) of a balanced-interleaving impression (Chapelle et al. 2012, §3.1): with
    c_max the lowest click and j = min(rank_a, rank_b) of the document there, the clicked
    documents among a's top j and among b's top j.

    >>> balanced_credit(["d1", "d2", "d3"], ["d1", "d3"], ["d2", "d3"], [False, True, True])
    (1, 2)
    """
    clicked_array = np.asarray(clicked, dtype=bool)
    if clicked_array.shape != (len(shown),):
        raise UsageError("clicked needs one entry per shown position")
    rank_a, rank_b = _ranks(shown, a), _ranks(shown, b)
    made = Interleaving(tuple(shown), np.zeros(len(shown), np.int8), rank_a, rank_b, "balanced")
    return made.credit(clicked_array)


def assignment_posteriors(
    shown: Sequence[Hashable], a: Sequence[Hashable], b: Sequence[Hashable], *, tau: float = TAU
) -> np.ndarray:
    """P(a_i = a | L) per position of a probabilistic-interleaving list L (Hofmann et al.
    2011): P_a(L_i | L_<i) / (P_a(L_i | L_<i) + P_b(L_i | L_<i)), with P_s the softmax
    ∝ 1/r_s^τ over s's documents not shown before position i.  `InputError` when a shown
    document is in neither ranking.
    """
    tau = _tau(tau)
    weights_a, weights_b = _softmax_weights(a, tau), _softmax_weights(b, tau)
    left_a, left_b = math.fsum(weights_a.values()), math.fsum(weights_b.values())
    out = np.empty(len(shown))
    for i, doc in enumerate(shown):
        w_a, w_b = weights_a.get(doc, 0.0), weights_b.get(doc, 0.0)
        p_a = w_a / left_a if w_a > 0 else 0.0
        p_b = w_b / left_b if w_b > 0 else 0.0
        if p_a + p_b == 0:
            raise InputError(
                f"document {excerpt(str(doc))} at position {i + 1} is in neither ranking"
            )
        out[i] = p_a / (p_a + p_b)
        left_a -= w_a
        left_b -= w_b
    return out


def probabilistic_outcome(
    shown: Sequence[Hashable],
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    clicked: Sequence[bool] | np.ndarray,
    *,
    tau: float = TAU,
) -> float:
    """E[sgn(h_a − h_b) | L, clicks] of a probabilistic-interleaving impression, the
    assignments marginalised out (Hofmann et al. 2011, §4): exact, over the independent
    per-position posteriors of `assignment_posteriors`.

    >>> round(probabilistic_outcome(["d1", "d2"], ["d1", "d2"], ["d2", "d1"], [True, False]), 4)
    0.7778
    """
    clicked_array = np.asarray(clicked, dtype=bool)
    if clicked_array.shape != (len(shown),):
        raise UsageError("clicked needs one entry per shown position")
    posterior = assignment_posteriors(shown, a, b, tau=tau)[clicked_array]
    return _expected_sign(posterior)


def _expected_sign(posterior: np.ndarray) -> float:
    """E[sgn(Σ X_i)] for independent X_i = +1 with probability posterior[i], else −1."""
    n = posterior.size
    if n == 0:
        return 0.0
    distribution = np.zeros(2 * n + 1)  # index d + n for a difference d
    distribution[n] = 1.0
    for q in posterior.tolist():
        moved = np.zeros_like(distribution)
        moved[1:] += q * distribution[:-1]
        moved[:-1] += (1.0 - q) * distribution[1:]
        distribution = moved
    value = float(distribution[n + 1 :].sum() - distribution[:n].sum())
    return min(1.0, max(-1.0, value))


# --------------------------------------------------------------------------------------
# Outcomes of a log


@dataclass(frozen=True, eq=False)
class InterleavingOutcomes:
    """The outcome of an online interleaving experiment, per impression and in total.

    Per impression (in order of first appearance in the log): ``impressions`` (ids),
    ``queries`` (None without a query column), ``outcome`` (sgn(h_a − h_b); probabilistic
    with marginalisation: its expectation, in [−1, 1]), ``credit_a``/``credit_b`` (h_a, h_b;
    expected for marginalised probabilistic) and ``last_click`` (1-based position of the
    lowest click, 0 without a click).  Totals: ``wins``/``ties``/``losses`` (outcome > 0,
    = 0, < 0), ``win_rate`` = wins / (wins + losses) (NaN without a decided impression),
    ``preference`` = mean outcome, ``p_value``: the two-sided exact sign test.
    """

    method: str
    impressions: tuple[str, ...]
    queries: tuple[str, ...] | None
    outcome: np.ndarray = field(repr=False)
    credit_a: np.ndarray = field(repr=False)
    credit_b: np.ndarray = field(repr=False)
    last_click: np.ndarray = field(repr=False)
    wins: int = 0
    ties: int = 0
    losses: int = 0
    preference: float = 0.0
    win_rate: float = math.nan
    p_value: float = 1.0

    def __len__(self) -> int:
        return len(self.impressions)

    def to_frame(self, output: str = "pandas") -> Any:
        """One row per impression: impression, query (if known), credit_a, credit_b,
        last_click, outcome."""
        columns: dict[str, Any] = {"impression": list(self.impressions)}
        if self.queries is not None:
            columns["query"] = list(self.queries)
        columns.update(
            credit_a=self.credit_a.tolist(), credit_b=self.credit_b.tolist(),
            last_click=self.last_click.tolist(), outcome=self.outcome.tolist(),
        )  # fmt: skip
        return to_frame(columns, output)


def _group(log: InterleavedLog) -> list[np.ndarray]:
    """Row indices of each impression, in order of first appearance, sorted by position."""
    members: dict[str, list[int]] = {}
    for i, key in enumerate(log.impression):
        members.setdefault(key, []).append(i)
    out = []
    for rows in members.values():
        index = np.array(rows, dtype=np.int64)
        out.append(index[np.argsort(log.position[index], kind="stable")])
    return out


def _totals(method: str, log: InterleavedLog, groups, outcome, credit_a, credit_b, last):
    outcome = np.asarray(outcome, dtype=np.float64)
    wins, losses = int(np.sum(outcome > 0)), int(np.sum(outcome < 0))
    decided = wins + losses
    return InterleavingOutcomes(
        method=method,
        impressions=tuple(log.impression[int(g[0])] for g in groups),
        queries=None if log.query is None else tuple(log.query[int(g[0])] for g in groups),
        outcome=outcome,
        credit_a=np.asarray(credit_a, dtype=np.float64),
        credit_b=np.asarray(credit_b, dtype=np.float64),
        last_click=np.asarray(last, dtype=np.int64),
        wins=wins,
        ties=outcome.size - decided,
        losses=losses,
        preference=float(outcome.mean()),
        win_rate=wins / decided if decided else math.nan,
        p_value=sign_test(wins, losses),
    )


def interleaving_outcomes(
    log: Any,
    *,
    method: str = "team-draft",
    a: Any = None,
    b: Any = None,
    marginalise: bool = True,
    tau: float = TAU,
    ties: str = "docno-desc",
) -> InterleavingOutcomes:
    """Score an online interleaving experiment from a click log of interleaved lists.

    ``log``: a click log (`rankscope.read.interleaved`: a file, a Parquet file or a
    DataFrame with columns impression, position, doc, clicked, and team and query as the
    method needs).  ``method``: ``team-draft`` (credit by the ``team`` column),
    ``balanced`` (credit by the two rankings: ``a`` and ``b`` are runs or ``{query:
    [doc, ...]}`` mappings, see `rankings_of`, looked up by the ``query`` column) or
    ``probabilistic`` (marginalised over the assignments with ``a``, ``b`` and ``tau``;
    ``marginalise=False``: credit by the ``team`` column).  See the module documentation
    for the credit rules and the totals.
    """
    method = _method(method)
    log = read_interleaved_log(log)
    groups = _group(log)
    needs_rankings = method == "balanced" or (method == "probabilistic" and marginalise)
    first = second = None
    if needs_rankings:
        if a is None or b is None:
            raise UsageError(f"{method} interleaving needs the two rankings (a= and b=, --a/--b)")
        if log.query is None:
            raise InputError(f"{log.source}: no query column, needed to look up the rankings")
        first, second = rankings_of(a, ties=ties), rankings_of(b, ties=ties)
        tau = _tau(tau)
    elif log.team is None:
        raise InputError(
            f"{log.source}: no team column: {method} credit needs the team (a or b) of each "
            "shown document"
        )
    outcome: list[float] = []
    credit_a: list[float] = []
    credit_b: list[float] = []
    last: list[int] = []
    for rows in groups:
        clicked = log.clicked[rows]
        clicked_at = np.flatnonzero(clicked)
        last.append(int(clicked_at[-1]) + 1 if clicked_at.size else 0)
        if not needs_rankings:
            assert log.team is not None
            if not log.team[rows].all():
                row = int(rows[np.flatnonzero(log.team[rows] == 0)[0]])
                raise InputError(f"{log.where[row]}: team is missing ({method} credit needs it)")
            h_a, h_b = team_draft_credit(log.team[rows], clicked)
            credit_a.append(h_a)
            credit_b.append(h_b)
            outcome.append((h_a > h_b) - (h_a < h_b))
            continue
        assert first is not None and second is not None and log.query is not None
        query = log.query[int(rows[0])]
        if query not in first or query not in second:
            side = "a" if query not in first else "b"
            raise InputError(
                f"{log.where[int(rows[0])]}: query {excerpt(query)} has no ranking in {side}"
            )
        shown = [log.doc[int(i)] for i in rows]
        ranking_a, ranking_b = first[query], second[query]
        try:
            if method == "balanced":
                missing = set(shown) - set(ranking_a) - set(ranking_b)
                if missing:
                    doc = next(d for d in shown if d in missing)
                    raise InputError(f"document {excerpt(doc)} is in neither ranking")
                h_a, h_b = balanced_credit(shown, ranking_a, ranking_b, clicked)
                credit_a.append(h_a)
                credit_b.append(h_b)
                outcome.append((h_a > h_b) - (h_a < h_b))
            else:
                posterior = assignment_posteriors(shown, ranking_a, ranking_b, tau=tau)
                credit_a.append(float(posterior[clicked].sum()))
                credit_b.append(float((1 - posterior[clicked]).sum()))
                outcome.append(_expected_sign(posterior[clicked]))
        except InputError as error:
            raise InputError(
                f"{log.where[int(rows[0])]}: impression {excerpt(log.impression[int(rows[0])])} "
                f"(query {excerpt(query)}): {error}"
            ) from None
    return _totals(method, log, groups, outcome, credit_a, credit_b, last)


# --------------------------------------------------------------------------------------
# The uniform-p(k) variant


@dataclass(frozen=True, eq=False)
class UniformDepth:
    """The uniform-p(k) re-weighting of an experiment (see the module documentation).

    ``weight``: per impression w_i = (1/|K|)/p̂(k_i) (0 for impressions without a click);
    ``depths``: the observed last-click depths K; ``preference``: I_u = (1/|K|) Σ_k ō_k;
    ``statistic``: T = Σ w_i o_i; ``z``: T / sqrt(Σ w_i² o_i²) (0 when every outcome is 0);
    ``p_value``: the two-sided sign-flip test of T (exact up to `EXACT_FLIPS` non-zero
    outcomes, normal approximation beyond); ``exact``: whether it was exact.
    """

    weight: np.ndarray = field(repr=False)
    depths: tuple[int, ...]
    preference: float
    statistic: float
    z: float
    p_value: float
    exact: bool


def uniform_depth(outcomes: InterleavingOutcomes) -> UniformDepth:
    """The uniform-p(k) variant of an interleaving experiment's preference and test:
    impressions re-weighted so that their last-click depths are uniform over the depths
    observed (Diaz & Ferraro 2022, §7; the module documentation gives the estimator and the
    sign-flip test)."""
    last = outcomes.last_click
    clicked = last > 0
    depths, counts = np.unique(last[clicked], return_counts=True)
    weight = np.zeros(last.size)
    if depths.size == 0:
        return UniformDepth(weight, (), 0.0, 0.0, 0.0, 1.0, True)
    share = dict(zip(depths.tolist(), (counts / counts.sum()).tolist(), strict=True))
    weight[clicked] = [1.0 / depths.size / share[k] for k in last[clicked].tolist()]
    terms = weight * outcomes.outcome
    statistic = float(terms.sum())
    preference = statistic / int(clicked.sum())
    nonzero = np.abs(terms[terms != 0])
    variance = float(np.sum(nonzero**2))
    z = statistic / math.sqrt(variance) if variance > 0 else 0.0
    exact = nonzero.size <= EXACT_FLIPS
    if nonzero.size == 0:
        p_value = 1.0
    elif exact:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=nonzero.size)))
        totals = signs @ nonzero
        # ties within rounding count as at least as extreme
        p_value = float(np.mean(np.abs(totals) >= abs(statistic) * (1 - 1e-12)))
    else:
        from scipy.special import ndtr

        p_value = float(min(1.0, 2.0 * ndtr(-abs(z))))
    return UniformDepth(weight, tuple(depths.tolist()), preference, statistic, z, p_value, exact)


# --------------------------------------------------------------------------------------
# Power of the sign test


def _critical(decided: np.ndarray, alpha: float) -> np.ndarray:
    """Per number m of decided impressions, the largest c with 2·P(Bin(m, 1/2) <= c) <=
    alpha (the sign test rejects when min(wins, losses) <= c); −1 when none."""
    from scipy.stats import binom

    c = binom.ppf(alpha / 2, decided, 0.5).astype(np.int64)
    # ppf: the smallest c with F(c) >= alpha/2; step back when F(c) overshoots
    over = 2.0 * binom.cdf(c, decided, 0.5) > alpha
    return np.where(over, c - 1, c)


def _decided_power(decided: np.ndarray, win_rate: float, alpha: float) -> np.ndarray:
    from scipy.stats import binom

    c = _critical(decided, alpha)
    power = binom.cdf(c, decided, win_rate) + binom.sf(decided - c - 1, decided, win_rate)
    return np.where(c >= 0, power, 0.0)


def sign_test_power(
    impressions: int, win_rate: float, *, tie_rate: float = 0.0, alpha: float = 0.05
) -> float:
    """Power of the two-sided exact sign test (`sign_test`) on ``impressions`` impressions.

    ``win_rate``: P(a wins | the impression is decided); ``tie_rate``: P(tie).  Exact: the
    number M of decided impressions is Binomial(impressions, 1 − tie_rate), and given M = m
    the test rejects when min(wins, losses) <= c_m, c_m the largest c with
    2·P(Bin(m, 1/2) <= c) <= alpha, so

        power = Σ_m P(M = m) [P(Bin(m, w) <= c_m) + P(Bin(m, w) >= m − c_m)].

    >>> round(sign_test_power(100, 0.65), 4)
    0.8276
    """
    if isinstance(impressions, bool) or not isinstance(impressions, int) or impressions < 0:
        raise UsageError(f"impressions must be an integer >= 0, got {impressions!r}")
    win_rate = _probability(win_rate, "win_rate")
    alpha = _probability(alpha, "alpha")
    tie_rate = _tie_rate(tie_rate)
    if tie_rate == 0.0:
        return float(_decided_power(np.array([impressions]), win_rate, alpha)[0])
    from scipy.stats import binom

    decided = np.arange(impressions + 1)
    mass = binom.pmf(decided, impressions, 1.0 - tie_rate)
    return float(mass @ _decided_power(decided, win_rate, alpha))


def _tie_rate(tie_rate: Any) -> float:
    if tie_rate == 0:
        return 0.0
    return _probability(tie_rate, "tie_rate", low=0.0, high=1.0)


def impressions_needed(
    win_rate: float,
    *,
    tie_rate: float = 0.0,
    alpha: float = 0.05,
    power: float = 0.8,
    limit: int = 10_000_000,
) -> int:
    """Impressions needed for the sign test to detect ``win_rate`` with ``power`` at
    ``alpha`` (two-sided): the smallest n with `sign_test_power`\\ (n) >= ``power``.

    Without ties the search is exact over every n (the power of a discrete test saw-tooths
    in n; this is the first n that reaches the target).  With ties, n is found by bisection
    on the exact power (mixing over the number of decided impressions smooths the
    saw-tooth), then stepped back while n − 1 still reaches the target.  `UsageError` when
    more than ``limit`` impressions would be needed.

    >>> impressions_needed(0.6)
    199
    """
    win_rate = _probability(win_rate, "win_rate")
    if win_rate == 0.5:
        raise UsageError("a win rate of 0.5 is no effect: no number of impressions detects it")
    alpha = _probability(alpha, "alpha")
    power = _probability(power, "power")
    tie_rate = _tie_rate(tie_rate)
    effect = abs(win_rate - 0.5)
    # the normal approximation, to size the search
    from scipy.special import ndtri

    guess = ((ndtri(1 - alpha / 2) * 0.5 + ndtri(power) * math.sqrt(win_rate * (1 - win_rate)))
             / effect) ** 2  # fmt: skip
    guess = max(1, int(guess / (1.0 - tie_rate)))
    upper = min(limit, 4 * guess + 64)
    if tie_rate == 0.0:
        while True:
            decided = np.arange(1, upper + 1)
            reached = np.flatnonzero(_decided_power(decided, win_rate, alpha) >= power)
            if reached.size:
                return int(reached[0]) + 1
            if upper >= limit:
                break
            upper = min(limit, upper * 4)
    else:
        while sign_test_power(upper, win_rate, tie_rate=tie_rate, alpha=alpha) < power:
            if upper >= limit:
                break
            upper = min(limit, upper * 4)
        else:
            low, high = 0, upper  # power(low) < target <= power(high)
            while high - low > 1:
                middle = (low + high) // 2
                if sign_test_power(middle, win_rate, tie_rate=tie_rate, alpha=alpha) >= power:
                    high = middle
                else:
                    low = middle
            while (
                high > 1
                and sign_test_power(high - 1, win_rate, tie_rate=tie_rate, alpha=alpha) >= power
            ):
                high -= 1
            return high
    raise UsageError(f"more than {limit:,} impressions would be needed (limit=)")


__all__ = [
    "EXACT_FLIPS",
    "METHODS",
    "TAU",
    "InterleavedList",
    "InterleavingOutcomes",
    "UniformDepth",
    "assignment_posteriors",
    "balanced_credit",
    "impressions_needed",
    "interleaved_list",
    "interleaved_lists",
    "interleaving_outcomes",
    "probabilistic_interleave",
    "probabilistic_outcome",
    "rankings_of",
    "sign_test",
    "sign_test_power",
    "team_draft_credit",
    "uniform_depth",
    "write_lists",
]
