"""Reading ahead (`rankscope.read.ahead`, issue 24's cold start): the judgments and a run
read and parsed in a thread while ``rankscope eval`` imports, and taken by the reader.  What
the reader returns, raises and warns is what it does without reading ahead: the same rows,
the same codes, the same errors at the same lines."""

from __future__ import annotations

import subprocess
import sys
import threading
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

from rankscope import InputError
from rankscope.model import Vocabulary, native
from rankscope.read import ahead, cuts, trec
from rankscope.read.blocks import run_blocks
from rankscope.read.trec import read_qrels, read_run
from rankscope.table import many

from .test_blocks import WHOLE, evaluated, write_track

pytestmark = pytest.mark.skipif(native() is None, reason="reading ahead needs the compiled reader")

QRELS = b"q1 0 d1 1\nq1 0 d2 0\n# a comment\nq2 0 d3 2\nq2 0 d9 1\n"
RUN = b"q1 Q0 d1 1 2.5 tag\nq1 Q0 d7 2 1.5 tag\nq2 Q0 d3 1 0.5 tag\nq3 Q0 d1 1 0.25 tag\n"


def read_both(qrels: Path, run: Path) -> tuple:
    """Judgments and a run read as ``rankscope eval`` reads them (the run into vocabularies
    scoped from the judgments'): their codes, values and lines, the run's ids, and the
    warnings; or the error raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            judged = read_qrels(qrels)
            ranked = read_run(run, judged.queries.scoped(), judged.docs.scoped())
        except InputError as error:
            return ("error", str(error), [str(w.message) for w in caught])
    columns = [judged.query, judged.doc, judged.grade, judged.line]
    columns += [ranked.query, ranked.doc, ranked.score, ranked.line]
    ids = (ranked.queries.strings, ranked.docs.strings, ranked.name, ranked.tag)
    return ([np.asarray(c).tolist() for c in columns], ids, [str(w.message) for w in caught])


def read_ahead_both(qrels: Path, run: Path, monkeypatch) -> tuple[tuple, list]:
    """`read_both` within `reading_ahead`, and what the reader took (the `Ahead`s)."""
    took: list = []

    def recorded(path, is_run):
        found = ahead.taken(path, is_run)
        took.append(found)
        return found

    monkeypatch.setattr(trec, "taken", recorded)
    with ahead.reading_ahead(str(qrels), [str(run)]):
        assert ahead.pending(str(run)) and ahead.pending(str(qrels), is_run=False)
        got = read_both(qrels, run)
        assert not ahead.pending(str(qrels), is_run=False)
        assert got[0] == "error" or not ahead.pending(str(run))  # (the run: unless no need)
    return got, took


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_what_is_read_ahead_is_what_is_read(tmp_path, monkeypatch):
    """The judgments' and the run's rows, codes (q3 and d7, in the run only, after the
    judgments' ids) and ids, read ahead, are those read without; the reader took the id
    tables the thread filled."""
    qrels, run = write(tmp_path / "q.txt", QRELS), write(tmp_path / "r.txt", RUN)
    expected = read_both(qrels, run)
    assert expected[1][:2] == (["q1", "q2", "q3"], ["d1", "d2", "d3", "d9", "d7"])
    got, took = read_ahead_both(qrels, run, monkeypatch)
    assert got == expected
    assert all(a is not None for a in took) and len(took) == 2


BAD = {  # which file is bad, and how
    "a NUL byte in the run": ("run", RUN.replace(b"d7", b"d\x007")),
    "a score that is no number": ("run", RUN.replace(b"1.5", b"1,5")),
    "too few fields in the run": ("run", RUN + b"q4 Q0 d1 1\n"),
    "CR-only line endings in the run": ("run", RUN.replace(b"\n", b"\r")),
    "a byte-order mark on the run": ("run", b"\xef\xbb\xbf" + RUN),
    "a grade that is no integer": ("qrels", QRELS.replace(b"d9 1", b"d9 1.5")),
    "a run given as judgments": ("qrels", RUN),
    "a byte-order mark on the judgments": ("qrels", b"\xef\xbb\xbf" + QRELS),
    "CR-only line endings in the judgments": ("qrels", QRELS.replace(b"\n", b"\r")),
    "only comments in the run": ("run", b"# nothing\n"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_read_ahead_says_what_it_says_read(tmp_path, monkeypatch, case):
    """A bad or surprising file read ahead gives the error (its line) or the warnings it
    gives read without."""
    kind, data = BAD[case]
    qrels = write(tmp_path / "q.txt", data if kind == "qrels" else QRELS)
    run = write(tmp_path / "r.txt", data if kind == "run" else RUN)
    expected = read_both(qrels, run)
    assert expected[0] == "error" or expected[2], expected  # (each case says something)
    got, _ = read_ahead_both(qrels, run, monkeypatch)
    assert got == expected


def test_a_file_changed_after_it_was_read_ahead_is_read_again(tmp_path, monkeypatch):
    """The run rewritten once the thread has read it: the reader reads the new run."""
    qrels, run = write(tmp_path / "q.txt", QRELS), write(tmp_path / "r.txt", RUN)
    changed = RUN.replace(b"2.5", b"9.75")
    with ahead.reading_ahead(str(qrels), [str(run)]):
        judged = read_qrels(qrels)
        for thread in threading.enumerate():  # the reading thread done (only it: a test
            if thread.name == ahead.THREAD:   # before may have left threads that never end)
                thread.join()
        run.write_bytes(changed)
        ranked = read_run(run, judged.queries.scoped(), judged.docs.scoped())
    assert ranked.score.tolist() == [9.75, 1.5, 0.5, 0.25]


def test_a_vocabulary_continues_what_its_table_held():
    """`Vocabulary.continues`: an empty vocabulary continues an empty table; one scoped from
    a vocabulary continues that one's table as it held as many ids, and no longer once an
    id is added to either; a pure-Python vocabulary never does."""
    assert Vocabulary().continues(None)
    base = Vocabulary(["a", "b"])
    assert not base.continues(None)
    table = base.native
    scoped = base.scoped()
    assert scoped.continues((table, 2))
    assert not scoped.continues((table, 1)) and not scoped.continues((table.copy(), 2))
    scoped.intern("c")
    assert not scoped.continues((table, 2))
    later = base.scoped()
    base.intern("d")
    assert not later.continues((table, 2)) and not later.continues((table, 3))
    assert not Vocabulary(pure=True).continues(None)


def test_reading_ahead_imports_no_numpy():
    """The command line starts reading before numpy is imported (the point of it)."""
    code = "import sys, rankscope.read.ahead\nprint('numpy' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.split() == ["False"]


def test_a_serial_parser_reads_what_a_threaded_one_reads():
    """``Parser.serial`` (no scanner thread: the reading-ahead thread's) gives the same rows,
    codes and run evidence, and the same error at the same line, as the threaded parser."""
    fast = native()
    lines = [
        f"q{i % 13} Q0 d{(i * 7919) % 5000} {i} {(i % 97) / 7:.4f} t{i % 3}" for i in range(20000)
    ]
    good = ("\n".join(lines) + "\n").encode()
    bad = good.replace(b" 1000 ", b" 1000 x ", 1).replace(b"\nq5 Q0", b"\nq5\x00Q0", 1)

    def parsed(data: bytes, serial: bool):
        parser = fast.Parser(fast.Interner(), fast.Interner(), True)
        if serial:
            parser.serial()
        fed = parser.feed(data, True)
        if not isinstance(fed, int):
            return fed
        out = parser.result()
        return [bytes(b) for b in out[:4]], out[4], bytes(out[5]), out[6], out[7]

    for data in (good, bad, good[: len(good) // 2]):
        assert parsed(data, serial=True) == parsed(data, serial=False)
    assert not isinstance(parsed(bad, serial=True), list)  # (the bad text: an error)


def test_a_large_run_or_a_directory_is_not_read_ahead(tmp_path, monkeypatch):
    """A run longer than `LARGEST`, a directory of runs, several runs, judgments that are no
    file: nothing is read ahead and no thread runs (the evaluation may fork worker
    processes for a large run)."""
    qrels, run = write(tmp_path / "q.txt", QRELS), write(tmp_path / "r.txt", RUN)
    threads = threading.active_count()
    monkeypatch.setattr(ahead, "LARGEST", len(RUN) - 1)
    cases = [(qrels, [str(run)]), (qrels, [str(tmp_path)]), (qrels, [str(run), str(run)])]
    for given, runs in [*cases, (tmp_path / "none", [str(qrels)])]:
        with ahead.reading_ahead(str(given), runs):
            assert threading.active_count() == threads
            assert not ahead.pending(str(given), is_run=False) and not ahead.pending(runs[0])
    monkeypatch.setattr(ahead, "LARGEST", len(RUN))
    with ahead.reading_ahead(str(qrels), [str(run)]):
        assert ahead.pending(str(run))


# --- the first block of a large run (``blocks``: `rankscope eval --jobs 1`) -------------


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 2,000 bytes: a run of a few kilobytes is read as a large one is (each
    test sets `LARGEST` between the judgments' length and the run's)."""
    blocks_of(2000, monkeypatch)


def blocks_of(size: int, monkeypatch) -> None:
    """The blocks of a run evaluated in this process ``size`` bytes long, whatever the
    cores, for the reading ahead and the evaluation alike."""
    for module in (ahead, many):
        monkeypatch.setattr(module, "block_bytes_here", lambda cores: size)


def evaluated_ahead(qrels: Path, run: Path, monkeypatch, **options) -> tuple[tuple, list, list]:
    """`evaluated` with ``jobs=1`` within ``reading_ahead(..., blocks=True)``, as ``rankscope
    eval --jobs 1`` reads a large run; and the first blocks read ahead that the evaluation
    took (`many._ahead_of`), and the id tables adopted."""
    took: list = []
    adopted: list = []
    taking, adopting = many._ahead_of, Vocabulary.adopt

    def recorded(block):
        found = taking(block)
        if found is not None:
            took.append(found)
        return found

    def adopt(self, table):
        adopted.append(table)
        adopting(self, table)

    monkeypatch.setattr(many, "_ahead_of", recorded)
    monkeypatch.setattr(Vocabulary, "adopt", adopt)
    largest(qrels, run, monkeypatch)
    with ahead.reading_ahead(str(qrels), [str(run)], blocks=True):
        got = evaluated(qrels, [str(run)], jobs=1, **options)
    return got, took, adopted


def largest(qrels: Path, run: Path, monkeypatch) -> None:
    """`LARGEST` set to the judgments' length: they are read ahead whole, ``run`` not."""
    assert qrels.stat().st_size < run.stat().st_size
    monkeypatch.setattr(ahead, "LARGEST", qrels.stat().st_size)


def expected_of(qrels: Path, run: Path, **options) -> tuple:
    """What evaluating without reading ahead gives, in blocks and whole (the same)."""
    blocks = evaluated(qrels, [str(run)], jobs=1, block_bytes=2000, **options)
    assert blocks == evaluated(qrels, [str(run)], jobs=1, block_bytes=WHOLE, **options)
    return blocks


def test_a_large_runs_first_block_read_ahead_gives_what_reading_gives(
    tmp_path, monkeypatch, small_blocks
):
    """A run longer than a block: its first block, cut as `run_blocks` cuts it, parsed
    ahead and taken (its id tables adopted, the judgments' too), the evaluation's table
    and warnings those of reading every block, and of reading the run whole."""
    qrels, run = write_track(tmp_path, seed=11)
    expected = expected_of(qrels, run, measures=("all_trec",))
    got, took, adopted = evaluated_ahead(qrels, run, monkeypatch, measures=("all_trec",))
    assert got == expected
    [first] = took
    assert first.block and first.data == next(run_blocks(run, 2000)).text()
    assert first.queries in adopted and first.docs in adopted and len(adopted) == 4


def test_a_first_block_read_ahead_with_document_lengths_is_read_again(
    tmp_path, monkeypatch, small_blocks
):
    """With document lengths every block's ids go in one table (they are looked up by id):
    the first block read ahead is parsed again from its bytes, with the same values."""
    qrels, run = write_track(tmp_path, seed=15)
    lengths = {f"d{q}-{d}": 10 + (q * 7 + d) % 50 for q in range(40) for d in range(45)}
    options = {"measures": ("map", "tbg"), "doc_lengths": lengths}
    expected = expected_of(qrels, run, **options)
    got, took, adopted = evaluated_ahead(qrels, run, monkeypatch, **options)
    assert got == expected and len(took) == 1
    assert took[0].docs not in adopted and took[0].queries not in adopted


def _lines(run: Path) -> list[str]:
    return run.read_text().split("\n")


def _first_query_lines(lines: list[str]) -> tuple[int, int]:
    """The first ranked line and the first line of the next query (indices in ``lines``)."""
    ranked = [i for i, line in enumerate(lines) if line.strip() and not line.startswith("#")]
    first = lines[ranked[0]].split()[0]
    return ranked[0], next(i for i in ranked if lines[i].split()[0] != first)


def _edited(run: Path, case: str) -> None:
    lines = _lines(run)
    first, second = _first_query_lines(lines)
    if case == "a bad score":
        fields = lines[first].split()
        lines[first] = " ".join([*fields[:4], "x", *fields[5:]])
    elif case == "a document twice":
        lines.insert(first + 1, lines[first])
    elif case == "a query in two places":
        lines.insert(second + 1, lines[first])
        del lines[first]
    elif case == "a byte-order mark":
        lines[0] = "\ufeff" + lines[0]
    run.write_text("\n".join(lines))


@pytest.mark.parametrize(
    "case", ["a bad score", "a document twice", "a query in two places", "a byte-order mark"]
)
@pytest.mark.parametrize("duplicates", ["error", "first"])
def test_a_first_block_read_ahead_says_what_reading_says(
    tmp_path, monkeypatch, small_blocks, case, duplicates
):
    """A bad or surprising first block read ahead: the same error (its line), or the same
    table and warnings, as reading it."""
    qrels, run = write_track(tmp_path, seed=12)
    _edited(run, case)
    options = {"measures": ("map", "P_5"), "duplicates": duplicates}
    try:
        expected: tuple | str = expected_of(qrels, run, **options)
    except InputError as error:
        expected = str(error)
    try:
        got: tuple | str = evaluated_ahead(qrels, run, monkeypatch, **options)[0]
    except InputError as error:
        got = str(error)
    assert got == expected
    if case == "a bad score":
        assert isinstance(got, str) and ":" in got


def test_a_run_changed_after_its_first_block_was_read_ahead_is_read_again(
    tmp_path, monkeypatch, small_blocks
):
    """The run rewritten once the thread has read its first block: the evaluation reads
    the new run."""
    qrels, run = write_track(tmp_path, seed=13)
    lines = _lines(run)
    first, _ = _first_query_lines(lines)
    fields = lines[first].split()
    lines[first] = " ".join([*fields[:4], "99.5", *fields[5:]])
    changed = "\n".join(lines)
    expected = evaluated(qrels, [str(run)], ("map",), jobs=1)
    largest(qrels, run, monkeypatch)
    with ahead.reading_ahead(str(qrels), [str(run)], blocks=True):
        for thread in threading.enumerate():
            if thread.name == ahead.THREAD:
                thread.join()
        run.write_text(changed)
        got = evaluated(qrels, [str(run)], ("map",), jobs=1)
    run.write_text(changed)
    assert got == evaluated(qrels, [str(run)], ("map",), jobs=1) != expected


def test_only_a_plain_run_longer_than_a_block_has_its_first_block_read_ahead(
    tmp_path, monkeypatch, small_blocks
):
    """``blocks``: a gzipped run, or one no longer than a block (read whole, not in blocks),
    is not read ahead; nor is a large run without ``blocks`` (worker processes may be
    forked)."""
    qrels, run = write_track(tmp_path, seed=14)
    (tmp_path / "gz").mkdir()
    zipped = write_track(tmp_path / "gz", seed=14, queries=400, gz=True)[1]
    assert zipped.stat().st_size > max(qrels.stat().st_size, 2000)
    short = write(tmp_path / "short.txt", RUN)
    largest(qrels, run, monkeypatch)
    threads = threading.active_count()
    for path, blocks in [(zipped, True), (run, False)]:
        with ahead.reading_ahead(str(qrels), [str(path)], blocks=blocks):
            assert threading.active_count() == threads and not ahead.pending(str(path))
    with ahead.reading_ahead(str(qrels), [str(short)], blocks=True):  # (read whole, if
        assert ahead.pending(str(short))  # short enough; not as a block)
    blocks_of(1 << 20, monkeypatch)
    with ahead.reading_ahead(str(qrels), [str(run)], blocks=True):
        assert not ahead.pending(str(run))
    blocks_of(2000, monkeypatch)
    with ahead.reading_ahead(str(qrels), [str(run)], blocks=True):
        assert ahead.pending(str(run))


@pytest.mark.parametrize("cores", [1, 2])
def test_the_first_block_read_ahead_is_the_evaluations_on_one_core_and_two(
    tmp_path, monkeypatch, cores
):
    """The blocks parsed at once hold `BLOCK_BYTES` of text between them (`cuts`'s
    `block_bytes_here`): one block of it on one core, two of half of it on two.  The
    reading ahead cuts the first block the evaluation's blocks begin with, on either."""
    monkeypatch.setattr(cuts, "BLOCK_BYTES", 4000)
    for module in (ahead, many):
        monkeypatch.setattr(module, "available_cores", lambda: cores)
    assert cuts.block_bytes_here(cores) == 4000 // cores
    no_runs = many._Task(None, (), (), None, None, 0, None, "error", "score", False)
    assert many._plan(no_runs, 1, None)[0].block_bytes == 4000 // cores  # (the default)
    qrels, run = write_track(tmp_path, seed=17)
    expected = expected_of(qrels, run, measures=("map", "P_5"))
    got, took, _ = evaluated_ahead(qrels, run, monkeypatch, measures=("map", "P_5"))
    assert got == expected
    [first] = took
    assert first.block and first.data == next(run_blocks(run, 4000 // cores)).text()


def test_one_core_parses_serially(tmp_path, monkeypatch):
    """A process with one core has its parsers scan and intern in turns in the feeding
    thread (a scanner thread would only take turns with it on that core); with two it
    scans in a thread of its own.  The run read is the same either way."""
    made = []

    class Spy:
        def __init__(self, *args):
            self.inner = native().Parser(*args)
            self.serial_called = False
            made.append(self)

        def serial(self):
            self.serial_called = True
            self.inner.serial()

    fake = types.SimpleNamespace(Parser=Spy)
    runs = []
    for cores in (1, 2):
        monkeypatch.setattr(trec, "available_cores", lambda cores=cores: cores)
        trec._parser(fake, Vocabulary(), Vocabulary(), True)
        runs.append(read_run(write(tmp_path / f"r{cores}.txt", RUN)))
    assert [spy.serial_called for spy in made] == [True, False]
    one, two = runs
    assert one.queries.strings == two.queries.strings
    for column in ("query", "doc", "score"):
        assert np.array_equal(getattr(one, column), getattr(two, column))


def test_the_next_blocks_buffers_made_while_importing_are_read_into(
    tmp_path, monkeypatch, small_blocks
):
    """After a large run's first block, the reading thread makes the buffers the next
    blocks' texts are read into (zeroed, as long as the reader makes one for a block):
    the evaluation reads into them, with the values of reading without them; those it
    does not take are dropped at the end."""
    qrels, run = write_track(tmp_path, seed=16)
    expected = expected_of(qrels, run, measures=("map", "P_5"))
    given: list = []
    taking = ahead.ready_buffer

    def recorded(size):
        found = taking(size)
        given.append((size, found))
        return found

    monkeypatch.setattr(many, "ready_buffer", recorded)
    got, took, _ = evaluated_ahead(qrels, run, monkeypatch, measures=("map", "P_5"))
    assert got == expected and took
    used = [found for _, found in given if found is not None]
    assert used and all(len(found) == 2000 + 2000 // 8 for found in used)
    assert all(size <= 2000 + 2000 // 8 for size, found in given if found is not None)
    assert not ahead._BUFFERS  # (dropped with the reading thread)
    zeroed = native().zeroed_buffer(5000)
    assert isinstance(zeroed, bytearray) and zeroed == bytearray(5000)
    with pytest.raises(ValueError, match="negative"):
        native().zeroed_buffer(-1)
