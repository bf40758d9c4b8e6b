"""Recommender-system evaluation: rating prediction, top-N accuracy and beyond accuracy.

>>> from rankscope import recsys
>>> table = recsys.evaluate("u1.test", "knn.tsv", ["P@10", "nDCG@10", "Novelty@10"],
...                         train="u1.base", features="u.item")  # doctest: +SKIP

Test interactions become judgments and recommendation lists a run, so the top-N accuracy
measures are rankscope's trec_eval-exact kernels; see docs/recsys.md for every formula,
default and policy.  The offline protocol: `splits` (holdout, temporal, leave-one-out,
K-fold) makes training and test data from a log, `evaluate_folds` evaluates systems over
the folds.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "evaluate": "api",
    "evaluate_systems": "api",
    "SystemEvaluation": "api",
    "reliability": "diagnostics",
    "coverage_accuracy": "diagnostics",
    "group_exposure": "diagnostics",
    "read_item_groups": "..read.groups",
    "evaluate_folds": "folds",
    "FoldsEvaluation": "folds",
    "Split": "splits",
    "Interactions": "..model",
    "ItemFeatures": "..model",
    "read_interactions": "..read.interactions",
    "read_recommendations": "..read.recommendations",
    "read_item_features": "..read.features",
    "MEASURES": "registry",
    "REGISTRY": "registry",
    "parse": "registry",
    "sampled_evaluate": "sampled",
    "sampled_evaluate_systems": "sampled",
    "corrected_metric": "sampled",
    "sampled_rank_distribution": "sampled",
    "ScoreMatrix": "sampled",
    "SampledResult": "sampled",
}

#: Modules reached as attributes (``rankscope.recsys.splits.kfold``).
_MODULES = ("splits",)

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(f".{name}", __name__)
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rankscope.recsys' has no attribute {name!r}")
    path = module if module.startswith(".") else f".{module}"
    value = getattr(importlib.import_module(path, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS) | set(_MODULES))
