"""Measures as declarative objects: name, spellings, parameter schema, kernel, documentation.

A `Measure` maps a `Ranked` batch to one value per query.  Its parameters are declared
(`Param`), so names can be parsed and validated, and the reference documentation generated,
from the objects themselves.  A `Request` is a measure with concrete parameter values and
the label it prints under.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import numpy as np

from ..errors import UsageError, shown
from ..judge import Ranked

#: A retrieval measure's kernel: a `Ranked` batch (and parameters) to one value per query.
Kernel = Callable[..., np.ndarray]

#: What a measure's kernel returns: per-query values (np.ndarray) for the retrieval measures;
#: `rankscope.recsys.base.RecsysMeasure` declares recommender measures with the same machinery
#: and a kernel returning `rankscope.recsys.base.Values`.
Result = TypeVar("Result")


@dataclass(frozen=True)
class Param:
    """One parameter of a measure."""

    name: str
    type: type
    default: Any
    doc: str
    choices: tuple = ()
    minimum: float | None = None  # smallest allowed value, if any

    def convert(self, value: Any, measure: str) -> Any:
        if value is None:
            return None
        try:
            if self.type is bool and isinstance(value, str):
                v: Any = value.lower() in ("1", "true", "yes")
            elif self.type is tuple:
                v = tuple(float(x) for x in value)
            elif self.type is dict:
                v = {int(k): float(x) for k, x in dict(value).items()}
            elif self.type is int and isinstance(value, float) and not value.is_integer():
                raise ValueError
            else:
                v = self.type(value)
        except (TypeError, ValueError):
            raise UsageError(
                f"{measure}: parameter {self.name}={shown(value)} is not a valid "
                f"{self.type.__name__}"
            ) from None
        if self.minimum is not None and v < self.minimum:
            raise UsageError(
                f"{measure}: parameter {self.name}={shown(value)} must be >= {self.minimum}"
            )
        if self.choices and v not in self.choices:
            raise UsageError(
                f"{measure}: parameter {self.name}={shown(value)} must be one of {self.choices}"
            )
        return v


#: The relevance level parameter shared by binary measures (None: the evaluation's level).
REL = Param("rel", int, None, "minimum grade counted as relevant (default: the global level, 1)")


@dataclass(frozen=True)
class TrecSpelling:
    """How trec_eval spells the measure's parameters after the dot (``P.5,10``).

    style:
      ``none``      no parameters;
      ``cutoffs``   comma-separated integer cutoffs, one value each (``P_5``, ``P_10``);
      ``fractions`` comma-separated real cutoffs, one value each, printed ``%3.2f``;
      ``values``    a list of reals making one value, printed verbatim (``utility_2,-1,0,0``);
      ``pairs``     ``level=gain`` pairs and named reals (``ndcg_1=3,2=9``, ``rbp_p=0.8``).
    """

    style: str = "none"
    param: str | None = None
    defaults: tuple = ()
    from_values: Callable[[list[float]], dict] | None = None


#: trec_eval's default cutoffs of its cutoff measures (P, recall, ndcg_cut, ...): ``P_5`` to
#: ``P_1000`` when no cutoff is named.
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

#: How trec_eval spells the gains of the graded measures (``ndcg.1=3,2=9``, ``rbp.p=0.8``).
GAIN_PAIRS = TrecSpelling("pairs", "gains")


def cutoff_spelling(defaults: tuple[int, ...] = TREC_CUTOFFS) -> TrecSpelling:
    """How trec_eval spells a cutoff measure (``P.5,10`` gives ``P_5`` and ``P_10``; ``P``
    alone gives one value per cutoff in ``defaults``), the one spelling of every ``@k``
    measure."""
    return TrecSpelling("cutoffs", "cutoff", defaults)


@dataclass(frozen=True)
class IrSpelling:
    """An ir_measures-style name: ``Name(param=value,...)@cutoff``."""

    name: str
    cutoff: str | None = None  # the parameter ``@k`` sets; None: no ``@`` accepted
    fixed: tuple = ()  # parameter values implied by this spelling


@dataclass(eq=False)
class Measure(Generic[Result]):
    """A measure: one value per query from a `Ranked` batch.

    ``aggregate`` says how per-query values summarise: ``mean`` (arithmetic mean over
    queries), ``sum`` (counts), ``gmean`` (geometric mean with values floored at 1e-5, as
    trec_eval), ``none`` (per-query only), ``count`` (number of queries).
    """

    name: str
    kernel: Callable[..., Result]
    doc: str
    params: tuple[Param, ...] = ()
    trec: TrecSpelling = field(default_factory=TrecSpelling)
    ir: tuple[IrSpelling, ...] = ()
    value: str = "float"  # float | int | str
    aggregate: str = "mean"
    per_query: bool = True  # printed per query by ``-q``
    summary: bool = True  # printed in the summary
    zero_when_missing: bool = True  # a judged query absent from the run scores 0
    family: str = ""
    reference: str = ""

    @property
    def reads_subtopics(self) -> bool:
        """Whether the measure needs per-subtopic judgments (``qid subtopic docno grade``)."""
        return self.family == "diversity"

    @property
    def is_run_name(self) -> bool:
        """``runid``: the run's name, a label rather than a value."""
        return self.aggregate == "runid"

    @property
    def describes_run(self) -> bool:
        """``runid`` and ``num_q``: facts about the run and its queries rather than measures of
        its rankings; every judgment format prints them, with the same values."""
        return self.aggregate in ("runid", "count")

    def run_facts(self, num_queries: int) -> np.ndarray:
        """Per-query values of a measure that `describes_run`: no text for ``runid``, 1 for
        ``num_q`` (its summary counts the queries)."""
        if self.is_run_name:
            return np.full(num_queries, "", dtype=object)
        return np.ones(num_queries)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def validate(self, params: dict[str, Any]) -> dict[str, Any]:
        known = {p.name: p for p in self.params}
        out = {}
        for k, v in params.items():
            if k not in known:
                allowed = ", ".join(known) or "none"
                raise UsageError(f"{self.name}: unknown parameter {k!r} (parameters: {allowed})")
            out[k] = known[k].convert(v, self.name)
        for p in self.params:
            out.setdefault(p.name, p.default)
        return out

    def compute(self, ranked: Ranked, params: dict[str, Any]) -> Result:
        return self.kernel(ranked, **params)

    def __post_init__(self) -> None:
        self.doc = clean_doc(self.doc)

    def __repr__(self) -> str:
        return f"Measure({self.name})"


@dataclass(frozen=True, eq=False)
class Request:
    """A measure with concrete parameters, and the label its values print under.

    A request is a value, as ir_measures' measures are: two requests are equal, and hash
    equal, when they name the same measure with the same parameter values (every parameter,
    defaults included) on the same list (``judged_only``), however they were spelled --
    ``parse("nDCG@10") == parse("nDCG@10")``, and ``P_10`` equals ``P@10``; so a request works
    as a dict key and a measure asked twice is one key.  Its repr is its label, the name it
    prints under."""

    measure: Measure
    params: tuple[tuple[str, Any], ...]
    label: str
    order: tuple = ()  # sort key within the measure (trec_eval prints cutoffs ascending)
    judged_only: bool = False  # evaluate on the condensed list (unjudged documents removed)

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.params)

    def compute(self, ranked: Ranked) -> np.ndarray:
        return self.measure.kernel(ranked, **self.kwargs)

    def __repr__(self) -> str:
        return self.label

    def _identity(self) -> tuple:
        """What the request means: the kind of measure and its name, its parameters (a dict
        parameter as sorted pairs, so that it hashes) and the list it is computed on."""
        return (type(self.measure), self.measure.name, _hashable(self.params), self.judged_only)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Request):
            return NotImplemented
        return self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())


def _hashable(params: tuple) -> tuple:
    out = []
    for k, v in params:
        if isinstance(v, dict):
            v = tuple(sorted(v.items()))
        out.append((k, v))
    return tuple(out)


def clean_doc(text: str) -> str:
    """A measure's documentation as written in its declaration (a wrapped, indented block)
    turned into paragraphs of one line each, separated by blank lines."""
    paragraphs = re.split(r"\n\s*\n", inspect.cleandoc(text))
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs)


def sequential_sum(values: np.ndarray) -> np.ndarray:
    """Row sums added left to right, in the order trec_eval adds (numpy's sum is pairwise)."""
    if values.shape[1] == 0:
        return np.zeros(values.shape[0])
    return np.cumsum(values, axis=1)[:, -1]


def safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` where ``den != 0``, else 0."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


_LOG2: list[np.ndarray] = [np.zeros(0)]


def log2_int(n: int) -> np.ndarray:
    """``log2(i)`` for integers ``i`` in ``[0, n)``, computed by the C library as trec_eval does."""
    import math

    table = _LOG2[0]
    if len(table) < n:
        size = max(n, 2 * len(table), 1024)
        table = np.array([-np.inf] + [math.log2(i) for i in range(1, size)])
        _LOG2[0] = table
    return table[:n]
