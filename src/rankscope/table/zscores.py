"""Z-scores (trec_eval ``-Z``): each per-query value standardised against reference runs.

trec_eval reads a table of ``qid measure mean stddev`` (the mean and standard deviation of
each measure on each query over some reference set of runs) and replaces every per-query
value v by (v − mean) / stddev before averaging, so that the summary is the mean z-score
(Webber, Moffat & Zobel, "Score standardization for inter-collection comparison of
retrieval systems", SIGIR 2008).  Its rules, kept here:

* a query missing from the table, or a measure missing for the query, gets the value
  ``MISSING_ZSCORE`` (-1000000);
* a standard deviation of 0 gives 0 when the value equals the mean, else ``MISSING_ZSCORE``;
* ``runid``, ``relstring`` (text) and ``num_q`` (a count of queries) are not standardised;
  ``num_rel`` under ``-c`` keeps its count of relevant documents, as in trec_eval;
* the summaries are computed from the z-scores as from the values (mean, sum or geometric
  mean), and every standardised line prints as ``Z<name>`` with 4 decimals.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..model import ZScores
from .evaluation import RunEvaluation, summarise


def to_zscores(result: RunEvaluation, zscores: ZScores) -> RunEvaluation:
    """A `RunEvaluation` whose numeric per-query values are z-scores, summaries recomputed."""
    values = []
    for request, column in zip(result.requests, result.values, strict=True):
        if request.measure.value == "str" or request.measure.describes_run:
            values.append(column)
            continue
        label = request.label
        values.append(
            np.array(
                [
                    zscores.standardise(qid, label, float(v))
                    for qid, v in zip(result.query_ids, column.tolist(), strict=True)
                ],
                dtype=np.float64,
            )
        )
    summary = [
        summarise(r, col, result.runid or result.run_name, result.complete_num_rel)
        for r, col in zip(result.requests, values, strict=True)
    ]
    return dataclasses.replace(result, values=values, summary=summary, zscores=True)
