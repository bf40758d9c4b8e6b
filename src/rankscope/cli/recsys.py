"""``rankscope recsys``: recommendation lists against a test log, as a table, JSON or CSV."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from ..recsys.api import evaluate_systems
from ..recsys.registry import MEASURES, REGISTRY, spellings


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "recsys",
        help="evaluate recommendation lists or rating predictions against a test log",
        description=(
            "Rating prediction (MAE, RMSE), top-N accuracy with a rating threshold (P, Recall, "
            "nDCG, ... at k) and beyond accuracy (coverage, ILD, novelty, serendipity, Gini, "
            "entropy, long tail). See docs/recsys.md."
        ),
    )
    p.add_argument("test", nargs="?", help="test interactions: user item [rating [timestamp]]")
    p.add_argument("recs", nargs="*", help="recommendations (TREC run or user item [score])")
    p.add_argument("--train", help="training interactions (popularity, catalog, seen items)")
    p.add_argument("--features", help="item features (MovieLens u.item, or a table) for ILD")
    p.add_argument(
        "-m", "--measure", action="append", dest="measures", metavar="MEASURE",
        help="e.g. P@10, nDCG, MAP(denominator=min)@5, MAE, Novelty; nicknames topn, beyond, "
        "rating, all (repeatable; default: every measure the inputs allow except rating ones)",
    )  # fmt: skip
    p.add_argument("-k", type=int, default=10, help="cutoff of names without @k (default 10)")
    p.add_argument("--threshold", default="4", help="relevant rating >= this (default 4; none)")
    p.add_argument("--relevance", choices=("binary", "graded"), default="binary")
    p.add_argument(
        "--no-relevant",
        choices=("exclude", "zero"),
        default="exclude",
        help="users without relevant test items (default: left out of the means)",
    )
    p.add_argument(
        "--seen",
        choices=("keep", "drop"),
        default="keep",
        help="recommended items of the user's training data (default keep)",
    )
    p.add_argument(
        "--ties", choices=("input-order", "docno-desc", "docno-asc"), default="input-order"
    )
    p.add_argument("-q", "--per-user", action="store_true", help="also per-user values")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table")
    p.add_argument("--list", action="store_true", help="list the recommender measures")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    out = sys.stdout
    if args.list:
        for m in MEASURES:
            first = m.doc.strip().split("\n")[0]
            out.write(f"{' | '.join(spellings(m))}\n    {first}\n")
        out.write("nicknames: " + ", ".join(REGISTRY.nicknames) + "\n")
        return 0
    if not args.test or not args.recs:
        raise ValueError("rankscope recsys needs a TEST file and at least one RECS file")
    results = evaluate_systems(
        args.test, args.recs, args.measures, k=args.k,
        threshold=None if args.threshold.lower() == "none" else float(args.threshold),
        train=args.train, features=args.features, relevance=args.relevance,
        no_relevant=args.no_relevant, seen=args.seen, ties=args.ties,
    )  # fmt: skip
    if args.format == "json":
        json.dump([_json(res, args.per_user) for res in results], out, indent=1)
        out.write("\n")
    elif args.format == "csv":
        out.write("run,user,measure,value,users\n")
        for row in _long_rows(results, args.per_user):
            out.write(",".join(_csv(c) for c in row) + "\n")
    elif args.per_user:
        out.write(_table([["run", "user", "measure", "value", "users"]]
                         + _long_rows(results, True)))  # fmt: skip
    else:
        labels = list(dict.fromkeys(label for res in results for label in res.labels))
        rows = [["run", *labels]]
        for res in results:
            summary = res.summary
            rows.append([res.name] + [_number(summary[lab]) if lab in summary else ""
                                      for lab in labels])  # fmt: skip
        out.write(_transpose(rows) if len(labels) > 8 else _table(rows))
    out.flush()
    return 0


def _number(value: float) -> str:
    return "nan" if value != value else f"{value:.4f}"


def _long_rows(results, per_user: bool) -> list[list[str]]:
    rows = []
    for res in results:
        if per_user:
            for r, v in zip(res.requests, res.values, strict=True):
                if v.per_user is None:
                    continue
                for user, x in zip(res.user_ids, v.per_user.tolist(), strict=True):
                    if x == x:
                        rows.append([res.name, user, r.label, repr(x), ""])
        for r, v in zip(res.requests, res.values, strict=True):
            rows.append([res.name, "all", r.label, repr(v.summary), str(v.count)])
    return rows


def _json(res, per_user: bool) -> dict:
    def clean(x: float):
        return None if isinstance(x, float) and math.isnan(x) else x

    entry: dict[str, Any] = {
        "run": res.name,
        "summary": {label: clean(v) for label, v in res.summary.items()},
        "users": res.counts,
    }
    if per_user:
        entry["per_user"] = {label: res.per_user(label) for label in res.labels}
    return entry


def _csv(cell: str) -> str:
    return f'"{cell.replace(chr(34), chr(34) * 2)}"' if any(c in cell for c in ',"\n') else cell


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in
                 enumerate(zip(row, widths, strict=True))]  # fmt: skip
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def _transpose(rows: list[list[str]]) -> str:
    """Many measures: one row per measure, a column per system."""
    header, body = rows[0], rows[1:]
    table = [["measure", *[r[0] for r in body]]]
    for j, label in enumerate(header[1:], start=1):
        table.append([label, *[r[j] for r in body]])
    return _table(table)
