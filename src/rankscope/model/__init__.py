"""Plain data: ids interned once into integer codes, numpy columns, nothing else.

`Vocabulary` (ids), `Qrels` and `Run` (rows of query, document, value), the other judgment
formats (`Prefs`, `GroupedQrels`), trec_eval's z-score table (`ZScores`), interaction logs
and item features (`Interactions`, `ItemFeatures`), several assessors' labels (`Labels`),
logs of shown results: clicks, rewards, propensities, interleaved teams (`ImpressionLog`),
the units of an online experiment (`Experiment`).
This package imports nothing else of rankscope but `rankscope.errors`.
"""

from ._native import native
from .experiments import Experiment
from .frames import column_names, is_frame, to_frame
from .impressions import ImpressionLog, SessionMatrix
from .judgments import GroupedQrels, Prefs, ZScores
from .labels import Labels
from .logs import Interactions, ItemFeatures
from .tables import Qrels, Run, check_distinct_names
from .vocabulary import Vocabulary

__all__ = [
    "Experiment",
    "GroupedQrels",
    "ImpressionLog",
    "Interactions",
    "ItemFeatures",
    "Labels",
    "Prefs",
    "Qrels",
    "Run",
    "SessionMatrix",
    "Vocabulary",
    "ZScores",
    "check_distinct_names",
    "column_names",
    "native",
    "is_frame",
    "to_frame",
]
