"""Runs once read: their names (by tag or by file, collisions told apart) and the check that a
run shares a query with the judgments.  Every front door names runs through here, and the
evaluations that read runs one at a time (`rankscope.table.many`) check them here."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, UsageError, warn
from ..model import Run, check_distinct_names


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class _Named:
    """A run's name and where it was read from, while `run_names` names the runs (never
    compared, hashed or shown: the decorator writes only ``__init__``, and the frozen
    class's guards, when ``rankscope eval`` starts)."""

    name: str
    source: str


def run_names(
    runs: Sequence[tuple[str, str]], names: str = "file", distinct_for: str | None = None
) -> list[str]:
    """The names of runs read as ``(name, source)`` (see
    `rankscope.read.sources.resolve_runs`): tags that collide replaced by file names
    (``names="tag"``), two files of one name an error (``names="file"``), one file given
    twice a warning, or an error with ``distinct_for``."""
    named = [_Named(n, s) for n, s in runs]
    if distinct_for is not None:
        files = [r.source for r in named if not r.source.startswith("<")]
        twice = next((f for f in files if files.count(f) > 1), None)
        if twice is not None:
            raise UsageError(f"{twice} is given twice: runs must be distinct for {distinct_for}")
    if names == "tag":
        named = unique_run_names(named)
        if distinct_for is not None:
            check_distinct_names(named, distinct_for)
        return [r.name for r in named]
    named = _by_path(named)
    seen: dict[str, _Named] = {}
    for run in named:
        if run.name in seen and seen[run.name].source == run.source:
            warn(f"{run.source} is given twice; its runs are told apart by position")
        elif run.name in seen:
            raise UsageError(
                f"two runs are named {run.name!r}: {seen[run.name].source} and {run.source} "
                "(rename a file, or name the runs by their tags: --names tag, names='tag')"
            )
        seen[run.name] = run
    return [r.name for r in named]


def _by_path(runs: list[Any]) -> list[Any]:
    """``runs`` (anything with a ``name`` and a ``source``) where those named after their
    files share a name though read from different files are named by the
    shortest end of their paths that tells them apart (``pop/u1``, ``knn/u1``)."""
    names = [r.name for r in runs]
    files: dict[str, set[str]] = {}
    for r in runs:
        by_file = r.name == file_stem(r.source) and not r.source.startswith("<")
        if by_file and names.count(r.name) > 1:
            files.setdefault(r.name, set()).add(r.source)
    renamed = {}
    for sources in (s for s in files.values() if len(s) > 1):
        parts = {s: Path(s).parent.parts for s in sources}
        for depth in range(1, max(len(p) for p in parts.values()) + 1):
            ends = {s: "/".join((*p[len(p) - depth :], file_stem(s))) for s, p in parts.items()}
            if len(set(ends.values())) == len(ends):
                renamed.update(ends)
                break
    return [
        dataclasses.replace(r, name=renamed[r.source])
        if r.source in renamed and r.name == file_stem(r.source)
        else r
        for r in runs
    ]


def baseline_name(baseline: str | None, runs: Sequence[tuple[str, Any]]) -> str | None:
    """The name of the run ``baseline`` names among ``runs`` (``(name, source)`` pairs, as
    read): a run's name, or the path of one of the run files as given (``--baseline
    runs/IELAB_01.txt``, the run named ``IELAB_01``); anything else unchanged, for the
    caller's check to refuse with the list of names."""
    if baseline is None or any(n == baseline for n, _ in runs):
        return baseline
    for name, source in runs:
        if isinstance(source, str | os.PathLike) and _same_path(baseline, source):
            return name
    return baseline


def _same_path(path: str, other: str | os.PathLike) -> bool:
    if os.fspath(path) == os.fspath(other):
        return True
    try:
        return os.path.samefile(path, other)
    except (OSError, ValueError):
        return False


def _present(codes: np.ndarray) -> np.ndarray:
    """The distinct codes of ``codes`` (non-negative vocabulary codes), ascending: what
    ``np.unique`` gives, without the import of numpy.ma that its first call makes (a tenth of
    `rankscope eval`'s cold start)."""
    return np.flatnonzero(np.bincount(codes))


def check_common_queries(judgments: Any, runs: list[Run]) -> None:
    """Raise `InputError` for a run that ranks queries, none of them judged: nothing can be
    compared (usually the wrong file), where the evaluation would print a table of zeros.
    ``judgments``: `Qrels` or any judgments with ``queries`` and ``query`` codes."""
    for run in runs:
        ranked = run.queries.strings_of(_present(run.query))
        error = no_common_query(judgments, run.name, run.source, ranked)
        if error is not None:
            raise error


def no_common_query(
    judgments: Any, name: str, source: str, ranked: Sequence[str]
) -> InputError | None:
    """`check_common_queries`'s error for the run ``name`` read from ``source``, which ranks
    the queries ``ranked``; None when it shares a query with the judgments (or either side
    has none)."""
    judged = set(judgments.queries.strings_of(_present(judgments.query)))
    ranked = sorted(ranked)
    if not judged or not ranked or not judged.isdisjoint(ranked):
        return None
    shown = sorted(judged)
    return InputError(
        f"run '{name}' ({source}) and the judgments "
        f"({getattr(judgments, 'source', 'given')}) have no query in common: nothing "
        f"to compare (the run ranks {_few(ranked)}; the judgments are for "
        f"{_few(shown)}); are these the right files?"
    )


def _few(ids: list[str], n: int = 3) -> str:
    return ", ".join(ids[:n]) + (f", ... {len(ids) - n} more" if len(ids) > n else "")


def file_stem(source: str) -> str:
    """A system's name from its file: the file name without ``.gz`` and one extension of
    a run or a list (``.txt``, ``.run``, ``.trec``, ``.tsv``, ``.csv``, ``.dat``; and
    ``.parquet``, as `read_run` names a Parquet run)."""
    name = Path(source).name.removesuffix(".gz")
    for suffix in (".txt", ".run", ".trec", ".tsv", ".csv", ".dat", ".parquet"):
        name = name.removesuffix(suffix)
    return name


def unique_run_names(runs: list[Any]) -> list[Any]:
    """Runs (or anything with a ``name`` and a ``source``) whose tags collide are named
    after their files instead (and said so)."""
    names = [r.name for r in runs]
    clash = {n for n in names if names.count(n) > 1}
    if not clash:
        return runs
    out = []
    for r in runs:
        if r.name in clash and not r.source.startswith("<"):
            r = dataclasses.replace(r, name=file_stem(r.source))
        out.append(r)
    out = _by_path(out)
    renamed = [r.name for r in out]
    if len(set(renamed)) != len(renamed):
        dup = sorted({n for n in renamed if renamed.count(n) > 1})
        warn(f"several runs share a name ({', '.join(dup)}); rows are told apart by position")
    else:
        files = [r.name for r, before in zip(out, names, strict=True) if before in clash]
        warn(
            f"runs tagged {', '.join(sorted(clash))} come from several files; "
            f"they are named after their files ({', '.join(files)})"
        )
    return out
