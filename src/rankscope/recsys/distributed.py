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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError, RankscopeWarning, UsageError, warn
from ..measures import Request
from ..model import Interactions, ItemFeatures, Run, Vocabulary
from ..model.frames import is_spark_frame
from ..read.features import read_item_features
from ..read.interactions import (
    ITEM_NAMES,
    RATING_NAMES,
    TIME_NAMES,
    USER_NAMES,
    frame_column,
    frame_role,
    keep_latest,
    read_interactions,
)
from ..read.recommendations import RANK_NAMES, SCORE_NAMES, read_recommendations
from ..scale.cluster import (
    Engine,
    Partitioned,
    check_backend,
    connect,
    num_partitions,
    partition_ids,
    partition_of,
    partitioned_runs,
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
    read_part,
    runs_from,
    runs_table,
    told_warnings,
    with_warnings,
)
from ..scale.spark import spark_frames, spark_source
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
from .evaluation import check_options, check_unseen, prepare, requests_for
from .systems import (
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
            ids, counts = popularity.by_id(items)
            out = dataclasses.replace(out, popular_items=ids, popular_counts=counts,
                                      popularity_users=popularity.users)  # fmt: skip
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
            if train_log is not None:  # told by the client, with every partition's count
                hit = seen_pairs(run, train_log, len(items))
                meta["seen"][i] = int(hit.sum())
                if spec.seen == "drop":
                    run = drop_rows(run, hit)
            rec_users = np.zeros(len(users), dtype=bool)  # (after seen="drop", as locally)
            rec_users[run.query] = True
            meta["only_recs"][i] = int((rec_users & ~test_users).sum())
            meta["only_test"][i] = int((test_users & ~rec_users).sum())
            meta["overlap"][i] = bool((rec_users & test_users).any())
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
    in_place = partitioned_runs(recommendations) or spark_frames(recommendations, "recommendations")
    if in_place is not None and is_spark_frame(in_place[0][1]) and backend != "spark":
        raise UsageError(
            "Spark DataFrames are inputs of backend='spark'",
            cli="Spark DataFrames are inputs of --backend spark",
        )  # fmt: skip
    with connect(backend, scheduler) as engine:
        spec = RecsysSpec([], [], [], k, threshold, relevance, no_relevant, ties, seen=seen)
        if in_place is None:
            read = read_inputs(test_log, recommendations, train, popularity, baseline, features,
                               catalog, columns, duplicates)  # fmt: skip
            return _recsys_split(engine, read, measures, spec, partitions)
        return _recsys_in_place(
            engine, test_log, in_place, measures, spec, columns, duplicates, train=train,
            popularity=popularity, baseline=baseline, features=features, catalog=catalog,
            partitions=partitions,
        )  # fmt: skip


def _recsys_split(engine: Engine, read: Inputs, measures: Any, spec: RecsysSpec,
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
    n = num_partitions(engine, partitions, len(users))
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
    shared = engine.held(Shared.of(read))
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
    return recsys_results(engine.run(tasks), spec, told)


def recsys_items(source: Any, columns: Mapping[str, str] | None) -> dict[str, Any]:
    """The first pass over one part of a partitioned log (on the worker: a file of a
    `Partitioned` dataset, or a Spark partition's rows as an Arrow table): its distinct
    items, the distinct users of each (its users are whole in the part, so the counts of
    the parts add up), its users and whether it has ratings."""
    log = read_interactions(source, columns=columns)
    popularity = Popularity.of(log, len(log.items))
    return {
        "items": log.items.strings_of(np.unique(log.item).astype(np.int32)),
        "popular": popularity.by_id(log.items),
        "users": popularity.users, "ratings": log.rating is not None,
    }  # fmt: skip


#: A log of an in-place evaluation (test, training, baseline lists): ``(files, whole)``, the
#: files of a `Partitioned` dataset (each read by the task of the same path) or the whole
#: input read on the client and sent once to every worker (an Arrow table, or the future
#: Dask scattered it to: a plain tuple, so that Dask resolves it), each task taking its
#: users' rows.
Side = tuple[dict[str, str] | None, Any]


def _file(side: Side, key: str) -> str | None:
    return None if side[0] is None else side[0].get(key)


def _rows_of(table: Any, users: Iterable[str]) -> Any:
    """The rows of ``users`` of a table with a ``user`` column."""
    pa = pyarrow()
    import pyarrow.compute as pc

    return table.filter(pc.is_in(table.column("user"), pa.array(sorted(users), pa.string())))


def recsys_files(key: str, sides: dict[str, Side], files: list[str | None], spec: RecsysSpec,
                 columns: Mapping[str, str] | None, duplicates: str,
                 shared: Shared | None = None) -> Any:  # fmt: skip
    """The task of one partition of `Partitioned` datasets: read its files on the worker
    (the local readers; ``key``: their path inside each dataset), take its users' rows of
    the inputs read whole, then `recsys_kernel`."""
    users, items = Vocabulary(), Vocabulary()
    told: list[str] = []  # the readers' warnings
    sources = dict(zip(spec.run_names, spec.run_sources, strict=True))

    def lists(path: Any, name: str, source: str | None = None) -> Run:
        return read_part(
            lambda: read_recommendations(path, users=users, items=items, name=name,
                                         columns=columns, duplicates=duplicates),
            path, f"<recommendations frame {name}>", source or sources[name], told,
        )  # fmt: skip

    def log(path: Any, source: str) -> Any:
        return interactions_table(read_part(
            lambda: keep_latest(read_interactions(path, users=users, items=items,
                                                  columns=columns)),
            path, "<interactions frame>", source, told,
        ))  # fmt: skip

    runs = partition_runs(spec, files, users, items, lists)
    listed = {u for r in runs for u in r.queries.strings_of(np.unique(r.query))}
    path = _file(sides["test"], key)
    test = log(path, spec.test_source) if path is not None else _rows_of(sides["test"][1], listed)
    members = listed | set(distinct_ids(test.column("user")))
    train = base = None
    apart: dict[str, list[str]] = {}
    if "train" in sides:
        path = _file(sides["train"], key)
        train = (log(path, spec.train_source) if path is not None
                 else _rows_of(sides["train"][1], members))  # fmt: skip
        if sides["train"][0] is not None:  # partitioned: whose rows may lie in another file
            trained = set(distinct_ids(train.column("user")))
            tested = set(distinct_ids(test.column("user")))
            apart = {"train_only": sorted(trained - tested), "untrained": sorted(tested - trained)}
    if "baseline" in sides:
        path = _file(sides["baseline"], key)
        if path is not None:
            base = runs_table([lists(path, "baseline", spec.baseline_source)], keys=RECSYS_KEYS)
        elif sides["baseline"][1] is not None:
            base = _rows_of(sides["baseline"][1], members)
        else:  # no file of this path: no baseline list for its users
            base = empty_runs(RECSYS_KEYS)
    out = with_warnings(
        recsys_kernel(test, runs_table(runs, keys=RECSYS_KEYS), spec, train, base, shared), told
    )
    if not apart:
        return out
    return kernel_output(pyarrow(), {n: out.column(n) for n in out.column_names},
                         {**metadata(out), **apart, "path": key})  # fmt: skip


def _check_apart(outputs: Sequence[Any], train: Partitioned, test: Partitioned) -> None:
    """A user with test rows and no training rows in one file, and training rows in another
    file: the datasets are not partitioned alike (the user's training rows would be missed)."""
    metas = [metadata(t) for t in outputs if "untrained" in metadata(t)]
    found = {u: m["path"] for m in metas for u in m["train_only"]}
    for m in metas:
        for user in m["untrained"]:
            if user in found:
                raise InputError(
                    f"{train.path}: user {user!r} has training rows in {found[user]} and test "
                    f"rows in {m['path']} of {test.path}: a Partitioned training log must hold "
                    "each user's rows in the file of the same path as the test log's"
                )


def _spark_frame(frame: Any, role: str, lists: bool, columns: Mapping[str, str] | None) -> Any:
    """A Spark DataFrame with the local frame readers' columns, found by the same names
    (``columns`` renames): ``user``, ``item`` and ``rating``, ``timestamp`` (a log; a Spark
    timestamp as nanoseconds, as the readers take a datetime) or ``score`` or ``rank``
    (lists)."""
    import pyspark.sql.functions as F
    from pyspark.sql.types import DateType, TimestampNTZType, TimestampType

    source = spark_source(role)
    names = list(frame.columns)
    picked = [
        F.col(frame_role(names, columns, "user", USER_NAMES, source)).alias("user"),
        F.col(frame_role(names, columns, "item", ITEM_NAMES, source)).alias("item"),
    ]  # fmt: skip
    if lists:
        score = frame_column(names, columns, "score", SCORE_NAMES, source)
        rank = None if score is not None else frame_column(names, columns, "rank", RANK_NAMES,
                                                           source)  # fmt: skip
        picked += [F.col(c).alias(n) for c, n in ((score, "score"), (rank, "rank")) if c]
        return frame.select(*picked)
    rating = frame_column(names, columns, "rating", RATING_NAMES, source)
    time = frame_column(names, columns, "timestamp", TIME_NAMES, source)
    if rating is not None:
        picked.append(F.col(rating).alias("rating"))
    if time is not None:
        kind = frame.schema[time].dataType
        stamp = F.col(time)
        if isinstance(kind, TimestampType | TimestampNTZType | DateType):
            stamp = F.unix_micros(stamp.cast("timestamp")) * 1000
        picked.append(stamp.alias("timestamp"))
    return frame.select(*picked)


def _parted(source: Any) -> bool:
    """Whether an input is partitioned by user: a `Partitioned` dataset or a Spark
    DataFrame (the others are read whole on the client)."""
    return isinstance(source, Partitioned) or is_spark_frame(source)


def _first_pass(engine: Engine, logs: dict[str, Any], columns: Mapping[str, str] | None,
                partitions: int | None) -> dict[str, list[dict]]:  # fmt: skip
    """`recsys_items` of each part of each partitioned log (by role): a task per file of a
    `Partitioned` dataset; one Spark job over Spark DataFrames."""
    if not logs:
        return {}
    frames = {role: log for role, log in logs.items() if is_spark_frame(log)}
    first = {
        role: engine.run([(recsys_items, f, columns) for f in log.files().values()])
        for role, log in logs.items() if role not in frames
    }  # fmt: skip
    if frames:
        found = engine.grouped(  # type: ignore[attr-defined]
            {role: _spark_frame(f, role, False, columns) for role, f in frames.items()},
            "user", _items_of, partitions=partitions,
        )  # fmt: skip
        first.update({role: [part[role] for part in found if role in part] for role in frames})
    return first


def _items_of(partition: int, tables: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """`recsys_items` of a Spark partition's rows of each log that has some."""
    return {
        role: read_part(functools.partial(recsys_items, t, None), t, "<interactions frame>",
                        spark_source(role), [])  # (its warnings: told by the second pass)
        for role, t in tables.items() if t.num_rows
    }  # fmt: skip


def _spark_recsys(partition: int, tables: dict[str, Any], whole: dict[str, Any],
                  runs: int, spec: RecsysSpec, duplicates: str,
                  shared: Shared | None) -> Any:  # fmt: skip
    """The task of one Spark partition: its rows of each Spark DataFrame (``tables``, by
    role; the lists as ``run0``, ``run1``...) and the inputs read whole (``whole``), then
    `recsys_files` as for the files of a `Partitioned` dataset."""
    sides: dict[str, Side] = {}
    for role in ("test", "train", "baseline"):
        if role in tables and (tables[role].num_rows or role == "baseline"):
            sides[role] = ({str(partition): tables[role]} if tables[role].num_rows else {}, None)
        elif role in tables:  # none of its rows here
            sides[role] = (None, _empty_log())
        elif role in whole:
            sides[role] = (None, whole[role])
    files = [tables[f"run{i}"] if tables[f"run{i}"].num_rows else None for i in range(runs)]
    return recsys_files(str(partition), sides, files, spec, None, duplicates, shared)


def _empty_log() -> Any:
    none = np.zeros(0, dtype=np.int32)
    return interactions_table(Interactions(Vocabulary(), Vocabulary(), none, none, None, None))


def _recsys_in_place(
    engine: Engine, test: Any, runs: list[tuple[str, Any]], measures: Any,
    spec: RecsysSpec, columns: Mapping[str, str] | None, duplicates: str, *, train: Any,
    popularity: Any, baseline: Any, features: Any, catalog: Any, partitions: int | None = None,
) -> list[SystemEvaluation]:  # fmt: skip
    """Lists partitioned by user — `Partitioned` datasets read by the workers, or Spark
    DataFrames partitioned by Spark — against the other inputs: partitioned alike (the
    files of `Partitioned` datasets matched by path; Spark DataFrames), or read on the
    client and sent whole."""
    spark = is_spark_frame(runs[0][1])
    for role, given in (("test", test), ("train", train), ("popularity", popularity),
                        ("baseline", baseline)):  # fmt: skip
        if _parted(given) and is_spark_frame(given) != spark:
            kinds = ("a Partitioned dataset", "Partitioned datasets")
            if spark:
                kinds = ("a Spark DataFrame", "Spark DataFrames")
            raise UsageError(
                f"the lists are {kinds[1]}: the {role} input must be {kinds[0]} too, or an "
                "input read whole"
            )  # fmt: skip
    if _parted(train) and not _parted(test):
        raise UsageError(
            "a Spark DataFrame training log needs a Spark DataFrame test log" if spark else
            "a Partitioned training log needs a Partitioned test log, its files matched by "
            "path (each holding the same users)"
        )  # fmt: skip
    items = Vocabulary()

    def whole_log(source: Any, latest: bool = True) -> Interactions:
        read = read_interactions(source, items=items, columns=columns)
        return keep_latest(read) if latest else read

    # the inputs read on the client, in the local path's order
    test_whole = None if _parted(test) else whole_log(test)
    train_whole = None if train is None or _parted(train) else whole_log(train)
    pop_given = popularity is not None
    pop_whole = None
    if pop_given and not _parted(popularity):
        pop_whole = whole_log(popularity, latest=False)
    elif not pop_given and train_whole is not None:
        pop_whole = train_whole
    base_whole = None
    if baseline is not None and not _parted(baseline):
        base_whole = read_recommendations(baseline, items=items, name="baseline",
                                          columns=columns, duplicates=duplicates)  # fmt: skip
    item_features = None
    if features is not None:
        item_features = read_item_features(features, items=items, columns=columns)
    pop_parted = None
    if pop_given and _parted(popularity):
        pop_parted = popularity
    elif not pop_given and _parted(train):
        pop_parted = train

    def flags(ratings: bool) -> list[Request]:
        return requests_for(
            measures, spec.k, ratings=ratings, train=train is not None,
            popularity=pop_given or train is not None, baseline=baseline is not None,
            features=features is not None, seen=spec.seen, relevance=spec.relevance,
            threshold=spec.threshold,
        )  # fmt: skip

    requests = flags(True)
    need_catalog = any(
        r.measure.kind == "catalog" or "popularity" in r.measure.needs  # type: ignore[attr-defined]
        or ("baseline" in r.measure.needs and baseline is None)  # type: ignore[attr-defined]
        for r in requests
    )  # fmt: skip
    need_ratings = spec.relevance == "graded" or any(
        "ratings" in r.measure.needs for r in requests  # type: ignore[attr-defined]
    )
    # the first pass: what the partitioned logs say of the catalog, popularity and ratings
    passes = {
        "test": test if _parted(test) and (need_catalog or need_ratings) else None,
        "train": train if _parted(train) and need_catalog else None,
        "popularity": pop_parted if need_catalog else None,
    }  # fmt: skip
    first = _first_pass(engine, {r: p for r, p in passes.items() if p is not None}, columns,
                        partitions)  # fmt: skip
    if test_whole is not None:
        ratings = test_whole.rating is not None
    else:
        ratings = any(part["ratings"] for part in first.get("test", []))
    if not ratings:
        requests = flags(False)  # (the checks of the measures that need ratings)
    shared = None
    if need_catalog or item_features is not None:
        shared = _in_place_shared(
            items, first, test_whole, train_whole, pop_whole, item_features, catalog,
            need_catalog,
        )  # fmt: skip

    def source(given: Any, role: str) -> str:
        if is_spark_frame(given):
            return spark_source(role)
        return str(getattr(given, "path", given))

    spec = dataclasses.replace(
        spec, run_names=[n for n, _ in runs], run_sources=[source(p, n) for n, p in runs],
        test_source=source(test, "test"), requests=requests,
        train_source=source(train, "train"), baseline_source=source(baseline, "baseline"),
    )  # fmt: skip
    whole: dict[str, Any] = {}  # the inputs read on the client, held for every task
    test_table = None
    if test_whole is not None:
        spec = dataclasses.replace(spec, test_source=test_whole.source)
        test_table = interactions_table(test_whole)
        whole["test"] = engine.held(test_table)
    train_table = None
    if train_whole is not None:
        spec = dataclasses.replace(spec, train_source=train_whole.source)
        train_table = interactions_table(train_whole)
        whole["train"] = engine.held(train_table)
    if base_whole is not None:
        spec = dataclasses.replace(spec, baseline_source=base_whole.source)
        whole["baseline"] = engine.held(runs_table([base_whole], keys=RECSYS_KEYS))
    everyone = None if shared is None else engine.held(shared)
    if spark:
        frames = {f"run{i}": _spark_frame(p, n, True, columns) for i, (n, p) in enumerate(runs)}
        for role, given in (("test", test), ("train", train), ("baseline", baseline)):
            if is_spark_frame(given):
                frames[role] = _spark_frame(given, role, role == "baseline", columns)
        outputs = engine.grouped(  # type: ignore[attr-defined]
            frames, "user", _spark_recsys, whole, len(runs), spec, duplicates, everyone,
            partitions=partitions,
        )  # fmt: skip
    else:
        listed = [p.files() for _, p in runs]
        sides: dict[str, Side] = {
            role: (None, whole[role]) if role in whole else (given.files(), None)
            for role, given in (("test", test), ("train", train), ("baseline", baseline))
            if given is not None
        }  # fmt: skip
        keys = sorted(set().union(*listed, sides["test"][0] or {}))
        tasks = [
            (recsys_files, k, sides, [files.get(k) for files in listed], spec, columns,
             duplicates, everyone)
            for k in keys
        ]  # fmt: skip
        outputs = engine.run(tasks)
        if isinstance(train, Partitioned) and isinstance(test, Partitioned):
            _check_apart(outputs, train, test)
    if test_whole is not None and test_table is not None:
        # the test users no partition recommends to: evaluated with no list
        seen = {u for t in outputs for u in metadata(t)["users"]}
        rows = np.flatnonzero(~np.isin(
            test_whole.user,
            np.array(test_whole.users.lookup_many(sorted(seen)), dtype=np.int64),
        ))  # fmt: skip
        if len(rows):
            left = sorted(set(test_whole.users.strings_of(np.unique(test_whole.user[rows]))))
            extra = None if train_table is None else _rows_of(train_table, left)
            base = None if base_whole is None and baseline is None else empty_runs(RECSYS_KEYS)
            outputs += engine.run(
                [(recsys_kernel, interactions_table(test_whole, rows), empty_runs(RECSYS_KEYS),
                  spec, extra, base, everyone)],
            )  # fmt: skip
    return recsys_results(outputs, spec)


def _in_place_shared(items: Vocabulary, first: dict[str, list[dict]], test: Interactions | None,
                     train: Interactions | None, popularity: Interactions | None,
                     features: ItemFeatures | None, catalog: Any,
                     need_catalog: bool) -> Shared:  # fmt: skip
    """`Shared` from the logs read whole and the first pass over the `Partitioned` ones."""
    if not need_catalog:
        ids: list[str] = []
    elif catalog is not None:
        ids = sorted({str(i) for i in catalog})
        if not ids:
            raise InputError("catalog is empty")
    else:
        found: set[str] = set()
        for log in (test, train):
            if log is not None:
                found.update(log.items.strings_of(np.unique(log.item).astype(np.int32)))
        for role in ("test", "train"):
            for part in first.get(role, []):
                found.update(part["items"])
        ids = sorted(found)
    shared = Shared(ids)
    counts: dict[str, int] = {}
    users = 0
    if popularity is not None:
        counted = Popularity.of(popularity, len(popularity.items))
        names, popular = counted.by_id(popularity.items)
        counts = dict(zip(names, popular.tolist(), strict=True))
        users = counted.users
    elif "popularity" in first:
        for part in first["popularity"]:
            for item, n in zip(part["popular"][0], part["popular"][1].tolist(), strict=True):
                counts[item] = counts.get(item, 0) + n
            users += part["users"]
    if popularity is not None or "popularity" in first:
        names = sorted(counts)
        shared = dataclasses.replace(
            shared, popular_items=names,
            popular_counts=np.array([counts[n] for n in names], dtype=np.int64),
            popularity_users=users,
        )  # fmt: skip
    if features is not None:
        shared = dataclasses.replace(
            shared, feature_items=items.strings_of(features.item), features=features
        )
    return shared
