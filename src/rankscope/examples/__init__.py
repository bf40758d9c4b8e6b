"""A small example collection made by the project (tools/make_example.py): graded qrels for
25 queries and three runs (strong, medium, weak)."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def example_paths() -> tuple[Path, list[Path]]:
    """(qrels path, [run paths]) of the bundled example collection."""
    return HERE / "qrels.txt", sorted(HERE.glob("run.*.txt"))
