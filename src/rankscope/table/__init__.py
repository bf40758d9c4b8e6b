"""Evaluation into per-query values and summaries: a `Judged` × measure requests →
`RunEvaluation`; several runs against judgments of any format (`formats`); the
meta-evaluation study over real runs (`study`)."""

from .evaluation import RunEvaluation, as_requests, evaluate_judged, evaluate_run, summarise

__all__ = ["RunEvaluation", "as_requests", "evaluate_judged", "evaluate_run", "summarise"]
