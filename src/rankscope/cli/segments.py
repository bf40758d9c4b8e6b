"""The aggregation options of ``eval``, ``compare`` and ``recsys`` (``--weights``,
``--segments``, ``--aggregate``, ``--usage``, ``--usage-shares``, ``--unique``,
``--missing``): when one of
``--weights``/``--segments`` is given, the command's output is followed by the aggregates
per segment (`rankscope.aggregate`, `rankscope.report.aggregate`); without them the output
is unchanged.  Not a command: declared by the commands that take these options."""

from __future__ import annotations

import argparse
from typing import Any

from . import options

#: `rankscope.table.aggregate.MISSING`, repeated so that building the parser imports nothing
#: heavy (a test checks they agree; the statistics are the glossary's `options.HOWS`).
MISSING = ("error", "warn")


def shares(text: str) -> tuple[float, float]:
    """``--usage HEAD,TORSO``: two traffic shares, 0 < HEAD < TORSO < 1."""
    parts = text.split(",")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"expected two shares HEAD,TORSO, got {text[:40]!r}")
    head, torso = (options.real(p.strip()) for p in parts)
    if not 0 < head < torso < 1:
        raise argparse.ArgumentTypeError(f"expected 0 < HEAD < TORSO < 1, got {text[:40]!r}")
    return head, torso


def add_arguments(p: argparse.ArgumentParser, what: str = "query") -> None:
    """The aggregation options; ``what``: the id the files name (``query``, ``user``)."""
    Option = options.Option
    plural = f"{what[:-1]}ies" if what.endswith("y") else f"{what}s"  # (queries, users)
    group = p.add_argument_group(
        "aggregation",
        f"per-{what} values to one number per run and segment, printed after the output",
    )
    options.add_all(group, (
        options.WEIGHTS.worded(f"request weights: '{what} weight' lines, or a request log "
                               f"(one {what} per line, counted); the aggregate becomes "
                               f"traffic-weighted; every {what} needs one"),
        Option(("--segments",), "segments", f"'{what} segment' lines (e.g. an age band per "
               "user); repeatable, each file a segmentation named after it; each segment's "
               "aggregate, size and interval, and the gap between the highest and the lowest",
               metavar="FILE", action="append"),
        options.AGGREGATE,
        Option(("--usage",), "usage", "also segment by usage from --weights: the most "
               f"frequent {plural} making the first half of the traffic are the head, up to "
               "80%% the torso, the rest the tail", action="store_true"),
        Option(("--usage-shares",), "usage_shares", "the traffic shares ending the head and the "
               "torso (default 0.5,0.8)", metavar="HEAD,TORSO", type=shares),
        Option(("--unique",), "unique", f"each distinct {what} counts once (--weights then only "
               "define usage segments)", action="store_true"),
        Option(("--missing",), "missing", f"a {what} without a weight or segment: error "
               "(default) or warn (segment 'unknown', weight 0)", choices=MISSING, default="error"),
    ))  # fmt: skip


def asked(args: argparse.Namespace) -> bool:
    """Whether the command line asks for an aggregation."""
    return bool(args.weights or args.segments)


def check(args: argparse.Namespace) -> None:
    """Options that need others (before any work is done)."""
    from ..errors import UsageError

    if not asked(args):
        for flag, given in (
            ("--usage", args.usage), ("--usage-shares", args.usage_shares is not None),
            ("--unique", args.unique),
            ("--aggregate", args.aggregate != "mean"), ("--missing", args.missing != "error"),
        ):  # fmt: skip
            if given:
                raise UsageError(f"{flag} applies to an aggregation: give --weights or --segments")
    if args.usage_shares is not None and not args.usage:
        raise UsageError("--usage-shares applies to usage segments: give --usage too")
    if args.usage and not args.weights:
        raise UsageError("--usage needs the request weights (--weights FILE)")


def appended(args: argparse.Namespace, output: str, table: Any, fmt: str) -> str:
    """``output`` (in ``fmt``) followed by the aggregation of ``table`` the options ask for,
    or unchanged when they ask for none."""
    if not asked(args):
        return output
    from ..api.aggregation import aggregate
    from ..report.aggregate import with_aggregation

    segments: dict[str, dict[str, str]] = {}
    for path in args.segments or ():
        segments.update(_read_one(path, segments))
    usage = (args.usage_shares or True) if args.usage else None
    result = aggregate(
        table, args.weights, segments or None, args.aggregate, usage=usage, unique=args.unique,
        seed=getattr(args, "seed", 0), missing=args.missing,
    )  # fmt: skip
    return with_aggregation(output, result, fmt)


def _read_one(path: str, known: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    from ..errors import UsageError
    from ..read.segments import read_segments

    found = read_segments(path)
    for name in found:
        if name in known:
            raise UsageError(f"--segments: two files are named {name}: rename one")
    return found
