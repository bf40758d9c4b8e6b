"""Judgments and runs written back out: TREC text and Parquet."""

from __future__ import annotations

import os

from ..atomic import atomic_path
from ..judge import order_run
from ..model import Qrels, Run


def format_qrels(qrels: Qrels) -> str:
    qs, ds = qrels.queries.strings, qrels.docs.strings
    return "".join(
        f"{qs[q]} 0 {ds[d]} {g}\n"
        for q, d, g in zip(
            qrels.query.tolist(), qrels.doc.tolist(), qrels.grade.tolist(), strict=True
        )
    )


def format_run(run: Run, ties: str = "docno-desc") -> str:
    """TREC run text, ranked (rank column 1..n per query) with scores printed exactly."""
    order = order_run(run, ties)
    qs, ds = run.queries.strings, run.docs.strings
    lines = []
    prev, rank = -1, 0
    for i in order.tolist():
        q = int(run.query[i])
        rank = rank + 1 if q == prev else 1
        prev = q
        lines.append(f"{qs[q]} Q0 {ds[run.doc[i]]} {rank} {float(run.score[i])!r} {run.name}\n")
    return "".join(lines)


def write_parquet(table: Qrels | Run, path: str | os.PathLike) -> None:
    """Write judgments or a run to Parquet (columns query_id, doc_id, relevance / score),
    atomically (`atomic_path`)."""
    with atomic_path(path) as temporary:
        table.to_frame("polars").write_parquet(temporary)
