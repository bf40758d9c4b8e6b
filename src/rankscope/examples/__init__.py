"""A small example collection made by the project (tools/make_example.py): graded qrels for
25 queries and three runs (strong, medium, weak); and a synthetic A/B test of 4,000 users
(tools/make_example_experiment.py), for ``rankscope ab``."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def example_paths() -> tuple[Path, list[Path]]:
    """(qrels path, [run paths]) of the bundled example collection."""
    return HERE / "qrels.txt", sorted(HERE.glob("run.*.txt"))


def example_experiment() -> Path:
    """The path of the bundled example experiment (one row per user: variant, converted,
    revenue, clicks, impressions, pre_revenue, segment, timestamp)."""
    return HERE / "experiment.tsv"
