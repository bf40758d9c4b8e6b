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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import RankscopeError, UsageError
from ..model.frames import is_spark_frame
from .kernels import ROW

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


def _outcome(function: Callable, *args: Any) -> bytes:
    """A task's outcome, pickled for the driver: ``(True, output)``, or ``(False, error)``
    for a rankscope error (the user's mistake), which `_gathered` raises there."""
    import cloudpickle

    try:
        done: tuple = (True, function(*args))
    except RankscopeError as error:
        done = (False, error)
    return cloudpickle.dumps(done, protocol=pickle.HIGHEST_PROTOCOL)


def _gathered(frame: Any, run_partition: Callable[[Iterator[Any]], Iterator[Any]]) -> list[Any]:
    """The outputs of a ``mapInArrow`` job of task outcomes (`_outcome`), in task order; the
    first failed task's error raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # pyspark on pandas 3
        found = frame.mapInArrow(run_partition, "task long, output binary").collect()
    outputs = []
    for row in sorted(found, key=lambda r: r["task"]):
        ok, value = pickle.loads(row["output"])  # noqa: S301 - our tasks'
        if not ok:
            raise value
        outputs.append(value)
    return outputs


def spark_source(name: str) -> str:
    """What messages call the Spark DataFrame of a run, a log or judgments."""
    return f"<Spark DataFrame {name}>"


def _run_batches(batches: Iterator[Any], shared: list[Any]) -> Iterator[Any]:
    """The ``mapInArrow`` function: run each row's task, its output pickled."""
    import pyarrow as pa

    unpickled: dict[int, Any] = {}
    for batch in batches:
        ids = batch.column(0).to_pylist()
        outputs = []
        for payload in batch.column(1).to_pylist():
            function, args = pickle.loads(payload)  # noqa: S301 - written by the driver
            outputs.append(_outcome(function, *_resolved(args, shared, unpickled)))
        yield pa.RecordBatch.from_arrays(
            [pa.array(ids, pa.int64()), pa.array(outputs, pa.binary())], ["task", "output"]
        )


def spark_frames(given: Any, name: str) -> list[tuple[str, Any]] | None:
    """(name, frame) per run (system) when the runs are Spark DataFrames: one (named
    ``name``) or a ``{name: frame}`` dict; None when none is a Spark DataFrame."""
    if is_spark_frame(given):
        return [(name, given)]
    values = list(given.values()) if isinstance(given, Mapping) else (
        list(given) if isinstance(given, list | tuple) else []
    )  # fmt: skip
    if not any(is_spark_frame(v) for v in values):
        return None
    if not isinstance(given, Mapping) or not all(is_spark_frame(v) for v in values):
        raise UsageError(
            "Spark DataFrames of several runs are given as a dict {name: DataFrame}, every "
            "one a Spark DataFrame"
        )
    return [(str(k), v) for k, v in given.items()]


#: The column `SparkEngine.grouped` adds to each frame: which frame a row is of (the other,
#: `ROW`, first holds Spark's `monotonically_increasing_id`: the row's Spark partition in
#: its upper 31 bits, its place in that partition in the lower 33).
SIDE = "_rankscope_side"
_LOWER = (1 << 33) - 1


def _run_groups(batches: Iterator[Any], roles: list[str], columns: dict[str, list[str]],
                starts: dict[str, np.ndarray], function: Callable, args: tuple,
                shared: list[Any]) -> Iterator[Any]:  # fmt: skip
    """The ``mapInArrow`` function of `SparkEngine.grouped`: the partition's rows as one
    Arrow table per frame (each frame's own columns and `ROW`, each row's place in its frame
    from the first row of each of the frame's Spark partitions, ``starts``; its rows in the
    frame's order), then ``function(partition, tables, *args)``, its output pickled."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyspark import TaskContext

    found = list(batches)
    if not found or not sum(b.num_rows for b in found):
        return
    table = pa.Table.from_batches(found).sort_by([(SIDE, "ascending"), (ROW, "ascending")])
    side = table.column(SIDE)
    tables = {}
    for i, role in enumerate(roles):
        part = table.filter(pc.equal(side, i))
        ids = np.asarray(part.column(ROW).to_numpy(), dtype=np.int64)
        rows = starts[role][ids >> 33] + (ids & _LOWER)
        tables[role] = part.select(columns[role]).append_column(ROW, pa.array(rows, pa.int64()))
    context = TaskContext.get()
    partition = context.partitionId() if context is not None else 0
    done = _outcome(function, partition, tables, *_resolved(args, shared, {}))
    yield pa.RecordBatch.from_arrays(
        [pa.array([partition], pa.int64()), pa.array([done], pa.binary())], ["task", "output"]
    )


def _alike(frames: dict[str, Any]) -> dict[str, Any]:
    """The frames with a column that is text in one and of another type in another (ids:
    ``42`` and ``"42"``) as text in every one, as the frame readers read ids (numbers as
    their decimal text); other types as they are (Spark's union widens numbers)."""
    import pyspark.sql.functions as F
    from pyspark.sql.types import StringType

    kinds: dict[str, set[str]] = {}
    for frame in frames.values():
        for field in frame.schema.fields:
            kinds.setdefault(field.name, set()).add(field.dataType.simpleString())
    texts = {n for n, k in kinds.items() if len(k) > 1 and StringType().simpleString() in k}
    if not texts:
        return frames
    return {
        role: frame.select(*[F.col(c).cast("string").alias(c) if c in texts else F.col(c)
                             for c in frame.columns])
        for role, frame in frames.items()
    }  # fmt: skip


def _partition_starts(frame: Any) -> np.ndarray:
    """The place in ``frame`` of the first row of each of its Spark partitions (one job
    counting the rows of each)."""
    import pyspark.sql.functions as F

    counted = frame.select(F.spark_partition_id().alias("p")).groupBy("p").count().collect()
    sizes = np.zeros(max((r["p"] for r in counted), default=0) + 1, dtype=np.int64)
    for r in counted:
        sizes[r["p"]] = r["count"]
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)


class SparkEngine:
    """A Spark session as the engine (`rankscope.scale.cluster.Engine`)."""

    name = "spark"

    def __init__(self, session: Any, owned: bool) -> None:
        self.session = session
        self.owned = owned
        self._shared: list[Any] = []  # broadcast variables, by `_Held` index
        self._counted: list[tuple[Any, np.ndarray]] = []  # (frame, `_partition_starts`)

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

        return _gathered(frame, run_partition)  # (one row a task: in the tasks' order)

    def _starts(self, frame: Any) -> np.ndarray:
        """`_partition_starts` of ``frame``, counted once per evaluation (the first pass
        and the evaluation read the same logs)."""
        for counted, starts in self._counted:
            if counted.sameSemantics(frame):
                return starts
        starts = _partition_starts(frame)
        self._counted.append((frame, starts))
        return starts

    def grouped(self, frames: dict[str, Any], key: str, function: Callable, *args: Any,
                partitions: int | None = None) -> list[Any]:  # fmt: skip
        """``function(partition, tables, *args)`` on each partition of Spark DataFrames
        partitioned alike by their column ``key`` (every row of a key's value in one
        partition, whatever the frame): ``tables`` maps each role of ``frames`` to that
        partition's rows of its frame, as an Arrow table of the frame's columns, its rows
        in the frame's order.  The frames are tagged and unioned, then one shuffle (into
        ``partitions``, default Spark's shuffle partitions) and one ``mapInArrow`` job; the
        outputs in partition order (partitions without rows give none).  ``args`` may hold
        `held` values."""
        import pyspark.sql.functions as F

        frames = _alike(frames)
        roles = list(frames)
        columns = {role: list(frame.columns) for role, frame in frames.items()}
        starts = {role: self._starts(frame) for role, frame in frames.items()}
        tagged = [
            frames[role].select("*", F.lit(i).alias(SIDE),
                                F.monotonically_increasing_id().alias(ROW))
            for i, role in enumerate(roles)
        ]  # fmt: skip
        union = tagged[0]
        for frame in tagged[1:]:
            union = union.unionByName(frame, allowMissingColumns=True)
        # Spark's shuffle partitions (spark.sql.shuffle.partitions), which adaptive execution
        # coalesces to its advisory size: a partition's rows fit a worker whatever the data
        shuffled = union.repartition(key) if partitions is None else union.repartition(
            partitions, key)  # fmt: skip
        shared = list(self._shared)

        def run_partition(batches: Iterator[Any]) -> Iterator[Any]:
            return _run_groups(batches, roles, columns, starts, function, args, shared)

        return _gathered(shuffled, run_partition)

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
        self._counted.clear()
        if self.owned:
            self.session.stop()
