"""online experiments (A/B and multi-arm tests): subcommand plan

Subcommands:
  plan KIND     the units an experiment needs, the smallest effect it detects or its
                power, whichever is not given, for a mean, a proportion or a ratio metric,
                with the planned --split of the arms (each treatment tested at alpha/k)

Formulas and references: the section "Planning" of rankscope's experiments.md.
"""

from __future__ import annotations

import argparse

from . import plan

EXAMPLES = """\
examples:
  rankscope ab plan proportion --rate 0.10 --relative-mde 0.05
  rankscope ab plan mean --mean 12.5 --sd 30 --units 40000 --split 50,50
"""

#: The subcommands, in the order ``rankscope ab --help`` lists them: one module each, with
#: its options (``add_arguments``), its body (``run``), its help line (the first line of its
#: docstring) and its ``EXAMPLES``.
SUBCOMMANDS = {"plan": plan}


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(
        dest="ab_command", metavar="SUBCOMMAND", help=f"one of {', '.join(SUBCOMMANDS)}"
    )
    for name, module in SUBCOMMANDS.items():
        # (python -OO drops docstrings: then the subcommands go without help text)
        help_line, _, description = (module.__doc__ or "").partition("\n\n")
        module.add_arguments(
            sub.add_parser(
                name, help=help_line or None, description=description.strip() or help_line or None,
                epilog=module.EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
            )
        )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    command = getattr(args, "ab_command", None)
    if command is None:
        from ...errors import UsageError

        raise UsageError(f"rankscope ab needs a subcommand: {', '.join(SUBCOMMANDS)}")
    return SUBCOMMANDS[command].run(args)
