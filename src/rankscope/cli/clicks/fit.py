"""fit click models to a click log

``rankscope clicks fit LOG``: click models (PBM, UBM, DBN by EM; CM, SDBN in closed form)
fitted to a click log, their parameters' summary, training log-likelihood and, with
--test-log or --test-fraction, held-out log-likelihood and perplexity per position; -o writes
one model's parameters as JSON ('-o -': to standard output, instead of the summary);
--format json prints the summary as JSON (each model's fit, iterations, training and
held-out log-likelihood, perplexity and perplexity per position); --columns names the
log's columns by role.
"""

from __future__ import annotations

import argparse
import sys

from .. import options
from .shared import MODELS

EXAMPLES = """\
examples:
  rankscope clicks fit clicks.tsv --model pbm -o pbm.json
  rankscope clicks fit train.tsv --model cm --model sdbn --model dbn --test-log test.tsv
  rankscope clicks fit log.tsv --columns click=clicked --test-fraction 0.2 --format json
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    p.add_argument("log", help="the click log (text, .gz, Parquet; - for stdin)")
    options.add_all(p, (
        Option(("--model",), "model", f"a click model ({', '.join(MODELS)}); repeat to compare "
               "several (default pbm)", action="append", choices=MODELS, metavar="MODEL"),
        options.OUTPUT.worded("write the model's parameters (one model; '-': standard output, "
                              "instead of the summary)", metavar="JSON"),
        options.FORCE,
        options.COLUMNS,
        options.FORMAT.worded(choices=("table", "json")),
    ))  # fmt: skip
    held = p.add_mutually_exclusive_group()
    options.add_all(held, (
        Option(("--test-log",), "test_log", "a held-out click log to evaluate on", metavar="LOG"),
        Option(("--test-fraction",), "test_fraction", "hold out this fraction of the log's "
               "sessions (seeded by --seed) for evaluation", type=options.probability, metavar="F"),
    ))  # fmt: skip
    options.add_all(p, (
        options.SEED.worded("the split's seed (default 0)"),
        Option(("--max-iter",), "max_iter", "EM iterations at most (default 200)",
               type=options.whole(1), default=200, metavar="N"),
        Option(("--tol",), "tol", "EM stops when the mean log-likelihood per session gains less "
               "(default 1e-6)", type=_positive, default=1e-6),
    ))  # fmt: skip


def _positive(text: str) -> float:
    value = options.real(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def run(args: argparse.Namespace) -> int:
    import json

    from ... import clicks
    from ...atomic import write_atomically
    from ...errors import UsageError

    names = list(dict.fromkeys(args.model or ["pbm"]))
    if args.output and len(names) > 1:
        raise UsageError("-o writes one model's parameters: give one --model")
    options.check_outputs(args, {"--output": args.output}, [args.log, args.test_log])
    read = {"columns": args.columns, "require": clicks.CLICK_ROLES, "binary": True}
    log = clicks.read_impressions(args.log, **read)
    test = clicks.read_impressions(args.test_log, **read) if args.test_log else None
    if args.test_fraction is not None:
        log, test = log.split(args.test_fraction, seed=args.seed)
        if test.num_sessions == 0 or log.num_sessions == 0:
            raise UsageError(
                f"--test-fraction {args.test_fraction} leaves no session on one side "
                f"(the log has {log.num_sessions + test.num_sessions})"
            )
    fitted = [clicks.fit(log, name, max_iter=args.max_iter, tol=args.tol) for name in names]
    parameters = json.dumps(fitted[0].to_dict(), indent=1) + "\n"
    if args.output == "-":
        sys.stdout.write(parameters)
        return 0
    if args.format == "json":
        sys.stdout.write(_summary_json(fitted, log, test))
    else:
        sys.stdout.write(
            f"# {log.num_sessions} training sessions, {len(log)} results shown, "
            f"{log.num_clicks} clicks" + (f"; {test.num_sessions} held out" if test else "")
            + "\n" + "".join(_describe(model, log, test) + "\n" for model in fitted)
        )  # fmt: skip
    if args.output:
        write_atomically(args.output, parameters)
    return 0


def _summary_json(fitted, log, test) -> str:
    """What the summary says, as JSON for a program to read: the logs' sizes, and for each
    model how it was fitted, its training log-likelihood per session and, with a held-out
    log, its log-likelihood, perplexity and perplexity per position (every digit)."""
    from ...report.tables import json_text

    def sizes(part) -> dict[str, int]:
        return {"sessions": part.num_sessions, "results": len(part), "clicks": part.num_clicks}

    models = []
    for model in fitted:
        held = model.evaluate(test).to_dict() if test is not None else None
        if held is not None:
            del held["model"]
        models.append({
            "model": model.name, "fitted_by": "em" if model.iterations else "closed form",
            "iterations": model.iterations, "converged": bool(model.converged),
            "pairs": len(model.attractiveness),
            "log_likelihood": model.log_likelihood(log), "held_out": held,
        })  # fmt: skip
    return json_text({
        "training": sizes(log), "held_out": sizes(test) if test is not None else None,
        "models": models,
    })  # fmt: skip


def _describe(model, log, test) -> str:
    from ...report.tables import clean

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
