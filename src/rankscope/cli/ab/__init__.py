"""online experiments: rankscope ab FILE analyses an A/B or multi-arm test; ab plan sizes one

Subcommands:
  analyse FILE...  (the default: rankscope ab FILE is rankscope ab analyse FILE)
                each variant against the control on every metric: the sample-ratio check
                first, then the difference and the relative lift with their intervals, the
                p-value corrected over the variants and a decision; CUPED, strata, ratio
                metrics by the delta method, sequential looks; table, CSV, JSON, HTML
  plan KIND     the units an experiment needs, the smallest effect it detects or its
                power, whichever is not given, for a mean, a proportion or a ratio metric,
                with the planned --split of the arms (each treatment tested at alpha/k)

Formulas, conventions and references: rankscope's experiments.md.
"""

from __future__ import annotations

import argparse

from . import analyse, plan

EXAMPLES = """\
examples:
  rankscope ab experiment.tsv
  rankscope ab --metric revenue --ratio ctr=clicks/impressions --split 50,50 experiment.tsv
  rankscope ab plan proportion --rate 0.10 --relative-mde 0.05
"""

#: The subcommands, in the order ``rankscope ab --help`` lists them: one module each, with
#: its options (``add_arguments``), its body (``run``), its help line (the first line of its
#: docstring) and its ``EXAMPLES``.
SUBCOMMANDS = {"analyse": analyse, "plan": plan}
#: The subcommand of ``rankscope ab FILE`` (a first argument that names no subcommand).
DEFAULT_SUBCOMMAND = "analyse"


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(
        dest="ab_command", metavar="SUBCOMMAND", help=f"one of {', '.join(SUBCOMMANDS)}"
    )
    for name, module in SUBCOMMANDS.items():
        # (python -OO drops docstrings: then the subcommands go without help text)
        help_line, _, description = (module.__doc__ or "").partition("\n\n")
        module.add_arguments(
            sub.add_parser(
                name, help=help_line or None, description=description.strip() or help_line,
                epilog=module.EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
            )
        )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    command = getattr(args, "ab_command", None)
    if command is None:
        from ...errors import UsageError

        raise UsageError(f"rankscope ab needs a file, or a subcommand: {', '.join(SUBCOMMANDS)}")
    return SUBCOMMANDS[command].run(args)
