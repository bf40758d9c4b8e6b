"""split an interaction log into training and test files (holdout, temporal, K-fold)

Writes MovieLens-style pairs DIR/u1.base and DIR/u1.test (one pair, or one per fold):
tab-separated user item [rating [timestamp]] lines, the columns the log has.  Methods:
holdout (a random share of the interactions), per-user (that share of each user's),
temporal (a global time cut: --cut TIMESTAMP, or a quantile such as --cut 0.8),
temporal-per-user (each user's --last-n latest), leave-one-out (each user's latest, or
--by random), kfold (--num-folds parts, each the test set once) and kfold-per-user (each user's
interactions spread over the parts).  Seeded (--seed): the same files on every run.
A pair listed twice in the log keeps its latest rating; existing files are kept unless
--force.
"""

from __future__ import annotations

import argparse
import sys

from . import options

EXAMPLES = """\
examples:
  rankscope split u.data --method kfold --num-folds 5 -o folds/
  rankscope split ratings.csv --method temporal --cut 0.8 -o split/
  rankscope split u.data --method leave-one-out --by random --seed 7 -o loo/
"""

#: `rankscope.recsys.splits.METHODS`, in its order.
METHODS = (
    "holdout", "per-user", "temporal", "temporal-per-user", "leave-one-out", "kfold",
    "kfold-per-user",
)  # fmt: skip


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    p.add_argument("log", help="interaction log: user item [rating [timestamp]] (file, - stdin)")
    options.add_all(p, (
        Option(("--method",), "method", "how to split (default kfold)", choices=METHODS,
               default="kfold"),
        Option(("--num-folds",), "num_folds", "folds of kfold (default 5)", type=options.whole(2),
               default=5, metavar="K"),
        Option(("--test-size",), "test_size", "test share of holdout and per-user, strictly "
               "between 0 and 1 (default 0.2)", type=options.probability, default=0.2),
        Option(("--cut",), "cut", "temporal: a timestamp (the test set starts there), or a "
               "quantile in (0, 1)", type=options.real),
        Option(("--last-n",), "last_n", "temporal-per-user: each user's latest N interactions are "
               "the test set (default 1)", type=options.whole(1), default=1),
        Option(("--by",), "by", "leave-one-out: each user's latest interaction (default) or a "
               "random one", choices=("time", "random"), default="time"),
        options.SEED.worded("seed of the random splits (default 0)"),
        options.OUTPUT.worded("the directory to write, whole (a new or empty one, or an older "
                              "split's)", metavar="DIR", required=True),
        options.FORCE.worded("replace an older split in the directory (default: refused)"),
    ))  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..errors import UsageError
    from ..recsys.splits import split
    from ..report.splits import write_splits
    from ..report.tables import text_table

    if args.method == "temporal" and args.cut is None:
        raise UsageError("--method temporal needs --cut (a timestamp, or a quantile in (0, 1))")
    log, output = Path(args.log), Path(args.output)
    # the split replaces its directory whole: the log must not be in it
    if args.log != "-" and log.is_file() and output.is_dir():
        if log.resolve().is_relative_to(output.resolve()):
            raise UsageError(
                f"-o {args.output} would overwrite the log {args.log}: write elsewhere"
            )
    made = split(
        args.log, args.method, k=args.num_folds, test_size=args.test_size, cut=args.cut,
        last_n=args.last_n, by=args.by, seed=args.seed,
    )  # fmt: skip
    paths = write_splits(made, args.output, force=args.force)
    rows = [["training", "interactions", "test", "interactions"]]
    for i, s in enumerate(made):
        rows.append([str(paths[2 * i]), str(len(s.train)), str(paths[2 * i + 1]), str(len(s.test))])
    sys.stdout.write(text_table(rows))
    return 0
