"""``rankscope example``: the bundled example collection, evaluated."""

from __future__ import annotations

import argparse

from ..examples import example_paths
from .eval import run as evaluate_command


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("example", help="evaluate the bundled example collection")
    p.add_argument("-m", "--measure", action="append", dest="measures")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    qrels, runs = example_paths()
    ns = argparse.Namespace(
        qrels=str(qrels),
        runs=[str(r) for r in runs],
        measures=args.measures or ["map", "P@10", "nDCG@10", "recip_rank", "bpref"],
        per_query=False,
        complete=False,
        no_summary=False,
        level=1,
        max_docs=None,
        judged_only=False,
        num_docs=0,
        format="table",
        wide=True,
        ties="docno-desc",
        duplicates="error",
    )
    print(f"qrels: {qrels}\nruns:  {', '.join(r.name for r in runs)}\n")
    return evaluate_command(ns)
