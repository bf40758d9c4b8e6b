"""meta-evaluation: tau between measures, discriminative power, robustness

Compare measures over the same runs: Kendall's tau between their orderings of the runs,
their discriminative power, and their robustness to fewer queries or judgments (Diaz &
Ferraro, SIGIR 2022, Tables 2-4, Figures 6-7).
"""

from __future__ import annotations

import argparse
import sys

from . import options

#: The measures compared without ``-m``.
DEFAULT_MEASURES = ["AP", "nDCG", "RR", "RPP", "dcgRPP", "invRPP"]

EXAMPLES = """\
examples:
  rankscope meta qrels.txt runs/
  rankscope meta -m AP -m 'nDCG@10' -m RPP qrels.txt runs/ --plot curves.png
  rankscope meta --order rank -M 20 -m stRPP -m MAP-IA --no-robustness qrels-for-ndeval.txt runs/
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    options.judgments_and_runs(p, spilled=True)
    options.MEASURE.worded(
        "a metric or preference method to compare, as eval and prefer name them; repeatable "
        f"(default: {' '.join(DEFAULT_MEASURES)})"
    ).add(p)
    options.measure_list(p)
    options.add_all(p, (
        options.ALPHA,
        options.PERMUTATIONS.worded("random permutations of the randomized Tukey HSD test (default "
                                    "10000)"),
        Option(("--samples",), "samples", "random samples per point of the curves (10)",
               type=options.whole(1), default=10),
        options.SEED,
        Option(("--rbo-p",), "rbo_p", "persistence of RBO between the measures' orderings of runs "
               "(default 0.9)", type=float, default=0.9, metavar="P"),
        Option(("--no-robustness",), "no_robustness", "skip the robustness curves",
               action="store_true"),
        Option(("--plot",), "plot", "also draw the robustness curves (PNG, SVG, PDF)",
               metavar="FILE"),
        options.FORCE,
        options.FORMAT.worded(choices=("table", "json")),
        options.NAMES,
        options.DUPLICATE,
        Option(("--order",), "order", "rank documents by score (default, as trec_eval) or by the "
               "rank column (ndeval)", choices=("score", "rank"), default="score"),
        options.MAX_DOCS.worded("use only the top N documents of each ranking"),
        options.QUIET,
    ))  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from ..api import read_qrels_for
    from ..errors import UsageError
    from ..read.sources import run_sources
    from ..read.trec import run_files
    from ..report.meta import format_study, plot_robustness
    from ..table.study import RunFiles, study
    from .progress import progress_bar

    qrels_path, run_paths = options.positionals(args)
    if qrels_path is None or not run_paths:
        raise UsageError("rankscope meta needs QRELS and at least one RUN (after -m options)")
    if args.plot is not None and args.no_robustness:
        raise UsageError("--plot draws the robustness curves, which --no-robustness skips")
    options.check_outputs(args, {"--plot": args.plot})
    measures = args.measures or DEFAULT_MEASURES
    qrels = read_qrels_for(qrels_path, measures)
    # read one at a time by the study (each run joined, reduced to what it needs, dropped)
    runs = RunFiles(
        run_sources(run_files(run_paths, judgments=qrels_path), qrels.source, args.names),
        args.duplicates, args.order, args.names, check_common=True,
    )  # fmt: skip
    with progress_bar("rankscope meta", args.quiet) as progress:
        result = study(
            qrels, runs, measures, alpha=args.alpha, permutations=args.permutations,
            samples=args.samples, seed=args.seed, robustness=not args.no_robustness,
            progress=progress, rbo_p=args.rbo_p, max_docs=args.max_docs,
        )  # fmt: skip
    if args.plot is not None:
        plot_robustness(result, args.plot)
    sys.stdout.write(
        format_study(result, args.format, alpha=args.alpha, permutations=args.permutations)
    )
    return 0
