"""Results as tables: aligned text, CSV, JSON-ready dicts."""

from __future__ import annotations

from typing import Any

from ..table import RunEvaluation


def json_report(results: list[RunEvaluation], per_query: bool) -> list[dict]:
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


def display(value: Any, kind: str) -> str:
    if isinstance(value, str):
        return value
    if kind == "int":
        return str(int(value))
    return f"{float(value):.4f}"


def rows(results: list[RunEvaluation], per_query: bool, wide: bool) -> list[list[str]]:
    if wide:
        labels: list[str] = []
        kinds: dict[str, str] = {}
        for res in results:
            for r, v in zip(res.requests, res.summary, strict=True):
                if v is not None and not r.measure.is_run_name and r.label not in kinds:
                    labels.append(r.label)
                    kinds[r.label] = r.measure.value
        rows = [["run", *labels]]
        for res in results:
            s = {r.label: v for r, v in zip(res.requests, res.summary, strict=True)}
            rows.append(
                [res.run_name] + [display(s[lab], kinds[lab]) if lab in s else "" for lab in labels]
            )
        return rows
    rows = [["run", "query", "measure", "value"]]
    for res in results:
        if per_query:
            for r, col in zip(res.requests, res.values, strict=True):
                if not r.measure.per_query:
                    continue
                for qid, v in zip(res.query_ids, col.tolist(), strict=True):
                    rows.append([res.run_name, qid, r.label, display(v, r.measure.value)])
        for r, v in zip(res.requests, res.summary, strict=True):
            if v is not None and not r.measure.is_run_name:
                rows.append([res.run_name, "all", r.label, display(v, r.measure.value)])
    return rows


def csv_cell(cell: str) -> str:
    return f'"{cell.replace(chr(34), chr(34) * 2)}"' if any(c in cell for c in ',"\n') else cell


def text_table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        lines.append(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
        )
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"
