"""Search-length measures: how far down a user reads to find what she wants (Cooper 1968; seed
000; Diaz & Ferraro 2022 §3.1).

Let f_i be the position of the i-th relevant document (grade >= the level) of a query with R
relevant documents.  Relevant documents the ranking did not retrieve are placed at the bottom
of a corpus of ``corpus_size`` documents (worst case): the last of them at position
``corpus_size``.  By default the corpus is what the ranking retrieved plus the judged documents
it did not retrieve, for that query (a run-level quantity: give ``corpus_size`` to compare
runs on a common corpus).
"""

from __future__ import annotations

import numpy as np

from ..judge import BEYOND, Ranked
from .base import REL, IrSpelling, Measure, Param

_CORPUS = Param(
    "corpus_size",
    int,
    0,
    "documents in the corpus for placing unretrieved relevant ones (0: retrieved + judged)",
    minimum=0,
)


def _positions(r: Ranked, rel: int | None, corpus_size: int) -> tuple[np.ndarray, np.ndarray]:
    """(f, R): f[q, i] = position of the (i+1)-th relevant document (columns up to the largest
    R of the batch; unretrieved ones at the bottom of the corpus), R = relevant per query."""
    level = r.level(rel)
    mask = r.rel(level)
    big_r = r.num_rel(level)
    width = max(int(big_r.max(initial=0)), 1)
    retrieved = mask.sum(axis=1)
    ranks = np.where(mask, r.rank, BEYOND)
    ordered = np.sort(ranks, axis=1)[:, :width]
    if ordered.shape[1] < width:
        ordered = np.pad(ordered, ((0, 0), (0, width - ordered.shape[1])), constant_values=BEYOND)
    judged_missed = r.rel_levels.sum(axis=1) - (r.grade >= 0).sum(axis=1)
    corpus = np.where(corpus_size > 0, corpus_size, r.num_ret + judged_missed)
    i = np.arange(1, width + 1)[None, :]
    bottom = corpus[:, None] - (big_r[:, None] - i)  # the i-th relevant when unretrieved
    f = np.where(i <= retrieved[:, None], ordered, bottom).astype(np.float64)
    return np.where(i <= big_r[:, None], f, np.nan), big_r


def _kth(r: Ranked, k: int, rel: int | None, corpus_size: int) -> tuple[np.ndarray, np.ndarray]:
    f, big_r = _positions(r, rel, corpus_size)
    kk = np.minimum(k, big_r)  # fewer than k relevant: the search for all of them
    value = f[np.arange(len(r)), np.maximum(kk - 1, 0)]
    return np.where(big_r > 0, value, 0.0), kk


def _search_length(
    r: Ranked, k: int = 1, rel: int | None = None, corpus_size: int = 0
) -> np.ndarray:
    return _kth(r, k, rel, corpus_size)[0]


def _expected_search_length(
    r: Ranked, k: int = 1, rel: int | None = None, corpus_size: int = 0
) -> np.ndarray:
    position, kk = _kth(r, k, rel, corpus_size)
    return np.where(kk > 0, position - kk, 0.0)


def _isl(r: Ranked, rel: int | None = None, corpus_size: int = 0) -> np.ndarray:
    return _kth(r, 1, rel, corpus_size)[0]


def _tsl(r: Ranked, rel: int | None = None, corpus_size: int = 0) -> np.ndarray:
    f, big_r = _positions(r, rel, corpus_size)
    last = f[np.arange(len(r)), np.maximum(big_r - 1, 0)]
    return np.where(big_r > 0, last, 0.0)


def _asl(r: Ranked, rel: int | None = None, corpus_size: int = 0) -> np.ndarray:
    f, big_r = _positions(r, rel, corpus_size)
    total = np.nansum(f, axis=1)
    return np.where(big_r > 0, total / np.maximum(big_r, 1), 0.0)


def _precision_at_full_recall(
    r: Ranked, rel: int | None = None, corpus_size: int = 0
) -> np.ndarray:
    last = _tsl(r, rel, corpus_size)
    big_r = r.num_rel(rel)
    return np.where(big_r > 0, big_r / np.where(last > 0, last, 1.0), 0.0)


K = Param("k", int, 1, "which relevant document (the k-th)", minimum=1)
_REF = "Cooper, Expected search length, American Documentation 19(1), 1968."

search_length = Measure(
    "SL", _search_length, params=(K, REL, _CORPUS), ir=(IrSpelling("SL"),), family="lengths",
    reference=_REF,
    doc="""\
    Search length to the k-th relevant document as a position: f_k (Diaz's form; with it RR
    = 1/SL(1) and AP = (1/R) Σ_k k/SL(k) when every relevant document is retrieved). Fewer than
    k relevant: the position of the last. 0 without relevant documents.

    User model: a user who wants k relevant documents and reads until she has them; lower is
    better.
    """,
)

expected_search_length = Measure(
    "ESL", _expected_search_length, params=(K, REL, _CORPUS), ir=(IrSpelling("ESL"),),
    family="lengths", reference=_REF,
    doc="""\
    Cooper's expected search length: the number of non-relevant documents read before the k-th
    relevant one, f_k − k (for a strict ranking). Lower is better.
    """,
)

initial_search_length = Measure(
    "ISL", _isl, params=(REL, _CORPUS), ir=(IrSpelling("ISL"),), family="lengths", reference=_REF,
    doc="""\
    Initial search length: the position of the first relevant document, f_1.
    """,
)

total_search_length = Measure(
    "TSL", _tsl, params=(REL, _CORPUS), ir=(IrSpelling("TSL"),), family="lengths", reference=_REF,
    doc="""\
    Total search length: the position of the last relevant document, f_R (unretrieved ones at
    the bottom of the corpus).
    """,
)

average_search_length = Measure(
    "ASL", _asl, params=(REL, _CORPUS), ir=(IrSpelling("ASL"),), family="lengths",
    reference="Rocchio, Document retrieval systems: optimization and evaluation, 1966.",
    doc="""\
    Average search length: the mean position of the relevant documents, (1/R) Σ_i f_i
    (Rocchio's average rank), unretrieved ones at the bottom of the corpus.
    """,
)

precision_at_full_recall = Measure(
    "PFR", _precision_at_full_recall, params=(REL, _CORPUS), ir=(IrSpelling("PFR"),),
    family="lengths", reference="Diaz, Offline Metrics (lecture notes on offline evaluation).",
    doc="""\
    Precision at full recall, R / f_R: the 'R-precision' of Diaz's lecture notes (precision
    when the last relevant document is found), which differs from trec_eval's Rprec
    (precision at rank R).
    """,
)

LENGTH_MEASURES = [
    search_length,
    expected_search_length,
    initial_search_length,
    total_search_length,
    average_search_length,
    precision_at_full_recall,
]
