"""Judgment groups (trec_eval ``-R qrels_jg``) as ordinary judgments: each (query, group) pair
becomes a query of its own, and the run's ranking of the query is repeated for each of its
groups, so that `judge` orders and joins once."""

from __future__ import annotations

import numpy as np

from ..model import Run, Vocabulary


def expand_run(run: Run, pairs: Vocabulary, of_query: dict[str, list[str]]) -> Run:
    """The run with each query's ranking repeated for each of its judgment groups."""
    pair_codes = [pairs.lookup_many(of_query.get(qid, [])).tolist() for qid in run.queries.strings]
    sizes = np.array([len(p) for p in pair_codes], dtype=np.int64)
    flat = np.array([c for p in pair_codes for c in p], dtype=np.int32)
    first = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    copies = sizes[run.query]
    rows = np.repeat(np.arange(len(run)), copies)
    nth = np.arange(len(rows)) - np.repeat(np.cumsum(copies) - copies, copies)
    query = flat[first[run.query[rows]] + nth] if len(rows) else np.zeros(0, dtype=np.int32)
    return Run(
        run.name, pairs, run.docs, query, run.doc[rows], run.score[rows], source=run.source,
        line=None if run.line is None else run.line[rows], tag=run.tag,
    )  # fmt: skip
