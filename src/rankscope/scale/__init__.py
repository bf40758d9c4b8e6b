"""Evaluation beyond one process: the Dask and Spark backends (``backend="dask"``,
``backend="spark"``) and the Arrow partition kernels any engine can map over partitions of
whole queries (users).

>>> import rankscope
>>> from rankscope.scale import Partitioned
>>> rankscope.evaluate("qrels.txt", "runs/", backend="dask")          # doctest: +SKIP
>>> rankscope.evaluate("qrels.txt", Partitioned("bm25/"), backend="dask",
...                    scheduler="tcp://scheduler:8786")               # doctest: +SKIP

Dask and distributed are the optional extra ``rankscope[dask]``, pyspark ``rankscope[spark]``,
each imported only when an evaluation on it runs.  See docs/distributed.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

#: Names imported from their module on first use: the front doors import this package to
#: choose a backend, and a local evaluation should not pay for loading the Dask one.
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "cluster": [
            "BACKENDS", "DaskEngine", "Engine", "Partitioned", "check_backend", "connect",
            "evaluate_in_place", "evaluate_split", "partitioned_runs",
        ],
        "gather": ["trec_results"],
        "kernels": ["TrecSpec", "empty_runs", "judgments_table", "runs_table", "trec_kernel"],
        "spark": ["SparkEngine", "spark_frames"],
    },
)  # fmt: skip

if TYPE_CHECKING:  # pragma: no cover
    from .cluster import (  # noqa: F401
        BACKENDS,
        DaskEngine,
        Engine,
        Partitioned,
        check_backend,
        connect,
        evaluate_in_place,
        evaluate_split,
        partitioned_runs,
    )
    from .gather import trec_results  # noqa: F401
    from .kernels import (  # noqa: F401
        TrecSpec,
        empty_runs,
        judgments_table,
        runs_table,
        trec_kernel,
    )
    from .spark import SparkEngine, spark_frames  # noqa: F401
