"""analyse an A/B or multi-arm experiment: each variant against the control, on each metric

Input, one of (the header names the columns; --columns names them otherwise):
  one row per unit   unit, variant, one column per metric (clicks, revenue, a 0/1
                     conversion), optionally pre_<metric> (the metric before the experiment:
                     CUPED), a stratum and a timestamp; without a unit column each row is a unit
  an event log       unit, variant, metric, value [, timestamp]: summed per unit and metric
  summary counts     variant, trials and the successes of each metric: the tests of rates
  one file per variant, as VARIANT=FILE: the units of each variant logged apart

What it prints, in this order:
  1. the sample-ratio check: the units per variant against the planned --split (default
     equal), a chi-square test; below p = 0.001 the assignment is broken and no verdict is
     given (--allow-mismatch gives it anyway, saying so)
  2. per metric and variant: the control's and the variant's values, the difference and the
     relative lift, each with its 95% interval (1 - alpha), the p-value, the p-value corrected
     over the variants (--correction, Holm by default) and the decision
  A metric of 0s and 1s is a rate (two-proportion z test by default: --test chi-square,
  chi-square-yates, fisher); any other a mean (Welch's t-test: --test student, mann-whitney,
  bootstrap); a ratio (--ratio ctr=clicks/impressions) is tested by the delta method, which
  stays valid when a user saw many impressions.  With pre_<metric> columns CUPED reduces the
  variance, with a stratum post-stratification does; the table says by how much.  With a
  timestamp: the cumulative curve of always-valid p-values and confidence sequences (peek as
  often as you like), and with --looks N the group-sequential boundaries of N planned looks.
"""

from __future__ import annotations

import argparse
import sys

from .. import options

#: `rankscope.report.experiments.FORMATS`, repeated so that building the parser imports
#: nothing heavy (a test checks they agree).
FORMATS = ("table", "markdown", "csv", "json")

EXAMPLES = """\
examples:
  rankscope ab --metric converted --metric revenue --split 50,50 experiment.tsv
  rankscope ab --ratio ctr=clicks/impressions --baseline old --html ab.html experiment.csv
  rankscope ab --metric click random=random.csv.gz bts=bts.csv.gz
"""


def ratio(text: str) -> tuple[str, tuple[str, str]]:
    """An option's type: a ratio metric, ``NAME=NUMERATOR/DENOMINATOR``."""
    name, sep, parts = text.partition("=")
    numerator, slash, denominator = parts.partition("/")
    if not (sep and slash and name.strip() and numerator.strip() and denominator.strip()):
        raise argparse.ArgumentTypeError(
            f"expected NAME=NUMERATOR/DENOMINATOR (ctr=clicks/impressions), got {text!r}"
        )
    return name.strip(), (numerator.strip(), denominator.strip())


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    p.add_argument("sources", nargs="+", metavar="FILE",
                   help="the experiment (TSV, CSV, .gz, Parquet; '-' standard input), or one "
                   "VARIANT=FILE per variant")  # fmt: skip
    options.add_all(p, (
        Option(("--metric",), "metrics", "a metric column to analyse; repeatable (default: "
               "every column that is not unit, variant, stratum or timestamp)",
               action="append", metavar="NAME"),
        Option(("--ratio",), "ratios", "a ratio metric NAME=NUMERATOR/DENOMINATOR of two metric "
               "columns, Σ numerator / Σ denominator per variant (delta method); repeatable",
               type=ratio, action="append", metavar="NAME=NUM/DEN"),
        options.BASELINE.worded("the control variant, which the others are compared with "
                                "(default: one called control, else the first)",
                                metavar="VARIANT"),
        options.SPLIT,
        options.TEST.worded("the test of means (welch, default; student, mann-whitney, "
                            "bootstrap) or of 0/1 metrics (z, default; chi-square, "
                            "chi-square-yates, fisher): %(choices)s; repeatable, one of each kind",
                            choices=options.StatisticalTests("experiment"), action="append",
                            default=None),
        options.CORRECTION.worded("correction over the variants compared with the control "
                                  "(default holm; dunnett, for means, is Dunnett's many-to-one "
                                  "test; bh controls the false discovery rate)"),
        options.ALPHA,
        Option(("--allow-mismatch",), "allow_mismatch", "give a verdict even when the sample "
               "ratio is off (p < 0.001; the output says so)", action="store_true"),
        Option(("--no-cuped",), "cuped", "no CUPED, even with pre_<metric> columns",
               action="store_false", default=True),
        Option(("--no-stratify",), "stratify", "no post-stratification, even with a stratum "
               "column", action="store_false", default=True),
        Option(("--lift-interval",), "lift_interval", "the relative lift's interval: fieller "
               "(default; exact, asymmetric) or delta", choices=("fieller", "delta"),
               default="fieller"),
        Option(("--looks",), "looks", "planned looks of a group-sequential design, equally spaced "
               "over the units by timestamp (needs a timestamp column)", type=options.whole(1, 100),
               metavar="N"),
        Option(("--spending",), "spending", "the group-sequential alpha-spending function "
               "(default obrien-fleming)", choices=("obrien-fleming", "pocock"),
               default="obrien-fleming"),
        options.PERMUTATIONS.worded("resamples of the bootstrap test (10000)"),
        options.SEED.worded("seed of the bootstrap test (default 0)"),
        options.COLUMNS.worded("the columns by role where the header names them otherwise: "
                               "unit, variant, stratum, timestamp, metric, value, trials"),
        options.FORMAT.worded("output format (default table; csv and json carry every field at "
                              "full precision)", choices=FORMATS),
        Option(("--html",), "html", "also write the HTML report", metavar="FILE"),
        options.FORCE,
    ))  # fmt: skip


def sources(given: list[str]) -> str | list[tuple[str, str]]:
    """One file, or ``[(variant, file), ...]`` from ``VARIANT=FILE`` arguments."""
    from ...errors import UsageError

    if len(given) == 1 and "=" not in given[0]:
        return given[0]
    pairs = []
    for text in given:
        name, sep, path = text.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"give one FILE, or one VARIANT=FILE per variant; got {text!r}")
        pairs.append((name, path))
    return pairs


def run(args: argparse.Namespace) -> int:
    from ...api.experiments import analyse_experiment
    from ...report.experiments import format_experiment, write_experiment_html

    given = sources(args.sources)
    files = [given] if isinstance(given, str) else [path for _, path in given]
    options.check_outputs(args, {"--html": args.html}, inputs=files)
    result = analyse_experiment(
        given, metrics=args.metrics, ratios=dict(args.ratios or ()), baseline=args.baseline,
        split=args.split, test=args.test or (), alpha=args.alpha, correction=args.correction,
        allow_mismatch=args.allow_mismatch, cuped=args.cuped, stratify=args.stratify,
        lift_interval=args.lift_interval, looks=args.looks, spending=args.spending,
        permutations=args.permutations, seed=args.seed, columns=args.columns,
    )  # fmt: skip
    sys.stdout.write(format_experiment(result, args.format))
    if args.html:
        write_experiment_html(result, args.html)
    return 0
