"""The front door of the Dask backend of `evaluate_many` (``backend="dask"``): the inputs
checked and read here, on the client, in the local path's order (so that its errors come in
the same order), and handed to `rankscope.scale` as model objects or `Partitioned` datasets;
run files are named, not read: the workers read them (`rankscope.table.many` on the
cluster's workers, the engine's `map`).  `rankscope.scale` is loaded on first
use: a local evaluation does not pay for it."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from .. import scale
from ..errors import UsageError
from ..judge import JoinOptions
from ..measures import Request, reads_subtopics
from ..model import ZScores
from ..model.frames import is_spark_frame
from ..read.prefs import read_zscores
from ..read.runs import baseline_name, check_common_queries
from ..read.sources import read_doc_lengths, read_qrels, resolve_runs, run_sources
from ..table import RunEvaluation, as_requests
from ..table.formats import evaluation_options, judgment_format
from ..table.many import evaluate_many_runs, streams
from ..table.zscores import to_zscores


def evaluate_on_dask(
    qrels: Any, runs: Any, measures: str | Sequence[str | Request] | None, *, backend: str,
    scheduler: Any, relevance_level: int, ties: str | None, max_docs: int | None,
    judged_only: bool, complete: bool, num_docs: int, duplicates: str, order: str,
    diversity: bool | None, doc_lengths: Any, rel_format: str, zscores: Any,
    no_common_query: str, names: str, baseline: str | None = None,
    partitions: int | None = None,
) -> list[RunEvaluation]:
    """`rankscope.evaluate_many` on a Dask cluster (its arguments, see there): the same
    results, bit for bit.  ``partitions``: how many partitions inputs read on the client are
    split into (default: twice the workers).  Judgments in a format other than ``qrels``
    come read (`rankscope.read_judgments`).  ``runs`` may also be a `Partitioned` dataset
    (or a dict or list of them), read by the workers; ``qrels`` then a `Partitioned` dataset
    too, or anything `read_qrels` accepts.

    Run files (measures that do not compare the runs) are read by the workers, whole or in
    blocks of whole queries as ``--jobs`` reads them (gzipped ones whole): the client holds
    the judgments and the per-query values only."""
    scale.check_backend(backend)
    if no_common_query not in ("warn", "error"):
        raise UsageError(f"no_common_query must be 'warn' or 'error', not {no_common_query!r}")
    fmt = judgment_format(rel_format)
    requests = as_requests(fmt.default_measures if measures is None else measures)
    if diversity is None:
        diversity = reads_subtopics(requests)
    # the checks and the tie order of the local path (the judgments, read later, warned of
    # where they are read)
    options = evaluation_options(
        None, requests, fmt,
        JoinOptions(relevance_level, ties, max_docs, judged_only, complete,
                    read_doc_lengths(doc_lengths)),
        num_docs,
    )  # fmt: skip
    table = zscores if zscores is None or isinstance(zscores, ZScores) else read_zscores(zscores)
    with scale.connect(backend, scheduler) as engine:
        in_place = scale.partitioned_runs(runs) or scale.spark_frames(runs, "run")
        if in_place is not None and is_spark_frame(in_place[0][1]) and backend != "spark":
            raise UsageError("Spark DataFrames are inputs of backend='spark'")
        if in_place is None:
            judgments = read_qrels(qrels, diversity=diversity) if fmt.name == "qrels" else qrels
            sources = run_sources(runs, judgments.source, names)
            if streams(requests) and all(_is_file(s.given) for s in sources):
                return evaluate_many_runs(
                    judgments, sources, requests, fmt, options, num_docs=num_docs,
                    zscores=table, duplicates=duplicates, order=order, names=names,
                    check_common=no_common_query == "error", cluster=engine,
                )  # fmt: skip
            run_list = resolve_runs(runs, judgments, duplicates, order, names)
            if no_common_query == "error":
                check_common_queries(judgments, run_list)
            baseline = baseline_name(baseline, [(r.name, r.source) for r in run_list])
            results = scale.evaluate_split(
                engine, judgments, run_list, requests, options, num_docs, partitions, baseline,
                fmt.name,
            )  # fmt: skip
        else:
            judged = qrels
            parted = isinstance(qrels, scale.Partitioned) or is_spark_frame(qrels)
            if parted and fmt.name != "qrels":
                raise UsageError(
                    f"-R {fmt.name} judgments are read from a file: a Partitioned dataset "
                    "or a Spark DataFrame holds qrels"
                )
            if not parted and fmt.name == "qrels":
                judged = read_qrels(qrels, diversity=diversity)
            results = scale.evaluate_in_place(
                engine, judged, in_place, requests, options, num_docs, duplicates,
                no_common_query, baseline, fmt.name,
            )  # fmt: skip
    if table is not None:
        results = [to_zscores(r, table) for r in results]
    return results


def _is_file(given: Any) -> bool:
    return isinstance(given, str | os.PathLike) and os.path.isfile(given)
