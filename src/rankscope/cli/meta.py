"""meta-evaluation: tau between measures, discriminative power, robustness

Compare measures over the same runs: Kendall's tau between their orderings of the runs,
their discriminative power, and their robustness to fewer queries or judgments (Diaz &
Ferraro, SIGIR 2022, Tables 2-4, Figures 6-7).
"""

from __future__ import annotations

import argparse
import sys

from . import options


def add_arguments(p: argparse.ArgumentParser) -> None:
    options.judgments_and_runs(p)
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
    options.output_format(p, ("table", "json"))


def run(args: argparse.Namespace) -> int:
    from ..measures import reads_subtopics
    from ..read.sources import read_qrels, resolve_runs
    from ..read.trec import run_files
    from ..report.meta import format_study, plot_robustness
    from ..table.study import study

    qrels = read_qrels(args.qrels, diversity=reads_subtopics(args.measures))
    runs = resolve_runs(run_files(args.runs), qrels, "error")
    result = study(
        qrels, runs, args.measures, alpha=args.alpha, permutations=args.permutations,
        samples=args.samples, seed=args.seed, robustness=not args.no_robustness,
    )  # fmt: skip
    if args.plot:
        plot_robustness(result, args.plot)
    sys.stdout.write(
        format_study(result, args.format, alpha=args.alpha, permutations=args.permutations)
    )
    return 0
