"""measure a reproduction: effect ratio, delta RI, RMSE, t-tests, KTU and RBO

Has a reproduction reproduced?  The original experiment is a baseline run and an advanced
run (--original BASE ADV), the reproduction the same two systems run again (--reproduced
BASE ADV).  Per measure (default AP, nDCG@10, P@10, RR, R@100): the four means, the effect
ratio ER (reproduced mean improvement over the original's), the delta relative improvement
(original relative improvement minus the reproduced one), Student's t-test of each original
run against its reproduction, and for a reproduction on the same judgments (QRELS) the RMSE
of the per-topic scores and, topic by topic, Kendall's tau Union and rank-biased overlap
(RBO_ext) between the rankings (Breuer et al., SIGIR 2020).  --replication-qrels scores the
reproduced runs on other topics (a replication: unpaired t-tests, no RMSE, no rankings).
"""

from __future__ import annotations

import argparse
import sys

from . import options

#: `rankscope.report.reproduce.FORMATS`, repeated so that building the parser imports
#: nothing heavy.
FORMATS = ("table", "csv", "json")

EXAMPLES = """\
examples:
  rankscope reproduce --original bm25.run rm3.run --reproduced my-bm25.run my-rm3.run qrels.txt
  rankscope reproduce -m AP -m P@10 --p 0.9 --format json --original b a --reproduced b2 a2 qrels
  rankscope reproduce --replication-qrels other-qrels.txt --original b a --reproduced b2 a2 qrels
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels of the original experiment")
    options.add_all(p, (
        Option(("--original",), "original", "the original baseline and advanced runs",
               nargs=2, metavar=("BASE", "ADV"), required=True),
        Option(("--reproduced",), "reproduced", "the reproduced baseline and advanced runs",
               nargs=2, metavar=("BASE", "ADV"), required=True),
        Option(("--replication-qrels",), "replication_qrels", "judgments of the reproduced runs' "
               "topics, for a replication on another collection", metavar="FILE"),
        options.MEASURE.worded("a measure (AP, nDCG@10, P@10, ...); repeatable; default AP, "
                               "nDCG@10, P@10, RR, R@100"),
        Option(("--p",), "p", "RBO's persistence (default 0.95)", type=options.probability,
               default=0.95),
        options.DEPTH.worded("compare the rankings' top N documents (default 1000)"),
        Option(("--rbo-ties",), "rbo_ties", "treat equal scores as ties in RBO (Corsi & Urbano "
               "2024; default: ordered by --ties)", choices=("a", "b", "w")),
        options.RELEVANCE_LEVEL,
        options.TIE,
        options.DUPLICATE,
        options.FORMAT.worded("output format (default table; csv and json carry every value at "
                              "full precision, json the per-topic KTU and RBO)", choices=FORMATS),
    ))  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from ..api import reproduce
    from ..report.reproduce import format_reproduction

    result = reproduce(
        args.qrels, tuple(args.original), tuple(args.reproduced), args.measures,
        replication_qrels=args.replication_qrels, p=args.p, depth=args.depth, ties=args.ties,
        rbo_ties=args.rbo_ties, relevance_level=args.relevance_level, duplicates=args.duplicates,
    )  # fmt: skip
    sys.stdout.write(format_reproduction(result, args.format))
    return 0
