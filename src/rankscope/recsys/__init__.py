"""Recommender-system evaluation: rating prediction, top-N accuracy and beyond accuracy.

>>> import rankscope
>>> table = rankscope.evaluate_recsys("u1.test", "knn.tsv", ["P@10", "nDCG@10", "Novelty@10"],
...                                   train="u1.base", features="u.item")  # doctest: +SKIP

Test interactions become judgments and recommendation lists a run, so the top-N accuracy
measures are rankscope's trec_eval-exact kernels; see docs/recsys.md for every formula,
default and policy.  The offline protocol: `splits` (holdout, temporal, leave-one-out,
K-fold) makes training and test data from a log, `evaluate_folds` evaluates systems over
the folds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

from ..model import Interactions as Interactions
from ..model import ItemFeatures as ItemFeatures
from ..read.features import read_item_features as read_item_features
from ..read.groups import read_item_groups as read_item_groups
from ..read.interactions import read_interactions as read_interactions
from ..read.recommendations import read_recommendations as read_recommendations

#: Names imported from their module on first use; ``splits`` is reached as an attribute
#: (``rankscope.recsys.splits.kfold``).  The readers and data above are rankscope's own,
#: listed here for users of the recommender evaluation.
__getattr__, __dir__, _lazy = lazy_loader.attach(
    __name__,
    submodules=["splits"],
    submod_attrs={
        "systems": ["SystemEvaluation"],
        "diagnostics": ["reliability", "coverage_accuracy", "group_exposure"],
        "folds": ["evaluate_folds", "FoldsEvaluation"],
        "splits": ["Split"],
        "registry": ["MEASURES", "REGISTRY", "parse"],
        "sampled": [
            "sampled_evaluate", "sampled_evaluate_systems", "corrected_metric",
            "sampled_rank_distribution", "ScoreMatrix", "SampledResult",
        ],
    },
)  # fmt: skip

__all__ = sorted(
    {*_lazy, "Interactions", "ItemFeatures", "read_item_groups", "read_interactions",
     "read_item_features", "read_recommendations"} - {"splits"}
)  # fmt: skip

if TYPE_CHECKING:  # pragma: no cover
    from . import splits  # noqa: F401
    from .diagnostics import coverage_accuracy, group_exposure, reliability  # noqa: F401
    from .folds import FoldsEvaluation, evaluate_folds  # noqa: F401
    from .registry import MEASURES, REGISTRY, parse  # noqa: F401
    from .sampled import (  # noqa: F401
        SampledResult,
        ScoreMatrix,
        corrected_metric,
        sampled_evaluate,
        sampled_evaluate_systems,
        sampled_rank_distribution,
    )
    from .splits import Split  # noqa: F401
    from .systems import SystemEvaluation  # noqa: F401
