"""What ``rankscope clicks learn`` prints: learned RPP weights, their cross-validation, and
their held-out comparison with uniform, dcg and inverse weights."""

from __future__ import annotations

from typing import Any

from ..preference.learned import Assessment, LearnedWeights
from .tables import json_text, number, text_table


def learned_report(model: LearnedWeights, assessment: Assessment | None = None) -> dict[str, Any]:
    """The weights (`LearnedWeights.to_dict`) and, if given, the held-out assessment."""
    out: dict[str, Any] = {"weights": model.to_dict()}
    if assessment is not None:
        out["held_out"] = assessment.to_dict()
    return out


def format_learned(
    model: LearnedWeights, assessment: Assessment | None = None, fmt: str = "table"
) -> str:
    """``table`` (aligned text) or ``json`` (`learned_report`)."""
    if fmt == "json":
        return json_text(learned_report(model, assessment))
    mean = float(model.weights.mean())
    grades = [f"rel>={g}" for g in model.grades] if model.graded else ["weight"]
    rows = [["recall levels", *grades]]
    for label, row in zip(model.bins, model.weights, strict=True):
        rows.append([label, *(number(w / mean) for w in row)])
    kind = f"graded, thresholds {list(model.grades)}" if model.graded else (
        f"binary, rel >= {model.level}" if model.level is not None else "binary"
    )  # fmt: skip
    parts = [
        f"learned RPP weights ({kind}) from {model.pairs} labelled pairs; per-level weight "
        "relative to uniform (1 = RPP's)\n",
        text_table(rows),
        f"logistic scale beta = {model.beta:.4g}, L2 penalty alpha = {model.alpha:g}\n",
    ]
    if model.cv:
        cv = [["alpha", "held-out loss", "held-out agreement"]]
        cv += [[f"{c.alpha:g}", number(c.loss), number(c.agreement)] for c in model.cv]
        parts += ["\ncross-validation over queries (penalty chosen: lowest loss)\n", text_table(cv)]
    if assessment is not None:
        rows = [["method", "held-out agreement", "discriminative power"]]
        rows += [
            [name, number(assessment.agreement[name]), number(assessment.power[name])]
            for name in assessment.agreement
        ]
        parts += [
            f"\nheld out: {assessment.folds}-fold over {assessment.queries} queries, "
            f"{assessment.pairs} labelled pairs (learned weights scored on queries they were "
            "not learned on; discriminative power: paired t-test, Bonferroni, p < 0.05)\n",
            text_table(rows),
        ]
    return "".join(parts)
