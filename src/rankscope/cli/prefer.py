"""compare runs by preferences (recall-paired preference and relatives)

Preferences between every pair of runs (Diaz & Ferraro, SIGIR 2022): prints the mean
preference matrix and the runs ordered by an aggregation of the per-query preferences.
"""

from __future__ import annotations

import argparse
import sys

from . import options

EXAMPLES = """\
examples:
  rankscope prefer qrels.txt runs/
  rankscope prefer -m gRPP -m lexiprecision --ordering borda qrels.txt runs/
  rankscope prefer -m 'OI(browsing=dcg)' --format csv qrels.txt bm25.run dense.run
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    options.judgments_and_runs(p, runs="TREC run files or directories (at least two runs)")
    options.add_all(p, (
        options.MEASURE.worded("RPP, dcgRPP, invRPP, gRPP, gRPP(p=dcg), stRPP (diversity "
                               "judgments), lexiprecision, rrlexiprecision, lexirecall, OI "
                               "(offline interleaving; OI(interleaving=balanced,browsing=dcg)); "
                               "repeatable; default RPP"),
        Option(("--learned",), "learned", "also RPP with weights learned from labelled "
               "preferences, saved by rankscope clicks learn --save FILE; repeatable",
               action="append", default=[], metavar="FILE"),
        Option(("--ordering",), "ordering", "how per-query preferences become one ordering of the "
               "runs (default mc4, the authors')",
               choices=("mc4", "mc4-converged", "borda", "mean", "bradley-terry"), default="mc4"),
        options.PER_QUERY.worded("also per-query orderings"),
        options.RELEVANCE_LEVEL,
        options.FORMAT.worded(choices=("table", "json", "csv")),
        options.TIE,
        options.NAMES,
        options.DUPLICATE,
        options.JOBS,
    ))  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from ..api import preferences, read_qrels_for
    from ..api.preference import runs_relevance_table
    from ..measures import needs_rankings, parse_method
    from ..preference.learned import LearnedWeights
    from ..read.trec import run_files
    from ..report.preference import format_preferences

    methods = [parse_method(m) for m in args.measures or ["RPP"]]  # says which are unknown
    learned = [LearnedWeights.load(path) for path in args.learned]
    qrels = read_qrels_for(args.qrels, methods)
    # one run at a time (offline interleaving: every run whole), only the ranks kept
    runs = run_files(args.runs, judgments=args.qrels)
    table = runs_relevance_table(
        qrels, runs, relevance_level=args.relevance_level, ties=args.ties,
        duplicates=args.duplicates, names=args.names, keep_rankings=needs_rankings(methods),
        check_common=True, jobs=args.jobs,
    )  # fmt: skip
    results = [
        preferences(qrels, runs, method, relevance_level=args.relevance_level, table=table)
        for method in methods
    ] + [
        preferences(qrels, runs, weights.method(_label(weights, path, args.learned)), table=table)
        for weights, path in zip(learned, args.learned, strict=True)
    ]
    sys.stdout.write(
        format_preferences(results, args.ordering, args.format, per_query=args.per_query)
    )
    return 0


def _label(weights, path: str, paths: list[str]) -> str:
    """The learned method's name in the output: the name saved with it, and the file when
    several files are given."""
    return weights.name if len(paths) == 1 else f"{weights.name}({path})"
