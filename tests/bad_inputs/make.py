# ruff: noqa: E501  (a table of cases: one case per few lines reads better than wrapped calls)
"""Generate the bad-input corpus: ``python tests/bad_inputs/make.py`` rewrites ``cases/``.

Every case is declared here, never edited by hand (``tests/test_corpus.py`` checks that
running this script reproduces the committed tree byte for byte).  A case is a small clean
input (the judgments, runs, preference judgments, logs below) changed by one named
mutation, the command line (or API call) that reads it, and the outcome its meaning calls
for:

* ``error``: exit status 2, nothing on stdout, and on stderr one line ``rankscope: error:
  ...`` (after any warnings) holding every substring of ``expect`` — the file and line, or
  the option;
* ``usage``: exit status 2 from argparse (its usage, then ``rankscope CMD: error: argument
  OPT: ...``), the substrings in that last line;
* ``warning``: exit status 0, the substrings in a ``rankscope: warning:`` line, and (with a
  ``twin``) stdout identical to the twin's;
* ``identical``: exit status 0, stdout and stderr identical to the ``twin`` command's, which
  reads the clean inputs (stored in the case too, so that a case is self-contained).

Arguments starting with ``@`` name a file of the case (``@qrels`` is ``cases/NAME/qrels``).
API cases (DataFrames, Parquet, dicts) give the call as data: ``{"api": "evaluate", ...}``
with inputs ``{"file": name}``, ``{"frame": {column: values}}``, ``{"parquet": {column:
values}}`` (written at test time, so that no pyarrow version is baked into the tree) or
``{"dict": ...}``.  A case the TREC parser or the compiled reader must still fix carries
``xfail`` (the reason); ``subprocess`` cases are also run as a real process; ``unreadable``
files are made unreadable at test time (git keeps no permissions).
"""

from __future__ import annotations

import bz2
import importlib.util
import json
import shutil
import struct
import sys
import zlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"

# -- the clean inputs ------------------------------------------------------------------------

QRELS = b"1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d1 0\n2 0 d4 1\n2 0 d5 1\n"
RUN = b"1 Q0 d1 1 3.0 A\n1 Q0 d2 2 2.0 A\n1 Q0 d9 3 1.0 A\n2 Q0 d4 1 3.0 A\n2 Q0 d1 2 2.0 A\n2 Q0 d5 3 1.0 A\n"
RUN_B = b"1 Q0 d3 1 3.0 B\n1 Q0 d1 2 2.0 B\n1 Q0 d2 3 1.0 B\n2 Q0 d8 1 3.0 B\n2 Q0 d5 2 2.0 B\n2 Q0 d4 3 1.0 B\n"
PREFS = b"1 a x d1 2\n1 a x d2 0\n1 a x d3 1\n2 a x d4 1\n2 a x d1 0\n"
JUDGMENT_GROUPS = b"1 a d1 1\n1 a d2 0\n1 b d3 1\n2 a d4 1\n2 a d1 0\n"
ZSCORES = b"1 map 0.5 0.1\n2 map 0.4 0.2\n"
DIVERSITY = b"1 1 d1 1\n1 2 d3 1\n1 1 d2 0\n2 1 d4 1\n2 2 d5 1\n"
LENGTHS = b"d1 100\nd2 200\nd3 50\nd4 10\nd5 300\nd8 7\nd9 5\n"
TEST_LOG = b"u1\ti1\t5\nu1\ti2\t1\nu2\ti1\t4\nu2\ti3\t5\n"
TEST_CSV = b"user,item,rating\nu1,i1,5\nu1,i2,1\nu2,i1,4\nu2,i3,5\n"
RECS = b"u1\ti1\t0.9\nu1\ti3\t0.5\nu2\ti2\t0.7\nu2\ti3\t0.6\n"
README = b"These are the runs of our experiment.\n"

# -- mutations: bytes -> bytes ---------------------------------------------------------------


def line(data: bytes, number: int, new: bytes) -> bytes:
    """Line ``number`` (from 1) replaced by ``new``."""
    lines = data.split(b"\n")
    lines[number - 1] = new
    return b"\n".join(lines)


def field(data: bytes, number: int, index: int, new: bytes) -> bytes:
    """Field ``index`` (from 0) of line ``number`` replaced by ``new``."""
    fields = data.split(b"\n")[number - 1].split(b" ")
    fields[index] = new
    return line(data, number, b" ".join(fields))


def tsv_field(data: bytes, number: int, index: int, new: bytes) -> bytes:
    fields = data.split(b"\n")[number - 1].split(b"\t")
    fields[index] = new
    return line(data, number, b"\t".join(fields))


def drop_line(data: bytes, number: int) -> bytes:
    lines = data.split(b"\n")
    del lines[number - 1]
    return b"\n".join(lines)


def bom(data: bytes) -> bytes:
    return b"\xef\xbb\xbf" + data


def crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def cr_only(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r")


def utf16(data: bytes) -> bytes:
    return data.decode("ascii").encode("utf-16")  # with its byte-order mark


def nul_in_line(data: bytes, number: int) -> bytes:
    return line(data, number, data.split(b"\n")[number - 1] + b"\0")


def gzip_stored(data: bytes) -> bytes:
    """``data`` gzip-compressed with stored (uncompressed) deflate blocks: the same bytes
    whatever zlib is installed, so the corpus regenerates identically everywhere."""
    blocks = bytearray()
    chunks = [data[i : i + 65535] for i in range(0, len(data), 65535)] or [b""]
    for i, chunk in enumerate(chunks):
        final = 1 if i == len(chunks) - 1 else 0
        blocks += struct.pack("<BHH", final, len(chunk), 0xFFFF ^ len(chunk)) + chunk
    header = b"\x1f\x8b\x08\x00" + b"\0\0\0\0" + b"\x00\xff"  # no name, mtime 0, unknown OS
    trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    return header + bytes(blocks) + trailer


def truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def bzip2(data: bytes) -> bytes:
    return bz2.compress(data, 9)


def zstd_like(data: bytes) -> bytes:
    """The zstd frame magic, then the data (only the magic is looked at)."""
    return b"\x28\xb5\x2f\xfd" + data


def binary() -> bytes:
    return bytes(range(256)) * 2


# -- the cases -------------------------------------------------------------------------------

ALL: list[dict[str, Any]] = []


def case(
    name: str,
    family: str,
    reader: str,
    files: dict[str, bytes | None],
    args: list[str] | dict,
    kind: str,
    expect: list[str] | None = None,
    twin: list[str] | dict | None = None,
    **extra: Any,
) -> None:
    """Declare a case (``files``: name -> bytes; None for a directory)."""
    assert kind in ("error", "usage", "warning", "identical", "output"), kind
    assert name not in {c["name"] for c in ALL}, name
    ALL.append({
        "name": name, "family": family, "reader": reader, "files": files, "args": args,
        "kind": kind, "expect": expect or [], "twin": twin, **extra,
    })  # fmt: skip


def eval_case(name, family, reader, qrels=QRELS, run=RUN, kind="error", expect=None,
              options=(), twin=False, **extra):  # fmt: skip
    """``rankscope eval [options] @qrels @run``; the twin reads the clean files."""
    files = {"qrels": qrels, "run": run}
    if twin:
        files |= {"clean/qrels": QRELS, "clean/run": RUN}
    twin_command = ["eval", *options, "@clean/qrels", "@clean/run"] if twin else None
    case(name, family, reader, files, ["eval", *options, "@qrels", "@run"], kind, expect,
         twin_command, **extra)  # fmt: skip


def recsys_case(name, family, reader, test=TEST_LOG, recs=RECS, kind="error", expect=None,
                options=(), twin=False, test_name="test.tsv", recs_name="recs.tsv", **extra):  # fmt: skip
    files = {test_name: test, recs_name: recs}
    command = ["recsys", *options, f"@{test_name}", f"@{recs_name}"]
    twin_command = None
    if twin:
        files |= {"clean/" + test_name: TEST_LOG if test_name.endswith(".tsv") else TEST_CSV,
                  "clean/" + recs_name: RECS}  # fmt: skip
        twin_command = ["recsys", *options, f"@clean/{test_name}", f"@clean/{recs_name}"]
    case(name, family, reader, files, command, kind, expect, twin_command, **extra)


def declare() -> None:
    # -- field counts --------------------------------------------------------------------
    eval_case("qrels-three-fields", "fields", "qrels", qrels=line(QRELS, 3, b"1 0 d3"),
              expect=["qrels:3", "expected 4 fields, found 3"], subprocess=True)  # fmt: skip
    eval_case("qrels-five-fields", "fields", "qrels", qrels=line(QRELS, 2, b"1 0 d2 0 x"),
              expect=["qrels:2", "expected 4 fields, found 5"])  # fmt: skip
    eval_case("run-five-fields", "fields", "run", run=line(RUN, 4, b"2 Q0 d4 1 3.0"),
              expect=["run:4", "expected at least 6 fields, found 5"])  # fmt: skip
    eval_case("arguments-swapped", "names", "run", qrels=RUN, run=QRELS,
              expect=["qrels:1", "looks like a run", "swapped"])  # fmt: skip
    case("prefs-four-fields", "fields", "prefs", {"prefs": line(PREFS, 2, b"1 a x d2"),
         "run": RUN}, ["eval", "-R", "prefs", "@prefs", "@run"], "error",
         ["prefs:2", "expected 5 fields"])  # fmt: skip
    case("judgment-groups-five-fields", "fields", "qrels_jg",
         {"jg": line(JUDGMENT_GROUPS, 3, b"1 b x d3 1"), "run": RUN},
         ["eval", "-R", "qrels_jg", "@jg", "@run"], "error", ["jg:3", "expected 4 fields"])  # fmt: skip
    case("zscores-three-fields", "fields", "zscores",
         {"zscores": line(ZSCORES, 2, b"2 map 0.4"), "qrels": QRELS, "run": RUN},
         ["eval", "-m", "map", "-Z", "@zscores", "@qrels", "@run"], "error",
         ["zscores:2", "expected 4 fields"])  # fmt: skip
    case("diversity-three-fields", "fields", "diversity qrels",
         {"div": line(DIVERSITY, 2, b"1 2 d3"), "run": RUN}, ["ndeval", "@div", "@run"],
         "error", ["div:2", "expected 4 fields, found 3"])  # fmt: skip
    case("doc-lengths-three-fields", "fields", "doc lengths",
         {"lengths": line(LENGTHS, 2, b"d2 200 x"), "qrels": QRELS, "run": RUN},
         ["eval", "-m", "TBG", "--doc-lengths", "@lengths", "@qrels", "@run"], "error",
         ["lengths:2", "expected 2 fields"])  # fmt: skip
    recsys_case("log-one-field", "fields", "interaction log", test=line(TEST_LOG, 3, b"u2"),
                expect=["test.tsv:3", "expected at least 2 fields, found 1"])  # fmt: skip
    recsys_case("recs-one-field", "fields", "recommendation list", recs=line(RECS, 2, b"u1"),
                expect=["recs.tsv:2", "expected at least 2 fields, found 1"])  # fmt: skip
    recsys_case("log-csv-more-fields-than-header", "fields", "interaction log",
                test=line(TEST_CSV, 3, b"u1,i2,1,x"), test_name="test.csv",
                expect=["test.csv:3", "expected 3 fields, as the header has, found 4"])  # fmt: skip

    # -- numbers -------------------------------------------------------------------------
    for name, token, problem in [
        ("nan", b"nan", "is not finite"),
        ("inf", b"inf", "is not finite"),
        ("minus-inf", b"-inf", "is not finite"),
        ("huge", b"1e400", "is not finite"),
        ("underscore", b"1_000", "is not a number"),
        ("decimal-comma", b"1,5", "is not a number"),
        ("hex", b"0x10", "is not a number"),
    ]:
        eval_case(f"run-score-{name}", "numbers", "run", run=field(RUN, 2, 4, token),
                  expect=["run:2", f"score '{token.decode()}' {problem}"])  # fmt: skip
    for name, token, problem in [
        ("nan", b"nan", "is not an integer"),
        ("real", b"1.5", "is not an integer"),
        ("nineteen-digits", b"1" * 19, "is out of range"),
        ("underscore", b"1_0", "is not an integer"),
    ]:
        eval_case(f"qrels-grade-{name}", "numbers", "qrels", qrels=field(QRELS, 3, 3, token),
                  expect=["qrels:3", f"relevance grade '{token.decode()}' {problem}"])  # fmt: skip
    case("prefs-level-nan", "numbers", "prefs", {"prefs": field(PREFS, 2, 4, b"nan"),
         "run": RUN}, ["eval", "-R", "prefs", "@prefs", "@run"], "error",
         ["prefs:2", "'nan'"])  # fmt: skip
    case("zscores-stddev-inf", "numbers", "zscores",
         {"zscores": field(ZSCORES, 1, 3, b"inf"), "qrels": QRELS, "run": RUN},
         ["eval", "-m", "map", "-Z", "@zscores", "@qrels", "@run"], "error",
         ["zscores:1", "'inf'"])  # fmt: skip
    case("judgment-groups-grade-empty-ish", "numbers", "qrels_jg",
         {"jg": line(JUDGMENT_GROUPS, 2, b"1 a d2 -"), "run": RUN},
         ["eval", "-R", "qrels_jg", "@jg", "@run"], "error", ["jg:2", "'-'"])  # fmt: skip
    recsys_case("log-rating-decimal-comma-tsv", "numbers", "interaction log",
                test=tsv_field(TEST_LOG, 2, 2, b"4,5"),
                expect=["test.tsv:2", "rating '4,5' is not a"])  # fmt: skip
    recsys_case("log-csv-unquoted-decimal-comma", "numbers", "interaction log",
                test=line(TEST_CSV, 4, b"u2,i1,4,5"), test_name="test.csv",
                expect=["test.csv:4", "found 4", "decimal comma"])  # fmt: skip
    recsys_case("log-semicolon-decimal-comma", "numbers", "interaction log",
                test=b"u1;i1;5\nu1;i2;1,5\nu2;i1;4\n", test_name="test.csv",
                expect=["test.csv:2", "rating '1,5' is not a"])  # fmt: skip
    recsys_case("log-csv-empty-rating", "numbers", "interaction log",
                test=line(TEST_CSV, 2, b"u1,i1,"), test_name="test.csv",
                expect=["test.csv:2", "rating ''"])  # fmt: skip
    recsys_case("recs-score-inf", "numbers", "recommendation list",
                recs=tsv_field(RECS, 3, 2, b"inf"), expect=["recs.tsv:3", "score 'inf'"])  # fmt: skip
    case("doc-lengths-comments-only", "files", "doc lengths",
         {"lengths": b"# no lengths yet\n", "qrels": QRELS, "run": RUN},
         ["eval", "-m", "TBG", "--doc-lengths", "@lengths", "@qrels", "@run"], "error",
         ["lengths", "no document lengths found"])  # fmt: skip
    case("doc-lengths-negative", "numbers", "doc lengths",
         {"lengths": line(LENGTHS, 3, b"d3 -50"), "qrels": QRELS, "run": RUN},
         ["eval", "-m", "TBG", "--doc-lengths", "@lengths", "@qrels", "@run"], "error",
         ["lengths:3", "'-50'", "non-negative"])  # fmt: skip

    # -- encodings -----------------------------------------------------------------------
    eval_case("qrels-bom", "encodings", "qrels", qrels=bom(QRELS), kind="warning",
              expect=["qrels", "byte-order mark"], twin=True)  # fmt: skip
    eval_case("run-bom", "encodings", "run", run=bom(RUN), kind="warning",
              expect=["run", "byte-order mark"], twin=True)  # fmt: skip
    recsys_case("log-bom", "encodings", "interaction log", test=bom(TEST_LOG), kind="warning",
                expect=["test.tsv", "byte-order mark"], twin=True)  # fmt: skip
    eval_case("qrels-utf16", "encodings", "qrels", qrels=utf16(QRELS),
              expect=["qrels:1", "NUL byte", "UTF-16"])  # fmt: skip
    eval_case("run-nul", "encodings", "run", run=nul_in_line(RUN, 2),
              expect=["run:2", "NUL byte"], subprocess=True)  # fmt: skip
    case("prefs-nul", "encodings", "prefs", {"prefs": nul_in_line(PREFS, 3), "run": RUN},
         ["eval", "-R", "prefs", "@prefs", "@run"], "error", ["prefs:3", "NUL byte"])  # fmt: skip
    recsys_case("log-nul", "encodings", "interaction log", test=nul_in_line(TEST_LOG, 2),
                expect=["test.tsv:2", "NUL byte"])  # fmt: skip
    latin1_qrels = QRELS.replace(b"d3", b"d\xe9")
    latin1_run = RUN_B.replace(b"d3", b"d\xe9")
    case("latin1-ids", "encodings", "qrels and run",
         {"qrels": latin1_qrels, "run": latin1_run, "clean/qrels": QRELS.replace(b"d3", b"dx"),
          "clean/run": RUN_B.replace(b"d3", b"dx")},
         ["eval", "-m", "map", "-m", "P.5", "@qrels", "@run"], "identical",
         twin=["eval", "-m", "map", "-m", "P.5", "@clean/qrels", "@clean/run"])  # fmt: skip
    case("control-character-in-tag", "encodings", "run",
         {"qrels": QRELS, "run": RUN.replace(b" A\n", b" A\x1b[31m\n")},
         ["eval", "-m", "map", "-m", "runid", "@qrels", "@run"], "output",
         ["A\\x1b[31m"], forbid=["\x1b"])  # fmt: skip

    # -- line endings --------------------------------------------------------------------
    eval_case("qrels-crlf", "line endings", "qrels", qrels=crlf(QRELS), kind="identical",
              twin=True)  # fmt: skip
    eval_case("run-crlf", "line endings", "run", run=crlf(RUN), kind="identical", twin=True)
    eval_case("run-no-final-newline", "line endings", "run", run=RUN.rstrip(b"\n"),
              kind="identical", twin=True)  # fmt: skip
    case("prefs-crlf", "line endings", "prefs",
         {"prefs": crlf(PREFS), "run": RUN, "clean/prefs": PREFS},
         ["eval", "-R", "prefs", "@prefs", "@run"], "identical",
         twin=["eval", "-R", "prefs", "@clean/prefs", "@run"])  # fmt: skip
    recsys_case("log-crlf", "line endings", "interaction log", test=crlf(TEST_LOG),
                kind="identical", twin=True)  # fmt: skip
    eval_case("qrels-cr-only", "line endings", "qrels", qrels=cr_only(QRELS),
              expect=["qrels", "CR-only"])  # fmt: skip
    eval_case("run-cr-only", "line endings", "run", run=cr_only(RUN), expect=["run", "CR-only"])
    case("judgment-groups-cr-only", "line endings", "qrels_jg",
         {"jg": cr_only(JUDGMENT_GROUPS), "run": RUN},
         ["eval", "-R", "qrels_jg", "@jg", "@run"], "error", ["jg", "CR-only"])  # fmt: skip
    recsys_case("log-cr-only", "line endings", "interaction log", test=cr_only(TEST_LOG),
                expect=["test.tsv", "CR-only"])  # fmt: skip

    # -- compression ---------------------------------------------------------------------
    case("run-gzip", "compression", "run",
         {"qrels": QRELS, "run.gz": gzip_stored(RUN), "run": RUN},
         ["eval", "@qrels", "@run.gz"], "identical", twin=["eval", "@qrels", "@run"])  # fmt: skip
    case("run-gzip-named-txt", "compression", "run",
         {"qrels": QRELS, "run.txt": gzip_stored(RUN), "clean/run.txt": RUN},
         ["eval", "@qrels", "@run.txt"], "identical", twin=["eval", "@qrels", "@clean/run.txt"])  # fmt: skip
    case("qrels-plain-named-gz", "compression", "qrels",
         {"qrels.gz": QRELS, "qrels": QRELS, "run": RUN},
         ["eval", "@qrels.gz", "@run"], "identical", twin=["eval", "@qrels", "@run"])  # fmt: skip
    eval_case("run-gzip-truncated", "compression", "run", run=truncated(gzip_stored(RUN)),
              expect=["run", "truncated or corrupt gzip data"], subprocess=True)  # fmt: skip
    eval_case("qrels-bzip2", "compression", "qrels", qrels=bzip2(QRELS),
              expect=["qrels", "bzip2-compressed data is not supported"])  # fmt: skip
    eval_case("run-zstd", "compression", "run", run=zstd_like(RUN),
              expect=["run", "zstd-compressed data is not supported"])  # fmt: skip
    case("runs-directory-with-bzip2", "compression", "runs directory",
         {"qrels": QRELS, "runs/a": RUN, "runs/b": bzip2(RUN_B)},
         ["eval", "@qrels", "@runs"], "error", ["runs/b", "bzip2-compressed data is not supported"])  # fmt: skip
    recsys_case("log-gzip", "compression", "interaction log", test=gzip_stored(TEST_LOG),
                kind="identical", twin=True)  # fmt: skip
    recsys_case("log-bzip2", "compression", "interaction log", test=bzip2(TEST_LOG),
                expect=["test.tsv", "bzip2-compressed data is not supported"])  # fmt: skip

    # -- files ---------------------------------------------------------------------------
    eval_case("qrels-empty", "files", "qrels", qrels=b"", expect=["qrels", "no judgments"])
    eval_case("run-empty", "files", "run", run=b"", expect=["run", "no ranked documents"])
    eval_case("qrels-comments-only", "files", "qrels", qrels=b"# judgments\n\n# none\n",
              expect=["qrels", "no judgments"])  # fmt: skip
    case("run-missing", "files", "run", {"qrels": QRELS}, ["eval", "@qrels", "@absent"],
         "error", ["absent: No such file or directory"], subprocess=True)  # fmt: skip
    case("qrels-directory", "files", "qrels", {"dir/.keep": b"", "run": RUN},
         ["eval", "@dir", "@run"], "error", ["dir: Is a directory"])  # fmt: skip
    eval_case("run-binary", "files", "run", run=binary(), expect=["run"])
    case("runs-directory-with-readme", "files", "runs directory",
         {"qrels": QRELS, "runs/a": RUN, "runs/README": README},
         ["eval", "@qrels", "@runs"], "error", ["README is not a run", "runs/*.txt"])  # fmt: skip
    case("runs-directory-empty", "files", "runs directory", {"qrels": QRELS, "runs/.keep": b""},
         ["eval", "@qrels", "@runs"], "error", ["runs: directory holds no run files"])  # fmt: skip
    case("runs-directory-holds-qrels", "files", "runs directory",
         {"runs/qrels": QRELS, "runs/a": RUN, "qrels": QRELS, "a": RUN},
         ["eval", "@runs/qrels", "@runs"], "warning", ["is the judgments file: skipped"],
         twin=["eval", "@qrels", "@a"])  # fmt: skip
    eval_case("run-unreadable", "files", "run", expect=["run: Permission denied"],
              unreadable=["run"])  # fmt: skip
    recsys_case("log-empty", "files", "interaction log", test=b"",
                expect=["test.tsv", "no interactions found"])  # fmt: skip
    recsys_case("recs-comments-only", "files", "recommendation list", recs=b"# nothing\n",
                expect=["recs.tsv", "no recommendations found"])  # fmt: skip
    recsys_case("features-directory", "files", "item features",
                options=["--features", "@features"], expect=["features: Is a directory"],
                extra_files={"features/.keep": b""})  # fmt: skip

    # -- structure -----------------------------------------------------------------------
    eval_case("run-duplicate-document", "structure", "run",
              run=RUN + b"1 Q0 d1 4 0.5 A\n",
              expect=["run", "document 'd1' appears twice for query '1' at lines 1 and 7",
                      "--duplicates first"])  # fmt: skip
    case("run-duplicate-document-first", "structure", "run",
         {"qrels": QRELS, "run": RUN + b"1 Q0 d1 4 0.5 A\n", "clean/run": RUN},
         ["eval", "--duplicates", "first", "@qrels", "@run"], "identical",
         twin=["eval", "@qrels", "@clean/run"])  # fmt: skip
    eval_case("qrels-duplicate-judgment", "structure", "qrels", qrels=QRELS + b"1 0 d1 2\n",
              expect=["qrels", "document 'd1' is judged twice for query '1' (lines 1 and 7)"])  # fmt: skip
    case("query-only-in-run", "structure", "run",
         {"qrels": QRELS, "run": RUN + b"3 Q0 d1 1 1.0 A\n", "clean/run": RUN},
         ["eval", "@qrels", "@run"], "warning", ["1 query without judgments ignored (3)"],
         twin=["eval", "@qrels", "@clean/run"])  # fmt: skip
    eval_case("query-only-in-qrels", "structure", "qrels", qrels=QRELS + b"3 0 d1 1\n",
              kind="warning", expect=["1 judged query not in the run", "(3)"], twin=True)  # fmt: skip
    eval_case("no-judged-document-retrieved", "structure", "run", run=RUN.replace(b" d", b" D"),
              options=["-m", "map"], kind="warning",
              expect=["none of its 6 retrieved documents", "'D1'", "'d1'"])  # fmt: skip
    eval_case("no-common-query", "structure", "run", run=RUN.replace(b"1 Q0", b"7 Q0")
              .replace(b"2 Q0", b"8 Q0"), expect=["run", "no query"])  # fmt: skip
    # every score tied: trec_eval's order is document id descending, as a run whose scores
    # fall in that order; the rank column orders them otherwise: a warning (issue 22)
    tied = b"1 Q0 d1 1 1.0 A\n1 Q0 d2 2 1.0 A\n1 Q0 d9 3 1.0 A\n"
    ordered = b"1 Q0 d9 1 3.0 A\n1 Q0 d2 2 2.0 A\n1 Q0 d1 3 1.0 A\n"
    case("all-scores-tied", "structure", "run",
         {"qrels": QRELS, "run": tied, "clean/run": ordered},
         ["eval", "-q", "-m", "map", "-m", "P.1,2", "@qrels", "@run"], "warning",
         ["run:1", "every document of query '1' has the score 1"],
         twin=["eval", "-q", "-m", "map", "-m", "P.1,2", "@qrels", "@clean/run"])  # fmt: skip
    eval_case("no-relevant-document", "structure", "qrels",
              qrels=QRELS.replace(b" 1\n", b" 0\n").replace(b" 2\n", b" 0\n"),
              options=["-m", "map"], kind="warning",
              expect=["no judged document is relevant", "highest grade is 0"])  # fmt: skip
    case("prefer-level-above-grades", "structure", "qrels",
         {"qrels": QRELS, "a": RUN, "b": RUN_B}, ["prefer", "-l", "3", "@qrels", "@a", "@b"],
         "error", ["qrels", "no judged document is relevant", "-l 3"])  # fmt: skip
    recsys_case("recsys-no-common-user", "structure", "recommendation list",
                recs=RECS.replace(b"u", b"user"),
                expect=["recs.tsv", "no user of the recommendation lists is in the test log",
                        "'user1'", "'u1'"])  # fmt: skip
    case("compare-one-run", "structure", "run", {"qrels": QRELS, "run": RUN},
         ["compare", "@qrels", "@run"], "error", ["at least two runs"])  # fmt: skip
    # two files of one name: told apart by the ends of their paths (issue 22)
    case("runs-of-one-name", "structure", "run",
         {"qrels": QRELS, "a/run": RUN, "b/run": RUN_B},
         ["compare", "@qrels", "@a/run", "@b/run"], "output", ["a/run", "b/run"])  # fmt: skip
    case("compare-same-run-twice", "structure", "run", {"qrels": QRELS, "a": RUN},
         ["compare", "@qrels", "@a", "@a"], "error",
         ["a is given twice", "runs must be distinct for a comparison"])  # fmt: skip
    case("prefer-same-run-twice", "structure", "run", {"qrels": QRELS, "a": RUN},
         ["prefer", "@qrels", "@a", "@a"], "error",
         ["a is given twice", "runs must be distinct for preferences"])  # fmt: skip

    # -- options -------------------------------------------------------------------------
    for value in ("0", "-5"):
        eval_case(f"eval-depth-{value}", "options", "-M", options=["-M", value],
                  expect=[f"-M must be at least 1 (got {value})"])  # fmt: skip
    for option, value, words in [
        ("-M", "1_000", "expected a whole number"),
        ("-M", "99999999999999999999", "must be at most"),
        ("-l", "x", "expected a whole number"),
        ("-l", "1.5", "expected a whole number"),
        ("-N", "-1", "must be at least 0"),
    ]:
        eval_case(f"eval-option{option}-{value}", "options", option, options=[option, value],
                  kind="usage", expect=[f"argument {option}", words])  # fmt: skip
    eval_case("eval-level-negative", "options", "-l", options=["-l", "-1"],
              expect=["relevance_level must be >= 0 (-l -1)"])  # fmt: skip
    eval_case("eval-cutoff-zero", "options", "-m", options=["-m", "P@0"],
              expect=["cutoff='0' must be >= 1"])  # fmt: skip
    eval_case("eval-cutoff-list-zero", "options", "-m", options=["-m", "P.0"],
              expect=["'P.0'", "cutoffs must be positive"])  # fmt: skip
    case("compare-depth-huge", "options", "-M", {"qrels": QRELS, "a": RUN, "b": RUN_B},
         ["compare", "-M", "99999999999999999999", "@qrels", "@a", "@b"], "usage",
         ["argument -M", "must be at most"])  # fmt: skip
    for option, value, words in [
        ("--alpha", "0", "strictly between 0 and 1"),
        ("--alpha", "nan", "expected a finite number"),
        ("--permutations", "0", "must be at least 1"),
        ("--seed", "-1", "must be at least 0"),
    ]:
        case(f"compare-option{option}-{value}", "options", option,
             {"qrels": QRELS, "a": RUN, "b": RUN_B},
             ["compare", option, value, "@qrels", "@a", "@b"], "usage",
             [f"argument {option}", words])  # fmt: skip
    case("compare-baseline-unknown", "options", "--baseline",
         {"qrels": QRELS, "a": RUN, "b": RUN_B},
         ["compare", "--baseline", "c", "@qrels", "@a", "@b"], "error",
         ["baseline 'c' is not one of the runs (a, b)"])  # fmt: skip
    case("compare-html-over-qrels", "options", "--html",
         {"qrels": QRELS, "a": RUN, "b": RUN_B},
         ["compare", "--html", "@qrels", "@qrels", "@a", "@b"], "error",
         ["--html", "would overwrite an input file"])  # fmt: skip
    case("report-output-over-run", "options", "-o", {"qrels": QRELS, "a": RUN, "b": RUN_B},
         ["report", "-o", "@b", "@qrels", "@a", "@b"], "error",
         ["--output", "would overwrite an input file"])  # fmt: skip
    for option, value, words in [
        ("--samples", "0", "must be at least 1"),
        ("--seed", "-1", "must be at least 0"),
        ("--alpha", "1", "strictly between 0 and 1"),
    ]:
        case(f"meta-option{option}-{value}", "options", option,
             {"qrels": QRELS, "a": RUN, "b": RUN_B},
             ["meta", option, value, "@qrels", "@a", "@b"], "usage",
             [f"argument {option}", words])  # fmt: skip
    case("meta-plot-without-robustness", "options", "--plot",
         {"qrels": QRELS, "a": RUN, "b": RUN_B},
         ["meta", "--no-robustness", "--plot", "curves.png", "@qrels", "@a", "@b"], "error",
         ["--plot", "--no-robustness"])  # fmt: skip
    case("ndeval-depth-zero", "options", "-M", {"div": DIVERSITY, "run": RUN},
         ["ndeval", "-M", "0", "@div", "@run"], "error", ["-M must be at least 1 (got 0)"])  # fmt: skip
    case("ndeval-alpha-two", "options", "-alpha", {"div": DIVERSITY, "run": RUN},
         ["ndeval", "-alpha", "2", "@div", "@run"], "error", ["-alpha must be between 0 and 1"])  # fmt: skip
    for value, kind, words in [
        ("abc", "usage", ["argument --threshold", "expected a finite number or none"]),
        ("nan", "usage", ["argument --threshold", "expected a finite number or none"]),
    ]:
        recsys_case(f"recsys-threshold-{value}", "options", "--threshold",
                    options=["--threshold", value], kind=kind, expect=words)  # fmt: skip
    recsys_case("recsys-cutoff-zero", "options", "-k", options=["-k", "0"],
                expect=["-k must be >= 1 (got 0)"])  # fmt: skip
    recsys_case("recsys-cutoff-huge", "options", "-k", options=["-k", "1" * 25], kind="usage",
                expect=["argument -k", "must be at most"])  # fmt: skip

    # -- names ---------------------------------------------------------------------------
    eval_case("measure-typo", "names", "-m", options=["-m", "mapp"],
              expect=["unknown measure 'mapp'", "did you mean"])  # fmt: skip
    eval_case("measure-wrong-case", "names", "-m", options=["-m", "NDCG@10"],
              expect=["unknown measure 'NDCG@10'; did you mean nDCG@10?"])  # fmt: skip
    case("preference-method-wrong-case", "names", "-m", {"qrels": QRELS, "a": RUN, "b": RUN_B},
         ["prefer", "-m", "rpp", "@qrels", "@a", "@b"], "error",
         ["unknown preference method 'rpp'; did you mean RPP?"])  # fmt: skip
    case("example-measure-typo", "names", "-m", {}, ["example", "-m", "mapp"], "error",
         ["unknown measure 'mapp'"])  # fmt: skip
    case("qrels-given-as-prefs", "names", "prefs", {"qrels": QRELS, "run": RUN},
         ["eval", "-R", "prefs", "@qrels", "@run"], "error", ["qrels:1", "expected 5 fields"])  # fmt: skip
    case("prefs-given-as-qrels", "names", "qrels", {"prefs": PREFS, "run": RUN},
         ["eval", "@prefs", "@run"], "error", ["prefs:1", "expected 4 fields, found 5"])  # fmt: skip
    case("qrels-given-as-zscores", "names", "zscores", {"qrels": QRELS, "run": RUN},
         ["eval", "-m", "map", "-Z", "@qrels", "@qrels", "@run"], "error", ["qrels:1"])  # fmt: skip
    case("log-given-as-qrels", "names", "qrels", {"test.tsv": TEST_LOG, "run": RUN},
         ["eval", "@test.tsv", "@run"], "error", ["test.tsv:1", "expected 4 fields, found 3"])  # fmt: skip
    case("prefs-given-to-ndeval", "names", "diversity qrels", {"prefs": PREFS, "run": RUN},
         ["ndeval", "@prefs", "@run"], "error", ["prefs:1", "expected 4 fields, found 5"])  # fmt: skip
    case("prefs-measure-on-qrels", "names", "-m", {"qrels": QRELS, "run": RUN},
         ["eval", "-m", "prefs_simp", "@qrels", "@run"], "error", ["prefs_simp", "-R prefs"])  # fmt: skip
    case("unknown-option", "names", "argparse", {"qrels": QRELS, "run": RUN},
         ["eval", "--cutoff", "5", "@qrels", "@run"], "usage", ["unrecognized arguments"])  # fmt: skip

    # -- DataFrames, Parquet and dicts, through the API ------------------------------------
    qrels_frame = {"query_id": ["1", "1", "1", "2", "2", "2"],
                   "doc_id": ["d1", "d2", "d3", "d1", "d4", "d5"], "relevance": [1, 0, 2, 0, 1, 1]}  # fmt: skip
    run_frame = {"query_id": ["1", "1", "1", "2", "2", "2"],
                 "doc_id": ["d1", "d2", "d9", "d4", "d1", "d5"],
                 "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0]}  # fmt: skip

    def api(name, family, call, kind, expect=None, twin=None, files=None):
        case(name, family, "api", files or {}, call, kind, expect, twin)

    def evaluate(qrels, run):
        return {"api": "evaluate", "qrels": qrels, "runs": {"r": run}, "measures": ["AP", "P@2"]}

    api("frame-run-score-nan", "numbers",
        evaluate({"frame": qrels_frame}, {"frame": run_frame | {"score": [3.0, float("nan"), 1.0, 3.0, 2.0, 1.0]}}),
        "error", ["row 1", "score nan"])  # fmt: skip
    api("frame-qrels-grade-real", "numbers",
        evaluate({"frame": qrels_frame | {"relevance": [1, 0, 1.5, 0, 1, 1]}}, {"frame": run_frame}),
        "error", ["row 2", "1.5", "is not an integer"])  # fmt: skip
    api("frame-run-score-text", "numbers",
        evaluate({"frame": qrels_frame}, {"frame": run_frame | {"score": ["3", "2", "1_0", "3", "2", "1"]}}),
        "error", ["row 2", "'1_0'"])  # fmt: skip
    api("frame-run-no-score-column", "fields",
        evaluate({"frame": qrels_frame}, {"frame": {k: v for k, v in run_frame.items() if k != "score"}}),
        "error", ["score"])  # fmt: skip
    api("frame-run-duplicate-document", "structure",
        evaluate({"frame": qrels_frame}, {"frame": {k: v + v[:1] for k, v in run_frame.items()}}),
        "error", ["document 'd1' appears twice for query '1'", "rows 0 and 6"])  # fmt: skip
    api("frame-equals-file", "structure", evaluate({"frame": qrels_frame}, {"frame": run_frame}),
        "identical", twin=evaluate({"file": "qrels"}, {"file": "run"}),
        files={"qrels": QRELS, "run": RUN})  # fmt: skip
    api("parquet-run-score-inf", "numbers",
        evaluate({"frame": qrels_frame}, {"parquet": run_frame | {"score": [3.0, 2.0, float("inf"), 3.0, 2.0, 1.0]}}),
        "error", ["run_r.parquet: row 2", "score inf"])  # fmt: skip
    api("parquet-qrels-empty", "files",
        evaluate({"parquet": {k: [] for k in qrels_frame}}, {"frame": run_frame}),
        "error", ["qrels.parquet: no"])  # fmt: skip
    api("parquet-equals-file", "structure", evaluate({"parquet": qrels_frame}, {"parquet": run_frame}),
        "identical", twin=evaluate({"file": "qrels"}, {"file": "run"}),
        files={"qrels": QRELS, "run": RUN})  # fmt: skip
    api("dict-run-score-text", "numbers",
        evaluate({"dict": {"1": {"d1": 1}}}, {"dict": {"1": {"d1": "high"}}}),
        "error", ["'high'", "is not a number"])  # fmt: skip
    api("frame-log-rating-nan", "numbers",
        {"api": "recsys", "test": {"frame": {"user": ["u1", "u2"], "item": ["i1", "i2"],
         "rating": [5.0, float("nan")]}}, "recs": {"file": "recs.tsv"}},
        "error", ["row 1", "rating"], files={"recs.tsv": RECS})  # fmt: skip


# -- writing ---------------------------------------------------------------------------------


def declare_newer() -> None:
    """The cases of the commands added since the first corpus, one module per area in
    ``newer/`` (each defines ``declare(make)`` and calls ``make.case`` and the helpers above)."""
    for path in sorted((HERE / "newer").glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"bad_inputs_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        before = len(ALL)
        module.declare(SimpleNamespace(**globals()))
        for declared in ALL[before:]:
            declared["area"] = path.stem


def write(root: Path) -> None:
    """Write every case under ``root`` (emptied first) and ``root/manifest.json``."""
    ALL.clear()
    declare()
    declare_newer()
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    manifest = []
    for c in ALL:
        folder = root / c["name"]
        folder.mkdir()
        files = dict(c.pop("files")) | dict(c.pop("extra_files", {}) or {})
        for name, data in sorted(files.items()):
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        c["files"] = sorted(files)
        manifest.append(c)
    text = json.dumps(manifest, indent=1, ensure_ascii=True, allow_nan=True) + "\n"
    (root / "manifest.json").write_text(text, encoding="ascii", newline="\n")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else CASES)
    print(f"{len(ALL)} cases written")
