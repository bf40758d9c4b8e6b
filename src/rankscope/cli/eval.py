"""evaluate runs against judgments (trec_eval-compatible)

Evaluate one or more runs. With one run and no --format the output is byte-for-byte
trec_eval's.
"""

from __future__ import annotations

import argparse
import sys

from . import options, segments

EXAMPLES = """\
examples:
  rankscope eval qrels.txt bm25.run                     # trec_eval's official measures
  rankscope eval -m ndcg_cut_10 -m P_10 -m 'RR@10' qrels.txt runs/
  rankscope eval --format csv -q -m AP qrels.txt run1 run2
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    options.judgments_and_runs(
        p,
        "TREC qrels file (.gz and - accepted), or judgments as -R says",
        "TREC run files or directories of them",
    )
    options.choice(
        p,
        "-R",
        ("qrels", "prefs", "qrels_prefs", "qrels_jg"),
        "judgments format, as trec_eval: qrels (default); prefs (qid jg jsg docno rel_level) "
        "or qrels_prefs (qrels read as preferences) for -m all_prefs; qrels_jg (qid jg docno "
        "grade, judgment groups) for -m qrels_jg",
        dest="rel_format",
    )
    p.add_argument(
        "-Z",
        dest="zscores",
        metavar="FILE",
        default=None,
        help="print z-scores: per-query values standardised with FILE's 'qid measure mean "
        "stddev' lines (trec_eval -Z)",
    )
    options.MEASURE.add(
        p,
        "measure to compute, in any spelling (P.5,10 / P_10 / P@10 / all_trec); repeatable; "
        "default: official (prefs with -R prefs/qrels_prefs, qrels_jg with -R qrels_jg)",
    )
    options.PER_QUERY.add(p, "also print per-query values")
    options.complete(p, "average over every judged query (missing = 0)")
    p.add_argument("-n", action="store_true", dest="no_summary", help="do not print the summary")
    options.RELEVANCE_LEVEL.add(p)
    options.depth(p, "use only the top N per query")
    p.add_argument(
        "-J",
        action="store_true",
        dest="judged_only",
        help="drop unjudged documents before evaluating",
    )
    p.add_argument(
        "-N",
        type=options.whole(0),
        default=0,
        dest="num_docs",
        metavar="N",
        help="collection size (utility)",
    )
    options.FORMAT.add(
        p,
        "output format (default: trec for one run, table for several)",
        choices=("trec", "json", "csv", "table"),
        default=None,
    )
    p.add_argument(
        "--wide",
        action="store_true",
        help="with several runs: one row per run and a column per measure (summaries only)",
    )
    options.TIE.add(
        p,
        "order of equally scored documents (default as trec_eval: docno-desc; "
        "docno-asc with -R prefs/qrels_prefs)",
        default=None,
    )
    options.NAMES.add(p)
    options.BASELINE.add(
        p, "the run the preference measures (RPP, OI, ...) are measured against: each run's "
        "value is its mean preference over it, printed as 'RPP vs RUN' (default: the first run)",
    )  # fmt: skip
    options.JOBS.add(p)
    options.block_mb(p)
    options.DUPLICATE.add(p)
    options.choice(
        p,
        "--order",
        ("score", "rank"),
        "rank documents by score (default, as trec_eval) or by the rank column (ndeval)",
    )
    p.add_argument(
        "--diversity",
        action="store_true",
        help="the qrels are diversity judgments, qid subtopic docno grade (implied by "
        "diversity measures such as alpha-nDCG@20)",
    )
    p.add_argument(
        "--doc-lengths",
        metavar="FILE",
        help="document lengths in words, 'docno words' per line (time-biased gain)",
    )
    options.SCHEDULER.add(p)
    segments.add_arguments(p)


def run(args: argparse.Namespace) -> int:
    """``rankscope eval`` (arguments as parsed by `add_arguments`)."""
    from ..api import evaluate_many
    from ..read.trec import run_files
    from ..report.evaluation import format_evaluations

    segments.check(args)
    paths = run_files(args.runs, judgments=args.qrels)
    results = evaluate_many(
        args.qrels,
        paths,
        args.measures or None,
        relevance_level=args.relevance_level,
        ties=args.ties,
        max_docs=args.max_docs,
        judged_only=args.judged_only,
        complete=args.complete,
        num_docs=args.num_docs,
        duplicates=args.duplicates,
        order=args.order,
        diversity=args.diversity or None,
        doc_lengths=args.doc_lengths,
        rel_format=args.rel_format,
        zscores=args.zscores,
        no_common_query="error",
        names=args.names,
        baseline=args.baseline,
        jobs=args.jobs,
        block_bytes=None if args.block_mb is None else args.block_mb << 20,
        scheduler=args.scheduler,
    )
    output = format_evaluations(
        results, args.format, per_query=args.per_query, summary=not args.no_summary,
        wide=args.wide,
    )  # fmt: skip
    if segments.asked(args):
        from ..table.evaluation import evaluation_table

        fmt = args.format or ("trec" if len(results) == 1 else "table")
        output = segments.appended(args, output, evaluation_table(results), fmt)
    sys.stdout.write(output)
    sys.stdout.flush()
    return 0
