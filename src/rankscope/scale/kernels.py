"""The partition kernels: Arrow tables of whole queries (users) in, per-query (per-user)
values out, computed by the local path's own functions.

A kernel knows nothing of Dask: any engine that can hand a function the rows of a set of
whole queries as Arrow tables (Dask, Spark's ``mapInArrow``, a process pool) can map it
over partitions and gather its outputs with `rankscope.scale.gather`.

Input tables (the canonical columns, made by `judgments_table`, `runs_table` and, for the
recommender kernel of `rankscope.recsys.distributed`, its `interactions_table`, from what
the local readers return):

* judgments: ``query`` (string), ``doc`` (string), ``grade`` (int64), ``line`` (int64)
  [, ``subtopic`` (int64): diversity judgments];
* runs: ``run`` (int32, the run's position), ``query``, ``doc``, ``score`` (float64),
  ``line`` (int64);
* test interactions (recsys): ``user``, ``item`` (string), ``rating``, ``timestamp``
  (float64, null when absent), ``line`` (int64); recommendations as runs, with ``user`` and
  ``item`` for ``query`` and ``doc``.

Output: one row per (run, query) with ``run``, ``query`` (``user``), ``missing`` (TREC: judged
but not ranked) and one column ``v<j>`` per request, in request order; what the summary needs
besides the values (counts, what the run lacks, the warnings raised) is JSON in the schema
metadata under ``rankscope``.
"""

from __future__ import annotations

import dataclasses
import json
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from ..errors import RankscopeError, RankscopeWarning, UsageError
from ..judge import JoinOptions, JoinReport
from ..measures import Request
from ..model import GroupedQrels, Prefs, Qrels, Run, Vocabulary
from ..model.frames import column_names, is_frame
from ..table.formats import judgment_format, with_preferences

META = b"rankscope"
KEYS = ("query", "doc")
#: The column of a Spark partition's Arrow tables holding each row's place in its frame
#: (0 first, in the frame's order; `rankscope.scale.spark.SparkEngine.grouped`).
ROW = "_rankscope_row"

T = TypeVar("T")


def pyarrow() -> Any:
    """The pyarrow module (installed with the ``dask`` extra)."""
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - the extra installs it
        raise UsageError(
            "the Dask backend needs pyarrow: pip install 'rankscope[dask]'"
        ) from None
    return pa


@dataclass(frozen=True)
class TrecSpec:
    """What every TREC partition is evaluated with."""

    run_names: list[str]
    run_tags: list[str | None]
    run_sources: list[str]
    requests: list[Request]
    options: JoinOptions
    num_docs: int = 0
    qrels_source: str = "<qrels>"
    baseline: str | None = None  # the preference measures' reference (default the first run)
    rel_format: str = "qrels"  # the judgments' format (trec_eval's -R)


# -- model objects <-> canonical Arrow tables --------------------------------------------------


def line_numbers(line: np.ndarray | None, n: int) -> np.ndarray:
    return np.zeros(n, dtype=np.int64) if line is None else np.asarray(line, dtype=np.int64)


def judgments_table(qrels: Qrels | Prefs | GroupedQrels, rows: np.ndarray | None = None) -> Any:
    """Judgments (their ``rows``, default all) as a canonical judgments table: qrels with
    ``grade`` (and ``subtopic``), preference judgments with ``group``, ``subgroup`` and
    ``level``, judgment groups with ``group`` and ``grade``."""
    pa = pyarrow()
    rows = np.arange(len(qrels.query)) if rows is None else rows
    columns = {
        "query": ids_column(qrels.queries, qrels.query[rows]),
        "doc": ids_column(qrels.docs, qrels.doc[rows]),
    }
    if isinstance(qrels, Prefs):
        columns["group"] = ids_column(qrels.labels, qrels.group[rows])
        columns["subgroup"] = ids_column(qrels.labels, qrels.subgroup[rows])
        columns["level"] = pa.array(qrels.level[rows].astype(np.float64))
    else:
        columns["grade"] = pa.array(qrels.grade[rows].astype(np.int64))
        if isinstance(qrels, GroupedQrels):
            columns["group"] = ids_column(qrels.groups, qrels.group[rows])
    columns["line"] = pa.array(line_numbers(qrels.line, len(qrels.query))[rows])
    if isinstance(qrels, Qrels) and qrels.subtopic is not None:
        columns["subtopic"] = pa.array(np.asarray(qrels.subtopic)[rows].astype(np.int64))
    return pa.table(columns)


def judgments_from(table: Any, queries: Vocabulary, docs: Vocabulary,
                   source: str) -> Qrels | Prefs | GroupedQrels:  # fmt: skip
    """A canonical judgments table as the model object of its format."""
    query = interned_codes(queries, table.column("query"))
    doc = interned_codes(docs, table.column("doc"))
    line = number_array(table.column("line"), np.int64)
    names = table.column_names
    if "level" in names:
        labels = Vocabulary()
        return Prefs(
            queries, docs, query, doc, labels, interned_codes(labels, table.column("group")),
            interned_codes(labels, table.column("subgroup")),
            number_array(table.column("level"), np.float64), source=source, line=line,
        )  # fmt: skip
    grade = number_array(table.column("grade"), np.int64)
    if "group" in names:
        groups = Vocabulary()
        return GroupedQrels(
            queries, docs, query, doc, grade, groups,
            interned_codes(groups, table.column("group")), source=source, line=line,
        )  # fmt: skip
    subtopic = None
    if "subtopic" in names:
        subtopic = number_array(table.column("subtopic"), np.int64)
    return Qrels(queries, docs, query, doc, grade, source=source, line=line, subtopic=subtopic)


def runs_table(
    runs: Sequence[Run], rows: Sequence[np.ndarray] | None = None, keys: tuple[str, str] = KEYS
) -> Any:
    """The runs' rows (``rows[i]`` of run i, default all), in input order, as one table
    (``keys``: the names of the query and document columns; ``("user", "item")`` for
    recommendation lists)."""
    pa = pyarrow()
    parts = []
    for i, run in enumerate(runs):
        r = np.arange(len(run)) if rows is None else rows[i]
        parts.append(
            pa.table({
                "run": pa.array(np.full(len(r), i, dtype=np.int32)),
                keys[0]: ids_column(run.queries, run.query[r]),
                keys[1]: ids_column(run.docs, run.doc[r]),
                "score": pa.array(run.score[r].astype(np.float64)),
                "line": pa.array(line_numbers(run.line, len(run))[r]),
            })
        )  # fmt: skip
    if not parts:
        return empty_runs(keys)
    return pa.concat_tables(parts)


def empty_runs(keys: tuple[str, str] = KEYS) -> Any:
    pa = pyarrow()
    schema = pa.schema([("run", pa.int32()), (keys[0], pa.string()), (keys[1], pa.string()),
                        ("score", pa.float64()), ("line", pa.int64())])  # fmt: skip
    return schema.empty_table()


def ids_column(vocab: Vocabulary, codes: np.ndarray) -> Any:
    """The ids of ``codes`` as an Arrow string column (Python strings made once per id)."""
    pa = pyarrow()
    distinct, where = np.unique(codes, return_inverse=True)
    return pa.array(vocab.strings_of(distinct), pa.string()).take(pa.array(where.ravel()))


def interned_codes(vocab: Vocabulary, column: Any) -> np.ndarray:
    """A string column's ids interned into ``vocab`` in order of first appearance (as
    interning each row would), Python strings made once per distinct id."""
    encoded = column.combine_chunks().dictionary_encode()
    found = vocab.intern_many([str(s) for s in encoded.dictionary.to_pylist()])
    return np.asarray(found, dtype=np.int32)[
        np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    ]


def distinct_ids(column: Any) -> list[str]:
    """The distinct ids of a string column, sorted."""
    return sorted(str(s) for s in column.unique().to_pylist())


def number_array(column: Any, dtype: Any) -> np.ndarray:
    return np.asarray(column.to_numpy(zero_copy_only=False), dtype=dtype)


def runs_from(table: Any, spec: Any, queries: Vocabulary, docs: Vocabulary, *,
               query: str = "query", doc: str = "doc") -> list[Run]:  # fmt: skip
    """The runs of a canonical runs table, coded with ``queries`` and ``docs``."""
    which = number_array(table.column("run"), np.int32)
    q = interned_codes(queries, table.column(query))
    d = interned_codes(docs, table.column(doc))
    score = number_array(table.column("score"), np.float64)
    line = number_array(table.column("line"), np.int64)
    tags = getattr(spec, "run_tags", [None] * len(spec.run_names))
    out = []
    for i, name in enumerate(spec.run_names):
        rows = np.flatnonzero(which == i)
        out.append(
            Run(name, queries, docs, q[rows], d[rows], score[rows], source=spec.run_sources[i],
                line=line[rows], tag=tags[i])
        )  # fmt: skip
    return out


def partition_runs(spec: Any, files: Sequence[str | None], queries: Vocabulary, docs: Vocabulary,
                   read: Callable[[str, str], Run]) -> list[Run]:  # fmt: skip
    """The runs of one partition of `Partitioned` datasets, in the order of ``spec``'s runs:
    ``read(path, name)`` of each run's file, or an empty run where the partition has no file
    of that run."""
    out = []
    for name, source, path in zip(spec.run_names, spec.run_sources, files, strict=True):
        if path is None:
            empty = np.zeros(0, dtype=np.int32)
            out.append(Run(name, queries, docs, empty, empty, np.zeros(0), source=source))
        else:
            out.append(read(path, name))
    return out


def read_part(read: Callable[[], T], part: Any, said: str, source: str,
              told: list[str]) -> T:  # fmt: skip
    """``read()`` of one partition's part of an input (a file, or a Spark partition's rows:
    an Arrow table with a `ROW` column), its warnings added to ``told`` (the kernel's output
    tells them on the client).  For a Spark partition, what the reader calls the part
    (``said``, as ``<interactions frame>``) and its rows (``row 3``, ``rows 3 and 4``: of
    the partition) are, in its errors, warnings and the rows' ``line``, the frame's
    (``source``, ``row 1207``)."""
    rows = None
    if is_frame(part) and ROW in column_names(part):
        rows = number_array(part.column(ROW), np.int64)

    def said_of_frame(text: str) -> str:
        if rows is None:
            return text
        # every message of the reader is of this part: each "row 3", "rows 4 and 5" of it
        text = re.sub(r"\b(rows?) (\d+)(?: and (\d+))?", lambda m: f"{m[1]} {rows[int(m[2])]}"
                      + (f" and {rows[int(m[3])]}" if m[3] else ""), text)  # fmt: skip
        return text.replace(said, source)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            found = read()
        except RankscopeError as error:
            if rows is None:
                raise
            raise type(error)(said_of_frame(str(error))) from None
    for w in caught:
        if isinstance(w.message, RankscopeWarning):
            text = said_of_frame(str(w.message))
            if text not in told:
                told.append(text)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    line = getattr(found, "line", None)
    if rows is not None and line is not None:
        found = dataclasses.replace(found, line=rows[line], source=source)  # type: ignore[type-var]
    return found


def with_warnings(table: Any, told: list[str]) -> Any:
    """A kernel's output with warnings raised before the kernel ran (``told``) first."""
    if not told:
        return table
    meta = metadata(table)
    meta["warnings"] = told + [t for t in meta["warnings"] if t not in told]
    return kernel_output(pyarrow(), {n: table.column(n) for n in table.column_names}, meta)


def kernel_output(pa: Any, columns: dict[str, Any], meta: dict) -> Any:
    table = pa.table(columns)
    return table.replace_schema_metadata({META: json.dumps(meta).encode()})


def metadata(table: Any) -> dict:
    """The JSON a kernel put in its output's schema metadata."""
    return json.loads((table.schema.metadata or {})[META])


def told_warnings(
    records: list[warnings.WarningMessage], drop: set[str] | None = None
) -> list[str]:
    """The texts of the rankscope warnings raised inside a kernel, each once, in order (to
    be told by the client), but those in ``drop``."""
    out: list[str] = []
    for w in records:
        if isinstance(w.message, RankscopeWarning):
            text = str(w.message)
            if text not in (drop or set()) and text not in out:
                out.append(text)
    return out


# -- the TREC kernel ---------------------------------------------------------------------------


def trec_kernel(judgments: Any, runs: Any, spec: TrecSpec) -> Any:
    """Per-query values of every run of ``runs`` on the whole queries of one partition.

    Each run is evaluated by `rankscope.table.evaluation.evaluate_run`, the local path's
    function, with the options of ``spec``; the preference measures by the local path's
    `with_preferences`."""
    pa = pyarrow()
    queries, docs = Vocabulary(), Vocabulary()
    qrels = judgments_from(judgments, queries, docs, spec.qrels_source)
    fmt = judgment_format(spec.rel_format)
    run_list = runs_from(runs, spec, queries, docs)
    requests = spec.requests
    per_run = [r for r in requests if r.measure.family != "preference"]
    wanted = [r for r in requests if r.measure.family == "preference"]
    n = len(run_list)
    meta: dict[str, Any] = {
        "run_only": [sorted(set(_ids(r))) for r in run_list] if not len(qrels.query)
        else [[]] * n,
        "qrels_only": [[] for _ in range(n)],
        "summaries": [[None] * len(requests) for _ in range(n)],
        "complete_num_rel": [None] * n,
        "runid": [r.runid for r in run_list],
        "queries": distinct_ids(runs.column("query")),
        "nothing_judged": [None] * n,
        "ranked_judged": [False] * n,
        "warnings": [],
    }
    cols: dict[str, list] = {"run": [], "query": [], "missing": []}
    values: list[list] = [[] for _ in requests]
    if len(qrels.query):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            reports = [JoinReport() for _ in run_list]
            results = [
                fmt.evaluate_one(qrels, run, per_run, spec.options, spec.num_docs, report)
                for run, report in zip(run_list, reports, strict=True)
            ]
            if wanted and isinstance(qrels, Qrels):  # (qrels serve the preference measures)
                results = with_preferences(
                    results, wanted, qrels, run_list, spec.options, spec.baseline
                )
        told = {
            line
            for run, report in zip(run_list, reports, strict=True)
            for line in report.summary(run.name, spec.options.complete)
        }
        texts = told_warnings(caught, told)
        for i, run in enumerate(run_list):  # told by the client, if no partition judged any
            prefix = f"run '{run.name}': none of its "
            meta["nothing_judged"][i] = next((t for t in texts if t.startswith(prefix)), None)
            texts = [t for t in texts if t != meta["nothing_judged"][i]]
            meta["ranked_judged"][i] = bool(np.isin(run.query, np.unique(qrels.query)).any())
        meta["warnings"] = texts
        meta["run_only"] = [r.run_only for r in reports]
        meta["qrels_only"] = [r.qrels_only for r in reports]
        for i, res in enumerate(results):
            order = {r: j for j, r in enumerate(res.requests)}
            cols["run"].extend([i] * len(res.query_ids))
            cols["query"].extend(res.query_ids)
            cols["missing"].extend(res.missing.tolist())
            for j, req in enumerate(requests):
                at = order[req]
                values[j].extend(res.values[at].tolist())
                s = res.summary[at]
                # an int summary (num_rel under -c, num_q) is a count that partitions add
                meta["summaries"][i][j] = s if isinstance(s, int) else None
            meta["complete_num_rel"][i] = res.complete_num_rel
    columns: dict[str, Any] = {
        "run": pa.array(cols["run"], pa.int32()),
        "query": pa.array(cols["query"], pa.string()),
        "missing": pa.array(cols["missing"], pa.bool_()),
    }
    for j, req in enumerate(requests):
        kind = pa.string() if req.measure.value == "str" else pa.float64()
        columns[f"v{j}"] = pa.array(values[j], kind)
    return kernel_output(pa, columns, meta)


def _ids(run: Run) -> list[str]:
    return run.queries.strings_of(np.unique(run.query))


