"""rankscope: offline evaluation of search and recommendation systems.

>>> import rankscope
>>> qrels = rankscope.read_qrels("qrels.txt")            # doctest: +SKIP
>>> table = rankscope.evaluate(qrels, ["run1.txt", "run2.txt"], ["AP", "nDCG@10"])  # doctest: +SKIP

Names are imported on first use, so that ``import rankscope`` (and the command line) stay
quick.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "evaluate": "api",
    "evaluate_many": "api",
    "preferences": "api",
    "read_judgments": "api",
    "read_qrels": "api",
    "read_run": "api",
    "InputError": "errors",
    "RankscopeError": "errors",
    "RankscopeWarning": "errors",
    "UsageError": "errors",
    "Judged": "judge",
    "Ranked": "judge",
    "judge": "judge",
    "Qrels": "model",
    "Run": "model",
    "Vocabulary": "model",
    "RunEvaluation": "table",
    "evaluate_judged": "table",
    "format_trec": "report.trec",
    "MEASURES": "measures",
    "REGISTRY": "measures",
    "parse_measures": "measures",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # pragma: no cover
    from .api import (  # noqa: F401
        evaluate,
        evaluate_many,
        preferences,
        read_judgments,
        read_qrels,
        read_run,
    )
    from .errors import InputError, RankscopeError, RankscopeWarning, UsageError  # noqa: F401
    from .judge import Judged, Ranked, judge  # noqa: F401
    from .measures import MEASURES, REGISTRY, parse_measures  # noqa: F401
    from .model import Qrels, Run, Vocabulary  # noqa: F401
    from .report.trec import format_trec  # noqa: F401
    from .table import RunEvaluation, evaluate_judged  # noqa: F401


#: Subpackages reachable as attributes (``rankscope.recsys.evaluate``), imported on first use.
_SUBPACKAGES = (
    "model", "read", "judge", "measures", "preference", "table", "stats", "recsys", "report",
)  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        value = importlib.import_module(f".{name}", __name__)
        globals()[name] = value
        return value
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rankscope' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
