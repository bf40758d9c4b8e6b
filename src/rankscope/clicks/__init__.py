"""Evaluation from log data: clicks on result lists.

* `interleave`: online interleaving from a click log of interleaved lists (team draft,
  balanced, probabilistic), interleaved lists generated from two runs, the sign test over
  impressions, its power, and the uniform-p(k) variant (docs/clicks.md, "Interleaving from
  clicks").

`clicks` sits above `preference` (it shares the interleaving code) and `read` (the logs).
"""

from .interleave import (
    InterleavedList,
    InterleavingOutcomes,
    UniformDepth,
    assignment_posteriors,
    balanced_credit,
    impressions_needed,
    interleaved_list,
    interleaved_lists,
    interleaving_outcomes,
    probabilistic_outcome,
    sign_test_power,
    team_draft_credit,
    uniform_depth,
    write_lists,
)

__all__ = [
    "InterleavedList",
    "InterleavingOutcomes",
    "UniformDepth",
    "assignment_posteriors",
    "balanced_credit",
    "impressions_needed",
    "interleaved_list",
    "interleaved_lists",
    "interleaving_outcomes",
    "probabilistic_outcome",
    "sign_test_power",
    "team_draft_credit",
    "uniform_depth",
    "write_lists",
]
