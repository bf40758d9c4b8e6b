"""Reading TREC files ahead, in a thread, while the command line is still importing.

``rankscope eval QRELS RUN`` spends most of a small run's time starting: numpy's import
alone takes longer than the compiled reader's parse of a 10 MB run.  The parse needs neither
numpy nor the Python interpreter (`rankscope.model`'s compiled ``Parser`` lets go of the
GIL while it scans and interns), so the command line starts it first (`reading_ahead`): a
thread reads the judgments and the run whole and feeds each to a ``Parser``, into id tables
of its own, while the main thread imports the evaluation.  The reader
(`rankscope.read.trec`) then takes what was read ahead (`taken`) in place of reading the
file itself, where that gives exactly what it would have read: the same file, unchanged,
plain text, parsed into vocabularies that hold what the thread's id tables started from
(`rankscope.model.Vocabulary.continues`).  Everything the reader says about the file (its
errors, its warnings, their line numbers) it still says itself, from the same bytes and the
parser's outcome, where it would have; anything else is read as before.

A run too long to read ahead whole that is to be read here in blocks (``blocks``: one
process, `rankscope.table.many`) has its first block read ahead instead: its first
`first_block` bytes (16 MB), cut where a query's lines end as `rankscope.read.blocks`
cuts it, its documents the judgments lack numbered query by query, as a block is read.
The block's parse, ~0.15 s for 16 MB, then runs beside the imports rather than after them;
then the thread makes the buffers the next blocks' texts are to be read into
(`ready_buffer`), their pages written: ~20 ms each that the kernel would otherwise spend
on the thread reading the blocks, once the imports are done.

This module imports neither numpy nor any other module of rankscope's reading path (which
import numpy): only the compiled module.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

from ..model import available_cores, native
from .cuts import block_bytes_here, block_end, first_block, parsed_at_once, text_buffer_bytes

#: The largest file read ahead (16 MB: a run that long parses in ~0.1 s, about what the
#: imports of ``rankscope eval`` take; a longer one is read in pieces, or blocks, as it is
#: needed).
LARGEST = 16 << 20


def stamp(status: os.stat_result) -> tuple[int, ...]:
    """What tells a file's version apart: its device, inode, size and modification time."""
    return status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns


class Ahead(NamedTuple):
    """A file read and parsed ahead: its bytes, the ``Parser`` fed them whole (``fed``: what
    its ``feed`` gave, the bytes used or an error's description), the id tables it interned
    into, and what each of those started as: a copy of an id table holding so many ids
    (None: empty).  ``block``: the bytes are a run's first block, not the whole file, its
    documents numbered query by query (``docs`` a per-query copy: `Vocabulary.scoped`)."""

    stamp: tuple[int, ...]
    data: bytes
    parser: Any
    fed: Any
    queries: Any
    docs: Any
    origins: tuple[tuple[Any, int] | None, tuple[Any, int] | None]
    block: bool = False


#: The files being read ahead, by path and kind (a run or not): each one's event, set once
#: it is read, and then its `Ahead` (None: not readable ahead).
_DONE: dict[tuple[str, bool], threading.Event] = {}
_READ: dict[tuple[str, bool], Ahead | None] = {}
#: The buffers made for the texts of a run's next blocks, not taken yet (`ready_buffer`).
_BUFFERS: list[bytearray] = []
_BUFFERS_LOCK = threading.Lock()

#: The name of the reading thread.
THREAD = "rankscope-read-ahead"


@contextmanager
def reading_ahead(qrels: str, runs: Sequence[str], blocks: bool = False) -> Iterator[None]:
    """Within the block, the judgments file ``qrels`` and then the run file of ``runs``
    (one run; none: nothing is read ahead) are read and parsed in a thread, when the
    compiled reader is built and each is a plain file of at most `LARGEST` bytes, or (with
    ``blocks``: the run, if longer than a block, is read in blocks in this process) the
    run a plain text file longer than both: its first block then; at the block's end,
    whatever the reader did not take is dropped."""
    fast = native()
    run = runs[0] if len(runs) == 1 else "-"
    block_bytes = block_bytes_here(available_cores())  # (as `rankscope.table.many` reads it)
    block = blocks and _blocked(run, block_bytes)
    files = all(p != "-" for p in (qrels, run)) and _small(qrels) and (block or _small(run))
    if fast is None or _DONE or not files:  # (``-``: standard input, whatever file so named)
        yield
        return
    events = threading.Event(), threading.Event()
    _DONE[(qrels, False)], _DONE[(run, True)] = events
    thread = threading.Thread(
        target=_read_both,
        args=(fast, qrels, run, block_bytes if block else 0, events),
        name=THREAD,
    )
    thread.start()
    try:
        yield
    finally:
        thread.join()
        _DONE.clear()
        _READ.clear()
        _BUFFERS.clear()


def _small(path: str) -> bool:
    """Whether ``path`` is a plain file of at most `LARGEST` bytes: a file read ahead (not
    ``-``, an ir_datasets id, a directory of runs).  Anything else is read as before, and no
    thread runs meanwhile: the evaluation may share a larger run among worker processes,
    forked while only one thread runs."""
    try:
        status = os.stat(path)
    except OSError:
        return False
    return stat.S_ISREG(status.st_mode) and 0 < status.st_size <= LARGEST


def _blocked(path: str, block_bytes: int) -> bool:
    """Whether ``path`` is a plain file too long to read ahead whole and longer than a
    block (``block_bytes``), not gzipped: a run read in blocks, whose first is read ahead."""
    try:
        with open(path, "rb") as raw:
            status = os.fstat(raw.fileno())
            return (
                stat.S_ISREG(status.st_mode) and status.st_size > max(LARGEST, block_bytes)
                and raw.read(2) != b"\x1f\x8b"
            )  # fmt: skip
    except OSError:
        return False


def pending(path: Any, is_run: bool = True) -> bool:
    """Whether ``path`` is being read ahead as a run (``is_run``) or as judgments, and not
    taken yet: its reader need not make room for its ids (`rankscope.model.Vocabulary`'s
    ``scoped``): they are in the id table it is to take."""
    return bool(_DONE) and isinstance(path, str | os.PathLike) and (
        os.fspath(path), is_run) in _DONE  # fmt: skip


def taken(path: Any, is_run: bool) -> Ahead | None:
    """What was read ahead of ``path`` as judgments or as a run (waiting for it), taken
    once; None if nothing was, or the file has changed since."""
    if not _DONE or not isinstance(path, str | os.PathLike):
        return None
    key = (os.fspath(path), is_run)
    done = _DONE.pop(key, None)
    if done is None:
        return None
    done.wait()
    ahead = _READ.pop(key, None)
    try:
        if ahead is None or stamp(os.stat(path)) != ahead.stamp:
            return None
    except OSError:
        return None
    return ahead


def ready_buffer(size: int) -> bytearray | None:
    """A buffer of at least ``size`` bytes made ready for the text of one of the blocks
    after the first of a run read in blocks (`rankscope.table.many`), its pages already
    written, taken once; None if none is ready."""
    with _BUFFERS_LOCK:
        for k, buffer in enumerate(_BUFFERS):
            if len(buffer) >= size:
                return _BUFFERS.pop(k)
    return None


def _read_both(
    fast: Any, qrels: str, run: str, block_bytes: int, events: tuple[threading.Event, ...]
) -> None:
    """The thread's work: the judgments parsed into new id tables, then the run (its first
    block, if read in blocks of ``block_bytes``; 0: whole) into copies of them (as the
    reader reads a run: into vocabularies scoped from the judgments')."""
    try:
        judged = _parsed(fast, qrels, False, fast.Interner(), fast.Interner(), (None, None))
        _READ[(qrels, False)] = judged
        if judged is not None and isinstance(judged.fed, int):
            queries, docs = judged.queries, judged.docs
            origins = ((queries, len(queries)), (docs, len(docs)))
            copies = queries.copy(), docs.copy()
            if block_bytes:
                copies[1].per_query()
            events[0].set()
            _READ[(run, True)] = _parsed(fast, run, True, *copies, origins, block_bytes)
            if block_bytes:
                events[1].set()  # (the block, before the buffers for the next ones)
                # as many as the blocks' texts take turns in, each as long as the reader
                # makes one for a block (`rankscope.table.many._Scratch`)
                for _ in range(parsed_at_once(available_cores())):
                    buffer = fast.zeroed_buffer(text_buffer_bytes(block_bytes))
                    with _BUFFERS_LOCK:
                        _BUFFERS.append(buffer)
    except Exception:  # noqa: S110 (the reader reads what is missing as before, and says
        pass  # what is wrong with it; this thread says nothing: it runs beside the command)
    finally:
        for event in events:
            event.set()


def _parsed(
    fast: Any, path: str, is_run: bool, queries: Any, docs: Any, origins: tuple,
    block_bytes: int = 0,
) -> Ahead | None:  # fmt: skip
    """``path`` read whole (or its first block, if read in blocks of ``block_bytes``) and
    fed to a ``Parser`` into ``queries`` and ``docs``; None when it is not a plain file of
    at most `LARGEST` bytes (of more than ``block_bytes``, if read in blocks), or cannot be
    read."""
    try:
        with open(path, "rb") as raw:
            status = os.fstat(raw.fileno())
            size = status.st_size
            if not stat.S_ISREG(status.st_mode) or not (
                size > block_bytes if block_bytes else 0 < size <= LARGEST
            ):
                return None
            fd = raw.fileno()
            end = size
            if block_bytes:  # (cut as `rankscope.read.blocks.run_blocks` cuts it)
                at_most = first_block(block_bytes)
                end = block_end(lambda at, n: os.pread(fd, n, at), 0, size, at_most)
            data = raw.read(end)
    except OSError:
        return None
    if len(data) != end:
        return None
    parser = fast.Parser(queries, docs, is_run)
    parser.serial()  # (this thread alone: the other core imports)
    fed = parser.feed(data, True)
    return Ahead(stamp(status), data, parser, fed, queries, docs, origins, bool(block_bytes))
