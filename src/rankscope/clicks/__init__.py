"""Evaluation from log data (issue 15): click logs and click models, counterfactual estimators,
interleaving from clicks, and RPP's pseudo-population weights learned from labelled
preferences.

The learned weights live with RPP (`rankscope.preference.learned`) and are re-exported here:
`learn_weights` fits them to labelled preferences ``(query, run_a, run_b, label)`` (editorial
judgments, interleaving outcomes, a metric's preferences: `pairs_from_scores`), `assess`
compares them on held-out queries with uniform, dcg and inverse weights, `read_pairs` reads
labelled pairs.
"""

from __future__ import annotations

from ..preference.learned import (
    Assessment,
    LearnedWeights,
    agreement,
    assess,
    learn_weights,
    pairs_from_scores,
)
from ..read.pairs import LabelledPairs, read_pairs

__all__ = [
    "Assessment",
    "LabelledPairs",
    "LearnedWeights",
    "agreement",
    "assess",
    "learn_weights",
    "pairs_from_scores",
    "read_pairs",
]
