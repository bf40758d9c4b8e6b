"""Systems evaluated over folds (`rankscope.recsys.folds.FoldsEvaluation`) as ``rankscope
recsys --folds`` writes them: two aligned tables (per fold; over the folds), CSV or JSON."""

from __future__ import annotations

from ..errors import UsageError
from ..recsys.folds import FoldsEvaluation
from ..stats.procedures import named
from .marks import p_value
from .tables import csv_text, json_text, number, text_table, without_nan

FORMATS = ("table", "json", "csv")

_SUMMARY_FIELDS = ("mean", "std", "min", "max", "difference", "p_value", "p_users")


def _cell(x: float | None) -> str:
    return "" if x is None or x != x else number(x)


def format_folds(result: FoldsEvaluation, fmt: str = "table") -> str:
    """The text ``rankscope recsys --folds`` prints.

    ``table``: the value of each system in each fold (a row per system and fold, a column
    per measure), then per measure and system the mean over the folds, the standard
    deviation, minimum and maximum, and against the baseline the difference, the wins and
    losses over folds and the corrected p-value of the paired test across the folds (and
    across the pooled users, when asked for); ``csv``: one row per (system, measure, fold)
    with the value, then the summaries as rows whose fold is ``mean``, ``std``, ``min``,
    ``max``, ``difference``, ``p_value``, ``p_users``; ``json``: the folds, the values and
    the summaries.
    """
    if fmt == "json":
        return json_text(without_nan(result.to_dict()))
    if fmt == "csv":
        rows = [["system", "measure", "fold", "value"]]
        for s, system in enumerate(result.systems):
            for m, measure in enumerate(result.measures):
                for f, fold in enumerate(result.folds):
                    rows.append([system, measure, fold, repr(float(result.values[s, m, f]))])
        for summary in result.summaries:
            for field in _SUMMARY_FIELDS:
                value = getattr(summary, field)
                if value is not None:
                    rows.append([summary.system, summary.measure, field, repr(float(value))])
        return csv_text(rows)
    if fmt != "table":
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    per_fold = [["system", "fold", *result.measures]]
    for s, system in enumerate(result.systems):
        for f, fold in enumerate(result.folds):
            per_fold.append([system, fold, *(_cell(float(v)) for v in result.values[s, :, f])])
    pooled = any(x.p_users is not None for x in result.summaries)
    header = ["measure", "system", "mean", "std", "min", "max", "Δ", "W/L", "p"]
    if pooled:
        header.append("p users")
    over = [header]
    for measure in result.measures:
        for system in result.systems:
            x = result.summary(system, measure)
            row = [measure, system, _cell(x.mean), _cell(x.std), _cell(x.min), _cell(x.max)]
            if x.baseline is None:
                row += ["–", "–", "–"] + (["–"] if pooled else [])
            else:
                row += [
                    "" if x.difference is None else f"{x.difference:+.4f}",
                    f"{x.wins}/{x.losses}", p_value(x.p_value),
                ]  # fmt: skip
                if pooled:
                    row.append(p_value(x.p_users))
            over.append(row)
    folds = len(result.folds)
    title = (
        f"over {folds} folds: mean, standard deviation, min and max of the fold values; "
        f"against {result.baseline}: Δ of the means, folds won/lost, p of the "
        f"{named(result.test).label} across folds"
        + (" and across the users of every fold" if pooled else "")
        + f" ({result.correction} correction)"
    )
    return "per fold\n" + text_table(per_fold) + "\n" + title + "\n" + text_table(over)
