"""Interleaving: one table of methods, offline (from judgments) and online (from clicks).

An interleaving experiment merges two rankings into one list, shows it, and credits each
click to the ranking that contributed the clicked document; the ranking with more credited
clicks wins the impression.  Everything here reads one table,
`rankscope.interleaving.methods.METHODS` (team draft, balanced, probabilistic: each its
names, how it builds a list, how it credits clicks and the expected sign of an outcome):

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

from .methods import (
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
from .offline import (
    MAX_STATES,
    Browsing,
    browsing_distribution,
    dcg,
    expected_outcome,
    interleaving_matrix,
    offline_interleaving_preference,
    relevant_mask,
    uniform,
)
from .online import (
    interleaved_lists,
    interleaving_outcomes,
    preference_from_clicks,
    rankings_of,
    read_interleaving_log,
    write_lists,
)
from .outcomes import EXACT_FLIPS, InterleavingOutcomes, UniformDepth, uniform_depth
from .power import impressions_needed, sign_test, sign_test_power

__all__ = [
    "EXACT_FLIPS",
    "MAX_STATES",
    "METHODS",
    "TAU",
    "Browsing",
    "Interleaving",
    "InterleavingMethod",
    "InterleavingOutcomes",
    "UniformDepth",
    "assignment_posteriors",
    "balanced",
    "balanced_credit",
    "browsing_distribution",
    "dcg",
    "expected_outcome",
    "impressions_needed",
    "interleaved_list",
    "interleaved_lists",
    "interleaving_matrix",
    "interleaving_outcomes",
    "method_named",
    "offline_interleaving_preference",
    "preference_from_clicks",
    "probabilistic_interleave",
    "probabilistic_outcome",
    "rankings_of",
    "read_interleaving_log",
    "relevant_mask",
    "sign_test",
    "sign_test_power",
    "team_draft",
    "team_draft_credit",
    "uniform",
    "uniform_depth",
    "write_lists",
]
