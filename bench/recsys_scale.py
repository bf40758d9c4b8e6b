"""A recommender log at scale: top-N measures at k = 10, one process and a Dask LocalCluster.

    python bench/recsys_scale.py                        # the 10M rows and the 100M rows
    python bench/recsys_scale.py --big /path/recsys-100m --small-partitions 5,10 --workers 2

Data: the 100M-interaction log of ``generate_recsys.py`` (1M users, 100k items, 50
partitions; ``--big``, default ``bench/data/recsys-100m``; generate it first, it is not made
here) and 10M-interaction logs (100k users, 100k items) in ``--small-partitions`` partitions,
generated under ``--small-root`` when missing (a few seconds each).

Each row is one fresh process (``--one``), timed inside it:

* ``local``: rankscope's local recsys path, ``rankscope.evaluate_recsys_systems(test,
  {"recs": recs}, MEASURES)`` on the two datasets read whole by ``pyarrow.dataset`` into
  Arrow tables (the local readers take a Parquet file or a table, not a directory of
  partitions).  Only for
  the 10M logs: it holds every interaction and its interned ids in one process (6.4 GB at
  10M, so ~65 GB at 100M, more than this machine's 24 GB).
* ``dask``: a ``distributed.LocalCluster(n_workers=W, threads_per_worker=1,
  processes=True)``, then ``evaluate_recsys_systems(Partitioned(test), {"recs":
  Partitioned(recs)}, MEASURES, backend="dask")``: each worker reads its partitions in place.

Figures: wall time of the evaluation call (``read+eval``: the local row's Parquet read plus
the call; the cluster's start-up apart, as ``start``), peak RSS of the client process
(``ru_maxrss``; with a LocalCluster the scheduler runs in it too) and of each worker
process (psutil, sampled every 20 ms in a thread).  Every row's summaries and per-user
values are hashed (``float.hex`` of each) and the rows of the same dataset compared: ``==``
means the same bits as the dataset's first row (the local one, when it runs).  The 10M logs
in 5, 10 and 20 partitions are three different logs (each partition has its own seed).
Prints; asserts nothing.

Against MS Recommenders (``--spark``, issue 25): the 100M log (``--big``) with the measures
both tools have, P@10, Recall@10, nDCG@10 and MAP@10 (Spark's ``meanAveragePrecisionAt``:
``MAP(denominator=min)@10`` here), every test interaction relevant (``threshold=None``, as
``SparkRankingEvaluation`` takes its ground truth), each row a fresh process:

* ``local``: the one-process path on the two datasets read whole (as above);
* ``dask``: a 2-worker ``LocalCluster`` reading the ``Partitioned`` datasets;
* ``spark``: a ``local[2]`` session (``--spark-memory`` for the driver's JVM, which in local
  mode is the executor too), ``backend="spark"`` on the ``Partitioned`` datasets: the Dask
  row's tasks run by Spark;
* ``spark-frames``: the same session, the datasets as Spark DataFrames
  (``spark.read.parquet``), ``backend="spark"``: grouped by user by Spark;
* ``recommenders``: MS Recommenders' ``SparkRankingEvaluation`` on the same DataFrames and
  session settings, its four metrics (``--recommenders-python``: an interpreter with
  ``recommenders`` and ``pyspark``; rankscope is not imported there).

Memory per process: every process of the row's tree (the Python driver, the JVM, Spark's
Python workers, Dask's workers) sampled by psutil every 20 ms; the peak of each.

The IR part (``--trec``, issue 24): one TREC run file of 1M and of 7M lines (``generate.py``:
1,000 and 7,000 queries x 1,000; made under ``--small-root`` when missing), trec_eval's
small set (AP, nDCG, P@10, RR, nDCG@10), rows as above: ``local`` with ``--jobs`` 1 and 2
(``evaluate_many(qrels, run, jobs=J)``), ``dask`` on ``--workers`` (``backend="dask"``: the
workers read the run file's blocks themselves) and ``dask-client`` (the run read on the
client first, ``{name: read_run(path)}``, then split by query: the path run files took
before issue 24).  ``==``: the same summaries and per-query values (bits) as ``local``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
MEASURES = ["P@10", "Recall@10", "nDCG@10", "HitRate@10", "MRR@10", "MAP@10"]
SAMPLE_SECONDS = 0.02


def digest(results: list[Any]) -> tuple[dict[str, str], str]:
    """The summaries (as float.hex) and one hash over the users and per-user values."""
    import numpy as np

    (system,) = results
    h = hashlib.sha256("\n".join(system.user_ids).encode())
    for label, values in zip(system.labels, system.values, strict=True):
        h.update(label.encode())
        if values.per_user is not None:
            h.update(np.ascontiguousarray(values.per_user, dtype=np.float64).tobytes())
    summary = {label: float(v).hex() for label, v in system.summary.items()}
    return summary, h.hexdigest()


class Sampler:
    """Peak RSS of some processes, sampled in a background thread."""

    def __init__(self, pids: dict[str, int]) -> None:
        import psutil

        self.procs = {name: psutil.Process(pid) for name, pid in pids.items()}
        self.peak = dict.fromkeys(pids, 0)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        while not self.stop.is_set():
            for name, proc in self.procs.items():
                try:
                    rss = proc.memory_info().rss
                except Exception:  # noqa: BLE001 - a worker that has gone: keep its peak
                    continue
                self.peak[name] = max(self.peak[name], rss)
            self.stop.wait(SAMPLE_SECONDS)

    def __enter__(self) -> Sampler:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


def one_local(data: Path) -> dict[str, Any]:
    import pyarrow.dataset as ds

    from rankscope import evaluate_recsys_systems

    started = time.perf_counter()
    test = ds.dataset(data / "interactions", format="parquet").to_table()
    recs = ds.dataset(data / "recommendations", format="parquet").to_table()
    read = time.perf_counter() - started
    results = evaluate_recsys_systems(test, {"recs": recs}, MEASURES)
    elapsed = time.perf_counter() - started
    summary, hashed = digest(results)
    return {"seconds": elapsed, "read": read, "summary": summary, "hash": hashed,
            "users": len(results[0].user_ids)}  # fmt: skip


def on_cluster(workers: int, evaluate: Callable[[], list[Any]]) -> tuple[list[Any], dict]:
    """``evaluate()`` with a fresh ``LocalCluster`` of ``workers`` as the current client: its
    results, and its wall time, the cluster's start-up and the workers' peaks."""
    from distributed import Client, LocalCluster

    started = time.perf_counter()
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=None)  # fmt: skip
    client = Client(cluster)
    start = time.perf_counter() - started
    try:
        pids = client.run(os.getpid)
        with Sampler(pids) as sampler:
            began = time.perf_counter()
            results = evaluate()
            elapsed = time.perf_counter() - began
    finally:
        client.close()
        cluster.close()
    return results, {"seconds": elapsed, "start": start,
                     "worker_peaks": sorted(sampler.peak.values())}  # fmt: skip


def one_dask(data: Path, workers: int) -> dict[str, Any]:
    from rankscope import evaluate_recsys_systems
    from rankscope.scale import Partitioned

    results, out = on_cluster(workers, lambda: evaluate_recsys_systems(
        Partitioned(data / "interactions"), {"recs": Partitioned(data / "recommendations")},
        MEASURES, backend="dask",
    ))  # fmt: skip
    summary, hashed = digest(results)
    return {**out, "summary": summary, "hash": hashed, "users": len(results[0].user_ids)}


#: The measures rankscope and MS Recommenders' `SparkRankingEvaluation` both have (Spark's
#: MAP@k divides by min(k, relevant)).
SPARK_MEASURES = ["P@10", "Recall@10", "nDCG@10", "MAP(denominator=min)@10"]
RECOMMENDERS_METRICS = ["precision_at_k", "recall_at_k", "ndcg_at_k", "map_at_k"]


class TreeSampler(Sampler):
    """Peak RSS of this process and of every process it starts (found as they appear)."""

    def __init__(self) -> None:
        super().__init__({"driver": os.getpid()})
        self.names: dict[int, str] = {os.getpid(): "driver"}
        self.by_pid: dict[int, int] = {}

    def run(self) -> None:
        import psutil

        me = psutil.Process()
        while not self.stop.is_set():
            for proc in [me, *me.children(recursive=True)]:
                try:
                    rss = proc.memory_info().rss
                    if self.names.get(proc.pid) not in ("jvm", "spark-worker", "worker",
                                                         "driver"):  # (a script may exec java)
                        line = " ".join(proc.cmdline())
                        name = proc.name()
                        self.names[proc.pid] = (
                            "jvm" if name == "java" else
                            "spark-worker" if "pyspark" in line and "python" in name else
                            "worker" if "python" in name else name
                        )  # fmt: skip
                except Exception:  # noqa: BLE001 - a process that has gone: keep its peak
                    continue
                self.by_pid[proc.pid] = max(self.by_pid.get(proc.pid, 0), rss)
            self.stop.wait(SAMPLE_SECONDS)

    def peaks(self) -> dict[str, list[int]]:
        """Peak RSS by kind of process (each process's own), largest first; helpers under
        20 MB (shells, ``ps``, the JVM's spawn helper) left out."""
        out: dict[str, list[int]] = {}
        for pid, peak in self.by_pid.items():
            if peak < 20 * 2**20:
                continue
            out.setdefault(self.names.get(pid, "?"), []).append(peak)
        return {k: sorted(v, reverse=True) for k, v in out.items()}


def spark_session(memory: str) -> Any:
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]").appName("recsys-scale")
        .config("spark.driver.memory", memory).config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false").getOrCreate()
    )  # fmt: skip
    session.sparkContext.setLogLevel("ERROR")
    return session


def one_versus(data: Path, mode: str, memory: str) -> dict[str, Any]:
    """One row of ``--spark``, timed and sampled in this process."""
    with TreeSampler() as sampler:
        started = time.perf_counter()
        if mode == "recommenders":
            values = _recommenders(data, spark_session(memory))
            start, seconds = None, time.perf_counter() - started
        else:
            values, start, seconds = _rankscope_versus(data, mode, memory)
    return {"seconds": seconds, "start": start, "values": values, "peaks": sampler.peaks()}


def _recommenders(data: Path, session: Any) -> dict[str, str]:
    from recommenders.evaluation.spark_evaluation import SparkRankingEvaluation

    test = session.read.parquet(str(data / "interactions"))
    recs = session.read.parquet(str(data / "recommendations"))
    found = SparkRankingEvaluation(test, recs, k=10, col_user="user", col_item="item",
                                   col_rating="rating", col_prediction="score")  # fmt: skip
    pairs = zip(SPARK_MEASURES, RECOMMENDERS_METRICS, strict=True)
    return {m: getattr(found, name)().hex() for m, name in pairs}


def _rankscope_versus(data: Path, mode: str, memory: str) -> tuple[dict[str, str], Any, float]:
    from rankscope import evaluate_recsys_systems
    from rankscope.scale import Partitioned

    options: dict[str, Any] = {"threshold": None}
    start = None
    if mode == "local":
        import pyarrow.dataset as ds

        began = time.perf_counter()
        test: Any = ds.dataset(data / "interactions", format="parquet").to_table()
        recs: Any = ds.dataset(data / "recommendations", format="parquet").to_table()
    elif mode == "dask":
        from distributed import Client, LocalCluster

        began = time.perf_counter()
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               dashboard_address=None)  # fmt: skip
        options.update(backend="dask", scheduler=Client(cluster))
        start = time.perf_counter() - began
        began = time.perf_counter()
        test, recs = Partitioned(data / "interactions"), Partitioned(data / "recommendations")
    else:
        began = time.perf_counter()
        session = spark_session(memory)
        options.update(backend="spark", scheduler=session)
        start = time.perf_counter() - began
        began = time.perf_counter()
        if mode == "spark":
            test, recs = Partitioned(data / "interactions"), Partitioned(data / "recommendations")
        else:
            test = session.read.parquet(str(data / "interactions"))
            recs = session.read.parquet(str(data / "recommendations"))
    (found,) = evaluate_recsys_systems(test, {"recs": recs}, SPARK_MEASURES, **options)
    seconds = time.perf_counter() - began
    return {k: float(v).hex() for k, v in found.summary.items()}, start, seconds


def versus_main(args: argparse.Namespace) -> None:
    """The ``--spark`` rows: local, Dask, Spark (files and DataFrames), MS Recommenders."""
    print(f"measures: {', '.join(SPARK_MEASURES)} (threshold=None); {os.cpu_count()} cores; "
          f"{args.big}")  # fmt: skip
    rows = [m for m in args.spark.split(",") if m]
    first: dict[str, str] | None = None
    for mode in rows:
        python = args.recommenders_python if mode == "recommenders" else sys.executable
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), PYSPARK_PYTHON=python)
        command = [python, __file__, "--one", mode, "--data", str(args.big), "--versus",
                   "--spark-memory", args.spark_memory]  # fmt: skip
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(f"{mode:<13} failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        values = {k: float.fromhex(v) for k, v in r["values"].items()}
        if first is None and mode != "recommenders":
            first = r["values"]
        same = "-"
        if first is not None:
            if mode == "recommenders":
                gap = max(abs(values[k] - float.fromhex(first[k])) for k in values)
                same = f"max |diff| {gap:.1e}"
            else:
                same = "==" if r["values"] == first else "DIFFERENT"
        peaks = "; ".join(f"{kind} {' '.join(mb(p) for p in ps[:3])}"
                          for kind, ps in sorted(r["peaks"].items()))  # fmt: skip
        start = f"{r['start']:.1f}" if r.get("start") is not None else "-"
        shown = " ".join(f"{values[k]:.6f}" for k in SPARK_MEASURES)
        print(f"{mode:<13} start {start:>5} s  eval {r['seconds']:7.1f} s  {shown}  {same}  "
              f"peak MB: {peaks}", flush=True)  # fmt: skip


TREC_MEASURES = ["AP", "nDCG", "P@10", "RR", "nDCG@10"]  # run.py's "small" set
TREC_SIZES = {"1M": 1000, "7M": 7000}  # queries x 1,000 lines


def trec_digest(results: list[Any]) -> tuple[dict[str, str], str]:
    """`digest` of a TREC evaluation: summaries as float.hex, one hash over the rest."""
    import numpy as np

    (run,) = results
    h = hashlib.sha256("\n".join(run.query_ids).encode())
    for values in run.values:
        h.update(np.ascontiguousarray(values, dtype=np.float64).tobytes())
    summary = {r.label: float(v).hex() for r, v in zip(run.requests, run.summary, strict=True)}
    return summary, h.hexdigest()


def one_trec(data: Path, mode: str, workers: int) -> dict[str, Any]:
    """One TREC row (``--trec``) in this process: ``local`` (``workers`` = jobs), ``dask``,
    ``dask-client``."""
    import rankscope

    qrels, run = str(data / "qrels.txt"), str(data / "run.1.txt")
    if mode == "local":
        began = time.perf_counter()
        results = rankscope.evaluate_many(qrels, run, TREC_MEASURES, jobs=workers)
        elapsed = time.perf_counter() - began
        forked = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # the largest
        return {"seconds": elapsed, "result": trec_digest(results),
                "worker_peaks": [forked] if workers > 1 else []}  # fmt: skip

    def evaluate() -> list[Any]:  # (dask-client: the run read in the timed call, as before)
        runs: Any = run if mode == "dask" else {"run.1": rankscope.read_run(run)}
        return rankscope.evaluate_many(qrels, runs, TREC_MEASURES, backend="dask")

    results, out = on_cluster(workers, evaluate)
    return {**out, "result": trec_digest(results)}


def ensure_trec(root: Path, size: str) -> Path:
    out = root / f"trec-{size.lower()}"
    if not (out / "run.1.txt").exists():
        subprocess.run(
            [sys.executable, str(BENCH / "generate.py"), "--queries", str(TREC_SIZES[size]),
             "--out", str(out)],
            check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
    return out


def trec_main(args: argparse.Namespace) -> None:
    """The ``--trec`` rows: each size with every mode, each row a fresh process."""
    workers = [int(w) for w in args.workers.split(",")]
    rows = [("local", 1), ("local", 2)] + [(m, w) for w in workers for m in ("dask", "dask-client")]
    print(f"measures: {', '.join(TREC_MEASURES)}; {os.cpu_count()} cores")
    print(f"{'run':>4} {'path':<12} {'jobs/workers':>12} {'start s':>8} {'eval s':>7} "
          f"{'client MB':>9} {'peak MB per worker':>20}  same")  # fmt: skip
    for size in args.trec.split(","):
        data = ensure_trec(args.small_root, size)
        first = None
        for mode, w in rows:
            r = run_row(mode, data, w)
            if "error" in r:
                print(f"{size:>4} {mode:<12} {w:>12}  failed: {r['error']}")
                continue
            key = json.dumps(r["result"])
            first = key if first is None else first
            peaks = " ".join(mb(p) for p in r.get("worker_peaks", [])) or "-"
            start = f"{r['start']:.1f}" if "start" in r else "-"
            print(f"{size:>4} {mode:<12} {w:>12} {start:>8} {r['seconds']:>7.2f} "
                  f"{mb(r['client_peak']):>9} {peaks:>20}  "
                  f"{'==' if key == first else 'DIFFERENT'}", flush=True)  # fmt: skip


def one(args: argparse.Namespace) -> None:
    import warnings

    warnings.simplefilter("ignore")  # users without relevant items: told, and expected here
    data = Path(args.data)
    if args.versus:
        out = one_versus(data, args.one, args.spark_memory)
        print(json.dumps(out))
        return
    if (data / "run.1.txt").exists():  # a --trec row
        out = one_trec(data, args.one, int(args.workers))
    elif args.one == "local":
        out = one_local(data)
    else:
        out = one_dask(data, int(args.workers))
    out["client_peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps(out))


def ensure_small(root: Path, partitions: int) -> Path:
    out = root / f"recsys-10m-p{partitions}"
    if not (out / "dataset.json").exists():
        subprocess.run(
            [sys.executable, str(BENCH / "generate_recsys.py"), "--users", "100000",
             "--items", "100000", "--interactions", "10000000",
             "--partitions", str(partitions), "--out", str(out)],
            check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
    return out


def run_row(mode: str, data: Path, workers: int) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    command = [sys.executable, __file__, "--one", mode, "--data", str(data),
               "--workers", str(workers)]  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def mb(n: float) -> str:
    return f"{n / 2**20:,.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--big",
        type=Path,
        default=BENCH / "data" / "recsys-100m",
        help="the 100M log (generate_recsys.py; default bench/data/recsys-100m)",
    )
    parser.add_argument(
        "--small-root",
        type=Path,
        default=BENCH / "data",
        help="where the 10M logs are (made when missing)",
    )
    parser.add_argument("--small-partitions", default="5,10,20")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--no-local", action="store_true", help="skip the one-process row")
    parser.add_argument(
        "--trec", help="the IR rows instead, on these run sizes (1M,7M): local --jobs 1/2, Dask"
    )
    parser.add_argument(
        "--spark", nargs="?", const="local,dask,spark,spark-frames,recommenders",
        help="the rows against MS Recommenders on --big instead (default all: local, dask, "
             "spark, spark-frames, recommenders)",
    )  # fmt: skip
    parser.add_argument("--spark-memory", default="8g", help="the Spark driver's JVM heap (8g)")
    parser.add_argument("--recommenders-python", default=sys.executable,
                        help="a Python with recommenders and pyspark, for that row")  # fmt: skip
    parser.add_argument("--one", choices=["local", "dask", "dask-client", "spark", "spark-frames",
                                          "recommenders"], help=argparse.SUPPRESS)  # fmt: skip
    parser.add_argument("--versus", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(args)
        return
    if args.spark:
        versus_main(args)
        return
    if args.trec:
        trec_main(args)
        return
    workers = [int(w) for w in args.workers.split(",")]
    rows: list[tuple[str, Path, str, int]] = []  # (log, data, mode, workers)
    small = [ensure_small(args.small_root, int(p)) for p in args.small_partitions.split(",")]
    for d in small:
        rows += [] if args.no_local else [("10M", d, "local", 1)]
        rows += [("10M", d, "dask", w) for w in workers]
    if (args.big / "dataset.json").exists():
        rows += [("100M", args.big, "dask", w) for w in workers]
    else:
        print(f"({args.big} missing: no 100M rows; see generate_recsys.py)")
    print(f"measures: {', '.join(MEASURES)}; {os.cpu_count()} cores")
    header = (f"{'log':>5} {'parts':>5} {'path':<8} {'workers':>7} {'start s':>8} "
              f"{'read+eval s':>11} {'client MB':>9} {'peak MB per worker':>20}  same")  # fmt: skip
    print(header)
    first: dict[Path, tuple[dict[str, str], str]] = {}
    for log, data, mode, w in rows:
        parts = len(json.loads((data / "dataset.json").read_text())["parts"])
        r = run_row(mode, data, w)
        if "error" in r:
            print(f"{log:>5} {parts:>5} {mode:<8} {w:>7}  failed: {r['error']}")
            continue
        key = (r["summary"], r["hash"])
        reference = first.setdefault(data, key)
        same = "==" if key == reference else "DIFFERENT"
        peaks = " ".join(mb(p) for p in r.get("worker_peaks", [])) or "-"
        start = f"{r['start']:.1f}" if "start" in r else "-"
        print(f"{log:>5} {parts:>5} {mode:<8} {w if mode == 'dask' else '-':>7} {start:>8} "
              f"{r['seconds']:>11.1f} {mb(r['client_peak']):>9} {peaks:>20}  {same}",
              flush=True)  # fmt: skip
    for data, (summary, _) in first.items():
        values = ", ".join(f"{k} {float.fromhex(v):.4f}" for k, v in summary.items())
        print(f"{data.name}: {values}")


if __name__ == "__main__":
    main()
