"""Every recommender measure and the registry that parses their names.

Names use the ir_measures spelling of rankscope's main registry, parsed by the same
`Registry` class: ``P@10``, ``Recall@10``, ``nDCG@10``, ``MAP(denominator=min)@10``,
``ILD(distance=jaccard)@10``, ``LongTail(head=interactions)@10``, ``MAE``,
``RMSE(average=users)``.  A top-N name without ``@k`` takes the evaluation's ``k``.
Nicknames: ``rating``, ``topn``, ``beyond``, ``all``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..measures.base import Request
from ..measures.registry import Registry
from .accuracy import RATING_MEASURES
from .base import RecsysMeasure
from .beyond import BEYOND_MEASURES
from .topn import TOPN_MEASURES

MEASURES: list[RecsysMeasure] = [*RATING_MEASURES, *TOPN_MEASURES, *BEYOND_MEASURES]

NICKNAMES = {
    "rating": [m.name for m in RATING_MEASURES],
    "topn": [m.name for m in TOPN_MEASURES],
    "beyond": [m.name for m in BEYOND_MEASURES],
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
        for request in REGISTRY.parse(spec):
            params = dict(request.params)
            label = request.label
            if "k" in params and params["k"] is None:
                params["k"] = k
                label = f"{label}@{k}"
            request = Request(request.measure, tuple(sorted(params.items())), label)
            unique.setdefault(request.key(), request)
    return sorted(
        unique.values(),
        key=lambda r: (REGISTRY.index(r.measure), r.kwargs.get("k") or 0, r.label),
    )


def spellings(m: RecsysMeasure) -> list[str]:
    return list(dict.fromkeys(s.name + ("@k" if s.cutoff else "") for s in m.ir))
