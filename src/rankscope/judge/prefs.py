"""Preference judgments (trec_eval ``-R prefs`` and ``-R qrels_prefs``) counted against a run.

Judgments are lines ``qid jg jsg docno rel_level``.  Within a judgment group (JG: one user's
information need at one time), a sub-group (JSG) ranks its documents by ``rel_level``: every
document is preferred to every document of the same JSG with a lower level.  A JG with one
JSG is a set of equivalence classes (the documents of each level, best first); a JG with
several JSGs is a partial order, closed under transitivity (A > B in one JSG and B > C in
another give A > C) and required to be consistent.  Level 0 marks a non-relevant document.
Different JGs may disagree.  (Carterette, Bennett, Chickering & Dumais, "Here or there:
preference judgments for relevance", ECIR 2008; trec_eval's get_prefs.c.)

For a run, `query_preferences` turns a query's judgments into counts per JG of preferences
A > B fulfilled and possible: both A and B retrieved ("ret": fulfilled when A ranks above
B), exactly one retrieved ("imp": fulfilled when it is A), or neither ("notoccur", never
fulfilled).  The measures of `rankscope.measures.trec_prefs` read these counts;
`rankscope.table.prefs` evaluates them.

Documents are numbered as trec_eval numbers them (its "docid ranks"): the judged documents
the run retrieves by rank (0, 1, ...), then the judged documents it does not retrieve, by
document id.  Only preferences among judged documents count; the run is ordered by score,
ties by document id *ascending* (trec_eval's order for preferences, where qrels use
descending), and ``max_docs`` keeps the top of each ranking.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..model import Prefs


@dataclass(eq=False)
class JudgmentGroup:
    """One judgment group of a query: its preferences, counted against a run.

    ``possible_*`` include the fulfilled ones.  Documents are docid ranks (see the module).
    """

    name: str
    fulfilled_ret: int
    possible_ret: int
    fulfilled_imp: int
    possible_imp: int
    possible_notoccur: int
    num_rel: int  # documents with level > 0
    num_rel_ret: int
    num_nonrel: int  # documents with level 0 (and, with one sub-group, below 0)
    num_nonrel_ret: int
    classes: list[np.ndarray] | None = None  # one JSG: documents per level, best level first
    preferred: np.ndarray | None = None  # several JSGs: the pairs of the closed order
    other: np.ndarray | None = None
    levels: np.ndarray | None = None  # several JSGs: level per document (-1: not judged here)

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Every preference (preferred, other) of the group (repeated documents repeat)."""
        if self.classes is None:
            assert self.preferred is not None and self.other is not None  # several JSGs
            return self.preferred, self.other
        firsts, seconds = [], []
        for a, better in enumerate(self.classes):
            for worse in self.classes[a + 1 :]:
                firsts.append(np.repeat(better, len(worse)))
                seconds.append(np.tile(worse, len(better)))
        if not firsts:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate(firsts), np.concatenate(seconds)


@dataclass(eq=False)
class QueryPreferences:
    """A query's judgment groups against a run (trec_eval's RESULTS_PREFS)."""

    query_id: str
    num_judged: int  # documents in the query's judgments
    num_judged_ret: int  # those the run retrieves
    groups: list[JudgmentGroup]

    @functools.cached_property
    def pair_counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Document pairs (i, j), i < j, that some group orders, sorted by (i, j); for each,
        the number of groups preferring i to j and the number preferring j to i."""
        pairs = [g.pairs() for g in self.groups]
        first = np.concatenate([p for p, _ in pairs]).astype(np.int64)
        second = np.concatenate([o for _, o in pairs]).astype(np.int64)
        low, high = np.minimum(first, second), np.maximum(first, second)
        keys, index = np.unique(low * max(self.num_judged, 1) + high, return_inverse=True)
        forward = np.bincount(index, weights=first < second, minlength=len(keys))
        total = np.bincount(index, minlength=len(keys))
        width = max(self.num_judged, 1)
        return keys // width, keys % width, forward, total - forward


def byte_ranks(strings: Sequence[str]) -> np.ndarray:
    """Position of each string in C's strcmp order (bytes), as trec_eval sorts names."""
    keys = [s.encode("utf-8", "surrogateescape") for s in strings]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    ranks = np.empty(len(keys), dtype=np.int64)
    ranks[order] = np.arange(len(keys))
    return ranks


def _tally(first: np.ndarray, second: np.ndarray, njr: int) -> tuple[int, int, int, int, int]:
    """(fulfilled_ret, possible_ret, fulfilled_imp, possible_imp, possible_notoccur) of the
    preferences first > second."""
    ret1, ret2 = first < njr, second < njr
    both = ret1 & ret2
    fulfilled_imp = int(np.count_nonzero(ret1 & ~ret2))
    return (
        int(np.count_nonzero(both & (first < second))),
        int(np.count_nonzero(both)),
        fulfilled_imp,
        fulfilled_imp + int(np.count_nonzero(~ret1 & ret2)),
        int(np.count_nonzero(~ret1 & ~ret2)),
    )


class _Query:
    """What building one query's groups needs: names for messages, the docid ranks."""

    def __init__(self, source: str, query_id: str, names: list[str], njr: int) -> None:
        self.source, self.query_id, self.names, self.njr = source, query_id, names, njr

    def error(self, group: str, message: str) -> InputError:
        return InputError(
            f"{self.source}: query '{self.query_id}', judgment group '{group}': {message}"
        )


def _classes_group(q: _Query, name: str, levels: np.ndarray, ranks: np.ndarray):
    """A group with one sub-group: equivalence classes by level (rows sorted by level
    descending, then rank)."""
    cuts = np.flatnonzero(levels[1:] != levels[:-1]) + 1
    classes = np.split(ranks, cuts)
    class_levels = levels[np.concatenate(([0], cuts)).astype(np.int64)].tolist()
    counts = [0, 0, 0, 0, 0]
    rel = [0, 0, 0, 0]  # num_rel, num_rel_ret, num_nonrel, num_nonrel_ret
    for a, better in enumerate(classes):
        retrieved = int(np.count_nonzero(better < q.njr))
        at = 0 if class_levels[a] > 0.0 else 2
        rel[at] += len(better)
        rel[at + 1] += retrieved
        better_ret, better_unret = better[:retrieved], len(better) - retrieved
        for worse in classes[a + 1 :]:
            common = np.intersect1d(better, worse)
            if len(common):
                raise q.error(
                    name, f"document '{q.names[common[0]]}' has two relevance levels in one "
                    "sub-group",
                )  # fmt: skip
            worse_ret = worse[worse < q.njr]
            worse_unret = len(worse) - len(worse_ret)
            # retrieved pairs in order: the worse document ranks below the better one
            below = len(worse_ret) - np.searchsorted(worse_ret, better_ret, side="right")
            counts[0] += int(below.sum())
            counts[1] += len(better_ret) * len(worse_ret)
            counts[2] += len(better_ret) * worse_unret
            counts[3] += len(better_ret) * worse_unret + better_unret * len(worse_ret)
            counts[4] += better_unret * worse_unret
    fulfilled_ret, possible_ret, fulfilled_imp, possible_imp, notoccur = counts
    num_rel, num_rel_ret, num_nonrel, num_nonrel_ret = rel
    return JudgmentGroup(
        name, fulfilled_ret, possible_ret, fulfilled_imp, possible_imp, notoccur, num_rel,
        num_rel_ret, num_nonrel, num_nonrel_ret, classes=classes,
    )  # fmt: skip


def _order_group(q: _Query, name: str, num_judged: int, subgroups, levels, ranks):
    """A group with several sub-groups: the transitive closure of the sub-groups' orders
    (rows sorted by sub-group, level descending, rank)."""
    # Each document's level is the last one met; 0 and > 0 in a row is inconsistent.
    by_doc = np.lexsort((np.arange(len(ranks)), ranks))
    doc_sorted, level_sorted = ranks[by_doc], levels[by_doc]
    same = doc_sorted[1:] == doc_sorted[:-1]
    before, after = level_sorted[:-1], level_sorted[1:]
    bad = same & (((before > 0) & (after == 0)) | ((before == 0) & (after > 0)))
    if bad.any():
        doc = q.names[doc_sorted[np.argmax(bad)]]
        raise q.error(name, f"document '{doc}' has both 0 and non-0 relevance levels")
    last = np.flatnonzero(np.append(doc_sorted[1:] != doc_sorted[:-1], True))
    level_of = np.full(num_judged, -1.0)
    level_of[doc_sorted[last]] = level_sorted[last]

    members = np.unique(ranks)
    local = np.searchsorted(members, ranks)
    reach = np.eye(len(members), dtype=bool)
    cuts = np.flatnonzero(subgroups[1:] != subgroups[:-1]) + 1
    for rows in np.split(np.arange(len(ranks)), cuts):
        better, worse = np.nonzero(levels[rows][:, None] > levels[rows][None, :])
        reach[local[rows[better]], local[rows[worse]]] = True
    while True:  # reflexive-transitive closure by repeated squaring
        as_float = reach.astype(np.float32)
        closed = (as_float @ as_float) > 0
        if np.array_equal(closed, reach):
            break
        reach = closed
    np.fill_diagonal(reach, False)
    conflict = reach & reach.T
    if conflict.any():
        i, j = np.argwhere(conflict)[0]
        raise q.error(
            name, f"documents '{q.names[members[i]]}' and '{q.names[members[j]]}' are each "
            "preferred to the other (a judgment group must be consistent)",
        )  # fmt: skip
    better, worse = np.nonzero(reach)
    preferred, other = members[better], members[worse]
    ret_levels = level_of[: q.njr]
    rel = (
        int(np.count_nonzero(level_of > 0.0)),
        int(np.count_nonzero(ret_levels > 0.0)),
        int(np.count_nonzero(level_of == 0.0)),
        int(np.count_nonzero(ret_levels == 0.0)),
    )
    return JudgmentGroup(
        name, *_tally(preferred, other, q.njr), *rel, preferred=preferred, other=other,
        levels=level_of,
    )  # fmt: skip


def query_preferences(
    prefs: Prefs, rows: np.ndarray, retrieved: np.ndarray, label_ranks: np.ndarray | None = None
) -> QueryPreferences:
    """The judgment groups of one query (``rows`` of ``prefs``) against a run that retrieves
    the judged documents ``retrieved`` (document codes, in rank order)."""
    label_ranks = byte_ranks(prefs.labels.strings) if label_ranks is None else label_ranks
    doc = prefs.doc[rows]
    judged = np.unique(doc)
    unretrieved = judged[~np.isin(judged, retrieved)]
    unretrieved = unretrieved[np.argsort(byte_ranks(prefs.docs.strings_of(unretrieved)))]
    numbered = np.concatenate((retrieved, unretrieved)).astype(np.int64)
    sorter = np.argsort(numbered)
    rank = sorter[np.searchsorted(numbered, doc, sorter=sorter)]
    query_id = prefs.queries.strings[int(prefs.query[rows[0]])]
    q = _Query(prefs.source, query_id, prefs.docs.strings_of(numbered), len(retrieved))

    level = prefs.level[rows]
    group, subgroup = label_ranks[prefs.group[rows]], label_ranks[prefs.subgroup[rows]]
    order = np.lexsort((rank, -level, subgroup, group))
    rank, level, group, subgroup = rank[order], level[order], group[order], subgroup[order]
    names = prefs.labels.strings_of(prefs.group[rows][order])
    groups = []
    bounds = np.flatnonzero(np.diff(group)) + 1
    for start, stop in zip(
        np.concatenate(([0], bounds)).tolist(),
        np.concatenate((bounds, [len(rows)])).tolist(),
        strict=True,
    ):
        span = slice(start, stop)
        if subgroup[start] == subgroup[stop - 1]:
            groups.append(_classes_group(q, names[start], level[span], rank[span]))
        else:
            groups.append(
                _order_group(
                    q, names[start], len(numbered), subgroup[span], level[span], rank[span]
                )
            )
    return QueryPreferences(query_id, len(numbered), len(retrieved), groups)
