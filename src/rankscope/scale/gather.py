"""Gathering the kernels' outputs: per-query (per-user) tables back into the local path's
results, in its query order, summarised by its own code (so the numbers are the same, bit
for bit), and the warnings the local path would have given."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InputError, warn
from ..judge import JoinReport
from ..table.evaluation import RunEvaluation, summarise
from ..table.formats import against, reference_run
from .kernels import TrecSpec, metadata, pyarrow


def gathered_columns(
    outputs: Sequence[Any], key: str, count: int
) -> tuple[np.ndarray, list[str], list]:
    """The kernels' outputs as one table: each row's run, its query (user) id, and the
    value columns (Arrow)."""
    pa = pyarrow()
    if not outputs:
        empty = pa.array([], pa.float64())
        return np.zeros(0, dtype=np.int32), [], [empty] * count
    table = pa.concat_tables([t.replace_schema_metadata(None) for t in outputs])
    which = np.asarray(table.column("run").to_numpy(), dtype=np.int32)
    keys = [str(s) for s in table.column(key).to_pylist()]
    return which, keys, [table.column(f"v{j}") for j in range(count)]


def take_rows(column: Any, rows: list[int], text: bool) -> np.ndarray:
    indices = pyarrow().array(rows, pyarrow().int64())
    if text:
        items = column.take(indices).to_pylist()
        out = np.empty(len(items), dtype=object)
        out[:] = items
        return out
    return np.asarray(column.take(indices).to_numpy(zero_copy_only=False), dtype=np.float64)


def rows_in_order(which: np.ndarray, keys: list[str], i: int, source: str, what: str) -> list[int]:
    """Run ``i``'s rows, its queries sorted as strings (the local path's output order); a
    query evaluated in two partitions (a dataset not partitioned by query) is an error."""
    rows = sorted(np.flatnonzero(which == i).tolist(), key=keys.__getitem__)
    for a, b in zip(rows, rows[1:], strict=False):
        if keys[a] == keys[b]:
            raise InputError(
                f"{source}: {what} {keys[a]!r} is in two partitions: a partitioned dataset "
                f"must hold all the rows of a {what} in one file"
            )
    return rows


def trec_results(outputs: Sequence[Any], spec: TrecSpec) -> list[RunEvaluation]:
    """One `RunEvaluation` per run, as `rankscope.table.evaluation.evaluate_run` gives it
    for the whole run; the join's warnings told once, with the counts of every partition."""
    pa = pyarrow()
    metas = [metadata(t) for t in outputs]
    requests = spec.requests
    if any(r.measure.family == "preference" for r in requests):  # labelled as the local
        reference = spec.run_names[reference_run(spec.run_names, spec.baseline)]  # path does
        requests = [
            against(r, reference) if r.measure.family == "preference" else r for r in requests
        ]
    which, queries, columns = gathered_columns(outputs, "query", len(requests))
    missing_all = (
        pa.concat_tables([t.replace_schema_metadata(None) for t in outputs]).column("missing")
        if outputs
        else None
    )
    complete = spec.options.complete
    mixed = any(r.judged_only for r in requests) and not spec.options.judged_only
    results = []
    for i, name in enumerate(spec.run_names):
        rows = rows_in_order(which, queries, i, spec.run_sources[i], "query")
        report = JoinReport(
            sorted(q for m in metas for q in m["run_only"][i]),
            sorted(q for m in metas for q in m["qrels_only"][i]),
        )
        for line in report.summary(name, complete):
            warn(line)
        _nothing_judged(metas, i)
        runid = spec.run_tags[i] or name
        counts = [m["complete_num_rel"][i] for m in metas if m["complete_num_rel"][i] is not None]
        complete_num_rel = sum(counts) if complete and counts else None
        values = [
            take_rows(columns[j], rows, req.measure.value == "str")
            for j, req in enumerate(requests)
        ]
        summary: list[float | int | str | None] = []
        for j, (req, col) in enumerate(zip(requests, values, strict=True)):
            ints = [m["summaries"][i][j] for m in metas if m["summaries"][i][j] is not None]
            if req.measure.aggregate == "num_rel" and ints:
                summary.append(sum(ints))  # -c: the count of relevant documents, added up
            else:
                summary.append(summarise(req, col, runid, complete_num_rel))
        missing = (
            np.asarray(
                missing_all.take(pa.array(rows, pa.int64())).to_numpy(zero_copy_only=False),
                dtype=bool,
            )
            if missing_all is not None
            else np.zeros(0, dtype=bool)
        )
        results.append(
            RunEvaluation(
                name, [queries[r] for r in rows], list(requests), values, summary, missing,
                None if mixed else complete_num_rel, runid=runid,
            )
        )  # fmt: skip
    tell_warnings(metas)
    return results


def _nothing_judged(metas: Sequence[dict], i: int) -> None:
    """The local path's warning that none of run ``i``'s documents is judged, when every
    partition that ranked judged queries said so, with the count over all of them (the
    example ids are the first such partition's)."""
    texts = [m["nothing_judged"][i] for m in metas if m.get("nothing_judged", [None])[i]]
    refuted = any(
        m["ranked_judged"][i] and not m["nothing_judged"][i] for m in metas if "ranked_judged" in m
    )
    if not texts or refuted:
        return
    pattern = re.compile(r"none of its (\d+) retrieved")
    total = sum(int(found.group(1)) for t in texts if (found := pattern.search(t)))
    warn(pattern.sub(f"none of its {total} retrieved", texts[0], count=1))


def tell_warnings(metas: Sequence[dict]) -> None:
    """The other warnings the partitions raised, each once."""
    told: list[str] = []
    for m in metas:
        for text in m["warnings"]:
            if text not in told:
                told.append(text)
                warn(text)


