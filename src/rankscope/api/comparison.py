"""The comparison's front door: `compare` reads judgments and runs from anything (PyTerrier's
frames too), names the runs and hands the comparison to `rankscope.table.compare`; the result
is a `rankscope.table.compare.Comparison` carrying the writers of `rankscope.report` (text,
Markdown, LaTeX, CSV, JSON and HTML: ``to_text()``, ..., ``to_html(path)``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ..errors import UsageError
from ..judge import JoinOptions, relevant_docs
from ..measures import Request, needs_rankings, parse_measures
from ..model import Qrels, Run
from ..read.results_frames import from_results_frames, qrels_from_results
from ..read.runs import baseline_name
from ..read.sources import QrelsLike, resolve_runs, run_sources
from ..report.compare import format_comparison
from ..report.html import write_html
from ..stats.corrections import correction_named
from ..table import as_requests
from ..table.compare import (
    DEFAULT_MEASURES,
    Comparison,
    Procedure,
    Writers,
    compare_runs,
    level_docs,
)
from ..table.evaluation import RunEvaluation
from ..table.formats import FORMATS
from ..table.many import check_jobs, evaluate_many_runs, streams
from .evaluation import dataset_measures, measure_specs, read_qrels_for

__all__ = ["compare"]


def compare(
    qrels: QrelsLike,
    runs: Any,
    measures: str | Sequence[str | Request] | None = None,
    *,
    baseline: str | int | None = None,
    all_pairs: bool = False,
    test: str = "t",
    correction: str | None = "holm",
    alpha: float = 0.05,
    confidence: float = 0.95,
    permutations: int = 10_000,
    seed: int = 0,
    common_queries: bool = False,
    relevance_level: int = 1,
    ties: str | None = None,
    max_docs: int | None = None,
    judged_only: bool = False,
    duplicates: str = "error",
    names: str = "file",
    curves: bool = True,
    jobs: int | None = None,
) -> Comparison:
    """Compare runs with evidence: is each run better than the baseline, by how much, how
    sure are we, and on how many queries?

    For each measure (default: AP, nDCG@10, P@10, RR, R@100, or the official measures of
    judgments from ir_datasets, `dataset_measures`; preference methods such as RPP work too)
    and each run: the mean and its ``confidence`` t interval; against ``baseline``
    (a run name; default the first run): the difference and relative change, the p-value of
    ``test`` (``t``, ``wilcoxon``, ``sign``, ``permutation``, ``bootstrap``,
    ``randomized-tukey``) after ``correction`` (``holm``, ``bonferroni``, ``bh``, ``none``)
    over the comparisons of the measure, Cohen's d_z and wins/ties/losses over queries.
    ``all_pairs=True`` compares every pair of runs instead.  Every judged query counts, a
    run missing one scoring 0 (trec_eval's ``-c``), unless ``common_queries=True``.  Random
    tests take ``seed`` and ``permutations`` (resamples for the bootstrap).  Runs read from
    files are named after them (``names="file"``; ``"tag"``: by their tag column).
    ``curves=False`` leaves out what only the HTML report shows (each run's precision–recall
    curve and recall-level view, about 40% of the work on many runs): the rows are the
    same, ``to_html`` then refuses.  Without preference methods the runs are read, judged
    and reduced one at a time (`evaluate_many`'s path: memory flat in their number), ``jobs``
    worker processes sharing them as there, the curves' values and the recall levels' ranks
    in the same pass (each run read once); so with preference methods, each run keeping
    where it ranks the relevant documents, but offline interleaving (``OI``) and methods at
    a relevance level other than 1 beside the HTML report's recall levels, which read every
    run whole, in this process.

    PyTerrier's results work as they are: ``runs`` may be a results frame (``qid``,
    ``docno``, ``score``) of several systems told apart by a ``name`` (or ``system``, ``run``)
    column, or a ``{name: results frame}`` dict, and ``qrels`` PyTerrier's qrels (``qid``,
    ``docno``, ``label``); ``pt.Experiment``'s options mean what they mean there:
    ``baseline`` may be a run's position, ``correction`` a statsmodels name (``fdr_bh``) or
    None (no correction), ``test`` ``t`` or ``wilcoxon``.

    The result has ``rows`` (one `rankscope.table.compare.Row` per run and measure),
    ``to_frame()``, ``to_markdown()``, ``to_latex()``, ``to_csv()``, ``to_json()``,
    ``to_text()`` and ``to_html(path)`` (the HTML report; the ``report`` extra).

    Examples
    --------
    >>> import rankscope
    >>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"a": 1}, "q3": {"b": 1}}
    >>> runs = {
    ...     "bm25": {"q1": {"a": 2, "c": 1}, "q2": {"c": 2, "a": 1}, "q3": {"c": 1}},
    ...     "dense": {"q1": {"a": 2, "b": 1}, "q2": {"a": 2}, "q3": {"b": 2, "c": 1}},
    ... }
    >>> result = rankscope.compare(qrels, runs, ["AP"])
    >>> row = result.row("dense", "AP", "bm25")
    >>> round(row.difference, 4), (row.wins, row.ties, row.losses)
    (0.6667, (3, 0, 0))
    """
    if measures is None:
        measures = dataset_measures(qrels)
    judgments = read_qrels_for(qrels_from_results(qrels), _specs(measures))
    requests = _in_given_order(_specs(measures))
    options = JoinOptions(relevance_level, ties, max_docs, judged_only, True, None)
    check_jobs(jobs)
    run_list: list[Run] | list[RunEvaluation]
    methods = [r for r in requests if r.measure.family == "preference"]
    metrics = [r for r in requests if r not in methods]
    # the recall levels' ranks (against a baseline) kept from the same pass
    levels = curves and not all_pairs and not judged_only
    if streams(metrics) and _streamed_methods(methods, judgments, relevance_level, levels):
        # one run at a time, only per-query values (and ranks) kept
        sources = run_sources(
            from_results_frames(runs), getattr(judgments, "source", None), names
        )
        positions = level_docs(judgments) if levels else None
        if methods:  # (at level 1 the recall levels' too)
            positions = relevant_docs(judgments, relevance_level)
        run_list = evaluate_many_runs(
            judgments, sources, metrics + _curve_requests(requests, curves),
            FORMATS["qrels"], options, duplicates=duplicates, names=names, jobs=jobs,
            distinct_for="a comparison", positions=positions,
        )  # fmt: skip
        read = [(r.run_name, s.given) for r, s in zip(run_list, sources, strict=True)]
    else:
        run_list = resolve_runs(
            from_results_frames(runs), judgments, duplicates, names=names,
            distinct_for="a comparison",
        )  # fmt: skip
        read = [(r.name, r.source) for r in run_list]
    if isinstance(baseline, int):  # PyTerrier's: the baseline's position
        if isinstance(baseline, bool) or not -len(read) <= baseline < len(read):
            raise UsageError(f"baseline={baseline!r}: name a run, or give its position")
        baseline = read[baseline][0]
    baseline = baseline_name(baseline, read)
    correction = correction_named(correction)
    procedure = Procedure(test, correction, alpha, confidence, permutations, seed)
    found = compare_runs(
        judgments, run_list, requests, baseline=baseline, all_pairs=all_pairs,
        procedure=procedure, common_queries=common_queries, options=options, curves=curves,
    )  # fmt: skip
    return dataclasses.replace(found, writers=WRITERS)


#: The writers a comparison of the front door carries.
WRITERS = Writers(format_comparison, write_html)


def _streamed_methods(
    methods: Sequence[Request], judgments: Qrels, relevance_level: int, levels: bool
) -> bool:
    """Whether the preference ``methods`` (if any) can compare runs read one at a time:
    none replays whole rankings (offline interleaving), some judged document is relevant
    (else the runs read whole say so), and the recall levels, when shown, are at the
    methods' relevance level (one set of positions serves both)."""
    if not methods:
        return True
    return (
        not needs_rankings(methods)
        and bool((judgments.grade >= relevance_level).any())
        and (relevance_level == 1 or not levels)
    )


def _curve_requests(requests: Sequence[Request], curves: bool) -> list[Request]:
    """The precision–recall curves' requests (``iprec_at_recall``) the metrics lack, when the
    comparison shows ``curves``: evaluated with them, in the same pass."""
    return [r for r in parse_measures(["iprec_at_recall"]) if curves and r not in requests]


def _in_given_order(specs: Sequence[str | Request]) -> list[Request]:
    """The requests the specs name, in the order given (a nickname's in its own order),
    each once."""
    out: dict[Request, Request] = {}
    for spec in specs:
        for request in as_requests([spec]):
            out.setdefault(request, request)
    return list(out.values())


def _specs(measures: str | Sequence[str | Request] | None) -> Sequence[str | Request]:
    return DEFAULT_MEASURES if measures is None else measure_specs(measures)
