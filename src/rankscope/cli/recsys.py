"""evaluate recommendation lists or rating predictions against a test log

Rating prediction (MAE, RMSE), top-N accuracy with a rating threshold (P, Recall, nDCG,
... at k) and beyond accuracy (coverage, ILD, novelty, serendipity, Gini, entropy, long
tail). rankscope recsys --list lists the measures and rankscope recsys --reference
prints their reference (formulas, parameters, defaults, citations).
"""

from __future__ import annotations

import argparse
import sys

from . import options, segments

EXAMPLES = """\
examples:
  rankscope recsys u1.test pop.tsv knn.tsv --train u1.base --features u.item
  rankscope recsys u1.test knn.tsv -m P@5 -m 'MAP(denominator=min)@5' --threshold 5
  rankscope recsys --folds ml-100k/ recs/ -m P@10 -m nDCG@10 -m RPP
"""


#: The tables of `rankscope.recsys.diagnostics` that ``--table`` prints.
TABLES = ("reliability", "coverage-accuracy", "group-exposure")


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    p.add_argument(
        "test_log", nargs="?", metavar="test",
        help="test interactions: user item [rating [timestamp]] (with --folds: the first RECS)",
    )  # fmt: skip
    p.add_argument("recs", nargs="*", help="recommendations (TREC run or user item [score])")
    options.add_all(p, (
        Option(("--folds",), "folds", "evaluate over the folds of DIR (u1.base/u1.test, ...); RECS "
               "are then directories of one list per fold (SYSTEM/u1.tsv, ...), or a directory of "
               "them", metavar="DIR"),
        Option(("--train",), "train", "training interactions (popularity, catalog, seen items)"),
        Option(("--features",), "features", "item features (MovieLens u.item, or a table) for ILD"),
        options.MEASURE.worded("e.g. P@10, nDCG, MAP(denominator=min)@5, MAE, Novelty, ARP@10, "
                               "ECE; nicknames topn, beyond, rating, popularity, confidence, all "
                               "(repeatable; default: every measure the inputs allow except rating "
                               "ones)"),
        Option(("-k",), "k", "cutoff of names without @k (default 10)", type=options.whole(),
               default=10),
        options.THRESHOLD,
        Option(("--relevance",), "relevance", "binary (default: relevant or not) or graded (the "
               "rating as the grade, for nDCG)", choices=("binary", "graded"), default="binary"),
        Option(("--no-relevant",), "no_relevant", "users without relevant test items (default: "
               "left out of the means)", choices=("exclude", "zero"), default="exclude"),
        Option(("--seen",), "seen", "recommended items of the user's training data (default keep; "
               "drop with --folds)", choices=("keep", "drop")),
        options.TIE.worded("order of equally scored items (default input-order)",
                           default="input-order"),
        Option(("--repeated-items",), "repeated_items", "an item listed twice for a user: keep its "
               "best score, with a warning (default: recommenders repeat items, and the best score "
               "is where a ranking by score puts it), keep the first, or refuse the list "
               "(--duplicates, error by default, is for runs)",
               choices=("max-score", "first", "error"), default="max-score"),
        options.PER_QUERY.worded("also per-user values", flags=("-q", "--per-user")),
        options.FORMAT.worded(choices=("table", "json", "csv")),
        options.SCHEDULER,
        options.BACKEND,
        options.BASELINE.worded("--folds: the system compared with (default: the first)"),
        options.TEST.worded("--folds: the paired test across folds: %(choices)s (default t)",
                            choices=options.StatisticalTests("paired")),
        options.P_VALUE_CORRECTION.worded("--folds: correction over the comparisons of a "
                                          "measure (default holm)"),
        Option(("--users",), "users", "--folds: also test across the users of every fold pooled",
               action="store_true"),
    ))  # fmt: skip
    segments.add_arguments(p, "user")
    options.add_all(p, (
        Option(("--table",), "diagnostic", "instead of the measures, print a table: reliability "
               "(the calibration curve's bins), coverage-accuracy (accuracy of the most confident "
               "predictions), or group-exposure (exposure and parity per item group, --groups)",
               choices=TABLES),
        Option(("--bins",), "bins", "--table reliability: equal-width bins of [0, 1] (default 10)",
               type=options.whole(1, 1 << 20), default=10),
        Option(("--groups",), "groups", "--table group-exposure: 'item group' lines (default: the "
               "short head and the long tail by training popularity)", metavar="FILE"),
        Option(("--list",), "list", "list the recommender measures", action="store_true"),
        Option(("--reference",), "reference", "print the recommender measures' reference "
               "(Markdown: formulas, parameters)", action="store_true"),
    ))  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from ..api.recsys import evaluate_recsys_systems
    from ..errors import UsageError
    from ..report.recsys import format_systems
    from ..report.reference import recsys_measure_list, recsys_reference

    if args.list:
        sys.stdout.write(recsys_measure_list())
        return 0
    if args.reference:
        sys.stdout.write(recsys_reference() + "\n")
        return 0
    if args.folds is not None:
        return _folds(args)
    if not args.test_log or not args.recs:
        raise UsageError("rankscope recsys needs a TEST file and at least one RECS file")
    if args.diagnostic is not None:
        return _diagnostic(args)
    for option, given in (("--groups", args.groups is not None), ("--bins", args.bins != 10)):
        if given:
            raise UsageError(f"{option} goes with --table")
    for option, given in (
        ("--baseline", args.baseline is not None), ("--test", args.test != "t"),
        ("--correction", args.correction != "holm"), ("--users", args.users),
    ):  # fmt: skip
        if given:
            raise UsageError(f"{option} goes with --folds (a comparison over folds)")
    segments.check(args)
    results = evaluate_recsys_systems(
        args.test_log, args.recs, args.measures, k=args.k, threshold=args.threshold,
        train=args.train, features=args.features, relevance=args.relevance,
        no_relevant=args.no_relevant, seen=args.seen or "keep", ties=args.ties,
        duplicates=args.repeated_items, scheduler=args.scheduler, backend=args.backend,
    )  # fmt: skip
    output = format_systems(results, args.format, per_user=args.per_query)
    if segments.asked(args):
        from ..recsys.systems import tidy

        output = segments.appended(args, output, tidy(results), args.format)
    sys.stdout.write(output)
    sys.stdout.flush()
    return 0


def _diagnostic(args: argparse.Namespace) -> int:
    """``--table``: one of `rankscope.recsys.diagnostics`' tables, in the command's format."""
    from ..errors import UsageError
    from ..recsys import coverage_accuracy, group_exposure, reliability
    from ..report.tables import format_columns

    if (args.measures or args.per_query or segments.asked(args) or args.scheduler
            or args.backend != "local"):  # fmt: skip
        raise UsageError("--table prints a table of its own: no -m, --per-user, --weights, "
                         "--segments, --scheduler or --backend with it")  # fmt: skip
    if args.groups is not None and args.diagnostic != "group-exposure":
        raise UsageError("--groups goes with --table group-exposure")
    if args.bins != 10 and args.diagnostic != "reliability":
        raise UsageError("--bins goes with --table reliability")
    recs = args.recs if len(args.recs) > 1 else args.recs[0]
    if args.diagnostic == "reliability":
        table = reliability(args.test_log, recs, bins=args.bins, threshold=args.threshold,
                            duplicates=args.repeated_items, output="dict")  # fmt: skip
    elif args.diagnostic == "coverage-accuracy":
        table = coverage_accuracy(args.test_log, recs, threshold=args.threshold,
                                  duplicates=args.repeated_items, output="dict")  # fmt: skip
    else:
        table = group_exposure(
            args.test_log, recs, k=args.k, groups=args.groups, threshold=args.threshold,
            train=args.train, seen=args.seen or "keep", ties=args.ties,
            duplicates=args.repeated_items, output="dict",
        )  # fmt: skip
    sys.stdout.write(format_columns(table, args.format))
    return 0


def _folds(args: argparse.Namespace) -> int:
    from ..errors import UsageError
    from ..recsys.folds import evaluate_folds
    from ..report.folds import format_folds

    recs = [r for r in (args.test_log, *args.recs) if r]
    if not recs:
        raise UsageError("rankscope recsys --folds DIR needs the recommendations: RECS...")
    if args.per_query:
        raise UsageError("--per-user does not go with --folds (it prints values per fold)")
    if args.scheduler or args.backend != "local":
        raise UsageError("--scheduler and --backend do not go with --folds")
    if segments.asked(args):
        raise UsageError("--weights and --segments do not go with --folds")
    if args.train:
        raise UsageError("--train does not go with --folds: each fold's uN.base is its training")
    result = evaluate_folds(
        args.folds, recs, args.measures, k=args.k, threshold=args.threshold,
        features=args.features, relevance=args.relevance, no_relevant=args.no_relevant,
        seen=args.seen or "drop", ties=args.ties, duplicates=args.repeated_items,
        baseline=args.baseline, test=args.test, correction=args.correction,
        users=args.users,
    )  # fmt: skip
    sys.stdout.write(format_folds(result, args.format))
    sys.stdout.flush()
    return 0
