"""p-values print one way in every text table (`rankscope.report.marks.p_value`):
``<0.0001`` below 10^-4, four decimals otherwise, ``–`` for none; CSV and JSON keep the
float.  Each command below is given a difference so consistent that its p-value is 0."""

from __future__ import annotations

import math

from rankscope.report.marks import p_value
from tests.conftest import run_cli, write_qrels, write_ranked_run

QUERIES = [f"q{i}" for i in range(30)]


def test_the_one_format():
    assert p_value(0.0) == p_value(9.9e-5) == "<0.0001"
    assert p_value(1e-4) == "0.0001"
    assert p_value(0.04567) == "0.0457"
    assert p_value(None) == p_value(math.nan) == "–"


def _runs(tmp_path):
    """Judgments with one relevant document per query, a run that ranks it first and one
    that ranks it second on every query: AP 1 against 0.5, a constant difference."""
    qrels = write_qrels(tmp_path / "qrels", {q: {"r": 1} for q in QUERIES})
    first = write_ranked_run(tmp_path / "first", "first", {q: ["r", "x"] for q in QUERIES})
    second = write_ranked_run(tmp_path / "second", "second", {q: ["x", "r"] for q in QUERIES})
    return qrels, first, second


def test_compare_prints_a_tiny_p_value_as_below_1e_4(tmp_path, capsys):
    qrels, first, second = _runs(tmp_path)
    code, out, _ = run_cli(["compare", "-m", "AP", qrels, second, first], capsys)
    row = next(line for line in out.splitlines() if line.startswith("first"))
    assert code == 0 and row.split()[6] == "<0.0001▲", out


def test_reproduce_prints_a_tiny_p_value_as_below_1e_4(tmp_path, capsys):
    qrels, first, second = _runs(tmp_path)
    args = ["reproduce", "-m", "AP", "--original", second, first, "--reproduced", first, second]
    code, out, _ = run_cli([*args, qrels], capsys)
    row = next(line for line in out.splitlines() if "p (paired t-test)" in line)
    assert code == 0 and row.split()[-2:] == ["<0.0001", "<0.0001"], out
    code, out, _ = run_cli([*args, "--format", "csv", qrels], capsys)
    assert code == 0 and "p (paired t-test),0.0,0.0" in out


def test_recsys_folds_prints_a_tiny_p_value_as_below_1e_4(tmp_path, capsys):
    folder = tmp_path / "folds"
    folder.mkdir()
    for i in (1, 2, 3):
        (folder / f"u{i}.base").write_text(f"u\ta\t5\t1\nv\tb\t4\t{i}\n")
        (folder / f"u{i}.test").write_text("u\tb\t5\t3\nv\ta\t4\t4\n")
    recs = tmp_path / "recs"
    for name, lists in (("good", "u\tb\t1\nv\ta\t1\n"), ("bad", "u\tc\t1\nv\tc\t1\n")):
        (recs / name).mkdir(parents=True)
        for i in (1, 2, 3):
            (recs / name / f"u{i}.tsv").write_text(lists)
    args = ["recsys", "--folds", str(folder), str(recs), "-m", "P@1", "--baseline", "bad"]
    code, out, _ = run_cli(args, capsys)
    row = next(line for line in out.splitlines() if line.split()[:2] == ["P@1", "good"])
    assert code == 0 and row.split()[-1] == "<0.0001", out
