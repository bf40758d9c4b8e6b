"""A log of rankings shown under a logging policy, with that policy's propensities: the input
of counterfactual (off-policy) evaluation, `rankscope.clicks.estimators`.

One row per shown (session, position): the session (one impression of a ranking), its query
(the context), the position (1 = top), the document shown there, its click (or any real
reward), and the logging policy's probabilities of what was shown:

* ``propensity``: of this document at this position, π₀(d at k | x) (item-position);
* ``prefix_propensity``: of the documents shown at positions 1..k, π₀(a₁..a_k | x);
* ``slate_propensity``: of the whole ranking shown, π₀(a | x) (the same on each of its rows).

Read by `rankscope.read.slates` (which checks every rule stated on `LoggedSlates`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .vocabulary import Vocabulary


@dataclass(frozen=True, eq=False)
class LoggedSlates:
    """Logged rankings, one row per (session, position), sorted by session then position.

    ``session`` holds dense codes 0..n-1 (``session_ids`` their ids); a session has one query
    and distinct positions; propensities lie in (0, 1] and are None when the log has none of
    that kind; ``click`` is finite (0/1 clicks or any real reward)."""

    queries: Vocabulary
    docs: Vocabulary
    session: np.ndarray  # int64, dense codes, non-decreasing
    query: np.ndarray  # int32 codes into `queries`
    position: np.ndarray  # int64, 1-based
    doc: np.ndarray  # int32 codes into `docs`
    click: np.ndarray  # float64
    propensity: np.ndarray | None = None  # float64, π₀(doc at position | query)
    prefix_propensity: np.ndarray | None = None  # float64, π₀(docs at 1..position | query)
    slate_propensity: np.ndarray | None = None  # float64, π₀(the session's ranking | query)
    session_ids: tuple[str, ...] = ()
    source: str = "<log>"

    def __len__(self) -> int:
        return len(self.session)

    @property
    def num_sessions(self) -> int:
        """How many sessions (impressions) the log holds."""
        return int(self.session[-1]) + 1 if len(self.session) else 0

    @property
    def session_query(self) -> np.ndarray:
        """The query code of each session (int32, one per session)."""
        out = np.empty(self.num_sessions, dtype=np.int32)
        out[self.session] = self.query
        return out
