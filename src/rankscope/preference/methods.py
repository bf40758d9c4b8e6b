"""Preference methods — the one table of them, `METHODS` — and `PreferenceResult`: every
pairwise preference between runs, per query, and their aggregation.

A `Method` is the only declaration of a method: its name, the function computing
P[q, a, b] from a `RelevanceTable`, the arguments its name fixes (``dcgRPP`` is RPP with
p(i) ∝ 1/log2(i + 1)), the parameters users set in the name (`Option`), its documentation
(formula and user model) and its reference.  The measure registry builds its preference
measures from this table (`rankscope.measures.preferences`), so a method's name is parsed
by the registry's grammar — ``RPP``, ``RPP(rel=2)``, ``gRPP(p=dcg)``,
``OI(interleaving=balanced,browsing=dcg)`` — in ``rankscope eval``, ``prefer``, ``meta``
and the API alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# offline interleaving's kernels and the aggregators through their packages' names, each
# module imported on first use: the measure registry reads `METHODS` at every start
from .. import interleaving as simulation
from .. import preference as aggregators
from ..errors import UsageError
from ..interleaving.names import MAX_STATES, canonical, listed, offline_names
from ..judge import RelevanceTable
from ..model.frames import plain, records_frame
from .rpp import graded_rpp, lexiprecision, lexirecall, rpp, subtopic_rpp


def offline_interleaving(
    table: RelevanceTable,
    interleaving: str = "team-draft",
    browsing: str = "uniform",
    level: int | None = None,
    seed: int = 0,
) -> np.ndarray:
    """Offline interleaving (§5.5): P[q, a, b] = E_k[sgn(ν_k(a) − ν_k(b))] for a simulated user
    browsing the interleaved list to depth k ~ ``browsing`` and clicking relevant documents
    (`rankscope.interleaving.offline`).  Every pair of every query is computed at once
    from where the rankings hold the relevant documents and the documents both hold
    (`rankscope.interleaving.kernels`); a team-draft pair whose exact computation would expand
    more than `MAX_STATES` states is estimated by seeded Monte Carlo (``seed``)."""
    if table.rankings is None or table.judgments is None:
        raise UsageError(
            "offline interleaving needs whole rankings: relevance_table(keep_rankings=True)"
        )
    method = canonical(interleaving, offline=True)
    level = table.relevance_level if level is None else level
    relevant = [
        np.array([d for d, g in judged.items() if g >= level], dtype=np.int64)
        for judged in table.judgments
    ]
    return simulation.all_pairs(
        table.rankings, relevant, method=method, browsing=browsing,
        fallback=lambda q, x, y: simulation.offline_interleaving_preference(
            table.rankings[q][x], table.rankings[q][y], table.judgments[q],  # type: ignore[index]
            method=method, browsing=browsing, level=level, exact=False, seed=seed,
        ),
    )  # fmt: skip


@dataclass(frozen=True)
class Option:
    """A parameter users set in a method's name (``RPP(rel=2)``).  The measure registry
    turns it into its own `Param` (same name, type, default, meaning and allowed values);
    ``keyword`` is the argument of the method's function it sets, if named differently."""

    name: str
    type: type
    default: Any
    doc: str
    choices: tuple = ()
    keyword: str = ""

    @property
    def argument(self) -> str:
        return self.keyword or self.name


REL = Option(
    "rel", int, None, "minimum grade counted as relevant (default: the evaluation's level, 1)",
    keyword="level",
)  # fmt: skip
WEIGHTS = Option(
    "p", str, "uniform",
    "distribution of recall levels p(i): uniform, dcg (∝ 1/log2(i + 1)) or inverse (∝ 1/i)",
    ("uniform", "dcg", "inverse"), keyword="weights",
)  # fmt: skip
INTERLEAVING = Option(
    "interleaving", str, "team-draft",
    f"how the two rankings are merged: {listed(offline=True)}", offline_names(),
)  # fmt: skip
BROWSING = Option(
    "browsing", str, "uniform",
    "the simulated user's depth distribution p(k): uniform or dcg (∝ 1/log2(k + 1))",
    ("uniform", "dcg"),
)  # fmt: skip


@dataclass(frozen=True, eq=False)
class Method:
    """A preference method: what computes P[q, a, b], what its name fixes and what users set,
    what it reads, and its documentation."""

    name: str
    function: Callable[..., np.ndarray]
    doc: str  # formula and user model
    reference: str
    fixed: Mapping[str, Any] = field(default_factory=dict)  # arguments the name implies
    options: tuple[Option, ...] = ()  # parameters users set: Name(option=value)
    rankings: bool = False  # reads whole rankings (relevance_table(keep_rankings=True))
    subtopics: bool = False  # reads diversity judgments (qid subtopic docno grade)

    def arguments(self, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The function's keyword arguments for option values ``{option: value}`` (an option
        not given takes its default)."""
        params = dict(params or {})
        names = [o.name for o in self.options]
        for key in params:
            if key not in names:
                allowed = ", ".join(names) or "none"
                raise UsageError(f"{self.name} takes no parameter {key!r} (parameters: {allowed})")
        out = dict(self.fixed)
        for o in self.options:
            out[o.argument] = params.get(o.name, o.default)
        return out

    def compute(
        self,
        table: RelevanceTable,
        params: Mapping[str, Any] | None = None,
        label: str | None = None,
    ) -> PreferenceResult:
        """Preferences between every pair of the table's runs, on every query; the result is
        labelled ``label`` (default: the method's name)."""
        kwargs = self.arguments(params)
        if self.rankings and table.rankings is None:
            raise UsageError(
                f"{self.name} needs whole rankings: build the table with keep_rankings=True"
            )
        prefs = self.function(table, **kwargs)
        return PreferenceResult(
            label or self.name, list(table.run_names), list(table.query_ids), prefs
        )


_DIAZ_FERRARO = (
    "Diaz & Ferraro, Offline Retrieval Evaluation Without Evaluation Metrics, SIGIR 2022."
)
_DIAZ = "Diaz, Recall, Robustness, and Lexicographic Evaluation, ACM TORS 2023."
_F = (
    "f_i is the rank at which a ranking retrieves its i-th relevant document (grade >= rel); "
    "relevant documents it did not retrieve sit below every retrieved one, and two rankings "
    "that both miss their i-th relevant document tie at level i."
)

METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method(
            "RPP", rpp,
            "Recall-paired preference (eq. 3–4): RPP(π, π') = Σ_{i=1..m} p(i) sgn(f'_i − f_i) "
            f"over the m relevant documents of the query, where {_F} p(i) = 1/m by default; "
            "p=dcg and p=inverse give dcgRPP and invRPP. RPP lies in [−1, 1], is antisymmetric "
            "and is 0 for identical rankings.\n\nUser model: one user for each recall level i, "
            "who wants exactly i relevant documents and prefers the ranking that gets her there "
            "sooner; p(i) is the share of such users.",
            _DIAZ_FERRARO, {}, (WEIGHTS, REL),
        ),
        Method(
            "dcgRPP", rpp,
            "RPP with p(i) ∝ 1/log2(i + 1): Σ_i p(i) sgn(f'_i − f_i), normalised over "
            "i = 1..m.\n\nUser model: users who want few relevant documents weigh more, with "
            "the DCG discount.",
            _DIAZ_FERRARO, {"weights": "dcg"}, (REL,),
        ),
        Method(
            "invRPP", rpp,
            "RPP with p(i) ∝ 1/i: Σ_i p(i) sgn(f'_i − f_i), normalised over i = 1..m.\n\n"
            "User model: users who want few relevant documents weigh more, with the "
            "reciprocal-rank discount.",
            _DIAZ_FERRARO, {"weights": "inverse"}, (REL,),
        ),
        Method(
            "gRPP", graded_rpp,
            "Graded RPP (eq. 5): Σ_λ p(λ) RPP_λ over the grades λ present in the query, where "
            "RPP_λ is RPP counting the documents of grade >= λ as relevant and p(λ) ∝ m_λ, "
            "their number. p selects p(i) within each λ: uniform, dcg or inverse. Every grade "
            "counts, so there is no rel.\n\nUser model: a user wants i documents of grade at "
            "least λ, with (i, λ) drawn from p(i) p(λ).",
            _DIAZ_FERRARO, {}, (WEIGHTS,),
        ),
        Method(
            "stRPP", subtopic_rpp,
            "Subtopic RPP (eq. 6): Σ_t p(t) RPP_t over the query's subtopics t and a background "
            "population t* satisfied by any relevant document, where RPP_t is RPP over subtopic "
            "t's relevant documents, p(t) ∝ their number and p(t*) ∝ the number of relevant "
            "documents. Needs diversity judgments (qid subtopic docno grade); a subtopic with "
            "no relevant document has no users, and a judgment under subtopic 0 (an ad hoc "
            "judgment in a diversity file) counts for t* only. With one subtopic it is binary "
            "RPP. Figures on TREC Web 2012: docs/subtopic-rpp.md.\n\nUser model: "
            "each user has one intent (a subtopic, or any) and wants i documents relevant to it.",
            _DIAZ_FERRARO, {}, (WEIGHTS,), subtopics=True,
        ),
        Method(
            "lexiprecision", lexiprecision,
            "Lexiprecision: sgn(f'_i − f_i) at the first recall level i where the rankings "
            f"differ (0 if none does), where {_F} A lexicographic RR: the limit of RPP when "
            "each p(i) outweighs every later level together.\n\nUser model: the user who "
            "wants one relevant document decides; if both rankings serve her alike, the user "
            "who wants two, and so on.",
            _DIAZ, {}, (REL,),
        ),
        Method(
            "rrlexiprecision", lexiprecision,
            "1/f_i − 1/f'_i at the first recall level i where the rankings differ (1/f = 0 for "
            "an unretrieved document): lexiprecision with the size of the reciprocal-rank "
            "difference.\n\nUser model: as lexiprecision; the preference is as strong as the "
            "difference in reciprocal rank at the deciding level.",
            _DIAZ, {"reciprocal": True}, (REL,),
        ),
        Method(
            "lexirecall", lexirecall,
            "Lexirecall: the ranking that retrieves more relevant documents wins; with as many, "
            "the one whose deepest retrieved relevant document is higher, and so on upward "
            "(sgn(f'_i − f_i) at the last level where the rankings differ).\n\nUser model: the "
            "user who wants every relevant document decides; if both rankings serve her alike, "
            "the user who wants one fewer, and so on.",
            _DIAZ, {}, (REL,),
        ),
        Method(
            "OI", offline_interleaving,
            "Offline interleaving (§5.5): I(π, π') = E_k[sgn(ν_k(π) − ν_k(π'))], an "
            "interleaving experiment simulated from the judgments. The two rankings are merged "
            "by team-draft or balanced interleaving; the user reads the merged list down to a "
            "depth k drawn from p(k) over k = 1..|π ∪ π'| (uniform, or ∝ 1/log2(k + 1) with "
            "browsing=dcg) and clicks the relevant documents (grade >= rel) there; ν_k(π) "
            "counts the clicks credited to π. The expectation over k and over the "
            "interleaving's coin flips is exact, computed from positions: an outcome changes "
            "only where a relevant document enters the list, and where it enters depends on "
            "its ranks and on the documents both rankings hold (placed once, they shift what "
            "follows). Balanced interleaving is a closed form in those ranks (list positions "
            "from the shared documents' second occurrences, Chapelle et al.'s credit from "
            "prefix counts of relevant documents); team draft is a dynamic programme over "
            "states (i, j, ν(π) − ν(π')) that splits only where both rankings' next document is "
            "the same one, run for every pair of runs of every query at once; with uniform "
            "browsing, a pair whose next rounds place neither a relevant document nor one the "
            "other ranking holds jumps over them, adding their (equal) amounts one by one, so "
            "the values are the same to the last bit. The 16 CLEF "
            "eHealth 2016 runs × 50 queries take about 1 s (25 s pair by pair before). Team "
            "draft falls back to a seeded Monte Carlo estimate for a pair whose programme "
            f"would expand more than {MAX_STATES:,} states. Values within 1e-13 of 0 are ties."
            "\n\nUser model: a user who stops at a random depth k and prefers the ranking that "
            "contributed more of the relevant documents she clicked.",
            _DIAZ_FERRARO + " Team draft: Radlinski, Kurup & Joachims, How Does Clickthrough "
            "Data Reflect Retrieval Quality?, CIKM 2008. Balanced: Chapelle, Joachims, Radlinski "
            "& Yue, Large-Scale Validation and Analysis of Interleaved Search Evaluation, ACM "
            "TOIS 2012.",
            {}, (INTERLEAVING, BROWSING, REL), rankings=True,
        ),
    )
}  # fmt: skip


def method_named(name: str | Method) -> Method:
    """The method called ``name`` exactly (``gRPP``; a name with parameters, ``gRPP(p=dcg)``,
    is parsed by `rankscope.measures.preferences.parse_method`)."""
    if isinstance(name, Method):
        return name
    if name not in METHODS:
        raise unknown_method(name)
    return METHODS[name]


def unknown_method(spec: str) -> UsageError:
    """The error for a name that is no preference method, with the closest ones."""
    name = spec.strip().split("(")[0]
    same = [m for m in METHODS if m.lower() == name.lower()]  # names are case-sensitive
    import difflib  # (only for this message: a cold start of `rankscope eval` saves ~1 ms)

    close = same or difflib.get_close_matches(name, list(METHODS))
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return UsageError(f"unknown preference method '{spec}'{hint} (methods: {', '.join(METHODS)})")


@dataclass(frozen=True)
class PreferenceResult:
    """Preferences of every run over every other, per query, for one method (a value)."""

    method: str
    run_names: list[str]
    query_ids: list[str]
    prefs: np.ndarray  # (queries, runs, runs): P[q, a, b] = preference of a over b

    @property
    def mean(self) -> np.ndarray:
        """N x N preferences averaged over queries."""
        return aggregators.mean_preference(self.prefs)

    @property
    def win_rate(self) -> np.ndarray:
        """(queries, runs): Σ_b P[q, a, b] (eq. 7)."""
        return aggregators.win_rates(self.prefs)

    def query_orderings(self) -> list[list[str]]:
        return aggregators.query_orderings(self.prefs, self.run_names)

    def ordering(
        self, aggregate: str = "mc4", **options: Any
    ) -> tuple[list[str], np.ndarray]:
        """Runs ordered over all queries, with their scores.

        ``mc4`` (the authors' reference aggregator), ``mc4-converged`` (damped, iterated to
        convergence), ``borda``, ``mean`` (mean win rate), ``bradley-terry``.
        """
        names = self.run_names
        if aggregate == "mc4":
            return aggregators.mc4(self.query_orderings(), reference=True, **options)
        if aggregate == "mc4-converged":
            return aggregators.mc4(self.query_orderings(), reference=False, **options)
        if aggregate == "borda":
            order, points = aggregators.borda(self.query_orderings())
            return order, np.array([points[n] for n in order], dtype=float)
        if aggregate == "mean":
            score = self.win_rate.mean(axis=0)
        elif aggregate == "bradley-terry":
            score = aggregators.bradley_terry(self.prefs, names, **options)["strength"]
        else:
            raise UsageError(
                f"unknown aggregation {aggregate!r}: mc4, mc4-converged, borda, mean, bradley-terry"
            )
        best_first = sorted(range(len(names)), key=lambda i: (score[i], names[i]), reverse=True)
        return [names[i] for i in best_first], score[best_first]

    def records(self) -> list[dict[str, Any]]:
        """The tidy rows: query, run_i, run_j and the preference of run_i over run_j (the
        column named after the method), i < j in run order."""
        n = len(self.run_names)
        return [
            {"query": qid, "run_i": self.run_names[a], "run_j": self.run_names[b],
             self.method: float(self.prefs[q, a, b])}
            for q, qid in enumerate(self.query_ids)
            for a in range(n)
            for b in range(a + 1, n)
        ]  # fmt: skip

    def to_frame(self, output: str = "pandas") -> Any:
        """`records` as a DataFrame (pandas, polars) or a dict of columns."""
        return records_frame(self.records(), ("query", "run_i", "run_j", self.method), output)

    def to_dict(self) -> dict[str, Any]:
        """The method, the runs, the queries and the preferences (queries × runs × runs
        nested lists), JSON-ready at full precision."""
        return {
            "method": self.method, "runs": list(self.run_names),
            "queries": list(self.query_ids), "prefs": plain(self.prefs),
        }  # fmt: skip


def compute(
    table: RelevanceTable,
    method: Method | str = "RPP",
    params: Mapping[str, Any] | None = None,
    label: str | None = None,
) -> PreferenceResult:
    """Preferences of ``method`` (a `Method` or the exact name of one, ``"gRPP"``) with
    option values ``params`` (``{"p": "dcg"}``) between every pair of the table's runs."""
    return method_named(method).compute(table, params, label)
