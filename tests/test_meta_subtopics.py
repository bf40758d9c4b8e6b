"""`rankscope meta` with diversity judgments: subtopic measures and stRPP side by side.

Expectations come from ndeval's own output (the conformance CSVs of the 8 TREC Web 2012
baseline runs) with scipy's Kendall's τ and paired t-test, and from the meaning of "fewer
judgments" (a judged document is dropped with all its subtopic judgments)."""

from __future__ import annotations

import csv
import io
import itertools
import json

import numpy as np
import pytest
from scipy import stats

from rankscope.read.trec import read_diversity_qrels
from rankscope.table.study import drop_judgments
from tests.conftest import CONFORMANCE, DATA, need, run_cli

WEB = DATA / "web2009-2014" / "2012"
QRELS = WEB / "qrels-for-ndeval.txt"
NDEVAL = CONFORMANCE / "ndeval"
RUNS = [
    f"{m}-results-{c}{f}" for m in ("ql", "rm") for c in ("cata", "catb") for f in ("", "-filtered")
]
# judgments of two queries over three subtopics: each document judged for every subtopic,
# as the Web track's assessors judged them
DIVERSITY = "".join(
    f"{q} {t} {q}-d{d} {int((d + t) % 3 == 0)}\n" for q in ("q1", "q2") for d in range(10)
    for t in (1, 2, 3)
)  # fmt: skip


@pytest.mark.parametrize("policy", ["uniform", "pool"])
@pytest.mark.parametrize("keep", [0.1, 0.3, 0.5])
def test_fewer_judgments_drops_documents_with_all_their_subtopics(tmp_path, policy, keep):
    path = tmp_path / "qrels.diversity"
    path.write_text(DIVERSITY)
    qrels = read_diversity_qrels(path)
    reduced = drop_judgments(qrels, [], keep, policy=policy, rng=np.random.default_rng(3))
    qids = reduced.queries.strings_of(reduced.query)
    docs = reduced.docs.strings_of(reduced.doc)
    subtopics = reduced.subtopic.tolist()
    by_doc: dict[tuple[str, str], set[int]] = {}
    for q, d, t in zip(qids, docs, subtopics, strict=True):
        by_doc.setdefault((q, d), set()).add(t)
    # every kept document keeps its three subtopic judgments ...
    assert all(ts == {1, 2, 3} for ts in by_doc.values())
    # ... and each query keeps int(10 * keep) of its 10 judged documents (at least one)
    for q in ("q1", "q2"):
        assert sum(1 for key in by_doc if key[0] == q) == max(int(10 * keep), 1)
