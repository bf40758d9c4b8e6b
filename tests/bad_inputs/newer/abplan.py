"""``rankscope ab plan``: the inputs of a plan (issue 23).  It reads no file: its bad inputs
are options — a missing or surplus unknown, an input of another kind of metric, values out
of range, an impossible rate, a split that is not one — each refused with a message naming
the option; and a plan so small that its test's approximation is rough, warned."""

from __future__ import annotations

RATE = ["ab", "plan", "proportion", "--rate", "0.1"]
MEAN = ["ab", "plan", "mean", "--mean", "10", "--sd", "2"]
RATIO = ["ab", "plan", "ratio", "--numerator-mean", "2", "--numerator-sd", "3",
         "--denominator-mean", "20", "--denominator-sd", "10"]  # fmt: skip


def declare(make) -> None:
    def plan_case(name, family, args, kind, expect=None):
        make.case(f"ab-plan-{name}", family, "options", {}, args, kind, expect)

    # what to solve for
    plan_case("nothing-to-solve", "options", [*MEAN, "--units", "100", "--mde", "1",
              "--power", "0.8"], "error",
              ["--units, an effect and --power are all given"])  # fmt: skip
    plan_case("two-unknowns", "options", MEAN, "error",
              ["--units or an effect (--mde, --relative-mde) is needed"])  # fmt: skip
    plan_case("two-effects", "options", [*MEAN, "--mde", "1", "--relative-mde", "0.1"], "error",
              ["--mde and --relative-mde are two ways to give one effect"])  # fmt: skip
    plan_case("zero-effect", "numbers", [*MEAN, "--mde", "0"], "error", ["--mde is 0"])
    plan_case("wrong-sign", "numbers", [*MEAN, "--mde", "-1", "--alternative", "greater"],
              "error", ["a 'greater' test cannot detect an effect of -1.0"])  # fmt: skip
    # the metric's inputs
    plan_case("input-of-another-kind", "options", [*RATE, "--sd", "2", "--mde", "0.01"],
              "error", ["--sd is not an input of a proportion (it takes --rate)"])  # fmt: skip
    plan_case("mean-without-sd", "options", ["ab", "plan", "mean", "--mean", "3", "--mde", "1"],
              "error", ["a mean needs --sd"])  # fmt: skip
    plan_case("ratio-without-moment", "options", [*RATIO[:-2], "--mde", "0.01"], "error",
              ["a ratio needs --denominator-sd"])  # fmt: skip
    plan_case("ratio-correlation-above-one", "numbers",
              [*RATIO, "--correlation", "1.5", "--mde", "0.01"], "error",
              ["--correlation must be in [-1, 1], got 1.5"])  # fmt: skip
    plan_case("ratio-denominator-mean-zero", "numbers",
              [*RATIO[:8], "0", *RATIO[9:], "--mde", "0.01"], "error",
              ["--denominator-mean is 0: the ratio is undefined"])  # fmt: skip
    plan_case("rate-beyond-one", "numbers", [*RATE, "--mde", "0.95"], "error",
              ["make the treatment's 1.05, not a rate: give a smaller --mde"])  # fmt: skip
    plan_case("relative-effect-of-zero-mean", "numbers",
              ["ab", "plan", "mean", "--mean", "0", "--sd", "1", "--relative-mde", "0.1"],
              "error",
              ["the control's value is 0: give --mde instead of --relative-mde"])  # fmt: skip
    plan_case("too-few-units", "numbers", [*RATE, "--units", "4", "--split", "1,1,1"], "error",
              ["--units 4 leave too few units in an arm of the split"])  # fmt: skip
    plan_case("unreachable-power", "numbers", [*RATE, "--units", "6", "--power", "0.99"],
              "error", ["reaches power 0.99", "give more users"])  # fmt: skip
    # values the parser refuses
    for name, option, value, words in [
        ("power-one", "--power", "1", "must lie strictly between 0 and 1"),
        ("power-zero", "--power", "0", "must lie strictly between 0 and 1"),
        ("alpha-negative", "--alpha", "-0.05", "must lie strictly between 0 and 1"),
        ("split-one-share", "--split", "100", "a share for the control and for each treatment"),
        ("split-zero-share", "--split", "50,0", "every share must be positive"),
        ("split-word", "--split", "50,half", "expected a finite number, got 'half'"),
        ("split-nan", "--split", "50,nan", "expected a finite number, got 'nan'"),
        ("units-two", "--units", "2", "must be at least 3"),
        ("units-real", "--units", "1e4", "expected a whole number"),
        ("mde-inf", "--mde", "inf", "expected a finite number"),
    ]:
        plan_case(name, "options", [*RATE, option, value], "usage",
                  [f"argument {option}", words])  # fmt: skip
    plan_case("rate-one", "options", ["ab", "plan", "proportion", "--rate", "1", "--mde", "0.1"],
              "usage", ["argument --rate", "must lie strictly between 0 and 1"])  # fmt: skip
    plan_case("sd-zero", "options", ["ab", "plan", "mean", "--mean", "1", "--sd", "0",
              "--mde", "1"], "usage", ["argument --sd: must be positive"])  # fmt: skip
    plan_case("unknown-kind", "names", ["ab", "plan", "median", "--mean", "1"], "usage",
              ["argument KIND: invalid choice: 'median'"])  # fmt: skip
    plan_case("no-subcommand", "names", ["ab"], "error",
              ["rankscope ab needs a file, or a subcommand: analyse, plan"])
    # legal but surprising: warned, and planned
    plan_case("few-expected-successes", "numbers",
              ["ab", "plan", "proportion", "--rate", "0.02", "--units", "200"], "warning",
              ["expects 2 successes or failures, fewer than 5", "fisher"])  # fmt: skip
    plan_case("split-in-percent-and-shares", "structure",
              [*RATE, "--relative-mde", "0.1", "--split", "50,50", "--format", "csv"], "output",
              ["proportion,units,two-sided,0.05,0.05,0.1,"])  # fmt: skip
