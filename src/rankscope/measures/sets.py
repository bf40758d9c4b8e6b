"""Set measures: the retrieved documents as an unordered set (precision, recall, F, utility)."""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..judge import Ranked
from .base import REL, IrSpelling, Measure, Param, TrecSpelling, safe_divide


def _counts(r: Ranked, rel: int | None):
    return r.num_rel_ret(rel).astype(np.float64), r.num_ret.astype(np.float64), r.num_rel(rel)


def _set_p(r: Ranked, rel: int | None = None) -> np.ndarray:
    hits, ret, _ = _counts(r, rel)
    return safe_divide(hits, ret)


set_P = Measure(
    "set_P", _set_p, reference="van Rijsbergen, Information Retrieval, Butterworths, 1979.",
    params=(REL,), ir=(IrSpelling("SetP"),), family="sets",
    doc="""\
    Set precision: relevant retrieved / retrieved (no fill-in to a cutoff).

    User model: reads everything retrieved, as with an unranked (Boolean) result set.
    """,
)


def _set_relative_p(r: Ranked, rel: int | None = None) -> np.ndarray:
    hits, ret, big_r = _counts(r, rel)
    return safe_divide(hits, np.where(ret > 0, np.minimum(ret, big_r), 0))


set_relative_P = Measure(
    "set_relative_P", _set_relative_p, reference="trec_eval's set_relative_P (m_set_rel_P.c).",
    params=(REL,), family="sets",
    doc="""\
    Relative set precision: relevant retrieved / min(retrieved, R), set precision against the
    best possible for a set of that size.
    """,
)


def _set_recall(r: Ranked, rel: int | None = None) -> np.ndarray:
    hits, _, big_r = _counts(r, rel)
    return safe_divide(hits, big_r)


set_recall = Measure(
    "set_recall", _set_recall,
    reference="van Rijsbergen, Information Retrieval, Butterworths, 1979.", params=(REL,),
    ir=(IrSpelling("SetR"),), family="sets",
    doc="""\
    Set recall: relevant retrieved / R.

    User model: reads everything retrieved and values the share of the relevant found.
    """,
)


def _set_map(r: Ranked, rel: int | None = None) -> np.ndarray:
    hits, ret, big_r = _counts(r, rel)
    return safe_divide(hits * hits, np.where(big_r > 0, ret * big_r, 0))


set_map = Measure(
    "set_map", _set_map, reference="trec_eval's set_map (m_set_map.c).", params=(REL,),
    ir=(IrSpelling("SetAP"),), family="sets",
    doc="""\
    Unranked average precision: relevant retrieved^2 / (retrieved * R) = set P x set R: AP when
    every relevant retrieved document is credited with the set's precision.
    """,
)


def _set_f(r: Ranked, beta: float = 1.0, rel: int | None = None) -> np.ndarray:
    hits, ret, big_r = _counts(r, rel)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = hits / ret
        rr = hits / big_r
        value = (beta + 1.0) * p * rr / (beta * p + rr)
    return np.where(hits > 0, value, 0.0)


set_F = Measure(
    "set_F", _set_f, params=(Param("beta", float, 1.0, "relative importance of recall"), REL),
    trec=TrecSpelling("values", from_values=lambda v: {"beta": v[0]}), ir=(IrSpelling("SetF"),),
    family="sets", reference="van Rijsbergen, Information Retrieval, Butterworths, 1979.",
    doc="""\
    Set F: (beta + 1) * P * R / (beta * P + R) over the retrieved set, beta the relative
    importance of recall (trec_eval's parameterisation; beta = 1 is the harmonic mean).
    """,
)


def _utility(
    r: Ranked,
    coefficients: tuple = (1.0, -1.0, 0.0, 0.0),
    num_docs: int = 0,
    rel: int | None = None,
) -> np.ndarray:
    if len(coefficients) != 4:
        raise UsageError("utility needs exactly four coefficients (a, b, c, d)")
    a = r.num_rel_ret(rel)
    ret, big_r = r.num_ret, r.num_rel(rel)
    c1, c2, c3, c4 = (float(c) for c in coefficients)
    return (c1 * a + c2 * (ret - a)) + c3 * (big_r - a) + c4 * (num_docs + a - ret - big_r)


utility = Measure(
    "utility", _utility,
    reference="Hull & Robertson, The TREC-8 filtering track final report, TREC 1999.",
    trec=TrecSpelling("values", from_values=lambda v: {"coefficients": tuple(v)}), family="sets",
    params=(
        Param("coefficients", tuple, (1.0, -1.0, 0.0, 0.0), "c1, c2, c3, c4"),
        Param("num_docs", int, 0, "number of documents in the collection (trec_eval -N)"),
        REL,
    ),
    doc="""\
    Linear set utility c1*a + c2*b + c3*c + c4*d over the contingency table (a relevant
    retrieved, b non-relevant retrieved, c relevant missed, d non-relevant not retrieved; d
    needs the collection size, ``-N``). Default coefficients 1, -1, 0, 0.

    User model: each relevant document read is worth c1, each non-relevant one costs -c2
    (filtering tasks).
    """,
)
