"""Safe peeking (`rankscope.stats.sequential`): group-sequential boundaries against the
published tables of rpact/gsDesign and a simulation of the crossing probabilities; the
always-valid confidence sequence against GrowthBook's formula and an A/A simulation that peeks
after every batch."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankscope.errors import UsageError
from rankscope.stats.sequential import always_valid, group_sequential, mixture_rho

# Lan–DeMets spending, K = 5 equally spaced looks, two-sided α = 0.05: the critical values
# rpact's getDesignGroupSequential(kMax = 5, alpha = 0.05, sided = 2, typeOfDesign = "asOF"
# / "asP") and gsDesign's sfLDOF / sfLDPocock print (Jennison & Turnbull's Table 7.6 too).
OBRIEN_FLEMING_5 = [4.877, 3.357, 2.680, 2.290, 2.031]
POCOCK_5 = [2.438, 2.427, 2.410, 2.397, 2.386]


@pytest.mark.parametrize(
    ("spending", "expected"), [("obrien-fleming", OBRIEN_FLEMING_5), ("pocock", POCOCK_5)]
)
def test_boundaries_match_the_published_tables(spending, expected):
    design = group_sequential(5, 0.05, spending)
    assert design.critical == pytest.approx(expected, abs=6e-4)
    assert design.spent[-1] == pytest.approx(0.05)
    assert design.nominal_p == pytest.approx([2 * (1 - _phi(c)) for c in design.critical])


def test_one_look_is_the_fixed_test():
    assert group_sequential(1).critical[0] == pytest.approx(1.959964, abs=1e-6)


def test_crossing_probabilities_by_simulation():
    """Under the null, the share of simulated score paths first crossing at each look is the
    α the design spends there (400,000 seeded paths; unequal fractions)."""
    fractions = [0.25, 0.6, 1.0]
    design = group_sequential(fractions, 0.05, "pocock")
    rng = np.random.default_rng(7)
    steps = rng.standard_normal((400_000, 3)) * np.sqrt(np.diff([0, *fractions]))
    z = np.cumsum(steps, axis=1) / np.sqrt(fractions)
    crossed = np.abs(z) >= design.critical
    first = np.where(crossed.any(axis=1), crossed.argmax(axis=1), -1)
    spent = np.diff([0, *design.spent])
    for k in range(3):
        share = np.mean(first == k)
        se = math.sqrt(spent[k] * (1 - spent[k]) / len(first))
        assert abs(share - spent[k]) < 4 * se, (k, share, spent[k])
    assert design.crossed([1.0, 2.5, 0.0]) == 2
    assert design.crossed([0.5]) is None


def _phi(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def test_confidence_sequence_is_growthbooks_formula():
    # GrowthBook (gbstats, frequentist/tests.py, SequentialTwoSidedTTest): half-width
    # s * sqrt(2 (N rho^2 + 1) / (N^2 rho^2) * log(sqrt(N rho^2 + 1) / alpha)), s^2 = N V,
    # rho = sqrt((-2 log alpha + log(-2 log alpha + 1)) / 5000).
    alpha, n, v, theta = 0.05, np.array([200.0, 1000.0, 8000.0]), np.array([0.04, 0.01, 0.002]), 0.1
    rho = math.sqrt((-2 * math.log(alpha) + math.log(-2 * math.log(alpha) + 1)) / 5000)
    assert mixture_rho(alpha) == pytest.approx(rho)
    s = np.sqrt(n * v)
    growth = n * rho**2 + 1
    half = s * np.sqrt(2 * growth / (n**2 * rho**2) * np.log(np.sqrt(growth) / alpha))
    found = always_valid(np.full(3, theta), v, n, alpha)
    assert found.ci_low == pytest.approx(theta - half, rel=1e-12)
    assert found.ci_high == pytest.approx(theta + half, rel=1e-12)
    # The always-valid p-value: the running minimum of 1/Λ, Λ the normal mixture's likelihood
    # ratio with mixing variance τ² = ρ² s² (Johari et al. 2017, eq. 11).
    tau2 = rho**2 * s**2
    lam = np.sqrt(v / (v + tau2)) * np.exp(theta**2 * tau2 / (2 * v * (v + tau2)))
    assert found.p_value == pytest.approx(np.minimum.accumulate(np.minimum(1, 1 / lam)))
    # At the level of its own p-value, the sequence has 0 on its boundary.
    k = int(np.argmin(found.p_value))
    vk, tk = v[k], tau2[k]
    width = vk * (vk + tk) / tk * (2 * math.log(1 / found.p_value[k]) + math.log((vk + tk) / vk))
    assert theta**2 == pytest.approx(width)
    assert np.all(np.diff(found.p_value) <= 0)


def test_peeking_after_every_batch_keeps_the_error_rate():
    """2,000 seeded A/A experiments, looked at after each of 50 batches of 40 units per arm:
    naive p < 0.05 at any look rejects far too often; the always-valid p-value does not."""
    rng = np.random.default_rng(11)
    experiments, batches, size = 2_000, 50, 40
    a = rng.normal(0, 1, (experiments, batches * size))
    b = rng.normal(0, 1, (experiments, batches * size))
    n = np.arange(1, batches + 1) * size
    naive = always = 0
    for e in range(experiments):
        ca, cb = np.cumsum(a[e])[n - 1], np.cumsum(b[e])[n - 1]
        qa, qb = np.cumsum(a[e] ** 2)[n - 1], np.cumsum(b[e] ** 2)[n - 1]
        va, vb = qa / n - (ca / n) ** 2, qb / n - (cb / n) ** 2
        diff, var = cb / n - ca / n, va / n + vb / n
        z = np.abs(diff) / np.sqrt(var)
        naive += bool(np.any(z > 1.959964))
        always += bool(always_valid(diff, var, 2 * n, 0.05).p_value[-1] < 0.05)
    assert naive / experiments > 0.15  # the problem
    bound = 0.05 + 3 * math.sqrt(0.05 * 0.95 / experiments)
    assert always / experiments < bound


def test_mistakes():
    with pytest.raises(UsageError, match="alpha"):
        group_sequential(3, alpha=1.5)
    with pytest.raises(UsageError, match="spending"):
        group_sequential(3, spending="haybittle")
    with pytest.raises(UsageError, match="fractions"):
        group_sequential([0.5, 0.4, 1.0])
    with pytest.raises(UsageError, match="one value per look"):
        always_valid([0.1, 0.2], [0.01], [10, 20])
    with pytest.raises(UsageError, match="positive finite variance"):
        always_valid([0.1], [0.0], [10])
    with pytest.raises(UsageError, match="never decrease"):
        always_valid([0.1, 0.1], [0.01, 0.01], [20, 10])
