"""Preference methods (the one table of them, `METHODS`), and `PreferenceResult`: every pairwise
preference between runs, per query, and their aggregation."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import UsageError
from ..judge import RelevanceTable
from .aggregate import borda, bradley_terry, mc4, mean_preference, query_orderings, win_rates
from .interleaving import interleaving_matrix
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
    (`rankscope.preference.interleaving`)."""
    if table.rankings is None or table.judgments is None:
        raise ValueError(
            "offline interleaving needs whole rankings: relevance_table(keep_rankings=True)"
        )
    level = table.relevance_level if level is None else level
    out = np.zeros((table.num_queries, table.num_runs, table.num_runs))
    for q in range(table.num_queries):
        out[q] = interleaving_matrix(
            table.rankings[q], table.judgments[q], method=interleaving, browsing=browsing,
            level=level, seed=seed,
        )  # fmt: skip
    return out


@dataclass(frozen=True)
class Method:
    """A preference method: name, the function computing P[q, a, b], fixed parameters."""

    name: str
    function: Callable[..., np.ndarray]
    fixed: dict[str, Any] = field(default_factory=dict)
    doc: str = ""


METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("RPP", rpp, {"weights": "uniform"}, "recall-paired preference, p(i) uniform"),
        Method("dcgRPP", rpp, {"weights": "dcg"}, "RPP with p(i) ∝ 1/log2(i+1)"),
        Method("invRPP", rpp, {"weights": "inverse"}, "RPP with p(i) ∝ 1/i"),
        Method(
            "gRPP",
            graded_rpp,
            {"weights": "uniform"},
            "graded RPP (eq. 5); gRPP(p=dcg) and gRPP(p=inverse) change p(i)",
        ),
        Method(
            "stRPP",
            subtopic_rpp,
            {"weights": "uniform"},
            "subtopic RPP (eq. 6) over subtopics and a background population",
        ),
        Method("lexiprecision", lexiprecision, {}, "sign at the first differing recall level"),
        Method(
            "rrlexiprecision",
            lexiprecision,
            {"reciprocal": True},
            "1/f_i − 1/f'_i at the first differing recall level",
        ),
        Method("lexirecall", lexirecall, {}, "more relevant retrieved, then deepest first"),
        Method(
            "OI",
            offline_interleaving,
            {"interleaving": "team-draft", "browsing": "uniform"},
            "offline interleaving; OI(interleaving=balanced,browsing=dcg)",
        ),
    )
}

_NAME = re.compile(r"^(?P<name>[A-Za-z]+)(?:\((?P<args>[^()]*)\))?$")
_PARAMS = {
    "p": "weights",
    "weights": "weights",
    "rel": "level",
    "level": "level",
    "interleaving": "interleaving",
    "browsing": "browsing",
}


def parse_method(spec: str) -> tuple[Method, dict[str, Any], str]:
    """``RPP``, ``dcgRPP``, ``gRPP(p=dcg)``, ``RPP(rel=2)``: the method, its arguments and
    the label it prints under."""
    match = _NAME.match(spec.strip())
    if not match or match.group("name") not in METHODS:
        known = ", ".join(METHODS)
        raise ValueError(f"unknown preference method '{spec}' (methods: {known})")
    method = METHODS[match.group("name")]
    kwargs = dict(method.fixed)
    if match.group("args"):
        for item in match.group("args").split(","):
            key, eq, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not eq or key not in _PARAMS:
                raise ValueError(
                    f"'{spec}': parameters are p=uniform|dcg|inverse, rel=N, and for OI "
                    "interleaving=team-draft|balanced, browsing=uniform|dcg"
                )
            target = _PARAMS[key]
            if target in ("weights", "interleaving", "browsing") and target not in method.fixed:
                raise ValueError(f"'{spec}': {method.name} takes no parameter {key}")
            if target == "level" and method.function in (graded_rpp, subtopic_rpp):
                raise ValueError(f"'{spec}': graded RPP uses every grade; rel does not apply")
            kwargs[target] = int(value) if target == "level" else value
    return method, kwargs, spec.strip()


@dataclass
class PreferenceResult:
    """Preferences of every run over every other, per query, for one method."""

    method: str
    run_names: list[str]
    query_ids: list[str]
    prefs: np.ndarray  # (queries, runs, runs): P[q, a, b] = preference of a over b

    @property
    def mean(self) -> np.ndarray:
        """N x N preferences averaged over queries."""
        return mean_preference(self.prefs)

    @property
    def win_rate(self) -> np.ndarray:
        """(queries, runs): Σ_b P[q, a, b] (eq. 7)."""
        return win_rates(self.prefs)

    def query_orderings(self) -> list[list[str]]:
        return query_orderings(self.prefs, self.run_names)

    def ordering(self, aggregate: str = "mc4", **options) -> tuple[list[str], np.ndarray]:
        """Runs ordered over all queries, with their scores.

        ``mc4`` (the authors' reference aggregator), ``mc4-converged`` (damped, iterated to
        convergence), ``borda``, ``mean`` (mean win rate), ``bradley-terry``.
        """
        names = self.run_names
        if aggregate == "mc4":
            return mc4(self.query_orderings(), reference=True, **options)
        if aggregate == "mc4-converged":
            return mc4(self.query_orderings(), reference=False, **options)
        if aggregate == "borda":
            order, points = borda(self.query_orderings())
            return order, np.array([points[n] for n in order], dtype=float)
        if aggregate == "mean":
            score = self.win_rate.mean(axis=0)
        elif aggregate == "bradley-terry":
            score = bradley_terry(self.prefs, names, **options)["strength"]
        else:
            raise ValueError(
                f"unknown aggregation {aggregate!r}: mc4, mc4-converged, borda, mean, bradley-terry"
            )
        order = sorted(range(len(names)), key=lambda i: (score[i], names[i]), reverse=True)
        return [names[i] for i in order], score[order]

    def to_frame(self, output: str = "pandas"):
        """Tidy table: query, run_i, run_j, preference (i < j in run order)."""
        from ..model.frames import to_frame

        cols: dict[str, list] = {"query": [], "run_i": [], "run_j": [], self.method: []}
        n = len(self.run_names)
        for q, qid in enumerate(self.query_ids):
            for a in range(n):
                for b in range(a + 1, n):
                    cols["query"].append(qid)
                    cols["run_i"].append(self.run_names[a])
                    cols["run_j"].append(self.run_names[b])
                    cols[self.method].append(float(self.prefs[q, a, b]))
        return to_frame(cols, output)


def needs_rankings(method: str) -> bool:
    """Whether ``method`` reads whole rankings (offline interleaving) rather than only the
    positions of the relevant documents."""
    return parse_method(method)[0].function is offline_interleaving


def compute(table: RelevanceTable, method: str = "RPP") -> PreferenceResult:
    """Preferences of ``method`` between every pair of the table's runs, on every query."""
    method_obj, kwargs, label = parse_method(method)
    if method_obj.function is offline_interleaving and table.rankings is None:
        raise UsageError("OI needs whole rankings: build the table with keep_rankings=True")
    prefs = method_obj.function(table, **kwargs)
    return PreferenceResult(label, list(table.run_names), list(table.query_ids), prefs)


def method_spec_of(request: Any) -> str:
    """The method string (``gRPP(p=dcg)``) of a measure-registry request for a method."""
    params = request.kwargs
    args = []
    if params.get("p", "uniform") != "uniform":
        args.append(f"p={params['p']}")
    if params.get("rel") is not None:
        args.append(f"rel={params['rel']}")
    return request.measure.name + (f"({','.join(args)})" if args else "")
