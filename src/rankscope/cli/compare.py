"""compare runs with evidence: means, differences, corrected significance, effect sizes

Is each run better than the baseline (the first run unless --baseline names another), by how
much, how sure are we, and on how many queries? Per measure (default AP, nDCG@10, P@10, RR,
R@100; preference methods such as RPP too): the mean and its 95% interval, the difference
and relative change, the p-value of a paired test corrected over the comparisons, Cohen's
d_z and wins/ties/losses over queries. Every judged query counts, a run that did not rank
one scoring 0 on it (trec_eval -c), unless --common-queries.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from . import options, segments

#: `rankscope.report.compare.FORMATS`, repeated so that building the parser imports nothing
#: heavy (a test checks they agree); the tests come from their table
#: (`options.StatisticalTests`), the corrections from the glossary (`options.CORRECTION`).
FORMATS = ("table", "markdown", "csv", "json", "latex")

EXAMPLES = """\
examples:
  rankscope compare qrels.txt bm25.run dense.run
  rankscope compare -m nDCG@10 -m RPP --baseline bm25 --test randomization qrels.txt runs/
  rankscope compare --all-pairs --test randomized-tukey --format markdown qrels.txt runs/
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    options.judgments_and_runs(p, runs="TREC run files or directories (at least two runs)")
    add_comparison_options(p)
    options.add_all(p, (
        options.FORMAT.worded("output format (default table; csv and json carry every field at "
                              "full precision)", choices=FORMATS),
        Option(("--html",), "html", "also write the HTML report (rankscope report)",
               metavar="FILE"),
        options.JOBS,
        options.FORCE,
    ))  # fmt: skip
    segments.add_arguments(p)


def add_comparison_options(p: argparse.ArgumentParser, all_pairs: bool = True) -> None:
    """The options of a comparison, shared by ``rankscope compare`` and ``rankscope report``."""
    Option = options.Option
    options.add_all(p, (
        options.MEASURE.worded("a measure or preference method (nDCG@10, ndcg_cut.10, RPP, ...); "
                               "repeatable, in the order of the columns; default AP, nDCG@10, "
                               "P@10, RR, R@100"),
        options.BASELINE,
    ))  # fmt: skip
    if all_pairs:
        p.add_argument(
            "--all-pairs", action="store_true",
            help="compare every pair of runs instead of each run with a baseline",
        )  # fmt: skip
    options.add_all(p, (
        options.TEST.worded("statistical test: %(choices)s (default t; randomization, also called "
                            "permutation, is exact up to 20 queries; randomized-tukey controls the "
                            "family-wise error itself)", choices=options.StatisticalTests("runs")),
        options.P_VALUE_CORRECTION,
        options.ALPHA,
        options.SEED.worded("seed of the random tests (default 0)"),
        options.PERMUTATIONS,
        Option(("--common-queries",), "common_queries", "only the queries every run ranked "
               "(default: every judged query, missing = 0)", action="store_true"),
        options.NAMES,
        options.RELEVANCE_LEVEL,
        options.MAX_DOCS.worded("use only the top N documents of each ranking"),
        options.TIE,
        options.DUPLICATE,
    ))  # fmt: skip


def compared(
    args: argparse.Namespace, qrels: Any = None, runs: Any = None, *, curves: bool
) -> Any:
    """The comparison the parsed options ask for (`rankscope.compare`); ``qrels`` and
    ``runs``, when given, are the judgments and runs already read from the arguments;
    ``curves``: whether an output shows the precision–recall curves and recall levels (the
    HTML report), which are computed only then."""
    from ..api import compare
    from ..read.trec import run_files

    if runs is None:  # a qrels file inside a runs directory is not a run
        runs = run_files(args.runs, judgments=args.qrels)
    return compare(
        args.qrels if qrels is None else qrels, runs, args.measures or None,
        baseline=args.baseline,
        all_pairs=getattr(args, "all_pairs", False), test=args.test,
        correction=args.correction, alpha=args.alpha, permutations=args.permutations,
        seed=args.seed, common_queries=args.common_queries, relevance_level=args.relevance_level,
        ties=args.ties, max_docs=args.max_docs, duplicates=args.duplicates, names=args.names,
        curves=curves, jobs=getattr(args, "jobs", None),
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from ..report.compare import format_comparison

    options.check_outputs(args, {"--html": args.html})
    segments.check(args)
    result = compared(args, curves=bool(args.html))
    output = format_comparison(result, args.format)
    if segments.asked(args):
        from ..table.aggregate import comparison_table

        output = segments.appended(args, output, comparison_table(result), args.format)
    sys.stdout.write(output)
    if args.html:
        result.to_html(args.html, topics=options.topics(args))
    return 0
