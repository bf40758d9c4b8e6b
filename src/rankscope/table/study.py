"""A meta-evaluation study over real runs: the `rankscope meta` command and its API.

For a set of measures (metrics such as AP or nDCG, and preference methods such as RPP) over
the same runs and judgments it computes what Diaz & Ferraro (SIGIR 2022) report: Kendall's τ
between the orderings of runs (their Table 2), the discriminative power under the t-test with
Bonferroni correction and the randomized Tukey HSD test (Tables 3–4), and robustness to
incomplete data — fewer queries, or fewer judgments, removed uniformly at random or by pool
depth (Figures 6–7).  Metrics order runs by their mean; preferences by MC4 aggregation.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import threading
import warnings
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError, RankscopeWarning, UsageError, warn
from ..judge import (
    UNJUDGED,
    JoinOptions,
    JoinReport,
    Judged,
    RelevanceTable,
    RelevantDocs,
    judged_positions,
    order_run,
    relevance_table,
    relevant_docs,
    warn_unranked,
)
from ..judge.join import output_order
from ..measures import Request, compute_requests, needs_rankings, parse_measures
from ..model import Qrels, Run, check_distinct_names, release_memory
from ..model.frames import NamedTables, plain
from ..preference.aggregate import mc4_positions, query_positions
from ..read.cuts import BLOCK_BYTES
from ..read.runs import no_common_query, run_names
from ..stats.meta import POWER_TESTS, discriminative_powers, kendall_tau, kendall_taus
from ..stats.rbo import rbo
from .compare import at_least
from .evaluation import evaluate_judged, nothing_judged, nothing_judged_warning
from .formats import FORMATS, evaluate_runs
from .many import RunToRead, _renamed, _text_bytes, in_order

#: A judged run's documents, which `Joins` does not keep (the masks need none).
_NO_DOCS = np.zeros(0, dtype=np.int32)
#: `Joins.all_joined`'s judged entries, held apart (`Joins.all_positions`, `all_grades`).
_NO_ENTRIES = np.zeros(0, dtype=np.int64)


def _narrow(values: np.ndarray) -> np.ndarray:
    """Integers ``values`` as int32 when they all fit (half the memory), else as int64."""
    info = np.iinfo(np.int32)
    if not len(values) or (info.min <= int(values.min()) and int(values.max()) <= info.max):
        return values.astype(np.int32)
    return values.astype(np.int64)


@dataclass
class MeasureData:
    """Per-query data of one measure over the runs, and the runs' overall scores."""

    name: str
    preference: bool
    data: np.ndarray  # metric: runs × queries; preference: queries × runs × runs
    query_ids: list[str]

    def per_query(self) -> np.ndarray:
        """Each run's score on each query (runs × queries): the measure's value, or for a
        preference method the run's mean preference over the other runs on the query."""
        if not self.preference:
            return self.data
        n = self.data.shape[1]
        return (self.data.sum(axis=2) / max(n - 1, 1)).T

    def scores(self, queries: np.ndarray | None = None) -> np.ndarray:
        """Overall score of each run (from a subset of query indices if given)."""
        if not self.preference:
            d = self.data if queries is None else self.data[:, queries]
            return d.mean(axis=1)
        positions = self.positions if queries is None else self.positions[queries]
        return mc4_scores(positions, self.data.shape[1])

    @functools.cached_property
    def positions(self) -> np.ndarray:
        """A preference method's order of the runs on each query (`query_positions`, the
        runs named as their indices), computed once: `scores` on any queries aggregates
        their rows (each query's order is its own), without copying their preferences."""
        return query_positions(self.data, _index_names(self.data.shape[1]))


def _index_names(n: int) -> list[str]:
    """Names of ``n`` runs sorted as their indices (what `MeasureData.scores` orders by)."""
    return [f"{i:06d}" for i in range(n)]


def mc4_scores(positions: np.ndarray, n: int) -> np.ndarray:
    """The scores of ``n`` runs from their orderings on each query (`query_positions` of
    the preferences with `_index_names`, queries × runs): MC4's ordering (reference
    aggregator) as the position from the bottom (the chain mass can tie at 0 for many
    runs); NaN without a query to order the runs by (as a metric's mean)."""
    if not len(positions):
        return np.full(n, np.nan)
    names = _index_names(n)
    order, _ = mc4_positions(positions, names, reference=True)
    score = np.empty(n)
    score[[int(name) for name in order]] = np.arange(n, 0, -1, dtype=np.float64)
    return score


def measure_data(
    qrels: Qrels, runs: Sequence[Run], measures: Sequence[str], **options: Any
) -> list[MeasureData]:
    """The per-query data of each measure for ``runs`` (metrics and preference methods, both
    named as in the measure registry), in the order of ``measures``."""
    requests = parse_measures(measures)
    metrics = [r for r in requests if r.measure.family != "preference"]
    preferences = [r for r in requests if r.measure.family == "preference"]
    data: dict[Request, MeasureData] = {}
    if metrics:
        options_ = JoinOptions(**options)
        results = evaluate_runs(qrels, list(runs), metrics, FORMATS["qrels"], options_)
        data.update(_metric_data(results[0].requests, [(r.query_ids, r.values) for r in results]))
    if preferences:
        table = relevance_table(
            qrels, list(runs), relevance_level=options.get("relevance_level", 1),
            keep_rankings=needs_rankings(preferences),
        )  # fmt: skip
        for req, result in zip(preferences, compute_requests(table, preferences), strict=True):
            data[req] = MeasureData(req.label, True, result.prefs, result.query_ids)
    return [data[r] for r in requests]


def _metric_data(
    requests: Sequence[Request], results: Sequence[tuple[list[str], Sequence[np.ndarray]]]
) -> dict[Request, MeasureData]:
    """Each of ``requests``' runs × queries values from the runs' evaluations (per run: its
    query ids and one array of values per request), on the first run's queries (0 where a
    run has no value)."""
    data = {}
    queries = results[0][0]
    # per run: where each of the first run's queries is among its own (None: the same list)
    at: list[np.ndarray | None] = []
    for ids, _ in results:
        if ids == queries:
            at.append(None)
        else:
            where = {q: i for i, q in enumerate(ids)}
            at.append(np.array([where.get(q, -1) for q in queries], dtype=np.int64))
    for k, req in enumerate(requests):
        values = np.zeros((len(results), len(queries)), dtype=np.float64)
        for row, ((_, computed), columns) in enumerate(zip(results, at, strict=True)):
            value = np.asarray(computed[k], dtype=np.float64)
            if columns is None:
                values[row] = value
            else:
                found = columns >= 0
                values[row, found] = value[columns[found]]
        data[req] = MeasureData(req.label, False, values, queries)
    return data


@dataclass(frozen=True)
class RunFiles:
    """Runs still to be read (the front door's sources: `rankscope.read.sources.run_sources`)
    that a study reads one at a time, each into vocabularies of its own (the judgments' ids
    under their codes, the run's others dropped with it), keeping of each only what the
    study needs (`Joins`): memory flat in the number of runs.  They are read and named as
    `rankscope.read.sources.resolve_runs` reads and names them (``duplicates``, ``order``,
    ``names``; distinct for a meta-evaluation); ``check_common``: a run sharing no query with
    the judgments is an error (`rankscope.read.runs.check_common_queries`'s)."""

    sources: Sequence[RunToRead]
    duplicates: str = "error"
    order: str = "score"
    names: str = "file"
    check_common: bool = False

    def each(self, qrels: Qrels) -> Iterator[Run]:
        """The runs, read one at a time (their reading warnings told as they are read)."""
        for source in self.sources:
            length = _text_bytes(source)
            docs = qrels.docs.scoped(room=length // 32 if length <= BLOCK_BYTES else 0)
            yield source.read(qrels.queries.scoped(), docs, self.duplicates, self.order)
            # what the run's reading and joining freed, between what is kept of the runs
            # before it, and the reader's buffers (peak at 20 / 100 runs, metrics only:
            # 149 / 183 MB kept, 152 / 169 MB freed run by run)
            release_memory()

    def whole(self, qrels: Qrels) -> list[Run]:
        """Every run read (held whole), named and checked as `final_names` says."""
        runs = list(self.each(qrels))
        read = [_Read(r.name, r.source, self.ranked(r), []) for r in runs]
        names = self.final_names(qrels, read)
        return [
            r if r.name == n else dataclasses.replace(r, name=n)
            for r, n in zip(runs, names, strict=True)
        ]

    def ranked(self, run: Run) -> list[str]:
        """The queries ``run`` ranks, for `final_names`' check (none kept without it)."""
        if not self.check_common:
            return []
        return run.queries.strings_of(np.flatnonzero(np.bincount(run.query)))

    def final_names(self, qrels: Qrels, read: Sequence[_Read]) -> list[str]:
        """The names of the runs ``read``, as `resolve_runs` names them, and the error of
        the first that shares no query with the judgments (``check_common``)."""
        names = run_names([(r.name, r.source) for r in read], self.names, DISTINCT_FOR)
        if self.check_common:
            for name, r in zip(names, read, strict=True):
                error = no_common_query(qrels, name, r.source, r.ranked)
                if error is not None:
                    raise error
        return names


#: What a meta-evaluation's runs must be distinct for (`resolve_runs`' ``distinct_for``).
DISTINCT_FOR = "meta-evaluation"


@dataclass
class _Read:
    """What `Joins` keeps of a run read: its name and source as read, the queries it ranks
    (for `RunFiles.final_names`' check), its join's warnings (told once the runs are
    named, after every run is read, as when the runs were read all at once) and, for the
    preference methods, which judged queries it did not rank."""

    name: str
    source: str
    ranked: list[str]
    told: list[Warning]
    unranked: tuple[list[str], np.ndarray] | None = None


class Joins:
    """The runs joined once with the whole judgments, so that `measure_data` on a subset of
    the judgments (what `drop_judgments` keeps) masks these joins instead of joining every
    run again: a dropped judgment turns its retrieved document into one the judgments do
    not mention, and the counts of judged documents are taken from the subset.  The values
    are those `measure_data` gives on the subset, number for number.

    The runs are taken one at a time and only what the masks need is kept of each: its
    join's judged entries (positions, grades, query and document keys) without the run's
    documents, and where it ranks the relevant documents (the preference methods'
    `rankscope.judge.RelevantDocs` positions), so that ``runs`` may be `RunFiles.each`,
    each run read, joined and dropped.  The join warnings of every run are told after the
    last is read, in the runs' order, then the preference methods' (what reading every run
    first, then joining them, then building the relevance table told, in that order).

    It serves the ad hoc judgments `drop_judgments` reduces (every query keeps a judgment)
    and the default join; `Joins.of` says None where masking would not reproduce a join
    (diversity judgments, ``judged_only`` measures), and the study joins again there.
    Methods that replay whole rankings (offline interleaving) keep the runs whole.
    ``files``: the runs' `RunFiles` (their final names, the check of common queries);
    ``retrieved``: also count how many runs retrieve each judgment (`retrieved_by`).
    """

    def __init__(
        self,
        qrels: Qrels,
        runs: Iterable[Run],
        requests: Sequence[Request],
        files: RunFiles | None = None,
        retrieved: bool = False,
    ) -> None:
        self.qrels, self.requests = qrels, list(requests)
        self.ndocs = np.int64(max(len(qrels.docs), 1))
        self.metrics = [r for r in requests if r.measure.family != "preference"]
        self.preferences = [r for r in requests if r.measure.family == "preference"]
        self.options = JoinOptions(ties=FORMATS["qrels"].ties)
        self.judged: list[Judged] = []  # per run, until `_join_all`: its judged entries
        self.entry_keys: list[np.ndarray] = []  # per run: (query, document) key per entry
        self.entry_slots: list[np.ndarray] = []  # per run: the query slot of each entry
        self.query_codes: list[np.ndarray] = []  # per run: the code of each of its queries
        self.retrieved = np.zeros(len(qrels), dtype=np.int64) if retrieved else None
        level = self.options.relevance_level
        whole = needs_rankings(self.preferences)
        whole_runs: list[Run] = []  # kept whole for the methods that replay rankings
        docs: RelevantDocs | None = None
        no_docs: InputError | None = None  # relevance_table's error, raised where it was
        if self.preferences and not whole:
            try:
                docs = relevant_docs(qrels, level)
            except InputError as error:
                no_docs = error
        positions: list[np.ndarray] = []
        read: list[_Read] = []
        for run in _read_ahead(runs):
            ranked = [] if files is None else files.ranked(run)
            told = self._join(run) if self.metrics else []
            kept = _Read(run.name, run.source, ranked, told)
            if whole:
                whole_runs.append(run)
            elif docs is not None:
                found, judged = judged_positions(docs, run)
                positions.append(found)
                kept.unranked = (judged.query_ids, judged.missing)
            if self.retrieved is not None:
                self.retrieved += retrieved_by(qrels, [run])
            read.append(kept)
        if read:
            del run  # (the last run read: not held while the joins are put together)
        self.names = [r.name for r in read] if files is None else files.final_names(qrels, read)
        if self.metrics:
            self._join_all()
        for r, name in zip(read, self.names, strict=True):
            for message in r.told:
                warnings.warn(_renamed(message, r.name, name), stacklevel=2)
        self.table: RelevanceTable | None = None
        if self.preferences:
            if whole:
                self.table = relevance_table(qrels, whole_runs, relevance_level=level,
                                             keep_rankings=True)  # fmt: skip
            else:
                if len(read) < 2:  # relevance_table's checks, in its order
                    raise UsageError("preferences compare rankings: give at least two runs")
                check_distinct_names(
                    [dataclasses.replace(r, name=n) for r, n in zip(read, self.names, strict=True)],
                    "preferences",
                )
                if no_docs is not None:
                    raise no_docs
                assert docs is not None
                for r, name in zip(read, self.names, strict=True):
                    assert r.unranked is not None
                    warn_unranked(docs, name, *r.unranked)
                self.table = docs.table(self.names, positions)
            relevant = qrels.grade >= level
            rq, rd = qrels.query[relevant], qrels.doc[relevant]
            _, _, self.table_slot = output_order(qrels, np.unique(rq))
            qs = self.table_slot[rq]
            by = np.lexsort((rd, qs))
            self.table_keys = qs[by].astype(np.int64) * self.ndocs + rd[by]
            self.table_starts = np.searchsorted(qs[by], np.arange(self.table.num_queries + 1))
        if files is not None:
            # what reading and joining the runs one at a time freed (the reader's buffers
            # kept for a next run, the freed memory between what is kept of each), given
            # back before the study makes its tensors: 138 -> 69 MB after 100 runs
            release_memory()

    def _join(self, run: Run) -> list[Warning]:
        """Join ``run`` with the judgments and keep its judged entries, not its documents;
        its warnings (what `evaluate_run` says), to be told once every run is read."""
        qrels = self.qrels
        report = JoinReport()
        judged = self.options.judge(qrels, run, report)
        lines = report.summary(run.name, self.options.complete)
        nothing = nothing_judged_warning(run.name, *nothing_judged(judged, run), qrels)
        told: list[Warning] = [
            RankscopeWarning(line) for line in [*lines, *([nothing] if nothing else [])]
        ]
        codes = qrels.queries.lookup_many(judged.query_ids, missing=-1)
        pos = judged.judged_positions
        entry_slot = np.searchsorted(judged.offsets, pos, side="right") - 1
        docs = judged.doc[pos].astype(np.int64)
        if run.docs is not qrels.docs:
            docs = qrels.docs.translate(run.docs)[docs].astype(np.int64)
        # the masks need the judged entries only: not the run's documents (its vocabulary)
        self.judged.append(dataclasses.replace(judged, doc=_NO_DOCS, docs=None))
        self.entry_keys.append(codes[entry_slot].astype(np.int64) * self.ndocs + docs)
        self.entry_slots.append(entry_slot)
        self.query_codes.append(codes.astype(np.int64))
        return told

    def _join_all(self) -> None:
        """The runs' joins one after another, as one join whose queries are every run's
        (`all_joined`; ``starts``: each run's first query there), so that the metrics of a
        reduced set are computed `RUNS_AT_ONCE` runs at a time, whatever run each query is
        of (each query's values are its own, whatever the queries computed with it)."""
        judged = self.judged
        sizes = [j.num_queries for j in judged]
        self.starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        entries = np.concatenate(([0], np.cumsum([int(j.offsets[-1]) for j in judged])))
        offsets = [j.offsets[:-1] + shift for j, shift in zip(judged, entries, strict=False)]
        # what every reduced set masks, held for the whole study: each entry's position and
        # grade (`_masked` gives them back as int64) and query slot as int32 when they fit
        self.all_positions = _narrow(
            np.concatenate(
                [j.judged_positions + shift for j, shift in zip(judged, entries, strict=False)]
            )
        )
        self.all_grades = _narrow(np.concatenate([j.judged_grades for j in judged]))
        self.all_joined = dataclasses.replace(
            judged[0], query_ids=[q for j in judged for q in j.query_ids],
            offsets=np.concatenate([*offsets, entries[-1:]]).astype(np.int64),
            judged_positions=_NO_ENTRIES, judged_grades=_NO_ENTRIES,  # all_positions, ...
            missing=np.concatenate([j.missing for j in judged]),
        )  # fmt: skip
        self.all_keys = np.concatenate(self.entry_keys).astype(np.int64)
        self.all_slots = _narrow(
            np.concatenate(
                [slots + start for slots, start in zip(self.entry_slots, self.starts, strict=False)]
            )
        )
        self.all_codes = np.concatenate(self.query_codes).astype(np.int64)
        # of each run's join only its queries are needed now (`measure_data`)
        self.run_queries = [j.query_ids for j in judged]
        self.judged, self.entry_keys, self.entry_slots, self.query_codes = [], [], [], []

    @staticmethod
    def apply(qrels: Qrels, measures: Sequence[str]) -> bool:
        """Whether masking these joins reproduces joining again for ``measures`` (not with
        diversity judgments, nor for ``judged_only`` measures)."""
        return qrels.subtopic is None and not any(r.judged_only for r in parse_measures(measures))

    @staticmethod
    def stream(qrels: Qrels, measures: Sequence[str]) -> bool:
        """Whether a study of ``measures`` (with its robustness curves or without) may read
        the runs one at a time (`RunFiles`): the joins apply, and no method replays whole
        rankings."""
        return Joins.apply(qrels, measures) and not needs_rankings(
            [r for r in parse_measures(measures) if r.measure.family == "preference"]
        )

    @classmethod
    def of(
        cls,
        qrels: Qrels,
        runs: Iterable[Run],
        measures: Sequence[str],
        files: RunFiles | None = None,
        retrieved: bool = False,
    ) -> Joins | None:
        """The joins of ``runs`` for ``measures``, or None where masking does not apply."""
        if not cls.apply(qrels, measures):
            return None
        return cls(qrels, runs, parse_measures(measures), files, retrieved)

    def measure_data(self, reduced: Qrels, *, methods_last: bool = False) -> list[MeasureData]:
        """`measure_data` of the runs on ``reduced``, a subset of the rows of the judgments
        that keeps a judgment of every query (``methods_last``: `compute_requests`')."""
        data = self._metric_data(reduced)
        if self.preferences:
            table = self._masked_table(reduced)
            found = compute_requests(table, self.preferences, methods_last=methods_last)
            for req, result in zip(self.preferences, found, strict=True):
                data[req] = MeasureData(req.label, True, result.prefs, result.query_ids)
        return [data[r] for r in self.requests]

    def scores(self, reduced: Qrels) -> list[np.ndarray]:
        """`MeasureData.scores` of each of `measure_data`'s on ``reduced`` (what the curves
        of fewer judgments compare), the same numbers, without a preference tensor of every
        query: the preference methods are computed a block of queries at a time (each
        query's preferences are its own) and only the runs' order on each query kept, what
        MC4 aggregates (runs per query instead of runs² per query)."""
        found = {req: d.scores() for req, d in self._metric_data(reduced).items()}
        if self.preferences:
            table = self._masked_table(reduced)
            n = table.num_runs
            names = _index_names(n)
            # a block's tensors in `BLOCK_CELLS`; the methods replaying rankings at once
            step = max(1, BLOCK_CELLS // max(len(self.preferences) * n * n, 1))
            if needs_rankings(self.preferences):
                step = max(table.num_queries, 1)
            parts = [
                self._positions(_queries_of(table, slice(start, start + step)), names)
                for start in range(0, table.num_queries, step)
            ]
            for k, req in enumerate(self.preferences):
                at = (
                    np.concatenate([part[k] for part in parts])
                    if parts
                    else np.zeros((0, n), dtype=np.int64)
                )
                found[req] = mc4_scores(at, n)
        return [found[r] for r in self.requests]

    def _positions(self, table: RelevanceTable, names: list[str]) -> list[np.ndarray]:
        """Each preference method's order of the runs on each query of ``table``
        (`query_positions`); its preferences dropped on return."""
        computed = compute_requests(table, self.preferences)
        return [query_positions(result.prefs, names) for result in computed]

    def _metric_data(self, reduced: Qrels) -> dict[Request, MeasureData]:
        """The metrics' `MeasureData` on ``reduced``: the runs' masked joins evaluated
        `RUNS_AT_ONCE` runs at a time (each query's values are its own, whatever the
        queries evaluated with it), so that what a reduced set makes is bounded whatever
        the number of runs."""
        if not self.metrics:
            return {}
        keys = np.sort(reduced.query.astype(np.int64) * self.ndocs + reduced.doc)
        g = reduced.grade
        top = max(int(g.max(initial=0)), 0)
        ok = g >= 0
        # each query's judgments per grade in ``reduced``, by query code
        by_code = np.bincount(
            reduced.query[ok].astype(np.int64) * (top + 1) + g[ok],
            minlength=len(self.qrels.queries) * (top + 1),
        ).reshape(-1, top + 1)
        starts = self.starts.tolist()
        found: list[tuple[list[str], list[np.ndarray]]] = []
        for first in range(0, len(self.run_queries), RUNS_AT_ONCE):
            last = min(first + RUNS_AT_ONCE, len(self.run_queries))
            evaluated = evaluate_judged(
                self._masked(keys, by_code, starts[first], starts[last]), self.metrics
            )
            found += [
                (self.run_queries[i],
                 [v[starts[i] - starts[first] : starts[i + 1] - starts[first]]
                  for v in evaluated.values])
                for i in range(first, last)
            ]  # fmt: skip
        return _metric_data(self.metrics, found)

    def _masked(self, keys: np.ndarray, by_code: np.ndarray, first: int, last: int) -> Judged:
        """The queries ``first`` to ``last`` (excluded) of `all_joined` (some runs' queries)
        as `judge` joins them with the reduced judgments (sorted keys ``keys``; their counts
        of judgments per grade, by query code, ``by_code``): each query's judged documents
        counted by grade from them, the entries they drop made documents the judgments do
        not mention; ranks counted from the first query's."""
        judged = self.all_joined
        begin, end = int(judged.offsets[first]), int(judged.offsets[last])
        # the queries' entries: `all_positions` ascend (each run's ranks after the last's)
        a, b = np.searchsorted(self.all_positions, [begin, end])
        kept = _member(self.all_keys[a:b], keys)
        grades = self.all_grades[a:b][kept].astype(np.int64)
        nq = last - first
        kept_slot = self.all_slots[a:b][kept] - first
        offsets = judged.offsets[first : last + 1] - begin
        return dataclasses.replace(
            judged, query_ids=judged.query_ids[first:last], offsets=offsets,
            judged_positions=self.all_positions[a:b][kept].astype(np.int64) - begin,
            judged_grades=grades,
            rel_levels=by_code[self.all_codes[first:last]].astype(np.int64),
            num_nonpool=(np.diff(offsets) - np.bincount(kept_slot, minlength=nq)).astype(np.int64),
            num_unjudged=np.bincount(kept_slot[grades == UNJUDGED], minlength=nq).astype(np.int64),
            missing=judged.missing[first:last],
        )  # fmt: skip

    def _masked_table(self, reduced: Qrels) -> RelevanceTable:
        """The relevance table `relevance_table` builds from ``reduced``: the columns of the
        relevant documents it keeps, the queries left with one."""
        table = self.table
        assert table is not None
        relevant = reduced.grade >= table.relevance_level
        keys = np.sort(
            self.table_slot[reduced.query[relevant]].astype(np.int64) * self.ndocs
            + reduced.doc[relevant]
        )
        kept = _member(self.table_keys, keys)
        starts = self.table_starts
        columns = [kept[starts[q] : starts[q + 1]] for q in range(len(starts) - 1)]
        queries = [q for q, c in enumerate(columns) if c.any()]
        judgments: list[dict[int, int]] | None = None
        if table.judgments is not None:
            new_slot = np.full(len(self.table_slot) + 1, -1, dtype=np.int64)
            codes = np.flatnonzero(self.table_slot >= 0)
            at = np.full(table.num_queries, -1, dtype=np.int64)
            at[queries] = np.arange(len(queries))
            new_slot[codes] = at[self.table_slot[codes]]
            judgments = [{} for _ in queries]
            qslot = new_slot[reduced.query].tolist()
            for q, d, g in zip(qslot, reduced.doc.tolist(), reduced.grade.tolist(), strict=True):
                if q >= 0:
                    judgments[q][d] = g
        return RelevanceTable(
            table.run_names, [table.query_ids[q] for q in queries],
            [table.grades[q][columns[q]] for q in queries],
            [table.ranks[q][:, columns[q]] for q in queries], table.relevance_level, None,
            None if table.rankings is None else [table.rankings[q] for q in queries],
            judgments,
        )  # fmt: skip


def _queries_of(table: RelevanceTable, queries: slice) -> RelevanceTable:
    """``table`` on the queries ``queries`` (a slice of its queries) only."""
    def part(values: list[Any] | None) -> list[Any] | None:
        return None if values is None else values[queries]

    return dataclasses.replace(
        table, query_ids=table.query_ids[queries], grades=table.grades[queries],
        ranks=table.ranks[queries], subtopics=part(table.subtopics),
        rankings=part(table.rankings), judgments=part(table.judgments),
    )  # fmt: skip


def _member(keys: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """Which of ``keys`` are among ``sorted_keys`` (ascending)."""
    if not len(sorted_keys):
        return np.zeros(len(keys), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return sorted_keys[at] == keys


@dataclass(frozen=True)
class Study(NamedTables):
    """The results of `study` (a value: `study` builds the curves first, then the study)."""

    run_names: list[str]
    measures: list[str]
    tau: np.ndarray  # measures × measures, Kendall's τ_b between run orderings
    power: dict[str, dict[str, float]]  # measure -> test -> discriminative power
    # measures × measures: RBO_ext (persistence ``rbo_p``; tied runs a tie, variant b)
    # between the orderings of runs,
    # and the mean over the queries both measures score of the per-query Kendall's τ_b
    rbo: np.ndarray | None = None
    topic_tau: np.ndarray | None = None
    rbo_p: float = 0.9
    query_curves: dict[str, list[tuple[int, float, float]]] = field(default_factory=dict)
    judgment_curves: dict[str, dict[str, list[tuple[float, float, float]]]] = field(
        default_factory=dict
    )

    #: The two tables of a study, for ``table=``, and their columns: the measures'
    #: agreement pair by pair, and each measure's discriminative power.
    TABLES = {
        "pairs": ("measure_a", "measure_b", "kendall_tau", "rbo", "per_topic_kendall_tau"),
        "power": ("measure", *POWER_TESTS),
    }

    def records(self, table: str = "pairs") -> list[dict[str, Any]]:
        """The rows of ``table``: ``pairs``, one per (measure, measure) with Kendall's τ,
        RBO and the per-topic τ between their orderings of the runs (None when not
        computed); ``power``, one per measure with its discriminative power under each
        test of `POWER_TESTS`."""
        if self.check_table(table) == "power":
            return [{"measure": m, **self.power[m]} for m in self.measures]
        return [
            {"measure_a": a, "measure_b": b, "kendall_tau": float(self.tau[i, j]),
             "rbo": None if self.rbo is None else float(self.rbo[i, j]),
             "per_topic_kendall_tau": (
                 None if self.topic_tau is None else float(self.topic_tau[i, j])
             )}
            for i, a in enumerate(self.measures)
            for j, b in enumerate(self.measures)
        ]  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """Every result of the study, JSON-ready (what ``rankscope meta --format json``
        writes): τ, RBO and per-topic τ as measures × measures lists, the discriminative
        power and the robustness curves."""
        return {
            "runs": list(self.run_names),
            "measures": list(self.measures),
            "kendall_tau": plain(self.tau),
            "rbo_p": self.rbo_p,
            "rbo": plain(self.rbo),
            "per_topic_kendall_tau": plain(self.topic_tau),
            "discriminative_power": plain(self.power),
            "robustness_queries": plain(self.query_curves),
            "robustness_judgments": plain(self.judgment_curves),
        }


def study(
    qrels: Qrels,
    runs: Sequence[Run] | RunFiles,
    measures: Sequence[str],
    *,
    alpha: float = 0.05,
    permutations: int = 10_000,
    samples: int = 10,
    query_sizes: Sequence[int] | None = None,
    fractions: Sequence[float] = (0.1, 0.2, 0.3, 0.5, 0.7),
    policies: Sequence[str] = ("uniform", "pool"),
    seed: int = 0,
    robustness: bool = True,
    progress: Callable[[int, int], None] | None = None,
    rbo_p: float = 0.9,
    max_docs: int | None = None,
) -> Study:
    """τ table, discriminative power, and robustness curves for ``measures`` over ``runs``
    (`Run` objects, or `RunFiles` read one at a time where `Joins.stream` allows: memory
    flat in the number of runs; else read whole).

    ``max_docs`` (trec_eval's ``-M``): each ranking is cut to its top ``max_docs`` documents
    (in trec_eval's order) before anything else, so that every measure, every preference and
    the pool of the judgments kept by pool depth see the same documents.  ``progress(done,
    total)`` is called as the work
    advances (steps of comparable cost: the measures once, each measure's discriminative
    power and query curve, each reduced set of judgments)."""
    if not 0 < alpha < 1:
        raise UsageError(
            f"alpha must lie strictly between 0 and 1 (got {alpha!r})",
            cli=f"--alpha must lie strictly between 0 and 1 (got {alpha!r})",
        )
    at_least("permutations", permutations, 1)
    at_least("samples", samples, 1)
    at_least("seed", seed, 0)
    done, steps = 0, 1 + 2 * len(measures)  # a first guess, exact once the measures are known

    def advance() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, max(steps, done))

    if max_docs is not None:
        if isinstance(max_docs, bool) or not isinstance(max_docs, int) or max_docs < 1:
            raise UsageError(
                f"max_docs must be at least 1 (got {max_docs!r})",
                cli=f"-M must be at least 1 (got {max_docs!r})",
            )

    def cut(run: Run) -> Run:
        return run if max_docs is None else top_documents(run, max_docs)

    if isinstance(runs, RunFiles) and not Joins.stream(qrels, measures):
        runs = runs.whole(qrels)
    pool = robustness and "pool" in policies
    # the runs joined once: the curves mask these joins, and the whole judgments' data are
    # theirs with nothing masked (each run's join warnings said once)
    joins: Joins | None = None
    if isinstance(runs, RunFiles):  # read, joined and dropped one at a time
        joins = Joins(qrels, map(cut, runs.each(qrels)), parse_measures(measures), runs, pool)
        runs, run_names = [], joins.names
    else:
        runs = [cut(run) for run in runs]
        joins = Joins.of(qrels, runs, measures, retrieved=pool) if robustness else None
        run_names = [r.name for r in runs] if joins is None else joins.names
    # (the preference methods' tensors in the layout their randomized Tukey HSD reads: the
    # one copy of them, the largest data of the study)
    datas = (
        measure_data(qrels, runs, measures)
        if joins is None
        else joins.measure_data(qrels, methods_last=True)
    )
    # what making them freed (the metrics' evaluation of the joins, the preference
    # methods' per-query work), given back before the discriminative powers' buffers
    # (peak 233 -> 214 MB at 100 runs, measured before `RUNS_AT_ONCE`)
    release_memory()
    steps = 1 + len(datas)
    if robustness:
        steps += len(datas) + sum(
            len(fractions) * (samples if policy == "uniform" else 1) for policy in policies
        )
    advance()
    metrics = [d for d in datas if not d.preference]
    preferences = [d for d in datas if d.preference]
    overlap_powers = robustness and _powers_pass_checks(datas, len(run_names))
    found: dict[str, Any] = {}
    if overlap_powers:
        # the randomized tests (their own seeded draws; numpy and the compiled preference
        # kernel release the GIL while they count) on a second thread while this one
        # compares the orderings and draws the robustness curves: the same numbers
        background = threading.Thread(
            target=_powers_into, args=(found, metrics, preferences, alpha, permutations, seed),
            daemon=True,
        )  # fmt: skip
        background.start()
    names = [d.name for d in datas]
    full = [d.scores() for d in datas]
    tau = np.array([[kendall_tau(a, b) for b in full] for a in full])
    orderings = [_ordering(scores) for scores in full]
    # runs of equal score are a tie (Corsi & Urbano's variant b: an ordering with ties
    # against itself is 1)
    overlap = np.array([[rbo(a, b, rbo_p, ties="b").ext for b in orderings] for a in orderings])
    topic_tau = np.array([[_topic_tau(a, b) for b in datas] for a in datas])
    if not overlap_powers:
        found["power"] = _powers(metrics, preferences, alpha, permutations, seed)
        for _ in datas:
            advance()
    if not robustness:
        power = {d.name: found["power"][d.name] for d in datas}  # in the measures' order
        return Study(run_names, names, tau, power, overlap, topic_tau, rbo_p)
    query_curves: dict[str, list[tuple[int, float, float]]] = {}
    judgment_curves: dict[str, dict[str, list[tuple[float, float, float]]]] = {}
    rng = np.random.default_rng(seed)
    retrieved = (
        joins.retrieved if joins is not None else retrieved_by(qrels, runs) if pool else None
    )
    for d, reference in zip(datas, full, strict=True):
        nq = len(d.query_ids)
        sizes = query_sizes or sorted({max(2, int(nq * f)) for f in (0.1, 0.2, 0.4, 0.6, 0.8)})
        curve = []
        for size in sizes:
            taus = [
                kendall_tau(d.scores(np.sort(rng.choice(nq, size=size, replace=False))), reference)
                for _ in range(samples)
            ]
            curve.append((int(size), float(np.mean(taus)), float(np.std(taus))))
        query_curves[d.name] = curve
        advance()
    # the reduced judgments drawn in order (one generator); with the joins, the measures'
    # scores on them are computed two at a time on threads (numpy lets the GIL go while it
    # counts), taken back in order: the same numbers, each set's tensors dropped by its
    # thread (`Joins.scores`)
    draws = [
        (policy, point, fraction)
        for policy in policies
        for point, fraction in enumerate(fractions)
        for _ in range(samples if policy == "uniform" else 1)
    ]
    reduced_sets = (
        drop_judgments(qrels, runs, fraction, policy=policy, rng=rng, retrieved=retrieved)
        for policy, _, fraction in draws
    )
    reduced_scores: Generator[list[np.ndarray], None, None]
    if joins is None:
        reduced_scores = (
            [d.scores() for d in measure_data(reduced, runs, measures)] for reduced in reduced_sets
        )
    else:
        reduced_scores = _in_order(joins.scores, reduced_sets, REDUCED_THREADS)
    samples_of: dict[tuple[str, int, float], dict[str, list[float]]] = {}  # per point
    with contextlib.closing(reduced_scores):  # (closed here on an error: see `_in_order`)
        for draw, scores in zip(draws, reduced_scores, strict=True):
            # each set's arrays, freed by the threads that made them, would stay in their
            # arenas: the growth of the peak with the runs (287 -> 268 MB at 100 runs)
            release_memory()
            by_measure = samples_of.setdefault(draw, {name: [] for name in names})
            for name, one, reference in zip(names, scores, full, strict=True):
                by_measure[name].append(kendall_tau(one, reference))
            advance()
    undefined: list[str] = []
    for (policy, _, fraction), by_measure in samples_of.items():
        for name in names:
            sample = by_measure[name]
            point = (float(fraction), float(np.mean(sample)), float(np.std(sample)))
            judgment_curves.setdefault(name, {}).setdefault(policy, []).append(point)
            if np.isnan(point[1]):
                undefined.append(f"{name} at {fraction:g} ({policy})")
    if undefined:
        shown = ", ".join(undefined[:4]) + (f", ... {len(undefined) - 4} more"
                                            if len(undefined) > 4 else "")  # fmt: skip
        warn(
            f"robustness by judgments kept: tau is undefined (nan) for {shown}: the reduced "
            "judgments leave no query to order the runs by, or tie every run, in at least "
            "one sample"
        )
    if overlap_powers:
        background.join()
        if "error" in found:
            raise found["error"]
        for _ in datas:
            advance()
    power = {d.name: found["power"][d.name] for d in datas}  # in the measures' order
    return Study(
        run_names, names, tau, power, overlap, topic_tau, rbo_p, query_curves, judgment_curves
    )


#: How many preferences (queries × runs × runs cells, float64) `Joins.scores` computes at a
#: time on a reduced judgment set.
BLOCK_CELLS = 1 << 18

#: How many reduced judgment sets the study computes at a time (threads).
REDUCED_THREADS = 2

#: How many runs' masked joins `Joins` evaluates at a time on a reduced judgment set (the
#: entries of 16 runs of 250 queries × 1,000: ~70k, a few MB of arrays per set in flight).
RUNS_AT_ONCE = 16


def _read_ahead(runs: Iterable[Run]) -> Iterator[Run]:
    """``runs``, each taken (read, when they are `RunFiles.each`) by another thread while
    this one works on the one before: the compiled reader lets the GIL go while it parses.
    Taken in order by one thread, so their reading warnings are told in order; an error
    is raised at its run's turn."""
    iterator = iter(runs)
    with ThreadPoolExecutor(1) as reader:
        coming = reader.submit(next, iterator, None)
        while (run := coming.result()) is not None:
            coming = reader.submit(next, iterator, None)
            yield run


def _in_order(
    function: Callable[[Any], Any], items: Iterable[Any], workers: int
) -> Generator[Any, None, None]:
    """``function`` of each of ``items`` in their order, computed by ``workers`` threads, at
    most ``workers`` ahead of the caller (`rankscope.table.many.in_order`).  A caller that
    may stop early closes it (its pool shut down in the caller's thread: finalised by the
    collector, it could be in one of the pool's threads, which cannot join itself)."""
    with ThreadPoolExecutor(workers) as pool:
        yield from in_order(pool, function, items, workers)


def _powers(
    metrics: Sequence[MeasureData],
    preferences: Sequence[MeasureData],
    alpha: float,
    permutations: int,
    seed: int,
) -> dict[str, dict[str, float]]:
    """The discriminative power of each measure under each of `POWER_TESTS`: the metrics,
    then the preference methods (each group tested together, one set of permutations)."""
    found: dict[str, dict[str, float]] = {}
    for group in (metrics, preferences):
        by_test = {
            test: discriminative_powers(
                [d.data for d in group], test=test, alpha=alpha, permutations=permutations,
                seed=seed,
            ) if group else []
            for test in POWER_TESTS
        }  # fmt: skip
        for k, d in enumerate(group):
            found[d.name] = {test: by_test[test][k] for test in POWER_TESTS}
    return found


def _powers_pass_checks(datas: Sequence[MeasureData], runs: int) -> bool:
    """Whether `_powers` passes the checks of its tests (at least 2 runs and 2 queries,
    finite values), so that it may run beside the robustness curves without an error of
    its own coming after theirs (it comes first when computed first)."""
    return runs >= 2 and all(
        (d.data.shape[0] if d.preference else d.data.shape[1]) >= 2
        and bool(np.isfinite(d.data).all())
        for d in datas
    )


def _powers_into(found: dict[str, Any], *args: Any) -> None:
    """`_powers` on a thread: its result (``power``) or its exception (``error``), for the
    thread that waits for it to return or raise."""
    try:
        found["power"] = _powers(*args)
    except BaseException as error:  # raised again by the waiting thread
        found["error"] = error


def top_documents(run: Run, depth: int) -> Run:
    """``run`` with only the first ``depth`` documents of each query's ranking (ranked by
    score, equal scores by document id descending, as trec_eval ranks them)."""
    order = order_run(run)
    query = run.query[order]
    first = np.flatnonzero(np.concatenate(([True], query[1:] != query[:-1])))
    position = np.arange(len(order)) - np.repeat(first, np.diff(np.append(first, len(order))))
    keep = np.sort(order[position < depth])
    return dataclasses.replace(
        run, query=run.query[keep], doc=run.doc[keep], score=run.score[keep],
        line=None if run.line is None else run.line[keep],
    )  # fmt: skip


def _ordering(scores: np.ndarray) -> list[list[int]]:
    """The runs (as indices) best first, runs of equal score a tied group."""
    levels = np.unique(scores)[::-1]
    return [np.flatnonzero(scores == level).tolist() for level in levels]


def _topic_tau(a: MeasureData, b: MeasureData) -> float:
    """Mean over the queries both measures score of Kendall's τ_b between their per-query
    orderings of the runs; queries where either ordering ties every run (τ undefined) are
    left out; NaN when none is left."""
    shared = sorted(set(a.query_ids) & set(b.query_ids))
    if not shared:
        return float("nan")
    at_a = {q: i for i, q in enumerate(a.query_ids)}
    at_b = {q: i for i, q in enumerate(b.query_ids)}
    x = a.per_query()[:, [at_a[q] for q in shared]]
    y = b.per_query()[:, [at_b[q] for q in shared]]
    taus = kendall_taus(x, y).tolist()
    defined = [t for t in taus if not np.isnan(t)]
    return float(np.mean(defined)) if defined else float("nan")


def drop_judgments(
    qrels: Qrels,
    runs: Sequence[Run],
    keep: float,
    *,
    policy: str = "uniform",
    rng: np.random.Generator | None = None,
    retrieved: np.ndarray | None = None,
) -> Qrels:
    """Judgments with only a fraction ``keep`` of each query's judged documents (at least one).

    ``uniform``: a random subset.  ``pool``: the documents that the most runs retrieved are
    kept, those that fewest runs retrieved go first (ties at random), as a shallower pool
    would judge them.  With diversity judgments (``qid subtopic docno grade``) a document is
    kept or dropped with all its subtopic judgments: a judgment is a document read once
    against every subtopic of the query, as the TREC Web track's assessors judged them.
    ``retrieved``: `retrieved_by` of the judgments and ``runs``, when several sets are drawn
    from the same runs (counted once).
    """
    if not 0 < keep <= 1:
        raise ValueError("keep must be in (0, 1]")
    rng = np.random.default_rng(0) if rng is None else rng
    if policy == "pool" and retrieved is None:
        retrieved = retrieved_by(qrels, runs)
    if qrels.subtopic is None:
        kept = _kept_judgments(qrels, keep, policy, rng, retrieved)
    else:
        documents = qrels.collapse()  # one row per judged (query, document)
        chosen = _document_keys(documents)[
            _kept_judgments(documents, keep, policy, rng, retrieved)
        ]
        kept = np.flatnonzero(np.isin(_document_keys(qrels), chosen))
    return Qrels(
        qrels.queries, qrels.docs, qrels.query[kept], qrels.doc[kept], qrels.grade[kept],
        source=f"{qrels.source} ({policy} {keep:g})",
        subtopic=None if qrels.subtopic is None else qrels.subtopic[kept],
    )  # fmt: skip


def _document_keys(qrels: Qrels) -> np.ndarray:
    """One integer per row naming its (query, document)."""
    return qrels.query.astype(np.int64) * np.int64(max(len(qrels.docs), 1)) + qrels.doc


def retrieved_by(qrels: Qrels, runs: Sequence[Run]) -> np.ndarray:
    """How many of ``runs`` retrieved each judged document: one count per row of the
    judgments (with diversity judgments, per judged (query, document), in the order of
    ``qrels.collapse()``), what `drop_judgments`' ``pool`` policy ranks them by."""
    if qrels.subtopic is not None:
        qrels = qrels.collapse()
    frequency = np.zeros(len(qrels), dtype=np.int64)
    ndocs = np.int64(max(len(qrels.docs), 1))
    qkeys = _document_keys(qrels)
    order = np.argsort(qkeys)
    ordered = qkeys[order]
    for run in runs:
        # runs read with the judgments' vocabularies (as the CLI reads them) need no map
        rq = run.query if run.queries is qrels.queries else (
            qrels.queries.translate(run.queries)[run.query]
        )
        rd = run.doc if run.docs is qrels.docs else qrels.docs.translate(run.docs)[run.doc]
        ok = (rq >= 0) & (rd >= 0)
        rkeys = rq[ok].astype(np.int64) * ndocs + rd[ok]
        pos = np.searchsorted(ordered, rkeys)
        pos = np.minimum(pos, len(order) - 1)
        hit = ordered[pos] == rkeys
        frequency += np.bincount(order[pos[hit]], minlength=len(frequency))
    return frequency


def _kept_judgments(
    qrels: Qrels,
    keep: float,
    policy: str,
    rng: np.random.Generator,
    retrieved: np.ndarray | None,
) -> np.ndarray:
    """The rows of ``qrels`` (one per judged document) that `drop_judgments` keeps, ascending;
    ``retrieved``: how many runs retrieved each row (the ``pool`` policy)."""
    if policy == "pool":
        assert retrieved is not None
        frequency = retrieved
    elif policy == "uniform":
        frequency = np.zeros(len(qrels), dtype=np.int64)
    else:
        raise ValueError(f"unknown policy {policy!r}: uniform or pool")
    noise = rng.random(len(qrels))
    # within each query: most frequently retrieved first, random among equals
    by = np.lexsort((noise, -frequency, qrels.query))
    q_sorted = qrels.query[by]
    starts = np.flatnonzero(np.concatenate(([True], q_sorted[1:] != q_sorted[:-1])))
    sizes = np.diff(np.concatenate((starts, [len(by)])))
    quota = np.maximum((sizes * keep).astype(np.int64), 1)
    rank = np.arange(len(by)) - np.repeat(starts, sizes)
    return np.sort(by[rank < np.repeat(quota, sizes)])
