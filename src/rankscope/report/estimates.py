"""Counterfactual estimates (`rankscope.clicks.Estimate`) as a table, CSV or JSON."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..clicks.estimators import Estimate
from .tables import cell, csv_text, json_text, text_table

FORMATS = ("table", "csv", "json")
HEADER = [
    "estimator", "policy", "value", "low", "high", "se", "sessions", "ess", "max_weight",
]  # fmt: skip


def format_estimates(estimates: Sequence[Estimate], fmt: str = "table") -> str:
    """One row per estimate: the value, its interval (``low``, ``high``: the bootstrap's
    percentile interval at the estimate's confidence), the bootstrap standard error, the
    sessions, and the importance weights' effective sample size and largest weight."""
    if fmt == "json":
        return json_text([e.to_dict() for e in estimates])
    exact = fmt == "csv"  # CSV at full precision, the aligned table with four decimals
    rows = [HEADER] + [
        [
            e.estimator, e.policy, cell(e.value, exact), _cell(e.low, exact),
            _cell(e.high, exact), _cell(e.standard_error, exact), str(e.sessions),
            _ess(e.effective_sample_size, exact), _cell(e.max_weight, exact),
        ]
        for e in estimates
    ]  # fmt: skip
    return csv_text(rows) if exact else text_table(rows)


def _cell(value: float | None, exact: bool) -> str:
    """A cell, nothing for a value that is not defined (NaN)."""
    return "" if value is not None and math.isnan(value) else cell(value, exact)


def _ess(value: float | None, exact: bool) -> str:
    if value is None:
        return ""
    return repr(value) if exact else f"{value:.1f}"
