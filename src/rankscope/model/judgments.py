"""trec_eval's other judgment formats and its z-score table, as plain data.

* `Prefs`: preference judgments (``-R prefs``, ``-R qrels_prefs``), one row per line
  (query, judgment group, sub-group, document, level); `rankscope.judge.prefs` counts
  them against a run.
* `GroupedQrels`: judgments in judgment groups (``-R qrels_jg``), one row per (query,
  group, document) with a grade.
* `ZScores`: trec_eval's ``-Z`` table, the mean and standard deviation of each (query,
  measure); `rankscope.table.zscores` applies it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .tables import Qrels, _Judged
from .vocabulary import Vocabulary

#: The value trec_eval gives a z-score it cannot compute (query or measure not in the table).
MISSING_ZSCORE = -1000000.0

#: Joins a query id and a group name into the id of the pair; sorts before any character, so
#: pairs sort by query, then group.
PAIR_SEPARATOR = "\x00"


@dataclass(frozen=True, eq=False)
class Prefs(_Judged):
    """Preference judgments: one row per line (query, JG, JSG, document, level)."""

    labels: Vocabulary  # names of the judgment groups and sub-groups
    group: np.ndarray  # int32 codes into `labels`
    subgroup: np.ndarray  # int32 codes into `labels`
    level: np.ndarray  # float64
    source: str = "<prefs>"
    line: np.ndarray | None = None

    def judged_documents(self) -> Qrels:
        """Each (query, document) of the judgments once, as qrels (for `judge`)."""
        width = max(len(self.docs), 1)
        key = np.unique(self.query.astype(np.int64) * width + self.doc)
        return Qrels(
            self.queries, self.docs, (key // width).astype(np.int32),
            (key % width).astype(np.int32), np.ones(len(key), dtype=np.int64),
            source=self.source,
        )  # fmt: skip


@dataclass(frozen=True, eq=False)
class GroupedQrels(_Judged):
    """Judgments ``qid jg docno grade``: one row per (query, judgment group, document)."""

    grade: np.ndarray  # int64
    groups: Vocabulary  # judgment group names
    group: np.ndarray  # int32 codes into `groups`
    source: str = "<qrels_jg>"
    line: np.ndarray | None = None

    def pairs(self) -> tuple[Qrels, dict[str, list[str]]]:
        """Qrels whose queries are the (query, group) pairs, and each query's pair ids."""
        qs, gs = self.queries.strings, self.groups.strings
        pair_ids = [
            qs[q] + PAIR_SEPARATOR + gs[g]
            for q, g in zip(self.query.tolist(), self.group.tolist(), strict=True)
        ]
        vocabulary = Vocabulary()
        codes = vocabulary.intern_many(pair_ids)
        of_query: dict[str, list[str]] = {}
        for pair in vocabulary.strings:
            of_query.setdefault(pair.split(PAIR_SEPARATOR, 1)[0], []).append(pair)
        qrels = Qrels(
            vocabulary, self.docs, codes, self.doc, self.grade, source=self.source, line=self.line
        )
        return qrels, of_query


@dataclass(frozen=True)
class ZScores:
    """Mean and standard deviation of each (query, measure label)."""

    table: dict[tuple[str, str], tuple[float, float]]
    source: str = "<zscores>"

    def standardise(self, query_id: str, label: str, value: float) -> float:
        entry = self.table.get((query_id, label))
        if entry is None:
            return MISSING_ZSCORE
        mean, stddev = entry
        if stddev:
            return (value - mean) / stddev
        return 0.0 if value == mean else MISSING_ZSCORE
