"""``rankscope ndeval``: the TREC Web track's diversity evaluation, printed as ndeval 4.5 prints
it."""

from __future__ import annotations

import argparse
import sys

from ..read.trec import run_files
from ..report.ndeval import format_ndeval
from ..table.ndeval import ndeval_table


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "ndeval",
        help="diversity evaluation with ndeval's output (TREC Web track)",
        description=(
            "Intent-aware measures (ERR-IA, alpha-nDCG, NRBP, MAP-IA, P-IA, strec) printed "
            "exactly as ndeval 4.5 prints them: CSV, one row per topic and an amean row."
        ),
    )
    p.add_argument("qrels", help="diversity qrels: qid subtopic docno grade")
    p.add_argument("runs", nargs="+", help="TREC run files or directories")
    p.add_argument("-alpha", "--alpha", type=float, default=0.5, help="redundancy (0.5)")
    p.add_argument("-beta", "--beta", type=float, default=0.5, help="NRBP persistence (0.5)")
    p.add_argument(
        "-traditional",
        "--traditional",
        action="store_true",
        help="order by score then docno (default: by the rank column)",
    )
    p.add_argument(
        "-c", action="store_true", dest="complete", help="average over every judged topic"
    )
    p.add_argument("-M", type=int, default=None, dest="depth", metavar="N", help="cut at rank N")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for name, v in (("alpha", args.alpha), ("beta", args.beta)):
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"-{name} must be between 0 and 1 (got {v})")
    if args.depth is not None and args.depth <= 0:
        raise ValueError(f"-M must be positive (got {args.depth})")
    for path in run_files(args.runs):
        runid, topics, table, mean = ndeval_table(
            args.qrels, path, alpha=args.alpha, beta=args.beta, traditional=args.traditional,
            complete=args.complete, depth=args.depth,
        )  # fmt: skip
        sys.stdout.write(format_ndeval(runid, topics, table, mean))
    return 0
