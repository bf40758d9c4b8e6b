"""The Dask backend: inputs split by query (user) and the kernels mapped over the partitions
on a `distributed` cluster, their outputs gathered into the local path's results.

Three kinds of input:

* TREC run files: each read by the workers themselves, whole or in blocks of whole queries
  (`Engine.map`: the local ``--jobs`` path's pieces, paths and byte ranges, evaluated on
  the cluster), the judgments read on the client and sent once to every worker;
* anything else the local path accepts (DataFrames, dicts): read on the client, split into
  partitions of whole queries (users), each partition sent with its task (so a task lost with
  a worker is run again elsewhere: the scheduler holds its inputs);
* `Partitioned` Parquet datasets (a directory of Parquet files, each holding whole queries or
  users): each task reads its own files on the worker, matched across datasets by their path
  inside the directory.
"""

from __future__ import annotations

import collections
import contextlib
import os
import uuid
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..errors import InputError, UsageError
from ..judge import JoinOptions
from ..measures import Request
from ..model import GroupedQrels, Prefs, Qrels, Run, Vocabulary
from ..model.frames import is_frame, is_spark_frame
from ..read import frames
from ..table import RunEvaluation
from ..table.formats import warn_if_nothing_relevant
from .gather import trec_results
from .kernels import (
    TrecSpec,
    empty_runs,
    judgments_table,
    metadata,
    partition_runs,
    pyarrow,
    read_part,
    runs_table,
    trec_kernel,
    with_warnings,
)
from .spark import spark_engine, spark_source

EXTRA = "pip install 'rankscope[dask]'"


@dataclass(frozen=True)
class Partitioned:
    """A Parquet dataset partitioned by query (or user): a directory of Parquet files
    (``*.parquet``, ``*.pq``, in sub-directories too), each holding whole queries (users).
    The workers read the files themselves, so the directory must be where they can see it
    (a shared file system).  Judgments (test logs) given as another `Partitioned` are
    matched to the runs' files by their path inside the directory.  ``name``: the run's name
    (default: the directory's)."""

    path: str | os.PathLike
    name: str | None = None

    @property
    def run_name(self) -> str:
        return self.name or Path(self.path).name

    def files(self) -> dict[str, str]:
        root = Path(self.path)
        if not root.is_dir():
            raise UsageError(f"{root}: a partitioned Parquet dataset must be a directory")
        found = {
            p.relative_to(root).as_posix(): str(p)
            for p in sorted(root.rglob("*"))
            if p.is_file() and p.suffix in (".parquet", ".pq")
        }
        if not found:
            raise UsageError(f"{root}: no Parquet files (*.parquet, *.pq) in the dataset")
        return found


class Engine(Protocol):
    """What runs the partition tasks: a Dask client (`DaskEngine`) or a Spark session
    (`rankscope.scale.spark.SparkEngine`).  Every cluster path is written against it, so
    both run the same tasks of the same kernels.  An engine is also a
    `rankscope.table.many.Cluster` (``workers``, ``map``) for the pieces of run files."""

    name: str

    def workers(self) -> int:
        """How many tasks run at once."""
        ...

    def partitions(self) -> int:
        """How many partitions inputs read on the client are split into by default."""
        ...

    def held(self, value: Any) -> Any:
        """``value`` as a handle every task may take as an argument (at any depth of
        tuples, lists and dicts), sent to the cluster once and kept where the loss of a
        worker does not lose it; the task receives the value."""
        ...

    def run(self, tasks: list[tuple]) -> list[Any]:
        """The outputs of the tasks ``(function, *arguments)``, in order; a task lost with
        its worker runs again elsewhere."""
        ...

    def map(
        self, evaluate: Callable[[Any, Any], Any], task: Any, pieces: Iterator[Any]
    ) -> Iterator[Any]:
        """``evaluate(task, piece)`` of each piece, in order (``task`` sent once)."""
        ...

    def close(self) -> None:
        """Let go of what the engine made (a client or a session it created)."""
        ...


BACKENDS = ("local", "dask", "spark")


def check_backend(backend: str) -> None:
    if backend not in BACKENDS[1:]:
        raise UsageError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")


@contextlib.contextmanager
def connect(backend: str, scheduler: Any) -> Iterator[Engine]:
    """The engine of ``backend`` (``dask`` or ``spark``) on ``scheduler`` (see `DaskEngine`
    and `rankscope.scale.spark.SparkEngine`), closed after when made here."""
    check_backend(backend)
    engine: Engine
    if backend == "spark":
        engine = spark_engine(scheduler)  # (pyspark is imported there, when it runs)
    else:
        engine = dask_engine(scheduler)
    try:
        yield engine
    finally:
        engine.close()


def dask_engine(scheduler: Any) -> DaskEngine:
    """The Dask engine on the current client (``scheduler=None``), a `distributed.Client`,
    a cluster object (LocalCluster, KubeCluster, SLURMCluster, ...) or a scheduler address
    (a client made here, closed after)."""
    try:
        import distributed
    except ImportError:
        raise UsageError(
            f"backend='dask' needs dask and distributed: {EXTRA}",
            cli=f"--scheduler needs dask and distributed: {EXTRA}",
        ) from None
    if scheduler is None:
        try:
            return DaskEngine(distributed.get_client(), False)
        except ValueError:
            raise UsageError(
                "backend='dask' needs a Dask cluster: create a distributed.Client first, or "
                "give scheduler='tcp://HOST:8786' (or a cluster object)"
            ) from None
    if isinstance(scheduler, distributed.Client):
        return DaskEngine(scheduler, False)
    if isinstance(scheduler, str | os.PathLike) or hasattr(scheduler, "scheduler_address"):
        try:
            return DaskEngine(distributed.Client(scheduler, set_as_default=False), True)
        except OSError as e:
            raise UsageError(f"cannot reach the Dask scheduler {scheduler}: {e}") from None
    raise UsageError(
        f"scheduler must be an address, a cluster or a distributed.Client, not "
        f"{type(scheduler).__name__}"
    )


def _given(value: Any) -> Any:
    return value


class DaskEngine:
    """A Dask client as the engine: tasks submitted with their inputs (the scheduler keeps
    them, so a task lost with its worker runs again elsewhere), shared inputs held as a
    task's input, run-file pieces in a window of tasks ahead."""

    name = "dask"

    def __init__(self, client: Any, owned: bool) -> None:
        self.client = client
        self.owned = owned

    def workers(self) -> int:
        """The threads of every worker: how many pieces run at once."""
        found = self.client.scheduler_info().get("workers", {}).values()
        return sum(int(w.get("nthreads", 1)) for w in found) or 1

    def partitions(self) -> int:
        return 2 * (len(self.client.scheduler_info().get("workers", {})) or 1)

    def held(self, value: Any) -> Any:
        """A future of ``value`` kept by the scheduler as a task's input: a worker lost with
        it, the scheduler makes it again on another (data scattered to workers would be lost
        with the last of them, as when a worker restarting missed the scatter); each worker
        fetches it once."""
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Sending large graph")
            return self.client.submit(_given, value, pure=False)

    def run(self, tasks: list[tuple]) -> list[Any]:
        """Each task carries its partition (Dask's note on large task graphs says what the
        design already accepts)."""
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Sending large graph")
            futures = [self.client.submit(f, *args, pure=False) for f, *args in tasks]
        return list(self.client.gather(futures))

    def map(
        self, evaluate: Callable[[Any, Any], Any], task: Any, pieces: Iterator[Any]
    ) -> Iterator[Any]:
        """A window of tasks ahead (two per worker thread), so that the client holds a few
        outcomes at a time.  A task lost with its worker runs again on another (each worker
        holds the task, and the piece names what it reads).  Stopped early (an error), the
        futures still ahead go with the window, and the scheduler then forgets their
        tasks."""
        shared = self.held(task)
        window: collections.deque[Any] = collections.deque()
        tag = uuid.uuid4().hex
        ahead = 2 * self.workers()
        for n, piece in enumerate(pieces):
            key = f"trec_kernel-{tag}-{n}"  # (a kernel task, as the scheduler tells it)
            window.append(self.client.submit(evaluate, shared, piece, key=key, pure=False))
            if len(window) >= ahead:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()

    def close(self) -> None:
        if self.owned:
            self.client.close()


def num_partitions(engine: Engine, partitions: int | None, items: int) -> int:
    if partitions is not None and partitions < 1:
        raise UsageError(f"partitions must be >= 1 (got {partitions})")
    if partitions is None:
        partitions = engine.partitions()
    return max(1, min(partitions, items))


def partition_ids(ids: list[str], n: int) -> dict[str, int]:
    """Each id's partition: the ids sorted as strings, in ``n`` contiguous runs."""
    ordered = sorted(ids)
    bounds = np.linspace(0, len(ordered), n + 1).astype(int)
    return {q: p for p in range(n) for q in ordered[bounds[p] : bounds[p + 1]]}


def partition_of(vocab: Vocabulary, part: dict[str, int]) -> np.ndarray:
    """Partition per code of ``vocab`` (-1: in no partition)."""
    return np.array([part.get(s, -1) for s in vocab.strings], dtype=np.int64)


# -- TREC --------------------------------------------------------------------------------------


def partitioned_runs(runs: Any) -> list[tuple[str, Partitioned]] | None:
    if isinstance(runs, Partitioned):
        return [(runs.run_name, runs)]
    if isinstance(runs, Mapping) and runs and all(
        isinstance(v, Partitioned) for v in runs.values()
    ):
        return [(str(k), v) for k, v in runs.items()]
    if isinstance(runs, list | tuple) and runs and all(isinstance(v, Partitioned) for v in runs):
        return [(v.run_name, v) for v in runs]
    return None


def evaluate_split(
    engine: Engine,
    judgments: Qrels | Prefs | GroupedQrels,
    runs: Sequence[Run],
    requests: Sequence[Request],
    options: JoinOptions,
    num_docs: int = 0,
    partitions: int | None = None,
    baseline: str | None = None,
    rel_format: str = "qrels",
) -> list[RunEvaluation]:
    """Judgments (in the format ``rel_format``) and runs read on the client (the runs with
    the judgments' vocabularies), split into ``partitions`` partitions of whole queries
    (default: twice the workers) and evaluated on the cluster of ``client``; ``options`` as
    `evaluation_options` made them; ``baseline``: the preference measures' reference run
    (default the first)."""
    if isinstance(judgments, Qrels):
        warn_if_nothing_relevant(judgments, options.relevance_level)
    ids = judgments.queries.strings  # the runs share the judgments' vocabulary
    n = num_partitions(engine, partitions, len(ids))
    part = partition_of(judgments.queries, partition_ids(list(ids), n))
    q_part = part[judgments.query]
    r_parts = [part[r.query] for r in runs]
    spec = _trec_spec(runs, requests, options, num_docs, judgments.source, baseline, rel_format)
    tasks = [
        (
            trec_kernel,
            judgments_table(judgments, np.flatnonzero(q_part == p)),
            runs_table(runs, [np.flatnonzero(rp == p) for rp in r_parts]),
            spec,
        )
        for p in range(n)
    ]
    return trec_results(engine.run(tasks), spec)


def _trec_spec(runs: Sequence[Run] | Sequence[tuple[str, Any]], requests, options,
               num_docs, qrels_source, baseline=None, rel_format="qrels") -> TrecSpec:  # fmt: skip
    names, tags, sources = [], [], []
    for r in runs:
        if isinstance(r, Run):
            names.append(r.name)
            tags.append(r.tag)
            sources.append(r.source)
        else:
            names.append(r[0])
            tags.append(None)
            sources.append(spark_source(r[0]) if is_spark_frame(r[1]) else str(r[1].path))
    return TrecSpec(
        names, tags, sources, list(requests), options, num_docs, qrels_source, baseline,
        rel_format,
    )


def _run_part(part: Any, name: str, source: str, duplicates: str, queries: Vocabulary,
              docs: Vocabulary) -> Run:  # fmt: skip
    """A run's part of one partition — a Parquet file, or a Spark partition's rows (an
    Arrow table; ``source`` names the frame) — read as `rankscope.read_run` reads a
    frame."""
    if is_frame(part):
        return frames.run_from_frame(part, frames.RUN_COLUMNS, name, queries, docs, duplicates,
                                     source=source)  # fmt: skip
    return frames.run_from_frame(
        frames.read_parquet(part), frames.RUN_COLUMNS, name, queries, docs, duplicates,
        source=str(part),
    )  # fmt: skip


def trec_files(qrels_part: Any, judgments: Any, files: list[Any], spec: TrecSpec,
               duplicates: str) -> Any:  # fmt: skip
    """The task of one partition of Parquet datasets (its files, read on the worker) or of
    Spark DataFrames (its rows, Arrow tables), then `trec_kernel`.  ``judgments``: the whole
    judgments table when they are not partitioned (the partition's queries are taken from
    it)."""
    pa = pyarrow()
    import pyarrow.compute as pc

    queries, docs = Vocabulary(), Vocabulary()
    sources = dict(zip(spec.run_names, spec.run_sources, strict=True))
    told: list[str] = []  # the readers' warnings
    run_list = partition_runs(
        spec, files, queries, docs,
        lambda part, name: read_part(
            lambda: _run_part(part, name, sources[name], duplicates, queries, docs),
            part, sources[name], sources[name], told,
        ),
    )  # fmt: skip
    if qrels_part is not None:
        frame = qrels_part if is_frame(qrels_part) else frames.read_parquet(qrels_part)
        source = spec.qrels_source if is_frame(qrels_part) else qrels_part
        qrels = read_part(
            lambda: frames.qrels_from_frame(frame, queries=queries, docs=docs, source=source),
            qrels_part, source, source, told,
        )  # fmt: skip
        table = judgments_table(qrels)
    elif judgments is not None:
        ranked = sorted({q for r in run_list for q in r.queries.strings_of(np.unique(r.query))})
        table = judgments.filter(pc.is_in(judgments.column("query"), pa.array(ranked, pa.string())))
    else:
        none = np.zeros(0, dtype=np.int32)
        table = judgments_table(Qrels(queries, docs, none, none, np.zeros(0, dtype=np.int64)))
    return with_warnings(trec_kernel(table, runs_table(run_list), spec), told)


def _spark_trec(partition: int, tables: dict[str, Any], judgments: Any, runs: int,
                spec: TrecSpec, duplicates: str) -> Any:  # fmt: skip
    """The task of one Spark partition of runs (``run0``, ``run1``...) and judgments given
    as Spark DataFrames (``qrels``; else ``judgments``, read whole): `trec_files` of its
    rows."""
    qrels = tables.get("qrels")
    files = [tables[f"run{i}"] if tables[f"run{i}"].num_rows else None for i in range(runs)]
    return trec_files(qrels if qrels is not None and qrels.num_rows else None,
                      judgments, files, spec, duplicates)  # fmt: skip


def _spark_trec_frame(frame: Any, roles: Mapping[str, str], source: str) -> Any:
    """A Spark DataFrame of a run or of judgments with the columns of ``roles``
    (`rankscope.read.frames.RUN_COLUMNS`, `QRELS_COLUMNS`)."""
    import pyspark.sql.functions as F

    query, doc, value = frames.role_columns(roles, None)
    missing = [c for c in (query, doc, value) if c not in frame.columns]
    if missing:
        raise InputError(
            f"{source}: missing column(s) {', '.join(map(repr, missing))}; columns are "
            f"{', '.join(map(repr, frame.columns))}"
        )
    return frame.select(F.col(query), F.col(doc), F.col(value))


def evaluate_in_place(
    engine: Engine,
    judgments: Qrels | Prefs | GroupedQrels | Partitioned | Any,
    runs: Sequence[tuple[str, Any]],
    requests: Sequence[Request],
    options: JoinOptions,
    num_docs: int = 0,
    duplicates: str = "error",
    no_common_query: str = "warn",
    baseline: str | None = None,
    rel_format: str = "qrels",
) -> list[RunEvaluation]:
    """Runs partitioned by query — `Partitioned` datasets read by the workers, or Spark
    DataFrames (`frames.RUN_COLUMNS`) partitioned by Spark — against judgments read on the
    client or partitioned alike (a `Partitioned` dataset, its files matched to the runs'
    by their path inside the directory; a Spark DataFrame, `frames.QRELS_COLUMNS`);
    ``no_common_query="error"``: a run that ranks no judged query is an `InputError`."""
    spark = is_spark_frame(runs[0][1])
    whole, source = None, spark_source("qrels")
    if isinstance(judgments, Partitioned):
        source = str(judgments.path)
    elif not is_spark_frame(judgments):
        whole, source = judgments, judgments.source
    if (isinstance(judgments, Partitioned) and spark) or (is_spark_frame(judgments) and not spark):
        raise UsageError(
            "the judgments and the runs must be partitioned alike: Partitioned datasets, or "
            "Spark DataFrames (or the judgments read whole)"
        )
    spec = _trec_spec(runs, requests, options, num_docs, source, baseline, rel_format)
    shared = None
    if whole is not None:
        if isinstance(whole, Qrels):
            warn_if_nothing_relevant(whole, options.relevance_level)
        shared = engine.held(judgments_table(whole))
    if spark:
        spark_frames = {
            f"run{i}": _spark_trec_frame(f, frames.RUN_COLUMNS, spec.run_sources[i])
            for i, (_, f) in enumerate(runs)
        }  # fmt: skip
        if whole is None:
            spark_frames["qrels"] = _spark_trec_frame(judgments, frames.QRELS_COLUMNS, source)
        key = frames.role_columns(frames.RUN_COLUMNS, None)[0]
        outputs = engine.grouped(  # type: ignore[attr-defined]
            spark_frames, key, _spark_trec, shared, len(runs), spec, duplicates
        )
    else:
        files = [p.files() for _, p in runs]
        judged_files = judgments.files() if isinstance(judgments, Partitioned) else None
        keys = sorted(set().union(*files, judged_files or {}))
        tasks = [
            (
                trec_files, None if judged_files is None else judged_files.get(k), shared,
                [listed.get(k) for listed in files], spec, duplicates,
            )
            for k in keys
        ]  # fmt: skip
        outputs = engine.run(tasks)
    if whole is not None:  # judged queries no partition ranks: evaluated against no rows
        seen = {q for t in outputs for q in metadata(t)["queries"]}
        left = [c for c, s in enumerate(whole.queries.strings) if s not in seen]
        rows = np.flatnonzero(np.isin(whole.query, np.array(left, dtype=np.int64)))
        if len(rows):
            outputs += engine.run([(trec_kernel, judgments_table(whole, rows), empty_runs(), spec)])
    results = trec_results(outputs, spec)
    if no_common_query == "error":
        for res, source in zip(results, spec.run_sources, strict=True):
            if not len(res.missing) or res.missing.all():
                raise InputError(
                    f"{source}: the run shares no query with the judgments {spec.qrels_source}"
                )
    return results


