"""Preference methods in the measure registry, so that ``rankscope eval`` and the API can mix
them with metrics.  Evaluated over several runs, a preference method gives each run its win
rate on each query (eq. 7 of Diaz & Ferraro 2022): the sum of its preferences over every
other run evaluated with it.  The computation lives in `rankscope.preference`.
"""

from __future__ import annotations

import numpy as np

from ..judge import Ranked
from .base import REL, IrSpelling, Measure, Param


def _needs_runs(r: Ranked, **params) -> np.ndarray:
    raise ValueError(
        "preference methods compare runs: evaluate them over several runs "
        "(rankscope eval QRELS RUN RUN ..., or rankscope.preferences)"
    )


WEIGHTS = Param(
    "p", str, "uniform", "distribution of recall levels p(i)", ("uniform", "dcg", "inverse")
)

_WIN = (
    " Evaluated over several runs, the value of a run on a query is its win rate: the sum of "
    "its preferences over the other runs (eq. 7)."
)
_REF = "Diaz & Ferraro, Offline Retrieval Evaluation Without Evaluation Metrics, SIGIR 2022."


def _preference(name: str, doc: str, params=(REL,), reference: str = _REF) -> Measure:
    return Measure(
        name,
        _needs_runs,
        doc=doc + _WIN,
        params=params,
        ir=(IrSpelling(name),),
        family="preference",
        reference=reference,
    )


RPP = _preference(
    "RPP",
    "Recall-paired preference: Σ_i p(i) sgn(f'_i − f_i) over recall levels i, p(i) = 1/m "
    "(binary relevance at the level).\n\nUser model: users who each want exactly i relevant "
    "documents, i uniform; each prefers the ranking that gets her there sooner.",
)
dcgRPP = _preference("dcgRPP", "RPP with p(i) ∝ 1/log2(i + 1): users who want few documents "
                     "weigh more.")  # fmt: skip
invRPP = _preference("invRPP", "RPP with p(i) ∝ 1/i.")
gRPP = _preference(
    "gRPP",
    "Graded RPP (eq. 5): RPP over every grade threshold λ present, weighted by m_λ, the number "
    "of documents of grade >= λ. p selects p(i): uniform, dcg or inverse.",
    params=(WEIGHTS,),
)
stRPP = _preference(
    "stRPP",
    "Subtopic RPP (eq. 6): RPP per subtopic t, weighted by the number of t's relevant "
    "documents, plus a background population satisfied by any relevant document; needs "
    "diversity judgments (qid subtopic docno grade).",
    params=(WEIGHTS,),
)
lexiprecision = _preference(
    "lexiprecision",
    "Lexiprecision: the sign of the comparison at the first recall level where the rankings "
    "differ (a lexicographic RR).",
    reference="Diaz, Recall, Robustness, and Lexicographic Evaluation, ACM TORS 2023.",
)
rrlexiprecision = _preference(
    "rrlexiprecision",
    "1/f_i − 1/f'_i at the first recall level where the rankings differ.",
    reference="Diaz, Recall, Robustness, and Lexicographic Evaluation, ACM TORS 2023.",
)
lexirecall = _preference(
    "lexirecall",
    "Lexirecall: the ranking that retrieves more relevant documents wins; with as many, the "
    "one whose deepest retrieved relevant document is higher, and so on upward.",
    reference="Diaz, Recall, Robustness, and Lexicographic Evaluation, ACM TORS 2023.",
)

PREFERENCE_MEASURES = [
    RPP, dcgRPP, invRPP, gRPP, stRPP, lexiprecision, rrlexiprecision, lexirecall
]  # fmt: skip
