"""list every measure with its names"""

from __future__ import annotations

import argparse
import sys

from . import options

EXAMPLES = """\
examples:
  rankscope measures
  rankscope measures --markdown > measures.md
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    options.add_all(p, (
        Option(("--markdown",), "markdown", "the full reference, as Markdown", action="store_true"),
    ))  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from ..report.reference import measure_list, measure_reference

    sys.stdout.write(measure_reference() + "\n" if args.markdown else measure_list())
    return 0
