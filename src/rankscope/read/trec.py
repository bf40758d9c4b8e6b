"""TREC text formats: qrels ``qid iter docno grade`` and runs ``qid iter docno rank score tag``.

Fields are separated by any run of spaces or tabs.  The iteration column may hold anything
(``Q0``, ``0``, ``AF``) and the rank column is ignored, as trec_eval ignores it: the order
comes from the scores.  Lines whose first non-blank character is ``#`` are comments (document
ids may contain ``#`` elsewhere); blank lines are skipped.  ``.gz`` files are read
transparently and ``-`` reads standard input.

Nothing is dropped silently: a malformed line, a grade that is not an integer, a score that
is not a finite number, or a document repeated within a query raises `InputError` naming
the file, the line number(s) and the problem.  Numbers follow `rankscope.read.fields`, and
so do the bytes (`rankscope.read.fields.text_start`): a leading UTF-8 byte-order mark is
skipped with a warning; CR-only line endings, a NUL byte, truncated or corrupt gzip data and
bzip2 or zstd compression are errors.
"""

from __future__ import annotations

import dataclasses
import gzip
import io
import math
import os
import sys
import threading
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np

from ..errors import InputError, UsageError, warn
from ..model import Qrels, Run, Vocabulary, available_cores, native
from .ahead import Ahead, taken
from .duplicates import DUPLICATE_POLICIES as DUPLICATE_POLICIES  # the CLI's --duplicates
from .duplicates import check_judged_once, first_repeated, resolve_duplicates
from .fields import (
    OUT_OF_RANGE,
    UTF8_BOM,
    Field,
    at_line,
    content_lines,
    decode,
    field_count_error,
    keyed,
    nul_error,
    text_start,
    vocabularies,
)
from .frames import is_parquet

GRADE = Field("relevance grade", integer=True)
SCORE = Field("score")
SUBTOPIC = Field("subtopic", integer=True)
RANK = Field("rank", integer=True, non_negative=True)
LENGTH = Field("length", non_negative=True)

PathLike = str | os.PathLike

#: The columns of a ``qid <group> docno grade`` text, as strings (the grades parsed), and
#: each row's line number.
GradedRows = tuple[list[str], list[str], list[str], list[int | float], list[int]]


def graded_rows(data: bytes, source: str, layout: str, what: str) -> GradedRows:
    """The rows of a four-column ``qid <group> docno grade`` text (an assessor's labels,
    judgment groups; ``layout`` names the columns in errors); no row is an `InputError`
    saying no ``what`` was found."""
    qs: list[str] = []
    groups: list[str] = []
    ds: list[str] = []
    grades: list[int | float] = []
    lines: list[int] = []
    for number, fields in content_lines(data, source, 4, layout=layout):
        qs.append(decode(fields[0]))
        groups.append(decode(fields[1]))
        ds.append(decode(fields[2]))
        grades.append(GRADE.parse(fields[3], source, number))
        lines.append(number)
    if not qs:
        raise InputError(f"{source}: no {what} found")
    return qs, groups, ds, grades, lines


def read_bytes(path: PathLike) -> bytes:
    """Whole content of ``path`` (``-`` is standard input), gunzipped when compressed."""
    return b"".join(_chunks(path))


def source_name(path: PathLike) -> str:
    return "<stdin>" if str(path) == "-" else str(path)


def _error(source: str, number: int, kind: str, detail: bytes) -> InputError:
    """The compiled scanner's error (``fields:N``, ``grade``, ``grade_range``, ``score``,
    ``score_inf``, ``nul``) as the message the pure-Python reader gives for the same line:
    the problem is worked out again from the token by `rankscope.read.fields`."""
    if kind == "nul":
        return nul_error(source, number)
    if kind.startswith("fields"):
        expect = "4" if kind.startswith("fields4") else "at least 6"
        return field_count_error(source, number, expect, int(kind.split(":")[1]), detail)
    field = GRADE if kind.startswith("grade") else SCORE
    problem = field.problem(detail)
    if problem is None:  # the two readers disagree: a bug, but still say what C found
        problem = OUT_OF_RANGE if kind == "grade_range" else field.syntax
    return field.error(at_line(source, number), detail, problem)


def _parse_lines(data: bytes, source: str, is_run: bool):
    """Yield (line_number, fields) for content lines (the reference parser)."""
    return content_lines(data, source, 6 if is_run else 4, at_least=is_run)


CHUNK = 16 << 20


def _unsupported_compression(head: bytes) -> tuple[str, str] | None:
    """The compression rankscope does not read that ``head`` (the first 10 bytes) starts,
    and how to undo it; None for anything else.  A bzip2 header is checked in full (``BZh``,
    the block size, the magic of a block or of the end of the stream), as a text file may
    well start with ``BZh``."""
    if head.startswith(b"\x28\xb5\x2f\xfd"):
        return "zstd", "zstd -d"
    if head[:3] == b"BZh" and head[3:4].isdigit() and head[4:10] in (b"1AY&SY", b"\x17rE8P\x90"):
        return "bzip2", "bunzip2"
    return None


class _Stream:
    """The bytes of ``path`` (``-``: standard input), decompressing gzip on the fly.

    Truncated or corrupt gzip data, and bzip2 or zstd data, are `InputError`s."""

    def __init__(self, path: PathLike) -> None:
        self._source = source_name(path)
        self._close = str(path) != "-"
        self._raw = open(path, "rb") if self._close else sys.stdin.buffer  # noqa: SIM115
        head = self._raw.peek(10)[:10] if hasattr(self._raw, "peek") else b""
        self._prefix = b""
        if not head:  # cannot peek (a pipe without buffering): read the magic bytes
            head = self._prefix = self._raw.read(10)
        unsupported = _unsupported_compression(head)
        if unsupported is not None:
            self.close()
            raise InputError(
                f"{self._source}: {unsupported[0]}-compressed data is not supported (only "
                f"gzip is): decompress it first ({unsupported[1]})"
            )
        self._gz = head[:2] == b"\x1f\x8b"
        source = _Prefixed(self._prefix, self._raw) if self._prefix else self._raw
        self._stream = gzip.GzipFile(fileobj=source) if self._gz else source

    def readinto(self, view: memoryview) -> int:
        # typeshed's typing.BinaryIO (the type of sys.stdin.buffer) lacks readinto, which
        # every binary stream has (python/typeshed#6596)
        if not self._gz:
            return self._stream.readinto(view)  # type: ignore[union-attr]
        try:
            return self._stream.readinto(view)  # type: ignore[union-attr]
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise InputError(f"{self._source}: truncated or corrupt gzip data ({exc})") from None

    def size(self) -> int:
        """Size in bytes of a plain (uncompressed) file; 0 when unknown."""
        if self._gz or not self._close:
            return 0
        return os.fstat(self._raw.fileno()).st_size

    def close(self) -> None:
        if self._close:
            self._raw.close()


def _chunks(path: PathLike):
    """The content of ``path`` in pieces of about `CHUNK` bytes."""
    stream = _Stream(path)
    try:
        while True:
            piece = bytearray(CHUNK)
            n = stream.readinto(memoryview(piece))
            if not n:
                return
            del piece[n:]
            yield bytes(piece)
    finally:
        stream.close()


class _Prefixed(io.RawIOBase):
    """A stream that yields ``prefix`` and then the rest of ``stream``."""

    def __init__(self, prefix: bytes, stream) -> None:
        self._prefix, self._stream = prefix, stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._prefix:
            n = min(len(buffer), len(self._prefix))
            buffer[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        data = self._stream.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _native_stream(
    path: PathLike, source: str, queries: Vocabulary, docs: Vocabulary, is_run: bool
):
    """Columns from the compiled parser, reading ``path`` through one reused buffer; or
    those of the parse the command line began ahead (`rankscope.read.ahead`), where it read
    this file, unchanged, into id tables that continue ``queries`` and ``docs`` (which then
    take them), its errors and warnings said here from the same bytes."""
    fast = native()
    assert fast is not None  # called only where _native_for found the compiled module
    stream = _Stream(path)
    size = stream.size()
    ahead = taken(path, is_run) if size else None  # (the command line's, `reading_ahead`)
    if ahead is not None and ahead.block:  # (a first block: `read_run_block`'s to take)
        ahead = None
    if ahead is not None and len(ahead.data) == size and not ahead.data.startswith(UTF8_BOM):
        if queries.continues(ahead.origins[0]) and docs.continues(ahead.origins[1]):
            stream.close()
            text_start(ahead.data, source)  # (a CR-only line ending: its error first)
            _checked(ahead.fed, source, is_run, 1)
            queries.adopt(ahead.queries)
            docs.adopt(ahead.docs)
            return _columns(ahead.parser, is_run)
    parser = _parser(fast, queries, docs, is_run)
    # a plain file smaller than a piece is read whole into a buffer of its size (a byte
    # more, to see its end; 64 KB at least, should the file grow meanwhile): a fresh 16 MB
    # buffer costs 4,096 page faults to a small run
    buf = bytearray(min(CHUNK, max(size + 1, 1 << 16)) if size else CHUNK)
    view = memoryview(buf)
    filled = 0
    first = True  # the first piece: its text is checked (and a byte-order mark skipped)
    try:
        while True:
            n = stream.readinto(view[filled:])
            final = n == 0
            filled += n
            if filled < len(buf) and not final:
                continue
            if first and not final and buf.find(b"\n", 0, filled) < 0:
                # the first line is checked whole (`text_start`: a CR inside it, with text
                # after, is an error): read on until it ends
                view = _grown(buf, view)
                continue
            if size and filled == len(buf) and parser.rows() == 0:
                # a large plain file: size the columns and the id table once, from the
                # lines per byte of this first piece (ids at most 3/4 of the rows)
                lines = int(size * (view[:filled].tobytes().count(b"\n") + 1) / filled * 1.02)
                parser.reserve(lines, lines * 3 // 4)
            start = text_start(view[:filled], source) if first else 0
            first = False
            used = start + _fed(parser, view[start:filled], final, source, is_run)
            if final:
                break
            tail = bytes(view[used:filled])
            if used == 0:  # a line longer than the buffer: grow it
                view = _grown(buf, view)
            view[: len(tail)] = tail
            filled = len(tail)
    finally:
        view.release()
        stream.close()
    return _columns(parser, is_run)


def _grown(buf: bytearray, view: memoryview) -> memoryview:
    """A view of ``buf`` (viewed by ``view``, released) after doubling its size."""
    view.release()
    buf.extend(bytearray(len(buf)))
    return memoryview(buf)


def _fed(parser, data, final: bool, source: str, is_run: bool, first_line: int = 1) -> int:
    return _checked(parser.feed(data, final), source, is_run, first_line)


def _checked(used: int | tuple, source: str, is_run: bool, first_line: int) -> int:
    """What the compiled parser's ``feed`` gave: the bytes it consumed, or the error its
    tuple describes raised."""
    if isinstance(used, tuple):
        kind = used[2].replace("fields", "fields6" if is_run else "fields4")
        raise _error(source, used[1] + first_line - 1, kind, used[3])
    return used


def _columns(parser, is_run: bool):
    out = parser.result()
    q, d = np.frombuffer(out[0], np.int32), np.frombuffer(out[1], np.int32)
    value = np.frombuffer(out[2], np.float64 if is_run else np.int64)
    line = np.frombuffer(out[3], np.int32)
    if is_run:
        first, other_line, other = out[7]
        tags = (decode(first), other_line, decode(other))
        rank = np.frombuffer(out[5], np.float64)
        shape = RunShape(rank, out[6], tags, parser.repeated(), out[8])
        return q, d, value, line, decode(out[4]), shape
    return q, d, value, line


#: The field counts a run's lines are told apart by: this many or more count as this many
#: (the compiled reader's ``NFIELDS - 1``).
MANY_FIELDS = 16


#: What `suspicions` works out of a run's rows listed each query's together in rank order:
#: the first row of the query tied on one score whose first line comes first and that line
#: (-1, 0: none), the row whose step to the next up the ranks raises the score at the
#: first line (-1: none), whether such a step lowers it, the queries with a step up.
RankSteps = tuple[int, int, int, bool, int]


@dataclasses.dataclass(frozen=True, eq=False)
class RunShape:
    """What a run file's lines show beyond the columns read, gathered as they are read (by
    the compiled reader, or `ShapeOf` line by line): the evidence for `warn_suspicious`'s
    warnings about input that parses but is probably not what was meant.  (An array and a
    dict: no generated ``==`` or hash, which could not compare them.)"""

    rank: np.ndarray  #: the rank column, a row's; NaN where it is not a number
    fields: dict[int, tuple[int, int]]  #: field count -> (lines, the first of them)
    #: the first line's tag, the first line of as many fields tagged otherwise (0: none),
    #: and that tag
    tags: tuple[str, int, str]
    #: the rows of the first document listed twice for a query, as `first_repeated` finds
    #: them when each query's lines come together (() when none), found by the compiled
    #: reader as it numbers a block's documents query by query; None: not looked for
    repeated: tuple[int, ...] | None = None
    #: its rows' `RankSteps`, gathered by the compiled reader as it interns them; None:
    #: not gathered (the pure-Python readers), or the rows are not listed each query's
    #: together in rank order, a rank is not a number, or there are fewer than two
    steps: RankSteps | None = None


class ShapeOf:
    """A `RunShape` gathered from the lines of a run as the pure-Python readers split them,
    as the compiled reader gathers it."""

    def __init__(self) -> None:
        self.rank: list[float] = []
        self.fields: dict[int, tuple[int, int]] = {}
        self.first: tuple[bytes, int] | None = None  # the first tag, its line's field count
        self.other: tuple[int, bytes] = (0, b"")

    def add(self, number: int, fields: list[bytes]) -> None:
        count = min(len(fields), MANY_FIELDS)
        lines, first = self.fields.get(count, (0, number))
        self.fields[count] = (lines + 1, first)
        if self.first is None:
            self.first = (fields[5], len(fields))
        elif not self.other[0] and len(fields) == self.first[1] and fields[5] != self.first[0]:
            self.other = (number, fields[5])
        rank = fields[3]
        self.rank.append(float(rank) if SCORE.problem(rank) is None else math.nan)

    def shape(self) -> RunShape:
        first = b"" if self.first is None else self.first[0]
        tags = (decode(first), self.other[0], decode(self.other[1]))
        return RunShape(np.asarray(self.rank, dtype=np.float64), self.fields, tags)


@dataclasses.dataclass(frozen=True)
class Suspicions:
    """What a run file (or a block of its whole queries, `rankscope.read.blocks`) shows that
    parses but is probably not what was meant, as line numbers (0: none), worked out from
    its columns and `RunShape` by `suspicions`, added up over blocks by `merged` and told by
    `warn_suspicious`, once per kind."""

    fields: dict[int, tuple[int, int]]  #: field count -> (lines, the first of them)
    first: tuple[int, str]  #: the first line's field count and tag
    other: tuple[int, str]  #: the first line of as many fields tagged otherwise, its tag
    ranked: bool  #: every rank is a number: the rank column can be compared with scores
    tied: tuple[int, str, float]  #: the first query tied on one score (its first line)
    rising: tuple[int, str]  #: the first step up the ranks where the score rises
    falling: bool  #: a step up the ranks where the score falls
    stepped: int  #: the queries with steps up the ranks

    def shifted(self, by: int) -> Suspicions:
        """The same, its lines numbered ``by`` further on (a block's, in its file)."""

        def at(line: int) -> int:
            return line + by if line else 0

        return dataclasses.replace(
            self,
            fields={c: (n, at(line)) for c, (n, line) in self.fields.items()},
            other=(at(self.other[0]), self.other[1]),
            tied=(at(self.tied[0]), *self.tied[1:]),
            rising=(at(self.rising[0]), self.rising[1]),
        )  # fmt: skip

    def merged(self, later: Suspicions) -> Suspicions:
        """These lines and ``later``'s (of the lines after them, numbered in one file)."""
        fields = dict(self.fields)
        for c, (n, line) in later.fields.items():
            had, first = fields.get(c, (0, line))
            fields[c] = (had + n, first)
        other = self.other
        if not other[0] and later.first[0] == self.first[0] and later.first[1] != self.first[1]:
            other = (min(line for _, line in later.fields.values()), later.first[1])
        elif not other[0] and later.other[0]:
            other = later.other
        return Suspicions(
            fields, self.first, other, self.ranked and later.ranked,
            _earliest(self.tied, later.tied), _earliest(self.rising, later.rising),
            self.falling or later.falling, self.stepped + later.stepped,
        )  # fmt: skip


def _earliest(a: tuple, b: tuple) -> tuple:
    return b if b[0] and (not a[0] or b[0] < a[0]) else a


def suspicions(
    queries: Vocabulary, q: np.ndarray, score: np.ndarray, line: np.ndarray, shape: RunShape
) -> Suspicions:
    """The `Suspicions` of a run's rows (query codes, scores and line numbers, as read) and
    the `RunShape` of its lines."""
    first_line = min(line for _, line in shape.fields.values())
    count = next(c for c, (_, line) in shape.fields.items() if line == first_line)
    first, other_line, other = shape.tags
    rank = shape.rank
    steps = shape.steps if len(rank) > 1 else None  # (gathered by the compiled reader)
    ranked = steps is not None or not np.isnan(rank).any()
    tied: tuple[int, str, float] = (0, "", 0.0)
    rising: tuple[int, str] = (0, "")
    falling, stepped = False, 0
    if ranked and len(rank) > 1:
        qs, r, s, at = q, rank, score, line
        if steps is None:
            if not _by_query_and_rank(q, rank):  # the usual order saves a sort
                order = np.lexsort((rank, q))
                qs, r, s, at = q[order], rank[order], score[order], line[order]
            steps = _rank_steps_numpy(qs, r, s, at)
        head, lowest, i, falling, stepped = steps
        if head >= 0:
            tied = (lowest, queries.strings[int(qs[head])], float(s[head]))
        if i >= 0:
            rising = (
                int(at[i + 1]),
                f"rank {r[i]:g} scores {s[i]:g}, rank {r[i + 1]:g} scores {s[i + 1]:g}",
            )
    return Suspicions(
        dict(shape.fields), (count, first), (other_line, other), ranked, tied, rising, falling,
        stepped,
    )  # fmt: skip


def _rank_steps_numpy(qs: np.ndarray, r: np.ndarray, s: np.ndarray, at: np.ndarray) -> RankSteps:
    """`RankSteps` of rows listed each query's together in rank order (query codes, ranks,
    scores, line numbers), no rank a NaN: numpy's twin of what the compiled reader gathers
    as it reads a run (`RunShape.steps`)."""
    starts = np.flatnonzero(np.r_[True, qs[1:] != qs[:-1]])
    lowest = np.minimum.reduceat(at, starts)
    tie = (np.maximum.reduceat(s, starts) == np.minimum.reduceat(s, starts)) & (
        np.maximum.reduceat(r, starts) > np.minimum.reduceat(r, starts)
    )
    head, first = -1, 0
    if tie.any():
        group = int(np.flatnonzero(tie)[np.argmin(lowest[tie])])
        head, first = int(starts[group]), int(lowest[group])
    step = (qs[1:] == qs[:-1]) & (r[1:] > r[:-1])  # consecutive ranks of one query
    rises = np.flatnonzero(step & (s[1:] > s[:-1]))
    i = int(rises[np.argmin(at[rises + 1])]) if len(rises) else -1
    falling = bool((step & (s[1:] < s[:-1])).any())
    stepped = int(np.count_nonzero(np.logical_or.reduceat(np.r_[step, False], starts)))
    return head, first, i, falling, stepped


def _by_query_and_rank(q: np.ndarray, rank: np.ndarray) -> bool:
    """Whether each query's rows are together and in rank order (as runs are written)."""
    same = q[1:] == q[:-1]
    heads = q[np.flatnonzero(np.concatenate(([True], ~same)))]  # each stretch's query
    # (rank[1:] >= rank[:-1]) | ~same: where the rows' query is the same, in rank order,
    # without selecting those rows; the queries counted from the stretches' heads, not by
    # a bincount of every row (12 ms for a block of 830k rows)
    return len(heads) == int(np.count_nonzero(np.bincount(heads))) and bool(
        np.logical_or(rank[1:] >= rank[:-1], ~same).all()
    )


def warn_suspicious(source: str, found: Suspicions, by_rank: bool = False) -> None:
    """Warn, once per kind and naming the file and a line, about a run that parses but
    probably does not say what was meant: a line with another number of fields than the
    file's others (a document id holding a space shifts every field after it); several run
    tags (two systems concatenated); and, ordered by score (not ``by_rank``), a query whose
    documents all have one score while the rank column orders them, or scores that rise
    with the rank in every query (two or more: the rank written into the score column, so
    every list is read reversed)."""
    fields = found.fields
    if len(fields) > 1:
        usual = max(fields, key=lambda c: (fields[c][0], -fields[c][1]))  # ties: the first
        count, (lines, line) = min(
            ((c, v) for c, v in fields.items() if c != usual), key=lambda cv: cv[1][1]
        )
        more = "more" if count > usual else "fewer"
        warn(
            f"{source}:{line}: {_fields(count)} where the file's other lines have "
            f"{_fields(usual)} ({lines} line{'s' if lines != 1 else ''} with {more}): a "
            "document id holding a space shifts every field after it"
        )
    if found.other[0]:
        warn(
            f"{source}:{found.other[0]}: run tag '{found.other[1]}' where the lines before "
            f"have '{found.first[1]}': several runs in one file?"
        )
    if by_rank or not found.ranked:
        return
    line, qid, score = found.tied
    if line:
        said = (
            f"{source}:{line}: every document of query '{qid}' has the score {score:g} while "
            "the rank column orders them: documents are ordered by score, a tie by document "
            "id, as trec_eval orders them ({} follows the rank column)"
        )
        warn(said.format("order='rank'"), cli=said.format("--order rank"))
    if found.rising[0] and not found.falling and found.stepped > 1:
        warn(
            f"{source}:{found.rising[0]}: scores rise with the rank in every query "
            f"({found.rising[1]}): is the rank written in the score column?  Documents are "
            "ordered by score, the highest first, so every list is read reversed"
        )


def _fields(count: int) -> str:
    return f"{count} fields" if count < MANY_FIELDS else f"{count} or more fields"


@dataclasses.dataclass(frozen=True)
class Lines:
    """Where text in memory sits in its file: the number of its first line, and whether it
    starts the file (whose start `text_start` checks).  The default: a whole file."""

    first: int = 1
    at_start: bool = True


T = TypeVar("T")
U = TypeVar("U")


@dataclasses.dataclass(frozen=True)
class Parsing(Generic[T]):
    """A parse begun (`read_run_block`), called for what it read (waiting for it; a bad
    line raised there); `wait` returns once the compiled parser is done with the text (the
    caller may then begin the next block's parse, this one's Python part still to do)."""

    wait: Callable[[], None]
    result: Callable[[], T]

    def __call__(self) -> T:
        return self.result()

    def then(self, after: Callable[[T], U]) -> Parsing[U]:
        """The same parse, what it read passed through ``after``."""
        return Parsing(self.wait, lambda: after(self.result()))


def _native_parse(
    data, source: str, queries: Vocabulary, docs: Vocabulary, is_run: bool, at: Lines = Lines()
):
    """Columns from the compiled parser, for input already in memory: a whole file, or
    lines of one (``at``); and the newlines of the text (the parser counts them once, as it
    sizes its columns)."""
    return _native_parsing(data, source, queries, docs, is_run, at)()


def _native_parsing(
    data, source: str, queries: Vocabulary, docs: Vocabulary, is_run: bool, at: Lines,
    ahead: bool = False, done: Ahead | None = None, serial: bool = False,
) -> Parsing[tuple]:  # fmt: skip
    """`_native_parse` in two steps: the parse begun, and its `Parsing`.  ``ahead``: the
    compiled parser scans and interns the text in another thread meanwhile (it lets the
    GIL go: the caller runs on, and must leave ``data``, ``queries`` and ``docs`` alone
    until the result is asked for).  ``done``: ``data``
    as the command line parsed it ahead (`rankscope.read.ahead`), whose parse is taken
    where it read the same bytes into id tables that continue ``queries`` and ``docs``
    (which then take them)."""
    fast = native()
    assert fast is not None  # called only where _native_for found the compiled module
    start = text_start(data, source) if at.at_start else 0
    fed: list = []  # what feed gave (bytes consumed or an error tuple), or what it raised
    if (
        done is not None and start == 0
        and (data.obj if isinstance(data, memoryview) else data) is done.data
        and queries.continues(done.origins[0]) and docs.continues(done.origins[1])
    ):  # fmt: skip
        queries.adopt(done.queries)
        docs.adopt(done.docs)
        parser = done.parser
        fed.append(done.fed)
    else:
        parser = _parser(fast, queries, docs, is_run, serial)
    view = memoryview(data)

    def feed() -> None:
        if fed:  # (parsed ahead)
            return
        try:
            fed.append(parser.feed(view[start:], True))
        except BaseException as e:  # (memory): raised where the result is asked for
            fed.append(e)

    feeding = threading.Thread(target=feed, name="rankscope-reader") if ahead and not fed else None
    if feeding is not None:
        feeding.start()

    def result() -> tuple:
        try:
            if feeding is None:
                feed()
            else:
                feeding.join()
        finally:
            view.release()
        if isinstance(fed[0], BaseException):
            raise fed[0]
        _checked(fed[0], source, is_run, at.first)
        columns = _columns(parser, is_run)
        if at.first != 1:
            columns = (*columns[:3], columns[3] + np.int32(at.first - 1), *columns[4:])
        return columns, parser.newlines()  # (a byte-order mark skipped holds none)

    return Parsing(feed if feeding is None else feeding.join, result)


def _parser(fast, queries: Vocabulary, docs: Vocabulary, is_run: bool, serial: bool = False):
    """A compiled parser into ``queries`` and ``docs``.  It scans the text in a thread of
    its own while the feeding thread interns what is scanned, unless this process has one
    core (there the two threads would take turns on it, handing over every thousand
    lines: a 7M-line run had 8,000 context switches, 0.08 s of system time) or the caller
    asks for it ``serial`` (it runs other parsers meanwhile): the feeding thread then
    scans and interns in turns itself."""
    parser = fast.Parser(queries.native, docs.native, is_run)
    if serial or available_cores() == 1:
        parser.serial()
    return parser


def _native_for(queries: Vocabulary, docs: Vocabulary):
    fast = native()
    if fast is None or queries.native is None or docs.native is None:
        return None
    return fast


def parse_qrels(
    data: bytes,
    source: str = "<qrels>",
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
) -> Qrels:
    """Parse TREC qrels text (4 fields per line)."""
    queries, docs = vocabularies(queries, docs)
    fast = _native_for(queries, docs)
    if fast is not None:
        (q, d, g, line), _ = _native_parse(data, source, queries, docs, is_run=False)
    else:
        qs, ds, gs, ls = [], [], [], []
        for number, fields in _parse_lines(data, source, is_run=False):
            qs.append(decode(fields[0]))
            ds.append(decode(fields[2]))
            gs.append(GRADE.parse(fields[3], source, number))
            ls.append(number)
        q, d = queries.intern_many(qs), docs.intern_many(ds)
        g, line = np.asarray(gs, dtype=np.int64), np.asarray(ls, dtype=np.int32)
    if len(q) == 0:
        raise InputError(f"{source}: no judgments found")
    return Qrels(queries, docs, q, d, g, source=source, line=line)


def parse_run(
    data: bytes,
    source: str = "<run>",
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
    name: str | None = None,
    duplicates: str = "error",
    order: str = "score",
) -> Run:
    """Parse a TREC run (at least 6 fields per line; further fields are ignored).

    The run's name is the tag of its last line (as trec_eval) unless ``name`` is given.
    ``order="rank"`` ranks documents by the rank column instead of the score (see
    `rank_ordered`).
    """
    queries, docs = vocabularies(queries, docs)
    if order == "rank":
        return rank_ordered(data, source, queries, docs, name, duplicates)
    if order != "score":
        raise UsageError(f"order must be 'score' or 'rank' (got {order!r})")
    return resolve_duplicates(parse_run_lines(data, source, queries, docs, name), duplicates)


def parse_run_lines(
    data: bytes, source: str, queries: Vocabulary, docs: Vocabulary, name: str | None = None
) -> Run:
    """A TREC run with every line kept, a document repeated within a query included (for
    callers with their own policy; `parse_run` applies ``duplicates=``), its ids interned
    into ``queries`` and ``docs``."""
    tag = ""
    if _native_for(queries, docs) is not None:
        (q, d, s, line, tag, shape), _ = _native_parse(data, source, queries, docs, True)
    else:
        qs, ds, ss, ls = [], [], [], []
        last_tag = b""
        gathered = ShapeOf()
        for number, fields in _parse_lines(data, source, is_run=True):
            qs.append(decode(fields[0]))
            ds.append(decode(fields[2]))
            ss.append(SCORE.parse(fields[4], source, number))
            ls.append(number)
            last_tag = fields[5]
            gathered.add(number, fields)
        tag = decode(last_tag)
        q, d = queries.intern_many(qs), docs.intern_many(ds)
        s, line = np.asarray(ss, dtype=np.float64), np.asarray(ls, dtype=np.int32)
        shape = gathered.shape()
    return _tagged_run(name, source, queries, docs, (q, d, s, line, tag), shape)


def _tagged_run(
    name: str | None,
    source: str,
    queries: Vocabulary,
    docs: Vocabulary,
    columns: tuple,
    shape: RunShape | None = None,
    by_rank: bool = False,
) -> Run:
    """The run read from the TREC file ``source`` as ``columns`` (query and document codes,
    scores, line numbers, the tag of the last line, as the compiled reader gives them):
    named ``name`` when given, else by its tag (as trec_eval names it), else by the file's
    name; an `InputError` when it has no ranked document.  ``shape``, the whole file's:
    its suspicious lines are warned about (`warn_suspicious`)."""
    q, d, s, line, tag = columns
    if len(q) == 0:
        raise InputError(f"{source}: no ranked documents found")
    run = Run(
        name or tag or Path(source).name, queries, docs, q, d, s, source=source, line=line,
        tag=tag or None,
    )  # fmt: skip
    if shape is not None:
        warn_suspicious(source, suspicions(queries, q, s, line, shape), by_rank)
    return run


def read_run_block(
    data: bytes | memoryview, source: str, queries: Vocabulary, docs: Vocabulary, at: Lines,
    ahead: bool = False, done: Ahead | None = None, serial: bool = False,
) -> Parsing[tuple[tuple[Run, Suspicions, tuple[int, ...] | None] | None, int]]:  # fmt: skip
    """The rows of a block of whole lines of the run file ``source`` (see
    `rankscope.read.blocks`), numbered from ``at.first``, their `Suspicions` (the caller
    adds up the blocks' and warns) and `RunShape.repeated` (for `resolve_duplicates`), or
    None when the block holds no ranked document (only comments or blank lines); and the
    block's newlines.  Documents repeated within a query are kept (`resolve_duplicates` is
    the caller's).  Needs the compiled reader.

    In two steps: the reading begun, and its `Parsing` (called: the result, a bad line
    raised there).  ``ahead``: the text is parsed in another thread meanwhile, the GIL let
    go (`_native_parsing`): the caller evaluates the block before while this one is read.
    ``done``: the first block as the command line read it ahead (`rankscope.read.ahead`),
    ``data`` its bytes: its parse is taken where it can be (`_native_parsing`).
    ``serial``: the compiled parser scans and interns in one thread (`_parser`)."""
    assert _native_for(queries, docs) is not None
    parsed = _native_parsing(data, source, queries, docs, True, at, ahead, done, serial)

    def rows(read: tuple) -> tuple[tuple[Run, Suspicions, tuple[int, ...] | None] | None, int]:
        (*columns, shape), newlines = read
        if len(columns[0]) == 0:
            return None, newlines
        q, _, s, line, _ = columns  # numbered from at.first; the shape's lines from 1
        before = at.first - 1  # (a block's are numbered from 1: no copy of its lines)
        at_one = line - np.int32(before) if before else line
        found = suspicions(queries, q, s, at_one, shape).shifted(before)
        run = _tagged_run(None, source, queries, docs, tuple(columns))
        return (run, found, shape.repeated), newlines

    return parsed.then(rows)


def rank_ordered(
    data: bytes,
    source: str,
    queries: Vocabulary,
    docs: Vocabulary,
    name: str | None = None,
    duplicates: str = "error",
) -> Run:
    """A run ranked by its rank column (ndeval's default order) rather than its score.

    The rank must be a non-negative integer and unique within a query; the returned run's
    score is ``-rank``, so every evaluation orders it by rank.
    """
    qs, ds, ss, ls = [], [], [], []
    tag = b""
    gathered = ShapeOf()
    unscored = 0  # the first line whose score is NaN
    for number, fields in _parse_lines(data, source, is_run=True):
        qs.append(decode(fields[0]))
        ds.append(decode(fields[2]))
        ss.append(-float(RANK.parse(fields[3], source, number)))
        ls.append(number)
        tag = fields[5]
        gathered.add(number, fields)
        if not unscored and fields[4].lower().lstrip(b"+-") == b"nan":
            unscored = number
    if unscored:
        warn(
            f"{source}:{unscored}: the score is nan: the rank column orders the run, but "
            "whatever wrote it may not have ranked what it meant to"
        )
    q, d = queries.intern_many(qs), docs.intern_many(ds)
    s, line = np.asarray(ss, dtype=np.float64), np.asarray(ls, dtype=np.int32)
    pair = first_repeated(q, -s.astype(np.int64))
    if pair is not None:
        a, b = pair
        raise InputError(
            f"{source}: rank {int(-s[a])} appears twice for query '{qs[a]}' "
            f"(lines {ls[a]} and {ls[b]})"
        )
    columns = (q, d, s, line, decode(tag))
    run = _tagged_run(name, source, queries, docs, columns, gathered.shape(), by_rank=True)
    return resolve_duplicates(run, duplicates)


def read_qrels(
    path: PathLike, queries: Vocabulary | None = None, docs: Vocabulary | None = None
) -> Qrels:
    """Read a TREC qrels file (``.gz`` and ``-`` for stdin accepted)."""
    queries, docs = vocabularies(queries, docs)
    if _native_for(queries, docs) is None:
        return parse_qrels(read_bytes(path), source_name(path), queries, docs)
    source = source_name(path)
    q, d, g, line = _native_stream(path, source, queries, docs, is_run=False)
    if len(q) == 0:
        raise InputError(f"{source}: no judgments found")
    return Qrels(queries, docs, q, d, g, source=source, line=line)


def read_diversity_qrels(
    path: PathLike, queries: Vocabulary | None = None, docs: Vocabulary | None = None
) -> Qrels:
    """Diversity judgments, ``qid subtopic docno grade`` (TREC Web track): one row per
    (query, subtopic, document).  The subtopic must be an integer; rows with subtopic 0 (an
    ad hoc judgment in the same file) are kept as subtopic 0."""
    source = source_name(path)
    queries, docs = vocabularies(queries, docs)
    qs, ds, gs, ts, ls = [], [], [], [], []
    for number, fields in _parse_lines(read_bytes(path), source, is_run=False):
        qs.append(decode(fields[0]))
        ts.append(SUBTOPIC.parse(fields[1], source, number))
        ds.append(decode(fields[2]))
        gs.append(GRADE.parse(fields[3], source, number))
        ls.append(number)
    if not qs:
        raise InputError(f"{source}: no judgments found")
    q, d = queries.intern_many(qs), docs.intern_many(ds)
    t = np.asarray(ts, dtype=np.int64)
    if not t.any():
        warn(
            f"{source}:{ls[0]}: every judgment is of subtopic 0: ad hoc judgments, not "
            "diversity judgments ('qid subtopic docno grade'), so each query has one "
            "subtopic and the intent-aware measures are the ad hoc ones"
        )
    subtopics = [f"subtopic {t}" for t in ts]
    check_judged_once(first_repeated(q, d, t), source, qs, ds, ls, subtopics)
    return Qrels(
        queries, docs, q, d, np.asarray(gs, dtype=np.int64), source=source,
        line=np.asarray(ls, dtype=np.int32), subtopic=t,
    )  # fmt: skip


def read_run(
    path: PathLike,
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
    name: str | None = None,
    duplicates: str = "error",
    order: str = "score",
) -> Run:
    """Read a TREC run file (``.gz`` and ``-`` for stdin accepted); ``order="rank"`` ranks by
    the rank column (see `rank_ordered`)."""
    queries, docs = vocabularies(queries, docs)
    if _native_for(queries, docs) is None or order != "score":
        data = read_bytes(path)
        return parse_run(data, source_name(path), queries, docs, name, duplicates, order)
    source = source_name(path)
    *columns, shape = _native_stream(path, source, queries, docs, is_run=True)
    run = _tagged_run(name, source, queries, docs, tuple(columns), shape)
    return resolve_duplicates(run, duplicates)


def read_doc_lengths(path: PathLike) -> dict[str, float]:
    """Document lengths, one ``docno words`` pair per line (``#`` comments allowed)."""
    source = source_name(path)
    rows = (
        (f"{source}:{number}", decode(fields[0]), LENGTH.parse(fields[1], source, number))
        for number, fields in content_lines(read_bytes(path), source, 2, layout="docno words")
    )
    none = f"{source}: no document lengths found (expected 'docno words' lines)"
    return keyed(rows, "document '{}' has a length already", none)


def run_files(paths: Sequence[PathLike], judgments: PathLike | None = None) -> list[PathLike]:
    """Expand directories into the run files they hold (sorted); keep files and ``-`` as given.

    Every file directly in a directory is a run, except hidden files (``.name``) and the
    judgments file itself (``judgments``), which is skipped with a warning.  Anything else is
    an error that names it and says how to leave it out: a subdirectory, or a file whose
    first line is not a run's (a README).  Errors rather than skipping: a run that is
    malformed must not silently drop out of a comparison.
    """
    out: list[PathLike] = []
    for p in paths:
        if str(p) != "-" and Path(p).is_dir():
            children = []
            for child in sorted(c for c in Path(p).iterdir() if not c.name.startswith(".")):
                if judgments is not None and _same_file(child, judgments):
                    warn(f"{child} is the judgments file: skipped, not read as a run")
                    continue
                if child.is_dir():
                    raise InputError(
                        f"{p}: holds a subdirectory, {child.name}, but a directory of runs "
                        f"must hold only run files: move it out, or name the runs instead of "
                        f"the directory ({Path(p) / '*.txt'})"
                    )
                problem = _not_a_run(child)
                if problem:
                    raise InputError(
                        f"{child} is not a run ({problem}) but is in the directory of runs {p}: "
                        f"move it out, or name the runs instead of the directory "
                        f"({Path(p) / '*.txt'})"
                    )
                children.append(child)
            if not children:
                raise InputError(f"{p}: directory holds no run files")
            out.extend(children)
        else:
            out.append(p)
    return out


def _same_file(path: Path, other: PathLike) -> bool:
    try:
        return str(other) != "-" and os.path.samefile(path, other)
    except OSError:
        return False


def _not_a_run(path: Path) -> str | None:
    """Why ``path`` is not a TREC run, judged by its first line of data; None if it may be
    one (the reader checks every line; Parquet files and empty files are left to it)."""
    if is_parquet(path):
        return None
    try:
        with open(path, "rb") as raw:
            head = raw.read(1 << 16)
            if _unsupported_compression(head[:10]):
                return None  # the reader says which compression, and how to undo it
            if head[:2] == b"\x1f\x8b":
                raw.seek(0)
                with gzip.open(raw) as unzipped:
                    head = unzipped.read(1 << 16)
    except (OSError, EOFError):
        return None
    for line in head.split(b"\n")[:-1] if len(head) == 1 << 16 else head.split(b"\n"):
        fields = line.split()
        if fields and not fields[0].startswith(b"#"):
            if len(fields) < 6:
                return (
                    f"its first line has {len(fields)} field{'s' if len(fields) != 1 else ''}; "
                    "a run's lines have 6: qid Q0 docno rank score tag"
                )
            try:
                float(fields[4])
            except ValueError:
                return "its first line has no score in the fifth field: qid Q0 docno rank score tag"
            return None
    return None
