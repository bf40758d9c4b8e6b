"""The command line: one module per command, each with its options (`add_arguments`: a table
of `options.Option`s) and its body (`run`), thin over the public API; the options several
commands share are declared once in `options`, and everything a command prints is formatted
by `rankscope.report`.  A command module's docstring is its help: the first line is what
``rankscope --help`` lists, the rest the description ``rankscope COMMAND --help`` prints
(as written: line breaks kept), and its ``EXAMPLES`` the examples that end that help.

``rankscope eval QRELS RUN`` with one run and no ``--format`` prints exactly what trec_eval
prints with the same options (``-q -m -c -n -l -M -J -N``).

Start-up time: the command line runs in loops (a run file at a time, in shell scripts), so
``rankscope COMMAND ...`` imports that command's module alone (`command_module`) and builds
its parser alone (`build_parser` with the command); ``rankscope --help`` and the tests that
read every command's options build them all (`build_parser` without).  A body may import
with the garbage collector paused (`importing`).  A command module
imports nothing heavy at module level — only `argparse` and `options` — and its `run` imports
what the command needs (numpy, the readers, `rankscope.recsys`, scipy through
`rankscope.stats`, matplotlib for ``meta --plot``): ``rankscope eval`` loads the evaluation
path and nothing else.  Run as the process's command line (`main` without ``argv``), the
process ends when the command is done (`_ended`: its output flushed, the functions
registered to run at exit run), without the interpreter's finalization, which frees every
object one by one in a process whose memory the system takes back anyway; where something
is left to finish (a thread, a child process) it exits as usual, the objects left then
frozen (`gc.freeze`): the collections at exit would look at every module's objects once
more.

Errors: a mistake in what the user gave (`rankscope.errors.RankscopeError`: `InputError`,
`UsageError`) or a file that cannot be read (`OSError`) prints one line, ``rankscope: error:
<message>``, and exits with status 2, as argparse does for a bad option.  Anything else is a
bug in rankscope: the traceback, a line asking to report it, and exit status 70
(``EX_SOFTWARE`` of sysexits.h, "an internal software error"), so that scripts can tell a bug
from a mistake.  Ctrl-C stops a command with ``rankscope: interrupted`` and status 130, the
shells' 128 + SIGINT, without a traceback; SIGTERM (``kill``) stops it as cleanly, with
status 143 (128 + SIGTERM): a file being written is left as it was (`rankscope.atomic`).
"""

from __future__ import annotations

import argparse
import atexit
import gc
import io
import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType

from ..errors import RankscopeError

#: The commands, in the order ``rankscope --help`` lists them; each one's module is imported
#: only when the command is named (`command_module`).
COMMANDS: tuple[str, ...] = (
    "eval", "compare", "report", "prefer", "meta", "ndeval", "recsys", "split", "sampled",
    "agree", "reproduce", "fuse", "clicks", "ab", "measures", "explain", "example",
)  # fmt: skip


def command_module(command: str) -> ModuleType:
    """The module of one of `COMMANDS` (its docstring, ``add_arguments`` and ``run``),
    imported now: ``rankscope eval`` loads no other command's module (nor, through them,
    their options)."""
    match command:
        case "eval":
            from . import eval as evaluation

            return evaluation
        case "compare":
            from . import compare

            return compare
        case "report":
            from . import report

            return report
        case "prefer":
            from . import prefer

            return prefer
        case "meta":
            from . import meta

            return meta
        case "ndeval":
            from . import ndeval

            return ndeval
        case "recsys":
            from . import recsys

            return recsys
        case "split":
            from . import split

            return split
        case "sampled":
            from . import sampled

            return sampled
        case "agree":
            from . import agree

            return agree
        case "reproduce":
            from . import reproduce

            return reproduce
        case "fuse":
            from . import fuse

            return fuse
        case "clicks":
            from . import clicks

            return clicks
        case "ab":
            from . import ab

            return ab
        case "measures":
            from . import measures

            return measures
        case "explain":
            from . import explain

            return explain
        case "example":
            from . import example

            return example
    raise KeyError(command)


@contextmanager
def importing() -> Iterator[None]:
    """The cyclic garbage collector paused while a command's body imports what it needs
    (numpy, the evaluation's modules): what an import makes is kept, not garbage, and the
    collections the allocations would set off walk every object made so far, for nothing
    (4% of a small run's ``rankscope eval``).  Paused only while importing: a long command
    collects as it runs."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if _PROGRAM:  # (what was imported is then never looked at again; see `main`)
            gc.freeze()
        if enabled:
            gc.enable()


#: Exit statuses: a user's mistake (as argparse's), a bug in rankscope (sysexits.h).
EXIT_USER_ERROR = 2
EXIT_INTERNAL_ERROR = 70
#: Stopped by Ctrl-C (SIGINT): 128 + 2, as the shells report it; by SIGTERM: 128 + 15.
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143

#: Where a bug is reported.
ISSUE_TRACKER = "the rankscope issue tracker"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or, given one of `COMMANDS`, of that command alone (what
    `main` parses a command line with: the others' modules stay unimported).  Either parses
    that command's arguments alike, and says the same on an error."""
    parser = argparse.ArgumentParser(
        prog="rankscope", description="Offline evaluation of search and recommendation systems."
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    # (one command's parser alone lists every command in its usage line, as argparse does from
    # all the choices, so that an error's usage line is the same whichever parsers were built)
    every = "{" + str.join(",", COMMANDS) + "}"  # (argparse's own spelling of choices)
    sub = parser.add_subparsers(dest="command", metavar=None if command is None else every)
    for name in COMMANDS if command is None else (command,):
        module = command_module(name)
        # (python -OO drops docstrings: then the commands go without help text)
        help_line, _, description = (module.__doc__ or "").partition("\n\n")
        p = sub.add_parser(
            name,
            help=help_line,
            description=description.strip() or None,
            epilog=getattr(module, "EXAMPLES", None),  # each command's help ends with examples
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(p)
        p.set_defaults(func=module.run)
    return parser


def with_default_subcommand(argv: Sequence[str]) -> list[str]:
    """``argv`` with the default subcommand of a command that has one inserted where the
    command's first argument names none of its subcommands (``rankscope ab FILE`` is
    ``rankscope ab analyse FILE``); a help flag stays the command's own."""
    argv = list(argv)
    module = command_module(argv[0]) if argv and argv[0] in COMMANDS else None
    default = getattr(module, "DEFAULT_SUBCOMMAND", None)
    if default is None or len(argv) < 2:
        return argv
    if argv[1] in module.SUBCOMMANDS or argv[1] in ("-h", "--help"):  # type: ignore[union-attr]
        return argv
    return [argv[0], default, *argv[1:]]


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    # a RankscopeWarning may say it in the command line's words (its options)
    from ..report.tables import clean  # messages quote ids from the user's files

    text = str(getattr(message, "cli_message", message))
    print(f"rankscope: warning: {clean(text, keep=chr(10))}", file=sys.stderr)


def _os_message(exc: OSError) -> str:
    """``FILE: reason`` (``missing.txt: No such file or directory``), as other command-line
    tools say it, rather than Python's ``[Errno 2] No such file or directory: 'missing.txt'``."""
    if exc.filename is None or not exc.strerror:
        return str(exc)
    return f"{exc.filename}: {exc.strerror}"


def _terminated(signum: int, frame: object) -> None:
    # SIGTERM unwinds like Ctrl-C, so that a file being written is removed, not left half
    raise SystemExit(EXIT_TERMINATED)


#: Whether `main` runs as the process's command line (not called by a program that goes on)
_PROGRAM = False


def main(argv: Sequence[str] | None = None) -> int:
    global _PROGRAM
    if argv is None:  # the process's command line, which ends with the command: the
        # collections at exit skip what is left (see the module's docstring; 3.5% of the
        # instructions of a small run's ``rankscope eval``)
        atexit.register(gc.freeze)
        _PROGRAM = True
    try:  # (only the main thread may handle signals: a command run in a thread keeps Python's)
        previous = signal.signal(signal.SIGTERM, _terminated)
    except ValueError:
        return _main(argv)
    try:
        code = _main(argv)
    finally:
        signal.signal(signal.SIGTERM, previous)
    return _ended(code) if argv is None else code


def _ended(code: int) -> int:
    """The command line done: the process ends here with ``code``, its output flushed and
    the functions registered to run at exit run, without the interpreter's finalization,
    which frees every object one by one (~30 ms of a large run's ``eval``, its tables of
    hundreds of MB) in a process whose memory the system takes back anyway.  Only when
    nothing is left to finish: one thread, no child process, the output flushed; else
    ``code``, for the usual exit."""
    multiprocessing = sys.modules.get("multiprocessing")
    if threading.active_count() > 1 or (multiprocessing and multiprocessing.active_children()):
        return code
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # (a closed pipe, a closed stream: the usual exit says so)
        return code
    atexit._run_exitfuncs()  # (once: they are cleared as they run, as at the usual exit)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def _main(argv: Sequence[str] | None) -> int:
    # rankscope does no linear algebra: keep numpy's BLAS from starting idle threads.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    if isinstance(sys.stdout, io.TextIOWrapper):
        # an id's bytes that are not UTF-8 are written back as they were read (trec_eval's
        # format keeps them; every other output writes them as escapes, `report.tables.clean`)
        sys.stdout.reconfigure(errors="surrogateescape")
    words = with_default_subcommand(sys.argv[1:] if argv is None else argv)
    # the named command's parser alone; none named (--help, --version, a typo): them all
    with importing():
        parser = build_parser(words[0] if words and words[0] in COMMANDS else None)
    args = parser.parse_args(words)
    if args.version:
        from .. import __version__

        print(f"rankscope {__version__}")
        return 0
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USER_ERROR
    warnings.showwarning = _show_warning
    try:
        from .options import resolve_judgments

        resolve_judgments(args)  # a bare ir_datasets id as judgments: judgments_source
        return args.func(args)
    except KeyboardInterrupt:  # Ctrl-C: the user stopped it, no traceback
        print("rankscope: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (``| head``): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the exit-time flush cannot fail again
        return 0
    except (RankscopeError, OSError) as exc:
        from ..report.tables import clean

        text = _os_message(exc) if isinstance(exc, OSError) else exc.cli_message
        print(f"rankscope: error: {clean(text, keep=chr(10))}", file=sys.stderr)
        return EXIT_USER_ERROR
    except Exception:
        import traceback  # only now: its imports cost a cold start ~2 ms

        traceback.print_exc()
        print(
            f"rankscope: internal error: please report it at {ISSUE_TRACKER}, "
            "with the command line",
            file=sys.stderr,
        )
        return EXIT_INTERNAL_ERROR


if __name__ == "__main__":
    sys.exit(main())
