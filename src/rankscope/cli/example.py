"""evaluate the bundled example collection"""

from __future__ import annotations

import argparse
import sys

from . import options

#: The measures shown without ``-m``.
MEASURES = ["map", "P@10", "nDCG@10", "recip_rank", "bpref"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    options.measures(p)


def run(args: argparse.Namespace) -> int:
    from ..api import evaluate_many
    from ..examples import example_paths
    from ..report.evaluation import format_evaluations

    qrels, runs = example_paths()
    sys.stdout.write(f"qrels: {qrels}\nruns:  {', '.join(r.name for r in runs)}\n\n")
    results = evaluate_many(qrels, runs, args.measures or MEASURES, ties="docno-desc")
    sys.stdout.write(format_evaluations(results, "table", wide=True))
    sys.stdout.flush()
    return 0
