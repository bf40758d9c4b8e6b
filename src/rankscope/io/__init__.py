"""Readers and writers: TREC text files, DataFrames, Parquet, dicts."""

from .frames import write_parquet
from .prefs import read_prefs, read_qrels_jg, read_qrels_prefs, read_zscores
from .trec import (
    format_qrels,
    format_run,
    read_diversity_qrels,
    read_qrels,
    read_run,
    resolve_duplicates,
)

__all__ = [
    "format_qrels",
    "format_run",
    "read_diversity_qrels",
    "read_prefs",
    "read_qrels",
    "read_qrels_jg",
    "read_qrels_prefs",
    "read_run",
    "read_zscores",
    "resolve_duplicates",
    "write_parquet",
]
