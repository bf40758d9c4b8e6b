"""How the command line fails: a user's mistake (bad input, a bad option value, an unknown
measure, a missing file) is one line on stderr and exit status 2; a bug in rankscope is its
traceback, a line asking to report it, and exit status 70."""

from __future__ import annotations

import subprocess
import sys

import pytest

import rankscope.api
import rankscope.report.evaluation
from rankscope.cli import EXIT_INTERNAL_ERROR, EXIT_USER_ERROR
from tests.conftest import run_cli

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\n"
RUN = "q1 Q0 d1 1 2.0 A\nq1 Q0 d2 2 1.0 A\nq2 Q0 d1 1 1.0 A\n"
TEST_LOG = "u1\ti1\t5\nu1\ti2\t1\nu2\ti1\t4\n"
RECS = "u1\ti1\t0.9\nu1\ti3\t0.5\nu2\ti2\t0.7\n"


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in [
        ("qrels", QRELS),
        ("run", RUN),
        ("badqrels", "q1 0 d1 1\nq1 0 d2\n"),
        ("test", TEST_LOG),
        ("recs", RECS),
    ]:
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    paths["absent"] = tmp_path / "absent"
    paths["dir"] = tmp_path
    return {k: str(v) for k, v in paths.items()}


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("rankscope: error: "), err
    return lines[0].removeprefix("rankscope: error: ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # an unknown measure, in either spelling, and a bad parameter of a known one
        (["eval", "-m", "foo", "{qrels}", "{run}"], "unknown measure 'foo'"),
        (["eval", "-m", "nDCG@x", "{qrels}", "{run}"], "cutoff='x' is not a valid int"),
        (["eval", "-m", "P(rel=x)@5", "{qrels}", "{run}"], "parameter rel='x' is not a valid int"),
        (["recsys", "{test}", "{recs}", "-m", "Gin@3"], "unknown measure 'Gin@3'"),
        # files: absent, a directory, a malformed line
        (["eval", "{qrels}", "{absent}"], "absent"),
        (["eval", "{dir}", "{run}"], "Is a directory"),
        (["eval", "{badqrels}", "{run}"], "badqrels:2: expected 4 fields, found 3"),
        # option values the parser accepts but the command does not
        (["eval", "-l", "-1", "{qrels}", "{run}"], "relevance_level must be >= 0"),
        (["ndeval", "-alpha", "2", "{qrels}", "{run}"], "-alpha must be between 0 and 1"),
        (["recsys", "{test}", "{recs}", "-k", "0"], "k must be >= 1"),
        (["recsys", "{test}"], "needs a TEST file and at least one RECS file"),
        (["recsys", "{test}", "{recs}", "-m", "Novelty"], "Novelty@10 needs item popularity"),
        (
            ["recsys", "{test}", "{recs}", "--relevance", "graded", "--threshold", "none"],
            "relevance='graded' needs ratings in the test data and a threshold",
        ),
        (["eval", "-R", "qrels_jg", "-m", "map", "{qrels}", "{run}"], "needs qrels (-R qrels)"),
    ],
)
def test_a_user_error_is_one_line_and_status_2(files, capsys, args, message):
    code, out, err = run_cli([a.format(**files) for a in args], capsys)
    assert code == EXIT_USER_ERROR == 2
    assert message in one_error_line(err)
    assert out == ""


@pytest.mark.parametrize(
    "args",
    [
        ["eval", "--ties", "random", "{qrels}", "{run}"],
        ["eval", "-l", "one", "{qrels}", "{run}"],
        ["recsys", "--threshold", "high", "{test}", "{recs}"],
        ["prefer", "--ordering", "vote", "{qrels}", "{run}", "{run}"],
        ["eval", "--no-such-option", "{qrels}", "{run}"],
    ],
)
def test_a_bad_option_is_argparse_usage_and_status_2(files, capsys, args):
    with pytest.raises(SystemExit) as info:
        run_cli([a.format(**files) for a in args], capsys)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: rankscope ")
    assert "error: argument" in err or "unrecognized arguments" in err
    assert "Traceback" not in err


def internal_error(err: str, exception: str) -> None:
    """A traceback ending in ``exception``, then the line asking to report the bug."""
    lines = err.splitlines()
    assert lines[0] == "Traceback (most recent call last):", err
    assert lines[-2].startswith(exception), err
    assert lines[-1].startswith("rankscope: internal error: please report it at "), err
    assert lines[-1].endswith(", with the command line"), err
    assert "rankscope: error:" not in err


def test_a_bug_is_a_traceback_and_status_70(files, capsys, monkeypatch):
    def broken(*args, **kwargs):
        return 1 / 0

    monkeypatch.setattr(rankscope.api, "evaluate_many", broken)
    code, out, err = run_cli(["eval", files["qrels"], files["run"]], capsys)
    assert code == EXIT_INTERNAL_ERROR == 70
    internal_error(err, "ZeroDivisionError: division by zero")
    assert "in broken" in err  # the traceback reaches the faulty code
    assert out == ""


def test_a_plain_value_error_is_a_bug_too(files, capsys, monkeypatch):
    """Only `RankscopeError` (and `OSError`) are the user's mistakes: a ``ValueError`` from
    numpy or from rankscope's own code is a bug, not a message to the user."""

    def broken(*args, **kwargs):
        raise ValueError("operands could not be broadcast together")

    monkeypatch.setattr(rankscope.report.evaluation, "format_evaluations", broken)
    code, out, err = run_cli(["eval", files["qrels"], files["run"]], capsys)
    assert code == EXIT_INTERNAL_ERROR
    internal_error(err, "ValueError: operands could not be broadcast together")


def test_the_process_exits_with_70_on_a_bug(files):
    script = (
        "import sys, rankscope.api\n"
        "def broken(*args, **kwargs):\n"
        "    raise KeyError('q1')\n"
        "rankscope.api.evaluate_many = broken\n"
        "from rankscope.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, "eval", files["qrels"], files["run"]],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 70
    assert result.stdout == ""
    internal_error(result.stderr, "KeyError: 'q1'")


def test_the_process_exits_with_2_on_a_user_error(files):
    result = subprocess.run(
        [sys.executable, "-m", "rankscope", "eval", files["badqrels"], files["run"]],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert "badqrels:2:" in one_error_line(result.stderr)
