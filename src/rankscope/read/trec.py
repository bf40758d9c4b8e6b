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

import gzip
import io
import os
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import InputError, UsageError, warn
from ..model import Qrels, Run, Vocabulary, native
from .duplicates import DUPLICATE_POLICIES as DUPLICATE_POLICIES  # the CLI's --duplicates
from .duplicates import check_judged_once, first_repeated, resolve_duplicates
from .fields import (
    OUT_OF_RANGE,
    Field,
    at_line,
    content_lines,
    decode,
    field_count_error,
    nul_error,
    text_start,
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
    """Columns from the compiled parser, reading ``path`` through one reused buffer."""
    fast = native()
    assert fast is not None  # called only where _native_for found the compiled module
    parser = fast.Parser(queries.native, docs.native, is_run)
    stream = _Stream(path)
    buf = bytearray(CHUNK)
    view = memoryview(buf)
    filled = 0
    first = True  # the first piece: its text is checked (and a byte-order mark skipped)
    size = stream.size()
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
    used = parser.feed(data, final)
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
        return q, d, value, line, decode(out[4])
    return q, d, value, line


def _native_parse(
    data,
    source: str,
    queries: Vocabulary,
    docs: Vocabulary,
    is_run: bool,
    first_line: int = 1,
    at_start: bool = True,
    lines: int = 0,
):
    """Columns from the compiled parser, for input already in memory: a whole file, or
    lines of one (``at_start``: from its start, which `text_start` checks), numbered from
    ``first_line``; ``lines``, when known, sizes the columns and the id table at once."""
    fast = native()
    assert fast is not None  # called only where _native_for found the compiled module
    parser = fast.Parser(queries.native, docs.native, is_run)
    if lines:
        parser.reserve(lines + 1, lines + 1)
    start = text_start(data, source) if at_start else 0
    with memoryview(data) as view:
        _fed(parser, view[start:], True, source, is_run, first_line)
    columns = _columns(parser, is_run)
    if first_line != 1:
        columns = (*columns[:3], columns[3] + np.int32(first_line - 1), *columns[4:])
    return columns


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
    queries = Vocabulary() if queries is None else queries
    docs = Vocabulary() if docs is None else docs
    fast = _native_for(queries, docs)
    if fast is not None:
        q, d, g, line = _native_parse(data, source, queries, docs, is_run=False)
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
    queries = Vocabulary() if queries is None else queries
    docs = Vocabulary() if docs is None else docs
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
        q, d, s, line, tag = _native_parse(data, source, queries, docs, is_run=True)
    else:
        qs, ds, ss, ls = [], [], [], []
        last_tag = b""
        for number, fields in _parse_lines(data, source, is_run=True):
            qs.append(decode(fields[0]))
            ds.append(decode(fields[2]))
            ss.append(SCORE.parse(fields[4], source, number))
            ls.append(number)
            last_tag = fields[5]
        tag = decode(last_tag)
        q, d = queries.intern_many(qs), docs.intern_many(ds)
        s, line = np.asarray(ss, dtype=np.float64), np.asarray(ls, dtype=np.int32)
    return _tagged_run(name, source, queries, docs, (q, d, s, line, tag))


def _tagged_run(
    name: str | None, source: str, queries: Vocabulary, docs: Vocabulary, columns: tuple
) -> Run:
    """The run read from the TREC file ``source`` as ``columns`` (query and document codes,
    scores, line numbers, the tag of the last line, as the compiled reader gives them):
    named ``name`` when given, else by its tag (as trec_eval names it), else by the file's
    name; an `InputError` when it has no ranked document."""
    q, d, s, line, tag = columns
    if len(q) == 0:
        raise InputError(f"{source}: no ranked documents found")
    return Run(
        name or tag or Path(source).name, queries, docs, q, d, s, source=source, line=line,
        tag=tag or None,
    )  # fmt: skip


def read_run_block(
    data: bytes,
    source: str,
    queries: Vocabulary,
    docs: Vocabulary,
    first_line: int = 1,
    at_start: bool = True,
    lines: int = 0,
) -> Run | None:
    """The rows of a block of whole lines of the run file ``source`` (see
    `rankscope.read.blocks`), numbered from ``first_line`` (``at_start``: the block starts
    the file); None when the block holds no ranked document (only comments or blank lines).
    Documents repeated within a query are kept (`resolve_duplicates` is the caller's).
    ``lines``: the newlines in ``data``, if counted.  Needs the compiled reader."""
    assert _native_for(queries, docs) is not None
    columns = _native_parse(data, source, queries, docs, True, first_line, at_start, lines)
    return None if len(columns[0]) == 0 else _tagged_run(None, source, queries, docs, columns)


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
    for number, fields in _parse_lines(data, source, is_run=True):
        qs.append(decode(fields[0]))
        ds.append(decode(fields[2]))
        ss.append(-float(RANK.parse(fields[3], source, number)))
        ls.append(number)
        tag = fields[5]
    q, d = queries.intern_many(qs), docs.intern_many(ds)
    s, line = np.asarray(ss, dtype=np.float64), np.asarray(ls, dtype=np.int32)
    pair = first_repeated(q, -s.astype(np.int64))
    if pair is not None:
        a, b = pair
        raise InputError(
            f"{source}: rank {int(-s[a])} appears twice for query '{qs[a]}' "
            f"(lines {ls[a]} and {ls[b]})"
        )
    run = _tagged_run(name, source, queries, docs, (q, d, s, line, decode(tag)))
    return resolve_duplicates(run, duplicates)


def read_qrels(
    path: PathLike, queries: Vocabulary | None = None, docs: Vocabulary | None = None
) -> Qrels:
    """Read a TREC qrels file (``.gz`` and ``-`` for stdin accepted)."""
    queries = Vocabulary() if queries is None else queries
    docs = Vocabulary() if docs is None else docs
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
    queries = Vocabulary() if queries is None else queries
    docs = Vocabulary() if docs is None else docs
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
    queries = Vocabulary() if queries is None else queries
    docs = Vocabulary() if docs is None else docs
    if _native_for(queries, docs) is None or order != "score":
        data = read_bytes(path)
        return parse_run(data, source_name(path), queries, docs, name, duplicates, order)
    source = source_name(path)
    columns = _native_stream(path, source, queries, docs, is_run=True)
    run = _tagged_run(name, source, queries, docs, columns)
    return resolve_duplicates(run, duplicates)


def read_doc_lengths(path: PathLike) -> dict[str, float]:
    """Document lengths, one ``docno words`` pair per line (``#`` comments allowed)."""
    source = source_name(path)
    out: dict[str, float] = {}
    for number, fields in content_lines(read_bytes(path), source, 2, layout="docno words"):
        words = LENGTH.parse(fields[1], source, number)
        doc = decode(fields[0])
        if doc in out:
            raise InputError(f"{source}:{number}: document '{doc}' has a length already")
        out[doc] = words
    if not out:
        raise InputError(f"{source}: no document lengths found (expected 'docno words' lines)")
    return out


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
