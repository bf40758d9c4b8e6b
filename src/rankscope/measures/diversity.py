"""Intent-aware (subtopic, diversity) measures, as ndeval 4.5 defines them (TREC Web track).

They need diversity judgments (``qid subtopic docno grade``, read by `read_diversity_qrels`
or `rankscope eval --diversity`).  A query's subtopics are those with at least one relevant
document (ndeval's "actual subtopics", N below); a document's grade per subtopic counts as
relevant or not (grade >= the relevance level, default 1), as ndeval does.

Novelty gain.  The document at rank r earns, for every subtopic s it is relevant to,
``(1 - α)^{c_s(r)}`` where ``c_s(r)`` is the number of documents above r relevant to s:
``g(r) = Σ_s rel_s(r) (1 - α)^{c_s(r)}``.  α (default 0.5) is the chance that the user
already found what she wanted about s in a relevant document, so each repetition of a
subtopic is worth less (Clarke et al., SIGIR 2008).

Normalisations (ndeval's):

* *collection-independent* ("ideal ideal"): divide by the score of a ranking in which every
  document is relevant to all N subtopics, ``Σ_{i<k} N (1-α)^i w(i+1)``: α-DCG@k, ERR-IA@k
  and NRBP (whose factor ``(1-(1-α)β)/N`` plays this role);
* *collection-dependent*: divide by the score of an ideal ranking of the judged documents:
  α-nDCG@k, nERR-IA@k and nNRBP.  Finding the ideal is NP-hard; ndeval's greedy
  approximation is used: at each rank take the document with the largest novelty gain,
  ties broken by the larger docno.

A query without relevant documents scores 0 on every measure.  ndeval computes the k = 1
values without the collection-independent division (an accident of a loop starting at 1);
here every k is normalised alike.
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..judge import BEYOND, Ranked
from .base import IrSpelling, Measure, Param, cutoff_spelling, safe_divide, sequential_sum

ALPHA = Param(
    "alpha",
    float,
    0.5,
    "redundancy: a relevant document's gain for a subtopic is (1-alpha)^(earlier ones)",
    minimum=0.0,
)
BETA = Param("beta", float, 0.5, "NRBP's persistence: the user reads on with chance beta")
CUTOFF = Param("cutoff", int, 20, "rank cutoff k", minimum=1)

_CUTOFFS = (5, 10, 20)
_NDEVAL = "ndeval 4.5 (TREC Web track 2009-2014, trec-web/trec-web-2014 src/eval/ndeval.c)."
_CLARKE08 = (
    "Clarke, Kolla, Cormack, Vechtomova, Ashkan, Büttcher & MacKinnon, Novelty and diversity "
    "in information retrieval evaluation, SIGIR 2008; " + _NDEVAL
)
_ERRIA = (
    "Chapelle, Metzler, Zhang & Grinspan, Expected reciprocal rank for graded relevance, "
    "CIKM 2009; Agrawal, Gollapudi, Halverson & Ieong, Diversifying search results, WSDM 2009 "
    "(intent-aware measures); " + _NDEVAL
)
_NRBP = (
    "Clarke, Kolla & Vechtomova, An effectiveness measure for ambiguous and underspecified "
    "queries, ICTIR 2009; " + _NDEVAL
)


def _need(r: Ranked) -> np.ndarray:
    if r.aspects is None:
        raise UsageError(
            "diversity measures need diversity judgments (qid subtopic docno grade): read "
            "them with read_diversity_qrels(), or pass --diversity to rankscope eval"
        )
    return r.aspects


def _subtopic_relevant(r: Ranked) -> np.ndarray:
    """Relevant documents per subtopic, (b, S)."""
    _need(r)
    assert r.aspect_count is not None  # Ranked.from_judged sets it with the aspects
    return r.aspect_count


def _ideal_candidates(r: Ranked) -> np.ndarray:
    """The ideal ranking's candidate documents and their subtopics, (b, D, S)."""
    _need(r)
    assert r.aspect_pool is not None  # Ranked.from_judged sets it with the aspects
    return r.aspect_pool


def _num_subtopics(r: Ranked) -> np.ndarray:
    return (_subtopic_relevant(r) > 0).sum(axis=1)


def _novelty(rel: np.ndarray, alpha: float) -> np.ndarray:
    """Novelty gain of each entry (b, J) from its subtopic relevance (b, J, S) in rank order."""
    seen = np.cumsum(rel, axis=1) - rel
    weight = np.where(rel, (1.0 - alpha) ** seen, 0.0)
    return sequential_sum(weight.reshape(-1, weight.shape[-1])).reshape(rel.shape[:2])


def _gains(r: Ranked, alpha: float) -> np.ndarray:
    return r.cached(("novelty", alpha), lambda: _novelty(_need(r), alpha))


def _ideal(r: Ranked, alpha: float) -> np.ndarray:
    """Novelty gains of ndeval's greedy ideal ranking, (b, D)."""

    def make() -> np.ndarray:
        pool = _ideal_candidates(r)
        b, depth, _ = pool.shape
        gain = np.ones((b, pool.shape[2]))
        taken = np.zeros((b, depth), dtype=bool)
        out = np.zeros((b, depth))
        rows = np.arange(b)
        for t in range(depth):
            score = sequential_sum(
                np.where(pool, gain[:, None, :], 0.0).reshape(-1, pool.shape[2])
            ).reshape(b, depth)
            score[taken] = -1.0
            pick = np.argmax(score, axis=1)  # first maximum: the larger docno
            out[:, t] = np.maximum(score[rows, pick], 0.0)
            taken[rows, pick] = True
            gain = np.where(pool[rows, pick], gain * (1.0 - alpha), gain)
        return out

    return r.cached(("ideal_novelty", alpha), make)


def _discount(ranks: np.ndarray) -> np.ndarray:
    """ndeval's log(2) / log(rank + 1) (1 at rank 1)."""
    return np.log(2.0) / np.log(np.where(ranks < BEYOND, ranks, 1).astype(np.float64) + 1.0)


def _ideal_ideal(n: np.ndarray, alpha: float, k: int, weight) -> np.ndarray:
    """``Σ_{i<k} n (1-α)^i weight(i+1)``: every document relevant to all n subtopics."""
    factor = np.ones(k)
    for i in range(1, k):
        factor[i] = factor[i - 1] * (1.0 - alpha)
    terms = n[:, None].astype(np.float64) * factor[None, :] * weight(np.arange(1, k + 1))[None, :]
    return sequential_sum(terms)


def _cutoff_sum(values, ranks, k, weight) -> np.ndarray:
    inside = (ranks <= k) & (values != 0)
    return sequential_sum(np.where(inside, values * weight(ranks), 0.0))


def _positions(values: np.ndarray) -> np.ndarray:
    return np.broadcast_to(np.arange(1, values.shape[1] + 1)[None, :], values.shape)


def _reciprocal(ranks):
    return 1.0 / np.where(ranks < BEYOND, ranks, 1).astype(np.float64)


def _normalised(r, alpha, k, weight, ideal: bool) -> np.ndarray:
    n = _num_subtopics(r)
    if ideal:
        g = _ideal(r, alpha)
        raw = _cutoff_sum(g, _positions(g), k, weight)
    else:
        raw = _cutoff_sum(_gains(r, alpha), r.rank, k, weight)
    return safe_divide(raw, _ideal_ideal(n, alpha, k, weight))


def _alpha_dcg(r: Ranked, cutoff=20, alpha=0.5) -> np.ndarray:
    return _normalised(r, alpha, cutoff, _discount, ideal=False)


def _alpha_ndcg(r: Ranked, cutoff=20, alpha=0.5) -> np.ndarray:
    run = _normalised(r, alpha, cutoff, _discount, ideal=False)
    return safe_divide(run, _normalised(r, alpha, cutoff, _discount, ideal=True))


def _err_ia(r: Ranked, cutoff=20, alpha=0.5) -> np.ndarray:
    return _normalised(r, alpha, cutoff, _reciprocal, ideal=False)


def _nerr_ia(r: Ranked, cutoff=20, alpha=0.5) -> np.ndarray:
    run = _normalised(r, alpha, cutoff, _reciprocal, ideal=False)
    return safe_divide(run, _normalised(r, alpha, cutoff, _reciprocal, ideal=True))


def _rbp_sum(values, ranks, beta) -> np.ndarray:
    real = ranks < BEYOND
    exponent = np.where(real, ranks - 1, 0).astype(np.float64)
    return sequential_sum(np.where(real & (values != 0), values * beta**exponent, 0.0))


def _nrbp_parts(r, alpha, beta):
    n = _num_subtopics(r)
    factor = safe_divide(np.full(len(n), 1.0 - (1.0 - alpha) * beta), n)
    run = _rbp_sum(_gains(r, alpha), r.rank, beta) * factor
    g = _ideal(r, alpha)
    best = _rbp_sum(g, _positions(g), beta) * factor
    return run, best


def _nrbp(r: Ranked, alpha=0.5, beta=0.5) -> np.ndarray:
    return _nrbp_parts(r, alpha, beta)[0]


def _nnrbp(r: Ranked, alpha=0.5, beta=0.5) -> np.ndarray:
    return safe_divide(*_nrbp_parts(r, alpha, beta))


def _map_ia(r: Ranked) -> np.ndarray:
    rel = _need(r)
    hits = np.cumsum(rel, axis=1)
    prec = np.where(rel, hits / r.rank_f[:, :, None], 0.0)  # (b, J, S)
    per_subtopic = sequential_sum(np.moveaxis(prec, 1, 2).reshape(-1, prec.shape[1]))
    ap = safe_divide(per_subtopic.reshape(rel.shape[0], rel.shape[2]), _subtopic_relevant(r))
    return safe_divide(sequential_sum(ap), _num_subtopics(r))


def _p_ia(r: Ranked, cutoff=20) -> np.ndarray:
    rel = _need(r)
    hits = (rel & (r.rank <= cutoff)[:, :, None]).sum(axis=(1, 2))
    return safe_divide(hits, cutoff * _num_subtopics(r))


def _strec(r: Ranked, cutoff=20) -> np.ndarray:
    rel = _need(r)
    covered = (rel & (r.rank <= cutoff)[:, :, None]).any(axis=1).sum(axis=1)
    return safe_divide(covered, _num_subtopics(r))


_CUT = cutoff_spelling(_CUTOFFS)


alpha_DCG = Measure(
    "alpha_DCG", _alpha_dcg, params=(CUTOFF, ALPHA), trec=_CUT,
    ir=(IrSpelling("alpha-DCG", "cutoff"), IrSpelling("alpha_DCG", "cutoff")), family="diversity",
    reference=_CLARKE08,
    doc="""\
    α-DCG@k with ndeval's collection-independent normalisation:

    α-DCG@k = Σ_{r≤k} g(r) / log2(r+1)  ÷  Σ_{i<k} N (1-α)^i / log2(i+2).

    User model: a user reading the top k with a logarithmic loss of attention, for whom each
    further document on a subtopic she has already seen is worth (1-α) times less.
    """,
)

alpha_nDCG = Measure(
    "alpha_nDCG", _alpha_ndcg, params=(CUTOFF, ALPHA), trec=_CUT,
    ir=(IrSpelling("alpha-nDCG", "cutoff"), IrSpelling("alpha_nDCG", "cutoff")),
    family="diversity", reference=_CLARKE08,
    doc="""\
    α-nDCG@k = α-DCG@k of the ranking ÷ α-DCG@k of the greedy ideal ranking of the judged
    documents (both with the collection-independent normalisation, as ndeval divides).

    User model: as α-DCG; the score is the fraction of the best achievable novelty-discounted
    gain.
    """,
)

ERR_IA = Measure(
    "ERR_IA", _err_ia, params=(CUTOFF, ALPHA), trec=_CUT,
    ir=(IrSpelling("ERR-IA", "cutoff"), IrSpelling("ERR_IA", "cutoff")), family="diversity",
    reference=_ERRIA,
    doc="""\
    Intent-aware expected reciprocal rank, ndeval's form: ERR-IA@k = Σ_{r≤k} g(r) / r  ÷
    Σ_{i<k} N (1-α)^i / (i+1) (collection-independent normalisation).

    User model: for each subtopic, a cascade user who stops at a document relevant to it with
    probability α (the reciprocal-rank discount), averaged over equally likely subtopics.
    """,
)

nERR_IA = Measure(
    "nERR_IA", _nerr_ia, params=(CUTOFF, ALPHA), trec=_CUT,
    ir=(IrSpelling("nERR-IA", "cutoff"), IrSpelling("nERR_IA", "cutoff")), family="diversity",
    reference=_ERRIA,
    doc="""\
    ERR-IA@k of the ranking ÷ ERR-IA@k of the greedy ideal ranking (collection-dependent
    normalisation).

    User model: as ERR-IA.
    """,
)

NRBP = Measure(
    "NRBP", _nrbp, params=(ALPHA, BETA), ir=(IrSpelling("NRBP"),), family="diversity",
    reference=_NRBP,
    doc="""\
    Novelty- and rank-biased precision: NRBP = (1 - (1-α)β) / N · Σ_r g(r) β^{r-1}, over the
    whole ranking.

    User model: RBP's user, who reads the next document with probability β, collecting novelty
    gains; (1-(1-α)β)/N scales the value of an ideal-ideal ranking to 1.
    """,
)

nNRBP = Measure(
    "nNRBP", _nnrbp, params=(ALPHA, BETA), ir=(IrSpelling("nNRBP"),), family="diversity",
    reference=_NRBP,
    doc="""\
    NRBP of the ranking ÷ NRBP of the greedy ideal ranking.

    User model: as NRBP.
    """,
)

MAP_IA = Measure(
    "MAP_IA", _map_ia, ir=(IrSpelling("MAP-IA"), IrSpelling("AP_IA")), family="diversity",
    reference=_ERRIA,
    doc="""\
    Intent-aware average precision: the mean over the query's N subtopics of AP computed with
    that subtopic's relevant documents (whole ranking).

    User model: AP's user, with a subtopic drawn uniformly.
    """,
)

P_IA = Measure(
    "P_IA", _p_ia, params=(CUTOFF,), trec=_CUT,
    ir=(IrSpelling("P-IA", "cutoff"), IrSpelling("P_IA", "cutoff")), family="diversity",
    reference=_ERRIA,
    doc="""\
    Intent-aware precision: P-IA@k = Σ_{r≤k} Σ_s rel_s(r) / (k N), the mean over subtopics of
    precision at k (a ranking shorter than k is padded with non-relevant documents).

    User model: P@k's user, with a subtopic drawn uniformly.
    """,
)

_ZHAI03 = (
    "Zhai, Cohen & Lafferty, Beyond independent relevance: methods and evaluation metrics for "
    "subtopic retrieval, SIGIR 2003; "
)

strec = Measure(
    "strec", _strec, params=(CUTOFF,), trec=_CUT,
    ir=(IrSpelling("strec", "cutoff"), IrSpelling("StRecall", "cutoff")), family="diversity",
    reference=_ZHAI03 + _NDEVAL,
    doc="""\
    Subtopic recall: the fraction of the query's N subtopics with a relevant document in the
    top k.

    User model: a user who wants every aspect of the query covered within the top k.
    """,
)

#: In ndeval's column order.
DIVERSITY_MEASURES = [ERR_IA, nERR_IA, alpha_DCG, alpha_nDCG, NRBP, nNRBP, MAP_IA, P_IA, strec]
