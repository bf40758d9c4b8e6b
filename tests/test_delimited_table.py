"""The column-wise reading of plain delimited logs (`rankscope.read.delimited.table`, issue
24) against the line-by-line reading (`rankscope.read.delimited.rows`), on the interaction
and recommendation readers: for every file, valid or not, the same ids in the same order of
first appearance, the same values bit for bit, the same line numbers and warnings, or the
same error (file, line, what was wrong).

The line-by-line outcome is the reference: `delimited.table` is replaced by a function
returning None, which every caller takes for "not a plain file".  Files are a sweep of odd
fields (numbers in every form the grammar takes or refuses, ids with leading zeros, long,
non-ASCII) and files drawn by hypothesis from near-valid logs.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankscope.errors import InputError
from rankscope.model import Vocabulary
from rankscope.read import delimited
from rankscope.read.fields import Field
from rankscope.read.interactions import is_header, read_interactions
from rankscope.read.recommendations import read_recommendations


def _bits(values: np.ndarray | None) -> list[int] | None:
    """Values bit for bit (-0.0 is not 0.0)."""
    if values is None:
        return None
    return np.ascontiguousarray(values, dtype=np.float64).view(np.int64).tolist()


def _interactions(path: Path) -> tuple:
    users, items = Vocabulary(["7"]), Vocabulary()  # a shared vocabulary, already holding ids
    log = read_interactions(str(path), users=users, items=items)
    return (list(users.strings), list(items.strings), log.user.tolist(), log.item.tolist(),
            _bits(log.rating), _bits(log.timestamp), log.line.tolist(), log.source)  # fmt: skip


def _recommendations(path: Path) -> tuple:
    users, items = Vocabulary(["7"]), Vocabulary(["a"])
    run = read_recommendations(str(path), users=users, items=items, duplicates="first")
    return (list(users.strings), list(items.strings), run.query.tolist(), run.doc.tolist(),
            _bits(run.score), run.line.tolist(), run.source, run.name)  # fmt: skip


READERS: dict[str, Callable[[Path], tuple]] = {
    "interactions": _interactions, "recommendations": _recommendations,
}  # fmt: skip


def _outcome(read: Callable[[Path], tuple], path: Path) -> tuple:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result: tuple = ("accepted", read(path))
        except InputError as error:
            result = ("rejected", str(error))
    return result + (tuple(str(w.message) for w in caught),)


def disagreement(data: bytes, path: Path) -> str:
    """The first reader on which the column-wise and the line-by-line readings of ``data``
    differ, with both outcomes; "" when they agree."""
    path.write_bytes(data)
    for name, read in READERS.items():
        plain = _outcome(read, path)
        table = delimited.table
        try:
            delimited.table = lambda *args, **kwargs: None  # type: ignore[assignment]
            lines = _outcome(read, path)
        finally:
            delimited.table = table  # type: ignore[assignment]
        if plain != lines:
            return f"{name}: column-wise {plain!r}\nline by line {lines!r}"
    return ""


#: Fields of every kind: numbers the grammar takes (signs, points, leading zeros, -0, many
#: digits) and refuses, ids short and long, with leading zeros, non-ASCII.
NUMBERS = [
    "3", "0", "-0", "+2", "-7", "1.", ".5", "-0.0", "0.96741", "4.25", "007", "1e3", "2E-2",
    "123456789012345", "1234567890123456", "12345678901234567890", "0.000000000000001",
    "99999999999999.9", "nan", "inf", "1_0", "1,5", "", "+", "-", ".", "1.2.3", "٣", "x",
]  # fmt: skip
IDS = ["7", "0", "00", "012", "12", "u1", "a", "é", "長い", "abcdefgh", "abcdefghi",
       "123456789012345678", "1234567890123456789", "9" * 40, "-1", "+1", "1.5", "x y"]  # fmt: skip
SEPARATORS = ["\t", ",", ";", " ", "::"]
HEADERS = [None, ["user", "item", "rating", "timestamp"], ["userId", "movieId", "rating"],
           ["item", "user", "score"], ["user_id", "item_id", "rank"], ["user", "item"]]  # fmt: skip


def _text(sep: str, header: list[str] | None, rows: list[list[str]], end: str = "\n") -> bytes:
    lines = ([sep.join(header)] if header else []) + [sep.join(row) for row in rows]
    return (end.join(lines) + end).encode("utf-8")


def test_a_sweep_of_odd_fields(tmp_path):
    path = tmp_path / "log.txt"
    for sep in SEPARATORS:
        for header in HEADERS:
            width = 4 if header is None else len(header)
            for number in NUMBERS:
                row = ["7", "a", number, "5"][:width]
                data = _text(sep, header, [["1", "b", "4", "6"][:width], row])
                assert disagreement(data, path) == "", data
            for at, one in enumerate(IDS):
                other = IDS[(at * 7 + 3) % len(IDS)]
                data = _text(sep, header, [[one, other, "1", "2"][:width],
                                           [other, one, "2.5", "3"][:width],
                                           [one, one, "3", "4"][:width]])  # fmt: skip
                assert disagreement(data, path) == "", data


def test_odd_files(tmp_path):
    path = tmp_path / "log.txt"
    rows = [["1", "a", "4", "9"], ["2", "b", "5", "8"], ["1", "b", "3", "7"]]
    for data in [
        _text("\t", None, rows, "\r\n"), _text("\t", None, rows)[:-1], _text("\t", None, rows[:1]),
        _text("\t", ["user", "item"], []), b"", b"\n", b"1\ta\n\n2\tb\n", b"# c\n1\ta\n",
        b"1\ta\t1\n2\tb\n", b"1\ta\n2\tb\t1\n", b"1\ta\t1\t\n", b"\t1\ta\n", b"1\t\ta\n",
        b"1  a\n2 b\n", b"1::a::3\n2:::b::4\n", b"1::a:3\n", b'1,"a",3\n', b"1\ta\xa0\t3\n",
        b"1\ta\t3\n2\tb\t\xff\n", b"1 0 a 1\n2 0 b 0\n", b"1\t0\ta\t1\n", b"1,0,a,1\n2,0,b,2\n",
        "1\tа\t3\n".encode(), b"u\ti\n1\ta\n", b"1;a;0,5\n", b"1\ta\t4\x0b\n",
        b"1\ta\n2\tb\n\n\n", b"1\ta\r\n2\tb\r\n\r\n", b"\n\n", b"1\ta\n\n", b"u\ti\n\n",
    ]:  # fmt: skip
        assert disagreement(data, path) == "", data


@st.composite
def logs(draw: st.DrawFn) -> bytes:
    """A near-valid log: a separator, maybe a header, rows of ids and numbers, now and then
    a field more or less, a blank or comment line, CRLF, a missing final line break."""
    sep = draw(st.sampled_from(SEPARATORS))
    header = draw(st.sampled_from(HEADERS))
    width = len(header) if header else draw(st.integers(2, 5))
    field = st.one_of(st.sampled_from(IDS), st.sampled_from(NUMBERS),
                      st.integers(0, 10**6).map(str), st.floats(-1e6, 1e6).map(repr),
                      st.text(st.characters(codec="utf-8"), max_size=4))  # fmt: skip
    rows = draw(st.lists(st.lists(field, min_size=width, max_size=width), min_size=1,
                         max_size=12))  # fmt: skip
    if draw(st.booleans()):  # mostly numbers where numbers go
        for row in rows:
            for j in range(2, width):
                row[j] = draw(st.integers(-5, 10**10).map(str) | st.sampled_from(NUMBERS[:17]))
    if draw(st.integers(0, 4)) == 0:
        row = draw(st.sampled_from(rows))
        row.append("9") if draw(st.booleans()) else row.pop()
    data = _text(sep, header, rows, draw(st.sampled_from(["\n", "\n", "\n", "\r\n"])))
    if draw(st.integers(0, 5)) == 0:
        data = data.replace(b"\n", draw(st.sampled_from([b"\n\n", b"\n# c\n"])), 1)
    return data[:-1] if draw(st.integers(0, 3)) == 0 else data


@settings(
    max_examples=100, derandomize=True, database=None, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)  # fmt: skip
@given(logs())
def test_the_readings_agree(tmp_path, data):
    assert disagreement(data, tmp_path / "log.txt") == "", data


def test_values_as_written():
    """Hand-written expectations: the ids in their order of first appearance, each column's
    numbers, the line numbers after a header; the ``::`` separator of MovieLens 1M."""
    data = b"user\titem\tscore\n012\t5\t-0.25\n7\t005\t3\n012\t7\t.5\n"
    table = delimited.table(data, is_header, "f")
    assert table is not None and table.header == ["user", "item", "score"]
    users = Vocabulary(["7"])
    assert table.codes(0, users).tolist() == [1, 0, 1] and users.strings == ["7", "012"]
    items = Vocabulary()
    assert table.codes(1, items).tolist() == [0, 1, 2] and items.strings == ["5", "005", "7"]
    assert table.numbers(2, Field("score")).tolist() == [-0.25, 3.0, 0.5]
    assert table.lines.tolist() == [2, 3, 4]
    movielens = delimited.table(b"1::1193::5::978300760\n1::661::3::978302109\n", is_header,
                                "ratings.dat")  # fmt: skip
    assert movielens is not None and movielens.width == 4 and movielens.header is None
    assert movielens.column(1) == ["1193", "661"]
    assert movielens.numbers(3, Field("timestamp")).tolist() == [978300760.0, 978302109.0]


def test_a_bad_number_is_reported_at_its_line():
    table = delimited.table(b"1\ta\t4\n2\tb\t4,5\n", is_header, "log.tsv")
    assert table is not None
    with pytest.raises(InputError, match=r"^log\.tsv:2: rating '4,5' is not a number$"):
        table.numbers(2, Field("rating"))


def test_crlf_files_are_read_column_wise():
    """A Windows file (every line ending in CRLF), blank lines at its end or not, is plain:
    read column-wise, its fields without the carriage return; a carriage return anywhere
    else is not."""
    for crlf in (b"1\ta\t4\r\n2\tb\t5\r\n", b"1\ta\t4\r\n2\tb\t5\r\n\r\n\n"):
        table = delimited.table(crlf, lambda first, second: False, "log.txt")
        assert table is not None
        assert [table.row(0), table.row(1)] == [["1", "a", "4"], ["2", "b", "5"]]
    assert delimited.table(b"1\ta\t4\r\n2\tb\r\t5\r\n", lambda f, s: False, "log.txt") is None
    assert delimited.table(b"1\ta\t4\r", lambda f, s: False, "log.txt") is None
