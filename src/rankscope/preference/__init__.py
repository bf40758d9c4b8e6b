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

from typing import TYPE_CHECKING

import lazy_loader

#: Public names, imported from their module on first use, so that a module that needs one
#: of them (the measure registry: the preference methods' table) loads no other.
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "aggregate": [
            "borda", "bradley_terry", "mc4", "mc4_positions", "mean_preference",
            "query_orderings", "query_positions", "win_rates",
        ],
        "methods": [
            "METHODS", "Method", "Option", "PreferenceResult", "compute", "method_named",
            "offline_interleaving", "unknown_method"
        ],
        "recall": ["LevelMeasure", "RecallLevel", "RecallLevels", "level_measure", "level_view"],
        "rpp": [
            "graded_rpp", "lexiprecision", "lexirecall", "recall_weights", "rpp", "rpp_together",
            "subtopic_rpp",
        ],
    },
)

if TYPE_CHECKING:  # pragma: no cover
    from .aggregate import (  # noqa: F401
        borda,
        bradley_terry,
        mc4,
        mc4_positions,
        mean_preference,
        query_orderings,
        query_positions,
        win_rates,
    )
    from .methods import (  # noqa: F401
        METHODS,
        Method,
        Option,
        PreferenceResult,
        compute,
        method_named,
        offline_interleaving,
        unknown_method,
    )
    from .recall import (  # noqa: F401
        LevelMeasure,
        RecallLevel,
        RecallLevels,
        level_measure,
        level_view,
    )
    from .rpp import (  # noqa: F401
        graded_rpp,
        lexiprecision,
        lexirecall,
        recall_weights,
        rpp,
        rpp_together,
        subtopic_rpp,
    )
