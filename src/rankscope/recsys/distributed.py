"""The recommender evaluation on a Dask cluster (``backend="dask"`` of
`rankscope.evaluate_recsys`): the recsys partition kernel, which any engine can map over
Arrow tables of whole users (`recsys_kernel`, `interactions_table`, `RecsysSpec`), its outputs
gathered into the local path's results (`recsys_results`), and the driver
(`recsys_evaluate_systems`).  It is built on `rankscope.scale`'s partitions, Arrow tables and
client, below it; it sits here, with the local path it reproduces bit for bit, and the
front door `rankscope.api.recsys` picks it."""

from __future__ import annotations

import base64
import dataclasses
import functools
import math
import pickle
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import RankscopeWarning, UsageError, warn
from ..measures import Request
from ..model import Interactions, ItemFeatures, Vocabulary
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
from .base import (
    Context,
    Note,
    Popularity,
    Values,
    add_tallies,
    catalog_of,
    finished,
    user_mean,
)
from .evaluation import check_options, check_unseen, prepare
from .registry import parse
from .systems import (
    DEFAULT_TOPN,
    Inputs,
    SystemEvaluation,
    check_one_sided,
    drop_rows,
    read_inputs,
    seen_pairs,
    tell_no_relevant,
    tell_notes,
    tell_one_sided,
    tell_seen,
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
    seen: str = "keep"
    train_source: str = "<train>"
    baseline_source: str = "<baseline>"


@dataclass(frozen=True)
class Shared:
    """What every partition needs whole, sent once to every worker: the catalog's item ids
    (in id order), item popularity counted over the whole popularity log (the items with a
    count, their counts, the log's users) and the item features."""

    catalog: list[str]
    popular_items: list[str] | None = None
    popular_counts: np.ndarray | None = None
    popularity_users: int = 0
    feature_items: list[str] | None = None
    features: ItemFeatures | None = None  # its codes: `feature_items`' order

    @classmethod
    def of(cls, read: Inputs) -> Shared:
        """From inputs read on the client."""
        items = read.items
        catalog = catalog_of(items, read.test, read.train, read.catalog)
        out = cls(items.strings_of(catalog.astype(np.int32)))
        popularity = read.item_popularity()
        if popularity is not None:
            codes = np.flatnonzero(popularity.per_item)
            out = dataclasses.replace(
                out, popular_items=items.strings_of(codes.astype(np.int32)),
                popular_counts=popularity.per_item[codes], popularity_users=popularity.users,
            )  # fmt: skip
        if read.features is not None:
            f = read.features
            out = dataclasses.replace(out, feature_items=items.strings_of(f.item), features=f)
        return out

    def item_inputs(self, items: Vocabulary) -> tuple[np.ndarray, ItemFeatures | None]:
        """The catalog's codes and the features in a partition's item vocabulary (interned
        into it: call before counting its items)."""
        catalog = items.intern_many(self.catalog).astype(np.int64)
        features = None
        if self.features is not None and self.feature_items is not None:
            f = self.features
            codes = items.intern_many(self.feature_items).astype(np.int32)
            features = ItemFeatures(items, codes, f.matrix, f.names, f.source)
        return catalog, features

    def popularity(self, items: Vocabulary) -> Popularity | None:
        """Popularity per code of a partition's item vocabulary (0 for items no user of the
        popularity log interacted with)."""
        if self.popular_items is None or self.popular_counts is None:
            return None
        per_item = np.zeros(len(items), dtype=np.int64)
        codes = items.lookup_many(self.popular_items)
        known = codes >= 0
        per_item[codes[known]] = self.popular_counts[known]
        return Popularity(per_item, self.popularity_users)


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


def _log_from(table: Any, users: Vocabulary, items: Vocabulary, source: str) -> Interactions:
    """A canonical interactions table as a log coded with ``users`` and ``items``."""
    return Interactions(
        users, items, interned_codes(users, table.column("user")),
        interned_codes(items, table.column("item")),
        _optional(table.column("rating")), _optional(table.column("timestamp")),
        source=source, line=number_array(table.column("line"), np.int64),
    )  # fmt: skip


def recsys_kernel(test: Any, recommendations: Any, spec: RecsysSpec, train: Any = None,
                  baseline: Any = None, shared: Shared | None = None) -> Any:  # fmt: skip
    """Per-user values of every system on the whole users of one partition, and the tallies
    of the pooled measures: the local path's `rankscope.recsys.base.Context` and the
    measures' own kernels.  ``train``: the training interactions of the partition's users
    (an interactions table), ``baseline``: their baseline lists (a runs table of one run),
    ``shared``: what every partition holds whole."""
    pa = pyarrow()
    users, items = Vocabulary(), Vocabulary()
    log = _log_from(test, users, items, spec.test_source)
    run_list = runs_from(recommendations, spec, users, items, query="user", doc="item")
    train_log = None if train is None else _log_from(train, users, items, spec.train_source)
    base_run = None
    if baseline is not None:
        base_spec = RecsysSpec(["baseline"], [spec.baseline_source], [])
        base_run = runs_from(baseline, base_spec, users, items, query="user", doc="item")[0]
    catalog, features = (None, None) if shared is None else shared.item_inputs(items)
    popularity = None if shared is None else shared.popularity(items)
    requests = spec.requests
    n = len(run_list)
    test_users = np.zeros(len(users), dtype=bool)
    test_users[log.user] = True
    ratings = log.rating
    meta: dict[str, Any] = {
        "only_recs": [0] * n, "only_test": [0] * n, "test_users": int(test_users.sum()),
        "overlap": [False] * n, "no_relevant": [0] * n, "num_users": [0] * n,
        "seen": [0] * n, "has_rating": ratings is not None and bool(len(ratings)),
        "looks_like_scores": bool(
            ratings is not None and len(ratings) and np.any(ratings != np.round(ratings))
        ),
        "users": distinct_ids(recommendations.column("user")),
        "tallies": [[None] * len(requests) for _ in range(n)],
        "no_per_user": [[] for _ in range(n)],
        "notes": [None] * n,
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
            if train_log is not None:  # told by the client, with every partition's count
                hit = seen_pairs(run, train_log, len(items))
                meta["seen"][i] = int(hit.sum())
                if spec.seen == "drop":
                    run = drop_rows(run, hit)
            if qrels is None:
                continue
            ctx = Context(
                qrels=qrels, test=log, run=run, k=spec.k, ties=spec.ties,
                no_relevant=spec.no_relevant, train=train_log, item_popularity=popularity,
                baseline=base_run, features=features, catalog=catalog,
            )  # fmt: skip
            found: list[Values] = [r.measure.kernel(ctx, **r.kwargs) for r in requests]
            meta["notes"][i] = _encoded(ctx.told_notes)  # told by the client, added up
            if any(getattr(r.measure, "relevance", False) for r in requests):
                meta["no_relevant"][i] = int((ctx.num_relevant == 0).sum())
            meta["num_users"][i] = ctx.num_users
            cols["run"].extend([i] * ctx.num_users)
            cols["user"].extend(ctx.user_ids)
            for j, v in enumerate(found):
                if v.tally is not None:
                    meta["tallies"][i][j] = _encoded(v.tally)
                if v.per_user is None:
                    meta["no_per_user"][i].append(j)
                    values[j].extend([math.nan] * ctx.num_users)
                else:
                    values[j].extend(v.per_user.tolist())
    meta["warnings"] = told_warnings(caught)
    columns: dict[str, Any] = {
        "run": pa.array(cols["run"], pa.int32()),
        "user": pa.array(cols["user"], pa.string()),
    }
    for j in range(len(requests)):
        columns[f"v{j}"] = pa.array(values[j], pa.float64())
    return kernel_output(pa, columns, meta)


def _encoded(parts: dict) -> str:
    """Tallies and notes in the kernel's JSON metadata (pickled: exact integers, arrays and
    sums)."""
    return base64.b64encode(pickle.dumps(parts, protocol=pickle.HIGHEST_PROTOCOL)).decode()


def _decoded(text: str) -> dict:
    return pickle.loads(base64.b64decode(text))  # noqa: S301 - written by our own kernel


def recsys_results(
    outputs: Sequence[Any], spec: RecsysSpec, told: Sequence[Sequence[str]] | None = None
) -> list[SystemEvaluation]:
    """One `rankscope.recsys.SystemEvaluation` per system: the per-user values in the local
    user order, each summary the local path's `rankscope.recsys.base.user_mean` of them or,
    for a pooled measure, its ``finish`` of the partitions' tallies added.  A measure has
    per-user values when every partition gave them.

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
        tell_seen(name, sum(m["seen"][i] for m in metas), spec.seen)
        rows = rows_in_order(which, users, i, spec.run_sources[i], "user")
        values = [
            _summarised(r, take_rows(columns[j], rows, False), metas, i, j)
            for j, r in enumerate(requests)
        ]
        relevance = [r for r in requests if getattr(r.measure, "relevance", False)]
        if relevance:
            tell_no_relevant(
                name, relevance, none=sum(m["no_relevant"][i] for m in metas),
                users=sum(m["num_users"][i] for m in metas), no_relevant=spec.no_relevant,
                rule=any(m["has_rating"] for m in metas), threshold=spec.threshold,
                looks_like_scores=any(m["looks_like_scores"] for m in metas),
            )  # fmt: skip
        notes: dict[str, Note] = {}
        for m in metas:
            if m["notes"][i] is not None:
                for key, note in _decoded(m["notes"][i]).items():
                    notes[key] = notes[key] + note if key in notes else note
        tell_notes(name, notes.values())
        results.append(SystemEvaluation(name, [users[r] for r in rows], list(requests), values))
    tell_warnings(metas)
    return results


def _summarised(request: Request, per_user: np.ndarray, metas: Sequence[dict], i: int,
                j: int) -> Values:  # fmt: skip
    """Request ``j``'s `Values` for system ``i`` from the partitions' outputs."""
    gathered: np.ndarray | None = per_user
    if any(j in m["no_per_user"][i] for m in metas if m["num_users"][i]):
        gathered = None
    tallies = [_decoded(m["tallies"][i][j]) for m in metas if m["tallies"][i][j] is not None]
    if not tallies:
        if gathered is None:  # pragma: no cover - every such measure gives a tally
            raise UsageError(f"{request.label} has no per-user values")
        return user_mean(gathered)
    finish = request.measure.finish  # type: ignore[attr-defined]
    return finished(gathered, functools.reduce(add_tallies, tallies), finish, **request.kwargs)


def recsys_evaluate_systems(
    test_log: Any, recommendations: Any, measures: str | Sequence[str] | None, *, backend: str,
    scheduler: Any, k: int, threshold: float | None, train: Any, features: Any,
    popularity: Any, baseline: Any, catalog: Any, relevance: str, no_relevant: str, seen: str,
    ties: str, columns: Mapping[str, str] | None, duplicates: str, partitions: int | None = None,
) -> list[SystemEvaluation]:
    """`rankscope.evaluate_recsys_systems` on a Dask cluster (its arguments, see there): the
    same values, bit for bit, for every measure.  ``partitions``: how many partitions inputs
    read on the client are split into (default: twice the workers).  ``test_log`` and
    ``recommendations`` may be `Partitioned` datasets (by user; the lists: one dataset, or a
    dict or list of them)."""
    check_backend(backend)
    check_options(no_relevant, seen, relevance, k)
    client, owned = connect(scheduler)
    try:
        in_place = partitioned_runs(recommendations)
        spec = RecsysSpec([], [], [], k, threshold, relevance, no_relevant, ties, seen=seen)
        if in_place is None:
            read = read_inputs(test_log, recommendations, train, popularity, baseline, features,
                               catalog, columns, duplicates)  # fmt: skip
            return _recsys_split(client, read, measures, spec, partitions)
        given = {"train": train, "features": features, "popularity": popularity,
                 "baseline": baseline, "catalog": catalog}  # fmt: skip
        for option, value in given.items():
            if value is not None:
                raise UsageError(
                    f"backend='dask' with Partitioned lists does not take {option}= yet: "
                    "give the lists as files or frames"
                )
        if seen != "keep":
            raise UsageError("backend='dask' with Partitioned lists does not take seen='drop' yet")
        spec = dataclasses.replace(spec, requests=_in_place_requests(measures, k))
        return _recsys_in_place(client, test_log, in_place, spec, columns, duplicates)
    finally:
        if owned:
            client.close()


def _in_place_requests(measures: Any, k: int) -> list[Request]:
    requests = parse(measures if measures is not None else DEFAULT_TOPN, k)
    for r in requests:
        measure = r.measure
        if measure.kind not in ("topn", "list") or measure.needs:  # type: ignore[attr-defined]
            raise UsageError(
                f"{r.label}: backend='dask' with Partitioned lists computes the top-N measures "
                "and UserCoverage; give the lists as files or frames for the others"
            )
    return requests


def _recsys_split(client: Any, read: Inputs, measures: Any, spec: RecsysSpec,
                  partitions: int | None) -> list[SystemEvaluation]:  # fmt: skip
    """Inputs read on the client, split by user into partitions evaluated on the cluster;
    what every partition needs whole (catalog, popularity, features) sent once to each
    worker."""
    log = read.test
    qrels, requests = prepare(read, measures, k=spec.k, threshold=spec.threshold,
                              relevance=spec.relevance, seen=spec.seen)  # fmt: skip
    told = []
    num_items = len(read.items)
    for run in read.runs:  # the local path's warnings (and error), from the whole inputs
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_unseen(run, read.train, requests)
            if read.train is not None and spec.seen == "drop":
                run = drop_rows(run, seen_pairs(run, read.train, num_items))
            check_one_sided(Context(qrels=qrels, test=log, run=run))
        told.append([str(w.message) for w in caught if isinstance(w.message, RankscopeWarning)])
    users = log.user_ids
    n = num_partitions(client, partitions, len(users))
    part = partition_of(log.users, partition_ids(users, n))
    t_part = part[log.user]
    r_parts = [part[r.query] for r in read.runs]  # users without test data: in none
    spec = dataclasses.replace(
        spec, run_names=[r.name for r in read.runs], run_sources=[r.source for r in read.runs],
        test_source=log.source, requests=requests,
        train_source=read.train.source if read.train is not None else spec.train_source,
        baseline_source=read.baseline.source if read.baseline is not None else
        spec.baseline_source,
    )  # fmt: skip
    shared = client.scatter(Shared.of(read), broadcast=True, hash=False)
    train, base = read.train, read.baseline
    tasks = [
        (
            recsys_kernel,
            interactions_table(log, np.flatnonzero(t_part == p)),
            runs_table(read.runs, [np.flatnonzero(rp == p) for rp in r_parts], RECSYS_KEYS),
            spec,
            None if train is None else interactions_table(train,
                                                          np.flatnonzero(part[train.user] == p)),
            None if base is None else runs_table([base], [np.flatnonzero(part[base.query] == p)],
                                                 RECSYS_KEYS),
            shared,
        )
        for p in range(n)
    ]  # fmt: skip
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
