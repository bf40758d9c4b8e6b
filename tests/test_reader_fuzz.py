"""Differential fuzzing of the two TREC readers (issue 11): the compiled one
(``model/_trecio.c``) and the pure-Python one must accept and reject exactly the same bytes,
and agree on everything they return.

Each input is given to every TREC entry point (`parse_qrels`, `parse_run` -- also with ids
already interned, ``duplicates="max-score"`` and ``order="rank"`` -- and `parse_run_lines` on
bytes; `read_qrels`, `read_run`, `read_diversity_qrels` on a file, plain or gzipped, read in
pieces of a drawn size so that lines straddle the pieces' edges) once with each reader, and the
two outcomes are compared: for an accepted input the whole table (ids as text in their order
of first appearance, values bit for bit, line numbers, source, run name and tag) and the
warnings; for a rejected one the exception's type and message.  An exception other than
`InputError` is a failure whatever both readers say.

Inputs are drawn by hypothesis from arbitrary bytes and from near-valid TREC lines (every
whitespace byte, high and invalid UTF-8 bytes, NUL, numbers in every odd form, 0 to 8 fields,
comments, blank lines, byte-order marks, long ids, CR and CRLF endings, a missing final
newline).  The budget is modest and derandomized, so CI is deterministic; set
``RANKSCOPE_FUZZ_EXAMPLES`` for more (``bench/fuzz.py`` runs a longer budget and prints its
figures).  `sweep` tries each odd thing on its own, whatever hypothesis draws.

Every disagreement ever found is kept: `REGRESSIONS` (inputs), `test_ids_longer_than_16_mb`
and `test_numbers_do_not_follow_the_locale`.
"""

from __future__ import annotations

import contextlib
import gzip
import locale
import os
import random
import shutil
import subprocess
import tempfile
import warnings
from collections import Counter
from collections.abc import Callable, Collection, Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rankscope.errors import InputError
from rankscope.model._native import native
from rankscope.read import trec

EXAMPLES = int(os.environ.get("RANKSCOPE_FUZZ_EXAMPLES", "0")) or None
#: The pieces the compiled reader reads a file in (its default, 16 MB, besides).
CHUNKS = (1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 64, 100, 4096)

pytestmark = pytest.mark.skipif(native() is None, reason="compiled reader not built")

# -- running a reader and describing what it did --------------------------------------------


@contextlib.contextmanager
def _reader(compiled: bool) -> Iterator[None]:
    """The compiled reader (when ``compiled``) or the pure-Python one, for the block."""
    before = os.environ.pop("RANKSCOPE_PURE_PYTHON", None)
    if not compiled:
        os.environ["RANKSCOPE_PURE_PYTHON"] = "1"
    try:
        yield
    finally:
        os.environ.pop("RANKSCOPE_PURE_PYTHON", None)
        if before is not None:
            os.environ["RANKSCOPE_PURE_PYTHON"] = before


def _bits(values: np.ndarray) -> list[int]:
    """Values bit for bit (-0.0 is not 0.0; each NaN payload is its own)."""
    values = np.ascontiguousarray(values)
    return values.view(np.int64).tolist() if values.dtype.itemsize == 8 else values.tolist()


def describe(result) -> tuple:
    """Everything a reader returned, comparable between the readers."""
    vocabularies = (list(result.queries.strings), list(result.docs.strings))
    rows = (
        result.queries.strings_of(result.query),
        result.docs.strings_of(result.doc),
        _bits(result.score if hasattr(result, "score") else result.grade),
        np.asarray(result.line).tolist(),
        None if getattr(result, "subtopic", None) is None else result.subtopic.tolist(),
    )
    names = (getattr(result, "name", None), getattr(result, "tag", None), result.source)
    return ("accepted", vocabularies, rows, names)


def outcome(call: Callable[[], object], compiled: bool) -> tuple:
    """What ``call`` does with one reader: ("accepted", table...) or ("rejected", type,
    message), with the warnings it gave; an exception other than `InputError` is
    "crashed"."""
    with _reader(compiled), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = describe(call())
        except InputError as exc:
            result = ("rejected", type(exc).__name__, str(exc))
        except Exception as exc:  # noqa: BLE001 - any other exception is a bug: reported
            result = ("crashed", type(exc).__name__, str(exc))
    return result + (tuple((w.category.__name__, str(w.message)) for w in caught),)


def entry_points(data: bytes, path: Path) -> dict[str, Callable[[], object]]:
    """Every TREC entry point on ``data`` (``path`` holds it, as written by the caller)."""
    return {
        "parse_qrels": lambda: trec.parse_qrels(data, "<q>"),
        "parse_run": lambda: trec.parse_run(data, "<r>"),
        "parse_run_lines": lambda: trec.parse_run_lines(
            data, "<r>", trec.Vocabulary(), trec.Vocabulary()
        ),
        "parse_run_seeded": lambda: trec.parse_run(  # ids already known (qrels read first)
            data, "<r>", trec.Vocabulary(["1", "2", "x#"]), trec.Vocabulary(["d2", "L"])
        ),
        "parse_run_max_score": lambda: trec.parse_run(data, "<r>", duplicates="max-score"),
        "parse_run_by_rank": lambda: trec.parse_run(data, "<r>", order="rank"),
        "read_qrels": lambda: trec.read_qrels(path),
        "read_run": lambda: trec.read_run(path),
        "read_diversity_qrels": lambda: trec.read_diversity_qrels(path),
    }


_TMPDIR = tempfile.TemporaryDirectory(prefix="rankscope-fuzz-")  # removed at exit
_TMP = Path(_TMPDIR.name)


def compare_all(
    data: bytes,
    chunk: int | None = None,
    gz: bool = False,
    tally: Counter | None = None,
    only: Collection[str] = (),
) -> str:
    """The first disagreement of the two readers on ``data`` (a file read in pieces of
    ``chunk`` bytes, gzipped when ``gz``), or "" when they agree everywhere; a crash of
    either is a disagreement too.  ``tally`` counts what the compiled reader did, by
    (entry point, "accepted" / "rejected" / "crashed"); ``only`` names the entry points
    to try (default: all)."""
    path = _TMP / ("input.txt.gz" if gz else "input.txt")
    path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    saved = trec.CHUNK
    trec.CHUNK = chunk or saved
    try:
        for name, call in entry_points(data, path).items():
            if only and name not in only:
                continue
            compiled, pure = outcome(call, True), outcome(call, False)
            if tally is not None:
                tally[name, compiled[0]] += 1
            if compiled != pure or compiled[0] == "crashed":
                return (
                    f"{name} (chunk {chunk}, gz {gz}):\n  compiled {_short(compiled)}\n"
                    f"  python   {_short(pure)}"
                )
    finally:
        trec.CHUNK = saved
    return ""


def _short(outcome: tuple) -> str:
    text = repr(outcome)
    return text if len(text) < 3000 else f"{text[:2000]} ... {text[-900:]}"


# -- inputs ----------------------------------------------------------------------------------

BLANKS = (b" ", b"\t", b"\v", b"\f", b"\r")
ODD_NUMBERS = (
    b"1e999", b"-1e999", b"1e-999", b"-1e-999", b"nan", b"NaN", b"-nan", b"+NAN", b"inf",
    b"-inf", b"Infinity", b"-INFINITY", b"infinite", b"0", b"-0", b"+0", b"-0.0", b"-0e5",
    b"0e999", b".5", b"5.", b".", b"-.", b"+.e1", b"0x10", b"0X1p3", b"1_000", b"1,5", b"+1",
    b"++1", b"+-1", b"007", b"-007.50", b"0" * 40 + b"1", b"9" * 18, b"-" + b"9" * 18,
    b"9" * 19, b"1" + b"0" * 18, b"1" * 400, b"0." + b"0" * 400 + b"1", b"1e", b"1e+", b"e5",
    b"E", b"1.5e-3", b"1.5E+3", b"1e0000000000000000000005", b"1e-99999999999999999999",
    b"4.9e-324", b"2e-324", b"2.4703282292062328e-324", b"2.2250738585072011e-308",
    b"1.7976931348623157e308", b"1.7976931348623159e308", b"179769313486231580793728971"
    b"405303415079934132710037826936173778980444968292764750946649017977587207096330286416"
    b"692887910946555547851940402630657488671505820681908902000708383676273854845817711531"
    b"764475730270069855571366959622842914819860834936475292719074168444365510704342711559"
    b"699508093042880177904174497792", b"0.1", b"0.30000000000000004", b"123456789012345678",
    b"9007199254740993", b"1.2.3", b"1e5.5", b"\xd9\xa1", b"\xef\xbc\x91", b"1\xc2\xa0",
    b"1e+5_0", b"-", b"+", b"",
)  # fmt: skip
VALID_NUMBER = st.one_of(
    st.sampled_from(
        [n for n in ODD_NUMBERS if trec.SCORE.problem(n) is None and trec.GRADE.problem(n) is None]
    ),
    st.integers(-(10**18) + 1, 10**18 - 1).map(lambda n: str(n).encode()),
    st.from_regex(rb"\A[+-]?[0-9]{1,18}\Z"),
)
VALID_SCORE = st.one_of(
    VALID_NUMBER,
    st.sampled_from([n for n in ODD_NUMBERS if trec.SCORE.problem(n) is None]),
    st.from_regex(rb"\A[+-]?([0-9]{1,25}(\.[0-9]{0,25})?|\.[0-9]{1,25})([eE][+-]?[0-9]{1,3})?\Z"),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: repr(x).encode()),
)
NUMBER = st.one_of(
    VALID_SCORE,
    st.sampled_from(ODD_NUMBERS),
    st.floats().map(lambda x: repr(x).encode()),
    st.binary(max_size=4),
)
#: Bytes ids are made of: letters and digits, '#', controls, high bytes (invalid UTF-8
#: alone), the byte-order mark's bytes, a few valid multi-byte letters.
ID_BYTES = st.sampled_from(
    [bytes([b]) for b in b"aZ09_-.#:/\\\"'\x1b\x1c\x1f\x7f\x80\x85\xa0\xbf\xc3\xef\xbb\xff"]
    + [b"\xc3\xa9", b"\xe2\x80\x8b", b"\xed\xa0\x80", b"\xef\xbb\xbf"]
)
SHORT_ID = st.one_of(
    st.lists(ID_BYTES, min_size=1, max_size=6).map(b"".join),
    st.sampled_from([b"Q0", b"0", b"1", b"2", b"d1", b"d2", b"x#", b"-"]),
)
ID = st.one_of(SHORT_ID, SHORT_ID, SHORT_ID, st.integers(1, 3000).map(lambda n: b"L" * n))
ITERATION = st.one_of(ID, VALID_NUMBER)
RANK = st.one_of(st.integers(0, 2000).map(lambda n: str(n).encode()), VALID_NUMBER, ID)
PLAIN_SEPARATOR = st.lists(st.sampled_from([b" ", b"\t"]), min_size=1, max_size=3).map(b"".join)
ODD_SEPARATOR = st.lists(st.sampled_from(BLANKS), min_size=1, max_size=3).map(b"".join)
ENDINGS = {"LF": [b"\n"], "CRLF": [b"\r\n"], "mixed": [b"\n", b"\r\n", b"\r"]}


@st.composite
def trec_line(draw, kind: str, separator: st.SearchStrategy[bytes] = PLAIN_SEPARATOR) -> bytes:
    """A line of ``kind`` ("qrels" or "run"), fields apart by ``separator``s; valid most
    of the time, else a line with a defect (a field count from 0 to 8, a bad number, a NUL
    byte, random bytes), a blank line or a comment."""
    defect = draw(st.integers(0, 39))
    if defect == 0:
        return draw(st.lists(st.sampled_from(BLANKS), max_size=3).map(b"".join))
    if defect == 1:
        return draw(st.binary(max_size=12))
    if defect == 2:
        count = draw(st.integers(0, 8))
    else:
        count = 4 if kind == "qrels" else draw(st.sampled_from([6, 6, 6, 7, 8]))
    # the iteration of qrels (a subtopic in diversity qrels) and the rank of a run are
    # often numbers
    numbers = {1: ITERATION, 3: VALID_NUMBER} if kind == "qrels" else {3: RANK, 4: VALID_SCORE}
    if defect == 3:
        numbers = {1: NUMBER, 3: NUMBER} if kind == "qrels" else {3: NUMBER, 4: NUMBER}
    fields = [draw(numbers.get(i, ID)) for i in range(count)]
    if defect == 4 and fields:
        at = draw(st.integers(0, len(fields) - 1))
        fields[at] = fields[at][:1] + b"\x00" + fields[at][1:]
    line = b""
    for i, field in enumerate(fields):
        if i or draw(st.booleans()):
            line += draw(separator)
        line += field
    if draw(st.booleans()):
        line += draw(separator)
    if defect == 5:
        line = draw(st.sampled_from([b"", b" ", b"\t"])) + b"#" + line
    return line


@st.composite
def trec_text(draw) -> bytes:
    """A file of qrels or of a run, mostly valid (see `trec_line`): fields apart by spaces
    and tabs or, one time in four, by any blanks (VT, FF, CR too); LF, CRLF or mixed line
    endings (CR alone among them); maybe a byte-order mark first, maybe without a final
    newline, maybe mutated at one byte."""
    kind = draw(st.sampled_from(["qrels", "run"]))
    separator = ODD_SEPARATOR if draw(st.integers(0, 3)) == 0 else PLAIN_SEPARATOR
    lines = draw(st.lists(trec_line(kind, separator), max_size=8))
    ending = st.sampled_from(ENDINGS[draw(st.sampled_from(["LF"] * 3 + ["CRLF"] * 2 + ["mixed"]))])
    data = b"".join(line + draw(ending) for line in lines)
    if draw(st.booleans()) and data.endswith(b"\n"):
        data = data[:-1]
    if draw(st.integers(0, 5)) == 0:
        data = b"\xef\xbb\xbf" + data
    if data and draw(st.integers(0, 5)) == 0:
        at = draw(st.integers(0, len(data)))
        how = draw(st.sampled_from(["insert", "delete", "replace"]))
        byte = draw(st.binary(min_size=1, max_size=1))
        if how == "insert":
            data = data[:at] + byte + data[at:]
        else:
            data = data[:at] + (byte if how == "replace" else b"") + data[at + 1 :]
    return data


@st.composite
def trec_files(draw) -> tuple[bytes, int | None, bool]:
    """(bytes, piece size of the compiled reader, gzipped?) to give `compare_all`."""
    data = draw(st.binary(max_size=64) | trec_text() | trec_text())
    chunk = draw(st.sampled_from((*CHUNKS, None)))
    return data, chunk, draw(st.integers(0, 7)) == 0


# -- the tests -------------------------------------------------------------------------------

#: Every input on which the readers ever disagreed, with the piece size that showed it (the
#: default piece size shows the same with a first line of more than 16 MB).
REGRESSIONS = [
    # CR-only endings on a first line longer than the compiled reader's first piece: the
    # compiled reader checked only the piece and read the file as one line.
    pytest.param(b"1\r0 d 1\n", 2, False, id="cr-only-first-line-past-the-first-piece"),
    pytest.param(b"1 Q0 d 1 2 t\r1 Q0 e 2 1 t\n", 8, False, id="cr-only-run-past-the-first-piece"),
    pytest.param(b"\xef\xbb\xbfabc\rx y z 1\n", 5, True, id="cr-only-after-a-bom-gzipped"),
    pytest.param(b"\x00\r\rLLLL\n", 3, False, id="nul-or-cr-only-whichever-comes-first"),
]


def sweep() -> list[bytes]:
    """Inputs that each put one odd thing in an otherwise valid file, so that every one is
    tried whatever hypothesis draws: each odd number as a grade and as a score, each field
    count from 0 to 8, each blank byte between fields and at either end, high and invalid
    UTF-8 bytes and a NUL in each field, comments and blank lines, a byte-order mark, very
    long ids, each line ending and none at the end."""
    qrels = [b"1", b"0", b"d1", b"2"]
    run = [b"1", b"Q0", b"d1", b"1", b"2.5", b"tag"]
    good = {"qrels": b"1 0 d0 1\n", "run": b"1 Q0 d0 1 9 tag\n"}
    lines: list[tuple[str, list[bytes], bytes]] = []
    for number in ODD_NUMBERS:
        lines += [
            ("qrels", qrels[:3] + [number], b" "),
            ("run", run[:4] + [number] + run[5:], b" "),
        ]
        lines += [("run", run[:3] + [number] + run[4:], b" ")]  # the rank (order="rank")
    for count in range(9):
        lines += [("qrels", (qrels * 3)[:count], b" "), ("run", (run * 2)[:count], b" ")]
    for blank in BLANKS:
        lines += [("qrels", qrels, blank), ("run", run, blank)]
    odd_bytes = [b"\x80", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\x00", b"\x1b[31m"]
    for odd in odd_bytes:
        for at in range(6):
            lines += [("run", [f + odd if i == at else f for i, f in enumerate(run)], b"\t")]
    for length in (1000, 70_000):
        lines += [("qrels", [b"q" * length, b"0", b"d" * length, b"1"], b" ")]
    out = []
    for i, (kind, fields, blank) in enumerate(lines):
        line = blank.join(fields)
        # a later line; in turn the first line (without a final newline) or the whole file
        out += [good[kind] + line + b"\n" + good[kind].replace(b"d0", b"d9")]
        out += [blank + line + blank if i % 2 else line]
    for prefix in (b"#", b" #", b"\t# x y", b"", b" \t", b"\xef\xbb\xbf", b"\xef\xbb\xbf#"):
        for kind in good:
            out += [prefix + b"\n" + good[kind], good[kind] + prefix + b"\n" + good[kind]]
    for ending in (b"\n", b"\r\n", b"\r", b"\n\r", b"\r\r\n", b""):
        for kind in good:
            out += [good[kind].replace(b"\n", ending) * 3, (good[kind] * 2)[:-1] + ending]
    return out


SWEPT = ("parse_qrels", "parse_run", "parse_run_by_rank", "read_qrels", "read_run")


def test_a_sweep_of_odd_inputs():
    for i, data in enumerate(sweep()):
        assert compare_all(data, 3 if i % 3 == 0 else 4096, only=SWEPT) == "", data


@pytest.mark.parametrize("data, chunk, gz", REGRESSIONS)
def test_regressions(data, chunk, gz):
    assert compare_all(data, chunk, gz) == ""


@pytest.mark.slow  # fast twins: `sweep` and the regressions above
@settings(
    max_examples=EXAMPLES or 150,
    derandomize=EXAMPLES is None,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(trec_files())
@example((b"1 0 d1 1\n1 0 d2 0\n", None, False))
@example((b"1 Q0 d1 1 2.5 tag\n1 Q0 d2 2 -0.0 tag\n1 Q0 d3 3 1e-400 tag", 5, False))
def test_the_readers_agree(case):
    assert compare_all(*case) == ""


@pytest.mark.slow  # checks the generator of the slow test above
def test_the_inputs_reach_both_outcomes():
    """The near-valid files are often valid (where whole tables are compared) and often
    not (where messages are): a generator of garbage only would test little."""
    seen: Counter[str] = Counter()

    @settings(max_examples=100, derandomize=True, database=None, deadline=None)
    @given(trec_text())
    def sample(data):
        tally: Counter[tuple[str, str]] = Counter()
        assert compare_all(data, 64, tally=tally) == ""
        seen.update(kind for _, kind in tally.elements())

    sample()
    assert seen["accepted"] >= 50 and seen["rejected"] >= 300, seen


def test_ids_longer_than_16_mb():
    """Ids of any length (the compiled interner once refused those of 16 MB and more, with
    a ValueError, where the pure-Python reader took them); two long ids that differ only
    in their last byte stay two ids, and a repeated one is one."""
    long = b"d" * (1 << 24)
    other = long[:-1] + b"e"
    data = b"1 0 " + long + b" 1\n2 0 " + other + b" 0\n3 0 " + long + b" 2\n"
    assert compare_all(data, only=("parse_qrels", "read_qrels")) == ""
    with _reader(True):
        qrels = trec.parse_qrels(data)
    assert len(qrels.docs) == 2
    assert qrels.docs.strings_of(qrels.doc) == [long.decode(), other.decode(), long.decode()]
    vocabulary = trec.Vocabulary()
    assert vocabulary.intern_many([other.decode(), long.decode()]).tolist() == [0, 1]
    assert vocabulary.code(long.decode()) == 1


def test_a_file_smaller_than_a_piece_is_read_whole_as_in_pieces():
    """A plain file smaller than a piece (`CHUNK`) is read into a buffer of its size (a byte
    more, 64 KB at least): the two readers agree on files of about 100 KB read so, and read
    in pieces of about their size (a byte less, the size, a byte more, two more), whole or
    with their last newline missing or a bad line at their end."""
    run = b"".join(b"q%d Q0 d%d %d %d.5 r\n" % (i % 7, i, i, -i) for i in range(4000))
    qrels = b"".join(b"q%d 0 d%d %d\n" % (i % 7, i, i % 3) for i in range(6000))
    for data, reader, bad in ((run, "read_run", b"q1 Q0 dx 1 nope r\n"),
                              (qrels, "read_qrels", b"q1 0 dx nope\n")):  # fmt: skip
        assert len(data) > 1 << 16
        for case in (data, data[:-1], data + bad):
            for chunk in (None, len(case) - 1, len(case), len(case) + 1, len(case) + 2):
                assert compare_all(case, chunk, only=(reader,)) == "", (reader, chunk)


def _comma_locale() -> str | None:
    """The name of a locale whose decimal point is a comma, made with ``localedef`` into
    a temporary folder (named by ``LOCPATH``, which the caller restores) when none is
    installed; None when neither works."""
    names = ["de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "de_DE", "fr_FR"]
    for name in names:
        try:
            locale.setlocale(locale.LC_NUMERIC, name)
        except locale.Error:
            continue
        if locale.localeconv()["decimal_point"] == ",":
            return name
    localedef = shutil.which("localedef")
    if localedef is None:
        return None
    folder = _TMP / "locales"
    folder.mkdir(exist_ok=True)
    subprocess.run(
        [localedef, "-i", "de_DE", "-f", "UTF-8", str(folder / "de_DE.UTF-8")],
        capture_output=True,
    )
    os.environ["LOCPATH"] = str(folder)
    try:
        locale.setlocale(locale.LC_NUMERIC, "de_DE.UTF-8")
    except locale.Error:
        return None
    return "de_DE.UTF-8" if locale.localeconv()["decimal_point"] == "," else None


def test_numbers_do_not_follow_the_locale():
    """A program that sets a locale with a decimal comma (``LC_NUMERIC=de_DE``) before
    reading: the compiled reader read '2.5e30' as 2.0 and '0.1234567890123456789' as 0.0
    (C's ``strtod`` follows the locale; Python's ``float`` does not)."""
    saved, locpath = locale.setlocale(locale.LC_NUMERIC), os.environ.get("LOCPATH")
    try:
        if _comma_locale() is None:
            pytest.skip("no locale with a decimal comma, and localedef cannot make one")
        scores = [b"0.1234567890123456789", b"2.5e30", b"1.7976931348623157e308", b"1e-310"]
        data = b"".join(b"1 Q0 d%d 1 %s t\n" % (i, s) for i, s in enumerate(scores))
        assert compare_all(data) == "" and compare_all(data, 7) == ""
        with _reader(True):
            run = trec.parse_run(data)
        assert run.score.tolist() == [float(s) for s in scores]
    finally:
        locale.setlocale(locale.LC_NUMERIC, saved)
        os.environ.pop("LOCPATH", None)
        if locpath is not None:
            os.environ["LOCPATH"] = locpath


def test_lines_split_64_bytes_at_a_time():
    """The compiled scanner splits a line ending within the 64 bytes it reads at once from
    bit masks of its blanks and its newline (a longer line, or one near the end of the text,
    byte by byte): every blank byte between fields and around them, 0 to 12 fields, lines
    of 1 to 70 bytes, odd bytes in a field, each followed by enough lines to be split the
    fast way."""
    rng = random.Random(64)
    tail = b"1 Q0 d0 1 9 tag\n" * 5  # (more than 64 bytes after each line)
    blanks = [b" ", b"\t", b"\v", b"\f", b"\r", b" \t", b"\r\r", b"\x0b \x0c"]
    odd = [b"\x00", b"\x80", b"\xff", b"\x08", b"\x0e", b"\x1f", b"!", b"~"]
    inputs = []
    for count in range(13):
        for length in (1, 3, 7, 12):
            fields = [b"x" * rng.randint(1, length) for _ in range(count)]
            if count >= 5:  # a rank and a score where a run has them
                fields[3:5] = [b"1", b"2.5"]
            line = rng.choice(blanks).join(fields)
            edge = rng.choice(blanks) if rng.random() < 0.5 else b""
            inputs.append(tail + edge + line + edge + b"\n" + tail)
    for width in range(55, 72):  # lines ending around the 64th byte
        pad = b"d" * (width - len(b"1 Q0  1 9 tag"))
        inputs.append(tail + b"1 Q0 " + pad + b" 1 9 tag\n" + tail)
    for byte in odd:
        for at in range(6):
            fields = [b"1", b"Q0", b"d1", b"1", b"2.5", b"tag"]
            fields[at] += byte
            inputs.append(tail + b" ".join(fields) + b"\n" + tail)
    for data in inputs:
        assert compare_all(data, None, only=SWEPT) == "", data


def test_more_lines_than_the_scanners_ring():
    """The compiled scanner hands its records to the interning thread through a ring of
    4,096 of them (``RING_MAX`` in ``_trecio.c``), waiting while it is full: inputs of
    several times that many lines, read whole and in pieces of other lengths, with a
    document repeated within a query thousands of lines apart, or a bad line near their
    end, are read as the pure-Python reader reads them."""
    run = b"".join(
        b"q%d Q0 d%d %d %d.25 r\n" % (i // 3000, (i * 7919) % 9000, i % 1000, -i)
        for i in range(13000)
    )
    qrels = b"".join(b"q%d 0 d%d %d\n" % (i // 5000, (i * 31) % 20000, i % 3) for i in range(14000))
    twice = run.replace(b"q3 Q0 d2476 ", b"q3 Q0 d0 ", 1)  # (line 11205: line 9001's document)
    assert twice != run
    cases = (
        (run, ("read_run", "parse_run", "parse_run_by_rank", "parse_run_max_score")),
        (twice, ("read_run", "parse_run", "parse_run_max_score")),
        (run + b"q1 Q0 dx 1 nope r\n", ("read_run",)),
        (qrels, ("read_qrels", "parse_qrels")),
        (qrels + b"q1 0 dx nope\n", ("read_qrels",)),
    )
    for data, readers in cases:
        for chunk in (None, 65536, 100003):
            assert compare_all(data, chunk, only=readers) == "", (data[-40:], chunk)


def test_scores_of_every_length():
    """The compiled scanner's one-pass read of the usual score (at most 15 significant
    digits) and its long way: scores of 0 to 20 digits before and after the point, with
    and without a sign, leading zeros, fields followed by every blank, and the last line's
    score near the end of the text, read as the pure-Python reader reads them, bit for
    bit.  (Reading the digits eight at a time from bit masks was tried, and was slower.)"""
    rng = random.Random(8)
    blanks = [b" ", b"\t", b"\r", b"\x0b", b"\x0c"]
    scores = []
    for whole in range(0, 21):
        for frac in [None, *range(0, 21)]:
            if not whole and not frac:
                continue
            digits = b"".join(b"%d" % rng.randint(0, 9) for _ in range(whole))
            if rng.random() < 0.3:
                digits = b"0" * rng.randint(1, 3) + digits
            score = digits if frac is None else digits + b"." + b"".join(
                b"%d" % rng.randint(0, 9) for _ in range(frac)
            )
            scores.append(rng.choice([b"", b"", b"-", b"+"]) + score)
    scores += [b"12345678", b"123456789", b"0.12345678", b"1.00000000", b"99999999.99999999"]
    lines = [
        b"q%d Q0 d%d 1 %s%stag\n" % (i % 5, i, s, rng.choice(blanks)) for i, s in enumerate(scores)
    ]
    data = b"".join(lines)
    assert compare_all(data, only=("parse_run", "read_run")) == ""
    for s in scores[::7]:  # the last line's score a few bytes from the text's end
        for tail in (b" t", b" t\n", b" tag\n", b"\tt"):
            end = data + b"q9 Q0 dz 1 " + s + tail
            assert compare_all(end, only=("parse_run",)) == "", end[-40:]
