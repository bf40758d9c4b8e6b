"""Discriminative power on real per-topic scores, and its cost.

    python bench/meta.py

1. ../shared/data/urbano_topic_by_system_scores: per-topic AP, P@10, RR of TREC ad hoc 5-8
   systems and nDCG@20, ERR@20 of Web 2010-2013 systems: discriminative power (alpha 0.05)
   under the paired t-test with Bonferroni correction and randomized Tukey HSD.
2. The 16 CLEF eHealth 2016 runs: AP, nDCG, RR and RPP, dcgRPP, invRPP, both tests, 10,000
   permutations, timed (target: <= 5 s for the six measures).
3. ``rankscope meta`` with its default settings on bench/generate.py's collections of
   ``--runs`` runs × 250 queries × 1,000 documents (issue 24's target: <= 60 s on 100 runs,
   memory flat in the number of runs), each a fresh process from this tree and from
   ``--baseline`` (a commit, default main before issue 24; `run.baseline_tree`), side by
   side: wall and CPU seconds, peak MB (run.py's harness), the ratios, and whether the two
   print the same bytes.

    python bench/meta.py --runs 10,20,40 --repeat 2 --skip-real
    python bench/meta.py --runs 20,40,100 --repeat 1 --skip-real --data bench/data/compare

Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import rankscope
from rankscope.stats.meta import POWER_TESTS, discriminative_power
from run import baseline_tree, run_once

BENCH = Path(__file__).resolve().parent
SHARED = BENCH.parent.parent / "shared" / "data"
#: main before issue 24's `meta` speed-up
BASELINE = "fb3a494"


def urbano() -> None:
    folder = SHARED / "urbano_topic_by_system_scores"
    files = sorted(folder.glob("*.csv"))
    if not files:
        print(f"{folder} not found: skipped")
        return
    print("TREC per-topic scores (systems x topics): discriminative power, alpha = 0.05")
    print(f"{'collection':<18}{'systems':>8}{'topics':>7}{'t+Bonf':>9}{'rand. HSD':>11}{'time':>8}")
    for path in files:
        scores = np.loadtxt(path, delimiter=",", skiprows=1).T  # systems x topics
        t = time.perf_counter()
        power = [
            discriminative_power(scores, test=test, permutations=10_000) for test in POWER_TESTS
        ]
        print(
            f"{path.stem:<18}{scores.shape[0]:>8}{scores.shape[1]:>7}"
            f"{power[0]:>9.3f}{power[1]:>11.3f}{time.perf_counter() - t:>7.1f}s"
        )


def clef() -> None:
    folder = SHARED / "clef_ehealth2016"
    runs = {
        Path(p).name.removesuffix(".txt.gz"): p
        for p in sorted(glob.glob(str(folder / "runs" / "*.gz")))
    }
    if not runs:
        print(f"{folder} not found: skipped")
        return
    from rankscope.read.sources import resolve_runs
    from rankscope.table.study import measure_data

    qrels = rankscope.read_qrels(folder / "task2.qrels")
    run_list = resolve_runs(runs, qrels, "error")
    measures = ["AP", "nDCG", "RR", "RPP", "dcgRPP", "invRPP"]
    datas = measure_data(qrels, run_list, measures)
    print("\nCLEF eHealth 2016, 16 runs x 50 queries: discriminative power, alpha = 0.05")
    total = 0.0
    for d in datas:
        t = time.perf_counter()
        power = [
            discriminative_power(d.data, test=test, permutations=10_000) for test in POWER_TESTS
        ]
        took = time.perf_counter() - t
        total += took
        print(
            f"  {d.name:<8} t+Bonferroni {power[0]:.3f}  "
            f"randomized HSD {power[1]:.3f}  ({took:.2f} s)"
        )
    print(f"  all six measures, both tests, 10,000 permutations: {total:.2f} s (target <= 5 s)")


def run_paths(data: Path, most: int) -> list[Path]:
    """The first ``most`` runs of ``data``: generate.py's ``run.N.txt`` (generated when
    missing), or a collection's ``runs/`` folder (``bench/data/compare``'s run.NNN.txt, in
    name order)."""
    if (data / "runs").is_dir():
        runs = sorted((data / "runs").glob("run.*.txt"))
        if len(runs) < most:
            raise SystemExit(f"{data / 'runs'} has {len(runs)} runs, not {most}")
        return runs[:most]
    if not (data / f"run.{most}.txt").exists():
        print(f"generating {data} ({most} runs) ...", flush=True)
        subprocess.run(
            [sys.executable, str(BENCH / "generate.py"), "--queries", "250", "--depth", "1000",
             "--runs", str(most), "--out", str(data)], check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
    return [data / f"run.{i}.txt" for i in range(1, most + 1)]


def scaling(sizes: list[int], baseline: str, repeat: int, data: Path) -> None:
    """`rankscope meta` (default settings) on ``sizes`` runs, this tree against ``baseline``."""
    most = max(sizes)
    every_run = run_paths(data, most)
    print(f"\nrankscope meta, default settings, N runs x 250 queries x 1,000; best of {repeat}")
    print("| runs | tree | wall s | CPU s | peak MB | baseline / this tree: wall | CPU | memory "
          "| same |")  # fmt: skip
    print("|---:|---|---:|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as folder:
        old_src = baseline_tree(baseline, Path(folder))
        trees = {"baseline": old_src, "this tree": BENCH.parent / "src"}
        for n in sizes:
            runs = [str(path) for path in every_run[:n]]
            files = [str(data / "qrels.txt"), *runs]
            command = [sys.executable, "-m", "rankscope", "meta", "--quiet", *files]
            best = {}
            for tree, src in trees.items():
                env = {**os.environ, "PYTHONPATH": str(src)}
                best[tree] = min((run_once(command, env) for _ in range(repeat)),
                                 key=lambda sample: sample.wall_s)  # fmt: skip
            old, new = best["baseline"], best["this tree"]
            for tree, sample in best.items():
                ratios = (
                    f"{old.wall_s / new.wall_s:.2f}× | {old.cpu_s / new.cpu_s:.2f}× | "
                    f"{old.peak_mb / new.peak_mb:.2f}× | "
                    f"{'yes' if old.output == new.output else 'NO'}"
                    if sample is new else " | | | "
                )
                print(f"| {n} | {tree} | {sample.wall_s:.1f} | {sample.cpu_s:.1f} | "
                      f"{sample.peak_mb:.0f} | {ratios} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", default="10,20,40", help="run counts of part 3 (0: skip it)")
    parser.add_argument("--repeat", type=int, default=2, help="timed runs per row (best)")
    parser.add_argument("--baseline", default=BASELINE, help=f"commit (default {BASELINE})")
    parser.add_argument("--skip-real", action="store_true", help="skip parts 1 and 2")
    parser.add_argument("--data", type=Path, default=BENCH / "data" / "meta",
                        help="part 3's collection: qrels.txt and run.N.txt (generated when "
                        "missing) or runs/run.NNN.txt (bench/data/compare)")  # fmt: skip
    args = parser.parse_args()
    warnings.simplefilter("ignore", rankscope.RankscopeWarning)
    if not args.skip_real:
        urbano()
        clef()
    sizes = [int(n) for n in args.runs.split(",") if int(n) > 0]
    if sizes:
        scaling(sizes, args.baseline, args.repeat, args.data)
