"""Counterfactual estimates (`rankscope.clicks.Estimate`) as a table, CSV or JSON."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..clicks.estimators import Estimate
from .tables import csv_text, json_text, number, text_table

FORMATS = ("table", "csv", "json")
HEADER = [
    "estimator", "policy", "value", "low", "high", "se", "sessions", "ess", "max_weight",
]  # fmt: skip


def _cell(value: float | None) -> str:
    if value is None or math.isnan(value):
        return ""
    return number(value)


def format_estimates(estimates: Sequence[Estimate], fmt: str = "table") -> str:
    """One row per estimate: the value, its interval (``low``, ``high``: the bootstrap's
    percentile interval at the estimate's confidence), the bootstrap standard error, the
    sessions, and the importance weights' effective sample size and largest weight."""
    if fmt == "json":
        return json_text([e.to_dict() for e in estimates])
    rows = [HEADER] + [
        [
            e.estimator, e.policy, number(e.value), _cell(e.low), _cell(e.high),
            _cell(e.standard_error), str(e.sessions),
            "" if e.effective_sample_size is None else f"{e.effective_sample_size:.1f}",
            _cell(e.max_weight),
        ]
        for e in estimates
    ]  # fmt: skip
    return csv_text(rows) if fmt == "csv" else text_table(rows)
