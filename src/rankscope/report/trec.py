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


def _formatted(column, kind: str) -> list[str]:
    """`_format_value` of each value of ``column``: the same strings, a float column's read
    as Python floats at once (NaN, whose sign `_format_value` shows, through it)."""
    values = column.tolist() if hasattr(column, "tolist") else list(column)
    if kind == "float":
        return [f"{v:6.4f}" if v == v else _format_value(v, kind) for v in values]
    return [_format_value(v, kind) for v in values]


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
        # column by column: each measure's values formatted, each query id cleaned once,
        # and a measure's lines put in every n-th place (query after query, the measures
        # in order): a 7,000-query run's 35,000 lines in a third of the time line by line
        printable = [
            (f"{z}{r.label:<22}", _formatted(col, kind))
            for r, col in zip(requests, [result.values[i] for i in printed], strict=True)
            if r.measure.per_query
            for z, kind in [head(r.measure.value)]
        ]
        shown = [f"\t{clean(qid, raw_bytes=True)}\t" for qid in result.query_ids]
        n = len(printable)
        rows = [""] * (n * len(shown))
        for k, (label, values) in enumerate(printable):
            rows[k::n] = [f"{label}{q}{v}\n" for q, v in zip(shown, values, strict=True)]
        lines += rows
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
