"""trec_eval's text output: ``-q`` per-query lines, then the ``all`` summary."""

from __future__ import annotations

import math

from ..measures import REGISTRY
from ..table import RunEvaluation
from .tables import clean


def _format_value(value, kind: str) -> str:
    if kind == "int":
        return str(int(value))
    if kind == "str":
        return f"'{value}'"
    value = float(value)
    if math.isnan(value):
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


def format_trec(result: RunEvaluation, per_query: bool = False, summary: bool = True) -> str:
    """The text trec_eval prints: ``-q`` per-query lines, then the ``all`` summary.

    For z-scores (trec_eval ``-Z``) every standardised value prints as ``Z<name>`` with 4
    decimals; text (``runid``, ``relstring``) prints as usual.
    """
    lines: list[str] = []
    # trec_eval prints its measures in its own order, whatever the order asked
    printed = sorted(
        range(len(result.requests)), key=lambda i: REGISTRY.trec_position(result.requests[i])
    )
    requests = [result.requests[i] for i in printed]

    def head(kind: str) -> tuple[str, str]:
        if result.zscores and kind != "str":
            return "Z", "float"
        return "", kind

    if per_query:
        printable = [
            (*head(r.measure.value), r.label, col)
            for r, col in zip(requests, [result.values[i] for i in printed], strict=True)
            if r.measure.per_query
        ]
        for i, qid in enumerate(result.query_ids):
            for z, kind, label, col in printable:
                lines.append(
                    f"{z}{label:<22}\t{clean(qid, raw_bytes=True)}\t{_format_value(col[i], kind)}\n"
                )
    if summary:
        for r, value in zip(requests, [result.summary[i] for i in printed], strict=True):
            if not r.measure.summary or value is None:
                continue
            if r.measure.is_run_name:
                lines.append(f"{r.label:<22}\tall\t{clean(str(value), raw_bytes=True)}\n")
                continue
            z, kind = head(r.measure.value)
            lines.append(f"{z}{r.label:<22}\tall\t{_format_value(value, kind)}\n")
    return "".join(lines)
