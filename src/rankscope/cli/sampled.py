"""sampled evaluation of recommenders, beside the full ranking and corrected estimates

Ranks each relevant test item of a user (rating >= --threshold) among --negatives items
drawn from those the user has not interacted with (in TEST or --train), uniformly or in
proportion to their training popularity (--sampling), as RecBole's uni100 / pop100 do,
and prints per system and measure the mean over the targets of: the full-ranking value
(the target ranked among all its negatives), the sampled value, and Krichene & Rendle's
(KDD 2020) minimal-bias and BV estimates of the full value from the sampled ranks.  The
draws are seeded (--seed) and the same for every system.

Each SCORES file holds a system's scores, one 'user item score' line per scored pair
(tabs, spaces or commas; a TREC run works too), over the whole catalog: the negatives are
drawn from the items the systems score, and every system must score the same items.  A
pair without a score ranks below every scored item (one warning counts them).
"""

from __future__ import annotations

import argparse
import sys

from . import options

EXAMPLES = """\
examples:
  rankscope sampled u1.test knn.scores svd.scores --train u1.base
  rankscope sampled u1.test knn.scores --train u1.base --negatives 10 --sampling popularity --seed 3
  rankscope sampled u1.test knn.scores -m HR@5 -m AUC --estimator full --estimator sampled
"""

#: `rankscope.recsys.sampled.ESTIMATORS` and `SAMPLING` (repeated: building the parser
#: imports nothing; a test checks they agree).
ESTIMATORS = ("full", "sampled", "minimal-bias", "bv")
SAMPLING = ("uniform", "popularity")


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    p.add_argument("test", help="test interactions: user item [rating [timestamp]]")
    p.add_argument("scores", nargs="+", help="one file of 'user item score' lines per system")
    options.add_all(p, (
        Option(("--train",), "train", "training interactions: never drawn as negatives; popularity "
               "sampling"),
        options.MEASURE.worded("HR@k, nDCG@k, MRR, MRR@k or AUC, repeatable (default HR@10, "
                               "nDCG@10, MRR, AUC)"),
        Option(("--estimator",), "estimators", "full, sampled, minimal-bias or bv, repeatable "
               "(default all four)", action="append", choices=ESTIMATORS),
        Option(("--negatives",), "negatives", "negatives drawn per target (default 100; all of "
               "them when a user has fewer)", type=options.whole(1, 1 << 30), default=100,
               metavar="N"),
        Option(("--sampling",), "sampling", "how negatives are drawn (default uniform)",
               choices=SAMPLING, default=SAMPLING[0]),
        options.SEED.worded("seed of the draws (default 0)"),
        options.THRESHOLD,
        Option(("--tie-breaking",), "tie_breaking", "a negative scored as the target ranks above "
               "it (pessimistic, default) or below", choices=("pessimistic", "optimistic"),
               default="pessimistic"),
        Option(("--gamma",), "gamma", "the BV estimator's weight (default 0.1)", type=float,
               default=0.1),
        options.FORMAT.worded(choices=("table", "csv", "json")),
    ))  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from ..read.runs import file_stem
    from ..recsys import read_recommendations
    from ..recsys.sampled import DEFAULT_MEASURES, sampled_evaluate
    from ..report.sampled import format_sampled

    names = [file_stem(s) for s in args.scores]
    if len(set(names)) < len(names):
        twice = next(n for n in names if names.count(n) > 1)
        from ..errors import UsageError

        raise UsageError(f"two score files are named {twice!r}: rename one")
    scores = {n: read_recommendations(s, name=n) for n, s in zip(names, args.scores, strict=True)}
    measures = args.measures or list(DEFAULT_MEASURES)
    estimators = args.estimators or list(ESTIMATORS)
    table = sampled_evaluate(
        args.test, scores, measures, estimators=estimators, output="dict", train=args.train,
        negatives=args.negatives, sampling=args.sampling, seed=args.seed,
        threshold=args.threshold, tie_breaking=args.tie_breaking, gamma=args.gamma,
    )  # fmt: skip
    sys.stdout.write(format_sampled(table, estimators, args.format))
    return 0
