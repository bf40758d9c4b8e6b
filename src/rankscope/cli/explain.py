"""why two runs differ: each recall level's share of AP, nDCG, RBP, RR and RPP

The recall-level view of a comparison (Diaz & Ferraro, SIGIR 2022, §2 and Table 1a): for
each recall level i (the user who wants i relevant documents), where run A and run B rank
their i-th relevant document, RPP's preference at that level (sgn(f'_i - f_i)) and its share
of RPP, and each metric's share Δμ_i of its difference A - B; the shares add up to the
difference.  One query with -q, else the mean over every judged query (a run that did not
rank one scoring 0 there, as in rankscope compare).  AP, nDCG and RR shrink with the rank;
RPP's share does not: the table shows why RPP and AP can disagree on a pair.
"""

from __future__ import annotations

import argparse
import sys

from . import options

EXAMPLES = """\
examples:
  rankscope explain qrels.txt bm25.run dense.run
  rankscope explain --query 101001 qrels.txt bm25.run dense.run
  rankscope explain -m AP -m 'RBP(p=0.5)' --format csv qrels.txt bm25.run dense.run
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    p.add_argument(
        "qrels", help="TREC qrels file, or an ir_datasets id (ir_datasets:ID, or ID when no "
        "such file exists)",
    )  # fmt: skip
    p.set_defaults(judgments_datasets=True)
    p.add_argument("run_a", metavar="RUN_A", help="a TREC run file (A)")
    p.add_argument("run_b", metavar="RUN_B", help="a TREC run file (B)")
    options.add_all(p, (
        Option(("--query",), "query", "one query's levels, with the ranks of each run's i-th "
               "relevant document (default: the mean over every judged query)", metavar="QID"),
        options.MEASURE.worded("AP, nDCG, RBP (persistence 0.9; RBP(p=0.5)) or RR; repeatable; "
                               "default all four"),
        options.FORMAT.worded("output format (default table; csv: a row per level)",
                              choices=("table", "csv", "json")),
        options.TIE,
        options.MAX_DOCS.worded("consider only the first N documents of each ranking"),
        options.NAMES,
        options.DUPLICATE,
    ))  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from ..api.explanation import recall_levels
    from ..preference.recall import DEFAULT_MEASURES
    from ..report.explain import format_recall_levels

    view = recall_levels(
        args.qrels, args.run_a, args.run_b, args.query, args.measures or DEFAULT_MEASURES,
        ties=args.ties, max_docs=args.max_docs, duplicates=args.duplicates, names=args.names,
    )  # fmt: skip
    sys.stdout.write(format_recall_levels(view, args.format))
    return 0
