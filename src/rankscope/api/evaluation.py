"""The evaluation's front door: `evaluate` and `evaluate_many` read judgments and runs from
anything (files, frames, dicts, ir_datasets ids), pick the backend (local processes, or Dask
through `rankscope.api.cluster`) and hand the work to `rankscope.table`; the readers of
judgments the other front doors share (`read_qrels_for`, `read_judgments`, `dataset_measures`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, TypedDict, Unpack

from ..errors import UsageError, warn
from ..judge import JoinOptions
from ..measures import Request, parse_measures, reads_subtopics
from ..model import Qrels, ZScores
from ..model.frames import to_frame
from ..read import irds
from ..read import prefs as prefs_io
from ..read.prefs import read_zscores
from ..read.runs import baseline_name, check_common_queries
from ..read.sources import (
    QrelsLike,
    read_doc_lengths,
    read_qrels,
    resolve_runs,
    run_sources,
)
from ..table import RunEvaluation, as_requests
from ..table.evaluation import evaluation_table
from ..table.formats import evaluate_runs, judgment_format
from ..table.many import check_jobs, evaluate_many_runs, streams
from .cluster import evaluate_on_dask

__all__ = [
    "JUDGMENT_READERS",
    "EvaluateOptions",
    "dataset_measures",
    "evaluate",
    "evaluate_many",
    "measure_specs",
    "read_judgments",
    "read_qrels_for",
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


def measure_specs(measures: str | Sequence[str | Request]) -> Sequence[str | Request]:
    """The measures named: one name (``"AP"``) or a sequence of names and requests."""
    return [measures] if isinstance(measures, str) else measures


#: How the judgments of each format (`rankscope.table.formats.FORMATS`) are read: qrels from
#: anything `read_qrels` accepts, the others from their files.
JUDGMENT_READERS: dict[str, Callable[[Any], Any]] = {
    "qrels": read_qrels,
    "prefs": prefs_io.read_prefs,
    "qrels_prefs": prefs_io.read_qrels_prefs,
    "qrels_jg": prefs_io.read_qrels_jg,
}


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
    fmt = judgment_format(rel_format)
    if isinstance(source, fmt.judgments):
        return source
    if fmt.judgments is not Qrels and not isinstance(source, str | os.PathLike):
        raise UsageError(
            f"judgments for rel_format={fmt.name!r} must be a file or a "
            f"{fmt.judgments.__name__}"
        )
    return JUDGMENT_READERS[fmt.name](source)


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
    names: str = "file",
    baseline: str | None = None,
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
        ``file`` (default, as on the command line and in `rankscope.compare`, so that the
        tables join): a run file is named by its file name without ``.gz`` and
        ``.txt``/``.run``/``.trec``/``.tsv``, two files of one name being an error; ``tag``:
        by its tag column.  ``runid`` prints the tag either way.
    baseline:
        The run a preference measure (RPP, OI, ...) is measured against: each run's value is
        its mean preference over this run (by default the first), labelled ``RPP vs
        NAME`` -- a value of the two runs only, whichever others are evaluated with them.
    jobs, block_bytes:
        Worker processes (default: see above), and the length of a block of a run file
        (default 32 MB; 16 MB for a run evaluated in this process on two cores or more,
        where two blocks are parsed at once; less to give every worker several blocks).
        A run read in blocks must list each query's lines together if it is longer than
        2 GB (else it is read whole): see docs/scale.md.
    backend, scheduler:
        ``local`` (default), ``dask`` or ``spark``: the runs (their blocks of whole queries,
        read by the workers from run files; or the queries of inputs read here) split over
        a Dask or Spark cluster, the numbers identical; ``scheduler`` for Dask an address, a
        cluster or a client (default: the current client; giving one implies ``dask``), for
        Spark a master URL (``"local[2]"``, ``"spark://HOST:7077"``) or a `SparkSession`
        (default: the active session).  Runs may then also be
        `rankscope.scale.Partitioned` Parquet datasets.  See docs/distributed.md.

    Judgments from ir_datasets (``"ir_datasets:ID"``) are evaluated by the dataset's
    official measures (`dataset_measures`) when none is named.
    """
    _check_dataset_format(qrels, rel_format)
    if measures is None and rel_format == "qrels":
        measures = dataset_measures(qrels)
    if backend != "local" or scheduler is not None:
        if jobs is not None or block_bytes is not None:
            raise UsageError(
                "jobs and block_bytes are the local backend's: a cluster has its workers"
            )
        if rel_format != "qrels":  # (the qrels are read by the Dask path, as it needs them)
            qrels = read_judgments(qrels, rel_format)
        return evaluate_on_dask(
            qrels, runs, measures, backend="dask" if backend == "local" else backend,
            scheduler=scheduler, relevance_level=relevance_level, ties=ties,
            max_docs=max_docs, judged_only=judged_only, complete=complete, num_docs=num_docs,
            duplicates=duplicates, order=order, diversity=diversity, doc_lengths=doc_lengths,
            rel_format=rel_format, zscores=zscores, no_common_query=no_common_query, names=names,
            baseline=baseline,
        )  # fmt: skip
    fmt = judgment_format(rel_format)
    requests = as_requests(fmt.default_measures if measures is None else measures)
    if diversity is None:
        diversity = reads_subtopics(requests)
    if diversity and fmt.name == "qrels":
        judgments = read_qrels(qrels, diversity=True)
    else:
        judgments = read_judgments(qrels, fmt.name)
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
        judgments, run_list, requests, fmt, options, num_docs=num_docs, zscores=table,
        baseline=baseline_name(baseline, [(r.name, r.source) for r in run_list]),
    )  # fmt: skip


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
