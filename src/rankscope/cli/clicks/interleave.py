"""outcomes of an interleaving experiment from a click log

``rankscope clicks interleave LOG``: outcomes of an online interleaving experiment from a click
log of interleaved lists (team draft, balanced, probabilistic), the sign test and the
uniform-p(k) variant; --lists RUN_A RUN_B builds seeded interleaved lists, --win-rate WIN_RATE
the impressions needed.
"""

from __future__ import annotations

import argparse
import sys

from .. import options


class _Methods(options.LazyChoices):
    """The names of `rankscope.interleaving.METHODS`, read from the table when argparse first
    checks or lists them: building the parser imports nothing (`rankscope eval` starts cold in
    loops and builds every command's parser)."""

    def read(self) -> dict[str, tuple[str, ...]]:
        from ...interleaving import METHODS

        return dict.fromkeys(METHODS, ())


#: The choices of ``--method``: the interleaving methods' canonical names.
METHOD_CHOICES = _Methods()

EXAMPLES = """\
examples:
  rankscope clicks interleave clicks.tsv --uniform-depth
  rankscope clicks interleave clicks.tsv --method balanced --a bm25.run --b dense.run
  rankscope clicks interleave --lists bm25.run dense.run --impressions 5 -o lists.tsv
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    p.add_argument("log", nargs="?", help="the click log of interleaved lists")
    options.add_all(p, (
        Option(("--method",), "method", "the interleaving method: %(choices)s (default team-draft)",
               choices=METHOD_CHOICES, metavar="METHOD"),
        Option(("--a",), "run_a", "ranking a (a TREC run)", metavar="RUN"),
        Option(("--b",), "run_b", "ranking b (a TREC run)", metavar="RUN"),
        Option(("--tau",), "tau", "probabilistic interleaving's softmax exponent (default 3)",
               type=options.real, default=3.0),
        Option(("--no-marginalise",), "no_marginalise", "probabilistic: credit the drawn "
               "assignment (team column) instead", action="store_true"),
        options.TIE.worded("the order of a run's equally scored documents (default docno-desc)"),
        Option(("--uniform-depth",), "uniform_depth", "add the uniform-p(k) variant: last-click "
               "depths re-weighted to uniform", action="store_true"),
        Option(("--per-impression",), "per_impression", "print one row per impression (credits, "
               "last click, outcome) instead of totals", action="store_true"),
        options.FORMAT.worded(choices=("table", "csv", "json")),
    ))  # fmt: skip
    lists = p.add_argument_group("interleaved lists for an experiment")
    options.add_all(lists, (
        Option(("--lists",), "lists", "write interleaved lists of two runs (one row per shown "
               "document)", nargs=2, metavar=("RUN_A", "RUN_B")),
        Option(("--impressions",), "impressions", "lists per query (default 1)",
               type=options.whole(1), default=1, metavar="N"),
        options.DEPTH.worded("documents per list (default 10)", default=10),
        options.SEED.worded("the seed of the coin flips (default 0)"),
        options.OUTPUT.worded("the lists' file (default standard output)"),
        options.FORCE,
    ))  # fmt: skip
    power = p.add_argument_group("power analysis")
    options.add_all(power, (
        Option(("--win-rate",), "win_rate", "print the impressions the sign test needs to detect "
               "this win rate (P(a wins | decided impression))", type=options.probability,
               metavar="WIN_RATE"),
        Option(("--tie-rate",), "tie_rate", "the share of tied impressions (default 0)",
               type=_tie_rate, default=0.0),
        options.ALPHA,
        options.POWER,
    ))  # fmt: skip


def _tie_rate(text: str) -> float:
    value = options.real(text)
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 0 and below 1, got {text}")
    return value


def run(args: argparse.Namespace) -> int:
    from ...errors import UsageError

    modes = [args.log is not None, args.lists is not None, args.win_rate is not None]
    if sum(modes) != 1:
        raise UsageError(
            "clicks interleave: give a LOG, or --lists RUN_A RUN_B, or --win-rate RATE"
        )
    if args.win_rate is not None:
        return _power(args)
    if args.lists is not None:
        return _lists(args)
    from ...api.interleaving import interleaving_outcomes
    from ...interleaving import uniform_depth
    from ...report.marks import p_value
    from ...report.tables import csv_text, json_text, number, text_table

    result = interleaving_outcomes(
        args.log, **_method(args), a=args.run_a, b=args.run_b,
        marginalise=not args.no_marginalise, tau=args.tau, ties=args.ties,
    )  # fmt: skip
    variant = uniform_depth(result) if args.uniform_depth else None
    full = args.format == "csv"  # machine-read: every digit, as every command's CSV
    if args.per_impression:
        header = ["impression", "query", "credit_a", "credit_b", "last_click", "outcome"]
        rows = [header]
        assert result.last_click is not None  # a log of interleaved lists has positions
        for i, key in enumerate(result.impressions):
            rows.append([
                str(key), result.queries[i] if result.queries is not None else "",
                _credit(result.credit_a[i], full), _credit(result.credit_b[i], full),
                str(int(result.last_click[i])), _credit(result.outcome[i], full),
            ])  # fmt: skip
        if variant is not None:
            rows[0].append("weight")
            for i, row in enumerate(rows[1:]):
                row.append(repr(float(variant.weight[i])) if full else number(variant.weight[i]))
    else:
        stats: list[tuple[str, str, str | int | float]] = [
            ("method", "method", str(result.method)),
            ("impressions", "impressions", len(result)),
            ("wins", "wins (a)", result.wins),
            ("ties", "ties", result.ties),
            ("losses", "losses (b wins)", result.losses),
            ("win_rate", "win rate", result.win_rate),
            ("preference", "preference", result.preference),
            ("p_value", "p-value (sign test)", result.p_value),
        ]
        if variant is not None:
            stats += [
                ("uniform_depth_preference", "uniform-depth preference", variant.preference),
                ("uniform_depth_z", "uniform-depth z", variant.z),
                ("uniform_depth_p_value", "uniform-depth p-value", variant.p_value),
                ("uniform_depth_test", "uniform-depth test",
                 "exact" if variant.exact else "normal approximation"),
            ]  # fmt: skip
        if args.format == "json":
            sys.stdout.write(json_text({key: _plain(v) for key, _, v in stats}))
            return 0
        rows = [["statistic", "value"]]
        for key, label, v in stats:
            if isinstance(v, str):
                rows.append([label, v])
            elif isinstance(v, int):
                rows.append([label, str(v)])
            elif full:
                rows.append([label, repr(float(v))])
            elif key.endswith("p_value"):  # printed as every command prints p-values
                rows.append([label, p_value(v)])
            else:
                rows.append([label, number(v)])
    write = csv_text if args.format == "csv" else text_table
    if args.format == "json":
        sys.stdout.write(json_text([dict(zip(rows[0], r, strict=True)) for r in rows[1:]]))
    else:
        sys.stdout.write(write(rows))
    return 0


def _credit(value: float, full: bool) -> str:
    """A credit or outcome: an integer as one; otherwise four decimals, or every digit
    (``full``: CSV, machine-read)."""
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value)) if full else f"{float(value):.4f}"


def _plain(value: object) -> object:
    import math

    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _method(args: argparse.Namespace) -> dict[str, str]:
    """``method=`` when --method was given (otherwise the API's default method)."""
    return {} if args.method is None else {"method": args.method}


def _lists(args: argparse.Namespace) -> int:
    from ...api.interleaving import interleaved_lists
    from ...interleaving import write_lists

    options.check_outputs(args, {"--output": args.output}, args.lists)
    table = interleaved_lists(
        args.lists[0], args.lists[1], **_method(args),
        impressions=args.impressions, depth=args.depth, seed=args.seed, tau=args.tau,
        ties=args.ties,
    )  # fmt: skip
    write_lists(table, args.output or "-")
    return 0


def _power(args: argparse.Namespace) -> int:
    from ...interleaving import impressions_needed, sign_test_power

    needed = impressions_needed(
        args.win_rate, tie_rate=args.tie_rate, alpha=args.alpha,
        **({} if args.power is None else {"power": args.power}),  # (its default: 0.8)
    )  # fmt: skip
    reached = sign_test_power(needed, args.win_rate, tie_rate=args.tie_rate, alpha=args.alpha)
    sys.stdout.write(
        f"{needed} impressions: power {reached:.4f} to detect a win rate of {args.win_rate:g} "
        f"(tie rate {args.tie_rate:g}) with the two-sided sign test at alpha {args.alpha:g}\n"
    )
    return 0
