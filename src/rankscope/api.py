"""The public entry points: read judgments and runs from anything, evaluate, compare by
preferences; each resolves its inputs through `rankscope.read` and hands the work to the
layer that does it (`rankscope.table`, `rankscope.preference`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from .errors import UsageError, warn
from .judge import JoinOptions, relevance_table
from .measures import (
    Request,
    compute_request,
    method_of,
    parse_measures,
    parse_method,
    reads_subtopics,
)
from .model import Qrels, ZScores
from .model.frames import to_frame
from .preference import LearnedWeights, Method, PreferenceResult
from .read import irds
from .read.prefs import read_zscores
from .read.results_frames import from_results_frames, qrels_from_results
from .read.sources import (
    QrelsLike,
    check_common_queries,
    read_doc_lengths,
    read_qrels,
    read_run,
    resolve_runs,
    run_sources,
)
from .table import RunEvaluation, as_requests
from .table.evaluation import evaluation_table
from .table.formats import evaluate_runs, judgment_format
from .table.many import check_jobs, evaluate_many_runs, streams

if TYPE_CHECKING:  # the comparison's modules are imported when one is asked for (start-up)
    from .report.compare import ComparisonResult

__all__ = [
    "EvaluateOptions",
    "compare",
    "dataset_measures",
    "evaluate",
    "evaluate_many",
    "preferences",
    "read_judgments",
    "read_qrels_for",
    "read_qrels",
    "read_run",
    "reproduce",
]


class EvaluateOptions(TypedDict, total=False):
    """The options shared by `evaluate` and `evaluate_many` (see `evaluate_many`)."""

    relevance_level: int
    ties: str | None
    max_docs: int | None
    judged_only: bool
    complete: bool
    num_docs: int
    duplicates: str
    order: str
    diversity: bool | None
    doc_lengths: Any
    rel_format: str
    zscores: Any
    no_common_query: str
    names: str
    jobs: int | None
    block_bytes: int | None
    backend: str
    scheduler: Any


def read_qrels_for(source: QrelsLike, measures: Sequence[str | Request]) -> Qrels:
    """The judgments ``measures`` need: a qrels file is read as diversity judgments
    (``qid subtopic docno grade``) when one of them needs subtopics (α-nDCG, stRPP, ...);
    judgments already read, frames and dicts are taken as they are."""
    diversity = isinstance(source, str | os.PathLike) and reads_subtopics(measures)
    return read_qrels(source, diversity=diversity)


def read_judgments(source: Any, rel_format: str = "qrels") -> Any:
    """Judgments in one of trec_eval's formats (``-R``): ``qrels`` (anything `read_qrels`
    accepts), ``prefs``, ``qrels_prefs`` (`rankscope.model.Prefs`) or ``qrels_jg``
    (`rankscope.model.GroupedQrels`), from a file or already read."""
    _check_dataset_format(source, rel_format)
    return judgment_format(rel_format).read(source)


def _check_dataset_format(source: Any, rel_format: str) -> None:
    if irds.is_dataset(source) and rel_format != "qrels":
        raise UsageError(
            f"{source}: judgments from ir_datasets are qrels; rel_format {rel_format!r} reads "
            "a file",
            cli=f"{source}: judgments from ir_datasets are qrels; -R {rel_format} reads a file",
        )


def dataset_measures(qrels: Any) -> list[Request] | None:
    """The measures the ir_datasets dataset of ``qrels`` documents as official (its
    ``official_measures``, ir_measures names read by the measure registry), when ``qrels``
    is ``"ir_datasets:ID"`` or judgments read from one; None otherwise, or when it documents
    none.  A name rankscope does not know is left out with a warning."""
    source = qrels if isinstance(qrels, str) else getattr(qrels, "source", None)
    if not irds.is_dataset(source):
        return None
    requests: list[Request] = []
    for name in irds.official_measures(source):
        try:
            requests.extend(parse_measures([name]))
        except ValueError as error:
            warn(f"{source}: its official measure {name!r} is left out ({error})")
    return requests or None


def evaluate_many(
    qrels: QrelsLike,
    runs: Any,
    measures: str | Sequence[str | Request] | None = None,
    *,
    relevance_level: int = 1,
    ties: str | None = None,
    max_docs: int | None = None,
    judged_only: bool = False,
    complete: bool = False,
    num_docs: int = 0,
    duplicates: str = "error",
    order: str = "score",
    diversity: bool | None = None,
    doc_lengths: Any = None,
    rel_format: str = "qrels",
    zscores: Any = None,
    no_common_query: str = "warn",
    names: str = "tag",
    jobs: int | None = None,
    block_bytes: int | None = None,
    backend: str = "local",
    scheduler: Any = None,
) -> list[RunEvaluation]:
    """Evaluate each run; one `RunEvaluation` per run, in input order.

    The judgments are read once and the runs one at a time (`rankscope.table.many`), so
    memory does not grow with their number; a large TREC run file is read in blocks of
    whole queries, so that memory is bounded whatever its size; ``jobs`` worker processes
    share runs and blocks (default: every core when the run files are large enough to pay
    for it), the results identical for every ``jobs``.  Preference measures, which compare
    the runs, read them all at once.

    Parameters
    ----------
    qrels, runs:
        Anything `read_qrels` / `read_run` accept; ``runs`` may be one run, a list, a
        ``{name: run}`` dict or a directory of run files.
    measures:
        Measure names in either spelling (``"nDCG@10"``, ``"ndcg_cut.10"``, ``"all_trec"``);
        by default the format's (trec_eval's ``official`` for qrels).
    relevance_level, ties, max_docs, judged_only, complete, num_docs:
        trec_eval's ``-l``, tie order, ``-M``, ``-J``, ``-c``, ``-N``.  ``ties`` defaults
        to trec_eval's order: document ids descending, ascending for preference judgments.
    duplicates:
        A document listed twice for one query: ``error`` (default), ``first``, ``max-score``.
    order:
        ``score`` (default) or ``rank``: rank TREC run files by their rank column.
    diversity:
        Read a qrels file as diversity judgments (``qid subtopic docno grade``); by default
        when a measure that needs them (α-nDCG, ERR-IA, ..., stRPP) is requested.
    doc_lengths:
        Document lengths in words, ``{docno: words}`` or a file of ``docno words`` lines,
        for time-biased gain.
    rel_format:
        The judgments' format (trec_eval's ``-R``): ``qrels``, ``prefs``, ``qrels_prefs``
        or ``qrels_jg``.
    zscores:
        A file of ``qid measure mean stddev`` (or a `rankscope.model.ZScores`): every
        per-query value becomes a z-score before the summary (trec_eval's ``-Z``).
    no_common_query:
        A run that shares no query with the judgments: ``warn`` (default; its queries are
        reported and it scores 0) or ``error`` (an `InputError`, as on the command line:
        nothing is comparable, usually the wrong file).
    names:
        ``tag`` (default): a run file is named by its tag column; ``file``: by its file name
        (as on the command line), two files of one name being an error.  ``runid`` prints
        the tag either way.
    jobs, block_bytes:
        Worker processes (default: see above), and the length of a block of a run file
        (default 32 MB, or less to give every core several blocks).  A run read in blocks
        must list each query's lines together if it is longer than 2 GB (else it is read
        whole): see docs/scale.md.
    backend, scheduler:
        ``local`` (default) or ``dask``: the queries split over a Dask cluster, the numbers
        identical; ``scheduler`` an address, a cluster or a client (default: the current
        client; giving one implies ``dask``).  Runs may then also be
        `rankscope.scale.Partitioned` Parquet datasets.  See docs/dask.md.

    Judgments from ir_datasets (``"ir_datasets:ID"``) are evaluated by the dataset's
    official measures (`dataset_measures`) when none is named.
    """
    _check_dataset_format(qrels, rel_format)
    if measures is None and rel_format == "qrels":
        measures = dataset_measures(qrels)
    if backend != "local" or scheduler is not None:
        if jobs is not None or block_bytes is not None:
            raise UsageError("jobs and block_bytes are the local backend's: Dask has its workers")
        from .scale import evaluate_many as distributed

        return distributed(
            qrels, runs, measures, backend="dask" if backend == "local" else backend,
            scheduler=scheduler, relevance_level=relevance_level, ties=ties,
            max_docs=max_docs, judged_only=judged_only, complete=complete, num_docs=num_docs,
            duplicates=duplicates, order=order, diversity=diversity, doc_lengths=doc_lengths,
            rel_format=rel_format, zscores=zscores, no_common_query=no_common_query, names=names,
        )  # fmt: skip
    fmt = judgment_format(rel_format)
    requests = as_requests(fmt.default_measures if measures is None else measures)
    if diversity is None:
        diversity = reads_subtopics(requests)
    if diversity and fmt.name == "qrels":
        judgments = read_qrels(qrels, diversity=True)
    else:
        judgments = fmt.read(qrels)
    if no_common_query not in ("warn", "error"):
        raise UsageError(f"no_common_query must be 'warn' or 'error', not {no_common_query!r}")
    check_jobs(jobs)
    table = zscores if zscores is None or isinstance(zscores, ZScores) else read_zscores(zscores)
    options = JoinOptions(
        relevance_level, ties, max_docs, judged_only, complete, read_doc_lengths(doc_lengths)
    )
    if streams(requests):
        return evaluate_many_runs(
            judgments, run_sources(runs, getattr(judgments, "source", None), names), requests,
            fmt, options, num_docs=num_docs, zscores=table, duplicates=duplicates, order=order,
            names=names, check_common=no_common_query == "error", jobs=jobs,
            block_bytes=block_bytes,
        )  # fmt: skip
    run_list = resolve_runs(runs, judgments, duplicates, order, names)
    if no_common_query == "error":
        check_common_queries(judgments, run_list)
    return evaluate_runs(
        judgments, run_list, requests, fmt, options, num_docs=num_docs, zscores=table
    )


def evaluate(
    qrels: QrelsLike,
    runs: Any,
    measures: str | Sequence[str | Request] | None = None,
    per_query: bool = True,
    *,
    output: str = "pandas",
    **options: Unpack[EvaluateOptions],
) -> Any:
    """Evaluate runs against judgments; a tidy table with columns run, query, measure, value.

    ``qrels``, ``runs``, ``measures`` and the keyword options are those of `evaluate_many`.
    ``per_query``: one row per (run, query, measure); otherwise one summary row per (run,
    measure), with query ``"all"``.  ``output``: ``pandas`` (default), ``polars`` or
    ``dict`` (of columns).

    Examples
    --------
    >>> import rankscope
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}}
    >>> table = rankscope.evaluate(qrels, {"bm25": run}, ["AP", "P@2"], output="dict")
    >>> [round(v, 4) for v in table["value"]]
    [0.8333, 0.5]
    """
    results = evaluate_many(qrels, runs, measures, **options)
    return to_frame(evaluation_table(results, per_query), output)


def preferences(
    qrels: Any,
    runs: Any,
    method: str | Request | Method | LearnedWeights = "RPP",
    *,
    relevance_level: int = 1,
    ties: str = "docno-desc",
    max_docs: int | None = None,
    duplicates: str = "error",
    table: Any = None,
) -> PreferenceResult:
    """Preferences between every pair of runs on every query with relevant documents.

    Parameters
    ----------
    qrels, runs:
        Anything `rankscope.read_qrels` / `rankscope.read_run` accept; ``runs`` as for
        `rankscope.evaluate` (a list, a ``{name: run}`` dict, a directory), at least two.
        For ``stRPP`` a qrels file is read as diversity judgments (qid subtopic docno grade).
    method:
        A preference method, named as in `rankscope.evaluate` (`rankscope measures` lists
        them): ``RPP``, ``dcgRPP``, ``invRPP`` (binary at ``relevance_level``), ``gRPP``
        (graded; ``gRPP(p=dcg)``, ``gRPP(p=inverse)``), ``stRPP``, ``lexiprecision``,
        ``rrlexiprecision``, ``lexirecall``, ``OI`` (offline interleaving;
        ``OI(interleaving=balanced,browsing=dcg)``); ``RPP(rel=2)`` sets the level for one
        method.  A `rankscope.preference.Method` object, or weights learned from labelled
        preferences (`rankscope.preference.LearnedWeights`, `rankscope.clicks.learn_weights`),
        is computed as it is.
    table:
        A `rankscope.judge.RelevanceTable` already built (then ``qrels`` and ``runs`` are
        not read; ``OI`` needs one built with ``keep_rankings=True``).

    Examples
    --------
    >>> import rankscope
    >>> qrels = {"q": {"a": 1, "b": 1}}
    >>> runs = {"x": {"q": {"a": 3, "b": 2, "c": 1}}, "y": {"q": {"c": 3, "a": 2, "b": 1}}}
    >>> result = rankscope.preferences(qrels, runs, "RPP")
    >>> float(result.prefs[0, 0, 1])   # x finds the 1st and 2nd relevant documents first
    1.0
    """
    if isinstance(method, LearnedWeights):
        method = method.method()
    if isinstance(method, Method):
        if table is None:
            judgments = read_qrels_for(qrels, [])
            table = relevance_table(
                judgments, resolve_runs(runs, judgments, duplicates, distinct_for="preferences"),
                relevance_level=relevance_level, ties=ties, max_docs=max_docs,
                keep_rankings=method.rankings,
            )  # fmt: skip
        return method.compute(table)
    request = parse_method(method)
    if table is None:
        reads = method_of(request)
        judgments = read_qrels_for(qrels, [request])
        table = relevance_table(
            judgments, resolve_runs(runs, judgments, duplicates, distinct_for="preferences"),
            relevance_level=relevance_level, ties=ties, max_docs=max_docs,
            keep_rankings=reads.rankings,
        )  # fmt: skip
    return compute_request(table, request)


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
) -> ComparisonResult:
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
    from .report.compare import ComparisonResult
    from .table.compare import Procedure, compare_runs

    if measures is None:
        measures = dataset_measures(qrels)
    judgments = read_qrels_for(qrels_from_results(qrels), _specs(measures))
    run_list = resolve_runs(
        from_results_frames(runs), judgments, duplicates, names=names,
        distinct_for="a comparison",
    )  # fmt: skip
    if isinstance(baseline, int):  # PyTerrier's: the baseline's position
        if isinstance(baseline, bool) or not -len(run_list) <= baseline < len(run_list):
            raise UsageError(f"baseline={baseline!r}: name a run, or give its position")
        baseline = run_list[baseline].name
    requests = _in_given_order(_specs(measures))
    options = JoinOptions(relevance_level, ties, max_docs, judged_only, True, None)
    correction = "none" if correction is None else _CORRECTIONS.get(correction, correction)
    procedure = Procedure(test, correction, alpha, confidence, permutations, seed)
    found = compare_runs(
        judgments, run_list, requests, baseline=baseline, all_pairs=all_pairs,
        procedure=procedure, common_queries=common_queries, options=options,
    )  # fmt: skip
    return ComparisonResult(**{f: getattr(found, f) for f in found.__dataclass_fields__})


#: statsmodels' names of the corrections rankscope has (PyTerrier passes them on).
_CORRECTIONS = {"fdr_bh": "bh", "benjamini-hochberg": "bh"}


def _in_given_order(specs: Sequence[str | Request]) -> list[Request]:
    """The requests the specs name, in the order given (a nickname's in its own order),
    each once."""
    out: dict[Request, Request] = {}
    for spec in specs:
        for request in as_requests([spec]):
            out.setdefault(request, request)
    return list(out.values())


def _specs(measures: str | Sequence[str | Request] | None) -> Sequence[str | Request]:
    if measures is None:
        from .table.compare import DEFAULT_MEASURES

        return DEFAULT_MEASURES
    return [measures] if isinstance(measures, str) else measures


def reproduce(
    qrels: QrelsLike,
    original: Sequence[Any],
    reproduced: Sequence[Any],
    measures: str | Sequence[str] | None = None,
    *,
    replication_qrels: QrelsLike | None = None,
    p: float = 0.95,
    depth: int = 1000,
    ties: str = "docno-desc",
    rbo_ties: str | None = None,
    relevance_level: int = 1,
    duplicates: str = "error",
) -> Any:
    """Has a reproduction reproduced?  The measures of Breuer et al. (SIGIR 2020).

    ``original`` = (baseline, advanced) and ``reproduced`` = (baseline′, advanced′): two
    runs each (files, frames, dicts or `Run`).  Per measure (default AP, nDCG@10, P@10, RR,
    R@100): the four means, the effect ratio ER, the delta relative improvement ΔRI and
    Student's t-test of each original run against its reproduction — paired, with the RMSE
    of the per-topic scores, for a reproduction (the same ``qrels``); unpaired, when
    ``replication_qrels`` scores the reproduced runs on other topics (a replication).  For
    a reproduction also the per-topic Kendall's τ Union and rank-biased overlap (RBO_ext
    with persistence ``p``) of each pair's rankings, cut at ``depth``; ``rbo_ties`` (``a``,
    ``b``, ``w``) treats equal scores as ties in RBO (Corsi & Urbano 2024).

    Returns a `rankscope.table.reproduce.Reproduction` (``rows()``: one row per measure and
    quantity; ``rankings``: the per-topic KTU and RBO).

    Examples
    --------
    >>> import rankscope
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    >>> bm25 = {"q1": {"a": 2, "c": 1}, "q2": {"c": 2, "b": 1}}
    >>> dense = {"q1": {"a": 2, "c": 1}, "q2": {"b": 2, "c": 1}}
    >>> result = rankscope.reproduce(qrels, (bm25, dense), (bm25, dense), ["AP"])
    >>> m = result.measures[0]
    >>> m.effect_ratio, m.delta_ri, m.rmse_advanced
    (1.0, 0.0, 0.0)
    """
    from .table.reproduce import DEFAULT_MEASURES, reproduce_runs

    if len(original) != 2 or len(reproduced) != 2:
        raise UsageError(
            "original and reproduced are pairs of runs: (baseline, advanced)",
            cli="--original and --reproduced each take two runs: BASELINE ADVANCED",
        )
    specs = [str(m) for m in (DEFAULT_MEASURES if measures is None else _specs(measures))]
    judgments = read_qrels_for(qrels, specs)
    other = judgments if replication_qrels is None else read_qrels_for(replication_qrels, specs)

    def one(run: Any, role: str, against: Qrels) -> Any:
        # one at a time: a file may play two roles (the same baseline reproduced) untold
        named = run if isinstance(run, str | os.PathLike) else {role: run}
        return resolve_runs(named, against, duplicates, names="file")[0]

    roles = ("baseline", "advanced")
    orig = [one(r, f"original {n}", judgments) for r, n in zip(original, roles, strict=True)]
    rep = [one(r, f"reproduced {n}", other) for r, n in zip(reproduced, roles, strict=True)]
    return reproduce_runs(
        judgments, (orig[0], orig[1]), (rep[0], rep[1]), specs,
        replication_qrels=None if replication_qrels is None else other,
        p=p, depth=depth, ties=ties, rbo_ties=rbo_ties, relevance_level=relevance_level,
    )  # fmt: skip
