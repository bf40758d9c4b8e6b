"""Evaluated recommender systems (`rankscope.recsys.SystemEvaluation`) as ``rankscope recsys``
writes them: an aligned table, CSV or JSON."""

from __future__ import annotations

from ..errors import UsageError
from ..recsys.systems import SystemEvaluation
from .tables import csv_text, json_text, number, text_table, transpose, without_nan

#: The formats of `format_systems` (``rankscope recsys --format``).
FORMATS = ("table", "json", "csv")

#: Summaries of more measures than this print as a row per measure, a column per system.
WIDE_LIMIT = 8

_LONG_HEADER = ["run", "user", "measure", "value", "users"]


def format_systems(
    results: list[SystemEvaluation], fmt: str = "table", *, per_user: bool = False
) -> str:
    """The text ``rankscope recsys`` prints for ``results``.

    ``table``: the summaries, a row per system and a column per measure (a row per measure
    beyond `WIDE_LIMIT` measures), or with ``per_user`` a row per (system, user, measure);
    ``csv``: a row per (system, user, measure), the summaries under user ``all`` with the
    number of users behind them; ``json``: an object per system.
    """
    if fmt == "json":
        return json_text([_json_entry(res, per_user) for res in results])
    if fmt == "csv":
        return csv_text([_LONG_HEADER, *long_rows(results, per_user)])
    if fmt != "table":
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if per_user:
        return text_table([_LONG_HEADER, *long_rows(results, True)])
    labels = list(dict.fromkeys(label for res in results for label in res.labels))
    rows = [["run", *labels]]
    for res in results:
        summary = res.summary
        rows.append([res.name] + [number(summary[lab]) if lab in summary else "" for lab in labels])
    return text_table(transpose(rows) if len(labels) > WIDE_LIMIT else rows)


def long_rows(results: list[SystemEvaluation], per_user: bool) -> list[list[str]]:
    """A row per (system, user with a value, measure), if ``per_user``, then per (system,
    measure) the summary: user ``all`` and the number of users (or ratings) behind it."""
    return [
        [r["run"], r["user"], r["measure"], repr(r["value"]),
         "" if r["users"] is None else str(r["users"])]
        for res in results
        for r in res.records(per_user)
    ]  # fmt: skip


def _json_entry(res: SystemEvaluation, per_user: bool) -> dict:
    """The system's `SystemEvaluation.to_dict` (NaN as null), per-user values if asked."""
    entry = without_nan(res.to_dict())
    if not per_user:
        del entry["per_user"]
    return entry
