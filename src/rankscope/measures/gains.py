"""Graded-gain measures: DCG and nDCG (trec_eval's forms), nDCG at cutoffs, ndcg_rel, Rndcg,
G, and rank-biased precision.

Gains: by default the gain of a document is its grade (trec_eval).  trec_eval's
``level=gain`` parameters (``ndcg.1=3,2=9``) override the gain of a grade; grades may be given
gain 0 or a negative gain.  Documents not in the judgments have gain 0.  The ideal ranking
orders every judged document of the query (retrieved or not) by gain, descending, keeping
the positive gains.

Discount: ``1 / log2(i + 1)`` at rank ``i``, computed by dividing by the C library's log2 as
trec_eval does, so values agree with it to the last bit.
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..judge import BEYOND, NONPOOL, PAD, Ranked
from .base import (
    GAIN_PAIRS,
    REL,
    IrSpelling,
    Measure,
    Param,
    cutoff_spelling,
    log2_int,
    safe_divide,
    sequential_sum,
)

GAINS = Param("gains", dict, None, "gain of each grade, {grade: gain} (default: the grade itself)")


def gain_of(grade: np.ndarray, gains: dict[int, float] | None) -> np.ndarray:
    """Gain of each grade: ``gains[grade]`` if given, else the grade if >= 0, else 0."""
    g = np.where(grade >= 0, grade, 0).astype(np.float64)
    if gains:
        for level, value in gains.items():
            g[grade == level] = value
    g[grade == PAD] = 0.0
    return g


def ideal_gains(r: Ranked, gains: dict[int, float] | None, width: int | None = None) -> np.ndarray:
    """Per query, the positive gains of all judged documents in decreasing order (0-padded;
    ``width`` columns, or as many as the most such documents of a query)."""
    levels = np.arange(r.rel_levels.shape[1])
    level_gain = gain_of(levels, gains)
    order = np.argsort(-level_gain, kind="stable")
    order = order[level_gain[order] > 0]
    counts = r.rel_levels[:, order]
    total = counts.sum(axis=1) if len(order) else np.zeros(len(r), dtype=np.int64)
    w = max(int(total.max(initial=0)), 1) if width is None else width
    ideal = np.zeros((len(r), w))
    # each query's gains one after the other, laid into its row from column 0 (the first
    # w of them): one pass over the judged documents, not one over the table per grade
    flat = np.repeat(np.broadcast_to(level_gain[order], counts.shape).ravel(), counts.ravel())
    row = np.repeat(np.arange(len(r)), total)
    column = np.arange(len(flat)) - np.repeat(np.cumsum(total) - total, total)
    keep = column < w
    ideal[row[keep], column[keep]] = flat[keep]
    return ideal


def _discount(ranks: np.ndarray) -> np.ndarray:
    """``log2(rank + 1)`` (1 for padding), from the C library's log2 as trec_eval."""
    table = log2_int(int(ranks[ranks < BEYOND].max(initial=1)) + 2)
    return table[np.where(ranks < BEYOND, ranks + 1, 2)]


def _discounted(values: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """``value / log2(rank + 1)``, 0 where value is 0."""
    return np.where(values != 0, values / _discount(ranks), 0.0)


def _positions(width: int) -> np.ndarray:
    return np.arange(1, width + 1)[None, :]


def value_before(ranks: np.ndarray, cum: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """Per query and per ``limit[i, j]``: the running total ``cum`` (one value per entry, entries
    in rank order) at the last entry whose rank is <= the limit; 0 if there is none."""
    nq, width = ranks.shape
    stride = np.int64(BEYOND) * 2
    base = np.arange(nq, dtype=np.int64)[:, None] * stride
    keys = (base + ranks).ravel()
    count = np.searchsorted(keys, (base + limit).ravel(), side="right").reshape(limit.shape)
    count -= (np.arange(nq) * width)[:, None]
    padded = np.concatenate((np.zeros((nq, 1)), cum), axis=1)
    return padded[np.arange(nq)[:, None], count]


def _retrieved(r: Ranked, gains: dict[int, float] | None):
    """(ranks, gains) of the retrieved documents that can have a gain: the judged ones, or
    every rank when a gain is given to documents outside the qrels (level -1)."""
    dense = gains is not None and any(level == NONPOOL for level in gains)
    ranks, grades = r.entries(dense)
    return ranks, gain_of(grades, gains)


def _dcg_state(r: Ranked, gains: dict[int, float] | None):
    """Shared by the gain measures: retrieved ranks and gains, DCG terms and the ideal."""

    def make():
        ranks, got = _retrieved(r, gains)
        ideal = ideal_gains(r, gains)
        dcg_terms = _discounted(got, ranks)
        idcg_terms = _discounted(ideal, np.broadcast_to(_positions(ideal.shape[1]), ideal.shape))
        return ranks, got, ideal, dcg_terms, idcg_terms

    key = ("dcg_state", tuple(sorted(gains.items())) if gains else None)
    return r.cached(key, make)


def _ndcg(r: Ranked, gains: dict[int, float] | None = None) -> np.ndarray:
    _, _, _, dcg_terms, idcg_terms = _dcg_state(r, gains)
    dcg_value, idcg_value = sequential_sum(dcg_terms), sequential_sum(idcg_terms)
    return safe_divide(dcg_value, np.where(idcg_value > 0, idcg_value, 0))


def _dcg(r: Ranked, gains: dict[int, float] | None = None) -> np.ndarray:
    return sequential_sum(_dcg_state(r, gains)[3])


def _ideal_dcg(r: Ranked, gains: dict[int, float] | None = None) -> np.ndarray:
    return sequential_sum(_dcg_state(r, gains)[4])


ndcg = Measure(
    "ndcg", _ndcg, params=(GAINS,), trec=GAIN_PAIRS, ir=(IrSpelling("nDCG"),), family="gains",
    reference="Järvelin & Kekäläinen, Cumulated gain-based evaluation of IR techniques, "
    "ACM TOIS 20(4), 2002.",
    doc="""\
    Normalised discounted cumulative gain over the whole ranking: DCG / ideal DCG, with DCG =
    sum_i gain_i / log2(i + 1) and the ideal DCG of all judged documents sorted by gain. Gains
    default to the grades (linear gain).

    User model: a user scanning down the ranking whose attention decays with log2 of the rank,
    collecting graded gain.
    """,
)

dcg = Measure(
    "dcg", _dcg, reference="Järvelin & Kekäläinen, ACM TOIS 20(4), 2002.", params=(GAINS,),
    trec=GAIN_PAIRS, ir=(IrSpelling("DCG"),), family="gains",
    doc="""\
    Discounted cumulative gain over the whole ranking: sum_i gain_i / log2(i + 1),
    unnormalised.

    User model: nDCG's user; the value is the total discounted gain she collects.
    """,
)

ideal_dcg = Measure(
    "ideal_dcg", _ideal_dcg, params=(GAINS,), trec=GAIN_PAIRS, zero_when_missing=False,
    family="gains",
    reference="Järvelin & Kekäläinen, ACM TOIS 20(4), 2002.",
    doc="""\
    DCG of the ideal ranking: every judged document sorted by decreasing gain. It depends on
    the judgments only, so a judged query missing from the run keeps its value under ``-c`` (as
    in trec_eval).
    """,
)


def _ideal_width(r: Ranked) -> int:
    """The width `ideal_gains` gives the ideal ranking (default gains): the most documents
    of positive grade any query has, at least 1."""
    positive = r.rel_levels[:, 1:].sum(axis=1) if r.rel_levels.shape[1] > 1 else None
    return max(int(positive.max(initial=0)), 1) if positive is not None else 1


def _ideal_terms(r: Ranked, width: int) -> np.ndarray:
    ideal = ideal_gains(r, None, width)
    return _discounted(ideal, np.broadcast_to(_positions(width), ideal.shape))


def _ndcg_cut(r: Ranked, cutoff: int | None = None) -> np.ndarray:
    if cutoff is None or cutoff <= 0:
        raise UsageError("ndcg_cut needs a positive cutoff (e.g. nDCG@10)")
    # gain = grade (> 0); trec_eval's ndcg_cut takes no gain parameters
    terms = r.cached(
        ("ndcg_cut_terms",),
        lambda: _discounted(np.where(r.grade > 0, r.grade, 0).astype(np.float64), r.rank),
    )
    # The ideal's first min(k, most relevant) positions only: its running sum up to k is
    # the same numbers added in the same order as over the whole ideal ranking (a user of a
    # recommender log may have thousands of relevant items, and nDCG@10 needs ten).
    width = min(cutoff, _ideal_width(r))
    ideal_cum = r.cached(
        ("ndcg_cut_ideal", width),
        lambda: np.cumsum(_ideal_terms(r, width), axis=1),
    )
    dcg_k = sequential_sum(np.where(r.rank <= cutoff, terms, 0.0))
    idcg_k = ideal_cum[:, min(cutoff, ideal_cum.shape[1]) - 1]
    return np.where(idcg_k > 0, safe_divide(dcg_k, idcg_k), dcg_k)


ndcg_cut = Measure(
    "ndcg_cut", _ndcg_cut, params=(Param("cutoff", int, None, "rank cutoff k", minimum=1),),
    trec=cutoff_spelling(), ir=(IrSpelling("nDCG", cutoff="cutoff"),),
    family="gains", reference="Järvelin & Kekäläinen, ACM TOIS 20(4), 2002.",
    doc="""\
    nDCG at cutoff k: DCG of the top k over the DCG of the ideal top k, with gain = grade
    (trec_eval's ndcg_cut ignores gain parameters and the relevance level).

    User model: nDCG's user, who stops at rank k.
    """,
)


def _ndcg_rel(r: Ranked, gains: dict[int, float] | None = None) -> np.ndarray:
    ranks, got, ideal, dcg_terms, idcg_terms = _dcg_state(r, gains)
    dcg_cum = np.cumsum(dcg_terms, axis=1)
    idcg_cum = np.cumsum(idcg_terms, axis=1)
    big_r = (ideal > 0).sum(axis=1)
    positive = got > 0
    rows = np.arange(len(r))[:, None]
    at = np.minimum(np.where(positive, ranks, 1), idcg_cum.shape[1]) - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(positive, dcg_cum / idcg_cum[rows, at], 0.0)
        total = sequential_sum(terms)
        missing = (big_r - positive.sum(axis=1)).astype(np.float64)
        total = total + missing * dcg_cum[:, -1] / idcg_cum[:, -1]
        value = np.where(total > 0, total / big_r, 0.0)
    return value


ndcg_rel = Measure(
    "ndcg_rel", _ndcg_rel, reference="trec_eval's ndcg_rel (m_ndcg_rel.c).", params=(GAINS,),
    trec=GAIN_PAIRS, family="gains",
    doc="""\
    nDCG averaged over relevant documents (experimental, trec_eval): the mean, over the
    documents with positive gain, of nDCG at the rank where each is retrieved; a relevant
    document not retrieved contributes the nDCG at the end of the ranking.

    User model: AP's stopping user (she stops after a relevant document) valuing nDCG at that
    point.
    """,
)


def _rndcg(r: Ranked, gains: dict[int, float] | None = None, rel: int | None = None) -> np.ndarray:
    ranks, _, ideal, dcg_terms, idcg_terms = _dcg_state(r, gains)
    width = ideal.shape[1]
    dcg_cum = np.cumsum(dcg_terms, axis=1)
    idcg_cum = np.cumsum(idcg_terms, axis=1)
    big_r = (ideal > 0).sum(axis=1)
    n = r.num_ret
    # Boundaries: column j is set when the ideal gain changes after its first j + 1 positions;
    # nDCG is then taken over ranks 1 .. j + 1.
    ext = np.pad(ideal, ((0, 0), (0, 1)))
    change = ext[:, 1:] != ext[:, :-1]
    pos = _positions(width)
    upto = np.minimum(pos, n[:, None])
    dcg_before = value_before(ranks, dcg_cum, upto)
    idcg_before = idcg_cum[:, :width]
    take = change & (idcg_before > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(take, dcg_before / idcg_before, 0.0)
        total = sequential_sum(terms)
        count = take.sum(axis=1)
        idcg_all = idcg_cum[:, -1]
        # trec_eval adds the end-of-ranking point only when its first loop stopped with at
        # least two documents left (the loop has already moved one past the boundary).
        final = (big_r + 1 < n) & (idcg_all > 0)
        total = np.where(final, total + dcg_cum[:, -1] / idcg_all, total)
        count = count + final
        value = total / count
    return np.where(r.num_rel(rel) > 0, value, 0.0)


Rndcg = Measure(
    "Rndcg", _rndcg, reference="trec_eval's Rndcg (m_Rndcg.c).", params=(GAINS, REL),
    trec=GAIN_PAIRS, family="gains",
    doc="""\
    nDCG averaged at the R-levels (experimental, trec_eval): the mean of nDCG taken at each
    rank where the ideal gain drops to the next level, and at the end of the ranking when it is
    longer than the number of documents with positive gain (trec_eval counts that last point
    only when at least two documents follow the last boundary).

    User model: nDCG averaged over users who stop where the ideal ranking changes grade.
    """,
)


def _g(r: Ranked, gains: dict[int, float] | None = None) -> np.ndarray:
    ranks, got, ideal, _, _ = _dcg_state(r, gains)
    nq, width = ideal.shape
    # cost of position i: max(ideal gain at i, 1), 1 past the ideal ranking
    cost_cum = np.cumsum(np.maximum(ideal, 1.0), axis=1)
    rows = np.arange(nq)[:, None]
    real = ranks < BEYOND
    at = np.where(real, ranks, 1)
    within = at <= width
    past = cost_cum[:, -1:]
    if np.all(past == np.floor(past)):
        # adding 1.0 at a time to an integer is exact: no need to walk every rank
        sum_cost = np.where(within, cost_cum[rows, np.minimum(at, width) - 1], past + (at - width))
    else:
        longest = max(int(at.max(initial=1)), width)
        cost = np.ones((nq, longest))
        cost[:, :width] = np.maximum(ideal, 1.0)
        sum_cost = np.cumsum(cost, axis=1)[rows, at - 1]
    sum_results = np.cumsum(got, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = np.log2((2.0 + sum_cost) - sum_results)
        terms = np.where(real & (got != 0), got / denom, 0.0)
    total = sequential_sum(terms)
    sum_ideal = sequential_sum(ideal)
    return safe_divide(total, np.where(sum_ideal > 0, sum_ideal, 0))


G = Measure(
    "G", _g, reference="trec_eval's G (m_G.c).", params=(GAINS,), trec=GAIN_PAIRS, family="gains",
    doc="""\
    Normalised gain G (experimental, trec_eval 2008): the document at rank i contributes gain_i
    / log2(2 + ideal_gain(i) - results_gain(i)), the cumulative gains of the ideal and of the
    actual ranking up to i (ideal gains below 1 count as 1); the sum is normalised by the total
    ideal gain.

    User model: the worth of a document depends on how far the ranking so far lags behind the
    ideal: a document near the ideal position is nearly as good as possible.
    """,
)


def _rbp(r: Ranked, p: float = 0.9, gains: dict[int, float] | None = None) -> np.ndarray:
    nq = len(r)
    dense = gains is not None and any(level == NONPOOL for level in gains)
    ranks, grades = r.entries(dense)
    raw = gain_of(grades, gains)
    listed = grades >= 0
    if gains:
        for level in gains:
            listed |= grades == level
    raw = np.where(listed, raw, 0.0)
    # Normalise to [0, 1] when the query's gains fall outside it: min-max over the gains of
    # grades 0 .. highest judged grade, and of the grades given in ``gains``.
    levels = np.arange(r.rel_levels.shape[1])
    level_gain = np.broadcast_to(gain_of(levels, gains), (nq, len(levels)))
    in_query = levels[None, :] < r.num_rel_levels[:, None]
    lo = np.where(in_query, level_gain, np.inf).min(axis=1, initial=np.inf)
    hi = np.where(in_query, level_gain, -np.inf).max(axis=1, initial=-np.inf)
    if gains:
        extra = np.array(list(gains.values()))
        lo = np.minimum(lo, extra.min())
        hi = np.maximum(hi, extra.max())
    scale = (lo < 0) | (hi > 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        normed = np.where(scale[:, None], (raw - lo[:, None]) / (hi - lo)[:, None], raw)
    value = np.where(listed, normed, 0.0)
    weight = persistence_weights(p, r.max_rank + 1)
    real = ranks < BEYOND
    terms = np.where(real & (value != 0), value * weight[np.where(real, ranks - 1, 0)], 0.0)
    return (1.0 - p) * sequential_sum(terms)


def persistence_weights(p: float, n: int) -> np.ndarray:
    """``p ** i`` for i = 0..n-1, by repeated multiplication (as trec_eval accumulates it)."""
    return np.cumprod(np.concatenate(([1.0], np.full(max(n - 1, 0), p))))


rbp = Measure(
    "rbp", _rbp, params=(Param("p", float, 0.9, "persistence, probability of reading on"), GAINS),
    trec=GAIN_PAIRS, ir=(IrSpelling("RBP"),), family="gains",
    reference="Moffat & Zobel, Rank-biased precision for measurement of retrieval "
    "effectiveness, ACM TOIS 27(1), 2008.",
    doc="""\
    Rank-biased precision: (1 - p) * sum_i gain_i * p^(i-1). Gains are the grades, min-max
    normalised to [0, 1] when they fall outside it.

    User model: a user who always reads the first result and moves from each result to the next
    with probability p (persistence); RBP is the expected gain per document read.

    Build note: trec_eval 10.0's m_rbp.c reads its ``min`` and ``max`` before initialising
    them, so whether and how it normalises depends on the stack contents of that build;
    rankscope implements the intended behaviour (normalise only when some gain is outside [0,
    1]).
    """,
)
