"""evaluate runs against judgments (trec_eval-compatible)

Evaluate one or more runs. With one run and no --format the output is byte-for-byte
trec_eval's.
"""

from __future__ import annotations

import argparse
import sys

from . import importing, options, segments

EXAMPLES = """\
examples:
  rankscope eval qrels.txt bm25.run                     # trec_eval's official measures
  rankscope eval -m ndcg_cut_10 -m P_10 -m 'RR@10' qrels.txt runs/
  rankscope eval --format csv -q -m AP qrels.txt run1 run2
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    options.judgments_and_runs(
        p,
        "TREC qrels file (.gz and - accepted), or judgments as -R says",
        "TREC run files or directories of them",
    )
    options.add_all(p, (
        Option(("-R",), "rel_format", "judgments format, as trec_eval: qrels (default); prefs (qid "
               "jg jsg docno rel_level) or qrels_prefs (qrels read as preferences) for -m "
               "all_prefs; qrels_jg (qid jg docno grade, judgment groups) for -m qrels_jg",
               choices=("qrels", "prefs", "qrels_prefs", "qrels_jg"), default="qrels"),
        Option(("-Z",), "zscores", "print z-scores: per-query values standardised with FILE's 'qid "
               "measure mean stddev' lines (trec_eval -Z)", metavar="FILE"),
        options.MEASURE.worded("measure to compute, in any spelling (P.5,10 / P_10 / P@10 / "
                               "all_trec); repeatable; default: official (prefs with -R "
                               "prefs/qrels_prefs, qrels_jg with -R qrels_jg)"),
        options.PER_QUERY.worded("also print per-query values"),
        options.COMPLETE.worded("average over every judged query (missing = 0)"),
        Option(("-n",), "no_summary", "do not print the summary", action="store_true"),
        options.RELEVANCE_LEVEL,
        options.MAX_DOCS.worded("use only the top N per query"),
        Option(("-J",), "judged_only", "drop unjudged documents before evaluating",
               action="store_true"),
        Option(("-N",), "num_docs", "collection size (utility)", type=options.whole(0), default=0,
               metavar="N"),
        options.FORMAT.worded("output format (default: trec for one run, table for several)",
                              choices=("trec", "json", "csv", "table"), default=None),
        Option(("--wide",), "wide", "with several runs: one row per run and a column per measure "
               "(summaries only)", action="store_true"),
        options.TIE.worded("order of equally scored documents (default as trec_eval: docno-desc; "
                           "docno-asc with -R prefs/qrels_prefs)", default=None),
        options.NAMES,
        options.BASELINE.worded("the run the preference measures (RPP, OI, ...) are measured "
                                "against: each run's value is its mean preference over it, printed "
                                "as 'RPP vs RUN' (default: the first run)"),
        options.JOBS,
        Option(("--block-mb",), "block_mb", "read a TREC run file longer than this in blocks of "
               "whole queries, evaluated one at a time, so that memory is bounded by the block "
               "(default 32; 16 for a run evaluated in this process on two cores or more, two "
               "blocks parsed at once; less to give every worker process several blocks); the "
               "output is the same for every size", type=options.whole(1, 1 << 20), metavar="MB"),
        options.DUPLICATE,
        Option(("--order",), "order", "rank documents by score (default, as trec_eval) or by the "
               "rank column (ndeval)", choices=("score", "rank"), default="score"),
        Option(("--diversity",), "diversity", "the qrels are diversity judgments, qid subtopic "
               "docno grade (implied by diversity measures such as alpha-nDCG@20)",
               action="store_true"),
        Option(("--doc-lengths",), "doc_lengths", "document lengths in words, 'docno words' per "
               "line (time-biased gain)", metavar="FILE"),
        options.SCHEDULER,
        options.BACKEND,
    ))  # fmt: skip
    segments.add_arguments(p)


def run(args: argparse.Namespace) -> int:
    """``rankscope eval`` (arguments as parsed by `add_arguments`)."""
    from ..model import available_cores
    from ..read.ahead import reading_ahead  # (imports no numpy: see `reading_ahead`)
    from ..read.cuts import in_this_process

    # the judgments and a lone run read and parsed in a thread while the evaluation's
    # modules are imported, when they are to be read as qrels and a run ranked by score,
    # here: whole, or in blocks of the default length in this process (its first block;
    # no worker process is forked while the thread may be reading)
    ahead = (
        args.rel_format == "qrels" and args.order == "score" and not args.diversity
        and args.block_mb is None and args.scheduler is None and args.backend == "local"
    )  # fmt: skip
    here = in_this_process(len(args.runs), args.jobs or available_cores())
    with reading_ahead(args.qrels, args.runs if ahead else [], blocks=here):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    with importing():
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
        backend=args.backend,
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
