"""Preferences between runs (`rankscope.preference.PreferenceResult`) as ``rankscope prefer``
writes them: the aggregated ordering of the runs and the mean preference matrix, as text,
CSV (the orderings) or JSON."""

from __future__ import annotations

from ..errors import UsageError
from ..preference import PreferenceResult
from .tables import csv_text, json_text

#: The formats of `format_preferences` (``rankscope prefer --format``).
FORMATS = ("table", "json", "csv")


def format_preferences(
    results: list[PreferenceResult],
    aggregate: str = "mc4",
    fmt: str = "table",
    *,
    per_query: bool = False,
) -> str:
    """The text ``rankscope prefer`` prints: for each result (one per method), the runs
    ordered by ``aggregate`` and the mean preference of each run over each other; with
    ``per_query``, also each query's ordering (and in JSON its preference matrix)."""
    report = preference_report(results, aggregate, per_query)
    if fmt == "json":
        return json_text(report)
    if fmt == "csv":
        rows = [["method", "aggregate", "rank", "run", "score"]]
        for entry in report:
            for k, item in enumerate(entry["ordering"], start=1):
                rows.append(
                    [entry["method"], entry["aggregate"], str(k), item["run"], repr(item["score"])]
                )
        return csv_text(rows)
    if fmt == "table":
        return "".join(_text(entry, per_query) for entry in report)
    raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def preference_report(
    results: list[PreferenceResult], aggregate: str = "mc4", per_query: bool = False
) -> list[dict]:
    """One JSON-ready object per result: method, aggregation, number of queries, the ordering
    of the runs with their scores, the mean preference matrix ``{row: {column: value}}``;
    with ``per_query`` also each query's ordering and preference matrix."""
    report = []
    for result in results:
        order, scores = result.ordering(aggregate)
        mean = result.mean  # computed once, not per cell
        entry = {
            "method": result.method,
            "aggregate": aggregate,
            "queries": len(result.query_ids),
            "ordering": [{"run": r, "score": float(s)} for r, s in zip(order, scores, strict=True)],
            "mean_preference": {
                a: {b: float(mean[i, j]) for j, b in enumerate(result.run_names)}
                for i, a in enumerate(result.run_names)
            },
        }
        if per_query:
            entry["query_orderings"] = dict(
                zip(result.query_ids, result.query_orderings(), strict=True)
            )
            entry["query_preferences"] = {
                qid: result.prefs[q].tolist() for q, qid in enumerate(result.query_ids)
            }
            entry["runs"] = list(result.run_names)
        report.append(entry)
    return report


def _text(entry: dict, per_query: bool) -> str:
    names = [item["run"] for item in entry["ordering"]]
    lines = [
        f"{entry['method']}: {entry['queries']} queries, runs ordered by {entry['aggregate']}",
        "",
    ]
    width = max(len(n) for n in names)
    for k, item in enumerate(entry["ordering"], start=1):
        lines.append(f"{k:>3}  {item['run']:<{width}}  {item['score']:.6g}")
    lines += ["", "mean preference of row over column (runs in the order above):"]
    short = [f"{i + 1}" for i in range(len(names))]
    lines.append(" " * (width + 6) + "".join(f"{s:>8}" for s in short))
    for k, a in enumerate(names, start=1):
        row = entry["mean_preference"][a]
        lines.append(f"{k:>3}  {a:<{width}} " + "".join(f"{row[b]:>8.3f}" for b in names))
    if per_query:
        lines += ["", "per query (best first):"]
        for qid, order in entry["query_orderings"].items():
            lines.append(f"  {qid}: {' > '.join(order)}")
    return "\n".join(lines) + "\n\n"
