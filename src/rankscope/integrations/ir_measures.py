"""rankscope as an ir_measures provider: one line, and ``ir_measures.calc_aggregate``,
``iter_calc``, ``calc``, ``evaluator`` and every tool built on them (PyTerrier's
``pt.Experiment`` first) compute with rankscope::

    from rankscope.integrations.ir_measures import register; register()

`register` puts the provider named ``rankscope`` first in ``ir_measures.DefaultPipeline``;
a measure it does not take falls through to the next provider, as ever.  The provider takes

* ir_measures' own measures whose meaning is trec_eval's (`STANDARD`): ``AP``, ``P``,
  ``RR``, ``Rprec``, ``nDCG``, ``R``, ``Bpref``, ``infAP``, ``Success``, ``IPrec``,
  ``NumQ``, ``NumRet``, ``NumRelRet``, ``NumRel``, ``SetAP``, ``SetF``, ``SetP``,
  ``SetRelP`` and ``SetR``, with their ``rel``, cutoff and ``judged_only`` parameters:
  the values are trec_eval's (and so pytrec_eval's);
* rankscope's measures that ir_measures has no name for, as measure objects of this module
  (`MEASURES`: ``GMAP``, ``ESL``, ``SL``, ``EU``, ``pFound``, ``TBG``, ``gridRBP``,
  ``RPP``, ...; ``from rankscope.integrations.ir_measures import ESL, RPP``), and any other
  rankscope measure by its rankscope name through `measure` (``measure("gm_bpref")``,
  ``measure("11pt_avg")``).  The preference methods (``RPP``, ``lexiprecision``, ...)
  compare a run with a ``baseline``: a run file, or a run named with `baseline`.

Per-query values follow ir_measures' conventions: a judged query the run does not rank gets
the measure's ``DEFAULT`` (0), a ranked query without judgments none.  Bad input is
rankscope's `InputError` (a ``ValueError``) naming the row, where pytrec_eval would silently
keep the last of two lines for one document.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

try:
    import ir_measures
    from ir_measures.measures.base import Agg, MeanAgg, ParamInfo, SumAgg
    from ir_measures.providers.base import NOT_PROVIDED, Evaluator, Provider
except ImportError as error:  # pragma: no cover - the extra is not installed
    raise ImportError(
        "rankscope.integrations.ir_measures needs ir_measures: pip install 'rankscope[ir-measures]'"
    ) from error

from ..api import evaluate_many
from ..errors import InputError, UsageError
from ..measures import REGISTRY, Measure, PreferenceMeasure, Request
from ..model import Qrels
from ..read.results_frames import results_columns
from ..read.sources import read_qrels

__all__ = [
    "MEASURES",
    "PROVIDER",
    "STANDARD",
    "RankscopeMeasure",
    "RankscopeProvider",
    "baseline",
    "measure",
    "register",
    "unregister",
]

#: The name of the provider in ``ir_measures.providers.registry``.
NAME = "rankscope"

_MIN_GEO_MEAN = 1e-5  # trec_eval's floor for the geometric mean (gm_map)


# -- ir_measures' own measures ------------------------------------------------------------


def _given(measure: Any, param: str) -> Any:
    """A parameter of an ir_measures measure, its default when not given, None if neither."""
    value = measure[param]
    return None if value is NOT_PROVIDED else value


@dataclass(frozen=True)
class Standard:
    """How one of ir_measures' measures is computed by rankscope: the rankscope measure
    without a cutoff (``plain``) and with one (``cut``; None: the cutoff is not taken), the
    ir_measures parameters passed on under the same name, and the ones that must keep the
    value given (``fixed``: nDCG's ``dcg='log2'``)."""

    plain: str | None
    cut: str | None
    params: tuple[str, ...] = ("rel",)
    fixed: tuple[tuple[str, Any], ...] = ()

    def request(self, measure: Any) -> Request | None:
        """The rankscope request computing ``measure``, None if rankscope does not compute
        it as ir_measures defines it."""
        for name, value in self.fixed:
            if _given(measure, name) not in (None, value):
                return None
        at = measure.AT_PARAM
        cutoff = _given(measure, at) if at in measure.SUPPORTED_PARAMS else None
        rankscope_name = self.plain if cutoff is None else self.cut
        if rankscope_name is None:
            return None
        params = {p: _given(measure, p) for p in self.params}
        params = {p: v for p, v in params.items() if v is not None}
        if cutoff is not None:  # ir_measures' @ parameter is rankscope's (cutoff, recall)
            params[at] = cutoff
        judged_only = "judged_only" in measure.SUPPORTED_PARAMS and bool(
            _given(measure, "judged_only")
        )
        return _request(REGISTRY[rankscope_name], params, repr(measure), judged_only)


#: ir_measures' measures rankscope computes, by their ir_measures name; each checked against
#: ir_measures' pytrec_eval provider (tests/test_ir_measures_provider.py).  ``Judged``,
#: ``RBP``, ``ERR``, ``nDCG(dcg='exp-log2')`` and the diversity measures are left to the other
#: providers: ir_measures defines them otherwise (Judged@k divides by the documents ranked
#: when fewer than k, RBP's ``rel``, gdeval's ERR) or reads subtopics from its qrels'
#: ``iteration`` column.
STANDARD: dict[str, Standard] = {
    "AP": Standard("map", "map_cut"),
    "P": Standard(None, "P"),
    "RR": Standard("recip_rank", "recip_rank"),
    "Rprec": Standard("Rprec", None),
    "nDCG": Standard("ndcg", "ndcg_cut", params=(), fixed=(("dcg", "log2"), ("gains", None))),
    "R": Standard(None, "recall"),
    "Bpref": Standard("bpref", None),
    "infAP": Standard("infAP", None),
    "Success": Standard(None, "success"),
    "IPrec": Standard(None, "iprec_at_recall", params=()),
    "NumQ": Standard("num_q", None, params=()),
    "NumRel": Standard("num_rel", None),
    "SetAP": Standard("set_map", None),
    "SetF": Standard("set_F", None, params=("rel", "beta")),
    "SetR": Standard("set_recall", None),
}


def _standard_request(measure: Any) -> Request | None:
    """The request for one of ir_measures' measures (`STANDARD`, and the three whose
    rankscope measure depends on a parameter: NumRet, SetP), None if not taken."""
    name = measure.NAME
    if name == "NumRet":  # NumRet(rel=r) is trec_eval's num_rel_ret
        rel = _given(measure, "rel")
        count = Standard("num_ret", None, ()) if rel is None else Standard("num_rel_ret", None)
        return count.request(measure)
    if name == "SetP":  # SetP(relative=True) is trec_eval's set_relative_P
        relative = bool(_given(measure, "relative"))
        return Standard("set_relative_P" if relative else "set_P", None).request(measure)
    row = STANDARD.get(name)
    return None if row is None else row.request(measure)


# -- rankscope's own measures ---------------------------------------------------------------


#: Runs named as baselines of the preference measures (`baseline`).
_BASELINES: dict[str, Any] = {}


def baseline(name: str, run: Any) -> str:
    """Name ``run`` as a baseline for the preference measures: ``RPP(baseline=name)``
    compares each evaluated run with it.  ``run`` is anything `rankscope.read_run` reads,
    or a PyTerrier results frame (``qid``, ``docno``, ``score``).  Returns ``name``.

    Examples
    --------
    >>> from rankscope.integrations import ir_measures as rs_ir
    >>> rs_ir.baseline("bm25", {"q1": {"d1": 2.0, "d2": 1.0}})
    'bm25'
    >>> rs_ir.RPP(baseline="bm25")
    RPP(baseline='bm25')
    """
    if not isinstance(name, str) or not name:
        raise UsageError(f"a baseline's name must be a non-empty string (got {name!r})")
    _BASELINES[name] = _as_run(run, name)
    return name


class RankscopeMeasure(ir_measures.measures.Measure):
    """An ir_measures measure that rankscope computes: its class names one rankscope
    measure (``RANKSCOPE``), its parameters are that measure's (`rankscope measures` lists
    them), ``@k`` sets its cutoff, and ``judged_only=True`` evaluates the condensed list.
    Its repr is its ir_measures-style name (``ESL(k=3)``, ``TBG@10``)."""

    RANKSCOPE: str = ""
    PREFERENCE = False

    def validate_params(self) -> None:
        """Check the parameters against the rankscope measure (a `UsageError` if one is
        unknown or has a bad value)."""
        if not self.validated:
            self.request()
            self.validated = True

    def request(self) -> Request:
        """The rankscope request computing this measure."""
        params = {k: v for k, v in self.params.items() if k not in ("judged_only", "baseline")}
        if self.PREFERENCE and "baseline" not in self.params:
            raise UsageError(
                f"{self.NAME} compares runs: name a baseline, {self.NAME}(baseline='bm25') "
                "after rankscope.integrations.ir_measures.baseline('bm25', run), or a run file"
            )
        judged_only = bool(self.params.get("judged_only", False))
        return _request(REGISTRY[self.RANKSCOPE], params, repr(self), judged_only)

    def baseline_run(self) -> Any:
        """The baseline a preference measure compares with (a name given to `baseline`, else
        a run file), None for the other measures."""
        if not self.PREFERENCE:
            return None
        name = self.params["baseline"]
        return _BASELINES.get(name, name)

    def aggregator(self) -> Agg:
        """The summary rankscope (and trec_eval) gives the measure: the mean, the sum
        (counts) or the geometric mean (GMAP)."""
        how = REGISTRY[self.RANKSCOPE].aggregate
        if how == "sum":
            return SumAgg()
        if how == "gmean":
            return _GeometricMean()
        return MeanAgg()


class _GeometricMean(Agg):
    """trec_eval's geometric mean: exp of the mean of log(max(value, 1e-5))."""

    def __init__(self) -> None:
        self.logs = 0.0
        self.count = 0

    def add(self, value: float) -> None:
        self.logs += math.log(max(float(value), _MIN_GEO_MEAN))
        self.count += 1

    def result(self) -> float:
        return math.exp(self.logs / self.count) if self.count else math.nan


def _measure_class(ir_name: str, m: Measure, cutoff: str | None) -> type:
    """A `RankscopeMeasure` class for the rankscope measure ``m`` spelled ``ir_name``."""
    supported = {p.name: ParamInfo(default=p.default, desc=p.doc) for p in m.params}
    supported["judged_only"] = ParamInfo(dtype=bool, desc="evaluate the condensed list")
    preference = isinstance(m, PreferenceMeasure)
    if preference:
        del supported["judged_only"]
        supported["baseline"] = ParamInfo(
            dtype=str, required=True, desc="the run compared with: a baseline's name or a file"
        )
    attributes = {
        "NAME": ir_name, "__name__": ir_name, "RANKSCOPE": m.name, "PREFERENCE": preference,
        "SUPPORTED_PARAMS": supported, "AT_PARAM": cutoff or "cutoff",
        "__doc__": m.doc, "PRETTY_NAME": ir_name, "SHORT_DESC": m.doc.split(". ")[0],
    }  # fmt: skip
    return type(ir_name, (RankscopeMeasure,), attributes)


def _own_measures() -> dict[str, RankscopeMeasure]:
    """One measure object per ir_measures-style name rankscope declares and ir_measures
    does not know (nor spells with a hyphen), by name."""
    known = set(ir_measures.measures.registry)
    out: dict[str, RankscopeMeasure] = {}
    for m in REGISTRY.measures:
        spellings = [s for s in m.ir if s.name not in known and s.name.isidentifier()]
        for name in dict.fromkeys(s.name for s in spellings):
            if name in out or m.family == "diversity":
                continue
            cutoff = next((s.cutoff for s in spellings if s.name == name and s.cutoff), None)
            out[name] = _measure_class(name, m, cutoff)()
    return out


#: rankscope's measures that ir_measures has no name for, by name (``GMAP``, ``ESL``, ...).
MEASURES: dict[str, RankscopeMeasure] = _own_measures()


def __getattr__(name: str) -> RankscopeMeasure:
    if name in MEASURES:
        return MEASURES[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *MEASURES])


def measure(spec: str) -> Any:
    """An ir_measures measure object for any rankscope measure, named in either of
    rankscope's spellings (`rankscope measures`): ``measure("ESL(k=3)")`` (the object of
    `MEASURES`, with its parameters), ``measure("gm_bpref")``, ``measure("Rprec_mult.0.5")``
    (one trec_eval name, whose repr is the name rankscope prints, ``Rprec_mult_0.50``).  A
    rankscope measure spelled as one of ir_measures' is prefixed ``rankscope:``
    (``rankscope:ERR@10``: rankscope's ERR, not gdeval's).  The preference methods are
    the objects of `MEASURES` with a baseline (``RPP(baseline="bm25")``).

    Examples
    --------
    >>> from rankscope.integrations.ir_measures import measure
    >>> measure("ESL(k=3)")
    ESL(k=3)
    >>> measure("gm_bpref"), measure("ERR@10")
    (gm_bpref, rankscope:ERR@10)
    """
    requests = REGISTRY.parse(spec)
    if len(requests) != 1:
        raise UsageError(f"measure {spec!r} names {len(requests)} measures; name one")
    (request,) = requests
    m = request.measure
    if isinstance(m, PreferenceMeasure):
        raise UsageError(f"{spec!r} compares runs: use {m.name}(baseline=...) of this module")
    if m.reads_subtopics:
        raise UsageError(f"{spec!r} reads subtopics, which ir_measures' qrels do not have")
    head = spec.strip().split("(")[0].split("@")[0]
    own = MEASURES.get(head)
    if own is not None and own.RANKSCOPE == m.name:
        defaults = {p.name: p.default for p in m.params}
        given = {k: v for k, v in request.params if v != defaults.get(k)}
        if request.judged_only:
            given["judged_only"] = True
        return own(**given)
    label = request.label
    if head in ir_measures.measures.registry and head not in MEASURES:
        label = f"rankscope:{label}"
    attributes = {
        "NAME": label, "__name__": label, "RANKSCOPE": m.name, "SUPPORTED_PARAMS": {},
        "FIXED": request, "__doc__": m.doc,
    }  # fmt: skip
    return type(label, (_FixedMeasure,), attributes)()


class _FixedMeasure(RankscopeMeasure):
    """A rankscope measure named by its rankscope name, its parameters fixed by the name."""

    FIXED: Request

    def request(self) -> Request:
        return self.FIXED


def _request(m: Measure, params: dict[str, Any], label: str, judged_only: bool) -> Request:
    kwargs = m.validate(params)
    return Request(m, tuple(sorted(kwargs.items())), label, judged_only=judged_only)


# -- inputs ---------------------------------------------------------------------------------


def _rows(records: Iterable[Any], fields: tuple[str, str, str], what: str) -> dict:
    """ir_measures' namedtuples (`Qrel`, `ScoredDoc`) as a ``{qid: {docno: value}}`` dict;
    a document twice for one query is an error for a run (rankscope's policy)."""
    out: dict[str, dict[str, Any]] = {}
    q, d, v = fields
    for i, record in enumerate(records):
        docs = out.setdefault(str(getattr(record, q)), {})
        doc = str(getattr(record, d))
        if what == "run" and doc in docs:
            raise InputError(
                f"<run records> record {i}: document {doc!r} is ranked twice for query "
                f"{getattr(record, q)!r}"
            )
        docs[doc] = getattr(record, v)
    return out


def _as_qrels(qrels: Any) -> Qrels | None:
    """ir_measures' qrels (a dict of dicts, a DataFrame with ``query_id``, ``doc_id``,
    ``relevance``, or `ir_measures.Qrel` records) as rankscope's, None if there are none."""
    if isinstance(qrels, Qrels):
        return qrels
    if hasattr(qrels, "columns"):  # a DataFrame, ir_measures' or PyTerrier's columns
        if len(qrels) == 0:
            return None
        query, doc, relevance = results_columns(qrels, "relevance", "label")
        return read_qrels(qrels, columns={"query": query, "doc": doc, "relevance": relevance})
    if not isinstance(qrels, Mapping):
        qrels = _rows(qrels, ("query_id", "doc_id", "relevance"), "qrels")
    if not any(qrels.values()):
        return None
    return read_qrels(qrels)


def _as_run(run: Any, name: str = "run") -> Any:
    """ir_measures' run (a dict of dicts, a DataFrame, `ir_measures.ScoredDoc` records), or
    a path, in a shape `rankscope.read_run` reads; None if it ranks nothing."""
    if hasattr(run, "columns"):
        if len(run) == 0:
            return None
        query, doc, score = results_columns(run, "score")
        if (query, doc) != ("query_id", "doc_id"):
            run = run.rename(columns={query: "query_id", doc: "doc_id"})
        return run[["query_id", "doc_id", score]].rename(columns={score: "score"})
    if isinstance(run, Mapping | str) or hasattr(run, "__fspath__"):
        return run if not isinstance(run, Mapping) or any(run.values()) else None
    return _as_run(_rows(run, ("query_id", "doc_id", "score"), "run"), name)


# -- the provider ---------------------------------------------------------------------------


class RankscopeProvider(Provider):
    """rankscope, trec_eval-exact, as an ir_measures provider (``ir_measures.rankscope``
    once registered)."""

    NAME = NAME

    def supports(self, measure: Any) -> bool:
        """Whether rankscope computes ``measure`` as ir_measures defines it."""
        if isinstance(measure, RankscopeMeasure):
            measure.validate_params()
            return True
        measure.validate_params()
        try:
            return _standard_request(measure) is not None
        except UsageError:
            return False

    def _evaluator(self, measures: Iterable[Any], qrels: Any) -> RankscopeEvaluator:
        return RankscopeEvaluator(list(measures), _as_qrels(qrels))

    def install_instructions(self) -> str:
        return "pip install 'rankscope[ir-measures]'"


def _request_of(measure: Any) -> Request:
    if isinstance(measure, RankscopeMeasure):
        return measure.request()
    request = _standard_request(measure)
    if request is None:
        raise UsageError(f"rankscope does not compute {measure!r} (another provider does)")
    return request


class RankscopeEvaluator(Evaluator):
    """Evaluates runs for a set of measures against judgments read once."""

    def __init__(self, measures: list[Any], qrels: Qrels | None) -> None:
        qids = [] if qrels is None else qrels.queries.strings_of(np.unique(qrels.query))
        super().__init__(measures, set(qids))
        self.qrels = qrels
        self.requests = [(m, _request_of(m)) for m in measures]

    def _iter_calc(self, run: Any) -> Iterator[Any]:
        table = _as_run(run)
        if self.qrels is None or table is None:
            return
        alone = [(m, r) for m, r in self.requests if not isinstance(r.measure, PreferenceMeasure)]
        if alone:
            yield from self._metrics({"run": table}, alone)
        for m, r in self.requests:
            if isinstance(r.measure, PreferenceMeasure):
                base = _as_run(m.baseline_run(), "baseline")
                yield from self._metrics({"run": table, "baseline": base}, [(m, r)])

    def _metrics(self, runs: dict[str, Any], pairs: list[tuple[Any, Request]]) -> Iterator[Any]:
        """Per-query metrics of the first of ``runs``.  A judged query the run does not rank
        gets ir_measures' DEFAULT for ir_measures' own measures (as from its other
        providers), and rankscope's value (trec_eval ``-c``) for rankscope's measures, whose
        value on an empty ranking need not be 0 (search lengths)."""
        reference = "baseline" if "baseline" in runs else None  # a preference's reference
        result = evaluate_many(
            self.qrels, runs, [r for _, r in pairs], complete=True, baseline=reference
        )[0]
        by_request = dict(zip(result.requests, result.values, strict=True))
        ranked = ~np.asarray(result.missing, dtype=bool)
        for measure, request in pairs:
            values = by_request[request].tolist()
            own = isinstance(measure, RankscopeMeasure)
            for qid, value, is_ranked in zip(result.query_ids, values, ranked, strict=True):
                if own or is_ranked:
                    yield ir_measures.Metric(query_id=qid, measure=measure, value=value)


#: The provider (``ir_measures.providers.registry["rankscope"]`` once registered).
PROVIDER = RankscopeProvider()


def _registered() -> bool:
    return ir_measures.providers.registry.get(NAME) is PROVIDER


def register(first: bool = True) -> RankscopeProvider:
    """Make rankscope an ir_measures provider: ``ir_measures.providers.registry`` and
    ``ir_measures.rankscope`` name it, ``ir_measures.DefaultPipeline`` (behind
    ``ir_measures.calc_aggregate``, ``iter_calc``, ``calc``, ``evaluator`` and PyTerrier's
    ``pt.Experiment``) tries it first (``first=False``: last), and ``ir_measures.parse_measure``
    knows rankscope's own measures (`MEASURES`).  Calling it again changes nothing.

    Examples
    --------
    >>> import ir_measures
    >>> from rankscope.integrations.ir_measures import register, unregister
    >>> provider = register()
    >>> qrels = {"q1": {"d1": 1, "d3": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}}
    >>> gmap = ir_measures.parse_measure("GMAP")  # rankscope's, known once registered
    >>> result = ir_measures.calc_aggregate([ir_measures.AP, gmap], qrels, run)
    >>> round(result[ir_measures.AP], 4), round(result[gmap], 4)
    (0.8333, 0.8333)
    >>> unregister()
    """
    ir_measures.providers.register(PROVIDER)
    setattr(ir_measures, NAME, PROVIDER)  # ir_measures.rankscope, as ir_measures.pytrec_eval
    for name, m in MEASURES.items():
        ir_measures.measures.registry.setdefault(name, m)
    providers = ir_measures.DefaultPipeline.providers
    if PROVIDER in providers:
        providers.remove(PROVIDER)
    providers.insert(0 if first else len(providers), PROVIDER)
    return PROVIDER


def unregister() -> None:
    """Undo `register`: ir_measures computes as it did before."""
    providers = ir_measures.DefaultPipeline.providers
    if PROVIDER in providers:
        providers.remove(PROVIDER)
    if _registered():
        del ir_measures.providers.registry[NAME]
    if getattr(ir_measures, NAME, None) is PROVIDER:
        delattr(ir_measures, NAME)
    for name, m in MEASURES.items():
        if ir_measures.measures.registry.get(name) is m:
            del ir_measures.measures.registry[name]
