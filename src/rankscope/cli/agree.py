"""measure how far assessors agree, and merge their labels into one qrels file

Reads labels of several assessors, one per line: qid assessor docno grade (TREC qrels whose
second column names the assessor; '#' comments and blank lines skipped; a negative grade,
TREC's "not judged", is no label).  Prints, over all documents and with -q per query: the
documents labelled (items), assessors, labels, pairable items (with two labels or more),
percent agreement (a proportion), Cohen's kappa (exactly two assessors; --kappa-weights for
ordinal grades), Fleiss' kappa (the same number of labels for every document) and
Krippendorff's alpha (missing labels allowed; --level).  '-' marks a statistic that does
not apply, 'nan' one that is undefined (one grade only).

--to-qrels majority|mean -o QRELS writes one grade per document: the majority vote, or
the mean grade rounded to the nearest; ties (two grades with as many votes, a mean of 1.5)
go to the lower grade (--tie-break higher: the higher), with a warning counting them.  The
file is TREC qrels, read by rankscope eval; '-o -' writes it to standard output instead of
the agreement.
"""

from __future__ import annotations

import argparse
import sys

from . import options

EXAMPLES = """\
examples:
  rankscope agree labels.txt -q
  rankscope agree --level ordinal --kappa-weights linear --format csv labels.txt
  rankscope agree labels.txt --to-qrels majority -o qrels.txt
"""

#: `rankscope.stats.agreement.ALPHA_LEVELS` and `rankscope.table.agreement.AGGREGATIONS`,
#: `TIE_BREAKS` (repeated: building the parser imports nothing; a test checks they agree).
LEVELS = ("nominal", "ordinal", "interval", "ratio")
AGGREGATIONS = ("majority", "mean")
TIE_BREAKS = ("lower", "higher")
WEIGHTS = ("none", "linear", "quadratic")


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    p.add_argument(
        "labels", help="labels file: qid assessor docno grade per line ('-': standard input)"
    )
    options.add_all(p, (
        Option(("--level",), "scale", "Krippendorff's alpha's level of measurement (default "
               "nominal; ordinal, interval and ratio weigh a disagreement by how far apart the "
               "grades are)", choices=LEVELS, default=LEVELS[0]),
        Option(("--kappa-weights",), "kappa_weights", "Cohen's kappa's weights (default none; "
               "linear or quadratic for ordinal grades, by their distance on the sorted grades)",
               choices=WEIGHTS, default=WEIGHTS[0]),
        options.PER_QUERY.worded("also the agreement on each query"),
        options.FORMAT.worded(choices=("table", "csv", "json")),
        Option(("--to-qrels",), "to_qrels", "also write one grade per document to -o: the majority "
               "vote or the rounded mean", choices=AGGREGATIONS),
        Option(("--tie-break",), "tie_break", "with --to-qrels, the grade of a tie (two grades "
               "with as many votes, a mean halfway between two): lower (default) or higher",
               choices=TIE_BREAKS, default=TIE_BREAKS[0]),
        options.OUTPUT.worded("the qrels file --to-qrels writes ('-': standard output, instead of "
                              "the agreement)", metavar="QRELS"),
        options.FORCE,
    ))  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from ..errors import UsageError

    if (args.to_qrels is None) != (args.output is None):
        raise UsageError(
            "--to-qrels needs -o QRELS" if args.output is None else "-o needs --to-qrels"
        )
    options.check_outputs(args, {"--output": args.output})

    from ..api.agreement import agreement, read_labels, to_qrels
    from ..atomic import write_atomically
    from ..report.agreement import format_agreement
    from ..report.files import format_qrels

    labels = read_labels(args.labels)
    weights = None if args.kappa_weights == "none" else args.kappa_weights
    result = agreement(labels, scale=args.scale, kappa_weights=weights)
    if args.to_qrels is not None:
        text = format_qrels(to_qrels(labels, args.to_qrels, tie_break=args.tie_break))
        if args.output == "-":
            sys.stdout.write(text)
            return 0
        write_atomically(args.output, text, newline="\n")
    sys.stdout.write(format_agreement(result, args.format, per_query=args.per_query))
    return 0
