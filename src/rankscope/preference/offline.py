"""Offline interleaving at RPP's speed: team-draft and balanced outcomes for every pair of runs
at once, from where each ranking holds the relevant documents and the documents both hold.

What an outcome depends on
--------------------------
The simulated user (`rankscope.preference.interleaving`) clicks the relevant documents above
her depth k, so an outcome changes only where a relevant document enters the interleaved list.
*Where* it enters, though, depends on more than the relevant documents' ranks: a document
both rankings hold is placed once, and the ranking that did not place it moves on to its next
document, which shifts everything below.  (a = [x, r], b = [x, n] with r relevant and
p(k) = 1/3 on three positions gives I = 1/2; rename b's x to y and it gives 1/6.)  So the
computation reads, per pair: the ranks of the relevant documents in each ranking, and the
ranks of every document both rankings hold — nothing about the other documents but their
number.

Balanced interleaving, in closed form.  With a starting, a_1 b_1 a_2 b_2 ... is the sequence
before duplicates are dropped (the longer ranking goes on alone after the shorter ends; with
``truncate`` the sequence stops there), so a document's first occurrence has index
r_1 = min(2p, 2q + 1) (p, q its 0-based ranks) and its list position is r_1 minus the number
of shared documents whose second occurrence comes before r_1.  Chapelle et al.'s credit for
clicks down to a relevant document d placed from a at rank j = p + 1 (d's best rank, j) is
h_a = R_a(j), the relevant documents among a's first j, and h_b = R_b(j − 1) plus b_j when
b_j is relevant and already placed — every term a prefix count.  The same with b starting
and with the roles swapped.  Between two relevant documents the outcome is constant, so the
expectation over k is a sum over the relevant documents of sign × (browsing mass of their
stretch), vectorised over pairs.

Team draft, a dynamic programme run for every pair at once.  After each round the list is
a[:i] ∪ b[:j] (the module `interleaving` says why), and a round's coin changes that state
only when both rankings' next documents are the same document (a *collision*: the coin
decides who takes it); otherwise both orders end in the same state and the coin only decides
which of the two documents comes first, which matters for the odd position in between.  So
the programme keeps, per pair, states (i, j, ν(a) − ν(b)) with their probabilities, splits a
state only at a collision (and, with ``truncate``, where a ranking may run out in mid-round)
and merges equal states; all pairs of all queries advance one round per step, in numpy.
States end when every relevant document of the pair is in the list, when the list is deeper
than the browsing model, or when both rankings are exhausted; past the end of one ranking,
the other goes on alone.  This is the same computation as the original dynamic programme
(kept in ``tests/oi_reference.py`` as the slow reference), adding the same terms in another
order: values agree to 1e-12 (on the CLEF eHealth 2016 runs the largest difference is a few
units of 1e-16).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: 0-based rank standing for "not in this ranking": beyond every real rank.
ABSENT = np.int64(1) << np.int64(40)


@dataclass(frozen=True, eq=False)
class Batch:
    """Rankings and pairs of rankings to interleave, in one document space.

    ``docs[s]``: ranking (slot) s as document ids, padded with ``sentinel`` (one padding
    column at least).  ``length[s]``: its length.  ``rank[d, c]``: 0-based rank of document d
    in column c's ranking, `ABSENT` when it lacks d (a slot's column: ``column[s]``; slots of
    different queries may share a column, their documents never meet).  ``relevant[d]``: is
    d relevant (``relevant[sentinel]`` is False).  Pair k interleaves slots ``first[k]`` and
    ``second[k]``; ``depth[k]`` is the depth K of its browsing model, whose weights are
    ``base[:K]`` normalised.
    """

    docs: np.ndarray  # (slots, longest + 1) int64
    length: np.ndarray  # (slots,) int64
    rank: np.ndarray  # (documents + 1, columns) int64
    column: np.ndarray  # (slots,) int64
    relevant: np.ndarray  # (documents + 1,) bool
    first: np.ndarray  # (pairs,) int64 slots
    second: np.ndarray
    depth: np.ndarray  # (pairs,) int64
    base: np.ndarray  # unnormalised browsing weights for k = 1, 2, ...


class _Browsing:
    """p(k) = base[k−1] / C(K) for k <= K (0 beyond) and P(k > n), per pair."""

    def __init__(self, base: np.ndarray, depth: np.ndarray) -> None:
        self.base = np.concatenate((base.astype(np.float64), [0.0]))
        self.cumulative = np.concatenate(([0.0], np.cumsum(base, dtype=np.float64)))
        self.depth = depth
        self.total = self.cumulative[depth]

    def weight(self, pair: np.ndarray, k: np.ndarray) -> np.ndarray:
        """p(k) of each pair (k 1-based)."""
        inside = k <= self.depth[pair]
        at = np.where(inside, k - 1, self.base.size - 1)
        return self.base[at] / self.total[pair]

    def mass(self, pair: np.ndarray, start: np.ndarray, stop: np.ndarray) -> np.ndarray:
        """P(start < k <= stop), with stop = None-like values beyond K meaning the end."""
        depth = self.depth[pair]
        hi = self.cumulative[np.minimum(stop, depth)]
        lo = self.cumulative[np.minimum(start, depth)]
        return (hi - lo) / self.total[pair]

    def tail(self, pair: np.ndarray, n: np.ndarray) -> np.ndarray:
        """P(k > n)."""
        return self.mass(pair, n, self.depth[pair])


# --------------------------------------------------------------------------------------
# Team draft


@dataclass
class _States:
    pair: np.ndarray
    i: np.ndarray  # a's pointer: a[:i] is in the list
    j: np.ndarray
    diff: np.ndarray  # ν(a) − ν(b) so far
    prob: np.ndarray
    n: np.ndarray  # the list's length
    placed: np.ndarray  # relevant documents in the list

    def take(self, keep: np.ndarray) -> _States:
        return _States(
            self.pair[keep], self.i[keep], self.j[keep], self.diff[keep], self.prob[keep],
            self.n[keep], self.placed[keep],
        )  # fmt: skip

    @staticmethod
    def join(parts: list[_States]) -> _States:
        return _States(
            *(np.concatenate([getattr(p, f) for p in parts]) for f in _STATE_FIELDS)
        )


_STATE_FIELDS = ("pair", "i", "j", "diff", "prob", "n", "placed")


class _TeamDraft:
    def __init__(self, batch: Batch, truncate: bool) -> None:
        self.b = batch
        self.truncate = truncate
        self.slot_a, self.slot_b = batch.first, batch.second
        self.na, self.nb = batch.length[batch.first], batch.length[batch.second]
        self.col_a, self.col_b = batch.column[batch.first], batch.column[batch.second]
        self.browsing = _Browsing(batch.base, batch.depth)
        self.value = np.zeros(batch.first.size)

    def doc_a(self, s: _States) -> np.ndarray:
        return self.b.docs[self.slot_a[s.pair], np.minimum(s.i, self.na[s.pair])]

    def doc_b(self, s: _States) -> np.ndarray:
        return self.b.docs[self.slot_b[s.pair], np.minimum(s.j, self.nb[s.pair])]

    def normalise(self, s: _States) -> None:
        """Advance both pointers past documents already in the list (in place)."""
        rows = np.arange(s.pair.size)
        while rows.size:
            pair = s.pair[rows]
            i, j = s.i[rows], s.j[rows]
            on_a = i < self.na[pair]
            doc = self.b.docs[self.slot_a[pair], np.minimum(i, self.na[pair])]
            move_a = on_a & (self.b.rank[doc, self.col_b[pair]] < j)
            i = i + move_a
            on_b = j < self.nb[pair]
            doc = self.b.docs[self.slot_b[pair], np.minimum(j, self.nb[pair])]
            move_b = on_b & (self.b.rank[doc, self.col_a[pair]] < i)
            s.i[rows], s.j[rows] = i, j + move_b
            rows = rows[move_a | move_b]

    def pick(self, s: _States, side_a: np.ndarray) -> None:
        """The team of each state (a where ``side_a``) takes its next document (in place)."""
        doc = np.where(side_a, self.doc_a(s), self.doc_b(s))
        gain = self.b.relevant[doc].astype(np.int64)
        credit = np.where(side_a, gain, -gain)
        k = s.n + 1
        self.add(s.pair, s.prob * self.browsing.weight(s.pair, k) * np.sign(s.diff + credit))
        s.i += side_a
        s.j += ~side_a
        self.normalise(s)
        s.diff += credit
        s.placed += gain
        s.n = k

    def add(self, pair: np.ndarray, amount: np.ndarray) -> None:
        self.value += np.bincount(pair, weights=amount, minlength=self.value.size)

    def run(self, total_relevant: np.ndarray, max_states: int | None) -> np.ndarray:
        """I(a, b) per pair; NaN for pairs beyond ``max_states`` states."""
        npairs = self.value.size
        zeros = np.zeros(npairs, dtype=np.int64)
        states = _States(
            np.arange(npairs), zeros.copy(), zeros.copy(), zeros.copy(), np.ones(npairs),
            zeros.copy(), zeros.copy(),
        )  # fmt: skip
        self.normalise(states)
        expanded = np.zeros(npairs, dtype=np.int64)
        given_up = np.zeros(npairs, dtype=bool)
        while states.pair.size:
            s = states
            if max_states is not None:
                expanded += np.bincount(s.pair, minlength=npairs)
                over = expanded > max_states
                if over.any():
                    given_up |= over
                    s = s.take(~over[s.pair])
            has_a, has_b = s.i < self.na[s.pair], s.j < self.nb[s.pair]
            both = has_a & has_b
            done = (
                (s.placed >= total_relevant[s.pair])
                | (s.n >= self.b.depth[s.pair])
                | ~(has_a | has_b)
                | (~both if self.truncate else False)
            )
            if done.any():
                self.add(
                    s.pair[done],
                    s.prob[done] * self.browsing.tail(s.pair[done], s.n[done])
                    * np.sign(s.diff[done]),
                )  # fmt: skip
            alone = s.take(~done & ~both)
            normal = s.take(~done & both)
            parts = []
            if alone.pair.size:
                side = alone.i < self.na[alone.pair]
                self.pick(alone, side)
                more = (side & (alone.i < self.na[alone.pair])) | (
                    ~side & (alone.j < self.nb[alone.pair])
                )
                rest = alone.take(more)
                if rest.pair.size:
                    self.pick(rest, side[more])
                parts += [alone.take(~more), rest]
            branched = False
            if normal.pair.size:
                done_round, branched = self.round(normal)
                parts += done_round
            states = _States.join(parts) if parts else normal
            if branched:
                states = self.merge(states)
        if given_up.any():
            self.value[given_up] = np.nan
        return self.value

    def round(self, s: _States) -> tuple[list[_States], bool]:
        """One round for states where both rankings have documents; whether a state split."""
        x, y = self.doc_a(s), self.doc_b(s)
        split = x == y
        if self.truncate:
            # a ranking running out after the first pick ends a truncated list in mid-round,
            # so the two orders differ: split those states too
            after_a = _States(s.pair, s.i + 1, s.j.copy(), s.diff, s.prob, s.n, s.placed)
            after_b = _States(s.pair, s.i.copy(), s.j + 1, s.diff, s.prob, s.n, s.placed)
            self.normalise(after_a)
            self.normalise(after_b)
            split |= (after_a.i >= self.na[s.pair]) | (after_b.j >= self.nb[s.pair])
        plain = s.take(~split)
        out = []
        if plain.pair.size:
            xa, yb = x[~split], y[~split]
            ga = self.b.relevant[xa].astype(np.int64)
            gb = self.b.relevant[yb].astype(np.int64)
            k = plain.n + 1
            w1 = self.browsing.weight(plain.pair, k)
            w2 = self.browsing.weight(plain.pair, k + 1)
            d = plain.diff
            self.add(
                plain.pair,
                plain.prob
                * (0.5 * w1 * (np.sign(d + ga) + np.sign(d - gb)) + w2 * np.sign(d + ga - gb)),
            )
            plain.i += 1
            plain.j += 1
            self.normalise(plain)
            plain.diff += ga - gb
            plain.placed += ga + gb
            plain.n += 2
            out.append(plain)
        branch = s.take(split)
        if branch.pair.size:
            branch.prob *= 0.5
            both = _States.join([branch, branch.take(np.arange(branch.pair.size))])
            first_a = np.repeat([True, False], branch.pair.size)
            self.pick(both, first_a)
            on = (both.i < self.na[both.pair]) & (both.j < self.nb[both.pair])
            second = both.take(on)
            self.pick(second, ~first_a[on])
            out += [both.take(~on), second]
        return out, bool(branch.pair.size)

    @staticmethod
    def merge(s: _States) -> _States:
        """One state per (pair, i, j, difference), probabilities summed (the list's length
        and the relevant documents in it are functions of (i, j))."""
        if s.pair.size < 2:
            return s
        order = np.lexsort((s.diff, s.j, s.i, s.pair))
        s = s.take(order)
        new = np.ones(s.pair.size, dtype=bool)
        new[1:] = (
            (s.pair[1:] != s.pair[:-1]) | (s.i[1:] != s.i[:-1]) | (s.j[1:] != s.j[:-1])
            | (s.diff[1:] != s.diff[:-1])
        )  # fmt: skip
        if new.all():
            return s
        starts = np.flatnonzero(new)
        prob = np.add.reduceat(s.prob, starts)
        out = s.take(starts)
        out.prob = prob
        return out


def team_draft_values(
    batch: Batch, total_relevant: np.ndarray, *, truncate: bool = False,
    max_states: int | None = None,
) -> np.ndarray:  # fmt: skip
    """I(a, b) under team-draft interleaving for every pair of ``batch``, exact over the coin
    flips; NaN for a pair whose programme would expand more than ``max_states`` states
    (``total_relevant[k]``: relevant documents in pair k's union)."""
    return _TeamDraft(batch, truncate).run(total_relevant, max_states)


# --------------------------------------------------------------------------------------
# Balanced


def balanced_values(batch: Batch, *, truncate: bool = False) -> np.ndarray:
    """I(a, b) under balanced interleaving for every pair of ``batch``: the mean of the two
    interleavings' expected outcomes, in closed form (module documentation)."""
    browsing = _Browsing(batch.base, batch.depth)
    value = np.zeros(batch.first.size)
    for a_first in (True, False):
        value += 0.5 * _balanced_one(batch, browsing, a_first, truncate)
    return value


def _raw_index(rank: np.ndarray, own: np.ndarray, other: np.ndarray, leads: bool) -> np.ndarray:
    """Index in the sequence before duplicates are dropped of the document at 0-based
    ``rank`` in a ranking of length ``own`` interleaved with one of length ``other``;
    ``leads``: this ranking contributes first.  ABSENT stays ABSENT."""
    out = rank + np.minimum(rank + (0 if leads else 1), other)
    return np.where(rank >= own, ABSENT, out)


def _balanced_one(batch: Batch, browsing: _Browsing, a_first: bool, truncate: bool) -> np.ndarray:
    npairs = batch.first.size
    na, nb = batch.length[batch.first], batch.length[batch.second]
    col_a, col_b = batch.column[batch.first], batch.column[batch.second]
    width = batch.docs.shape[1]
    cut = 2 * np.minimum(na, nb) if truncate else na + nb
    # every document of a (rows: pairs), with its ranks in a and b
    docs_a = batch.docs[batch.first]
    docs_b = batch.docs[batch.second]
    rank_a_of_a = np.broadcast_to(np.arange(width), docs_a.shape)
    rank_b_of_a = batch.rank[docs_a, col_b[:, None]]
    rank_a_of_b = batch.rank[docs_b, col_a[:, None]]
    rank_b_of_b = np.broadcast_to(np.arange(width), docs_b.shape)
    inside_a = rank_a_of_a < na[:, None]
    inside_b = rank_b_of_b < nb[:, None]
    # raw indices of each occurrence
    raw_a_of_a = _raw_index(rank_a_of_a, na[:, None], nb[:, None], a_first)
    raw_b_of_a = _raw_index(rank_b_of_a, nb[:, None], na[:, None], not a_first)
    raw_a_of_b = _raw_index(rank_a_of_b, na[:, None], nb[:, None], a_first)
    raw_b_of_b = _raw_index(rank_b_of_b, nb[:, None], na[:, None], not a_first)
    # shared documents (listed once, from a's side): their second occurrence
    shared = inside_a & (rank_b_of_a < nb[:, None])
    second = np.where(shared, np.maximum(raw_a_of_a, raw_b_of_a), ABSENT)
    second.sort(axis=1)
    # relevant documents of the union, each once: from a, and from b those a lacks
    rel_a = inside_a & batch.relevant[docs_a]
    rel_b = inside_b & batch.relevant[docs_b] & (rank_a_of_b >= na[:, None])
    pair = np.concatenate([np.nonzero(rel_a)[0], np.nonzero(rel_b)[0]])
    ra = np.concatenate([rank_a_of_a[rel_a], rank_a_of_b[rel_b]])  # 0-based, ABSENT
    rb = np.concatenate([rank_b_of_a[rel_a], rank_b_of_b[rel_b]])
    first_raw = np.minimum(
        np.concatenate([raw_a_of_a[rel_a], raw_a_of_b[rel_b]]),
        np.concatenate([raw_b_of_a[rel_a], raw_b_of_b[rel_b]]),
    )
    listed = first_raw < cut[pair]
    pair, ra, rb, first_raw = pair[listed], ra[listed], rb[listed], first_raw[listed]
    if pair.size == 0:
        return np.zeros(npairs)
    # list position (0-based): first raw index minus second occurrences before it
    offset = np.arange(npairs, dtype=np.int64) * (4 * ABSENT)
    flat = (second + offset[:, None]).ravel()
    before = np.searchsorted(flat, first_raw + offset[pair]) - pair * width
    position = first_raw - before
    # prefix counts of relevant documents in a and in b: R(x) = #{relevant at rank < x}
    rel_ranks_a = np.sort(np.where(inside_a & batch.relevant[docs_a], rank_a_of_a, ABSENT), axis=1)
    rel_ranks_b = np.sort(np.where(inside_b & batch.relevant[docs_b], rank_b_of_b, ABSENT), axis=1)
    flat_a = (rel_ranks_a + offset[:, None]).ravel()
    flat_b = (rel_ranks_b + offset[:, None]).ravel()

    def count_a(x: np.ndarray) -> np.ndarray:
        return np.searchsorted(flat_a, x + offset[pair]) - pair * width

    def count_b(x: np.ndarray) -> np.ndarray:
        return np.searchsorted(flat_b, x + offset[pair]) - pair * width

    # d placed from a (ra <= rb) at j = ra + 1; else from b at j = rb + 1
    from_a = ra <= rb
    j = np.where(from_a, ra, rb) + 1
    # counters of the other ranking when d is placed: the entries of it before d's index
    if a_first:
        other_a = from_a & (ra < nb[pair])  # b has contributed ra documents only
        other_b = np.zeros_like(from_a)  # a has contributed rb + 1 >= j documents
    else:
        other_a = np.zeros_like(from_a)
        other_b = ~from_a & (rb < na[pair])
    h_a = np.where(from_a, count_a(j), count_a(np.minimum(j, na[pair])))
    h_b = np.where(from_a, count_b(np.minimum(j, nb[pair])), count_b(j))
    # with the other ranking one document short of j, its document at rank j counts when
    # relevant and already placed (it is in the leading ranking's top j)
    at = j - 1
    doc_b = batch.docs[batch.second[pair], np.minimum(at, nb[pair])]
    doc_a = batch.docs[batch.first[pair], np.minimum(at, na[pair])]
    fix_a = other_a & batch.relevant[doc_b] & (batch.rank[doc_b, col_a[pair]] < j)
    fix_b = other_b & batch.relevant[doc_a] & (batch.rank[doc_a, col_b[pair]] < j)
    if a_first:
        h_b = np.where(other_a, count_b(at) + fix_a, h_b)
    else:
        h_a = np.where(other_b, count_a(at) + fix_b, h_a)
    sign = np.sign(h_a - h_b).astype(np.float64)
    # stretches between consecutive relevant documents of one pair, in list order
    order = np.lexsort((position, pair))
    pair, position, sign = pair[order], position[order], sign[order]
    start = position  # the user browsing to k > position clicks this one
    stop = np.empty_like(start)
    stop[:-1] = position[1:]
    last = np.ones(pair.size, dtype=bool)
    last[:-1] = pair[1:] != pair[:-1]
    stop[last] = ABSENT  # to the end (and past it: a user deeper than the list sees it all)
    mass = browsing.mass(pair, start, stop)
    return np.bincount(pair, weights=sign * mass, minlength=npairs)


# --------------------------------------------------------------------------------------
# Building batches


def browsing_base(browsing: str, longest: int) -> np.ndarray:
    """Unnormalised weights of a named browsing model for k = 1..``longest``: p(k) over
    depth K is base[:K] / sum(base[:K])."""
    k = np.arange(1, max(longest, 1) + 1, dtype=np.float64)
    if browsing == "uniform":
        return np.ones(k.size)
    if browsing == "dcg":
        return 1.0 / np.log2(k + 1)
    raise ValueError(f"unknown browsing model {browsing!r}")


def pair_batch(codes_a: np.ndarray, codes_b: np.ndarray, relevant: np.ndarray, p: np.ndarray) -> Batch:
    """One pair: rankings as codes 0..U−1 of their union, ``relevant`` per code, browsing
    weights ``p`` for k = 1..len(p)."""
    union = relevant.size
    sentinel = union
    longest = max(codes_a.size, codes_b.size)
    docs = np.full((2, longest + 1), sentinel, dtype=np.int64)
    docs[0, : codes_a.size] = codes_a
    docs[1, : codes_b.size] = codes_b
    rank = np.full((union + 1, 2), ABSENT, dtype=np.int64)
    rank[codes_a, 0] = np.arange(codes_a.size)
    rank[codes_b, 1] = np.arange(codes_b.size)
    return Batch(
        docs, np.array([codes_a.size, codes_b.size], dtype=np.int64), rank,
        np.array([0, 1], dtype=np.int64), np.append(relevant.astype(bool), False),
        np.array([0]), np.array([1]), np.array([p.size], dtype=np.int64), p,
    )  # fmt: skip


@dataclass(frozen=True, eq=False)
class QueryPairs:
    """Every pair of runs of every query in one batch, and what is needed to read it back."""

    batch: Batch
    query: np.ndarray  # (pairs,) query index
    x: np.ndarray  # (pairs,) run index of the first ranking (x < y)
    y: np.ndarray
    total_relevant: np.ndarray  # relevant documents in the pair's union
    mirror: np.ndarray  # (pairs,) bool: (y, x) is (x, y) with documents renamed, so I = 0


def query_pairs(
    rankings: list[list[np.ndarray]], relevant_codes: list[np.ndarray], browsing: str
) -> QueryPairs:
    """The batch of all pairs (x < y) of runs per query.  ``rankings[q][r]``: run r's ranked
    document codes for query q; ``relevant_codes[q]``: the codes relevant for q."""
    nruns = len(rankings[0]) if rankings else 0
    pieces_docs, lengths, relevant_parts = [], [], []
    rank_rows = []
    query, xs, ys, depth, total, mirror = [], [], [], [], [], []
    offset = 0
    for q, runs in enumerate(rankings):
        codes = np.concatenate(runs) if runs else np.zeros(0, dtype=np.int64)
        union, local = np.unique(codes, return_inverse=True)
        size = union.size
        bounds = np.cumsum([0] + [r.size for r in runs])
        presence = np.zeros((nruns, size), dtype=bool)
        rank = np.full((size, nruns), ABSENT, dtype=np.int64)
        for r in range(nruns):
            mine = local[bounds[r] : bounds[r + 1]]
            presence[r, mine] = True
            rank[mine, r] = np.arange(mine.size)
            pieces_docs.append(mine + offset)
            lengths.append(mine.size)
        rel = np.isin(union, relevant_codes[q])
        relevant_parts.append(rel)
        rank_rows.append(rank)
        counts = presence.sum(axis=1)
        shared = presence.astype(np.int64) @ presence.T.astype(np.int64)
        held = (presence & rel).astype(np.int64)
        rel_counts = held.sum(axis=1)
        rel_shared = held @ presence.T.astype(np.int64)
        x, y = np.triu_indices(nruns, 1)
        query.append(np.full(x.size, q))
        xs.append(x)
        ys.append(y)
        depth.append(counts[x] + counts[y] - shared[x, y])
        total.append(rel_counts[x] + rel_counts[y] - rel_shared[x, y])
        mirror.append(_mirrored(runs, rank, rel, local, bounds, x, y))
        offset += size
    sentinel = offset
    longest = max(lengths, default=0)
    docs = np.full((len(lengths), longest + 1), sentinel, dtype=np.int64)
    for s, piece in enumerate(pieces_docs):
        docs[s, : piece.size] = piece
    rank = np.concatenate([*rank_rows, np.full((1, nruns), ABSENT, dtype=np.int64)])
    relevant = np.concatenate([*relevant_parts, [False]])
    query_ = np.concatenate(query) if query else np.zeros(0, dtype=np.int64)
    x_ = np.concatenate(xs) if xs else np.zeros(0, dtype=np.int64)
    y_ = np.concatenate(ys) if ys else np.zeros(0, dtype=np.int64)
    depth_ = np.concatenate(depth).astype(np.int64) if depth else np.zeros(0, dtype=np.int64)
    batch = Batch(
        docs, np.asarray(lengths, dtype=np.int64), rank,
        np.tile(np.arange(nruns, dtype=np.int64), len(rankings)), relevant,
        query_ * nruns + x_, query_ * nruns + y_, depth_,
        browsing_base(browsing, int(depth_.max(initial=1))),
    )  # fmt: skip
    return QueryPairs(
        batch, query_, x_, y_,
        np.concatenate(total).astype(np.int64) if total else np.zeros(0, dtype=np.int64),
        np.concatenate(mirror) if mirror else np.zeros(0, dtype=bool),
    )  # fmt: skip


def _mirrored(runs, rank, rel, local, bounds, x, y) -> np.ndarray:
    """Per pair (x, y): do both rankings look alike from the other's side — one length, the
    same relevance at every rank, and a's k-th document at the rank in b where b's k-th is
    in a?  Then (y, x) is (x, y) with its documents renamed and I(x, y) = −I(y, x) = 0."""
    out = np.zeros(x.size, dtype=bool)
    lengths = np.array([r.size for r in runs])
    for k, (a, b) in enumerate(zip(x.tolist(), y.tolist(), strict=True)):
        if lengths[a] != lengths[b]:
            continue
        da = local[bounds[a] : bounds[a + 1]]
        db = local[bounds[b] : bounds[b + 1]]
        out[k] = np.array_equal(rel[da], rel[db]) and np.array_equal(rank[da, b], rank[db, a])
    return out
