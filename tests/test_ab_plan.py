"""Planning an online experiment (issue 23): `rankscope.stats.ratio_unit_sd`,
`rankscope.experiment.plan` and ``rankscope ab plan``.  Values against statsmodels'
``TTestIndPower`` and ``power_proportions_2indep``, hand computations (Cohen's 64 per group,
Fleiss' 686), and a seeded simulation of a ratio metric (its spread and the power of the
delta method's test at the planned units)."""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
from statsmodels.stats.power import NormalIndPower, TTestIndPower
from statsmodels.stats.proportion import power_proportions_2indep, proportion_effectsize

from rankscope.cli.ab import plan as plan_command
from rankscope.errors import RankscopeWarning, UsageError
from rankscope.experiment import Plan, plan
from rankscope.experiment.plan import KINDS
from rankscope.report.plans import FORMATS, format_plan
from rankscope.stats import ratio_estimate, ratio_unit_sd

# -- the ratio's per-unit standard deviation --------------------------------------------------


def test_ratio_unit_sd_by_hand():
    # R = 2/20 = 0.1; σ_x² − 2Rρσ_xσ_y + R²σ_y² = 9 − 2·0.1·0.5·3·10 + 0.01·100 = 7
    assert ratio_unit_sd(2, 3, 20, 10, 0.5) == pytest.approx(math.sqrt(7) / 20, rel=1e-12)
    # uncorrelated, the denominator constant: the numerator's sd over the denominator
    assert ratio_unit_sd(5, 2, 4, 0, 0.0) == pytest.approx(0.5, rel=1e-12)


def test_ratio_unit_sd_is_the_delta_methods_variance_per_unit():
    rng = np.random.default_rng(3)
    y = 1 + rng.poisson(9, 300).astype(float)
    x = rng.binomial(y.astype(int), rng.beta(2, 18, 300)).astype(float)
    sd = ratio_unit_sd(x.mean(), x.std(ddof=1), y.mean(), y.std(ddof=1),
                       float(np.corrcoef(x, y)[0, 1]))  # fmt: skip
    estimate = ratio_estimate(x, y)
    assert sd == pytest.approx(math.sqrt(estimate.variance * len(x)), rel=1e-10)
    # the API's pilot arrays give the same plan as their moments
    moments = plan("ratio", numerator_mean=x.mean(), numerator_sd=x.std(ddof=1),
                   denominator_mean=y.mean(), denominator_sd=y.std(ddof=1),
                   correlation=float(np.corrcoef(x, y)[0, 1]), relative_mde=0.1)  # fmt: skip
    pilot = plan("ratio", numerator=x, denominator=y, relative_mde=0.1)
    assert pilot.units == moments.units
    assert pilot.sd == pytest.approx(moments.sd, rel=1e-10)


# Users see 1 + Poisson(9) impressions and click each with their own p ~ Beta(2, 18):
# μ_y = 10, σ_y² = 9; E p = 0.1, E p² = 0.01 + 36/8400; μ_x = 1;
# σ_x² = E[y p(1 − p)] + Var(y p) = 10 (0.1 − E p²) + 109 E p² − 1; σ_xy = σ_y² E p = 0.9.
P2 = 0.01 + 36 / 8400
SD_X = math.sqrt(10 * (0.1 - P2) + 109 * P2 - 1)
MOMENTS = {"numerator_mean": 1.0, "numerator_sd": SD_X, "denominator_mean": 10.0,
           "denominator_sd": 3.0, "correlation": 0.9 / (SD_X * 3.0)}  # fmt: skip


def _ctr(rng: np.random.Generator, users: int, shift: float = 0.0) -> tuple[np.ndarray, ...]:
    """Clicks and impressions of ``users`` users; ``shift`` more clicks per impression (x +
    shift · y: the ratio moves by ``shift`` and its linearisation x − R y stays the same, as
    the plan assumes: the treatment's per-unit sd is the control's)."""
    y = 1 + rng.poisson(9, users)
    x = rng.binomial(y, rng.beta(2, 18, users))
    return x + shift * y, y.astype(float)


def test_a_ratios_spread_over_experiments_is_planned():
    rng = np.random.default_rng(11)
    sd = ratio_unit_sd(*MOMENTS.values())
    users, experiments = 400, 3000
    ratios = []
    for _ in range(experiments):
        x, y = _ctr(rng, users)
        ratios.append(x.sum() / y.sum())
    # the sd of an sd estimated from 3000 draws is within ±1.3% (1/√(2·3000)); ±5% here
    assert np.std(ratios, ddof=1) == pytest.approx(sd / math.sqrt(users), rel=0.05)


def test_the_delta_methods_test_has_the_planned_power():
    planned = plan("ratio", **MOMENTS, relative_mde=0.1, power=0.8)
    users = planned.units[0]
    rng = np.random.default_rng(5)
    experiments, rejected = 1500, 0
    for _ in range(experiments):
        a = ratio_estimate(*_ctr(rng, users))
        b = ratio_estimate(*_ctr(rng, users, shift=0.01))
        rejected += abs(b.value - a.value) / math.sqrt(a.variance + b.variance) > 1.959964
    # the rejection rate within 3 binomial standard deviations (±0.031) of the power
    assert abs(rejected / experiments - planned.power) < 3 * math.sqrt(0.8 * 0.2 / experiments)


def test_ratio_unit_sd_mistakes():
    with pytest.raises(UsageError, match="correlation"):
        ratio_unit_sd(1, 1, 2, 1, 1.5)
    with pytest.raises(UsageError, match="denominator_mean is 0"):
        ratio_unit_sd(1, 1, 0, 1, 0.0)
    with pytest.raises(UsageError, match="numerator_sd must be at least 0"):
        ratio_unit_sd(1, -1, 2, 1, 0.0)
    with pytest.raises(UsageError, match="does not vary"):  # x = 0.5 y for every unit
        ratio_unit_sd(1, 1, 2, 2, 1.0)


# -- plan: means ----------------------------------------------------------------------------


def test_the_textbook_sample_sizes():
    assert plan("mean", mean=10, sd=2, mde=1, power=0.8).units == (64, 64)  # d = 0.5: Cohen
    proportion = plan("proportion", rate=0.10, mde=0.05, power=0.8)  # Fleiss et al.
    assert proportion.units == (686, 686) and proportion.total == 1372
    assert proportion.relative_effect == pytest.approx(0.5)
    assert plan("proportion", rate=0.10, relative_mde=0.5).units == (686, 686)  # power 0.8


@pytest.mark.parametrize(("split", "ratio"), [(None, 1.0), ((1, 2), 2.0), ((60, 40), 2 / 3)])
@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_mean_power_and_units_are_statsmodels(split, ratio, alternative):
    theirs = "larger" if alternative == "greater" else alternative
    found = plan("mean", mean=50, sd=20, units=3000, mde=1.5, split=split, alternative=alternative)
    n_a, n_b = found.units
    assert (n_a, n_b) == (math.floor(3000 / (1 + ratio) + 1e-9),
                          math.floor(3000 * ratio / (1 + ratio) + 1e-9))  # fmt: skip
    expected = TTestIndPower().power(1.5 / 20, n_a, 0.05, ratio=n_b / n_a, alternative=theirs)
    assert found.solved == "power" and found.power == pytest.approx(expected, rel=1e-9)
    sized = plan("mean", mean=50, sd=20, mde=1.5, power=0.8, split=split,
                 alternative=alternative)  # fmt: skip
    fractional = TTestIndPower().solve_power(1.5 / 20, power=0.8, alpha=0.05, ratio=ratio,
                                             alternative=theirs)  # fmt: skip
    assert sized.solved == "units" and sized.units[0] == math.ceil(fractional - 1e-6)
    assert sized.units[1] == math.ceil(ratio * sized.units[0] - 1e-9)
    assert sized.power >= 0.8


def test_mean_mde_is_statsmodels_and_inverts_the_power():
    found = plan("mean", mean=50, sd=20, units=2000, power=0.9, alternative="less")
    # (statsmodels' root search strays for "smaller" here: the mirror image of "larger")
    d = TTestIndPower().solve_power(None, nobs1=1000, alpha=0.05, power=0.9, ratio=1.0,
                                    alternative="larger")  # fmt: skip
    assert found.solved == "effect"
    assert found.effect == pytest.approx(-20 * d, rel=1e-5)  # (statsmodels' tolerance)
    assert found.relative_effect == pytest.approx(found.effect / 50)
    assert found.power == pytest.approx(0.9, abs=1e-9)
    back = plan("mean", mean=50, sd=20, mde=found.effect, power=0.9, alternative="less")
    assert back.units[0] in (1000, 1001)  # (the effect found is at 1000 units, up to rounding)


def test_a_large_experiment_is_the_normal_approximation():
    # NormalIndPower is the z-test; at 50,000 units an arm the t-test's power is the same
    found = plan("mean", mean=1, sd=1, units=100_000, mde=0.02)
    assert found.power == pytest.approx(NormalIndPower().power(0.02, 50_000, 0.05), abs=1e-5)


# -- plan: proportions and several treatments ------------------------------------------------


@pytest.mark.parametrize(("split", "alternative"), [((50, 50), "two-sided"), ((3, 1), "less")])
def test_proportion_power_is_statsmodels(split, alternative):
    found = plan("proportion", rate=0.2, units=8000, mde=-0.02, split=split,
                 alternative=alternative)  # fmt: skip
    n_a, n_b = found.units
    # statsmodels tests prop1 − prop2 = control − treatment: a drop is its "larger"
    theirs = {"less": "larger"}.get(alternative, alternative)
    expected = power_proportions_2indep(0.02, 0.18, n_a, ratio=n_b / n_a,
                                        alternative=theirs).power  # fmt: skip
    assert found.power == pytest.approx(expected, rel=1e-9)
    assert found.comparisons[0].value == pytest.approx(0.18)


def test_the_pooled_tests_rejections_reach_the_planned_power():
    # an unequal split: 2 controls for 1 treatment, 0.10 against 0.13, α = 0.05 two-sided
    planned = plan("proportion", rate=0.10, mde=0.03, power=0.8, split=(2, 1))
    n_a, n_b = planned.units
    rng = np.random.default_rng(23)
    experiments = 4000
    s_a, s_b = rng.binomial(n_a, 0.10, experiments), rng.binomial(n_b, 0.13, experiments)
    pooled = (s_a + s_b) / (n_a + n_b)
    z = (s_b / n_b - s_a / n_a) / np.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    rate = float(np.mean(np.abs(z) > 1.959964))
    assert abs(rate - planned.power) < 3 * math.sqrt(0.8 * 0.2 / experiments)  # ±0.019


def test_cohens_h_is_near_the_pooled_test():
    # statsmodels' arcsine effect size (NormalIndPower) approximates the pooled z-test
    found = plan("proportion", rate=0.10, units=10_000, mde=0.01)
    h = proportion_effectsize(0.11, 0.10)
    assert found.power == pytest.approx(NormalIndPower().power(h, 5000, 0.05), abs=0.005)


def test_few_expected_successes_are_warned():
    # 100 units an arm at a rate of 0.02 expect 2 successes: fewer than 5
    with pytest.warns(RankscopeWarning, match="expects 2 successes or failures, fewer than 5"):
        plan("proportion", rate=0.02, units=200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plan("proportion", rate=0.02, units=600)  # 300 · 0.02 = 6 expected


def test_several_treatments_share_alpha():
    three = plan("mean", mean=0, sd=1, units=3000, mde=0.15, split=(1, 1, 1))
    assert three.units == (1000, 1000, 1000) and three.comparison_alpha == pytest.approx(0.025)
    assert [c.variant for c in three.comparisons] == ["treatment 1", "treatment 2"]
    expected = TTestIndPower().power(0.15, 1000, 0.025)  # Bonferroni: α/2 each
    assert three.power == pytest.approx(expected, rel=1e-9)
    assert math.isnan(three.relative_effect)  # (of a control's mean of 0)
    assert json.loads(format_plan(three, "json"))["relative_effect"] is None
    # unequal treatments: the control is what the smaller treatment's comparison needs
    uneven = plan("proportion", rate=0.1, mde=0.02, power=0.8, split=(2, 2, 1))
    control, big, small = uneven.units
    assert big == control and small == math.ceil(control / 2 - 1e-9)
    needed = plan("proportion", rate=0.1, mde=0.02, power=0.8, alpha=0.025, split=(2, 1))
    assert control == needed.units[0]
    assert uneven.comparisons[1].power == pytest.approx(uneven.power)
    assert uneven.comparisons[0].power > uneven.power
    # unequal treatments, effect solved: every comparison's own MDE, the plan's the largest
    mde = plan("mean", mean=10, sd=2, units=4000, split=(2, 1, 1))
    first, second = mde.comparisons
    assert first.effect == pytest.approx(second.effect) and mde.power == pytest.approx(0.8)
    wide = plan("mean", mean=10, sd=2, units=4000, split=(2, 1.5, 0.5))
    assert abs(wide.effect) == max(abs(c.effect) for c in wide.comparisons)
    assert wide.effect == pytest.approx(wide.comparisons[1].effect)


def test_the_plans_records_frame_and_dict():
    found = plan("proportion", rate=0.1, relative_mde=0.1, split=(1, 1, 1))
    rows = found.records()
    assert len(rows) == 2 and list(rows[0]) == list(Plan.TABLES["comparisons"])
    assert rows[0]["total_units"] == found.total == sum(found.units)
    frame = found.to_frame(output="dict")
    assert frame["units"] == list(found.units[1:])
    data = found.to_dict()
    assert data["split"] == pytest.approx([1 / 3] * 3) and data["solved"] == "units"
    assert json.loads(format_plan(found, "json")) == json.loads(json.dumps(data))
    with pytest.raises(AttributeError):
        found.alpha = 0.1  # type: ignore[misc]


def test_the_formats():
    found = plan("mean", mean=12.5, sd=30, units=40_000, mde=1.0)
    table = format_plan(found, "table")
    lines = {line.split("  ")[0].strip(): line.split()[-1] for line in table.splitlines()[2:]}
    assert lines["control units"] == "20000" and lines["solved for"] == "power"
    assert lines["power"] == f"{found.power:.4f}"
    csv_lines = format_plan(found, "csv").splitlines()
    header, row = csv_lines[0].split(","), csv_lines[1].split(",")
    assert float(row[header.index("power")]) == found.power  # full precision
    assert format_plan(found, "markdown").startswith("|  | treatment |")


# -- mistakes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"mean": 1, "sd": 1}, "units= or an effect"),
        ({"mean": 1, "sd": 1, "units": 100, "mde": 1, "power": 0.8}, "all given"),
        ({"mean": 1, "sd": 1, "mde": 1, "relative_mde": 0.1}, "give one"),
        ({"mean": 1, "sd": 1, "mde": 1, "power": 1.0}, "power= must lie strictly"),
        ({"mean": 1, "sd": 1, "mde": 1, "power": 0.0}, "power= must lie strictly"),
        ({"mean": 1, "sd": 1, "mde": 1, "alpha": 1.5}, "alpha= must lie strictly"),
        ({"mean": 1, "sd": 0, "mde": 1}, "sd= must be positive"),
        ({"mean": 1, "mde": 1}, "a mean needs sd="),
        ({"mean": 1, "sd": 1, "rate": 0.1, "mde": 1}, "rate= is not an input of a mean"),
        ({"mean": 1, "sd": 1, "mde": 0}, "mde= is 0"),
        ({"mean": 0, "sd": 1, "relative_mde": 0.1}, "give mde= instead"),
        ({"mean": 1, "sd": 1, "mde": -1, "alternative": "greater"}, "cannot detect"),
        ({"mean": 1, "sd": 1, "mde": 1, "split": (1,)}, "two at least"),
        ({"mean": 1, "sd": 1, "mde": 1, "split": (1, 0)}, "every share must be positive"),
        ({"mean": 1, "sd": 1, "units": 2, "split": (1, 1)}, "too few units"),
        ({"mean": float("nan"), "sd": 1, "mde": 1}, "mean= must be a finite number"),
    ],
)
def test_mistakes_of_a_mean_plan(kwargs, words):
    with pytest.raises(UsageError, match=words):
        plan("mean", **kwargs)


def test_mistakes_of_proportion_and_ratio_plans():
    with pytest.raises(UsageError, match="rate= must lie strictly between 0 and 1"):
        plan("proportion", rate=1.2, mde=0.1)
    with pytest.raises(UsageError, match="not a rate"):
        plan("proportion", rate=0.9, mde=0.2)
    with pytest.raises(UsageError, match="give more users"):
        plan("proportion", rate=0.5, units=6, power=0.99)
    with pytest.raises(UsageError, match="a ratio needs numerator_sd="):
        plan("ratio", numerator_mean=1, denominator_mean=2, denominator_sd=1, mde=0.1)
    with pytest.raises(UsageError, match="not both"):
        plan("ratio", numerator=[1, 2, 3], denominator=[2, 3, 4], numerator_mean=1, mde=0.1)
    with pytest.raises(UsageError, match="needs both"):
        plan("ratio", numerator=[1, 2, 3], mde=0.1)
    with pytest.raises(UsageError, match="does not vary"):
        plan("ratio", numerator=[1, 2, 3], denominator=[2, 4, 6], mde=0.1)
    with pytest.raises(UsageError, match="unknown kind"):
        plan("median", mean=1, sd=1, mde=1)


# -- the command line --------------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rankscope", "ab", "plan", *args],
                          capture_output=True, text=True)  # fmt: skip


def test_the_command_line_kinds_and_formats_are_the_apis():
    assert plan_command.KINDS == KINDS
    parser = argparse.ArgumentParser()
    plan_command.add_arguments(parser)
    (found,) = [a for a in parser._actions if "--format" in a.option_strings]
    assert tuple(found.choices) == FORMATS


def test_the_command_plans_each_kind_as_the_api():
    done = _cli("proportion", "--rate", "0.10", "--relative-mde", "0.5", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["units"] == [686, 686]
    done = _cli("mean", "--mean", "12.5", "--sd", "30", "--units", "40000", "--mde", "1",
                "--split", "1,1,1", "--format", "csv")  # fmt: skip
    assert done.returncode == 0, done.stderr
    header, *rows = [line.split(",") for line in done.stdout.splitlines()]
    expected = plan("mean", mean=12.5, sd=30, units=40000, mde=1, split=(1, 1, 1))
    assert len(rows) == 2
    assert float(rows[0][header.index("power")]) == expected.power
    assert rows[0][header.index("comparison_alpha")] == "0.025"
    moments = ["--numerator-mean", "2", "--numerator-sd", "3", "--denominator-mean", "20",
               "--denominator-sd", "10", "--correlation", "0.5"]  # fmt: skip
    done = _cli("ratio", *moments, "--units", "20000", "--alternative", "greater",
                "--format", "json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["sd"] == pytest.approx(math.sqrt(7) / 20) and data["solved"] == "effect"
    d = TTestIndPower().solve_power(None, nobs1=10000, alpha=0.05, power=0.8, ratio=1.0,
                                    alternative="larger")  # fmt: skip
    assert data["effect"] == pytest.approx(d * math.sqrt(7) / 20, rel=1e-5)  # (its tolerance)
    done = _cli("proportion", "--rate", "0.2", "--mde", "0.01")
    assert done.returncode == 0 and "total units" in done.stdout and "solved for" in done.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["mean", "--mean", "1", "--sd", "1"], "--units or an effect (--mde, --relative-mde)"),
        (["mean", "--mean", "1", "--sd", "1", "--units", "100", "--mde", "1", "--power", "0.8"],
         "--units, an effect and --power are all given"),
        (["proportion", "--mean", "1", "--mde", "0.1"], "--mean is not an input of a proportion "
         "(it takes --rate)"),
        (["ratio", "--numerator-mean", "1", "--mde", "0.1"], "a ratio needs --numerator-sd"),
        (["mean", "--mean", "1", "--sd", "1", "--mde", "1", "--relative-mde", "0.1"],
         "--mde and --relative-mde are two ways"),
        (["proportion", "--rate", "0.9", "--mde", "0.2"], "not a rate: give a smaller --mde"),
    ],
)
def test_the_commands_mistakes_name_its_options(args, words):
    done = _cli(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("rankscope: error: ") and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["proportion", "--rate", "0.1", "--mde", "0.01", "--power", "1"],
         "argument --power: must lie strictly between 0 and 1"),
        (["proportion", "--rate", "0.1", "--mde", "0.01", "--split", "50"],
         "argument --split: expected a share for the control and for each treatment"),
        (["proportion", "--rate", "0.1", "--mde", "0.01", "--split", "50,0"],
         "argument --split: every share must be positive"),
        (["proportion", "--rate", "0.1", "--mde", "0.01", "--split", "50,x"],
         "argument --split: expected a finite number, got 'x'"),
        (["proportion", "--rate", "0", "--mde", "0.01"], "argument --rate"),
        (["mean", "--mean", "1", "--sd", "-1", "--mde", "1"], "argument --sd: must be positive"),
        (["median", "--mean", "1"], "argument KIND: invalid choice"),
    ],
)
def test_bad_values_are_refused_by_the_parser(args, words):
    done = _cli(*args)
    assert done.returncode == 2 and words in done.stderr, done.stderr


def test_help_teaches_every_kind():
    done = _cli("--help")
    assert done.returncode == 0
    for words in ("--mean and --sd", "--rate", "--numerator-mean", "alpha/k (Bonferroni)",
                  "rankscope ab plan ratio"):  # fmt: skip
        assert words in done.stdout, words


def test_doctests():
    import doctest

    assert doctest.testmod(sys.modules["rankscope.experiment.plan"]).failed == 0
