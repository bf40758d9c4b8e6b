"""Logs of shown results: what users were shown, and what they clicked, one row per result.

One container, `ImpressionLog`, holds every such log: click logs for click models, logs of
rankings shown under a logging policy with its propensities (counterfactual estimators), and
logs of interleaved lists (interleaving).  Read by `rankscope.read.impressions` (which
checks every row and orders them); built by `rankscope.clicks.simulate` too.

Words: a *session* (or impression) is one showing of a list to a user; its *query* the
context; the *ranking* the id of the list shown (the same list may be shown in many
sessions); the *team* (interleaved logs) the ranking that placed a result.  The logging
policy's probabilities of what was shown:

* ``propensity``: of this document at this position, π₀(d at k | x) (item-position);
* ``prefix_propensity``: of the documents shown at positions 1..k, π₀(a₁..a_k | x);
* ``slate_propensity``: of the whole ranking shown, π₀(a | x) (the same on each of its rows).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .frames import to_frame
from .vocabulary import Vocabulary


@dataclass(frozen=True)
class SessionMatrix:
    """A log as rectangles, one row per session (for the click models).

    ``doc[s, r]`` is the document code at position ``r + 1`` of session ``s`` (-1 past its
    last position), ``clicked[s, r]`` whether it was clicked (False past the end),
    ``length[s]`` the number of results shown, ``query[s]`` the query code.
    """

    query: np.ndarray  # int32 (S,)
    doc: np.ndarray  # int32 (S, K), -1 padded
    clicked: np.ndarray  # bool (S, K)
    length: np.ndarray  # int64 (S,)

    @property
    def shown(self) -> np.ndarray:
        """bool (S, K): the cells that hold a shown result."""
        return self.doc >= 0

    @property
    def depth(self) -> int:
        """The largest number of results any session showed (K)."""
        return int(self.doc.shape[1])


#: The optional per-row columns, in the order `ImpressionLog.columns` lists them.
OPTIONAL = (
    "timestamp", "ranking", "team", "propensity", "prefix_propensity", "slate_propensity"
)  # fmt: skip


@dataclass(frozen=True, eq=False)
class ImpressionLog:
    """One row per shown result, ordered by session, then position.

    The rules every log keeps (the reader checks them): ``session`` holds the codes
    0, 1, ..., S - 1 of ``sessions`` in order (sessions in order of first appearance in the
    input); a session has one query, one ranking id and one slate propensity, and distinct
    positions (1-based; gaps allowed); ``click`` is finite (0/1 clicks, or any real reward);
    propensities lie in (0, 1] and a prefix propensity does not grow down a session.  A
    consumer that needs more checks it: click models and interleaving positions 1, 2, ...,
    n without a gap and each document once per session (`rankscope.read.impressions.
    check_click_log`), click models 0/1 clicks.

    Optional columns are None when the log has none.  ``line`` holds each row's input line
    (``from_text``) or row (frames and dicts, counted from 0), for messages (`where`).
    """

    sessions: Vocabulary
    queries: Vocabulary
    docs: Vocabulary
    session: np.ndarray  # int32 codes into `sessions`: 0, 0, ..., 1, ..., S - 1
    query: np.ndarray  # int32 codes into `queries`
    position: np.ndarray  # int64, 1-based, distinct within a session
    doc: np.ndarray  # int32 codes into `docs`
    click: np.ndarray  # float64: 0/1, or a real reward
    timestamp: np.ndarray | None = None  # float64
    ranking: np.ndarray | None = None  # int32 codes into `rankings`
    rankings: Vocabulary | None = None
    team: np.ndarray | None = None  # int8: +1 ranking a, -1 ranking b, 0 neither
    propensity: np.ndarray | None = None  # float64, π₀(doc at position | query)
    prefix_propensity: np.ndarray | None = None  # float64, π₀(docs at 1..position | query)
    slate_propensity: np.ndarray | None = None  # float64, π₀(the session's ranking | query)
    source: str = "<impression log>"
    line: np.ndarray | None = None  # int64: input line (from_text) or row of each row
    from_text: bool = False

    def __len__(self) -> int:
        return len(self.session)

    def where(self, row: int) -> str:
        """Where row ``row`` came from: ``source:line`` (text) or ``source: row r``."""
        if self.line is None:
            return f"{self.source}: row {row}"
        at = int(self.line[row])
        return f"{self.source}:{at}" if self.from_text else f"{self.source}: row {at}"

    @property
    def clicked(self) -> np.ndarray:
        """bool: whether each shown result was clicked (a nonzero click or reward)."""
        return self.click != 0

    @property
    def starts(self) -> np.ndarray:
        """int64 (S + 1,): session ``s`` holds rows ``starts[s]:starts[s + 1]``."""
        if len(self.session) == 0:
            return np.zeros(1, dtype=np.int64)
        new = np.flatnonzero(np.diff(self.session) != 0) + 1
        return np.concatenate(([0], new, [len(self.session)])).astype(np.int64)

    @property
    def num_sessions(self) -> int:
        """How many sessions (impressions) the log holds."""
        return len(self.starts) - 1

    @property
    def num_clicks(self) -> int:
        return int(self.clicked.sum())

    @property
    def session_query(self) -> np.ndarray:
        """The query code of each session (int32, one per session)."""
        return self.query[self.starts[:-1]]

    def matrix(self) -> SessionMatrix:
        """The log as a `SessionMatrix` (sessions in the log's order; positions must run
        1..n without a gap, as `rankscope.read.impressions.check_click_log` checks)."""
        starts = self.starts
        length = np.diff(starts)
        depth = int(length.max()) if len(length) else 0
        row_session = np.repeat(np.arange(len(length)), length)
        col = (self.position - 1).astype(np.int64)
        doc = np.full((len(length), depth), -1, dtype=np.int32)
        clicked = np.zeros((len(length), depth), dtype=bool)
        doc[row_session, col] = self.doc
        clicked[row_session, col] = self.clicked
        return SessionMatrix(self.session_query, doc, clicked, length.astype(np.int64))

    def take_sessions(self, sessions: np.ndarray) -> ImpressionLog:
        """The log of the sessions ``sessions`` (indices in the log's order), their codes
        renumbered 0, 1, ... in the log's order."""
        keep = np.zeros(self.num_sessions, dtype=bool)
        keep[np.asarray(sessions, dtype=np.int64)] = True
        rows = np.flatnonzero(np.repeat(keep, np.diff(self.starts)))
        kept = np.flatnonzero(keep)
        recode = np.full(self.num_sessions, -1, dtype=np.int32)
        recode[kept] = np.arange(len(kept), dtype=np.int32)
        picked: dict[str, Any] = {
            name: None if getattr(self, name) is None else getattr(self, name)[rows]
            for name in ("query", "position", "doc", "click", "line", *OPTIONAL)
        }
        return replace(
            self, sessions=Vocabulary(self.sessions.strings_of(kept.astype(np.int32))),
            session=recode[self.session[rows]], **picked,
        )  # fmt: skip

    def split(self, test_fraction: float, seed: int = 0) -> tuple[ImpressionLog, ImpressionLog]:
        """(training, test): a seeded random ``test_fraction`` of the sessions held out."""
        rng = np.random.default_rng(seed)
        n = self.num_sessions
        test = np.zeros(n, dtype=bool)
        test[rng.permutation(n)[: int(round(test_fraction * n))]] = True
        return self.take_sessions(np.flatnonzero(~test)), self.take_sessions(np.flatnonzero(test))

    def columns(self) -> dict[str, list]:
        """The log as columns of plain values: ``session``, ``query``, ``position``,
        ``doc``, ``clicked`` (whole clicks as integers, else the rewards), then each optional
        column present (``ranking`` and ``team`` as ids: ``a``, ``b``, empty)."""
        clicks = self.click
        whole = bool(np.all(clicks == np.round(clicks)))
        out: dict[str, list] = {
            "session": self.sessions.strings_of(self.session),
            "query": self.queries.strings_of(self.query),
            "position": self.position.tolist(),
            "doc": self.docs.strings_of(self.doc),
            "clicked": clicks.astype(np.int64).tolist() if whole else clicks.tolist(),
        }
        for name in OPTIONAL:
            values = getattr(self, name)
            if values is None:
                continue
            if name == "ranking":
                if self.rankings is not None:
                    out[name] = self.rankings.strings_of(values)
            elif name == "team":
                out[name] = [{1: "a", -1: "b"}.get(int(t), "") for t in values.tolist()]
            else:
                out[name] = values.tolist()
        return out

    def to_frame(self, output: str = "pandas") -> Any:
        """The log as a DataFrame (``output``: ``pandas``, ``polars`` or ``dict``) with the
        columns of `columns`, which `rankscope.read.impressions.read_impressions` reads
        back."""
        return to_frame(self.columns(), output)
