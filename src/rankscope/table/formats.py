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
from ..judge import JoinOptions, JoinReport, relevance_table
from ..measures import Request, compute_request, needs_rankings
from ..model import GroupedQrels, Prefs, Qrels, Run, ZScores
from .evaluation import RunEvaluation, evaluate_run, in_order
from .groups import evaluate_judgment_groups
from .prefs import evaluate_prefs
from .zscores import to_zscores


@dataclass(frozen=True, eq=False)
class JudgmentFormat:
    """One judgment format: how it is read and evaluated, and what it computes by default.
    (A row of `FORMATS`, one object per format: no generated ``==`` or hash.)"""

    name: str
    explanation: str
    judgments: type  # the model class the judgments are read into
    default_measures: str  # nickname computed when no measure is named
    family: str  # the measure family it serves ("" for the qrels: every other family)
    ties: str  # trec_eval's order of equally scored documents with this format
    # one run's evaluation: (judgments, run, requests, options, -N, report); a `JoinReport`
    # records the queries on one side only (told either way)
    evaluate_one: Callable[..., RunEvaluation]

    def evaluate(
        self,
        judgments: Any,
        runs: Sequence[Run],
        requests: Sequence[Request],
        options: JoinOptions,
        num_docs: int,
        baseline: str | None,
    ) -> list[RunEvaluation]:
        """Each run evaluated on its own, then the preference measures (qrels only), which
        compare it with the reference run ``baseline`` (`with_preferences`)."""
        per_run = [r for r in requests if r.measure.family != "preference"]
        results = [self.evaluate_one(judgments, run, per_run, options, num_docs) for run in runs]
        wanted = [r for r in requests if r.measure.family == "preference"]
        if wanted:
            results = with_preferences(results, wanted, judgments, runs, options, baseline)
            results = [in_order(res, requests) for res in results]  # the preferences among them
        return results


def reference_run(names: Sequence[str], baseline: str | None) -> int:
    """The position of the run the preference measures of a per-run table are measured
    against: ``baseline``, or the first run."""
    if baseline is None:
        return 0
    if baseline not in names:
        raise UsageError(
            f"baseline {baseline!r} is not one of the runs ({', '.join(names)})",
            cli=f"--baseline {baseline}: not one of the runs ({', '.join(names)})",
        )
    return list(names).index(baseline)


def against(request: Request, reference: str) -> Request:
    """A preference request as a per-run table labels it: ``RPP vs REFERENCE`` (the same
    request: equal to ``request``)."""
    return dataclasses.replace(request, label=f"{request.label} vs {reference}")


def with_preferences(
    results: list[RunEvaluation],
    wanted: Sequence[Request],
    qrels: Qrels,
    runs: Sequence[Run],
    options: JoinOptions,
    baseline: str | None = None,
) -> list[RunEvaluation]:
    """Each run's per-query preference over the reference run (``baseline``, by default the
    first) for each preference request, and its mean, labelled ``RPP vs REFERENCE``: a
    value of the run and the reference only, whichever other runs are evaluated with them
    (the reference's own is 0); queries without relevant documents count as indifference."""
    reference = reference_run([run.name for run in runs], baseline)
    table = relevance_table(
        qrels, list(runs), relevance_level=options.relevance_level,
        ties=options.ties or "docno-desc", max_docs=options.max_docs,
        keep_rankings=needs_rankings(wanted),
    )  # fmt: skip
    columns: list[list[np.ndarray]] = [[] for _ in results]  # per run: one per request
    for req in wanted:
        found = compute_request(table, req)
        position = {qid: i for i, qid in enumerate(found.query_ids)}
        over = found.prefs[:, :, reference]  # queries × runs: P[q, run, reference]
        for r, res in enumerate(results):
            columns[r].append(
                np.array([over[position[q], r] if q in position else 0.0 for q in res.query_ids])
            )
    labelled = [against(req, runs[reference].name) for req in wanted]
    return [  # new values, each run's preference columns after its own
        dataclasses.replace(
            res, requests=[*res.requests, *labelled], values=[*res.values, *added],
            summary=[*res.summary, *(_mean(column) for column in added)],
        )  # fmt: skip
        for res, added in zip(results, columns, strict=True)
    ]


def _mean(column: np.ndarray) -> float:
    """The summary of a preference column: its mean, summed in order (0 without queries)."""
    return float(np.cumsum(column)[-1] / len(column)) if len(column) else 0.0


def _without_num_docs(evaluate_one: Callable[..., RunEvaluation]) -> Callable[..., RunEvaluation]:
    """A format's one-run evaluation from one that takes no ``-N`` (it serves no measure of
    the preference and judgment-group formats)."""

    def evaluate(judgments: Any, run: Run, requests: Sequence[Request], options: JoinOptions,
                 num_docs: int, report: JoinReport | None = None) -> RunEvaluation:  # fmt: skip
        return evaluate_one(judgments, run, requests, options, report=report)

    return evaluate


def _qrels_run(
    qrels: Qrels, run: Run, requests: Sequence[Request], options: JoinOptions, num_docs: int,
    report: JoinReport | None = None,
) -> RunEvaluation:
    return evaluate_run(qrels, run, requests, options, num_docs=num_docs, report=report)


FORMATS: dict[str, JudgmentFormat] = {
    f.name: f
    for f in (
        JudgmentFormat(
            "qrels", "qid iter docno grade (TREC qrels; also DataFrames, Parquet, dicts)",
            Qrels, "official", "", "docno-desc", _qrels_run,
        ),
        JudgmentFormat(
            "prefs", "qid jg jsg docno rel_level (preference judgments)",
            Prefs, "prefs", "trec_prefs", "docno-asc",
            _without_num_docs(evaluate_prefs),
        ),
        JudgmentFormat(
            "qrels_prefs", "qid jg docno rel_level (qrels read as preferences)",
            Prefs, "prefs", "trec_prefs", "docno-asc",
            _without_num_docs(evaluate_prefs),
        ),
        JudgmentFormat(
            "qrels_jg", "qid jg docno grade (judgment groups)",
            GroupedQrels, "qrels_jg", "judgment_groups", "docno-desc",
            _without_num_docs(evaluate_judgment_groups),
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
    baseline: str | None = None,
) -> list[RunEvaluation]:
    """Evaluate each run against judgments already read in format ``fmt``; one
    `RunEvaluation` per run, in order.  Documents of equal score are ordered as the format's
    ``ties`` says unless ``options`` names an order; ``num_docs`` is trec_eval's ``-N``;
    ``zscores`` standardises every per-query value (trec_eval's ``-Z``); ``baseline``: the
    run the preference measures are measured against (default the first;
    `with_preferences`)."""
    options = evaluation_options(judgments, requests, fmt, options, num_docs)
    results = fmt.evaluate(judgments, runs, requests, options, num_docs, baseline)
    if zscores is not None:
        results = [to_zscores(r, zscores) for r in results]
    return results
