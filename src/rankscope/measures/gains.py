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

from ..data import PAD, Ranked
from .base import (
    REL,
    IrSpelling,
    Measure,
    Param,
    TrecSpelling,
    log2_int,
    safe_divide,
    sequential_sum,
)

GAINS = Param("gains", dict, None, "gain of each grade, {grade: gain} (default: the grade itself)")

_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


def gain_of(grade: np.ndarray, gains: dict[int, float] | None) -> np.ndarray:
    """Gain of each grade: ``gains[grade]`` if given, else the grade if >= 0, else 0."""
    g = np.where(grade >= 0, grade, 0).astype(np.float64)
    if gains:
        for level, value in gains.items():
            g[grade == level] = value
    g[grade == PAD] = 0.0
    return g


def ideal_gains(r: Ranked, gains: dict[int, float] | None, width: int | None = None) -> np.ndarray:
    """Per query, the positive gains of all judged documents in decreasing order (0-padded)."""
    levels = np.arange(r.rel_levels.shape[1])
    level_gain = gain_of(levels, gains)
    order = np.argsort(-level_gain, kind="stable")
    order = order[level_gain[order] > 0]
    counts = r.rel_levels[:, order]
    bounds = np.cumsum(counts, axis=1)
    total = bounds[:, -1] if len(order) else np.zeros(len(r.grade), dtype=np.int64)
    w = max(int(total.max(initial=0)), 1) if width is None else width
    pos = np.arange(w)[None, :]
    ideal = np.zeros((len(r.grade), w))
    lower = np.zeros((len(r.grade), 1), dtype=np.int64)
    for j, level in enumerate(order.tolist()):
        upper = bounds[:, j : j + 1]
        ideal[(pos >= lower) & (pos < upper)] = level_gain[level]
        lower = upper
    return ideal


def _discounted(values: np.ndarray) -> np.ndarray:
    """``value_i / log2(i + 1)`` for ranks i = 1..n (0 where value is 0)."""
    n = values.shape[1]
    denom = log2_int(n + 2)[2:]
    return np.where(values != 0, values / denom, 0.0)


def _widths(r: Ranked, gains: dict[int, float] | None) -> tuple[np.ndarray, np.ndarray]:
    """Retrieved and ideal gains, both padded to a common width."""
    ideal = ideal_gains(r, gains)
    width = max(r.width, ideal.shape[1])
    got = np.zeros((len(r.grade), width))
    got[:, : r.width] = gain_of(r.grade, gains)
    if ideal.shape[1] < width:
        ideal = np.pad(ideal, ((0, 0), (0, width - ideal.shape[1])))
    return got, ideal


def _dcg_pair(r: Ranked, gains: dict[int, float] | None) -> tuple[np.ndarray, np.ndarray]:
    got, ideal = _widths(r, gains)
    return sequential_sum(_discounted(got)), sequential_sum(_discounted(ideal))


def _ndcg(r: Ranked, gains: dict[int, float] | None = None) -> np.ndarray:
    dcg, idcg = _dcg_pair(r, gains)
    return safe_divide(dcg, np.where(idcg > 0, idcg, 0))


def _dcg(r: Ranked, gains: dict[int, float] | None = None) -> np.ndarray:
    return _dcg_pair(r, gains)[0]


def _ideal_dcg(r: Ranked, gains: dict[int, float] | None = None) -> np.ndarray:
    return _dcg_pair(r, gains)[1]


_PAIRS = TrecSpelling("pairs", "gains")

ndcg = Measure(
    "ndcg",
    _ndcg,
    doc=(
        "Normalised discounted cumulative gain over the whole ranking: DCG / ideal DCG, with "
        "DCG = sum_i gain_i / log2(i + 1) and the ideal DCG of all judged documents sorted "
        "by gain. Gains default to the grades (linear gain).\n\n"
        "User model: a user scanning down the ranking whose attention decays with "
        "log2 of the rank, collecting graded gain."
    ),
    params=(GAINS,),
    trec=_PAIRS,
    ir=(IrSpelling("nDCG"),),
    family="gains",
    reference="Järvelin & Kekäläinen, Cumulated gain-based evaluation of IR techniques, "
    "ACM TOIS 20(4), 2002.",
)

dcg = Measure(
    "dcg",
    _dcg,
    doc="Discounted cumulative gain over the whole ranking: sum_i gain_i / log2(i + 1).",
    params=(GAINS,),
    trec=_PAIRS,
    ir=(IrSpelling("DCG"),),
    family="gains",
)

ideal_dcg = Measure(
    "ideal_dcg",
    _ideal_dcg,
    doc="DCG of the ideal ranking: every judged document sorted by decreasing gain.",
    params=(GAINS,),
    trec=_PAIRS,
    family="gains",
)


def _ndcg_cut(r: Ranked, cutoff: int | None = None) -> np.ndarray:
    if cutoff is None or cutoff <= 0:
        raise ValueError("ndcg_cut needs a positive cutoff (e.g. nDCG@10)")
    got = np.where(r.grade > 0, r.grade, 0).astype(np.float64)[:, :cutoff]
    ideal = ideal_gains(r, None, width=cutoff)
    dcg_k = sequential_sum(_discounted(got))
    idcg_k = sequential_sum(_discounted(ideal))
    return np.where(idcg_k > 0, safe_divide(dcg_k, idcg_k), dcg_k)


ndcg_cut = Measure(
    "ndcg_cut",
    _ndcg_cut,
    doc=(
        "nDCG at cutoff k: DCG of the top k over the DCG of the ideal top k, with gain = grade "
        "(trec_eval's ndcg_cut ignores gain parameters and the relevance level)."
    ),
    params=(Param("cutoff", int, None, "rank cutoff k"),),
    trec=TrecSpelling("cutoffs", "cutoff", _CUTOFFS),
    ir=(IrSpelling("nDCG", cutoff="cutoff"),),
    family="gains",
    reference="Järvelin & Kekäläinen, ACM TOIS 20(4), 2002.",
)


def _ndcg_rel(r: Ranked, gains: dict[int, float] | None = None) -> np.ndarray:
    got, ideal = _widths(r, gains)
    dcg_cum = np.cumsum(_discounted(got), axis=1)
    idcg_cum = np.cumsum(_discounted(ideal), axis=1)
    big_r = (ideal > 0).sum(axis=1)
    positive = got > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(positive, dcg_cum / idcg_cum, 0.0)
        total = sequential_sum(terms)
        missing = (big_r - positive.sum(axis=1)).astype(np.float64)
        total = total + missing * dcg_cum[:, -1] / idcg_cum[:, -1]
        value = np.where(total > 0, total / big_r, 0.0)
    return value


ndcg_rel = Measure(
    "ndcg_rel",
    _ndcg_rel,
    doc=(
        "nDCG averaged over relevant documents (experimental, trec_eval): the mean, over the "
        "documents with positive gain, of nDCG at the rank where each is retrieved; a relevant "
        "document not retrieved contributes the nDCG at the end of the ranking."
    ),
    params=(GAINS,),
    trec=_PAIRS,
    family="gains",
)


def _rndcg(r: Ranked, gains: dict[int, float] | None = None, rel: int | None = None) -> np.ndarray:
    got, ideal = _widths(r, gains)
    nq, width = got.shape
    dcg_cum = np.cumsum(_discounted(got), axis=1)
    idcg_cum = np.cumsum(_discounted(ideal), axis=1)
    big_r = (ideal > 0).sum(axis=1)
    n = r.num_ret
    # boundaries: ranks i (1-based position i means "before document i") where the ideal gain
    # changes; nDCG is taken just before them.
    ext = np.pad(ideal, ((0, 0), (0, 1)))
    change = ext[:, 1:] != ext[:, :-1]  # column j: boundary before position j + 1
    pos = np.arange(1, width + 1)[None, :]
    rows = np.arange(nq)[:, None]
    upto = np.minimum(pos, n[:, None])
    dcg_before = np.where(upto > 0, dcg_cum[rows, np.maximum(upto - 1, 0)], 0.0)
    idcg_before = idcg_cum[rows, pos - 1]
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
    "Rndcg",
    _rndcg,
    doc=(
        "nDCG averaged at the R-levels (experimental, trec_eval): the mean of nDCG taken at "
        "each rank where the ideal gain drops to the next level, and at the end of the "
        "ranking when it is longer than the number of documents with positive gain."
    ),
    params=(GAINS, REL),
    trec=_PAIRS,
    family="gains",
)


def _g(r: Ranked, gains: dict[int, float] | None = None) -> np.ndarray:
    got, ideal = _widths(r, gains)
    width = got.shape[1]
    valid = np.arange(width)[None, :] < r.num_ret[:, None]
    cost = np.where(valid, np.maximum(ideal, 1.0), 0.0)
    sum_cost = np.cumsum(cost, axis=1)
    sum_results = np.cumsum(got, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = np.log2((2.0 + sum_cost) - sum_results)
        terms = np.where(valid & (got != 0), got / denom, 0.0)
    total = sequential_sum(terms)
    sum_ideal = sequential_sum(ideal)
    return safe_divide(total, np.where(sum_ideal > 0, sum_ideal, 0))


G = Measure(
    "G",
    _g,
    doc=(
        "Normalised gain G (experimental, trec_eval 2008): the document at rank i contributes "
        "gain_i / log2(2 + ideal_gain(i) - results_gain(i)), the cumulative gains of the ideal "
        "and of the actual ranking up to i (ideal gains below 1 count as 1); the sum is "
        "normalised by the total ideal gain."
    ),
    params=(GAINS,),
    trec=_PAIRS,
    family="gains",
)


def _rbp(r: Ranked, p: float = 0.9, gains: dict[int, float] | None = None) -> np.ndarray:
    nq = len(r.grade)
    raw = gain_of(r.grade, gains)
    listed = r.grade >= 0
    if gains:
        for level in gains:
            listed |= r.grade == level
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
    weight = np.cumprod(np.concatenate(([1.0], np.full(max(r.width - 1, 0), p))))
    terms = np.where(value != 0, value * weight[None, :], 0.0)
    return (1.0 - p) * sequential_sum(terms)


rbp = Measure(
    "rbp",
    _rbp,
    doc=(
        "Rank-biased precision: (1 - p) * sum_i gain_i * p^(i-1). Gains are the grades, "
        "min-max normalised to [0, 1] when they fall outside it.\n\n"
        "User model: a user who always reads the first result and moves from each result to "
        "the next with probability p (persistence); RBP is the expected gain per document "
        "read.\n\n"
        "Build note: trec_eval 10.0's m_rbp.c reads its ``min`` and ``max`` before "
        "initialising them, so whether and how it normalises depends on the stack contents "
        "of that build; rankscope implements the intended behaviour (normalise only when some "
        "gain is outside [0, 1])."
    ),
    params=(Param("p", float, 0.9, "persistence, probability of reading on"), GAINS),
    trec=TrecSpelling("pairs", "gains"),
    ir=(IrSpelling("RBP"),),
    family="gains",
    reference="Moffat & Zobel, Rank-biased precision for measurement of retrieval "
    "effectiveness, ACM TOIS 27(1), 2008.",
)
