"""Click logs: what users were shown and what they clicked, one row per shown result.

Read by `rankscope.read.clicks` (which checks every row and orders them); built by
`rankscope.clicks.simulate` too.  Sessions, queries, documents and shown-ranking ids are
interned into integer codes; rows are ordered by session (in order of first appearance)
and, within a session, by position, which runs 1, 2, ..., n without a gap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .frames import to_frame
from .vocabulary import Vocabulary


@dataclass(frozen=True)
class SessionMatrix:
    """A click log as rectangles, one row per session (for the click models).

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


@dataclass(frozen=True, eq=False)
class ClickLog:
    """One row per shown result: (session, query, position, document, clicked[, timestamp]
    [, shown ranking id]), ordered by session, then position (1-based, no gaps)."""

    sessions: Vocabulary
    queries: Vocabulary
    docs: Vocabulary
    session: np.ndarray  # int32 codes into `sessions`, non-decreasing
    query: np.ndarray  # int32 codes into `queries`
    position: np.ndarray  # int64, 1..n within each session
    doc: np.ndarray  # int32 codes into `docs`
    clicked: np.ndarray  # bool
    timestamp: np.ndarray | None = None  # float64
    ranking: np.ndarray | None = None  # int32 codes into `rankings`
    rankings: Vocabulary | None = None
    source: str = "<click log>"
    line: np.ndarray | None = None  # input line (files) or row (frames) of each row

    def __len__(self) -> int:
        return len(self.session)

    @property
    def starts(self) -> np.ndarray:
        """int64 (S + 1,): session ``s`` holds rows ``starts[s]:starts[s + 1]``."""
        if len(self.session) == 0:
            return np.zeros(1, dtype=np.int64)
        new = np.flatnonzero(np.diff(self.session) != 0) + 1
        return np.concatenate(([0], new, [len(self.session)])).astype(np.int64)

    @property
    def num_sessions(self) -> int:
        return len(self.starts) - 1

    @property
    def num_clicks(self) -> int:
        return int(self.clicked.sum())

    def matrix(self) -> SessionMatrix:
        """The log as a `SessionMatrix` (sessions in the log's order)."""
        starts = self.starts
        length = np.diff(starts)
        depth = int(length.max()) if len(length) else 0
        row_session = np.repeat(np.arange(len(length)), length)
        col = (self.position - 1).astype(np.int64)
        doc = np.full((len(length), depth), -1, dtype=np.int32)
        clicked = np.zeros((len(length), depth), dtype=bool)
        doc[row_session, col] = self.doc
        clicked[row_session, col] = self.clicked
        return SessionMatrix(self.query[starts[:-1]], doc, clicked, length.astype(np.int64))

    def take_sessions(self, sessions: np.ndarray) -> ClickLog:
        """The log of the sessions ``sessions`` (indices in the log's order, ascending)."""
        starts = self.starts
        keep = np.zeros(self.num_sessions, dtype=bool)
        keep[np.asarray(sessions, dtype=np.int64)] = True
        rows = np.flatnonzero(np.repeat(keep, np.diff(starts)))

        def pick(a):
            return None if a is None else a[rows]

        return ClickLog(
            self.sessions, self.queries, self.docs, self.session[rows], self.query[rows],
            self.position[rows], self.doc[rows], self.clicked[rows], pick(self.timestamp),
            pick(self.ranking), self.rankings, self.source, pick(self.line),
        )  # fmt: skip

    def split(self, test_fraction: float, seed: int = 0) -> tuple[ClickLog, ClickLog]:
        """(training, test): a seeded random ``test_fraction`` of the sessions held out."""
        rng = np.random.default_rng(seed)
        n = self.num_sessions
        test = np.zeros(n, dtype=bool)
        test[rng.permutation(n)[: int(round(test_fraction * n))]] = True
        return self.take_sessions(np.flatnonzero(~test)), self.take_sessions(np.flatnonzero(test))

    def columns(self) -> dict[str, list]:
        """The log as columns of plain values: ``session``, ``query``, ``position``,
        ``doc``, ``clicked`` (0/1), and ``timestamp`` and ``ranking`` when present."""
        out: dict[str, list] = {
            "session": self.sessions.strings_of(self.session),
            "query": self.queries.strings_of(self.query),
            "position": self.position.tolist(),
            "doc": self.docs.strings_of(self.doc),
            "clicked": self.clicked.astype(np.int64).tolist(),
        }
        if self.timestamp is not None:
            out["timestamp"] = self.timestamp.tolist()
        if self.ranking is not None and self.rankings is not None:
            out["ranking"] = self.rankings.strings_of(self.ranking)
        return out

    def to_frame(self, output: str = "pandas") -> Any:
        """The log as a DataFrame (``output``: ``pandas``, ``polars`` or ``dict``) with the
        columns of `columns`, which `rankscope.clicks.read_clicks` reads back."""
        return to_frame(self.columns(), output)
