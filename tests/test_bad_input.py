"""Bad bytes never pass silently (issue 11): a UTF-8 byte-order mark is skipped with a
warning, CR-only line endings, a NUL byte, truncated gzip data and bzip2/zstd data are
`InputError`s naming the file (and the line, where there is one).  The TREC files are read
by both readers (the `reader` fixture), which must agree byte for byte; preference
judgments and interaction logs share the same checks."""

from __future__ import annotations

import bz2
import gzip
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from rankscope import InputError, RankscopeWarning
from rankscope.read import trec
from rankscope.read.interactions import read_interactions
from rankscope.read.prefs import read_prefs
from rankscope.read.recommendations import read_recommendations
from rankscope.read.trec import parse_qrels, read_doc_lengths, read_qrels, read_run

BOM = b"\xef\xbb\xbf"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

QRELS = b"1 0 d1 1\n1 0 d2 0\n# a comment\n2 0 d3 2\n"
RUN = b"1 Q0 d1 1 2.5 tag\n1 Q0 d2 2 1.5 tag\n# a comment\n2 Q0 d3 1 0.5 tag\n"
PREFS = b"1 a x d1 2\n1 a x d2 0\n2 b y d3 1\n"
LOG = b"user,item,rating\nu1,i1,4\nu1,i2,3\nu2,i3,5\n"


def many(kind: str, count: int) -> bytes:
    """``count`` lines of qrels or a run, every document a different one."""
    line = "{q} 0 d{i} {g}\n" if kind == "qrels" else "{q} Q0 d{i} {i} {g}.5 tag\n"
    return "".join(line.format(q=i // 7, i=i, g=i % 3) for i in range(count)).encode()


def read_trec(kind: str, path: Path):
    return read_qrels(path) if kind == "qrels" else read_run(path)


def table(result) -> list[tuple]:
    """Every row of what a reader returned, its ids as text (and the run's name and tag)."""
    if hasattr(result, "grade"):
        values, vocabularies = result.grade, (result.queries, result.docs)
        codes = (result.query, result.doc)
    elif hasattr(result, "score"):
        values, vocabularies = result.score, (result.queries, result.docs)
        codes = (result.query, result.doc)
    elif hasattr(result, "level"):
        values, vocabularies = result.level, (result.queries, result.docs)
        codes = (result.query, result.doc)
    else:
        values, vocabularies = result.rating, (result.users, result.items)
        codes = (result.user, result.item)
    ids = [v.strings_of(c) for v, c in zip(vocabularies, codes, strict=True)]
    lines = np.asarray(result.line).tolist()
    extra = (getattr(result, "name", None), getattr(result, "tag", None))
    return [extra] + list(zip(*ids, np.asarray(values).tolist(), lines, strict=True))


def quiet(read, path: Path):
    """``read(path)``, failing on any warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return read(path)


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


TREC = {"qrels": QRELS, "run": RUN}

# -- TREC qrels and runs, both readers --------------------------------------------------------


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_byte_order_mark_is_skipped_with_a_warning(tmp_path, reader, kind):
    clean = table(quiet(lambda p: read_trec(kind, p), write(tmp_path / "t.txt", TREC[kind])))
    marked = write(tmp_path / "bom.txt", BOM + TREC[kind])
    with pytest.warns(
        RankscopeWarning, match=rf"^{re.escape(str(marked))}: .*UTF-8 byte-order mark"
    ):
        got = read_trec(kind, marked)
    assert table(got)[1:] == clean[1:]
    assert table(got)[1][0] == "1"  # not "\ufeff1", a phantom query


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_byte_order_mark_in_gzip_is_skipped_too(tmp_path, reader, kind):
    clean = table(quiet(lambda p: read_trec(kind, p), write(tmp_path / "t.txt", TREC[kind])))
    marked = write(tmp_path / "bom.txt.gz", gzip.compress(BOM + TREC[kind]))
    with pytest.warns(RankscopeWarning, match="byte-order mark"):
        assert table(read_trec(kind, marked))[1:] == clean[1:]


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_cr_only_line_endings_are_an_error(tmp_path, reader, kind):
    path = write(tmp_path / "mac.txt", TREC[kind].replace(b"\n", b"\r"))
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: the line endings are CR-only"):
        read_trec(kind, path)
    marked = write(tmp_path / "mac-bom.txt", BOM + TREC[kind].replace(b"\n", b"\r"))
    with pytest.raises(InputError, match="CR-only"), pytest.warns(RankscopeWarning):
        read_trec(kind, marked)


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_crlf_line_endings_read_as_today(tmp_path, reader, kind):
    clean = table(quiet(lambda p: read_trec(kind, p), write(tmp_path / "t.txt", TREC[kind])))
    crlf = write(tmp_path / "dos.txt", TREC[kind].replace(b"\n", b"\r\n"))
    assert table(quiet(lambda p: read_trec(kind, p), crlf)) == clean
    # a single line ending in a lone CR is a CRLF file cut short, not CR-only
    one = write(tmp_path / "one.txt", TREC[kind].split(b"\n")[0] + b"\r")
    assert table(quiet(lambda p: read_trec(kind, p), one))[1:] == clean[1:2]


@pytest.mark.parametrize("kind", ["qrels", "run"])
@pytest.mark.parametrize("where", ["docno", "query", "comment", "blank"])
def test_nul_byte_is_an_error_naming_the_line(tmp_path, reader, kind, where):
    lines = TREC[kind].split(b"\n")
    if where == "docno":
        lines[3] = lines[3].replace(b"d3", b"d\x003")
    elif where == "query":
        lines[3] = b"\x00" + lines[3]
    elif where == "comment":
        lines[2] = b"# \x00"
    else:
        lines[2] = b"\x00"
    path = write(tmp_path / "nul.txt", b"\n".join(lines))
    line = 3 if where in ("comment", "blank") else 4
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}:{line}: holds a NUL byte"):
        read_trec(kind, path)


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_errors_come_in_line_order(tmp_path, reader, kind):
    """A bad number before the NUL byte is the error both readers report, and vice versa."""
    bad = b"1 0 d9 x\n" if kind == "qrels" else b"1 Q0 d9 1 x tag\n"
    nul = TREC[kind].split(b"\n")[0].replace(b"d1", b"d\x001") + b"\n"
    with pytest.raises(InputError, match=rf"^{re.escape(str(tmp_path / 'a.txt'))}:2: .*'x'"):
        read_trec(kind, write(tmp_path / "a.txt", b"\n" + bad + nul))
    with pytest.raises(
        InputError, match=rf"^{re.escape(str(tmp_path / 'b.txt'))}:2: holds a NUL byte"
    ):
        read_trec(kind, write(tmp_path / "b.txt", b"\n" + nul + bad))


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_checks_hold_across_pieces_of_the_compiled_reader(tmp_path, reader, kind, monkeypatch):
    """The compiled reader reads a file in pieces: the mark is skipped in the first only,
    and a NUL byte in a later piece is reported at its line."""
    monkeypatch.setattr(trec, "CHUNK", 64)
    body = many(kind, 100)
    clean = table(quiet(lambda p: read_trec(kind, p), write(tmp_path / "t.txt", body)))
    with pytest.warns(RankscopeWarning, match="byte-order mark"):
        got = read_trec(kind, write(tmp_path / "bom.txt", BOM + body))
    assert table(got)[1:] == clean[1:]
    lines = body.split(b"\n")
    lines[70] = lines[70].replace(b"d", b"\x00", 1)
    path = write(tmp_path / "nul.txt", b"\n".join(lines))
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}:71: holds a NUL byte"):
        read_trec(kind, path)


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_truncated_gzip_is_an_error(tmp_path, reader, kind):
    whole = gzip.compress(many(kind, 200))
    ok = write(tmp_path / "ok.txt.gz", whole)
    clean = table(quiet(lambda p: read_trec(kind, p), write(tmp_path / "t.txt", many(kind, 200))))
    assert table(quiet(lambda p: read_trec(kind, p), ok)) == clean
    for cut in (len(whole) // 2, len(whole) - 4, 12):
        path = write(tmp_path / f"cut{cut}.txt.gz", whole[:cut])
        with pytest.raises(
            InputError, match=rf"^{re.escape(str(path))}: truncated or corrupt gzip data"
        ):
            read_trec(kind, path)
    corrupt = write(tmp_path / "corrupt.txt.gz", whole[:20] + b"\xff" * 40 + whole[60:])
    with pytest.raises(
        InputError, match=rf"^{re.escape(str(corrupt))}: truncated or corrupt gzip data"
    ):
        read_trec(kind, corrupt)


@pytest.mark.parametrize("kind", ["qrels", "run"])
@pytest.mark.parametrize(
    "name, data",
    [
        ("bzip2", bz2.compress(QRELS)),
        ("bzip2", bz2.compress(b"")),
        ("zstd", ZSTD_MAGIC + b"\x00" * 20),
    ],
)
def test_other_compressions_are_an_error(tmp_path, reader, kind, name, data):
    path = write(tmp_path / f"x.{name}", data)
    with pytest.raises(
        InputError, match=rf"^{re.escape(str(path))}: {name}-compressed data is not supported"
    ):
        read_trec(kind, path)


def test_text_starting_like_bzip2_is_still_text(tmp_path, reader):
    path = write(tmp_path / "t.txt", b"BZh91 0 d1 1\n")
    assert table(quiet(read_qrels, path))[1] == ("BZh91", "d1", 1, 1)


def test_text_in_memory_is_checked_as_a_file_is(reader):
    with pytest.warns(RankscopeWarning, match="^<qrels>: .*byte-order mark"):
        assert table(parse_qrels(BOM + QRELS))[1:] == table(parse_qrels(QRELS))[1:]
    with pytest.raises(InputError, match="^<qrels>: the line endings are CR-only"):
        parse_qrels(QRELS.replace(b"\n", b"\r"))
    with pytest.raises(InputError, match="^<qrels>:2: holds a NUL byte"):
        parse_qrels(QRELS.replace(b"d2", b"d\x002"))


def test_rank_ordered_runs_are_checked_too(tmp_path):
    path = write(tmp_path / "nul.txt", RUN.replace(b"d2", b"d\x002"))
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}:2: holds a NUL byte"):
        read_run(path, order="rank")
    marked = write(tmp_path / "bom.txt", BOM + RUN)
    with pytest.warns(RankscopeWarning, match="byte-order mark"):
        got = read_run(marked, order="rank")
    assert got.queries.strings_of(got.query)[0] == "1"


# -- the other readers of text -----------------------------------------------------------------

OTHERS = {
    "prefs": (PREFS, read_prefs),
    "interactions": (LOG, read_interactions),
    "recommendations": (b"u1 i1 0.9\nu1 i2 0.5\nu2 i3 0.7\n", read_recommendations),
}


@pytest.mark.parametrize("what", sorted(OTHERS))
def test_other_readers_skip_a_byte_order_mark(tmp_path, what):
    data, read = OTHERS[what]
    clean = table(quiet(read, write(tmp_path / "t.txt", data)))
    marked = write(tmp_path / "bom.txt", BOM + data)
    with pytest.warns(
        RankscopeWarning, match=rf"^{re.escape(str(marked))}: .*UTF-8 byte-order mark"
    ):
        assert table(read(marked))[1:] == clean[1:]


@pytest.mark.parametrize("what", sorted(OTHERS))
def test_other_readers_refuse_cr_only_and_accept_crlf(tmp_path, what):
    data, read = OTHERS[what]
    clean = table(quiet(read, write(tmp_path / "t.txt", data)))
    crlf = write(tmp_path / "dos.txt", data.replace(b"\n", b"\r\n"))
    assert table(quiet(read, crlf))[1:] == clean[1:]
    path = write(tmp_path / "mac.txt", data.replace(b"\n", b"\r"))
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: the line endings are CR-only"):
        read(path)


@pytest.mark.parametrize("what", sorted(OTHERS))
def test_other_readers_refuse_a_nul_byte(tmp_path, what):
    data, read = OTHERS[what]
    lines = data.split(b"\n")
    lines[2] = lines[2].replace(b"2", b"\x00", 1)
    path = write(tmp_path / "nul.txt", b"\n".join(lines))
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}:3: holds a NUL byte"):
        read(path)


@pytest.mark.parametrize("what", sorted(OTHERS))
def test_other_readers_refuse_truncated_gzip_and_bzip2(tmp_path, what):
    data, read = OTHERS[what]
    whole = gzip.compress(data * 20)
    path = write(tmp_path / "cut.txt.gz", whole[: len(whole) // 2])
    with pytest.raises(
        InputError, match=rf"^{re.escape(str(path))}: truncated or corrupt gzip data"
    ):
        read(path)
    path = write(tmp_path / "x.bz2", bz2.compress(data))
    with pytest.raises(
        InputError, match=rf"^{re.escape(str(path))}: bzip2-compressed data is not supported"
    ):
        read(path)


def test_document_lengths_are_checked_too(tmp_path):
    clean = read_doc_lengths(write(tmp_path / "t.txt", b"d1 10\nd2 20\n"))
    marked = write(tmp_path / "bom.txt", BOM + b"d1 10\nd2 20\n")
    with pytest.warns(RankscopeWarning, match="byte-order mark"):
        assert read_doc_lengths(marked) == clean
    path = write(tmp_path / "nul.txt", b"d1 10\nd\x002 20\n")
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}:2: holds a NUL byte"):
        read_doc_lengths(path)
