"""Evaluated runs (`RunEvaluation`) in every format ``rankscope eval`` writes: trec_eval's text,
JSON, CSV and aligned tables (long: a row per run, query and measure; or wide: a row per run
and a column per measure)."""

from __future__ import annotations

from typing import Any

from ..errors import UsageError
from ..table import RunEvaluation
from .tables import csv_text, json_text, number, text_table
from .trec import format_trec

#: The formats of `format_evaluations` (``rankscope eval --format``).
FORMATS = ("trec", "json", "csv", "table")


def format_evaluations(
    results: list[RunEvaluation],
    fmt: str | None = None,
    *,
    per_query: bool = False,
    summary: bool = True,
    wide: bool = False,
) -> str:
    """The text ``rankscope eval`` prints for ``results``.

    ``fmt``: ``trec`` (what trec_eval prints, run after run), ``json``, ``csv`` or ``table``;
    by default ``trec`` for one run and ``table`` for several.  ``per_query``: also the values
    of each query (trec_eval's ``-q``); ``summary=False``: no summary (``-n``, trec text only);
    ``wide``: a row per run and a column per measure, summaries only (csv and table).
    """
    if fmt is None:
        fmt = "trec" if len(results) == 1 else "table"
    if fmt == "trec":
        return "".join(format_trec(res, per_query=per_query, summary=summary) for res in results)
    if fmt == "json":
        return json_text(json_report(results, per_query))
    if fmt == "csv":
        return csv_text(rows(results, per_query, wide, exact=True))
    if fmt == "table":
        return text_table(rows(results, per_query, wide))
    raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def json_report(results: list[RunEvaluation], per_query: bool) -> list[dict]:
    """One ``{"run", "summary"[, "queries"]}`` object per run."""
    out = []
    for res in results:
        entry: dict[str, Any] = {
            "run": res.run_name,
            "summary": {
                r.label: v
                for r, v in zip(res.requests, res.summary, strict=True)
                if v is not None and not r.measure.is_run_name
            },
        }
        if per_query:
            entry["queries"] = {
                qid: {
                    r.label: col[i].item() if hasattr(col[i], "item") else col[i]
                    for r, col in zip(res.requests, res.values, strict=True)
                    if r.measure.per_query
                }
                for i, qid in enumerate(res.query_ids)
            }
        out.append(entry)
    return out


def display(value: Any, kind: str, exact: bool = False) -> str:
    """A value as a cell: text as it is, a count as a whole number, a real with four
    decimals in the aligned table and, ``exact``, at full precision (``repr``: it reads back
    as the same float) in CSV, as the other commands' CSV and JSON."""
    if isinstance(value, str):
        return value
    if kind == "int":
        return str(int(value))
    return repr(float(value)) if exact else number(value)


def rows(
    results: list[RunEvaluation], per_query: bool, wide: bool, exact: bool = False
) -> list[list[str]]:
    """The cells of the csv (``exact``) and table formats, the header first; the measures
    in the order asked."""
    if wide:
        labels: list[str] = []
        kinds: dict[str, str] = {}
        for res in results:
            for r, v in zip(res.requests, res.summary, strict=True):
                if v is not None and not r.measure.is_run_name and r.label not in kinds:
                    labels.append(r.label)
                    kinds[r.label] = r.measure.value
        table = [["run", *labels]]
        for res in results:
            s = {r.label: v for r, v in zip(res.requests, res.summary, strict=True)}
            cells = [display(s[lab], kinds[lab], exact) if lab in s else "" for lab in labels]
            table.append([res.run_name, *cells])
        return table
    table = [["run", "query", "measure", "value"]]
    for res in results:
        if per_query:
            for r, col in zip(res.requests, res.values, strict=True):
                if not r.measure.per_query:
                    continue
                for qid, v in zip(res.query_ids, col.tolist(), strict=True):
                    table.append([res.run_name, qid, r.label, display(v, r.measure.value, exact)])
        for r, v in zip(res.requests, res.summary, strict=True):
            if v is not None and not r.measure.is_run_name:
                table.append([res.run_name, "all", r.label, display(v, r.measure.value, exact)])
    return table
