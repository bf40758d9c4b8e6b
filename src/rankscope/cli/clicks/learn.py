"""RPP's weights over recall levels learned from labelled preferences

``rankscope clicks learn QRELS RUNS``: RPP's pseudo-population weights p(i) learned from
labelled preferences (--labels FILE) or a metric's (--from MEASURE), with cross-validation over
queries; --save writes them for `rankscope prefer --learned FILE`.
"""

from __future__ import annotations

import argparse
import sys

from .. import options

EXAMPLES = """\
examples:
  rankscope clicks learn --from ndcg qrels.txt runs/
  rankscope clicks learn --labels sxs.tsv --graded --save weights.json qrels.txt runs/
  rankscope prefer --learned weights.json qrels.txt runs/
"""


def _numbers(text: str) -> list[float]:
    values = [options.real(v.strip()) for v in text.split(",") if v.strip()]
    if not values:
        raise argparse.ArgumentTypeError("expected at least one number")
    return values


def _edges(text: str) -> list[int]:
    values = _numbers(text)
    if any(v != int(v) for v in values):
        raise argparse.ArgumentTypeError(f"expected whole numbers separated by commas: {text!r}")
    return [int(v) for v in values]


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    options.judgments_and_runs(p, runs="TREC run files or directories (at least two runs)")
    source = p.add_mutually_exclusive_group(required=True)
    options.add_all(source, (
        Option(("--labels",), "labels", "labelled preferences, one 'qid run_a run_b label' line "
               "each (label -1, 0 or 1; run names as the runs are named, --names), or a Parquet "
               "file with columns query_id, run_a, run_b, label", metavar="FILE"),
        Option(("--from",), "measure", "label every pair of runs on every query by a metric's "
               "preference (ndcg, nDCG@10, AP): the weights that make RPP agree with it",
               metavar="MEASURE"),
    ))  # fmt: skip
    options.add_all(p, (
        Option(("--tolerance",), "tolerance", "with --from: metric values this close count as a "
               "tie (default 0)", type=options.real, default=0.0),
        Option(("--graded",), "graded", "learn a weight per recall-level bin and grade threshold "
               "(graded RPP, eq. 5) instead of binary RPP at -l", action="store_true"),
        Option(("--edges",), "edges", "upper edges of the recall-level bins (default "
               "1,2,3,4,8,16,32,64: bins 1, 2, 3, 4, 5-8, ..., 33-64, 65+)", type=_edges,
               metavar="N,N,..."),
        Option(("--alphas",), "alphas", "L2 penalties cross-validation chooses from (default "
               "1e-4,1e-3,0.01,0.1,1,10; one value: no cross-validation)", type=_numbers,
               metavar="A,A,..."),
        Option(("--num-folds",), "num_folds", "folds of queries for cross-validation (default 5, "
               "or one per labelled query when fewer; more than the labelled queries is an "
               "error)", type=options.whole(2, 1000), default=None, metavar="K"),
        options.SEED.worded("seed of the shuffle of queries into folds (default 0)"),
        Option(("--no-assess",), "assess", "skip the held-out comparison with RPP, dcgRPP and "
               "invRPP (an outer cross-validation: --num-folds times the fitting)",
               action="store_false"),
        Option(("--save",), "save", "write the learned weights as JSON", metavar="FILE"),
        options.FORCE,
        options.RELEVANCE_LEVEL.worded("minimum relevant grade of binary RPP (default 1)"),
        options.FORMAT.worded(choices=("table", "json")),
        options.TIE,
        options.NAMES,
        options.DUPLICATE,
    ))  # fmt: skip


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from ...errors import UsageError
    from ...judge import relevance_table
    from ...preference.learned import (
        DEFAULT_ALPHAS,
        DEFAULT_EDGES,
        assess,
        learn_weights,
        pairs_from_scores,
    )
    from ...read.pairs import read_pairs
    from ...read.runs import check_common_queries
    from ...report.learned import format_learned
    from ...table.study import measure_data

    options.check_outputs(args, {"--save": args.save})
    qrels, runs = options.judged_runs(args, [], "preferences")
    check_common_queries(qrels, runs)
    table = relevance_table(qrels, runs, relevance_level=args.relevance_level, ties=args.ties)
    if args.measure is not None:
        (data,) = measure_data(
            qrels, runs, [args.measure], relevance_level=args.relevance_level, ties=args.ties
        )
        column = {q: j for j, q in enumerate(data.query_ids)}
        queries = [q for q in table.query_ids if q in column]
        scores = data.per_query()[:, [column[q] for q in queries]]
        pairs = pairs_from_scores(
            scores, table.run_names, queries, tolerance=args.tolerance,
            source=f"preferences of {data.name}",
        )  # fmt: skip
    else:
        pairs = read_pairs(args.labels)
    settings = dict(
        graded=args.graded,
        relevance_level=None if args.graded else args.relevance_level,
        edges=args.edges or DEFAULT_EDGES, alphas=args.alphas or DEFAULT_ALPHAS,
        seed=args.seed,
    )  # fmt: skip
    labelled_queries = len(np.unique(pairs.query))
    if args.num_folds is None:
        folds = min(5, labelled_queries) if labelled_queries >= 2 else 5
    elif args.num_folds > labelled_queries:
        raise UsageError(
            f"--num-folds {args.num_folds}: cross-validation over queries needs at least "
            f"{args.num_folds} labelled queries, the labels have {labelled_queries} (give "
            f"--num-folds {labelled_queries} or fewer)"
            if labelled_queries >= 2 else
            f"--num-folds {args.num_folds}: cross-validation over queries needs at least "
            f"{args.num_folds} labelled queries, the labels have {labelled_queries}"
        )  # fmt: skip
    else:
        folds = args.num_folds
    if args.assess:
        assessment = assess(table, pairs, folds=folds, inner_folds=folds, **settings)
        model, shown = assessment.full, assessment
    else:
        model, shown = learn_weights(table, pairs, folds=folds, **settings), None
    if args.save:
        model.save(args.save)
    sys.stdout.write(format_learned(model, shown, args.format))
    return 0
