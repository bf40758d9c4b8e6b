"""The Spark backend (``backend="spark"``): the partition tasks of the Dask backend — the same
partitions of whole queries (users), the same kernels, the same gathering — run by Apache
Spark.

Each task ``(function, *arguments)`` is pickled into a row of a Spark DataFrame, one row a
Spark partition, and run by ``mapInArrow`` (Spark's Arrow-based Python function) on an
executor; its output (the kernel's Arrow table of per-query values, with its metadata) comes
back pickled in an Arrow binary column.  Inputs every task shares (judgments read whole,
the catalog and popularity, the task of run-file pieces) are Spark broadcast variables,
kept by the driver: an executor lost, Spark runs its task again (``spark.task.maxFailures``;
in local mode ``local[N,F]``) with the same inputs, so the result is the same.

pyspark is the optional extra ``rankscope[spark]`` (Java comes from the system), imported
only when a Spark evaluation runs.  See docs/distributed.md.
"""

from __future__ import annotations

import os
import pickle
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import RankscopeError, UsageError

EXTRA = "pip install 'rankscope[spark]'"


@dataclass(frozen=True)
class _Held:
    """A shared input in a task's arguments: the index of its broadcast variable."""

    index: int


def spark_engine(scheduler: Any) -> SparkEngine:
    """The Spark engine on the active session (``scheduler=None``), a `SparkSession`, or a
    master URL (``"local[2]"``, ``"spark://host:7077"``, ``"yarn"``: a session made here,
    stopped after)."""
    try:
        import pyspark  # noqa: F401
        from pyspark.sql import SparkSession
    except ImportError:
        raise UsageError(
            f"backend='spark' needs pyspark: {EXTRA}", cli=f"--backend spark needs pyspark: {EXTRA}"
        ) from None
    if scheduler is None:
        session = SparkSession.getActiveSession()
        if session is None:
            raise UsageError(
                "backend='spark' needs a Spark session: create a SparkSession first, or give "
                "scheduler='local[2]' (or a master URL such as 'spark://HOST:7077')",
                cli="--backend spark needs --scheduler MASTER (local[2], spark://HOST:7077)",
            )
        return SparkEngine(session, False)
    if isinstance(scheduler, SparkSession):
        return SparkEngine(scheduler, False)
    if isinstance(scheduler, str):
        running = SparkSession.getActiveSession()
        if running is not None:  # (a process has one session: never stop the user's)
            return SparkEngine(running, False)
        # the executors' Python: this interpreter (where rankscope and pyarrow are), unless
        # the user chose another
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        try:
            session = (
                SparkSession.builder.master(scheduler).appName("rankscope")
                .config("spark.ui.enabled", "false")
                .config("spark.ui.showConsoleProgress", "false").getOrCreate()
            )  # fmt: skip
        except Exception as e:  # noqa: BLE001 - py4j and the JVM raise many kinds
            raise UsageError(f"cannot start Spark with master {scheduler!r}: {e}") from None
        session.sparkContext.setLogLevel("ERROR")
        return SparkEngine(session, True)
    raise UsageError(
        f"scheduler must be a Spark master URL or a SparkSession with backend='spark', not "
        f"{type(scheduler).__name__}"
    )


def _resolved(value: Any, shared: list[Any], unpickled: dict[int, Any]) -> Any:
    """``value`` with each `_Held` replaced by its broadcast's value (in tuples, lists and
    dicts), each unpickled once (``unpickled``, by index)."""
    if isinstance(value, _Held):
        if value.index not in unpickled:
            data = shared[value.index].value
            unpickled[value.index] = pickle.loads(data)  # noqa: S301 - the driver's
        return unpickled[value.index]
    if isinstance(value, tuple):
        return tuple(_resolved(v, shared, unpickled) for v in value)
    if isinstance(value, list):
        return [_resolved(v, shared, unpickled) for v in value]
    if isinstance(value, dict):
        return {k: _resolved(v, shared, unpickled) for k, v in value.items()}
    return value


def _run_batches(batches: Iterator[Any], shared: list[Any]) -> Iterator[Any]:
    """The ``mapInArrow`` function: run each row's task, its output pickled."""
    import cloudpickle
    import pyarrow as pa

    unpickled: dict[int, Any] = {}
    for batch in batches:
        ids = batch.column(0).to_pylist()
        outputs = []
        for payload in batch.column(1).to_pylist():
            function, args = pickle.loads(payload)  # noqa: S301 - written by the driver
            try:
                done: tuple = (True, function(*_resolved(args, shared, unpickled)))
            except RankscopeError as error:  # the user's mistake: raised by the driver
                done = (False, error)
            outputs.append(cloudpickle.dumps(done, protocol=pickle.HIGHEST_PROTOCOL))
        yield pa.RecordBatch.from_arrays(
            [pa.array(ids, pa.int64()), pa.array(outputs, pa.binary())], ["task", "output"]
        )


class SparkEngine:
    """A Spark session as the engine (`rankscope.scale.cluster.Engine`)."""

    name = "spark"

    def __init__(self, session: Any, owned: bool) -> None:
        self.session = session
        self.owned = owned
        self._shared: list[Any] = []  # broadcast variables, by `_Held` index

    def workers(self) -> int:
        return max(1, int(self.session.sparkContext.defaultParallelism))

    def partitions(self) -> int:
        return 2 * self.workers()

    def held(self, value: Any) -> _Held:
        """A broadcast variable of ``value`` (kept by the driver, sent once to each
        executor), pickled by cloudpickle as the tasks are (a measure may hold a lambda)."""
        import cloudpickle

        data = cloudpickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        self._shared.append(self.session.sparkContext.broadcast(data))
        return _Held(len(self._shared) - 1)

    def run(self, tasks: list[tuple]) -> list[Any]:
        if not tasks:
            return []
        import cloudpickle

        context = self.session.sparkContext
        rows = [
            (i, cloudpickle.dumps((f, tuple(args)), protocol=pickle.HIGHEST_PROTOCOL))
            for i, (f, *args) in enumerate(tasks)
        ]
        shared = list(self._shared)
        frame = self.session.createDataFrame(
            context.parallelize(rows, len(rows)), "task long, payload binary"
        )

        def run_partition(batches: Iterator[Any]) -> Iterator[Any]:
            return _run_batches(batches, shared)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # pyspark on pandas 3
            found = frame.mapInArrow(run_partition, "task long, output binary").collect()
        outputs: list[Any] = [None] * len(tasks)
        for row in sorted(found, key=lambda r: r["task"]):
            ok, value = pickle.loads(row["output"])  # noqa: S301 - our tasks'
            if not ok:
                raise value
            outputs[row["task"]] = value
        return outputs

    def map(
        self, evaluate: Callable[[Any, Any], Any], task: Any, pieces: Iterator[Any]
    ) -> Iterator[Any]:
        """The pieces (paths and byte ranges, or whole runs) as one Spark job, ``task``
        broadcast once."""
        shared = self.held(task)
        yield from self.run([(evaluate, shared, piece) for piece in pieces])

    def close(self) -> None:
        for variable in self._shared:
            variable.unpersist()
        self._shared.clear()
        if self.owned:
            self.session.stop()
