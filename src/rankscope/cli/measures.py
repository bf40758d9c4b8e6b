"""list every measure with its names"""

from __future__ import annotations

import argparse
import sys

EXAMPLES = """\
examples:
  rankscope measures
  rankscope measures --markdown > measures.md
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--markdown", action="store_true", help="the full reference, as Markdown")


def run(args: argparse.Namespace) -> int:
    from ..report.reference import measure_list, measure_reference

    sys.stdout.write(measure_reference() + "\n" if args.markdown else measure_list())
    return 0
