"""Time preference computation (all pairs of runs, every query) at two scales.

    python bench/preferences.py

1. CLEF eHealth 2016 (16 real runs x 50 queries, graded): time to compute each method from
   the relevance table, and end to end (reading the 16 files included).  The authors'
   pref_eval takes 4.0 s for this on the development machine (issue 3).
2. A synthetic collection of the RPP paper's Robust04 shape: 110 runs x 250 queries with
   about 70 relevant documents each (seeded), built directly as a relevance table; the
   target is <= 1 s per method.
3. Offline interleaving (OI, team draft and balanced) on the eHealth runs from a table that
   keeps whole rankings, and end to end from the files (issue 16: target <= 2 s);
   ``--reference`` also times the original pair-by-pair computation (tests/oi_reference.py,
   about half a minute).
4. ``--runs-dir DIR``: ``rankscope prefer -m OI`` (team draft, uniform) on the first 10, 25,
   50, 100 runs (``--sizes``) of a generated collection (``python bench/generate.py --queries
   250 --runs 100 --runs-folder --out DIR``), each a whole process (reading included) timed
   as bench/run.py times its tools (wall, CPU, peak memory; best of ``--repeat``), beside
   ``rankscope prefer -m RPP`` on the same files; with ``--before SRC`` also OI from the tree
   at SRC (e.g. the commit before a change) in the same run, its JSON output checked
   byte-identical.

Prints wall times; asserts nothing.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import rankscope
from rankscope.judge import relevance_table
from rankscope.judge.relevance import NOT_RETRIEVED, RelevanceTable

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "clef_ehealth2016"
METHODS = ["RPP", "dcgRPP", "invRPP", "gRPP", "lexiprecision", "lexirecall"]


def synthetic(runs: int, queries: int, relevant: int, depth: int, seed: int) -> RelevanceTable:
    """Runs of varying quality: each relevant document is retrieved with a probability that
    grows with run quality, at a rank drawn from a quality-dependent geometric law."""
    rng = np.random.default_rng(seed)
    quality = rng.uniform(0.2, 0.9, size=runs)
    grades, ranks = [], []
    for _ in range(queries):
        m = max(1, int(rng.poisson(relevant)))
        grades.append(rng.choice([1, 2], size=m, p=[0.7, 0.3]))
        found = rng.random((runs, m)) < quality[:, None]
        position = np.minimum(rng.geometric(0.02 * quality[:, None] + 0.002, size=(runs, m)), depth)
        # distinct ranks within a run: break collisions by the document's index
        r = np.argsort(np.argsort(position * m + np.arange(m), axis=1), axis=1) + 1
        r = np.sort(position, axis=1)[np.arange(runs)[:, None], r - 1] + (r - 1)
        ranks.append(np.where(found, r, NOT_RETRIEVED).astype(np.int64))
    names = [f"run{i:03d}" for i in range(runs)]
    return RelevanceTable(names, [f"q{i}" for i in range(queries)], grades, ranks, 1)


def timed(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=2022)
    parser.add_argument(
        "--reference", action="store_true", help="also time the original OI computation"
    )
    parser.add_argument("--runs-dir", type=Path, help="a generated collection: OI on many runs")
    parser.add_argument("--sizes", default="10,25,50,100", help="numbers of runs (--runs-dir)")
    parser.add_argument("--before", type=Path, help="--runs-dir: also OI from this src tree")
    parser.add_argument("--repeat", type=int, default=1, help="--runs-dir: best of N runs")
    args = parser.parse_args()
    warnings.simplefilter("ignore", rankscope.RankscopeWarning)
    if args.runs_dir:
        many_runs(args.runs_dir, [int(n) for n in args.sizes.split(",")], args.before, args.repeat)
        return
    runs = sorted(glob.glob(str(DATA / "runs" / "*.txt.gz")))
    if runs:
        qrels = rankscope.read_qrels(DATA / "task2.qrels")
        named = {Path(p).name.removesuffix(".txt.gz"): p for p in runs}
        t = time.perf_counter()
        from rankscope.read.sources import resolve_runs

        table = relevance_table(qrels, resolve_runs(named, qrels, "error"))
        build = time.perf_counter() - t
        print(f"CLEF eHealth 2016: {table.num_runs} runs x {table.num_queries} queries")
        print(f"  read 16 runs + build the relevance table: {build:.3f} s")
        for method in METHODS:
            s = timed(lambda m=method: rankscope.preferences(qrels, None, m, table=table))
            print(f"  {method:14s} {s * 1000:8.1f} ms   (pref_eval: 4.0 s for the lot, graded)")
        end = timed(lambda: rankscope.preferences(DATA / "task2.qrels", named, "gRPP"), 1)
        print(f"  gRPP end to end from the files: {end:.3f} s")
        offline_interleaving(qrels, named, args.reference)
    else:
        print(f"{DATA} not found: skipping the CLEF eHealth part")
    table = synthetic(110, 250, 70, 1000, args.seed)
    sizes = [len(g) for g in table.grades]
    print(f"synthetic Robust04 shape: 110 runs x 250 queries, {np.mean(sizes):.1f} relevant/query")
    for method in METHODS:
        s = timed(lambda m=method: rankscope.preferences(None, None, m, table=table), 1)
        print(f"  {method:14s} {s:8.3f} s   (target <= 1 s)")


def offline_interleaving(qrels, named: dict, reference: bool) -> None:
    """OI from a table keeping whole rankings, end to end, and optionally pair by pair."""
    from rankscope.read.sources import resolve_runs

    table = relevance_table(qrels, resolve_runs(named, qrels, "error"), keep_rankings=True)
    for spec in ("OI", "OI(interleaving=balanced)"):
        s = timed(lambda m=spec: rankscope.preferences(None, None, m, table=table), 3)
        end = timed(lambda m=spec: rankscope.preferences(DATA / "task2.qrels", named, m), 1)
        print(f"  {spec:26s} {s:6.3f} s from the table, {end:6.3f} s end to end (target <= 2 s)")
        if reference:
            sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
            from oi_reference import reference_matrix

            method = "balanced" if "balanced" in spec else "team-draft"
            t = time.perf_counter()
            for q in range(table.num_queries):
                reference_matrix(table.rankings[q], table.judgments[q], method=method)
            print(f"  {spec:26s} {time.perf_counter() - t:6.1f} s pair by pair (the original)")


def many_runs(folder: Path, sizes: list[int], before: Path | None, repeat: int) -> None:
    """``prefer -m OI`` on the first N runs of a generated collection, as whole processes,
    beside RPP and (``before``) OI from another tree, whose output must be identical."""
    from run import Sample, ToolFailed, run_once

    src = Path(__file__).resolve().parent.parent / "src"
    here = {**os.environ, "PYTHONPATH": str(src)}
    then = None if before is None else {**os.environ, "PYTHONPATH": str(before)}
    paths = sorted((folder / "runs").glob("*.txt"))
    with open(folder / "qrels.txt") as qrels:
        queries = len({line.split()[0] for line in qrels})
    print(f"{folder}: rankscope prefer, whole processes, best of {repeat}")
    print(f"{'runs':>5}{'pairs x queries':>17}  {'row':<14}{'wall s':>9}{'CPU s':>8}{'peak MB':>9}"
          f"{'vs OI':>8}")  # fmt: skip
    for n in sizes:
        files = [str(p) for p in paths[:n]]
        cells = n * (n - 1) // 2 * queries
        rows = [("OI", "OI", here)]
        if then is not None:
            rows.append(("OI (before)", "OI", then))
        rows.append(("RPP", "RPP", here))
        best: dict[str, Sample] = {}
        for name, method, env in rows:
            command = [sys.executable, "-m", "rankscope", "prefer", "-m", method,
                       "--format", "json", str(folder / "qrels.txt"), *files]  # fmt: skip
            try:
                samples = [run_once(command, env) for _ in range(repeat)]
            except ToolFailed as failed:
                print(f"  {name}: failed: {failed}")
                continue
            best[name] = min(samples, key=lambda sample: sample.wall_s)
            b = best[name]
            ratio = f"{b.wall_s / best['OI'].wall_s:.2f}x" if "OI" in best else ""
            print(f"{n:>5}{cells:>17,d}  {name:<14}{b.wall_s:>9.1f}{b.cpu_s:>8.1f}"
                  f"{b.peak_mb:>9.0f}{ratio:>8}", flush=True)  # fmt: skip
        if "OI (before)" in best and "OI" in best:
            same = best["OI"].output == best["OI (before)"].output
            print(f"{'':>24}OI output {'identical' if same else 'DIFFERS'} to the byte")
        if n == 100 and "OI" in best:
            met = "met" if best["OI"].wall_s <= 30 else "NOT met"
            print(f"{'':>24}target: OI on 100 runs <= 30 s: {met}")


if __name__ == "__main__":
    main()
