"""Rank-based binary measures: precision and recall at cutoffs, average precision, reciprocal
rank, interpolated precision, R-precision.

Notation: a ranking of ``n`` documents, ``rel_i`` = 1 if the document at rank ``i`` has a
grade >= the relevance level, ``R`` = number of relevant documents in the judgments,
``rel(k)`` = number of relevant documents in the top ``k`` (ranks past ``n`` count as
non-relevant).  Arithmetic follows trec_eval's order of operations so that values match it
to the last bit.
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..judge import Ranked
from .base import (
    REL,
    IrSpelling,
    Measure,
    Param,
    TrecSpelling,
    cutoff_spelling,
    log2_int,
    safe_divide,
    sequential_sum,
)

CUTOFF = Param("cutoff", int, None, "rank cutoff k (documents past k are not looked at)", minimum=1)
_RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _require_cutoff(name: str, k: int | None) -> int:
    if k is None or k <= 0:
        raise UsageError(f"{name} needs a positive cutoff (e.g. {name}@10)")
    return k


def _precision(r: Ranked, cutoff: int | None = None, rel: int | None = None) -> np.ndarray:
    k = _require_cutoff("P", cutoff)
    return r.count_at(r.rel(rel), k) / float(k)


P = Measure(
    "P", _precision, params=(CUTOFF, REL), trec=cutoff_spelling(),
    ir=(IrSpelling("P", cutoff="cutoff"),), family="ranks",
    reference="Buckley & Voorhees, Retrieval System Evaluation, in TREC (MIT Press, 2005).",
    doc="""\
    Precision at k: rel(k) / k. Ranks past the end of a short ranking count as non-relevant (a
    run returning 15 documents, 4 relevant, has P@20 = 0.2).

    User model: reads exactly the top k results and values the fraction that is relevant.
    """,
)


def _recall(r: Ranked, cutoff: int | None = None, rel: int | None = None) -> np.ndarray:
    k = _require_cutoff("recall", cutoff)
    return safe_divide(r.count_at(r.rel(rel), k), r.num_rel(rel))


recall = Measure(
    "recall", _recall,
    reference="Buckley & Voorhees, Retrieval System Evaluation, in TREC (MIT Press, 2005).",
    params=(CUTOFF, REL), trec=cutoff_spelling(),
    ir=(IrSpelling("R", cutoff="cutoff"),), family="ranks",
    doc="""\
    Recall at k: rel(k) / R (0 when R = 0).

    User model: reads the top k results and values the share of all relevant documents found
    there (an exhaustive searcher, e.g. a reviewer who needs everything relevant).
    """,
)


def _success(r: Ranked, cutoff: int | None = None, rel: int | None = None) -> np.ndarray:
    k = _require_cutoff("success", cutoff)
    return (r.count_at(r.rel(rel), k) > 0).astype(np.float64)


success = Measure(
    "success", _success, params=(CUTOFF, REL), trec=cutoff_spelling((1, 5, 10)),
    ir=(IrSpelling("Success", cutoff="cutoff"),), family="ranks",
    reference="Stephen Tomlinson (trec_eval's success measure).",
    doc="""\
    Success at k: 1 if a relevant document is in the top k, else 0.

    User model: reads the top k and is satisfied by any one relevant document.
    """,
)


def _relative_precision(r: Ranked, cutoff: int | None = None, rel: int | None = None) -> np.ndarray:
    k = _require_cutoff("relative_P", cutoff)
    return safe_divide(r.count_at(r.rel(rel), k), np.minimum(k, r.num_rel(rel)))


relative_P = Measure(
    "relative_P", _relative_precision, reference="trec_eval's relative_P (m_rel_P.c).",
    params=(CUTOFF, REL), trec=cutoff_spelling(), family="ranks",
    doc="""\
    Relative precision at k: rel(k) / min(k, R): precision up to R, recall after R, so 1 is
    reachable at every k.

    User model: as P@k, judged against the best any ranking could do at k.
    """,
)


def _ap_terms(r: Ranked, rel: int | None) -> np.ndarray:
    """Precision at each relevant rank, rel(i) / i (0 elsewhere)."""
    level = r.level(rel)
    return r.cached(
        ("ap_terms", level), lambda: np.where(r.rel(level), r.rel_cum(level) / r.rank_f, 0.0)
    )


def _average_precision(r: Ranked, rel: int | None = None) -> np.ndarray:
    total = sequential_sum(_ap_terms(r, rel))
    return safe_divide(total, np.where(r.num_rel_ret(rel) > 0, r.num_rel(rel), 0))


_AP_DOC = (
    "Average precision: (1/R) * sum over relevant retrieved ranks i of rel(i) / i. Relevant "
    "documents not retrieved contribute 0.\n\n"
    "User model: a user who stops after a relevant document, each relevant document equally "
    "likely to be the one she wants, and who values the precision at that point."
)

map_ = Measure(
    "map",
    _average_precision,
    doc=_AP_DOC,
    params=(REL,),
    ir=(IrSpelling("AP"), IrSpelling("MAP")),
    family="ranks",
    reference="Buckley & Voorhees, Retrieval System Evaluation, in TREC (MIT Press, 2005).",
)

gm_map = Measure(
    "gm_map", _average_precision,
    reference="Robertson, On GMAP and other transformations, CIKM 2006.", params=(REL,),
    aggregate="gmean", per_query=False, ir=(IrSpelling("GMAP"),), family="ranks",
    doc="""\
    Average precision summarised by the geometric mean over queries (values floored at 1e-5),
    rewarding consistency. Per-query values are plain AP; summary only in trec_eval's output.

    User model: AP's, with an evaluator who weighs failures on hard queries heavily.
    """,
)


def _ap_at(r: Ranked, cutoff: int | None = None, rel: int | None = None) -> np.ndarray:
    k = _require_cutoff("map_cut", cutoff)
    total = sequential_sum(np.where(r.rank <= k, _ap_terms(r, rel), 0.0))
    return safe_divide(total, r.num_rel(rel))


map_cut = Measure(
    "map_cut", _ap_at,
    reference="Buckley & Voorhees, Retrieval System Evaluation, in TREC (MIT Press, 2005).",
    params=(CUTOFF, REL), trec=cutoff_spelling(),
    ir=(IrSpelling("AP", cutoff="cutoff"), IrSpelling("MAP", cutoff="cutoff")), family="ranks",
    doc="""\
    Average precision over the top k: (1/R) * sum over relevant ranks i <= k of rel(i)/i.
    Relevant documents below k or not retrieved contribute 0.

    User model: AP's user, who never reads past rank k.
    """,
)


def _rprec(r: Ranked, rel: int | None = None) -> np.ndarray:
    big_r = r.num_rel(rel)
    look = np.minimum(r.num_ret, big_r)
    hits = r.count_at(r.rel(rel), big_r)
    return safe_divide(hits, np.where(look > 0, big_r, 0))


Rprec = Measure(
    "Rprec", _rprec, params=(REL,), ir=(IrSpelling("Rprec"),), family="ranks",
    reference="Buckley & Voorhees, Retrieval System Evaluation, in TREC (MIT Press, 2005).",
    doc="""\
    R-precision: precision at rank R, rel(R) / R. It is the point where P = R.

    User model: reads as many results as there are relevant documents, so every query is
    measured at an equivalent depth.
    """,
)


def _rprec_mult(r: Ranked, multiple: float | None = None, rel: int | None = None) -> np.ndarray:
    if multiple is None:
        raise UsageError("Rprec_mult needs a multiple of R")
    # trec_eval: (long) (multiple * R + 0.9)
    k = np.floor(multiple * r.num_rel(rel) + 0.9).astype(np.int64)
    return safe_divide(r.count_at(r.rel(rel), k), k)


Rprec_mult = Measure(
    "Rprec_mult", _rprec_mult, reference="trec_eval's Rprec_mult (m_Rprec_mult.c).",
    params=(Param("multiple", float, None, "multiple of R"), REL),
    trec=TrecSpelling("fractions", "multiple", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    family="ranks",
    doc="""\
    Precision at a multiple m of R: P@k with k = floor(m * R + 0.9) (trec_eval's rounding).
    Compares runs at the same recall-oriented milestones: a run that wins at small multiples
    and loses at large ones is precision-oriented.

    User model: R-precision's user, reading m times as deep.
    """,
)


def _recip_rank(r: Ranked, cutoff: int | None = None, rel: int | None = None) -> np.ndarray:
    mask = r.rel(rel)
    if cutoff is not None:
        mask = mask & (r.rank <= cutoff)
    first = np.argmax(mask, axis=1)
    rows = np.arange(len(mask))
    found = mask[rows, first]
    return np.where(found, 1.0 / np.where(found, r.rank_f[rows, first], 1.0), 0.0)


recip_rank = Measure(
    "recip_rank", _recip_rank, params=(CUTOFF, REL),
    ir=(IrSpelling("RR"), IrSpelling("MRR"), IrSpelling("RR", cutoff="cutoff"),
        IrSpelling("MRR", cutoff="cutoff")),
    family="ranks", reference="Voorhees, The TREC-8 question answering track report, TREC 1999.",
    doc="""\
    Reciprocal rank of the first relevant document (0 if none is retrieved); with a cutoff k
    (``RR@10``, MS MARCO's MRR@10), 0 if none is in the top k.

    User model: a user who wants one relevant document and stops at the first (or gives up
    after k documents).
    """,
)


def _lround(x: np.ndarray) -> np.ndarray:
    """C's lround for non-negative values: halves round away from zero."""
    fl = np.floor(x)
    return (fl + (x - fl >= 0.5)).astype(np.int64)


def _interpolated(r: Ranked, fractions: tuple[float, ...], rel: int | None) -> np.ndarray:
    """Interpolated precision at recall fractions, one column per fraction.

    iprec(f) = max over ranks i >= rank of the c-th relevant document of rel(i) / i, with
    c = lround(f * R); 0 when fewer than c relevant documents are retrieved.
    """
    # Between relevant documents precision only falls, so its maximum at or after a rank is
    # reached at a relevant document: the relevant entries suffice.
    level = r.level(rel)
    nq = len(r)
    cum = r.rel_cum(level)
    rel_ret = cum[:, -1]
    best_from = r.cached(
        ("best_precision_from", level),
        lambda: np.maximum.accumulate(_ap_terms(r, level)[:, ::-1], axis=1)[:, ::-1],
    )
    out = np.zeros((nq, len(fractions)))
    rows = np.arange(nq)
    big_r = r.num_rel(rel)
    for j, f in enumerate(fractions):
        c = _lround(f * big_r)
        pos = np.argmax(cum >= np.maximum(c, 1)[:, None], axis=1)
        value = best_from[rows, pos]
        out[:, j] = np.where((rel_ret > 0) & (c <= rel_ret), value, 0.0)
    return out


def _iprec_at_recall(r: Ranked, recall: float | None = None, rel: int | None = None) -> np.ndarray:
    if recall is None:
        raise UsageError("iprec_at_recall needs a recall level")
    return _interpolated(r, (recall,), rel)[:, 0]


iprec_at_recall = Measure(
    "iprec_at_recall", _iprec_at_recall,
    reference="Buckley & Voorhees, Retrieval System Evaluation, in TREC (MIT Press, 2005).",
    params=(Param("recall", float, None, "recall level in [0, 1]"), REL),
    trec=TrecSpelling("fractions", "recall", _RECALL_POINTS),
    ir=(IrSpelling("IPrec", cutoff="recall"),), family="ranks",
    doc="""\
    Interpolated precision at a recall level: the highest precision at any rank at or after the
    one where the level is reached (the recall-precision graph's points). The number of
    relevant documents for a level is lround(level * R), as trec_eval 10 (version 9 and earlier
    used floor(level * R + 0.9)). For an empty ranking the value is 0 (trec_eval divides by
    zero and prints nan).

    User model: a user who wants a given fraction of the relevant documents and reads on as
    long as precision does not fall below what reading further would give.
    """,
)


def _eleven_point(
    r: Ranked, recall_points: tuple[float, ...] = _RECALL_POINTS, rel: int | None = None
) -> np.ndarray:
    if not recall_points:
        raise UsageError("11pt_avg needs at least one recall point")
    points = tuple(sorted(recall_points))
    values = _interpolated(r, points, rel)
    # trec_eval adds the points from the highest recall level down
    return sequential_sum(values[:, ::-1]) / float(len(points))


eleven_pt_avg = Measure(
    "11pt_avg", _eleven_point,
    reference="Salton & McGill, Introduction to Modern Information Retrieval, 1983.",
    params=(Param("recall_points", tuple, _RECALL_POINTS, "recall levels averaged over"), REL),
    trec=TrecSpelling("values", from_values=lambda v: {"recall_points": tuple(v)}), family="ranks",
    doc="""\
    Interpolated precision averaged over recall points (default 0.0, 0.1, ..., 1.0). The points
    are sorted first (trec_eval's result depends on their order when they are not sorted). An
    estimate of the area under the recall-precision curve; obsolete, kept for comparison with
    old results.

    User model: iprec_at_recall's, averaged over users wanting different recall levels.
    """,
)


def _bin_g(r: Ranked, rel: int | None = None) -> np.ndarray:
    mask = r.rel(rel)
    cum = r.rel_cum(rel)
    # 1 / log2(2 + number of non-relevant documents above)
    nonrel_above = np.where(mask, r.rank - cum, 0)
    table = log2_int(r.max_rank + 3)
    terms = np.where(mask, 1.0 / table[2 + nonrel_above], 0.0)
    total = sequential_sum(terms)
    return safe_divide(total, np.where(cum[:, -1] > 0, r.num_rel(rel), 0))


binG = Measure(
    "binG", _bin_g, reference="trec_eval's binG (m_binG.c).", params=(REL,), family="ranks",
    doc="""\
    Binary G (experimental, trec_eval 2008): the average over relevant documents of 1 / log2(2
    + number of non-relevant documents retrieved before it).

    User model: a user whose patience decays with the non-relevant documents she has had to
    read, not with rank.
    """,
)
