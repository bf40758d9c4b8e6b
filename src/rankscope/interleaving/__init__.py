"""Interleaving: one table of methods, offline (from judgments) and online (from clicks).

An interleaving experiment merges two rankings into one list, shows it, and credits each
click to the ranking that contributed the clicked document; the ranking with more credited
clicks wins the impression.  Everything here reads one table,
`rankscope.interleaving.methods.METHODS` (team draft, balanced, probabilistic: each its
names, how it builds a list, how it credits clicks and the expected sign of an outcome):

* `names`: each method's spellings and whether it is computed offline (no numpy: what the
  preference methods' table reads to declare ``OI``);
* `methods`: the table, the interleaved list (`Interleaving`) and its credit rules;
* `offline`: the experiment simulated from judgments (Diaz & Ferraro 2022, §5.5), exact over
  the coin flips, every pair of runs at once through the numpy kernels of `kernels`; the
  ``OI`` preference measure of `rankscope.preference` is built on it;
* `online`: the lists of an experiment built from two runs, and its click log (an
  `rankscope.model.ImpressionLog` read by `rankscope.read.impressions`, team +1/−1/0)
  scored;
* `outcomes`: the one outcome type (`InterleavingOutcomes`: wins, ties, losses per
  impression and in total, the preference and the sign test) and the uniform-p(k) variant;
* `power`: the sign test, its power and the impressions an experiment needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

#: Public names, imported from their module on first use, so that a module that needs one
#: of them (the measure registry: the preference methods' table) loads no other.
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "methods": [
            "METHODS", "TAU", "Interleaving", "InterleavingMethod", "assignment_posteriors",
            "balanced", "balanced_credit", "interleaved_list", "method_named",
            "probabilistic_interleave", "probabilistic_outcome", "team_draft", "team_draft_credit"
        ],
        "names": ["MAX_STATES"],
        "offline": [
            "Browsing", "all_pairs", "browsing_distribution", "dcg", "expected_outcome",
            "interleaving_matrix", "offline_interleaving_preference", "relevant_mask", "uniform"
        ],
        "online": [
            "interleaved_lists", "interleaving_outcomes", "preference_from_clicks", "rankings_of",
            "read_interleaving_log", "write_lists"
        ],
        "outcomes": ["EXACT_FLIPS", "InterleavingOutcomes", "UniformDepth", "uniform_depth"],
        "power": ["impressions_needed", "sign_test", "sign_test_power"],
    },
)

if TYPE_CHECKING:  # pragma: no cover
    from .methods import (  # noqa: F401
        METHODS,
        TAU,
        Interleaving,
        InterleavingMethod,
        assignment_posteriors,
        balanced,
        balanced_credit,
        interleaved_list,
        method_named,
        probabilistic_interleave,
        probabilistic_outcome,
        team_draft,
        team_draft_credit,
    )
    from .names import MAX_STATES  # noqa: F401
    from .offline import (  # noqa: F401
        Browsing,
        all_pairs,
        browsing_distribution,
        dcg,
        expected_outcome,
        interleaving_matrix,
        offline_interleaving_preference,
        relevant_mask,
        uniform,
    )
    from .online import (  # noqa: F401
        interleaved_lists,
        interleaving_outcomes,
        preference_from_clicks,
        rankings_of,
        read_interleaving_log,
        write_lists,
    )
    from .outcomes import (  # noqa: F401
        EXACT_FLIPS,
        InterleavingOutcomes,
        UniformDepth,
        uniform_depth,
    )
    from .power import (  # noqa: F401
        impressions_needed,
        sign_test,
        sign_test_power,
    )
