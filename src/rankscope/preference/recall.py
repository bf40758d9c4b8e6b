"""The recall-level view of a comparison: how much each recall level contributes to the
difference of a metric between two rankings, beside RPP's preference at that level.

Diaz & Ferraro, "Offline Retrieval Evaluation Without Evaluation Metrics", SIGIR 2022, §2
(Figure 2) and §4.1 (Table 1a).  Let f_i and f'_i be the ranks of the i-th relevant document
of rankings π (run A) and π' (run B), i = 1..m, m the query's relevant documents (grade >=
1).  A metric that is a sum over the relevant documents, μ(π) = Σ_i δ(f_i), has the
difference

    Δμ(π, π') = μ(π) − μ(π') = Σ_i [δ(f_i) − δ(f'_i)] = Σ_i Δμ_i(π, π')

and Δμ_i is what the user who wants exactly i relevant documents adds to it.  The terms, as
rankscope (and trec_eval) computes each metric, so that Σ_i Δμ_i is the metric's
difference exactly (a relevant document the ranking did not retrieve adds 0):

    AP    Δμ_i = (i/f_i − i/f'_i) / m                  precision at the i-th relevant / R
    nDCG  Δμ_i = (g_i/log2(f_i+1) − g'_i/log2(f'_i+1)) / IDCG
    RBP   Δμ_i = (1−p) (g_i p^(f_i−1) − g'_i p^(f'_i−1))
    RR    Δμ_1 = 1/f_1 − 1/f'_1, and Δμ_i = 0 for i > 1

with g_i the gain (the grade) of π's i-th relevant document, IDCG the DCG of the ideal
ranking, and RBP's gains the grades divided by the highest grade when it exceeds 1 (the
min–max normalisation of `rankscope.measures` RBP).  Table 1a prints AP's term without the
1/m and RBP's without (1−p); with them the terms add up to the metrics users compute.

RPP at the same level is sgn(f'_i − f_i): +1 when A reaches its i-th relevant document
first, −1 when B does, 0 when both rank it at the same place or neither retrieves it; RPP is
Σ_i p(i) sgn(f'_i − f_i), p(i) = 1/m (eq. 4), so its per-level share is sgn / m.  Every
metric's Δμ_i shrinks with the ranks (Figure 2), while RPP's share does not: a pair on which
A wins the first levels by a little and loses many deeper levels is one AP prefers and RPP
does not.

Over several queries, level i's value is the sum over queries of Δμ_i (0 for a query with
fewer than i relevant documents) divided by the number of queries Q, every judged query
counting and a run that did not rank one scoring 0 there (as `rankscope compare` does): the
levels then add up to the difference of the mean metrics (and of the mean RPP) that
`rankscope compare` reports.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import UsageError
from ..judge import NOT_RETRIEVED, RelevanceTable
from ..model.frames import records_frame

#: The measures decomposed when none are named.
DEFAULT_MEASURES = ("AP", "nDCG", "RBP", "RR")
#: RBP's persistence when ``RBP`` is named without one (rankscope's RBP, trec_eval's rbp).
RBP_PERSISTENCE = 0.9


@dataclass(frozen=True)
class _Queries:
    """The queries of a view by recall level, one row each (padded to the deepest query's
    ``width``): how many relevant documents each has, their grades, and what the measures
    take from them (the ideal DCG, the highest grade)."""

    m: np.ndarray  # (n, 1) relevant documents per query
    valid: np.ndarray  # (n, width) True on a query's first m levels
    idcg: np.ndarray  # (n, 1) the DCG of the ideal ranking
    top: np.ndarray  # (n, 1) the highest grade


@dataclass(frozen=True)
class _Ranking:
    """One run on the queries of `_Queries`, by recall level: the rank of its i-th relevant
    document (`NOT_RETRIEVED` when it did not retrieve it; past a query's m levels too) and
    that document's grade (0 past the m levels)."""

    ranks: np.ndarray  # (n, width) ascending along each row
    grades: np.ndarray  # (n, width)

    @property
    def retrieved(self) -> np.ndarray:
        return self.ranks < NOT_RETRIEVED

    def safe_ranks(self) -> np.ndarray:
        """The ranks, with 1 where nothing was retrieved (masked out by the callers)."""
        return np.where(self.retrieved, self.ranks, 1).astype(np.float64)


#: A measure's terms at each level: (one run's ranking, its queries) -> (n, width) values
#: whose rows add up to the run's value of the measure on each query (0 past its levels).
Terms = Callable[[_Ranking, _Queries], np.ndarray]


def _ap_terms(r: _Ranking, q: _Queries) -> np.ndarray:
    levels = np.arange(1, r.ranks.shape[1] + 1, dtype=np.float64)
    return np.where(r.retrieved, levels / r.safe_ranks(), 0.0) / q.m


def _ndcg_terms(r: _Ranking, q: _Queries) -> np.ndarray:
    dcg = np.where(r.retrieved, r.grades / np.log2(r.safe_ranks() + 1), 0.0)
    return dcg / q.idcg


def _rbp_terms(p: float) -> Terms:
    def terms(r: _Ranking, q: _Queries) -> np.ndarray:
        gains = np.where(q.top > 1, r.grades / q.top, r.grades.astype(np.float64))
        return (1.0 - p) * np.where(r.retrieved, gains * p ** (r.safe_ranks() - 1), 0.0)

    return terms


def _rr_terms(r: _Ranking, q: _Queries) -> np.ndarray:
    out = np.zeros(r.ranks.shape)
    if r.ranks.shape[1]:
        out[:, 0] = np.where(r.retrieved[:, 0], 1.0 / r.safe_ranks()[:, 0], 0.0)
    return out


@dataclass(frozen=True)
class LevelMeasure:
    """A metric decomposed by recall level: its label, Δμ_i's formula and its terms."""

    label: str
    formula: str
    terms: Terms = field(repr=False, compare=False)


_FIXED = {
    "AP": ("(i/f_i − i/f'_i) / m", _ap_terms),
    "nDCG": ("(g_i/log2(f_i+1) − g'_i/log2(f'_i+1)) / IDCG", _ndcg_terms),
    "RR": ("1/f_1 − 1/f'_1 at level 1, 0 beyond", _rr_terms),
}
_RBP = re.compile(r"RBP(?:\(p=([0-9]*\.?[0-9]+)\))?")
_RBP_FORMULA = "(1−p)(g_i p^(f_i−1) − g'_i p^(f'_i−1))"


def level_measure(name: str) -> LevelMeasure:
    """The decomposition of the metric ``name``: ``AP``, ``nDCG``, ``RBP`` (persistence 0.9,
    or ``RBP(p=0.5)``) or ``RR`` (binary at grade 1; nDCG and RBP graded), as
    `rankscope.evaluate` computes the metric of that name; `UsageError` for any other."""
    if name in _FIXED:
        formula, terms = _FIXED[name]
        return LevelMeasure(name, formula, terms)
    found = _RBP.fullmatch(name)
    if found:
        p = RBP_PERSISTENCE if found.group(1) is None else float(found.group(1))
        if not 0 < p < 1:
            raise UsageError(f"{name}: RBP's persistence p must lie strictly between 0 and 1")
        return LevelMeasure(name, _RBP_FORMULA.replace("p", f"{p:g}"), _rbp_terms(p))
    close = [k for k in DEFAULT_MEASURES if k.lower() == name.split("(")[0].lower()]
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise UsageError(
        f"recall levels decompose AP, nDCG, RBP (RBP(p=0.5)) and RR, not {name!r}{hint}"
    )


@dataclass(frozen=True)
class RecallLevel:
    """Recall level ``level`` (i) of a comparison of run A with run B.

    For one query, ``rank_a`` and ``rank_b`` are f_i and f'_i (None: not retrieved) and
    ``queries`` is 1; over several queries the ranks are None, ``queries`` counts the
    queries with at least i relevant documents, and the other fields are over all of them.
    ``a_first``/``b_first``/``tied``: the queries where A (B) reaches its i-th relevant
    document first, or neither does.  ``sign``: their mean sgn(f'_i − f_i) (RPP's
    preference at this level, in [−1, 1]).  ``rpp``: the level's share of RPP(A, B), the
    mean over all Q queries of sgn(f'_i − f_i)/m.  ``delta``: each metric's Δμ_i (mean over
    the Q queries)."""

    level: int
    queries: int
    rank_a: int | None
    rank_b: int | None
    a_first: int
    b_first: int
    tied: int
    sign: float
    rpp: float
    delta: Mapping[str, float]


@dataclass(frozen=True)
class RecallLevels:
    """The recall-level view of run A against run B (`recall_levels`): one `RecallLevel`
    per level, and each metric's values (A, B; means over the ``queries`` queries), of
    which ``difference`` is the sum of the levels' Δμ_i.  ``query`` is None for the view
    over all judged queries."""

    run_a: str
    run_b: str
    query: str | None
    queries: int
    measures: tuple[LevelMeasure, ...]
    levels: tuple[RecallLevel, ...]
    values_a: Mapping[str, float]
    values_b: Mapping[str, float]

    @property
    def labels(self) -> list[str]:
        """The metrics' labels, in order."""
        return [m.label for m in self.measures]

    @property
    def difference(self) -> dict[str, float]:
        """Each metric's difference A − B: the sum of its Δμ_i over the levels."""
        return {m: self.values_a[m] - self.values_b[m] for m in self.labels}

    @property
    def rpp(self) -> float:
        """RPP(A, B) (its mean over the queries): the sum of the levels' ``rpp``."""
        return math.fsum(level.rpp for level in self.levels)

    @property
    def disagreements(self) -> dict[str, bool]:
        """Per metric: whether its difference and RPP point to different runs (one of them
        positive, the other negative)."""
        return {m: d * self.rpp < 0 for m, d in self.difference.items()}

    def records(self) -> list[dict[str, Any]]:
        """A dict per level: level, queries, rank_a, rank_b, a_first, b_first, tied, sign,
        rpp and one column per metric (its Δμ_i), at full precision."""
        out = []
        for level in self.levels:
            record: dict[str, Any] = {
                "level": level.level, "queries": level.queries, "rank_a": level.rank_a,
                "rank_b": level.rank_b, "a_first": level.a_first, "b_first": level.b_first,
                "tied": level.tied, "sign": level.sign, "rpp": level.rpp,
            }  # fmt: skip
            record.update({m: level.delta[m] for m in self.labels})
            out.append(record)
        return out

    def to_frame(self, output: str = "pandas") -> Any:
        """The levels (`records`) as a DataFrame (pandas, polars) or a dict of columns."""
        names = ["level", "queries", "rank_a", "rank_b", "a_first", "b_first", "tied", "sign",
                 "rpp", *self.labels]  # fmt: skip
        return records_frame(self.records(), names, output)

    def to_dict(self) -> dict[str, Any]:
        """The view as one JSON-ready object (what ``rankscope explain --format json``
        writes): the runs, the query (None: every judged query), the number of queries, per
        metric its formula, values and difference, RPP, and the levels (`records`)."""
        difference = self.difference
        return {
            "run_a": self.run_a,
            "run_b": self.run_b,
            "query": self.query,
            "queries": self.queries,
            "measures": [
                {"measure": m.label, "delta_i": m.formula, "a": self.values_a[m.label],
                 "b": self.values_b[m.label], "difference": difference[m.label]}
                for m in self.measures
            ],  # fmt: skip
            "rpp": self.rpp,
            "levels": self.records(),
        }


def _queries(table: RelevanceTable, rows: list[int]) -> _Queries:
    """The queries ``rows`` of ``table`` (in that order), padded to the deepest; kept on the
    table for the next view over the same queries (a report makes one per run)."""
    cache = table.__dict__.setdefault("_level_queries", {})
    key = tuple(rows)
    if key not in cache:
        m = np.array([len(table.grades[q]) for q in rows], dtype=np.int64)
        width = int(m.max(initial=0))
        # each query's own ideal DCG, summed as numpy sums its (unpadded) row
        idcg = [
            float(np.sum(ideal / np.log2(np.arange(2, len(ideal) + 2))))
            for ideal in (np.sort(table.grades[q].astype(np.float64))[::-1] for q in rows)
        ]
        top = [float(table.grades[q].max()) for q in rows]
        cache[key] = _Queries(
            m[:, None], np.arange(width) < m[:, None], np.array(idcg)[:, None],
            np.array(top)[:, None],
        )  # fmt: skip
    found: _Queries = cache[key]
    return found


def _ranking(table: RelevanceTable, rows: list[int], run: int, queries: _Queries) -> _Ranking:
    """Run ``run``'s ranks of the relevant documents of queries ``rows`` by recall level
    (each query's sorted, its grades in the same order)."""
    n, width = queries.valid.shape
    ranks = np.full((n, width), NOT_RETRIEVED + 1, dtype=np.int64)  # after every rank
    grades = np.zeros((n, width), dtype=np.int64)
    ranks[queries.valid] = np.concatenate([table.ranks[q][run] for q in rows]) if n else []
    grades[queries.valid] = np.concatenate([table.grades[q] for q in rows]) if n else []
    order = np.argsort(ranks, axis=1, kind="stable")  # the padding stays last
    ranks = np.take_along_axis(ranks, order, axis=1)
    ranks[~queries.valid] = NOT_RETRIEVED
    return _Ranking(ranks, np.take_along_axis(grades, order, axis=1))


def _summed(
    table: RelevanceTable,
    rows: list[int],
    run: int,
    queries: _Queries,
    measures: Sequence[LevelMeasure],
    *,
    keep: bool = False,
) -> tuple[_Ranking, np.ndarray]:
    """Run ``run``'s `_ranking` of queries ``rows`` and each measure's terms added up over
    them (measures x levels); with ``keep``, kept on the table for the next view against
    the same run (a report compares every run with one baseline)."""
    cache = table.__dict__.setdefault("_level_sums", {}) if keep else {}
    key = (run, tuple(rows), tuple(m.label for m in measures))
    if key not in cache:
        ranking = _ranking(table, rows, run, queries)
        sums = np.zeros((len(measures), queries.valid.shape[1]))
        for k, measure in enumerate(measures):
            sums[k] = _added(np.where(queries.valid, measure.terms(ranking, queries), 0.0))
        cache[key] = ranking, sums
    found: tuple[_Ranking, np.ndarray] = cache[key]
    return found


def _added(values: np.ndarray) -> np.ndarray:
    """The columns of ``values`` (queries x levels) added up query after query (as a loop
    over the queries adds them; numpy's sum is pairwise)."""
    if values.shape[0] == 0:
        return np.zeros(values.shape[1:])
    return np.cumsum(values, axis=0)[-1]


def level_view(
    table: RelevanceTable,
    a: int,
    b: int,
    query_ids: Sequence[str],
    measures: Sequence[LevelMeasure],
    query: str | None = None,
) -> RecallLevels:
    """The recall-level view of run ``a`` against run ``b`` of ``table`` (run indices), on
    ``query`` or, when None, over ``query_ids`` (the queries averaged over: those of the
    table, queries without relevant documents adding 0 at every level, and any others)."""
    at = {qid: q for q, qid in enumerate(table.query_ids)}
    chosen = [query] if query is not None else list(query_ids)
    rows = [at[qid] for qid in chosen if qid in at]  # the others add 0 at every level
    queries = _queries(table, rows)
    width = queries.valid.shape[1]
    ra, sum_a = _summed(table, rows, a, queries, measures)
    rb, sum_b = _summed(table, rows, b, queries, measures, keep=True)
    sign = np.where(queries.valid, np.sign(rb.ranks - ra.ranks), 0)
    signs = np.array([
        ((sign > 0) & queries.valid).sum(axis=0), ((sign < 0) & queries.valid).sum(axis=0),
        ((sign == 0) & queries.valid).sum(axis=0),
    ])  # a first, b first, tied  # fmt: skip
    shares = _added(np.where(queries.valid, sign / queries.m, 0.0))
    present = queries.valid.sum(axis=0)
    count = len(chosen)
    labels = [m.label for m in measures]
    delta = (sum_a - sum_b) / count
    one = query is not None and len(rows) == 1
    levels = []
    for i in range(width):
        levels.append(RecallLevel(
            level=i + 1, queries=int(present[i]),
            rank_a=_rank(ra, i) if one else None, rank_b=_rank(rb, i) if one else None,
            a_first=int(signs[0, i]), b_first=int(signs[1, i]), tied=int(signs[2, i]),
            sign=float(signs[0, i] - signs[1, i]) / int(present[i]),
            rpp=float(shares[i]) / count,
            delta={label: float(delta[k, i]) for k, label in enumerate(labels)},
        ))  # fmt: skip
    return RecallLevels(
        table.run_names[a], table.run_names[b], query, count, tuple(measures), tuple(levels),
        {label: math.fsum(sum_a[k]) / count for k, label in enumerate(labels)},
        {label: math.fsum(sum_b[k]) / count for k, label in enumerate(labels)},
    )  # fmt: skip


def _rank(r: _Ranking, i: int) -> int | None:
    """The one query's rank of its i-th relevant document (None: not retrieved)."""
    return int(r.ranks[0, i]) if r.retrieved[0, i] else None
