"""diversity evaluation with ndeval's output (TREC Web track)

Intent-aware measures (ERR-IA, alpha-nDCG, NRBP, MAP-IA, P-IA, strec) printed exactly as
ndeval 4.5 prints them: CSV, one row per topic and an amean row.  Each run is named by its
tag, as ndeval names it; runs whose tags collide (a directory of one system's runs) by their
files, as every other command names runs.
"""

from __future__ import annotations

import argparse
import sys

from . import options

EXAMPLES = """\
examples:
  rankscope ndeval qrels-for-ndeval.txt run.txt
  rankscope ndeval -c -M 20 qrels-for-ndeval.txt runs/
  rankscope ndeval -traditional qrels-for-ndeval.txt run.txt
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    options.judgments_and_runs(p, "diversity qrels: qid subtopic docno grade", datasets=False)
    options.add_all(p, (
        Option(("-alpha", "--redundancy"), "redundancy", "alpha-nDCG's redundancy penalty (0.5; "
               "ndeval's -alpha: --alpha is a significance level in other commands)",
               type=options.real, default=0.5),
        Option(("-beta", "--beta"), "beta", "NRBP persistence (0.5)", type=options.real,
               default=0.5),
        Option(("-traditional", "--traditional"), "traditional", "order by score then docno "
               "(default: by the rank column)", action="store_true"),
        options.COMPLETE.worded("average over every judged topic"),
        options.MAX_DOCS.worded("cut at rank N"),
        options.DUPLICATE,
    ))  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from ..errors import UsageError
    from ..read.runs import run_names
    from ..read.trec import run_files, source_name
    from ..report.ndeval import format_ndeval
    from ..table.ndeval import ndeval_table

    for name, v in (("alpha", args.redundancy), ("beta", args.beta)):
        if not 0.0 <= v <= 1.0:
            raise UsageError(f"-{name} must be between 0 and 1 (got {v})")
    if args.max_docs is not None and args.max_docs <= 0:
        raise UsageError(f"-M must be at least 1 (got {args.max_docs})")
    paths = run_files(args.runs, judgments=args.qrels)
    tables = [
        ndeval_table(
            args.qrels, path, alpha=args.redundancy, beta=args.beta, traditional=args.traditional,
            complete=args.complete, depth=args.max_docs, duplicates=args.duplicates,
        )  # fmt: skip
        for path in paths
    ]
    # named by tag, as ndeval names them, unless tags collide (a directory of one system's
    # runs): then by file, as every other command names them
    names = run_names([(t[0], source_name(p)) for t, p in zip(tables, paths, strict=True)], "tag")
    for name, (_, topics, table, mean) in zip(names, tables, strict=True):
        sys.stdout.write(format_ndeval(name, topics, table, mean))
    return 0
