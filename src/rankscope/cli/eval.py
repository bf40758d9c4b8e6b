"""``rankscope eval``: runs against judgments; with one run and no ``--format``, byte-for-byte
trec_eval's output (``-q -m -c -n -l -M -J -N -R -Z``)."""

from __future__ import annotations

import argparse
import json
import sys

from ..api import evaluate_many
from ..read.trec import run_files
from ..report.tables import csv_cell, json_report, rows, text_table
from ..report.trec import format_trec


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval",
        help="evaluate runs against judgments (trec_eval-compatible)",
        description=(
            "Evaluate one or more runs. With one run and no --format the output is "
            "byte-for-byte trec_eval's."
        ),
    )
    p.add_argument("qrels", help="TREC qrels file (.gz and - accepted), or judgments as -R says")
    p.add_argument("runs", nargs="+", help="TREC run files or directories of them")
    p.add_argument(
        "-R",
        choices=("qrels", "prefs", "qrels_prefs", "qrels_jg"),
        default="qrels",
        dest="rel_format",
        help="judgments format, as trec_eval: qrels (default); prefs (qid jg jsg docno "
        "rel_level) or qrels_prefs (qrels read as preferences) for -m all_prefs; qrels_jg "
        "(qid jg docno grade, judgment groups) for -m qrels_jg",
    )
    p.add_argument(
        "-Z",
        dest="zscores",
        metavar="FILE",
        default=None,
        help="print z-scores: per-query values standardised with FILE's 'qid measure mean "
        "stddev' lines (trec_eval -Z)",
    )
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="measure to compute, either spelling (P.5,10 / P@10 / all_trec); repeatable; "
        "default: official (prefs with -R prefs/qrels_prefs, qrels_jg with -R qrels_jg)",
    )
    p.add_argument("-q", action="store_true", dest="per_query", help="also print per-query values")
    p.add_argument(
        "-c",
        action="store_true",
        dest="complete",
        help="average over every judged query (missing = 0)",
    )
    p.add_argument("-n", action="store_true", dest="no_summary", help="do not print the summary")
    p.add_argument(
        "-l",
        type=int,
        default=1,
        dest="level",
        metavar="N",
        help="minimum relevant grade (default 1)",
    )
    p.add_argument(
        "-M",
        type=int,
        default=None,
        dest="max_docs",
        metavar="N",
        help="use only the top N per query",
    )
    p.add_argument(
        "-J",
        action="store_true",
        dest="judged_only",
        help="drop unjudged documents before evaluating",
    )
    p.add_argument(
        "-N", type=int, default=0, dest="num_docs", metavar="N", help="collection size (utility)"
    )
    p.add_argument(
        "--format",
        choices=("trec", "json", "csv", "table"),
        default=None,
        help="output format (default: trec for one run, table for several)",
    )
    p.add_argument(
        "--wide",
        action="store_true",
        help="with several runs: one row per run and a column per measure (summaries only)",
    )
    p.add_argument(
        "--ties",
        choices=("docno-desc", "docno-asc", "input-order"),
        default=None,
        help="order of equally scored documents (default as trec_eval: docno-desc; "
        "docno-asc with -R prefs/qrels_prefs)",
    )
    p.add_argument(
        "--duplicates",
        choices=("error", "first", "max-score"),
        default="error",
        help="a document listed twice for a query: error (default), keep first, keep max score",
    )
    p.add_argument(
        "--order",
        choices=("score", "rank"),
        default="score",
        help="rank documents by score (default, as trec_eval) or by the rank column (ndeval)",
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
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``rankscope eval`` (arguments as parsed by `add_parser`)."""
    paths = run_files(args.runs)
    fmt = args.format or ("trec" if len(paths) == 1 else "table")
    results = evaluate_many(
        args.qrels,
        paths,
        args.measures or None,
        relevance_level=args.level,
        ties=args.ties,
        max_docs=args.max_docs,
        judged_only=args.judged_only,
        complete=args.complete,
        num_docs=args.num_docs,
        duplicates=args.duplicates,
        order=getattr(args, "order", "score"),
        diversity=getattr(args, "diversity", None) or None,
        doc_lengths=getattr(args, "doc_lengths", None),
        rel_format=getattr(args, "rel_format", "qrels"),
        zscores=getattr(args, "zscores", None),
    )
    out = sys.stdout
    if fmt == "trec":
        for res in results:
            out.write(format_trec(res, per_query=args.per_query, summary=not args.no_summary))
    elif fmt == "json":
        json.dump(json_report(results, args.per_query), out, indent=1)
        out.write("\n")
    else:
        table_rows = rows(results, args.per_query, getattr(args, "wide", False))
        if fmt == "csv":
            out.write("".join(",".join(csv_cell(c) for c in row) + "\n" for row in table_rows))
        else:
            out.write(text_table(table_rows))
    out.flush()
    return 0
