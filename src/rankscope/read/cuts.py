"""Where a block of a TREC run file ends: where one query's lines end and the next
query's begin, found with a few reads near the block's target length (`cut`).

Apart from `rankscope.read.blocks` (which cuts a file into its blocks) so that it imports
nothing but the standard library: the command line's reading ahead (`rankscope.read.ahead`)
cuts the first block of a large run while numpy is still being imported, once it knows that
the run's blocks are to be evaluated in this process (`in_this_process`).
"""

from __future__ import annotations

from collections.abc import Callable

# What one block holds at most (a query longer than this makes its block longer): the text
# of a block, its rows and its documents' ids are what a worker holds at once.  In this
# process, the text of the blocks parsed at once (`block_bytes_here`).
BLOCK_BYTES = 32 << 20

# The first block of a run is no longer than this (`first_block`): the command line parses
# it while Python imports the evaluation (`rankscope.read.ahead`), on one core, and a block
# of 32 MB took longer than the imports (~0.35 against ~0.3 s: the evaluation waited).
FIRST_BLOCK_BYTES = 16 << 20

# How far a cut looks at a time for the end of a query's lines.
WINDOW = 1 << 20

# The cores one process keeps busy reading a run in blocks (`rankscope.table.many`): blocks
# parsed (`parsed_at_once`) while the block before them is judged.  A lone run is evaluated
# in this process with up to this many jobs: two worker processes did the same work more
# slowly (each its own start, its own copies of each block's tables).
PIPELINE_CORES = 2


#: How many blocks `rankscope.table.many` parses at once beside the judging, on two cores
#: or more (see `parsed_at_once`).
PARSED_AT_ONCE = 2


def parsed_at_once(cores: int) -> int:
    """How many blocks of a run one process with ``cores`` cores parses at once beside the
    judging: their texts are in as many buffers, taking turns (the next block's text is
    read into the oldest's once its rows are made: a buffer more, for the next text read
    sooner, cost 36 MB of fresh memory and ~9k page faults for no time gained, and on one
    core ~0.1 s)."""
    return PARSED_AT_ONCE if cores > 1 else 1


def block_bytes_here(cores: int) -> int:
    """The length of a block of a run evaluated in this process with ``cores`` cores (the
    default of `rankscope.table.many`): the blocks parsed at once (`parsed_at_once`) hold
    `BLOCK_BYTES` of text between them, 32 MB on one core and 16 MB each on two or more.
    Two blocks of 32 MB held ~100 MB more, each page of it fresh memory the kernel clears:
    on the 7M-line run with two cores, a peak of 292-327 MB against 191, and a wall time
    16 ms longer (se 7, 160 rounds in turn, with ``--jobs 2``; 27 ms, se 19, with
    ``--jobs 1``); on the 100M-line run, 744 MB against 649, the time the same."""
    return BLOCK_BYTES // parsed_at_once(cores)


def text_buffer_bytes(size: int) -> int:
    """The length of a buffer made for a block's text of ``size`` bytes: an eighth more, so
    that it holds the next blocks' too (their lengths differ a little)."""
    return size + size // 8


def in_this_process(runs: int, jobs: int) -> bool:
    """Whether ``runs`` runs, evaluated with ``jobs`` worker processes (as asked, or the
    default's), are evaluated in this process alone."""
    return jobs == 1 or (runs == 1 and jobs <= PIPELINE_CORES)


def first_block(block_bytes: int) -> int:
    """The length of a run's first block, for blocks of ``block_bytes``."""
    return min(block_bytes, FIRST_BLOCK_BYTES)


def block_end(read: Callable[[int, int], bytes], start: int, size: int, block_bytes: int) -> int:
    """Where the block of a text of ``size`` bytes that starts at ``start`` ends, for blocks
    of ``block_bytes``: the end of the text, or the `cut` reaching ``start + block_bytes``."""
    return size if start + block_bytes >= size else cut(read, start + block_bytes)


def cut(read: Callable[[int, int], bytes], target: int) -> int:
    """Where the block reaching ``target`` ends: the start of the first line, from the line
    that starts at or after ``target``, whose query differs from that line's query (blank
    and comment lines skipped); the end of the text if none does.  ``read(at, n)``: the
    text's bytes ``at`` to ``at + n`` (fewer at its end)."""
    at = target
    if read(target - 1, 1) != b"\n":  # inside a line: the next line starts after its end
        at = _after_newline(read, target)
        if at < 0:  # the line holding ``target`` is the last
            return _end(read, target)
    first: bytes | None = None
    window, base = b"", at
    pos = 0  # in window
    while True:
        newline = window.find(b"\n", pos)
        if newline < 0:
            more = read(base + len(window), WINDOW)
            if not more:  # the last line, without a newline
                line = window[pos:]
                if line:
                    query = _query(line)
                    if query is not None and first is not None and query != first:
                        return base + pos
                return base + len(window)
            window, base, pos = window[pos:] + more, base + pos, 0
            continue
        query = _query(window[pos:newline])
        if query is not None:
            if first is None:
                first = query
            elif query != first:
                return base + pos
        pos = newline + 1


def _after_newline(read: Callable[[int, int], bytes], at: int) -> int:
    """The offset after the first newline at or after ``at``; -1 if none."""
    while True:
        window = read(at, WINDOW)
        if not window:
            return -1
        newline = window.find(b"\n")
        if newline >= 0:
            return at + newline + 1
        at += len(window)


def _end(read: Callable[[int, int], bytes], at: int) -> int:
    """The end of the text (reading on from ``at``)."""
    while True:
        window = read(at, WINDOW)
        if not window:
            return at
        at += len(window)


def _query(line: bytes) -> bytes | None:
    """The query id of a line of a run; None for a blank or comment line."""
    fields = line.split(None, 1)
    if not fields or fields[0].startswith(b"#"):
        return None
    return fields[0]
