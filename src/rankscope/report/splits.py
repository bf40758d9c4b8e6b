"""Splits of an interaction log (`rankscope.recsys.splits`) written as MovieLens-style files:
``u1.base``/``u1.test``, ``u2.base``/``u2.test``, ..., tab-separated ``user item [rating
[timestamp]]`` lines (the columns the log has; a log with timestamps but no ratings gets a
``user item timestamp`` header, so that its third column is not read back as ratings), rows
in the log's order, numbers that are whole written without a decimal point (``5``,
``881250949``) and others exactly (``3.5``)."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..atomic import atomic_directory
from ..errors import UsageError
from ..model import Interactions
from ..recsys.splits import Split


def _numbers(values: np.ndarray) -> list[str]:
    whole = np.isfinite(values) & (values == np.floor(values)) & (np.abs(values) < 2**53)
    if whole.all():
        return values.astype(np.int64).astype(str).tolist()
    return [str(int(x)) if w else repr(x) for x, w in zip(values.tolist(), whole, strict=True)]


def format_log(log: Interactions) -> str:
    """The log as tab-separated ``user item [rating [timestamp]]`` lines."""
    columns = [log.users.strings_of(log.user), log.items.strings_of(log.item)]
    if log.rating is not None:
        columns.append(_numbers(log.rating))
        if log.timestamp is not None:
            columns.append(_numbers(log.timestamp))
    header = ""
    if log.rating is None and log.timestamp is not None:
        # a third column would be read back as ratings: a header names it
        columns.append(_numbers(log.timestamp))
        header = "user\titem\ttimestamp\n"
    for ids, what in ((columns[0], "user"), (columns[1], "item")):
        bad = next((i for i in ids if "\t" in i or "\n" in i or "\r" in i), None)
        if bad is not None:
            raise UsageError(
                f"{log.source}: {what} id {bad[:40]!r} holds a tab or a line break: it "
                "cannot be written as a tab-separated line"
            )
    return header + "".join("\t".join(fields) + "\n" for fields in zip(*columns, strict=True))


def split_paths(directory: str | os.PathLike, count: int, prefix: str = "u") -> list[Path]:
    """The files `write_splits` writes: ``DIR/u1.base``, ``DIR/u1.test``, ..."""
    root = Path(directory)
    return [root / f"{prefix}{i}.{part}" for i in range(1, count + 1) for part in ("base", "test")]


def write_splits(
    splits: Sequence[Split],
    directory: str | os.PathLike,
    *,
    force: bool = False,
    prefix: str = "u",
) -> list[Path]:
    """Write each split as ``DIR/{prefix}N.base`` (training) and ``DIR/{prefix}N.test``,
    N from 1, as one directory: built beside ``DIR`` and swapped in whole once complete
    (`rankscope.atomic.atomic_directory`), so that a write cut short leaves the older
    directory, and an older split (of more folds) is replaced entirely, never mixed with
    the new one.  An existing ``DIR`` is a `UsageError` (nothing is written) when it holds
    any file but a split's (``u1.base``, ...: they would be lost with it), and when it holds
    a split, unless ``force``.  Returns the paths written."""
    paths = split_paths(directory, len(splits), prefix)
    root = Path(directory)
    if root.exists() and not root.is_dir():
        raise UsageError(f"{root} is not a directory")
    present = sorted(p.name for p in root.iterdir()) if root.is_dir() else []
    split_file = re.compile(rf"{re.escape(prefix)}[0-9]+\.(base|test)")
    other = [name for name in present if not split_file.fullmatch(name)]
    if other:
        shown = ", ".join(other[:2]) + (", ..." if len(other) > 2 else "")
        raise UsageError(
            f"{root} holds files that are not a split's ({shown}): a split replaces its "
            "directory whole; name a new or empty directory"
        )
    if present and not force:
        existing = [str(root / name) for name in present]
        shown = ", ".join(existing[:2]) + (", ..." if len(existing) > 2 else "")
        raise UsageError(
            f"{shown} already exist{'s' if len(existing) == 1 else ''}: "
            "give force=True to overwrite",
            cli=f"{shown} already exist{'s' if len(existing) == 1 else ''}: --force overwrites",
        )
    root.parent.mkdir(parents=True, exist_ok=True)
    with atomic_directory(root) as built:
        for i, split in enumerate(splits):
            (built / paths[2 * i].name).write_text(format_log(split.train), encoding="utf-8")
            (built / paths[2 * i + 1].name).write_text(format_log(split.test), encoding="utf-8")
    return paths
