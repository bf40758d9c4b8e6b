"""``rankscope prefer``: the preference matrix and the aggregated ordering of runs."""

from __future__ import annotations

import json
import sys
from typing import Any


def prefer_files(args: Any) -> int:
    from ..api import _runs, read_qrels
    from ..io.trec import run_files
    from .api import preferences
    from .table import relevance_table

    qrels = read_qrels(args.qrels)
    runs = _runs(run_files(args.runs), qrels, args.duplicates)
    table = relevance_table(qrels, runs, relevance_level=args.level, ties=args.ties)
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
