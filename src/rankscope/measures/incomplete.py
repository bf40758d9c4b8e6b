"""Measures for incomplete judgments: bpref, infAP, the RBP residual, unjudged at k.

They distinguish documents the qrels do not mention (``NONPOOL``), documents in the pool
but unjudged (negative grade in the qrels, ``UNJUDGED``) and judged documents.
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..judge import NONPOOL, UNJUDGED, Ranked
from .base import (
    REL,
    IrSpelling,
    Measure,
    Param,
    cutoff_spelling,
    safe_divide,
    sequential_sum,
)
from .gains import persistence_weights, rbp

INFAP_EPSILON = 0.00001


def _bpref(r: Ranked, rel: int | None = None) -> np.ndarray:
    level = r.level(rel)
    relevant = r.rel(level)
    nonrel = (r.grade >= 0) & (r.grade < level)
    nonrel_above = np.cumsum(nonrel, axis=1)
    big_r = r.num_rel(level)
    num_nonrel = r.rel_levels[:, : max(level, 0)].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        penalty = np.minimum(nonrel_above, big_r[:, None]) / np.minimum(num_nonrel, big_r)[:, None]
        terms = np.where(relevant, np.where(nonrel_above > 0, 1.0 - penalty, 1.0), 0.0)
    return safe_divide(sequential_sum(terms), big_r)


_BPREF_DOC = (
    "Binary preference: (1/R) * sum over retrieved relevant documents d of "
    "1 - min(n_d, R) / min(N, R), with n_d the judged non-relevant documents retrieved above "
    "d and N the judged non-relevant documents of the query. Unjudged documents are ignored "
    "rather than taken as non-relevant."
)

bpref = Measure(
    "bpref",
    _bpref,
    doc=_BPREF_DOC,
    params=(REL,),
    ir=(IrSpelling("Bpref"),),
    family="incomplete",
    reference="Buckley & Voorhees, Retrieval evaluation with incomplete information, SIGIR 2004.",
)

gm_bpref = Measure(
    "gm_bpref", _bpref,
    reference="Buckley & Voorhees, SIGIR 2004; trec_eval's gm_bpref (m_gm_bpref.c).",
    params=(REL,), aggregate="gmean", per_query=False, family="incomplete",
    doc="""\
    bpref summarised by the geometric mean over queries (values floored at 1e-5), rewarding
    consistency across queries. Summary only in trec_eval's output.
    """,
)


def _infap(r: Ranked, rel: int | None = None) -> np.ndarray:
    level = r.level(rel)
    relevant = r.rel(level)
    nonrel = (r.grade >= 0) & (r.grade < level)
    unjudged = r.grade == UNJUDGED
    rel_so_far = np.cumsum(relevant, axis=1)
    nonrel_above = np.cumsum(nonrel, axis=1)
    unjudged_above = np.cumsum(unjudged, axis=1)
    j = r.rank_f - 1.0  # documents above
    r1 = rel_so_far - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        later = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r1 + nonrel_above + unjudged_above) / j) * (
            (r1 + INFAP_EPSILON) / ((r1 + nonrel_above) + 2 * INFAP_EPSILON)
        )
        terms = np.where(relevant, np.where(j == 0, 1.0, later), 0.0)
    return safe_divide(sequential_sum(terms), r.num_rel(level))


infAP = Measure(
    "infAP", _infap, params=(REL,), ir=(IrSpelling("infAP"),), family="incomplete",
    reference="Yilmaz & Aslam, Estimating average precision with incomplete and imperfect "
    "judgments, CIKM 2006.",
    doc="""\
    Inferred average precision: AP estimated from a random sample of the pool. At each relevant
    document at rank k > 1 the expected precision is 1/k + ((k-1)/k) * (pooled above / (k-1)) *
    ((rel + eps) / (rel + nonrel + 2 eps)), with pooled above = judged relevant, judged
    non-relevant and pooled-but-unjudged documents above it and rel, nonrel the judged ones
    (eps = 1e-5); documents outside the pool count as non-relevant, pooled but unjudged ones as
    relevant in the proportion of the judged. At rank 1 the precision is 1.
    """,
)


def _rbp_resid(r: Ranked, p: float = 0.9, gains: dict | None = None) -> np.ndarray:

    grades = r.dense()  # every rank: the unjudged ones are the point
    missing = (grades == NONPOOL) | (grades == UNJUDGED)
    weight = persistence_weights(p, grades.shape[1] + 1)
    terms = np.where(missing, weight[None, : grades.shape[1]], 0.0)
    tail = weight[r.num_ret]  # p ** num_ret, by repeated multiplication
    value = tail + (1 - p) * sequential_sum(terms)
    return np.where(missing.any(axis=1), value, 0.0)


rbp_resid = Measure(
    "rbp_resid", _rbp_resid, trec=rbp.trec, family="incomplete",  # spelled as rbp
    reference="Moffat & Zobel, ACM TOIS 27(1), 2008.",
    params=(
        Param("p", float, 0.9, "persistence"),
        Param("gains", dict, None, "accepted for symmetry with rbp; unused"),
    ),
    doc="""\
    Residual of RBP: the most RBP could rise if every unjudged retrieved document, and every
    document past the end of the ranking, had gain 1: p^n + (1 - p) * sum over unjudged ranks i
    of p^(i-1). 0 when all are judged.
    """,
)


def _unjudged(r: Ranked, cutoff: int | None = None) -> np.ndarray:
    if cutoff is None or cutoff <= 0:
        raise UsageError("unj needs a positive cutoff")
    # unjudged in the top k = ranks in the top k minus judged documents there
    judged = r.count_at(r.grade >= 0, cutoff)
    return (np.minimum(r.num_ret, cutoff) - judged) / float(cutoff)


unj = Measure(
    "unj", _unjudged, reference="trec_eval's unj (m_unjudged.c).",
    params=(Param("cutoff", int, None, "rank cutoff k", minimum=1),),
    trec=cutoff_spelling((5, 10, 20)), family="incomplete",
    doc="""\
    Fraction of the top k that is unjudged (not in the qrels, or with a negative grade); ranks
    past the end count as judged. A red flag for poor pool coverage: high values at small k
    mean the run is unusual or finds many unjudged relevant documents.
    """,
)


def _judged_at(r: Ranked, cutoff: int | None = None) -> np.ndarray:
    if cutoff is None or cutoff <= 0:
        raise UsageError("Judged needs a positive cutoff")
    return r.count_at(r.grade >= 0, cutoff) / float(cutoff)


judged = Measure(
    "judged", _judged_at, params=(Param("cutoff", int, None, "rank cutoff k", minimum=1),),
    trec=cutoff_spelling((5, 10, 20)), ir=(IrSpelling("Judged", "cutoff"),),
    family="incomplete",
    reference="ir_measures' Judged@k (MacAvaney & Macdonald); Sakai, Alternatives to bpref, "
    "SIGIR 2007 (condensed lists).",
    doc="""\
    Judged@k: the fraction of the top k with a judgment (a grade >= 0), judged documents in the
    top k divided by k (ranks past the end count as not judged, as P@k with a relevance level
    below every grade).

    Not a user model: a diagnostic of how far a run's values can be trusted. A low value says
    the measures treat many unseen documents as non-relevant; compare with the condensed-list
    values (`judged_only=True`).
    """,
)
