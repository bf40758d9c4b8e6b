"""Counts and diagnostics: run id, number of queries, documents retrieved, relevant, judged."""

from __future__ import annotations

import numpy as np

from ..judge import UNJUDGED, Ranked
from .base import REL, Measure, Param, TrecSpelling


def _runid(r: Ranked) -> np.ndarray:
    return np.full(len(r.grade), "", dtype=object)


runid = Measure(
    "runid", _runid, value="str", aggregate="runid", per_query=False, family="counts",
    doc="""\
    The run's name (the tag of the last line of a TREC run file). Summary only.
    """,
)


def _num_q(r: Ranked) -> np.ndarray:
    return np.ones(len(r.grade))


num_q = Measure(
    "num_q", _num_q, value="int", aggregate="count", per_query=False, family="counts",
    doc="""\
    Number of queries averaged over (all judged queries with ``-c``). Summary only.
    """,
)


def _num_ret(r: Ranked) -> np.ndarray:
    return r.num_ret.astype(np.float64)


num_ret = Measure(
    "num_ret", _num_ret, value="int", aggregate="sum", family="counts",
    doc="""\
    Number of documents retrieved (after ``-M`` and ``-J``). The summary is the sum.
    """,
)


def _num_rel(r: Ranked, rel: int | None = None) -> np.ndarray:
    return r.num_rel(rel).astype(np.float64)


num_rel = Measure(
    "num_rel", _num_rel, params=(REL,), value="int", aggregate="num_rel", zero_when_missing=False,
    family="counts",
    doc="""\
    Number of relevant documents (grade >= level) in the judgments. The summary is the sum;
    with ``-c`` trec_eval's summary counts every judged document with grade > 0 over all judged
    queries, whatever the level, and so does rankscope.
    """,
)


def _num_rel_ret(r: Ranked, rel: int | None = None) -> np.ndarray:
    return r.num_rel_ret(rel).astype(np.float64)


num_rel_ret = Measure(
    "num_rel_ret", _num_rel_ret, params=(REL,), value="int", aggregate="sum", family="counts",
    doc="""\
    Number of relevant documents retrieved. The summary is the sum.
    """,
)


def _num_nonrel_judged_ret(r: Ranked, rel: int | None = None) -> np.ndarray:
    return (r.num_ret - r.num_nonpool - r.num_unjudged - r.num_rel_ret(rel)).astype(np.float64)


num_nonrel_judged_ret = Measure(
    "num_nonrel_judged_ret", _num_nonrel_judged_ret, params=(REL,), value="int", aggregate="sum",
    family="counts",
    doc="""\
    Number of retrieved documents judged non-relevant. The summary is the sum.
    """,
)


def _relstring(r: Ranked, length: int = 10) -> np.ndarray:
    out = np.empty(len(r), dtype=object)
    shown = np.minimum(np.maximum(length, 0), r.num_ret)
    for i in range(len(r)):
        chars = ["-"] * int(shown[i])
        for rank, g in zip(r.rank[i].tolist(), r.grade[i].tolist(), strict=True):
            if rank > shown[i]:
                break
            if g == UNJUDGED:
                chars[rank - 1] = "."
            else:
                chars[rank - 1] = ">" if g > 9 else str(g) if g >= 0 else "<"
        out[i] = "".join(chars)
    return out


relstring = Measure(
    "relstring", _relstring, params=(Param("length", int, 10, "number of ranks shown"),),
    trec=TrecSpelling("values", from_values=lambda v: {"length": int(v[0])}), value="str",
    aggregate="none", summary=False, family="counts",
    doc="""\
    The relevance values of the first N (default 10) retrieved documents as a string: the digit
    for grades 0-9, '>' above 9, '-' for a document not in the qrels, '.' for one in the pool
    but unjudged (negative grade). Per query only.
    """,
)
