"""The recommender evaluation on a Dask cluster (``backend="dask"`` of
`rankscope.evaluate_recsys`): the recsys partition kernel, which any engine can map over
Arrow tables of whole users (`recsys_kernel`, `interactions_table`, `RecsysSpec`), its outputs
gathered into the local path's results (`recsys_results`), and the driver
(`recsys_evaluate_systems`).  It is built on `rankscope.scale`'s partitions, Arrow tables and
client, below it; it sits here, with the local path it reproduces bit for bit, and the
front door `rankscope.api.recsys` picks it."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import RankscopeWarning, UsageError, warn
from ..measures import Request
from ..model import Interactions, Vocabulary
from ..read.interactions import keep_latest, read_interactions
from ..read.recommendations import read_recommendations
from ..scale.cluster import (
    Partitioned,
    check_backend,
    connect,
    num_partitions,
    partition_ids,
    partition_of,
    partitioned_runs,
    run_tasks,
)
from ..scale.gather import gathered_columns, rows_in_order, take_rows, tell_warnings
from ..scale.kernels import (
    distinct_ids,
    empty_runs,
    ids_column,
    interned_codes,
    kernel_output,
    line_numbers,
    metadata,
    number_array,
    partition_runs,
    pyarrow,
    runs_from,
    runs_table,
    told_warnings,
)
from .base import Context, Values, user_mean
from .evaluation import check_options
from .registry import parse
from .systems import (
    DEFAULT_TOPN,
    SystemEvaluation,
    check_one_sided,
    read_inputs,
    tell_no_relevant,
    tell_one_sided,
)

#: The names of the user and item columns of the lists' runs table.
RECSYS_KEYS = ("user", "item")


@dataclass(frozen=True)
class RecsysSpec:
    """What every recsys partition is evaluated with."""

    run_names: list[str]
    run_sources: list[str]
    requests: list[Request]
    k: int = 10
    threshold: float | None = 4.0
    relevance: str = "binary"
    no_relevant: str = "exclude"
    ties: str = "input-order"
    test_source: str = "<interactions>"


def interactions_table(log: Interactions, rows: np.ndarray | None = None) -> Any:
    """A test log (its ``rows``) as a canonical interactions table."""
    pa = pyarrow()
    rows = np.arange(len(log)) if rows is None else rows

    def optional(a: np.ndarray | None) -> Any:
        if a is None:
            return pa.nulls(len(rows), pa.float64())
        return pa.array(np.asarray(a, dtype=np.float64)[rows])

    return pa.table({
        "user": ids_column(log.users, log.user[rows]),
        "item": ids_column(log.items, log.item[rows]),
        "rating": optional(log.rating),
        "timestamp": optional(log.timestamp),
        "line": pa.array(line_numbers(log.line, len(log))[rows]),
    })  # fmt: skip


def _optional(column: Any) -> np.ndarray | None:
    """A float column, None when every value is null (a log without it)."""
    if len(column) and column.null_count == len(column):
        return None
    return number_array(column, np.float64)


def recsys_kernel(test: Any, recommendations: Any, spec: RecsysSpec) -> Any:
    """Per-user values of every system on the whole users of one partition: the local path's
    `rankscope.recsys.base.Context` and the measures' own kernels."""
    pa = pyarrow()
    users, items = Vocabulary(), Vocabulary()
    timestamp = test.column("timestamp")
    log = Interactions(
        users, items, interned_codes(users, test.column("user")),
        interned_codes(items, test.column("item")),
        _optional(test.column("rating")), _optional(timestamp),
        source=spec.test_source, line=number_array(test.column("line"), np.int64),
    )  # fmt: skip
    run_list = runs_from(recommendations, spec, users, items, query="user", doc="item")
    requests = spec.requests
    n = len(run_list)
    test_users = np.zeros(len(users), dtype=bool)
    test_users[log.user] = True
    ratings = log.rating
    meta: dict[str, Any] = {
        "only_recs": [0] * n, "only_test": [0] * n, "test_users": int(test_users.sum()),
        "overlap": [False] * n, "no_relevant": [0] * n, "num_users": [0] * n,
        "has_rating": ratings is not None and bool(len(ratings)),
        "looks_like_scores": bool(
            ratings is not None and len(ratings) and np.any(ratings != np.round(ratings))
        ),
        "users": distinct_ids(recommendations.column("user")),
        "warnings": [],
    }  # fmt: skip
    cols: dict[str, list] = {"run": [], "user": []}
    values: list[list] = [[] for _ in requests]
    qrels = log.to_qrels(spec.threshold, spec.relevance) if len(log) else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i, run in enumerate(run_list):
            rec_users = np.zeros(len(users), dtype=bool)
            rec_users[run.query] = True
            meta["only_recs"][i] = int((rec_users & ~test_users).sum())
            meta["only_test"][i] = int((test_users & ~rec_users).sum())
            meta["overlap"][i] = bool((rec_users & test_users).any())
            if qrels is None:
                continue
            ctx = Context(
                qrels=qrels, test=log, run=run, k=spec.k, ties=spec.ties,
                no_relevant=spec.no_relevant,
            )  # fmt: skip
            found: list[Values] = [r.measure.kernel(ctx, **r.kwargs) for r in requests]
            if any(getattr(r.measure, "relevance", False) for r in requests):
                meta["no_relevant"][i] = int((ctx.num_relevant == 0).sum())
            meta["num_users"][i] = ctx.num_users
            cols["run"].extend([i] * ctx.num_users)
            cols["user"].extend(ctx.user_ids)
            for j, v in enumerate(found):
                per_user = v.per_user
                if per_user is None:  # pragma: no cover - refused before the kernels run
                    raise UsageError(f"{requests[j].label} has no per-user values")
                values[j].extend(per_user.tolist())
    meta["warnings"] = told_warnings(caught)
    columns: dict[str, Any] = {
        "run": pa.array(cols["run"], pa.int32()),
        "user": pa.array(cols["user"], pa.string()),
    }
    for j in range(len(requests)):
        columns[f"v{j}"] = pa.array(values[j], pa.float64())
    return kernel_output(pa, columns, meta)


def recsys_results(
    outputs: Sequence[Any], spec: RecsysSpec, told: Sequence[Sequence[str]] | None = None
) -> list[SystemEvaluation]:
    """One `rankscope.recsys.SystemEvaluation` per system, each summary the local path's
    `rankscope.recsys.base.user_mean` of the per-user values in the local user order.

    The users on one side only are told (and lists sharing no user with the test log
    refused) from the partitions' counts, unless ``told`` gives each system's warnings
    about them (found by the client from the whole inputs)."""
    metas = [metadata(t) for t in outputs]
    requests = spec.requests
    which, users, columns = gathered_columns(outputs, "user", len(requests))
    test_users = sum(m["test_users"] for m in metas)
    results = []
    for i, name in enumerate(spec.run_names):
        if told is None:
            tell_one_sided(
                name, spec.run_sources[i], spec.test_source,
                only_recs=sum(m["only_recs"][i] for m in metas),
                only_test=sum(m["only_test"][i] for m in metas),
                test_users=test_users, overlap=any(m["overlap"][i] for m in metas),
            )  # fmt: skip
        else:
            for text in told[i]:
                warn(text)
        rows = rows_in_order(which, users, i, spec.run_sources[i], "user")
        values: list[Values] = [
            user_mean(take_rows(columns[j], rows, False)) for j in range(len(requests))
        ]
        relevance = [r for r in requests if getattr(r.measure, "relevance", False)]
        if relevance:
            tell_no_relevant(
                name, relevance, none=sum(m["no_relevant"][i] for m in metas),
                users=sum(m["num_users"][i] for m in metas), no_relevant=spec.no_relevant,
                rule=any(m["has_rating"] for m in metas), threshold=spec.threshold,
                looks_like_scores=any(m["looks_like_scores"] for m in metas),
            )  # fmt: skip
        results.append(SystemEvaluation(name, [users[r] for r in rows], list(requests), values))
    tell_warnings(metas)
    return results


def _recsys_requests(measures: Any, k: int) -> list[Request]:
    requests = parse(measures if measures is not None else DEFAULT_TOPN, k)
    for r in requests:
        measure = r.measure
        if measure.kind not in ("topn", "list") or measure.needs:  # type: ignore[attr-defined]
            raise UsageError(
                f"{r.label}: backend='dask' computes the top-N measures and UserCoverage "
                "(per-user values with a mean); use the local backend for the others"
            )
    return requests


def recsys_evaluate_systems(
    test_log: Any, recommendations: Any, measures: str | Sequence[str] | None, *, backend: str,
    scheduler: Any, k: int, threshold: float | None, train: Any, features: Any,
    popularity: Any, baseline: Any, catalog: Any, relevance: str, no_relevant: str, seen: str,
    ties: str, columns: Mapping[str, str] | None, duplicates: str, partitions: int | None = None,
) -> list[SystemEvaluation]:
    """`rankscope.evaluate_recsys_systems` on a Dask cluster (its arguments, see there), for
    the top-N measures and UserCoverage: the same values, bit for bit.  ``partitions``: how
    many partitions inputs read on the client are split into (default: twice the workers).
    ``test_log`` and ``recommendations`` may be `Partitioned` datasets (by user; the lists: one
    dataset, or a dict or list of them)."""
    check_backend(backend)
    given = {"train": train, "features": features, "popularity": popularity,
             "baseline": baseline, "catalog": catalog}  # fmt: skip
    for option, value in given.items():
        if value is not None:
            raise UsageError(f"backend='dask' does not take {option}= yet (top-N measures only)")
    if seen != "keep":
        raise UsageError("backend='dask' does not take seen='drop' yet")
    check_options(no_relevant, seen, relevance, k)
    requests = _recsys_requests(measures, k)
    client, owned = connect(scheduler)
    try:
        in_place = partitioned_runs(recommendations)
        spec = RecsysSpec([], [], requests, k, threshold, relevance, no_relevant, ties)
        if in_place is None:
            return _recsys_split(client, test_log, recommendations, spec, partitions, columns,
                                 duplicates)  # fmt: skip
        return _recsys_in_place(client, test_log, in_place, spec, columns, duplicates)
    finally:
        if owned:
            client.close()


def _recsys_split(client, test, recommendations, spec: RecsysSpec, partitions, columns,
                  duplicates) -> list[SystemEvaluation]:  # fmt: skip
    read = read_inputs(test, recommendations, None, None, None, None, None, columns, duplicates)
    log = read.test
    if spec.relevance == "graded" and (log.rating is None or spec.threshold is None):
        raise UsageError("relevance='graded' needs ratings in the test data and a threshold")
    qrels = log.to_qrels(spec.threshold, spec.relevance)
    told = []
    for run in read.runs:  # the local path's warnings (and error), from the whole inputs
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_one_sided(Context(qrels=qrels, test=log, run=run))
        told.append([str(w.message) for w in caught if isinstance(w.message, RankscopeWarning)])
    users = log.user_ids
    n = num_partitions(client, partitions, len(users))
    part = partition_of(log.users, partition_ids(users, n))
    t_part = part[log.user]
    r_parts = [part[r.query] for r in read.runs]  # users without test data: in none
    spec = dataclasses.replace(
        spec, run_names=[r.name for r in read.runs], run_sources=[r.source for r in read.runs],
        test_source=log.source,
    )  # fmt: skip
    tasks = [
        (
            recsys_kernel,
            interactions_table(log, np.flatnonzero(t_part == p)),
            runs_table(read.runs, [np.flatnonzero(rp == p) for rp in r_parts], RECSYS_KEYS),
            spec,
        )
        for p in range(n)
    ]
    return recsys_results(run_tasks(tasks, client), spec, told)


def recsys_files(test_file: str | None, test: Any, files: list[str | None], spec: RecsysSpec,
                 columns: Mapping[str, str] | None, duplicates: str) -> Any:  # fmt: skip
    """The task of one partition of Parquet datasets: read its files on the worker (the
    local readers), then `recsys_kernel`."""
    pa = pyarrow()
    import pyarrow.compute as pc

    users, items = Vocabulary(), Vocabulary()
    runs = partition_runs(
        spec, files, users, items,
        lambda path, name: read_recommendations(path, users=users, items=items, name=name,
                                                columns=columns, duplicates=duplicates),
    )  # fmt: skip
    if test_file is not None:
        log = keep_latest(read_interactions(test_file, users=users, items=items, columns=columns))
        table = interactions_table(log)
    else:
        listed = sorted({u for r in runs for u in r.queries.strings_of(np.unique(r.query))})
        table = test.filter(pc.is_in(test.column("user"), pa.array(listed, pa.string())))
    return recsys_kernel(table, runs_table(runs, keys=RECSYS_KEYS), spec)


def _recsys_in_place(client, test, runs: list[tuple[str, Partitioned]], spec: RecsysSpec,
                     columns, duplicates) -> list[SystemEvaluation]:  # fmt: skip
    listed = [p.files() for _, p in runs]
    test_files = test.files() if isinstance(test, Partitioned) else None
    keys = sorted(set().union(*listed, test_files or {}))
    spec = dataclasses.replace(
        spec, run_names=[n for n, _ in runs], run_sources=[str(p.path) for _, p in runs],
        test_source=str(getattr(test, "path", test)),
    )  # fmt: skip
    whole = shared = None
    if test_files is None:
        whole = keep_latest(read_interactions(test, columns=columns))
        spec = dataclasses.replace(spec, test_source=whole.source)
        shared = client.scatter(interactions_table(whole), broadcast=True, hash=False)
    tasks = [
        (
            recsys_files, None if test_files is None else test_files.get(k), shared,
            [files.get(k) for files in listed], spec, columns, duplicates,
        )
        for k in keys
    ]  # fmt: skip
    outputs = run_tasks(tasks, client)
    if whole is not None:  # test users no partition recommends to: evaluated with no list
        seen = {u for t in outputs for u in metadata(t)["users"]}
        rows = np.flatnonzero(
            ~np.isin(whole.user, np.array(whole.users.lookup_many(sorted(seen)), dtype=np.int64))
        )
        if len(rows):
            outputs += run_tasks(
                [(recsys_kernel, interactions_table(whole, rows), empty_runs(RECSYS_KEYS), spec)],
                client,
            )
    return recsys_results(outputs, spec)
