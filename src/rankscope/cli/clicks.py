"""evaluation from click logs: fit click models, simulate clicks

Subcommands:
  estimate LOG --policy RUN
                a ranking policy's expected clicks estimated from another policy's log of
                rankings with its propensities (ips, snips, iips, rips, pbm, dm, dr,
                cascade-dr), with seeded bootstrap intervals
  fit LOG       fit click models (PBM, UBM, DBN by EM; CM, SDBN in closed form) to a click
                log and print their parameters' summary, training log-likelihood and, with
                --test or --test-fraction, held-out log-likelihood and perplexity per
                position; -o writes one model's parameters as JSON
  interleave LOG
                outcomes of an online interleaving experiment from a click log of
                interleaved lists (team draft, balanced, probabilistic), the sign test and
                the uniform-p(k) variant; --lists RUN_A RUN_B builds seeded interleaved
                lists, --power WIN_RATE the impressions needed
  learn QRELS RUNS
                RPP's pseudo-population weights p(i) learned from labelled preferences
                (--labels FILE) or a metric's (--from MEASURE), with cross-validation over
                queries; --save writes them for `rankscope prefer --learned FILE`
  simulate QRELS RUN
                draw clicks (seeded) from a click model on the run's rankings, its
                parameters from the judgments' grades (or a fitted model's, --params), and
                write the click log (-o, default stdout)

A click log has one line per shown result: session query position doc clicked
[timestamp] [ranking], tab-, comma- or space-separated, with or without a header line.
Formulas, initial values, convergence and citations: the section "Click logs and click
models" of rankscope's clicks.md (and "Learned pseudo-population weights").
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from . import options

EXAMPLES = """\
examples:
  rankscope clicks fit clicks.tsv -m pbm -m ubm -m dbn --test-fraction 0.2 --seed 1
  rankscope clicks simulate --model dbn -n 10000 --seed 1 qrels.txt run.txt -o clicks.tsv
"""

#: Each subcommand's examples (the end of ``rankscope clicks SUBCOMMAND --help``).
SUBCOMMAND_EXAMPLES = {
    "fit": """\
examples:
  rankscope clicks fit clicks.tsv --model pbm -o pbm.json
  rankscope clicks fit train.tsv -m cm -m sdbn -m dbn --test test.tsv
""",
    "estimate": """\
examples:
  rankscope clicks estimate log.tsv --policy new.run --estimator ips,iips,rips
  rankscope clicks estimate log.tsv --policy new.run --estimator dr --reward-model empirical
  rankscope clicks estimate log.csv.gz --policy new.run --estimator pbm --examination 1,0.6,0.4
""",
    "interleave": """\
examples:
  rankscope clicks interleave clicks.tsv --uniform-depth
  rankscope clicks interleave clicks.tsv --method balanced --a bm25.run --b dense.run
  rankscope clicks interleave --lists bm25.run dense.run --impressions 5 -o lists.tsv
""",
    "learn": """\
examples:
  rankscope clicks learn --from ndcg qrels.txt runs/
  rankscope clicks learn --labels sxs.tsv --graded --save weights.json qrels.txt runs/
  rankscope prefer --learned weights.json qrels.txt runs/
""",
    "simulate": """\
examples:
  rankscope clicks simulate --model dbn -n 10000 --seed 1 qrels.txt run.txt -o clicks.tsv
  rankscope clicks simulate --params pbm.json -n 5000 qrels.txt run.txt -o clicks.tsv
""",
}

#: `rankscope.clicks.MODELS`, repeated so that building the parser imports nothing (a test
#: checks they agree).
MODELS = ("pbm", "cm", "ubm", "dbn", "sdbn")

#: `rankscope.clicks.ESTIMATORS`, repeated so that building the parser imports nothing (a
#: test checks they agree).
ESTIMATORS = ("ips", "snips", "iips", "rips", "pbm", "dm", "dr", "cascade-dr")
#: `rankscope.report.estimates.FORMATS`, repeated likewise.
FORMATS = ("table", "csv", "json")
#: `rankscope.interleaving.METHODS`, repeated so that building the parser imports nothing.
INTERLEAVING_METHODS = ("team-draft", "balanced", "probabilistic")


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(
        dest="clicks_command", metavar="SUBCOMMAND", help=f"one of {', '.join(SUBCOMMANDS)}"
    )
    for name, (add, _, help_line) in SUBCOMMANDS.items():
        add(
            sub.add_parser(
                name, help=help_line, description=help_line,
                epilog=SUBCOMMAND_EXAMPLES.get(name),
                formatter_class=argparse.RawDescriptionHelpFormatter,
            )
        )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    command = getattr(args, "clicks_command", None)
    if command is None:
        from ..errors import UsageError

        raise UsageError(
            f"rankscope clicks needs a subcommand: {', '.join(SUBCOMMANDS)}",
        )
    return SUBCOMMANDS[command][1](args)


def _file(output: str | None) -> str | None:
    """``-o``'s file (None: standard output)."""
    return None if output == "-" else output


# -- fit --------------------------------------------------------------------------------------


def _add_fit(p: argparse.ArgumentParser) -> None:
    p.add_argument("log", help="the click log (text, .gz, Parquet; - for stdin)")
    p.add_argument(
        "-m", "--model", action="append", choices=MODELS, metavar="MODEL",
        help=f"a click model ({', '.join(MODELS)}); repeat to compare several (default pbm)",
    )  # fmt: skip
    p.add_argument(
        "-o", "--output", metavar="JSON", help="write the model's parameters (one model)"
    )
    held = p.add_mutually_exclusive_group()
    held.add_argument("--test", metavar="LOG", help="a held-out click log to evaluate on")
    held.add_argument(
        "--test-fraction", type=options.probability, metavar="F",
        help="hold out this fraction of the log's sessions (seeded by --seed) for evaluation",
    )  # fmt: skip
    p.add_argument("--seed", type=options.whole(0), default=0, help="the split's seed (default 0)")
    p.add_argument(
        "--max-iter", type=options.whole(1), default=200, metavar="N",
        help="EM iterations at most (default 200)",
    )  # fmt: skip
    p.add_argument(
        "--tol", type=_positive, default=1e-6,
        help="EM stops when the mean log-likelihood per session gains less (default 1e-6)",
    )  # fmt: skip


def _positive(text: str) -> float:
    value = options.real(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def _run_fit(args: argparse.Namespace) -> int:
    import json

    from .. import clicks
    from ..errors import UsageError

    names = list(dict.fromkeys(args.model or ["pbm"]))
    if args.output and len(names) > 1:
        raise UsageError("-o writes one model's parameters: give one --model")
    options.check_outputs(args, {"-o": _file(args.output)}, [args.log, args.test])
    log = clicks.read_clicks(args.log)
    test = clicks.read_clicks(args.test) if args.test else None
    if args.test_fraction is not None:
        log, test = log.split(args.test_fraction, seed=args.seed)
        if test.num_sessions == 0 or log.num_sessions == 0:
            raise UsageError(
                f"--test-fraction {args.test_fraction} leaves no session on one side "
                f"(the log has {log.num_sessions + test.num_sessions})"
            )
    out = sys.stdout
    print(
        f"# {log.num_sessions} training sessions, {len(log)} results shown, "
        f"{log.num_clicks} clicks" + (f"; {test.num_sessions} held out" if test else ""),
        file=out,
    )
    fitted = {}
    for name in names:
        model = clicks.fit(log, name, max_iter=args.max_iter, tol=args.tol)
        fitted[name] = model
        print(_describe(model, log, test), file=out)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            json.dump(fitted[names[0]].to_dict(), f, indent=1)
            f.write("\n")
    return 0


def _describe(model, log, test) -> str:
    from ..report.tables import clean

    lines = [f"\n{model.name.upper()}"]
    how = (
        f"EM, {model.iterations} iterations" + ("" if model.converged else " (not converged)")
        if model.iterations
        else "closed form"
    )
    lines.append(f"  fitted by       {how}")
    lines.append(f"  pairs           {len(model.attractiveness)} (query, document)")
    lines.append(f"  log-likelihood  {model.log_likelihood(log):.6f} per training session")
    params = model.to_dict()
    if model.name == "pbm":
        lines.append("  examination     " + " ".join(f"{g:.4f}" for g in model.examination))
        lines.append("  γ_r / γ_1       " + " ".join(f"{g:.4f}" for g in model.propensities))
    if model.name == "ubm":
        first = " ".join(f"{row[0]:.4f}" for row in params["examination"])
        lines.append(f"  γ(r, no click above) {first}")
    if model.name in ("dbn", "sdbn"):
        lines.append(f"  continuation γ  {model.continuation:.4f}")
    if test is not None:
        held = model.evaluate(test)
        lines.append(f"  held out: log-likelihood {held.log_likelihood:.6f} per session, "
                     f"perplexity {held.perplexity:.6f}")  # fmt: skip
        lines.append("  perplexity at r " + " ".join(f"{p:.4f}" for p in held.perplexity_at))
    return clean("\n".join(lines), keep="\n")


# -- simulate ---------------------------------------------------------------------------------


def _add_simulate(p: argparse.ArgumentParser) -> None:
    p.add_argument("qrels", help="the judgments (TREC qrels): attractiveness from the grades")
    p.add_argument("run", help="the run whose rankings are shown")
    source = p.add_mutually_exclusive_group()
    source.add_argument(
        "-m", "--model", choices=MODELS, default=None, metavar="MODEL",
        help=f"the click model ({', '.join(MODELS)}; default pbm), its parameters from the grades",
    )  # fmt: skip
    source.add_argument(
        "--params", metavar="JSON", help="a fitted model's parameters (clicks fit -o)"
    )
    p.add_argument(
        "-n", "--sessions", type=options.whole(1), default=1000, metavar="N",
        help="sessions to simulate, shared among the queries in turn (default 1000)",
    )  # fmt: skip
    p.add_argument(
        "--depth", type=options.whole(1), default=10, metavar="K",
        help="results shown per session: each query's first K documents (default 10)",
    )  # fmt: skip
    p.add_argument("--seed", type=options.whole(0), default=0, help="the random seed (default 0)")
    p.add_argument(
        "--attractiveness", metavar="G:P,...",
        help="attractiveness per grade, e.g. 0:0.05,1:0.5,2:0.95 (default (2^g - 1)/2^gmax)",
    )  # fmt: skip
    p.add_argument(
        "--satisfaction", metavar="G:P,...",
        help="DBN/SDBN satisfaction per grade (default (2^g - 1)/2^gmax)",
    )  # fmt: skip
    p.add_argument(
        "--continuation", type=_unit, metavar="G",
        help="DBN's probability of going on after an unsatisfying result (default 0.9)",
    )  # fmt: skip
    options.ties(p, "docno-desc", "the order of equally scored documents (default docno-desc)")
    p.add_argument(
        "-o", "--output", default="-", metavar="LOG",
        help="the click log: tab-separated with a header, or Parquet (.parquet); default stdout",
    )  # fmt: skip


def _unit(text: str) -> float:
    value = options.real(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must lie between 0 and 1, got {text}")
    return value


def _grades(text: str | None, option: str) -> dict[int, float] | None:
    from ..errors import UsageError

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


def _run_simulate(args: argparse.Namespace) -> int:

    from .. import clicks

    options.check_outputs(args, {"-o": _file(args.output)}, [args.run, args.params])
    if args.params:
        model: clicks.ClickModel | str = _model_file(args.params)
    else:
        model = args.model or "pbm"
    log = clicks.simulate(
        model, args.run, args.qrels, sessions=args.sessions, depth=args.depth, seed=args.seed,
        ties=args.ties, attractiveness=_grades(args.attractiveness, "--attractiveness"),
        satisfaction=_grades(args.satisfaction, "--satisfaction"),
        continuation=args.continuation,
    )  # fmt: skip
    clicks.write_clicks(log, args.output)
    return 0


#: The subcommands: name -> (declare its options, run it, its help line).
# -- learn ---------------------------------------------------------------------------------


def _numbers(text: str) -> list[float]:
    values = [options.real(v.strip()) for v in text.split(",") if v.strip()]
    if not values:
        raise argparse.ArgumentTypeError("expected at least one number")
    return values


def _edges(text: str) -> list[int]:
    values = _numbers(text)
    if any(v != int(v) for v in values):
        raise argparse.ArgumentTypeError(f"expected whole numbers separated by commas: {text!r}")
    return [int(v) for v in values]


def _learn_arguments(p: argparse.ArgumentParser) -> None:
    options.judgments_and_runs(p, runs="TREC run files or directories (at least two runs)")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--labels", metavar="FILE",
        help="labelled preferences, one 'qid run_a run_b label' line each (label -1, 0 or 1; "
        "run names as the runs are named, --names), or a Parquet file with columns "
        "query_id, run_a, run_b, label",
    )  # fmt: skip
    source.add_argument(
        "--from", dest="measure", metavar="MEASURE",
        help="label every pair of runs on every query by a metric's preference (ndcg, "
        "nDCG@10, AP): the weights that make RPP agree with it",
    )  # fmt: skip
    p.add_argument(
        "--tolerance", type=options.real, default=0.0,
        help="with --from: metric values this close count as a tie (default 0)",
    )  # fmt: skip
    p.add_argument(
        "--graded", action="store_true",
        help="learn a weight per recall-level bin and grade threshold (graded RPP, eq. 5) "
        "instead of binary RPP at -l",
    )  # fmt: skip
    p.add_argument(
        "--edges", type=_edges, default=None, metavar="N,N,...",
        help="upper edges of the recall-level bins (default 1,2,3,4,8,16,32,64: bins 1, 2, 3, "
        "4, 5-8, ..., 33-64, 65+)",
    )  # fmt: skip
    p.add_argument(
        "--alphas", type=_numbers, default=None, metavar="A,A,...",
        help="L2 penalties cross-validation chooses from (default 1e-4,1e-3,0.01,0.1,1,10; "
        "one value: no cross-validation)",
    )  # fmt: skip
    p.add_argument(
        "--folds", type=options.whole(2, 1000), default=5,
        help="folds of queries for cross-validation (default 5)",
    )  # fmt: skip
    p.add_argument(
        "--seed", type=options.whole(0, options.LARGEST_SEED), default=0,
        help="seed of the shuffle of queries into folds (default 0)",
    )  # fmt: skip
    p.add_argument(
        "--no-assess", dest="assess", action="store_false",
        help="skip the held-out comparison with RPP, dcgRPP and invRPP (an outer "
        "cross-validation: --folds times the fitting)",
    )  # fmt: skip
    p.add_argument("--save", metavar="FILE", help="write the learned weights as JSON")
    options.relevance_level(p, "minimum relevant grade of binary RPP (default 1)")
    options.output_format(p, ("table", "json"), help="output format (default table)")
    options.ties(p, "docno-desc", "order of equally scored documents (default docno-desc)")
    options.run_names(p)
    options.duplicates(p)


def _learn(args: argparse.Namespace) -> int:
    import numpy as np

    from ..api import read_qrels_for
    from ..judge import relevance_table
    from ..preference.learned import (
        DEFAULT_ALPHAS,
        DEFAULT_EDGES,
        assess,
        learn_weights,
        pairs_from_scores,
    )
    from ..read.pairs import read_pairs
    from ..read.sources import check_common_queries, resolve_runs
    from ..read.trec import run_files
    from ..report.learned import format_learned
    from ..table.study import measure_data

    options.check_outputs(args, {"--save": args.save})
    qrels = read_qrels_for(args.qrels, [])
    runs = resolve_runs(
        run_files(args.runs, judgments=args.qrels), qrels, args.duplicates, names=args.names,
        distinct_for="preferences",
    )  # fmt: skip
    check_common_queries(qrels, runs)
    table = relevance_table(qrels, runs, relevance_level=args.level, ties=args.ties)
    if args.measure is not None:
        (data,) = measure_data(
            qrels, runs, [args.measure], relevance_level=args.level, ties=args.ties
        )
        column = {q: j for j, q in enumerate(data.query_ids)}
        queries = [q for q in table.query_ids if q in column]
        scores = data.per_query()[:, [column[q] for q in queries]]
        pairs = pairs_from_scores(
            scores, table.run_names, queries, tolerance=args.tolerance,
            source=f"preferences of {data.name}",
        )  # fmt: skip
    else:
        pairs = read_pairs(args.labels)
    settings = dict(
        graded=args.graded, level=None if args.graded else args.level,
        edges=args.edges or DEFAULT_EDGES, alphas=args.alphas or DEFAULT_ALPHAS,
        seed=args.seed,
    )  # fmt: skip
    labelled_queries = len(np.unique(pairs.query))
    folds = min(args.folds, labelled_queries) if labelled_queries >= 2 else args.folds
    if args.assess:
        assessment = assess(table, pairs, folds=folds, inner_folds=folds, **settings)
        model, shown = assessment.full, assessment
    else:
        model, shown = learn_weights(table, pairs, folds=folds, **settings), None
    if args.save:
        model.save(args.save)
    sys.stdout.write(format_learned(model, shown, args.format))
    return 0


# -- clicks interleave -------------------------------------------------------------------------


def _interleave_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("log", nargs="?", help="the click log of interleaved lists")
    options.choice(
        p, "--method", INTERLEAVING_METHODS, "the interleaving method (default team-draft)"
    )
    p.add_argument("--a", dest="run_a", metavar="RUN", help="ranking a (a TREC run)")
    p.add_argument("--b", dest="run_b", metavar="RUN", help="ranking b (a TREC run)")
    p.add_argument(
        "--tau", type=options.real, default=3.0,
        help="probabilistic interleaving's softmax exponent (default 3)",
    )  # fmt: skip
    p.add_argument(
        "--no-marginalise", action="store_true",
        help="probabilistic: credit the drawn assignment (team column) instead",
    )  # fmt: skip
    options.ties(p, "docno-desc", "the order of a run's equally scored documents")
    p.add_argument(
        "--uniform-depth", action="store_true",
        help="add the uniform-p(k) variant: last-click depths re-weighted to uniform",
    )  # fmt: skip
    p.add_argument(
        "--per-impression", action="store_true",
        help="print one row per impression (credits, last click, outcome) instead of totals",
    )  # fmt: skip
    options.choice(p, "--format", ("table", "csv", "json"), "output format (default table)")
    lists = p.add_argument_group("interleaved lists for an experiment")
    lists.add_argument(
        "--lists", nargs=2, metavar=("RUN_A", "RUN_B"),
        help="write interleaved lists of two runs (one row per shown document)",
    )  # fmt: skip
    lists.add_argument(
        "--impressions", type=options.whole(1), default=1, metavar="N",
        help="lists per query (default 1)",
    )  # fmt: skip
    lists.add_argument(
        "--depth", type=options.whole(1), default=10, metavar="N",
        help="documents per list (default 10)",
    )  # fmt: skip
    lists.add_argument(
        "--seed", type=options.whole(0, options.LARGEST_SEED), default=0,
        help="the seed of the coin flips (default 0)",
    )  # fmt: skip
    lists.add_argument("-o", "--output", default="-", help="the lists' file (default stdout)")
    power = p.add_argument_group("power analysis")
    power.add_argument(
        "--power", type=options.probability, metavar="WIN_RATE",
        help="print the impressions the sign test needs to detect this win rate "
        "(P(a wins | decided impression))",
    )  # fmt: skip
    power.add_argument(
        "--tie-rate", type=_tie_rate, default=0.0, help="the share of tied impressions (default 0)"
    )
    power.add_argument(
        "--alpha", type=options.probability, default=0.05,
        help="significance level (default 0.05)",
    )  # fmt: skip
    power.add_argument(
        "--target-power", type=options.probability, default=0.8,
        help="the power to reach (default 0.8)",
    )  # fmt: skip


def _tie_rate(text: str) -> float:
    value = options.real(text)
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 0 and below 1, got {text}")
    return value


def _interleave(args: argparse.Namespace) -> int:
    from ..errors import UsageError

    modes = [args.log is not None, args.lists is not None, args.power is not None]
    if sum(modes) != 1:
        raise UsageError("clicks interleave: give a LOG, or --lists RUN_A RUN_B, or --power RATE")
    if args.power is not None:
        return _power(args)
    if args.lists is not None:
        return _lists(args)
    from ..interleaving import interleaving_outcomes, uniform_depth
    from ..report.tables import csv_text, json_text, number, text_table

    result = interleaving_outcomes(
        args.log, method=args.method or "team-draft", a=args.run_a, b=args.run_b,
        marginalise=not args.no_marginalise, tau=args.tau, ties=args.ties,
    )  # fmt: skip
    variant = uniform_depth(result) if args.uniform_depth else None
    if args.per_impression:
        header = ["impression", "query", "credit_a", "credit_b", "last_click", "outcome"]
        rows = [header]
        assert result.last_click is not None  # a log of interleaved lists has positions
        for i, key in enumerate(result.impressions):
            rows.append([
                str(key), result.queries[i] if result.queries is not None else "",
                _credit(result.credit_a[i]), _credit(result.credit_b[i]),
                str(int(result.last_click[i])), _credit(result.outcome[i]),
            ])  # fmt: skip
        if variant is not None:
            rows[0].append("weight")
            for i, row in enumerate(rows[1:]):
                row.append(number(variant.weight[i]))
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
        rows += [[label, v if isinstance(v, str) else _cell(v)] for _, label, v in stats]
    write = csv_text if args.format == "csv" else text_table
    if args.format == "json":
        sys.stdout.write(json_text([dict(zip(rows[0], r, strict=True)) for r in rows[1:]]))
    else:
        sys.stdout.write(write(rows))
    return 0


def _credit(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{float(value):.4f}"


def _cell(value: int | float) -> str:
    from ..report.tables import number

    return str(value) if isinstance(value, int) else number(value)


def _plain(value: object) -> object:
    import math

    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _lists(args: argparse.Namespace) -> int:
    from ..interleaving import interleaved_lists, write_lists

    table = interleaved_lists(
        args.lists[0], args.lists[1], method=args.method or "team-draft",
        impressions=args.impressions, depth=args.depth, seed=args.seed, tau=args.tau,
        ties=args.ties,
    )  # fmt: skip
    write_lists(table, args.output)
    return 0


def _power(args: argparse.Namespace) -> int:
    from ..interleaving import impressions_needed, sign_test_power

    needed = impressions_needed(
        args.power, tie_rate=args.tie_rate, alpha=args.alpha, power=args.target_power
    )
    reached = sign_test_power(needed, args.power, tie_rate=args.tie_rate, alpha=args.alpha)
    sys.stdout.write(
        f"{needed} impressions: power {reached:.4f} to detect a win rate of {args.power:g} "
        f"(tie rate {args.tie_rate:g}) with the two-sided sign test at alpha {args.alpha:g}\n"
    )
    return 0


# -- estimate -----------------------------------------------------------------------------


def _estimate_numbers(text: str) -> list[float]:
    return [options.real(t.strip()) for t in text.split(",")]


def _estimators(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [n for n in names if n not in ESTIMATORS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown estimator {', '.join(unknown) or text!r}; estimators are "
            f"{', '.join(ESTIMATORS)}"
        )
    return names


def _columns(text: str) -> dict[str, str]:
    out = {}
    for item in text.split(","):
        role, sep, name = item.partition("=")
        if not sep or not role.strip() or not name.strip():
            raise argparse.ArgumentTypeError(f"expected ROLE=NAME pairs, got {item!r}")
        out[role.strip()] = name.strip()
    return out


def _add_estimate(p: argparse.ArgumentParser) -> None:
    p.add_argument("log", help="the click log with the logging policy's propensities")
    p.add_argument("--policy", required=True, metavar="RUN",
                   help="the evaluation policy: a run (TREC run file, Parquet) whose ranking "
                   "of each query is shown at the log's positions")  # fmt: skip
    p.add_argument("--estimator", type=_estimators, default=["iips"], metavar="NAME[,NAME]",
                   help=f"one or more of {', '.join(ESTIMATORS)} (default iips)")  # fmt: skip
    p.add_argument("--reward-model", default=None, metavar="empirical|JSON",
                   help="the reward model of dm, dr and cascade-dr: empirical (smoothed click "
                   "rates of the log, refitted on every resample), or a position-based click "
                   "model's parameters (clicks fit --model pbm -o JSON), held fixed")  # fmt: skip
    p.add_argument("--examination", type=_estimate_numbers, metavar="θ1,θ2,...",
                   help="each position's examination probability (pbm; the log must then be "
                   "deterministic: every propensity 1)")  # fmt: skip
    p.add_argument("--position-weights", type=_estimate_numbers, metavar="α1,α2,...",
                   help="the metric's weight of a click at each position (default 1 at every "
                   "position: clicks per session); positions beyond count 0")  # fmt: skip
    p.add_argument("--clip", type=options.real, metavar="M",
                   help="cap every importance weight at M (clipped IPS)")
    p.add_argument("--self-normalise", action="store_true",
                   help="self-normalise ips, iips and rips (snips is ips self-normalised)")
    p.add_argument("--confidence", type=options.probability, default=0.95,
                   help="the interval's confidence (default 0.95)")
    p.add_argument("--samples", type=options.whole(0), default=1000,
                   help="bootstrap resamples (default 1000; 0: no interval)")
    p.add_argument("--seed", type=options.whole(0), default=0, help="the bootstrap's seed")
    p.add_argument("--columns", type=_columns, metavar="ROLE=NAME,...",
                   help="the log's columns by role (session, query, position, doc, click, "
                   "propensity, prefix_propensity, slate_propensity)")  # fmt: skip
    options.ties(p, "docno-desc", "the order of the run's equally scored documents")
    options.output_format(p, FORMATS)


def _model_file(path: str):
    """The click model whose parameters ``clicks fit -o`` wrote to ``path``."""
    import json

    from .. import clicks
    from ..errors import InputError

    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not JSON ({exc})") from None
    return clicks.from_dict(data, path)


def _reward_model(path: str, log):
    from ..clicks.estimators import ClickModelReward

    return ClickModelReward.of(_model_file(path), log)


def _run_estimate(args: argparse.Namespace) -> int:
    """estimate a ranking policy's clicks from a log collected under another policy

    Counterfactual (off-policy) estimators with seeded bootstrap intervals."""
    from ..clicks import estimate, ranking_policy
    from ..read import read_run
    from ..read.slates import read_logged_slates
    from ..report.estimates import format_estimates

    log = read_logged_slates(args.log, columns=args.columns)
    run = read_run(args.policy, queries=log.queries, docs=log.docs)
    policy = ranking_policy(log, run, ties=args.ties)
    reward = args.reward_model
    if reward is not None and reward != "empirical":
        reward = _reward_model(reward, log)
    results = [
        estimate(
            log, policy, name,
            reward_model=reward if name in ("dm", "dr", "cascade-dr") else None,
            examination=args.examination if name == "pbm" else None,
            position_weights=args.position_weights, clip=args.clip,
            self_normalise=args.self_normalise and name in ("ips", "iips", "rips"),
            confidence=args.confidence, samples=args.samples, seed=args.seed,
        )
        for name in args.estimator
    ]  # fmt: skip
    sys.stdout.write(format_estimates(results, args.format))
    return 0


SUBCOMMANDS: dict[str, tuple[Callable, Callable, str]] = {
    "fit": (_add_fit, _run_fit, "fit click models to a click log"),
    "simulate": (_add_simulate, _run_simulate, "simulate a click log from a click model"),
    "estimate": (_add_estimate, _run_estimate, "a ranking policy's clicks estimated from "
                 "another policy's log"),
    "interleave": (_interleave_arguments, _interleave, "outcomes of an interleaving "
                   "experiment from a click log"),
    "learn": (_learn_arguments, _learn, "RPP's weights over recall levels learned from "
              "labelled preferences"),
}
