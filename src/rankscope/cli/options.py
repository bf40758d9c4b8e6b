"""The glossary of the options several commands share, and the number types of every option.

Each shared option is declared once here, as an `Option`: its flags, destination, type or
choices, help and ONE default; every command declares it from here, so an option means the
same thing in every command and ``--seed 1`` is read by one validator.  A command declares
its options as a table of `Option`s (`add_all`): its own, and the glossary's, as they are
(``SEED``) or worded for the command (``SEED.worded("seed of the draws")``: what the seed
seeds there, a subset of the choices of `FORMAT` and `TEST`, the formats it writes, the
tests it runs, and another default only where `DEFAULTS_BY_COMMAND` says why).
``tests/test_cli_options.py`` introspects every command's parser: each shared option comes
from here, and no option string means two things (another destination, type or choices) in
two commands.

This module imports nothing from rankscope, so that building the parser stays cheap: the
policies' names are repeated from `rankscope.judge.TIE_POLICIES`,
`rankscope.read.trec.DUPLICATE_POLICIES` and `rankscope.table.aggregate.HOWS` (a test checks
they agree); the statistical tests are read from their table only when argparse needs them
(`StatisticalTests`).
"""

from __future__ import annotations

import argparse
import math
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

Parser = argparse.ArgumentParser

# -- numbers -----------------------------------------------------------------------------------
# An option's number follows the grammar of a number in a file (`rankscope.read.fields`,
# repeated here so that building the parser imports nothing): ASCII digits, no digit
# separators (Python's int() takes ``1_000``), no decimal comma, finite.  A bad value is
# argparse's error naming the option (exit status 2).

_WHOLE = re.compile(r"[+-]?[0-9]+", re.ASCII)
_REAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
#: The largest count or cutoff an option takes (no ranking is longer; numpy overflows past
#: 2**63).
LARGEST = 2**31 - 1
#: The largest seed (numpy's generators take any; a seed is printed and passed around).
LARGEST_SEED = 2**63 - 1


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 40 else f"{text[:30]!r}... ({len(text):,} characters)"


def whole(minimum: int | None = None, maximum: int = LARGEST) -> Callable[[str], int]:
    """An option's type: a whole number (``[+-]?[0-9]+``) from ``minimum`` to ``maximum``."""

    def parse(text: str) -> int:
        if not _WHOLE.fullmatch(text):
            raise argparse.ArgumentTypeError(f"expected a whole number, got {_shown(text)}")
        digits = text.lstrip("+-").lstrip("0")  # (int() refuses over 4,300 digits)
        value = int(text) if len(digits) <= 20 else (-1 if text[0] == "-" else 1) * 10**21
        lowest = -maximum - 1 if minimum is None else minimum
        if value < lowest:
            raise argparse.ArgumentTypeError(f"must be at least {lowest}, got {_shown(text)}")
        if value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum}, got {_shown(text)}")
        return value

    parse.__name__ = "whole number"
    return parse


def real(text: str) -> float:
    """An option's type: a finite real number (``0.05``, ``1e-3``; not ``nan``, ``0,05``)."""
    value = float(text) if _REAL.fullmatch(text) else math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {_shown(text)}")
    return value


def probability(text: str) -> float:
    """An option's type: a real strictly between 0 and 1 (a significance level)."""
    value = real(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, got {text}")
    return value


def rating_threshold(text: str) -> float | None:
    """An option's type: a rating (a finite real), or ``none`` (every test interaction is
    relevant)."""
    if text.lower() == "none":
        return None
    try:
        return real(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected a finite number or none, got {_shown(text)}"
        ) from None


def column_roles(text: str) -> dict[str, str]:
    """An option's type: a log's columns by role, ``ROLE=NAME`` pairs separated by commas
    (``click=clicked,doc=item``; the roles of `rankscope.read.impressions.ROLES`)."""
    out = {}
    for item in text.split(","):
        role, sep, name = item.partition("=")
        if not sep or not role.strip() or not name.strip():
            raise argparse.ArgumentTypeError(f"expected ROLE=NAME pairs, got {_shown(item)}")
        out[role.strip()] = name.strip()
    return out


def split_shares(text: str) -> tuple[float, ...]:
    """An option's type: the arms' planned shares, the control first, separated by commas
    (``50,50``; ``1,1,1`` for a control and two treatments): positive numbers, normalised to
    sum to 1."""
    parts = text.split(",")
    if len(parts) < 2:
        raise argparse.ArgumentTypeError(
            f"expected a share for the control and for each treatment, separated by commas "
            f"(50,50), got {_shown(text)}"
        )
    values = [real(part.strip()) for part in parts]
    if min(values) <= 0:
        raise argparse.ArgumentTypeError(f"every share must be positive, got {_shown(text)}")
    total = sum(values)
    return tuple(value / total for value in values)


class LazyChoices:
    """The choices of an option that come from a table of the library, read from it when
    argparse first needs them (to check a value, to print the usage), so that building the
    parser imports nothing: give the option a ``metavar`` (argparse would list the choices
    to check it) and ``%(choices)s`` in its help.  The canonical names are listed; an alias
    passes the check too.  A subclass says how the table is read (`read`)."""

    def read(self) -> dict[str, tuple[str, ...]]:
        """Each canonical name, with its aliases."""
        raise NotImplementedError

    def __iter__(self) -> Iterator[str]:
        return iter(self.read())

    def __len__(self) -> int:
        return len(self.read())

    def __contains__(self, name: object) -> bool:
        return any(name == known or name in aliases for known, aliases in self.read().items())


class StatisticalTests(LazyChoices):
    """The choices of a ``--test`` option: the tests of `rankscope.stats.procedures` that
    one use accepts (``"paired"``, ``"runs"``: `rankscope.stats.procedures.choices`), read
    lazily so that building the parser imports no numpy (``permutation``, an alias, is the
    randomization test)."""

    def __init__(self, use: str) -> None:
        self.use = use

    def read(self) -> dict[str, tuple[str, ...]]:
        from ..stats.procedures import choices

        return {test.name: test.aliases for test in choices(self.use)}


def judgments_and_runs(
    p: Parser,
    judgments: str = "TREC qrels file",
    runs: str = "TREC run files or directories",
    *,
    spilled: bool = False,
    datasets: bool = True,
) -> None:
    """The positional arguments: a judgments file (or, with ``datasets``, an ir_datasets
    id: `judgments_source`), then one or more runs.  With ``spilled``, both may come after
    `measure_list`'s ``--measures`` (argparse then sees none): the command reads them with
    `positionals` and checks that they were given."""
    if datasets:  # resolved by `resolve_judgments` once parsed (parsing imports nothing)
        judgments += ", or an ir_datasets id (ir_datasets:ID, or ID when no such file exists)"
        p.set_defaults(judgments_datasets=True)
    if not spilled:
        p.add_argument("qrels", help=judgments)
        p.add_argument("runs", nargs="+", help=runs)
        return
    p.add_argument("qrels", nargs="?", metavar="QRELS", help=judgments)
    p.add_argument("runs", nargs="*", metavar="RUNS", help=runs)
    p.usage = "%(prog)s [options] QRELS RUNS [RUNS ...]"


def judged_runs(
    args: argparse.Namespace,
    measures: Sequence[Any],
    distinct_for: str,
    given: tuple[str, Sequence[str]] | None = None,
) -> tuple[Any, list[Any]]:
    """The judgments and runs that `judgments_and_runs` declared, read: the judgments as
    ``measures`` need them (`rankscope.api.read_qrels_for`), the runs (a judgments file in
    a runs directory is no run) with their vocabularies, as ``--duplicates``, ``--names``
    and, where the command has it, ``--order`` say.  ``distinct_for``: what the runs' names
    must be distinct for (`rankscope.read.sources.resolve_runs`); ``given``: the judgments
    and run paths when they are not ``args.qrels`` and ``args.runs`` (`positionals`)."""
    from ..api import read_qrels_for
    from ..read.sources import resolve_runs
    from ..read.trec import run_files

    judgments, paths = (args.qrels, args.runs) if given is None else given
    qrels = read_qrels_for(judgments, measures)
    runs = resolve_runs(
        run_files(paths, judgments=judgments), qrels, args.duplicates,
        getattr(args, "order", "score"), names=args.names, distinct_for=distinct_for,
    )  # fmt: skip
    return qrels, runs


def judgments_source(value: str) -> str:
    """The judgments argument as the readers take it: a file (or ``-``) as given, and an
    ir_datasets id as ``ir_datasets:ID``.

    The rule: ``ir_datasets:ID`` always names a dataset; any other value names a file,
    unless no file or directory of that name exists and ir_datasets is installed and knows
    a dataset of that id (``msmarco-passage/trec-dl-2019/judged``), which it then names.  So
    a file is never shadowed by a dataset, and a missing file that is no dataset is still
    reported as a missing file."""
    if value == "-" or value.startswith("ir_datasets:") or os.path.exists(value):
        return value
    from ..read import irds  # imports ir_datasets: only for a name that is no file

    return irds.PREFIX + value if irds.known(value) else value


def resolve_judgments(args: argparse.Namespace) -> None:
    """``args.qrels`` through `judgments_source`, for the commands whose judgments may be an
    ir_datasets dataset (`judgments_and_runs`); done by `rankscope.cli.main` once the
    arguments are parsed, so that parsing imports nothing."""
    if getattr(args, "judgments_datasets", False) and args.qrels:
        args.qrels = judgments_source(args.qrels)


def topics(args: argparse.Namespace) -> str | None:
    """The topics the HTML report shows: ``--topics`` when given, else those of the
    ir_datasets dataset the judgments come from (when it has queries), else none."""
    given = getattr(args, "topics", None)
    if given is not None or not str(args.qrels).startswith("ir_datasets:"):
        return given
    from ..read import irds

    return args.qrels if irds.has_topics(args.qrels) else None


def _names_input(value: str) -> bool:
    """Whether a value after ``--measures`` is the first positional argument: ``-``, an
    existing file or directory, or an ``ir_datasets:`` id."""
    return value == "-" or value.startswith("ir_datasets:") or os.path.exists(value)


class _MeasureList(argparse.Action):
    """``--measures A B ...``: several names after one flag.  Being greedy, it also takes the
    positional arguments that follow it (``--measures AP nDCG QRELS RUNS``): the values from
    the first that names an existing file or directory (or is ``ir_datasets:ID``) on are
    handed back, into ``spilled``, for the command to read as its positional arguments."""

    def __call__(self, parser, namespace, values, option_string=None):
        names = list(values)
        for i, value in enumerate(names):
            if _names_input(value):
                names, spilled = names[:i], names[i:]
                namespace.spilled = [*getattr(namespace, "spilled", []), *spilled]
                break
        if not names:
            parser.error(f"{option_string} needs at least one measure before the files")
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest) or []), *names])


def measure_list(p: Parser) -> None:
    """``--measures NAME [NAME ...]``, the older form of ``-m``: into ``measures`` as well.
    Use with `judgments_and_runs(spilled=True)` and `positionals`."""
    p.add_argument(
        "--measures",
        nargs="+",
        action=_MeasureList,
        dest="measures",
        metavar="MEASURE",
        help="several measures at once (the same as repeating -m)",
    )


def positionals(args: argparse.Namespace) -> tuple[str | None, list[str]]:
    """The judgments and runs of a command declared with `judgments_and_runs(spilled=True)`:
    as given, plus those that ``--measures`` took (see `measure_list`)."""
    given = [*([args.qrels] if args.qrels else []), *args.runs, *getattr(args, "spilled", [])]
    if not given:
        return None, []
    first = judgments_source(given[0]) if getattr(args, "judgments_datasets", False) else given[0]
    return first, given[1:]


def check_outputs(
    args: argparse.Namespace,
    outputs: dict[str, str | None],
    inputs: Sequence[str | None] = (),
) -> None:
    """The one overwrite policy of every file a command writes (``{option: path}``, None or
    ``-`` for an output not written or written to standard output): an existing file is
    refused unless ``--force`` (`FORCE`, which every writing command declares), as a
    directory always is, and a file the command reads is refused even then (an HTML page
    written over the judgments would destroy them; ``clicks interleave --lists A B -o B``
    its run B): `UsageError` naming it.  ``inputs``: the command's input files other than
    the usual ones (judgments, topics, runs, ...), which are found in ``args``.  Checked
    before any work, so that a refusal costs nothing; the file is then written whole or
    not at all (`rankscope.atomic`)."""
    from ..errors import UsageError

    read = [
        getattr(args, "qrels", None), getattr(args, "topics", None),
        getattr(args, "zscores", None), getattr(args, "doc_lengths", None),
        getattr(args, "labels", None),
        *(getattr(args, "runs", None) or []), *(getattr(args, "spilled", None) or []),
        *inputs,
    ]  # fmt: skip
    files = [str(v) for v in read if v and v != "-"]
    for option, path in outputs.items():
        if path is None or path == "-":
            continue
        if path == "":
            raise UsageError(f"{option} needs a file name")
        for given in files:
            if _same(path, given):
                raise UsageError(
                    f"{option} {path} would overwrite an input file ({given}): write elsewhere"
                )
        if os.path.isdir(path):
            raise UsageError(f"{option} {path} is a directory: name the file to write")
        if os.path.lexists(path) and not args.force:
            raise UsageError(f"{option} {path} already exists: --force overwrites")


def _same(output: str, given: str) -> bool:
    """Whether two paths name one file: the same file (`os.path.samefile`, through links
    both ways), or the same path once resolved (an input read from a path that is no file:
    ``-o`` naming it would still be the same name)."""
    if os.path.realpath(output) == os.path.realpath(given):
        return True
    try:
        return os.path.exists(output) and os.path.samefile(output, given)
    except OSError:
        return False


# -- the glossary ------------------------------------------------------------------------------

#: `rankscope.judge.TIE_POLICIES` and `rankscope.read.trec.DUPLICATE_POLICIES`, in their order.
TIES = ("docno-desc", "docno-asc", "input-order")
DUPLICATES = ("error", "first", "max-score")
#: `rankscope.table.aggregate.HOWS`: the statistic of per-query values.
HOWS = ("mean", "gmean", "median")
#: Every format a command writes (each command offers its own; `rankscope.report`).
FORMATS = ("trec", "table", "markdown", "csv", "json", "latex")
#: `rankscope.stats.corrections.CORRECTIONS`' names: the corrections of p-values for multiple
#: comparisons, which every comparison offers.
CORRECTIONS = ("holm", "bonferroni", "bh", "none")
#: And Dunnett's many-to-one procedure, which only the arms of an experiment compared with a
#: control offer (`rankscope.experiment.analyse`: it needs the arms' values, not p-values).
ALL_CORRECTIONS = (*CORRECTIONS[:-1], "dunnett", "none")


@dataclass(frozen=True)
class Option:
    """One option: flags, destination, type (a validator of this module) or choices, help
    and its one default.  ``action``, ``nargs``, ``required``: argparse's (``store_true``,
    ``2``); ``subsets``: a command may offer some of the choices only (the
    formats it writes).  The shared options are the glossary's (`GLOSSARY`); a command
    declares its own the same way, as a table it gives `add_all`."""

    flags: tuple[str, ...]
    dest: str
    help: str
    type: Callable[[str], Any] | None = None
    choices: Any = None
    default: Any = None
    action: str | None = None
    metavar: str | tuple[str, ...] | None = None
    subsets: bool = False
    nargs: Any = None
    required: bool = False

    def add(self, p: Parser | argparse._ArgumentGroup) -> argparse.Action:
        """Declare the option on ``p`` (a command words it first, `worded`).  (The choices
        are not read here, so that a lazy container of choices stays lazy:
        ``tests/test_cli_options.py`` checks them.)"""
        kwargs: dict[str, Any] = {"dest": self.dest, "help": self.help, "default": self.default}
        if self.action:
            kwargs["action"] = self.action
            if self.action.startswith("store_") and self.default is None:
                del kwargs["default"]  # (a flag's default is argparse's: False for store_true)
        for name in ("type", "choices", "metavar", "nargs"):
            if getattr(self, name) is not None:
                kwargs[name] = getattr(self, name)
        if self.required:
            kwargs["required"] = True
        return p.add_argument(*self.flags, **kwargs)

    def worded(self, help: str | None = None, **changes: Any) -> Option:
        """The option as a command words it, for the command's table (`add_all`): its help
        (by default the glossary's), what it calls the value (``metavar``), whether it needs
        the option (``required``), more flags of it (``flags``) and, where the glossary
        allows, a subset of its choices or another default."""
        return replace(self, help=help or self.help, **changes)


def add_all(p: Parser | argparse._ArgumentGroup, table: Sequence[Option]) -> None:
    """Declare a command's own options, a table of `Option`s (in the order of its help)."""
    for option in table:
        option.add(p)


MEASURE = Option(("-m", "--measure"), "measures", "a measure, in any spelling (`rankscope "
                 "measures`); repeatable", action="append", metavar="MEASURE")  # fmt: skip
SEED = Option(("--seed",), "seed", "random seed: the same seed, the same output (default 0)",
              type=whole(0, LARGEST_SEED), default=0)  # fmt: skip
ALPHA = Option(("--alpha",), "alpha", "significance level (default 0.05)",
               type=probability, default=0.05)  # fmt: skip
CONFIDENCE = Option(("--confidence",), "confidence", "the intervals' confidence level (default "
                    "0.95)", type=probability, default=0.95)  # fmt: skip
TEST = Option(("--test",), "test", "statistical test: %(choices)s (default t)",
              choices=StatisticalTests("any"), default="t", metavar="TEST",
              subsets=True)  # fmt: skip
FORMAT = Option(("--format",), "format", "output format (default table)",
                choices=FORMATS, default="table", subsets=True)  # fmt: skip
NAMES = Option(("--names",), "names", "name runs after their files without .gz and "
               ".txt/.run/.trec/.tsv (default; files of one name are told apart by the ends of "
               "their paths, pop/u1 and knn/u1) or after their "
               "tag column (trec_eval's runid, which trec_eval-format output prints either way)",
               choices=("file", "tag"), default="file")  # fmt: skip
DUPLICATE = Option(("--duplicates",), "duplicates", "a document listed twice for a query: error "
                   "(default), keep the first, keep the one with the highest score",
                   choices=DUPLICATES, default="error")  # fmt: skip
TIE = Option(("--ties",), "ties", "order of equally scored documents (default docno-desc, "
             "trec_eval's)", choices=TIES, default="docno-desc")  # fmt: skip
AGGREGATE = Option(("--aggregate",), "aggregate", "the statistic of per-query values: mean "
                   "(default; t interval), gmean (geometric, values floored at 1e-5 as GMAP) or "
                   "median (bootstrap intervals, as for every weighted aggregate)",
                   choices=HOWS, default="mean")  # fmt: skip
WEIGHTS = Option(("--weights",), "weights", "request weights: 'query weight' lines, or a request "
                 "log (one query per line, counted); the aggregate becomes traffic-weighted",
                 metavar="FILE")  # fmt: skip
JOBS = Option(("--jobs",), "jobs", "worker processes sharing the runs and the blocks of large ones "
              "(default: every core when the run files reach 32 MB, else one; a lone run with N up "
              "to 2 is read in this process, which keeps two cores busy); the output is the "
              "same for every N", type=whole(1, 1024), metavar="N")  # fmt: skip
OUTPUT = Option(("-o", "--output"), "output", "the file to write ('-': standard output)",
                metavar="FILE")  # fmt: skip
FORCE = Option(("--force",), "force", "overwrite an existing output file (default: refused)",
               action="store_true", default=False)  # fmt: skip
QUIET = Option(("--quiet",), "quiet", "no progress bar (drawn only on a terminal anyway)",
               action="store_true", default=False)  # fmt: skip
BASELINE = Option(("--baseline",), "baseline", "the run the others are compared with, by its name "
                  "or the path of its file as given (default: the first run given)",
                  metavar="RUN")  # fmt: skip
CORRECTION = Option(("--correction",), "correction", "correction for the comparisons of each "
                    "measure (default holm; bh controls the false discovery rate)",
                    choices=ALL_CORRECTIONS, default="holm", subsets=True)  # fmt: skip
#: The correction of comparisons whose p-values are all there is (runs, folds): the
#: glossary's but Dunnett's, which needs the arms of an experiment (``ab``).
P_VALUE_CORRECTION = CORRECTION.worded(choices=CORRECTIONS)
PERMUTATIONS = Option(("--permutations",), "permutations", "random sign flips, resamples or "
                      "permutations of the random tests (10000)",
                      type=whole(1), default=10_000, metavar="B")  # fmt: skip
DEPTH = Option(("--depth",), "depth", "the top N documents of each ranking (default 1000, a TREC "
               "run's depth)", type=whole(1), default=1000, metavar="N")  # fmt: skip
SCHEDULER = Option(("--scheduler",), "scheduler", "evaluate on the cluster at ADDRESS: a Dask "
                   "scheduler (tcp://host:8786; the dask extra) or, with --backend spark, a Spark "
                   "master (local[2], spark://host:7077; the spark extra); the numbers are the "
                   "same", metavar="ADDRESS")  # fmt: skip
BACKEND = Option(("--backend",), "backend", "where the evaluation runs: local (this machine's "
                 "cores, the default), dask or spark (the cluster at --scheduler; --scheduler "
                 "alone means dask)", choices=("local", "dask", "spark"),
                 default="local")  # fmt: skip
PER_QUERY = Option(("-q",), "per_query", "also per-query values",
                   action="store_true", default=False)  # fmt: skip
THRESHOLD = Option(("--threshold",), "threshold", "a test rating at least this is relevant "
                   "(default 4; none: every test interaction)", type=rating_threshold,
                   default=4.0)  # fmt: skip
COLUMNS = Option(("--columns",), "columns", "the log's columns by role, for a header that names "
                 "them otherwise (session, query, position, doc, click, propensity, ...)",
                 type=column_roles, metavar="ROLE=NAME,...")  # fmt: skip
POWER = Option(("--power",), "power", "the power to reach (default 0.8)", type=probability)
COMPLETE = Option(("-c",), "complete", "average over every judged query, a missing query "
                  "counting 0", action="store_true", default=False)  # fmt: skip
MAX_DOCS = Option(("-M",), "max_docs", "keep the top N documents of each ranking (trec_eval's "
                  "and ndeval's -M)", type=whole(), metavar="N")  # fmt: skip
SPLIT = Option(("--split",), "split", "the arms' planned shares, the control first: 50,50, or "
               "1,1,1 for two treatments (default: equal shares)", type=split_shares,
               metavar="SHARES")  # fmt: skip
RELEVANCE_LEVEL = Option(("-l",), "relevance_level", "minimum relevant grade (default 1)",
                         type=whole(), default=1, metavar="N")  # fmt: skip

#: The glossary: every shared option by its name.
GLOSSARY: dict[str, Option] = {
    "measure": MEASURE, "seed": SEED, "alpha": ALPHA, "confidence": CONFIDENCE, "test": TEST,
    "format": FORMAT, "names": NAMES, "duplicates": DUPLICATE, "ties": TIE,
    "aggregate": AGGREGATE, "weights": WEIGHTS, "jobs": JOBS, "output": OUTPUT,
    "force": FORCE, "quiet": QUIET,
    "baseline": BASELINE, "per_query": PER_QUERY, "relevance_level": RELEVANCE_LEVEL,
    "threshold": THRESHOLD, "correction": CORRECTION, "permutations": PERMUTATIONS,
    "scheduler": SCHEDULER, "backend": BACKEND, "depth": DEPTH, "columns": COLUMNS,
    "complete": COMPLETE, "max_docs": MAX_DOCS, "power": POWER, "split": SPLIT,
}  # fmt: skip

#: The commands whose default differs from the glossary's, and why (a test checks that no
#: other does).
DEFAULTS_BY_COMMAND: dict[tuple[str, str], tuple[Any, str]] = {
    ("eval", "--format"): (None, "trec_eval's text for one run, a table for several"),
    ("eval", "--ties"): (None, "trec_eval's order for the judgments format: docno-desc, "
                         "docno-asc with -R prefs/qrels_prefs"),
    ("recsys", "--ties"): ("input-order", "a recommendation list's own order is its ranking"),
    ("ab analyse", "--test"): (None, "one default per kind of metric: welch for means, z for "
                               "0/1 metrics"),
    ("clicks interleave", "--depth"): (10, "a list shown to a user: a page of ten results"),
    ("clicks simulate", "--depth"): (10, "a list shown to a user: a page of ten results"),
}  # fmt: skip
