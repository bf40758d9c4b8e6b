"""The one place that orders and joins: runs × judgments → `Judged`.

* `join`: `judge` (order each run by score, then the tie policy; join with the judgments),
  `order_run`, `JoinReport`;
* `judged`: `Judged` and its `Ranked` batches, the measure kernels' input;
* `aspects`: per-subtopic judgments kept for the diversity measures;
* `relevance`: `RelevanceTable`, where each run ranks each relevant document (preferences);
  `RelevantDocs` and `judged_positions`, one run's ranks of them (runs read one at a time);
* `prefs`: preference judgments counted against a run (trec_eval ``-R prefs``);
* `groups`: judgment groups expanded into ordinary judgments (``-R qrels_jg``).
"""

from .join import TIE_POLICIES, JoinOptions, JoinReport, judge, order_run
from .judged import BEYOND, NONPOOL, PAD, UNJUDGED, Judged, Ranked
from .relevance import (
    NOT_RETRIEVED,
    RelevanceTable,
    RelevantDocs,
    judged_positions,
    relevance_table,
    relevant_docs,
    warn_unranked,
)

__all__ = [
    "BEYOND",
    "NONPOOL",
    "NOT_RETRIEVED",
    "PAD",
    "TIE_POLICIES",
    "UNJUDGED",
    "JoinOptions",
    "JoinReport",
    "Judged",
    "Ranked",
    "RelevanceTable",
    "RelevantDocs",
    "judge",
    "judged_positions",
    "order_run",
    "relevance_table",
    "relevant_docs",
    "warn_unranked",
]
