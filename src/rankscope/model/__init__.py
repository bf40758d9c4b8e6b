"""Plain data: ids interned once into integer codes, numpy columns, nothing else.

`Vocabulary` (ids), `Qrels` and `Run` (rows of query, document, value), the other judgment
formats (`Prefs`, `GroupedQrels`), trec_eval's z-score table (`ZScores`), interaction logs
and item features (`Interactions`, `ItemFeatures`), several assessors' labels (`Labels`),
logs of shown results: clicks, rewards, propensities, interleaved teams (`ImpressionLog`),
the units of an online experiment (`Experiment`).
This package imports nothing else of rankscope but `rankscope.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

#: Public names, imported from their module on first use, so that a reader of runs loads
#: neither the logs' nor the experiments' tables (``rankscope eval``'s cold start).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "_native": ["available_cores", "compiled", "native", "release_memory"],
        "experiments": ["Experiment"],
        "frames": ["column_names", "is_frame", "to_frame"],
        "impressions": ["ImpressionLog", "SessionMatrix"],
        "judgments": ["GroupedQrels", "Prefs", "ZScores"],
        "labels": ["Labels"],
        "logs": ["Interactions", "ItemFeatures"],
        "tables": ["Qrels", "Run", "check_distinct_names"],
        "vocabulary": ["Vocabulary"],
    },
)

if TYPE_CHECKING:  # pragma: no cover
    from ._native import available_cores, compiled, native, release_memory  # noqa: F401
    from .experiments import Experiment  # noqa: F401
    from .frames import column_names, is_frame, to_frame  # noqa: F401
    from .impressions import ImpressionLog, SessionMatrix  # noqa: F401
    from .judgments import GroupedQrels, Prefs, ZScores  # noqa: F401
    from .labels import Labels  # noqa: F401
    from .logs import Interactions, ItemFeatures  # noqa: F401
    from .tables import Qrels, Run, check_distinct_names  # noqa: F401
    from .vocabulary import Vocabulary  # noqa: F401
