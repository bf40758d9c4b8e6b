"""Evaluation from log data: click logs, click models, counterfactual estimators,
interleaving from clicks, and RPP's pseudo-population weights learned from labelled
preferences.

* `read_impressions` / `write_clicks`: logs of shown results (``session query position doc
  click`` and optional timestamp, ranking, team and propensity columns) from text files,
  DataFrames, Parquet or dicts, into an `ImpressionLog` (`rankscope.read.impressions`: one
  schema of column roles for click models, estimators and interleaving);
* `fit`: a click model fitted to a log — PBM, UBM, DBN by EM, CM and SDBN in closed form
  (Chuklin, Markov & de Rijke 2015) — with click probabilities, attractiveness and
  satisfaction per (query, document), examination per position, and held-out
  log-likelihood and perplexity (`ClickModel.evaluate`);
* `simulate`: clicks drawn (seeded) from a fitted or named model on a run's rankings, its
  parameters from the judgments' grades (`rankscope.simulate_clicks` reads the run and the
  judgments from files first);
* `estimators`: counterfactual estimates of a ranking policy's clicks from a log of another
  policy's rankings with its propensities (IPS, SNIPS, IIPS, RIPS, PBM, DM, DR,
  cascade-DR; seeded bootstrap intervals);
* online interleaving from a click log of interleaved lists lives in its own package,
  `rankscope.interleaving` (with offline interleaving over the same table of methods);
* the learned weights live with RPP (`rankscope.preference.learned`) and are re-exported
  here: `learn_weights` fits them to labelled preferences ``(query, run_a, run_b, label)``
  (editorial judgments, interleaving outcomes, a metric's preferences: `pairs_from_scores`),
  `assess` compares them on held-out queries with uniform, dcg and inverse weights,
  `read_pairs` reads labelled pairs.

>>> import rankscope, rankscope.clicks as clicks
>>> log = rankscope.simulate_clicks("pbm", "run.txt", "qrels.txt", seed=1)          # doctest: +SKIP
>>> train, test = log.split(0.2, seed=1)                                            # doctest: +SKIP
>>> clicks.fit(train, model="ubm").evaluate(test).perplexity                        # doctest: +SKIP
"""

from __future__ import annotations

from ..model import ImpressionLog
from ..preference.learned import (
    Assessment,
    LearnedWeights,
    agreement,
    assess,
    learn_weights,
    pairs_from_scores,
)
from ..read.impressions import CLICK_ROLES, check_click_log, read_impressions
from ..read.pairs import LabelledPairs, read_pairs
from .estimators import (
    ESTIMATORS,
    ClickModelReward,
    EmpiricalRewardModel,
    Estimate,
    Estimator,
    RewardModel,
    TargetPolicy,
    estimate,
    ranking_policy,
    stochastic_policy,
)
from .logs import write_clicks
from .models import (
    CM,
    DBN,
    MODELS,
    PBM,
    SDBN,
    UBM,
    ClickModel,
    HeldOut,
    PairParameters,
    fit,
    from_dict,
)
from .simulate import attractiveness_of_grades, model_from_judgments, simulate

__all__ = [
    "ClickModelReward",
    "Assessment",
    "CLICK_ROLES",
    "CM",
    "ClickModel",
    "DBN",
    "ESTIMATORS",
    "EmpiricalRewardModel",
    "Estimate",
    "Estimator",
    "HeldOut",
    "ImpressionLog",
    "LabelledPairs",
    "LearnedWeights",
    "MODELS",
    "PBM",
    "PairParameters",
    "RewardModel",
    "SDBN",
    "TargetPolicy",
    "UBM",
    "agreement",
    "assess",
    "attractiveness_of_grades",
    "check_click_log",
    "estimate",
    "fit",
    "from_dict",
    "learn_weights",
    "model_from_judgments",
    "pairs_from_scores",
    "ranking_policy",
    "read_impressions",
    "read_pairs",
    "simulate",
    "stochastic_policy",
    "write_clicks",
]
