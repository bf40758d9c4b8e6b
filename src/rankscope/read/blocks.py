"""A TREC run file as blocks of whole queries: what evaluates a run larger than memory, or
one run on every core (`rankscope.table.many`).

A block is a stretch of whole lines of the file, about ``block_bytes`` long (the first at
most `FIRST_BLOCK_BYTES`: see `first_block`), that ends where one query's lines end and the
next query's begin.  A run that lists each query's
lines together (as TREC runs do) thus has each query in exactly one block; a run that does
not is found out by whoever reads the blocks: a query met in two blocks.

Plain files are cut by seeking (a few reads near each cut, the file itself never read
here): a block is its byte range, read where it is evaluated.  Gzipped files are cut as
they are decompressed, and a block carries its bytes.  Line numbers are not known when a
file is cut by seeking: a block counts its own lines once read (`RunBlock.lines`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from .cuts import BLOCK_BYTES, WINDOW, block_end, cut, first_block
from .trec import PathLike, _Stream, source_name


@dataclass(frozen=True)
class RunBlock:
    """Lines ``start`` to ``end`` (byte offsets in the text) of the run file ``path``:
    its bytes, for a compressed file, else read on demand."""

    path: str
    source: str  # the file as messages name it
    index: int  # blocks of a file are numbered from 0
    start: int
    end: int
    last: bool  # the last block of the file
    cut: int  # the ``block_bytes`` it was cut with
    compressed: bool = False  # a gzipped file: the block carries its text
    data: bytes | None = None  # the text of a block of a compressed file

    def text(self) -> bytes:
        """The block's bytes (a block of a compressed file that comes without them, as
        workers send blocks back, is cut again from its file)."""
        if self.data is not None:
            return self.data
        buffer = bytearray(self.end - self.start)
        del buffer[self.read_into(buffer) :]
        return bytes(buffer)

    def read_into(self, buffer: bytearray) -> int:
        """The block's bytes written at the start of ``buffer`` (at least ``end - start``
        long); how many.  A caller evaluating block after block keeps one buffer for them
        all, where a new one per block had the kernel map and zero its pages every time."""
        if self.data is not None or self.compressed:
            data = self.data if self.data is not None else self._cut_again()
            buffer[: len(data)] = data
            return len(data)
        fd = os.open(self.path, os.O_RDONLY)
        try:
            with memoryview(buffer) as view:
                at, filled = self.start, 0
                while filled < self.end - self.start:  # pread may return less than asked
                    n = os.preadv(fd, [view[filled : self.end - self.start]], at)
                    if not n:
                        break
                    at, filled = at + n, filled + n
            return filled
        finally:
            os.close(fd)

    def _cut_again(self) -> bytes:
        for again in run_blocks(self.path, self.cut):
            if again.index == self.index:
                return again.text()
        raise RuntimeError(f"{self.source}: block {self.index} not found again")


def is_gzip(path: PathLike) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def text_size(path: PathLike) -> int:
    """The size of the text of ``path``: its size, or four times that for a gzipped file
    (an estimate: the true size is known once it is decompressed)."""
    size = os.path.getsize(path)
    return size * 4 if is_gzip(path) else size


def run_blocks(path: PathLike, block_bytes: int = BLOCK_BYTES) -> Iterator[RunBlock]:
    """The blocks of the run file ``path`` in file order, each about ``block_bytes`` long
    and ending where a query's lines end (see the module)."""
    if block_bytes < 1:
        raise ValueError("block_bytes must be >= 1")
    if is_gzip(path):
        yield from _stream_blocks(path, block_bytes)
        return
    source, size = source_name(path), os.path.getsize(path)
    fd = os.open(path, os.O_RDONLY)
    try:

        def read(at: int, n: int) -> bytes:
            return os.pread(fd, n, at)

        start, index = 0, 0
        while True:
            end = block_end(read, start, size, block_bytes if index else first_block(block_bytes))
            yield RunBlock(str(path), source, index, start, end, end >= size, block_bytes)
            if end >= size:
                return
            start, index = end, index + 1
    finally:
        os.close(fd)


def _stream_blocks(path: PathLike, block_bytes: int) -> Iterator[RunBlock]:
    """`run_blocks` of a gzipped file: cut as it is decompressed."""
    source = source_name(path)
    stream = _Stream(path)
    buf = bytearray()
    base = 0  # text offset of buf[0]
    done = False

    def fill(upto: int) -> None:
        """Decompress until ``buf`` holds text offset ``upto`` (or the file ends)."""
        nonlocal done
        while not done and base + len(buf) < upto:
            piece = bytearray(min(max(WINDOW, upto - base - len(buf)), 16 * WINDOW))
            n = stream.readinto(memoryview(piece))
            if not n:
                done = True
            buf.extend(piece[:n])

    def read(at: int, n: int) -> bytes:
        fill(at + n)
        return bytes(buf[at - base : at - base + n])

    try:
        index = 0
        while True:
            length = block_bytes if index else first_block(block_bytes)
            fill(base + length + 1)
            if done and len(buf) <= length:
                end = base + len(buf)
            else:
                end = cut(read, base + length)
                fill(end + 1)  # is there anything after the cut?
            last = done and end >= base + len(buf)
            data = bytes(buf[: end - base])
            yield RunBlock(str(path), source, index, base, end, last, block_bytes, True, data)
            if last:
                return
            del buf[: end - base]
            base, index = end, index + 1
    finally:
        stream.close()
