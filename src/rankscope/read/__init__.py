"""The one input layer: bytes and frames → `rankscope.model`.

* `trec`: TREC qrels, diversity qrels and runs (with the compiled reader when built);
* `prefs`: trec_eval's preference, judgment-group and z-score files;
* `frames`: DataFrames, Arrow tables, Parquet files and dicts;
* `interactions`, `recommendations`, `features`: the recommender inputs (interaction logs,
  recommendation lists, item features);
* `impressions`: logs of shown results (clicks, rewards, propensities, interleaved teams),
  one schema of column roles (`rankscope.clicks`);
* `delimited`: the delimited-text tokenizer the log readers share;
* `labels`: several assessors' labels, ``qid assessor docno grade`` (assessor agreement);
* `sources`: anything a user passes (paths, directories, frames, dicts) → `Qrels` / `Run`,
  and the runs' names.
"""

from .sources import read_doc_lengths, read_qrels, read_run, resolve_runs, unique_run_names

__all__ = ["read_doc_lengths", "read_qrels", "read_run", "resolve_runs", "unique_run_names"]
