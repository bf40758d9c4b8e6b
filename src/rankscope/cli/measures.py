"""``rankscope measures``: every measure and its names; ``--markdown``: the full reference."""

from __future__ import annotations

import argparse

from ..measures import REGISTRY
from ..recsys import registry as recsys
from ..report.reference import measure_reference


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("measures", help="list every measure with its names")
    p.add_argument("--markdown", action="store_true", help="the full reference, as Markdown")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.markdown:
        print(measure_reference())
        return 0
    for m in REGISTRY.measures:
        names = " | ".join(REGISTRY.spellings(m))
        first = m.doc.strip().split("\n")[0]
        print(f"{names}\n    {first}")
    print("\nrecommender measures (rankscope recsys):")
    for m in recsys.MEASURES:
        names = " | ".join(recsys.spellings(m))
        first = m.doc.strip().split("\n")[0]
        print(f"{names}\n    {first}")
    return 0
