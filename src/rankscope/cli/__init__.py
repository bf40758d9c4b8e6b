"""The command line: one module per command, each with its options (`add_arguments`) and its
body (`run`), thin over the public API; the options several commands share are declared once in
`options`, and everything a command prints is formatted by `rankscope.report`.  A command
module's docstring is its help: the first line is what ``rankscope --help`` lists, the rest the
description ``rankscope COMMAND --help`` prints.

``rankscope eval QRELS RUN`` with one run and no ``--format`` prints exactly what trec_eval
prints with the same options (``-q -m -c -n -l -M -J -N``).

Start-up time: the command line runs in loops (a run file at a time, in shell scripts), and
`build_parser` imports every command module to declare its options.  So a command module
imports nothing heavy at module level — only `argparse` and `options` — and its `run`
imports what the command needs (numpy, the readers, `rankscope.recsys`, scipy through
`rankscope.stats`, matplotlib for ``meta --plot``): ``rankscope eval`` loads the evaluation
path and nothing else.
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
        module = importlib.import_module(f".{command}", __name__)
        # (python -OO drops docstrings: then the commands go without help text)
        help_line, _, description = (module.__doc__ or "").partition("\n\n")
        p = sub.add_parser(command, help=help_line, description=description.strip() or None)
        module.add_arguments(p)
        p.set_defaults(func=module.run)
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
