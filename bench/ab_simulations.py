"""`rankscope.experiment.analyse` validated by simulation at a larger scale than the tests
(tests/test_ab_simulations.py runs the same checks, smaller; tests/ab_simulation.py draws the
experiments).

    python bench/ab_simulations.py [--experiments 20000] [--seed 1]

Rows: the rate below α = 0.05 of the p-values of A/A experiments (400 units, half each) for
Welch's test and Mann–Whitney's (log-normal revenue), the z-test and Fisher's (0/1
conversions at 10%; Fisher's is conservative: at most α), CUPED (a pre-period covariate),
post-stratification (three strata), both, and a ratio metric (clicks over impressions of
users with their own propensities, by the delta method); peeking after each of 20 batches with the
always-valid p-value and with the naive z (at most α / far above α); the rejection rate with
a known effect against the planned power (`power_unpaired_t`, `power_two_proportions`); the
coverage of the CTR difference by the delta method's 95% interval and by the naive
per-impression one.  For each: the rate, its target, the binomial interval of 3.5 standard
errors around the target and whether the rate is inside it (for peeking and the naive
coverage, the side the check asks for).  Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/ab_simulation.py

import tests.ab_simulation as simulation  # noqa: E402

within = simulation.within

ALPHA = 0.05


def row(check: str, runs: int, rate: float, target: float, verdict: bool, seconds: float) -> None:
    half = 3.5 * math.sqrt(target * (1 - target) / runs)
    print(f"{check:48s} {runs:>7d} {rate:8.4f} {target:8.4f}   "
          f"[{target - half:.4f}, {target + half:.4f}]  {'yes' if verdict else 'NO':>4s}"
          f"  {seconds:6.1f} s")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--experiments", type=int, default=20_000,
                        help="experiments per row (default 20000; peeking a quarter)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    runs, seed = args.experiments, args.seed
    print(f"{'check':48s} {'runs':>7s} {'rate':>8s} {'target':>8s}   "
          f"{'3.5-se interval':>16s}  {'ok':>4s}  {'time':>8s}")  # fmt: skip
    for k, kind in enumerate(simulation.AA_KINDS):
        start = time.perf_counter()
        p = simulation.aa_p_values(kind, runs, seed + k)
        rate = float((p < ALPHA).mean())
        conservative = kind in simulation.CONSERVATIVE  # at most α
        verdict = (rate <= ALPHA + 3.5 * math.sqrt(ALPHA * (1 - ALPHA) / runs) if conservative
                   else within(rate, ALPHA, runs))  # fmt: skip
        row(f"A/A {kind}: p < 0.05" + (" (≤ α)" if conservative else ""), runs, rate, ALPHA,
            verdict, time.perf_counter() - start)  # fmt: skip
    start = time.perf_counter()
    looked = max(runs // 4, 1)
    valid, naive = simulation.peeking(looked, seed + 10)
    spent = time.perf_counter() - start
    bound = ALPHA + 3.5 * math.sqrt(ALPHA * (1 - ALPHA) / looked)
    row("peeking 20 looks: always-valid p < 0.05", looked, valid, ALPHA, valid <= bound, spent)
    row("peeking 20 looks: naive |z| ≥ 1.96 (not ≤ α)", looked, naive, ALPHA, naive > bound,
        spent)  # fmt: skip
    start = time.perf_counter()
    rate, planned = simulation.mean_power(0.2, 600, runs, seed + 20)
    row("power, Welch, d = 0.2, 300 per arm", runs, rate, planned, within(rate, planned, runs),
        time.perf_counter() - start)  # fmt: skip
    start = time.perf_counter()
    rate, planned = simulation.rate_power(0.05, 0.065, 6_000, runs, seed + 30)
    row("power, z, 5% → 6.5%, 3000 per arm", runs, rate, planned, within(rate, planned, runs),
        time.perf_counter() - start)  # fmt: skip
    start = time.perf_counter()
    delta, plain = simulation.ctr_coverage(runs, seed + 40)
    spent = time.perf_counter() - start
    row("CTR difference covered: delta method", runs, delta, 0.95, within(delta, 0.95, runs),
        spent)  # fmt: skip
    row("CTR difference covered: per impression (< .95)", runs, plain, 0.95,
        plain < 0.95 - 3.5 * math.sqrt(0.95 * 0.05 / runs), spent)  # fmt: skip


if __name__ == "__main__":
    main()
