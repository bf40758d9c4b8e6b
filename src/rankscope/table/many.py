"""Many runs against one set of judgments: read, judge and evaluate one run, or one block
of a run, at a time, on every core, keeping only per-query values.

The judgments are read once.  Each run is then read into vocabularies *scoped* to it (the
judgments' ids under their codes, plus the run's own, dropped with the run), evaluated, and
forgotten: peak memory is that of the judgments and the largest run, whatever the number of
runs.  A large TREC run file is read in blocks of whole queries instead
(`rankscope.read.blocks`, `rankscope.table.blocks`): memory is then bounded by the block,
whatever the size of the run, and the blocks of one run are shared among cores.  With
``jobs`` > 1 runs and blocks are shared among worker processes (forked, so that the
judgments are not copied or pickled); the results, their warnings and the first error come
back in the order of the runs, so the output is the same for every number of jobs.

Evaluating in blocks needs each query's lines together, as TREC runs list them.  A run
that has a query in two blocks is read whole instead if it is at most `WHOLE_RUN_BYTES`
long; a longer one is an error that says how to sort it.  The results are those of reading
every run whole, value for value, warning for warning and error for error.

Measures that compare runs with each other (preference win rates) need every run at once:
`evaluate_many_runs` is not for them (see `streams`).
"""

from __future__ import annotations

import collections
import dataclasses
import os
import threading
import warnings
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..errors import InputError, RankscopeError, RankscopeWarning, UsageError
from ..judge import JoinOptions, RelevantDocs, judged_positions
from ..measures import Request
from ..model import Qrels, Run, Vocabulary, ZScores, available_cores, native
from ..read.ahead import Ahead, pending, ready_buffer, taken
from ..read.blocks import RunBlock, is_gzip, run_blocks, text_size
from ..read.cuts import (
    BLOCK_BYTES,
    block_bytes_here,
    in_this_process,
    parsed_at_once,
    text_buffer_bytes,
)
from ..read.duplicates import resolve_duplicates
from ..read.runs import check_common_queries, no_common_query, run_names
from ..read.trec import Lines, Parsing, Suspicions, read_run_block, warn_suspicious
from .blocks import BlockResult, evaluate_block, merge_blocks
from .evaluation import RunEvaluation
from .formats import JudgmentFormat, evaluation_options
from .zscores import to_zscores

if TYPE_CHECKING:  # (the pools are imported when used: not by a cold start of eval)
    from concurrent.futures import Executor, Future

# Below this many bytes of run files, a pool costs more than it saves: ``jobs=None`` runs
# them in this process (an explicit ``jobs`` is always obeyed).
PARALLEL_BYTES = 32 << 20

# Blocks are no smaller than this when a run is cut only to share it among cores.
MIN_BLOCK_BYTES = 8 << 20

# A run read in blocks that turns out not to list each query's lines together is read
# whole instead when it is no longer than this; a longer one is an error.
WHOLE_RUN_BYTES = 2 << 30


class RunToRead(Protocol):
    """A run named by the front door and read here, one at a time (`rankscope.read.sources`'
    ``RunSource``): what the user gave (a path, ``-``, a frame, ...) and its name (None: its
    tag, or the source's own).  Paths to TREC run files are read in blocks."""

    @property
    def given(self) -> Any: ...

    @property
    def name(self) -> str | None: ...

    def read(self, queries: Vocabulary, docs: Vocabulary, duplicates: str, order: str) -> Run:
        """The run, its ids interned into ``queries`` and ``docs``."""
        ...


def streams(requests: Sequence[Request]) -> bool:
    """Whether runs can be evaluated one at a time for these requests (no measure compares
    one run with the others)."""
    return not any(r.measure.family == "preference" for r in requests)


def check_jobs(jobs: int | None) -> None:
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise UsageError(
            f"jobs must be a whole number >= 1 (got {jobs!r})",
            cli=f"--jobs must be a whole number >= 1 (got {jobs!r})",
        )


class Cluster(Protocol):
    """Workers other than this machine's forked processes, given the pieces of an
    evaluation (whole runs, blocks of run files: paths and byte ranges, never their text)
    to evaluate where they are: the engine of the Dask or Spark backend
    (`rankscope.scale.Engine`)."""

    def workers(self) -> int:
        """How many pieces the workers evaluate at once (blocks are cut to give each of
        them several)."""
        ...

    def map(
        self, evaluate: Callable[[Any, Any], Any], task: Any, pieces: Iterator[Any]
    ) -> Iterator[Any]:
        """``evaluate(task, piece)`` for each piece, on the workers (``task`` sent to each
        once), its outcomes in the pieces' order."""
        ...


class _Scratch(threading.local):
    """The buffer the text of each block a process evaluates is read into, kept from one
    block to the next: a new one per block had the kernel map and zero its pages each time
    (half the page faults of a 7M-line run).  More, in turn, where blocks are parsed at
    once (`_outcomes_here`).  One per thread (a Dask worker may run several), and none sent
    with the task to another process."""

    def __init__(self) -> None:
        self.buffers: list[bytearray] = []
        self.turn = 0  # the buffer of the last block read

    def __reduce__(self) -> tuple[type, tuple]:
        return _Scratch, ()

    def text(self, block: RunBlock, turns: int = 1) -> memoryview:
        """The text of ``block``: a view of the first buffer, to be released before the
        next block is read; with ``turns`` buffers taking turns, of the one after the last
        block's, to be released before the ``turns``-th block after this is read."""
        while len(self.buffers) < turns:
            self.buffers.append(bytearray())
        self.turn = (self.turn + 1) % turns if turns > 1 else 0
        buffer = self.buffers[self.turn]
        size = block.end - block.start
        if len(buffer) < size:  # a new buffer, never a resize: a view may be held (one
            # the command line made ready while it imported, if any)
            buffer = ready_buffer(size) or bytearray(text_buffer_bytes(size))
            self.buffers[self.turn] = buffer
        n = block.read_into(buffer)
        return memoryview(buffer)[:n]


@dataclass(frozen=True)
class _Task:
    judgments: Any
    sources: Sequence[RunToRead]
    requests: Sequence[Request]
    fmt: JudgmentFormat
    options: JoinOptions
    num_docs: int
    zscores: ZScores | None
    duplicates: str
    order: str
    check_common: bool
    block_bytes: int = BLOCK_BYTES
    blocked: frozenset[int] = frozenset()  # the runs read in blocks
    sizes: tuple[int, ...] = ()  # per run: its text's length (`_text_bytes`)
    positions: RelevantDocs | None = None  # each run's ranks of them are kept too
    scratch: _Scratch = field(default_factory=_Scratch, compare=False, repr=False)


@dataclass(frozen=True)
class _Piece:
    """What one worker does at a time: a whole run, or one block of a run."""

    run: int
    block: RunBlock | None = None


@dataclass
class _Outcome:
    """A run read whole (or a run's blocks put together)."""

    run: int
    result: RunEvaluation | None
    name: str
    source: str
    warnings: list[Warning]
    error: RankscopeError | None


@dataclass
class _BlockOutcome:
    """One block of a run: its result, or which stage of it failed (its error is worked
    out again where the line numbers are known: see `_Assembly`)."""

    run: int
    block: RunBlock  # without its bytes
    lines: int  # newlines in the block
    ranked: list[str]  # the queries it ranks (None: unread)
    result: BlockResult | None
    warnings: list[Warning]
    failed: str | None  # "read" (the text), "later" (duplicates, evaluation) or None
    found: Suspicions | None = None  # its suspicious lines, numbered from 1


_TASK: _Task | None = None  # what forked workers evaluate (set before the pool forks)


def _portable(result: RunEvaluation, requests: Sequence[Request]) -> RunEvaluation:
    """``result`` with its requests (whose measures hold functions) as their positions in
    ``requests``, to cross between processes."""
    position = {r: i for i, r in enumerate(requests)}
    kept = [position[r] for r in result.requests]
    return dataclasses.replace(result, requests=kept)  # type: ignore[arg-type]


def _evaluate_piece(piece: _Piece) -> _Outcome | _BlockOutcome:
    """`evaluate_piece` in a forked worker (or this process): of the task set before."""
    assert _TASK is not None
    return evaluate_piece(_TASK, piece)


def evaluate_piece(task: _Task, piece: _Piece) -> _Outcome | _BlockOutcome:
    """One piece of ``task`` (a run read whole, or a block of a run file read here by its
    byte range): its per-query values, warnings and error, for `evaluate_many_runs` to put
    together.  What a `Cluster`'s workers run."""
    if piece.block is None:
        return _evaluate_one(task, piece.run)
    return _evaluate_block(task, piece.run, piece.block)


def _evaluate_one(task: _Task, index: int) -> _Outcome:
    """Read, judge and evaluate run ``index`` of the task whole; its warnings and a user
    error are kept, to be told by the caller in the runs' order."""
    source = task.sources[index]
    name, where = source.name or "", ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            judgments = task.judgments
            if isinstance(judgments, Qrels):
                # room for a run's ids (~32-byte lines): a table sized once, copied for
                # every run, rather than grown in each (a long one is sized as it is read)
                queries = judgments.queries.scoped()
                length = task.sizes[index]
                # (none for a run read ahead: the reader takes the table it was read into)
                roomy = length <= BLOCK_BYTES and not pending(source.given)
                docs = judgments.docs.scoped(room=length // 32 if roomy else 0)
            else:
                queries, docs = judgments.queries, judgments.docs
            run = source.read(queries, docs, task.duplicates, task.order)
            name, where = run.name, run.source
            if task.check_common:
                check_common_queries(judgments, [run])
            result = _evaluated(task, run)
            if task.zscores is not None:
                result = to_zscores(result, task.zscores)
            result = _portable(result, task.requests)
            error = None
        except RankscopeError as e:
            result, error = None, e
    return _Outcome(index, result, name, where, _told(caught), error)


def _evaluated(task: _Task, run: Run) -> RunEvaluation:
    """``run`` evaluated on the task's requests, with its ranks of the task's relevant
    documents (``positions``); with positions and no request, only the judged queries it
    ranks (the positions' join; no evaluation, so none of its warnings)."""
    if task.positions is None:
        [result] = task.fmt.evaluate(
            task.judgments, [run], task.requests, task.options, task.num_docs, None
        )
        return result
    options = task.options
    found, judged = judged_positions(
        task.positions, run, ties=options.ties or "docno-desc", max_docs=options.max_docs
    )
    if not task.requests:
        return RunEvaluation(
            run.name, judged.query_ids, [], [], [], judged.missing, runid=run.runid,
            positions=found,
        )  # fmt: skip
    [result] = task.fmt.evaluate(task.judgments, [run], task.requests, options, task.num_docs, None)
    return dataclasses.replace(result, positions=found)


def _told(caught: list[warnings.WarningMessage]) -> list[Warning]:
    return [w.message for w in caught if isinstance(w.message, Warning)]


#: A block's rows as `read_run_block` gives them: the run, its suspicious lines and the
#: first document listed twice for a query (`RunShape.repeated`).
_Rows = tuple[Run, Suspicions, tuple[int, ...] | None]


def _read_block(
    task: _Task, block: RunBlock, data: bytes | memoryview, first_line: int, ahead: bool = False,
    whole: bool = False, done: Ahead | None = None, serial: bool = False,
) -> Parsing[tuple[_Rows | None, int]]:  # fmt: skip
    """`read_run_block` of ``block``'s text ``data``, its lines numbered from
    ``first_line``: begun (in another thread when ``ahead``), and its `Parsing`.  Its
    documents the judgments lack are numbered query by query (`Vocabulary.scoped`'s
    ``per_query``), unless ``whole`` or the task looks documents up by id
    (``doc_lengths``).  ``done``: the block as the command line read it ahead
    (`_ahead_of`; ``data`` its bytes), its parse taken where it was read that way.
    ``serial``: its compiled parser scans and interns in one thread (`read_run_block`)."""
    judgments = task.judgments
    at = Lines(first_line, at_start=block.start == 0)
    if task.options.doc_lengths is not None or whole:
        # every id in one table (document lengths are looked up by id); room for the ids
        # of a block of ~32-byte lines: one table size for every block
        docs = judgments.docs.scoped(room=task.block_bytes // 32)
        return read_run_block(
            data, block.source, judgments.queries.scoped(), docs, at, ahead, serial=serial
        )  # fmt: skip
    # the documents the judgments lack numbered query by query (`Vocabulary.scoped`)
    docs = judgments.docs.scoped(per_query=True)
    parsed = read_run_block(
        data, block.source, judgments.queries.scoped(), docs, at, ahead, done, serial
    )  # fmt: skip

    def together(read: tuple[_Rows | None, int]) -> tuple[_Rows | None, int]:
        rows = read[0]
        if rows is None or _queries_together(rows[0].query):
            return read
        # a query's lines in two places of the block: its documents must be numbered
        # across them (a document listed twice for it), so the block is read again
        return _read_block(task, block, data, first_line, whole=True, serial=serial)()

    return parsed.then(together)


def _ahead_of(block: RunBlock) -> Ahead | None:
    """The first block of a run file as the command line read it ahead (`rankscope.read
    .ahead`, ``blocks``), if ``block`` is that block: its bytes need not be read again."""
    if block.index != 0 or block.compressed or block.data is not None:
        return None
    done = taken(block.path, True)
    if done is None or not done.block or len(done.data) != block.end - block.start:
        return None
    return done


def _queries_together(q: np.ndarray) -> bool:
    """Whether the rows ``q`` (query codes) list each query's rows in one stretch."""
    heads = q[np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))]
    return int(np.bincount(heads).max()) <= 1


def _judge_block(task: _Task, run: Run, repeated: tuple[int, ...] | None = None) -> BlockResult:
    run = resolve_duplicates(run, task.duplicates, repeated=repeated)
    return evaluate_block(task.judgments, run, task.requests, task.options, task.num_docs)


def _ranked_codes(q: np.ndarray) -> np.ndarray:
    """The query codes of the rows ``q``, each once, ascending (as np.unique gives them),
    counted from the heads of the stretches of one query: a block of 830k rows has about
    830 of them, where np.unique or a bincount of every row took 12-40 ms."""
    heads = q[np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))]
    return np.flatnonzero(np.bincount(heads))


def _evaluate_block(task: _Task, index: int, block: RunBlock) -> _BlockOutcome:
    """Read, judge and evaluate one block of run ``index``, its lines numbered as if it
    started the file (the true numbers are known only to the caller)."""
    work = _BlockWork(task, index, block)
    work.begin()
    work.read()
    return work.finish()


class _BlockWork:
    """`_evaluate_block` in its steps, so that `_outcomes` in one process parses a
    block's text while the block before it is judged and evaluated (the compiled reader
    lets the GIL go: on two cores the two overlap, where one idled during each block's
    Python part): made (its text read; with ``ahead`` blocks parsed at once beside this
    thread, into the next of ``ahead`` buffers taking turns), `begin` (its parsing started;
    with ``ahead``, in another thread, which then makes its rows too; with two or more, a
    serial parse: see `_outcomes_here`), `read` (the block's rows: its text, and its buffer,
    then free), `finish` (its outcome).  Each step's warnings are caught apart, in this
    thread, and told in the steps' order (making the rows, numpy's work on the columns,
    warns of nothing: it runs beside the block before's judging, most of it without the
    GIL)."""

    def __init__(self, task: _Task, index: int, block: RunBlock, ahead: int = 0) -> None:
        self.task, self.index, self.block, self.ahead = task, index, block, ahead
        self.caught: list[Warning] = []
        self.failed: str | None = None  # as `_BlockOutcome.failed`
        self.parsed: Parsing[tuple[_Rows | None, int]] | None = None
        self.data: memoryview | None = None
        self.done: Ahead | None = None  # the block as the command line read it ahead
        self.rows: _Rows | None = None
        self.lines = 0
        self.making: threading.Thread | None = None  # with ``ahead``: parses, makes the rows
        self.made: tuple[_Rows | None, int] | BaseException | None = None  # ... its result
        try:
            self.done = _ahead_of(block)
            self.data = (
                task.scratch.text(block, ahead or 1) if self.done is None
                else memoryview(self.done.data)
            )  # fmt: skip
        except OSError:
            self.failed = "read"

    def begin(self) -> None:
        """Start parsing the block's text (with ``ahead``, in another thread)."""
        if self.data is None:
            return
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                self.parsed = _read_block(
                    self.task, self.block, self.data, 1, done=self.done, serial=self.ahead > 1
                )  # fmt: skip
            except RankscopeError:
                self.failed = "read"
                self.data.release()
        self.caught += _told(caught)
        if self.parsed is not None and self.ahead:
            self.making = threading.Thread(target=self._make, name="rankscope-reader")
            self.making.start()

    def _make(self) -> None:
        """The thread `begin` starts: the parse (the compiled parser lets the GIL go), then
        its rows (or what it raised)."""
        parsed = self.parsed
        assert parsed is not None
        try:
            self.made = parsed()
        except BaseException as e:  # raised by `read`, in the caller's thread
            self.made = e

    def read(self) -> None:
        """Wait for the block's rows (its text, and its buffer, are then free for another
        block's)."""
        if self.parsed is None or self.making is threading.current_thread():
            # (nothing to wait for; or an abandoned `_outcomes` generator finalised by the
            # collector in the thread that makes these rows: it cannot wait for itself)
            return
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                with self.data:  # type: ignore[union-attr]
                    self.rows, self.lines = self._rows()
            except RankscopeError:
                self.failed = "read"
        self.parsed = self.data = self.done = self.made = None  # (the text let go: the
        self.caught += _told(caught)  # next is read)

    def _rows(self) -> tuple[_Rows | None, int]:
        """The block's rows and newlines (made by the thread `begin` started, if any)."""
        assert self.parsed is not None
        if self.making is None:
            return self.parsed()
        self.making.join()
        self.making, made = None, self.made
        if isinstance(made, BaseException):
            raise made
        assert made is not None
        return made

    def finish(self) -> _BlockOutcome:
        """The block's rows judged and evaluated (`read` first)."""
        ranked: list[str] = []
        result, found = None, None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if self.rows is not None:
                (run, found, repeated), self.rows = self.rows, None  # (not held on)
                ranked = run.queries.strings_of(_ranked_codes(run.query))
                try:
                    result = _judge_block(self.task, run, repeated)
                except RankscopeError:
                    self.failed = "later"
        told = self.caught + _told(caught)
        bare = dataclasses.replace(self.block, data=None)
        return _BlockOutcome(
            self.index, bare, self.lines, ranked, result, told, self.failed, found
        )  # fmt: skip


class _Assembly:
    """The blocks of one run as they come back, in file order, into its `_Outcome`: the
    first block whose text is bad gives the error (as reading the whole file stops at its
    first bad line), else the first block failing later (a document repeated within a
    query); the failing block is read again here with its true line numbers, for the
    message reading the whole file gives.  A run found unsorted is read whole, here or by
    a worker of the ``cluster``."""

    def __init__(self, task: _Task, index: int, cluster: Cluster | None = None) -> None:
        self.task, self.index, self.cluster = task, index, cluster
        self.parts: list[BlockResult] = []
        self.home: dict[str, int] = {}  # query -> the block that ranks it
        self.spans: list[tuple[int, int]] = []  # per block: its first and last line
        self.next_line = 1
        self.later: tuple[RunBlock, int] | None = None
        self.warnings: list[Warning] = []
        self.ranked: list[str] = []
        self.found: Suspicions | None = None  # the blocks' suspicious lines, added up

    def add(self, item: _BlockOutcome) -> _Outcome | None:
        """The run's outcome once ``item`` decides it, else None."""
        block, first = item.block, self.next_line
        self.spans.append((first, first + max(item.lines - 1, 0)))
        self.next_line += item.lines
        if item.failed == "read":
            return self._failed(block, first)
        for q in item.ranked:
            if q in self.home:
                return self._unsorted(q, self.home[q], block.index)
            self.home[q] = block.index
        self.warnings += item.warnings
        if item.found is not None:
            found = item.found.shifted(first - 1)
            self.found = found if self.found is None else self.found.merged(found)
        if item.failed == "later" and self.later is None:
            self.later = (block, first)
        if item.result is not None:
            self.parts.append(item.result)
        return self._finished(block) if block.last else None

    def _finished(self, block: RunBlock) -> _Outcome:
        task = self.task
        given = task.sources[self.index]
        name = given.name or next((p.tag for p in reversed(self.parts) if p.tag), None)
        name = name or Path(block.source).name
        if self.later is not None:
            return self._failed(*self.later)
        if not any(p.rows for p in self.parts):
            return self._error(InputError(f"{block.source}: no ranked documents found"), name)
        if task.check_common:
            error = no_common_query(task.judgments, name, block.source, list(self.home))
            if error is not None:
                return self._error(error, name)
        with warnings.catch_warnings(record=True) as suspicious:
            warnings.simplefilter("always")
            if self.found is not None:  # as reading the whole file warns
                warn_suspicious(block.source, self.found)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = merge_blocks(
                task.judgments, self.parts, task.requests, task.options, source=block.source,
                name=given.name, num_docs=task.num_docs,
            )  # fmt: skip
        if task.zscores is not None:
            result = to_zscores(result, task.zscores)
        told = _told(suspicious) + self.warnings + _told(caught)
        return _Outcome(self.index, _portable(result, task.requests), name, block.source, told,
                        None)  # fmt: skip

    def _error(self, error: RankscopeError, name: str = "") -> _Outcome:
        return _Outcome(self.index, None, name, "", [], error)

    def _failed(self, block: RunBlock, first_line: int) -> _Outcome:
        """The error of ``block`` (which failed in a worker), its lines numbered from
        ``first_line``."""
        task = self.task
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                data = block.text()
                read, _ = _read_block(task, block, data, first_line)()
                if read is not None:
                    _judge_block(task, read[0], read[2])
            except OSError as e:
                return self._error(InputError(f"{block.source}: cannot be read ({e.strerror})"))
            except RankscopeError as e:
                return self._error(e)
        if self.cluster is not None:  # read here, but not where the worker runs
            return self._error(InputError(
                f"{block.source}: a worker of the cluster cannot read it (bytes {block.start} to "
                f"{block.end}): the workers must see the run files under the same path"
            ))  # fmt: skip
        raise RuntimeError(f"{block.source}: block {block.index} failed once only")

    def _unsorted(self, query: str, before: int, now: int) -> _Outcome:
        """A query in two blocks: the run is read whole, or is too long for that."""
        size = self.task.sizes[self.index]
        if size <= WHOLE_RUN_BYTES:
            if self.cluster is None:
                return _evaluate_one(self.task, self.index)
            [whole] = self.cluster.map(evaluate_piece, self.task, iter([_Piece(self.index)]))
            return whole
        (a, b), (c, _) = self.spans[before], self.spans[now]
        path = self.task.sources[self.index].given
        return self._error(
            InputError(
                f"{path}: query '{query}' has lines in two places (among lines {a}-{b}, and "
                f"again from line {c}): a run file this long ({size / 2**30:.1f} GiB) is "
                f"evaluated query by query, and must list each query's lines together. "
                f"Sort it by query first (GNU sort sorts files larger than memory): "
                f"LC_ALL=C sort -s -k1,1 -S 1G {path} > sorted.txt"
            )
        )


def evaluate_many_runs(
    judgments: Any,
    sources: Sequence[RunToRead],
    requests: Sequence[Request],
    fmt: JudgmentFormat,
    options: JoinOptions | None = None,
    *,
    num_docs: int = 0,
    zscores: ZScores | None = None,
    duplicates: str = "error",
    order: str = "score",
    names: str = "file",
    check_common: bool = False,
    jobs: int | None = None,
    block_bytes: int | None = None,
    distinct_for: str | None = None,
    cluster: Cluster | None = None,
    positions: RelevantDocs | None = None,
) -> list[RunEvaluation]:
    """Evaluate the runs of ``sources`` one at a time, large ones block by block (see the
    module), as `evaluate_runs` would evaluate them all at once; ``jobs``: worker processes
    (None: every core when the runs are big enough to pay for them, else this process
    alone); ``cluster``: the pieces evaluated on its workers instead, each reading its run
    or block itself (a gzipped run there whole: its blocks would carry their text).
    ``block_bytes``: the length of a block (default: `BLOCK_BYTES`, or less to give every
    core several blocks); TREC run files longer than that are read in blocks.
    Runs are named as `resolve_runs` names them; ``check_common``: a run sharing no query
    with the judgments is an error (`check_common_queries`); ``distinct_for`` as
    `resolve_runs`'.  ``positions``: each evaluation also keeps where its run ranks these
    relevant documents (`judged_positions`; the ``ties`` and ``max_docs`` of ``options``):
    what preferences and recall levels need of a run, small; such runs are read whole, not
    in blocks.  With ``positions`` and no request, the runs are judged, not evaluated."""
    global _TASK
    check_jobs(jobs)
    if block_bytes is not None and (isinstance(block_bytes, bool) or block_bytes < 1):
        raise UsageError(f"block_bytes must be a whole number >= 1 (got {block_bytes!r})")
    if not streams(requests):
        raise UsageError("preference measures compare the runs: evaluate them all at once")
    options = evaluation_options(judgments, requests, fmt, options, num_docs)
    task = _Task(
        judgments, sources, requests, fmt, options, num_docs, zscores, duplicates, order,
        check_common, positions=positions,
    )  # fmt: skip
    task, workers = _plan(task, jobs, block_bytes, cluster)
    outcomes: list[_Outcome] = []
    assemblies: dict[int, _Assembly] = {}  # runs read in blocks, being put together
    decided: set[int] = set()  # ... and those whose outcome is known
    _TASK = task
    found: Iterator[_Outcome | _BlockOutcome] | None = None
    try:
        pieces = _pieces(task)
        found = _outcomes(pieces, workers) if cluster is None else cluster.map(
            evaluate_piece, task, pieces
        )  # fmt: skip
        for item in found:
            if isinstance(item, _BlockOutcome):
                if item.run in decided:
                    continue  # (a bad block, or an unsorted run read whole)
                if item.run not in assemblies:
                    assemblies[item.run] = _Assembly(task, item.run, cluster)
                done = assemblies[item.run].add(item)
                if done is None:
                    continue
                decided.add(item.run)
                del assemblies[item.run]
                item = done
            if item.error is not None:
                raise item.error
            outcomes.append(item)
    finally:
        if isinstance(found, Generator):
            # left on an error: its pool shut down now, in this thread (finalised later by
            # the collector, it could run in the pool's own thread, which cannot join itself)
            found.close()
        _TASK = None
    # Named as resolve_runs names runs read all at once, then each run's warnings told
    # under its final name, in the runs' order.
    final = run_names([(o.name, o.source) for o in outcomes], names, distinct_for)
    results = []
    for o, name in zip(outcomes, final, strict=True):
        for message in o.warnings:
            warnings.warn(_renamed(message, o.name, name), stacklevel=2)
        assert o.result is not None
        used = [requests[i] for i in o.result.requests]  # type: ignore[call-overload]
        results.append(dataclasses.replace(o.result, run_name=name, requests=used))
    return results


def _renamed(message: Warning, old: str, new: str) -> Warning:
    """A run's warning naming it ``new`` where it was read as ``old`` (its tag, until runs
    of one tag were named after their files)."""
    if old == new or not isinstance(message, RankscopeWarning):
        return message
    text, cli = str(message), message.cli_message
    was, now = f"run '{old}'", f"run '{new}'"
    return RankscopeWarning(
        text.replace(was, now), cli=cli.replace(was, now) if cli != text else None
    )


def _blockable(task: _Task, source: RunToRead, cluster: Cluster | None) -> bool:
    """Whether ``source`` can be read in blocks: a TREC run file ranked by score (the
    compiled reader's), judged by qrels, its relevant documents' positions not asked for;
    not gzipped for a ``cluster``."""
    given = source.given
    return (
        task.positions is None
        and native() is not None
        and isinstance(task.judgments, Qrels)
        and task.fmt.name == "qrels"
        and task.order == "score"
        and isinstance(given, str | os.PathLike)
        and not str(given).endswith((".parquet", ".pq"))
        and os.path.isfile(given)
        and (cluster is None or not is_gzip(given))
    )


def _plan(task: _Task, jobs: int | None, block_bytes: int | None,
          cluster: Cluster | None = None) -> tuple[_Task, int]:  # fmt: skip
    """The runs read in blocks, the length of a block, and the worker processes (or the
    ``cluster``'s workers)."""
    sizes = tuple(_text_bytes(s) for s in task.sources)
    workers = _workers(sum(sizes), jobs) if cluster is None else max(1, cluster.workers())
    if cluster is None and in_this_process(len(sizes), workers):
        workers = 1  # (a lone run: its blocks' parse beside their judging, `_outcomes_here`)
    if block_bytes is None and cluster is None and workers == 1:
        # (this process: two blocks parsed at once on two cores, `block_bytes_here`)
        block_bytes = block_bytes_here(available_cores())
    elif block_bytes is None:
        # several blocks for every core: eight, so that the last blocks leave a worker
        # idle for less (a 7M-line run on two workers: 17 MB blocks, 10% faster than 32 MB)
        share = sum(sizes) // (8 * workers)
        block_bytes = BLOCK_BYTES if workers == 1 else max(min(share, BLOCK_BYTES), MIN_BLOCK_BYTES)
    blocked = frozenset(
        i
        for i, s in enumerate(task.sources)
        if sizes[i] > block_bytes and _blockable(task, s, cluster)
    )
    pieces = sum(-(-sizes[i] // block_bytes) if i in blocked else 1 for i in range(len(sizes)))
    task = dataclasses.replace(task, block_bytes=block_bytes, blocked=blocked, sizes=sizes)
    return task, max(1, min(workers, pieces))


def _text_bytes(source: RunToRead) -> int:
    """The length of the text of a run file (0: not a file, or unknown)."""
    given = source.given
    try:
        return text_size(given) if isinstance(given, str | os.PathLike) else 0
    except OSError:
        return 0


def _pieces(task: _Task) -> Iterator[_Piece]:
    for i in range(len(task.sources)):
        if i in task.blocked:
            for block in run_blocks(task.sources[i].given, task.block_bytes):
                yield _Piece(i, block)
        else:
            yield _Piece(i)


def _workers(size: int, jobs: int | None) -> int:
    """Worker processes for run files of ``size`` bytes in all."""
    if jobs == 1 or (jobs is None and size < PARALLEL_BYTES):
        return 1
    import multiprocessing  # (not at start-up: one run, or small ones, need no pool)

    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    if jobs is None:
        # forking a process that runs other threads (a notebook's, a Dask worker's) may
        # deadlock the children: the default pool is for single-threaded callers
        jobs = available_cores() if threading.active_count() == 1 else 1
    return jobs


def _outcomes_here(pieces: Iterator[_Piece]) -> Iterator[_Outcome | _BlockOutcome]:
    """Each piece's outcome, evaluated in this process in the pieces' order: a block's text
    parsed (without the GIL, `_BlockWork`) while the block before it is judged and
    evaluated.  On two cores or more, two blocks are parsed at once, each by a serial
    parser (`parsed_at_once`), beside the judging: one parse's two threads (scanning,
    interning) kept ~1.6 of the two cores busy with it (the one waited for the other), and
    handing records over between them cost ~10% more CPU than scanning and interning in
    turns.  The next block's text is read into the buffer of the oldest block being
    parsed, once its rows are made, and its parse begun before that block is judged."""
    assert _TASK is not None
    task = _TASK
    ahead = parsed_at_once(available_cores())
    works: collections.deque[_BlockWork] = collections.deque()  # begun, in order
    try:
        for piece in pieces:
            done = None
            if works and (len(works) >= ahead or piece.block is None):
                done = works.popleft()
                done.read()  # (its rows made: its buffer is the next text's)
            if piece.block is not None:
                after = _BlockWork(task, piece.run, piece.block, ahead=ahead)
                after.begin()
                works.append(after)
            if done is not None:
                yield done.finish()
            if piece.block is None:
                while works:  # (every block before it first, in order)
                    done = works.popleft()
                    done.read()
                    yield done.finish()
                yield _evaluate_piece(piece)
        while works:
            done = works.popleft()
            done.read()
            yield done.finish()
    finally:
        for work in works:  # abandoned (an error, or the caller stopped): their parses
            work.read()  # waited for


def _outcomes(pieces: Iterator[_Piece], workers: int) -> Iterator[_Outcome | _BlockOutcome]:
    """Each piece's outcome, in the pieces' order."""
    if workers == 1:
        yield from _outcomes_here(pieces)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # Pieces are submitted from this thread, a bounded window ahead, and an error (a bad
    # line) cancels the rest and waits for the running ones: multiprocessing.Pool's
    # terminate, with its own thread iterating the pieces, could deadlock there.
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=context) as executor:
        yield from in_order(executor, _evaluate_piece, pieces, 2 * workers - 1)


def in_order(
    executor: Executor, function: Callable[[Any], Any], items: Iterable[Any], ahead: int
) -> Iterator[Any]:
    """``function`` of each of ``items`` on ``executor``, the results in the items' order:
    the items are taken and submitted from this thread, at most ``ahead`` beyond the one
    whose result is awaited; an error is raised at its item's turn, and cancels the rest
    (the running ones are waited for by the executor's exit)."""
    window: collections.deque[Future[Any]] = collections.deque()
    try:
        for item in items:
            window.append(executor.submit(function, item))
            if len(window) > ahead:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()
    finally:
        for future in window:
            future.cancel()
