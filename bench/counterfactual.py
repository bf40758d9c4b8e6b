"""Counterfactual estimators of rankscope.clicks: bias and interval coverage on simulated logs
whose truth is known, and the Open Bandit Dataset (bts's click rate from the random log).

    python bench/counterfactual.py [--sessions 2000] [--reps 200] [--samples 500] [--obd-only]

Simulation (tests/slate_simulation.py): 10 queries, 5 documents each, 3 positions; the
logging and evaluation policies are Plackett-Luce policies (propensities enumerated exactly);
clicks follow the position-based model (θ = 1, 0.6, 0.35) or the cascade model.  Four
settings: {PBM, cascade} clicks × {stochastic, deterministic} evaluation policy.  For each
estimator: the truth, the mean error (± its standard error) over ``--reps`` logs of
``--sessions`` sessions, the share of 95 % percentile bootstrap intervals (``--samples``
resamples) covering the truth, and the mean interval width.  dm uses the true PBM click
rates, dr and cascade-dr a model of half the true rates (a wrong model), and the ``-emp``
rows the empirical model refitted on every resample (fewer reps: it is slower).

Open Bandit Dataset (Saito et al. 2021; the small sample in ../shared): bts's click rate per
impression-position estimated from the uniform random policy's log by iips (the
item-position weights; bts taken as its empirical choice of item per position in its own
log), against bts's observed rate.  Prints tables; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/slate_simulation.py

from tests.slate_simulation import TrueRewardModel, coverage, world  # noqa: E402

from rankscope.clicks import estimate, stochastic_policy  # noqa: E402
from rankscope.read.impressions import read_impressions  # noqa: E402

OBD = HERE.parent.parent / "shared" / "data" / "open_bandit_dataset"


def simulations(sessions: int, reps: int, samples: int) -> None:
    models = {
        "dm": lambda w, sim: TrueRewardModel(w, sim.log),
        "dr": lambda w, sim: TrueRewardModel(w, sim.log, bias=0.5),
        "cascade-dr": lambda w, sim: TrueRewardModel(w, sim.log, bias=0.5),
    }
    print(f"logs of {sessions} sessions (3 positions), {reps} logs per setting, "
          f"{samples} bootstrap resamples, 95 % intervals")  # fmt: skip
    print(f"{'setting':28s} {'estimator':11s} {'truth':>7s} {'mean error':>17s} "
          f"{'coverage':>8s} {'width':>7s}")  # fmt: skip
    for clicks in ("pbm", "cascade"):
        for deterministic in (False, True):
            w = world(1, clicks=clicks, deterministic_target=deterministic)
            names = ["ips", "snips", "iips", "rips", "pbm", "dm", "dr"]
            if deterministic:
                names.append("cascade-dr")
            start = time.perf_counter()
            results = coverage(
                w, names, sessions=sessions, reps=reps, samples=samples, models=models
            )
            refit = ["dm", "dr"] + (["cascade-dr"] if deterministic else [])
            empirical = coverage(
                w, refit, sessions=sessions, reps=max(reps // 4, 10), samples=samples // 2,
                reward_model="empirical",
            )  # fmt: skip
            setting = f"{clicks}, {'ranking' if deterministic else 'stochastic'} policy"
            rows = list(results.values()) + [
                type(r)(r.estimator + "-emp", *list(r.__dict__.values())[1:])
                for r in empirical.values()
            ]
            for r in rows:
                print(f"{setting:28s} {r.estimator:11s} {r.truth:7.4f} "
                      f"{r.mean_error:+8.4f} ± {r.error_se:6.4f} {r.coverage:8.3f} "
                      f"{r.mean_width:7.3f}  (reps {r.reps})")  # fmt: skip
            print(f"  ({time.perf_counter() - start:.1f} s)")


def open_bandit() -> None:
    print("\nOpen Bandit Dataset: bts's click rate estimated from the random policy's log")
    print(f"{'campaign':8s} {'bts observed':>14s} {'iips':>8s} {'95 % interval':>20s} "
          f"{'snips-iips':>10s} {'ess':>8s}")  # fmt: skip
    for campaign in ("men", "women"):
        random_log = read_impressions(OBD / "random" / campaign / f"{campaign}.csv.gz")
        bts = read_impressions(OBD / "bts" / campaign / f"{campaign}.csv.gz")
        pairs, counts = np.unique(np.c_[bts.position, bts.doc], axis=0, return_counts=True)
        at = np.bincount(bts.position)[pairs[:, 0]]
        policy = stochastic_policy(
            random_log, {"position": pairs[:, 0],
                         "doc": bts.docs.strings_of(pairs[:, 1].astype(np.int32)),
                         "probability": counts / at}, name="bts",
        )  # fmt: skip
        plain = estimate(random_log, policy, "iips", samples=2000, seed=0)
        normalised = estimate(random_log, policy, "iips", self_normalise=True, samples=0)
        observed = bts.click.mean()
        se = np.sqrt(observed * (1 - observed) / len(bts))
        print(f"{campaign:8s} {observed:8.5f}±{se:.5f} {plain.value:8.5f} "
              f"[{plain.low:.5f}, {plain.high:.5f}] {normalised.value:10.5f} "
              f"{plain.effective_sample_size:8.0f}")  # fmt: skip
        print(f"         (random's own rate {random_log.click.mean():.5f}; "
              f"{len(random_log)} rows each)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--samples", type=int, default=500)
    parser.add_argument("--obd-only", action="store_true")
    args = parser.parse_args()
    if not args.obd_only:
        simulations(args.sessions, args.reps, args.samples)
    if OBD.exists():
        open_bandit()


if __name__ == "__main__":
    main()
