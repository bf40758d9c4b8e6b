"""Interaction logs and item features: users and items as integer codes, numpy columns.

Read by `rankscope.read.interactions` (which also merges a log's repeated pairs,
`keep_latest`) and `rankscope.read.features`; test interactions become `Qrels` (user = query,
item = document) through `Interactions.to_qrels`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError, UsageError
from .tables import Qrels
from .vocabulary import Vocabulary


@dataclass(frozen=True, eq=False)
class Interactions:
    """A log of (user, item[, rating][, timestamp]) rows, users and items as integer codes."""

    users: Vocabulary
    items: Vocabulary
    user: np.ndarray  # int32 codes into `users`
    item: np.ndarray  # int32 codes into `items`
    rating: np.ndarray | None  # float64, None for implicit feedback
    timestamp: np.ndarray | None = None  # float64
    source: str = "<interactions>"
    line: np.ndarray | None = None  # input line (files) or row (frames) of each row

    def __len__(self) -> int:
        return len(self.user)

    @property
    def user_ids(self) -> list[str]:
        """Ids of the users with at least one row, sorted as strings."""
        return sorted(self.users.strings_of(np.unique(self.user)))

    def keys(self, num_items: int | None = None) -> np.ndarray:
        """One int64 per row identifying the (user, item) pair."""
        n = max(len(self.items), 1) if num_items is None else num_items
        return self.user.astype(np.int64) * n + self.item

    def take(self, rows: np.ndarray) -> Interactions:
        def pick(a):
            return None if a is None else a[rows]

        return Interactions(
            self.users, self.items, self.user[rows], self.item[rows], pick(self.rating),
            pick(self.timestamp), self.source, pick(self.line),
        )  # fmt: skip

    def popularity(self, num_items: int) -> np.ndarray:
        """Number of distinct users who interacted with each item code."""
        key = np.unique(self.keys(num_items))
        return np.bincount(key % num_items, minlength=num_items).astype(np.int64)

    def to_qrels(self, threshold: float | None, relevance: str = "binary") -> Qrels:
        """Judgments: grade 1 for a rating >= ``threshold`` (every row when there are no
        ratings, or ``threshold`` is None), else 0; ``relevance="graded"``: the rating itself
        (an integer >= 1) for the relevant rows."""
        if relevance not in ("binary", "graded"):
            raise UsageError(f"relevance must be 'binary' or 'graded', not {relevance!r}")
        if self.rating is None or threshold is None:
            if relevance == "graded":
                raise UsageError("relevance='graded' needs ratings and a threshold")
            grade = np.ones(len(self), dtype=np.int64)
        else:
            relevant = self.rating >= threshold
            if relevance == "binary":
                grade = relevant.astype(np.int64)
            else:
                bad = relevant & ((self.rating != np.floor(self.rating)) | (self.rating < 1))
                if bad.any():
                    i = int(np.flatnonzero(bad)[0])
                    raise InputError(
                        f"{self.source}: relevance='graded' needs integer ratings >= 1 as "
                        f"gains; found {self.rating[i]!r} (row {i})"
                    )
                grade = np.where(relevant, self.rating, 0).astype(np.int64)
        line = None if self.line is None else self.line.astype(np.int32)
        return Qrels(
            self.users, self.items, self.user, self.item, grade, source=self.source, line=line
        )


@dataclass(frozen=True, eq=False)
class ItemFeatures:
    """A feature vector per item (genre flags, tags, embeddings)."""

    items: Vocabulary
    item: np.ndarray  # int32 codes of the items described, one per row of `matrix`
    matrix: np.ndarray  # float64 (rows, dimensions)
    names: list[str]
    source: str = "<features>"

    def rows_of(self, num_items: int) -> np.ndarray:
        """For each item code below ``num_items``: its row in `matrix`, -1 if undescribed."""
        rows = np.full(num_items, -1, dtype=np.int64)
        inside = self.item < num_items
        rows[self.item[inside]] = np.flatnonzero(inside)
        return rows

    @property
    def binary(self) -> bool:
        return bool(np.isin(self.matrix, (0.0, 1.0)).all())
