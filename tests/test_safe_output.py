"""No control character from a user's file reaches the terminal or a CSV raw (an ANSI escape in
a query id or run tag could clear the screen or retitle the terminal): it is written as its
escape.  Printable text, so trec_eval-format output, is unchanged.  Messages quote a bounded
excerpt of a bad token."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import run_cli

ESC = "\x1b[2J"


def _files(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text(f"q{ESC} 0 d1 1\nq2 0 d2 1\n")
    run = tmp_path / "run"
    run.write_text(f"q{ESC} Q0 d1 1 2.0 tag{ESC}\nq2 Q0 d2 1 1.0 tag{ESC}\n")
    return str(qrels), str(run)


def test_trec_text_table_and_csv_escape_control_characters(tmp_path, capsys):
    qrels, run = _files(tmp_path)
    code, out, _ = run_cli(["eval", "-q", "-m", "runid", "-m", "P.1", "--names", "tag",
                            qrels, run], capsys)  # fmt: skip
    assert code == 0 and "\x1b" not in out
    assert "P_1                   \tq\\x1b[2J\t1.0000\n" in out
    assert "runid                 \tall\ttag\\x1b[2J\n" in out
    for fmt in ("table", "csv"):
        code, out, _ = run_cli(
            ["eval", "--format", fmt, "-q", "-m", "P.1", "--names", "tag", qrels, run], capsys
        )
        assert code == 0 and "\x1b" not in out and "tag\\x1b[2J" in out, fmt


def test_error_messages_escape_and_bound_what_they_quote(tmp_path, capsys):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    run = tmp_path / "run"
    run.write_text(f"q{ESC} Q0 d1 1 {'9' * 100_000}x tag\n")
    code, _, err = run_cli(["eval", str(qrels), str(run)], capsys)
    assert code == 2 and "\x1b" not in err
    assert len(err) < 400 and "100,001 characters" in err
    code, _, err = run_cli(["eval", str(qrels), str(tmp_path / f"missing{ESC}")], capsys)
    assert code == 2 and "\x1b" not in err and "missing\\x1b[2J" in err


def test_printable_output_is_unchanged(tmp_path, capsys):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 1.0 tag-é\n")
    code, out, _ = run_cli(["eval", "-m", "runid", str(qrels), str(run)], capsys)
    assert code == 0 and out == "runid                 \tall\ttag-é\n"


def test_undecodable_bytes_show_as_their_escape_and_raw_in_trec_format(tmp_path, capsys):
    """A Latin-1 byte in a query id (``q\\xe9``): ``\\xe9`` in every table and message, not
    Python's ``\\udce9``; trec_eval's format writes the byte back as read, as trec_eval does."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(b"q\xe9 0 d1 1\nq2 0 d2 1\n")
    run.write_bytes(b"q\xe9 Q0 d1 1 2.0 t\nq2 Q0 d2 1 1.0 t\n")
    for fmt in ("table", "csv"):  # (JSON escapes it its own way, keeping the value)
        code, out, _ = run_cli(["eval", "--format", fmt, "-q", "-m", "P.1", str(qrels), str(run)],
                               capsys)  # fmt: skip
        assert code == 0 and "q\\xe9" in out and "udc" not in out, fmt
    done = subprocess.run(
        [sys.executable, "-m", "rankscope", "eval", "-q", "-m", "P.1", str(qrels), str(run)],
        capture_output=True, check=True,
    )  # fmt: skip
    assert b"P_1                   \tq\xe9\t1.0000\n" in done.stdout


def test_explain_escapes_the_query_in_its_title(tmp_path, capsys):
    qid = "q\x1b]0;x\x07"
    qrels, a, b = tmp_path / "qrels", tmp_path / "a", tmp_path / "b"
    qrels.write_text(f"{qid} 0 d1 1\n{qid} 0 d2 1\n")
    a.write_text(f"{qid} Q0 d1 1 2.0 t\n{qid} Q0 d2 2 1.0 t\n")
    b.write_text(f"{qid} Q0 d2 1 2.0 u\n{qid} Q0 d1 2 1.0 u\n")
    code, out, _ = run_cli(["explain", "--query", qid, str(qrels), str(a), str(b)], capsys)
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    assert out.startswith("a (A) against b (B), query q\\x1b]0;x\\x07: 2 recall levels")
