"""``rankscope prefer``: the preference matrix and the aggregated ordering of runs."""

from __future__ import annotations

import argparse
import json
import sys

from ..api import preferences
from ..judge import relevance_table
from ..measures.preferences import needs_rankings
from ..read.sources import read_qrels, resolve_runs
from ..read.trec import run_files


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "prefer",
        help="compare runs by preferences (recall-paired preference and relatives)",
        description=(
            "Preferences between every pair of runs (Diaz & Ferraro, SIGIR 2022): prints the "
            "mean preference matrix and the runs ordered by an aggregation of the per-query "
            "preferences."
        ),
    )
    p.add_argument("qrels", help="TREC qrels file")
    p.add_argument("runs", nargs="+", help="TREC run files or directories (at least two runs)")
    p.add_argument(
        "--method",
        "-m",
        action="append",
        dest="methods",
        metavar="METHOD",
        help="RPP, dcgRPP, invRPP, gRPP, gRPP(p=dcg), lexiprecision, rrlexiprecision, "
        "lexirecall (repeatable; default RPP)",
    )
    p.add_argument(
        "--aggregate",
        choices=("mc4", "mc4-converged", "borda", "mean", "bradley-terry"),
        default="mc4",
        help="how per-query preferences become one ordering (default mc4, the authors')",
    )
    p.add_argument("-q", action="store_true", dest="per_query", help="also per-query orderings")
    p.add_argument("-l", type=int, default=1, dest="level", metavar="N", help="relevant grade")
    p.add_argument(
        "--format", choices=("table", "json", "csv"), default="table", help="output format"
    )
    p.add_argument(
        "--ties", choices=("docno-desc", "docno-asc", "input-order"), default="docno-desc"
    )
    p.add_argument("--duplicates", choices=("error", "first", "max-score"), default="error")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    qrels = read_qrels(args.qrels)
    runs = resolve_runs(run_files(args.runs), qrels, args.duplicates)
    table = relevance_table(
        qrels, runs, relevance_level=args.level, ties=args.ties,
        keep_rankings=needs_rankings(args.methods or ["RPP"]),
    )  # fmt: skip
    methods = args.methods or ["RPP"]
    out = sys.stdout
    report = []
    for method in methods:
        result = preferences(qrels, runs, method, relevance_level=args.level, table=table)
        order, scores = result.ordering(args.aggregate)
        entry = {
            "method": result.method,
            "aggregate": args.aggregate,
            "queries": len(result.query_ids),
            "ordering": [{"run": r, "score": float(s)} for r, s in zip(order, scores, strict=True)],
            "mean_preference": {
                a: {b: float(result.mean[i, j]) for j, b in enumerate(result.run_names)}
                for i, a in enumerate(result.run_names)
            },
        }
        if args.per_query:
            entry["query_orderings"] = dict(
                zip(result.query_ids, result.query_orderings(), strict=True)
            )
            entry["query_preferences"] = {
                qid: result.prefs[q].tolist() for q, qid in enumerate(result.query_ids)
            }
            entry["runs"] = list(result.run_names)
        report.append(entry)
    if args.format == "json":
        json.dump(report, out, indent=1)
        out.write("\n")
    elif args.format == "csv":
        out.write("method,aggregate,rank,run,score\n")
        for entry in report:
            for k, item in enumerate(entry["ordering"], start=1):
                out.write(
                    f"{entry['method']},{entry['aggregate']},{k},{item['run']},{item['score']!r}\n"
                )
    else:
        for entry in report:
            out.write(_table_text(entry, args.per_query))
    return 0


def _table_text(entry: dict, per_query: bool) -> str:
    names = [item["run"] for item in entry["ordering"]]
    lines = [
        f"{entry['method']}: {entry['queries']} queries, runs ordered by {entry['aggregate']}",
        "",
    ]
    width = max(len(n) for n in names)
    for k, item in enumerate(entry["ordering"], start=1):
        lines.append(f"{k:>3}  {item['run']:<{width}}  {item['score']:.6g}")
    lines += ["", "mean preference of row over column (runs in the order above):"]
    short = [f"{i + 1}" for i in range(len(names))]
    lines.append(" " * (width + 6) + "".join(f"{s:>8}" for s in short))
    for k, a in enumerate(names, start=1):
        row = entry["mean_preference"][a]
        lines.append(f"{k:>3}  {a:<{width}} " + "".join(f"{row[b]:>8.3f}" for b in names))
    if per_query:
        lines += ["", "per query (best first):"]
        for qid, order in entry["query_orderings"].items():
            lines.append(f"  {qid}: {' > '.join(order)}")
    return "\n".join(lines) + "\n\n"
