"""Evaluation from log data: click logs, click models, and (in sibling modules)
counterfactual estimators and interleaving from clicks.

* `read_clicks` / `write_clicks`: click logs (``session query position doc clicked``
  [``timestamp``] [``ranking``]) from text files, DataFrames or Parquet, into a `ClickLog`;
* `fit`: a click model fitted to a log — PBM, UBM, DBN by EM, CM and SDBN in closed form
  (Chuklin, Markov & de Rijke 2015) — with click probabilities, attractiveness and
  satisfaction per (query, document), examination per position, and held-out
  log-likelihood and perplexity (`ClickModel.evaluate`);
* `simulate`: clicks drawn (seeded) from a fitted or named model on a run's rankings, its
  parameters from the judgments' grades.

>>> import rankscope.clicks as clicks
>>> log = clicks.simulate("pbm", "run.txt", "qrels.txt", sessions=10_000, seed=1)  # doctest: +SKIP
>>> train, test = log.split(0.2, seed=1)                                            # doctest: +SKIP
>>> clicks.fit(train, model="ubm").evaluate(test).perplexity                        # doctest: +SKIP
"""

from .logs import ClickLog, read_clicks, write_clicks
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
    "CM",
    "DBN",
    "MODELS",
    "PBM",
    "SDBN",
    "UBM",
    "ClickLog",
    "ClickModel",
    "HeldOut",
    "PairParameters",
    "attractiveness_of_grades",
    "fit",
    "from_dict",
    "model_from_judgments",
    "read_clicks",
    "simulate",
    "write_clicks",
]
