"""Planning an online experiment before it runs: how many units it needs, the smallest effect
it can detect, or the power it has — whichever one of the three is not given.

Three kinds of metric, each planned with the test its analysis runs:

* ``mean`` (a per-unit value: revenue, dwell time; its control mean and standard deviation):
  the two-sample t-test (`rankscope.stats.power_unpaired_t` and its sample size and MDE);
* ``proportion`` (0/1 per unit: converted, clicked; its control rate): the pooled
  two-proportion z-test (`rankscope.stats.power_two_proportions`, Fleiss et al.);
* ``ratio`` (Σx / Σy over units: clicks per impression of users randomised by user): the
  t-test of the delta method's linearisation, whose per-unit standard deviation
  `rankscope.stats.ratio_unit_sd` computes from the moments of x and y (or from pilot
  per-unit arrays, through `rankscope.stats.delta.ratio_estimate`).

The split gives the arms' planned shares, the control first; with k > 1 treatments each is
compared with the control at α/k (Bonferroni), so that the k comparisons together keep α.
Holm's correction, the analysis' default, rejects at least what Bonferroni rejects, so the
plan is on the safe side.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

from ..errors import UsageError, shown, warn
from ..model.frames import NamedTables
from ..stats.delta import ratio_estimate
from ..stats.paired import check_alternative
from ..stats.power import (
    mde_two_proportions,
    mde_unpaired_t,
    power_two_proportions,
    power_unpaired_t,
    ratio_unit_sd,
    sample_size_two_proportions,
    sample_size_unpaired_t,
)

#: The kinds of metric a plan is for.
KINDS = ("mean", "proportion", "ratio")
#: The power a plan reaches when the power is not what it solves for.
DEFAULT_POWER = 0.8
#: The inputs each kind takes (the ratio's moments, or its pilot arrays ``numerator`` and
#: ``denominator``, which only the API takes).
MOMENTS = ("numerator_mean", "numerator_sd", "denominator_mean", "denominator_sd", "correlation")
INPUTS = {
    "mean": ("mean", "sd"),
    "proportion": ("rate",),
    "ratio": (*MOMENTS, "numerator", "denominator"),
}


def _option(name: str) -> str:
    """A keyword of `plan` as the command line spells it (``relative_mde``: --relative-mde)."""
    return "--" + name.replace("_", "-")


def _error(message: str, *names: str) -> UsageError:
    """A `UsageError` naming ``names`` as keywords (``mde=``), and as options on the command
    line (``--mde``): ``message`` holds ``{}`` for each name, in order."""
    api, cli = message, message
    for name in names:
        api, cli = api.replace("{}", f"{name}=", 1), cli.replace("{}", _option(name), 1)
    return UsageError(api, cli=cli)


@dataclass(frozen=True)
class Comparison:
    """One treatment against the control, as planned: its share of the units, the units of
    both arms, the effect (``effect`` = treatment − control, ``relative_effect`` =
    effect / control, NaN for a control at 0; ``value`` the treatment's mean, rate or
    ratio) and the power of its test at the plan's α per comparison."""

    variant: str
    share: float
    control_units: int
    units: int
    effect: float
    relative_effect: float
    value: float
    power: float


@dataclass(frozen=True)
class Plan(NamedTables):
    """A planned experiment (`plan`): what was solved for (``solved``: units, effect or
    power), the settings, the control's ``baseline`` (mean, rate or ratio) and a unit's
    standard deviation ``sd`` (√(p(1 − p)) of a rate, the linearisation's for a ratio), the
    units per arm (``units``, the control first) and one `Comparison` per treatment.
    ``effect``, ``relative_effect`` and ``power`` are what every comparison reaches: the
    largest of their minimum detectable effects, the lowest of their powers."""

    kind: str
    solved: str
    alpha: float
    alternative: str
    split: tuple[float, ...]
    baseline: float
    sd: float
    units: tuple[int, ...]
    comparisons: tuple[Comparison, ...]

    SETTINGS = ("kind", "solved", "alternative", "alpha", "comparison_alpha", "baseline", "sd")
    TABLES = {
        "comparisons": (*SETTINGS, *(f.name for f in fields(Comparison)), "total_units"),
    }

    @property
    def total(self) -> int:
        """The units of every arm together."""
        return sum(self.units)

    @property
    def comparison_alpha(self) -> float:
        """The significance level of each comparison: α/k for k treatments (Bonferroni)."""
        return self.alpha / len(self.comparisons)

    @property
    def effect(self) -> float:
        """The effect every comparison detects with ``power``: the largest in size."""
        return max((c.effect for c in self.comparisons), key=abs)

    @property
    def relative_effect(self) -> float:
        """``effect`` relative to the control's ``baseline`` (NaN when that is 0)."""
        return _relative(self.effect, self.baseline)

    @property
    def power(self) -> float:
        """The power every comparison reaches: the lowest."""
        return min(c.power for c in self.comparisons)

    def records(self, table: str = "comparisons") -> list[dict[str, Any]]:
        """One row per treatment at full precision: the plan's settings and its comparison
        (see ``TABLES``)."""
        self.check_table(table)
        settings = {name: getattr(self, name) for name in self.SETTINGS}
        return [
            {**settings, **asdict(comparison), "total_units": self.total}
            for comparison in self.comparisons
        ]

    def to_dict(self) -> dict[str, Any]:
        """The settings, the units per arm and the comparisons (JSON-ready)."""
        return {
            "kind": self.kind, "solved": self.solved, "alternative": self.alternative,
            "alpha": self.alpha, "comparison_alpha": self.comparison_alpha,
            "split": list(self.split), "baseline": self.baseline, "sd": self.sd,
            "units": list(self.units), "total_units": self.total, "effect": self.effect,
            "relative_effect": self.relative_effect, "power": self.power,
            "comparisons": [asdict(comparison) for comparison in self.comparisons],
        }  # fmt: skip


def shares(split: Sequence[float] | None) -> tuple[float, ...]:
    """The arms' planned shares, the control first, normalised to sum to 1 (``None``: two
    equal arms).  Every share must be a positive finite number, and there must be two at
    least."""
    if split is None:
        return (0.5, 0.5)
    if isinstance(split, str) or not isinstance(split, Sequence):
        raise _error(f"{{}} must be a sequence of shares, got {shown(split)}", "split")
    values = tuple(float(share) for share in split)
    if len(values) < 2:
        raise _error("{} needs a share for the control and for each treatment (two at least), "
                     f"got {len(values)}", "split")  # fmt: skip
    for share in values:
        if not (math.isfinite(share) and share > 0):
            raise _error(f"{{}} holds {shown(share)}: every share must be positive", "split")
    total = sum(values)
    return tuple(share / total for share in values)


def plan(
    kind: str,
    *,
    units: int | None = None,
    mde: float | None = None,
    relative_mde: float | None = None,
    power: float | None = None,
    alpha: float = 0.05,
    split: Sequence[float] | None = None,
    alternative: str = "two-sided",
    mean: float | None = None,
    sd: float | None = None,
    rate: float | None = None,
    numerator_mean: float | None = None,
    numerator_sd: float | None = None,
    denominator_mean: float | None = None,
    denominator_sd: float | None = None,
    correlation: float | None = None,
    numerator: Any = None,
    denominator: Any = None,
) -> Plan:
    """Plan an experiment on a metric of ``kind`` (``mean``, ``proportion``, ``ratio``),
    solving for the one of units, effect and power that is not given.

    * ``units`` (the total over every arm, shared by ``split``) and an effect given
      (``mde``: treatment − control; or ``relative_mde``: 0.05 for +5%): the power;
    * ``units`` given, no effect: the minimum detectable effect at ``power`` (default 0.8);
    * an effect given, no ``units``: the units each arm needs for ``power`` (default 0.8).

    The control's metric: ``mean`` and ``sd`` (a mean), ``rate`` (a proportion), or a
    ratio's per-unit ``numerator_mean``, ``numerator_sd``, ``denominator_mean``,
    ``denominator_sd`` and ``correlation`` (default 0) — or its pilot per-unit arrays
    ``numerator`` and ``denominator`` instead.  ``split``: the arms' shares, the control
    first (default two equal arms; ``(1, 1, 1)``: two treatments, each tested at α/2).
    ``alternative``: ``two-sided``, ``greater`` (the treatment is higher) or ``less``.

    >>> plan("proportion", rate=0.10, mde=0.05, power=0.8).units
    (686, 686)
    """
    if kind not in KINDS:
        raise UsageError(f"unknown kind {kind!r}: choose {', '.join(KINDS)}")
    check_alternative(alternative)
    _check_level(alpha, "alpha")
    if power is not None:
        _check_level(power, "power")
    arms = shares(split)
    given = {
        "mean": mean, "sd": sd, "rate": rate, "numerator_mean": numerator_mean,
        "numerator_sd": numerator_sd, "denominator_mean": denominator_mean,
        "denominator_sd": denominator_sd, "correlation": correlation,
        "numerator": numerator, "denominator": denominator,
    }  # fmt: skip
    for name, value in given.items():
        if value is not None and name not in INPUTS[kind]:
            takes = INPUTS[kind][:5]  # (the pilot arrays are the API's only)
            raise _error(f"{{}} is not an input of a {kind} (it takes "
                         f"{', '.join('{}' for _ in takes)})", name, *takes)  # fmt: skip
    baseline, unit_sd = _baseline(kind, given)
    effect = _effect(mde, relative_mde, baseline)
    if units is None and effect is None:
        raise _error("{} or an effect ({}, {}) is needed: give both to compute the power",
                     "units", "mde", "relative_mde")  # fmt: skip
    if units is not None and effect is not None and power is not None:
        raise _error("{}, an effect and {} are all given: leave out the one to compute",
                     "units", "power")  # fmt: skip
    solved = "units" if units is None else "effect" if effect is None else "power"
    target = DEFAULT_POWER if power is None else power
    treatments = len(arms) - 1
    level = alpha / treatments
    solve = _Solver(kind, baseline, unit_sd, level, alternative)
    if units is None:
        assert effect is not None
        control = max(solve.control_units(effect, target, share / arms[0]) for share in arms[1:])
        sizes = (control, *(math.ceil(share / arms[0] * control - 1e-9) for share in arms[1:]))
    else:
        sizes = _split_units(units, arms)
    comparisons = []
    for i, size in enumerate(sizes[1:], start=1):
        ratio = size / sizes[0]  # (the functions' n_b = ⌈ratio · n_a⌉ is then exactly size)
        found = solve.effect(sizes[0], target, ratio) if effect is None else effect
        comparisons.append(Comparison(
            variant="treatment" if treatments == 1 else f"treatment {i}", share=arms[i],
            control_units=sizes[0], units=size, effect=found,
            relative_effect=_relative(found, baseline), value=baseline + found,
            power=solve.power(found, sizes[0], ratio),
        ))  # fmt: skip
    if kind == "proportion":
        _check_counts(sizes, baseline, comparisons)
    return Plan(kind, solved, float(alpha), alternative, arms, baseline, unit_sd, sizes,
                tuple(comparisons))  # fmt: skip


#: The fewest successes (and failures) an arm should expect for the z-test's normal
#: approximation (the textbook rule of thumb).
FEWEST_EXPECTED = 5


def _check_counts(
    sizes: tuple[int, ...], rate: float, comparisons: Sequence[Comparison]
) -> None:
    """Warn when an arm of a proportion plan expects fewer than `FEWEST_EXPECTED` successes
    or failures: the z-test's normal approximation, and so the plan, is then rough."""
    rates = (rate, *(c.value for c in comparisons))
    fewest = min(min(n * p, n * (1 - p)) for n, p in zip(sizes, rates, strict=True))
    if fewest < FEWEST_EXPECTED:
        warn(f"an arm of this plan expects {fewest:.3g} successes or failures, fewer than "
             f"{FEWEST_EXPECTED}: the z-test's normal approximation is rough there, and the "
             "analysis should use the exact test (fisher)")  # fmt: skip


def _relative(effect: float, baseline: float) -> float:
    """An effect relative to the control's value: undefined (NaN) when that is 0."""
    return effect / baseline if baseline else math.nan


def _check_level(value: float, name: str) -> None:
    if not (isinstance(value, int | float) and 0 < value < 1):
        raise _error(f"{{}} must lie strictly between 0 and 1, got {shown(value)}", name)


def _number(given: dict[str, Any], name: str, kind: str) -> float:
    value = given[name]
    if value is None:
        raise _error(f"a {kind} needs {{}} (the control's)", name)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _error(f"{{}} must be a finite number, got {shown(value)}", name)
    return float(value)


def _baseline(kind: str, given: dict[str, Any]) -> tuple[float, float]:
    """The control's value and a unit's standard deviation, from the inputs of ``kind``."""
    if kind == "mean":
        mean, sd = _number(given, "mean", kind), _number(given, "sd", kind)
        if sd <= 0:
            raise _error(f"{{}} must be positive, got {shown(sd)}", "sd")
        return mean, sd
    if kind == "proportion":
        rate = _number(given, "rate", kind)
        if not 0 < rate < 1:
            raise _error(f"{{}} must lie strictly between 0 and 1, got {shown(rate)}", "rate")
        return rate, math.sqrt(rate * (1 - rate))
    pilot = given["numerator"] is not None or given["denominator"] is not None
    if pilot:
        if given["numerator"] is None or given["denominator"] is None:
            raise UsageError("a ratio's pilot needs both numerator= and denominator=")
        if any(given[name] is not None for name in MOMENTS):
            raise UsageError("give a ratio's pilot arrays (numerator=, denominator=) or its "
                             "moments, not both")  # fmt: skip
        estimate = ratio_estimate(given["numerator"], given["denominator"])
        if estimate.variance == 0:
            raise UsageError("the pilot's ratio does not vary between units: there is nothing "
                             "to plan")  # fmt: skip
        return estimate.value, math.sqrt(estimate.variance * estimate.n)
    mean_x, sd_x, mean_y, sd_y = (_number(given, name, kind) for name in MOMENTS[:4])
    correlation = 0.0 if given["correlation"] is None else _number(given, "correlation", kind)
    unit_sd = ratio_unit_sd(mean_x, sd_x, mean_y, sd_y, correlation)  # (checks mean_y ≠ 0)
    return mean_x / mean_y, unit_sd


def _effect(mde: float | None, relative_mde: float | None, baseline: float) -> float | None:
    """The absolute effect asked for (``mde``, or ``relative_mde`` × the baseline)."""
    if mde is not None and relative_mde is not None:
        raise _error("{} and {} are two ways to give one effect: give one", "mde", "relative_mde")
    name, value = ("mde", mde) if relative_mde is None else ("relative_mde", relative_mde)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _error(f"{{}} must be a finite number, got {shown(value)}", name)
    if value == 0:
        raise _error("{} is 0: no experiment detects no effect", name)
    if name == "relative_mde" and baseline == 0:
        raise _error("the control's value is 0: give {} instead of {}", "mde", "relative_mde")
    return float(value) if name == "mde" else float(value) * baseline


def _split_units(units: int, arms: tuple[float, ...]) -> tuple[int, ...]:
    """``units`` shared by the arms' shares, each arm's rounded down."""
    if isinstance(units, bool) or int(units) != units or units < 1:
        raise _error(f"{{}} must be a positive whole number, got {shown(units)}", "units")
    sizes = tuple(math.floor(share * int(units) + 1e-9) for share in arms)
    if min(sizes) < 1 or sizes[0] + min(sizes[1:]) < 3:
        raise _error(f"{{}} {int(units)} leave too few units in an arm of the split", "units")
    return sizes


@dataclass(frozen=True)
class _Solver:
    """The power, sample size and MDE of one kind's test at one level, for an effect
    (treatment − control) and a control arm of ``n`` units with ``ratio`` · n treated."""

    kind: str
    baseline: float
    sd: float
    level: float
    alternative: str

    def _rate(self, effect: float) -> float:
        rate = self.baseline + effect
        if not 0 < rate < 1:
            raise _error(f"the control's rate {shown(self.baseline)} and the effect "
                         f"{shown(effect)} make the treatment's {shown(rate)}, not a rate: "
                         "give a smaller {}", "mde")  # fmt: skip
        return rate

    def power(self, effect: float, n: int, ratio: float) -> float:
        if self.kind == "proportion":
            return power_two_proportions(self.baseline, self._rate(effect), n, self.level,
                                         self.alternative, ratio)  # fmt: skip
        return power_unpaired_t(effect / self.sd, n, self.level, self.alternative, ratio)

    def control_units(self, effect: float, power: float, ratio: float) -> int:
        if (self.alternative == "greater" and effect < 0) or (
            self.alternative == "less" and effect > 0
        ):
            raise UsageError(f"a {self.alternative!r} test cannot detect an effect of "
                             f"{shown(effect)}: change the sign or the alternative")  # fmt: skip
        if self.kind == "proportion":
            return sample_size_two_proportions(self.baseline, self._rate(effect), power,
                                               self.level, self.alternative, ratio)  # fmt: skip
        return sample_size_unpaired_t(effect / self.sd, power, self.level, self.alternative,
                                      ratio)[0]  # fmt: skip

    def effect(self, n: int, power: float, ratio: float) -> float:
        if self.kind == "proportion":
            found = mde_two_proportions(self.baseline, n, power, self.level, self.alternative,
                                        ratio)  # fmt: skip
            return found - self.baseline
        return mde_unpaired_t(n, power, self.level, self.alternative, ratio) * self.sd


__all__ = ["KINDS", "Comparison", "Plan", "plan", "shares"]
