"""The fusion methods: one declaration each (name, what it reads, formula, citation, and its
function), the table `METHODS` that `rankscope.fuse`, the command line and the documentation
read.

Notation: for a query, run ``r`` ranks ``n_r`` documents; a document it ranks has score
``s_r(d)`` (after the normalisation) and rank ``rank_r(d)`` (1 = first); ``n`` is the number
of documents some run ranks for the query (the candidates); ``w_r`` is run ``r``'s weight
(1 unless given).  A run that does not rank ``d`` is left out of max, min, med, anz and
mnz's count, and adds 0 to sum, wsum and rrf.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cmp_to_key

import numpy as np

from ..errors import UsageError
from .pool import Pool

#: Reciprocal rank fusion's constant by default (Cormack et al. use 60).
RRF_K = 60.0

FOX_SHAW = (
    "Fox & Shaw, Combination of multiple searches, TREC-2 (1994), NIST SP 500-215, 243-252"
)


@dataclass(frozen=True)
class FusionMethod:
    """A fusion method.

    ``reads`` is ``scores`` (normalised first) or ``ranks`` (the runs' orders only; a
    normalisation does not apply).  ``weights``: ``no``, ``optional`` or ``required``.  A
    linear method (``contributions`` set) fuses as Σ_r w_r · c_r(d), the run's
    contribution ``c_r`` computed once, which is what weight tuning uses; the others have
    ``combine``, ``(pool, scores, weights) -> fused``.
    """

    name: str
    reads: str
    weights: str
    formula: str
    doc: str
    reference: str
    contributions: Callable[[Pool, np.ndarray, float], np.ndarray] | None = None
    combine: Callable[[Pool, np.ndarray, np.ndarray | None], np.ndarray] | None = None
    ranx: str | None = None  # ranx's name for the method (the tests' oracle)


def weighted_sum(contributions: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """Σ_r w_r · c_r per candidate.  Unweighted, the terms are added in ascending order, so
    that the sum does not depend on the order of the runs (swapping two runs gives the same
    bits); weighted, in the runs' order (what weight tuning evaluates thousands of times)."""
    if weights is None:
        return np.sort(contributions, axis=0).sum(axis=0) if len(contributions) else np.zeros(0)
    out = np.zeros(contributions.shape[1])
    for weight, row in zip(weights.tolist(), contributions, strict=True):
        out += weight * row
    return out


def _filled(scores: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(scores), 0.0, scores)


def _rrf(pool: Pool, scores: np.ndarray, k: float) -> np.ndarray:
    present = pool.present
    return np.where(present, 1.0 / (k + np.where(present, pool.ranks, 1)), 0.0)


def _scores(pool: Pool, scores: np.ndarray, k: float) -> np.ndarray:
    return _filled(scores)


def _borda(pool: Pool, scores: np.ndarray, k: float) -> np.ndarray:
    size = pool.size[None, :].astype(np.float64)
    unranked = (size - pool.lengths + 1) / 2
    return np.where(pool.present, size - pool.ranks + 1, unranked)


def _count(scores: np.ndarray) -> np.ndarray:
    return (~np.isnan(scores)).sum(axis=0)


def _mnz(pool: Pool, scores: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    return weighted_sum(_filled(scores), weights) * _count(scores)


def _anz(pool: Pool, scores: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    return weighted_sum(_filled(scores), weights) / _count(scores)


def _max(pool: Pool, scores: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    return np.nanmax(scores, axis=0)


def _min(pool: Pool, scores: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    return np.nanmin(scores, axis=0)


def _med(pool: Pool, scores: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    return np.nanmedian(scores, axis=0)


def _condorcet(pool: Pool, scores: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """Each query's candidates sorted by the majority comparison (Montague & Aslam 2002),
    then scored n, n-1, ..., 1."""
    ranks = np.where(pool.present, pool.ranks, np.iinfo(np.int64).max)  # unranked: last
    borda = weighted_sum(_borda(pool, scores, RRF_K), None)
    out = np.empty(len(pool.query))
    bounds = np.flatnonzero(np.diff(pool.group)) + 1
    for start, stop in zip(
        np.concatenate(([0], bounds)).tolist(), np.append(bounds, len(pool.query)).tolist(),
        strict=True,
    ):  # fmt: skip
        out[start:stop] = _condorcet_query(
            ranks[:, start:stop], borda[start:stop],
            pool.docs.strings_of(pool.doc[start:stop]),
        )  # fmt: skip
    return out


def _condorcet_query(ranks: np.ndarray, borda: np.ndarray, docnos: list[str]) -> np.ndarray:
    n = len(docnos)
    # the starting order, which decides among documents the majority leaves unordered (a
    # tie, or a cycle): Borda count descending, then document id descending
    by_docno = sorted(range(n), key=docnos.__getitem__, reverse=True)
    start = sorted(by_docno, key=lambda c: -borda[c])
    position = {c: i for i, c in enumerate(start)}
    columns = [tuple(col) for col in ranks.T.tolist()]

    def majority(x: int, y: int) -> int:
        rx, ry = columns[x], columns[y]
        margin = sum(a < b for a, b in zip(rx, ry, strict=True)) - sum(
            b < a for a, b in zip(rx, ry, strict=True)
        )
        return -margin if margin else position[x] - position[y]

    order = sorted(start, key=cmp_to_key(majority))
    out = np.empty(n)
    out[order] = np.arange(n, 0, -1, dtype=np.float64)
    return out


def _comb(
    name: str, formula: str, combine: Callable[[Pool, np.ndarray, np.ndarray | None], np.ndarray],
    doc: str,
) -> FusionMethod:
    """One of Fox & Shaw's unweighted combinations of the normalised scores (CombMNZ, CombMAX,
    ...), which ranx calls by the same name."""
    return FusionMethod(name, "scores", "no", formula, doc, FOX_SHAW, combine=combine, ranx=name)


METHODS: dict[str, FusionMethod] = {
    m.name: m
    for m in (
        FusionMethod(
            "rrf", "ranks", "optional", "Σ_r w_r / (k + rank_r(d))",
            "reciprocal rank fusion: each run gives a document 1/(k + its rank), k = 60 by "
            "default; a weighted variant with weights",
            "Cormack, Clarke & Büttcher, Reciprocal rank fusion outperforms Condorcet and "
            "individual rank learning methods, SIGIR 2009, 758-759",
            contributions=_rrf, ranx="rrf",
        ),
        FusionMethod(
            "sum", "scores", "optional", "Σ_r w_r s_r(d)",
            "CombSUM: the sum of the document's scores (0 from a run that does not rank it)",
            FOX_SHAW, contributions=_scores, ranx="sum",
        ),
        FusionMethod(
            "wsum", "scores", "required", "Σ_r w_r s_r(d)",
            "weighted sum: CombSUM with a weight per run (given, or tuned with optimize=)",
            "Bartell, Cottrell & Belew, Automatic combination of multiple ranked retrieval "
            "systems, SIGIR 1994; Vogt & Cottrell, Fusion via a linear combination of "
            "scores, Information Retrieval 1(3), 1999",
            contributions=_scores, ranx="wsum",
        ),
        _comb("mnz", "|{r : d ∈ r}| · Σ_r s_r(d)", _mnz,
              "CombMNZ: CombSUM times the number of runs that rank the document"),
        _comb("max", "max_{r : d ∈ r} s_r(d)", _max, "CombMAX: the document's highest score"),
        _comb("min", "min_{r : d ∈ r} s_r(d)", _min,
              "CombMIN: the document's lowest score among the runs that rank it"),
        _comb("med", "median_{r : d ∈ r} s_r(d)", _med,
              "CombMED: the median of the document's scores among the runs that rank it (the "
              "mean of the middle two for an even count)"),
        _comb("anz", "Σ_r s_r(d) / |{r : d ∈ r}|", _anz,
              "CombANZ: the mean of the document's scores among the runs that rank it"),
        FusionMethod(
            "borda", "ranks", "optional",
            "Σ_r w_r b_r(d), b_r(d) = n - rank_r(d) + 1, or (n - n_r + 1) / 2 unranked",
            "Borda count: a run gives its first document n points, the next n - 1, ...; the "
            "documents it does not rank share the points left evenly",
            "Aslam & Montague, Models for metasearch, SIGIR 2001, 275-284",
            contributions=_borda, ranx="bordafuse",
        ),
        FusionMethod(
            "condorcet", "ranks", "no",
            "d before d' when more runs rank d above d' than d' above d; scores n, ..., 1",
            "Condorcet fusion: the candidates sorted by majority vote between each pair (a "
            "run ranks its documents above those it does not rank); where the majority is "
            "tied or cyclic, the Borda order decides",
            "Montague & Aslam, Condorcet fusion for improved retrieval, CIKM 2002, 538-548",
            combine=_condorcet, ranx="condorcet",
        ),
    )
}  # fmt: skip


#: Other names users know: Fox & Shaw's (CombSUM, ...), ranx's (bordafuse, ...).
ALIASES = {
    "bordafuse": "borda", "weighted-sum": "wsum", "weighted_sum": "wsum",
    "reciprocal-rank": "rrf", "condorcetfuse": "condorcet",
}  # fmt: skip


def fusion_method(name: str) -> FusionMethod:
    """The method called ``name`` (any case; ``CombMNZ`` is ``mnz``); `UsageError` listing
    the methods otherwise."""
    key = name.lower().removeprefix("comb")
    found = METHODS.get(ALIASES.get(key, key))
    if found is None:
        raise UsageError(
            f"unknown fusion method {name!r}; choose one of {', '.join(METHODS)}",
            cli=f"unknown --method {name!r}; choose one of {', '.join(METHODS)}",
        )
    return found
