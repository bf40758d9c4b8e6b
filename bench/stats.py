"""Time the many-systems comparisons at the issue's scale: 100 systems x 250 queries.

    python bench/stats.py [--systems 100] [--queries 250] [--permutations 10000] [--repeat 3]

The main figure is the randomized Tukey HSD with 10,000 permutations, whose target is
<= 2 s on the development machine (2 cores).  The scores are seeded and AP-like: a query
difficulty and a system quality per row and column, noise, clipped to [0, 1].  Also timed:
the same test on one thread, classical Tukey HSD (two-way), all pairs with the paired
t-test, the Wilcoxon signed-rank test and the randomization test (Holm), and the compact
letter display.

Prints wall times (best of --repeat, after one warm-up call); asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from rankscope.stats.letters import compact_letters
from rankscope.stats.multiple import randomized_tukey_hsd, tukey_hsd
from rankscope.stats.procedures import pairwise_tests

TARGET_SECONDS = 2.0


def scores(systems: int, queries: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(2.0, 3.0, size=queries)
    quality = rng.normal(0.0, 0.05, size=systems)
    noise = rng.normal(0.0, 0.15, size=(systems, queries))
    return np.clip(difficulty[None, :] + quality[:, None] + noise, 0.0, 1.0)


def timed(function, repeat: int) -> tuple[float, object]:
    result = function()  # warm-up: imports, first-touch of memory
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", type=int, default=100)
    parser.add_argument("--queries", type=int, default=250)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2012)
    args = parser.parse_args()
    matrix = scores(args.systems, args.queries, args.seed)
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    b = args.permutations
    print(f"{args.systems} systems x {args.queries} queries, {cpus} CPUs, best of {args.repeat}")

    seconds, result = timed(lambda: randomized_tukey_hsd(matrix, permutations=b), args.repeat)
    verdict = "within" if seconds <= TARGET_SECONDS else "OVER"
    print(
        f"  randomized Tukey HSD, {b} permutations: {seconds:6.3f} s "
        f"({verdict} the {TARGET_SECONDS:g} s target); "
        f"{int(result.significant.sum())} of {len(result.first)} pairs significant"
    )
    one, _ = timed(lambda: randomized_tukey_hsd(matrix, permutations=b, workers=1), args.repeat)
    print(f"  randomized Tukey HSD, 1 thread:          {one:6.3f} s")
    rows = [
        ("Tukey HSD (two-way)", lambda: tukey_hsd(matrix)),
        ("paired t-test, Holm", lambda: pairwise_tests(matrix, test="t")),
        ("Wilcoxon signed-rank, Holm", lambda: pairwise_tests(matrix, test="wilcoxon")),
        (
            f"randomization test, {b} flips, Holm",
            lambda: pairwise_tests(matrix, test="randomization", permutations=b),
        ),
        (
            "compact letter display",
            lambda: compact_letters(result.names, result.means, result.significant_matrix()),
        ),
    ]
    for label, function in rows:
        seconds, _ = timed(function, args.repeat)
        print(f"  {label + ':':40s} {seconds:6.3f} s")


if __name__ == "__main__":
    main()
