"""What the figures and marks of a comparison mean, and how its numbers are written: shared
by the text formats (`rankscope.report.compare`) and the HTML report
(`rankscope.report.html`)."""

from __future__ import annotations

import math

from ..stats.procedures import named
from ..table.compare import Comparison, Row
from .tables import clean

CORRECTION_NAMES = {
    "holm": "Holm's correction",
    "bonferroni": "Bonferroni's correction",
    "bh": "Benjamini–Hochberg's correction (false discovery rate)",
    "dunnett": "Dunnett's many-to-one comparison",
    "none": "no correction",
}


def number(value: float | None, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}"


def signed(value: float | None, digits: int = 4) -> str:
    if value is None or math.isnan(value):
        return "–"
    return f"{value:+.{digits}f}"


def p_value(value: float | None) -> str:
    """A p-value as every text table writes it (``compare``, ``reproduce``, ``recsys
    --folds``, the HTML report): ``<0.0001`` below 10^-4, else four decimals; ``–`` for
    none.  CSV and JSON keep the full-precision float instead."""
    if value is None or math.isnan(value):
        return "–"
    return "<0.0001" if value < 1e-4 else f"{value:.4f}"


def mark(row: Row) -> str:
    """▲ significantly better than the reference, ▼ significantly worse, nothing otherwise."""
    if not row.significant or row.difference is None:
        return ""
    return "▲" if row.difference > 0 else "▼"


def relative(row: Row) -> str:
    return "–" if row.relative is None else f"{100 * row.relative:+.1f}%"


def legend(c: Comparison) -> str:
    """What the marks and the figures mean, and which queries count."""
    test = named(c.test)
    correction = "" if test.family_wise else f", {CORRECTION_NAMES[c.correction]}"
    if c.baseline is not None:
        against = f"the baseline {clean(c.baseline)}"
        k = len(c.run_names) - 1
        within = f"over the {k} comparison{'s' if k > 1 else ''} with the baseline per measure"
    else:
        against = "the second run of the pair"
        pairs = len(c.run_names) * (len(c.run_names) - 1) // 2
        within = f"over the {pairs} pair{'s' if pairs > 1 else ''} of runs per measure"
    if test.family_wise:
        within = "family-wise over every pair of runs"
    queries = (
        f"{len(c.query_ids)} queries, those every run ranked (--common-queries)"
        if c.common_queries
        else f"{len(c.query_ids)} judged queries; a run that did not rank one scores 0 on it "
        "(trec_eval -c)"
    )
    lines = [
        f"▲/▼: significantly better/worse than {against} at α = {c.alpha:g} "
        f"({test.label}{correction} {within}).",
        f"mean ± half-width of its {100 * c.confidence:g}% t interval; Δ: difference of means "
        "(relative change); p: p-value after correction; d: Cohen's d_z of the per-query "
        "differences; W/T/L: queries won, tied, lost.",
        "Preference methods: the run's mean preference over the reference in [−1, 1], "
        "tested against 0."
        if "preference" in c.kinds
        else "",
        f"Queries: {queries}.",
    ]
    if c.unranked and not c.common_queries:
        missing = ", ".join(
            f"{clean(run)} ({len(qs)})" for run, qs in sorted(c.unranked.items())
        )
        lines.append(f"Runs that left judged queries unranked (scored 0): {missing}.")
    return "\n".join(line for line in lines if line) + "\n"
