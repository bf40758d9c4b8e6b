"""Readers and writers: TREC text files, DataFrames, Parquet, dicts."""

from .frames import write_parquet
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
    "read_qrels",
    "read_run",
    "resolve_duplicates",
    "write_parquet",
]
