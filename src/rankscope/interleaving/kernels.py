"""Offline interleaving at RPP's speed: team-draft and balanced outcomes for every pair of runs
at once, from where each ranking holds the relevant documents and the documents both hold.

What an outcome depends on
--------------------------
The simulated user (`rankscope.interleaving.offline`) clicks the relevant documents above
her depth k, so an outcome changes only where a relevant document enters the interleaved list.
*Where* it enters, though, depends on more than the relevant documents' ranks: a document
both rankings hold is placed once, and the ranking that did not place it moves on to its next
document, which shifts everything below.  (a = [x, r], b = [x, n] with r relevant and
p(k) = 1/3 on three positions gives I = 1/2; rename b's x to y and it gives 1/6.)  So the
computation reads, per pair: the ranks of the relevant documents in each ranking, and the
ranks of every document both rankings hold — nothing about the other documents but their
number.

Balanced interleaving, in closed form. With a starting, a_1 b_1 a_2 b_2 ... is the sequence
before duplicates are dropped (the longer ranking goes on alone after the shorter ends; with
``truncate`` the sequence stops as soon as either is used up), so a document's first
occurrence has index r_1 = min(2p, 2q + 1) (p, q its 0-based ranks) and its list position is
r_1 minus the number of shared documents whose second occurrence comes before r_1.  Chapelle
et al.'s credit for clicks down to a relevant document d placed from a at rank j = p + 1
(d's best rank, j) is h_a = R_a(j), the relevant documents among a's first j, and h_b =
R_b(j − 1) plus b_j when b_j is relevant and already placed — every term a prefix count. The
same with b starting and with the roles swapped. Between two relevant documents the outcome
is constant, so the expectation over k is a sum over the relevant documents of sign ×
(browsing mass of their stretch), vectorised over pairs.

Team draft, a dynamic programme run for every pair at once.  After each round the list is
a[:i] ∪ b[:j] (the module `offline` says why), and a round's coin changes that state
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
order: values agree to 1e-12 (on the 16 CLEF eHealth 2016 runs × 50 queries the largest
difference is 9.2e-14 for team draft and 3.7e-15 for balanced interleaving).

Quiet rounds.  Most rounds of runs that share few documents place two documents neither
relevant nor held by the other ranking: the state moves to (i + 1, j + 1, n + 2) and, with a
constant browsing model, adds what the round before added.  A pair all of whose states have
such rounds ahead is *parked* for them (`_TeamDraft.park`): it leaves the arrays the rounds
work on, its amount is added once per round as the rounds would add it (the same additions
in the same order, so the same values to the last bit), and it comes back when the others
have played those rounds.  On 100 independent runs this leaves one round in five to play.

Compiled.  ``_offline.c`` runs the same programme in C when it is built (`compiled`; setup.py
builds it where a compiler is found, else numpy's `_TeamDraft` runs): every pair of a batch
in one call, the GIL released, its values the numpy programme's to the last bit (the same
additions in the same order, merges at the same rounds; tests/test_oi_compiled.py compares
the two).  As most pairs never split, their single state evolving whatever the others do, it
plays each pair alone from start to end while its data is in the cache, and the rounds of all
pairs together only when merges (decided by every pair's states) would change something.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np

from .. import model

_offline: ModuleType | None
try:  # an optional compiled extension: absent, numpy's programme does the work
    from . import _offline  # type: ignore[no-redef]
except ImportError:
    _offline = None

#: 0-based rank standing for "not in this ranking": beyond every real rank.
ABSENT = np.int64(1) << np.int64(40)


@dataclass(frozen=True, eq=False)
class Batch:
    """Rankings and pairs of rankings to interleave, in one document space.

    ``docs[s]``: ranking (slot) s as document ids, padded with ``sentinel`` (one padding
    column at least).  ``length[s]``: its length.  ``rank[d, c]``: 0-based rank of document d
    in column c's ranking, `ABSENT` when it lacks d (a slot's column: ``column[s]``; slots of
    different queries may share a column, their documents never meet); only documents two
    rankings hold need a row: documents numbered from the last row on (the sentinel too) are
    held by one ranking only, and the last row, all `ABSENT`, stands for them (`rank_in`
    reads it so), which keeps the table small when rankings share few documents.
    ``relevant[d]``: is d relevant (``relevant[sentinel]`` is False).  Pair k interleaves
    slots ``first[k]`` and ``second[k]``; ``depth[k]`` is the depth K of its browsing model,
    whose weights are ``base[:K]`` normalised.
    """

    docs: np.ndarray  # (slots, longest + 1) int64
    length: np.ndarray  # (slots,) int64
    rank: np.ndarray  # (documents held twice + 1, columns) int64
    column: np.ndarray  # (slots,) int64
    relevant: np.ndarray  # (documents + 1,) bool
    first: np.ndarray  # (pairs,) int64 slots
    second: np.ndarray
    depth: np.ndarray  # (pairs,) int64
    base: np.ndarray  # unnormalised browsing weights for k = 1, 2, ...

    def rank_in(self, doc: np.ndarray, column: np.ndarray) -> np.ndarray:
        """The rank of documents ``doc`` in the rankings of ``column`` (`ABSENT` when those
        lack them), for a document held by another ranking of the column's query."""
        rows, columns = self.rank.shape
        return self.rank.ravel()[np.minimum(doc, rows - 1) * columns + column]


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

    def slice(self, start: int, stop: int) -> _States:
        return _States(*(getattr(self, f)[start:stop] for f in _STATE_FIELDS))

    @staticmethod
    def join(parts: list[_States]) -> _States:
        return _States(*(np.concatenate([getattr(p, f) for p in parts]) for f in _STATE_FIELDS))


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
        # flat lookups: a pair's k-th document of a is docs[start_a + k] (k <= length: the
        # padding column holds the sentinel), document d's rank in column c is rank[d·C + c]
        width, columns = batch.docs.shape[1], batch.rank.shape[1]
        self.docs = batch.docs.ravel()
        self.rank = batch.rank.ravel()
        self.columns = columns
        self.absent_row = batch.rank.shape[0] - 1  # where documents held once read
        self.start_a, self.start_b = batch.first * width, batch.second * width
        self.quiet = _Quiet.of(batch) if not truncate and _constant(batch.base) else None

    def doc_a(self, s: _States) -> np.ndarray:
        return self.docs[self.start_a[s.pair] + s.i]

    def doc_b(self, s: _States) -> np.ndarray:
        return self.docs[self.start_b[s.pair] + s.j]

    def normalise(self, s: _States) -> None:
        """Advance both pointers past documents already in the list (in place).  A pointer
        at the end of its ranking reads the sentinel, which no ranking holds."""
        rows: np.ndarray | slice = slice(None)
        while True:
            pair = s.pair[rows]
            i, j = s.i[rows], s.j[rows]
            doc = self.docs[self.start_a[pair] + i]
            row = np.minimum(doc, self.absent_row)
            move_a = self.rank[row * self.columns + self.col_b[pair]] < j
            i = i + move_a
            doc = self.docs[self.start_b[pair] + j]
            row = np.minimum(doc, self.absent_row)
            move_b = self.rank[row * self.columns + self.col_a[pair]] < i
            s.i[rows], s.j[rows] = i, j + move_b
            moved = np.flatnonzero(move_a | move_b)
            if moved.size == 0:
                return
            rows = moved if isinstance(rows, slice) else rows[moved]

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
        merged = npairs
        given_up = np.zeros(npairs, dtype=bool)
        parked = _Parked(npairs)
        while states.pair.size or parked.count:
            if parked.count and parked.due <= parked.step:
                states = parked.release(states)
            if not states.pair.size:  # every state parked: their rounds up to the next return
                while parked.step < parked.due:
                    self.value += parked.drift
                    parked.step += 1
                    if parked.count > 1.25 * merged:  # the merge of no live state
                        merged = parked.count
                        parked.merges += 1
                continue
            s = states
            counts = np.bincount(s.pair, minlength=npairs)
            if max_states is not None:
                expanded += counts
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
            if done.any() or not both.all():
                alone, normal = s.take(~done & ~both), s.take(~done & both)
            else:  # every state has a round to play (the most common case)
                alone, normal = s.take(np.zeros(0, dtype=np.int64)), s
            if self.quiet is not None and normal.pair.size and parked.step % _EVERY == 0:
                normal = self.park(normal, counts, expanded, max_states, parked)
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
            if normal.pair.size:
                parts += self.round(normal)
            states = _States.join(parts) if parts else normal
            if parked.count:
                self.value += parked.drift  # each parked state's round (0 for the others)
            parked.step += 1
            # merging is only bookkeeping (equal states evolve alike), so it waits until the
            # splits have added a quarter more states (parked states count: they are states)
            if states.pair.size + parked.count > 1.25 * merged:
                states = self.merge(states)
                merged = states.pair.size + parked.count
                parked.merges += 1
        if given_up.any():
            self.value[given_up] = np.nan
        return self.value

    def park(
        self, s: _States, counts: np.ndarray, expanded: np.ndarray, max_states: int | None,
        parked: _Parked,
    ) -> _States:  # fmt: skip
        """Take out of ``s`` the pairs whose states all run through quiet rounds, and return
        the rest.

        A round is quiet when neither ranking's next document is relevant or held by the
        other ranking, nor the document after it (so no collision, no credit, no pointer
        moved past a placed document): a state moves to (i + 1, j + 1, n + 2) and adds the
        same amount as the round before (a constant browsing model; the list stays within
        its depth).  When every state of a pair has L quiet rounds ahead, the pair is
        parked: its states jump L rounds ahead at once and come back when the others have
        done those L rounds; meanwhile the pair's amount (its states' amounts summed in
        their order, as one round sums them) is added once per round — the same additions in
        the same order, so the same value to the last bit.  Merges meanwhile would change
        nothing of a parked pair whose states are distinct (all move alike) but their order,
        which `_Parked.release` restores; with three states or more the order is also that
        of the sums, so those pairs must already be in a merge's order (sorted)."""
        assert self.quiet is not None
        ahead = np.minimum(
            self.quiet.ahead(s.pair, s.i, s.j), (self.b.depth[s.pair] - s.n) // 2
        )
        if max_states is not None:
            # the programme counts a parked state once per round, as if it ran
            ahead = np.minimum(ahead, (max_states - expanded[s.pair]) // counts[s.pair] + 1)
        calm = ahead >= 2
        if not calm.any():
            return s
        single = counts[s.pair] == 1
        rows = np.flatnonzero(calm & single)
        many = calm & ~single
        if many.any():
            # pairs all of whose states are here and calm; by pair, each pair's in order
            whole = many & (
                np.bincount(s.pair[many], minlength=counts.size)[s.pair] == counts[s.pair]
            )
            group_rows = np.flatnonzero(whole)
            if group_rows.size:
                group_rows = group_rows[np.argsort(s.pair[group_rows], kind="stable")]
                rows = np.concatenate([rows, self.orderly(s, group_rows, ahead)])
        if rows.size == 0:
            return s
        # by the round they come back at (a pair's states in their order)
        rows = rows[np.argsort(ahead[rows], kind="stable")]
        going = s.take(rows)
        jump = ahead[rows]
        no_credit = np.zeros(rows.size, dtype=np.int64)
        amount = self.round_amount(going, no_credit, no_credit)
        parked.drift[going.pair] = np.bincount(
            going.pair, weights=amount, minlength=counts.size
        )[going.pair]
        if max_states is not None:
            expanded += np.bincount(going.pair, weights=jump - 1, minlength=counts.size).astype(
                np.int64
            )
        going.i += jump
        going.j += jump
        going.n += 2 * jump
        parked.add(going, parked.step + jump)
        keep = np.ones(s.pair.size, dtype=bool)
        keep[rows] = False
        return s.take(keep)

    @staticmethod
    def orderly(s: _States, rows: np.ndarray, ahead: np.ndarray) -> np.ndarray:
        """Of ``rows`` (states of pairs with several, grouped by pair in their order), those
        of pairs whose states are distinct, and sorted when three or more; ``ahead`` of
        each set to the least of its pair's (in place)."""
        pair, i, j, d = s.pair[rows], s.i[rows], s.j[rows], s.diff[rows]
        starts = np.flatnonzero(np.concatenate(([True], pair[1:] != pair[:-1])))
        size = np.diff(np.append(starts, rows.size))
        group = np.repeat(np.arange(starts.size), size)
        same = group[1:] == group[:-1]
        up = (i[1:] > i[:-1]) | (
            (i[1:] == i[:-1]) & ((j[1:] > j[:-1]) | ((j[1:] == j[:-1]) & (d[1:] > d[:-1])))
        )
        down = ~up & ((i[1:] != i[:-1]) | (j[1:] != j[:-1]) | (d[1:] != d[:-1]))
        wrong = same & ~up & ((size[group[1:]] >= 3) | ~down)
        fine = np.ones(starts.size, dtype=bool)
        fine[group[1:][wrong]] = False
        ahead[rows] = np.minimum.reduceat(ahead[rows], starts)[group]
        return rows[fine[group]]

    def round_amount(self, s: _States, ga: np.ndarray, gb: np.ndarray) -> np.ndarray:
        """What a round adds: a's document (credit ``ga``) and b's (``gb``) in either order
        at positions n + 1 and n + 2, each order with probability 1/2."""
        k = s.n + 1
        w1 = self.browsing.weight(s.pair, k)
        w2 = self.browsing.weight(s.pair, k + 1)
        d = s.diff
        return s.prob * (
            0.5 * w1 * (np.sign(d + ga) + np.sign(d - gb)) + w2 * np.sign(d + ga - gb)
        )

    def round(self, s: _States) -> list[_States]:
        """One round for states where both rankings have documents."""
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
            self.add(plain.pair, self.round_amount(plain, ga, gb))
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
        return out

    def merge(self, s: _States) -> _States:
        """One state per (pair, i, j, difference), probabilities summed (the list's length
        and the relevant documents in it are functions of (i, j))."""
        if s.pair.size < 2:
            return s
        steps = int(self.b.docs.shape[1]) + 1
        spread = 2 * int(np.abs(s.diff).max()) + 1
        if s.pair.size and self.value.size * steps * steps * spread < 2**62:
            key = ((s.pair * steps + s.i) * steps + s.j) * spread + s.diff
            order = np.argsort(key, kind="stable")
            key = key[order]
            s = s.take(order)
            new = np.ones(key.size, dtype=bool)
            new[1:] = key[1:] != key[:-1]
        else:
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


class _Parked:
    """States taken out of the programme for quiet rounds (`_TeamDraft.park`): each with the
    round at which it comes back and the merges done when it left, and per pair the amount
    each of its rounds adds.  Kept in few lists sorted by the round of return, so that each
    round takes the states due back from their fronts."""

    def __init__(self, npairs: int) -> None:
        self.drift = np.zeros(npairs)
        self.step = 0  # the programme's round
        self.merges = 0  # merges done so far
        self.count = 0
        self.due = 0  # the first round at which a state comes back
        self.lists: list[tuple[_States, np.ndarray, np.ndarray]] = []

    def add(self, states: _States, back: np.ndarray) -> None:
        """Park ``states`` (sorted by ``back``, the round each comes back at)."""
        self.lists.append((states, back, np.full(back.size, self.merges)))
        self.due = int(back[0]) if self.count == 0 else min(self.due, int(back[0]))
        self.count += back.size
        if len(self.lists) > _LISTS:
            states = _States.join([p[0] for p in self.lists])
            back = np.concatenate([p[1] for p in self.lists])
            stamp = np.concatenate([p[2] for p in self.lists])
            order = np.argsort(back, kind="stable")
            self.lists = [(states.take(order), back[order], stamp[order])]

    def release(self, live: _States) -> _States:
        """``live`` with the parked states due back at this round.  States a merge would
        have sorted meanwhile come back sorted (by pair, i, j, difference), as it left them."""
        parts, stamps, kept = [live], [], []
        for states, back, stamp in self.lists:
            due = int(np.searchsorted(back, self.step, side="right"))
            if due:
                parts.append(states.slice(0, due))
                stamps.append(stamp[:due])
            if due < back.size:
                kept.append((states.slice(due, back.size), back[due:], stamp[due:]))
        self.lists = kept
        self.due = min((int(back[0]) for _, back, _ in kept), default=0)
        if len(parts) == 1:
            return live
        returning = _States.join(parts[1:])
        self.count -= returning.pair.size
        self.drift[returning.pair] = 0.0
        moved = np.concatenate(stamps) != self.merges
        if moved.any():
            sort = returning.take(moved)
            sort = sort.take(np.lexsort((sort.diff, sort.j, sort.i, sort.pair)))
            returning = _States.join([returning.take(~moved), sort])
        return _States.join([live, returning])


#: Lists of parked states kept apart before they are merged into one.
_LISTS = 4

#: Rounds between two looks for pairs to park (each look costs as much as a few rounds).
_EVERY = 8


def _constant(base: np.ndarray) -> bool:
    """Are the browsing weights all equal (then every round within the depth weighs the
    same, which parking needs)?"""
    return bool(np.all(base == base[0])) if base.size else True


class _Quiet:
    """Where the quiet rounds of each pair end (`_TeamDraft.park`): per ranking, the next
    relevant document; per pair, the next document the other ranking holds (pairs × width
    small integers, as many as the batch's rank table has cells at most).  When documents
    are held by so many rankings that listing every pair holding each would take more than
    `_SHARED` entries, every document two rankings hold counts as shared for every pair
    (fewer quiet rounds, the same values)."""

    @staticmethod
    def of(batch: Batch) -> _Quiet | None:
        """The batch's quiet rounds, or None when too few of its documents are neither
        relevant nor held by two rankings (`_LOUD`) for parking to pay."""
        holders = np.bincount(batch.docs.ravel(), minlength=batch.relevant.size)
        holders[-1] = 0  # the padding
        held = np.arange(batch.docs.shape[1]) < batch.length[:, None]
        loud = batch.relevant[batch.docs] | (holders[batch.docs] >= 2)
        if np.count_nonzero(loud & held) > _LOUD * max(int(np.count_nonzero(held)), 1):
            return None
        return _Quiet(batch, holders)

    def __init__(self, batch: Batch, holders: np.ndarray) -> None:
        docs = batch.docs
        slots, width = docs.shape
        self.width = width
        self.start_a, self.start_b = batch.first * width, batch.second * width
        flat = docs.ravel()
        # every (document, two rankings holding it): by document, then by slot
        where = np.flatnonzero(holders[flat] >= 2)
        where = where[np.argsort(flat[where], kind="stable")]
        doc = flat[where]
        begin = np.flatnonzero(np.concatenate(([True], doc[1:] != doc[:-1])))
        end = np.repeat(np.append(begin[1:], doc.size), np.diff(np.append(begin, doc.size)))
        partners = end - np.arange(doc.size) - 1
        per_pair = int(partners.sum()) <= _SHARED
        # a relevant document (or the end) stops the quiet rounds at its own round; a shared
        # one a round earlier (the pointers might skip it as they move onto it)
        self.loud = _next_true(batch.relevant[docs] | (np.arange(width) >= batch.length[:, None]))
        self.held: np.ndarray | None = None
        self.shared_a: np.ndarray | None = None
        self.shared_b: np.ndarray | None = None
        if not per_pair:
            self.held = _next_true(holders[docs] >= 2)
            return
        x = np.repeat(np.arange(doc.size), partners)
        y = x + 1 + np.arange(x.size) - np.repeat(np.cumsum(partners) - partners, partners)
        sx, sy = where[x] // width, where[y] // width
        px, py = where[x] % width, where[y] % width
        # the batch's pairs (first, second) by key, and each (x, y) in either orientation
        key = batch.first * slots + batch.second
        order = np.argsort(key)
        sorted_key = key[order]
        a_side, b_side = [], []
        for k_first, k_second, pos_first, pos_second in (
            (sx, sy, px, py), (sy, sx, py, px),
        ):  # fmt: skip
            wanted = k_first * slots + k_second
            at = np.minimum(np.searchsorted(sorted_key, wanted), max(key.size - 1, 0))
            hit = sorted_key[at] == wanted if key.size else np.zeros(0, dtype=bool)
            pair = order[at[hit]]
            a_side.append(pair * width + pos_first[hit])
            b_side.append(pair * width + pos_second[hit])
        npairs = batch.first.size
        kind = np.int16 if width < 2**15 else np.int32
        self.shared_a = _next_marked(np.concatenate(a_side), npairs, width, kind)
        self.shared_b = _next_marked(np.concatenate(b_side), npairs, width, kind)

    def ahead(self, pair: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Quiet rounds ahead of states (pair, i, j): rounds whose documents are neither
        relevant nor held by the other ranking, and whose next documents not the latter."""
        at_a, at_b = self.start_a[pair] + i, self.start_b[pair] + j
        if self.held is not None:
            shared_a, shared_b = self.held[at_a], self.held[at_b]
        else:
            assert self.shared_a is not None and self.shared_b is not None
            shared_a = self.shared_a[pair * self.width + i]
            shared_b = self.shared_b[pair * self.width + j]
        return np.minimum(
            np.minimum(self.loud[at_a] - i, self.loud[at_b] - j),
            np.minimum(shared_a - i, shared_b - j) - 1,
        )


#: Most (document, pair holding it) entries `_Quiet` lists.
_SHARED = 10_000_000

#: Parking is tried when at most this share of the documents in the rankings are relevant
#: or held by two rankings (runs pooled from one track share most of theirs).
_LOUD = 0.25


def _next_true(flags: np.ndarray) -> np.ndarray:
    """Flat like ``flags`` (rows × width): the first column >= each whose flag is set
    (``width`` when none is)."""
    width = flags.shape[1]
    first = np.where(flags, np.arange(width), width)
    return np.minimum.accumulate(first[:, ::-1], axis=1)[:, ::-1].ravel()


def _next_marked(keys: np.ndarray, rows: int, width: int, kind: type) -> np.ndarray:
    """Flat (rows × width): at row r, column c, the first column >= c whose key r · width +
    column is in ``keys`` (``width`` when none is)."""
    first: np.ndarray = np.full(rows * width, width, dtype=kind)
    first[keys] = (keys % width).astype(kind)
    table = first.reshape(rows, width)[:, ::-1]
    np.minimum.accumulate(table, axis=1, out=table)
    return first


def team_draft_values(
    batch: Batch, total_relevant: np.ndarray, *, truncate: bool = False,
    max_states: int | None = None,
) -> np.ndarray:  # fmt: skip
    """I(a, b) under team-draft interleaving for every pair of ``batch``, exact over the coin
    flips; NaN for a pair whose programme would expand more than ``max_states`` states
    (``total_relevant[k]``: relevant documents in pair k's union).  The compiled programme
    (`compiled`) when it is built, else numpy's: the same values to the last bit."""
    module = compiled()
    if module is None:
        return _TeamDraft(batch, truncate).run(total_relevant, max_states)
    value = np.empty(batch.first.size)
    if value.size == 0:
        return value
    browsing = _Browsing(batch.base, batch.depth)
    flat = [
        np.ascontiguousarray(a, dtype=np.int64).ravel()
        for a in (batch.docs, batch.length, batch.rank, batch.column)
    ]
    module.team_draft(
        flat[0], batch.docs.shape[1], flat[1], flat[2], batch.rank.shape[1], flat[3],
        np.ascontiguousarray(batch.relevant, dtype=bool).view(np.uint8),
        *(np.ascontiguousarray(a, dtype=np.int64) for a in (batch.first, batch.second,
                                                           batch.depth)),
        browsing.base, browsing.cumulative, np.ascontiguousarray(total_relevant, dtype=np.int64),
        truncate, -1 if max_states is None else max_states, _constant(batch.base), value,
    )  # fmt: skip
    return value


def compiled() -> ModuleType | None:
    """The compiled team-draft programme (``_offline.c``), or None when it is not built or
    ``RANKSCOPE_PURE_PYTHON`` is set (then numpy's `_TeamDraft` runs, as the reader falls
    back to its pure-Python twin)."""
    return model.compiled(_offline)


# --------------------------------------------------------------------------------------
# Balanced


def balanced_values(batch: Batch, *, truncate: bool = False) -> np.ndarray:
    """I(a, b) under balanced interleaving for every pair of ``batch``: the mean of the two
    interleavings' expected outcomes, in closed form (module documentation)."""
    npairs = batch.first.size
    value = np.zeros(npairs)
    browsing = _Browsing(batch.base, batch.depth)
    step = max(1, _CELLS // batch.docs.shape[1])  # pairs at a time: bounded (pairs × rank) arrays
    for start in range(0, npairs, step):
        chunk = np.arange(start, min(npairs, start + step))
        view = _PairView(batch, chunk)
        for a_first in (True, False):
            value[chunk] += 0.5 * _balanced_one(batch, view, browsing, a_first, truncate)
    return value


#: Cells of the (pairs × ranks) arrays balanced interleaving builds at once.
_CELLS = 4_000_000


class _PairView:
    """Per pair of ``chunk``, every document of a and of b with its ranks in both (rows:
    pairs), and prefix counts of relevant documents: what both interleavings read."""

    def __init__(self, batch: Batch, chunk: np.ndarray) -> None:
        width = batch.docs.shape[1]
        self.chunk = chunk
        first, second = batch.first[chunk], batch.second[chunk]
        self.na, self.nb = batch.length[first], batch.length[second]
        self.col_a, self.col_b = batch.column[first], batch.column[second]
        docs_a, docs_b = batch.docs[first], batch.docs[second]
        self.rank_b_of_a = batch.rank_in(docs_a, self.col_b[:, None])
        self.rank_a_of_b = batch.rank_in(docs_b, self.col_a[:, None])
        self.ranks = np.broadcast_to(np.arange(width), docs_a.shape)
        relevant_a = batch.relevant[docs_a]  # the padding is the sentinel: not relevant
        relevant_b = batch.relevant[docs_b]
        self.shared = self.rank_b_of_a < self.nb[:, None]  # the sentinel is nowhere
        # relevant documents of the union, each once: from a, and from b those a lacks
        only_b = relevant_b & (self.rank_a_of_b >= self.na[:, None])
        self.pair = np.concatenate([np.nonzero(relevant_a)[0], np.nonzero(only_b)[0]])
        self.ra = np.concatenate([self.ranks[relevant_a], self.rank_a_of_b[only_b]])
        self.rb = np.concatenate([self.rank_b_of_a[relevant_a], self.ranks[only_b]])
        # R(x) = #{relevant at 0-based rank < x} = prefix[pair, x]
        self.prefix_a = np.zeros((chunk.size, width + 1), dtype=np.int64)
        self.prefix_b = np.zeros((chunk.size, width + 1), dtype=np.int64)
        np.cumsum(relevant_a, axis=1, out=self.prefix_a[:, 1:])
        np.cumsum(relevant_b, axis=1, out=self.prefix_b[:, 1:])


def _raw_index(rank: np.ndarray, own: np.ndarray, other: np.ndarray, leads: bool) -> np.ndarray:
    """Index in the sequence before duplicates are dropped of the document at 0-based
    ``rank`` in a ranking of length ``own`` interleaved with one of length ``other``;
    ``leads``: this ranking contributes first.  ABSENT stays ABSENT."""
    out = rank + np.minimum(rank + (0 if leads else 1), other)
    return np.where(rank >= own, ABSENT, out)


def _balanced_one(
    batch: Batch, v: _PairView, browsing: _Browsing, a_first: bool, truncate: bool
) -> np.ndarray:
    npairs = v.chunk.size
    na, nb = v.na, v.nb
    # with truncate the sequence stops before the first pick after a ranking is used up:
    # after the leader's last document (index 2·n_lead − 2) or the follower's (2·n_follow − 1)
    lead, follow = (na, nb) if a_first else (nb, na)
    cut = np.minimum(2 * lead - 1, 2 * follow) if truncate else na + nb
    # shared documents' second occurrences: before[pair, r] = how many come before index r
    raw_a = _raw_index(v.ranks, na[:, None], nb[:, None], a_first)
    raw_b = _raw_index(v.rank_b_of_a, nb[:, None], na[:, None], not a_first)
    span = 2 * v.ranks.shape[1] + 1
    rows, cols = np.nonzero(v.shared)
    second = np.maximum(raw_a[rows, cols], raw_b[rows, cols])
    before = np.zeros((npairs, span + 1), dtype=np.int64)
    np.cumsum(
        np.bincount(rows * span + second, minlength=npairs * span).reshape(npairs, span),
        axis=1, out=before[:, 1:],
    )  # fmt: skip
    pair, ra, rb = v.pair, v.ra, v.rb
    first_raw = np.minimum(
        _raw_index(ra, na[pair], nb[pair], a_first),
        _raw_index(rb, nb[pair], na[pair], not a_first),
    )
    listed = first_raw < cut[pair]
    pair, ra, rb, first_raw = pair[listed], ra[listed], rb[listed], first_raw[listed]
    if pair.size == 0:
        return np.zeros(npairs)
    position = first_raw - before[pair, first_raw]  # 0-based list position
    # d placed from a (ra <= rb) at j = ra + 1, else from b at j = rb + 1
    from_a = ra <= rb
    j = np.where(from_a, ra, rb) + 1
    h_a = v.prefix_a[pair, np.where(from_a, j, np.minimum(j, na[pair]))]
    h_b = v.prefix_b[pair, np.where(from_a, np.minimum(j, nb[pair]), j)]
    # when the other ranking has contributed only j − 1 documents as d is placed (d placed
    # from the leading ranking), its document at rank j counts if relevant and already
    # placed, i.e. in the leading ranking's top j
    at = j - 1
    chunk = v.chunk[pair]
    if a_first:
        short = from_a & (ra < nb[pair])
        doc = batch.docs[batch.second[chunk], np.minimum(at, nb[pair])]
        extra = batch.relevant[doc] & (batch.rank_in(doc, v.col_a[pair]) < j)
        h_b = np.where(short, v.prefix_b[pair, at] + extra, h_b)
    else:
        short = ~from_a & (rb < na[pair])
        doc = batch.docs[batch.first[chunk], np.minimum(at, na[pair])]
        extra = batch.relevant[doc] & (batch.rank_in(doc, v.col_b[pair]) < j)
        h_a = np.where(short, v.prefix_a[pair, at] + extra, h_a)
    sign = np.sign(h_a - h_b).astype(np.float64)
    # stretches between consecutive relevant documents of one pair, in list order: the
    # user browsing to k > position clicks this one and none below
    order = np.lexsort((position, pair))
    pair, position, sign = pair[order], position[order], sign[order]
    stop = np.empty_like(position)
    stop[:-1] = position[1:]
    last = np.ones(pair.size, dtype=bool)
    last[:-1] = pair[1:] != pair[:-1]
    stop[last] = ABSENT  # to the end (and past it: a user deeper than the list sees it all)
    mass = browsing.mass(v.chunk[pair], position, stop)
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


def pair_batch(
    codes_a: np.ndarray, codes_b: np.ndarray, relevant: np.ndarray, p: np.ndarray
) -> Batch:
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
    document codes for query q; ``relevant_codes[q]``: the codes relevant for q.

    Each query's tables are built once for all its runs, never per pair: where every run
    holds every document (the batch's ``rank``), which run holds which document, and from
    that the documents and relevant documents each pair of runs shares — counted over the
    documents two runs or more hold only, so runs that share little cost little.  Those
    documents are numbered first, across queries, and only they get a row of the rank table
    (`Batch`); the others are numbered after them."""
    nruns = len(rankings[0]) if rankings else 0
    slots = len(rankings) * nruns
    lengths = np.array([r.size for runs in rankings for r in runs], dtype=np.int64)
    longest = int(lengths.max(initial=0))
    docs = np.empty((slots, longest + 1), dtype=np.int64)
    relevant_parts, relevant_once, rank_rows = [], [], []
    query, xs, ys, depth, total, mirror = [], [], [], [], [], []
    x, y = np.triu_indices(nruns, 1)
    offset = once = 0  # documents held twice or more, and once, numbered so far
    # BLAS on one thread: many small products, which threads only slow down (the command
    # line starts numpy with one; a notebook's numpy has started its threads, limited here)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        for q, runs in enumerate(rankings):
            sizes = lengths[q * nruns : (q + 1) * nruns]
            codes = np.concatenate(runs) if runs else np.zeros(0, dtype=np.int64)
            union, local = np.unique(codes, return_inverse=True)
            local = local.ravel()
            bounds = np.concatenate(([0], np.cumsum(sizes)))
            run_of = np.repeat(np.arange(nruns), sizes)
            position = np.arange(codes.size) - bounds[run_of]
            # a run holds a document once: its holders are its occurrences
            many = np.bincount(local, minlength=union.size) >= 2
            size = int(np.count_nonzero(many))
            row_of = np.where(many, np.cumsum(many) - 1, size)  # held once: the ABSENT row
            rank = np.full((size + 1, nruns), ABSENT, dtype=np.int64)
            held = many[local]
            rank[row_of[local[held]], run_of[held]] = position[held]
            # held once: numbered -1, -2, ... here, after every document held twice below
            code = np.where(many, row_of + offset, -1 - once - (np.cumsum(~many) - 1))
            docs[q * nruns + run_of, position] = code[local]
            rel = np.isin(union, relevant_codes[q])
            relevant_parts.append(rel[many])
            relevant_once.append(rel[~many])
            rank_rows.append(rank[:-1])
            counts, rel_counts, shared, rel_shared = _overlaps(run_of, local, rel, nruns)
            query.append(np.full(x.size, q))
            xs.append(x)
            ys.append(y)
            # |a ∪ b| (1 for two empty rankings)
            depth.append(np.maximum(counts[x] + counts[y] - shared[x, y], 1))
            total.append(rel_counts[x] + rel_counts[y] - rel_shared[x, y])
            mirror.append(_mirrored(rank, row_of[local], rel, local, bounds, sizes, shared, x, y))
            offset += size
            once += union.size - size
    np.subtract(offset - 1, docs, out=docs, where=docs < 0)  # -1 - k: offset + k
    sentinel = offset + once
    docs[np.arange(longest + 1) >= lengths[:, None]] = sentinel  # the padding
    rank = np.concatenate([*rank_rows, np.full((1, nruns), ABSENT, dtype=np.int64)])
    relevant = np.concatenate([*relevant_parts, *relevant_once, [False]])
    query_ = np.concatenate(query) if query else np.zeros(0, dtype=np.int64)
    x_ = np.concatenate(xs) if xs else np.zeros(0, dtype=np.int64)
    y_ = np.concatenate(ys) if ys else np.zeros(0, dtype=np.int64)
    depth_ = np.concatenate(depth).astype(np.int64) if depth else np.zeros(0, dtype=np.int64)
    batch = Batch(
        docs, lengths, rank,
        np.tile(np.arange(nruns, dtype=np.int64), len(rankings)), relevant,
        query_ * nruns + x_, query_ * nruns + y_, depth_,
        browsing_base(browsing, int(depth_.max(initial=1))),
    )  # fmt: skip
    return QueryPairs(
        batch, query_, x_, y_,
        np.concatenate(total).astype(np.int64) if total else np.zeros(0, dtype=np.int64),
        np.concatenate(mirror) if mirror else np.zeros(0, dtype=bool),
    )  # fmt: skip


def _overlaps(
    run_of: np.ndarray, local: np.ndarray, rel: np.ndarray, nruns: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per run, its distinct documents and relevant documents; per pair of runs, the
    documents and relevant documents both hold (runs x runs).  The pair counts are a
    product of 0/1 matrices restricted to the documents two runs or more hold: exact in
    floating point (sums of ones), and small when the runs share little.  A run holds a
    document once, so its occurrences are the distinct (run, document) pairs, in no order
    the counts depend on."""
    size = rel.size
    run, doc = run_of, local
    counts = np.bincount(run, minlength=nruns)
    rel_counts = np.bincount(run[rel[doc]], minlength=nruns)
    holders = np.bincount(doc, minlength=size)
    many = holders[doc] >= 2
    column = np.cumsum(holders >= 2) - 1
    presence = np.zeros((nruns, int(np.count_nonzero(holders >= 2))))
    presence[run[many], column[doc[many]]] = 1.0
    relevant = rel[holders >= 2]
    shared = np.rint(presence @ presence.T).astype(np.int64)
    rel_shared = np.rint((presence * relevant) @ presence.T).astype(np.int64)
    return counts, rel_counts, shared, rel_shared


#: Cells of the (pairs × ranks) arrays `_mirrored` compares at once.
_MIRROR_CELLS = 4_000_000


def _mirrored(
    rank: np.ndarray, row: np.ndarray, rel: np.ndarray, local: np.ndarray, bounds: np.ndarray,
    sizes: np.ndarray, shared: np.ndarray, x: np.ndarray, y: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """Per pair (x, y): do both rankings look alike from the other's side — one length, the
    same relevance at every rank, and a's k-th document at the rank in b where b's k-th is
    in a?  Then (y, x) is (x, y) with its documents renamed and I(x, y) = −I(y, x) = 0.
    Runs are compared by the pattern of their relevant ranks first; rankings sharing no
    document are nowhere in each other, so only pairs that share documents are compared
    rank by rank."""
    nruns = sizes.size
    pattern: dict[tuple[int, bytes], int] = {}
    kind = np.array([
        pattern.setdefault(
            (int(sizes[r]), np.packbits(rel[local[bounds[r] : bounds[r + 1]]]).tobytes()),
            len(pattern),
        )
        for r in range(nruns)
    ], dtype=np.int64)  # fmt: skip
    out = kind[x] == kind[y]
    check = np.flatnonzero(out & (shared[x, y] > 0))
    for length in np.unique(sizes[x[check]]).tolist():
        some = check[sizes[x[check]] == length]
        step = max(1, _MIRROR_CELLS // max(length, 1))
        ranks = np.arange(length)
        for start in range(0, some.size, step):
            k = some[start : start + step]
            a, b = x[k], y[k]
            rows_a = row[bounds[a][:, None] + ranks]
            rows_b = row[bounds[b][:, None] + ranks]
            out[k] = (rank[rows_a, b[:, None]] == rank[rows_b, a[:, None]]).all(axis=1)
    return out


#: Values this close to 0 are 0: terms that cancel exactly leave a few units of 1e-17 in
#: floating point, which would otherwise read as a win.  (An exact preference this small
#: would need a deciding depth beyond 10^13 or some 40 coin flips deciding one position.)
TIE = 1e-13


def settle(values: np.ndarray) -> np.ndarray:
    """Values in [−1, 1] (rounding may overshoot a certain preference by an ulp) with those
    within `TIE` of 0 set to 0."""
    values = np.clip(values, -1.0, 1.0)
    values[np.abs(values) < TIE] = 0.0
    return values
