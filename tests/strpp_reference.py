"""A plain-Python reading of subtopic RPP (eq. 6 of Diaz & Ferraro, SIGIR 2022, with p(t) of
its §5.3), written from the paper for the tests, level by level as the authors' pref_eval
computes binary RPP: the oracle of `rankscope.preference.rpp.subtopic_rpp`.

    ST-RPP(π, π') = Σ_{t ∈ T ∪ {t*}} p(t) Σ_{i=1..m_t} p(i | t) sgn(f'_{i,t} − f_{i,t})

f_{i,t}: rank of the i-th document relevant to subtopic t (an unretrieved one below every
retrieved one; two rankings that both miss it tie); p(t) ∝ m_t, the number of documents
relevant to t; the background t* is satisfied by any relevant document, p(t*) ∝ m, their
number.  Subtopic 0 (an ad hoc judgment in a diversity file) is general relevance only: it
makes a document relevant for t*, as the authors' reader keeps it, and is no subtopic.
"""

from __future__ import annotations

import gzip
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

Judgments = Mapping[str, Mapping[int, int]]  # document -> {subtopic: grade}


def recall_weights(m: int, weights: str = "uniform") -> list[float]:
    """p(i | t) for i = 1..m: uniform, dcg (∝ 1/log2(i + 1)) or inverse (∝ 1/i)."""
    raw = {
        "uniform": [1.0] * m,
        "dcg": [1.0 / math.log2(i + 2) for i in range(m)],
        "inverse": [1.0 / (i + 1) for i in range(m)],
    }[weights]
    mass = 0.0
    for x in raw:
        mass += x
    return [x / mass for x in raw]


def binary_rpp(x: Sequence[str], y: Sequence[str], relevant: set[str], weights="uniform"):
    """RPP of ranking x over y for the documents ``relevant``."""
    at_x = {d: i + 1 for i, d in enumerate(x)}
    at_y = {d: i + 1 for i, d in enumerate(y)}
    fx = sorted(at_x.get(d, math.inf) for d in relevant)
    fy = sorted(at_y.get(d, math.inf) for d in relevant)
    value = 0.0
    for w, a, b in zip(recall_weights(len(relevant), weights), fx, fy, strict=True):
        if a < b:
            value += w
        elif a > b:
            value -= w
    return value


def populations(judgments: Judgments, level: int = 1) -> list[set[str]]:
    """The background population's relevant documents, then each subtopic's (ascending id;
    subtopics without a relevant document have no users)."""
    background = {d for d, grades in judgments.items() if max(grades.values()) >= level}
    subtopics = sorted({t for grades in judgments.values() for t in grades if t != 0})
    out = [background]
    for t in subtopics:
        docs = {d for d, grades in judgments.items() if grades.get(t, -1) >= level}
        if docs:
            out.append(docs)
    return out


def st_rpp(x, y, judgments: Judgments, level: int = 1, weights: str = "uniform") -> float:
    """ST-RPP of ranking x over ranking y (lists of document ids, best first)."""
    groups = populations(judgments, level)
    total = sum(len(g) for g in groups)
    if total == 0:
        return 0.0
    return sum(len(g) / total * binary_rpp(x, y, g, weights) for g in groups if g)


def read_diversity(path: Path) -> dict[str, dict[str, dict[int, int]]]:
    """``qid subtopic docno grade`` lines as {qid: {docno: {subtopic: grade}}}."""
    out: dict[str, dict[str, dict[int, int]]] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            q, t, d, g = line.split()
            out.setdefault(q, {}).setdefault(d, {})[int(t)] = int(g)
    return out


def read_ranked(path: Path, by: str = "score") -> dict[str, list[str]]:
    """A gzipped TREC run as {qid: [docno, ...]} best first: by score, equal scores by
    document id descending (trec_eval's order), or by the rank column (ndeval's)."""
    rows: dict[str, list[tuple]] = {}
    with gzip.open(path, "rt") as f:
        for line in f:
            q, _, d, rank, score, _tag = line.split()
            key = (-float(score), _descending(d)) if by == "score" else (int(rank),)
            rows.setdefault(q, []).append((key, d))
    return {q: [d for _, d in sorted(v)] for q, v in rows.items()}


def _descending(doc: str) -> tuple[int, ...]:
    return tuple(-b for b in doc.encode()) + (1,)
