"""simulate a click log from a click model

``rankscope clicks simulate QRELS RUN``: clicks drawn (seeded) from a click model on the run's
rankings, its parameters from the judgments' grades (or a fitted model's, --params); writes the
click log (-o, default stdout).
"""

from __future__ import annotations

import argparse

from .. import options
from .shared import MODELS, model_file

EXAMPLES = """\
examples:
  rankscope clicks simulate --model dbn --sessions 10000 --seed 1 qrels.txt run.txt -o clicks.tsv
  rankscope clicks simulate --params pbm.json --sessions 5000 qrels.txt run.txt -o clicks.tsv
  rankscope clicks simulate --sessions 2000 qrels.txt lists.tsv -o clicks.tsv
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    p.add_argument("qrels", help="the judgments (TREC qrels): attractiveness from the grades")
    p.add_argument(
        "run", help="the run whose rankings are shown, or the lists of an interleaving "
        "experiment (clicks interleave --lists -o LISTS), shown in turn with their teams kept",
    )  # fmt: skip
    source = p.add_mutually_exclusive_group()
    options.add_all(source, (
        Option(("--model",), "model", f"the click model ({', '.join(MODELS)}; default pbm), "
               "its parameters from the grades", choices=MODELS, metavar="MODEL"),
        Option(("--params",), "params", "a fitted model's parameters (clicks fit -o)",
               metavar="JSON"),
    ))  # fmt: skip
    options.add_all(p, (
        Option(("--sessions",), "sessions", "sessions to simulate, shared among the queries in "
               "turn (default 1000)", type=options.whole(1), default=1000, metavar="N"),
        options.DEPTH.worded("results shown per session: each query's first N documents (default "
                             "10)", default=10),
        options.SEED,
        Option(("--attractiveness",), "attractiveness", "attractiveness per grade, e.g. "
               "0:0.05,1:0.5,2:0.95 (default (2^g - 1)/2^gmax)", metavar="G:P,..."),
        Option(("--satisfaction",), "satisfaction", "DBN/SDBN satisfaction per grade (default (2^g "
               "- 1)/2^gmax)", metavar="G:P,..."),
        Option(("--continuation",), "continuation", "DBN's probability of going on after an "
               "unsatisfying result (default 0.9)", type=_unit, metavar="G"),
        options.TIE,
        options.OUTPUT.worded("the click log: tab-separated with a header, or Parquet (.parquet); "
                              "default standard output", metavar="LOG"),
        options.FORCE,
    ))  # fmt: skip


def _unit(text: str) -> float:
    value = options.real(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must lie between 0 and 1, got {text}")
    return value


def _grades(text: str | None, option: str) -> dict[int, float] | None:
    from ...errors import UsageError

    if text is None:
        return None
    out: dict[int, float] = {}
    for item in text.split(","):
        grade, sep, value = item.partition(":")
        try:
            g = options.whole()(grade.strip())
            p = _unit(value.strip())
        except argparse.ArgumentTypeError as exc:
            raise UsageError(
                f"{option} {text!r}: {item!r} is not GRADE:PROBABILITY ({exc})"
            ) from None
        if not sep:
            raise UsageError(f"{option} {text!r}: {item!r} is not GRADE:PROBABILITY")
        out[g] = p
    return out


def run(args: argparse.Namespace) -> int:

    from ... import clicks
    from ...api.clicks import simulate_clicks

    options.check_outputs(args, {"--output": args.output}, [args.run, args.params])
    if args.params:
        model: clicks.ClickModel | str = model_file(args.params)
    else:
        model = args.model or "pbm"
    log = simulate_clicks(
        model, args.run, args.qrels, sessions=args.sessions, depth=args.depth, seed=args.seed,
        ties=args.ties, attractiveness=_grades(args.attractiveness, "--attractiveness"),
        satisfaction=_grades(args.satisfaction, "--satisfaction"),
        continuation=args.continuation,
    )  # fmt: skip
    clicks.write_clicks(log, args.output or "-")
    return 0
