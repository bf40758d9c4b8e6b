"""The TREC Web track's diversity evaluation as ndeval 4.5 computes it (``rankscope ndeval``;
`rankscope.report.ndeval` prints it).

ndeval prints a CSV with one row per topic of the run and an ``amean`` row, six decimals,
the 21 columns of `COLUMNS`.  Its policies, kept here:

* documents are ordered by the run's rank column, or with ``-traditional`` by score
  descending then docno descending (trec_eval's order);
* every topic of the run is printed, in numeric order; a topic without judgments prints
  zeros and is left out of the mean's denominator (which is the number of topics both
  judged and ranked, or with ``-c`` the number of judged topics);
* ``-M depth`` keeps the top ``depth`` documents of each ranking;
* α and β default to 0.5; a grade above 1 counts as 1 and a subtopic without relevant
  documents is ignored.

The measures themselves are the registry's diversity family (`rankscope.measures.diversity`),
usable from ``rankscope eval`` and the API under the same names.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..judge import judge
from ..measures import parse_measures
from ..read import trec as trec_io
from ..read.runs import check_common_queries
from .evaluation import evaluate_judged

#: ndeval's columns, in order: (printed name, registry name).
COLUMNS = [
    *(f"ERR-IA@{k}" for k in (5, 10, 20)),
    *(f"nERR-IA@{k}" for k in (5, 10, 20)),
    *(f"alpha-DCG@{k}" for k in (5, 10, 20)),
    *(f"alpha-nDCG@{k}" for k in (5, 10, 20)),
    "NRBP",
    "nNRBP",
    "MAP-IA",
    *(f"P-IA@{k}" for k in (5, 10, 20)),
    *(f"strec@{k}" for k in (5, 10, 20)),
]


def ndeval_requests(alpha: float = 0.5, beta: float = 0.5):
    """The registry requests behind ndeval's columns, in `COLUMNS` order."""
    out = []
    for name in COLUMNS:
        base, _, cut = name.partition("@")
        args = []
        if base in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "NRBP", "nNRBP"):
            args.append(f"alpha={alpha!r}")
        if base in ("NRBP", "nNRBP"):
            args.append(f"beta={beta!r}")
        spec = base + (f"({','.join(args)})" if args else "") + (f"@{cut}" if cut else "")
        out.append(parse_measures(spec)[0])
    return out


def _topic_key(qid: str) -> tuple:
    return (0, int(qid), qid) if qid.isdigit() else (1, 0, qid)


def ndeval_table(
    qrels_path: Any,
    run_path: Any,
    *,
    alpha: float = 0.5,
    beta: float = 0.5,
    traditional: bool = False,
    complete: bool = False,
    depth: int | None = None,
    duplicates: str = "error",
) -> tuple[str, list[str], np.ndarray, np.ndarray]:
    """(run id, topics, per-topic values (topics x columns), mean row) as ndeval computes."""
    qrels = trec_io.read_diversity_qrels(qrels_path)
    order = "score" if traditional else "rank"
    data = trec_io.read_bytes(run_path)
    source = trec_io.source_name(run_path)
    run = trec_io.parse_run(
        data, source, qrels.queries, qrels.docs, duplicates=duplicates, order=order
    )
    check_common_queries(qrels, [run])  # nothing to compare: an error, not zeros
    judged = judge(qrels, run, max_docs=depth)
    requests = ndeval_requests(alpha, beta)
    result = evaluate_judged(judged, requests)
    values = np.stack(result.values, axis=1) if requests else np.zeros((judged.num_queries, 0))
    by_id = {q: i for i, q in enumerate(judged.query_ids)}
    ranked = np.unique(run.query)
    topics = sorted((run.queries.strings[c] for c in ranked.tolist()), key=_topic_key)
    table = np.zeros((len(topics), len(requests)))
    for t, qid in enumerate(topics):
        if qid in by_id:
            table[t] = values[by_id[qid]]
    judged_topics = len(np.unique(qrels.query))
    count = judged_topics if complete else judged.num_queries
    total = np.cumsum(table, axis=0)[-1] if len(topics) else np.zeros(len(requests))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / count
    return _ndeval_runid(data, run.name), topics, table, mean


def _ndeval_runid(data: bytes, last_tag: str) -> str:
    """ndeval names the run after the tag of its first line (trec_eval: the last)."""
    for line in data.split(b"\n"):
        fields = line.split()
        if len(fields) >= 6 and not fields[0].startswith(b"#"):
            return fields[5].decode("utf-8", "replace")
    return last_tag
