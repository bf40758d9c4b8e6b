"""Preference-based evaluation: compare rankings directly rather than through a metric.

`preferences` computes, for every query, the preference of each run over each other run
(recall-paired preference and its variants, lexicographic preferences, offline interleaving
built on `rankscope.interleaving`)
and aggregates them into an ordering of systems; `rankscope.preference.learned` fits RPP's
weights over recall levels to labelled preferences (exported by `rankscope.clicks`).
`METHODS` is the one declaration of each method; the measure registry builds its preference
measures from it.
"""

from __future__ import annotations

from .aggregate import borda, bradley_terry, mc4, mean_preference, query_orderings, win_rates
from .methods import (
    METHODS,
    Method,
    Option,
    PreferenceResult,
    compute,
    method_named,
    offline_interleaving,
    unknown_method,
)
from .recall import LevelMeasure, RecallLevel, RecallLevels, level_measure, level_view
from .rpp import graded_rpp, lexiprecision, lexirecall, recall_weights, rpp, subtopic_rpp

__all__ = [
    "LevelMeasure",
    "RecallLevel",
    "RecallLevels",
    "level_measure",
    "level_view",
    "offline_interleaving",
    "METHODS",
    "Method",
    "Option",
    "PreferenceResult",
    "borda",
    "bradley_terry",
    "graded_rpp",
    "lexiprecision",
    "lexirecall",
    "mc4",
    "mean_preference",
    "compute",
    "method_named",
    "query_orderings",
    "recall_weights",
    "rpp",
    "subtopic_rpp",
    "unknown_method",
    "win_rates",
]
