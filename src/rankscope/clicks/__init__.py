"""Evaluation from log data: counterfactual (off-policy) estimators of a ranking policy's
click-based metric from a log collected under another policy (`estimators`)."""

from .estimators import (
    ESTIMATORS,
    EmpiricalRewardModel,
    Estimate,
    Estimator,
    RewardModel,
    TargetPolicy,
    estimate,
    ranking_policy,
    stochastic_policy,
)

__all__ = [
    "ESTIMATORS",
    "EmpiricalRewardModel",
    "Estimate",
    "Estimator",
    "RewardModel",
    "TargetPolicy",
    "estimate",
    "ranking_policy",
    "stochastic_policy",
]
