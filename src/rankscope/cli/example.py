"""compare the bundled example runs: what rankscope is for, in one screen

Evaluates the three runs of the bundled example collection (graded judgments for 25
queries), compares them with the weakest by a paired t-test, orders them by recall-paired
preference, and lists the commands to try next on your own files.
"""

from __future__ import annotations

import argparse
import sys

from . import options

#: The measures shown without ``-m``.
MEASURES = ["map", "bpref", "recip_rank", "P@10", "nDCG@10"]
#: The comparison's measures: a recall-oriented metric, a first-page one, a preference.
COMPARED = ["AP", "nDCG@10", "RPP"]

EXAMPLES = """\
examples:
  rankscope example
  rankscope example -m AP -m 'nDCG@5'
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    options.MEASURE.worded(
        "measures of the first table (default map, bpref, recip_rank, P@10, nDCG@10); "
        "repeatable"
    ).add(p)


def run(args: argparse.Namespace) -> int:
    from ..api import compare, evaluate_many, preferences
    from ..examples import example_paths
    from ..report.compare import format_text
    from ..report.evaluation import format_evaluations

    qrels, runs = example_paths()
    out = sys.stdout
    # (evaluated before anything is printed: a bad -m prints its error and nothing else)
    results = evaluate_many(
        qrels, runs, args.measures or MEASURES, ties="docno-desc", names="tag"
    )
    out.write(f"qrels: {qrels}\nruns:  {', '.join(r.name for r in runs)}\n\n")
    out.write(format_evaluations(results, "table", wide=True))
    comparison = compare(qrels, runs, COMPARED, baseline="weak", names="tag")
    out.write("\nAgainst the weak run, with significance:\n\n" + format_text(comparison))
    order, _ = preferences(qrels, runs, "RPP", names="tag").ordering("mc4")
    out.write(f"\nRuns ordered by recall-paired preference (MC4): {' > '.join(order)}\n")
    folder = qrels.parent
    out.write(
        "\nNext, on these files or your own:\n"
        f"  rankscope compare -m nDCG@10 -m RPP --test randomization {qrels} {folder}/run.*.txt\n"
        f"  rankscope eval -m all_trec -q {qrels} {folder}/run.strong.txt   # as trec_eval\n"
        f"  rankscope prefer {qrels} {folder}/run.*.txt\n"
        f"  rankscope ab {folder}/experiment.tsv   # an A/B test of 4,000 users\n"
        "  rankscope measures          # every measure and its names\n"
    )
    out.flush()
    return 0
