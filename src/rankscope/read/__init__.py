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
  and the runs' names;
* `ahead`: the command line's reading ahead of a small run, or of the first block of a large one
  (`trec` takes what it read; `cuts` finds where a block ends, without numpy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

#: Public names, imported from their module on first use, so that the command line may
#: start reading ahead (`ahead`, which imports no numpy) before anything else is imported.
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "runs": ["unique_run_names"],
        "sources": ["read_doc_lengths", "read_qrels", "read_run", "resolve_runs"],
    },
)

if TYPE_CHECKING:  # pragma: no cover
    from .runs import unique_run_names  # noqa: F401
    from .sources import read_doc_lengths, read_qrels, read_run, resolve_runs  # noqa: F401
