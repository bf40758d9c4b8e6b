"""an HTML report of a comparison: table, per-query differences, curves, distributions

One self-contained page that opens offline (no network request of any kind) and prints:
the comparison table of rankscope compare (sortable, with the meaning of its marks), the
per-query differences of each run from the baseline, sorted (hover a bar for the query, its
topic title with --topics, and both values), each run's AP, nDCG, RBP and RR differences by
recall level beside RPP's sign (rankscope explain), the interpolated precision-recall curves, the
distribution of per-query values per run, the preference matrix with its MC4 ordering for a
preference method (RPP, ...) and, with --robustness, the robustness curves of rankscope
meta.  Needs the report extra: pip install 'rankscope[report]'.
"""

from __future__ import annotations

import argparse

from . import options
from .compare import add_comparison_options, compared

EXAMPLES = """examples:
  rankscope report qrels.txt bm25.run dense.run -o report.html
  rankscope report -m AP -m RPP --baseline bm25 --topics topics.tsv qrels.txt runs/ -o r.html
  rankscope report --robustness qrels.txt runs/ -o report.html
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    options.judgments_and_runs(p, runs="TREC run files or directories (at least two runs)")
    options.add_all(p, (options.OUTPUT.worded("the HTML file to write", required=True),
                        options.FORCE, options.JOBS))  # fmt: skip
    add_comparison_options(p, all_pairs=False)
    options.add_all(p, (
        Option(("--topics",), "topics", "topic titles, shown when hovering a query: "
               "'qid<TAB>title' lines or TREC topics (<top> <num> <title>, or XML), or "
               "ir_datasets:ID (default: the queries of the ir_datasets dataset QRELS names, if it "
               "does)", metavar="FILE"),
        Option(("--robustness",), "robustness", "also the robustness curves of rankscope meta (tau "
               "with fewer queries and judgments; slower)", action="store_true"),
        Option(("--title",), "title", "the page's heading (default: the measures and runs)"),
    ))  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from ..report.html import check_requirements

    options.check_outputs(args, {"--output": args.output})
    check_requirements()  # before the work, not after it
    if not args.robustness:
        result = compared(args, curves=True)
        robustness = None
    else:  # the study reads what the comparison reads: read it once
        from ..table.compare import DEFAULT_MEASURES
        from ..table.study import study

        qrels, runs = options.judged_runs(args, args.measures or DEFAULT_MEASURES, "a comparison")
        result = compared(args, qrels, runs, curves=True)
        robustness = study(
            qrels, runs, result.measures, alpha=args.alpha, permutations=args.permutations,
            seed=args.seed,
        )  # fmt: skip
    result.to_html(
        args.output, topics=options.topics(args), robustness=robustness, title=args.title
    )
    return 0
