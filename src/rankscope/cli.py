"""Command line: ``rankscope eval``, ``rankscope measures``, ``rankscope example``.

``rankscope eval QRELS RUN`` with one run and no ``--format`` prints exactly what trec_eval
prints with the same options (``-q -m -c -n -l -M -J -N``).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence


def _eval_parser(sub: argparse._SubParsersAction) -> None:
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
    p.set_defaults(func=_cmd_eval)


def _ndeval_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "ndeval",
        help="diversity evaluation with ndeval's output (TREC Web track)",
        description=(
            "Intent-aware measures (ERR-IA, alpha-nDCG, NRBP, MAP-IA, P-IA, strec) printed "
            "exactly as ndeval 4.5 prints them: CSV, one row per topic and an amean row."
        ),
    )
    p.add_argument("qrels", help="diversity qrels: qid subtopic docno grade")
    p.add_argument("runs", nargs="+", help="TREC run files or directories")
    p.add_argument("-alpha", "--alpha", type=float, default=0.5, help="redundancy (0.5)")
    p.add_argument("-beta", "--beta", type=float, default=0.5, help="NRBP persistence (0.5)")
    p.add_argument(
        "-traditional",
        "--traditional",
        action="store_true",
        help="order by score then docno (default: by the rank column)",
    )
    p.add_argument(
        "-c", action="store_true", dest="complete", help="average over every judged topic"
    )
    p.add_argument("-M", type=int, default=None, dest="depth", metavar="N", help="cut at rank N")
    p.set_defaults(func=_cmd_ndeval)


def _cmd_ndeval(args: argparse.Namespace) -> int:
    from .ndeval import ndeval_files

    for name, v in (("alpha", args.alpha), ("beta", args.beta)):
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"-{name} must be between 0 and 1 (got {v})")
    if args.depth is not None and args.depth <= 0:
        raise ValueError(f"-M must be positive (got {args.depth})")
    return ndeval_files(args)


def _prefer_parser(sub: argparse._SubParsersAction) -> None:
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
    p.set_defaults(func=_cmd_prefer)


def _cmd_prefer(args: argparse.Namespace) -> int:
    from .preference.cli import prefer_files

    return prefer_files(args)


def _meta_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "meta",
        help="meta-evaluation: tau between measures, discriminative power, robustness",
        description=(
            "Compare measures over the same runs: Kendall's tau between their orderings of "
            "the runs, their discriminative power, and their robustness to fewer queries or "
            "judgments (Diaz & Ferraro, SIGIR 2022, Tables 2-4, Figures 6-7)."
        ),
    )
    p.add_argument("qrels", help="TREC qrels file")
    p.add_argument("runs", nargs="+", help="TREC run files or directories")
    p.add_argument(
        "--measures",
        nargs="+",
        default=["AP", "nDCG", "RR", "RPP", "dcgRPP", "invRPP"],
        help="metrics and preference methods (default: AP nDCG RR RPP dcgRPP invRPP)",
    )
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--permutations", type=int, default=10_000)
    p.add_argument("--samples", type=int, default=10, help="random samples per point")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-robustness", action="store_true", help="skip the robustness curves")
    p.add_argument("--plot", metavar="FILE", help="also draw the robustness curves (PNG, SVG, PDF)")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=_cmd_meta)


def _cmd_meta(args: argparse.Namespace) -> int:
    from .stats.cli import meta_files

    return meta_files(args)


def _recsys_parser(sub: argparse._SubParsersAction) -> None:
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
    p.set_defaults(func=_cmd_recsys)  # fmt: skip


def _cmd_recsys(args: argparse.Namespace) -> int:
    from .recsys.cli import recsys_files

    return recsys_files(args)


def _cmd_eval(args: argparse.Namespace) -> int:
    from .api import evaluate_files

    return evaluate_files(args)


def _cmd_measures(args: argparse.Namespace) -> int:
    from .measures import REGISTRY
    from .recsys import registry as recsys

    if args.markdown:
        from .reference import measure_reference

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


def _cmd_example(args: argparse.Namespace) -> int:
    from .examples import example_paths

    qrels, runs = example_paths()
    from .api import evaluate_files

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
    return evaluate_files(ns)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankscope", description="Offline evaluation of search and recommendation systems."
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command")
    _eval_parser(sub)
    _prefer_parser(sub)
    _meta_parser(sub)
    _ndeval_parser(sub)
    _recsys_parser(sub)
    pm = sub.add_parser("measures", help="list every measure with its names")
    pm.add_argument("--markdown", action="store_true", help="the full reference, as Markdown")
    pm.set_defaults(func=_cmd_measures)
    pe = sub.add_parser("example", help="evaluate the bundled example collection")
    pe.add_argument("-m", "--measure", action="append", dest="measures")
    pe.set_defaults(func=_cmd_example)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"rankscope: warning: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    # rankscope does no linear algebra: keep numpy's BLAS from starting idle threads.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        from . import __version__

        print(f"rankscope {__version__}")
        return 0
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    warnings.showwarning = _show_warning
    from .data import InputError

    try:
        return args.func(args)
    except BrokenPipeError:  # the reader went away (``| head``): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the exit-time flush cannot fail again
        return 0
    except (InputError, ValueError, OSError) as exc:
        print(f"rankscope: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
