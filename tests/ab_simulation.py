"""Seeded simulated online experiments run through `rankscope.experiment.analyse`, shared by
tests/test_ab_simulations.py (small, in the default run) and bench/ab_simulations.py (the
same at a larger scale): A/A p-values, peeking at every batch, power with a known effect,
and the coverage of a click-through difference by the delta method and by the naive
per-impression test.

Each experiment splits its units exactly in half between ``control`` and ``b`` (the
sample-ratio check never intervenes) and draws its metrics from ``numpy.random.
default_rng(seed)``; the same arguments give the same numbers.
"""

from __future__ import annotations

import math

import numpy as np

from rankscope.experiment import analyse
from rankscope.model import Experiment
from rankscope.model.vocabulary import Vocabulary
from rankscope.stats import power_two_proportions, power_unpaired_t, two_proportion_z

#: The A/A designs: the metric each draws and the test `analyse` runs on it (the first four
#: in the default run of the tests, every one in the slow run and the bench).
AA_KINDS = ("welch", "z", "cuped", "ratio", "mann-whitney", "fisher", "stratified",
            "cuped+stratified")  # fmt: skip
#: The designs whose test is conservative (discrete): the rate below α is at most α.
CONSERVATIVE = ("fisher",)


def within(rate: float, expected: float, runs: int) -> bool:
    """``rate`` within 3.5 binomial standard errors of ``expected`` (a false alarm about once
    in 2,000 checks; the seeds are fixed, so a check passes or fails for ever)."""
    return abs(rate - expected) <= 3.5 * math.sqrt(expected * (1 - expected) / runs)


def _variants() -> Vocabulary:
    variants = Vocabulary()
    variants.intern_many(["control", "b"])
    return variants


def _halves(rng: np.random.Generator, units: int) -> np.ndarray:
    """Each unit's variant code (0 the control, 1 ``b``), exactly half each, shuffled."""
    return rng.permutation(np.arange(units) % 2).astype(np.int32)


def _clicks(rng: np.random.Generator, users: int, ctr: float,
            spread: float = 5.0) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Per-user impressions (1 + Poisson(15)) and clicks, each user with its own click
    propensity ~ Beta with mean ``ctr`` (smaller ``spread``: more heterogeneous users)."""
    impressions = 1.0 + rng.poisson(15, users)
    propensity = rng.beta(ctr * spread, (1 - ctr) * spread, users)
    return rng.binomial(impressions.astype(np.int64), propensity).astype(float), impressions


def aa_experiment(kind: str, rng: np.random.Generator, units: int) -> tuple[Experiment, dict]:
    """One A/A experiment of ``kind`` (`AA_KINDS`) and the options of `analyse` for it."""
    variant = _halves(rng, units)
    options: dict = {}
    more: dict = {}
    if kind in ("welch", "mann-whitney"):
        metrics = {"revenue": rng.lognormal(0, 0.8, units)}
        options = {"tests": [kind]}
    elif kind in ("z", "fisher"):
        metrics = {"converted": (rng.random(units) < 0.1).astype(float)}
        options = {"tests": [kind]}
    elif kind in ("cuped", "stratified", "cuped+stratified"):
        stratum = rng.integers(0, 3, units)
        pre = rng.normal(10, 3, units) + 3 * stratum
        metrics = {"spend": 0.9 * pre + 2 * stratum + rng.normal(0, 1.5, units)}
        if kind != "stratified":
            more["covariates"] = {"spend": pre}
        if kind != "cuped":
            strata = Vocabulary()
            more["stratum"] = np.asarray(strata.intern_many([f"s{s}" for s in stratum]),
                                         dtype=np.int32)  # fmt: skip
            more["strata"] = strata
    elif kind == "ratio":
        clicks, impressions = _clicks(rng, units, 0.1)
        metrics = {"clicks": clicks, "impressions": impressions}
        options = {"ratios": {"ctr": ("clicks", "impressions")}}
    else:
        raise ValueError(f"unknown kind {kind!r}: choose {', '.join(AA_KINDS)}")
    return Experiment(variants=_variants(), variant=variant, metrics=metrics, **more), options


def aa_p_values(kind: str, experiments: int, seed: int, units: int = 400) -> np.ndarray:
    """The p-value of ``experiments`` A/A experiments of ``kind`` analysed by `analyse`."""
    rng = np.random.default_rng(seed)
    p = np.empty(experiments)
    for e in range(experiments):
        experiment, options = aa_experiment(kind, rng, units)
        (effect,) = analyse(experiment, **options).effects
        p[e] = effect.p_value
    return p


def peeking(experiments: int, seed: int, units: int = 1000, alpha: float = 0.05,
            looks: int = 20) -> tuple[float, float]:  # fmt: skip
    """A/A experiments looked at after every batch (``looks`` batches of the units by
    arrival): the share stopped at some look by the always-valid p-value, and by the naive
    fixed-sample z (|z| ≥ z_{1−α/2} at any look)."""
    from scipy import stats

    rng = np.random.default_rng(seed)
    critical = stats.norm.ppf(1 - alpha / 2)
    valid = naive = 0
    for _ in range(experiments):
        experiment = Experiment(
            variants=_variants(), variant=_halves(rng, units),
            metrics={"y": rng.normal(0, 1, units)}, timestamp=np.arange(units, dtype=float),
        )  # fmt: skip
        sequence = analyse(experiment, alpha=alpha).sequential
        assert len(sequence) == looks
        valid += any(look.p_value < alpha for look in sequence)
        naive += any(abs(look.z) >= critical for look in sequence)
    return valid / experiments, naive / experiments


def mean_power(effect_size: float, units: int, experiments: int,
               seed: int) -> tuple[float, float]:  # fmt: skip
    """A/B experiments of normal units (sd 1) whose ``b`` is shifted by ``effect_size``:
    Welch's rejection rate at α = 0.05 through `analyse`, and `power_unpaired_t`'s power for
    ``units`` // 2 per arm."""
    rng = np.random.default_rng(seed)
    rejected = 0
    for _ in range(experiments):
        variant = _halves(rng, units)
        y = rng.normal(0, 1, units) + effect_size * variant
        experiment = Experiment(variants=_variants(), variant=variant, metrics={"y": y})
        rejected += analyse(experiment).effects[0].p_value < 0.05
    return rejected / experiments, power_unpaired_t(effect_size, units // 2)


def rate_power(rate_a: float, rate_b: float, units: int, experiments: int,
               seed: int) -> tuple[float, float]:  # fmt: skip
    """A/B experiments of 0/1 units at ``rate_a`` and ``rate_b``: the z-test's rejection
    rate through `analyse`, and `power_two_proportions`' power for ``units`` // 2 per arm."""
    rng = np.random.default_rng(seed)
    rejected = 0
    for _ in range(experiments):
        variant = _halves(rng, units)
        y = (rng.random(units) < np.where(variant == 1, rate_b, rate_a)).astype(float)
        experiment = Experiment(variants=_variants(), variant=variant, metrics={"converted": y})
        rejected += analyse(experiment).effects[0].p_value < 0.05
    return rejected / experiments, power_two_proportions(rate_a, rate_b, units // 2)


def ctr_coverage(experiments: int, seed: int, users: int = 800,
                 ctr: tuple[float, float] = (0.10, 0.12)) -> tuple[float, float]:  # fmt: skip
    """Users randomised, impressions analysed: how often the 95% interval of the CTR
    difference covers the truth (``ctr[1] − ctr[0]``, each user's propensity drawn
    independently of its impressions) — by the delta method through `analyse`, and by the
    naive two-proportion interval that treats every impression as independent."""
    rng = np.random.default_rng(seed)
    truth = ctr[1] - ctr[0]
    delta = naive = 0
    for _ in range(experiments):
        variant = _halves(rng, users)
        clicks, impressions = np.empty(users), np.empty(users)
        for code, rate in enumerate(ctr):
            inside = variant == code
            clicks[inside], impressions[inside] = _clicks(rng, int(inside.sum()), rate)
        experiment = Experiment(variants=_variants(), variant=variant,
                                metrics={"clicks": clicks, "impressions": impressions})
        (effect,) = analyse(experiment, ratios={"ctr": ("clicks", "impressions")}).effects
        delta += effect.low <= truth <= effect.high
        a, b = variant == 0, variant == 1
        per_impression = two_proportion_z(
            int(clicks[a].sum()), int(impressions[a].sum()),
            int(clicks[b].sum()), int(impressions[b].sum()),
        )  # fmt: skip
        naive += bool(per_impression.ci_low <= truth <= per_impression.ci_high)
    return delta / experiments, naive / experiments
