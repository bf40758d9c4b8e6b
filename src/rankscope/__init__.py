"""rankscope: offline evaluation of search and recommendation systems.

>>> import rankscope
>>> qrels = rankscope.read_qrels("qrels.txt")            # doctest: +SKIP
>>> table = rankscope.evaluate(qrels, ["run1.txt", "run2.txt"], ["AP", "nDCG@10"])  # doctest: +SKIP
"""

from __future__ import annotations

__version__ = "0.1.0"

from .api import evaluate, evaluate_many, read_qrels, read_run
from .data import InputError, Judged, Qrels, Ranked, RankscopeWarning, Run, Vocabulary, judge
from .evaluate import RunEvaluation, evaluate_judged, format_trec
from .measures import MEASURES, REGISTRY, parse_measures

__all__ = [
    "MEASURES",
    "REGISTRY",
    "InputError",
    "Judged",
    "Qrels",
    "Ranked",
    "RankscopeWarning",
    "Run",
    "RunEvaluation",
    "Vocabulary",
    "evaluate",
    "evaluate_judged",
    "evaluate_many",
    "format_trec",
    "judge",
    "parse_measures",
    "read_qrels",
    "read_run",
]
