"""evaluation from click logs: subcommands fit, simulate, estimate, interleave, learn

Subcommands:
  estimate LOG --policy RUN
                a ranking policy's expected clicks estimated from another policy's log of
                rankings with its propensities (ips, snips, iips, rips, pbm, dm, dr,
                cascade-dr), with seeded bootstrap intervals
  fit LOG       fit click models (PBM, UBM, DBN by EM; CM, SDBN in closed form) to a click
                log and print their parameters' summary, training log-likelihood and, with
                --test-log or --test-fraction, held-out log-likelihood and perplexity per
                position; -o writes one model's parameters as JSON
  interleave LOG
                outcomes of an online interleaving experiment from a click log of
                interleaved lists (team draft, balanced, probabilistic), the sign test and
                the uniform-p(k) variant; --lists RUN_A RUN_B builds seeded interleaved
                lists, --win-rate WIN_RATE the impressions needed
  learn QRELS RUNS
                RPP's pseudo-population weights p(i) learned from labelled preferences
                (--labels FILE) or a metric's (--from MEASURE), with cross-validation over
                queries; --save writes them for rankscope prefer --learned FILE
  simulate QRELS RUN
                draw clicks (seeded) from a click model on the run's rankings, its
                parameters from the judgments' grades (or a fitted model's, --params), and
                write the click log (-o, default stdout)

A click log has one line per shown result: session query position doc clicked
[timestamp] [ranking], tab-, comma- or space-separated, with or without a header line.
Formulas, initial values, convergence and citations: the section "Click logs and click
models" of rankscope's clicks.md (and "Learned pseudo-population weights").
"""

from __future__ import annotations

import argparse

from . import estimate, fit, interleave, learn, simulate

EXAMPLES = """\
examples:
  rankscope clicks fit clicks.tsv --model pbm --model ubm --model dbn --test-fraction 0.2 --seed 1
  rankscope clicks simulate --model dbn --sessions 10000 --seed 1 qrels.txt run.txt -o clicks.tsv
"""

#: The subcommands, in the order ``rankscope clicks --help`` lists them: one module each, with
#: its options (``add_arguments``), its body (``run``), its help line (the first line of its
#: docstring) and its ``EXAMPLES``.
SUBCOMMANDS = {
    "fit": fit, "simulate": simulate, "estimate": estimate, "interleave": interleave,
    "learn": learn,
}  # fmt: skip


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(
        dest="clicks_command", metavar="SUBCOMMAND", help=f"one of {', '.join(SUBCOMMANDS)}"
    )
    for name, module in SUBCOMMANDS.items():
        # (python -OO drops docstrings: then the subcommands go without help text)
        help_line = (module.__doc__ or "").partition("\n")[0] or None
        module.add_arguments(
            sub.add_parser(
                name, help=help_line, description=help_line, epilog=module.EXAMPLES,
                formatter_class=argparse.RawDescriptionHelpFormatter,
            )
        )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    command = getattr(args, "clicks_command", None)
    if command is None:
        from ...errors import UsageError

        raise UsageError(
            f"rankscope clicks needs a subcommand: {', '.join(SUBCOMMANDS)}",
        )
    return SUBCOMMANDS[command].run(args)
