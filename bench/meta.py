"""Discriminative power on real per-topic scores, and its cost.

    python bench/meta.py

1. ../shared/data/urbano_topic_by_system_scores: per-topic AP, P@10, RR of TREC ad hoc 5-8
   systems and nDCG@20, ERR@20 of Web 2010-2013 systems: discriminative power (alpha 0.05)
   under the paired t-test with Bonferroni correction and randomized Tukey HSD.
2. The 16 CLEF eHealth 2016 runs: AP, nDCG, RR and RPP, dcgRPP, invRPP, both tests, 10,000
   permutations, timed (target: <= 5 s for the six measures).

Prints; asserts nothing.
"""

from __future__ import annotations

import glob
import time
import warnings
from pathlib import Path

import numpy as np

import rankscope
from rankscope.stats.meta import POWER_TESTS, discriminative_power

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


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


if __name__ == "__main__":
    warnings.simplefilter("ignore", rankscope.RankscopeWarning)
    urbano()
    clef()
