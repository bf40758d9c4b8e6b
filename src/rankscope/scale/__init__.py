"""Evaluation beyond one process: the Dask backend (``backend="dask"``) and the Arrow
partition kernels any engine can map over partitions of whole queries (users).

>>> import rankscope
>>> from rankscope.scale import Partitioned
>>> rankscope.evaluate("qrels.txt", "runs/", backend="dask")          # doctest: +SKIP
>>> rankscope.evaluate("qrels.txt", Partitioned("bm25/"), backend="dask",
...                    scheduler="tcp://scheduler:8786")               # doctest: +SKIP

Dask and distributed are the optional extra ``rankscope[dask]``, imported only when a Dask
evaluation runs.  See docs/dask.md.
"""

from __future__ import annotations

from .cluster import Partitioned, connect, evaluate_many, recsys_evaluate_systems
from .gather import recsys_results, trec_results
from .kernels import (
    RecsysSpec,
    TrecSpec,
    empty_runs,
    interactions_table,
    judgments_table,
    recsys_kernel,
    runs_table,
    trec_kernel,
)

__all__ = [
    "Partitioned",
    "RecsysSpec",
    "TrecSpec",
    "connect",
    "empty_runs",
    "evaluate_many",
    "interactions_table",
    "judgments_table",
    "recsys_evaluate_systems",
    "recsys_kernel",
    "recsys_results",
    "runs_table",
    "trec_kernel",
    "trec_results",
]
