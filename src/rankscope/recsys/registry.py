"""Every recommender measure and the registry that parses their names.

Names use the ir_measures spelling of rankscope's main registry, parsed by the same
`Registry` class: ``P@10``, ``Recall@10``, ``nDCG@10``, ``MAP(denominator=min)@10``,
``ILD(distance=jaccard)@10``, ``LongTail(head=interactions)@10``, ``MAE``,
``RMSE(average=users)``.  A top-N name without ``@k`` takes the evaluation's ``k``.
Nicknames: ``rating``, ``topn``, ``beyond``, ``popularity`` (ARP, APLT, ACLT, PopRSP,
PopREO, ExposureRatio), ``confidence`` (Brier, LogLoss, ECE, CoverageAccuracy), ``all``.
The names of rankscope's retrieval measures are understood too, trec_eval's included, when a
recommender measure computes the same thing: ``P_10`` and ``P.10`` are ``P@10``,
``ndcg_cut_10`` is ``nDCG@10``, ``recip_rank`` is ``RR`` (MRR at the evaluation's ``k``),
``success_5`` is ``HitRate@5``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import UsageError
from ..measures import REGISTRY as RETRIEVAL
from ..measures.base import Request
from ..measures.registry import Registry
from .accuracy import RATING_MEASURES
from .base import RecsysMeasure
from .beyond import BEYOND_MEASURES
from .confidence import CONFIDENCE_MEASURES
from .popularity import POPULARITY_MEASURES
from .topn import TOPN_MEASURES

MEASURES: list[RecsysMeasure] = [
    *RATING_MEASURES, *TOPN_MEASURES, *BEYOND_MEASURES, *POPULARITY_MEASURES,
    *CONFIDENCE_MEASURES,
]  # fmt: skip

NICKNAMES = {
    "rating": [m.name for m in RATING_MEASURES],
    "topn": [m.name for m in TOPN_MEASURES],
    "beyond": [m.name for m in BEYOND_MEASURES],
    "popularity": ["ARP", "LongTail", *(m.name for m in POPULARITY_MEASURES[1:])],
    "confidence": [m.name for m in CONFIDENCE_MEASURES],
    "all": [m.name for m in MEASURES],
}

REGISTRY = Registry(MEASURES, NICKNAMES)


def parse(specs: str | Sequence[str], k: int = 10) -> list[Request]:
    """Requests for recommender measure names, in the registry's order, without repeats;
    ``k`` is the cutoff of the names written without ``@k``."""
    if isinstance(specs, str):
        specs = [specs]
    unique: dict = {}
    for spec in specs:
        for request in _parse(spec):
            params = dict(request.params)
            label = request.label
            if "k" in params and params["k"] is None:
                params["k"] = k
                label = f"{label}@{k}"
            request = Request(request.measure, tuple(sorted(params.items())), label)
            unique.setdefault(request, request)
    return sorted(
        unique.values(),
        key=lambda r: (REGISTRY.index(r.measure), r.kwargs.get("k") or 0, r.label),
    )


def _parse(spec: str) -> list[Request]:
    """`REGISTRY.parse`, or for a retrieval measure's name (``P_10``, ``ndcg_cut_10``,
    ``recip_rank``) the recommender measure that its ir_measures spelling names."""
    try:
        return REGISTRY.parse(spec)
    except UsageError as error:
        for name in _retrieval_spellings(spec):
            try:
                return REGISTRY.parse(name)
            except UsageError:
                continue
        raise error from None


def _retrieval_spellings(spec: str) -> list[str]:
    """The ir_measures spellings of what ``spec`` names in the retrieval registry, its cutoff
    kept (``ndcg_cut_10`` -> ``nDCG@10``); none when it names no retrieval measure or
    several (``P``: every default cutoff)."""
    try:
        requests = RETRIEVAL.parse(spec)
    except UsageError:
        return []
    if len(requests) != 1:
        return []
    request = requests[0]
    names = []
    for spelling in request.measure.ir:
        value = request.kwargs.get(spelling.cutoff) if spelling.cutoff else None
        if spelling.cutoff is None or value is not None:
            names.append(spelling.name + ("" if value is None else f"@{value}"))
    return names


def spellings(m: RecsysMeasure) -> list[str]:
    return list(dict.fromkeys(s.name + ("@k" if s.cutoff else "") for s in m.ir))
