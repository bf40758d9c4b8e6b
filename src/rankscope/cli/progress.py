"""Progress of long work on stderr: a tqdm bar (the ``progress`` extra, ``pip install
'rankscope[progress]'``) when stderr is a terminal and ``--quiet`` was not given; nothing
otherwise (without tqdm, in a pipe, in a log file), so that output stays clean for scripts."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: What long work calls as it advances: (steps done, steps in all).
Progress = Callable[[int, int], None]


@contextmanager
def progress_bar(description: str, quiet: bool = False) -> Iterator[Progress | None]:
    """A callback drawing a progress bar on stderr, or None when none is to be drawn."""
    if quiet or not sys.stderr.isatty():
        yield None
        return
    try:
        from tqdm import tqdm
    except ImportError:  # the progress extra is not installed: no bar
        yield None
        return
    bar = tqdm(desc=description, file=sys.stderr, leave=False, unit="step")

    def update(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)

    try:
        yield update
    finally:
        bar.close()
