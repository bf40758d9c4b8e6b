"""Bad-input cases of ``rankscope ab`` (issue 23): the experiment reader's three shapes (one
row per unit, an event log, summary counts) and one file per variant, the analysis' checks
(a constant metric, an unknown baseline, a split of the wrong length, a test that does not
fit the metric), the sample-ratio mismatch that withholds the verdict, and hostile ids."""

from __future__ import annotations

from typing import Any

HEADER = b"user\tvariant\tclicks\trevenue\n"
UNITS = HEADER + b"".join(
    b"u%d\t%s\t%d\t%d.5\n" % (i, b"control" if i % 2 else b"treatment", i % 3, i % 5)
    for i in range(40)
)
COUNTS = b"variant,trials,conversions\ncontrol,1000,40\ntreatment,1000,52\n"
EVENTS = (
    b"unit,variant,metric,value\n"
    + b"".join(b"u%d,%s,click,%d\n" % (i, b"A" if i % 2 else b"B", i % 3) for i in range(30))
)


def declare(make: Any) -> None:
    case = make.case

    def ab(name: str, family: str, data: bytes, kind: str, expect: list[str],
           options: tuple[str, ...] = (), file: str = "exp.tsv", **extra: Any) -> None:
        """``rankscope ab [options] @file``."""
        case(name, family, "experiment", {file: data}, ["ab", *options, f"@{file}"], kind,
             expect, **extra)  # fmt: skip

    # -- one row per unit ----------------------------------------------------------------
    ab("ab-unit-in-two-variants", "structure", HEADER + b"u1\tA\t1\t2\nu2\tB\t0\t1\nu1\tB\t1\t1\n",
       "error", ["exp.tsv:2 and", "exp.tsv:4: unit 'u1' is in two variants, 'A' and 'B'"])
    ab("ab-unit-listed-twice", "structure", HEADER + b"u1\tA\t1\t2\nu2\tB\t0\t1\nu1\tA\t1\t1\n",
       "error", ["exp.tsv:4: unit 'u1' is listed twice"])
    ab("ab-one-variant", "structure", HEADER + b"u1\tA\t1\t2\nu2\tA\t0\t1\n", "error",
       ["every unit is in variant 'A'", "two variants or more"])
    ab("ab-no-variant-column", "structure", b"user\tclicks\nu1\t1\nu2\t0\n", "error",
       ["no variant column in the header", "--columns variant=NAME"])
    ab("ab-text-metric", "syntax", b"user\tvariant\tclicks\tcountry\nu1\tA\t1\tus\nu2\tB\t0\tde\n",
       "error", ["exp.tsv:2: country 'us' is not a number", "--columns stratum=NAME"])
    ab("ab-covariate-without-metric", "structure",
       b"user\tvariant\tclicks\tpre_spend\nu1\tA\t1\t2\nu2\tB\t0\t1\n", "error",
       ["'pre_spend' is the pre-experiment covariate of a metric 'spend'"])
    ab("ab-nan-metric", "syntax", HEADER + b"u1\tA\t1\t2\nu2\tB\tnan\t1\n", "error",
       ["exp.tsv:3: clicks 'nan' is not finite"])
    ab("ab-empty-cell", "syntax", HEADER + b"u1\tA\t1\t2\nu2\tB\t\t1\n", "error", ["exp.tsv:3"])
    ab("ab-header-only", "empty", HEADER, "error", ["no units found after the header"])
    ab("ab-empty-file", "empty", b"", "error", ["no units found"])
    ab("ab-no-header", "structure", b"u1\tA\t1\nu2\tB\t0\n", "error", ["no header line"])
    ab("ab-constant-metric", "degenerate",
       HEADER + b"".join(b"u%d\t%s\t1\t%d\n" % (i, b"AB"[i % 2 : i % 2 + 1], i) for i in range(8)),
       "error", ["clicks"], options=("--metric", "clicks"))

    # -- summary counts ------------------------------------------------------------------
    ab("ab-counts-negative", "range", b"variant,trials,conversions\nA,100,-2\nB,90,3\n", "error",
       ["exp.csv:2: conversions -2 is negative"], file="exp.csv")
    ab("ab-counts-over-trials", "range", b"variant,trials,conversions\nA,10,12\nB,90,3\n",
       "error", ["exp.csv:2: conversions 12 exceeds the trials (10)"], file="exp.csv")
    ab("ab-counts-variant-without-units", "degenerate",
       b"variant,trials,conversions\nA,100,2\nB,0,0\n", "error",
       ["exp.csv:3: variant 'B' has no units (trials 0)"], file="exp.csv")
    ab("ab-counts-twice", "structure", b"variant,trials,conversions\nA,100,2\nA,90,3\n", "error",
       ["variant 'A' is listed twice in summary counts"], file="exp.csv")
    ab("ab-counts-not-whole", "syntax", b"variant,trials,conversions\nA,100.5,2\nB,90,3\n",
       "error", ["exp.csv:2: trials '100.5' is not an integer"], file="exp.csv")

    # -- event logs ----------------------------------------------------------------------
    ab("ab-events-two-variants", "structure",
       b"unit,variant,metric,value\nu1,A,click,1\nu2,B,click,0\nu1,B,click,1\n", "error",
       ["exp.csv:2 and", "exp.csv:4: unit 'u1' is in two variants"], file="exp.csv")

    # -- the analysis' options -----------------------------------------------------------
    ab("ab-unknown-baseline", "usage", UNITS, "error",
       ["--baseline old names no variant", "control", "treatment"], options=("--baseline", "old"))
    ab("ab-split-wrong-length", "usage", UNITS, "error", ["split"],
       options=("--split", "50,30,20"))
    case("ab-ratio-syntax", "usage", "experiment", {"exp.tsv": UNITS},
         ["ab", "analyse", "--ratio", "ctr", "@exp.tsv"], "usage", ["NAME=NUMERATOR/DENOMINATOR"])
    ab("ab-ratio-unknown-part", "usage", UNITS, "error", ["impressions"],
       options=("--ratio", "ctr=clicks/impressions"))
    ab("ab-html-over-input", "usage", UNITS, "error", ["exp.tsv"],
       options=("--html", "exp.tsv", "--force"))

    # -- sample-ratio mismatch: the verdict is withheld ----------------------------------
    skewed = b"variant,trials,conversions\ncontrol,1000,40\ntreatment,1300,52\n"
    ab("ab-srm-withheld", "degenerate", skewed, "output", ["withheld"], file="exp.csv")
    ab("ab-counts-run", "clean", COUNTS, "output", ["conversions", "treatment"], file="exp.csv")
    ab("ab-events-run", "clean", EVENTS, "output", ["click"], file="exp.csv")

    # -- ids shown to a person -----------------------------------------------------------
    hostile = b"variant,trials,conversions\n\x1b[31mred,1000,40\nb,1000,52\n"
    ab("ab-hostile-variant", "ids", hostile, "output", ["\\x1b[31mred"], file="exp.csv",
       forbid=["\x1b[31m"])
