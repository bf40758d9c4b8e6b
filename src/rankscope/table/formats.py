"""The judgment formats (trec_eval's ``-R``), as rows of one table, and the evaluation of
several runs against judgments of any format.

Each `JudgmentFormat` names the model class its judgments are read into (the front door,
`rankscope.api.evaluation.read_judgments`, reads them), the measures it computes when none
are named, the measure family it serves, the tie order trec_eval uses with it, and the
function that evaluates one run against it (ordering and joining through
`rankscope.judge`).  Nothing else branches on the format.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UsageError, warn
from ..judge import JoinOptions, relevance_table
from ..measures import Request, compute_request, needs_rankings
from ..model import GroupedQrels, Prefs, Qrels, Run, ZScores
from .evaluation import RunEvaluation, evaluate_run
from .groups import evaluate_judgment_groups
from .prefs import evaluate_prefs
from .zscores import to_zscores


@dataclass(frozen=True)
class JudgmentFormat:
    """One judgment format: how it is read and evaluated, and what it computes by default."""

    name: str
    explanation: str
    judgments: type  # the model class the judgments are read into
    default_measures: str  # nickname computed when no measure is named
    family: str  # the measure family it serves ("" for the qrels: every other family)
    ties: str  # trec_eval's order of equally scored documents with this format
    evaluate: Callable[..., list[RunEvaluation]]  # (judgments, runs, requests, options, -N)


def _evaluate_qrels(
    qrels: Qrels,
    runs: Sequence[Run],
    requests: Sequence[Request],
    options: JoinOptions,
    num_docs: int = 0,
) -> list[RunEvaluation]:
    per_run = [r for r in requests if r.measure.family != "preference"]
    results = [evaluate_run(qrels, run, per_run, options, num_docs=num_docs) for run in runs]
    wanted = [r for r in requests if r.measure.family == "preference"]
    if wanted:
        results = with_preferences(results, wanted, qrels, runs, options)
    return results


def with_preferences(
    results: list[RunEvaluation],
    wanted: Sequence[Request],
    qrels: Qrels,
    runs: Sequence[Run],
    options: JoinOptions,
) -> list[RunEvaluation]:
    """Each run's per-query win rate (eq. 7 of Diaz & Ferraro 2022) for each preference
    request, and its mean; queries without relevant documents count as indifference."""
    table = relevance_table(
        qrels, list(runs), relevance_level=options.relevance_level,
        ties=options.ties or "docno-desc", max_docs=options.max_docs,
        keep_rankings=needs_rankings(wanted),
    )  # fmt: skip
    out = [  # copies whose lists the preference columns extend
        dataclasses.replace(
            res, requests=list(res.requests), values=list(res.values), summary=list(res.summary)
        )
        for res in results
    ]
    for req in wanted:
        found = compute_request(table, req)
        position = {qid: i for i, qid in enumerate(found.query_ids)}
        wins = found.win_rate
        for r, res in enumerate(out):
            column = np.array(
                [wins[position[q], r] if q in position else 0.0 for q in res.query_ids]
            )
            res.requests.append(req)
            res.values.append(column)
            res.summary.append(float(np.cumsum(column)[-1] / len(column)) if len(column) else 0.0)
    return out


def _each_run(evaluate_one: Callable[..., RunEvaluation]) -> Callable[..., list[RunEvaluation]]:
    """A format's evaluator from its one-run evaluation ``(judgments, run, requests,
    options)`` (``-N`` serves no measure of these formats)."""

    def evaluate(
        judgments: Any,
        runs: Sequence[Run],
        requests: Sequence[Request],
        options: JoinOptions,
        num_docs: int = 0,
    ) -> list[RunEvaluation]:
        return [evaluate_one(judgments, run, requests, options) for run in runs]

    return evaluate


FORMATS: dict[str, JudgmentFormat] = {
    f.name: f
    for f in (
        JudgmentFormat(
            "qrels", "qid iter docno grade (TREC qrels; also DataFrames, Parquet, dicts)",
            Qrels, "official", "", "docno-desc", _evaluate_qrels,
        ),
        JudgmentFormat(
            "prefs", "qid jg jsg docno rel_level (preference judgments)",
            Prefs, "prefs", "trec_prefs", "docno-asc",
            _each_run(evaluate_prefs),
        ),
        JudgmentFormat(
            "qrels_prefs", "qid jg docno rel_level (qrels read as preferences)",
            Prefs, "prefs", "trec_prefs", "docno-asc",
            _each_run(evaluate_prefs),
        ),
        JudgmentFormat(
            "qrels_jg", "qid jg docno grade (judgment groups)",
            GroupedQrels, "qrels_jg", "judgment_groups", "docno-desc",
            _each_run(evaluate_judgment_groups),
        ),
    )
}  # fmt: skip


def judgment_format(name: str) -> JudgmentFormat:
    """The format called ``name`` (trec_eval's ``-R``)."""
    if name not in FORMATS:
        raise UsageError(f"unknown judgments format {name!r}; choose one of {', '.join(FORMATS)}")
    return FORMATS[name]


def check_formats(requests: Sequence[Request], fmt: JudgmentFormat) -> None:
    """Each measure reads one judgments format: say which when it is not the one given."""
    served = {f.family: f for f in FORMATS.values() if f.family}
    for r in requests:
        if r.measure.describes_run:
            continue
        own = r.measure.family
        if not fmt.family and own in served:
            needs = " or ".join(f"-R {f.name}" for f in FORMATS.values() if f.family == own)
            raise UsageError(f"measure '{r.label}' needs other judgments: {needs}")
        if fmt.family and own != fmt.family:
            nickname = "all_prefs" if fmt.family == "trec_prefs" else fmt.default_measures
            raise UsageError(
                f"measure '{r.label}' needs qrels (-R qrels); with -R {fmt.name} the measures "
                f"are those of -m {nickname}"
            )


def warn_if_nothing_relevant(qrels: Qrels, level: int) -> None:
    """Judgments none of whose grades reaches the relevance level (``-l 3`` with grades 0-2,
    or every grade 0): every measure counting relevant documents is 0, a run's quality
    unseen."""
    top = int(qrels.grade.max(initial=-1))
    if len(qrels.grade) and top < level:
        warn(
            f"{qrels.source}: no judged document is relevant (the highest grade is {top}, "
            f"the relevance level {level}): every measure that counts relevant documents is 0",
            cli=f"{qrels.source}: no judged document is relevant (the highest grade is {top}, "
            f"-l {level}): every measure that counts relevant documents is 0",
        )


def evaluation_options(
    judgments: Any,
    requests: Sequence[Request],
    fmt: JudgmentFormat,
    options: JoinOptions | None = None,
    num_docs: int = 0,
) -> JoinOptions:
    """What `evaluate_runs` checks (and warns of) once for any number of runs: the options
    its evaluation uses, the format's tie order filled in."""
    check_formats(requests, fmt)
    options = JoinOptions() if options is None else options
    if num_docs < 0:
        raise UsageError(
            f"num_docs must be >= 0 (got {num_docs})", cli=f"-N must be >= 0 (got {num_docs})"
        )
    if isinstance(judgments, Qrels):
        warn_if_nothing_relevant(judgments, options.relevance_level)
    if options.ties is None:
        options = dataclasses.replace(options, ties=fmt.ties)
    return options


def evaluate_runs(
    judgments: Any,
    runs: Sequence[Run],
    requests: Sequence[Request],
    fmt: JudgmentFormat,
    options: JoinOptions | None = None,
    *,
    num_docs: int = 0,
    zscores: ZScores | None = None,
) -> list[RunEvaluation]:
    """Evaluate each run against judgments already read in format ``fmt``; one
    `RunEvaluation` per run, in order.  Documents of equal score are ordered as the format's
    ``ties`` says unless ``options`` names an order; ``num_docs`` is trec_eval's ``-N``;
    ``zscores`` standardises every per-query value (trec_eval's ``-Z``)."""
    options = evaluation_options(judgments, requests, fmt, options, num_docs)
    results = fmt.evaluate(judgments, runs, requests, options, num_docs)
    if zscores is not None:
        results = [to_zscores(r, zscores) for r in results]
    return results
