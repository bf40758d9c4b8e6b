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
    parser.add_argument("--one", choices=["local", "dask", "dask-client"], help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(args)
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
