"""Click logs (rankscope.read.impressions with the click-log roles, binary clicks, and
check_click_log): text with and without a header, frames and Parquet read alike, and every
documented check an error naming the file and line (or row)."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from rankscope.clicks import write_clicks
from rankscope.errors import InputError, UsageError
from rankscope.read.impressions import CLICK_ROLES, check_click_log, read_impressions


def read_click_log(source, **options):
    """A click log as the click models take it: the click-log roles, 0/1 clicks, checked."""
    return check_click_log(read_impressions(source, require=CLICK_ROLES, binary=True, **options))

#: Two sessions, their rows out of order and interleaved: the reader orders them.
PLAIN = "s1\tq1\t2\tb\t0\ns2\tq2\t1\tc\t1\ns1\tq1\t1\ta\t1\ns2\tq2\t2\ta\t0\n"
EXPECTED = {
    "session": ["s1", "s1", "s2", "s2"],
    "query": ["q1", "q1", "q2", "q2"],
    "position": [1, 2, 1, 2],
    "doc": ["a", "b", "c", "a"],
    "clicked": [1, 0, 1, 0],
}


def test_headerless_text_is_ordered_by_session_then_position(tmp_path):
    path = tmp_path / "log.tsv"
    path.write_text(PLAIN)
    log = read_click_log(path)
    assert log.columns() == EXPECTED
    assert log.line.tolist() == [3, 1, 2, 4]  # each row keeps its line
    m = log.matrix()
    assert m.clicked.tolist() == [[True, False], [True, False]]
    assert m.length.tolist() == [2, 2]


def test_a_header_maps_the_columns_in_any_order_and_variants(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text(
        "url,click,rank,session_id,qid,timestamp\n"
        "b,false,2,s1,q1,10.5\na,TRUE,1,s1,q1,10\nc,1,1,s2,q2,11\na,0,2,s2,q2,12\n"
    )
    log = read_click_log(path)
    assert log.columns() | {"timestamp": None} == EXPECTED | {"timestamp": None}
    assert log.timestamp.tolist() == [10.0, 10.5, 11.0, 12.0]


def test_gzip_frames_and_parquet_read_the_same(tmp_path):
    pd = pytest.importorskip("pandas")
    gz = tmp_path / "log.tsv.gz"
    gz.write_bytes(gzip.compress(PLAIN.encode()))
    assert read_click_log(gz).columns() == EXPECTED
    frame = pd.DataFrame(
        {"session": ["s1", "s2", "s1", "s2"], "query": ["q1", "q2", "q1", "q2"],
         "position": [2, 1, 1, 2], "doc": ["b", "c", "a", "a"],
         "clicked": [False, True, True, False]}
    )  # fmt: skip
    assert read_click_log(frame).columns() == EXPECTED
    pl = pytest.importorskip("polars")
    assert read_click_log(pl.from_pandas(frame)).columns() == EXPECTED
    pytest.importorskip("pyarrow")
    out = tmp_path / "log.parquet"
    write_clicks(read_click_log(frame), out)
    assert read_click_log(out).columns() == EXPECTED


def test_write_then_read_gives_the_same_log(tmp_path):
    path = tmp_path / "log.tsv"
    path.write_text(PLAIN)
    log = read_click_log(path)
    out = tmp_path / "again.tsv"
    write_clicks(log, out)
    assert out.read_text().splitlines()[0] == "session\tquery\tposition\tdoc\tclicked"
    assert read_click_log(out).columns() == EXPECTED


@pytest.mark.parametrize(
    "text, message",
    [
        ("s1 q 1 a 1\ns1 q 1 b 0\n", "log.txt:1 and log.txt:2: position 1 is listed twice"),
        ("s1 q 1 a 1\ns1 q 3 b 0\n", "log.txt:2: session 's1' has no position 2"),
        ("s1 q 2 a 1\n", "log.txt:1: session 's1' has no position 1"),
        ("s1 q 1 a 1\ns1 q 2 a 0\n", "log.txt:1 and log.txt:2: document 'a' is shown twice"),
        (
            "s1 q 1 a 1\ns1 r 2 b 0\n",
            "log.txt:1 and log.txt:2: session 's1' is listed under two query",
        ),
        ("s1 q 1 a 1 5 x\ns1 q 2 b 0 6 y\n", "session 's1' is listed under two shown ranking"),
        ("s1 q 0 a 1\n", "log.txt:1: position 0 is not 1 or more"),
        ("s1 q 1 a 1\ns1 q 1.5 b 0\n", "log.txt:2: position '1.5' is not an integer"),
        ("s1 q 1 a yes\n", "log.txt:1: clicked 'yes' is not 0, 1, true or false"),
        ("s1 q 1 a 2\n", "log.txt:1: clicked '2' is not 0, 1, true or false"),
        ("s1 q 1 a\n", "log.txt:1: expected at least 5 fields"),
        ("s1 q 1 a 1 nan\n", "log.txt:1: timestamp 'nan' is not a finite number"),
        ("# nothing\n\n", "log.txt: no clicks found"),
        ("session\tquery\tposition\tdoc\tclicked\n", "no clicks found after the header"),
        ("session\tquery\tposition\tdoc\n1\tq\t1\ta\n", "no clicked column in the header"),
        ("s1,q,1,a,1\ns1,q,2,b,0,7\n", "log.txt:2: expected 5 fields, as line 1 has, found 6"),
    ],
)
def test_each_check_names_the_file_and_line(tmp_path, text, message):
    path = tmp_path / "log.txt"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        read_click_log(path)
    assert message.replace("log.txt", str(path)) in str(info.value)


def test_frame_errors_name_the_row():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {"session": ["s", "s"], "query": ["q", "q"], "position": [1, 2], "doc": ["a", None],
         "clicked": [1, 0]}
    )  # fmt: skip
    with pytest.raises(InputError, match="row 1: missing doc id"):
        read_click_log(frame)
    frame = pd.DataFrame(
        {"sess": ["s"], "query": ["q"], "position": [1], "doc": ["a"], "clicked": [1]}
    )
    with pytest.raises(InputError, match="no session column"):
        read_click_log(frame)
    assert read_click_log(frame, columns={"session": "sess"}).num_sessions == 1
    with pytest.raises(UsageError, match="unknown click-log column role"):
        read_click_log(frame, columns={"user": "sess"})


def test_split_holds_out_whole_sessions():
    n = 50
    log = read_click_log({
        "session": [f"s{i // 2}" for i in range(2 * n)], "query": ["q"] * (2 * n),
        "position": np.tile([1, 2], n), "doc": ["a", "b"] * n, "click": np.zeros(2 * n, dtype=bool),
    })  # fmt: skip
    train, test = log.split(0.2, seed=1)
    assert (train.num_sessions, test.num_sessions) == (40, 10)
    assert not set(train.columns()["session"]) & set(test.columns()["session"])
    assert train.split(0.2, seed=1)[1].columns() == train.split(0.2, seed=1)[1].columns()


def test_bad_bytes_are_checked_as_in_every_text_reader(tmp_path):
    from rankscope.errors import RankscopeWarning

    path = tmp_path / "bom.tsv"
    path.write_bytes(b"\xef\xbb\xbf" + PLAIN.encode())
    with pytest.warns(RankscopeWarning, match="byte-order mark"):
        assert read_click_log(path).columns() == EXPECTED
    path = tmp_path / "nul.tsv"
    path.write_bytes(b"s1\tq\t1\ta\t1\ns1\tq\t2\tb\x00\t0\n")
    with pytest.raises(InputError, match=f"{path}:2"):
        read_click_log(path)
    path = tmp_path / "cr.tsv"
    path.write_bytes(PLAIN.replace("\n", "\r").encode())
    with pytest.raises(InputError, match="CR"):
        read_click_log(path)
