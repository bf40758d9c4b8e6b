"""a ranking policy's clicks estimated from another policy's log

``rankscope clicks estimate LOG --policy RUN``: a ranking policy's expected clicks estimated
from another policy's log of rankings with its propensities (ips, snips, iips, rips, pbm, dm,
dr, cascade-dr), with seeded bootstrap intervals.
"""

from __future__ import annotations

import argparse
import sys

from .. import options
from .shared import model_file

#: `rankscope.clicks.ESTIMATORS`, repeated so that building the parser imports nothing (a
#: test checks they agree).
ESTIMATORS = ("ips", "snips", "iips", "rips", "pbm", "dm", "dr", "cascade-dr")
#: `rankscope.report.estimates.FORMATS`, repeated likewise.
FORMATS = ("table", "csv", "json")

EXAMPLES = """\
examples:
  rankscope clicks estimate log.tsv --policy new.run --estimator ips,iips,rips
  rankscope clicks estimate log.tsv --policy new.run --estimator dr --reward-model empirical
  rankscope clicks estimate log.csv.gz --policy new.run --estimator pbm --examination 1,0.6,0.4
  rankscope clicks estimate random.csv.gz --policy bts-policy.tsv --estimator iips
"""


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


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    p.add_argument("log", help="the click log with the logging policy's propensities")
    options.add_all(p, (
        Option(("--policy",), "policy", "the evaluation policy: a run (TREC run file, Parquet) "
               "whose ranking of each query is shown at the log's positions, or a stochastic "
               "policy: a file with a header naming query, position, doc and probability "
               "columns (summing to 1 at each query and position)", metavar="RUN|FILE",
               required=True),
        Option(("--estimator",), "estimators", f"one or more of {', '.join(ESTIMATORS)} "
               "(default iips)", type=_estimators, default=["iips"], metavar="NAME[,NAME]"),
        Option(("--reward-model",), "reward_model", "the reward model of dm, dr and cascade-dr: "
               "empirical (smoothed click rates of the log, refitted on every resample), or a "
               "position-based click model's parameters (clicks fit --model pbm -o JSON), held "
               "fixed", default=None, metavar="empirical|JSON"),
        Option(("--examination",), "examination", "each position's examination probability (pbm; "
               "the log must then be deterministic: every propensity 1)", type=_estimate_numbers,
               metavar="θ1,θ2,..."),
        Option(("--position-weights",), "position_weights", "the metric's weight of a click at "
               "each position (default 1 at every position: clicks per session); positions beyond "
               "count 0", type=_estimate_numbers, metavar="α1,α2,..."),
        Option(("--clip",), "clip", "cap every importance weight at M (clipped IPS)",
               type=options.real, metavar="M"),
        Option(("--self-normalise",), "self_normalise", "self-normalise ips, iips and rips (snips "
               "is ips self-normalised)", action="store_true"),
        options.CONFIDENCE.worded("the interval's confidence level (default 0.95)"),
        Option(("--samples",), "samples", "bootstrap resamples (default 1000; 0: no interval)",
               type=options.whole(0), default=1000),
        options.SEED.worded("the bootstrap's seed (default 0)"),
        options.COLUMNS.worded("the log's columns by role (session, query, position, doc, click, "
                               "propensity, prefix_propensity, slate_propensity)"),
        options.TIE.worded("the order of the run's equally scored documents (default docno-desc)"),
        options.FORMAT.worded(choices=FORMATS),
    ))  # fmt: skip


def _reward_model(path: str, log):
    from ...clicks.estimators import ClickModelReward

    return ClickModelReward.of(model_file(path), log)


def run(args: argparse.Namespace) -> int:
    """estimate a ranking policy's clicks from a log collected under another policy

    Counterfactual (off-policy) estimators with seeded bootstrap intervals."""
    from ...clicks import estimate, ranking_policy, stochastic_policy
    from ...read import read_run
    from ...read.impressions import read_impressions
    from ...read.policy import is_policy_file, read_policy
    from ...read.runs import file_stem
    from ...read.trec import source_name
    from ...report.estimates import format_estimates

    log = read_impressions(args.log, columns=args.columns)
    if is_policy_file(args.policy):
        name = file_stem(source_name(args.policy))
        policy = stochastic_policy(log, read_policy(args.policy), name=name)
    else:
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
        for name in args.estimators
    ]  # fmt: skip
    sys.stdout.write(format_estimates(results, args.format))
    return 0
