"""A run read in blocks of whole queries (rankscope.read.blocks, rankscope.table.blocks):
the cuts, and evaluation identical to reading the run whole, value for value, warning for
warning and error for error, for any block length and any number of jobs."""

from __future__ import annotations

import gzip
import random
import warnings
from pathlib import Path

import numpy as np
import pytest

from rankscope import InputError
from rankscope.api import evaluate_many
from rankscope.model import native
from rankscope.read import cuts
from rankscope.read.blocks import run_blocks
from rankscope.report.evaluation import format_evaluations
from rankscope.table import many

from .conftest import run_cli

pytestmark = pytest.mark.skipif(native() is None, reason="blocks need the compiled reader")

WHOLE = 1 << 40  # a block length no test file reaches: the run is read whole


def write_track(tmp: Path, seed: int = 0, queries: int = 40, gz: bool = False):
    """Judgments and one run with what the join has to get right: queries the judgments
    lack, judged queries the run lacks, tied scores, unjudged and negative-graded documents,
    comments and blank lines, CRLF endings on some lines, a last line without a newline."""
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(queries):
        qid = f"q{q:03d}" if q % 7 else str(q)
        if q % 11 != 5:  # some queries ranked but not judged
            for d in range(rng.randint(1, 30)):
                qrels.append(f"{qid} 0 d{q}-{d} {rng.choice([-1, 0, 0, 1, 2, 3])}\n")
        if q % 13 == 4:
            continue  # judged but not ranked
        if rng.random() < 0.2:
            run.append(rng.choice(["# a comment\n", "\n", "   \n"]))
        for rank, d in enumerate(rng.sample(range(45), rng.randint(1, 40))):
            score = rng.choice([1.0, 0.5, rng.random()])  # ties
            end = "\r\n" if rng.random() < 0.05 else "\n"
            run.append(f"{' ' * rng.randint(0, 2)}{qid}\tQ0 d{q}-{d} {rank} {score} "
                       f"tag{seed}{end}")  # fmt: skip
    text = "".join(run).rstrip("\n")
    (tmp / "qrels.txt").write_text("".join(qrels))
    path = tmp / ("run.txt.gz" if gz else "run.txt")
    if gz:
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return tmp / "qrels.txt", path


def evaluated(qrels, runs, measures=("all_trec",), **options):
    """The printed per-query table and the warnings of an evaluation."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = evaluate_many(str(qrels), runs, list(measures), **options)
    table = format_evaluations(results, None, per_query=True)
    return table, [str(w.message) for w in caught]


def error_of(qrels, runs, **options) -> str:
    with pytest.raises(InputError) as info, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluate_many(str(qrels), runs, ["map"], no_common_query="error", **options)
    return str(info.value)


@pytest.fixture
def spy(monkeypatch):
    """The blocks evaluated (run, index), to check that blocks were used."""
    seen: list[tuple[int, int]] = []

    class Counted(many._BlockWork):
        def __init__(self, task, index, block, ahead=False):
            seen.append((index, block.index))
            super().__init__(task, index, block, ahead)

    monkeypatch.setattr(many, "_BlockWork", Counted)
    return seen


# --- the cuts --------------------------------------------------------------------------


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("block", [1, 5, 64, 300, 2000, WHOLE])
def test_blocks_partition_the_file_at_query_boundaries(tmp_path, gz, block):
    _, path = write_track(tmp_path, seed=3, gz=gz)
    text = gzip.decompress(path.read_bytes()) if gz else path.read_bytes()
    blocks = list(run_blocks(path, block))
    assert b"".join(b.text() for b in blocks) == text
    assert [b.index for b in blocks] == list(range(len(blocks)))
    assert [b.last for b in blocks] == [False] * (len(blocks) - 1) + [True]
    assert all(b.start < b.end for b in blocks) and blocks[0].start == 0
    home: dict[bytes, int] = {}
    for b in blocks:
        for line in b.text().split(b"\n"):
            fields = line.split()
            if fields and not fields[0].startswith(b"#"):
                assert home.setdefault(fields[0], b.index) == b.index  # one block per query
    if block == 1:  # as short as they get: one query per block, bar a first one-line query
        assert len(blocks) >= len(home) - 1
    if block == WHOLE:
        assert len(blocks) == 1


def _query_texts(text: bytes) -> list[bytes]:
    """The text of each stretch of one query's lines (blank and comment lines with the
    query before them)."""
    stretches: list[list[bytes]] = []
    query = None
    for line in text.split(b"\n"):
        fields = line.split()
        if fields and not fields[0].startswith(b"#") and fields[0] != query:
            query = fields[0]
            stretches.append([])
        if stretches:
            stretches[-1].append(line + b"\n")
    return [b"".join(lines) for lines in stretches]


@pytest.mark.parametrize("gz", [False, True])
def test_a_runs_first_block_is_no_longer_than_the_first_blocks_length(tmp_path, monkeypatch, gz):
    """The first block is cut at `FIRST_BLOCK_BYTES` (where the command line parses it while
    Python imports), the others at ``block_bytes``, plain or gzipped, each at the start of
    a query's lines; a block's text is the same cut again, and the evaluation is that of
    reading the run whole."""
    qrels, path = write_track(tmp_path, seed=3, gz=gz)
    expected = evaluated(qrels, str(path), block_bytes=WHOLE, jobs=1)
    monkeypatch.setattr(cuts, "FIRST_BLOCK_BYTES", 300)
    text = gzip.decompress(path.read_bytes()) if gz else path.read_bytes()
    blocks = list(run_blocks(path, 1500))
    assert b"".join(b.text() for b in blocks) == text
    # (a block ends at the first line, from its target length on, of another query: less
    # than the longest query's lines past the target)
    longest = max(len(lines) for lines in _query_texts(text))
    first, *others = [b.end - b.start for b in blocks]
    assert 300 <= first < 300 + longest, (first, longest)
    assert all(1500 <= n < 1500 + longest for n in others[:-1]), (others, longest)
    assert [b.start for b in blocks[1:]] == [b.end for b in blocks[:-1]]
    assert evaluated(qrels, str(path), block_bytes=1500, jobs=1) == expected


@pytest.mark.parametrize("gz", [False, True])
def test_one_buffer_reused_across_blocks_holds_each_blocks_text(tmp_path, gz):
    """Blocks read one after another into one buffer (as `many` evaluates them), the
    buffer longer than each and holding the previous block's bytes: the count returned and
    the bytes before it are the block's, whatever follows."""
    _, path = write_track(tmp_path, seed=5, gz=gz)
    text = gzip.decompress(path.read_bytes()) if gz else path.read_bytes()
    buffer = bytearray(b"#" * len(text))
    pieces = []
    for b in run_blocks(path, 300):
        n = b.read_into(buffer)
        assert n == b.end - b.start
        pieces.append(bytes(buffer[:n]))
    assert len(pieces) > 2 and b"".join(pieces) == text
    assert len(buffer) == len(text)  # written in place, never resized


def test_the_queries_a_block_ranks_each_once_in_code_order():
    q = np.array([7, 7, 2, 2, 2, 9, 2, 0], dtype=np.int32)  # 2 in two stretches
    assert many._ranked_codes(q).tolist() == [0, 2, 7, 9]
    assert many._ranked_codes(q[:1]).tolist() == [7]


def test_a_block_without_its_bytes_is_cut_again_from_its_compressed_file(tmp_path):
    import dataclasses

    _, path = write_track(tmp_path, gz=True)
    for b in run_blocks(path, 500):
        assert dataclasses.replace(b, data=None).text() == b.text()


def test_an_empty_file_is_one_empty_block(tmp_path):
    (tmp_path / "run").write_bytes(b"")
    [block] = run_blocks(tmp_path / "run", 10)
    assert block.text() == b"" and block.last


def test_a_query_longer_than_a_block_stays_whole(tmp_path):
    lines = [f"1 Q0 d{i} {i} {-i} t\n" for i in range(500)] + ["2 Q0 a 1 1 t\n"]
    (tmp_path / "run").write_text("".join(lines))
    blocks = list(run_blocks(tmp_path / "run", 100))
    assert [b.text().count(b"\n") for b in blocks] == [500, 1]


# --- evaluation identical to reading the run whole ------------------------------------------


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow),
                                  pytest.param(2, marks=pytest.mark.slow)])  # fmt: skip
@pytest.mark.parametrize("gz", [False, True])
def test_blocks_give_the_whole_runs_values_and_warnings(tmp_path, spy, seed, gz):
    qrels, run = write_track(tmp_path, seed=seed, gz=gz)
    expected = evaluated(qrels, str(run), block_bytes=WHOLE, jobs=1)
    assert not spy
    for block, jobs in [(1, 1), (97, 1), (400, 2), (3000, 3), (5000, 1)]:
        spy.clear()
        assert evaluated(qrels, str(run), block_bytes=block, jobs=jobs) == expected
        if jobs == 1:
            assert len(spy) > 1  # (workers' calls are not seen here)


@pytest.mark.parametrize("cores", [1, 2, 3])
def test_blocks_parsed_one_or_two_at_a_time_give_the_whole_runs_values(
    tmp_path, monkeypatch, cores
):
    """A block parsed beside the judging of the one before (one core), or two at once, each
    by a serial parser (more cores): the values of the runs read whole, in their order, a
    run shorter than a block (read whole) between runs read in blocks."""
    monkeypatch.setattr(many, "available_cores", lambda: cores)
    qrels, run = write_track(tmp_path, seed=3)
    small = tmp_path / "small.txt"
    small.write_text("".join(run.read_text().splitlines(keepends=True)[:3]))
    runs = [str(run), str(small), str(run), str(run)]
    expected = evaluated(qrels, runs, block_bytes=WHOLE, jobs=1)
    for block in (90, 700):
        assert evaluated(qrels, runs, block_bytes=block, jobs=1) == expected


@pytest.mark.parametrize("cores", [1, 2, 3])
def test_a_blocks_text_goes_into_a_buffer_only_once_the_block_before_in_it_is_read(
    tmp_path, monkeypatch, cores
):
    """The texts take turns in as many buffers as blocks are parsed at once: the next
    block's text is read into the oldest block's buffer only after that block's rows are
    made (its parse may still read its text: a query split within it is read again)."""
    monkeypatch.setattr(many, "available_cores", lambda: cores)
    qrels, run = write_track(tmp_path, seed=7)
    expected = evaluated(qrels, str(run), block_bytes=WHOLE, jobs=1)
    events: list[tuple[str, int, int]] = []
    text, read = many._Scratch.text, many._BlockWork.read

    def text_of(self, block, turns=1):
        found = text(self, block, turns)
        events.append(("text", block.index, self.turn))
        return found

    def rows_of(self):
        if self.parsed is not None:
            events.append(("read", self.block.index, -1))
        return read(self)

    monkeypatch.setattr(many._Scratch, "text", text_of)
    monkeypatch.setattr(many._BlockWork, "read", rows_of)
    assert evaluated(qrels, str(run), block_bytes=300, jobs=1) == expected
    texts = [(block, turn) for kind, block, turn in events if kind == "text"]
    assert len(texts) > 6
    assert {turn for _, turn in texts} == set(range(cuts.parsed_at_once(cores)))
    holder: dict[int, int] = {}  # buffer -> the block whose text it holds
    done: set[int] = set()
    for kind, block, turn in events:
        if kind == "read":
            done.add(block)
        else:
            assert turn not in holder or holder[turn] in done
            holder[turn] = block

@pytest.mark.parametrize(
    "options",
    [
        {"complete": True},
        {"max_docs": 7},
        {"judged_only": True},
        {"relevance_level": 2, "complete": True},
        {"ties": "input-order"},
        {"num_docs": 3},
    ],
    ids=lambda o: ",".join(o),
)
def test_blocks_follow_every_evaluation_option(tmp_path, options):
    qrels, run = write_track(tmp_path, seed=4)
    measures = ("all_trec", "nDCG(judged_only=True)@10", "RBP(p=0.8)", "ERR@5")
    expected = evaluated(qrels, str(run), measures, block_bytes=WHOLE, jobs=1, **options)
    for block, jobs in [(50, 1), (700, 2), (700, 3)]:
        got = evaluated(qrels, str(run), measures, block_bytes=block, jobs=jobs, **options)
        assert got == expected


def test_summaries_of_a_blocked_run_are_bit_identical(tmp_path):
    qrels, run = write_track(tmp_path, seed=5, queries=120)
    whole = evaluate_many(str(qrels), str(run), ["all_trec"], block_bytes=WHOLE)[0]
    assert 0 < whole.summary_of("map") < 1  # (the run finds relevant documents)
    for jobs in (1, 2, 3):
        [cut] = evaluate_many(str(qrels), str(run), ["all_trec"], block_bytes=200, jobs=jobs)
        assert cut.query_ids == whole.query_ids and cut.run_name == whole.run_name
        assert cut.summary == whole.summary and cut.runid == whole.runid
        for a, b in zip(whole.values, cut.values, strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        assert np.array_equal(cut.missing, whole.missing)


@pytest.mark.slow  # fast twins: the tests above, one run each
def test_duplicate_policies_and_many_runs_with_blocks(tmp_path):
    qrels, run = write_track(tmp_path, seed=6)
    text = run.read_text().split("\n")
    # a document repeated within its query, with a higher score the second time
    fields = text[3].split()
    fields[4] = "99"
    text.insert(5, " ".join(fields))
    twice = tmp_path / "twice.txt"
    twice.write_text("\n".join(text))
    runs = [str(run), str(twice), str(run)]
    for policy in ("first", "max-score"):
        expected = evaluated(qrels, runs, block_bytes=WHOLE, duplicates=policy, jobs=1)
        for block, jobs in [(60, 1), (500, 2), (500, 3)]:
            got = evaluated(qrels, runs, block_bytes=block, duplicates=policy, jobs=jobs)
            assert got == expected


def test_the_cli_output_is_the_same_for_every_block_length_and_jobs(tmp_path, capsys):
    qrels, run = write_track(tmp_path, seed=7, queries=4000)
    assert run.stat().st_size > 2 << 20  # several blocks of 1 MB
    expected = run_cli(["eval", "-q", "-m", "all_trec", str(qrels), str(run)], capsys)
    assert expected[0] == 0
    for jobs in ("1", "2", "3"):
        extra = ["--block-mb", "1", "--jobs", jobs]
        got = run_cli(["eval", "-q", "-m", "all_trec", *extra, str(qrels), str(run)], capsys)
        assert got == expected


def test_a_block_of_unjudged_queries_only_with_a_depth(tmp_path):
    # (judging such a run with -M once failed: no query to truncate)
    (tmp_path / "qrels").write_text("1 0 a 1\n")
    (tmp_path / "run").write_text("2 Q0 a 1 1 t\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        [result] = evaluate_many(str(tmp_path / "qrels"), str(tmp_path / "run"), ["map"],
                                 max_docs=5)  # fmt: skip
    assert result.query_ids == [] and result.summary_of("map") == 0.0


# --- errors: those of reading the run whole --------------------------------------------------


def lines_of(tmp: Path, lines: list[str]) -> Path:
    path = tmp / "run.txt"
    path.write_text("".join(lines))
    return path


def sorted_run(queries: int = 30, docs: int = 20) -> list[str]:
    return [f"{q} Q0 d{d} {d} {docs - d} t\n" for q in range(1, queries + 1) for d in range(docs)]


@pytest.fixture
def judged(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 d{d} {d % 2}\n" for q in range(1, 31) for d in range(5)))
    return qrels


def same_error(qrels, run) -> str:
    expected = error_of(qrels, str(run), block_bytes=WHOLE, jobs=1)
    for block, jobs in [(1, 1), (100, 1), (700, 2), (700, 3)]:
        assert error_of(qrels, str(run), block_bytes=block, jobs=jobs) == expected
    return expected


def test_a_bad_line_deep_in_the_file_is_named_by_its_line(tmp_path, judged):
    lines = sorted_run()
    lines[437] = "17 Q0 d17 17 high t\n"
    assert ":438:" in same_error(judged, lines_of(tmp_path, lines))


def test_a_bad_line_outranks_an_earlier_repeated_document(tmp_path, judged):
    lines = sorted_run()
    lines[25] = lines[21]  # query 2 lists d1 twice (lines 22 and 26)
    lines[500] = "26 Q0 d0\n"  # and a later line lacks fields
    message = same_error(judged, lines_of(tmp_path, lines))
    assert ":501:" in message and "fields" in message


def test_a_repeated_document_is_named_by_its_lines(tmp_path, judged):
    lines = sorted_run()
    lines[405] = lines[401]  # query 21, lines 402 and 406
    message = same_error(judged, lines_of(tmp_path, lines))
    assert "lines 402 and 406" in message


def test_a_run_of_comments_only_and_a_run_of_other_queries(tmp_path, judged):
    assert "no ranked documents" in same_error(judged, lines_of(tmp_path, ["# x\n"] * 50))
    other = [line.replace(" Q0", "x Q0", 1) for line in sorted_run()]
    assert "no query in common" in same_error(judged, lines_of(tmp_path, other))


def test_a_byte_order_mark_and_cr_only_endings(tmp_path, judged):
    run = tmp_path / "bom.txt"
    run.write_bytes(b"\xef\xbb\xbf" + "".join(sorted_run()).encode())
    expected = evaluated(judged, str(run), ["map"], block_bytes=WHOLE, jobs=1)
    assert any("byte-order mark" in w for w in expected[1])
    for jobs in (2, 3):
        assert evaluated(judged, str(run), ["map"], block_bytes=90, jobs=jobs) == expected
    run.write_bytes("".join(sorted_run()).replace("\n", "\r").encode())
    assert "CR-only" in same_error(judged, run)


# --- a run that does not list each query's lines together ----------------------------------


def test_an_unsorted_run_is_read_whole_when_it_may_be(tmp_path, judged):
    lines = sorted_run()
    lines.append("3 Q0 late 1 -5 t\n")  # query 3 again, at the end
    run = lines_of(tmp_path, lines)
    expected = evaluated(judged, str(run), ["all_trec"], block_bytes=WHOLE, jobs=1)
    for block, jobs in [(100, 1), (300, 2), (300, 3)]:
        got = evaluated(judged, str(run), ["all_trec"], block_bytes=block, jobs=jobs)
        assert got == expected


def test_an_unsorted_run_too_long_to_read_whole_is_an_error_that_says_how_to_sort_it(
    tmp_path, judged, monkeypatch
):
    monkeypatch.setattr(many, "WHOLE_RUN_BYTES", 0)
    lines = sorted_run()
    lines.append("3 Q0 late 1 -5 t\n")
    run = lines_of(tmp_path, lines)
    message = error_of(judged, str(run), block_bytes=100, jobs=1)
    assert "query '3' has lines in two places" in message
    assert "from line 601" in message and "sort -s -k1,1" in message and str(run) in message
    for jobs in (2, 3):
        assert error_of(judged, str(run), block_bytes=100, jobs=jobs) == message


# --- reading without the GIL ------------------------------------------------------------


def test_threads_reading_into_the_same_ids_take_turns():
    """The compiled parser lets the GIL go while it scans and interns (so that a block is
    parsed while the one before it is evaluated); threads reading runs into the same
    vocabularies at once (the same new ids, in different orders), another thread interning
    into them meanwhile, must still give every id one code and every row its own line's ids
    (as split here by hand)."""
    import threading

    from rankscope.model import Vocabulary
    from rankscope.read.trec import parse_run_lines

    queries, docs = Vocabulary(), Vocabulary()
    texts = []
    for t in range(4):
        order = random.Random(t).sample(range(100_000), 100_000)
        lines = [f"q{d % 30} Q0 d{d} {r} {1e5 - r} t{t}\n" for r, d in enumerate(order)]
        texts.append("".join(lines).encode())
    extra = [f"d{i}" for i in range(0, 200_000, 7)]
    got: dict[int, tuple] = {}
    start = threading.Barrier(5)

    def read(t: int) -> None:
        start.wait()
        run = parse_run_lines(texts[t], f"run{t}", queries, docs)
        got[t] = (run.queries.strings_of(run.query), run.docs.strings_of(run.doc))

    def intern() -> None:
        start.wait()
        for i in range(0, len(extra), 100):
            got[-1 - i] = (docs.intern_many(extra[i : i + 100]),)

    threads = [threading.Thread(target=read, args=(t,)) for t in range(4)]
    threads.append(threading.Thread(target=intern))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for t, text in enumerate(texts):
        fields = [line.split() for line in text.decode().splitlines()]
        assert got[t] == ([f[0] for f in fields], [f[2] for f in fields])
    assert len(set(docs.strings)) == len(docs.strings)  # each id once
    for i in range(0, len(extra), 100):
        assert docs.strings_of(got[-1 - i][0]) == extra[i : i + 100]


def test_columns_reuse_the_memory_of_freed_ones():
    """The compiled reader's columns come from memory freed columns gave back (a block's
    columns are those of the block before, reused): each read still gives its own text's
    rows, read-only as bytes were."""
    from rankscope.model import Vocabulary
    from rankscope.read.trec import parse_run_lines

    for t in range(4):  # long enough for pooled columns (a megabyte and more)
        lines = [f"q{r // 1000} Q0 d{t}-{r} {r % 1000 + 1} {-r - t / 3} x\n"
                 for r in range(150_000)]  # fmt: skip
        run = parse_run_lines("".join(lines).encode(), "run", Vocabulary(), Vocabulary())
        fields = [line.split() for line in lines]
        assert run.docs.strings_of(run.doc) == [f[2] for f in fields]
        assert run.score.tolist() == [float(f[4]) for f in fields]
        assert not run.score.flags.writeable and not run.doc.flags.writeable
        del run


# --- a block's documents numbered query by query ------------------------------------------


def test_a_per_query_vocabulary_numbers_the_ids_it_lacks_query_by_query():
    """What a block is read into (`Vocabulary.scoped(per_query=True)`): the judged ids
    keep their codes; every other id gets a code of its own per query, the same one for
    each of its lines in that query (codes worked out by hand)."""
    from rankscope.model import Vocabulary
    from rankscope.read.trec import parse_run_lines

    judged = Vocabulary(["a", "b"])
    docs = judged.scoped(per_query=True)
    text = ("q1 Q0 a 1 5 t\nq1 Q0 x 2 4 t\nq1 Q0 y 3 3 t\nq1 Q0 x 4 2 t\n"
            "q2 Q0 x 1 5 t\nq2 Q0 b 2 4 t\nq2 Q0 a 3 3 t\nq2 Q0 y 4 2 t\n")  # fmt: skip
    run = parse_run_lines(text.encode(), "run", Vocabulary(), docs)
    assert run.doc.tolist() == [0, 2, 3, 2, 4, 1, 0, 5]
    assert run.docs.strings_of(run.doc) == ["a", "x", "y", "x", "x", "b", "a", "y"]
    assert len(judged) == 2 and "x" not in judged
    assert docs.code("b") == 1 and "x" not in docs  # (lookups: the judged ids only)
    assert docs.intern("z") == 6 and docs.code("z") == 6  # interning works as before
    # each query's ids still found when a query holds thousands (the table grows)
    many_ids = "".join(f"q3 Q0 {'b' if i == 1500 else 'z' + str(i % 2500)} 1 1 t\n"
                       for i in range(5000))  # fmt: skip
    third = parse_run_lines(many_ids.encode(), "run", Vocabulary(), docs)
    codes = third.doc.tolist()
    assert codes[1500] == 1 and len(set(codes)) == 2501
    assert all(codes[i] == codes[i + 2500] for i in range(2500) if i != 1500)
    assert third.docs.strings_of(third.doc[:3]) == ["z0", "z1", "z2"]



def test_per_query_copies_share_the_judged_ids_but_not_what_one_adds():
    """The blocks' per-query copies of the judged documents share one table (the compiled
    reader's, never written while shared): an id interned into one copy, or thousands (its
    table grown), is found in that copy alone, and the others, the judged vocabulary and
    the copies made after it still find the judged ids under their codes."""
    from rankscope.model import Vocabulary

    judged = Vocabulary(["a", "b"])
    first, second = judged.scoped(per_query=True), judged.scoped(per_query=True)
    assert first.intern("z") == 2 and first.code("z") == 2
    assert "z" not in second and "z" not in judged
    grown = first.intern_many([f"y{i}" for i in range(5000)])
    assert grown.tolist() == list(range(3, 5003)) and first.code("y4999") == 5002
    assert first.code("a") == 0 and first.code("b") == 1  # (the table grown: still found)
    third = second.scoped(per_query=True)  # a copy of a copy
    for vocabulary in (second, third, judged.scoped(per_query=True), judged):
        assert vocabulary.code("a") == 0 and vocabulary.code("b") == 1
        assert "z" not in vocabulary and "y0" not in vocabulary
    del first, second, judged  # the table outlives the vocabulary that lent it
    assert third.code("b") == 1 and third.intern("w") == 2

def shared_track(tmp: Path, seed: int, queries: int = 60) -> tuple[Path, Path]:
    """Judgments and a run whose documents come from one pool shared by every query (the
    same unjudged and judged ids in many queries), with tied scores."""
    rng = random.Random(seed)
    qrels = [f"{q} 0 D{d} {rng.choice([-1, 0, 1, 2])}\n"
             for q in range(queries) for d in rng.sample(range(80), 10)]  # fmt: skip
    run = [f"{q} Q0 D{d} {r} {rng.choice([1.0, 0.5, rng.random()])} t\n"
           for q in range(queries) for r, d in enumerate(rng.sample(range(80), 30))]  # fmt: skip
    (tmp / "qrels.txt").write_text("".join(qrels))
    (tmp / "run.txt").write_text("".join(run))
    return tmp / "qrels.txt", tmp / "run.txt"


@pytest.mark.parametrize("seed", [0, 1])
def test_documents_shared_by_queries_give_the_whole_runs_values(tmp_path, spy, seed):
    qrels, run = shared_track(tmp_path, seed)
    measures = ("all_trec", "nDCG@10", "RBP(p=0.8)")
    expected = evaluated(qrels, str(run), measures, block_bytes=WHOLE, jobs=1, ties="docno-asc")
    for block, jobs in [(64, 1), (2000, 1), (900, 2), (900, 3)]:
        got = evaluated(qrels, str(run), measures, block_bytes=block, jobs=jobs, ties="docno-asc")
        assert got == expected
    assert spy


def test_a_query_in_two_places_of_one_block_finds_its_repeated_document(tmp_path, judged):
    """A block whose query's lines come in two stretches is read again with its documents
    numbered across the block: the document listed in both is found as whole reading finds
    it (an error naming both lines, or one kept)."""
    lines = sorted_run()
    lines.insert(45, "1 Q0 d19x 20 0.5 t\n")  # query 1 again, inside query 3's lines
    lines.insert(46, "1 Q0 unjudged 21 0.25 t\n")
    lines.insert(50, "1 Q0 unjudged 22 0.125 t\n")  # and its document again
    run = lines_of(tmp_path, lines)
    message = error_of(judged, str(run), block_bytes=WHOLE, jobs=1)
    assert "document 'unjudged' appears twice for query '1'" in message
    assert "lines 47 and 51" in message
    assert error_of(judged, str(run), block_bytes=5000, jobs=1) == message
    for policy in ("first", "max-score"):
        expected = evaluated(judged, str(run), ["all_trec"], block_bytes=WHOLE, jobs=1,
                             duplicates=policy)  # fmt: skip
        got = evaluated(judged, str(run), ["all_trec"], block_bytes=5000, jobs=1,
                        duplicates=policy)  # fmt: skip
        assert got == expected


def test_the_reader_finds_the_first_repeated_document_as_first_repeated_does():
    """Reading a block's documents query by query, the compiled reader notes the first
    document listed twice for a query (`RunShape.repeated`): the rows `first_repeated`
    finds, for judged and unjudged documents, on seeded runs with and without repeats (and
    by hand on one)."""
    from rankscope.model import Vocabulary
    from rankscope.read.duplicates import first_repeated
    from rankscope.read.trec import Lines, read_run_block

    judged = Vocabulary(["j0", "j1", "j2"])
    text = (b"1 Q0 a 1 5 t\n1 Q0 j1 2 4 t\n"
            b"2 Q0 a 1 5 t\n2 Q0 j1 2 4 t\n2 Q0 b 3 3 t\n2 Q0 j1 4 2 t\n")  # fmt: skip
    (run, _, repeated), _ = read_run_block(
        text, "run", Vocabulary(), judged.scoped(per_query=True), Lines(1, at_start=True)
    )()
    assert repeated == (3, 5) == first_repeated(run.query, run.doc)
    rng = random.Random(24)
    for trial in range(40):
        lines = []
        for q in range(rng.randint(1, 6)):
            pool = [f"j{i}" for i in range(3)] + [f"u{i}" for i in range(rng.randint(1, 30))]
            for r in range(rng.randint(1, 25)):
                lines.append(f"{q} Q0 {rng.choice(pool)} {r} {-r} t\n")
        docs = judged.scoped(per_query=True)
        (run, _, repeated), _ = read_run_block(
            "".join(lines).encode(), "run", Vocabulary(), docs, Lines(1, at_start=True)
        )()
        assert repeated == (first_repeated(run.query, run.doc) or ()), trial
    # not looked for when documents are numbered across queries
    (run, _, repeated), _ = read_run_block(text, "run", Vocabulary(), judged.scoped(),
                                           Lines(1, at_start=True))()  # fmt: skip
    assert repeated is None


def test_an_abandoned_block_finalised_in_the_thread_making_its_rows():
    """An `_outcomes` generator left after an error may be finalised by the collector in
    the very thread that makes its last block's rows: waiting for them there would join
    that thread from itself ("cannot join current thread", printed after the user's error);
    it returns instead, and the thread ends on its own."""
    import threading

    found: list[BaseException] = []

    def abandoned() -> None:
        work = many._BlockWork.__new__(many._BlockWork)  # only what `read` looks at
        work.parsed, work.making = object(), threading.current_thread()  # type: ignore[assignment]
        try:
            work.read()
        except BaseException as e:  # noqa: BLE001 - what the finaliser would have printed
            found.append(e)

    thread = threading.Thread(target=abandoned)
    thread.start()
    thread.join()
    assert found == []
