"""The command line: one module per command, each with its parser (`add_parser`) and its body
(`run`), thin over the public API.

``rankscope eval QRELS RUN`` with one run and no ``--format`` prints exactly what trec_eval
prints with the same options (``-q -m -c -n -l -M -J -N``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from collections.abc import Sequence

#: The commands, in the order ``rankscope --help`` lists them (modules of this package).
COMMANDS = ("eval", "prefer", "meta", "ndeval", "recsys", "measures", "example")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankscope", description="Offline evaluation of search and recommendation systems."
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command")
    for command in COMMANDS:
        importlib.import_module(f".{command}", __name__).add_parser(sub)
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
        from .. import __version__

        print(f"rankscope {__version__}")
        return 0
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    warnings.showwarning = _show_warning
    from ..errors import InputError

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
