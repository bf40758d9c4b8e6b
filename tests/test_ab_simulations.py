"""Validation by simulation of `rankscope.experiment.analyse` (tests/ab_simulation.py draws the
experiments): over seeded A/A experiments the p-values are uniform (the rate below α within its
binomial interval) for Welch's test, the z-test of rates, CUPED and a ratio metric (and, in the
slow run, Mann–Whitney, Fisher's exact test — at most α —, post-stratification and CUPED then
post-stratification); peeking after every batch keeps α with the always-valid p-value and not
with the naive test; with a known effect the rejection rate is the planned power; the delta
method's interval of a CTR difference covers the truth at its nominal rate, the per-impression
one does not.  The default run is small (about 15 s); the ``slow`` twins run two to five times
as many experiments, in about two minutes (bench/ab_simulations.py more still: 5,000 a row)."""

from __future__ import annotations

import pytest
from scipy import stats

from tests.ab_simulation import (
    AA_KINDS,
    CONSERVATIVE,
    aa_p_values,
    ctr_coverage,
    mean_power,
    peeking,
    rate_power,
    within,
)

ALPHA = 0.05


def check_a_a(kind: str, experiments: int, seed: int) -> None:
    p = aa_p_values(kind, experiments, seed)
    rate = float((p < ALPHA).mean())
    if kind in CONSERVATIVE:  # Fisher's exact test: at most α
        assert rate <= ALPHA + 3.5 * (ALPHA * (1 - ALPHA) / experiments) ** 0.5
        return
    assert within(rate, ALPHA, experiments)
    if kind not in ("z", "fisher"):  # the tests of counts have discrete p-values: the rate only
        assert stats.kstest(p, "uniform").pvalue > 0.001


@pytest.mark.parametrize("kind", AA_KINDS[:4])
def test_a_a_p_values_are_uniform(kind):
    check_a_a(kind, 800, 31 + AA_KINDS.index(kind))


@pytest.mark.slow  # fast twin: test_a_a_p_values_are_uniform
@pytest.mark.parametrize("kind", AA_KINDS)
def test_a_a_p_values_are_uniform_over_many_experiments(kind):
    # (Fisher's exact test, a p-value by a sum over tables each experiment, at 1,000)
    check_a_a(kind, 1_000 if kind in CONSERVATIVE else 2_000, 41 + AA_KINDS.index(kind))


def check_peeking(experiments: int, seed: int) -> None:
    valid, naive = peeking(experiments, seed)
    # The always-valid p-value is conservative: at most α (its binomial upper bound) ...
    assert valid <= ALPHA + 3.5 * (ALPHA * (1 - ALPHA) / experiments) ** 0.5
    # ... where stopping at the first naive |z| ≥ 1.96 of 20 looks rejects far more often.
    assert naive > 2.5 * ALPHA


def test_peeking_after_every_batch_keeps_alpha():
    check_peeking(300, 51)


@pytest.mark.slow  # fast twin: test_peeking_after_every_batch_keeps_alpha
def test_peeking_after_every_batch_keeps_alpha_over_many_experiments():
    check_peeking(1_500, 52)


def test_power_with_a_known_effect_is_the_planned_power():
    rate, planned = mean_power(0.25, 400, 600, 61)
    assert 0.6 < planned < 0.8 and within(rate, planned, 600)
    rate, planned = rate_power(0.10, 0.14, 2_000, 600, 62)
    assert 0.7 < planned < 0.9 and within(rate, planned, 600)


@pytest.mark.slow  # fast twin: test_power_with_a_known_effect_is_the_planned_power
def test_power_with_a_known_effect_over_many_experiments():
    rate, planned = mean_power(0.2, 600, 2_000, 63)
    assert within(rate, planned, 2_000)
    rate, planned = rate_power(0.05, 0.065, 6_000, 2_000, 64)
    assert within(rate, planned, 2_000)


def check_coverage(experiments: int, seed: int) -> None:
    delta, naive = ctr_coverage(experiments, seed)
    assert within(delta, 0.95, experiments)
    assert naive < 0.85  # the per-impression interval is far too narrow


def test_delta_method_covers_the_ctr_difference_where_the_naive_test_does_not():
    check_coverage(500, 71)


@pytest.mark.slow  # fast twin: test_delta_method_covers_the_ctr_difference_where_...
def test_delta_method_coverage_over_many_experiments():
    check_coverage(2_000, 72)
