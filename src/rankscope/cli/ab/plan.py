"""plan an experiment: the units it needs, the smallest effect it detects, or its power

rankscope ab plan KIND: give two of units (--units, the total over every arm), an effect
(--mde, treatment - control; or --relative-mde, 0.05 for +5%) and power (--power), and the
third is computed.  Without --power, 0.8 is assumed unless both --units and an effect are
given: then the power is what is computed.

What each KIND needs (the control's metric, from past data):
  mean          --mean and --sd: a value per unit (revenue, dwell time), the two-sample
                t-test
  proportion    --rate: 0 or 1 per unit (converted, clicked), the two-proportion z-test
  ratio         --numerator-mean, --numerator-sd, --denominator-mean, --denominator-sd and
                --correlation (default 0): a ratio of per-unit sums (clicks / impressions
                per user), the delta method's test, which treats the user, not the
                impression, as the unit

--split gives the arms' shares, the control first (default 50,50); with k treatments
(1,1,1: two) each is tested against the control at alpha/k (Bonferroni), and the units
are those every comparison needs.  Formulas: the section "Planning" of experiments.md.
"""

from __future__ import annotations

import argparse
import sys

from .. import options

EXAMPLES = (
    "examples:\n"
    "  rankscope ab plan proportion --rate 0.10 --relative-mde 0.05\n"
    "  rankscope ab plan mean --mean 12.5 --sd 30 --units 40000\n"
    "  rankscope ab plan mean --mean 12.5 --sd 30 --units 40000 --mde 1 --split 1,1,1\n"
    "  rankscope ab plan ratio --numerator-mean 2 --numerator-sd 3 --denominator-mean 20 "
    "--denominator-sd 10 --correlation 0.5 --relative-mde 0.05 --power 0.9\n"
)

#: The kinds of metric (`rankscope.experiment.plan.KINDS`, repeated: building the parser
#: imports nothing; tests/test_ab_plan.py checks they agree).
KINDS = ("mean", "proportion", "ratio")
ALTERNATIVES = ("two-sided", "greater", "less")


def _positive(text: str) -> float:
    value = options.real(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    p.add_argument("kind", choices=KINDS, metavar="KIND", help="mean, proportion or ratio")
    options.add_all(p, (
        Option(("--units",), "units", "the units of every arm together", type=options.whole(3),
               metavar="N"),
        Option(("--mde",), "mde", "the effect to detect: treatment - control (negative with "
               "--alternative less)", type=options.real, metavar="EFFECT"),
        Option(("--relative-mde",), "relative_mde", "the effect to detect relative to the "
               "control: 0.05 for +5%%", type=options.real, metavar="LIFT"),
        options.POWER.worded("the power to reach (default 0.8, unless --units and an effect "
                             "are given: then it is computed)"),
        options.ALPHA.worded("significance level of all the comparisons together (default "
                             "0.05)"),
        options.SPLIT,
        Option(("--alternative",), "alternative", "two-sided (default), greater (the "
               "treatment is higher) or less", choices=ALTERNATIVES, default="two-sided"),
        options.FORMAT.worded(choices=("table", "markdown", "csv", "json")),
    ))  # fmt: skip
    control = p.add_argument_group("the control's metric (from past data)")
    options.add_all(control, (
        Option(("--mean",), "mean", "mean: the mean per unit", type=options.real),
        Option(("--sd",), "sd", "mean: the standard deviation per unit", type=_positive),
        Option(("--rate",), "rate", "proportion: the rate", type=options.probability),
        Option(("--numerator-mean",), "numerator_mean", "ratio: the numerator's mean per unit "
               "(clicks per user)", type=options.real, metavar="MEAN"),
        Option(("--numerator-sd",), "numerator_sd", "ratio: the numerator's standard "
               "deviation per unit", type=options.real, metavar="SD"),
        Option(("--denominator-mean",), "denominator_mean", "ratio: the denominator's mean per "
               "unit (impressions per user)", type=options.real, metavar="MEAN"),
        Option(("--denominator-sd",), "denominator_sd", "ratio: the denominator's standard "
               "deviation per unit", type=options.real, metavar="SD"),
        Option(("--correlation",), "correlation", "ratio: the correlation of numerator and "
               "denominator per unit (default 0)", type=options.real, metavar="RHO"),
    ))  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from ...experiment import plan
    from ...report.plans import format_plan

    inputs = ("mean", "sd", "rate", "numerator_mean", "numerator_sd", "denominator_mean",
              "denominator_sd", "correlation")  # fmt: skip
    planned = plan(
        args.kind, units=args.units, mde=args.mde, relative_mde=args.relative_mde,
        power=args.power, alpha=args.alpha, split=args.split, alternative=args.alternative,
        **{name: getattr(args, name) for name in inputs},
    )  # fmt: skip
    sys.stdout.write(format_plan(planned, args.format))
    return 0
